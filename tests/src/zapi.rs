//! A zlib library loaded at run time by path (`dlopen`), so one test process can drive the
//! system zlib and the hyperz drop-in side by side with the same call sequences. The
//! `z_stream` layout is zlib's on LP64 Linux, declared here independently of our crate.
#![allow(non_camel_case_types, missing_docs)]

use std::ffi::{c_char, c_int, c_uint, c_ulong, c_void, CString};
use std::path::Path;

/// zlib's `z_stream`.
#[repr(C)]
pub struct ZStream {
    pub next_in: *const u8,
    pub avail_in: c_uint,
    pub total_in: c_ulong,
    pub next_out: *mut u8,
    pub avail_out: c_uint,
    pub total_out: c_ulong,
    pub msg: *const c_char,
    pub state: *mut c_void,
    pub zalloc: *mut c_void,
    pub zfree: *mut c_void,
    pub opaque: *mut c_void,
    pub data_type: c_int,
    pub adler: c_ulong,
    pub reserved: c_ulong,
}

impl ZStream {
    /// A zeroed stream (what C callers get from `memset`).
    pub fn new() -> Box<ZStream> {
        // SAFETY: all-zero bytes are a valid ZStream (null pointers, zero integers).
        Box::new(unsafe { std::mem::zeroed() })
    }
}

type Strm = *mut ZStream;

/// Function pointers of one loaded zlib.
#[allow(clippy::type_complexity)]
pub struct Zlib {
    pub name: &'static str,
    pub deflate_init2: unsafe extern "C" fn(
        Strm,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        *const c_char,
        c_int,
    ) -> c_int,
    pub deflate: unsafe extern "C" fn(Strm, c_int) -> c_int,
    pub deflate_end: unsafe extern "C" fn(Strm) -> c_int,
    pub deflate_reset: unsafe extern "C" fn(Strm) -> c_int,
    pub deflate_params: unsafe extern "C" fn(Strm, c_int, c_int) -> c_int,
    pub deflate_set_dictionary: unsafe extern "C" fn(Strm, *const u8, c_uint) -> c_int,
    pub deflate_get_dictionary: unsafe extern "C" fn(Strm, *mut u8, *mut c_uint) -> c_int,
    pub deflate_bound: unsafe extern "C" fn(Strm, c_ulong) -> c_ulong,
    pub deflate_pending: unsafe extern "C" fn(Strm, *mut c_uint, *mut c_int) -> c_int,
    pub deflate_prime: unsafe extern "C" fn(Strm, c_int, c_int) -> c_int,
    pub deflate_copy: unsafe extern "C" fn(Strm, Strm) -> c_int,
    pub inflate_init2: unsafe extern "C" fn(Strm, c_int, *const c_char, c_int) -> c_int,
    pub inflate: unsafe extern "C" fn(Strm, c_int) -> c_int,
    pub inflate_end: unsafe extern "C" fn(Strm) -> c_int,
    pub inflate_reset: unsafe extern "C" fn(Strm) -> c_int,
    pub inflate_set_dictionary: unsafe extern "C" fn(Strm, *const u8, c_uint) -> c_int,
    pub inflate_get_dictionary: unsafe extern "C" fn(Strm, *mut u8, *mut c_uint) -> c_int,
    pub inflate_sync: unsafe extern "C" fn(Strm) -> c_int,
    pub inflate_copy: unsafe extern "C" fn(Strm, Strm) -> c_int,
    pub compress2: unsafe extern "C" fn(*mut u8, *mut c_ulong, *const u8, c_ulong, c_int) -> c_int,
    pub compress_bound: unsafe extern "C" fn(c_ulong) -> c_ulong,
    pub uncompress: unsafe extern "C" fn(*mut u8, *mut c_ulong, *const u8, c_ulong) -> c_int,
    pub uncompress2: unsafe extern "C" fn(*mut u8, *mut c_ulong, *const u8, *mut c_ulong) -> c_int,
    pub crc32: unsafe extern "C" fn(c_ulong, *const u8, c_uint) -> c_ulong,
    pub adler32: unsafe extern "C" fn(c_ulong, *const u8, c_uint) -> c_ulong,
    pub crc32_combine: unsafe extern "C" fn(c_ulong, c_ulong, i64) -> c_ulong,
    pub adler32_combine: unsafe extern "C" fn(c_ulong, c_ulong, i64) -> c_ulong,
}

/// The `version` argument of the `*Init_` functions.
pub const VERSION: &std::ffi::CStr = c"1.2.13";
/// `sizeof(z_stream)`.
pub const STREAM_SIZE: c_int = std::mem::size_of::<ZStream>() as c_int;

/// A `dlsym` result as the function-pointer type `F` the caller's field declares.
///
/// # Safety
/// `p` must be the address of a function whose C signature `F` spells out.
unsafe fn func<F: Copy>(p: *mut libc::c_void) -> F {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of_val(&p));
    // SAFETY: same size (checked); the caller vouches for the signature.
    unsafe { std::mem::transmute_copy::<*mut libc::c_void, F>(&p) }
}

impl Zlib {
    /// Loads the zlib at `path` (kept loaded for the life of the process).
    ///
    /// Each symbol becomes the function-pointer type of the field it fills (`func`).
    pub fn load(name: &'static str, path: &Path) -> Zlib {
        let p = CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: dlopen with a valid C string; the handle is never closed.
        let h = unsafe { libc::dlopen(p.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        assert!(!h.is_null(), "dlopen {} failed", path.display());
        let sym = |s: &str| {
            let c = CString::new(s).unwrap();
            // SAFETY: dlsym on a live handle.
            let f = unsafe { libc::dlsym(h, c.as_ptr()) };
            assert!(!f.is_null(), "{name} lacks {s}");
            f
        };
        // SAFETY: each symbol is the zlib function of that name, whose C signature the field
        // types spell out.
        unsafe {
            Zlib {
                name,
                deflate_init2: func(sym("deflateInit2_")),
                deflate: func(sym("deflate")),
                deflate_end: func(sym("deflateEnd")),
                deflate_reset: func(sym("deflateReset")),
                deflate_params: func(sym("deflateParams")),
                deflate_set_dictionary: func(sym("deflateSetDictionary")),
                deflate_get_dictionary: func(sym("deflateGetDictionary")),
                deflate_bound: func(sym("deflateBound")),
                deflate_pending: func(sym("deflatePending")),
                deflate_prime: func(sym("deflatePrime")),
                deflate_copy: func(sym("deflateCopy")),
                inflate_init2: func(sym("inflateInit2_")),
                inflate: func(sym("inflate")),
                inflate_end: func(sym("inflateEnd")),
                inflate_reset: func(sym("inflateReset")),
                inflate_set_dictionary: func(sym("inflateSetDictionary")),
                inflate_get_dictionary: func(sym("inflateGetDictionary")),
                inflate_sync: func(sym("inflateSync")),
                inflate_copy: func(sym("inflateCopy")),
                compress2: func(sym("compress2")),
                compress_bound: func(sym("compressBound")),
                uncompress: func(sym("uncompress")),
                uncompress2: func(sym("uncompress2")),
                crc32: func(sym("crc32")),
                adler32: func(sym("adler32")),
                crc32_combine: func(sym("crc32_combine")),
                adler32_combine: func(sym("adler32_combine")),
            }
        }
    }

    /// The system zlib and the drop-in, in that order.
    pub fn both() -> [Zlib; 2] {
        [
            Zlib::load("system", Path::new("/lib/x86_64-linux-gnu/libz.so.1")),
            Zlib::load("hyperz", &crate::dropin::libz()),
        ]
    }

    /// deflateInit2 with zlib's version and struct size.
    pub fn d_init(
        &self,
        s: &mut ZStream,
        level: c_int,
        wbits: c_int,
        mem: c_int,
        strategy: c_int,
    ) -> c_int {
        // SAFETY: a valid stream and zlib's own version/size arguments.
        unsafe {
            (self.deflate_init2)(
                s,
                level,
                8,
                wbits,
                mem,
                strategy,
                VERSION.as_ptr(),
                STREAM_SIZE,
            )
        }
    }

    /// inflateInit2 with zlib's version and struct size.
    pub fn i_init(&self, s: &mut ZStream, wbits: c_int) -> c_int {
        // SAFETY: as d_init.
        unsafe { (self.inflate_init2)(s, wbits, VERSION.as_ptr(), STREAM_SIZE) }
    }

    /// One deflate call on `input` into `out`; returns (code, consumed, produced).
    pub fn d_step(
        &self,
        s: &mut ZStream,
        input: &[u8],
        out: &mut [u8],
        flush: c_int,
    ) -> (c_int, usize, usize) {
        step(self.deflate, s, input, out, flush)
    }

    /// One inflate call; returns (code, consumed, produced).
    pub fn i_step(
        &self,
        s: &mut ZStream,
        input: &[u8],
        out: &mut [u8],
        flush: c_int,
    ) -> (c_int, usize, usize) {
        step(self.inflate, s, input, out, flush)
    }

    /// `data` deflated in one Z_FINISH call (level, windowBits, strategy, memLevel 8), with an
    /// optional preset dictionary: the whole stream.
    pub fn deflate_all(
        &self,
        data: &[u8],
        (level, wbits, strategy): (c_int, c_int, c_int),
        dict: Option<&[u8]>,
    ) -> Vec<u8> {
        let mut s = ZStream::new();
        assert_eq!(
            self.d_init(&mut s, level, wbits, 8, strategy),
            0,
            "{}",
            self.name
        );
        if let Some(d) = dict {
            // SAFETY: a live stream and a valid dictionary slice.
            let r =
                unsafe { (self.deflate_set_dictionary)(&mut *s, d.as_ptr(), d.len() as c_uint) };
            assert_eq!(r, 0, "{}", self.name);
        }
        let mut out = vec![0u8; data.len() * 2 + 1000];
        let (r, _, p) = self.d_step(&mut s, data, &mut out, 4);
        assert_eq!(r, 1, "{}: deflate did not finish", self.name);
        // SAFETY: a live stream.
        unsafe { (self.deflate_end)(&mut *s) };
        out.truncate(p);
        out
    }

    /// Inflates a whole stream with `wbits` in chunks of `chunk` bytes (output in pieces of
    /// `ochunk`): (last code, output, input bytes left unconsumed).
    pub fn inflate_all(
        &self,
        data: &[u8],
        wbits: c_int,
        chunk: usize,
        ochunk: usize,
        dict: Option<&[u8]>,
    ) -> (c_int, Vec<u8>, usize) {
        let mut s = ZStream::new();
        assert_eq!(self.i_init(&mut s, wbits), 0);
        let mut out = Vec::new();
        let mut buf = vec![0u8; ochunk];
        let mut pos = 0;
        let mut code;
        let mut stalls = 0;
        loop {
            let end = (pos + chunk).min(data.len());
            let (r, c, p) = self.i_step(&mut s, &data[pos..end], &mut buf, 0);
            code = r;
            pos += c;
            out.extend_from_slice(&buf[..p]);
            if r == 2 {
                if let Some(d) = dict {
                    // SAFETY: live stream, valid dictionary slice.
                    code = unsafe {
                        (self.inflate_set_dictionary)(&mut *s, d.as_ptr(), d.len() as c_uint)
                    };
                    if code != 0 {
                        break;
                    }
                    continue;
                }
            }
            if r != 0 && r != -5 {
                break;
            }
            if c == 0 && p == 0 {
                stalls += 1;
                if stalls > 2 {
                    break;
                }
            } else {
                stalls = 0;
            }
        }
        // SAFETY: live stream.
        unsafe { (self.inflate_end)(&mut *s) };
        (code, out, data.len() - pos)
    }
}

/// Points the stream at `input` and `out`, calls `f` (deflate or inflate) with `flush`, and
/// returns (code, consumed, produced).
fn step(
    f: unsafe extern "C" fn(Strm, c_int) -> c_int,
    s: &mut ZStream,
    input: &[u8],
    out: &mut [u8],
    flush: c_int,
) -> (c_int, usize, usize) {
    s.next_in = input.as_ptr();
    s.avail_in = input.len() as c_uint;
    s.next_out = out.as_mut_ptr();
    s.avail_out = out.len() as c_uint;
    // SAFETY: the stream points at live buffers of the given sizes.
    let r = unsafe { f(s, flush) };
    (
        r,
        input.len() - s.avail_in as usize,
        out.len() - s.avail_out as usize,
    )
}
