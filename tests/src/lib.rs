//! Helpers for the cross-tool tests in `tests/tests/`: locating the bundled sample corpus and
//! running real external tools (GNU gzip, pigz, ISA-L igzip, libdeflate-gzip, Python) on byte
//! buffers.
//!
//! A missing tool fails the test with an installation hint instead of skipping it: a cross-tool
//! test that silently passes without its peer would prove nothing. `scripts/install-test-deps.sh`
//! installs every tool named here.
#![deny(missing_docs)]

pub mod dropin;
pub mod lzh;
pub mod pack;
pub mod symbols;
pub mod zapi;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The repository root (the workspace directory).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The bundled sample corpus (the Canterbury corpus).
pub fn sample_dir() -> PathBuf {
    repo_root().join("data").join("sample")
}

/// Every file of the sample corpus as `(name, contents)`, sorted by name.
pub fn sample_files() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(sample_dir())
        .expect("data/sample is missing")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// `len` pseudo-random bytes (xorshift64), the same for every call: incompressible test data.
pub fn noise(len: usize) -> Vec<u8> {
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    (0..len)
        .map(|_| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng as u8
        })
        .collect()
}

/// A few small inputs that stress edge cases: empty, one byte, long runs, random bytes.
pub fn edge_inputs() -> Vec<(String, Vec<u8>)> {
    let random = noise(100_000);
    vec![
        ("empty".into(), Vec::new()),
        ("one-byte".into(), vec![b'a']),
        ("zeros-1M".into(), vec![0u8; 1 << 20]),
        ("random-100k".into(), random),
        (
            "period-3".into(),
            b"abc".iter().copied().cycle().take(70_000).collect(),
        ),
    ]
}

/// Panics with an installation hint unless `program` is on the PATH.
pub fn require_tool(program: &str) {
    let found = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "`{program}` is not installed: run scripts/install-test-deps.sh"
    );
}

/// Runs `program args...` with `stdin` as its standard input and returns its standard output.
/// Panics with the program's stderr if it exits unsuccessfully.
pub fn run_tool(program: &str, args: &[&str], stdin: &[u8]) -> Vec<u8> {
    let (ok, out, err) = try_run_tool(program, args, stdin);
    assert!(
        ok,
        "`{program} {}` failed: {}",
        args.join(" "),
        String::from_utf8_lossy(&err)
    );
    out
}

/// Huffman code lengths: the two lightest groups merged until one is left, each merge
/// deepening its members by one. `leaves` are (weight, key, symbol); equal weights go by key,
/// and merged groups come after every leaf of the same weight with a key below 1000, so the
/// lengths are deterministic. The result has a length for each symbol below `n` (0 for the
/// symbols not among the leaves; one leaf alone gets 0 too).
pub fn huffman_depths(leaves: &[(u64, usize, usize)], n: usize) -> Vec<usize> {
    let mut depth = vec![0usize; n];
    let mut groups: Vec<(u64, usize, Vec<usize>)> =
        leaves.iter().map(|&(w, k, s)| (w, k, vec![s])).collect();
    let mut order = 1000;
    while groups.len() > 1 {
        groups.sort_by_key(|g| std::cmp::Reverse((g.0, g.1)));
        let (f1, _, a) = groups.pop().unwrap();
        let (f2, _, b) = groups.pop().unwrap();
        let mut merged = a;
        merged.extend(b);
        for &s in &merged {
            depth[s] += 1;
        }
        groups.push((f1 + f2, order, merged));
        order += 1;
    }
    depth
}

/// A xorshift64 generator: the reproducible random choices of the differential tests.
pub fn xorshift(mut s: u64) -> impl FnMut() -> u64 {
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

/// Like [`run_tool`] but returns `(success, stdout, stderr)` instead of panicking on failure.
pub fn try_run_tool(program: &str, args: &[&str], stdin: &[u8]) -> (bool, Vec<u8>, Vec<u8>) {
    require_tool(program);
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
    let mut pipe = child.stdin.take().unwrap();
    let input = stdin.to_vec();
    // Feed stdin from another thread so a tool that writes before it finishes reading cannot
    // deadlock against us.
    let feeder = std::thread::spawn(move || {
        let _ = pipe.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    (output.status.success(), output.stdout, output.stderr)
}

/// Runs a Python 3 snippet with `stdin` as binary standard input; returns its standard output.
pub fn python(code: &str, stdin: &[u8]) -> Vec<u8> {
    run_tool("python3", &["-c", code], stdin)
}

/// The external compressors the interoperability tests use, as `(name, program, args)`, each
/// reading stdin and writing a gzip stream to stdout.
pub fn gzip_compressors() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    vec![
        ("gzip-1", "gzip", vec!["-1", "-c", "-n"]),
        ("gzip-6", "gzip", vec!["-6", "-c", "-n"]),
        ("gzip-9", "gzip", vec!["-9", "-c", "-n"]),
        ("pigz-6", "pigz", vec!["-6", "-c", "-p", "2"]),
        ("pigz-11", "pigz", vec!["-11", "-c"]),
        (
            "pigz-i",
            "pigz",
            vec!["-6", "-i", "-c", "-p", "2", "-b", "32"],
        ),
        ("igzip-0", "igzip", vec!["-0", "-c"]),
        ("igzip-1", "igzip", vec!["-1", "-c"]),
        ("igzip-3", "igzip", vec!["-3", "-c"]),
        ("libdeflate-1", "libdeflate-gzip", vec!["-1", "-c"]),
        ("libdeflate-6", "libdeflate-gzip", vec!["-6", "-c"]),
        ("libdeflate-12", "libdeflate-gzip", vec!["-12", "-c"]),
    ]
}

/// The external decompressors the interoperability tests use, each reading a gzip stream on
/// stdin and writing the data to stdout.
pub fn gzip_decompressors() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    vec![
        ("gzip", "gzip", vec!["-d", "-c"]),
        ("pigz", "pigz", vec!["-d", "-c"]),
        ("igzip", "igzip", vec!["-d", "-c"]),
        ("libdeflate-gzip", "libdeflate-gzip", vec!["-d", "-c"]),
        (
            "python-gzip",
            "python3",
            vec!["-c", "import gzip,sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))"],
        ),
        (
            "python-zlib",
            "python3",
            vec![
                "-c",
                "import zlib,sys; d=zlib.decompressobj(31); \
                 sys.stdout.buffer.write(d.decompress(sys.stdin.buffer.read())); \
                 sys.exit(0 if d.eof else 3)",
            ],
        ),
    ]
}
