//! zlib 1.3's public C types and constants, laid out exactly as `zlib.h` declares them on LP64
//! Linux (`uLong` = 64 bits, `uInt` = 32 bits, `z_off64_t` = `off_t` = 64 bits), so a program
//! compiled against the system header can hand us its structs.
#![allow(non_camel_case_types, missing_docs)]

use core::ffi::{c_char, c_int, c_uint, c_ulong, c_void};
use std::borrow::Cow;

/// zlib's `voidpf (*alloc_func)(voidpf opaque, uInt items, uInt size)`.
pub type alloc_func = Option<unsafe extern "C" fn(*mut c_void, c_uint, c_uint) -> *mut c_void>;
/// zlib's `void (*free_func)(voidpf opaque, voidpf address)`.
pub type free_func = Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>;
/// `z_off_t` and `z_off64_t` (both `off_t` with `_FILE_OFFSET_BITS` irrelevant on LP64).
pub type z_off_t = i64;

/// `struct z_stream_s`.
#[repr(C)]
pub struct z_stream {
    pub next_in: *const u8,
    pub avail_in: c_uint,
    pub total_in: c_ulong,
    pub next_out: *mut u8,
    pub avail_out: c_uint,
    pub total_out: c_ulong,
    pub msg: *const c_char,
    /// Ours: points to a `DeflateStream` or `InflateStream` (see `deflate_api`/`inflate_api`).
    pub state: *mut c_void,
    pub zalloc: alloc_func,
    pub zfree: free_func,
    pub opaque: *mut c_void,
    pub data_type: c_int,
    pub adler: c_ulong,
    pub reserved: c_ulong,
}

/// `z_streamp`.
pub type z_streamp = *mut z_stream;

/// `struct gz_header_s`.
#[repr(C)]
pub struct gz_header {
    pub text: c_int,
    pub time: c_ulong,
    pub xflags: c_int,
    pub os: c_int,
    pub extra: *mut u8,
    pub extra_len: c_uint,
    pub extra_max: c_uint,
    pub name: *mut u8,
    pub name_max: c_uint,
    pub comment: *mut u8,
    pub comm_max: c_uint,
    pub hcrc: c_int,
    pub done: c_int,
}

/// `gz_headerp`.
pub type gz_headerp = *mut gz_header;

/// The public head of `struct gzFile_s`: zlib.h's `gzgetc()` macro reads these three fields
/// directly, so every gzFile we hand out must start with them and keep them current.
#[repr(C)]
pub struct gzFile_s {
    /// Bytes available at `next`.
    pub have: c_uint,
    /// Next output byte.
    pub next: *mut u8,
    /// Current uncompressed position.
    pub pos: z_off_t,
}

/// `in_func`: `unsigned (*)(void *, z_const unsigned char **)`.
pub type in_func = Option<unsafe extern "C" fn(*mut c_void, *mut *const u8) -> c_uint>;
/// `out_func`: `int (*)(void *, unsigned char *, unsigned)`.
pub type out_func = Option<unsafe extern "C" fn(*mut c_void, *mut u8, c_uint) -> c_int>;

pub const Z_NO_FLUSH: c_int = 0;
pub const Z_PARTIAL_FLUSH: c_int = 1;
pub const Z_SYNC_FLUSH: c_int = 2;
pub const Z_FULL_FLUSH: c_int = 3;
pub const Z_FINISH: c_int = 4;
pub const Z_BLOCK: c_int = 5;
pub const Z_TREES: c_int = 6;

pub const Z_OK: c_int = 0;
pub const Z_STREAM_END: c_int = 1;
pub const Z_NEED_DICT: c_int = 2;
pub const Z_ERRNO: c_int = -1;
pub const Z_STREAM_ERROR: c_int = -2;
pub const Z_DATA_ERROR: c_int = -3;
pub const Z_MEM_ERROR: c_int = -4;
pub const Z_BUF_ERROR: c_int = -5;
pub const Z_VERSION_ERROR: c_int = -6;

pub const Z_NO_COMPRESSION: c_int = 0;
pub const Z_BEST_SPEED: c_int = 1;
pub const Z_BEST_COMPRESSION: c_int = 9;
pub const Z_DEFAULT_COMPRESSION: c_int = -1;

pub const Z_FILTERED: c_int = 1;
pub const Z_HUFFMAN_ONLY: c_int = 2;
pub const Z_RLE: c_int = 3;
pub const Z_FIXED: c_int = 4;
pub const Z_DEFAULT_STRATEGY: c_int = 0;

pub const Z_BINARY: c_int = 0;
pub const Z_TEXT: c_int = 1;
pub const Z_UNKNOWN: c_int = 2;

pub const Z_DEFLATED: c_int = 8;

/// The version string `zlibVersion()` reports: that of the system zlib we replace, read from
/// its header at build time (see build.rs).
pub const ZLIB_VERSION: &core::ffi::CStr =
    match core::ffi::CStr::from_bytes_with_nul(concat!(env!("HZ_ZLIB_VERSION"), "\0").as_bytes()) {
        Ok(v) => v,
        Err(_) => c"1.3.1",
    };

/// Checks the `version`/`stream_size` arguments of the `*Init_` functions as zlib does: the
/// major version digit must match and the struct size must be ours.
///
/// # Safety
/// `version` must be NULL or a NUL-terminated string.
pub unsafe fn version_ok(version: *const c_char, stream_size: c_int) -> bool {
    if version.is_null() || stream_size != core::mem::size_of::<z_stream>() as c_int {
        return false;
    }
    // SAFETY: non-null and NUL-terminated by the caller's contract; we read one byte.
    unsafe { *version as u8 == b'1' }
}

/// zlib's message strings, indexed by `2 - code` (as `z_errmsg`).
pub fn error_message(code: c_int) -> &'static core::ffi::CStr {
    match code {
        Z_NEED_DICT => c"need dictionary",
        Z_STREAM_END => c"stream end",
        Z_OK => c"",
        Z_ERRNO => c"file error",
        Z_STREAM_ERROR => c"stream error",
        Z_DATA_ERROR => c"data error",
        Z_MEM_ERROR => c"insufficient memory",
        Z_BUF_ERROR => c"buffer error",
        Z_VERSION_ERROR => c"incompatible version",
        _ => c"",
    }
}

/// Runs `f`, turning a panic into `err` so no unwind crosses the C ABI.
pub fn guard<T>(err: T, f: impl FnOnce() -> T) -> T {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(err)
}

/// Implemented by the states we hang on `strm->state`. Each is `repr(C)` and starts with
/// `magic: u32` followed by `strm: *const z_stream` (the `z_stream` it was created for), so
/// those two fields can be read before knowing which state a pointer holds.
pub(crate) trait ZState {
    /// This state's magic number.
    const MAGIC: u32;
}

/// The first two fields every [`ZState`] starts with.
#[repr(C)]
struct StateHead {
    magic: u32,
    strm: *const z_stream,
}

/// `strm->state` as a `T`, if `strm` is a live stream of that kind created for this very
/// `z_stream` (zlib's `deflateStateCheck`/`inflateStateCheck`: a `z_stream` copied by value,
/// a stream of the other kind, or a NULL state is refused).
///
/// # Safety
/// `strm` must be NULL or point to a `z_stream` whose `state` is NULL or was set by one of our
/// init functions (zlib's own contract).
pub(crate) unsafe fn state_of<'a, T: ZState>(strm: *mut z_stream) -> Option<&'a mut T> {
    if strm.is_null() {
        return None;
    }
    // SAFETY: `strm` is non-null and points to a z_stream by the caller's contract.
    let st = unsafe { (*strm).state } as *mut StateHead;
    if st.is_null() {
        return None;
    }
    // SAFETY: every state we install starts with a StateHead (see ZState).
    let head = unsafe { &*st };
    if head.magic != T::MAGIC || !std::ptr::eq(head.strm, strm) {
        return None;
    }
    // SAFETY: the magic says the state is a T.
    Some(unsafe { &mut *(st as *mut T) })
}

/// Frees the `T` behind `strm->state` and clears the pointer (the `*End` functions); false
/// if `strm` does not hold a live `T`.
///
/// # Safety
/// As [`state_of`]; the state must have been installed with `Box::into_raw`.
pub(crate) unsafe fn free_state<T: ZState>(strm: *mut z_stream) -> bool {
    // SAFETY: forwarded contract.
    let Some(st) = (unsafe { state_of::<T>(strm) }) else {
        return false;
    };
    // SAFETY: our init functions install states with Box::into_raw; the pointer is cleared
    // right after, so the state is freed exactly once.
    unsafe {
        drop(Box::from_raw(st as *mut T));
        (*strm).state = core::ptr::null_mut();
    }
    true
}

/// `len` input bytes at `ptr` for a call that writes `out_len` bytes at `out`: borrowed, or
/// copied when the two ranges overlap. zlib does not ask for them apart (decompressing in
/// place, the input at the end of the output buffer, works with it), but Rust may not hold a
/// shared and a mutable slice over the same bytes.
///
/// # Safety
/// `ptr` must point to `len` readable bytes unless `len` is 0 or `ptr` NULL (then the input is
/// empty), and `out` to `out_len` bytes (a NULL `out` comes with 0); no mutable slice over the
/// input may be live; the result must not outlive it.
pub(crate) unsafe fn input_apart<'a>(
    ptr: *const u8,
    len: usize,
    out: *const u8,
    out_len: usize,
) -> Cow<'a, [u8]> {
    if len == 0 || ptr.is_null() {
        return Cow::Borrowed(&[]);
    }
    // SAFETY: `len` readable bytes (caller's contract); no mutable slice over them yet.
    let input = unsafe { core::slice::from_raw_parts(ptr, len) };
    let (a, b) = (ptr as usize, out as usize);
    if out_len != 0 && a < b.wrapping_add(out_len) && b < a.wrapping_add(len) {
        Cow::Owned(input.to_vec())
    } else {
        Cow::Borrowed(input)
    }
}

/// The caller's input and output buffers of a `deflate`/`inflate` call (empty when their
/// length is 0, whatever the pointer); the input is a copy if it overlaps the output (see
/// [`input_apart`]).
///
/// # Safety
/// `next_in`/`avail_in` and `next_out`/`avail_out` must describe valid buffers (zlib's
/// contract); the slices must not outlive them.
pub(crate) unsafe fn io_slices<'a>(z: &z_stream) -> (Cow<'a, [u8]>, &'a mut [u8]) {
    let out_len = if z.next_out.is_null() {
        0
    } else {
        z.avail_out as usize
    };
    // SAFETY: next_in points to avail_in readable bytes (caller's contract), and no slice of
    // the output exists yet.
    let input = unsafe { input_apart(z.next_in, z.avail_in as usize, z.next_out, out_len) };
    let output: &mut [u8] = if out_len == 0 {
        &mut []
    } else {
        // SAFETY: next_out points to avail_out writable bytes; the input is a copy if it
        // overlaps them.
        unsafe { core::slice::from_raw_parts_mut(z.next_out, out_len) }
    };
    (input, output)
}

/// Moves the stream past `consumed` input and `produced` output bytes, as zlib does after a
/// call (`next_*`, `avail_*`, `total_*`).
pub(crate) fn advance(z: &mut z_stream, consumed: usize, produced: usize) {
    if consumed > 0 {
        z.next_in = z.next_in.wrapping_add(consumed);
    }
    if produced > 0 {
        z.next_out = z.next_out.wrapping_add(produced);
    }
    z.avail_in -= consumed as c_uint;
    z.avail_out -= produced as c_uint;
    z.total_in += consumed as c_ulong;
    z.total_out += produced as c_ulong;
}

/// Sets `strm->msg` to zlib's text for `code` and returns `code` (zlib's ERR_RETURN).
///
/// # Safety
/// `strm` must point to a valid `z_stream`.
pub(crate) unsafe fn err_return(strm: *mut z_stream, code: c_int) -> c_int {
    // SAFETY: caller guarantees strm is valid.
    unsafe { (*strm).msg = error_message(code).as_ptr() };
    code
}
