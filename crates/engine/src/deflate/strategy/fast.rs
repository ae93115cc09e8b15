//! The fastest tier (level 1): a two-way hash table keyed by five bytes (four on data that is
//! not text-like, see [`run`]), greedy parsing.
//!
//! Each position looks up the two most recent positions with the same key hash; a match of at
//! least four bytes is taken at once. Right after a match, that match's distance is tried too
//! (and kept on a tie), so a short-period repeat stays at one distance: 50 MB of zeros
//! 197,817 -> 52,475 bytes (libdeflate -1: 57,972), as `hyperz -1`; per-file corpus
//! 3,511,103 -> 3,510,463 bytes at 0.99x the speed (one binary, both paths interleaved).
//! The second way pays: looking up only the newest position ran 1.06x faster and gave 2.9%
//! more bytes (per-file corpus 3,510,519 -> 3,611,799), below libdeflate -1's ratio. Nor
//! does judging the candidates without branches: the first eight bytes of all three (the last
//! distance, both slots) compared as words, the longest chosen by conditional moves, and only
//! a candidate that reached eight bytes compared on; the same output at 1.01x the time.
//! Inside a match only the first `insert_inside` positions are hashed, which is where most of
//! the speed over hash chains comes from. libdeflate -1 hashes them all, and on short inputs
//! compresses 2% better (192 pieces of 512 bytes to 16 KiB of JSON, HTML, text, SAM reads,
//! kennedy.xls and geo.protodata: 4.128 against 4.216). Hashing them all on inputs under 32
//! KiB gained 0.5-5.2% on those pieces (kennedy.xls most) at 1.07-1.36x the time: not kept.
//! When nothing matches for a while the step grows (the "skip" heuristic of LZ4/snappy), so
//! incompressible input flows through at memory speed and ends up in stored blocks.
//!
//! A literal costs the parse about 100 instructions (callgrind, the loop below on `sum`),
//! against about 30 in libdeflate's fastest parse; a third of them move values to and from
//! the stack (the loop keeps more live values than there are registers). On short or
//! literal-heavy inputs that shows: warm, single calls, xargs.1 13.0 us against libdeflate
//! -1's 8.5, sum 99 against 57; ISA-L's igzip -1 parses paper-100k.pdf at 700 MB/s, this
//! loop at 265. Rewritten in other shapes, with the same output (per-file corpus time,
//! alternating runs; the nine files under 160 KB):
//! - the three candidates' first four bytes compared before any length is measured, the
//!   lengths then measured in a function kept out of line: 1.20x (1.18x), or inlined: 1.00x;
//! - after a literal, a loop over the literals that follow (no distance to retry, no skip,
//!   eight readable bytes), recorded together at its end: inlined 1.05x (1.00x; the register
//!   pressure stayed), out of line 1.15x (1.06x; paper-100k.pdf 0.93x, but text pays a call
//!   per short run of literals);
//! - only the measuring of lengths out of line: (1.015x; 0.97-0.99x on the four smallest);
//! - the parse compiled for BMI2 (shifts by the bucket count without CL): (1.00-1.02x);
//! - the bucket two positions on prefetched too: 1.00x;
//! - the three candidates' first words read through a view of the bytes before `p + 3`, with
//!   `q < p` tested for the candidate `q`, so that the loads need no bounds check: 1.00x
//!   (4-32 KiB pieces of text, HTML, kennedy.xls and geo.protodata: 1.00x);
//! - the minimum length and the positions hashed inside a match as compile-time constants
//!   (two live values fewer): 1.01x (1.01x);
//! - the step growing twice or four times as fast: 1.00x or 1.03x, for 1,141 or 5,923 more
//!   bytes;
//! - two positions per iteration, as ISA-L's level-1 body goes (both buckets read and both
//!   positions inserted before the first is judged, the second's candidates judged only after
//!   a literal; where no distance is to be retried): 1.01x, and 0.95-1.02x on 4-32 KiB pieces
//!   of text, HTML, kennedy.xls and geo.protodata in the caches.
//!
//! What bounds the loop is its mispredicted branches per position searched (which candidate
//! holds, literal or match, where a length ends), not its instruction count nor the table's
//! latency. Measured (per-file corpus, alternating runs):
//! - the symbols recorded after the parse instead of in it (matches and skipped runs kept as
//!   events, 1,024 at a time, then recorded with the same block checks; the same bytes):
//!   1.15x the time. The parse loop without the symbol buffer's state took only 0.90x its
//!   former time, and recording apart cost a fifth of the total.
//! - 2^12 buckets (32 KiB, in L1) instead of 2^16: 0.94x the time for 3,655,745 bytes.
//! - every position inserted, in a first pass over each 2-4 KiB, and the parse a second pass
//!   over what it found (ISA-L's level 1 on AVX-512 builds such a map): 3,387,052 bytes
//!   (-3.5%), but 1.13x the time with a scalar first pass (one load and one store per
//!   position, 1.2 ns each) and the candidates checked in the second; 3,393,550 at 1.11x
//!   with an AVX-512 first pass that also measured both candidates' first eight bytes (16
//!   positions looked up with gathers before any went in; a gather of eight cost 2.5 ns
//!   here), 3,392,836 at 1.18x with the repeat-distance check added to the second pass,
//!   which then took 0.54x today's whole parse. With one-way buckets, 3,509,689 bytes at
//!   1.09x. That second pass written without a literal-or-match branch (igzip's walk: the
//!   symbol and the step chosen by conditional moves) was slower still, 1.20x in
//!   all: its frequency counts became chains of read-modify-writes through memory. Inserting
//!   every position costs more than the ratio it buys can be traded back for at this tier.
//!
//! That holds where the table and the input do not fit in the first-level cache. On inputs that do,
//! libdeflate's leaner loop wins: prefixes of alice29.txt, best of 500 calls with the caches
//! evicted before each (`deflate_speed -c 4`; Debian's libdeflate 1.14 -1 from C, the same way),
//! 4 KiB in 13.9 us against 9.9, 16 KiB 46.9 against 29.5, 32 KiB 91.9 against 55.7, but 64 KiB 200
//! against 235 and 128 KiB 463 against 500 (libdeflate's time per byte doubles between 40 and
//! 48 KiB; ours rises by a fifth). On the 16 KiB prefix (callgrind, per call): 1.21 million
//! instructions (the parse 0.94, writing the block 0.27) against 0.67, 165,000 conditional branches
//! against 76,000, and fewer of them mispredicted in callgrind's model (5,000 against 8,300). Yet
//! taking instructions out of this loop (the bounds checks, the second position per iteration
//! above) did not speed those inputs either, so the count alone is not what bounds them; this
//! machine has no hardware counters to say what does.
#![forbid(unsafe_code)]

use crate::deflate::bytes::{self, fit_bits, load32, match_len, word, MAX_MATCH};
use crate::deflate::ctx::{Carry, Ctx, Finder};
use crate::deflate::minlen;
use crate::mem::ZeroTable;

/// log2 of the largest bucket count: 64 Ki two-way buckets (512 KiB), used at memory level 9
/// (the engine's default); 2^15 (memory level 8, zlib's default) measured within noise of it
/// and 2^14 lost 0.6 % ratio on the corpus. A stream uses 2^(memLevel + 7) buckets, as zlib's
/// hash does: the table's pages past them are never touched and take no memory (see
/// [`ZeroTable`]).
const TABLE_BITS: u32 = 16;
/// Slots in the table: two per bucket.
const SLOTS: usize = 2 << TABLE_BITS;

/// Reads the slots a parse will use, one word per cache line, in order, before it starts: the
/// hardware streams them in far faster than the parse's scattered misses would bring them.
/// Files under 200 KB, the table evicted before each call: 5.1 ms -> 3.0 ms with
/// [`fit_bits`] (see [`run`]; prefetch instructions instead of reads: 3.8 ms, many are
/// dropped); whole per-file corpus 45.0 -> 42.2 ms. With the table in the caches the reads
/// cost nothing measurable (2.69 ms either way on the small files).
fn warm(slots: &[u32]) {
    let x = slots.iter().step_by(16).fold(0, |a, &x| a ^ x);
    std::hint::black_box(x);
}

/// The shift that takes a full-table hash to `2^bits` buckets.
fn shift_for(bits: u32) -> u32 {
    TABLE_BITS - bits.min(TABLE_BITS)
}

/// The bucket of the position whose bytes start `w` (see [`word`]; the position has at least
/// four bytes): of its five bytes if `KEY5`, among `2^(TABLE_BITS - shift)` (`shift` is 0
/// unless `SMALL`, which takes the shift off the full table's hot loop). The hash is taken to
/// 16 bits and then shifted, so the compiler sees the bucket's bound.
#[inline(always)]
fn key_of<const KEY5: bool, const SMALL: bool>(w: u64, shift: u32) -> usize {
    let h = if KEY5 {
        bytes::hash5(w, TABLE_BITS)
    } else {
        bytes::hash4(w as u32, TABLE_BITS)
    };
    if SMALL {
        h >> shift
    } else {
        h
    }
}

/// The bucket of position `p` (which has at least four bytes).
#[inline(always)]
fn key<const KEY5: bool, const SMALL: bool>(buf: &[u8], p: usize, shift: u32) -> usize {
    key_of::<KEY5, SMALL>(word(buf, p), shift)
}

/// Hashes position `q` (stored as `q + base`) into its bucket as the newest entry.
#[inline(always)]
fn insert<const KEY5: bool, const SMALL: bool>(
    table: &mut [u32; SLOTS],
    buf: &[u8],
    q: usize,
    base: u32,
    shift: u32,
) {
    let h = key::<KEY5, SMALL>(buf, q, shift);
    insert_at(table, h, q as u32 + base);
}

/// Puts the stored position `v` into bucket `h` as the newest entry.
#[inline(always)]
fn insert_at(table: &mut [u32; SLOTS], h: usize, v: u32) {
    table[2 * h + 1] = table[2 * h];
    table[2 * h] = v;
}

/// The fastest tier's hash table: two entries per bucket, each a position plus `base`.
///
/// The table is not cleared between segments. Each segment's positions get a `base` above every
/// entry of the segments before, by more than the window, so an old entry reads as a distance
/// beyond the window: the same as an empty slot (0, which `base` also keeps out of the window).
/// One distance check then rejects empty, stale and too-far entries alike, and the output is
/// the same as with a table zeroed for each segment.
#[derive(Clone, Default)]
pub struct Table {
    slots: Option<ZeroTable<SLOTS>>,
    /// Added to the next segment's positions.
    next_base: u32,
}

impl Table {
    /// The base for a segment of `len` bytes with window `max_dist`, clearing the table (its
    /// first `used` slots, the only ones written) when the bases would overflow.
    fn begin(&mut self, len: usize, max_dist: usize, used: usize) -> u32 {
        let gap = max_dist as u32 + 1;
        let need = len as u64 + 2 * gap as u64;
        // Segments are a few hundred KiB (`SEGMENT` plus a window).
        debug_assert!(need <= u32::MAX as u64 / 2);
        match &mut self.slots {
            None => {
                self.slots = Some(ZeroTable::new());
                self.next_base = gap;
            }
            Some(t) if self.next_base as u64 + need > u32::MAX as u64 => {
                t[..used].fill(0);
                self.next_base = gap;
            }
            Some(_) => {}
        }
        let base = self.next_base;
        self.next_base = base + len as u32 + gap;
        base
    }

    /// Goes on with `base`, the last segment's, for a buffer of `len` bytes that continues its
    /// buffer (see [`Ctx::keep`]); false (the caller starts afresh) if the bases would
    /// overflow.
    pub(crate) fn resume(&mut self, base: u32, len: usize, max_dist: usize) -> bool {
        let gap = max_dist as u64 + 1;
        let next = base as u64 + len as u64 + gap;
        if self.slots.is_none() || next + gap > u32::MAX as u64 {
            return false;
        }
        self.next_base = next as u32;
        true
    }
}

/// Greedy parse of `buf[start..]`.
///
/// Keyed by five bytes, the buckets hold positions that can give a match longer than four
/// bytes instead of the many that share only four ("the " before every other word), and
/// level 1 finds fewer four-byte matches but more long ones. Corpus, per file: 3.0864 at 188
/// MB/s -> 3.1541 at 167 (libdeflate -1: 3.1465); hashing four positions inside each match
/// instead of three, on four-byte keys, gave 3.1048 at 166. The large texts gain 2.6-3.1%; on a
/// tar of executables, where three- and four-byte matches pay, five-byte keys lost 1.2%, so
/// only text-like segments of 32 KiB or more ([`minlen::long_keys`]) get them (files of a few
/// KiB lost up to 1%). The choice depends only on the data: the output stays deterministic.
///
/// Level 1 keeps a minimum of four whatever the alphabet (the chain levels raise theirs where
/// literals are cheap, `minlen.rs`). Raised the same way, genomic data compressed much better
/// but far slower, since the five-byte keys then fill the buckets with candidates that fail a
/// minimum of 5-9: ratio at MB/s, C. elegans FASTA 3.202 at 398 -> 3.744 at 154, SAM reads
/// 6.014 at 662 -> 6.552 at 376, kppkn.gtb 4.104 at 454 -> 4.245 at 315; the per-file corpus
/// 3,509,397 -> 3,507,907 bytes at the same speed. Not kept: this is the speed tier.
///
/// A segment that goes on from the last one's table ([`Ctx::resume`]) keeps its keys and base
/// and hashes no history: its positions are in the table as the parse left them.
pub fn run(ctx: &mut Ctx, buf: &[u8], start: usize) {
    let (key5, base) = match ctx.resume.take() {
        Some(Finder::Fast { key5, base }) if ctx.table.resume(base, buf.len(), ctx.max_dist) => {
            (key5, Some(base))
        }
        _ => {
            let data = &buf[start..];
            (minlen::long_keys(data.len(), || minlen::sample(data)), None)
        }
    };
    // A buffer that no segment continues hashes into `fit_bits` buckets. The table is not
    // cleared per call (see `Table`), and in a program that does other work between two calls
    // (the harness runs every peer in between) it is out of the caches, each bucket a miss to
    // memory: at 2^16 buckets (512 KiB) that was most of a small input's time. Corpus files
    // under 200 KB, the table evicted before each call (`deflate_speed -c 64`): 5.1-5.4 ms
    // before; 4.2 ms with the full table prefetched in order, 3.7-4.3 ms sized to the input as
    // well, 3.0 ms with `warm` reading it instead of prefetching; 424,033 -> 424,089 bytes. With
    // the table in the caches: 2.59-2.64 -> 2.60-2.67 ms. A quarter as many buckets as
    // positions gave 3.6 ms (prefetched) but was 10-15% slower in the caches on `asyoulik.txt`
    // and `sum`: more positions share a bucket, more candidates fail.
    // A buffer kept for a continuation grows, and one that goes on from the last keeps its
    // buckets: both get every bucket of the memory level.
    let bits = if base.is_some() || ctx.keep {
        ctx.hash_bits
    } else {
        ctx.hash_bits.min(fit_bits(buf.len()))
    };
    let base = match (key5, bits < TABLE_BITS) {
        (true, false) => parse::<true, false>(ctx, buf, start, base, bits),
        (false, false) => parse::<false, false>(ctx, buf, start, base, bits),
        (true, true) => parse::<true, true>(ctx, buf, start, base, bits),
        (false, true) => parse::<false, true>(ctx, buf, start, base, bits),
    };
    if ctx.keep {
        ctx.carry = Some(Carry {
            finder: Finder::Fast { key5, base },
            end: buf.len(),
        });
    }
}

/// [`run`] with keys of five bytes (`KEY5`) or four, into fewer buckets than the table has if
/// `SMALL` (a memory level under 9), going on with the table's `resume` base or starting
/// afresh; returns the base used. Kept out of line: with both key copies inlined into `run`,
/// level 1 measured 6-7% slower (the same code, laid out differently).
#[inline(never)]
fn parse<const KEY5: bool, const SMALL: bool>(
    ctx: &mut Ctx,
    buf: &[u8],
    start: usize,
    resume: Option<u32>,
    bits: u32,
) -> u32 {
    let mut tab = std::mem::take(&mut ctx.table);
    let end = buf.len();
    let max_dist = ctx.max_dist;
    // The stream's buckets: 2^hash_bits (its memory level's) of the table's 2^TABLE_BITS.
    let shift = shift_for(bits);
    let base = match resume {
        Some(base) => base,
        // Every slot an earlier segment may have written: its buckets were at most the
        // memory level's.
        None => tab.begin(end, max_dist, SLOTS >> shift_for(ctx.hash_bits)),
    };
    // A fixed-size table: the hash's range then needs no bounds checks.
    let table: &mut [u32; SLOTS] = tab
        .slots
        .as_deref_mut()
        .expect("allocated by begin or resume");
    let min = ctx.min_match.max(4);
    // The row's depth is reused as the number of positions hashed inside a match.
    let insert_inside = ctx.row.depth as usize;
    // History: hash the window preceding `start` (its positions with four bytes), unless the
    // table holds it already.
    let hist = if resume.is_some() {
        start
    } else {
        start.saturating_sub(max_dist)
    };
    // The slots are read in first only where the parse will touch most of their lines: a
    // segment that goes on from the last (a flushed message) hashes a few positions, and
    // reading its 4,096 lines (memory level 8) made a 90-byte message 4x slower.
    let slots = &table[..SLOTS >> shift];
    if end - hist >= slots.len() / 4 {
        warm(slots);
    }
    let hist_end = (start.min(end) + 1).saturating_sub(4);
    bytes::each_word(buf, hist, hist_end, |q, w| {
        insert_at(table, key_of::<KEY5, SMALL>(w, shift), q as u32 + base)
    });
    let mut p = start;
    let mut miss = 0usize;
    // The distance of the match that ended at `p` (0 after a literal).
    let mut rep = 0usize;
    // The bucket of a position the parse goes to (0 where it has no four bytes: the loop ends).
    let bucket_at = |q: usize| {
        if q + 4 <= end {
            key::<KEY5, SMALL>(buf, q, shift)
        } else {
            0
        }
    };
    // The bucket of `p`, computed where the parse decided to go there (for its prefetch).
    let mut h = bucket_at(p);
    while p + 4 <= end {
        // The next position's bucket (the next position, unless a match follows): its load
        // overlaps this one's work. `w >> 8` starts with that position's bytes, or with the
        // zeros past the end that `word` gives it: `h1` is its bucket.
        let w = word(buf, p);
        let h1 = key_of::<KEY5, SMALL>(w >> 8, shift);
        crate::arch::prefetch(&table[..], 2 * h1);
        let v = w as u32;
        // Two-way bucket: the newest and the previous position with this hash.
        let here = p as u32 + base;
        let (c0, c1) = (table[2 * h], table[2 * h + 1]);
        table[2 * h + 1] = c0;
        table[2 * h] = here;
        let max = (end - p).min(MAX_MATCH);
        let (mut l, mut c) = (0usize, 0usize);
        // Right after a match, its distance first: where data repeats with a short period (runs
        // of one byte, a record repeated) it goes on, and the matches share one distance code
        // where the buckets offer ones a match's length back, with extra bits. Without this
        // check the per-file corpus took 0.98x the time for 640 bytes more, most of them on
        // records and markup: geo.protodata +1.3%, html_x_4 +0.2%, ptt5 +0.2%.
        if rep != 0 && load32(buf, p - rep) == v {
            l = 4 + match_len(buf, p - rep + 4, p + 4, max - 4);
            c = p - rep;
        }
        for cand in [c0, c1] {
            // The distance; empty and stale slots give one beyond the window (see `Table`).
            let d = here.wrapping_sub(cand) as usize;
            if d.wrapping_sub(1) < max_dist && load32(buf, p - d) == v {
                let cl = 4 + match_len(buf, p - d + 4, p + 4, max - 4);
                if cl > l {
                    l = cl;
                    c = p - d;
                }
            }
        }
        {
            if l >= min {
                let next = bucket_at(p + l);
                crate::arch::prefetch(&table[..], 2 * next);
                ctx.sb.matched(l as u32, (p - c) as u32);
                // Positions p + 1.. inside the match (those with four bytes), at most
                // `insert_inside`. The first three (level 1's row hashes three), when all have
                // their bytes, are keyed from `w`: the bytes of p + k start at `w >> 8k`.
                let stop = (p + l).min(end.saturating_sub(3));
                let (from, to) = if insert_inside >= 3 && p + 4 <= stop {
                    insert_at(table, h1, here + 1);
                    insert_at(table, key_of::<KEY5, SMALL>(w >> 16, shift), here + 2);
                    insert_at(table, key_of::<KEY5, SMALL>(w >> 24, shift), here + 3);
                    (
                        p + 4,
                        if insert_inside > 3 {
                            stop.min(p + 1 + insert_inside)
                        } else {
                            p + 4
                        },
                    )
                } else {
                    (p + 1, stop.min(p + 1 + insert_inside))
                };
                for q in from..to {
                    insert::<KEY5, SMALL>(table, buf, q, base, shift);
                }
                rep = p - c;
                p += l;
                h = next;
                miss = 0;
                ctx.sym_done(buf, p);
                continue;
            }
        }
        // Literal(s): step grows after long runs without a match. A longer step's literals
        // go in as one run: on 20 MB of random bytes level 1 took 0.75x the time (paired
        // alternating runs) with the same output.
        let step = 1 + (miss >> 6);
        miss += 1;
        rep = 0;
        if step == 1 {
            ctx.sb.lit(buf[p]);
            p += 1;
            h = h1;
            // The block's end is checked after every match, and in a run of literals at every
            // 32nd: a block then holds at most 31 symbols more than its limit. Checked after
            // every literal, as before, level 1 took 1.02x the time (per-file corpus,
            // alternating runs) for 3,510,519 bytes against 3,509,397. Checked after matches
            // only at every 32nd symbol too, it took 1.01-1.03x the time for 3,510,595.
            if miss & 31 == 0 {
                ctx.sym_done(buf, p);
            }
        } else {
            let to = (p + step).min(end);
            ctx.sb.lits(&buf[p..to]);
            p = to;
            h = bucket_at(p);
            ctx.sym_done(buf, p);
        }
    }
    while p < end {
        ctx.sb.lit(buf[p]);
        p += 1;
    }
    ctx.sym_done(buf, p);
    ctx.table = tab;
    base
}

#[cfg(test)]
mod tests {
    use crate::deflate::bytes::xorshift;
    use crate::deflate::ctx::Ctx;
    use crate::deflate::{compress_segment, Strategy, LEVELS};

    use super::{Table, SLOTS};

    /// Compresses `data[start..]` after `data[..start]` as history, finishing the stream, and
    /// returns the bytes (the table keeps its state across calls).
    fn segment_bytes(ctx: &mut Ctx, data: &[u8], start: usize) -> Vec<u8> {
        ctx.w.clear();
        compress_segment(ctx, Strategy::Default, data, start, true);
        ctx.w.align();
        std::mem::take(&mut ctx.w.out)
    }

    /// Text-like data with repeats at every distance up to past the window.
    fn data(seed: u64, len: usize) -> Vec<u8> {
        let mut rnd = xorshift(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let mut v = Vec::with_capacity(len);
        while v.len() < len {
            let r = rnd();
            if v.len() > 64 && r.is_multiple_of(3) {
                let dist = 1 + (r >> 8) as usize % v.len().min(40_000);
                let n = (4 + (r >> 32) as usize % 40).min(len - v.len());
                let from = v.len() - dist;
                for i in 0..n {
                    v.push(v[from + i]);
                }
            } else {
                v.push(b'a' + (r >> 16) as u8 % 8);
            }
        }
        v
    }

    /// The table is not cleared between segments (see `Table`): entries of earlier segments
    /// must act as empty slots, including across the reset when the bases would overflow, and
    /// when the segments use different numbers of buckets (`fit_bits`).
    #[test]
    fn reused_table_gives_the_same_output_as_a_fresh_one() {
        for (window_bits, mem_level) in [(9u8, 8u8), (15, 8), (15, 9)] {
            let mut reused = Ctx::new(LEVELS[1], window_bits, mem_level);
            // Earlier segments fill the table with positions that could match the next ones.
            for seed in 1..4 {
                let d = data(seed, 50_000 + 40_000 * seed as usize);
                segment_bytes(&mut reused, &d, 10_000);
            }
            let mut near_overflow = Ctx::new(LEVELS[1], window_bits, mem_level);
            segment_bytes(&mut near_overflow, &data(9, 20_000), 0);
            near_overflow.table.next_base = u32::MAX - 70_000;
            for (seed, len) in (4..10).zip([60_000, 3_000, 150_000, 9_000, 40_000, 60_000]) {
                let d = data(seed, len);
                let start = if seed % 2 == 0 { 0 } else { len / 2 };
                let fresh =
                    segment_bytes(&mut Ctx::new(LEVELS[1], window_bits, mem_level), &d, start);
                assert_eq!(
                    segment_bytes(&mut reused, &d, start),
                    fresh,
                    "reused, seed {seed}"
                );
                let got = segment_bytes(&mut near_overflow, &d, start);
                assert_eq!(
                    got, fresh,
                    "near overflow, seed {seed}, window {window_bits}"
                );
            }
            // The bases went back to the start: the table was cleared once more.
            assert!(near_overflow.table.next_base < 1 << 20);
        }
    }

    #[test]
    fn table_is_cleared_before_its_bases_overflow() {
        let mut t = Table::default();
        assert_eq!(t.begin(50_000, 1 << 15, SLOTS), (1 << 15) + 1);
        t.slots.as_deref_mut().unwrap().fill(7);
        t.next_base = u32::MAX - 150_000;
        assert_eq!(t.begin(50_000, 1 << 15, SLOTS), u32::MAX - 150_000);
        assert!(t.slots.as_deref().unwrap().iter().all(|&s| s == 7));
        // The next segment's positions and gap would pass u32::MAX: the slots in use are
        // cleared.
        assert_eq!(t.begin(50_000, 1 << 15, SLOTS >> 3), (1 << 15) + 1);
        let slots = t.slots.as_deref().unwrap();
        assert!(slots[..SLOTS >> 3].iter().all(|&s| s == 0));
        assert!(slots[SLOTS >> 3..].iter().all(|&s| s == 7));
    }
}
