//! The write half of the `gz_file` target: a file written through the gz* functions.

use core::ffi::{c_char, c_int, c_uint};
use std::ffi::CString;

use hyperz_engine::inflate::Decompressor;
use hyperz_engine::Format;
use hyperz_zlib::gz::*;

use crate::{errnum, file_path, open, tell, Rnd, Z_OK, Z_STREAM_ERROR};

extern "C" {
    /// `gzprintf` (C, variadic: `printf.c`), under its name inside the library.
    fn hz_c_gzprintf(file: *mut hyperz_zlib::types::gzFile_s, format: *const c_char, ...) -> c_int;
}

/// Writes a file through the gz* functions; returns what it holds uncompressed and whether it
/// was written transparently.
///
/// A forward seek only asks for zeros: zlib writes them with the next write (or flush, or
/// parameter change), and until then a seek back into them succeeds, while a seek before them
/// fails and drops them. `committed` is where the data written so far ends; `content` may go
/// on with the zeros still pending.
pub fn write(p: &CString, pick: u8, payload: &[u8], rnd: &mut Rnd) -> (Vec<u8>, bool) {
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
    let f = open(p, mode, rnd);
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
