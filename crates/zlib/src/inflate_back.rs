//! zlib's `inflateBack` family: raw DEFLATE decoded through caller callbacks, the caller's
//! window used as the output buffer (every `out()` call hands it a stretch of that window).
use core::ffi::{c_char, c_int, c_uint, c_void};

use hyperz_engine::inflate::{Inflater, StreamState};
use hyperz_engine::Format;

use crate::config;
use crate::types::*;

const MAGIC: u32 = 0x687a_6962; // "hzib"

/// What `strm->state` points to between `inflateBackInit_` and `inflateBackEnd`.
#[repr(C)]
struct BState {
    magic: u32,
    strm: *const z_stream,
    window: *mut u8,
    wsize: usize,
    wbits: u8,
}

/// The stream's state if `strm` is a live inflateBack stream.
///
/// # Safety
/// As [`state_of`].
unsafe fn bstate<'a>(strm: *mut z_stream) -> Option<&'a mut BState> {
    // SAFETY: forwarded contract.
    unsafe { state_of::<BState>(strm) }
}

impl ZState for BState {
    const MAGIC: u32 = MAGIC;
}

/// `int inflateBackInit_(z_streamp strm, int windowBits, unsigned char *window,
/// const char *version, int stream_size)`
///
/// # Safety
/// `window` must have `1 << windowBits` writable bytes for the life of the stream.
#[export_name = "hz_inflateBackInit_"]
pub unsafe extern "C" fn inflateBackInit_(
    strm: *mut z_stream,
    window_bits: c_int,
    window: *mut u8,
    version: *const c_char,
    stream_size: c_int,
) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: version is a C string per contract.
        if !unsafe { version_ok(version, stream_size) } {
            return Z_VERSION_ERROR;
        }
        if strm.is_null() || window.is_null() || !(8..=15).contains(&window_bits) {
            return Z_STREAM_ERROR;
        }
        let st = Box::new(BState {
            magic: MAGIC,
            strm,
            window,
            wsize: 1 << window_bits,
            wbits: window_bits as u8,
        });
        // SAFETY: strm non-null per contract.
        unsafe {
            (*strm).msg = core::ptr::null();
            (*strm).state = Box::into_raw(st).cast();
        }
        Z_OK
    })
}

/// `int inflateBack(z_streamp strm, in_func in, void *in_desc, out_func out, void *out_desc)`
///
/// Returns `Z_STREAM_END` after a complete raw stream (with `next_in`/`avail_in` at the data
/// after it), `Z_BUF_ERROR` when `in()` gives no more input (`next_in` set to NULL) or `out()`
/// fails, `Z_DATA_ERROR` on bad data.
///
/// # Safety
/// The callbacks must follow zlib's contract; `next_in`/`avail_in` may hold initial input.
#[export_name = "hz_inflateBack"]
pub unsafe extern "C" fn inflateBack(
    strm: *mut z_stream,
    in_fn: in_func,
    in_desc: *mut c_void,
    out_fn: out_func,
    out_desc: *mut c_void,
) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by bstate().
        let Some(st) = (unsafe { bstate(strm) }) else {
            return Z_STREAM_ERROR;
        };
        let (Some(in_fn), Some(out_fn)) = (in_fn, out_fn) else {
            return Z_STREAM_ERROR;
        };
        let (wbits, window, wsize) = (st.wbits, st.window, st.wsize);
        // The stream is read and written through `strm` only before and after the loop, and
        // no reference to it or its state is held across the callbacks: a callback may be
        // given the stream as its descriptor and look at it.
        // SAFETY: strm valid.
        let (mut next, avail) = unsafe {
            (*strm).msg = core::ptr::null();
            ((*strm).next_in, (*strm).avail_in)
        };
        let mut inf = Inflater::new(Format::Raw, wbits);
        // SAFETY: the window has wsize writable bytes for the stream's life (contract).
        let window = unsafe { core::slice::from_raw_parts_mut(window, wsize) };
        let mut have: usize = if next.is_null() { 0 } else { avail as usize };
        let mut filled = 0usize;
        let mut code = loop {
            // With no input left the decoder may still hold output it decoded ahead: it is
            // drained before in() is asked for more.
            let input = if have == 0 {
                &[][..]
            } else {
                // SAFETY: `next` points to `have` readable bytes (from the caller or in()).
                unsafe { core::slice::from_raw_parts(next, have) }
            };
            let before = inf.total_in();
            let r = inf.inflate(input, &mut window[filled..]);
            let (consumed, produced, end) = match r {
                Ok(s) => (s.consumed, s.produced, s.state == StreamState::StreamEnd),
                Err(_) => {
                    // The input up to the error counts as used, as zlib leaves it.
                    let used = ((inf.total_in() - before) as usize).min(have);
                    // SAFETY: used <= have.
                    next = unsafe { next.add(used) };
                    have -= used;
                    break Z_DATA_ERROR;
                }
            };
            if consumed > 0 {
                // SAFETY: consumed <= have.
                next = unsafe { next.add(consumed) };
                have -= consumed;
            }
            filled += produced;
            if filled == window.len() {
                filled = 0;
                // SAFETY: calling the caller's output callback with its own window.
                if unsafe { out_fn(out_desc, window.as_mut_ptr(), window.len() as c_uint) } != 0 {
                    break Z_BUF_ERROR;
                }
            }
            if end {
                break Z_STREAM_END;
            }
            if consumed == 0 && produced == 0 {
                let mut p: *const u8 = core::ptr::null();
                // SAFETY: calling the caller's input callback per zlib's contract.
                let n = unsafe { in_fn(in_desc, &mut p) } as usize;
                if n == 0 || p.is_null() {
                    next = core::ptr::null();
                    have = 0;
                    break Z_BUF_ERROR;
                }
                next = p;
                have = n;
                config::trace_call(false, n);
            }
        };
        if code == Z_STREAM_END {
            config::trace_stream(false, false, inf.total_in(), inf.total_out());
        }
        // Whatever the window holds goes out on every return, errors included (zlib's
        // inf_leave); if out() fails then, a finished stream is Z_BUF_ERROR.
        if filled > 0 {
            // SAFETY: calling the caller's output callback with its own window.
            let failed = unsafe { out_fn(out_desc, window.as_mut_ptr(), filled as c_uint) } != 0;
            if failed && code == Z_STREAM_END {
                code = Z_BUF_ERROR;
            }
        }
        // SAFETY: strm valid.
        unsafe {
            (*strm).next_in = next;
            (*strm).avail_in = have as c_uint;
        }
        if code == Z_DATA_ERROR {
            // SAFETY: strm valid.
            return unsafe { err_return(strm, Z_DATA_ERROR) };
        }
        code
    })
}

/// `int inflateBackEnd(z_streamp strm)`
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[export_name = "hz_inflateBackEnd"]
pub unsafe extern "C" fn inflateBackEnd(strm: *mut z_stream) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: zlib's contract on strm; the state comes from inflateBackInit_.
        if unsafe { free_state::<BState>(strm) } {
            Z_OK
        } else {
            Z_STREAM_ERROR
        }
    })
}
