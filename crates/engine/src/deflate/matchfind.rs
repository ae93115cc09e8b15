//! Hash-chain match finder (zlib/libdeflate "hc" design) for the greedy and lazy tiers.
//!
//! `head[h]` holds the most recent position (+1) whose first bytes hash to `h`;
//! `prev[(p + 1) & mask]` links each position to the previous one with the same hash. A search
//! walks the chain newest-first up to `depth` candidates, comparing eight bytes at a time, and
//! stops early at `nice` length.
//!
//! The chains hash four bytes, or five (`LONG`: text-like data of 32 KiB or more,
//! [`minlen::long_keys`](super::minlen::long_keys)). With five and `SHORT` (the lazy levels),
//! a short head keeps the most recent position of each four-byte hash, and when the walk found
//! nothing of five bytes or more, that one candidate is tried for a four-byte match. On text
//! the chains of a four-byte hash fill with candidates that share only those four bytes
//! ("the " before every other word), and a search spends most of its depth on them; chained
//! on five bytes, the same depth reaches further back among candidates that can give a longer
//! match, and the four-byte head keeps the nearest short match. At level 6's row of the time
//! (depth 16), per-file corpus ratio at MB/s: 3.4806 at 79 -> 3.5082 at 72, and 3.4972 at 77
//! at depth 12. Without the four-byte head the corpus gained too, but small files lost up to
//! 2.5% (`sum`, `xargs.1`) and `world192.txt` 0.9%; with it every file but one (-0.08%)
//! compresses as well or better. The head is filled at every position: filled only where a
//! search starts, it gave back half the gain. On an archive of executables (matches of three
//! bytes pay) five-byte chains lost 0.35% at the same speed, hence four-byte chains there.
//!
//! On four-byte chains the short head is keyed by three bytes (levels 2-9 on data that is not
//! text-like, where the minimum match is three): when the walk found nothing of four
//! bytes, its candidate is tried for a three-byte match, as with libdeflate's `hash3_tab`.
//! Four-byte chains alone never see a three-byte match, and executables are full of them:
//! on four 1 MB pieces of a tar of /usr/bin, ratio at MB/s in interleaved runs, without ->
//! with: L4 2.4596 at 53.9 -> 2.5201 at 46.3, L6 2.4776 at 62.6 -> 2.5353 at 52.1, L8 2.5160
//! at 34.0 -> 2.5732 at 30.9 (libdeflate -6 2.550, zlib -6 2.509); slower because more
//! matches mean more look-aheads and fewer stretches skipped as incompressible, but level 6
//! with it compresses better than level 8 without. Per-file corpus: L6 3.4878 -> 3.4885.
//! Text keeps its chains without it: at level 9 (four-byte chains on all data) three-byte
//! matches cost `world192.txt` 0.1% and `urls.10K` 0.4%.
//!
//! Positions are relative to the segment buffer, which the caller rebuilds per segment
//! (history + new data), so tables are reset per segment: this keeps the output a function of
//! (history, data) only, which makes streaming deterministic.
//!
//! Chains rather than tagged rows (the NXU's far history, zstd's row match finder): rows of
//! sixteen recent positions with one-byte tags compared in one SSE2 compare, FIFO replacement,
//! 2^12 rows with tags, 16-bit positions and the head in one cache line, the same four-byte
//! head, were slower and compressed less at every chain level (per-file corpus, interleaved
//! runs, chains -> rows): L2 3.3759 at 166 -> 3.3706 at 154 MB/s, L3 3.4173 at 150 -> 3.4067
//! at 148, L4 3.4413 at 132 -> 3.4366 at 123, L5 3.4769 at 115 -> 3.4724 at 104, L6 3.4878 at
//! 112 -> 3.4819 at 104 (with the tags and positions in two tables, 101). The walk is not
//! where the time goes: on the concatenated corpus, level 6 at depth 1 instead of 10 runs only
//! 1.19x faster (3.287 at 133 MB/s against 3.487 at 111), and rows at depth 1 ran at 111.
//!
//! Nor does a search of the near history pay (the NXU's 512-byte CAM): where the walk and the
//! four-byte head found nothing (or less than five bytes), all positions of the last 256 or 512
//! bytes whose three bytes match, found with SSE2 compares, then the longest of the newest 8
//! or 16 of them. Per-file corpus, nothing found: L6 3.4878 -> 3.4881 at 0.96x (256 bytes),
//! 3.4880 at 0.93x (512); less than five bytes: L4 3.4413 -> 3.4417 at 0.86x, L6 3.4882 at
//! 0.86x, and greedy L2 lost (3.3759 -> 3.3624: it takes the short near match at once). Three-
//! byte matches rarely pay for their length and distance codes, and the nearest four-byte
//! match is the head's.
//!
//! JSON logs want deeper walks than the corpus: one of 4.3 MB at level 6 gave 8.686 at 253
//! MB/s, 9.316 at 196 at depth 35, and libdeflate -6 9.290 at 205. A walk that runs out of
//! depth having found 16 bytes or more walks 10 candidates more, while such extensions find
//! longer matches in the segment ([`Chains::extend`]): on the log of `bench/json_log.py`,
//! level 6 8.258 at 245 -> 8.572 at 196 MB/s (libdeflate -6 8.780 at 200), for 1.01-1.02x
//! the corpus's time at levels 4-6. Extended by the row's depth instead, levels 8 and 9 ran
//! 2.6x and 3.3x slower on the JSON log.
//!
//! Nor does starting the next search's loads early: at the end of each search, reading the
//! next position's newest candidate from its (prefetched) bucket and prefetching that
//! candidate's bytes and link took levels 4 and 6 to 1.13-1.17x and 1.08-1.20x their time
//! (the same output; two binaries in alternating runs over the corpus files). Nor, within the
//! walk, prefetching the next candidate's bytes as soon as its link is read (before the test
//! of the one in hand, so that a mispredicted hit does not delay them): levels 4, 6 and 9
//! 1.02x their time, in the same conditions.
//!
//! Where level 6 misses the first-level cache (cachegrind with a 48 KiB, 12-way cache, one
//! call on `world192.txt`, 2.47 MB): 4.3 million reads of the tables and the bytes here, 1.75
//! an input byte. The insertions' reads of the head miss 75% of the time (1.43 million
//! misses), the walks' links 57% (0.87), the searches' reads of the head 47% (0.72), the
//! candidates' bytes 39% (0.59) and the short head 65% (0.57): a 256 KiB head, 128 KiB of
//! links and a 64 KiB short head do not fit, nor would halves of them. Only the walk's misses
//! form a chain of dependent loads; the insertions' overlap one another. Halving the links
//! anyway (64 KiB, libdeflate's size: each slot the distance to the next candidate as 16 bits,
//! at most 0xFFFF, so the walk subtracts it from `cur`) gave the same output at 1.12x / 1.11x
//! / 1.06x / 1.01x the time at levels 2 / 4 / 6 / 9 (alternating runs over the corpus files).
#![forbid(unsafe_code)]

use super::bytes::{each_word, fit_bits, hash3, hash4, hash5, load32, match_len, word, MAX_MATCH};
use crate::mem::ZeroTable;

/// Up to this many hash bits (buffers under 8 KiB, whose head of at most 16 KiB stays in the
/// first-level cache) [`Chains::find`] neither prefetches buckets nor hashes the next
/// position ahead: there the prefetches and their bookkeeping cost more than they hide. With
/// the walk skipped when no candidate is in the window and the short head's candidate checked
/// on its first three bytes before its length is measured, levels 2-9 compress pieces of 1
/// KiB in 0.89-0.92x the time, 4 KiB in 0.91-0.97x and 16 KiB in 0.95-0.99x (192 pieces of
/// JSON, HTML, text, SAM reads, a spreadsheet and a protobuf), and the per-file corpus in
/// 0.98-1.005x, with the same output (alternating runs of two binaries). On the first KiB of
/// `geo.protodata`, where most searches find no candidate, a level 2 call executes 204
/// instructions a byte, 238 before (callgrind; Debian's libdeflate 1.14 at -2: 123).
///
/// Measured and not kept: the hashes' shifts kept with the hash bits (one load each instead
/// of computing `32 - bits`), fewer instructions but 1.00-1.02x the time on the small pieces
/// and 1.00-1.025x on the corpus; `find` out of line (one copy per parser instead of one per
/// call site), 1.13-1.15x the time on 4 KiB pieces with warm caches and 1.03-1.08x with cold
/// ones; a return before the length limits are worked out when no candidate is in the window
/// at all (chain, short head and `rep`), 1-16 KiB pieces 0.96-0.99x at levels 2 and 6 but the
/// corpus 1.006-1.018x at level 6.
const NEAR_BITS: u32 = 12;

/// Measures candidate `c` against `pos` (at most `max` bytes) and keeps it as the best
/// (`best_len`, `best_dist`) if it is longer; true if it was kept with `nice` bytes or more,
/// where a search stops. The step every search of the chains repeats: `rep`, the walk, its
/// extension and the short head.
#[inline(always)]
fn keep_longer(
    buf: &[u8],
    c: usize,
    pos: usize,
    max: usize,
    nice: usize,
    best_len: &mut usize,
    best_dist: &mut usize,
) -> bool {
    let l = match_len(buf, c, pos, max);
    if l > *best_len {
        *best_len = l;
        *best_dist = pos - c;
        l >= nice
    } else {
        false
    }
}

/// Largest hash table (memLevel 9): 2^16 buckets.
pub const HEAD_SIZE: usize = 1 << 16;
/// Short-head slots per chain bucket: a quarter (2^14 at memLevel 9, 64 KiB). A quarter kept
/// the ratio of a full-size table within 0.03% and was faster; 2^12 heads lost 0.2%.
const SHORT_SHIFT: u32 = 2;
/// Largest window: 32 KiB of chain links.
pub const PREV_SIZE: usize = 1 << 15;
/// Segments shorter than this use [`SmallChains`].
pub const SMALL_SEGMENT: usize = 1 << 12;

/// Chains for segments shorter than [`SMALL_SEGMENT`]: 26 KiB of tables instead of 448 KiB.
/// A server holding thousands of zlib streams that each compressed a short message would
/// otherwise keep the full tables per stream, and where the allocator reuses memory rather than
/// mapping fresh pages, zeroing them makes all of it resident (Python: 114 KiB per stream, zlib
/// 94). Such a segment hashes into at most 2^11 buckets ([`Chains::reset`]) and its positions
/// are below 2^12, so the chains, and the output, are the same as with the full tables.
pub type SmallChains =
    Chains<{ SMALL_SEGMENT / 2 }, SMALL_SEGMENT, { (SMALL_SEGMENT / 2) >> SHORT_SHIFT }>;

/// Hash chains over one segment buffer, with `H` buckets, `P` links and `Q` short-head slots
/// at most.
#[derive(Clone)]
pub struct Chains<
    const H: usize = HEAD_SIZE,
    const P: usize = PREV_SIZE,
    const Q: usize = { HEAD_SIZE >> SHORT_SHIFT },
> {
    head: ZeroTable<H>,
    /// The short head: the most recent position (+1) of each four-byte hash (five-byte
    /// chains) or three-byte hash (four-byte chains).
    short: ZeroTable<Q>,
    prev: ZeroTable<P>,
    /// Hash bits in use for the current segment (see [`Chains::reset`]).
    hash_bits: u32,
    /// Hash bits the memory level allows.
    max_bits: u32,
    mask: usize,
    /// Next position to insert.
    pub next: usize,
    /// `(p, hash of p)` for the position after the last search, computed there for the
    /// prefetch: the lazy parser searches it next, and its walk can start without waiting for
    /// the hash.
    ahead: (usize, usize),
    /// Walks extended in this segment ([`Chains::extend`]), those that found a longer match,
    /// and whether walks are still extended.
    ext_tries: u32,
    ext_wins: u32,
    ext_on: bool,
}

/// A walk that ran out of depth having found at least this many bytes is extended
/// ([`Chains::extend`]).
const EXT_MIN: usize = 16;
/// Candidates an extension walks.
const EXT_DEPTH: u32 = 10;
/// Extensions a segment makes whatever they find.
const EXT_PROBE: u32 = 64;
/// After those, walks are extended while at least one extension in `EXT_RATE` has found a
/// longer match (the JSON log 14%, the corpus's text 2-3%).
const EXT_RATE: u32 = 12;

impl<const H: usize, const P: usize, const Q: usize> Chains<H, P, Q> {
    /// Tables for a window of `1 << window_bits` and `1 << hash_bits` buckets.
    pub fn new(window_bits: u8, hash_bits: u32) -> Self {
        let w = 1usize << window_bits.min(15);
        Chains {
            head: ZeroTable::new(),
            short: ZeroTable::new(),
            prev: ZeroTable::new(),
            hash_bits: hash_bits.min(H.trailing_zeros()),
            max_bits: hash_bits.min(H.trailing_zeros()),
            mask: w - 1,
            next: 0,
            ahead: (usize::MAX, 0),
            ext_tries: 0,
            ext_wins: 0,
            ext_on: true,
        }
    }

    /// Empties the tables for a segment buffer of `len` bytes. A short buffer hashes into
    /// [`fit_bits`] buckets: fewer table pages are cleared and touched, so a small stream
    /// costs about what zlib's does in time and memory.
    pub fn reset(&mut self, len: usize) {
        self.hash_bits = self.max_bits.min(fit_bits(len));
        debug_assert!(1 << self.hash_bits <= H && (P >= PREV_SIZE || len <= P));
        // Hashes stay below 2^hash_bits: only that part of the table is ever used.
        self.head[..1 << self.hash_bits].fill(0);
        self.short[..1 << (self.hash_bits - SHORT_SHIFT)].fill(0);
        self.next = 0;
        self.begin_segment();
    }

    /// Goes on with the tables as the last segment left them ([`Chains::insert_all`]), for a
    /// buffer that continues its buffer.
    pub fn resume(&mut self) {
        self.begin_segment();
    }

    /// What each segment starts afresh, whether its tables are new or carried: no prefetched
    /// hash (the one of the position after the last search may have read past the end of the
    /// last buffer) and no extensions counted ([`Chains::extend`]), so that a segment's
    /// output depends on its buffer alone.
    fn begin_segment(&mut self) {
        self.ahead = (usize::MAX, 0);
        self.ext_tries = 0;
        self.ext_wins = 0;
        self.ext_on = true;
    }

    /// Moves every position down by `by` (a multiple of the window), for a buffer whose first
    /// `by` bytes were dropped: positions below `by`, beyond the window of every later search,
    /// become empty slots (zlib's slide_hash). A link slot is indexed by its position modulo
    /// the window, which the move keeps.
    pub fn slide(&mut self, by: usize) {
        debug_assert!(by.is_multiple_of(self.mask + 1) && by <= self.next);
        let by = by as u32;
        let used = (self.mask & (P - 1)) + 1;
        for x in self.head[..1 << self.hash_bits]
            .iter_mut()
            .chain(&mut self.short[..1 << (self.hash_bits - SHORT_SHIFT)])
            .chain(&mut self.prev[..used])
        {
            *x = x.saturating_sub(by);
        }
        self.next -= by as usize;
        self.ahead = (usize::MAX, 0);
    }

    /// Inserts every position of `buf` with four bytes not yet inserted, and leaves the last
    /// three (which have not) to be inserted with their bytes if a segment continues the
    /// buffer (see [`Chains::resume`]). Their words read zeros past the end, so on five-byte
    /// chains the last position with four bytes is keyed with a zero fifth byte: where its
    /// bytes go on, that position may not be found.
    pub fn insert_all<const LONG: bool, const SHORT: bool>(&mut self, buf: &[u8]) {
        let end = buf.len();
        self.insert_to::<LONG, SHORT>(buf, end);
        self.next = end.saturating_sub(3);
    }

    /// The chain bucket of four bytes `v` (four-byte chains).
    #[inline(always)]
    fn bucket4(&self, v: u32) -> usize {
        hash4(v, self.hash_bits) & (H - 1)
    }

    /// The chain bucket of the low five bytes of `v` (five-byte chains).
    #[inline(always)]
    fn bucket5(&self, v: u64) -> usize {
        hash5(v, self.hash_bits) & (H - 1)
    }

    /// The short head's slot of the bytes `v` starts with: their four bytes on five-byte
    /// chains (`LONG`), their three on four-byte ones.
    #[inline(always)]
    fn short_slot<const LONG: bool>(&self, v: u64) -> usize {
        let bits = self.hash_bits - SHORT_SHIFT;
        if LONG {
            hash4(v as u32, bits) & (Q - 1)
        } else {
            hash3(v as u32, bits) & (Q - 1)
        }
    }

    /// Links position `p`, whose bytes start `v`, into its chain (and, with `SHORT`, its short
    /// head).
    #[inline(always)]
    fn put<const LONG: bool, const SHORT: bool>(&mut self, p: usize, v: u64) {
        if SHORT {
            let q = self.short_slot::<LONG>(v);
            self.short[q] = p as u32 + 1;
        }
        let h = if LONG {
            self.bucket5(v)
        } else {
            self.bucket4(v as u32)
        };
        let l = self.link(p);
        self.prev[l] = self.head[h];
        self.head[h] = p as u32 + 1;
    }

    /// The link slot of position `p`: indexed by `p + 1`, the form positions are stored in,
    /// so the chain walk goes from a link to the next slot without arithmetic on its
    /// dependency chain (one cycle per step less than indexing by `p`).
    #[inline(always)]
    fn link(&self, p: usize) -> usize {
        (p + 1) & self.mask & (P - 1)
    }

    /// Inserts every position from `self.next` up to `to` (exclusive) that has four readable bytes.
    #[inline(always)]
    pub fn insert_to<const LONG: bool, const SHORT: bool>(&mut self, buf: &[u8], to: usize) {
        let lim = to.min(buf.len().saturating_sub(3));
        each_word(buf, self.next, lim, |p, w| self.put::<LONG, SHORT>(p, w));
        self.next = self.next.max(to);
    }

    /// Inserts every `stride`-th position from `self.next` up to `to` (exclusive), of those with
    /// four readable bytes, starting with the first; the rest are never inserted.
    #[inline(always)]
    pub fn insert_sparse<const LONG: bool, const SHORT: bool>(
        &mut self,
        buf: &[u8],
        to: usize,
        stride: usize,
    ) {
        let lim = to.min(buf.len().saturating_sub(3));
        let mut q = self.next;
        while q < lim {
            self.put::<LONG, SHORT>(q, word(buf, q));
            q += stride;
        }
        self.next = self.next.max(to);
    }

    /// Walks [`EXT_DEPTH`] candidates more, from `cur` on, for a match longer than
    /// `best_len` (at `best_dist`), which a walk out of depth found; returns the longer match
    /// or `(best_len, best_dist)`. Stops extending walks for the rest of the segment once
    /// fewer than one extension in [`EXT_RATE`] finds a longer match (counted after
    /// [`EXT_PROBE`] of them).
    ///
    /// Structured text (JSON logs: lines that repeat most of their fields) wants deeper walks
    /// than the corpus: every line begins a 16-byte match or longer with dozens of lines
    /// before it, and the one that goes on furthest lies beyond the depth. Where the walks of
    /// text pay, they pay much more than on the corpus (level 6 -> 7 on the JSON log of
    /// `bench/json_log.py`: +6.6% ratio for 1.31x the time; on the corpus +1.1% for 1.28x):
    /// the count spends the extra candidates on the data that repays them, and the corpus
    /// keeps level 6's row. In the harness, per file, ratio at MB/s, before -> after
    /// (libdeflate at the same level):
    /// - that JSON log (4.4 MB): level 5 8.211 at 255 -> 8.507 at 201 (8.313 at 277), level 6
    ///   8.258 at 245 -> 8.572 at 196 (8.780 at 200), level 7 8.803 -> 8.860 (9.186); zlib -6
    ///   8.135 at 115;
    /// - `index.vcf` (htslib's test data) level 4 8.140 -> 8.227 at 0.95x the speed, levels
    ///   5-9 the same; 1,000 SAM reads the same at every level.
    ///
    /// Per-file corpus bytes: level 3 -206, 4 -388, 5 -46, 6 -47, 7 -14, 8 +15, 9 0; time
    /// 0.99x at levels 2-3, 1.01-1.02x at 4-6, 1.00x at 7-9 (two binaries, alternating runs).
    /// The extensions themselves cost nothing measurable there (extending by 0 candidates took
    /// the same time): the test and the call do.
    ///
    /// Extending every such walk (no count) cost the corpus 1.02-1.04x level 6's time for 0.09%
    /// (3,171,923 -> 3,169,160 bytes): most extensions there find nothing (2-3% of them find a
    /// longer match on the corpus's text, 9% on the SAM reads and the VCF, 14% on the JSON log).
    /// With one win in 24 enough, the SAM reads and the VCF kept extending: +0.4% and +1.3% at
    /// level 6 for 0.89x and 0.90x the speed, and the JSON log 8.671 at 187. An extension of 6
    /// candidates gave an earlier JSON log 9.101 against 9.236, of 16 9.349 at 0.96x the speed of
    /// 10 (on the log of `bench/json_log.py` 8.813 at 0.84x, of 24 8.896 at 0.71x, against 8.572:
    /// less ratio per time than level 7's row gives there); from 12 bytes 9.389 at 0.98x, but the
    /// corpus 1.02x; from 24, 9.101. Extending only the parser's first search at a position (not
    /// its looks one and two positions ahead) gave that log 8.782; counting as wins only matches
    /// longer by 8 or 16 bytes, 9.199 or 9.131. Inside the walk's loop (the count tested where
    /// depth runs out) the extension cost levels 4 and 6 1.07x their time, and with the count's
    /// test out of line, 1.02x: this function is out of line, and the test before it one flag.
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn extend(
        &mut self,
        buf: &[u8],
        pos: usize,
        mut cur: usize,
        cutoff: usize,
        mut best_len: usize,
        mut best_dist: usize,
        nice: usize,
    ) -> (usize, usize) {
        if best_len >= nice {
            return (best_len, best_dist);
        }
        let from = best_len;
        let max = (buf.len() - pos).min(MAX_MATCH);
        let mask = self.mask & (P - 1);
        for _ in 0..EXT_DEPTH {
            let c = cur.wrapping_sub(1);
            if cur <= cutoff || c >= pos {
                break;
            }
            cur = self.prev[cur & mask] as usize;
            if buf[c + best_len] != buf[pos + best_len] {
                continue;
            }
            if keep_longer(buf, c, pos, max, nice, &mut best_len, &mut best_dist) {
                break;
            }
        }
        self.ext_tries += 1;
        if best_len > from {
            self.ext_wins += 1;
        }
        self.ext_on = self.ext_tries < EXT_PROBE || self.ext_wins * EXT_RATE >= self.ext_tries;
        (best_len, best_dist)
    }

    /// Best match at `pos` longer than `best` (at least 2; returns (len, dist); len <= best
    /// means none).
    /// Inserts positions up to and including `pos`.
    ///
    /// A walk that runs out of depth with [`EXT_MIN`] bytes or more may go on
    /// ([`Chains::extend`]).
    ///
    /// Inlined at each call site (libdeflate does the same): the parse loop and the walk then
    /// share registers. L6 +3% on the sample, +1.5% on a tar of /usr cut in 256 KiB blocks
    /// (its ELF part -2%).
    ///
    /// Distance `rep` (unless 0) is tried before the chain: a match that reached the longest
    /// length goes on at its distance where the data repeats (a copy of a stretch, a run), and
    /// there the chain may not hold the position that continues it (see `insert_sparse`). The
    /// walk is skipped when `rep` gives `nice` bytes.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn find<const LONG: bool, const SHORT: bool>(
        &mut self,
        buf: &[u8],
        pos: usize,
        best: usize,
        depth: u32,
        nice: usize,
        max_dist: usize,
        rep: usize,
    ) -> (usize, usize) {
        debug_assert!(best >= 2);
        let end = buf.len();
        if pos + 4 > end {
            self.insert_to::<LONG, SHORT>(buf, pos);
            return (0, 0);
        }
        // Five-byte chains and short heads read this position's eight bytes once: its bucket,
        // its short-head slot and (shifted by a byte) the next position's bucket all come from
        // them.
        let w = if LONG || SHORT { word(buf, pos) } else { 0 };
        let far = self.hash_bits > NEAR_BITS;
        let h = if far && self.ahead.0 == pos {
            self.ahead.1
        } else {
            // After a match: start loading this bucket before the match's positions are
            // inserted.
            let h = if LONG {
                self.bucket5(w)
            } else {
                self.bucket4(load32(buf, pos))
            };
            if far {
                crate::arch::prefetch(&self.head[..], h);
            }
            h
        };
        if self.next < pos {
            self.insert_to::<LONG, SHORT>(buf, pos);
        }
        // The lazy parser searches pos + 1 next: start loading its bucket now, while this
        // chain is walked. (`w >> 8` starts with that position's five bytes, or the zeros past
        // the end that `word` would give it.)
        if far && pos + 5 <= end {
            let h1 = if LONG {
                self.bucket5(w >> 8)
            } else {
                self.bucket4(load32(buf, pos + 1))
            };
            crate::arch::prefetch(&self.head[..], h1);
            self.ahead = (pos + 1, h1);
        }
        let mut cur = self.head[h] as usize;
        let l = self.link(pos);
        self.prev[l] = cur as u32;
        self.head[h] = pos as u32 + 1;
        let c4 = if SHORT {
            let h4 = self.short_slot::<LONG>(w);
            let c4 = self.short[h4] as usize;
            self.short[h4] = pos as u32 + 1;
            c4
        } else {
            0
        };
        self.next = pos + 1;
        let max = (end - pos).min(MAX_MATCH);
        let nice = nice.min(max);
        let (mut best_len, mut best_dist) = (best, 0);
        if best_len >= max {
            return (0, 0);
        }
        let prev = &*self.prev;
        let mask = self.mask & (P - 1);
        // A candidate `c` (held as c + 1 in `cur`) is in the window while `cur > cutoff`. The
        // window stops one short of the link ring (distance <= mask, 32767 for a 32 KiB
        // window, as in libdeflate): every candidate's link slot then still holds its own
        // link, which points to an older position, so the walk needs no test for reused slots.
        let cutoff = pos.saturating_sub(max_dist.min(mask));
        let mut depth = depth;
        if rep != 0
            && rep <= pos
            && pos - rep >= cutoff
            && keep_longer(
                buf,
                pos - rep,
                pos,
                max,
                nice,
                &mut best_len,
                &mut best_dist,
            )
        {
            depth = 0;
        }
        'walk: loop {
            // Each candidate costs one unit of depth; the walk stops when none is left, checked
            // after each miss (decrement and test together) and here, before the walk starts or
            // resumes after a hit (or when `rep` gave `nice` bytes, perhaps all there are).
            // No candidate left in the window (for most searches on data with few repeats,
            // none at all): the setup below is skipped.
            if depth == 0 || cur <= cutoff {
                break;
            }
            // Quick reject, as libdeflate does: a longer match must agree on the four bytes
            // ending where it would end (while there is none, on the first three). `tails[i..]`
            // is `buf[i + off..]`, so for `c < pos` the load needs no bounds check.
            let off = best_len.max(3) - 3;
            let tails = &buf[off..pos + off + 4];
            macro_rules! next_hit {
                ($m:expr) => {{
                    let want = load32(tails, pos) & $m;
                    loop {
                        let c = cur.wrapping_sub(1);
                        if cur <= cutoff || c >= pos {
                            break 'walk;
                        }
                        let nx = prev[cur & mask] as usize;
                        let hit = load32(tails, c) & $m == want;
                        cur = nx;
                        depth -= 1;
                        if hit {
                            break c;
                        }
                        if depth == 0 {
                            break 'walk;
                        }
                    }
                }};
            }
            // The mask only matters while no match is known (three bytes then suffice); the
            // common case compares whole words.
            let c = if best_len >= 3 {
                next_hit!(u32::MAX)
            } else {
                next_hit!(0xFF_FFFF)
            };
            if keep_longer(buf, c, pos, max, nice, &mut best_len, &mut best_dist) {
                break;
            }
        }
        if depth == 0 && best_len >= EXT_MIN && self.ext_on {
            (best_len, best_dist) = self.extend(buf, pos, cur, cutoff, best_len, best_dist, nice);
        }
        // Nothing as long as the chains' keys: the short head's candidate, if any (four bytes
        // on five-byte chains, three on four-byte ones).
        if SHORT && best_len < if LONG { 5 } else { 4 } && c4 > cutoff && {
            // Quick reject: a longer match (`best` is at least 2) starts with the same three
            // bytes.
            (load32(buf, c4 - 1) ^ (w as u32)) & 0xFF_FFFF == 0
        } {
            keep_longer(buf, c4 - 1, pos, max, nice, &mut best_len, &mut best_dist);
        }
        if best_dist == 0 {
            (0, 0)
        } else {
            (best_len, best_dist)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::bytes::xorshift;
    use super::*;

    /// A four-byte match, which the five-byte chains cannot hold, comes from the four-byte
    /// head: on noise with one four-byte string repeated, the search there finds it (and its
    /// bytes past the four differ, so no chain has it). Without the head it finds nothing.
    #[test]
    fn four_byte_head_finds_a_four_byte_match() {
        let mut rnd = xorshift(0x0DDB_1A5E_5BAD_5EEDu64);
        for (at, dist) in [(100usize, 50usize), (3000, 4), (20_000, 200), (40_000, 7)] {
            let mut data: Vec<u8> = (0..at + 100).map(|_| rnd() as u8).collect();
            let c = at - dist.min(at - 10);
            data.copy_within(c..c + 4, at);
            data[at + 4] = data[c + 4] ^ 0x5A;
            let mut ch: Chains = Chains::new(15, 16);
            ch.reset(data.len());
            ch.insert_to::<true, true>(&data, at);
            let got = ch.find::<true, true>(&data, at, 2, 64, MAX_MATCH, 1 << 15, 0);
            assert_eq!(got, (4, at - c), "at {at} dist {dist}");
        }
    }

    /// A walk that runs out of depth having found a long match goes on (`Chains::extend`) and
    /// finds the line that repeats furthest, ten candidates beyond the depth; once a
    /// segment's extensions stop finding anything longer, walks are no longer extended until
    /// the next segment.
    #[test]
    fn walks_out_of_depth_go_on_while_it_pays() {
        let mut rnd = xorshift(0x7E57_AB1E_0BAD_CAFEu64);
        let mut random = |n: usize| -> Vec<u8> { (0..n).map(|_| rnd() as u8).collect() };
        let prefix = b"{\"level\":\"info\",\"msg\":";
        let mut buf = random(64);
        // 100 lines alike but for their last bytes: from the eleventh on, each walk runs out of
        // depth among candidates as long as the newest, and its extension finds nothing
        // longer.
        let line = [&prefix[..], &random(24)].concat();
        let mut same = Vec::new();
        for i in 0..100u8 {
            same.push(buf.len());
            buf.extend_from_slice(&line);
            // Ends unlike every other line's.
            buf.extend_from_slice(&[i; 8]);
        }
        // Then 12 lines that share only the prefix, and one that repeats the oldest of them:
        // 12 candidates back, beyond a walk of depth 10.
        let mut starts = Vec::new();
        for _ in 0..12 {
            starts.push(buf.len());
            buf.extend_from_slice(prefix);
            buf.extend(random(32));
        }
        let at = buf.len();
        let tail = starts[0] + prefix.len();
        buf.extend_from_slice(prefix);
        buf.extend_from_within(tail..tail + 24);
        buf.extend(random(16));
        let want = (prefix.len() + 24, at - starts[0]);

        let mut ch: Chains = Chains::new(15, 16);
        ch.reset(buf.len());
        for &p in &same {
            let (l, d) = ch.find::<true, true>(&buf, p, 2, 10, MAX_MATCH, 1 << 15, 0);
            assert!(
                p == same[0] || (l >= line.len() && d == line.len() + 8),
                "at {p}: {l} {d}"
            );
        }
        assert!(ch.ext_tries >= EXT_PROBE && ch.ext_wins == 0 && !ch.ext_on);
        let (l, _) = ch.find::<true, true>(&buf, at, 2, 10, MAX_MATCH, 1 << 15, 0);
        assert!(
            l < want.0,
            "extended after its extensions found nothing: {l}"
        );

        // A new segment over the same bytes extends again.
        ch.reset(buf.len());
        ch.insert_to::<true, true>(&buf, at);
        let got = ch.find::<true, true>(&buf, at, 2, 10, MAX_MATCH, 1 << 15, 0);
        assert_eq!(got, want);
        // Depth 10 alone did not reach it.
        ch.ext_on = false;
        ch.reset(buf.len());
        ch.ext_on = false;
        ch.insert_to::<true, true>(&buf, at);
        let (l, _) = ch.find::<true, true>(&buf, at, 2, 10, MAX_MATCH, 1 << 15, 0);
        assert!(l < want.0);
    }

    /// Buffers shorter than a word: every position is inserted (with its bytes read as zeros
    /// past the end) and searched without reading out of bounds, on both kinds of chains.
    #[test]
    fn buffers_shorter_than_a_word() {
        for len in 0..12usize {
            let buf: Vec<u8> = (0..len).map(|i| b"abab"[i % 4]).collect();
            let mut c: SmallChains = Chains::new(15, 16);
            c.reset(len);
            c.insert_to::<true, true>(&buf, len);
            c.reset(len);
            c.insert_to::<false, true>(&buf, len);
            for p in 0..len {
                let mut c: SmallChains = Chains::new(15, 16);
                c.reset(len);
                c.insert_to::<true, true>(&buf, p);
                let (l, d) = c.find::<true, true>(&buf, p, 2, 8, MAX_MATCH, 1 << 15, 0);
                assert!(d == 0 || (l >= 3 && buf[p..p + l] == buf[p - d..p - d + l]));
            }
        }
    }

    #[test]
    fn small_chains_find_what_full_chains_find() {
        let mut rnd = xorshift(0x9E37_79B9_7F4A_7C15u64);
        for len in [5usize, 100, 1000, 2047, 2048, 4000, SMALL_SEGMENT - 1] {
            for kind in 0..3 {
                let buf: Vec<u8> = (0..len)
                    .map(|i| match kind {
                        0 => b"abcd efgh"[(rnd() % 9) as usize],
                        1 => (i % 7) as u8,
                        _ => rnd() as u8,
                    })
                    .collect();
                for (hash_bits, long) in [10, 15, 16]
                    .into_iter()
                    .flat_map(|b| [(b, false), (b, true)])
                {
                    let mut full: Chains = Chains::new(15, hash_bits);
                    let mut small: SmallChains = Chains::new(15, hash_bits);
                    full.reset(len);
                    small.reset(len);
                    for p in 0..len {
                        let depth = 1 + (p % 50) as u32;
                        let (a, b) = if long {
                            (
                                full.find::<true, true>(&buf, p, 2, depth, 258, 1 << 15, 0),
                                small.find::<true, true>(&buf, p, 2, depth, 258, 1 << 15, 0),
                            )
                        } else {
                            (
                                full.find::<false, true>(&buf, p, 2, depth, 258, 1 << 15, 0),
                                small.find::<false, true>(&buf, p, 2, depth, 258, 1 << 15, 0),
                            )
                        };
                        assert_eq!(a, b, "len {len} kind {kind} bits {hash_bits} at {p}");
                    }
                }
            }
        }
    }

    /// Every match `find` reports is real, inside the window and within `MAX_MATCH`, and with
    /// a deep search it is at least as long as the longest of four (five for `LONG` chains) or
    /// more bytes at distances up to 64, found by brute force: on zeros, noise, short periods
    /// and 258-byte runs across the window edge. (On `LONG` chains a four-byte match is found
    /// only through the one four-byte head, which a colliding position may have taken: see
    /// `four_byte_head_finds_a_four_byte_match`.)
    #[test]
    fn find_reports_real_matches() {
        find_reports_real_matches_in::<false, false>();
        find_reports_real_matches_in::<true, false>();
        find_reports_real_matches_in::<true, true>();
        find_reports_real_matches_in::<false, true>();
    }

    /// Sliding the chains by whole windows, with the buffer's first bytes dropped alike, leaves
    /// every later search as it was: the same matches, at the same distances, on both kinds of
    /// chains, for windows of 512 bytes and 32 KiB.
    #[test]
    fn sliding_keeps_the_matches() {
        let mut rnd = xorshift(0x0123_4567_89AB_CDEFu64);
        let text: Vec<u8> = (0..300_000)
            .map(|i| b"the cat sat on the mat, abcdefgh "[(i + (rnd() % 3) as usize) % 33])
            .collect();
        for (bits, by_windows) in [(15u8, 2usize), (9, 40)] {
            let w = 1usize << bits;
            let by = by_windows * w;
            let at = by + w + 1000;
            for long in [false, true] {
                let mut a: Chains = Chains::new(bits, 16);
                let mut b: Chains = Chains::new(bits, 16);
                a.reset(usize::MAX >> 1);
                b.reset(usize::MAX >> 1);
                for c in [&mut a, &mut b] {
                    if long {
                        c.insert_to::<true, true>(&text, at);
                    } else {
                        c.insert_to::<false, true>(&text, at);
                    }
                }
                b.slide(by);
                let moved = &text[by..];
                let mut hits = 0;
                for p in (at..at + 5000).step_by(7) {
                    let (x, y) = if long {
                        (
                            a.find::<true, true>(&text, p, 2, 16, 258, w, 0),
                            b.find::<true, true>(moved, p - by, 2, 16, 258, w, 0),
                        )
                    } else {
                        (
                            a.find::<false, true>(&text, p, 2, 16, 258, w, 0),
                            b.find::<false, true>(moved, p - by, 2, 16, 258, w, 0),
                        )
                    };
                    assert_eq!(x, y, "window {w} long {long} at {p}");
                    hits += (x.1 != 0) as usize;
                }
                assert!(hits > 100, "window {w} long {long}: {hits} matches");
            }
        }
    }

    /// On four-byte chains the short head finds three-byte matches, which the chains cannot.
    #[test]
    fn three_byte_head_finds_three_byte_matches() {
        let mut rnd = xorshift(0x9E37_79B9_7F4A_7C15u64);
        let mut data: Vec<u8> = (0..2000).map(|_| rnd() as u8).collect();
        // "xyz" then a different fourth byte, 10 bytes apart (the head keeps only the newest
        // position of each slot, so a long gap of random bytes would likely overwrite it).
        data[500..504].copy_from_slice(b"xyzA");
        data[510..514].copy_from_slice(b"xyzB");
        for short in [false, true] {
            let mut c: Chains = Chains::new(15, 15);
            c.reset(data.len());
            let (l, d) = if short {
                c.find::<false, true>(&data, 510, 2, 64, MAX_MATCH, 1 << 15, 0)
            } else {
                c.find::<false, false>(&data, 510, 2, 64, MAX_MATCH, 1 << 15, 0)
            };
            if short {
                assert_eq!((l, d), (3, 10));
            } else {
                assert!(l < 3 || d != 10, "four-byte chains found ({l}, {d})");
            }
        }
    }

    fn find_reports_real_matches_in<const LONG: bool, const SHORT: bool>() {
        let hashed = if LONG { 5 } else { 4 };
        let mut rnd = xorshift(0x2545_F491_4F6C_DD1Du64);
        let mut inputs = vec![
            vec![0u8; 70_000],
            (0..70_000).map(|_| rnd() as u8).collect(),
        ];
        for period in [1usize, 2, 3, 4, 5, 7, 258, 259] {
            let pat: Vec<u8> = (0..period).map(|_| rnd() as u8).collect();
            inputs.push((0..50_000).map(|i| pat[i % period]).collect());
        }
        let mut runs: Vec<u8> = (0..(1 << 15) - 100).map(|_| rnd() as u8).collect();
        runs.extend(std::iter::repeat_n(7u8, 258));
        runs.extend((0..(1 << 15)).map(|_| rnd() as u8 & 3));
        runs.extend(std::iter::repeat_n(7u8, 258));
        inputs.push(runs);
        for data in inputs {
            for window in [1usize << 15, 1 << 9] {
                let mut c: Chains = Chains::new(window.trailing_zeros() as u8, 15);
                c.reset(data.len());
                let mut p = 0;
                while p < data.len() {
                    let (l, d) = c.find::<LONG, SHORT>(&data, p, 2, 4096, MAX_MATCH, window, 0);
                    if d != 0 {
                        assert!((3..=MAX_MATCH).contains(&l) && d <= p && d <= window);
                        assert!(p + l <= data.len());
                        assert_eq!(data[p..p + l], data[p - d..p - d + l], "p={p} l={l} d={d}");
                    }
                    let max = (data.len() - p).min(MAX_MATCH);
                    let brute = (1..=p.min(64))
                        .map(|d| match_len(&data, p - d, p, max))
                        .max()
                        .unwrap_or(0);
                    // (The last three positions cannot be hashed and are not searched.)
                    let searched = p + 4 <= data.len();
                    assert!(
                        brute < hashed || !searched || l >= brute,
                        "p={p} l={l} brute={brute}"
                    );
                    p += 1 + p % 5;
                }
            }
        }
    }
}
