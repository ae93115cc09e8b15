//! Block boundaries chosen by cost.
//!
//! The parser records a segment's symbols without ending a block, and snapshots the running
//! symbol counts every `grid` input bytes (at the first symbol boundary past each multiple; the
//! level row's `grid`). The counts of any stretch between two snapshots are then a subtraction
//! away. Starting from one block per stretch, the two neighbours whose merge saves the most
//! bits are merged, again and again, until no merge saves anything; each merge prices two new
//! pairs, so a segment costs about three pricings per stretch, not the square of the stretch
//! count a dynamic program over all boundaries would.
//!
//! Merging runs twice. First by an estimate (the symbols' entropy plus 4.5 bits of header per
//! symbol used), while a merge saves more than `MARGIN` bits: it does most merges, at a few
//! times less cost each. Then by the encoder's exact price (header, code-length RLE, symbols,
//! extra bits; the cheapest of dynamic, fixed and stored) over the blocks left. Last, a short
//! block that would be stored is joined to a neighbour ([`Blocks::settle`]).
//!
//! The statistics splitter (`split.rs`) decides on the fly from symbol-class histograms and
//! cannot see what a split costs in header or saves in code fit. Corpus / sample ratio at
//! MB/s, statistics splitter -> this (grid), in interleaved runs:
//! - level 2 (8 KiB): 3.304 / 3.745 at 130 / 144 -> 3.318 / 3.797 at 122 / 127;
//! - level 6 (8 KiB): 3.473 / 3.953 at 78.8 / 84.2 -> 3.480 / 3.963 at 76.5 / 80.1;
//! - level 10 (2 KiB): 3.666 / 4.152 at 10.4 / 12.0 -> 3.674 / 4.161 at 10.2 / 11.9.
//!
//! Exact pricing alone, on a 4 KiB grid, gave the same ratios, at level 6 at 59 MB/s (75 with
//! the estimate first); the estimate alone lost most of the gain (level 6 corpus 3.474). A
//! dynamic program over all boundaries, exact, found the same ratio as merging at five times
//! the pricings. Level 1 keeps the statistics splitter: on an 8 KiB grid it would gain 0.5%
//! of ratio (3.085 -> 3.099 on the corpus) but lose 9% of its speed (14% on the sample).
#![forbid(unsafe_code)]

use super::block::{BlockCodes, Encoder, SymBuf};
use super::huffman::log2_x16;
use std::ops::Range;

/// The estimate's merges stop where they would save this many bits or fewer; exact pricing
/// decides the rest. Level 6 corpus / sample with 0 / 30 / 100 / 1000 bits and a 4 KiB grid:
/// 3.480 / 3.966, 3.481 / 3.967 (twice the speed of exact pricing alone), 3.481 / 3.967 and
/// 3.481 / 3.969 (no faster than exact alone).
const MARGIN: u64 = 30;
/// Blocks shorter than this may not compress to more than their size (see [`Blocks::settle`]).
const MIN_STORED_BYTES: usize = 8192;
/// The estimate's header bits per symbol used, in 1/16 bits (3, 4.5 and 6 bits gave the same
/// ratio within 0.03%; 4.5 was fastest).
const HDR_PER_SYM: u64 = 72;

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
    /// The snapshots; none until the first grid step (a segment shorter than the grid is one
    /// block and allocates nothing), then the first block's start and each step.
    points: Vec<Point>,
    /// Input position at or past which the next snapshot is taken.
    pub next: usize,
    /// Where the grid starts (the segment's start), and its step.
    origin: usize,
    grid: usize,
    /// Where the first block starts: the segment's start, or after [`Plan::restart`] the
    /// start of the block kept open.
    from: usize,
}

impl Plan {
    /// Starts a segment at input position `start` with no symbols recorded and candidate
    /// boundaries every `grid` bytes.
    pub fn begin(&mut self, start: usize, grid: usize) {
        self.points.clear();
        self.origin = start;
        self.from = start;
        self.grid = grid;
        self.next = start + grid;
    }

    /// Goes on after [`Plan::choose`] wrote all blocks but the last, which starts at input
    /// position `from` and now holds all of `sb`'s symbols, up to `pos`: that block is one
    /// stretch (it may still merge with what follows).
    pub fn restart(&mut self, sb: &SymBuf, from: usize, pos: usize) {
        self.points.clear();
        self.from = from;
        if pos > from {
            self.mark(sb, pos);
        }
    }

    /// Snapshots `sb` (the segment's symbols so far) as a boundary at input position `pos`.
    pub fn mark(&mut self, sb: &SymBuf, pos: usize) {
        if self.points.is_empty() {
            self.points.push(Point {
                sym: 0,
                pos: self.from,
                lf: [0; 286],
                df: [0; 30],
            });
        }
        self.points.push(Point {
            sym: sb.syms.len(),
            pos,
            lf: sb.lit_freq[..286].try_into().unwrap(),
            df: sb.dist_freq,
        });
        self.next = pos + self.grid - (pos - self.origin) % self.grid;
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

    /// Estimated bits of the block from point `a` to point `b`: the symbols' entropy (extra
    /// bits left out: merging does not change them), [`HDR_PER_SYM`] per symbol used and 40.
    fn estimate(&self, a: usize, b: usize) -> u64 {
        let (a, b) = (&self.points[a], &self.points[b]);
        let part = |x: &[u32], y: &[u32]| -> u64 {
            let (mut t, mut sum, mut used) = (0u64, 0u64, 0u64);
            for (&y, &x) in y.iter().zip(x) {
                let f = y - x;
                t += f as u64;
                sum += flog(f);
                used += (f != 0) as u64;
            }
            if t == 0 {
                return 0;
            }
            flog(t as u32) - sum + used * HDR_PER_SYM
        };
        (part(&a.lf, &b.lf) + part(&a.df, &b.df)) / 16 + 40
    }

    /// Whether the segment up to input position `end` is one stretch, so one block.
    pub fn is_one_block(&self, end: usize) -> bool {
        match self.points.len() {
            0 => true,
            2 => self.points[1].pos == end,
            _ => false,
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
        let mut estimate = |a, b| self.estimate(a, b);
        let mut rough = Blocks::new((0..self.points.len()).collect(), &mut estimate);
        rough.merge(&mut estimate, MARGIN);
        let mut exact = |a, b| {
            let k = self.block(a, b);
            enc.cost(&k.lf, &k.df, k.bytes.len(), codes)
        };
        let mut blocks = Blocks::new(rough.bounds, &mut exact);
        blocks.merge(&mut exact, 0);
        let pts = &self.points;
        blocks.settle(&mut exact, |a, b| pts[b].pos - pts[a].pos, MIN_STORED_BYTES);
        blocks
            .bounds
            .windows(2)
            .map(|w| self.block(w[0], w[1]))
            .collect()
    }
}

/// f log2(f) in 1/16 bits for f below 4096.
static FLOG: [u32; 4096] = {
    let mut t = [0u32; 4096];
    let mut f = 1;
    while f < 4096 {
        t[f] = f as u32 * log2_x16(f as u32);
        f += 1;
    }
    t
};

/// f log2(f) in 1/16 bits.
#[inline(always)]
fn flog(f: u32) -> u64 {
    match FLOG.get(f as usize) {
        Some(&v) => v as u64,
        None => f as u64 * log2_x16(f) as u64,
    }
}

/// Blocks between points: block k runs from point `bounds[k]` to `bounds[k + 1]` and costs
/// `cost[k]`; `joined[k]` is the cost of blocks k and k + 1 as one.
struct Blocks {
    bounds: Vec<usize>,
    cost: Vec<u64>,
    joined: Vec<u64>,
}

impl Blocks {
    /// Prices the blocks between `bounds`.
    fn new(bounds: Vec<usize>, price: &mut impl FnMut(usize, usize) -> u64) -> Blocks {
        let cost = bounds.windows(2).map(|w| price(w[0], w[1])).collect();
        let joined = bounds.windows(3).map(|w| price(w[0], w[2])).collect();
        Blocks {
            bounds,
            cost,
            joined,
        }
    }

    /// Joins blocks k and k + 1 and prices the new pairs.
    fn join(&mut self, k: usize, price: &mut impl FnMut(usize, usize) -> u64) {
        let b = &mut self.bounds;
        self.cost[k] = self.joined[k];
        self.cost.remove(k + 1);
        b.remove(k + 1);
        self.joined.remove(k);
        if k > 0 {
            self.joined[k - 1] = price(b[k - 1], b[k + 1]);
        }
        if k < self.joined.len() {
            self.joined[k] = price(b[k], b[k + 2]);
        }
    }

    /// Joins neighbours, the pair whose join saves the most bits first (the first on ties),
    /// while a join saves more than `margin`.
    fn merge(&mut self, price: &mut impl FnMut(usize, usize) -> u64, margin: u64) {
        loop {
            let mut best: Option<(usize, u64)> = None;
            for (k, &j) in self.joined.iter().enumerate() {
                let apart = self.cost[k] + self.cost[k + 1];
                if j.saturating_add(margin) < apart && best.is_none_or(|(_, s)| apart - j > s) {
                    best = Some((k, apart - j));
                }
            }
            let Some((k, _)) = best else { break };
            self.join(k, price);
        }
    }

    /// Joins every block shorter than `min_bytes` (`bytes(a, b)` is the length from point a
    /// to point b) that compresses to more bits than its bytes (so it would be stored, at 5
    /// bytes of overhead) to the neighbour it costs less to join, until there is none. Then
    /// only blocks of `min_bytes` or more carry overhead over their size, which is what
    /// [`crate::deflate::compress_bound`] counts on.
    fn settle(
        &mut self,
        price: &mut impl FnMut(usize, usize) -> u64,
        bytes: impl Fn(usize, usize) -> usize,
        min_bytes: usize,
    ) {
        while self.cost.len() > 1 {
            let b = &self.bounds;
            let Some(k) = (0..self.cost.len()).find(|&k| {
                let n = bytes(b[k], b[k + 1]);
                n < min_bytes && self.cost[k] > 8 * n as u64
            }) else {
                break;
            };
            // The extra cost of joining with the left and with the right neighbour.
            let extra = |j: usize| self.joined[j] as i64 - (self.cost[j] + self.cost[j + 1]) as i64;
            let k = if k == 0 {
                0
            } else if k == self.joined.len() || extra(k - 1) <= extra(k) {
                k - 1
            } else {
                k
            };
            self.join(k, price);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::bytes::xorshift;
    use super::*;
    use crate::deflate::block::sym_literal;

    const GRID: usize = 4096;

    /// Records `data` as literals with a match of length 5 at every 7th byte, as a planning
    /// parser would, and chooses its blocks.
    fn plan_for(data: &[u8]) -> Vec<Block> {
        let (mut sb, mut plan) = (SymBuf::default(), Plan::default());
        plan.begin(0, GRID);
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

    /// Short incompressible stretches between compressible ones would each be a stored block
    /// of their own (5 bytes of overhead per 2 KiB, over the size bound's budget): they must
    /// be joined until every block that costs more than its bytes is 8 KiB or longer.
    #[test]
    fn short_blocks_never_cost_more_than_their_bytes() {
        let mut rnd = xorshift(5);
        let mut data: Vec<u8> = Vec::new();
        for _ in 0..30 {
            data.extend((0..2048).map(|_| b"abcdefgh"[rnd() as usize % 8]));
            data.extend((0..2048).map(|_| rnd() as u8));
        }
        let (mut sb, mut plan) = (SymBuf::default(), Plan::default());
        plan.begin(0, 2048);
        for (p, &b) in data.iter().enumerate() {
            sb.lit(b);
            if p + 1 >= plan.next {
                plan.mark(&sb, p + 1);
            }
        }
        let mut enc = Encoder::default();
        let blocks = plan.choose(&sb, data.len(), &mut enc, BlockCodes::Any);
        check_tiling(&blocks, data.len());
        assert!(blocks.len() > 2);
        for b in &blocks {
            let bits = enc.cost(&b.lf, &b.df, b.bytes.len(), BlockCodes::Any);
            let n = b.bytes.len();
            assert!(
                n >= MIN_STORED_BYTES || bits <= 8 * n as u64,
                "{:?}",
                b.bytes
            );
        }
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
        plan.begin(0, GRID);
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
                lf[sym_literal(s).expect("literals only") as usize] += 1;
            }
            lf[256] = 1;
            assert_eq!(lf, b.lf);
            assert_eq!(b.syms.len(), b.bytes.len());
        }
    }
}
