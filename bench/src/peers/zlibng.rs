//! zlib-ng in its native (`zng_`-prefixed) API, built from source by the `libz-ng-sys` crate.
//!
//! Same one-shot use as the system zlib adapter (init, one `deflate(Z_FINISH)`, end), so the two
//! rows differ only by the library. The native `zng_stream` differs from zlib's `z_stream` at
//! the tail (`adler` is 32-bit and packs next to `data_type`: 104 bytes instead of 112), so it is
//! declared here with nullable allocator pointers (null selects zlib-ng's defaults).

use super::zlib::{fits_u32, RAW_WINDOW_BITS, Z_FINISH, Z_STREAM_END};
use super::Peer;
use libz_ng_sys as ng;
use std::ffi::{c_char, c_int, c_ulong, c_void, CStr};
use std::ptr;

/// zlib-ng's native `zng_stream` (LP64).
#[repr(C)]
struct ZStream {
    next_in: *const u8,
    avail_in: u32,
    total_in: usize,
    next_out: *mut u8,
    avail_out: u32,
    total_out: usize,
    msg: *const c_char,
    state: *mut c_void,
    zalloc: *const c_void,
    zfree: *const c_void,
    opaque: *mut c_void,
    data_type: c_int,
    adler: u32,
    reserved: c_ulong,
}

impl ZStream {
    fn zeroed() -> ZStream {
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

const _: () = assert!(std::mem::size_of::<ng::z_stream>() == std::mem::size_of::<ZStream>());
const _: () = assert!(std::mem::size_of::<ZStream>() == 104);

/// zlib-ng, statically linked.
pub struct ZlibNg;

impl ZlibNg {
    /// The library is linked in, so this cannot fail.
    pub fn new() -> ZlibNg {
        ZlibNg
    }
}

impl Default for ZlibNg {
    fn default() -> Self {
        ZlibNg::new()
    }
}

fn stream_ptr(s: &mut ZStream) -> ng::z_streamp {
    (s as *mut ZStream).cast()
}

impl Peer for ZlibNg {
    fn name(&self) -> &'static str {
        "zlib-ng"
    }
    fn version(&self) -> String {
        // SAFETY: zlibng_version returns a pointer to a static NUL-terminated string.
        let v = unsafe { CStr::from_ptr(ng::zlibVersion()) };
        format!("zlib-ng {} (libz-ng-sys, static)", v.to_string_lossy())
    }
    fn levels(&self) -> Vec<u32> {
        (1..=9).collect()
    }
    fn compress(&mut self, level: u32, input: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        let mut s = ZStream::zeroed();
        // SAFETY: ZStream has zng_stream's layout (size asserted against the crate's declaration
        // above; null allocators select the defaults); the buffers outlive the calls and their lengths are the avail counts;
        // deflateEnd runs after every successful init.
        unsafe {
            let rc =
                ng::zng_deflateInit2(stream_ptr(&mut s), level as i32, 8, RAW_WINDOW_BITS, 8, 0);
            if rc != 0 {
                return Err(format!("zng_deflateInit2 failed: {rc}"));
            }
            let bound = ng::deflateBound(stream_ptr(&mut s), input.len() as c_ulong) as usize;
            out.clear();
            out.reserve(bound);
            s.next_in = input.as_ptr();
            s.avail_in = fits_u32(input.len())?;
            s.next_out = out.as_mut_ptr();
            s.avail_out = fits_u32(bound)?;
            let rc = ng::deflate(stream_ptr(&mut s), Z_FINISH);
            let produced = s.total_out;
            ng::deflateEnd(stream_ptr(&mut s));
            if rc != Z_STREAM_END {
                return Err(format!("zng_deflate returned {rc}"));
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
        // SAFETY: as in compress; the output has `expected_len` bytes of capacity.
        unsafe {
            let rc = ng::zng_inflateInit2(stream_ptr(&mut s), RAW_WINDOW_BITS);
            if rc != 0 {
                return Err(format!("zng_inflateInit2 failed: {rc}"));
            }
            out.clear();
            out.reserve(expected_len);
            s.next_in = input.as_ptr();
            s.avail_in = fits_u32(input.len())?;
            s.next_out = out.as_mut_ptr();
            s.avail_out = fits_u32(expected_len)?;
            let rc = ng::inflate(stream_ptr(&mut s), Z_FINISH);
            let produced = s.total_out;
            ng::inflateEnd(stream_ptr(&mut s));
            if rc != Z_STREAM_END {
                return Err(format!("zng_inflate returned {rc}"));
            }
            out.set_len(produced);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn zlib_ng_round_trips() {
        super::super::testutil::round_trip(&mut super::ZlibNg::new());
    }
}
