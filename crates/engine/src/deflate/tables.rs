//! RFC 1951 constant tables: length and distance symbol bases and extra-bit counts, the fixed
//! Huffman code lengths, and the order in which code-length code lengths are sent.
#![forbid(unsafe_code)]

/// Base match length of each length symbol (257 + index).
pub const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
/// Extra bits of each length symbol.
pub const LEN_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
/// Base distance of each distance symbol.
pub const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
/// Extra bits of each distance symbol.
pub const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
/// The order of code-length code lengths in a dynamic block header.
pub const CLEN_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

const fn build_len_sym() -> [u8; 259] {
    let mut t = [0u8; 259];
    let mut i = 0;
    while i < 28 {
        let mut l = LEN_BASE[i] as usize;
        let end = l + (1usize << LEN_EXTRA[i]);
        while l < end && l < 258 {
            t[l] = i as u8;
            l += 1;
        }
        i += 1;
    }
    t[258] = 28;
    t
}

/// Length symbol index (0..29, add 257) for each match length 3..=258.
pub static LEN_SYM: [u8; 259] = build_len_sym();

/// Distance symbol (0..30) of a distance 1..=32768. A lookup in libdeflate's 512-entry table
/// instead (distances up to 256, then by `(dist - 1) >> 7`, the index chosen without a
/// branch) measured 0.99x / 1.03x / 1.00x / 1.00x / 0.98x the time at levels 1 / 6 / 10 / 11
/// / 12 (alternating runs over the corpus files, same output): not kept.
#[inline(always)]
pub fn dist_sym(dist: u32) -> usize {
    let x = dist - 1;
    if x < 4 {
        x as usize
    } else {
        let k = 31 - x.leading_zeros();
        (2 * k + ((x >> (k - 1)) & 1)) as usize
    }
}

/// Fixed (BTYPE=01) literal/length code lengths.
pub fn fixed_litlen_lens() -> [u8; 288] {
    let mut l = [8u8; 288];
    l[144..256].fill(9);
    l[256..280].fill(7);
    l
}

/// Fixed (BTYPE=01) distance code lengths (all 5; only 0..30 are used).
pub fn fixed_dist_lens() -> [u8; 32] {
    [5u8; 32]
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn dist_symbols_match_bases() {
        for s in 0..30 {
            let b = DIST_BASE[s] as u32;
            let last = b + (1u32 << DIST_EXTRA[s]) - 1;
            assert_eq!(dist_sym(b), s);
            assert_eq!(dist_sym(last), s);
        }
        assert_eq!(LEN_SYM[3], 0);
        assert_eq!(LEN_SYM[257], 27);
        assert_eq!(LEN_SYM[258], 28);
    }
}
