//! gzip interoperation in both directions: every stream hyperz writes decodes with GNU gzip,
//! pigz, igzip, libdeflate-gzip and Python; every stream those tools write decodes with hyperz.
//! Compressed bytes are never compared with another tool's, only the decoded data.

use hyperz_engine::{deflate, inflate, Format};
use hyperz_tests::{edge_inputs, gzip_compressors, gzip_decompressors, run_tool, sample_files};

fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut all = sample_files();
    all.extend(edge_inputs());
    all
}

#[test]
fn our_gzip_streams_decode_with_every_peer() {
    let inputs = inputs();
    for level in [0u32, 1, 4, 6, 9, 12] {
        for (name, data) in &inputs {
            let gz = deflate::compress(Format::Gzip, data, level);
            for (peer, program, args) in gzip_decompressors() {
                let out = run_tool(program, &args, &gz);
                assert!(out == *data, "{peer} decoded level-{level} {name} wrongly");
            }
        }
    }
}

#[test]
fn peer_gzip_streams_decode_with_hyperz() {
    for (name, data) in inputs() {
        for (peer, program, args) in gzip_compressors() {
            let gz = run_tool(program, &args, &data);
            let out = inflate::decompress(Format::Gzip, &gz)
                .unwrap_or_else(|e| panic!("hyperz failed on {peer} output of {name}: {e}"));
            assert!(
                out == data,
                "hyperz decoded {peer} output of {name} wrongly"
            );
        }
    }
}

#[test]
fn concatenated_members_from_different_tools_decode_as_one_stream() {
    let files = sample_files();
    let mut expected = Vec::new();
    let mut stream = Vec::new();
    for ((_, data), (_, program, args)) in files.iter().zip(gzip_compressors().iter().cycle()) {
        stream.extend(run_tool(program, args, data));
        expected.extend_from_slice(data);
    }
    stream.extend(deflate::compress(Format::Gzip, b"tail member", 6));
    expected.extend_from_slice(b"tail member");
    assert!(inflate::decompress(Format::Gzip, &stream).unwrap() == expected);
}
