//! Block splitting on symbol statistics (the idea of libdeflate's block splitter), for level 1,
//! whose speed cannot pay for choosing blocks by cost (`plan.rs`, levels 2-12).
//!
//! Every 512 symbols or so the splitter compares the distribution of the symbols since its last
//! look, by libdeflate's observation types (a literal's top two bits and lowest bit, a short or
//! a long match), with the distribution of the block so far. Those counts are not kept per
//! symbol: they follow from the symbol counts the block needs anyway (`SymBuf::obs`). When the
//! L1 distance of the normalised histograms, plus a bias that grows by 1/512 per 4 KiB of
//! block (a long block has paid for its header many times over), is large, the data has
//! changed character and one Huffman code would fit both halves badly, so the block ends.
//! Blocks shorter than `MIN_BLOCK_BYTES` are never split so that the stored-block fallback
//! keeps its overhead inside the size bound, and neither is a block with less than
//! `MIN_TAIL_BYTES` of its segment left (libdeflate's rule): a short last block rarely pays
//! for its header.
//!
//! Tuning, L6 ratio on the sample / on the large and Snappy corpora: nibble buckets, threshold
//! 200/1000, no bias (the earlier splitter) 3.858 / 3.355; these buckets, bias and 175: 3.883 /
//! 3.355 (kennedy.xls alone 5.03 -> 5.2, where libdeflate -6 gets 5.17).
//!
//! Seed 000's 1.1-pass mode (one code per 256 KiB job, built from the first 32 KiB's symbol
//! counts) was measured at level 1 and not adopted. Per-file corpus bytes: 3,510,519 with this
//! splitter; 3,531,026 (+0.58%) with a block per 32 Ki symbols (the buffer's size) coded from
//! its own counts; 3,608,392 (+2.79%) with each segment's blocks coded from its first 32
//! KiB's counts, every symbol's count plus one (ptt5 +22%, whose first 32 KiB are zeros, as the
//! seed found; kennedy.xls +27%; text +0.5-1.7%). Level 1 would fall from 3.155 to about
//! 3.07, below libdeflate -1's 3.147. It bought no time either (0.045 s against 0.046 s): the
//! accelerator saves a second pass over the input, which software never makes, since the
//! parse counts the symbols as it records them. What remains to save is the pass over the
//! recorded symbols, which a code known in advance would let the parse write at once: at most
//! `write_syms`' share of level 1 (13%, perf). Reusing the previous block's code saves only
//! its construction (DEFLATE sends the code with every block): at most `build_lengths`' share,
//! 1.7% at level 1 and 3% at level 6.
#![forbid(unsafe_code)]

use super::block::{SymBuf, OBS_TYPES};

/// Symbols between two looks.
pub const WINDOW: u32 = 512;
/// Smallest block (in input bytes) the splitter may end: keeps per-block overhead < 0.1 %.
const MIN_BLOCK_BYTES: usize = 8192;
/// Input left in the segment below which the block runs to the segment's end.
const MIN_TAIL_BYTES: usize = 8192;
/// Split threshold on the scaled L1 distance (out of 2 * window * total); tuned on the corpus.
const THRESHOLD_PERMILLE: u64 = 175;

/// Running histograms of the open block.
#[derive(Default, Clone)]
pub struct Splitter {
    block: [u32; OBS_TYPES],
    block_total: u32,
}

impl Splitter {
    /// Forgets the block statistics.
    pub fn reset(&mut self) {
        self.block = [0; OBS_TYPES];
        self.block_total = 0;
    }

    /// Compares the observations `sb` collected since the last look (at least [`WINDOW`]) with
    /// the block's; returns whether the block should end here. If not, they join the block's.
    pub fn should_split(&mut self, sb: &mut SymBuf, block_bytes: usize, rest: usize) -> bool {
        let recent = sb.obs();
        let w = sb.obs_total() as u64;
        let mut split = false;
        if self.block_total >= 2 * WINDOW
            && block_bytes >= MIN_BLOCK_BYTES
            && rest >= MIN_TAIL_BYTES
        {
            let t = self.block_total as u64;
            let dist: u64 = (0..OBS_TYPES)
                .map(|i| (recent[i] as u64 * t).abs_diff(self.block[i] as u64 * w))
                .sum();
            let bias = (block_bytes as u64 / 4096) * t * 1000;
            split = dist * 1000 + bias > THRESHOLD_PERMILLE * 2 * w * t;
        }
        if !split {
            for (b, r) in self.block.iter_mut().zip(recent) {
                *b += r;
            }
            self.block_total += sb.obs_total();
            sb.look();
        }
        split
    }
}
