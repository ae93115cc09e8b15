//! The near-optimal parser's SIMD kernel: the cheapest of up to [`LANES`] consecutive match
//! lengths at one position, priced eight at a time with AVX2 (`deflate/strategy/dp.rs`).
//!
//! The plain dynamic program walks each match's lengths in a loop whose trip count changes
//! from match to match, so the loop's end is mispredicted about once per match (bible.txt at
//! level 10 has 1.6 matches per input byte). Here a position's lengths take a fixed path: no
//! branch depends on the data.
//!
//! The same kernel on AVX-512 F (sixteen lanes a vector, the blends and the lengths past
//! the longest as mask registers, the pass compiled for it where the CPU has it) measured
//! 0.99-1.00x the time at levels 10-12 (Zen 5, alternating runs over the corpus, same
//! bytes): the vector work is not what a position's pricing waits on. Not kept.

use crate::arch::Avx2;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Most lengths priced in one call (four vectors of eight).
pub const LANES: usize = 32;

/// The cheapest of the lengths `min..min + 8 * V` that are at most `lmax`: length
/// `min + j` costs `lc[j] + dcs[k] + cs[j]`, with `k` the first match whose length `ls[k]`
/// reaches it (each of those lengths must be reached by one of `ls`). Returns the least of
/// those sums, or u32::MAX when no length qualifies. The caller keeps each length in the low
/// bits of its price `lc[j]` (the other prices' low bits zero), so the least sum names the
/// cheapest length and, on ties, the shortest: no lane has to be found after the minimum.
/// `lc` and `cs` hold at least `8 * V` prices, and no sum overflows.
#[inline(always)]
pub fn best<const V: usize>(
    tok: Avx2,
    lc: &[u32],
    cs: &[u32],
    min: u32,
    lmax: u32,
    ls: [u32; 4],
    dcs: [u32; 4],
) -> u32 {
    assert!(V <= 4 && lc.len() >= 8 * V && cs.len() >= 8 * V);
    #[cfg(target_arch = "x86_64")]
    {
        let _ = tok;
        // SAFETY: `tok` exists only where the CPU has AVX2 and BMI1 (`arch::with_avx2`), and
        // the slices' lengths were checked just above.
        unsafe { best_avx2::<V>(lc, cs, min, lmax, ls, dcs) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (lc, cs, min, lmax, ls, dcs);
        tok.unreachable()
    }
}

/// [`best`]. Safety: the CPU has AVX2 and BMI1; `lc` and `cs` hold at least `8 * V` values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1")]
#[inline]
unsafe fn best_avx2<const V: usize>(
    lc: &[u32],
    cs: &[u32],
    min: u32,
    lmax: u32,
    ls: [u32; 4],
    dcs: [u32; 4],
) -> u32 {
    // Lengths stay far below 2^31, so the signed comparisons order them correctly.
    let iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let past = _mm256_set1_epi32(lmax as i32 + 1);
    let none = _mm256_set1_epi32(-1);
    let dcv = dcs.map(|d| _mm256_set1_epi32(d as i32));
    let reach = ls.map(|l| _mm256_set1_epi32(l as i32 + 1));
    let mut m = none;
    for v in 0..V {
        let lens = _mm256_add_epi32(_mm256_set1_epi32((min + 8 * v as u32) as i32), iota);
        // Each lane's distance price: that of the first match reaching it (the blends run from
        // the last match to the first, so the first one's is left).
        let mut dc = dcv[3];
        for k in (0..3).rev() {
            dc = _mm256_blendv_epi8(dc, dcv[k], _mm256_cmpgt_epi32(reach[k], lens));
        }
        // SAFETY: 8 * v + 8 <= 8 * V, which both slices hold (the caller's guarantee).
        let (l, r) = unsafe {
            (
                _mm256_loadu_si256(lc.as_ptr().add(8 * v).cast()),
                _mm256_loadu_si256(cs.as_ptr().add(8 * v).cast()),
            )
        };
        let sum = _mm256_add_epi32(_mm256_add_epi32(l, dc), r);
        m = _mm256_min_epu32(
            m,
            _mm256_blendv_epi8(none, sum, _mm256_cmpgt_epi32(past, lens)),
        );
    }
    m = _mm256_min_epu32(m, _mm256_permute2x128_si256::<0x01>(m, m));
    m = _mm256_min_epu32(m, _mm256_shuffle_epi32::<0x4E>(m));
    m = _mm256_min_epu32(m, _mm256_shuffle_epi32::<0xB1>(m));
    _mm256_cvtsi256_si32(m) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deflate::xorshift;

    /// What [`best`] computes, one length at a time.
    fn reference(
        v: usize,
        lc: &[u32],
        cs: &[u32],
        min: u32,
        lmax: u32,
        ls: [u32; 4],
        dcs: [u32; 4],
    ) -> u32 {
        let mut out = u32::MAX;
        for j in 0..8 * v as u32 {
            let len = min + j;
            if len > lmax {
                break;
            }
            let k = ls.iter().position(|&l| l >= len).expect("reached");
            out = out.min(lc[j as usize] + dcs[k] + cs[j as usize]);
        }
        out
    }

    /// On random prices, with ties (prices from a few values), every reach of the four
    /// matches (some unused, as the parser pads them), and `lmax` inside, at the end of and
    /// past the lanes, the kernel agrees with the reference; with the lengths in the low bits
    /// of their prices, as the parser keeps them, the least sum is the cheapest length, and
    /// the shortest of those on ties.
    #[test]
    fn agrees_with_one_length_at_a_time() {
        let Some(tok) = crate::arch::with_avx2(|t| t) else {
            eprintln!("no AVX2 here: nothing to compare");
            return;
        };
        // The parser's shift (`dp.rs`'s `LEN_FIELD`): lengths below it, prices above.
        const SHIFT: u32 = 9;
        let mut rnd = xorshift(0x9E37_79B9_7F4A_7C15);
        for round in 0..20_000 {
            let spread = [4, 64, 1 << 20][round % 3];
            let min = 3 + (rnd() % 4) as u32;
            let lc: Vec<u32> = (0..32)
                .map(|j| ((rnd() % spread) as u32) << SHIFT | (min + j))
                .collect();
            let cs: Vec<u32> = (0..32)
                .map(|_| ((rnd() % spread) as u32) << SHIFT)
                .collect();
            let k = 1 + (rnd() % 4) as usize;
            let lmax = min + (rnd() % 40) as u32;
            // k ascending lengths ending at lmax; the rest unused (0), as the parser pads.
            let mut ls = [0u32; 4];
            ls[k - 1] = lmax;
            for j in (0..k - 1).rev() {
                ls[j] = ls[j + 1]
                    .saturating_sub(1 + (rnd() % 6) as u32)
                    .max(min - 1);
            }
            let dcs = [0; 4].map(|_: u32| ((rnd() % spread) as u32) << SHIFT);
            for v in [1usize, 2, 4] {
                let got = match v {
                    1 => best::<1>(tok, &lc, &cs, min, lmax, ls, dcs),
                    2 => best::<2>(tok, &lc, &cs, min, lmax, ls, dcs),
                    _ => best::<4>(tok, &lc, &cs, min, lmax, ls, dcs),
                };
                let want = reference(v, &lc, &cs, min, lmax, ls, dcs);
                assert_eq!(got, want, "round {round} V {v}");
            }
        }
    }
}
