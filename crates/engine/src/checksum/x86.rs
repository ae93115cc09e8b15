//! x86_64 checksum kernels: CRC-32 by carry-less multiplication (PCLMULQDQ folding, Intel's
//! "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ", the constants the Linux
//! kernel's `crc32-pclmul` uses for the reflected gzip polynomial) and Adler-32 with AVX2.
//!
//! Each kernel is a `#[target_feature]` function, so it is only sound to call on a CPU that has
//! the feature; the safe wrappers [`crc32`] and [`adler32`] check that at run time (the standard
//! library caches the CPUID result) and return `None` when it is missing, and the callers fall
//! back to the portable code. Kernels handle the bulk of a buffer and hand the tail to the
//! portable code, so every length is exact.

use core::arch::x86_64::*;

use super::adler32::{adler32_portable, BASE};
use super::crc32::crc32_portable;

/// Buffers shorter than this are not worth the vector set-up.
const MIN_LEN: usize = 64;

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
    // SAFETY: the features the kernel is compiled for were detected just above, and it reads
    // only within `data[..bulk]` (`bulk >= 64`, a multiple of 16).
    let reg = unsafe { crc32_fold(!crc, &data[..bulk]) };
    Some(crc32_portable(!reg, &data[bulk..]))
}

/// Folds 16-byte lanes of `data` (`len >= 64`, a multiple of 16) into the CRC register `reg`
/// (the bit-inverted CRC) and returns the register after Barrett reduction.
#[target_feature(enable = "pclmulqdq,sse2,sse4.1")]
unsafe fn crc32_fold(reg: u32, data: &[u8]) -> u32 {
    debug_assert!(data.len() >= 64 && data.len().is_multiple_of(16));
    // x^(4*128+32) and x^(4*128-32) mod P, for folding 512 bits at a time (low, high).
    let k1k2 = _mm_set_epi64x(0x1_c6e4_1596, 0x1_5444_2bd4);
    // x^(128+32) and x^(128-32) mod P, for folding 128 bits.
    let k3k4 = _mm_set_epi64x(0x0_ccaa_009e, 0x1_7519_97d0);
    // x^64 mod P, for the last 64-to-32-bit step.
    let k5 = _mm_set_epi64x(0, 0x1_63cd_6124);
    // P' (the polynomial with its implicit bit) and mu = floor(x^64 / P), for Barrett.
    let poly_mu = _mm_set_epi64x(0x1_f701_1641, 0x1_db71_0641);
    let mask32 = _mm_set_epi32(0, 0, 0, -1);

    // Macros rather than closures, so the intrinsics are compiled with this function's
    // target features on every supported compiler.
    macro_rules! load {
        // Every offset used is a multiple of 16 with `offset + 16 <= data.len()`; the load is
        // unaligned.
        ($i:expr) => {
            _mm_loadu_si128(data.as_ptr().add($i).cast())
        };
    }
    macro_rules! fold {
        ($x:expr, $k:expr) => {
            _mm_xor_si128(
                _mm_clmulepi64_si128::<0x00>($x, $k),
                _mm_clmulepi64_si128::<0x11>($x, $k),
            )
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
    // Four lanes into one, then the remaining 16-byte lanes one at a time.
    let mut x = _mm_xor_si128(fold!(x0, k3k4), x1);
    x = _mm_xor_si128(fold!(x, k3k4), x2);
    x = _mm_xor_si128(fold!(x, k3k4), x3);
    while pos < data.len() {
        x = _mm_xor_si128(fold!(x, k3k4), load!(pos));
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
    let bulk = data.len() & !31;
    // SAFETY: AVX2 was detected just above; the kernel reads only `data[..bulk]`, a multiple of
    // 32 bytes.
    let sum = unsafe { adler32_avx2(adler, &data[..bulk]) };
    Some(adler32_portable(sum, &data[bulk..]))
}

/// The largest multiple of 32 below zlib's NMAX: the sums cannot overflow 32 bits within it.
const BLOCK: usize = 5536;

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
            let v = _mm256_loadu_si256(chunk.as_ptr().cast());
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

/// The sum of the eight 32-bit lanes of `v`.
#[target_feature(enable = "avx2")]
unsafe fn hsum(v: __m256i) -> u32 {
    let s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b01_00_11_10>(s));
    let s = _mm_add_epi32(s, _mm_shuffle_epi32::<0b10_11_00_01>(s));
    _mm_cvtsi128_si32(s) as u32
}
