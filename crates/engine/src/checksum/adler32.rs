//! Adler-32 (RFC 1950) as used by zlib streams.
//!
//! Portable path: sums deferred over NMAX-byte runs so the modulo runs once per 5552 bytes. On
//! x86_64 with AVX2, buffers of 64 bytes or more go to a vector kernel in `x86.rs` (512-bit
//! with AVX-512 VNNI).
#![forbid(unsafe_code)]

pub(crate) const BASE: u32 = 65521;
/// The largest n such that 255 n (n+1) / 2 + (n+1)(BASE-1) fits in 32 bits.
const NMAX: usize = 5552;

/// Updates an Adler-32 with `data`. Start with `adler = 1`.
pub fn adler32(adler: u32, data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if let Some(a) = super::x86::adler32(adler, data) {
        return a;
    }
    adler32_portable(adler, data)
}

/// Portable Adler-32, unrolled by 8 within each NMAX run.
pub(crate) fn adler32_portable(adler: u32, data: &[u8]) -> u32 {
    let mut a = adler & 0xffff;
    let mut b = adler >> 16;
    for run in data.chunks(NMAX) {
        let mut eights = run.chunks_exact(8);
        for c in &mut eights {
            a += c[0] as u32;
            b += a;
            a += c[1] as u32;
            b += a;
            a += c[2] as u32;
            b += a;
            a += c[3] as u32;
            b += a;
            a += c[4] as u32;
            b += a;
            a += c[5] as u32;
            b += a;
            a += c[6] as u32;
            b += a;
            a += c[7] as u32;
            b += a;
        }
        for &x in eights.remainder() {
            a += x as u32;
            b += a;
        }
        a %= BASE;
        b %= BASE;
    }
    (b << 16) | a
}

/// The Adler-32 of `A || B` given `adler1 = adler32(A)`, `adler2 = adler32(B)`, `len2 = B.len()`.
pub fn adler32_combine(adler1: u32, adler2: u32, len2: u64) -> u32 {
    let rem = (len2 % BASE as u64) as u32;
    let mut sum1 = adler1 & 0xffff;
    let mut sum2 = (rem * sum1) % BASE;
    sum1 += (adler2 & 0xffff) + BASE - 1;
    sum2 += (adler1 >> 16) + (adler2 >> 16) + BASE - rem;
    if sum1 >= BASE {
        sum1 -= BASE;
    }
    if sum1 >= BASE {
        sum1 -= BASE;
    }
    if sum2 >= BASE << 1 {
        sum2 -= BASE << 1;
    }
    if sum2 >= BASE {
        sum2 -= BASE;
    }
    (sum2 << 16) | sum1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(data: &[u8]) -> u32 {
        let (mut a, mut b) = (1u32, 0u32);
        for &x in data {
            a = (a + x as u32) % BASE;
            b = (b + a) % BASE;
        }
        (b << 16) | a
    }

    #[test]
    fn known_values() {
        assert_eq!(adler32(1, b""), 1);
        assert_eq!(adler32(1, b"Wikipedia"), 0x11E6_0398);
    }

    #[test]
    fn matches_naive_across_nmax() {
        let data = vec![0xffu8; 3 * NMAX + 17];
        for n in [0, 1, 15, NMAX - 1, NMAX, NMAX + 1, 2 * NMAX + 9, data.len()] {
            assert_eq!(adler32(1, &data[..n]), naive(&data[..n]), "len {n}");
        }
    }

    #[test]
    fn combine_matches_concatenation() {
        let data: Vec<u8> = (0..20000u32).map(|i| (i * 31 + (i >> 5)) as u8).collect();
        for split in [0usize, 1, 5552, 10000, 19999, 20000] {
            let (a, b) = data.split_at(split);
            assert_eq!(
                adler32_combine(adler32(1, a), adler32(1, b), b.len() as u64),
                adler32(1, &data)
            );
        }
    }
}
