//! Decodes `gzip -6` output of each file given (or of data/sample) with the whole-buffer and
//! the streaming decoder, checks the result, and prints MB/s (best of 5). For quick iteration;
//! the side-by-side comparison with peers is `hyperz-bench`.
use hyperz_engine::inflate::{self, Inflater, StreamState};
use hyperz_engine::Format;
use std::time::Instant;

fn main() {
    let mut paths: Vec<std::path::PathBuf> = std::env::args().skip(1).map(Into::into).collect();
    if paths.is_empty() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample");
        paths = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
    }
    let (mut total, mut t_whole, mut t_stream) = (0usize, 0f64, 0f64);
    for p in paths {
        let data = std::fs::read(&p).unwrap();
        let gz = std::process::Command::new("gzip")
            .args(["-6", "-c", "-n"])
            .arg(&p)
            .output()
            .unwrap()
            .stdout;
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            let out = inflate::decompress(Format::Gzip, &gz).unwrap();
            best = best.min(t.elapsed().as_secs_f64());
            assert!(out == data);
        }
        let mut best_s = f64::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            let mut inf = Inflater::new(Format::Gzip, 15);
            let mut out = vec![0u8; 1 << 16];
            let mut got = Vec::with_capacity(data.len());
            let mut pos = 0;
            loop {
                let st = inf.inflate(&gz[pos..], &mut out).unwrap();
                pos += st.consumed;
                got.extend_from_slice(&out[..st.produced]);
                if st.state == StreamState::StreamEnd {
                    break;
                }
            }
            best_s = best_s.min(t.elapsed().as_secs_f64());
            assert!(got == data);
        }
        println!(
            "{:>16} {:>9} B  whole {:7.1} MB/s  stream {:7.1} MB/s",
            p.file_name().unwrap().to_string_lossy(),
            data.len(),
            data.len() as f64 / best / 1e6,
            data.len() as f64 / best_s / 1e6
        );
        total += data.len();
        t_whole += best;
        t_stream += best_s;
    }
    println!(
        "{:>16} {total:>9} B  whole {:7.1} MB/s  stream {:7.1} MB/s",
        "TOTAL",
        total as f64 / t_whole / 1e6,
        total as f64 / t_stream / 1e6
    );
}
