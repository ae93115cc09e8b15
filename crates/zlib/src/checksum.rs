//! zlib's checksum entry points: `crc32`, `crc32_z`, `adler32`, `adler32_z` and their combine
//! functions, backed by the engine's SIMD kernels.

use core::ffi::{c_uchar, c_uint, c_ulong};
use hyperz_engine::checksum;

/// Adler-32's modulus.
const BASE: u32 = 65521;

/// zlib's `z_off_t` / `z_off64_t` on LP64 Linux.
type ZOff = i64;

/// Builds a slice from a C pointer and length; NULL yields the empty slice (zlib returns the
/// initial value for a NULL buffer).
///
/// # Safety
/// `buf` must be NULL or point to `len` readable bytes.
unsafe fn bytes<'a>(buf: *const c_uchar, len: usize) -> &'a [u8] {
    if buf.is_null() || len == 0 {
        &[]
    } else {
        // SAFETY: the caller guarantees `buf` points to `len` readable bytes.
        unsafe { core::slice::from_raw_parts(buf, len) }
    }
}

/// Buffers at least this long are checksummed in one piece per engine, on scoped threads, and
/// the pieces' checks combined: CRC-32 runs at about 10 GB/s per core, so a thread's start
/// (tens of microseconds) is under 1% of such a call.
const PARALLEL_MIN: usize = 4 << 20;

/// `f(init, data)` computed in pieces on `HYPERZ_ENGINES` threads (the caller's among them) and
/// joined with `combine`; `zero` is the checksum's initial value. A thread that cannot be
/// started leaves its piece to the caller, so the result is always `f(init, data)`.
fn split_check(
    init: u32,
    data: &[u8],
    zero: u32,
    f: fn(u32, &[u8]) -> u32,
    combine: fn(u32, u32, u64) -> u32,
) -> u32 {
    let cfg = crate::config::config();
    let n = if data.len() < PARALLEL_MIN || cfg.force_inline {
        1
    } else {
        cfg.engines.min(data.len() / (PARALLEL_MIN / 4))
    };
    if n <= 1 {
        return f(init, data);
    }
    let (first, rest) = data.split_at(data.len().div_ceil(n));
    std::thread::scope(|s| {
        let helpers: Vec<_> = rest
            .chunks(first.len())
            .map(|c| {
                let h = std::thread::Builder::new().spawn_scoped(s, move || f(zero, c));
                (h.ok(), c)
            })
            .collect();
        let mut acc = f(init, first);
        for (h, c) in helpers {
            let v = h.and_then(|h| h.join().ok()).unwrap_or_else(|| f(zero, c));
            acc = combine(acc, v, c.len() as u64);
        }
        acc
    })
}

/// `uLong crc32(uLong crc, const Bytef *buf, uInt len)`
///
/// # Safety
/// `buf` must be NULL or point to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn crc32(crc: c_ulong, buf: *const c_uchar, len: c_uint) -> c_ulong {
    // SAFETY: forwarded caller contract.
    unsafe { crc32_z(crc, buf, len as usize) }
}

/// `uLong crc32_z(uLong crc, const Bytef *buf, z_size_t len)`
///
/// # Safety
/// `buf` must be NULL or point to `len` readable bytes.
#[export_name = "hz_crc32_z"]
pub unsafe extern "C" fn crc32_z(crc: c_ulong, buf: *const c_uchar, len: usize) -> c_ulong {
    if buf.is_null() {
        return 0;
    }
    // SAFETY: forwarded caller contract.
    let data = unsafe { bytes(buf, len) };
    split_check(
        crc as u32,
        data,
        0,
        checksum::crc32,
        checksum::crc32_combine,
    ) as c_ulong
}

/// `uLong adler32(uLong adler, const Bytef *buf, uInt len)`
///
/// # Safety
/// `buf` must be NULL or point to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn adler32(adler: c_ulong, buf: *const c_uchar, len: c_uint) -> c_ulong {
    // SAFETY: forwarded caller contract.
    unsafe { adler32_z(adler, buf, len as usize) }
}

/// `uLong adler32_z(uLong adler, const Bytef *buf, z_size_t len)`
///
/// # Safety
/// `buf` must be NULL or point to `len` readable bytes.
#[export_name = "hz_adler32_z"]
pub unsafe extern "C" fn adler32_z(adler: c_ulong, buf: *const c_uchar, len: usize) -> c_ulong {
    if buf.is_null() {
        return 1;
    }
    // SAFETY: forwarded caller contract.
    let data = unsafe { bytes(buf, len) };
    let (a, b) = (adler as u32 & 0xffff, (adler as u32 >> 16) & 0xffff);
    if a >= BASE || b >= BASE {
        // Not a valid Adler-32 (a half of 65521 or more), answered as zlib answers it: one
        // byte takes one subtraction per half, so the result may stay out of range; any
        // other length reduces both halves (the engine gives the same from a reduced start).
        let once = |x: u32| if x >= BASE { x - BASE } else { x };
        if let [byte] = data {
            let a = once(a + *byte as u32);
            let b = once(b + a);
            return ((b << 16) | a) as c_ulong;
        }
        let start = ((b % BASE) << 16) | (a % BASE);
        return split_check(start, data, 1, checksum::adler32, checksum::adler32_combine)
            as c_ulong;
    }
    split_check(
        adler as u32,
        data,
        1,
        checksum::adler32,
        checksum::adler32_combine,
    ) as c_ulong
}

/// `uLong crc32_combine(uLong crc1, uLong crc2, z_off_t len2)`
#[export_name = "hz_crc32_combine"]
/// A negative `len2`, which zlib loops on forever, counts as 0 here, as it does in
/// `crc32_combine_gen`, so combining with a length and with its operator agree.
pub extern "C" fn crc32_combine(crc1: c_ulong, crc2: c_ulong, len2: ZOff) -> c_ulong {
    checksum::crc32_combine(crc1 as u32, crc2 as u32, len2.max(0) as u64) as c_ulong
}

/// `uLong crc32_combine64(uLong crc1, uLong crc2, z_off64_t len2)`
#[export_name = "hz_crc32_combine64"]
pub extern "C" fn crc32_combine64(crc1: c_ulong, crc2: c_ulong, len2: ZOff) -> c_ulong {
    crc32_combine(crc1, crc2, len2)
}

/// `uLong crc32_combine_gen(z_off_t len2)`
#[export_name = "hz_crc32_combine_gen"]
pub extern "C" fn crc32_combine_gen(len2: ZOff) -> c_ulong {
    checksum::crc32_combine_gen(len2.max(0) as u64) as c_ulong
}

/// `uLong crc32_combine_gen64(z_off64_t len2)`
#[export_name = "hz_crc32_combine_gen64"]
pub extern "C" fn crc32_combine_gen64(len2: ZOff) -> c_ulong {
    crc32_combine_gen(len2)
}

/// `uLong crc32_combine_op(uLong crc1, uLong crc2, uLong op)`
#[export_name = "hz_crc32_combine_op"]
pub extern "C" fn crc32_combine_op(crc1: c_ulong, crc2: c_ulong, op: c_ulong) -> c_ulong {
    checksum::crc32_combine_op(crc1 as u32, crc2 as u32, op as u32) as c_ulong
}

/// `uLong adler32_combine(uLong adler1, uLong adler2, z_off_t len2)`
#[export_name = "hz_adler32_combine"]
pub extern "C" fn adler32_combine(adler1: c_ulong, adler2: c_ulong, len2: ZOff) -> c_ulong {
    if len2 < 0 {
        return 0xffff_ffff;
    }
    checksum::adler32_combine(adler1 as u32, adler2 as u32, len2 as u64) as c_ulong
}

/// `uLong adler32_combine64(uLong adler1, uLong adler2, z_off64_t len2)`
#[export_name = "hz_adler32_combine64"]
pub extern "C" fn adler32_combine64(adler1: c_ulong, adler2: c_ulong, len2: ZOff) -> c_ulong {
    adler32_combine(adler1, adler2, len2)
}

/// `const z_crc_t *get_crc_table(void)`
#[no_mangle]
pub extern "C" fn get_crc_table() -> *const u32 {
    checksum::CRC32_TABLE.as_ptr()
}
