//! Decodes raw DEFLATE files (as `hyperz-bench` does: one reused decoder, a presized output
//! buffer) and prints MB/s of output per file and in total, best of N rounds taken round-robin.
//! With `-z` the files are zlib streams (the harness's common stream), whose Adler-32 the
//! decoder verifies.
//!
//! `cargo run --release -p hyperz-engine --example inflate_raw -- [-n N] [-z] FILES...`
//! For development only; the side-by-side comparison with peers is `hyperz-bench`.
use hyperz_engine::inflate::{self, Decompressor};
use hyperz_engine::Format;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let mut rounds = 20;
    let mut format = Format::Raw;
    loop {
        match args.peek().map(String::as_str) {
            Some("-n") => {
                args.next();
                rounds = args.next().unwrap().parse().unwrap();
            }
            Some("-z") => {
                args.next();
                format = Format::Zlib;
            }
            _ => break,
        }
    }
    let files: Vec<(String, Vec<u8>, usize)> = args
        .map(|p| {
            let raw = std::fs::read(&p).unwrap();
            let n = inflate::decompress(format, &raw).unwrap().len();
            (p, raw, n)
        })
        .collect();
    let mut d = Decompressor::new(format);
    let mut best = vec![f64::MAX; files.len()];
    let mut out = Vec::new();
    for _ in 0..rounds {
        for (k, (_, raw, n)) in files.iter().enumerate() {
            out.clear();
            out.resize(*n, 0);
            let t = Instant::now();
            let got = d.decompress_member_into(raw, &mut out).unwrap();
            best[k] = best[k].min(t.elapsed().as_secs_f64());
            assert_eq!(got.1, *n);
        }
    }
    let (mut total, mut secs) = (0usize, 0f64);
    for ((p, _, n), b) in files.iter().zip(&best) {
        let name = p.rsplit('/').next().unwrap();
        println!("{name:>24} {n:>9} B {:8.1} MB/s", *n as f64 / b / 1e6);
        total += n;
        secs += b;
    }
    println!(
        "{:>24} {total:>9} B {:8.1} MB/s",
        "TOTAL",
        total as f64 / secs / 1e6
    );
}
