//! DEFLATE encoding (RFC 1951) with the raw, zlib and gzip containers.
//!
//! Levels 0-12 each resolve once to a row of [`LEVELS`]: a parser (stored; the two-way
//! hash-table greedy parser at level 1; greedy hash chains at 2-3; lazy hash chains at 4 and
//! lazy2 (two positions of look-ahead) at 5-9; binary trees with an iterated cost-model dynamic
//! program at 10-12) and its parameters. Input is cut into segments of [`SEGMENT`] bytes
//! ([`OPTIMAL_SEGMENT`] at levels 10-12) at fixed stream offsets; each segment is parsed with
//! the preceding window as history and ends its last block, so the compressed bytes depend only
//! on the data (and the flush points the caller asked for), never on how the input was split
//! into calls. Blocks are emitted as the cheapest of stored, fixed and dynamic Huffman by exact
//! cost (see `block.rs`). At levels 2-12 the block boundaries are chosen by cost once a segment
//! is parsed (`plan.rs`); at level 1 a block ends when the symbol buffer fills or the
//! statistics shift (`split.rs`).
#![forbid(unsafe_code)]

mod bitwriter;
mod block;
mod bound;
mod bt;
mod bytes;
mod container;
mod ctx;
pub(crate) mod huffman;
mod matchfind;
/// The tests' generator, for the tests outside this module (`lanes.rs`); those inside import
/// it from `bytes`.
#[cfg(test)]
pub(crate) use bytes::xorshift;
mod minlen;
mod plan;
mod split;
mod strategy;
mod stream;
mod tables;

pub use container::{gzip_header, gzip_xfl};
pub use stream::Deflater;

use crate::checksum::{adler32, crc32};
use crate::format::{Format, GzipHeader};
use ctx::Ctx;

/// Bytes per segment: the unit of deterministic parsing (history = the preceding window).
/// 256 KiB keeps a streaming compressor's buffer small while re-hashing the 32 KiB history
/// costs at most an eighth more insertions.
pub const SEGMENT: usize = 256 * 1024;

/// Bytes per segment at the near-optimal levels (10-12). Their binary trees insert each
/// history position with a full search, so the history's eighth is an eighth more search
/// there; at 1 MiB it is a thirty-second. Per-file corpus, levels 10 / 11 / 12, interleaved
/// runs: 1-3% faster, ratio 3.6746 / 3.6851 / 3.6890 -> 3.6758 / 3.6863 / 3.6906 (fewer
/// segment ends). 4 MiB was no faster, and level 11 fell to 3.6848. The zlib API's levels stop
/// at 9, so its streams keep the small buffer.
pub const OPTIMAL_SEGMENT: usize = 1024 * 1024;

/// zlib's compression strategies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Normal LZ77 + Huffman.
    Default,
    /// Drop matches shorter than 6 (data with small random variations).
    Filtered,
    /// Literals only.
    HuffmanOnly,
    /// Distance-1 matches only.
    Rle,
    /// Fixed Huffman codes only (stored blocks still allowed).
    Fixed,
}

impl Strategy {
    /// Every strategy, in zlib's numbering order (0-4).
    pub const ALL: [Strategy; 5] = [
        Strategy::Default,
        Strategy::Filtered,
        Strategy::HuffmanOnly,
        Strategy::Rle,
        Strategy::Fixed,
    ];
}

/// zlib's flush modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Flush {
    /// Buffer as much as useful.
    None,
    /// Emit pending data, then an empty fixed block (10 bits).
    Partial,
    /// Emit pending data, then an empty stored block: output is byte aligned.
    Sync,
    /// Like `Sync`, and forget the history so decoding can restart here.
    Full,
    /// Complete the current block without alignment.
    Block,
    /// Finish the stream (final block, trailer).
    Finish,
}

impl Flush {
    /// zlib's RANK(): orders flushes by strength (Block sits between None and Partial); a
    /// repeated flush no stronger than the last one, with no new input, makes no progress.
    pub fn rank(self) -> i32 {
        match self {
            Flush::None => 0,
            Flush::Block => 1,
            Flush::Partial => 2,
            Flush::Sync => 4,
            Flush::Full => 6,
            Flush::Finish => 8,
        }
    }
}

/// Compression parameters (zlib's deflateInit2 arguments).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// 0 (stored) ..= 12 (smallest output).
    pub level: u32,
    /// zlib strategy.
    pub strategy: Strategy,
    /// log2 of the window, 9..=15.
    pub window_bits: u8,
    /// Memory level 1..=9: hash-table and block-buffer size. The default is 9, not zlib's 8:
    /// 2^16 hash buckets instead of 2^15 shorten the chains (L6 +1% on the corpus, +1.5-3.5%
    /// on a tar of /usr, ratio +0.05%) for 128 KiB more table. The zlib API passes the
    /// caller's memory level, so a zlib stream keeps zlib's footprint.
    pub mem_level: u8,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            level: 6,
            strategy: Strategy::Default,
            window_bits: 15,
            mem_level: 9,
        }
    }
}

/// Result of one [`Deflater::deflate`] call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeflateStatus {
    /// Input bytes taken.
    pub consumed: usize,
    /// Output bytes written.
    pub produced: usize,
    /// `Finish` completed: the whole stream, trailer included, has been written.
    pub done: bool,
}

/// Compression errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeflateError {
    /// A parameter is out of range (level, window bits, memory level, prime bits).
    BadParams,
    /// The stream was finished; only `Finish` calls without input are allowed (until `reset`).
    StreamFinished,
    /// No progress was possible (no output space, or nothing to do for this flush).
    BufferError,
    /// The call is not allowed in the current state (e.g. a dictionary after data, or on gzip).
    BadState,
}

impl std::fmt::Display for DeflateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = match self {
            DeflateError::BadParams => "invalid compression parameter",
            DeflateError::StreamFinished => "stream already finished",
            DeflateError::BufferError => "no progress possible",
            DeflateError::BadState => "operation not allowed in the current stream state",
        };
        f.write_str(s)
    }
}

impl std::error::Error for DeflateError {}

/// The parser a level uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parser {
    /// Stored blocks only.
    Stored,
    /// Two-way hash table, greedy.
    Fast,
    /// Hash chains, greedy.
    Greedy,
    /// Hash chains, one-step lazy.
    Lazy,
    /// Hash chains, lazy with a second look ahead (libdeflate's lazy2).
    Lazy2,
    /// Binary trees collecting all candidates, cost-based dynamic-programming parse.
    Optimal,
}

/// One row of the level table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelRow {
    /// The parser.
    pub parser: Parser,
    /// Chain candidates examined per position (Fast: positions hashed inside a match).
    pub depth: u32,
    /// Stop searching at a match this long.
    pub nice: u32,
    /// Lazy parsers: look one position ahead only while the match is shorter than this
    /// (zlib's `max_lazy`).
    pub lazy: u32,
    /// Lazy parsers: look ahead with a quarter of the depth once the match is this long
    /// (zlib's `good_length`).
    pub good: u32,
    /// Near-optimal parser: dynamic-program passes per window.
    pub passes: u32,
    /// Near-optimal parser: also report length-3 matches (a 3-byte hash table); on data that
    /// is not text-like they are reported whatever the row says (`strategy/optimal.rs`).
    pub hash3: bool,
    /// Chain parsers: chain five-byte hashes on text-like data (`matchfind.rs`); four-byte
    /// chains otherwise and when unset.
    pub chain5: bool,
    /// Candidate block boundaries every `grid` input bytes, chosen by cost (`plan.rs`); 0:
    /// blocks end where the statistics splitter (`split.rs`) says.
    pub grid: u32,
}

impl LevelRow {
    /// Bytes per segment: [`OPTIMAL_SEGMENT`] for the near-optimal parser (whose trees
    /// re-search the history at each segment start), [`SEGMENT`] for the others.
    pub const fn segment(&self) -> usize {
        match self.parser {
            Parser::Optimal => OPTIMAL_SEGMENT,
            _ => SEGMENT,
        }
    }
}

const fn row(parser: Parser, depth: u32, nice: u32) -> LevelRow {
    LevelRow {
        parser,
        depth,
        nice,
        lazy: nice,
        good: 32,
        passes: 0,
        hash3: false,
        chain5: false,
        grid: 0,
    }
}

/// `r` with blocks chosen by cost on a `grid`-byte grid.
const fn planned(r: LevelRow, grid: u32) -> LevelRow {
    LevelRow { grid, ..r }
}

/// A near-optimal row.
const fn optimal_row(depth: u32, nice: u32, passes: u32, hash3: bool) -> LevelRow {
    LevelRow {
        passes,
        hash3,
        ..row(Parser::Optimal, depth, nice)
    }
}

/// A greedy row, on five-byte chains.
const fn greedy_row(depth: u32, nice: u32) -> LevelRow {
    LevelRow {
        chain5: true,
        ..row(Parser::Greedy, depth, nice)
    }
}

/// A lazy row with zlib's look-ahead limits, on five-byte chains.
const fn lazy_row(depth: u32, nice: u32, lazy: u32, good: u32) -> LevelRow {
    LevelRow {
        lazy,
        good,
        chain5: true,
        ..row(Parser::Lazy, depth, nice)
    }
}

/// `r` on four-byte chains.
const fn chain4(r: LevelRow) -> LevelRow {
    LevelRow { chain5: false, ..r }
}

/// A lazy2 row.
const fn lazy2_row(depth: u32, nice: u32, lazy: u32, good: u32) -> LevelRow {
    LevelRow {
        parser: Parser::Lazy2,
        ..lazy_row(depth, nice, lazy, good)
    }
}

/// The level table. Depths and nice lengths follow the speed/ratio curve measured with
/// `examples/deflate_speed.rs` on the corpus: each level roughly doubles the search effort.
/// The lazy levels take zlib's look-ahead limits (max_lazy, good_length for its levels 4-9):
/// on the sample, level 6 went from 3.872 at 45.9 MB/s (looking ahead up to `nice`) to 3.861
/// at 54.9 MB/s, still above zlib -6's 3.846. Levels 5-9 look two positions ahead (lazy2):
/// a second look buys more than depth does. Sample / large+Snappy+Canterbury concatenated,
/// ratio at MB/s, one-step lazy before: L5 3.870 at 74 / 3.457 at 67 -> 3.941 at 78 / 3.453
/// at 74; L6 (depth 40 -> 16) 3.883 at 66 / 3.474 at 61 -> 3.953 at 72 / 3.471 at 69; L7
/// 3.897 at 53 / 3.496 at 47 -> 3.992 at 57 / 3.514 at 52; L8 3.908 / 3.511 -> 4.023 / 3.546
/// at 30-31 MB/s; L9 3.917 at 24 / 3.515 at 25 -> 4.037 at 18 / 3.556 at 21. Level 1 hashes
/// three positions inside each match: corpus / sample 3.042 / 3.502 with two, 3.085 / 3.544
/// with three (1.5% slower), 3.105 / 3.558 with four (7-9% slower), with four-byte keys; with
/// the five-byte keys it has on text since (`strategy/fast.rs`), 3.117 / 3.154 / 3.186 on the
/// corpus with two, three or four, their speeds within 2%. Levels 2-12 choose their
/// blocks by cost (`plan.rs`), on a grid of 8 KiB up to level 6, 4 KiB up to level 9 and
/// 2 KiB above. The near-optimal rows (depth, nice, passes, length-3 matches) were chosen again
/// then, as per-file corpus ratio (what the harness reports) at MB/s: (24, 96, 1) 3.6746 at
/// 10.3, (24, 96, 1, yes) 3.6803 at 9.4, (35, 128, 1, yes) 3.6830 at 9.0, (50, 150, 1, yes)
/// 3.6851 at 8.7, (100, 258, 2, yes) 3.6885 at 6.5, (200, 258, 2, yes) 3.6890 at 6.5; three
/// passes gained nothing more. Depth is cheap in the binary trees; each pass costs about as
/// much as finding the matches at depth 50. The lazy rows were chosen again for five-byte
/// chains on text-like data (`chain5`; per-file corpus ratio at MB/s, four-byte chains
/// before): L4 (depth 12 -> 8) 3.4265 at 94 -> 3.4412 at 92, L5 (12 -> 8) 3.4631 at 85 ->
/// 3.4768 at 81, L6 (16 -> 10) 3.4806 at 78 -> 3.4878 at 78, L7 (40 -> 30) 3.5225 at 59 ->
/// 3.5289 at 62, L8 (150) 3.5537 at 35 -> 3.5549 at 39; the sample gains 0.1-0.2% at each.
/// Level 9 keeps four-byte chains: on five-byte ones its ratio stopped at 3.5626 (depth 600,
/// 25 MB/s) against 3.5642 at 23. The greedy levels chain five bytes without the four-byte
/// head: L2 3.3180 at 122 -> 3.3759 at 117, L3 3.3779 at 104 -> 3.4174 at 104 (with the head,
/// L2 3.3690 at 104).
///
/// Levels 5 and 6 look ahead up to 32 bytes (zlib's max_lazy there is 16): on a JSON log
/// (2 MB, lines that share most of their fields) level 6 went from 8.317 to 9.152 (zlib -6
/// 8.634, libdeflate -6 9.475) and level 5 from 241,359 to 219,113 bytes (libdeflate -5
/// 217,818), while the per-file corpus gained 0.07% at both (3,174,108 -> 3,171,866 at level
/// 6) at 0.99-1.0x of the speed (one binary, both rows interleaved, three runs).
///
/// Level 6's row was searched again on a grid (depth 8-16, good 4-8, lazy 16 or 32, nice 32
/// or 64; per-file corpus bytes, one binary): the whole grid spans about 0.95-1.1x the time of
/// (10, 64, 32, 8). Every row that keeps libdeflate -6's ratio (3,179,825 bytes) is within 3%
/// of its time: good 5 3,177,883 bytes at 0.975x (alternating runs). Depth 8 gives 3,181,124
/// at 0.968x, and depth 16 gives 3,152,581 (-0.6%) at 1.11x.
///
/// Level 10 was (24, 96, 1) until it fell short of libdeflate -12 (3,006,498 bytes of the
/// corpus, per file) by 2,767 bytes. Bytes and speed against that row, in interleaved runs of
/// one process: (32, 160) 3,006,567 at 0.90x, (32, 192) 3,006,433 at 0.91-0.93x, (40, 128)
/// 3.6828 at 0.99x, (40, 160) 3,005,930 (3.6841) at 0.92-0.95x, (60, 128) 3.6838 at 0.86x;
/// level 11's row 3.6862 at 0.85x. So every near-optimal level compresses at least as well as
/// libdeflate's best level.
///
/// Level 11 was (50, 150, 1, with length-3 matches on all data) until it measured 2.95x
/// libdeflate -12's speed in the harness, where the goal is 3x (level 10 3.14x). On text the
/// 3-byte table cost it 5.6% of its time for 0.04% of ratio: without it, the same row took
/// 1.006x level 10's time for 3,005,771 bytes (level 10: 3,006,069). Rows without the table,
/// per-file corpus bytes at the time of that row (alternating runs of two binaries): (60, 160)
/// 3,005,348 at 0.957-0.964x, (60, 200) 3,005,117 at 0.99x, (70, 180) 3,005,056 at 0.99x,
/// (80, 200) 3,004,909 at 1.01x, (60, 258) 3,004,775 at 1.00x, (100, 258) 3,004,495 at
/// 1.05-1.07x; that row 3,004,500. (60, 160) it is, at 1.01-1.02x level 10's time; the sample
/// compresses to 671,637 bytes against 671,686. Data that is not text-like still gets the
/// table at levels 10 and 11 (`strategy/optimal.rs`).
///
/// Level 12 falls short of 3x libdeflate -12's speed (2.1-2.2x in the harness): it would need
/// about 0.70x its time, which only level 11's row takes. Other rows, per-file corpus bytes at
/// their time against this one (alternating runs of one binary, the row set at run time;
/// this row 2,999,713 bytes): (200, 258, 2, no table on text) 3,001,676 at 0.947x, (100, 258,
/// 2, no) 3,002,072 at 0.943x, (60, 160, 2, yes) 3,001,093 at 0.887x, (200, 258, 1, yes)
/// 3,002,098 at 0.872x, (60, 160, 2, no) 3,002,841 at 0.839x, (60, 160, 1, yes) 3,003,337 at
/// 0.761x; level 11's row 3,004,297. Each step down that list trades bytes for time at about
/// the same rate, so level 12 keeps the deepest search. Blocks on a 4 KiB grid at levels 10
/// and 11 took 0.998x and 0.984x their time for 349 and 433 more bytes: choosing the blocks is
/// not where these levels' time goes.
pub const LEVELS: [LevelRow; 13] = [
    row(Parser::Stored, 0, 0),
    row(Parser::Fast, 3, 258),
    planned(greedy_row(6, 16), 8192),
    planned(greedy_row(12, 24), 8192),
    planned(lazy_row(8, 32, 8, 4), 8192),
    planned(lazy2_row(8, 48, 32, 8), 8192),
    planned(lazy2_row(10, 64, 32, 8), 8192),
    planned(lazy2_row(30, 128, 32, 8), 4096),
    planned(lazy2_row(150, 258, 258, 32), 4096),
    planned(chain4(lazy2_row(400, 258, 258, 32)), 4096),
    planned(optimal_row(40, 160, 1, false), 2048),
    planned(optimal_row(60, 160, 1, false), 2048),
    planned(optimal_row(200, 258, 2, true), 2048),
];

/// Builds a context for the parameters (validated by the caller).
fn make_ctx(p: &Params) -> Ctx {
    let mut c = Ctx::new(LEVELS[p.level as usize], p.window_bits, p.mem_level);
    apply_strategy(&mut c, p.strategy);
    c
}

fn apply_strategy(c: &mut Ctx, s: Strategy) {
    c.codes = if s == Strategy::Fixed {
        block::BlockCodes::FixedOnly
    } else {
        block::BlockCodes::Any
    };
    c.min_match = if s == Strategy::Filtered { 6 } else { 3 };
}

/// New data under which a flushed segment at the near-optimal levels is parsed with level 9's
/// chains (see [`compress_segment`]).
pub(crate) const FLUSHED_CHAINS_MAX: usize = 16 << 10;

/// Parses and emits `buf[start..]` (history `buf[..start]`); ends the last block, with BFINAL
/// if `last`. Writes nothing for an empty non-final segment.
///
/// At levels 10-12, a segment of less than [`FLUSHED_CHAINS_MAX`] new bytes that a flush ends
/// (the caller keeps its state for the next) or that goes on from one is parsed with level 9's
/// row instead, whose chains carry over from one flushed segment to the next. The binary trees
/// carry nothing: each segment inserted its 32 KiB of history with a full search, and the
/// dynamic program priced a few symbols from the last few: a zlib stream sync-flushed after
/// each of 20,000 JSON-like lines (`examples/flush_speed.rs`) took 967 us per message at
/// level 10 and came to 411,451 bytes, against level 9's 3.8 us and 379,891. Which parser
/// runs depends only on the calls, as the segments do.
pub(crate) fn compress_segment(
    ctx: &mut Ctx,
    strategy: Strategy,
    buf: &[u8],
    start: usize,
    last: bool,
) {
    let row = ctx.row;
    let flushed = row.parser == Parser::Optimal
        && buf.len() - start < FLUSHED_CHAINS_MAX
        && (ctx.keep || ctx.carry.is_some_and(|c| c.end == start));
    if flushed {
        ctx.row = LEVELS[9];
    }
    parse_segment(ctx, strategy, buf, start, last);
    ctx.row = row;
}

/// [`compress_segment`] with the context's row.
fn parse_segment(ctx: &mut Ctx, strategy: Strategy, buf: &[u8], start: usize, last: bool) {
    ctx.begin(start);
    if ctx.row.parser == Parser::Stored {
        strategy::stored::run(ctx, buf, start, last);
        ctx.resume = None;
        return;
    }
    if start == buf.len() && !last {
        // Nothing to parse: a carried state still holds every position up to `start`.
        if let Some(finder) = ctx.resume.take().filter(|_| ctx.keep) {
            ctx.carry = Some(ctx::Carry { finder, end: start });
        }
        return;
    }
    match (strategy, ctx.row.parser) {
        (Strategy::HuffmanOnly, _) => strategy::huffman_only::run(ctx, buf, start),
        (Strategy::Rle, _) => strategy::rle::run(ctx, buf, start),
        (_, Parser::Fast) => strategy::fast::run(ctx, buf, start),
        (_, Parser::Greedy) => strategy::lazy::run(ctx, buf, start, 0),
        (_, Parser::Lazy2) => strategy::lazy::run(ctx, buf, start, 2),
        (_, Parser::Optimal) => strategy::optimal::run(ctx, buf, start),
        _ => strategy::lazy::run(ctx, buf, start, 1),
    }
    // A parser that cannot go on from a carried state leaves it unused.
    ctx.resume = None;
    ctx.end_planned(buf);
    if ctx.block_start < buf.len() || !ctx.sb.syms.is_empty() || last {
        ctx.end_block(buf, buf.len(), last);
    }
}

/// Compresses `data[pos..end]` as one segment with up to a window of history before `pos`.
fn segment(ctx: &mut Ctx, strategy: Strategy, data: &[u8], pos: usize, end: usize, last: bool) {
    let hist = pos.saturating_sub(ctx.max_dist);
    compress_segment(ctx, strategy, &data[hist..end], pos - hist, last);
}

/// Compresses all of `data[pos..]` (history before `pos`): whole segments (of the row's size)
/// while more than one segment remains, then the rest with BFINAL = `last`.
fn compress_all(ctx: &mut Ctx, strategy: Strategy, data: &[u8], mut pos: usize, last: bool) {
    let seg = ctx.row.segment();
    while data.len() - pos > seg {
        segment(ctx, strategy, data, pos, pos + seg, false);
        pos += seg;
    }
    segment(ctx, strategy, data, pos, data.len(), last);
}

/// Bytes of container overhead around the default-header stream.
fn container_len(format: Format) -> usize {
    match format {
        Format::Raw => 0,
        Format::Zlib => 6,
        Format::Gzip => container::GZIP_MIN_HEADER + container::GZIP_TRAILER,
    }
}

/// An upper bound on [`compress`]'s output for `input_len` bytes, never exceeded at any level;
/// at least zlib's compressBound so zlib callers' buffers suffice.
pub fn compress_bound(format: Format, input_len: usize) -> usize {
    // Every block costs at most its stored size, and one that costs more than its bytes covers
    // >= 8 KiB (the statistics splitter's minimum block; the planner's `Blocks::settle`)
    // unless it is its segment's only block, so the overhead is < 5.25 bytes per 8 KiB plus
    // one block per segment: below n/1024.
    input_len + (input_len >> 10) + 64 + container_len(format)
}

/// Compresses a whole buffer at `level` (clamped to 12) with default parameters.
pub fn compress(format: Format, input: &[u8], level: u32) -> Vec<u8> {
    let mut out =
        Vec::with_capacity(compress_bound(format, input.len()).min(input.len() / 2 + 1024));
    Compressor::new(level).compress(format, input, &mut out);
    out
}

/// Reusable whole-buffer compressor (keeps its match-finder allocations between calls).
pub struct Compressor {
    level: u32,
    strategy: Strategy,
    ctx: Ctx,
    scratch: Vec<u8>,
}

impl Compressor {
    /// A compressor for `level` (clamped to 0..=12) with default parameters.
    pub fn new(level: u32) -> Self {
        Self::with_strategy(level, Strategy::Default)
    }

    /// A compressor for `level` (clamped to 0..=12) and zlib `strategy`, other parameters
    /// default.
    pub fn with_strategy(level: u32, strategy: Strategy) -> Self {
        let p = Params {
            level: level.min(12),
            strategy,
            ..Params::default()
        };
        Compressor {
            level: p.level,
            strategy,
            ctx: make_ctx(&p),
            scratch: Vec::new(),
        }
    }

    /// Compresses `input` as one complete stream in `format`, appending to `out`.
    pub fn compress(&mut self, format: Format, input: &[u8], out: &mut Vec<u8>) {
        self.ctx.start_stream();
        self.ctx.w.out = std::mem::take(out);
        match format {
            Format::Raw => {}
            Format::Zlib => {
                container::zlib_header(&mut self.ctx.w.out, 15, self.level, false, None)
            }
            Format::Gzip => {
                let xfl = container::gzip_xfl(self.level, false);
                container::gzip_header(&mut self.ctx.w.out, &GzipHeader::default(), xfl)
            }
        }
        compress_all(&mut self.ctx, self.strategy, input, 0, true);
        self.ctx.w.align();
        match format {
            Format::Raw => {}
            Format::Zlib => {
                let a = adler32(1, input);
                self.ctx.w.out.extend_from_slice(&a.to_be_bytes());
            }
            Format::Gzip => {
                let c = crc32(0, input);
                self.ctx.w.out.extend_from_slice(&c.to_le_bytes());
                self.ctx
                    .w
                    .out
                    .extend_from_slice(&(input.len() as u32).to_le_bytes());
            }
        }
        *out = std::mem::take(&mut self.ctx.w.out);
    }

    /// For the parallel runtime (pigz-style): raw DEFLATE for `input`, with `dict` (the up to
    /// 32 KiB preceding input) as history for matches. If `last`, the final block has BFINAL=1;
    /// otherwise the output ends byte-aligned with an empty stored block (sync-flush marker
    /// 00 00 ff ff) so blocks from different threads concatenate into one valid stream. Output
    /// depends only on (level, strategy, dict, input, last). Appends to `out`.
    pub fn compress_raw_chunk(&mut self, dict: &[u8], input: &[u8], last: bool, out: &mut Vec<u8>) {
        let d = &dict[dict.len().saturating_sub(self.ctx.max_dist)..];
        let mut s = std::mem::take(&mut self.scratch);
        s.clear();
        s.extend_from_slice(d);
        s.extend_from_slice(input);
        self.compress_raw_window(&s, d.len(), last, out);
        self.scratch = s;
    }

    /// [`compress_raw_chunk`](Self::compress_raw_chunk) for input that already follows its
    /// history in memory: `buf[start..]` is compressed with the window before `start` as
    /// dictionary, without copying the two together. Same output as
    /// `compress_raw_chunk(&buf[..start], &buf[start..], ..)`.
    pub fn compress_raw_window(&mut self, buf: &[u8], start: usize, last: bool, out: &mut Vec<u8>) {
        self.ctx.start_stream();
        self.ctx.w.out = std::mem::take(out);
        compress_all(&mut self.ctx, self.strategy, buf, start, last);
        if !last {
            block::write_stored(&mut self.ctx.w, &[], false);
        }
        self.ctx.w.align();
        *out = std::mem::take(&mut self.ctx.w.out);
    }
}
