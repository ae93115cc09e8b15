//! Shared helpers for the deflate and inflate tests: decoding through the system zlib (python3),
//! GNU gzip and Python's gzip module, in batches so one interpreter checks many streams; test
//! data; and a bit writer for hand-built streams.
#![allow(dead_code)]

use hyperz_engine::format::Format;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

const VERIFY_PY: &str = r#"
import sys, zlib, gzip
bad = []
for line in open(sys.argv[1]):
    s, w, e, z = line.rstrip('\n').split('\t')
    w = int(w)
    data = open(s, 'rb').read(); exp = open(e, 'rb').read()
    zd = open(z, 'rb').read() if z else None
    try:
        d = zlib.decompressobj(w, zdict=zd) if zd is not None else zlib.decompressobj(w)
        out = d.decompress(data) + d.flush()
        ok = d.eof and not d.unused_data and out == exp
        if ok and w == 31:
            ok = gzip.decompress(data) == exp
        why = 'mismatch' if not ok else ''
    except Exception as ex:
        ok = False; why = str(ex)
    if not ok:
        bad.append(s + ': ' + why)
print('\n'.join(bad), end='')
"#;

/// Collects (stream, expected) pairs and checks them all with one python3 run.
pub struct Checker {
    dir: PathBuf,
    list: String,
    n: usize,
    gzip_paths: Vec<(PathBuf, PathBuf)>,
}

/// The files are removed with the checker, unless a test is failing (then they are kept for a
/// look).
impl Drop for Checker {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

fn wbits(f: Format) -> i32 {
    match f {
        Format::Raw => -15,
        Format::Zlib => 15,
        Format::Gzip => 31,
    }
}

impl Checker {
    /// A checker writing its files under a fresh temporary directory named after `tag`.
    pub fn new(tag: &str) -> Checker {
        let dir =
            std::env::temp_dir().join(format!("hyperz-deflate-{}-{}", tag, std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Checker {
            dir,
            list: String::new(),
            n: 0,
            gzip_paths: Vec::new(),
        }
    }

    /// The directory the checker writes its files to.
    pub fn dir(&self) -> PathBuf {
        self.dir.clone()
    }

    /// Queues `stream` (in `format`) to be checked against `expected`.
    pub fn add(&mut self, stream: &[u8], format: Format, expected: &[u8]) {
        self.add_w(stream, wbits(format), expected, None);
    }

    /// Queues with explicit python wbits and an optional preset dictionary.
    pub fn add_w(&mut self, stream: &[u8], w: i32, expected: &[u8], dict: Option<&[u8]>) {
        let s = self.dir.join(format!("{}.z", self.n));
        let e = self.dir.join(format!("{}.exp", self.n));
        std::fs::write(&s, stream).unwrap();
        std::fs::write(&e, expected).unwrap();
        let z = match dict {
            Some(d) => {
                let p = self.dir.join(format!("{}.dict", self.n));
                std::fs::write(&p, d).unwrap();
                p.display().to_string()
            }
            None => String::new(),
        };
        if w == 31 && self.gzip_paths.len() < 40 {
            self.gzip_paths.push((s.clone(), e.clone()));
        }
        self.list
            .push_str(&format!("{}\t{}\t{}\t{}\n", s.display(), w, e.display(), z));
        self.n += 1;
    }

    /// Runs python3 (zlib + gzip) over everything queued and `gzip -dc` over some gzip
    /// streams; panics listing every failure.
    pub fn check(self) {
        let lp = self.dir.join("list.txt");
        std::fs::write(&lp, &self.list).unwrap();
        let out = Command::new("python3")
            .arg("-c")
            .arg(VERIFY_PY)
            .arg(&lp)
            .output()
            .expect("python3");
        assert!(
            out.status.success(),
            "python3 failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bad = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(bad.is_empty(), "streams that failed to decode:\n{bad}");
        for (s, e) in &self.gzip_paths {
            let o = Command::new("gzip")
                .arg("-dc")
                .arg(s)
                .output()
                .expect("gzip");
            assert!(
                o.status.success(),
                "gzip -dc {}: {}",
                s.display(),
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(
                o.stdout == std::fs::read(e).unwrap(),
                "gzip -dc output differs for {}",
                s.display()
            );
        }
        // The files go when `self` is dropped here (see `Drop`).
        assert!(self.n > 0);
    }
}

/// Runs python3 `script` with `input` on its standard input.
fn python(script: &str, input: &[u8]) -> std::process::Output {
    let mut c = Command::new("python3")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut si = c.stdin.take().unwrap();
    let data = input.to_vec();
    let t = std::thread::spawn(move || si.write_all(&data));
    let o = c.wait_with_output().unwrap();
    t.join().unwrap().unwrap();
    o
}

/// Decodes one stream with python3's zlib (wbits as in zlib.decompressobj); Err on failure.
pub fn py_decode(stream: &[u8], w: i32) -> Result<Vec<u8>, String> {
    let o = python(
        &format!(
            "import sys,zlib\nd=zlib.decompressobj({w})\nsys.stdout.buffer.write(d.decompress(sys.stdin.buffer.read()))"
        ),
        stream,
    );
    if o.status.success() {
        Ok(o.stdout)
    } else {
        Err(String::from_utf8_lossy(&o.stderr).to_string())
    }
}

/// The system zlib's zlib stream of `data` at `level` (python3's zlib.compress).
pub fn py_compress(data: &[u8], level: u32) -> Vec<u8> {
    let o = python(
        &format!(
            "import sys,zlib\nsys.stdout.buffer.write(zlib.compress(sys.stdin.buffer.read(), {level}))"
        ),
        data,
    );
    assert!(o.status.success(), "python3 zlib.compress");
    o.stdout
}

/// Small deterministic PRNG (xorshift64*).
pub struct Rng(pub u64);
impl Rng {
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// The bundled sample corpus (data/sample), name and contents.
pub fn sample_files() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/sample");
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| {
            (
                e.file_name().to_string_lossy().to_string(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    assert!(!v.is_empty(), "data/sample is empty");
    v
}

/// Adversarial inputs: zeros, one byte, random, period-N patterns, runs across window edges.
pub fn adversarial() -> Vec<(String, Vec<u8>)> {
    let mut r = Rng(0x1234_5678_9abc_def1);
    let mut v = vec![
        ("empty".to_string(), vec![]),
        ("one".to_string(), vec![7]),
        ("zeros".to_string(), vec![0u8; 200_000]),
        ("byte_ff".to_string(), vec![0xffu8; 70_000]),
        ("random".to_string(), r.bytes(150_000)),
    ];
    for p in [2usize, 3, 7, 100, 258, 259, 32767, 32768, 32769] {
        let pat = r.bytes(p);
        let d: Vec<u8> = (0..100_000).map(|i| pat[i % p]).collect();
        v.push((format!("period{p}"), d));
    }
    // 258-byte runs straddling multiples of 32 KiB and of the segment size.
    let mut d = r.bytes(600_000);
    for edge in [32768usize, 65536, 262144, 262144 * 2] {
        d[edge - 129..edge + 129].fill(0x41);
    }
    v.push(("runs_at_edges".to_string(), d));
    // Text-like data that is half compressible.
    let words = [&b"alpha "[..], b"beta ", b"gamma ", b"delta\n", b"epsilon "];
    let mut t = Vec::new();
    while t.len() < 300_000 {
        t.extend_from_slice(words[r.below(5)]);
        if r.below(10) == 0 {
            t.push(r.next_u64() as u8);
        }
    }
    v.push(("words".to_string(), t));
    v
}

/// LSB-first bit writer for hand-built DEFLATE streams (RFC 1951 packs fields this way).
#[derive(Default)]
pub struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    pub fn new() -> Self {
        Bits::default()
    }
    /// `n` bits of `v`, least significant first (header fields, extra bits).
    pub fn put(&mut self, v: u32, n: u32) -> &mut Self {
        self.acc |= (v as u64) << self.n;
        self.n += n;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
        self
    }
    /// A Huffman codeword of `len` bits, most significant bit first.
    pub fn code(&mut self, code: u32, len: u32) -> &mut Self {
        for i in (0..len).rev() {
            self.put((code >> i) & 1, 1);
        }
        self
    }
    pub fn align(&mut self) -> &mut Self {
        if self.n > 0 {
            let pad = 8 - self.n;
            self.put(0, pad);
        }
        self
    }
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.align();
        self.out.extend_from_slice(b);
        self
    }
    pub fn finish(&mut self) -> Vec<u8> {
        self.align();
        self.out.clone()
    }
}

/// Code-length-code order (RFC 1951 3.2.7).
pub const ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// A final dynamic block header with the given counts and code-length-code lengths
/// (indexed by symbol 0..19); returns the writer positioned after the code-length-code lengths.
pub fn dyn_header(hlit: u32, hdist: u32, cl: &[u32; 19]) -> Bits {
    let hclen = (0..19)
        .rev()
        .find(|&i| cl[ORDER[i]] != 0)
        .map_or(4, |i| (i + 1).max(4));
    let mut b = Bits::new();
    b.put(1, 1)
        .put(2, 2)
        .put(hlit - 257, 5)
        .put(hdist - 1, 5)
        .put(hclen as u32 - 4, 4);
    for &sym in &ORDER[..hclen] {
        b.put(cl[sym], 3);
    }
    b
}
