//! The system zlib (Debian's `zlib1g`, `libz.so.1`), loaded with `dlopen` at run time.
//!
//! Loading at run time keeps the build free of `-dev` packages, and it lets the harness also
//! measure whatever `libz.so.1` the loader finds — including hyperz's own drop-in when
//! `LD_LIBRARY_PATH` points at it. The `z_stream` declared here is the LP64 layout of zlib
//! 1.2.x, which has not changed since 1.2.0; zlib checks it against `stream_size` at init.

use super::{Peer, Unavailable};
use libloading::Library;
use std::ffi::{c_char, c_int, c_ulong, c_void, CStr};
use std::ptr;

/// zlib's `z_stream` (LP64).
#[repr(C)]
pub struct ZStream {
    /// Next input byte.
    pub next_in: *const u8,
    /// Bytes available at `next_in`.
    pub avail_in: u32,
    /// Total input consumed.
    pub total_in: c_ulong,
    /// Next output byte.
    pub next_out: *mut u8,
    /// Space left at `next_out`.
    pub avail_out: u32,
    /// Total output produced.
    pub total_out: c_ulong,
    /// Last error message, or null.
    pub msg: *const c_char,
    /// Library-private state.
    pub state: *mut c_void,
    /// Allocator (null = the library's default).
    pub zalloc: *const c_void,
    /// Deallocator (null = the library's default).
    pub zfree: *const c_void,
    /// Allocator argument.
    pub opaque: *mut c_void,
    /// Best guess at the data type.
    pub data_type: c_int,
    /// Checksum of the data.
    pub adler: c_ulong,
    /// Reserved.
    pub reserved: c_ulong,
}

const _: () = assert!(std::mem::size_of::<ZStream>() == 112);

impl ZStream {
    /// An all-zero stream, as zlib expects before `*Init*`.
    pub fn zeroed() -> ZStream {
        ZStream {
            next_in: ptr::null(),
            avail_in: 0,
            total_in: 0,
            next_out: ptr::null_mut(),
            avail_out: 0,
            total_out: 0,
            msg: ptr::null(),
            state: ptr::null_mut(),
            zalloc: ptr::null(),
            zfree: ptr::null(),
            opaque: ptr::null_mut(),
            data_type: 0,
            adler: 0,
            reserved: 0,
        }
    }
}

/// `Z_FINISH` flush mode.
pub const Z_FINISH: c_int = 4;
/// Return code of a call that finished the stream.
pub const Z_STREAM_END: c_int = 1;
/// `windowBits` for raw DEFLATE with a 32 KiB window.
pub const RAW_WINDOW_BITS: c_int = -15;

type DeflateInit2 = unsafe extern "C" fn(
    *mut ZStream,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    *const c_char,
    c_int,
) -> c_int;
type InflateInit2 = unsafe extern "C" fn(*mut ZStream, c_int, *const c_char, c_int) -> c_int;
type Step = unsafe extern "C" fn(*mut ZStream, c_int) -> c_int;
type End = unsafe extern "C" fn(*mut ZStream) -> c_int;
type Bound = unsafe extern "C" fn(*mut ZStream, c_ulong) -> c_ulong;
type Version = unsafe extern "C" fn() -> *const c_char;

/// The system zlib, resolved once at open.
pub struct SystemZlib {
    _lib: Library,
    version: *const c_char,
    deflate_init2: DeflateInit2,
    deflate: Step,
    deflate_end: End,
    deflate_bound: Bound,
    inflate_init2: InflateInit2,
    inflate: Step,
    inflate_end: End,
}

/// Library file name tried by [`SystemZlib::open`] (the SONAME of zlib 1.x).
pub const LIBZ: &str = "libz.so.1";

impl SystemZlib {
    /// Loads `libz.so.1` and resolves the functions the benchmark calls.
    pub fn open() -> Result<SystemZlib, Unavailable> {
        let err = |e: libloading::Error| Unavailable(format!("system zlib ({LIBZ}): {e}"));
        // SAFETY: loading zlib runs no initialisers with preconditions; every symbol below is
        // given the C prototype from zlib.h, and the Library is kept alive in the struct for as
        // long as the function pointers are used.
        unsafe {
            let lib = Library::new(LIBZ).map_err(err)?;
            let version: Version = *lib.get(b"zlibVersion\0").map_err(err)?;
            Ok(SystemZlib {
                version: version(),
                deflate_init2: *lib.get(b"deflateInit2_\0").map_err(err)?,
                deflate: *lib.get(b"deflate\0").map_err(err)?,
                deflate_end: *lib.get(b"deflateEnd\0").map_err(err)?,
                deflate_bound: *lib.get(b"deflateBound\0").map_err(err)?,
                inflate_init2: *lib.get(b"inflateInit2_\0").map_err(err)?,
                inflate: *lib.get(b"inflate\0").map_err(err)?,
                inflate_end: *lib.get(b"inflateEnd\0").map_err(err)?,
                _lib: lib,
            })
        }
    }
}

/// Checks that `input` fits zlib's 32-bit `avail_in`/`avail_out` counters in one call.
pub fn fits_u32(n: usize) -> Result<u32, String> {
    u32::try_from(n).map_err(|_| format!("buffer of {n} bytes exceeds zlib's 4 GiB per call"))
}

impl Peer for SystemZlib {
    fn name(&self) -> &'static str {
        "zlib"
    }
    fn version(&self) -> String {
        // SAFETY: zlibVersion returns a pointer to a static NUL-terminated string.
        let v = unsafe { CStr::from_ptr(self.version) };
        format!("system zlib {} ({LIBZ})", v.to_string_lossy())
    }
    fn levels(&self) -> Vec<u32> {
        (1..=9).collect()
    }
    fn compress(&mut self, level: u32, input: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        let mut s = ZStream::zeroed();
        // SAFETY: `s` is a zeroed z_stream of the size we pass; next_in/next_out point into
        // live buffers whose lengths are the avail counts; deflateEnd frees the state on every
        // path after a successful init.
        unsafe {
            let rc = (self.deflate_init2)(
                &mut s,
                level as c_int,
                8,
                RAW_WINDOW_BITS,
                8,
                0,
                self.version,
                112,
            );
            if rc != 0 {
                return Err(format!("deflateInit2_ failed: {rc}"));
            }
            let bound = (self.deflate_bound)(&mut s, input.len() as c_ulong) as usize;
            out.clear();
            out.reserve(bound);
            s.next_in = input.as_ptr();
            s.avail_in = fits_u32(input.len())?;
            s.next_out = out.as_mut_ptr();
            s.avail_out = fits_u32(bound)?;
            let rc = (self.deflate)(&mut s, Z_FINISH);
            let produced = s.total_out as usize;
            (self.deflate_end)(&mut s);
            if rc != Z_STREAM_END {
                return Err(format!("deflate returned {rc}"));
            }
            out.set_len(produced);
        }
        Ok(())
    }
    fn decompress(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        expected_len: usize,
    ) -> Result<(), String> {
        let mut s = ZStream::zeroed();
        // SAFETY: as in compress; the output buffer has `expected_len` bytes of capacity and
        // zlib writes at most avail_out bytes.
        unsafe {
            let rc = (self.inflate_init2)(&mut s, RAW_WINDOW_BITS, self.version, 112);
            if rc != 0 {
                return Err(format!("inflateInit2_ failed: {rc}"));
            }
            out.clear();
            out.reserve(expected_len);
            s.next_in = input.as_ptr();
            s.avail_in = fits_u32(input.len())?;
            s.next_out = out.as_mut_ptr();
            s.avail_out = fits_u32(expected_len)?;
            let rc = (self.inflate)(&mut s, Z_FINISH);
            let produced = s.total_out as usize;
            (self.inflate_end)(&mut s);
            if rc != Z_STREAM_END {
                return Err(format!("inflate returned {rc}"));
            }
            out.set_len(produced);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_zlib_round_trips() {
        let mut z = SystemZlib::open().expect("libz.so.1 is installed on every Debian system");
        super::super::testutil::round_trip(&mut z);
    }
}
