//! CRC-32 (ISO-HDLC, reflected polynomial 0xEDB88320) as used by gzip.
//!
//! Portable path: slice-by-8 tables built at compile time. On x86_64 with PCLMULQDQ, buffers of
//! 64 bytes or more go to the carry-less-multiply kernels in `x86.rs` (256-bit ones from 256
//! bytes where the CPU has VPCLMULQDQ).
#![forbid(unsafe_code)]

/// The reflected CRC-32 polynomial.
const POLY: u32 = 0xEDB8_8320;

const fn make_tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { POLY ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut s = 1;
        while s < 8 {
            let prev = t[s - 1][i];
            t[s][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            s += 1;
        }
        i += 1;
    }
    t
}

static TABLES: [[u32; 256]; 8] = make_tables();

/// The byte-at-a-time CRC-32 table, as zlib's `get_crc_table()` returns it.
pub static CRC32_TABLE: [u32; 256] = make_tables()[0];

/// Updates a CRC-32 with `data`. Start with `crc = 0`.
pub fn crc32(crc: u32, data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if let Some(c) = super::x86::crc32(crc, data) {
        return c;
    }
    crc32_portable(crc, data)
}

/// Slice-by-8 CRC-32, the fallback for CPUs without carry-less multiply.
pub(crate) fn crc32_portable(crc: u32, data: &[u8]) -> u32 {
    let mut c = !crc;
    let mut chunks = data.chunks_exact(8);
    for ch in &mut chunks {
        let lo = u32::from_le_bytes([ch[0], ch[1], ch[2], ch[3]]) ^ c;
        let hi = u32::from_le_bytes([ch[4], ch[5], ch[6], ch[7]]);
        c = TABLES[7][(lo & 0xff) as usize]
            ^ TABLES[6][((lo >> 8) & 0xff) as usize]
            ^ TABLES[5][((lo >> 16) & 0xff) as usize]
            ^ TABLES[4][(lo >> 24) as usize]
            ^ TABLES[3][(hi & 0xff) as usize]
            ^ TABLES[2][((hi >> 8) & 0xff) as usize]
            ^ TABLES[1][((hi >> 16) & 0xff) as usize]
            ^ TABLES[0][(hi >> 24) as usize];
    }
    for &b in chunks.remainder() {
        c = (c >> 8) ^ TABLES[0][((c ^ b as u32) & 0xff) as usize];
    }
    !c
}

/// Multiplies `a` by `b` modulo the CRC polynomial (both reflected).
fn multmodp(a: u32, mut b: u32) -> u32 {
    if a == 0 {
        // zlib's loop never ends here (its exit needs a set bit in `a`); the product is 0.
        // Only a caller's own operator can be 0 (`crc32_combine_op`).
        return 0;
    }
    let mut m: u32 = 1 << 31;
    let mut p: u32 = 0;
    loop {
        if a & m != 0 {
            p ^= b;
            if a & (m - 1) == 0 {
                break;
            }
        }
        m >>= 1;
        b = if b & 1 != 0 { (b >> 1) ^ POLY } else { b >> 1 };
    }
    p
}

/// x^(2^k) modulo the polynomial, for k = 0..32.
const fn make_x2n() -> [u32; 32] {
    let mut t = [0u32; 32];
    let mut p: u32 = 1 << 30; // x^1
    t[0] = p;
    let mut n = 1;
    while n < 32 {
        // p = p * p mod poly, written out because const fn cannot call multmodp in a loop on
        // older compilers.
        let a = p;
        let mut b = p;
        let mut m: u32 = 1 << 31;
        let mut r: u32 = 0;
        loop {
            if a & m != 0 {
                r ^= b;
                if a & (m - 1) == 0 {
                    break;
                }
            }
            m >>= 1;
            b = if b & 1 != 0 { (b >> 1) ^ POLY } else { b >> 1 };
        }
        p = r;
        t[n] = p;
        n += 1;
    }
    t
}

static X2N: [u32; 32] = make_x2n();

/// x^(n * 2^k) modulo the polynomial.
fn x2nmodp(mut n: u64, mut k: u32) -> u32 {
    let mut p: u32 = 1 << 31; // x^0
    while n != 0 {
        if n & 1 != 0 {
            p = multmodp(X2N[(k & 31) as usize], p);
        }
        n >>= 1;
        k += 1;
    }
    p
}

/// The CRC-32 of `A || B` given `crc1 = crc32(A)`, `crc2 = crc32(B)` and `len2 = B.len()`.
pub fn crc32_combine(crc1: u32, crc2: u32, len2: u64) -> u32 {
    multmodp(x2nmodp(len2, 3), crc1) ^ crc2
}

/// The operator for [`crc32_combine_op`] that appends `len2` bytes (zlib's `crc32_combine_gen`).
pub fn crc32_combine_gen(len2: u64) -> u32 {
    x2nmodp(len2, 3)
}

/// Combines with an operator from [`crc32_combine_gen`] (zlib's `crc32_combine_op`).
pub fn crc32_combine_op(crc1: u32, crc2: u32, op: u32) -> u32 {
    multmodp(op, crc1) ^ crc2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bitwise(data: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in data {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 { POLY ^ (c >> 1) } else { c >> 1 };
            }
        }
        !c
    }

    #[test]
    fn check_value() {
        assert_eq!(crc32(0, b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(0, b""), 0);
    }

    #[test]
    fn matches_bitwise_reference_at_every_length() {
        let data: Vec<u8> = (0..300u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        for n in 0..data.len() {
            assert_eq!(crc32(0, &data[..n]), bitwise(&data[..n]), "len {n}");
        }
    }

    #[test]
    fn combine_matches_concatenation() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 + (i >> 3)) as u8).collect();
        for split in [0usize, 1, 7, 100, 2500, 4999, 5000] {
            let (a, b) = data.split_at(split);
            let whole = crc32(0, &data);
            assert_eq!(
                crc32_combine(crc32(0, a), crc32(0, b), b.len() as u64),
                whole
            );
            let op = crc32_combine_gen(b.len() as u64);
            assert_eq!(crc32_combine_op(crc32(0, a), crc32(0, b), op), whole);
        }
    }
}
