//! Intel ISA-L's igzip (Debian's `libisal2`, `libisal.so.2`), loaded with `dlopen` at run time.
//!
//! ISA-L's streams (`struct isal_zstream`, `struct inflate_state`) are large structs whose tails
//! are private state that changes between releases. The adapter declares only the public head
//! of each — the fields a caller sets, which come first and have kept their layout across 2.x —
//! and places it at the start of a zeroed, over-sized allocation (more than twice the 2.30
//! sizes of 82,384 and 87,368 bytes), so the library's private tail always has room. The head
//! offsets were read from isa-l 2.30's `igzip_lib.h`; the round-trip test checks them end to end
//! (a wrong offset cannot produce a stream that decodes back to the input).
//!
//! Compression uses `isal_deflate_stateless` with the per-level buffer sizes igzip itself uses
//! (`ISAL_DEF_LVLn_DEFAULT`); decompression uses `isal_inflate_stateless`. Levels are ISA-L's
//! 0-3, the same as `igzip -0` .. `igzip -3`.

use super::{stored_bound, Peer, Unavailable};
use libloading::Library;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ffi::c_void;

/// Public head of `struct isal_zstream` (isa-l 2.30); `internal_state` follows at offset 64.
#[repr(C)]
struct ZstreamHead {
    next_in: *const u8,
    avail_in: u32,
    total_in: u32,
    next_out: *mut u8,
    avail_out: u32,
    total_out: u32,
    hufftables: *mut c_void,
    level: u32,
    level_buf_size: u32,
    level_buf: *mut u8,
    end_of_stream: u16,
    flush: u16,
    gzip_flag: u16,
    hist_bits: u16,
}
const _: () = assert!(std::mem::size_of::<ZstreamHead>() == 64);

/// Public head of `struct inflate_state` (isa-l 2.30); the Huffman tables follow at offset 40.
#[repr(C)]
struct InflateHead {
    next_out: *mut u8,
    avail_out: u32,
    total_out: u32,
    next_in: *const u8,
    read_in: u64,
    avail_in: u32,
    read_in_length: i32,
}
const _: () = assert!(std::mem::size_of::<InflateHead>() == 40);

/// Bytes reserved for each whole struct: 2.30 needs 82,384 (deflate) and 87,368 (inflate).
const STATE_BYTES: usize = 256 * 1024;
/// `ISAL_DEF_LVLn_DEFAULT` for levels 0-3 (isa-l 2.30), what `igzip -n` allocates.
const LEVEL_BUF: [usize; 4] = [0, 282_624, 331_776, 348_160];
/// `ISAL_DEF_MAX_HDR_SIZE`: room for one dynamic block header.
const MAX_HDR: usize = 328;
const COMP_OK: i32 = 0;
const ISAL_DECOMP_OK: i32 = 0;

/// A zeroed, 64-byte-aligned allocation that outlives the FFI calls using it.
struct Zeroed {
    ptr: *mut u8,
    layout: Layout,
}

impl Zeroed {
    fn new(size: usize) -> Zeroed {
        let layout = Layout::from_size_align(size.max(64), 64).expect("valid layout");
        // SAFETY: the layout has non-zero size; a null result aborts through handle_alloc_error.
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Zeroed { ptr, layout }
    }
}

impl Drop for Zeroed {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout and freed once.
        unsafe { dealloc(self.ptr, self.layout) };
    }
}

type Func = unsafe extern "C" fn(*mut c_void) -> i32;
type Init = unsafe extern "C" fn(*mut c_void);

/// Library file name tried by [`Isal::open`] (the SONAME of isa-l 2.x).
pub const LIBISAL: &str = "libisal.so.2";

/// ISA-L's igzip, resolved once at open, with its stream and level buffers kept between calls.
pub struct Isal {
    _lib: Library,
    deflate_stateless_init: Init,
    deflate_stateless: Func,
    inflate_init: Init,
    inflate_stateless: Func,
    zstream: Zeroed,
    inflate: Zeroed,
    level_buf: Zeroed,
}

impl Isal {
    /// Loads `libisal.so.2` and resolves the four functions the benchmark calls.
    pub fn open() -> Result<Isal, Unavailable> {
        let err = |e: libloading::Error| {
            Unavailable(format!("ISA-L ({LIBISAL}): {e}; install Debian's libisal2"))
        };
        // SAFETY: loading isa-l runs no initialisers with preconditions; each symbol is given
        // its prototype from igzip_lib.h (all take one struct pointer); the Library lives in the
        // struct as long as the pointers.
        unsafe {
            let lib = Library::new(LIBISAL).map_err(err)?;
            Ok(Isal {
                deflate_stateless_init: *lib.get(b"isal_deflate_stateless_init\0").map_err(err)?,
                deflate_stateless: *lib.get(b"isal_deflate_stateless\0").map_err(err)?,
                inflate_init: *lib.get(b"isal_inflate_init\0").map_err(err)?,
                inflate_stateless: *lib.get(b"isal_inflate_stateless\0").map_err(err)?,
                _lib: lib,
                zstream: Zeroed::new(STATE_BYTES),
                inflate: Zeroed::new(STATE_BYTES),
                level_buf: Zeroed::new(LEVEL_BUF[3]),
            })
        }
    }
}

impl Peer for Isal {
    fn name(&self) -> &'static str {
        "isal"
    }
    fn version(&self) -> String {
        format!("ISA-L igzip ({LIBISAL}, stateless API)")
    }
    fn levels(&self) -> Vec<u32> {
        (0..=3).collect()
    }
    fn compress(&mut self, level: u32, input: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        let level_buf = *LEVEL_BUF
            .get(level as usize)
            .ok_or("ISA-L levels are 0-3")?;
        let bound = stored_bound(input.len()) + MAX_HDR + 1024;
        let avail_in = u32::try_from(input.len()).map_err(|_| "input exceeds 4 GiB")?;
        let avail_out = u32::try_from(bound).map_err(|_| "output exceeds 4 GiB")?;
        out.clear();
        out.reserve(bound);
        // No memset per call: isal_deflate_stateless_init sets every field the library reads,
        // as igzip relies on; clearing 256 KiB each time would bill ISA-L for our allocation.
        let s = self.zstream.ptr.cast::<ZstreamHead>();
        // SAFETY: `s` points at STATE_BYTES zeroed, 64-aligned bytes, more than the library's
        // struct; the head fields written match igzip_lib.h; input/output/level buffers are live
        // for the call with the sizes given.
        unsafe {
            (self.deflate_stateless_init)(s.cast());
            (*s).next_in = input.as_ptr();
            (*s).avail_in = avail_in;
            (*s).next_out = out.as_mut_ptr();
            (*s).avail_out = avail_out;
            (*s).level = level;
            (*s).level_buf = if level_buf == 0 {
                std::ptr::null_mut()
            } else {
                self.level_buf.ptr
            };
            (*s).level_buf_size = level_buf as u32;
            (*s).end_of_stream = 1;
            (*s).flush = 0;
            (*s).gzip_flag = 0;
            let rc = (self.deflate_stateless)(s.cast());
            if rc != COMP_OK {
                return Err(format!("isal_deflate_stateless returned {rc}"));
            }
            if (*s).total_in != avail_in {
                return Err(format!(
                    "isal_deflate_stateless consumed {} of {avail_in}",
                    (*s).total_in
                ));
            }
            out.set_len((*s).total_out as usize);
        }
        Ok(())
    }
    fn decompress(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        expected_len: usize,
    ) -> Result<(), String> {
        let avail_in = u32::try_from(input.len()).map_err(|_| "input exceeds 4 GiB")?;
        let avail_out = u32::try_from(expected_len).map_err(|_| "output exceeds 4 GiB")?;
        out.clear();
        out.reserve(expected_len);
        let s = self.inflate.ptr.cast::<InflateHead>();
        // SAFETY: as in compress: an over-sized zeroed block holds the library's struct, the
        // head matches igzip_lib.h, and the buffers are live with the sizes given.
        unsafe {
            (self.inflate_init)(s.cast());
            (*s).next_in = input.as_ptr();
            (*s).avail_in = avail_in;
            (*s).next_out = out.as_mut_ptr();
            (*s).avail_out = avail_out;
            let rc = (self.inflate_stateless)(s.cast());
            if rc != ISAL_DECOMP_OK {
                return Err(format!("isal_inflate_stateless returned {rc}"));
            }
            out.set_len((*s).total_out as usize);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isal_round_trips_through_the_declared_layout() {
        match Isal::open() {
            Ok(mut p) => super::super::testutil::round_trip(&mut p),
            // The test scripts install libisal2; a machine without it must say so loudly.
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn isal_output_decodes_with_zlib_and_zlib_decodes_with_isal() {
        let mut isal = Isal::open().expect("libisal2 installed");
        let mut z = super::super::zlib::SystemZlib::open().expect("zlib installed");
        let data = super::super::testutil::sample();
        let (mut c, mut d) = (Vec::new(), Vec::new());
        for level in 0..=3 {
            isal.compress(level, &data, &mut c).unwrap();
            z.decompress(&c, &mut d, data.len()).unwrap();
            assert!(d == data);
        }
        z.compress(6, &data, &mut c).unwrap();
        isal.decompress(&c, &mut d, data.len()).unwrap();
        assert!(d == data);
    }
}
