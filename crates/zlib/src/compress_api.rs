//! zlib's one-shot utility functions (`compress`, `compress2`, `compressBound`, `uncompress`,
//! `uncompress2`) and the library-information calls (`zlibVersion`, `zlibCompileFlags`,
//! `zError`).
//!
//! `compress2` runs one job: inputs above the parallel threshold go to the device as parallel
//! blocks, smaller ones to the engine on the caller's thread. If the result would not fit the
//! caller's buffer but stored blocks would (a caller that sized the buffer with zlib's own
//! `compressBound` formula, on incompressible data), the data is re-encoded as stored blocks,
//! so every buffer zlib accepts is accepted.
use core::ffi::{c_char, c_int, c_uint, c_ulong};

use hyperz_engine::checksum::adler32;
use hyperz_engine::deflate::{compress_bound, Compressor, Deflater, Flush, Params};
use hyperz_engine::inflate::{ErrorKind, StreamState};
use hyperz_engine::Format;

use crate::config;
use crate::deflate_api::bound;
use crate::inflate_api::reported_now;
use crate::pool;
use crate::types::*;

/// zlib's `compressBound` formula: what callers that hard-code it expect to suffice.
fn zlib_bound(len: u64) -> u64 {
    len + (len >> 12) + (len >> 14) + (len >> 25) + 13
}

/// A zlib stream of stored blocks (the fallback that always fits zlib's bound).
fn stored_zlib(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() + input.len() / 65535 * 5 + 16);
    out.extend_from_slice(&[0x78, 0x01]);
    let mut chunks = input.chunks(65535).peekable();
    if input.is_empty() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(c) = chunks.next() {
        out.push(u8::from(chunks.peek().is_none()));
        out.extend_from_slice(&(c.len() as u16).to_le_bytes());
        out.extend_from_slice(&(!(c.len() as u16)).to_le_bytes());
        out.extend_from_slice(c);
    }
    out.extend_from_slice(&adler32(1, input).to_be_bytes());
    out
}

/// Compresses `input` on this thread with a pooled compressor.
fn compress_inline(format: Format, input: &[u8], level: u32) -> Vec<u8> {
    let params = Params {
        level,
        ..Params::default()
    };
    let mut d = match pool::take_deflater(format, params) {
        Some(d) => d,
        None => match Deflater::new(format, params) {
            Ok(d) => Box::new(d),
            Err(_) => {
                let mut out = Vec::new();
                Compressor::new(level).compress(format, input, &mut out);
                return out;
            }
        },
    };
    let mut out = vec![0u8; compress_bound(format, input.len())];
    let mut done = 0;
    let mut pos = 0;
    loop {
        let r = d.deflate(&input[pos..], &mut out[done..], Flush::Finish);
        match r {
            Ok(s) => {
                pos += s.consumed;
                done += s.produced;
                if s.done {
                    break;
                }
                if done == out.len() {
                    out.resize(out.len() * 2, 0);
                }
            }
            Err(_) => {
                out.clear();
                Compressor::new(level).compress(format, input, &mut out);
                return out;
            }
        }
    }
    out.truncate(done);
    pool::give_deflater(format, params, d);
    out
}

/// Compresses `input` as one zlib stream at `level` (0..=9).
pub(crate) fn compress_zlib(input: &[u8], level: u32) -> Vec<u8> {
    let cfg = config::config();
    let out = if !cfg.force_inline && level >= 1 && input.len() > cfg.threshold {
        config::device().compress(Format::Zlib, level, input)
    } else {
        compress_inline(Format::Zlib, input, level)
    };
    config::trace_stream(
        true,
        input.len() > cfg.threshold,
        input.len() as u64,
        out.len() as u64,
    );
    out
}

/// `int compress2(Bytef *dest, uLongf *destLen, const Bytef *source, uLong sourceLen, int level)`
///
/// # Safety
/// `dest` must have `*dest_len` writable bytes; `source` `source_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn compress2(
    dest: *mut u8,
    dest_len: *mut c_ulong,
    source: *const u8,
    source_len: c_ulong,
    level: c_int,
) -> c_int {
    guard(Z_STREAM_ERROR, || {
        let level = if level == Z_DEFAULT_COMPRESSION {
            6
        } else {
            level
        };
        if !(0..=9).contains(&level) || dest_len.is_null() {
            return Z_STREAM_ERROR;
        }
        if (source.is_null() && source_len != 0) || dest.is_null() {
            return Z_STREAM_ERROR;
        }
        let input: &[u8] = if source_len == 0 {
            &[]
        } else {
            // SAFETY: caller contract.
            unsafe { core::slice::from_raw_parts(source, source_len as usize) }
        };
        config::trace_call(true, input.len());
        // SAFETY: caller contract.
        let cap = unsafe { *dest_len } as usize;
        let mut out = compress_zlib(input, level as u32);
        if out.len() > cap
            && (input.len() as u64) + (input.len() as u64 / 65535 + 1) * 5 + 6 <= cap as u64
        {
            out = stored_zlib(input);
        }
        if out.len() > cap {
            // zlib fills the buffer and reports Z_BUF_ERROR; the partial data is unusable.
            return Z_BUF_ERROR;
        }
        // SAFETY: out.len() <= cap, the size of dest.
        unsafe {
            core::ptr::copy_nonoverlapping(out.as_ptr(), dest, out.len());
            *dest_len = out.len() as c_ulong;
        }
        Z_OK
    })
}

/// `int compress(Bytef *dest, uLongf *destLen, const Bytef *source, uLong sourceLen)`
///
/// # Safety
/// As [`compress2`].
#[no_mangle]
pub unsafe extern "C" fn compress(
    dest: *mut u8,
    dest_len: *mut c_ulong,
    source: *const u8,
    source_len: c_ulong,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { compress2(dest, dest_len, source, source_len, Z_DEFAULT_COMPRESSION) }
}

/// `uLong compressBound(uLong sourceLen)`: at least zlib's bound, and at least ours.
#[export_name = "hz_compressBound"]
pub extern "C" fn compressBound(source_len: c_ulong) -> c_ulong {
    guard(0, || {
        bound(Format::Zlib, source_len).max(zlib_bound(source_len)) as c_ulong
    })
}

/// `int uncompress2(Bytef *dest, uLongf *destLen, const Bytef *source, uLong *sourceLen)`
///
/// # Safety
/// `dest` must have `*dest_len` writable bytes; `source` `*source_len` readable bytes.
#[export_name = "hz_uncompress2"]
pub unsafe extern "C" fn uncompress2(
    dest: *mut u8,
    dest_len: *mut c_ulong,
    source: *const u8,
    source_len: *mut c_ulong,
) -> c_int {
    guard(Z_STREAM_ERROR, || {
        if dest_len.is_null() || source_len.is_null() {
            return Z_STREAM_ERROR;
        }
        // SAFETY: caller contract.
        let (cap, len) = unsafe { (*dest_len as usize, *source_len as usize) };
        if (source.is_null() && len != 0) || (dest.is_null() && cap != 0) {
            return Z_STREAM_ERROR;
        }
        // SAFETY: caller contract; no slice of `dest` exists yet. A source inside `dest`
        // (decompressing in place) is copied.
        let input = unsafe { input_apart(source, len, dest, cap) };
        let input = &input[..];
        let mut one = [0u8; 1];
        let out: &mut [u8] = if cap == 0 {
            // zlib decodes into a one-byte scratch to tell "empty" from "too small".
            &mut one
        } else {
            // SAFETY: caller contract.
            unsafe { core::slice::from_raw_parts_mut(dest, cap) }
        };
        config::trace_call(false, input.len());
        let mut inf = pool::take_inflater(Format::Zlib, 15);
        let r = inf.inflate(input, out);
        let consumed = inf.total_in() as usize;
        let produced = inf.total_out() as usize;
        let failed = inf
            .pending_error()
            .is_some_and(|e| reported_now(&e, produced == out.len()));
        pool::give_inflater(inf);
        // SAFETY: caller contract.
        unsafe {
            *source_len = consumed as c_ulong;
            *dest_len = if cap == 0 { 0 } else { produced as c_ulong };
        }
        match r {
            Ok(s) => match s.state {
                // Also with `*destLen` 0 and the one byte of a one-byte stream in the scratch,
                // as zlib reports it.
                StreamState::StreamEnd => Z_OK,
                StreamState::NeedDictionary(_) => Z_DATA_ERROR,
                // Stopped with the output full: too small, except with `*destLen` 0, where
                // zlib reports any stream with data as Z_DATA_ERROR (its scratch filled up).
                // Stopped with room left: the input ended early.
                StreamState::Progress => {
                    if failed {
                        Z_DATA_ERROR
                    } else if produced == out.len() && cap != 0 {
                        Z_BUF_ERROR
                    } else {
                        Z_DATA_ERROR
                    }
                }
            },
            Err(e) if e.kind == ErrorKind::Truncated => Z_DATA_ERROR,
            Err(_) => Z_DATA_ERROR,
        }
    })
}

/// `int uncompress(Bytef *dest, uLongf *destLen, const Bytef *source, uLong sourceLen)`
///
/// # Safety
/// As [`uncompress2`].
#[no_mangle]
pub unsafe extern "C" fn uncompress(
    dest: *mut u8,
    dest_len: *mut c_ulong,
    source: *const u8,
    source_len: c_ulong,
) -> c_int {
    let mut len = source_len;
    // SAFETY: forwarded contract.
    unsafe { uncompress2(dest, dest_len, source, &mut len) }
}

/// `const char *zlibVersion(void)`
#[no_mangle]
pub extern "C" fn zlibVersion() -> *const c_char {
    ZLIB_VERSION.as_ptr()
}

/// `uLong zlibCompileFlags(void)`: zlib's bit layout — sizes of uInt (bits 0-1), uLong (2-3),
/// pointers (4-5) and z_off_t (6-7) as 0=16, 1=32, 2=64 bits; no debug, no assembler, and the
/// "secure" `vsnprintf` (bits 24-25 clear).
#[export_name = "hz_zlibCompileFlags"]
pub extern "C" fn zlibCompileFlags() -> c_ulong {
    let size = |n: usize| -> c_ulong {
        match n {
            2 => 0,
            4 => 1,
            8 => 2,
            _ => 3,
        }
    };
    size(core::mem::size_of::<c_uint>())
        | size(core::mem::size_of::<c_ulong>()) << 2
        | size(core::mem::size_of::<*const u8>()) << 4
        | size(core::mem::size_of::<z_off_t>()) << 6
}

/// `const char *zError(int err)`
#[no_mangle]
pub extern "C" fn zError(err: c_int) -> *const c_char {
    error_message(err).as_ptr()
}
