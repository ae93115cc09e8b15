//! Writing gzip files (zlib's gzwrite.c): small writes gather in a `size`-byte buffer, larger
//! ones go straight to the compressor, whose output is written to the descriptor as it comes.
//! The compressor is the drop-in's [`DeflateStream`], so big files are compressed in parallel.
use core::ffi::{c_char, c_int, c_uint, c_void};
use std::ffi::CStr;

use hyperz_engine::deflate::Flush;

use super::{level, params, state, strategy, GzState, Mode, WRITE_FORMAT};
use crate::deflate_stream::DeflateStream;
use crate::types::*;

/// Output chunk written per `write()` call.
const CHUNK: usize = 128 << 10;

fn write_all(s: &mut GzState, mut data: &[u8]) -> Result<(), ()> {
    while !data.is_empty() {
        // SAFETY: writing from a valid slice to our descriptor.
        let n = unsafe { libc::write(s.fd, data.as_ptr().cast::<c_void>(), data.len()) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            s.errno_error();
            return Err(());
        }
        data = &data[n as usize..];
    }
    Ok(())
}

/// Compresses `data` with `flush` and writes the output (zlib's gz_comp).
fn deflate_data(s: &mut GzState, data: &[u8], flush: Flush) -> Result<(), ()> {
    if s.err != Z_OK {
        return Err(());
    }
    if s.direct {
        // Transparent writing ("T"): the bytes go out unchanged.
        return write_all(s, data);
    }
    if s.member_done {
        // zlib's pending reset: a new member starts only if there is data for it.
        if data.is_empty() {
            return Ok(());
        }
        if let Some(d) = s.def.as_mut() {
            d.reset();
        }
        s.member_done = false;
    }
    if s.def.is_none() {
        let Some(p) = params(s.level, s.strategy) else {
            // zlib's deflateInit2 refuses the parameters, and gz_init reports that so.
            s.error(Z_MEM_ERROR, "out of memory");
            return Err(());
        };
        s.def = Some(Box::new(DeflateStream::new(WRITE_FORMAT, p)));
    }
    if s.out.len() < CHUNK {
        s.out = vec![0; CHUNK];
    }
    let mut out = std::mem::take(&mut s.out);
    let mut pos = 0;
    let result = loop {
        let def = s.def.as_mut().expect("compressor");
        let st = def.deflate(&data[pos..], &mut out, flush);
        pos += st.consumed;
        if write_all(s, &out[..st.produced]).is_err() {
            break Err(());
        }
        if st.code == Z_STREAM_END {
            s.member_done = true;
            break Ok(());
        }
        if st.code < 0 && st.code != Z_BUF_ERROR {
            s.error(st.code, "internal error: deflate stream corrupt");
            break Err(());
        }
        if st.code == Z_BUF_ERROR || (st.consumed == 0 && st.produced == 0) {
            break Ok(());
        }
        // Done when the input is taken and the flush complete (room left in the output);
        // Z_FINISH is complete only at Z_STREAM_END.
        if pos == data.len() && st.produced < out.len() && flush != Flush::Finish {
            break Ok(());
        }
    };
    s.out = out;
    result
}

/// Sends the gathered small writes to the compressor.
fn drain_pending(s: &mut GzState, flush: Flush) -> Result<(), ()> {
    let p = std::mem::take(&mut s.pending);
    let r = deflate_data(s, &p, flush);
    s.pending = p;
    s.pending.clear();
    r
}

/// Writes `n` zero bytes (a forward seek while writing, zlib's gz_zero).
pub(super) fn zero(s: &mut GzState, n: i64) -> c_int {
    s.started = true;
    let zeros = vec![0u8; (n.max(0) as usize).min(CHUNK)];
    let mut left = n.max(0) as usize;
    while left > 0 {
        let k = left.min(zeros.len());
        if gather(s, &zeros[..k]).is_err() {
            return -1;
        }
        s.x.pos += k as i64;
        left -= k;
    }
    0
}

/// Appends `data` (zlib's gz_write) after a pending forward seek; advances the position.
fn put(s: &mut GzState, data: &[u8]) -> Result<(), ()> {
    if data.is_empty() {
        return Ok(());
    }
    s.started = true;
    if s.seek {
        s.seek = false;
        if zero(s, s.skip) == -1 {
            return Err(());
        }
    }
    gather(s, data)?;
    s.x.pos += data.len() as i64;
    Ok(())
}

/// Gathers small writes in the buffer, compressing when it fills; large ones go straight on.
fn gather(s: &mut GzState, data: &[u8]) -> Result<(), ()> {
    let size = s.buffer_size();
    if s.pending.len() + data.len() < size {
        s.pending.extend_from_slice(data);
        return Ok(());
    }
    if !s.pending.is_empty() {
        let room = size.saturating_sub(s.pending.len()).min(data.len());
        s.pending.extend_from_slice(&data[..room]);
        drain_pending(s, Flush::None)?;
        let rest = &data[room..];
        if rest.len() < size {
            s.pending.extend_from_slice(rest);
            return Ok(());
        }
        return deflate_data(s, rest, Flush::None);
    }
    deflate_data(s, data, Flush::None)
}

/// Finishes the stream (gzclose_w): a file never written still gets an empty gzip member.
pub(super) fn finish(s: &mut GzState) -> c_int {
    s.started = true;
    if drain_pending(s, Flush::Finish).is_err() {
        return -1;
    }
    0
}

/// gzsetparams after its checks: the buffered data is compressed with the old parameters
/// first. Like zlib, parameters deflateParams refuses are recorded and otherwise ignored.
pub(super) fn set_params(s: &mut GzState, new_level: c_int, new_strategy: c_int) -> c_int {
    if s.seek {
        s.seek = false;
        if zero(s, s.skip) == -1 {
            return s.err;
        }
    }
    if s.started {
        if !s.pending.is_empty() && drain_pending(s, Flush::Block).is_err() {
            return s.err;
        }
        if let (Some(def), Some(l), Some(st)) =
            (s.def.as_mut(), level(new_level), strategy(new_strategy))
        {
            let _ = def.set_params(l, st);
        }
    }
    s.level = new_level;
    s.strategy = new_strategy;
    Z_OK
}

/// The state of a handle open for writing without an error.
fn writable(file: *mut gzFile_s) -> Option<&'static mut GzState> {
    // SAFETY: callers pass the caller's gzFile (NULL or ours, per zlib's contract).
    let s = unsafe { state(file) }?;
    (s.mode == Mode::Write && s.err == Z_OK).then_some(s)
}

/// `int gzwrite(gzFile file, voidpc buf, unsigned len)`: `len`, or 0 on error.
///
/// # Safety
/// `buf` must have `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn gzwrite(file: *mut gzFile_s, buf: *const c_void, len: c_uint) -> c_int {
    guard(0, || {
        let Some(s) = writable(file) else { return 0 };
        if len > c_int::MAX as c_uint {
            s.error(Z_DATA_ERROR, "requested length does not fit in int");
            return 0;
        }
        if len == 0 || buf.is_null() {
            return 0;
        }
        // SAFETY: caller contract.
        let data = unsafe { core::slice::from_raw_parts(buf.cast::<u8>(), len as usize) };
        match put(s, data) {
            Ok(()) => len as c_int,
            Err(()) => 0,
        }
    })
}

/// `z_size_t gzfwrite(voidpc buf, z_size_t size, z_size_t nitems, gzFile file)`
///
/// # Safety
/// `buf` must have `size * nitems` readable bytes.
#[export_name = "hz_gzfwrite"]
pub unsafe extern "C" fn gzfwrite(
    buf: *const c_void,
    size: usize,
    nitems: usize,
    file: *mut gzFile_s,
) -> usize {
    guard(0, || {
        let Some(s) = writable(file) else { return 0 };
        let Some(len) = size.checked_mul(nitems) else {
            s.error(Z_STREAM_ERROR, "request does not fit in a size_t");
            return 0;
        };
        if len == 0 || buf.is_null() {
            return 0;
        }
        // SAFETY: caller contract.
        let data = unsafe { core::slice::from_raw_parts(buf.cast::<u8>(), len) };
        match put(s, data) {
            Ok(()) => nitems,
            Err(()) => 0,
        }
    })
}

/// `int gzputc(gzFile file, int c)`
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[no_mangle]
pub unsafe extern "C" fn gzputc(file: *mut gzFile_s, c: c_int) -> c_int {
    guard(-1, || {
        let Some(s) = writable(file) else { return -1 };
        match put(s, &[c as u8]) {
            Ok(()) => c & 0xff,
            Err(()) => -1,
        }
    })
}

/// `int gzputs(gzFile file, const char *s)`: the number of bytes written, or -1.
///
/// # Safety
/// `str` must be a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn gzputs(file: *mut gzFile_s, str: *const c_char) -> c_int {
    guard(-1, || {
        let Some(s) = writable(file) else { return -1 };
        if str.is_null() {
            return -1;
        }
        // SAFETY: NUL-terminated per contract.
        let data = unsafe { CStr::from_ptr(str) }.to_bytes();
        if data.len() > c_int::MAX as usize {
            s.error(Z_STREAM_ERROR, "string length does not fit in int");
            return -1;
        }
        match put(s, data) {
            Ok(()) => data.len() as c_int,
            Err(()) => -1,
        }
    })
}

/// `int gzflush(gzFile file, int flush)`: compresses everything written so far with `flush`
/// (`Z_FINISH` ends the member; later writes start a new one, as in zlib).
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[no_mangle]
pub unsafe extern "C" fn gzflush(file: *mut gzFile_s, flush: c_int) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        let Some(s) = (unsafe { state(file) }) else {
            return Z_STREAM_ERROR;
        };
        if s.mode != Mode::Write || s.err != Z_OK {
            return Z_STREAM_ERROR;
        }
        let fl = match flush {
            Z_NO_FLUSH => Flush::None,
            Z_PARTIAL_FLUSH => Flush::Partial,
            Z_SYNC_FLUSH => Flush::Sync,
            Z_FULL_FLUSH => Flush::Full,
            Z_FINISH => Flush::Finish,
            _ => return Z_STREAM_ERROR,
        };
        if s.seek {
            s.seek = false;
            if zero(s, s.skip) == -1 {
                return s.err;
            }
        }
        s.started = true;
        // After Z_FINISH, further writes start a new member (see deflate_data).
        let _ = drain_pending(s, fl);
        s.err
    })
}
