//! Reading gzip files (zlib's gzread.c), step for step as zlib does it, because the sizes of
//! the pieces are visible to programs (how many bytes `gzgetc()` finds buffered, how many
//! `gzungetc()` calls fit, what `gzoffset()` reports):
//! - input is read in `size`-byte pieces; output is produced in pieces of `2 * size` into the
//!   buffer the `gzgetc()` macro reads, each piece filled until it is full, the gzip member
//!   ends or the input ends (a truncated member is `Z_BUF_ERROR`, "unexpected end of file",
//!   and the data before it is still delivered);
//! - a read of at least `2 * size` bytes decodes straight into the caller's buffer;
//! - a file that does not start with a gzip header is copied unchanged (`gzdirect` is 1);
//!   after a gzip member, another gzip header starts the next member and anything else is
//!   ignored as trailing garbage;
//! - on a decoding error the read returns -1 and what that piece had decoded is dropped.
use core::ffi::{c_char, c_int, c_uint, c_void};

use hyperz_engine::inflate::{Inflater, StreamState};
use hyperz_engine::Format;

use super::{state, GzState, How, Mode};
use crate::types::*;

impl GzState {
    /// The output piece size (zlib's `size << 1`).
    fn out_cap(&self) -> usize {
        self.buffer_size() * 2
    }

    /// Allocates the buffers on first use (zlib's first `gz_look`); gzbuffer is refused after.
    fn start_reading(&mut self) {
        if !self.started {
            self.started = true;
            self.out = vec![0; self.out_cap()];
            self.inbuf = Vec::with_capacity(self.buffer_size());
        }
    }

    fn avail(&self) -> usize {
        self.inbuf.len() - self.in_pos
    }

    /// No more data: the file is read and used up, and the decoder holds no more output
    /// (unlike zlib's inflate, ours may take all of its input before delivering the output).
    fn at_end(&self) -> bool {
        self.eof && self.avail() == 0 && !self.more
    }
}

/// Reads until `buf` is full or the file ends (zlib's gz_load): (bytes, end of file reached).
fn read_full(fd: c_int, buf: &mut [u8]) -> Result<(usize, bool), ()> {
    let mut got = 0;
    while got < buf.len() {
        let want = (buf.len() - got).min(1 << 30);
        // SAFETY: `want` bytes from `got` lie inside `buf`.
        let n = unsafe { libc::read(fd, buf.as_mut_ptr().add(got).cast::<c_void>(), want) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(());
        }
        if n == 0 {
            return Ok((got, true));
        }
        got += n as usize;
    }
    Ok((got, false))
}

/// Refills the input buffer (zlib's gz_avail): keeps the unused bytes and reads up to `size`
/// in all, or `size` more when `grow` (the decoder wants more than is buffered).
fn load(s: &mut GzState, grow: bool) -> Result<(), ()> {
    if s.err != Z_OK && s.err != Z_BUF_ERROR {
        return Err(());
    }
    if s.eof {
        return Ok(());
    }
    s.inbuf.drain(..s.in_pos);
    s.in_pos = 0;
    let have = s.inbuf.len();
    let target = if grow {
        have + s.buffer_size()
    } else {
        s.buffer_size().max(have)
    };
    s.inbuf.resize(target, 0);
    match read_full(s.fd, &mut s.inbuf[have..]) {
        Ok((n, eof)) => {
            s.inbuf.truncate(have + n);
            s.eof = eof;
            Ok(())
        }
        Err(()) => {
            s.inbuf.truncate(have);
            s.errno_error();
            Err(())
        }
    }
}

/// Decides how to read what follows (zlib's gz_look); leaves `how` at `Look` when there is no
/// more input.
pub(super) fn look(s: &mut GzState) -> Result<(), ()> {
    s.start_reading();
    if s.avail() < 2 {
        load(s, false)?;
        if s.avail() == 0 {
            return Ok(());
        }
    }
    let a = &s.inbuf[s.in_pos..];
    if a.len() >= 2 && a[0] == 0x1f && a[1] == 0x8b {
        match &mut s.inf {
            Some(i) => i.reconfigure(Format::Gzip, 15),
            None => s.inf = Some(Box::new(Inflater::new(Format::Gzip, 15))),
        }
        s.how = How::Gzip;
        s.direct = false;
        return Ok(());
    }
    if !s.direct {
        // After a gzip member: trailing data that is not gzip is ignored.
        s.in_pos = s.inbuf.len();
        s.eof = true;
        s.x.have = 0;
        return Ok(());
    }
    // Not gzip: copy unchanged, starting with what is buffered.
    let n = s.avail().min(s.out.len());
    s.out[..n].copy_from_slice(&s.inbuf[s.in_pos..s.in_pos + n]);
    s.in_pos += n;
    s.x.next = s.out.as_mut_ptr();
    s.x.have = n as c_uint;
    s.how = How::Copy;
    s.direct = true;
    Ok(())
}

/// Decodes into `dst` until it is full, the member ends or the input ends (zlib's gz_decomp).
fn decomp(s: &mut GzState, dst: &mut [u8]) -> Result<usize, ()> {
    let mut got = 0;
    s.more = false;
    loop {
        if s.avail() == 0 {
            load(s, false)?;
        }
        // Called with no input left too: the decoder may still hold output.
        let inf = s.inf.as_mut().expect("decoder for a gzip member");
        match inf.inflate(&s.inbuf[s.in_pos..], &mut dst[got..]) {
            Err(e) => {
                s.error(Z_DATA_ERROR, &e.to_string());
                return Err(());
            }
            Ok(st) => {
                s.in_pos += st.consumed;
                got += st.produced;
                if st.state == StreamState::StreamEnd {
                    s.how = How::Look;
                    break;
                }
                if got == dst.len() {
                    s.more = true;
                    return Ok(got);
                }
                if st.consumed == 0 && st.produced == 0 {
                    if s.eof {
                        // Truncated member: what it had is delivered and reading ends here,
                        // unless gzclearerr() asks to look at the file again.
                        s.error(Z_BUF_ERROR, "unexpected end of file");
                        s.in_pos = s.inbuf.len();
                        break;
                    }
                    // The decoder wants more input than is buffered.
                    load(s, true)?;
                }
            }
        }
    }
    Ok(got)
}

/// Fills the buffer the `gzgetc()` macro reads (zlib's gz_fetch); `x.have` must be 0. Leaves
/// `x.have` 0 only at the end of the data.
fn fetch(s: &mut GzState) -> Result<(), ()> {
    loop {
        match s.how {
            How::Look => {
                look(s)?;
                if s.how == How::Look {
                    return Ok(());
                }
            }
            How::Copy => {
                let mut out = take_out(s)?;
                let r = if s.avail() > 0 {
                    let n = s.avail().min(out.len());
                    out[..n].copy_from_slice(&s.inbuf[s.in_pos..s.in_pos + n]);
                    s.in_pos += n;
                    Ok(n)
                } else {
                    read_full(s.fd, &mut out).map(|(n, eof)| {
                        s.eof |= eof;
                        n
                    })
                };
                s.out = out;
                let Ok(n) = r else {
                    s.errno_error();
                    return Err(());
                };
                s.x.next = s.out.as_mut_ptr();
                s.x.have = n as c_uint;
                return Ok(());
            }
            How::Gzip => {
                let mut out = take_out(s)?;
                let r = decomp(s, &mut out);
                s.out = out;
                s.x.next = s.out.as_mut_ptr();
                s.x.have = r? as c_uint;
            }
        }
        if !(s.x.have == 0 && (!s.eof || s.avail() > 0)) {
            return Ok(());
        }
    }
}

/// The output buffer, taken out of the state while it is filled. It is empty only if a panic
/// (caught at the C boundary) kept it out: the handle then fails rather than reading into
/// nothing forever.
fn take_out(s: &mut GzState) -> Result<Vec<u8>, ()> {
    let out = std::mem::take(&mut s.out);
    if out.is_empty() {
        s.error(Z_STREAM_ERROR, "internal error");
        return Err(());
    }
    Ok(out)
}

/// Drops `len` bytes of output (zlib's gz_skip), stopping early at the end of the data.
fn skip(s: &mut GzState, mut len: i64) -> Result<(), ()> {
    while len > 0 {
        if s.x.have > 0 {
            let n = (s.x.have as i64).min(len);
            s.x.have -= n as c_uint;
            // SAFETY: n <= have: next stays in the output buffer.
            s.x.next = unsafe { s.x.next.add(n as usize) };
            s.x.pos += n;
            len -= n;
        } else if s.at_end() {
            break;
        } else {
            fetch(s)?;
        }
    }
    Ok(())
}

/// Passes over up to `len` buffered bytes (none for a negative `len`); returns how many.
pub(super) fn use_buffered(s: &mut GzState, len: i64) -> i64 {
    let n = (s.x.have as i64).min(len).max(0);
    s.x.have -= n as c_uint;
    // SAFETY: n <= have, so next stays inside the output buffer.
    s.x.next = unsafe { s.x.next.add(n as usize) };
    s.x.pos += n;
    n
}

/// Performs a pending forward seek.
fn pending_seek(s: &mut GzState) -> Result<(), ()> {
    if s.seek {
        s.seek = false;
        skip(s, s.skip)?;
    }
    Ok(())
}

/// Reads up to `buf.len()` bytes (zlib's gz_read): fewer only at the end of the data, 0 on
/// an error (even if some bytes had been copied, as in zlib).
fn read_into(s: &mut GzState, buf: &mut [u8]) -> usize {
    if buf.is_empty() {
        return 0;
    }
    if pending_seek(s).is_err() {
        return 0;
    }
    let mut got = 0usize;
    while got < buf.len() {
        let want = buf.len() - got;
        let n = if s.x.have > 0 {
            let n = (s.x.have as usize).min(want);
            // SAFETY: x.next points to x.have valid bytes of our output buffer.
            let src = unsafe { core::slice::from_raw_parts(s.x.next, n) };
            buf[got..got + n].copy_from_slice(src);
            // SAFETY: n <= have.
            s.x.next = unsafe { s.x.next.add(n) };
            s.x.have -= n as c_uint;
            n
        } else if s.at_end() {
            s.past = true;
            break;
        } else if s.how == How::Look || want < s.out_cap() {
            if fetch(s).is_err() {
                return 0;
            }
            continue;
        } else if s.how == How::Copy {
            // Large read of a plain file: straight into the caller's buffer.
            let dst = &mut buf[got..];
            if s.avail() > 0 {
                let n = s.avail().min(dst.len());
                dst[..n].copy_from_slice(&s.inbuf[s.in_pos..s.in_pos + n]);
                s.in_pos += n;
                n
            } else {
                match read_full(s.fd, dst) {
                    Ok((n, eof)) => {
                        s.eof |= eof;
                        n
                    }
                    Err(()) => {
                        s.errno_error();
                        return 0;
                    }
                }
            }
        } else {
            // Large read of a gzip member: decode straight into the caller's buffer.
            match decomp(s, &mut buf[got..]) {
                Ok(n) => n,
                Err(()) => return 0,
            }
        };
        got += n;
        s.x.pos += n as i64;
    }
    got
}

/// Starts reading again from the beginning of the data (zlib's gzrewind after the checks).
pub(super) fn rewind(s: &mut GzState) -> Result<(), ()> {
    // SAFETY: lseek on our descriptor.
    if unsafe { libc::lseek(s.fd, s.start, libc::SEEK_SET) } < 0 {
        return Err(());
    }
    s.reset();
    Ok(())
}

/// The state of a handle open for reading without a serious error.
fn readable(file: *mut gzFile_s) -> Option<&'static mut GzState> {
    // SAFETY: callers pass the caller's gzFile (NULL or ours, per zlib's contract).
    let s = unsafe { state(file) }?;
    (s.mode == Mode::Read && (s.err == Z_OK || s.err == Z_BUF_ERROR)).then_some(s)
}

/// `int gzread(gzFile file, voidp buf, unsigned len)`
///
/// # Safety
/// `buf` must have `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn gzread(file: *mut gzFile_s, buf: *mut c_void, len: c_uint) -> c_int {
    guard(-1, || {
        let Some(s) = readable(file) else { return -1 };
        if len > c_int::MAX as c_uint {
            s.error(Z_STREAM_ERROR, "request does not fit in an int");
            return -1;
        }
        if len == 0 || buf.is_null() {
            return 0;
        }
        // SAFETY: caller contract.
        let b = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len as usize) };
        let got = read_into(s, b);
        if got == 0 && s.err != Z_OK && s.err != Z_BUF_ERROR {
            return -1;
        }
        got as c_int
    })
}

/// `z_size_t gzfread(voidp buf, z_size_t size, z_size_t nitems, gzFile file)`: the number of
/// whole items read.
///
/// # Safety
/// `buf` must have `size * nitems` writable bytes.
#[export_name = "hz_gzfread"]
pub unsafe extern "C" fn gzfread(
    buf: *mut c_void,
    size: usize,
    nitems: usize,
    file: *mut gzFile_s,
) -> usize {
    guard(0, || {
        let Some(s) = readable(file) else { return 0 };
        let Some(len) = size.checked_mul(nitems) else {
            s.error(Z_STREAM_ERROR, "request does not fit in a size_t");
            return 0;
        };
        if len == 0 || buf.is_null() {
            return 0;
        }
        // No buffer is larger than isize::MAX bytes, nor may a slice be; what the caller's
        // call cannot hold is not read.
        let len = len.min(isize::MAX as usize);
        // SAFETY: caller contract (`len` is at most what it promised).
        let b = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len) };
        read_into(s, b) / size
    })
}

/// `int gzgetc(gzFile file)` (the function behind zlib.h's macro)
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[no_mangle]
pub unsafe extern "C" fn gzgetc(file: *mut gzFile_s) -> c_int {
    guard(-1, || {
        let Some(s) = readable(file) else { return -1 };
        if s.x.have > 0 {
            s.x.have -= 1;
            s.x.pos += 1;
            // SAFETY: have was > 0, so next points to a valid byte.
            let c = unsafe { *s.x.next };
            // SAFETY: advancing within the buffered bytes.
            s.x.next = unsafe { s.x.next.add(1) };
            return c as c_int;
        }
        let mut b = [0u8; 1];
        if read_into(s, &mut b) < 1 {
            -1
        } else {
            b[0] as c_int
        }
    })
}

/// `int gzgetc_(gzFile file)`
///
/// # Safety
/// As [`gzgetc`].
#[export_name = "hz_gzgetc_"]
pub unsafe extern "C" fn gzgetc_(file: *mut gzFile_s) -> c_int {
    // SAFETY: forwarded.
    unsafe { gzgetc(file) }
}

/// `int gzungetc(int c, gzFile file)`: pushes one byte back in front of the next read; fails
/// with `Z_DATA_ERROR` once the output buffer is full of pushed-back and unread bytes.
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[export_name = "hz_gzungetc"]
pub unsafe extern "C" fn gzungetc(c: c_int, file: *mut gzFile_s) -> c_int {
    guard(-1, || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        if let Some(s) = unsafe { state(file) } {
            // Just opened: set up the buffers (and take in what a plain file starts with).
            if s.mode == Mode::Read && s.how == How::Look && s.x.have == 0 {
                let _ = look(s);
            }
        }
        let Some(s) = readable(file) else { return -1 };
        if pending_seek(s).is_err() || c < 0 {
            return -1;
        }
        s.start_reading();
        let cap = s.out.len();
        if cap == 0 {
            // Only after a caught panic (see `take_out`).
            return -1;
        }
        let base = s.out.as_mut_ptr();
        if s.x.have == 0 {
            s.x.have = 1;
            // SAFETY: cap >= 1 (checked above; 16 or more unless a panic took the buffer):
            // the last byte of the output buffer.
            s.x.next = unsafe { base.add(cap - 1) };
        } else {
            if s.x.have as usize == cap {
                s.error(Z_DATA_ERROR, "out of room to push characters");
                return -1;
            }
            if s.x.next == base {
                // Move the buffered bytes to the end to make room in front.
                let have = s.x.have as usize;
                s.out.copy_within(0..have, cap - have);
                // SAFETY: cap - have < cap.
                s.x.next = unsafe { s.out.as_mut_ptr().add(cap - have) };
            }
            s.x.have += 1;
            // SAFETY: next > base here, so next - 1 is in the buffer.
            s.x.next = unsafe { s.x.next.sub(1) };
        }
        // SAFETY: next points into the output buffer.
        unsafe { *s.x.next = c as u8 };
        s.x.pos -= 1;
        s.past = false;
        c
    })
}

/// `char *gzgets(gzFile file, char *buf, int len)`: a line (with its newline) or up to
/// `len - 1` bytes, NUL-terminated; NULL at end of data or on error.
///
/// # Safety
/// `buf` must have `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn gzgets(file: *mut gzFile_s, buf: *mut c_char, len: c_int) -> *mut c_char {
    guard(core::ptr::null_mut(), || {
        if buf.is_null() || len < 1 {
            return core::ptr::null_mut();
        }
        let Some(s) = readable(file) else {
            return core::ptr::null_mut();
        };
        if pending_seek(s).is_err() {
            return core::ptr::null_mut();
        }
        // SAFETY: caller contract.
        let b = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len as usize) };
        let mut n = 0usize;
        let mut left = len as usize - 1;
        while left > 0 {
            if s.x.have == 0 && fetch(s).is_err() {
                return core::ptr::null_mut();
            }
            if s.x.have == 0 {
                s.past = true;
                break;
            }
            // SAFETY: next points to have valid bytes.
            let avail = unsafe { core::slice::from_raw_parts(s.x.next, s.x.have as usize) };
            let take = avail.len().min(left);
            let (k, eol) = match avail[..take].iter().position(|&c| c == b'\n') {
                Some(i) => (i + 1, true),
                None => (take, false),
            };
            b[n..n + k].copy_from_slice(&avail[..k]);
            n += k;
            left -= k;
            s.x.have -= k as c_uint;
            // SAFETY: k <= have.
            s.x.next = unsafe { s.x.next.add(k) };
            s.x.pos += k as i64;
            if eol {
                break;
            }
        }
        if n == 0 {
            return core::ptr::null_mut();
        }
        b[n] = 0;
        buf
    })
}
