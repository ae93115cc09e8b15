//! The per-stream compression context every strategy works on: the resolved level row, the bit
//! writer, the symbol buffer with the start of the open block, and the block encoder. A
//! strategy parses `buf[start..]` (with `buf[..start]` as history) and calls [`Ctx::sym_done`]
//! after each symbol so blocks end when the symbol buffer is full or the statistics shift, or,
//! at levels with a grid, so the plan (`plan.rs`) snapshots its counts.
#![forbid(unsafe_code)]

use super::bitwriter::BitWriter;
use super::block::{BlockCodes, Encoder, SymBuf};
use super::bt::Bt;
use super::matchfind::{Chains, SmallChains};
use super::plan::Plan;
use super::split::Splitter;
use super::strategy::dp::Parse;
use super::strategy::prices::Costs;
use super::LevelRow;

/// How a segment's match finder was keyed, which a segment that continues it must keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finder {
    /// Level 1's table: keyed by five bytes or four, positions stored plus `base`.
    Fast { key5: bool, base: u32 },
    /// The full-size hash chains: five-byte or four-byte keys, with or without a short head.
    Chains { long: bool, short: bool },
}

/// The match-finder state a segment left for the next one (see [`Ctx::keep`]): how it is
/// keyed, and the length of the buffer whose positions it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Carry {
    pub finder: Finder,
    pub end: usize,
}

/// Compression state shared by the strategies.
#[derive(Clone)]
pub struct Ctx {
    /// The level's strategy and search parameters.
    pub row: LevelRow,
    /// Output bits.
    pub w: BitWriter,
    /// Symbols of the open block.
    pub sb: SymBuf,
    /// Position in the segment buffer where the open block starts.
    pub block_start: usize,
    /// Symbols per block before it must end (from memLevel); a planned segment chooses its
    /// blocks so far once it holds four times as many.
    pub max_syms: usize,
    /// Largest distance a match may have (the window size).
    pub max_dist: usize,
    /// Huffman-code restriction (Z_FIXED).
    pub codes: BlockCodes,
    /// Minimum match length (6 for Z_FILTERED, else 3).
    pub min_match: usize,
    /// Hash chains (greedy and lazy tiers), allocated on first use.
    pub chains: Option<Chains>,
    /// Hash chains for short segments, allocated on first use.
    pub small_chains: Option<SmallChains>,
    /// Binary trees (near-optimal tier), allocated on first use.
    pub bt: Option<Bt>,
    /// The near-optimal tier's symbol prices from the last window it parsed, the next
    /// window's starting point; cleared at the start of every stream ([`Ctx::start_stream`]).
    pub costs: Option<Costs>,
    /// The near-optimal tier's parse arrays (256 KiB), allocated on first use and kept, as
    /// the trees are: allocating them per call made level 10 2.9x slower on 1 KB inputs.
    pub parse: Option<Parse>,
    /// A second parse of a window, from other prices (`strategy/optimal.rs`), allocated when
    /// first needed.
    pub alt_parse: Option<Parse>,
    /// Two-way hash table of the fastest tier, allocated on first use.
    pub table: super::strategy::fast::Table,
    /// log2 of the hash-chain bucket count (from memLevel).
    pub hash_bits: u32,
    /// log2 of the window size.
    pub window_bits: u8,
    /// Set by the caller for the next segment: leave the match finder's state in `carry`, so
    /// a following segment of the same buffer (the same bytes at the same positions, more
    /// after them) can go on from it instead of hashing its history again. The streaming
    /// compressor sets it for segments ended by a flush (`stream.rs`). Level 1 and the hash
    /// chains (at full size) leave a state; the other parsers leave none.
    pub keep: bool,
    /// The state the last segment left, if `keep` was set and its parser can.
    pub carry: Option<Carry>,
    /// The state this segment goes on from: `carry`, taken when the segment starts where it
    /// ended (set by [`Ctx::begin`]; a parser that uses it takes it).
    pub resume: Option<Finder>,
    enc: Encoder,
    split: Splitter,
    plan: Plan,
    /// The open segment's blocks are chosen by cost (`plan.rs`, the row's `grid`). Set per
    /// segment from `row.grid`; testing the grid itself in `sym_done` made level 2 2% and
    /// level 6 1.5% slower (three interleaved runs each).
    planned: bool,
}

impl Ctx {
    /// A context for `row` with a window of `1 << window_bits` and `mem_level` sized buffers.
    pub fn new(row: LevelRow, window_bits: u8, mem_level: u8) -> Ctx {
        Ctx {
            row,
            w: BitWriter::default(),
            sb: SymBuf::default(),
            block_start: 0,
            max_syms: (1usize << (mem_level as u32 + 6)).max(16384),
            max_dist: 1usize << window_bits,
            codes: BlockCodes::Any,
            min_match: 3,
            chains: None,
            small_chains: None,
            bt: None,
            costs: None,
            parse: None,
            alt_parse: None,
            table: Default::default(),
            hash_bits: (mem_level as u32 + 7).clamp(10, 16),
            window_bits,
            keep: false,
            carry: None,
            resume: None,
            enc: Encoder::default(),
            split: Splitter::default(),
            plan: Plan::default(),
            planned: false,
        }
    }

    /// Called by a strategy after recording symbols up to (not including) `pos`: ends the
    /// block there if it is full or the splitter sees a change of statistics; in a planned
    /// segment, snapshots the counts at each grid step instead.
    #[inline(always)]
    pub fn sym_done(&mut self, buf: &[u8], pos: usize) {
        if self.planned {
            if pos >= self.plan.next {
                self.grid_step(buf, pos);
            }
            return;
        }
        if self.sb.syms.len() >= self.max_syms
            || (self.sb.obs_total() >= super::split::WINDOW
                && self
                    .split
                    .should_split(&mut self.sb, pos - self.block_start, buf.len() - pos))
        {
            self.end_block(buf, pos, false);
        }
    }

    /// A planned segment's parse reached the grid step at `pos`: snapshots the counts.
    #[cold]
    #[inline(never)]
    fn grid_step(&mut self, buf: &[u8], pos: usize) {
        self.plan.mark(&self.sb, pos);
        // The plan's symbols are bounded: at four symbol buffers (zlib's lit_bufsize, from
        // memLevel) the blocks so far are chosen and written.
        if self.sb.syms.len() >= 4 * self.max_syms {
            self.write_planned(buf, pos);
            // The block kept open is one stretch of the plan that goes on.
            self.plan.restart(&self.sb, self.block_start, pos);
        }
    }

    /// In a planned segment, chooses the blocks of `buf[block_start..]` and writes all but
    /// the last, which stays open for [`Ctx::end_block`].
    pub fn end_planned(&mut self, buf: &[u8]) {
        if self.planned {
            self.write_planned(buf, buf.len());
        }
    }

    /// Chooses the blocks of `buf[block_start..end]` (`plan.rs`) and writes all but the last,
    /// which stays open.
    fn write_planned(&mut self, buf: &[u8], end: usize) {
        if self.plan.is_one_block(end) {
            // The open block is the plan (no allocation for a short segment).
            return;
        }
        let mut blocks = self.plan.choose(&self.sb, end, &mut self.enc, self.codes);
        let Some(last) = blocks.pop() else {
            return;
        };
        for k in &blocks {
            self.enc.write_range(
                &mut self.w,
                &self.sb.syms[k.syms.clone()],
                &k.lf,
                &k.df,
                &buf[k.bytes.clone()],
                false,
                self.codes,
            );
        }
        self.sb.keep(last.syms.start, &last.lf, &last.df);
        self.block_start = last.bytes.start;
    }

    /// Writes the open block covering `buf[block_start..pos]`.
    pub fn end_block(&mut self, buf: &[u8], pos: usize, last: bool) {
        let raw = &buf[self.block_start..pos];
        self.enc
            .write_block(&mut self.w, &mut self.sb, raw, last, self.codes);
        self.block_start = pos;
        self.split.reset();
    }

    /// New hash chains for this stream's window and memory level.
    pub fn new_chains<const H: usize, const P: usize, const Q: usize>(&self) -> Chains<H, P, Q> {
        Chains::new(self.window_bits, self.hash_bits)
    }

    /// Starts a stream: empties the bit writer and forgets the previous stream's symbol
    /// prices, so a stream's bytes never depend on what the context compressed before.
    pub fn start_stream(&mut self) {
        self.w.clear();
        self.costs = None;
        self.carry = None;
    }

    /// The caller dropped the first `by` bytes (a multiple of the window) of the buffer the
    /// carried state holds: moves the state's positions down with them. Returns false, and
    /// drops the state, if it cannot move (level 1's positions would run out of room).
    pub fn slide(&mut self, by: usize) -> bool {
        let Some(c) = self.carry.as_mut() else {
            return false;
        };
        let moved = match &mut c.finder {
            // Level 1 stores position + base: the same entries with a base `by` higher.
            Finder::Fast { base, .. } => match base.checked_add(by as u32) {
                Some(b) if self.table.resume(b, c.end - by, self.max_dist) => {
                    *base = b;
                    true
                }
                _ => false,
            },
            Finder::Chains { .. } => match self.chains.as_mut() {
                Some(ch) => {
                    ch.slide(by);
                    true
                }
                None => false,
            },
        };
        if moved {
            c.end -= by;
        } else {
            self.carry = None;
        }
        moved
    }

    /// Starts a segment at `start` with no open symbols, going on from the carried state if
    /// the last segment ended there.
    pub fn begin(&mut self, start: usize) {
        self.resume = self
            .carry
            .take()
            .filter(|c| c.end == start)
            .map(|c| c.finder);
        self.sb.clear();
        self.block_start = start;
        self.split.reset();
        self.planned = self.row.grid != 0;
        if self.planned {
            self.plan.begin(start, self.row.grid as usize);
        }
    }
}
