//! The engine keeps to zlib's strategies at every level, whatever the flushes: read back symbol
//! by symbol (`hyperz_tests::symbols`), a Z_FILTERED stream has no match below six bytes, a
//! Z_HUFFMAN_ONLY stream no match, a Z_RLE stream only distance-one matches and a Z_FIXED
//! stream no dynamic block. Round trips alone cannot show it: a stream that ignores its
//! strategy decodes just as well.

use hyperz_engine::deflate::{Compressor, Deflater, Flush, Params, Strategy};
use hyperz_engine::{inflate, Format};
use hyperz_tests::symbols::{deflate_blocks, Block};
use hyperz_tests::{noise, sample_files, xorshift};

/// Text, a spreadsheet, runs of every length around 258 and noise.
fn mixed() -> Vec<u8> {
    let files = sample_files();
    let get = |n: &str| files.iter().find(|(f, _)| f == n).unwrap().1.clone();
    let mut d = get("alice29.txt")[..120_000].to_vec();
    d.extend(&get("kennedy.xls")[..80_000]);
    for k in 250..270 {
        d.extend(std::iter::repeat_n(b"ab"[k % 2], k));
        d.extend(b"xyz");
    }
    d.extend(noise(20_000));
    d.extend(&get("alice29.txt")[..30_000]);
    d
}

/// Whether `b` keeps to `s`.
fn holds(s: Strategy, b: &Block) -> bool {
    match s {
        Strategy::Default => true,
        Strategy::Filtered => b.matches.iter().all(|&(l, _)| l >= 6),
        Strategy::HuffmanOnly => b.matches.is_empty(),
        Strategy::Rle => b.matches.iter().all(|&(_, d)| d == 1),
        Strategy::Fixed => b.btype != 2,
    }
}

fn check(raw: &[u8], data: &[u8], s: Strategy, what: &str) {
    let back = inflate::decompress(Format::Raw, raw).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(back == data, "{what}: decoded differently");
    let blocks = deflate_blocks(raw);
    if let Some(i) = blocks.iter().position(|b| !holds(s, b)) {
        panic!("{what}: block {i} of {} breaks {s:?}", blocks.len());
    }
    // Default streams of this data have short matches, so the check above has teeth.
    let matches = blocks.iter().map(|b| b.matches.len()).sum::<usize>();
    assert!(
        s == Strategy::HuffmanOnly || matches > 0,
        "{what}: no match"
    );
}

#[test]
fn streams_keep_their_strategy_at_every_level() {
    let data = mixed();
    let mut rnd = xorshift(0x9E37_79B9);
    for level in 1..=12u32 {
        for s in Strategy::ALL {
            let what = format!("level {level} {s:?}");
            // Streaming, in random pieces with sync, full, partial and block flushes.
            let p = Params {
                level,
                strategy: s,
                ..Params::default()
            };
            let mut d = Deflater::new(Format::Raw, p).unwrap();
            let (mut out, mut obuf, mut pos) = (Vec::new(), vec![0u8; 1 << 17], 0);
            while pos < data.len() {
                let n = (1 + rnd() as usize % 50_000).min(data.len() - pos);
                let flush = match (pos + n == data.len(), rnd() % 6) {
                    (true, _) => Flush::Finish,
                    (_, 0) => Flush::Sync,
                    (_, 1) => Flush::Full,
                    (_, 2) => Flush::Partial,
                    (_, 3) => Flush::Block,
                    _ => Flush::None,
                };
                let mut inp = &data[pos..pos + n];
                loop {
                    let st = d.deflate(inp, &mut obuf, flush).unwrap();
                    out.extend_from_slice(&obuf[..st.produced]);
                    inp = &inp[st.consumed..];
                    if st.done || (inp.is_empty() && st.produced < obuf.len()) {
                        break;
                    }
                }
                pos += n;
            }
            check(&out, &data, s, &format!("{what} streamed"));
            // Whole buffer, and in pieces after their history (the engines' jobs).
            let mut c = Compressor::with_strategy(level, s);
            let mut whole = Vec::new();
            c.compress(Format::Raw, &data, &mut whole);
            check(&whole, &data, s, &format!("{what} whole"));
            let mut jobs = Vec::new();
            let mut start = 0usize;
            for end in [70_000, 180_000, data.len()] {
                let from = start.saturating_sub(32 << 10);
                c.compress_raw_window(&data[from..end], start - from, end == data.len(), &mut jobs);
                start = end;
            }
            check(&jobs, &data, s, &format!("{what} jobs"));
        }
    }
}
