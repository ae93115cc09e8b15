//! x86_64 checksum kernels: CRC-32 by carry-less multiplication (PCLMULQDQ folding, Intel's
//! "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ", the constants the Linux
//! kernel's `crc32-pclmul` uses for the reflected gzip polynomial, those for longer folds
//! computed the same way), on 256-bit registers where the CPU has VPCLMULQDQ and on 512-bit
//! ones where it also has AVX-512; Adler-32 with AVX2, or AVX-512 VNNI where the CPU has it.
//! Zen 5, 64 KiB in cache summed over and over: CRC-32 33.4 GB/s on 256-bit registers, 66.0
//! on 512-bit ones; Adler-32 58 GB/s with AVX2, 104 with AVX-512 VNNI.
//!
//! Each kernel is a `#[target_feature]` function, so it is only sound to call on a CPU that has
//! the feature; the safe wrappers [`crc32`] and [`adler32`] check that at run time (the standard
//! library caches the CPUID result) and return `None` when it is missing, and the callers fall
//! back to the portable code. Kernels handle the bulk of a buffer and hand the tail to the
//! portable code, so every length is exact.

#![deny(unsafe_op_in_unsafe_fn)]

use core::arch::x86_64::*;

use super::adler32::{adler32_portable, BASE};
use super::crc32::crc32_portable;

/// Buffers shorter than this are not worth the vector set-up.
const MIN_LEN: usize = 64;
/// Buffers at least this long go to the 256-bit kernel when the CPU has it (its loop folds
/// 128 bytes per step and needs two steps' worth to start).
const WIDE_MIN_LEN: usize = 256;
/// Buffers at least this long go to the 512-bit kernel when the CPU has it (its loop folds 256
/// bytes per step and needs two steps' worth to start). Zen 5, buffers in cache, 256-bit ->
/// 512-bit kernel: 384 bytes 12.5 -> 9.4 GB/s, 512 bytes 15.4 -> 20.1, 768 20.2 -> 27.9, 1 KiB
/// 23.9 -> 35.1, 4 KiB 32.1 -> 61.8, 64 KiB 33.4 -> 66.0, 4 MiB 33.2 -> 65.0.
const WIDEST_MIN_LEN: usize = 512;

/// CRC-32 of `data` continuing from `crc` (zlib convention), or `None` if the CPU lacks
/// PCLMULQDQ or SSE4.1.
#[inline]
pub(crate) fn crc32(crc: u32, data: &[u8]) -> Option<u32> {
    if data.len() < MIN_LEN
        || !is_x86_feature_detected!("pclmulqdq")
        || !is_x86_feature_detected!("sse4.1")
    {
        return None;
    }
    let bulk = data.len() & !15;
    let reg = if bulk >= WIDEST_MIN_LEN && has_widest_clmul() {
        // SAFETY: VPCLMULQDQ and AVX-512 F (and the 128-bit features, above) were detected, and
        // the kernel reads only within `data[..bulk]` (`bulk >= 512`, a multiple of 16).
        unsafe { crc32_fold_512(!crc, &data[..bulk]) }
    } else if bulk >= WIDE_MIN_LEN && has_wide_clmul() {
        // SAFETY: VPCLMULQDQ and AVX2 (and the 128-bit features, above) were detected, and the
        // kernel reads only within `data[..bulk]` (`bulk >= 256`, a multiple of 16).
        unsafe { crc32_fold_wide(!crc, &data[..bulk]) }
    } else {
        // SAFETY: the features the kernel is compiled for were detected just above, and it
        // reads only within `data[..bulk]` (`bulk >= 64`, a multiple of 16).
        unsafe { crc32_fold(!crc, &data[..bulk]) }
    };
    Some(crc32_portable(!reg, &data[bulk..]))
}

/// The CPU folds 256-bit registers (VPCLMULQDQ with AVX2).
#[inline]
fn has_wide_clmul() -> bool {
    is_x86_feature_detected!("vpclmulqdq") && is_x86_feature_detected!("avx2")
}

/// The CPU folds 512-bit registers (VPCLMULQDQ with AVX-512 F) and they are worth using
/// ([`wide_registers_pay`]).
#[inline]
fn has_widest_clmul() -> bool {
    has_wide_clmul() && is_x86_feature_detected!("avx512f") && wide_registers_pay()
}

/// Whether this CPU runs 512-bit instructions without slowing down: not the Intel cores that
/// lower their clock for a while after any of them (Skylake and Cascade Lake servers, Ice
/// Lake, Tiger Lake; libdeflate keeps to 256 bits on the same list), where a checksum called
/// now and then would slow the decoder running around it. Asked once.
fn wide_registers_pay() -> bool {
    static PAYS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *PAYS.get_or_init(|| {
        // SAFETY: CPUID exists on every x86_64 CPU, and leaves 0 and 1 on every one of them;
        // it only reads identification registers. (An `unsafe fn` in older toolchains.)
        #[allow(unused_unsafe)]
        let (id, signature) = unsafe { (__cpuid(0), __cpuid(1).eax) };
        let mut vendor = [0u8; 12];
        for (bytes, reg) in vendor.chunks_exact_mut(4).zip([id.ebx, id.edx, id.ecx]) {
            bytes.copy_from_slice(&reg.to_le_bytes());
        }
        wide_registers_pay_on(&vendor, signature)
    })
}

/// [`wide_registers_pay`] for the CPU with this vendor string and signature (CPUID leaf 1's
/// EAX).
fn wide_registers_pay_on(vendor: &[u8; 12], signature: u32) -> bool {
    let family = (signature >> 8) & 0xf;
    let model = (signature >> 4) & 0xf | (signature >> 12) & 0xf0;
    !(vendor == b"GenuineIntel" && family == 6 && matches!(model, 85 | 106 | 108 | 126 | 140 | 141))
}

/// x^(4*128+32) and x^(4*128-32) mod P (low, high), for folding a 128-bit lane 64 bytes on.
macro_rules! k1k2 {
    () => {
        _mm_set_epi64x(0x1_c6e4_1596, 0x1_5444_2bd4)
    };
}

/// x^(128+32) and x^(128-32) mod P (low, high), for folding one 128-bit lane into the next.
macro_rules! k3k4 {
    () => {
        _mm_set_epi64x(0x0_ccaa_009e, 0x1_7519_97d0)
    };
}

/// Carry-less products of `x`'s low and high halves with `k`'s, xored: `x` moved forward by
/// the distance `k` was computed for.
macro_rules! fold {
    ($x:expr, $k:expr) => {
        _mm_xor_si128(
            _mm_clmulepi64_si128::<0x00>($x, $k),
            _mm_clmulepi64_si128::<0x11>($x, $k),
        )
    };
}

/// Folds 16-byte lanes of `data` (`len >= 64`, a multiple of 16) into the CRC register `reg`
/// (the bit-inverted CRC) and returns the register after Barrett reduction.
#[target_feature(enable = "pclmulqdq,sse2,sse4.1")]
unsafe fn crc32_fold(reg: u32, data: &[u8]) -> u32 {
    debug_assert!(data.len() >= 64 && data.len().is_multiple_of(16));
    // Folding 512 bits at a time.
    let k1k2 = k1k2!();
    let k3k4 = k3k4!();
    // Macros rather than closures, so the intrinsics are compiled with this function's
    // target features on every supported compiler.
    macro_rules! load {
        ($i:expr) => {
            // SAFETY: every offset used is a multiple of 16 with `offset + 16 <=
            // data.len()`; the load is unaligned.
            unsafe { _mm_loadu_si128(data.as_ptr().add($i).cast()) }
        };
    }

    let mut x0 = _mm_xor_si128(load!(0), _mm_cvtsi32_si128(reg as i32));
    let mut x1 = load!(16);
    let mut x2 = load!(32);
    let mut x3 = load!(48);
    let mut pos = 64;
    while pos + 64 <= data.len() {
        x0 = _mm_xor_si128(fold!(x0, k1k2), load!(pos));
        x1 = _mm_xor_si128(fold!(x1, k1k2), load!(pos + 16));
        x2 = _mm_xor_si128(fold!(x2, k1k2), load!(pos + 32));
        x3 = _mm_xor_si128(fold!(x3, k1k2), load!(pos + 48));
        pos += 64;
    }
    // Four lanes into one, then the rest.
    let mut x = _mm_xor_si128(fold!(x0, k3k4), x1);
    x = _mm_xor_si128(fold!(x, k3k4), x2);
    x = _mm_xor_si128(fold!(x, k3k4), x3);
    // SAFETY: this function's features are the callee's; `pos` is a multiple of 16 within
    // `data`.
    unsafe { crc32_finish(x, data, pos) }
}

/// [`crc32_fold`] on 256-bit registers, for `data.len() >= 256` (a multiple of 16): four
/// registers of two lanes each fold 128 bytes per step, twice the bytes per instruction of the
/// 128-bit kernel. Zen 3, 4 KiB / 64 KiB / 4 MiB buffers, best of 5: 8.3 / 8.8 / 10.9 GB/s ->
/// 23.0 / 24.5 / 24.3; eight registers (256 bytes per step) measured the same, interleaved.
#[target_feature(enable = "vpclmulqdq,avx2,pclmulqdq,sse2,sse4.1")]
unsafe fn crc32_fold_wide(reg: u32, data: &[u8]) -> u32 {
    debug_assert!(data.len() >= WIDE_MIN_LEN && data.len().is_multiple_of(16));
    // x^(8*128+32) and x^(8*128-32) mod P in each 128-bit half: a lane moves forward by the
    // 128 bytes of a step.
    let k = _mm256_set_epi64x(0x1_4a7f_e880, 0x1_e88e_f372, 0x1_4a7f_e880, 0x1_e88e_f372);
    macro_rules! load {
        ($i:expr) => {
            // SAFETY: every offset used is a multiple of 16 with `offset + 32 <=
            // data.len()`; the load is unaligned.
            unsafe { _mm256_loadu_si256(data.as_ptr().add($i).cast()) }
        };
    }
    macro_rules! fold256 {
        ($y:expr) => {
            _mm256_xor_si256(
                _mm256_clmulepi64_epi128::<0x00>($y, k),
                _mm256_clmulepi64_epi128::<0x11>($y, k),
            )
        };
    }
    let first = _mm256_set_m128i(_mm_setzero_si128(), _mm_cvtsi32_si128(reg as i32));
    let mut y0 = _mm256_xor_si256(load!(0), first);
    let mut y1 = load!(32);
    let mut y2 = load!(64);
    let mut y3 = load!(96);
    let mut pos = 128;
    while pos + 128 <= data.len() {
        y0 = _mm256_xor_si256(fold256!(y0), load!(pos));
        y1 = _mm256_xor_si256(fold256!(y1), load!(pos + 32));
        y2 = _mm256_xor_si256(fold256!(y2), load!(pos + 64));
        y3 = _mm256_xor_si256(fold256!(y3), load!(pos + 96));
        pos += 128;
    }
    // The eight lanes, in stream order, into one.
    let k3k4 = k3k4!();
    let mut x = _mm256_castsi256_si128(y0);
    for next in [
        _mm256_extracti128_si256::<1>(y0),
        _mm256_castsi256_si128(y1),
        _mm256_extracti128_si256::<1>(y1),
        _mm256_castsi256_si128(y2),
        _mm256_extracti128_si256::<1>(y2),
        _mm256_castsi256_si128(y3),
        _mm256_extracti128_si256::<1>(y3),
    ] {
        x = _mm_xor_si128(fold!(x, k3k4), next);
    }
    // SAFETY: this function's features include the callee's; `pos` is a multiple of 16 within
    // `data`.
    unsafe { crc32_finish(x, data, pos) }
}

/// [`crc32_fold`] on 512-bit registers, for `data.len() >= 512` (a multiple of 16): four
/// registers of four lanes each fold 256 bytes per step. At the end the registers are folded
/// into the last by 64 bytes at a time, and its four lanes into one by 16.
#[target_feature(enable = "vpclmulqdq,avx512f,avx2,pclmulqdq,sse2,sse4.1")]
unsafe fn crc32_fold_512(reg: u32, data: &[u8]) -> u32 {
    debug_assert!(data.len() >= WIDEST_MIN_LEN && data.len().is_multiple_of(16));
    // x^(8*256+32) and x^(8*256-32) mod P in each 128-bit lane: a lane moves forward by the
    // 256 bytes of a step; then by 64 bytes, from one register to the next.
    let k256 = _mm512_broadcast_i32x4(_mm_set_epi64x(0x1_322d_1430, 0x1_1542_778a));
    let k64 = _mm512_broadcast_i32x4(k1k2!());
    macro_rules! load {
        ($i:expr) => {
            // SAFETY: every offset used is a multiple of 16 with `offset + 64 <=
            // data.len()`; the load is unaligned.
            unsafe { _mm512_loadu_si512(data.as_ptr().add($i).cast()) }
        };
    }
    // `z` moved forward by the distance `k` was computed for, xored with `next` (one
    // three-way xor).
    macro_rules! fold512 {
        ($z:expr, $k:expr, $next:expr) => {
            _mm512_ternarylogic_epi64::<0x96>(
                _mm512_clmulepi64_epi128::<0x00>($z, $k),
                _mm512_clmulepi64_epi128::<0x11>($z, $k),
                $next,
            )
        };
    }
    let first = _mm512_zextsi128_si512(_mm_cvtsi32_si128(reg as i32));
    let mut z0 = _mm512_xor_si512(load!(0), first);
    let mut z1 = load!(64);
    let mut z2 = load!(128);
    let mut z3 = load!(192);
    let mut pos = 256;
    while pos + 256 <= data.len() {
        z0 = fold512!(z0, k256, load!(pos));
        z1 = fold512!(z1, k256, load!(pos + 64));
        z2 = fold512!(z2, k256, load!(pos + 128));
        z3 = fold512!(z3, k256, load!(pos + 192));
        pos += 256;
    }
    z1 = fold512!(z0, k64, z1);
    z2 = fold512!(z1, k64, z2);
    z3 = fold512!(z2, k64, z3);
    // The four lanes, in stream order, into one.
    let k3k4 = k3k4!();
    let mut x = _mm512_castsi512_si128(z3);
    for next in [
        _mm512_extracti32x4_epi32::<1>(z3),
        _mm512_extracti32x4_epi32::<2>(z3),
        _mm512_extracti32x4_epi32::<3>(z3),
    ] {
        x = _mm_xor_si128(fold!(x, k3k4), next);
    }
    // SAFETY: this function's features include the callee's; `pos` is a multiple of 16 within
    // `data`.
    unsafe { crc32_finish(x, data, pos) }
}

/// Folds the 16-byte lanes of `data[pos..]` (a multiple of 16 bytes) into the lane `x`, then
/// reduces it to the 32-bit CRC register.
#[inline]
#[target_feature(enable = "pclmulqdq,sse2,sse4.1")]
unsafe fn crc32_finish(mut x: __m128i, data: &[u8], mut pos: usize) -> u32 {
    let k3k4 = k3k4!();
    // x^64 mod P, for the last 64-to-32-bit step.
    let k5 = _mm_set_epi64x(0, 0x1_63cd_6124);
    // P' (the polynomial with its implicit bit) and mu = floor(x^64 / P), for Barrett.
    let poly_mu = _mm_set_epi64x(0x1_f701_1641, 0x1_db71_0641);
    let mask32 = _mm_set_epi32(0, 0, 0, -1);
    while pos < data.len() {
        // SAFETY: `pos + 16 <= data.len()` (both multiples of 16); the load is unaligned.
        let v = unsafe { _mm_loadu_si128(data.as_ptr().add(pos).cast()) };
        x = _mm_xor_si128(fold!(x, k3k4), v);
        pos += 16;
    }
    // 128 to 64 bits (multiplying in 32 zero bits), then 64 to 32.
    x = _mm_xor_si128(
        _mm_srli_si128::<8>(x),
        _mm_clmulepi64_si128::<0x10>(x, k3k4),
    );
    let t = _mm_clmulepi64_si128::<0x00>(_mm_and_si128(x, mask32), k5);
    x = _mm_xor_si128(_mm_srli_si128::<4>(x), t);
    // Barrett reduction to the 32-bit remainder.
    let mut t = _mm_clmulepi64_si128::<0x10>(_mm_and_si128(x, mask32), poly_mu);
    t = _mm_clmulepi64_si128::<0x00>(_mm_and_si128(t, mask32), poly_mu);
    x = _mm_xor_si128(x, t);
    _mm_extract_epi32::<1>(x) as u32
}

/// Adler-32 of `data` continuing from `adler`, or `None` if the CPU lacks AVX2.
#[inline]
pub(crate) fn adler32(adler: u32, data: &[u8]) -> Option<u32> {
    if data.len() < MIN_LEN || !is_x86_feature_detected!("avx2") {
        return None;
    }
    if has_wide_adler() {
        let bulk = data.len() & !63;
        // SAFETY: AVX-512 F, BW and VNNI were detected just above; the kernel reads only
        // `data[..bulk]`, a multiple of 64 bytes.
        let sum = unsafe { adler32_avx512(adler, &data[..bulk]) };
        return Some(adler32_portable(sum, &data[bulk..]));
    }
    let bulk = data.len() & !31;
    // SAFETY: AVX2 was detected just above; the kernel reads only `data[..bulk]`, a multiple of
    // 32 bytes.
    let sum = unsafe { adler32_avx2(adler, &data[..bulk]) };
    Some(adler32_portable(sum, &data[bulk..]))
}

/// The largest multiple of 32 below zlib's NMAX: the sums cannot overflow 32 bits within it.
const BLOCK: usize = 5536;
/// The largest multiple of 64 below zlib's NMAX, for the 512-bit kernel.
const BLOCK_WIDE: usize = 5504;

/// The CPU sums 512-bit registers of bytes with VNNI's dot products (AVX-512 F, BW, VNNI),
/// and they are worth using ([`wide_registers_pay`]).
#[inline]
fn has_wide_adler() -> bool {
    is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vnni")
        && wide_registers_pay()
}

/// Byte i of a 64-byte chunk adds (64 - i) times itself to Adler-32's second sum.
const WEIGHTS_64: [i8; 64] = {
    let mut w = [0i8; 64];
    let mut i = 0;
    while i < 64 {
        w[i] = 64 - i as i8;
        i += 1;
    }
    w
};

/// AVX-512 Adler-32 over `data`, whose length is a multiple of 64: the AVX2 kernel's sums
/// on 64 bytes per step, the weighted sum in one dot product (VPDPBUSD) instead of two
/// multiply-adds.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn adler32_avx512(adler: u32, data: &[u8]) -> u32 {
    debug_assert!(data.len().is_multiple_of(64));
    // SAFETY: `WEIGHTS_64` is 64 readable bytes; the load is unaligned.
    let weights = unsafe { _mm512_loadu_si512(WEIGHTS_64.as_ptr().cast()) };
    let zero = _mm512_setzero_si512();
    let mut a = adler & 0xffff;
    let mut b = adler >> 16;
    for block in data.chunks(BLOCK_WIDE) {
        let mut vs1 = zero;
        let mut vs2 = zero;
        // Sum over chunks of the first sum before each chunk (times 64 at the end).
        let mut vs1_before = zero;
        for chunk in block.chunks_exact(64) {
            // SAFETY: `chunk` is 64 readable bytes; the load is unaligned.
            let v = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) };
            vs1_before = _mm512_add_epi32(vs1_before, vs1);
            vs1 = _mm512_add_epi32(vs1, _mm512_sad_epu8(v, zero));
            vs2 = _mm512_dpbusd_epi32(vs2, v, weights);
        }
        let n = block.len() as u32;
        vs2 = _mm512_add_epi32(vs2, _mm512_slli_epi32::<6>(vs1_before));
        // Within NMAX bytes neither sum exceeds 32 bits (as in the AVX2 kernel).
        b += a * n + _mm512_reduce_add_epi32(vs2) as u32;
        a += _mm512_reduce_add_epi32(vs1) as u32;
        a %= BASE;
        b %= BASE;
    }
    (b << 16) | a
}

/// AVX2 Adler-32 over `data`, whose length is a multiple of 32.
#[target_feature(enable = "avx2")]
unsafe fn adler32_avx2(adler: u32, data: &[u8]) -> u32 {
    debug_assert!(data.len().is_multiple_of(32));
    // Byte i of a 32-byte chunk adds (32 - i) times itself to the second sum.
    let weights = _mm256_set_epi8(
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
        26, 27, 28, 29, 30, 31, 32,
    );
    let ones = _mm256_set1_epi16(1);
    let zero = _mm256_setzero_si256();
    let mut a = adler & 0xffff;
    let mut b = adler >> 16;
    for block in data.chunks(BLOCK) {
        let mut vs1 = _mm256_setzero_si256();
        let mut vs2 = _mm256_setzero_si256();
        // Sum over chunks of the first sum before each chunk (times 32 at the end).
        let mut vs1_before = _mm256_setzero_si256();
        for chunk in block.chunks_exact(32) {
            // SAFETY: `chunk` is 32 readable bytes; the load is unaligned.
            let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
            vs1_before = _mm256_add_epi32(vs1_before, vs1);
            vs1 = _mm256_add_epi32(vs1, _mm256_sad_epu8(v, zero));
            let w = _mm256_madd_epi16(_mm256_maddubs_epi16(v, weights), ones);
            vs2 = _mm256_add_epi32(vs2, w);
        }
        let n = block.len() as u32;
        vs2 = _mm256_add_epi32(vs2, _mm256_slli_epi32::<5>(vs1_before));
        // b gains n times the a it started with; both then take the block's sums.
        b += a * n + hsum(vs2);
        a += hsum(vs1);
        a %= BASE;
        b %= BASE;
    }
    (b << 16) | a
}

/// The sum of the eight 32-bit lanes of `v`. Safe to call from code compiled with AVX2 (the
/// Adler-32 kernel); only such code calls it.
#[target_feature(enable = "avx2")]
fn hsum(v: __m256i) -> u32 {
    let s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
    _mm_cvtsi128_si32(s) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three CRC kernels, called directly (the dispatcher sends long buffers only to the
    /// widest one the CPU has), against the portable code at every multiple of 16 they take,
    /// from a few starting values: every count of whole steps and leftover lanes.
    #[test]
    fn each_crc_kernel_matches_portable() {
        if !is_x86_feature_detected!("pclmulqdq") || !is_x86_feature_detected!("sse4.1") {
            return;
        }
        let data: Vec<u8> = (0..3072u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for start in [0u32, 0xffff_ffff, 0x1234_5678] {
            for n in (MIN_LEN..=data.len()).step_by(16) {
                let d = &data[..n];
                let want = crc32_portable(start, d);
                // SAFETY: the features were detected above; `n >= 64` is a multiple of 16.
                assert_eq!(!unsafe { crc32_fold(!start, d) }, want, "128-bit, len {n}");
                if n >= WIDE_MIN_LEN && has_wide_clmul() {
                    // SAFETY: as above, with the wide features detected and `n >= 256`.
                    assert_eq!(
                        !unsafe { crc32_fold_wide(!start, d) },
                        want,
                        "wide, len {n}"
                    );
                }
                if n >= WIDEST_MIN_LEN && has_widest_clmul() {
                    // SAFETY: as above, with the 512-bit features detected and `n >= 512`.
                    assert_eq!(
                        !unsafe { crc32_fold_512(!start, d) },
                        want,
                        "512-bit, len {n}"
                    );
                }
            }
        }
    }

    /// The 512-bit kernels stay off the Intel cores that slow down for them, by signature
    /// (CPUID leaf 1's EAX), and run everywhere else.
    #[test]
    fn wide_registers_by_cpu() {
        let intel = b"GenuineIntel";
        for (signature, pays) in [
            (0x0005_0657, false), // Cascade Lake server: family 6, model 85
            (0x0006_06a6, false), // Ice Lake server: model 106
            (0x0007_06e5, false), // Ice Lake client: model 126
            (0x0008_06c1, false), // Tiger Lake: model 140
            (0x0008_06f8, true),  // Sapphire Rapids: model 143
            (0x000a_0671, true),  // Rocket Lake: model 167
            (0x0009_06a3, true),  // Alder Lake: model 154
        ] {
            assert_eq!(
                wide_registers_pay_on(intel, signature),
                pays,
                "{signature:#x}"
            );
        }
        // Zen 4 and Zen 5 (family 0xf plus extended family), and Ice Lake's model number
        // under another vendor.
        for signature in [0x00a6_0f12, 0x00b4_0f40, 0x0006_06a6] {
            assert!(wide_registers_pay_on(b"AuthenticAMD", signature));
        }
    }

    /// Both Adler-32 kernels, called directly (the dispatcher sends buffers only to the 512-bit
    /// one where the CPU has it), against the portable code at every multiple of 64 up to past
    /// three blocks, on all-0xff bytes (the largest sums) and mixed ones, from the largest
    /// starting sums and others.
    #[test]
    fn each_adler_kernel_matches_portable() {
        if !is_x86_feature_detected!("avx2") {
            return;
        }
        let ones = vec![0xffu8; 3 * BLOCK + 256];
        let mixed: Vec<u8> = (0..ones.len() as u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for data in [&ones, &mixed] {
            for start in [1u32, (65520 << 16) | 65520, 0x1234_5678] {
                for n in (0..=data.len()).step_by(64) {
                    let d = &data[..n];
                    let want = adler32_portable(start, d);
                    // SAFETY: AVX2 was detected above; `n` is a multiple of 32.
                    assert_eq!(unsafe { adler32_avx2(start, d) }, want, "AVX2, len {n}");
                    if has_wide_adler() {
                        // SAFETY: the wide features were detected; `n` is a multiple of 64.
                        assert_eq!(unsafe { adler32_avx512(start, d) }, want, "512, len {n}");
                    }
                }
            }
        }
    }
}
