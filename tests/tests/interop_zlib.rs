//! zlib and raw-DEFLATE interoperation with the system zlib, reached through Python's `zlib`
//! module (Python on Debian links the system libz): our zlib and raw streams decode there, and
//! streams the system zlib writes with every level, strategy and window size decode here.

use hyperz_engine::{deflate, inflate, Format};
use hyperz_tests::{edge_inputs, python, sample_files};

const ZLIB_DECODE: &str = "import zlib,sys; w=int(sys.argv[1]); d=zlib.decompressobj(w); \
    o=d.decompress(sys.stdin.buffer.read()); assert d.eof, 'stream not ended'; \
    sys.stdout.buffer.write(o)";

fn system_zlib_decode(wbits: i32, stream: &[u8]) -> Vec<u8> {
    let code = ZLIB_DECODE.replace("int(sys.argv[1])", &wbits.to_string());
    python(&code, stream)
}

#[test]
fn our_zlib_and_raw_streams_decode_with_system_zlib() {
    let mut inputs = sample_files();
    inputs.extend(edge_inputs());
    for level in [0u32, 1, 6, 9, 12] {
        for (name, data) in &inputs {
            let z = deflate::compress(Format::Zlib, data, level);
            assert!(
                system_zlib_decode(15, &z) == *data,
                "zlib level {level} {name}"
            );
            let raw = deflate::compress(Format::Raw, data, level);
            assert!(
                system_zlib_decode(-15, &raw) == *data,
                "raw level {level} {name}"
            );
        }
    }
}

#[test]
fn system_zlib_streams_decode_with_hyperz() {
    // One Python process writes every variant: level x strategy x window bits, zlib framing,
    // length-prefixed on stdout so the test can split them.
    let data = std::fs::read(hyperz_tests::sample_dir().join("alice29.txt")).unwrap();
    let code = r#"
import zlib, sys, struct
d = sys.stdin.buffer.read()
for lvl in range(10):
    for st in (zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED, zlib.Z_HUFFMAN_ONLY, zlib.Z_RLE, zlib.Z_FIXED):
        for wb in (9, 12, 15):
            c = zlib.compressobj(lvl, zlib.DEFLATED, wb, 8, st)
            s = c.compress(d) + c.flush()
            sys.stdout.buffer.write(struct.pack('<IIII', lvl, st, wb, len(s)) + s)
"#;
    let out = python(code, &data);
    let mut rest = &out[..];
    let mut count = 0;
    while !rest.is_empty() {
        let field = |i: usize| u32::from_le_bytes(rest[4 * i..4 * i + 4].try_into().unwrap());
        let (lvl, st, wb, len) = (field(0), field(1), field(2), field(3) as usize);
        let stream = &rest[16..16 + len];
        let got = inflate::decompress(Format::Zlib, stream)
            .unwrap_or_else(|e| panic!("level {lvl} strategy {st} wbits {wb}: {e}"));
        assert!(
            got == data,
            "level {lvl} strategy {st} wbits {wb} decoded wrongly"
        );
        rest = &rest[16 + len..];
        count += 1;
    }
    assert_eq!(count, 10 * 5 * 3);
}
