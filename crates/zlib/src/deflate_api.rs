//! zlib's deflate family as C entry points: argument checks and `z_stream` bookkeeping with
//! zlib's exact return codes, around a `DeflateStream` that does the work.
//!
//! `strm->state` points to a [`DState`] whose `strm` field must equal the `z_stream` it was
//! created for (zlib's `deflateStateCheck`): a `z_stream` copied by value instead of with
//! `deflateCopy`, an inflate stream, or a never-initialised one is rejected with
//! `Z_STREAM_ERROR` instead of being trusted.
use core::ffi::{c_char, c_int, c_uint, c_ulong};

use hyperz_engine::deflate::{compress_bound, Flush, Params, Strategy};
use hyperz_engine::{Format, GzipHeader};

use crate::config;
use crate::deflate_stream::DeflateStream;
use crate::types::*;

const MAGIC: u32 = 0x687a_6466; // "hzdf"

/// What `strm->state` points to for a deflate stream. `repr(C)` with the magic and the
/// back-pointer first, as in the inflate state, so either can be told apart safely.
#[repr(C)]
pub struct DState {
    magic: u32,
    strm: *const z_stream,
    /// Whether `strm->data_type` has been decided from the first input.
    typed: bool,
    pub(crate) s: DeflateStream,
}

/// The stream's state if `strm` is a live deflate stream created for this very `z_stream`.
///
/// # Safety
/// As [`state_of`].
pub(crate) unsafe fn state<'a>(strm: *mut z_stream) -> Option<&'a mut DState> {
    // SAFETY: forwarded contract.
    unsafe { state_of::<DState>(strm) }
}

impl ZState for DState {
    const MAGIC: u32 = MAGIC;
}

/// zlib's strategy constant as the engine's, if valid (also used by the gz* functions).
pub(crate) fn strategy_of(s: c_int) -> Option<Strategy> {
    Some(match s {
        Z_DEFAULT_STRATEGY => Strategy::Default,
        Z_FILTERED => Strategy::Filtered,
        Z_HUFFMAN_ONLY => Strategy::HuffmanOnly,
        Z_RLE => Strategy::Rle,
        Z_FIXED => Strategy::Fixed,
        _ => return None,
    })
}

fn flush_of(f: c_int) -> Option<Flush> {
    Some(match f {
        Z_NO_FLUSH => Flush::None,
        Z_PARTIAL_FLUSH => Flush::Partial,
        Z_SYNC_FLUSH => Flush::Sync,
        Z_FULL_FLUSH => Flush::Full,
        Z_FINISH => Flush::Finish,
        Z_BLOCK => Flush::Block,
        _ => return None,
    })
}

/// `int deflateInit_(z_streamp strm, int level, const char *version, int stream_size)`
///
/// # Safety
/// zlib's contract: `strm` points to a `z_stream` with `zalloc`/`zfree`/`opaque` set.
#[no_mangle]
pub unsafe extern "C" fn deflateInit_(
    strm: *mut z_stream,
    level: c_int,
    version: *const c_char,
    stream_size: c_int,
) -> c_int {
    // SAFETY: forwarded caller contract.
    unsafe { deflateInit2_(strm, level, Z_DEFLATED, 15, 8, 0, version, stream_size) }
}

/// `int deflateInit2_(z_streamp strm, int level, int method, int windowBits, int memLevel,
/// int strategy, const char *version, int stream_size)`
///
/// # Safety
/// As [`deflateInit_`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn deflateInit2_(
    strm: *mut z_stream,
    level: c_int,
    method: c_int,
    window_bits: c_int,
    mem_level: c_int,
    strategy: c_int,
    version: *const c_char,
    stream_size: c_int,
) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: version is a C string per zlib's contract.
        if !unsafe { version_ok(version, stream_size) } {
            return Z_VERSION_ERROR;
        }
        if strm.is_null() {
            return Z_STREAM_ERROR;
        }
        // SAFETY: non-null z_stream per contract.
        let z = unsafe { &mut *strm };
        z.msg = core::ptr::null();
        let level = if level == Z_DEFAULT_COMPRESSION {
            6
        } else {
            level
        };
        let (format, mut wbits) = if window_bits < 0 {
            if window_bits < -15 {
                return Z_STREAM_ERROR;
            }
            (Format::Raw, -window_bits)
        } else if window_bits > 15 {
            (Format::Gzip, window_bits - 16)
        } else {
            (Format::Zlib, window_bits)
        };
        let Some(strategy) = strategy_of(strategy) else {
            return Z_STREAM_ERROR;
        };
        if !(1..=9).contains(&mem_level)
            || method != Z_DEFLATED
            || !(8..=15).contains(&wbits)
            || !(0..=9).contains(&level)
            || (wbits == 8 && format != Format::Zlib)
        {
            return Z_STREAM_ERROR;
        }
        if wbits == 8 {
            wbits = 9;
        }
        let params = Params {
            level: level as u32,
            strategy,
            window_bits: wbits as u8,
            mem_level: mem_level as u8,
        };
        let st = Box::new(DState {
            magic: MAGIC,
            strm,
            typed: false,
            s: DeflateStream::new(format, params),
        });
        z.state = Box::into_raw(st).cast();
        z.total_in = 0;
        z.total_out = 0;
        z.data_type = Z_UNKNOWN;
        z.adler = if format == Format::Gzip { 0 } else { 1 };
        Z_OK
    })
}

/// zlib's detect_data_type: binary if any byte of a block-listed control code appears, text if
/// any byte is printable or TAB/LF/CR, else binary.
fn data_type_of(data: &[u8]) -> c_int {
    const BLOCK: u32 = 0xf3ff_c07f; // bit i set: byte i (0..31) marks binary data
    let mut text = false;
    for &b in data.iter().take(1 << 16) {
        if b < 32 {
            if BLOCK & (1 << b) != 0 {
                return Z_BINARY;
            }
            if b == 9 || b == 10 || b == 13 {
                text = true;
            }
        } else {
            text = true;
        }
    }
    if text {
        Z_TEXT
    } else {
        Z_BINARY
    }
}

/// `int deflate(z_streamp strm, int flush)`
///
/// # Safety
/// zlib's contract: `next_in`/`avail_in` and `next_out`/`avail_out` describe valid buffers.
#[no_mangle]
pub unsafe extern "C" fn deflate(strm: *mut z_stream, flush: c_int) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: state() validates the pointer chain.
        let Some(d) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        // SAFETY: strm is valid (checked by state()).
        let z = unsafe { &mut *strm };
        let Some(fl) = flush_of(flush) else {
            return Z_STREAM_ERROR;
        };
        if z.next_out.is_null() || (z.avail_in != 0 && z.next_in.is_null()) {
            // SAFETY: strm valid.
            return unsafe { err_return(strm, Z_STREAM_ERROR) };
        }
        if z.avail_out == 0 {
            // SAFETY: strm valid.
            return unsafe { err_return(strm, Z_BUF_ERROR) };
        }
        // SAFETY: zlib's contract on the stream's buffers.
        let (input, output) = unsafe { io_slices(z) };
        let input = &input[..];
        config::trace_call(true, input.len());
        if !d.typed && !input.is_empty() {
            d.typed = true;
            z.data_type = data_type_of(input);
        }
        let st = d.s.deflate(input, output, fl);
        advance(z, st.consumed, st.produced);
        // zlib leaves strm->adler alone for raw streams (gzappend keeps its CRC there).
        if d.s.format != Format::Raw {
            z.adler = d.s.check as c_ulong;
        }
        if st.code < 0 {
            // SAFETY: strm valid.
            return unsafe { err_return(strm, st.code) };
        }
        st.code
    })
}

/// `int deflateEnd(z_streamp strm)`: `Z_DATA_ERROR` when the stream was freed before it was
/// finished (zlib's "freed prematurely"), else `Z_OK`.
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[no_mangle]
pub unsafe extern "C" fn deflateEnd(strm: *mut z_stream) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(d) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        let busy = d.s.started() && !d.s.finished();
        // SAFETY: the state (just validated) comes from deflateInit2_/deflateCopy.
        unsafe { free_state::<DState>(strm) };
        if busy {
            Z_DATA_ERROR
        } else {
            Z_OK
        }
    })
}

/// `int deflateReset(z_streamp strm)`
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[no_mangle]
pub unsafe extern "C" fn deflateReset(strm: *mut z_stream) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(d) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        d.s.reset();
        d.typed = false;
        // SAFETY: strm valid.
        let z = unsafe { &mut *strm };
        z.total_in = 0;
        z.total_out = 0;
        z.msg = core::ptr::null();
        z.data_type = Z_UNKNOWN;
        z.adler = if d.s.format == Format::Gzip { 0 } else { 1 };
        Z_OK
    })
}

/// `int deflateResetKeep(z_streamp strm)`: as `deflateReset` (our reset keeps allocations).
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[export_name = "hz_deflateResetKeep"]
pub unsafe extern "C" fn deflateResetKeep(strm: *mut z_stream) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { deflateReset(strm) }
}

/// `int deflateSetDictionary(z_streamp strm, const Bytef *dictionary, uInt dictLength)`
///
/// # Safety
/// `dictionary` must point to `dict_length` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn deflateSetDictionary(
    strm: *mut z_stream,
    dictionary: *const u8,
    dict_length: c_uint,
) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(d) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        if dictionary.is_null() {
            return Z_STREAM_ERROR;
        }
        // SAFETY: caller contract.
        let dict = unsafe { core::slice::from_raw_parts(dictionary, dict_length as usize) };
        let r = d.s.set_dictionary(dict);
        if r == Z_OK && d.s.format == Format::Zlib {
            // SAFETY: strm valid.
            unsafe { (*strm).adler = d.s.check as c_ulong };
        }
        r
    })
}

/// `int deflateGetDictionary(z_streamp strm, Bytef *dictionary, uInt *dictLength)`
///
/// # Safety
/// `dictionary` must be NULL or have room for the window (32 KiB is always enough);
/// `dict_length` NULL or writable.
#[export_name = "hz_deflateGetDictionary"]
pub unsafe extern "C" fn deflateGetDictionary(
    strm: *mut z_stream,
    dictionary: *mut u8,
    dict_length: *mut c_uint,
) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(d) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        let h = d.s.dictionary();
        if !dictionary.is_null() {
            // SAFETY: caller provides room for the window (h.len() <= 2^windowBits <= 32 KiB).
            unsafe { core::ptr::copy_nonoverlapping(h.as_ptr(), dictionary, h.len()) };
        }
        if !dict_length.is_null() {
            // SAFETY: caller contract.
            unsafe { *dict_length = h.len() as c_uint };
        }
        Z_OK
    })
}

/// `int deflateParams(z_streamp strm, int level, int strategy)`: the output of the implied
/// `Z_BLOCK` flush is delivered by the following `deflate()` calls.
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[no_mangle]
pub unsafe extern "C" fn deflateParams(
    strm: *mut z_stream,
    level: c_int,
    strategy: c_int,
) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(d) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        let level = if level == Z_DEFAULT_COMPRESSION {
            6
        } else {
            level
        };
        let Some(strategy) = strategy_of(strategy) else {
            return Z_STREAM_ERROR;
        };
        if !(0..=9).contains(&level) {
            return Z_STREAM_ERROR;
        }
        d.s.set_params(level as u32, strategy)
    })
}

/// `int deflateTune(z_streamp strm, int good_length, int max_lazy, int nice_length,
/// int max_chain)`: accepted and ignored — our match finders are tuned per level, and zlib
/// documents these values as hints whose effect may change between versions.
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[export_name = "hz_deflateTune"]
pub unsafe extern "C" fn deflateTune(
    strm: *mut z_stream,
    _good_length: c_int,
    _max_lazy: c_int,
    _nice_length: c_int,
    _max_chain: c_int,
) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        match unsafe { state(strm) } {
            Some(_) => Z_OK,
            None => Z_STREAM_ERROR,
        }
    })
}

/// Our worst-case output for `len` input bytes in `format`, inline or in parallel blocks.
pub(crate) fn bound(format: Format, len: u64) -> u64 {
    let len_us = usize::try_from(len).unwrap_or(usize::MAX / 2);
    let block = config::device().config().block_size.max(1) as u64;
    compress_bound(format, len_us) as u64 + (len / block + 1) * 80
}

/// `uLong deflateBound(z_streamp strm, uLong sourceLen)`
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[export_name = "hz_deflateBound"]
pub unsafe extern "C" fn deflateBound(strm: *mut z_stream, source_len: c_ulong) -> c_ulong {
    guard(0, || {
        // SAFETY: validated by state().
        let Some(d) = (unsafe { state(strm) }) else {
            return bound(Format::Zlib, source_len) as c_ulong + 6;
        };
        bound(d.s.format, source_len) as c_ulong + d.s.header_extra() as c_ulong
    })
}

/// `int deflatePending(z_streamp strm, unsigned *pending, int *bits)`
///
/// # Safety
/// `pending` and `bits` must each be NULL or writable.
#[export_name = "hz_deflatePending"]
pub unsafe extern "C" fn deflatePending(
    strm: *mut z_stream,
    pending: *mut c_uint,
    bits: *mut c_int,
) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(d) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        let (p, b) = d.s.pending();
        // SAFETY: caller contract (each NULL or writable).
        unsafe {
            if !pending.is_null() {
                *pending = p as c_uint;
            }
            if !bits.is_null() {
                *bits = b as c_int;
            }
        }
        Z_OK
    })
}

/// `int deflatePrime(z_streamp strm, int bits, int value)`
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[export_name = "hz_deflatePrime"]
pub unsafe extern "C" fn deflatePrime(strm: *mut z_stream, bits: c_int, value: c_int) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(d) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        // zlib answers Z_BUF_ERROR for a bit count that does not fit its bit buffer.
        if !(0..=16).contains(&bits) {
            return Z_BUF_ERROR;
        }
        d.s.prime(bits as u32, value as u32)
    })
}

/// Reads a NUL-terminated field of a caller's `gz_header`.
///
/// # Safety
/// `p` must be NULL or a NUL-terminated string.
unsafe fn c_field(p: *const u8) -> Option<Vec<u8>> {
    if p.is_null() {
        return None;
    }
    // SAFETY: caller contract.
    Some(
        unsafe { core::ffi::CStr::from_ptr(p.cast()) }
            .to_bytes()
            .to_vec(),
    )
}

/// `int deflateSetHeader(z_streamp strm, gz_headerp head)`: the fields are read now (zlib
/// reads them when the header is written; callers must set them before the first deflate
/// either way).
///
/// # Safety
/// `head` must point to a valid `gz_header` whose pointers are NULL or valid.
#[export_name = "hz_deflateSetHeader"]
pub unsafe extern "C" fn deflateSetHeader(strm: *mut z_stream, head: *mut gz_header) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(d) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        if head.is_null() {
            return Z_STREAM_ERROR;
        }
        // SAFETY: caller contract.
        let h = unsafe { &*head };
        let extra = if h.extra.is_null() {
            None
        } else {
            // SAFETY: extra points to extra_len bytes (zlib's contract).
            Some(unsafe { core::slice::from_raw_parts(h.extra, h.extra_len as usize) }.to_vec())
        };
        let g = GzipHeader {
            text: h.text != 0,
            mtime: h.time as u32,
            xfl: 0,
            os: h.os as u8,
            extra,
            // SAFETY: caller contract: NULL or NUL-terminated.
            name: unsafe { c_field(h.name) },
            // SAFETY: as above.
            comment: unsafe { c_field(h.comment) },
            hcrc: h.hcrc != 0,
        };
        d.s.set_header(g)
    })
}

/// `int deflateCopy(z_streamp dest, z_streamp source)`
///
/// # Safety
/// `dest` must point to writable `z_stream` memory; `source` a live deflate stream.
#[no_mangle]
pub unsafe extern "C" fn deflateCopy(dest: *mut z_stream, source: *mut z_stream) -> c_int {
    guard(Z_STREAM_ERROR, || {
        if dest.is_null() {
            return Z_STREAM_ERROR;
        }
        // SAFETY: validated by state().
        let Some(d) = (unsafe { state(source) }) else {
            return Z_STREAM_ERROR;
        };
        if dest == source {
            // A stream is already its own copy (see inflateCopy).
            return Z_OK;
        }
        let Some(copy) = d.s.duplicate() else {
            return Z_MEM_ERROR;
        };
        let st = Box::new(DState {
            magic: MAGIC,
            strm: dest,
            typed: d.typed,
            s: copy,
        });
        // SAFETY: both point to z_streams (dest writable); copying the public fields is what
        // zlib does (zmemcpy of the struct) before installing the new state.
        unsafe {
            core::ptr::copy_nonoverlapping(source, dest, 1);
            (*dest).state = Box::into_raw(st).cast();
        }
        Z_OK
    })
}
