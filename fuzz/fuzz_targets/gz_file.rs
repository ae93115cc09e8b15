//! Fuzz target: zlib's gz* file functions of `libz.so` (crate `hyperz-zlib`), called
//! in-process so the sanitizer sees the handle's buffer and pointer code (the `gzgetc()` macro's
//! fields, `gzungetc`'s push-back, `gzgets`), against a model of the file's contents.
//!
//! Round trip (first byte even): a file written with a data-chosen mode (levels, strategies,
//! transparent, append to an existing member) and buffer size, by a schedule of `gzwrite`,
//! `gzfwrite`, `gzputc`, `gzputs`, `gzprintf`, `gzflush` (every mode, and an invalid one),
//! forward seeks that write zeros, a backward one that must fail, and `gzsetparams`; every
//! return value and `gztell` checked as it goes. The file must then decode, with the engine's
//! decoder, to what was written (be it byte for byte when transparent). It is read back with a
//! schedule of `gzread`, `gzfread`, `gzgetc` (the function and `zlib.h`'s macro), `gzungetc`,
//! `gzgets`, seeks from the start and from the current position (back, forward, past the end),
//! `gzrewind`, `gzeof`, `gzdirect`, `gzclearerr` and `gzoffset`: every byte returned must be
//! the model's byte at `gztell`'s position (or the one pushed back), and `gztell` must move as
//! zlib moves it.
//!
//! Arbitrary bytes (first byte odd) as a file read with a mix of `gzread`, `gzgetc` and
//! `gzgets`: a file that does not start with the gzip magic is copied unchanged (zlib's
//! transparent reading); a gzip file must give what the engine decodes from it (its members
//! while another one follows, trailing bytes ignored), and fail where the engine fails.
#![no_main]

use core::ffi::{c_char, c_int, c_uint, c_void};
use std::ffi::CString;

use hyperz_engine::inflate::{Decompressor, ErrorKind};
use hyperz_engine::Format;
use hyperz_zlib::gz::*;
use hyperz_zlib::types::gzFile_s;
use libfuzzer_sys::fuzz_target;

extern "C" {
    /// `gzprintf` (C, variadic: `printf.c`), under its name inside the library.
    fn hz_c_gzprintf(file: *mut gzFile_s, format: *const c_char, ...) -> c_int;
}

/// Prints a step of the run when `GZ_TRACE` is set (for reading a failure).
macro_rules! trace {
    ($($t:tt)*) => {
        if std::env::var_os("GZ_TRACE").is_some() {
            eprintln!($($t)*);
        }
    };
}

const Z_OK: c_int = 0;
const Z_STREAM_ERROR: c_int = -2;
const Z_DATA_ERROR: c_int = -3;
/// Output beyond this is not decoded (bounds the fuzzer's memory).
const LIMIT: usize = 1 << 24;

/// A deterministic pseudo-random sequence (xorshift64) seeded by the fuzz input.
struct Rnd(u64);

impl Rnd {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// A number below `n` (at least 1).
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    /// A size from 0 up to `max`, small ones as likely as large ones.
    fn size(&mut self, max: usize) -> usize {
        let bits = self.below(18);
        (self.next() as usize & ((1usize << bits) - 1)) % (max + 1)
    }
}

/// The file this process works on (in memory where `/dev/shm` exists).
fn path() -> CString {
    let dir = if std::path::Path::new("/dev/shm").is_dir() {
        std::path::PathBuf::from("/dev/shm")
    } else {
        std::env::temp_dir()
    };
    let p = dir.join(format!("hyperz-fuzz-gz-{}", std::process::id()));
    CString::new(p.into_os_string().into_encoded_bytes()).unwrap()
}

fn file_path(p: &CString) -> &std::path::Path {
    std::path::Path::new(p.to_str().unwrap())
}

fn open(p: &CString, mode: &str) -> *mut gzFile_s {
    let m = CString::new(mode).unwrap();
    // SAFETY: two NUL-terminated strings.
    let f = unsafe { gzopen(p.as_ptr(), m.as_ptr()) };
    assert!(!f.is_null(), "gzopen {mode}");
    f
}

fn tell(f: *mut gzFile_s) -> i64 {
    // SAFETY: a live handle.
    unsafe { gztell(f) }
}

fn errnum(f: *mut gzFile_s) -> c_int {
    let mut e = 0;
    // SAFETY: a live handle and an int to write.
    unsafe { gzerror(f, &mut e) };
    e
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let mut rnd = Rnd(u64::from_le_bytes([data[1], data[2], data[3], 1, 2, 3, 4, 5]) | 1);
    let p = path();
    if data[0] & 1 == 0 {
        let (content, transparent) = write(&p, data[1], &data[4..], &mut rnd);
        read(&p, &content, transparent, &mut rnd);
    } else {
        arbitrary(&p, &data[4..], &mut rnd);
    }
    let _ = std::fs::remove_file(file_path(&p));
});

/// Writes a file through the gz* functions; returns what it holds uncompressed and whether it
/// was written transparently.
///
/// A forward seek only asks for zeros: zlib writes them with the next write (or flush, or
/// parameter change), and until then a seek back into them succeeds, while a seek before them
/// fails and drops them. `committed` is where the data written so far ends; `content` may go
/// on with the zeros still pending.
fn write(p: &CString, pick: u8, payload: &[u8], rnd: &mut Rnd) -> (Vec<u8>, bool) {
    const MODES: [(&str, c_int, c_int); 11] = [
        ("wb", -1, 0),
        ("wb1", 1, 0),
        ("wb9", 9, 0),
        ("wb0", 0, 0),
        ("wbh", -1, 2),
        ("wbR", -1, 3),
        ("wbF", -1, 4),
        ("wb6f", 6, 1),
        ("wbT", -1, 0),
        ("wb3", 3, 0),
        ("ab", -1, 0),
    ];
    let (mode, mut level, mut strategy) = MODES[pick as usize % MODES.len()];
    let transparent = mode.contains('T');
    let mut content = Vec::new();
    if mode == "ab" {
        // Appending after an existing member: the file then holds two.
        let first = &payload[..payload.len().min(100)];
        let member = hyperz_engine::deflate::compress(Format::Gzip, first, 6);
        std::fs::write(file_path(p), member).unwrap();
        content.extend_from_slice(first);
    } else {
        let _ = std::fs::remove_file(file_path(p));
    }
    let f = open(p, mode);
    if rnd.below(3) == 0 {
        // SAFETY: a live handle, before its first write.
        let r = unsafe { gzbuffer(f, 8 + rnd.below(70_000) as c_uint) };
        assert_eq!(r, Z_OK, "gzbuffer");
    }
    // Positions (gztell, gzseek) count from where this handle started writing.
    let base = content.len();
    let mut committed = base;
    let ops = 1 + rnd.below(40);
    for i in 0..ops {
        let at = rnd.size(payload.len());
        let piece = &payload[at..at + rnd.size(payload.len() - at)];
        let here = content.len() - base;
        // The bytes this call hands over, which first writes the pending zeros.
        let mut wrote: &[u8] = &[];
        match rnd.below(10) {
            0 | 1 => {
                // SAFETY: a live handle and a buffer of that length.
                let r = unsafe { gzwrite(f, piece.as_ptr().cast(), piece.len() as c_uint) };
                assert_eq!(r, piece.len() as c_int, "gzwrite (op {i})");
                wrote = piece;
            }
            2 => {
                let size = 1 + rnd.below(4) as usize;
                let n = piece.len() / size;
                // SAFETY: a live handle and `n` items of `size` bytes.
                let r = unsafe { gzfwrite(piece.as_ptr().cast(), size, n, f) };
                assert_eq!(r, n, "gzfwrite (op {i})");
                wrote = &piece[..n * size];
            }
            3 => {
                let c = rnd.below(300) as c_int;
                // SAFETY: a live handle.
                let r = unsafe { gzputc(f, c) };
                assert_eq!(r, c & 255, "gzputc (op {i})");
                content.push(c as u8);
                committed = content.len();
            }
            4 => {
                let s: Vec<u8> = piece
                    .iter()
                    .copied()
                    .filter(|&b| b != 0)
                    .take(300)
                    .collect();
                let c = CString::new(s).unwrap();
                // SAFETY: a live handle and a NUL-terminated string.
                let r = unsafe { gzputs(f, c.as_ptr()) };
                assert_eq!(r, c.as_bytes().len() as c_int, "gzputs (op {i})");
                content.extend_from_slice(c.as_bytes());
                if !c.as_bytes().is_empty() {
                    committed = content.len();
                }
            }
            5 => {
                let n = rnd.below(1 << 20) as c_int - (1 << 19);
                // SAFETY: a live handle, a format string and the arguments it names.
                let r = unsafe { hz_c_gzprintf(f, c"%d %s\n".as_ptr(), n, c"printf".as_ptr()) };
                let text = format!("{n} printf\n");
                assert_eq!(r, text.len() as c_int, "gzprintf (op {i})");
                content.extend_from_slice(text.as_bytes());
                committed = content.len();
            }
            6 => {
                let flush = rnd.below(6) as c_int;
                // SAFETY: a live handle.
                let r = unsafe { gzflush(f, flush) };
                // zlib's gzflush takes Z_NO_FLUSH to Z_FINISH; Z_BLOCK is refused.
                if flush <= 4 {
                    assert_eq!(r, Z_OK, "gzflush {flush} (op {i})");
                    committed = content.len();
                } else {
                    assert_eq!(r, Z_STREAM_ERROR, "gzflush {flush} (op {i})");
                }
            }
            7 => {
                let (off, whence, to) = if rnd.below(2) == 0 {
                    let d = rnd.below(5000) as i64 - rnd.below(here as u64 + 2) as i64;
                    (d, libc::SEEK_CUR, here as i64 + d)
                } else {
                    let to = rnd.below(here as u64 + 5000) as i64;
                    (to, libc::SEEK_SET, to)
                };
                // SAFETY: a live handle.
                let r = unsafe { gzseek(f, off, whence) };
                if to >= (committed - base) as i64 {
                    assert_eq!(r, to, "gzseek {off} {whence} while writing (op {i})");
                    content.resize(base + to as usize, 0);
                } else {
                    assert_eq!(r, -1, "gzseek back while writing (op {i})");
                    content.truncate(committed);
                }
            }
            8 if !transparent => {
                let (l, s) = (rnd.below(11) as c_int - 1, rnd.below(5) as c_int);
                // SAFETY: a live handle.
                let r = unsafe { gzsetparams(f, l, s) };
                assert_eq!(r, Z_OK, "gzsetparams {l} {s} (op {i})");
                if (l, s) != (level, strategy) {
                    (level, strategy) = (l, s);
                    committed = content.len();
                }
            }
            _ => {
                // SAFETY: a live handle.
                let o = unsafe { gzoffset(f) };
                assert!(o >= 0, "gzoffset {o} (op {i})");
            }
        }
        if !wrote.is_empty() {
            content.extend_from_slice(wrote);
            committed = content.len();
        }
        assert_eq!(
            tell(f),
            (content.len() - base) as i64,
            "gztell after writing (op {i})"
        );
        assert_eq!(errnum(f), Z_OK, "error after writing (op {i})");
    }
    // SAFETY: a live handle, closed once.
    let r = unsafe { gzclose(f) };
    assert_eq!(r, Z_OK, "gzclose after writing");
    let bytes = std::fs::read(file_path(p)).unwrap();
    if transparent {
        assert!(bytes == content, "transparent file differs");
    } else {
        let got = Decompressor::new(Format::Gzip)
            .decompress(&bytes)
            .expect("the written file decodes");
        assert!(
            got.data == content,
            "the written file decodes to other bytes"
        );
    }
    (content, transparent)
}

/// What the read side expects: the file's contents, the position `gztell` must give, and the
/// bytes pushed back with `gzungetc` (the last one is read first).
///
/// A seek forward is carried out by the next read, which stops at the end of the data; a seek
/// back starts over from the file. A file that is not gzip is read transparently (`copy`), and
/// once the reader has seen that, a seek moves the file offset at once, as zlib does: the
/// position may then stay past the end. Until it has looked (after opening or rewinding), a
/// seek is pending as in a gzip file.
struct Model<'a> {
    content: &'a [u8],
    copy: bool,
    pos: i64,
    pushed: Vec<u8>,
    /// The reader has looked at the data (a transparent file: seeks are direct).
    looked: bool,
    /// A seek is pending that will stop at the end of the data.
    pending: bool,
}

impl Model<'_> {
    fn len(&self) -> i64 {
        self.content.len() as i64
    }

    /// The next `n` bytes a read returns (fewer at the end), consumed.
    fn take(&mut self, n: usize) -> Vec<u8> {
        if n == 0 {
            // zlib returns before it carries out a pending seek.
            return Vec::new();
        }
        self.skip();
        self.looked = true;
        let mut v = Vec::with_capacity(n);
        while v.len() < n {
            if let Some(c) = self.pushed.pop() {
                v.push(c);
            } else if self.pos >= self.len() {
                break;
            } else {
                let k = (n - v.len()).min((self.len() - self.pos) as usize);
                let at = self.pos as usize;
                v.extend_from_slice(&self.content[at..at + k]);
                self.pos += k as i64;
                continue;
            }
            self.pos += 1;
        }
        v
    }

    /// Carries out a pending seek.
    fn skip(&mut self) {
        if self.pending {
            self.pending = false;
            self.looked = true;
            self.pos = self.pos.min(self.len());
        }
    }

    /// A line as `gzgets` with room for `room - 1` bytes returns it (None at the end).
    fn line(&mut self, room: usize) -> Option<Vec<u8>> {
        self.skip();
        let mut v = Vec::new();
        while v.len() + 1 < room {
            match self.take(1).first() {
                Some(&c) => {
                    v.push(c);
                    if c == b'\n' {
                        break;
                    }
                }
                None => break,
            }
        }
        (!v.is_empty()).then_some(v)
    }

    /// A seek to `to` (not negative): forward ones skip pushed-back bytes first, backward ones
    /// start over from the file (unless direct).
    fn seek(&mut self, to: i64) {
        if self.copy && self.looked {
            self.pushed.clear();
            self.pending = false;
        } else if to >= self.pos {
            let k = ((to - self.pos) as usize).min(self.pushed.len());
            self.pushed.truncate(self.pushed.len() - k);
            // What is left of the seek after the pushed bytes, pending; a gzip file's
            // buffered data is skipped at once, but that stops at the end all the same.
            self.pending |= to - self.pos > k as i64;
        } else {
            self.rewind();
            self.pending = to > 0;
        }
        self.pos = to;
    }

    fn rewind(&mut self) {
        self.pushed.clear();
        self.pos = 0;
        self.looked = false;
        self.pending = false;
    }
}

/// Reads the file back with a data-chosen schedule, every result checked against `content`.
fn read(p: &CString, content: &[u8], transparent: bool, rnd: &mut Rnd) {
    if transparent && content.starts_with(&[0x1f, 0x8b]) {
        // Written plain, but it starts like gzip: reading would take it for gzip.
        return;
    }
    // An empty file is never found to be plain (zlib looks for the magic and finds nothing),
    // though `gzdirect` says it is (as for any file before a look found the magic).
    let copy = transparent && !content.is_empty();
    let f = open(p, "rb");
    trace!("read {} bytes (transparent: {transparent})", content.len());
    if rnd.below(3) == 0 {
        let size = 8 + rnd.below(70_000) as c_uint;
        trace!("gzbuffer {size}");
        // SAFETY: a live handle, before its first read.
        let r = unsafe { gzbuffer(f, size) };
        assert_eq!(r, Z_OK, "gzbuffer");
    }
    let mut m = Model {
        content,
        copy,
        pos: 0,
        pushed: Vec::new(),
        looked: false,
        pending: false,
    };
    let ops = 1 + rnd.below(60);
    for i in 0..ops {
        let op = rnd.below(14);
        match op {
            0 | 1 => {
                let n = rnd.size(content.len() + 100);
                let mut buf = vec![0u8; n];
                // SAFETY: a live handle and a buffer of `n` bytes.
                let r = unsafe { gzread(f, buf.as_mut_ptr().cast(), n as c_uint) };
                trace!("gzread {n} -> {r}");
                let want = m.take(n);
                assert_eq!(r, want.len() as c_int, "gzread {n} (op {i})");
                assert!(buf[..want.len()] == want[..], "gzread bytes (op {i})");
            }
            2 => {
                let size = 1 + rnd.below(5) as usize;
                let items = rnd.size(content.len() / size + 10);
                let mut buf = vec![0u8; size * items];
                // SAFETY: a live handle and room for `items` items of `size` bytes.
                let r = unsafe { gzfread(buf.as_mut_ptr().cast(), size, items, f) };
                trace!("gzfread {size} {items} -> {r}");
                let want = m.take(size * items);
                assert_eq!(r, want.len() / size, "gzfread {size} x {items} (op {i})");
                assert!(buf[..want.len()] == want[..], "gzfread bytes (op {i})");
            }
            3 | 4 => {
                let c = if op == 3 {
                    // SAFETY: a live handle.
                    unsafe { gzgetc(f) }
                } else {
                    getc_macro(f)
                };
                trace!("gzgetc{} -> {c}", if op == 3 { "" } else { " (macro)" });
                let want = m.take(1).first().map_or(-1, |&b| b as c_int);
                assert_eq!(c, want, "gzgetc (op {i})");
            }
            5 if !copy => {
                let c = rnd.below(256) as c_int;
                // SAFETY: a live handle.
                let r = unsafe { gzungetc(c, f) };
                trace!("gzungetc {c} -> {r}");
                if r == -1 {
                    // Out of room for more: an error, and the end of this read.
                    assert_eq!(errnum(f), Z_DATA_ERROR, "gzungetc's error (op {i})");
                    break;
                }
                assert_eq!(r, c, "gzungetc (op {i})");
                m.skip();
                m.pos -= 1;
                m.pushed.push(c as u8);
            }
            6 => {
                let room = 1 + rnd.size(300);
                let mut buf = vec![0xA5u8; room];
                // SAFETY: a live handle and a buffer of `room` bytes.
                let r = unsafe { gzgets(f, buf.as_mut_ptr().cast(), room as c_int) };
                trace!("gzgets {room} -> {}", !r.is_null());
                match m.line(room) {
                    None => assert!(r.is_null(), "gzgets at the end (op {i})"),
                    Some(line) => {
                        assert_eq!(r, buf.as_mut_ptr().cast(), "gzgets (op {i})");
                        assert!(
                            buf[..line.len()] == line[..] && buf[line.len()] == 0,
                            "gzgets line (op {i})"
                        );
                    }
                }
            }
            7 | 8 => {
                let len = m.len() + 100;
                let (off, whence, to) = if op == 7 {
                    let to = rnd.below(len as u64 + 1) as i64;
                    (to, libc::SEEK_SET, to)
                } else {
                    let d = rnd.below(2 * len as u64 + 1) as i64 - len;
                    (d, libc::SEEK_CUR, m.pos + d)
                };
                // SAFETY: a live handle.
                let r = unsafe { gzseek(f, off, whence) };
                trace!("gzseek {off} {whence} -> {r}");
                if to < 0 {
                    assert_eq!(r, -1, "gzseek before the start (op {i})");
                    // zlib drops a seek still pending (a skip not yet read through) before it
                    // fails: the position is then where reading last was.
                    let at = tell(f);
                    assert!(at <= m.pos, "a failed gzseek moved ahead (op {i})");
                    if at != m.pos {
                        assert!(m.pushed.is_empty(), "pushed bytes with a pending seek");
                        m.pos = at;
                    }
                    m.pending = false;
                } else {
                    assert_eq!(r, to, "gzseek {off} {whence} (op {i})");
                    m.seek(to);
                }
            }
            9 => {
                // SAFETY: a live handle.
                trace!("gzrewind");
                assert_eq!(unsafe { gzrewind(f) }, 0, "gzrewind (op {i})");
                m.rewind();
            }
            10 => {
                trace!("gzeof");
                // SAFETY: a live handle.
                if unsafe { gzeof(f) } != 0 {
                    assert!(m.pos >= m.len(), "gzeof before the end (op {i})");
                }
            }
            11 => {
                // SAFETY: a live handle.
                let d = unsafe { gzdirect(f) };
                trace!("gzdirect -> {d}");
                assert_eq!(d != 0, transparent, "gzdirect (op {i})");
                m.looked = true;
            }
            12 => {
                // SAFETY: a live handle.
                unsafe { gzclearerr(f) };
                trace!("gzclearerr");
            }
            _ => {
                // SAFETY: a live handle.
                let o = unsafe { gzoffset(f) };
                trace!("gzoffset -> {o}");
                assert!(o >= 0, "gzoffset {o} (op {i})");
            }
        }
        trace!("  tell {} model {}", tell(f), m.pos);
        assert_eq!(errnum(f), Z_OK, "error reading a good file (op {i})");
        assert_eq!(tell(f), m.pos, "gztell (op {i})");
    }
    // SAFETY: a live handle, closed once.
    let r = unsafe { gzclose(f) };
    assert_eq!(r, Z_OK, "gzclose after reading");
}

/// `zlib.h`'s `gzgetc()` macro: the byte at `next` when `have` is not zero, else the function.
fn getc_macro(f: *mut gzFile_s) -> c_int {
    // SAFETY: `f` is a live handle, whose public fields the library keeps consistent: `next`
    // points at `have` readable bytes.
    unsafe {
        let x = &mut *f;
        if x.have != 0 {
            x.have -= 1;
            x.pos += 1;
            let c = *x.next;
            x.next = x.next.add(1);
            c as c_int
        } else {
            gzgetc(f)
        }
    }
}

/// Reads arbitrary bytes as a file; see the module comment for what must hold.
fn arbitrary(p: &CString, bytes: &[u8], rnd: &mut Rnd) {
    std::fs::write(file_path(p), bytes).unwrap();
    let f = open(p, "rb");
    if rnd.below(3) == 0 {
        // SAFETY: a live handle, before its first read.
        let r = unsafe { gzbuffer(f, 8 + rnd.below(70_000) as c_uint) };
        assert_eq!(r, Z_OK, "gzbuffer");
    }
    let mut got = Vec::new();
    let failed = loop {
        if got.len() > LIMIT {
            break None;
        }
        let before = got.len();
        match rnd.below(3) {
            0 => {
                let n = 1 + rnd.size(1 << 16);
                let mut buf = vec![0u8; n];
                // SAFETY: a live handle and a buffer of `n` bytes.
                let r = unsafe { gzread(f, buf.as_mut_ptr().cast::<c_void>(), n as c_uint) };
                if r < 0 {
                    break Some(errnum(f));
                }
                got.extend_from_slice(&buf[..r as usize]);
            }
            1 => {
                let c = getc_macro(f);
                if c >= 0 {
                    got.push(c as u8);
                }
            }
            _ => {
                let room = 2 + rnd.size(300);
                let mut buf = vec![0xA5u8; room];
                let at = tell(f);
                // SAFETY: a live handle and a buffer of `room` bytes.
                let r = unsafe { gzgets(f, buf.as_mut_ptr().cast(), room as c_int) };
                if !r.is_null() {
                    // The line's length from the position: the data may hold NULs.
                    let n = (tell(f) - at) as usize;
                    assert!(n < room && buf[n] == 0, "gzgets: {n} bytes, room {room}");
                    assert!(!buf[..n - 1].contains(&b'\n'), "gzgets went past a newline");
                    got.extend_from_slice(&buf[..n]);
                }
            }
        }
        if got.len() == before {
            // Nothing more: the end, or an error.
            let e = errnum(f);
            // SAFETY: a live handle.
            if e != Z_OK || unsafe { gzeof(f) } != 0 {
                break (e != Z_OK).then_some(e);
            }
        }
    };
    // SAFETY: a live handle, closed once.
    unsafe { gzclose(f) };
    if got.len() > LIMIT {
        return;
    }
    if bytes.len() < 2 || bytes[..2] != [0x1f, 0x8b] {
        assert_eq!(failed, None, "copying a plain file failed");
        assert!(got == bytes, "a plain file is not copied unchanged");
        return;
    }
    let whole = Decompressor::new(Format::Gzip)
        .allow_trailing(true)
        .with_limit(LIMIT)
        .decompress(bytes);
    match (failed, whole) {
        (_, Err(e)) if e.kind == ErrorKind::OutputLimitExceeded => {}
        (None, Ok(w)) => assert!(w.data == got, "gzread and the engine disagree"),
        (Some(_), Err(_)) => {}
        (None, Err(e)) => panic!("gzread read a file the engine rejects ({e})"),
        (Some(e), Ok(_)) => panic!("gzread failed ({e}) on a file the engine decodes"),
    }
}
