//! Memory held by many live streams, as a server with a compressed connection per client holds
//! them: each stream sync-flushes (or inflates) one short message per call. Linux only (it
//! reads the process's resident set); the only test in its binary, so no other test's memory
//! is counted.

use hyperz_engine::deflate::{Deflater, Flush, Params};
use hyperz_engine::inflate::Inflater;
use hyperz_engine::Format;

/// The process's resident set in KiB.
fn rss_kib() -> usize {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = s.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn message(i: usize, s: usize) -> Vec<u8> {
    format!(
        "{{\"id\": {i}, \"stream\": {s}, \"user\": \"u{}\", \"path\": \"/items/{}\"}}",
        i * 7919 % 501,
        (i * 104_729 + s) % 10_007
    )
    .into_bytes()
}

const STREAMS: usize = 200;
const MESSAGES: usize = 400;

#[cfg(target_os = "linux")]
#[test]
fn many_live_streams_hold_what_their_parameters_ask() {
    // glibc raises its threshold for mapping a block when it frees a mapped one, after which
    // large blocks come from the heap, where `calloc` writes every page: a long-running server
    // gets there soon. Do it first.
    drop(std::hint::black_box(vec![1u8; 16 << 20]));
    let mut obuf = vec![0u8; 1 << 16];
    let mut pieces = Vec::new();
    // Every stream stays alive to the end, so none's memory is reused by the next.
    let mut alive = Vec::new();
    // Window 4 KiB, memory level 5 (zlib holds 41 KiB per stream), levels 1 and 6; before
    // their tables took memory for the pages the stream uses only, each held 570 and 235 KiB.
    for level in [1, 6] {
        let before = rss_kib();
        let params = Params {
            level,
            window_bits: 12,
            mem_level: 5,
            ..Params::default()
        };
        let mut ds: Vec<Deflater> = (0..STREAMS)
            .map(|_| Deflater::new(Format::Raw, params).unwrap())
            .collect();
        for i in 0..MESSAGES {
            for (s, d) in ds.iter_mut().enumerate() {
                let m = message(i, s);
                let st = d.deflate(&m, &mut obuf, Flush::Sync).unwrap();
                assert_eq!(st.consumed, m.len());
                if s == 0 && level == 6 {
                    pieces.push(obuf[..st.produced].to_vec());
                }
            }
        }
        let per = (rss_kib() - before) / STREAMS;
        alive.push(ds);
        eprintln!("level {level}: {per} KiB per stream");
        assert!(per < 160, "level {level}: {per} KiB per stream");
    }
    // Inflating one message per call: a 36 KiB window, not 96 (zlib: 32 KiB).
    let before = rss_kib();
    let mut is: Vec<Inflater> = (0..STREAMS)
        .map(|_| Inflater::new(Format::Raw, 15))
        .collect();
    for (i, p) in pieces.iter().enumerate() {
        for inf in is.iter_mut() {
            let st = inf.inflate(p, &mut obuf).unwrap();
            assert_eq!(&obuf[..st.produced], &message(i, 0)[..]);
        }
    }
    let per = (rss_kib() - before) / STREAMS;
    drop(alive);
    eprintln!("inflate: {per} KiB per stream");
    assert!(per < 64, "inflate: {per} KiB per stream");
}
