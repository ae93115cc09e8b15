//! Fuzz target: arbitrary bytes compressed with an arbitrary level, strategy, container,
//! window and flush/split schedule by the streaming `Deflater` (and the whole-buffer path),
//! then decoded and compared: by miniz_oxide (an independent decoder), by hyperz's whole-buffer
//! decoder and by its streaming decoder fed in data-chosen pieces. The whole-buffer output must
//! stay within `compress_bound`, and equal the streamed output when no flushes were requested.
#![no_main]

use hyperz_engine::deflate::{compress, compress_bound, Deflater, Flush, Params, Strategy};
use hyperz_engine::format::Format;
use hyperz_engine::inflate::{Decompressor, Inflater, StreamState};
use libfuzzer_sys::fuzz_target;

const FLUSHES: [Flush; 6] = [
    Flush::None,
    Flush::None,
    Flush::Partial,
    Flush::Sync,
    Flush::Full,
    Flush::Block,
];

fn decode(format: Format, z: &[u8]) -> Vec<u8> {
    match format {
        Format::Raw => miniz_oxide::inflate::decompress_to_vec(z).expect("raw decode"),
        Format::Zlib => miniz_oxide::inflate::decompress_to_vec_zlib(z).expect("zlib decode"),
        Format::Gzip => {
            assert_eq!(&z[..3], &[0x1f, 0x8b, 8]);
            let body = &z[10..z.len() - 8];
            let d = miniz_oxide::inflate::decompress_to_vec(body).expect("gzip body decode");
            let t = &z[z.len() - 8..];
            let crc = u32::from_le_bytes(t[..4].try_into().unwrap());
            let isize = u32::from_le_bytes(t[4..].try_into().unwrap());
            assert_eq!(crc, hyperz_engine::checksum::crc32(0, &d));
            assert_eq!(isize, d.len() as u32);
            d
        }
    }
}

/// Decodes `z` with hyperz's streaming decoder, `piece` input and output bytes at a time.
fn decode_streamed(format: Format, z: &[u8], piece: usize) -> Vec<u8> {
    let mut inf = Inflater::new(format, 15);
    let mut out = vec![0u8; piece];
    let (mut got, mut pos) = (Vec::new(), 0);
    loop {
        let end = (pos + piece).min(z.len());
        let st = inf
            .inflate(&z[pos..end], &mut out)
            .expect("streamed decode");
        pos += st.consumed;
        got.extend_from_slice(&out[..st.produced]);
        match st.state {
            StreamState::StreamEnd => return got,
            StreamState::NeedDictionary(_) => panic!("no dictionary was set"),
            StreamState::Progress => assert!(
                st.consumed + st.produced > 0 || end < z.len(),
                "streamed decode stalled at input byte {pos}"
            ),
        }
    }
}

fuzz_target!(|input: &[u8]| {
    if input.len() < 6 {
        return;
    }
    let level = (input[0] % 13) as u32;
    let strategy = Strategy::ALL[(input[1] % 5) as usize];
    let format = [Format::Raw, Format::Zlib, Format::Gzip][(input[2] % 3) as usize];
    let window_bits = 9 + input[3] % 7;
    let mut seed = u64::from(u16::from_le_bytes([input[4], input[5]])) | 1;
    let data = &input[6..];
    let mut rnd = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let params = Params {
        level,
        strategy,
        window_bits,
        mem_level: 1 + (input[3] / 7 % 9),
    };
    let mut d = Deflater::new(format, params).unwrap();
    let mut z = Vec::new();
    let mut obuf = vec![0u8; 1 << 16];
    let mut pos = 0;
    let mut flushed = false;
    loop {
        let n = (1 + rnd(4096)).min(data.len() - pos);
        let fin = pos + n == data.len();
        let flush = if fin { Flush::Finish } else { FLUSHES[rnd(6)] };
        flushed |= flush != Flush::None && !fin;
        let mut inp = &data[pos..pos + n];
        loop {
            let olen = 1 + rnd(obuf.len());
            match d.deflate(inp, &mut obuf[..olen], flush) {
                Ok(st) => {
                    z.extend_from_slice(&obuf[..st.produced]);
                    inp = &inp[st.consumed..];
                    if st.done || (inp.is_empty() && st.produced < olen && !fin) {
                        break;
                    }
                }
                Err(_) if inp.is_empty() && !fin => break,
                Err(e) => panic!("deflate: {e:?}"),
            }
        }
        pos += n;
        if fin {
            break;
        }
    }
    assert_eq!(decode(format, &z), data);
    let own = Decompressor::new(format)
        .decompress(&z)
        .expect("hyperz decode");
    assert!(own.data == data, "hyperz's decoder disagrees");
    assert!(
        decode_streamed(format, &z, 1 + rnd(4096)) == data,
        "streamed decode disagrees"
    );
    // The whole-buffer path never exceeds the bound callers size their buffers by.
    let whole = compress(format, data, level);
    assert!(whole.len() <= compress_bound(format, data.len()));
    if !flushed && window_bits == 15 && input[3] / 7 % 9 == 7 && strategy == Strategy::Default {
        assert_eq!(whole, z);
    }
});
