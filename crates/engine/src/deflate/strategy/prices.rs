//! Symbol prices for the near-optimal parser's dynamic program (`dp.rs`): static ones for a
//! stream's first window, then those the last parse's symbol counts give.
#![forbid(unsafe_code)]

use crate::deflate::huffman::{build_lengths, log2_x16, with_scratch};
use crate::deflate::tables::{DIST_EXTRA, LEN_EXTRA};

/// Price of a symbol the previous pass did not use (its code would be long).
const UNUSED_COST: u32 = 13;
/// Costs are in 1/SCALE bits.
const SCALE: u32 = 16;
/// The most a symbol's price can be, without its extra bits: [`price`] clamps the
/// information content to 15 bits and a codeword has at most 15, an unused symbol costs
/// [`UNUSED_COST`] and the static prices at most 9 bits.
pub const MAX_PRICE: u32 = 15 * SCALE;
/// The most a length and a distance can cost together, with their extra bits (5 and 13 at
/// most).
pub const MAX_MATCH_PRICE: u32 = 2 * MAX_PRICE + (5 + 13) * SCALE;

/// Symbol prices in 1/SCALE bits.
#[derive(Clone)]
pub struct Costs {
    pub(super) lit: [u32; 286],
    /// Distance symbols 0-29, and two never used: a packed symbol needs no bounds check.
    pub(super) dist: [u32; 32],
}

impl Costs {
    /// Static prices, for a stream's first window.
    pub fn initial() -> Costs {
        let mut lit = [9 * SCALE; 286];
        for (s, c) in lit.iter_mut().enumerate().take(256) {
            *c = if (b'a' as usize..=b'z' as usize).contains(&s) || s == b' ' as usize {
                7 * SCALE
            } else {
                9 * SCALE
            };
        }
        for (i, c) in lit.iter_mut().enumerate().skip(257) {
            *c = (6 + (i as u32 - 257) / 6 + LEN_EXTRA[i - 257] as u32) * SCALE;
        }
        let mut dist = [0u32; 32];
        for (i, c) in dist.iter_mut().enumerate().take(30) {
            *c = (5 + DIST_EXTRA[i] as u32) * SCALE;
        }
        Costs { lit, dist }
    }

    /// The prices of the symbols of a parse counted `lf` and `df`: [`price`] of each, plus its
    /// extra bits; and what the parse costs at their information content (1/SCALE bits,
    /// extra bits included).
    pub fn from_counts(lf: &[u32; 286], df: &[u32; 30]) -> (Costs, u64) {
        let mut lit = [0u32; 286];
        price(lf, &mut lit);
        for (c, &e) in lit[257..].iter_mut().zip(LEN_EXTRA.iter()) {
            *c += e as u32 * SCALE;
        }
        let mut dist = [0u32; 32];
        price(df, &mut dist[..30]);
        for (c, &e) in dist.iter_mut().zip(DIST_EXTRA.iter()) {
            *c += e as u32 * SCALE;
        }
        let extra: u64 = lf[257..]
            .iter()
            .zip(LEN_EXTRA.iter())
            .chain(df.iter().zip(DIST_EXTRA.iter()))
            .map(|(&n, &e)| n as u64 * e as u64)
            .sum();
        let bits = entropy(lf) + entropy(df) + extra * SCALE as u64;
        (Costs { lit, dist }, bits)
    }

    /// These prices with the literals priced as they would be if `bytes` were coded as
    /// literals alone (the parse `optimal.rs` tries again where one may have settled on
    /// matches that only look cheap because literals are rare).
    pub fn with_literals_of(&self, bytes: &[u8]) -> Costs {
        let mut f = [0u32; 257];
        for &b in bytes {
            f[b as usize] += 1;
        }
        f[256] = 1;
        let mut p = [0u32; 257];
        price(&f, &mut p);
        let mut c = self.clone();
        c.lit[..256].copy_from_slice(&p[..256]);
        c
    }
}

/// Prices `out` (1/SCALE bits, without extra bits) for symbols counted `f`: between the
/// symbol's information content, -log2(f / total), and the length of its codeword in a
/// Huffman code of these counts, 5/8 of the way to the codeword. Unused symbols cost
/// [`UNUSED_COST`] bits.
///
/// The information content alone (fractional prices) decides near-ties that whole codeword
/// lengths cannot, and on the corpus beat them; but a Huffman code cannot give a symbol less
/// than a whole bit, nor four equally likely bases two bits each once anything else is coded
/// too. On DNA the information content priced the bases at about 2.0 bits where their
/// codewords took 2 and 3, and the parse left out matches that pay. Per-file corpus bytes at
/// levels 10 / 11 / 12 with the codeword's share at 0, 2/8, 3/8, 4/8, 5/8, 6/8, 7/8 and all:
/// 3,006,069 / 3,005,348 / 3,000,890 (information content alone), 3,005,180 / 3,004,524 /
/// 3,000,159, 3,005,176 / 3,004,454 / 3,000,024, 3,005,442 / 3,004,604 / 2,999,614,
/// 3,005,086 / 3,004,324 / 2,999,754, 3,005,704 / 3,004,940 / 3,000,044, 3,005,884 /
/// 3,005,073 / 3,000,396, and 3,007,486 / 3,006,826 / 3,003,134 (codeword lengths alone).
/// Genomic data gains most with the larger shares (see `optimal.rs` for the figures).
fn price(f: &[u32], out: &mut [u32]) {
    let lt = log2_x16(f.iter().sum::<u32>().max(1));
    let mut lens = [0u8; 286];
    with_scratch(|w| build_lengths(f, 15, &mut lens, w));
    for ((c, &n), &len) in out.iter_mut().zip(f).zip(&lens) {
        *c = if n == 0 {
            UNUSED_COST * SCALE
        } else {
            let info = (lt - log2_x16(n)).clamp(SCALE, 15 * SCALE);
            (3 * info + 5 * len as u32 * SCALE) / 8
        };
    }
}

/// Sum of `n * log2(total / n)` over the counts `f`, in 1/SCALE bits: what they cost at their
/// own information content.
fn entropy(f: &[u32]) -> u64 {
    let total: u32 = f.iter().sum();
    if total == 0 {
        return 0;
    }
    let lt = log2_x16(total);
    f.iter()
        .filter(|&&n| n > 0)
        .map(|&n| n as u64 * (lt - log2_x16(n)) as u64)
        .sum()
}

/// The bits (1/SCALE) of `bytes` coded as literals alone, at their information content,
/// estimated from every fourth byte.
pub fn literal_bits_sampled(bytes: &[u8]) -> u64 {
    let mut f = [0u32; 256];
    for &b in bytes.iter().step_by(4) {
        f[b as usize] += 1;
    }
    4 * entropy(&f)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four equally common bases and a rarer line end: a Huffman code gives two of the bases
    /// two bits and two of them three (or one two and three three), so the prices lie between
    /// the information content (2.0 bits) and those codeword lengths, never below a whole bit
    /// nor above the codeword.
    #[test]
    fn prices_lie_between_information_content_and_codeword_length() {
        let mut f = [0u32; 257];
        for b in b"ACGT" {
            f[*b as usize] = 1000;
        }
        f[b'\n' as usize] = 66;
        f[256] = 1;
        let mut lens = [0u8; 286];
        with_scratch(|w| build_lengths(&f, 15, &mut lens, w));
        let mut p = [0u32; 257];
        price(&f, &mut p);
        for s in [b'A', b'C', b'G', b'T', b'\n'] {
            let s = s as usize;
            let total: u32 = f.iter().sum();
            let info = log2_x16(total) - log2_x16(f[s]);
            let code = lens[s] as u32 * SCALE;
            let (lo, hi) = (info.min(code), info.max(code));
            assert!(
                lo <= p[s] && p[s] <= hi,
                "symbol {s}: {} not in {lo}..={hi}",
                p[s]
            );
            assert!(p[s] >= SCALE);
        }
        assert!(lens[b'A' as usize..=b'T' as usize].contains(&3));
        // A symbol never seen costs UNUSED_COST bits.
        assert_eq!(p[b'Z' as usize], UNUSED_COST * SCALE);
    }

    /// The bits a parse's counts cost: each symbol's information content times its count,
    /// plus the extra bits of its lengths and distances.
    #[test]
    fn parse_bits_are_counts_times_information_plus_extra_bits() {
        let (mut lf, mut df) = ([0u32; 286], [0u32; 30]);
        lf[b'a' as usize] = 8;
        lf[256] = 1;
        // Length symbol 265 (lengths 11-12, one extra bit), seven times.
        lf[265] = 7;
        // Distance symbol 4 (distances 5-6, one extra bit) and 10 (33-48, four extra bits).
        df[4] = 4;
        df[10] = 3;
        let (_, bits) = Costs::from_counts(&lf, &df);
        let info = |n: u32, total: u32| n as u64 * (log2_x16(total) - log2_x16(n)) as u64;
        let want = info(8, 16)
            + info(1, 16)
            + info(7, 16)
            + info(4, 7)
            + info(3, 7)
            + (7 + 4 + 3 * 4) as u64 * SCALE as u64;
        assert_eq!(bits, want);
    }
}
