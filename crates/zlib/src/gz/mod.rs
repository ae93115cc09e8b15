//! zlib's gz* file functions: gzip files read and written through a `gzFile` handle, with
//! zlib's semantics (gzlib.c): mode strings, transparent reading of non-gzip files,
//! concatenated members, `gzgetc()` served from a buffer the macro in `zlib.h` reads directly,
//! seeking by re-reading, and `gzerror` messages of the form `path: message`.
//!
//! Writing goes through the same `DeflateStream` (`deflate_stream.rs`) as `deflate()`, so a
//! large file written with `gzwrite` is compressed on all cores. Reading uses the engine's
//! streaming decoder.
//!
//! This module owns the handle, opening, closing and the buffer size; `pos.rs` holds seeking,
//! position queries, end of file and errors; `read.rs` and `write.rs` the two directions.
//! Every return value follows zlib's, including its quirks (a read that fails returns -1 and
//! drops what it had decoded; `gzsetparams` ignores what `deflateParams` says), because
//! programs written against zlib depend on them; `tests/tests/zlib_gz.rs` compares a transcript
//! of every call with the system zlib's. The one exception returns the right bytes where zlib
//! returns wrong ones: a seek still pending when `gzdirect` first looks at a plain file (see
//! `pos.rs`).
use core::ffi::{c_char, c_int, c_uint};
use std::ffi::CStr;

use hyperz_engine::deflate::Params;
use hyperz_engine::inflate::Inflater;
use hyperz_engine::Format;

use crate::deflate_stream::DeflateStream;
use crate::types::*;

mod pos;
mod read;
mod write;

pub use pos::*;
pub use read::*;
pub use write::*;

const MAGIC: u32 = 0x687a_677a; // "hzgz"
/// zlib's default buffer size (GZBUFSIZE): input is read and small writes are gathered in pieces
/// of this size, and decompressed output is produced in pieces of twice it.
const DEFAULT_SIZE: usize = 8192;
/// zlib's smallest buffer size ("needed to behave well with flushing").
const MIN_SIZE: usize = 8;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Read,
    Write,
}

/// How the reader treats the input (zlib's `how`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum How {
    /// Not yet known: look at the next bytes.
    Look,
    /// Copy bytes unchanged (not a gzip file).
    Copy,
    /// Decompress a gzip member.
    Gzip,
}

/// One open gzip file. `x` must stay first: `zlib.h`'s `gzgetc()` macro reads it.
#[repr(C)]
pub(crate) struct GzState {
    pub x: gzFile_s,
    magic: u32,
    pub mode: Mode,
    /// The descriptor, closed by gzclose (also one given to gzdopen, as zlib does).
    pub fd: c_int,
    /// The path (or `<fd:N>`) that error messages start with.
    pub path: Vec<u8>,
    /// Buffer size requested with gzbuffer (allocated on first use).
    pub size: usize,
    /// The buffers are in use (zlib's `size != 0`): gzbuffer is refused from then on.
    pub started: bool,
    /// Compressed input (read) and its consumed prefix.
    pub inbuf: Vec<u8>,
    pub in_pos: usize,
    /// Decompressed output served to the caller (read); `x.next` points into it.
    pub out: Vec<u8>,
    pub how: How,
    /// The input file hit end of file.
    pub eof: bool,
    /// A read asked for data past the end (what gzeof reports).
    pub past: bool,
    /// The decoder filled the last piece and may hold more output.
    pub more: bool,
    /// Reading: the data is copied unchanged (true until a gzip header is seen, so also for
    /// an empty file; false afterwards, which makes later non-gzip data trailing garbage).
    /// Writing: transparent ("T").
    pub direct: bool,
    /// Write direction: level and strategy as the caller gave them (zlib keeps them unchecked).
    pub level: c_int,
    pub strategy: c_int,
    pub inf: Option<Box<Inflater>>,
    pub def: Option<Box<DeflateStream>>,
    /// Bytes gzwrite buffered before compressing (write).
    pub pending: Vec<u8>,
    /// Write: the last member was finished (gzflush Z_FINISH); the next data starts a new one.
    pub member_done: bool,
    /// Pending forward seek, in uncompressed bytes (zlib's `skip`).
    pub skip: i64,
    pub seek: bool,
    /// Start of the data in the file (for rewinding).
    pub start: i64,
    /// Last error and its message (`path: text`, NUL-terminated).
    pub err: c_int,
    pub msg: Vec<u8>,
}

impl GzState {
    /// Records an error (zlib's gz_error): the message is `path: text`.
    pub fn error(&mut self, err: c_int, text: &str) {
        self.err = err;
        self.msg.clear();
        if err == Z_OK {
            self.msg.push(0);
            return;
        }
        self.msg.extend_from_slice(&self.path);
        self.msg.extend_from_slice(b": ");
        self.msg.extend_from_slice(text.as_bytes());
        self.msg.push(0);
        // zlib clears the buffered output on any error other than a truncated file.
        if err != Z_OK && err != Z_BUF_ERROR {
            self.x.have = 0;
        }
    }

    /// Records the current `errno` as a `Z_ERRNO` error.
    pub fn errno_error(&mut self) {
        let e = std::io::Error::last_os_error();
        let text = e.to_string();
        let text = text.split(" (os error").next().unwrap_or("").to_string();
        self.error(Z_ERRNO, &text);
    }

    fn buffer_size(&self) -> usize {
        self.size.max(MIN_SIZE)
    }

    /// Resets the reading or writing state to the start of the file.
    fn reset(&mut self) {
        self.x.have = 0;
        self.x.pos = 0;
        self.eof = false;
        self.past = false;
        self.more = false;
        self.how = How::Look;
        self.in_pos = 0;
        self.inbuf.clear();
        self.skip = 0;
        self.seek = false;
        self.error(Z_OK, "");
    }
}

/// The state behind a `gzFile`, if it is one of ours.
///
/// # Safety
/// `file` must be NULL or a pointer returned by our gzopen/gzdopen and not yet closed.
pub(crate) unsafe fn state<'a>(file: *mut gzFile_s) -> Option<&'a mut GzState> {
    if file.is_null() {
        return None;
    }
    let st = file as *mut GzState;
    // SAFETY: our handles are GzState boxes with `x` first; the magic guards against handles
    // from elsewhere.
    let s = unsafe { &mut *st };
    (s.magic == MAGIC).then_some(s)
}

/// Parses a mode string; returns (mode, append, level, strategy, transparent, flags).
/// Unknown characters (and "b") are ignored, as in zlib.
fn parse_mode(mode: &[u8]) -> Option<(Mode, bool, c_int, c_int, bool, c_int)> {
    let mut m = None;
    let mut append = false;
    let mut level = Z_DEFAULT_COMPRESSION;
    let mut strategy = Z_DEFAULT_STRATEGY;
    let mut transparent = false;
    let mut flags = 0;
    for &c in mode {
        match c {
            b'0'..=b'9' => level = (c - b'0') as c_int,
            b'r' => m = Some(Mode::Read),
            b'w' => m = Some(Mode::Write),
            b'a' => {
                m = Some(Mode::Write);
                append = true;
            }
            b'+' => return None,
            b'x' => flags |= libc::O_EXCL,
            b'e' => flags |= libc::O_CLOEXEC,
            b'f' => strategy = Z_FILTERED,
            b'h' => strategy = Z_HUFFMAN_ONLY,
            b'R' => strategy = Z_RLE,
            b'F' => strategy = Z_FIXED,
            b'T' => transparent = true,
            _ => {}
        }
    }
    let m = m?;
    if m == Mode::Read && transparent {
        // zlib: "can't force transparent read".
        return None;
    }
    Some((m, append, level, strategy, transparent, flags))
}

/// zlib's gz_open: `path` for messages (and opening when `fd < 0`).
fn open(path: &[u8], fd: c_int, mode: &[u8]) -> *mut gzFile_s {
    let Some((m, append, level, strategy, transparent, flags)) = parse_mode(mode) else {
        return core::ptr::null_mut();
    };
    let fd = if fd >= 0 {
        fd
    } else {
        let oflag = match m {
            Mode::Read => libc::O_RDONLY,
            Mode::Write => {
                libc::O_WRONLY
                    | libc::O_CREAT
                    | if append {
                        libc::O_APPEND
                    } else {
                        libc::O_TRUNC
                    }
            }
        } | flags
            | libc::O_LARGEFILE;
        let Ok(cpath) = std::ffi::CString::new(path) else {
            return core::ptr::null_mut();
        };
        // SAFETY: cpath is a valid NUL-terminated path; open has no other preconditions.
        let fd = unsafe { libc::open(cpath.as_ptr(), oflag, 0o666 as c_uint) };
        if fd < 0 {
            return core::ptr::null_mut();
        }
        fd
    };
    if append {
        // So gzoffset() is right from the start, also for gzdopen (zlib does the same).
        // SAFETY: lseek on an open descriptor.
        unsafe { libc::lseek(fd, 0, libc::SEEK_END) };
    }
    let start = if m == Mode::Read {
        // SAFETY: lseek on an open descriptor.
        let p = unsafe { libc::lseek(fd, 0, libc::SEEK_CUR) };
        if p < 0 {
            0
        } else {
            p
        }
    } else {
        0
    };
    let st = Box::new(GzState {
        x: gzFile_s {
            have: 0,
            next: core::ptr::null_mut(),
            pos: 0,
        },
        magic: MAGIC,
        mode: m,
        fd,
        path: path.to_vec(),
        size: DEFAULT_SIZE,
        started: false,
        inbuf: Vec::new(),
        in_pos: 0,
        out: Vec::new(),
        how: How::Look,
        eof: false,
        past: false,
        more: false,
        // A reader starts out direct (what gzdirect says of an empty file); the first gzip
        // header clears it.
        direct: transparent || m == Mode::Read,
        level,
        strategy,
        inf: None,
        def: None,
        pending: Vec::new(),
        member_done: false,
        skip: 0,
        seek: false,
        start,
        err: Z_OK,
        msg: vec![0],
    });
    Box::into_raw(st).cast()
}

/// `gzFile gzopen(const char *path, const char *mode)`
///
/// # Safety
/// `path` and `mode` must be NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn gzopen(path: *const c_char, mode: *const c_char) -> *mut gzFile_s {
    guard(core::ptr::null_mut(), || {
        if path.is_null() || mode.is_null() {
            return core::ptr::null_mut();
        }
        // SAFETY: NUL-terminated per contract.
        let (p, m) = unsafe { (CStr::from_ptr(path), CStr::from_ptr(mode)) };
        open(p.to_bytes(), -1, m.to_bytes())
    })
}

/// `gzFile gzopen64(const char *path, const char *mode)`
///
/// # Safety
/// As [`gzopen`].
#[export_name = "hz_gzopen64"]
pub unsafe extern "C" fn gzopen64(path: *const c_char, mode: *const c_char) -> *mut gzFile_s {
    // SAFETY: forwarded.
    unsafe { gzopen(path, mode) }
}

/// `gzFile gzdopen(int fd, const char *mode)`
///
/// # Safety
/// `mode` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn gzdopen(fd: c_int, mode: *const c_char) -> *mut gzFile_s {
    guard(core::ptr::null_mut(), || {
        if fd < 0 || mode.is_null() {
            return core::ptr::null_mut();
        }
        // SAFETY: NUL-terminated per contract.
        let m = unsafe { CStr::from_ptr(mode) };
        open(format!("<fd:{fd}>").as_bytes(), fd, m.to_bytes())
    })
}

/// `int gzbuffer(gzFile file, unsigned size)`: only before the first read or write.
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[export_name = "hz_gzbuffer"]
pub unsafe extern "C" fn gzbuffer(file: *mut gzFile_s, size: c_uint) -> c_int {
    guard(-1, || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        let Some(s) = (unsafe { state(file) }) else {
            return -1;
        };
        if s.started || (size << 1) < size {
            return -1;
        }
        s.size = (size as usize).max(MIN_SIZE);
        0
    })
}

/// `int gzsetparams(gzFile file, int level, int strategy)`
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[no_mangle]
pub unsafe extern "C" fn gzsetparams(file: *mut gzFile_s, level: c_int, strategy: c_int) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        let Some(s) = (unsafe { state(file) }) else {
            return Z_STREAM_ERROR;
        };
        if s.mode != Mode::Write || s.err != Z_OK || s.direct {
            return Z_STREAM_ERROR;
        }
        if level == s.level && strategy == s.strategy {
            return Z_OK;
        }
        write::set_params(s, level, strategy)
    })
}

/// `int gzclose(gzFile file)`
///
/// # Safety
/// `file` must be NULL or an open gzFile; it is freed.
#[no_mangle]
pub unsafe extern "C" fn gzclose(file: *mut gzFile_s) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        let Some(s) = (unsafe { state(file) }) else {
            return Z_STREAM_ERROR;
        };
        // SAFETY: forwarded.
        unsafe {
            if s.mode == Mode::Read {
                gzclose_r(file)
            } else {
                gzclose_w(file)
            }
        }
    })
}

/// Frees the handle and closes its descriptor; returns the close result.
///
/// # Safety
/// `file` must be one of ours; it is invalid afterwards.
unsafe fn free(file: *mut gzFile_s) -> bool {
    // SAFETY: created by Box::into_raw in open(). The magic is cleared before the memory is
    // freed, which catches a second close only while that memory is not reused: a later
    // gzopen may be given the same block (closing twice is the caller's error, as in zlib).
    let mut b = unsafe { Box::from_raw(file as *mut GzState) };
    b.magic = 0;
    // SAFETY: closing the descriptor the handle owns.
    unsafe { libc::close(b.fd) == 0 }
}

/// `int gzclose_r(gzFile file)`: `Z_BUF_ERROR` if the file ended inside a gzip member.
///
/// # Safety
/// `file` must be NULL or an open gzFile; it is freed.
#[export_name = "hz_gzclose_r"]
pub unsafe extern "C" fn gzclose_r(file: *mut gzFile_s) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        let Some(s) = (unsafe { state(file) }) else {
            return Z_STREAM_ERROR;
        };
        if s.mode != Mode::Read {
            return Z_STREAM_ERROR;
        }
        let ret = if s.err == Z_BUF_ERROR {
            Z_BUF_ERROR
        } else {
            Z_OK
        };
        // SAFETY: ours, freed once.
        let closed = unsafe { free(file) };
        if closed {
            ret
        } else {
            Z_ERRNO
        }
    })
}

/// `int gzclose_w(gzFile file)`: finishes the gzip stream, then closes.
///
/// # Safety
/// `file` must be NULL or an open gzFile; it is freed.
#[export_name = "hz_gzclose_w"]
pub unsafe extern "C" fn gzclose_w(file: *mut gzFile_s) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        let Some(s) = (unsafe { state(file) }) else {
            return Z_STREAM_ERROR;
        };
        if s.mode != Mode::Write {
            return Z_STREAM_ERROR;
        }
        let mut ret = Z_OK;
        if s.seek {
            s.seek = false;
            if write::zero(s, s.skip) == -1 {
                ret = s.err;
            }
        }
        if write::finish(s) == -1 {
            ret = s.err;
        }
        // SAFETY: ours, freed once.
        if !unsafe { free(file) } {
            ret = Z_ERRNO;
        }
        ret
    })
}

pub(crate) use crate::deflate_api::strategy_of as strategy;

/// zlib's level (-1 meaning 6) as the engine's, if valid.
pub(crate) fn level(level: c_int) -> Option<u32> {
    match level {
        Z_DEFAULT_COMPRESSION => Some(6),
        0..=9 => Some(level as u32),
        _ => None,
    }
}

/// The compression parameters for a write handle; None where zlib's deflateInit2 would fail.
pub(crate) fn params(l: c_int, s: c_int) -> Option<Params> {
    Some(Params {
        level: level(l)?,
        strategy: strategy(s)?,
        window_bits: 15,
        mem_level: 8,
    })
}

/// The format of a write handle's stream.
pub(crate) const WRITE_FORMAT: Format = Format::Gzip;
