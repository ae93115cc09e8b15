//! Per-level ratio and single-thread speed of the hyperz DEFLATE compressor, best of N.
//!
//! `cargo run --release -p hyperz-engine --example deflate_speed -- [-n N] [-l 1,6,12] [-c MIB]
//! [FILES...]`
//! With `-c`, MIB mebibytes of other data are written before each timed call, so the
//! compressor's tables start out of the core's caches, as in the harness, where every peer runs
//! between two calls of ours (the input is read again after that: every peer reads it).
//! Without files it measures data/sample and /work/shared/corpus concatenated (if present).
//! For development only; the official comparison is the bench/ harness.

use hyperz_engine::deflate::Compressor;
use hyperz_engine::format::Format;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let mut n = 3;
    let mut levels: Vec<u32> = (0..=12).collect();
    let mut files = Vec::new();
    let mut evict: Vec<u8> = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "-n" => n = args.next().unwrap().parse().unwrap(),
            "-l" => {
                levels = args
                    .next()
                    .unwrap()
                    .split(',')
                    .map(|s| s.parse().unwrap())
                    .collect()
            }
            "-c" => evict = vec![0; args.next().unwrap().parse::<usize>().unwrap() << 20],
            _ => files.push(a),
        }
    }
    let mut sets: Vec<(String, Vec<u8>)> = Vec::new();
    if files.is_empty() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample");
        sets.push(("sample".into(), cat_dir(root)));
        let mut all = Vec::new();
        for d in ["cantrbry", "large", "snappy"] {
            all.extend(cat_dir(&format!("/work/shared/corpus/{d}")));
        }
        if !all.is_empty() {
            sets.push(("corpus".into(), all));
        }
    } else {
        for f in files {
            sets.push((f.clone(), std::fs::read(&f).unwrap()));
        }
    }
    for (name, data) in &sets {
        println!("{name}: {} bytes", data.len());
        println!("level    ratio      MB/s      bytes     seconds");
        for &l in &levels {
            let mut c = Compressor::new(l);
            let mut out = Vec::with_capacity(data.len() + data.len() / 100 + 1024);
            let mut best = f64::MAX;
            for _ in 0..n {
                out.clear();
                for (i, x) in evict.iter_mut().enumerate().step_by(64) {
                    *x = x.wrapping_add(i as u8);
                }
                if !evict.is_empty() {
                    // The input is warm in the harness: every peer reads it.
                    std::hint::black_box(data.iter().step_by(64).fold(0u8, |a, &b| a ^ b));
                }
                std::hint::black_box(&evict);
                let t = Instant::now();
                c.compress(Format::Raw, data, &mut out);
                best = best.min(t.elapsed().as_secs_f64());
            }
            // A ratio is only worth reporting for a stream that decodes to the input.
            let back = hyperz_engine::inflate::decompress(Format::Raw, &out).expect("decodes");
            assert!(
                back == *data,
                "level {l}: the stream does not decode to the input"
            );
            println!(
                "{l:>5} {:>8.3} {:>9.1} {:>10} {:>12.9}",
                data.len() as f64 / out.len() as f64,
                data.len() as f64 / best / 1e6,
                out.len(),
                best
            );
        }
    }
}

fn cat_dir(dir: &str) -> Vec<u8> {
    let mut v: Vec<_> = match std::fs::read_dir(dir) {
        Ok(r) => r
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect(),
        Err(_) => return Vec::new(),
    };
    v.sort();
    v.iter().flat_map(|p| std::fs::read(p).unwrap()).collect()
}
