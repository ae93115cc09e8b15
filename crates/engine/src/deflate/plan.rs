//! Block boundaries chosen by exact cost, for the near-optimal tier.
//!
//! The parser records a whole segment's symbols without ending a block, and snapshots the
//! running symbol counts every `GRID` input bytes (at the first symbol boundary past each
//! multiple). The counts of any stretch between two snapshots are then a subtraction away, and
//! the encoder prices that stretch exactly as a block (header, code-length RLE, symbols, extra
//! bits; the cheapest of dynamic, fixed and stored). Starting from one block per stretch, the
//! two neighbours whose merge saves the most bits are merged, again and again, until no merge
//! saves anything. Each merge prices two new pairs, so a segment costs about three block
//! pricings per stretch, not the square of the stretch count a dynamic program over all
//! boundaries would.
//!
//! The statistics splitter (`split.rs`) decides on the fly from symbol-class histograms and
//! cannot see the header a split pays for; with prices at hand the near-optimal parse can
//! afford the exact answer. Corpus / sample ratio at level 10: 3.666 / 4.152 with the
//! statistics splitter, 3.674 / 4.160 with exact merging on a 4 KiB grid (a dynamic program
//! over the same boundaries found the same ratio at five times the pricings).
#![forbid(unsafe_code)]

use super::block::{BlockCodes, Encoder, SymBuf};
use std::ops::Range;

/// Input bytes between two candidate block boundaries.
pub const GRID: usize = 4096;

/// A candidate boundary: the symbol index and input position where it falls, and the counts
/// of all symbols before it in the segment.
#[derive(Clone)]
struct Point {
    sym: usize,
    pos: usize,
    lf: [u32; 286],
    df: [u32; 30],
}

/// A chosen block: its symbols (indices into the segment's), its input bytes and its symbol
/// counts (the end-of-block symbol counted).
pub struct Block {
    pub syms: Range<usize>,
    pub bytes: Range<usize>,
    pub lf: [u32; 288],
    pub df: [u32; 30],
}

/// The snapshots of the segment being parsed.
#[derive(Clone, Default)]
pub struct Plan {
    points: Vec<Point>,
    /// Input position at or past which the next snapshot is taken.
    pub next: usize,
    start: usize,
}

impl Plan {
    /// Starts a segment at input position `start` with no symbols recorded.
    pub fn begin(&mut self, start: usize) {
        self.points.clear();
        self.points.push(Point {
            sym: 0,
            pos: start,
            lf: [0; 286],
            df: [0; 30],
        });
        self.start = start;
        self.next = start + GRID;
    }

    /// Snapshots `sb` (the segment's symbols so far) as a boundary at input position `pos`.
    #[cold]
    #[inline(never)]
    pub fn mark(&mut self, sb: &SymBuf, pos: usize) {
        self.points.push(Point {
            sym: sb.syms.len(),
            pos,
            lf: sb.lit_freq[..286].try_into().unwrap(),
            df: sb.dist_freq,
        });
        self.next = pos + GRID - (pos - self.start) % GRID;
    }

    /// The block from point `a` to point `b`.
    fn block(&self, a: usize, b: usize) -> Block {
        let (a, b) = (&self.points[a], &self.points[b]);
        let mut lf = [0u32; 288];
        let mut df = [0u32; 30];
        for (f, (x, y)) in lf.iter_mut().zip(a.lf.iter().zip(&b.lf)) {
            *f = y - x;
        }
        for (f, (x, y)) in df.iter_mut().zip(a.df.iter().zip(&b.df)) {
            *f = y - x;
        }
        lf[256] = 1;
        Block {
            syms: a.sym..b.sym,
            bytes: a.pos..b.pos,
            lf,
            df,
        }
    }

    /// Chooses the blocks of the segment ending at input position `end`, `sb` holding all its
    /// symbols (recorded since [`Plan::begin`]). Returns them in order.
    pub fn choose(
        &mut self,
        sb: &SymBuf,
        end: usize,
        enc: &mut Encoder,
        codes: BlockCodes,
    ) -> Vec<Block> {
        if self.points.last().map(|p| p.pos) != Some(end) {
            self.mark(sb, end);
        }
        let price = |enc: &mut Encoder, a: usize, b: usize| -> u64 {
            let k = self.block(a, b);
            enc.cost(&k.lf, &k.df, k.bytes.len(), codes)
        };
        // Block k runs from point bounds[k] to bounds[k + 1] and costs cost[k]; joined[k] is
        // the cost of blocks k and k + 1 as one.
        let m = self.points.len();
        let mut bounds: Vec<usize> = (0..m).collect();
        let mut cost: Vec<u64> = (1..m).map(|j| price(enc, j - 1, j)).collect();
        let mut joined: Vec<u64> = (2..m).map(|j| price(enc, j - 2, j)).collect();
        loop {
            // The merge that saves the most bits (the first on ties).
            let mut best: Option<(usize, u64)> = None;
            for (k, &j) in joined.iter().enumerate() {
                let apart = cost[k] + cost[k + 1];
                if j < apart && best.is_none_or(|(_, s)| apart - j > s) {
                    best = Some((k, apart - j));
                }
            }
            let Some((k, _)) = best else { break };
            cost[k] = joined[k];
            cost.remove(k + 1);
            bounds.remove(k + 1);
            joined.remove(k);
            if k > 0 {
                joined[k - 1] = price(enc, bounds[k - 1], bounds[k + 1]);
            }
            if k < joined.len() {
                joined[k] = price(enc, bounds[k], bounds[k + 2]);
            }
        }
        bounds.windows(2).map(|w| self.block(w[0], w[1])).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::matchfind::xorshift;
    use super::*;

    /// Records `data` as literals with a match of length 5 at every 7th byte, as a planning
    /// parser would, and chooses its blocks.
    fn plan_for(data: &[u8]) -> Vec<Block> {
        let (mut sb, mut plan) = (SymBuf::default(), Plan::default());
        plan.begin(0);
        let mut p = 0;
        while p < data.len() {
            if p % 7 == 6 && p + 5 <= data.len() {
                sb.matched(5, 1 + (p as u32 % 300));
                p += 5;
            } else {
                sb.lit(data[p]);
                p += 1;
            }
            if p >= plan.next {
                plan.mark(&sb, p);
            }
        }
        plan.choose(&sb, data.len(), &mut Encoder::default(), BlockCodes::Any)
    }

    /// Blocks tile the segment of `len` bytes.
    fn check_tiling(blocks: &[Block], len: usize) {
        assert_eq!(blocks.first().unwrap().bytes.start, 0);
        assert_eq!(blocks.last().unwrap().bytes.end, len);
        for w in blocks.windows(2) {
            assert_eq!(w[0].bytes.end, w[1].bytes.start);
            assert_eq!(w[0].syms.end, w[1].syms.start);
        }
    }

    /// Bits of the chosen blocks, and of the whole segment as one block.
    fn split_and_whole(blocks: &[Block]) -> (u64, u64) {
        let mut enc = Encoder::default();
        let (mut lf, mut df) = ([0u32; 288], [0u32; 30]);
        let mut split = 0;
        for b in blocks {
            split += enc.cost(&b.lf, &b.df, b.bytes.len(), BlockCodes::Any);
            lf.iter_mut().zip(&b.lf).for_each(|(t, x)| *t += x);
            df.iter_mut().zip(&b.df).for_each(|(t, x)| *t += x);
        }
        lf[256] = 1;
        let len = blocks.last().unwrap().bytes.end;
        (split, enc.cost(&lf, &df, len, BlockCodes::Any))
    }

    #[test]
    fn a_change_of_statistics_gets_a_boundary() {
        let mut rnd = xorshift(7);
        // 40 KB over 8 letters, then 40 KB over 8 other bytes, then the letters again.
        let mut data: Vec<u8> = (0..40_000)
            .map(|_| b"abcdefgh"[rnd() as usize % 8])
            .collect();
        data.extend((0..40_000).map(|_| 0x80 + (rnd() % 8) as u8));
        data.extend((0..40_000).map(|_| b"abcdefgh"[rnd() as usize % 8]));
        let blocks = plan_for(&data);
        check_tiling(&blocks, data.len());
        // Each change is within a grid step of a block end (the step holding a change may
        // become a block of its own), and the blocks are few.
        let ends: Vec<usize> = blocks.iter().map(|b| b.bytes.end).collect();
        for change in [40_000, 80_000] {
            assert!(ends.iter().any(|e| e.abs_diff(change) < GRID), "{ends:?}");
        }
        assert!(ends.len() <= 5, "{ends:?}");
        // One code for both alphabets costs about a bit per literal more (of some 65,000).
        let (split, whole) = split_and_whole(&blocks);
        assert!(split + 20_000 < whole, "{split} {whole}");
    }

    #[test]
    fn uniform_data_is_not_cut_at_a_loss() {
        let mut rnd = xorshift(11);
        let data: Vec<u8> = (0..100_000)
            .map(|_| b"abcdefgh"[rnd() as usize % 8])
            .collect();
        let blocks = plan_for(&data);
        check_tiling(&blocks, data.len());
        // A cut may pay where the Huffman lengths round differently (here it saves 11 bits),
        // never cost.
        assert!(blocks.len() <= 2);
        let (split, whole) = split_and_whole(&blocks);
        assert!(split <= whole, "{split} {whole}");
    }

    #[test]
    fn block_counts_match_their_symbols() {
        let mut rnd = xorshift(3);
        let mut data: Vec<u8> = Vec::new();
        for k in 0..12 {
            let base = if k % 2 == 0 { b'a' } else { 0x90 };
            data.extend((0..5_000 + 997 * k).map(|_| base + (rnd() % (4 + k as u64)) as u8));
        }
        let (mut sb, mut plan) = (SymBuf::default(), Plan::default());
        plan.begin(0);
        for (p, &b) in data.iter().enumerate() {
            sb.lit(b);
            if p + 1 >= plan.next {
                plan.mark(&sb, p + 1);
            }
        }
        let blocks = plan.choose(&sb, data.len(), &mut Encoder::default(), BlockCodes::Any);
        check_tiling(&blocks, data.len());
        assert!(blocks.len() > 2);
        for b in &blocks {
            let mut lf = [0u32; 288];
            for &s in &sb.syms[b.syms.clone()] {
                lf[s as usize] += 1;
            }
            lf[256] = 1;
            assert_eq!(lf, b.lf);
            assert_eq!(b.syms.len(), b.bytes.len());
        }
    }
}
