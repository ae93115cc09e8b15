//! zlib's checksum entry points: `crc32`, `crc32_z`, `adler32`, `adler32_z` and their combine
//! functions, backed by the engine's SIMD kernels.

use core::ffi::{c_uchar, c_uint, c_ulong};
use hyperz_engine::checksum;

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
    checksum::crc32(crc as u32, data) as c_ulong
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
    checksum::adler32(adler as u32, data) as c_ulong
}

/// `uLong crc32_combine(uLong crc1, uLong crc2, z_off_t len2)`
#[export_name = "hz_crc32_combine"]
pub extern "C" fn crc32_combine(crc1: c_ulong, crc2: c_ulong, len2: ZOff) -> c_ulong {
    if len2 < 0 {
        return crc1;
    }
    checksum::crc32_combine(crc1 as u32, crc2 as u32, len2 as u64) as c_ulong
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
