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

use core::ffi::{c_int, c_uint, c_void};
use std::ffi::CString;

use hyperz_engine::inflate::{Decompressor, ErrorKind};
use hyperz_engine::Format;
use hyperz_zlib::gz::*;
use hyperz_zlib::types::gzFile_s;
use libfuzzer_sys::fuzz_target;

/// Prints a step of the run when `GZ_TRACE` is set (for reading a failure).
macro_rules! trace {
    ($($t:tt)*) => {
        if std::env::var_os("GZ_TRACE").is_some() {
            eprintln!($($t)*);
        }
    };
}

#[path = "gz_file/read.rs"]
mod read;
#[path = "common/rnd.rs"]
mod rnd;
#[path = "gz_file/write.rs"]
mod write;

use read::{getc_macro, read};
use rnd::Rnd;
use write::write;

const Z_OK: c_int = 0;
const Z_STREAM_ERROR: c_int = -2;
const Z_DATA_ERROR: c_int = -3;
/// Output beyond this is not decoded (bounds the fuzzer's memory).
const LIMIT: usize = 1 << 24;

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

/// Opens the file with `mode` and, one time in three, gives it a buffer of a data-chosen size
/// (before its first read or write, where `gzbuffer` is allowed).
fn open(p: &CString, mode: &str, rnd: &mut Rnd) -> *mut gzFile_s {
    let m = CString::new(mode).unwrap();
    // SAFETY: two NUL-terminated strings.
    let f = unsafe { gzopen(p.as_ptr(), m.as_ptr()) };
    assert!(!f.is_null(), "gzopen {mode}");
    if rnd.below(3) == 0 {
        let size = 8 + rnd.below(70_000) as c_uint;
        trace!("gzbuffer {size}");
        // SAFETY: a live handle, not yet read or written.
        let r = unsafe { gzbuffer(f, size) };
        assert_eq!(r, Z_OK, "gzbuffer");
    }
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

/// Reads arbitrary bytes as a file; see the module comment for what must hold.
fn arbitrary(p: &CString, bytes: &[u8], rnd: &mut Rnd) {
    std::fs::write(file_path(p), bytes).unwrap();
    let f = open(p, "rb", rnd);
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
