//! System zlib (`libz.so.1`, loaded with `dlopen`) as the one-thread baseline, and as a
//! [`Codec`](hyperz_device::Codec) so the device's scaling can be measured on real compression
//! work while the hyperz engine is being written. Raw chunks use `deflateSetDictionary` for the
//! 32 KiB priming and `Z_SYNC_FLUSH` (an empty stored block) for the byte-aligned end.
use std::ffi::{c_char, c_int, c_ulong, c_void};
use std::ptr;

use hyperz_device::{container, Codec, DecodeError, DecodeErrorKind, Settings, Strategy};
use hyperz_engine::Format;
use libloading::Library;

/// zlib's `z_stream`, LP64 layout (unchanged since zlib 1.2.0).
#[repr(C)]
struct ZStream {
    next_in: *const u8,
    avail_in: u32,
    total_in: c_ulong,
    next_out: *mut u8,
    avail_out: u32,
    total_out: c_ulong,
    msg: *const c_char,
    state: *mut c_void,
    zalloc: *const c_void,
    zfree: *const c_void,
    opaque: *mut c_void,
    data_type: c_int,
    adler: c_ulong,
    reserved: c_ulong,
}
const _: () = assert!(std::mem::size_of::<ZStream>() == 112);

impl ZStream {
    fn new() -> ZStream {
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
type SetDict = unsafe extern "C" fn(*mut ZStream, *const u8, u32) -> c_int;
type Bound = unsafe extern "C" fn(*mut ZStream, c_ulong) -> c_ulong;

const Z_SYNC_FLUSH: c_int = 2;
const Z_FINISH: c_int = 4;
const Z_STREAM_END: c_int = 1;
const VERSION: &[u8] = b"1.2.13\0";

/// The resolved zlib entry points.
pub struct Zlib {
    _lib: Library,
    deflate_init2: DeflateInit2,
    deflate: Step,
    deflate_end: End,
    deflate_bound: Bound,
    set_dict: SetDict,
    inflate_init2: InflateInit2,
    inflate: Step,
    inflate_end: End,
}

// SAFETY: the function pointers are plain C functions of a thread-safe library; each call uses
// its own z_stream.
unsafe impl Send for Zlib {}
// SAFETY: as above, no shared mutable state is reached through `&Zlib`.
unsafe impl Sync for Zlib {}

impl Zlib {
    /// Loads `libz.so.1`.
    pub fn open() -> Zlib {
        // SAFETY: zlib has no initialisers with preconditions; each symbol gets its zlib.h
        // prototype, and the Library lives as long as the pointers (it is in the struct).
        unsafe {
            let lib = Library::new("libz.so.1").expect("libz.so.1");
            Zlib {
                deflate_init2: *lib.get(b"deflateInit2_\0").unwrap(),
                deflate: *lib.get(b"deflate\0").unwrap(),
                deflate_end: *lib.get(b"deflateEnd\0").unwrap(),
                deflate_bound: *lib.get(b"deflateBound\0").unwrap(),
                set_dict: *lib.get(b"deflateSetDictionary\0").unwrap(),
                inflate_init2: *lib.get(b"inflateInit2_\0").unwrap(),
                inflate: *lib.get(b"inflate\0").unwrap(),
                inflate_end: *lib.get(b"inflateEnd\0").unwrap(),
                _lib: lib,
            }
        }
    }

    /// Deflate `input` at `settings` with `window_bits` (-15 raw, 31 gzip), optional dictionary, and `flush`.
    fn deflate_with(
        &self,
        settings: Settings,
        window_bits: c_int,
        dict: &[u8],
        input: &[u8],
        flush: c_int,
        out: &mut Vec<u8>,
    ) {
        let mut z = ZStream::new();
        // SAFETY: `z` is zeroed as zlib requires; next_in/next_out point into live buffers of
        // the lengths given; the output has deflateBound + 16 bytes of room so one call with
        // Z_FINISH or Z_SYNC_FLUSH completes; deflateEnd frees the state.
        unsafe {
            let rc = (self.deflate_init2)(
                &mut z,
                settings.level as c_int,
                8,
                window_bits,
                8,
                zlib_strategy(settings.strategy),
                VERSION.as_ptr().cast(),
                112,
            );
            assert_eq!(rc, 0, "deflateInit2");
            if !dict.is_empty() {
                assert_eq!((self.set_dict)(&mut z, dict.as_ptr(), dict.len() as u32), 0);
            }
            let room = (self.deflate_bound)(&mut z, input.len() as c_ulong) as usize + 16;
            out.reserve(room);
            let start = out.len();
            z.next_in = input.as_ptr();
            z.avail_in = input.len() as u32;
            z.next_out = out.as_mut_ptr().add(start);
            z.avail_out = room as u32;
            let rc = (self.deflate)(&mut z, flush);
            assert!(rc == 0 || rc == Z_STREAM_END, "deflate {rc}");
            assert_eq!(z.avail_in, 0);
            out.set_len(start + room - z.avail_out as usize);
            (self.deflate_end)(&mut z);
        }
    }

    /// One-shot gzip compression (the one-thread baseline).
    pub fn gzip(&self, level: u32, input: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        self.deflate_with(level.into(), 31, &[], input, Z_FINISH, &mut out);
        out
    }

    /// Inflates the stream at the start of `input` (`window_bits` 47 = auto header, -15 raw)
    /// into `out`; returns the bytes consumed or `None` if it is invalid.
    pub fn inflate(&self, window_bits: c_int, input: &[u8], out: &mut Vec<u8>) -> Option<usize> {
        let mut z = ZStream::new();
        // SAFETY: as in deflate_with; the output window is the spare capacity of `out`, grown
        // before each call, and set_len covers only bytes zlib wrote.
        unsafe {
            assert_eq!(
                (self.inflate_init2)(&mut z, window_bits, VERSION.as_ptr().cast(), 112),
                0
            );
            z.next_in = input.as_ptr();
            z.avail_in = input.len() as u32;
            let ok = loop {
                out.reserve((input.len() * 4).max(1 << 16));
                let start = out.len();
                let room = out.capacity() - start;
                z.next_out = out.as_mut_ptr().add(start);
                z.avail_out = room as u32;
                let rc = (self.inflate)(&mut z, 0);
                out.set_len(start + room - z.avail_out as usize);
                match rc {
                    Z_STREAM_END => break true,
                    0 if z.avail_in > 0 || z.avail_out == 0 => continue,
                    _ => break false,
                }
            };
            let used = input.len() - z.avail_in as usize;
            (self.inflate_end)(&mut z);
            ok.then_some(used)
        }
    }
}

impl Codec for Zlib {
    fn name(&self) -> &'static str {
        "system-zlib"
    }
    fn compress_raw_window(
        &self,
        settings: Settings,
        buf: &[u8],
        start: usize,
        last: bool,
        out: &mut Vec<u8>,
    ) {
        let (dict, input) = buf.split_at(start);
        self.deflate_with(
            settings,
            -15,
            dict,
            input,
            if last { Z_FINISH } else { Z_SYNC_FLUSH },
            out,
        );
    }
    fn decompress_member(
        &self,
        format: Format,
        input: &[u8],
        out: &mut Vec<u8>,
        limit: usize,
    ) -> Result<usize, DecodeError> {
        let (hlen, _) = container::parse_header(format, input)?;
        let start = out.len();
        let used = self
            .inflate(-15, &input[hlen..], out)
            .ok_or(DecodeError::at(DecodeErrorKind::BadBlock, hlen as u64))?;
        if out.len() - start > limit {
            return Err(DecodeError::at(DecodeErrorKind::OutputLimit, hlen as u64));
        }
        let pos = hlen + used;
        let t = container::check_trailer(format, &out[start..], &input[pos..])
            .map_err(|e| e.shifted(pos as u64))?;
        Ok(pos + t)
    }
}

/// zlib's number for `strategy` (deflateInit2's argument).
fn zlib_strategy(strategy: Strategy) -> c_int {
    match strategy {
        Strategy::Default => 0,
        Strategy::Filtered => 1,
        Strategy::HuffmanOnly => 2,
        Strategy::Rle => 3,
        Strategy::Fixed => 4,
    }
}
