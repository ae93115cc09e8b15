//! Time per message of a zlib stream sync-flushed after every message (permessage-deflate, log
//! shippers): the streaming compressor at the given levels, best of N runs, and the stream's
//! size. The messages are JSON-like lines that share most of their fields.
//!
//! `cargo run --release -p hyperz-engine --example flush_speed -- [-n N] [-m MESSAGES]
//! [-l 1,6] [-w WINDOW_BITS] [-M MEM_LEVEL] [-f none|partial|sync|full]`
//! (`-f none`: the messages are written without a flush, the stream finished after them.)
//! For development only.

use hyperz_engine::deflate::{Deflater, Flush, Params};
use hyperz_engine::Format;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut rounds, mut count, mut window_bits, mut mem_level) = (5, 20_000usize, 15u8, 8u8);
    let mut levels: Vec<u32> = vec![1, 6];
    let mut flush = Flush::Sync;
    while let Some(a) = args.next() {
        let v = args.next().expect("a value after each option");
        match a.as_str() {
            "-n" => rounds = v.parse().unwrap(),
            "-m" => count = v.parse().unwrap(),
            "-l" => levels = v.split(',').map(|s| s.parse().unwrap()).collect(),
            "-w" => window_bits = v.parse().unwrap(),
            "-M" => mem_level = v.parse().unwrap(),
            "-f" => {
                flush = match v.as_str() {
                    "none" => Flush::None,
                    "partial" => Flush::Partial,
                    "sync" => Flush::Sync,
                    "full" => Flush::Full,
                    _ => panic!("unknown flush {v}"),
                }
            }
            _ => panic!("unknown option {a}"),
        }
    }
    let mut x = 0x2545_F491u32;
    let messages: Vec<Vec<u8>> = (0..count)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            format!(
                "{{\"seq\":{i},\"user\":\"u{}\",\"event\":\"{}\",\"value\":{},\"ok\":true}}\n",
                x % 500,
                ["click", "view", "scroll", "login"][(x >> 9) as usize % 4],
                x % 100_000
            )
            .into_bytes()
        })
        .collect();
    println!("level  us/message  bytes");
    for &level in &levels {
        let params = Params {
            level,
            window_bits,
            mem_level,
            ..Params::default()
        };
        let (mut best, mut size) = (f64::MAX, 0);
        let mut out = vec![0u8; 64 << 10];
        for _ in 0..rounds {
            let mut d = Deflater::new(Format::Zlib, params).unwrap();
            let mut total = 0;
            let t = Instant::now();
            for m in &messages {
                // Called again while the output room fills (stored data at level 0 comes out
                // in 64 KiB at once), as zlib's callers do.
                let mut at = 0;
                loop {
                    let st = d.deflate(&m[at..], &mut out, flush).unwrap();
                    at += st.consumed;
                    total += st.produced;
                    if at == m.len() && st.produced < out.len() {
                        break;
                    }
                }
            }
            loop {
                let st = d.deflate(&[], &mut out, Flush::Finish).unwrap();
                total += st.produced;
                if st.done {
                    break;
                }
            }
            best = best.min(t.elapsed().as_secs_f64());
            size = total;
        }
        println!(
            "{level:>5} {:>11.2} {size:>7}",
            best * 1e6 / messages.len() as f64
        );
    }
}
