//! Binary-tree match finder (the "bt" design of LZMA and libdeflate) for the near-optimal tier.
//!
//! Every position is inserted as the root of a binary search tree over the suffixes that share
//! its 4-byte hash, ordered lexicographically; the walk that re-roots the tree visits exactly
//! the candidates with the longest common prefixes, so finding all useful matches costs far
//! fewer (random) memory accesses than walking a hash chain of the same depth. `lt_len` and
//! `gt_len` track the prefix already known to match on each side, so comparisons resume near
//! where they left off (after the prefix known a step earlier: [`Bt::advance`]).
//!
//! That known prefix is trusted, as libdeflate trusts it: a match's length is the known prefix
//! plus the bytes compared after it, never re-measured from its first byte. This is sound
//! because a comparison is only ever cut short where no later search can see further:
//! - at `nice` bytes, where the new position takes the candidate's place with its subtrees. A
//!   node `x` of those subtrees may then sit on the wrong side of the new position, but only if
//!   it shares `nice` bytes or more with it. A later search that reaches the new position with
//!   fewer than `nice` common bytes shares exactly that many with `x` too, so the known prefix
//!   (the smaller of the two sides') never overstates; one with `nice` or more stops there.
//! - at the end of the buffer, which is the same for every position of a segment (the trees
//!   are rebuilt per segment); a later position is nearer that end, so its search's `nice` is
//!   never above an earlier cut.
//!
//! So the trees always get the whole segment buffer, and the caller's window end only clamps
//! the lengths reported ([`Bt::advance`]'s `rec_end`). Cutting the trees' comparisons at a
//! window end instead would let a later search, with a longer `nice`, trust a prefix that
//! overstates (`recorded_lengths_are_exact` fails that way).
//!
//! With `hash3` set, a table of the latest position of each 3-byte hash (libdeflate's
//! `hash3_tab`) adds the length-3 matches the trees, keyed by four bytes, do not hold.
//!
//! Measured and not kept (levels 10 / 11 / 12, time against the walk here, two binaries in
//! alternating runs over the corpus files, same output):
//! - Two walks interleaved, one node of each per round (positions `p` and `p + 1`, when their
//!   roots differ), so that two chains of dependent loads overlap: 1.02x / 1.02x / 1.01x. The
//!   walks are bound by their mispredicted ends and comparisons (callgrind's model: 2.2
//!   mispredictions per position) more than by load latency. Beware in any such scheme: the
//!   child slots of `p + 1` are those of `p - mask`, the oldest candidate `p`'s walk may
//!   visit, so that walk's window must be a byte shorter; without that the two walks
//!   overwrite each other's links and recorded lengths overstate (kppkn.gtb did not decode).
//! - `match_len_order` comparing 16 bytes per step: 0.996x / 1.009x / 1.018x.
//! - Each candidate written to the next slot and counted by a flag, with no branch on
//!   whether it is longer than the last: 0.97x / 0.99x / 1.00x in one build, 1.00x / 1.01x /
//!   1.02x in the next; code-layout noise.
//! - Both children's slots prefetched as soon as a node's pair is read (one of them is the
//!   next node): 1.01x / 1.01-1.02x / 1.02x. The walks are short: bible.txt at level 11 makes
//!   4,035,965 walks of 21,856,856 steps in all (5.4 per walk, the last finding no node), and
//!   all but 67 end at an empty slot or the window's edge, none at the depth limit.
//! - The child mask fixed at 32 KiB's (a constant: one value fewer in the walk, which keeps a
//!   dozen on the stack), whatever the window: best 1.02x / 1.02x / 1.02x, median pair
//!   0.996x / 0.995x / 0.985x; noise.
//! - 2^15 or 2^17 roots instead of [`HASH_BITS`]'s 2^16: the same output (a root holds a
//!   whole tree, ordered by the bytes, whatever the hash), 1.03-1.04x the time or 1.00-1.01x.
//! - For short inputs, roots and 3-byte slots sized to the buffer (four times
//!   [`bytes::fit_bits`]'s count, so fewer are cleared) and the parser's candidate index
//!   kept between calls instead of allocated zeroed (128 KiB): the first 1 / 4 / 16 KiB of
//!   `geo.protodata` at levels 10-12 in 0.91-0.95x / 1.00-1.02x / 1.02-1.04x the time (1 KiB
//!   takes 27 us, Debian's libdeflate 1.14 at -10 16 us). Clearing and allocating are not
//!   where a short input's time goes; the kept index alone gave 0.98-0.99x at 1 KiB.
//! - Roots keyed by five bytes on text-like data (`minlen::long_keys`, as the chain levels
//!   do), so that the trees hold fewer candidates that share only four bytes. Alone, they
//!   took levels 10 / 11 to 0.88x / 0.91x their time, but the per-file corpus lost 0.77%
//!   (3,005,069 -> 3,028,097 bytes at level 10; `world192.txt` +10,580): the length-4
//!   matches were gone. With the newest position of each four-byte hash in a table beside
//!   the trees (prefetched as the 3-byte table is), reported as a length-4 match: 0.96x /
//!   0.99x for 1,162 / 1,258 bytes more with 2^17 slots, 2,065 more with 2^16, 146 more with
//!   2^20 (at 1.01x: what is lost is the slots' collisions). That table's lookups take back
//!   most of the time the shorter walks save; dropping its match where the trees' first one
//!   has the same distance (one candidate fewer to price) gave the same bytes, no faster.
//! - With the comparison starting after the prefix known a step earlier (see
//!   [`Bt::advance`]), each against that walk: a position's child slots at `(p + 1) & mask`,
//!   so that a node's are found from `cur` without the subtraction, 1.01x / 1.03x / 1.02x;
//!   the next position's root read (its slot prefetched two positions ahead) and that root's
//!   child slots and first bytes prefetched, 1.02x / 1.02x / 1.02x; the recorded matches
//!   given their distance symbols in a loop after the walk rather than in it, 1.05x / 1.05x /
//!   1.04x; two words read before the first is compared (16 bytes or more to compare),
//!   1.03x / 1.02x / 1.03x; the next node and pending slots selected before the recording
//!   and the `nice` test (so that the selections might use the comparison's flags), 1.05x /
//!   1.04x / 1.01x; the first word compared outside `match_len_order` (its slices and loop
//!   set up only when the word is equal), 1.01x / 1.03x / 1.02x; `best` set past every
//!   length once it reaches `rec_max`, so that a step tests one bound, not two, before
//!   recording, 1.03x / 1.04x / 1.04x. Two of the entries above, again on top of it: both
//!   children's slots prefetched, 1.04x / 1.02x / 1.04x; each candidate written and counted
//!   by a flag, 0.99x / 1.01x / 1.01x. What that walk took off each step's chain was the
//!   wait for the last comparison's length, not a load's latency.
//! - A walk stopped `P` steps after it last found a longer match (its depth still a limit).
//!   On `kennedy.xls` at level 11, 9% of the walks take 45-60 steps, three quarters of its
//!   6.6 million, and find nothing longer after their first few (every match under 16 bytes);
//!   there `P` = 24 / 16 took 0.72x / 0.64x the time for 92 / 193 more bytes. On the per-file
//!   corpus, levels 10 / 11 / 12: `P` = 32 0.981x / 0.958x / 0.910x the time for 488 / 1,140 /
//!   1,648 more bytes, 24 0.969x / 0.942x / 0.897x for 1,557 / 2,242 / 2,610, 16 0.936x /
//!   0.928x / 0.861x for 2,906 / 3,570 / 3,815 (at 24, level 11 lost 1,268 on `urls.10K` and
//!   728 on `ptt5`, whose walks find longer matches late). The rows' depths trade better:
//!   level 10's row takes about 0.93x level 11's time for 772 more bytes.
#![forbid(unsafe_code)]

use super::bytes::{self, load32, match_len, match_len_order, MAX_MATCH};
use super::tables::dist_sym;
use crate::mem::ZeroTable;
use std::hint::select_unpredictable;

/// Binary trees keyed by 4-byte hashes.
#[derive(Clone)]
pub struct Bt {
    head: Vec<u32>,
    child: ZeroTable<CHILD>,
    head3: Vec<u32>,
    mask: usize,
    /// Next position to insert.
    pub next: usize,
    /// Also report the latest length-3 match (set before [`Bt::reset`]).
    pub hash3: bool,
}

/// Child slots: two per position of the largest (32 KiB) window, whatever the window (the
/// trees exist at levels 10-12 only). The walk masks its indices to the array, which leaves it
/// no bounds checks, nor the array's length to keep in a register: level 10 1-3% faster, the
/// same output (median per-file time ratio, both walks in one binary alternating file by
/// file: 0.97 with the new one as the second code path, 0.99 as the first).
const CHILD: usize = 2 << 15;
/// Mask of a child slot index.
const SLOT_MASK: usize = CHILD - 1;
/// Room the caller leaves for the matches one walk records ([`Bt::advance`]): the 3-byte
/// table's, then the trees', each longer than the one before, from 4 up to 258 bytes, so at
/// most 256 in all.
pub const FOUND: usize = 256;

/// Inside a match of `nice` bytes or more ([`Bt::skip_match`]), every third position is
/// inserted, and the last [`INSIDE_TAIL`]. Per-file corpus at level 10 against inserting
/// every position: 3,005,918 -> 3,006,069 bytes (libdeflate -12: 3,006,498), 0.97x the time
/// (alternating runs of one binary), 14% fewer instructions (callgrind, ten corpus files);
/// every second or fourth: 3,006,060 or 3,006,337 bytes at 0.98 or 0.97x. The walks skipped
/// are cheap ones, that find a copy `nice` bytes long at once; inserting only the tail saved
/// a little more but cost 1,200 bytes.
const INSIDE_STRIDE: usize = 3;
/// See [`INSIDE_STRIDE`]: every one of a match's last 16 positions is inserted (a tail of 4,
/// 16 or 32 at every second position: within 80 bytes of each other).
const INSIDE_TAIL: usize = 16;

/// log2 of the number of tree roots.
const HASH_BITS: u32 = 16;
/// log2 of the number of 3-byte hash slots.
const HASH3_BITS: u32 = 15;

/// Tree root of the four bytes `v`.
#[inline(always)]
fn hash4(v: u32) -> usize {
    bytes::hash4(v, HASH_BITS)
}

/// 3-byte table slot of the first three bytes of `v`.
#[inline(always)]
fn hash3(v: u32) -> usize {
    bytes::hash3(v, HASH3_BITS)
}

/// A match as the trees record it: the length in the low [`LEN_BITS`] bits of the first
/// half, its distance symbol (0-29) above them, and the distance. The symbol is found once,
/// here, where a match is recorded (1.6 times per input byte on text), and not again by each
/// pass of the parser that prices it (`strategy/dp.rs`).
#[inline(always)]
pub fn pack(len: usize, dist: usize) -> (u16, u16) {
    (
        (len | dist_sym(dist as u32) << LEN_BITS) as u16,
        dist as u16,
    )
}

/// Bits of a packed match's length (see [`pack`]).
pub const LEN_BITS: u32 = 9;
/// Mask of a packed match's length.
pub const LEN_MASK: u16 = (1 << LEN_BITS) - 1;

impl Bt {
    /// Trees for a window of `1 << window_bits` (at most 32 KiB: the masked child slots
    /// hold no more).
    pub fn new(window_bits: u8) -> Bt {
        let w = 1usize << window_bits.min(15);
        Bt {
            head: vec![0; 1 << HASH_BITS],
            child: ZeroTable::new(),
            head3: Vec::new(),
            mask: w - 1,
            next: 0,
            hash3: false,
        }
    }

    /// Empties the trees (and the 3-byte table, allocated on first use).
    pub fn reset(&mut self) {
        self.head.fill(0);
        if self.hash3 {
            self.head3.clear();
            self.head3.resize(1 << HASH3_BITS, 0);
        }
        self.next = 0;
    }

    /// Inserts positions `self.next..to` without reporting matches.
    /// `buf` is the whole segment buffer (see the module doc).
    pub fn skip_to(&mut self, buf: &[u8], to: usize, depth: u32, nice: usize, max_dist: usize) {
        while self.next < to {
            let p = self.next;
            self.advance::<false>(buf, p, 0, depth, nice, max_dist, &mut []);
        }
    }

    /// Inserts the positions `self.next..to` that lie inside a match of `nice` bytes or more:
    /// every [`INSIDE_STRIDE`]-th, and the last [`INSIDE_TAIL`] (where the next search
    /// starts). Each insertion walks its tree as a search does, though it finds its
    /// predecessor's copy `nice` bytes long at once; the data there repeats itself, so a later
    /// search that would have found a skipped position finds one nearby, or the older copy.
    pub fn skip_match(&mut self, buf: &[u8], to: usize, depth: u32, nice: usize, max_dist: usize) {
        let tail = to.saturating_sub(INSIDE_TAIL).max(self.next);
        let mut p = self.next;
        while p < tail {
            self.advance::<false>(buf, p, 0, depth, nice, max_dist, &mut []);
            p += INSIDE_STRIDE;
        }
        self.next = self.next.max(tail);
        self.skip_to(buf, to, depth, nice, max_dist);
    }

    /// Inserts `pos` (the caller goes in order) and, with `RECORD`, writes to the start of
    /// `out` (at least [`FOUND`] long) every match longer than all closer ones, [`pack`]ed,
    /// after the latest length-3 match if `hash3` is set and there is one, with lengths
    /// clamped to end at `rec_end`. Returns how many it wrote and the longest length
    /// recorded from the trees (0 if < 4; both 0 without `RECORD`). `buf` is the whole
    /// segment buffer (see the module doc).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub fn advance<const RECORD: bool>(
        &mut self,
        buf: &[u8],
        pos: usize,
        rec_end: usize,
        depth: u32,
        nice: usize,
        max_dist: usize,
        out: &mut [(u16, u16)],
    ) -> (usize, usize) {
        self.next = pos + 1;
        let end = buf.len();
        if pos + 4 > end {
            return (0, 0);
        }
        // The walk writes its matches straight into the caller's list (no `Vec` push, whose
        // capacity test and grow call in the loop cost levels 10-12 2-4% of their time, nor a
        // copy after it: its `memcpy` call took 1-2%). Sliced to `FOUND`, the masked indices
        // below need no bounds check.
        let found: &mut [(u16, u16)] = if RECORD { &mut out[..FOUND] } else { out };
        let mut n = 0usize;
        // An insertion compares no further than `nice`: a walk stops at a match that long
        // whatever its length, and records nothing (libdeflate's skip does the same). Inside a
        // run of one byte each insertion compared all 258 bytes: 100 MB of zeros at level 10
        // took 4.75 s (libdeflate -10: 2.0 s).
        let max = (end - pos).min(if RECORD { MAX_MATCH } else { nice });
        let nice = nice.min(max);
        // Longest length that may be recorded; below 3 nothing is.
        let rec_max = rec_end.saturating_sub(pos).min(max);
        let v = load32(buf, pos);
        // The next position's tree root and 3-byte slot, fetched while this one walks.
        if pos + 5 <= end {
            let v1 = load32(buf, pos + 1);
            crate::arch::prefetch(&self.head, hash4(v1));
            if self.hash3 {
                crate::arch::prefetch(&self.head3, hash3(v1));
            }
        }
        // A candidate `c` (held as c + 1 in `cur`) is in the window while `cur > cutoff`.
        let cutoff = pos.saturating_sub(max_dist.min(self.mask));
        if self.hash3 {
            let slot3 = &mut self.head3[hash3(v)];
            let c3 = *slot3 as usize;
            *slot3 = pos as u32 + 1;
            // First in the list: the lengths increase.
            if RECORD && rec_max >= 3 && c3 > cutoff && (load32(buf, c3 - 1) ^ v) << 8 == 0 {
                found[0] = pack(3, pos + 1 - c3);
                n = 1;
            }
        }
        let h = hash4(v);
        let mut cur = self.head[h] as usize;
        self.head[h] = pos as u32 + 1;
        let mask = self.mask;
        let child = &mut *self.child;
        // Every slot index is below `CHILD` (a position's two slots, `2 * (p & mask) + 0/1`);
        // the masks below only tell the compiler so.
        let slot = 2 * (pos & mask);
        let (mut pend_lt, mut pend_gt) = (slot, slot + 1);
        let (mut lt_len, mut gt_len) = (0usize, 0usize);
        let mut best = 3usize;
        let mut depth = depth;
        // The prefix known at the step before this one (see below).
        let mut known_before = 0usize;
        loop {
            if cur <= cutoff || depth == 0 {
                child[pend_lt & SLOT_MASK] = 0;
                child[pend_gt & SLOT_MASK] = 0;
                break;
            }
            let c = cur - 1;
            let cs = 2 * (c & mask);
            // The children are loaded while the bytes are compared (one cache line).
            let pair = [child[cs & SLOT_MASK], child[(cs + 1) & SLOT_MASK]];
            // The comparison starts after the prefix that was known one step earlier, not
            // the one known now: that is never longer (the known prefix only grows along a
            // walk), so still safe, and its address does not wait for the last comparison's
            // length. Levels 10 / 11 / 12 0.976x / 0.966-0.970x / 0.965x their time, the same
            // output (alternating runs). From two steps earlier: 1.03x / 1.03x / 1.01x the
            // time of this.
            let known = known_before;
            known_before = lt_len.min(gt_len);
            let (more, lt) = match_len_order(buf, c + known, pos + known, max - known);
            let len = known + more;
            if RECORD && len > best && best < rec_max {
                debug_assert_eq!(len, match_len(buf, c, pos, max), "known prefix overstated");
                best = len.min(rec_max);
                found[n & (FOUND - 1)] = pack(best, pos - c);
                n += 1;
            }
            if len >= nice {
                child[pend_lt & SLOT_MASK] = pair[0];
                child[pend_gt & SLOT_MASK] = pair[1];
                break;
            }
            // The candidate goes to the side it sorts to, and the walk follows it there.
            // Which side that is, is a coin toss a branch would mispredict half the time, so
            // the next node and pending slot are selected without one, from the order the
            // compared words gave (no byte read again): L10-12 8-9% faster than branching on
            // a byte comparison (either change alone: flat, +3-5%).
            let pend = select_unpredictable(lt, pend_lt, pend_gt);
            child[pend & SLOT_MASK] = cur as u32;
            pend_lt = select_unpredictable(lt, cs + 1, pend_lt);
            pend_gt = select_unpredictable(lt, pend_gt, cs);
            lt_len = select_unpredictable(lt, len, lt_len);
            gt_len = select_unpredictable(lt, gt_len, len);
            cur = select_unpredictable(lt, pair[1], pair[0]) as usize;
            depth -= 1;
        }
        (n, if best > 3 { best } else { 0 })
    }
}

#[cfg(test)]
mod tests {
    use super::super::bytes::xorshift;
    use super::*;

    /// The trees trust their known prefixes, so every recorded length must still be exact:
    /// parsed as the near-optimal tier parses (windows that clamp the lengths, some positions
    /// inside long matches only inserted), on data full of long common prefixes (two-letter
    /// noise, periods, runs crossing window ends), each match equals its true length clamped
    /// to the window end (the 3-byte table's match is real for its 3 bytes), the lengths
    /// increase, the distances stay in the window and each carries its distance symbol.
    #[test]
    fn recorded_lengths_are_exact() {
        let mut rnd = xorshift(0x5DEE_CE66_D1CE_4E5Bu64);
        let mut inputs: Vec<Vec<u8>> = vec![
            (0..40_000).map(|_| b"ab"[(rnd() & 1) as usize]).collect(),
            (0..40_000)
                .map(|i| b"abcab"[i % 5] ^ rnd().is_multiple_of(61) as u8)
                .collect(),
            (0..40_000).map(|_| rnd() as u8 & 3).collect(),
        ];
        let mut runs: Vec<u8> = Vec::new();
        for k in 0..200usize {
            runs.extend(std::iter::repeat_n(b'x', 1 + (k * 37) % 300));
            runs.extend((0..(k % 7)).map(|_| b"xy"[(rnd() & 1) as usize]));
        }
        inputs.push(runs);
        for data in &inputs {
            for (window, nice, depth, hash3) in [
                (997, 258, 300, true),
                (4096, 24, 24, false),
                (1 << 16, 12, 1000, false),
                (333, 150, 100, true),
            ] {
                let mut bt = Bt::new(15);
                bt.hash3 = hash3;
                bt.reset();
                let (mut w0, mut out) = (0usize, [(0u16, 0u16); FOUND]);
                while w0 < data.len() {
                    let w1 = (w0 + window).min(data.len());
                    let mut p = w0;
                    while p < w1 {
                        let (n, long) =
                            bt.advance::<true>(data, p, w1, depth, nice, 1 << 15, &mut out);
                        let max = (data.len() - p).min(MAX_MATCH);
                        let mut prev = 0;
                        for &(l, d) in &out[..n] {
                            assert_eq!((l >> LEN_BITS) as usize, dist_sym(d as u32));
                            let (l, d) = ((l & LEN_MASK) as usize, d as usize);
                            assert!(l > prev && l >= 3 && p + l <= w1 && (1..=p).contains(&d));
                            let exact = match_len(data, p - d, p, max).min(w1 - p);
                            // The 3-byte table's match is reported as 3 bytes long.
                            if hash3 && l == 3 {
                                assert!(exact >= 3, "p {p} d {d}");
                            } else {
                                assert_eq!(l, exact, "p {p} d {d} window {window} nice {nice}");
                            }
                            prev = l;
                        }
                        if long >= nice {
                            let to = (p + long).min(w1);
                            bt.skip_match(data, to, depth, nice, 1 << 15);
                            p = to;
                        } else {
                            p += 1;
                        }
                    }
                    w0 = w1;
                }
            }
        }
    }
}
