//! Every distance the engine writes fits the window its parameters declare (`windowBits` 9-15):
//! a decoder with that window, such as zlib inflating in small output pieces, rejects a match
//! that reaches further ("invalid distance too far back"), while decoding in one piece, as
//! our own decoder and zlib's one-call inflate do, would let it pass. Read back symbol by
//! symbol at every level.

use hyperz_engine::deflate::{Deflater, Flush, Params};
use hyperz_engine::{inflate, Format};
use hyperz_tests::sample_files;
use hyperz_tests::symbols::deflate_blocks;

#[test]
fn distances_fit_the_declared_window() {
    // Text and a spreadsheet: matches at every distance up to 32 KiB and beyond.
    let data: Vec<u8> = sample_files()
        .into_iter()
        .flat_map(|(_, d)| d)
        .take(400_000)
        .collect();
    for level in 1..=12u32 {
        for window_bits in [9u8, 10, 12, 15] {
            let p = Params {
                level,
                window_bits,
                ..Params::default()
            };
            let mut d = Deflater::new(Format::Raw, p).unwrap();
            let mut out = vec![0u8; data.len() + data.len() / 8 + 1024];
            let st = d.deflate(&data, &mut out, Flush::Finish).unwrap();
            assert!(st.done);
            out.truncate(st.produced);
            let back = inflate::decompress(Format::Raw, &out).unwrap();
            assert!(back == data, "level {level} window {window_bits}");
            let far = deflate_blocks(&out)
                .iter()
                .flat_map(|b| b.matches.iter().map(|&(_, d)| d as usize))
                .max()
                .unwrap_or(0);
            let window = 1usize << window_bits;
            assert!(
                far <= window,
                "level {level} window {window}: distance {far}"
            );
            // The test has teeth: the larger windows are used.
            assert!(
                window_bits < 15 || far > 16_384,
                "level {level}: farthest {far}"
            );
        }
    }
}
