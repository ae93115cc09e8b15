//! Reading gzip files (zlib's gzread.c): input read in `size`-byte pieces, each gzip member
//! decoded in turn, a file that does not start with a gzip header copied unchanged, and
//! anything after a member that is not another gzip header ignored, as zlib does.
use core::ffi::{c_char, c_int, c_uint, c_void};

use hyperz_engine::inflate::{Inflater, StreamState};
use hyperz_engine::Format;

use super::{state, GzState, How, Mode};
use crate::types::*;

impl GzState {
    fn out_cap(&self) -> usize {
        (self.buffer_size() * 2).max(64)
    }

    fn ensure_out(&mut self) {
        if self.out.is_empty() {
            self.out = vec![0; self.out_cap()];
        }
    }
}

/// Reads more compressed input; Ok(0) at end of file.
fn load(s: &mut GzState) -> Result<usize, ()> {
    if s.eof {
        return Ok(0);
    }
    if s.in_pos > 0 {
        s.inbuf.drain(..s.in_pos);
        s.in_pos = 0;
    }
    let want = s.buffer_size().max(s.inbuf.len() + 1);
    let old = s.inbuf.len();
    s.inbuf.resize(old + want, 0);
    let n = loop {
        // SAFETY: reading into the `want` bytes just reserved at the end of inbuf.
        let n = unsafe { libc::read(s.fd, s.inbuf.as_mut_ptr().add(old).cast::<c_void>(), want) };
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        break n;
    };
    if n < 0 {
        s.inbuf.truncate(old);
        s.errno_error();
        return Err(());
    }
    s.inbuf.truncate(old + n as usize);
    if n == 0 {
        s.eof = true;
    }
    Ok(n as usize)
}

fn avail(s: &GzState) -> &[u8] {
    &s.inbuf[s.in_pos..]
}

/// Decides how to read what follows (zlib's gz_look): a gzip header starts a member; other
/// data is copied unchanged at the start of the file and ignored after a member.
pub(super) fn look(s: &mut GzState) {
    while avail(s).len() < 2 && !s.eof {
        if load(s).is_err() {
            return;
        }
    }
    let a = avail(s);
    if a.is_empty() {
        return;
    }
    if a.len() >= 2 && a[0] == 0x1f && a[1] == 0x8b {
        match &mut s.inf {
            Some(i) => i.reconfigure(Format::Gzip, 15),
            None => s.inf = Some(Box::new(Inflater::new(Format::Gzip, 15))),
        }
        s.how = How::Gzip;
        s.direct = false;
        return;
    }
    if s.inf.is_some() {
        // After a gzip member: trailing data that is not gzip is ignored.
        s.in_pos = s.inbuf.len();
        s.eof = true;
        return;
    }
    s.how = How::Copy;
    s.direct = true;
}

/// Produces more uncompressed bytes into `dst`; Ok(0) means end of data.
fn produce(s: &mut GzState, dst: &mut [u8]) -> Result<usize, ()> {
    loop {
        match s.how {
            How::Look => {
                look(s);
                if s.err != Z_OK && s.err != Z_BUF_ERROR {
                    return Err(());
                }
                if s.how == How::Look {
                    return Ok(0);
                }
            }
            How::Copy => {
                let a = avail(s);
                if !a.is_empty() {
                    let n = a.len().min(dst.len());
                    dst[..n].copy_from_slice(&a[..n]);
                    s.in_pos += n;
                    return Ok(n);
                }
                if s.eof {
                    return Ok(0);
                }
                let n = loop {
                    // SAFETY: reading into the caller's `dst` slice.
                    let n =
                        unsafe { libc::read(s.fd, dst.as_mut_ptr().cast::<c_void>(), dst.len()) };
                    if n < 0
                        && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                    {
                        continue;
                    }
                    break n;
                };
                if n < 0 {
                    s.errno_error();
                    return Err(());
                }
                if n == 0 {
                    s.eof = true;
                }
                return Ok(n as usize);
            }
            How::Gzip => {
                if avail(s).is_empty() && !s.eof {
                    load(s)?;
                }
                if avail(s).is_empty() && s.eof && s.err == Z_BUF_ERROR {
                    // Truncation was reported by an earlier read; like zlib, now just the end.
                    return Ok(0);
                }
                let inf = s.inf.as_mut().expect("decoder for a gzip member");
                let r = inf.inflate(&s.inbuf[s.in_pos..], dst);
                match r {
                    Ok(st) => {
                        s.in_pos += st.consumed;
                        if st.state == StreamState::StreamEnd {
                            s.how = How::Look;
                        }
                        if st.produced > 0 {
                            return Ok(st.produced);
                        }
                        if st.consumed == 0 && st.state != StreamState::StreamEnd && s.eof {
                            s.error(Z_BUF_ERROR, "unexpected end of file");
                            return Err(());
                        }
                    }
                    Err(e) => {
                        let msg = format!("{e}");
                        s.error(Z_DATA_ERROR, &msg);
                        return Err(());
                    }
                }
            }
        }
    }
}

/// Fills the output buffer the `gzgetc()` macro reads from; false at end of data or on error.
fn fill(s: &mut GzState) -> bool {
    s.ensure_out();
    let mut out = std::mem::take(&mut s.out);
    let r = produce(s, &mut out);
    s.out = out;
    match r {
        Ok(n) if n > 0 => {
            s.x.next = s.out.as_mut_ptr();
            s.x.have = n as c_uint;
            true
        }
        _ => false,
    }
}

/// Performs a pending forward seek by decompressing and dropping bytes.
fn do_skip(s: &mut GzState) -> Result<(), ()> {
    if !s.seek {
        return Ok(());
    }
    s.seek = false;
    while s.skip > 0 {
        if s.x.have == 0 && !fill(s) {
            if s.err != Z_OK && s.err != Z_BUF_ERROR {
                return Err(());
            }
            break;
        }
        let n = (s.x.have as i64).min(s.skip);
        s.x.have -= n as c_uint;
        // SAFETY: n <= have: next stays in the output buffer.
        s.x.next = unsafe { s.x.next.add(n as usize) };
        s.x.pos += n;
        s.skip -= n;
    }
    s.skip = 0;
    Ok(())
}

/// Reads up to `len` bytes into `buf` (zlib's gz_read); -1 only if nothing was read and an
/// error occurred.
fn read_into(s: &mut GzState, buf: &mut [u8]) -> i64 {
    if do_skip(s).is_err() {
        return -1;
    }
    let mut got = 0usize;
    while got < buf.len() {
        if s.x.have > 0 {
            let n = (s.x.have as usize).min(buf.len() - got);
            // SAFETY: x.next points to x.have valid bytes of our output buffer.
            let src = unsafe { core::slice::from_raw_parts(s.x.next, n) };
            buf[got..got + n].copy_from_slice(src);
            // SAFETY: n <= have.
            s.x.next = unsafe { s.x.next.add(n) };
            s.x.have -= n as c_uint;
            s.x.pos += n as i64;
            got += n;
            continue;
        }
        let rest = buf.len() - got;
        // Large requests decode straight into the caller's buffer.
        let r = if rest >= s.out_cap() && s.how != How::Look {
            produce(s, &mut buf[got..])
        } else if fill(s) {
            continue;
        } else if s.err != Z_OK && s.err != Z_BUF_ERROR {
            Err(())
        } else if s.err == Z_BUF_ERROR {
            Err(())
        } else {
            Ok(0)
        };
        match r {
            Ok(0) => {
                s.past = true;
                break;
            }
            Ok(n) => {
                got += n;
                s.x.pos += n as i64;
            }
            Err(()) => {
                if got == 0 {
                    return -1;
                }
                break;
            }
        }
    }
    got as i64
}

/// Starts reading again from the beginning of the data.
pub(super) fn rewind(s: &mut GzState) -> Result<(), ()> {
    // SAFETY: lseek on our descriptor.
    if unsafe { libc::lseek(s.fd, s.start, libc::SEEK_SET) } < 0 {
        return Err(());
    }
    s.reset();
    s.direct = false;
    s.inf = None;
    Ok(())
}

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
        if len == 0 {
            return 0;
        }
        if buf.is_null() {
            return -1;
        }
        // SAFETY: caller contract.
        let b = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len as usize) };
        read_into(s, b) as c_int
    })
}

/// `z_size_t gzfread(voidp buf, z_size_t size, z_size_t nitems, gzFile file)`
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
        // SAFETY: caller contract.
        let b = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len) };
        let got = read_into(s, b);
        if got <= 0 {
            0
        } else {
            got as usize / size
        }
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
        if s.x.have > 0 && !s.seek {
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

/// `int gzungetc(int c, gzFile file)`: pushes one byte back in front of the next read.
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[export_name = "hz_gzungetc"]
pub unsafe extern "C" fn gzungetc(c: c_int, file: *mut gzFile_s) -> c_int {
    guard(-1, || {
        let Some(s) = readable(file) else { return -1 };
        if do_skip(s).is_err() {
            return -1;
        }
        if c < 0 {
            return -1;
        }
        s.ensure_out();
        let cap = s.out.len();
        let base = s.out.as_mut_ptr();
        if s.x.have == 0 {
            s.x.have = 1;
            // SAFETY: cap >= 1: the last byte of the output buffer.
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
        c & 0xff
    })
}

/// `char *gzgets(gzFile file, char *buf, int len)`: a line (with its newline) or up to
/// `len - 1` bytes, NUL-terminated; NULL at end of data or on error with nothing read.
///
/// # Safety
/// `buf` must have `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn gzgets(file: *mut gzFile_s, buf: *mut c_char, len: c_int) -> *mut c_char {
    guard(core::ptr::null_mut(), || {
        let Some(s) = readable(file) else {
            return core::ptr::null_mut();
        };
        if buf.is_null() || len < 1 {
            return core::ptr::null_mut();
        }
        if do_skip(s).is_err() {
            return core::ptr::null_mut();
        }
        // SAFETY: caller contract.
        let b = unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), len as usize) };
        let mut n = 0usize;
        let room = len as usize - 1;
        while n < room {
            if s.x.have == 0 && !fill(s) {
                s.past = true;
                break;
            }
            // SAFETY: next points to have valid bytes.
            let avail = unsafe { core::slice::from_raw_parts(s.x.next, s.x.have as usize) };
            let take = avail.len().min(room - n);
            let (k, nl) = match avail[..take].iter().position(|&c| c == b'\n') {
                Some(i) => (i + 1, true),
                None => (take, false),
            };
            b[n..n + k].copy_from_slice(&avail[..k]);
            n += k;
            s.x.have -= k as c_uint;
            // SAFETY: k <= have.
            s.x.next = unsafe { s.x.next.add(k) };
            s.x.pos += k as i64;
            if nl {
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
