//! Near-optimal parsing (levels 10-12), in the spirit of libdeflate's near-optimal compressor.
//!
//! The segment is cut into windows of `WINDOW` bytes. For each window every position's
//! candidate matches (each longer than all closer ones) are collected from deep binary-tree
//! searches (`bt.rs`); positions inside a match of `nice` length or more are not searched,
//! and only some of them are inserted (`Bt::skip_match`). Every other position is searched,
//! also in data that looks incompressible to a run of misses (the greedy and lazy tiers step
//! over such stretches): the skipped positions' matches cost 1.2% on a PDF with compressed
//! streams (paper-100k: 1.250 against 1.265 at level 12). Only a window that follows one
//! whose parse found (almost) no matches is searched sparsely (`QUIET_SHARE`), which that PDF
//! never triggers.
//! Skipping the positions inside shorter matches too (those of 64 bytes or more, `nice`
//! staying as the row says) cost more bytes than the time it saved bought: level 11 0.92x
//! the time for 3,008,668 bytes against 3,005,348 (more than libdeflate -12's 3,006,498),
//! level 12 0.83x for 3,005,298 against 3,000,890; no row with such a threshold (64 or 100,
//! depth 60-200, one or two passes) beat level 11's bytes at its time.
//! Then a backward dynamic program (`dp.rs`) picks, for every position, the literal or (length,
//! distance) that minimises the total bit cost to the window end, trying every length a
//! candidate allows. Symbols are priced by their information content (in 1/16 bits) in the
//! previous parse: each pass's parse prices the next pass, and a window's last parse prices
//! the next window's first pass, so the parse and the codes converge across windows and not
//! only within one (levels 10/11/12 run 1/1/2 passes). Only a stream's first window starts
//! from a static model, and gets one pass more. Starting every window from the static model
//! cost 0.4% of ratio at one pass (corpus at level 12's depth 3.675 -> 3.661) and 0.1% at two.
//! Level 12's second pass, run only where the first moved the prices by more than a mean of
//! T/16 bit per symbol, saves time in proportion to the bytes it gives up, as one pass does
//! (per-file corpus, 3,000,890 bytes with both passes everywhere): T = 3, 3,001,680 at
//! 0.94-0.96x the time; T = 4, 3,002,057 at 0.90x; one pass, 3,002,979 at 0.87-0.90x. Not kept.
//! The prices never outlive a stream ([`Ctx::start_stream`]), so output does not depend on
//! what a reused context compressed before, nor on the thread count.
//!
//! Prices carried from parse to parse can settle where they should not. On DNA the static
//! model's 7-9 bit literals made every 7-byte match look cheap; the parse took them (99% of
//! the bytes in matches, 7 bytes long on average), literals became rare and so stayed
//! expensive, and levels 10-12 compressed worse than Huffman coding alone (random bases:
//! 3.455 against 3.512; libdeflate -10 3.582). So where a window's parse saves less than a
//! tenth over its bytes coded as literals alone ([`ESCAPE_SHARE`], estimated from every
//! fourth byte), the window is parsed again, as many passes, from the same prices with the
//! literals priced as literals alone would be, and the parse that costs less at its own
//! prices is kept (as libdeflate weighs a block of literals alone against its parse). This
//! needs prices close to what a Huffman code charges (`prices.rs`): with the information
//! content alone the second parse took too few matches, and SAM reads lost 1% (6.866 ->
//! 6.800). Ratio at levels 10 / 12, before -> with both (libdeflate -10 / -12): C. elegans
//! FASTA (htslib's `test/ce.fa`) 3.731 / 3.766 -> 3.878 / 3.881 (3.878 / 3.884); SAM reads
//! (`test/ce#large_seq.sam`) 6.866 / 6.887 -> 6.980 / 6.989 (7.000 / 7.035); 8 MB of random
//! bases in 60-byte lines 3.455 / 3.468 -> 3.551 / 3.545 (3.582 / 3.582). A share of 0.85 or
//! 0.95 gave the same. The corpus's parses save far more than a tenth, except on
//! paper-100k.pdf and fireworks.jpeg, whose bytes hardly changed; per-file corpus bytes
//! 3,006,069 / 3,005,348 / 3,000,890 -> 3,005,078 / 3,004,316 / 2,999,754 at levels 10 / 11 /
//! 12 (the prices' share), at 1.00x / 1.00x / 1.00-1.01x the time (alternating runs). Random
//! bases, where every window is parsed twice, take 1.15x the time at level 10 (10.5 MB/s;
//! libdeflate -10 8.2).
//! The blocks are chosen by cost after the parse (`plan.rs`), as at levels 2-9. The figures
//! on windows and first passes below were measured when the statistics splitter chose them.
#![forbid(unsafe_code)]

use super::dp::{Candidates, Parse, KERNEL_MATCHES};
use super::prices::{literal_bits_sampled, Costs};
use crate::deflate::bt::{pack, Bt, FOUND, LEN_MASK};
use crate::deflate::bytes::{match_len, table, MAX_MATCH};
use crate::deflate::ctx::Ctx;
use crate::deflate::minlen;

/// Bytes parsed per dynamic program: long enough for stable statistics, short enough that the
/// prices follow the data and the match lists stay in cache. Corpus / sample ratio at levels
/// 10, 11, 12 with windows of 16 / 32 / 64 / 128 KiB: L10 3.664 / 3.666 / 3.663 / 3.659,
/// 4.149 / 4.151 / 4.146 / 4.130; L12 3.680 / 3.682 / 3.682 / 3.681, 4.181 / 4.188 / 4.186 /
/// 4.163. The speed does not change.
pub const WINDOW: usize = 32768;
/// A window whose parse covers at most 1/`QUIET_SHARE` of its bytes with matches is quiet
/// (incompressible data: random bytes get a few short matches the prices favour). The next
/// window then searches and inserts only every `QUIET_STRIDE`-th position, until one of them
/// finds a match of `QUIET_END` bytes or more (the data has changed), and is quiet in turn if
/// its parse is. On 4 MB of random bytes, paired alternating runs: level 10 0.55x the time
/// (best 26.8 -> 38.2 MB/s), level 12 0.62x (18.2 -> 39.5; libdeflate -12 did 34 on such
/// data in the harness). Per-file corpus bytes at levels 10 / 12: 3005930 -> 3005918 /
/// 3000774 -> 3000770 (with the distance check below); a 67 MB tar of /usr/bin 27262448 ->
/// 27262447 / 27196787 -> 27196785. The skipped positions are not in the trees, so a later
/// copy of a quiet stretch is found only at every eighth position at first; after a match of
/// `nice` bytes or more the next position also tries that match's distance, which carries
/// the copy on (16 KiB copied after 32 KiB of random bytes costs 128 bytes, as when every
/// position was searched; 566 without the check).
const QUIET_SHARE: usize = 64;
/// See [`QUIET_SHARE`]. A power of two: the positions searched are picked with a mask.
const QUIET_STRIDE: usize = 8;
const _: () = assert!(QUIET_STRIDE.is_power_of_two());
/// See [`QUIET_SHARE`]: random bytes almost never give a match this long.
const QUIET_END: usize = 8;
/// Extra passes over a stream's first window, which starts from static prices. Per-file
/// corpus ratio at levels 10 / 11 / 12: none 3.6655 / 3.6807 / 3.6833, one 3.6680 / 3.6816 /
/// 3.6838 (fields.c at level 10 3.661 -> 3.677, sum 2.986 -> 3.050), two 3.6680 / 3.6822 /
/// 3.6838. Inputs of one window (most zlib calls) pay the pass in full.
const EXTRA_FIRST: u32 = 1;
/// A window whose parse costs more than `.0 / .1` of what its bytes would as literals alone
/// is parsed again from literal prices (see [`run`]).
const ESCAPE_SHARE: (u64, u64) = (9, 10);
/// Parses `buf[start..]` near-optimally with the level row's depth, nice length, passes and
/// length-3 matches.
pub fn run(ctx: &mut Ctx, buf: &[u8], start: usize) {
    let mut mf = ctx.bt.take().unwrap_or_else(|| Bt::new(ctx.window_bits));
    // Length-3 matches (level 12): per-file corpus 3.6746 -> 3.6803 at the depth level 10 had
    // then, 9% slower. Levels 10 and 11 take them too on data that is not text-like, where
    // they pay most: four 1 MB pieces of executables 2.555 -> 2.628 at level 10 (libdeflate
    // -10: 2.634). None where the minimum is above three (Z_FILTERED).
    let min = ctx.min_match;
    mf.hash3 = (ctx.row.hash3 && min == 3)
        || minlen::three_byte_matches(min, &minlen::sample(&buf[start..]));
    let passes = ctx.row.passes.max(1);
    mf.reset();
    let max_dist = ctx.max_dist;
    let depth = ctx.row.depth;
    let nice = ctx.row.nice as usize;
    let min_len = if mf.hash3 { min } else { min.max(4) };
    mf.next = start.saturating_sub(max_dist);
    mf.skip_to(buf, start, depth, nice, max_dist);
    // The candidates of the window's positions, packed (`bt::pack`): `matches[..used]`. The
    // `Vec` is kept longer: [`FOUND`] + 1 for the next walk and the match `rep` adds, then
    // [`KERNEL_MATCHES`] for the dynamic program's kernel (`dp.rs`).
    let mut matches: Vec<(u16, u16)> = Vec::new();
    // Where each position's candidates start in `matches` (the window's end last). Written by
    // index into an array sized for a window rather than pushed to a `Vec`: with no push (its
    // capacity test and grow call) in the loop around the inlined tree walk, levels 10-12 run
    // 4-7% faster (same output; median per-file time ratio, both versions in one binary
    // alternating file by file, either as the second code path).
    let mut first: Box<[u32; WINDOW + 1]> = table();
    let mut parse = ctx.parse.take().unwrap_or_else(Parse::new);
    let mut w0 = start;
    // The last window's parse was almost all literals.
    let mut quiet = false;
    while w0 < buf.len() {
        let w1 = (w0 + WINDOW).min(buf.len());
        let n = w1 - w0;
        // 1. Candidate matches of every position (limited to the window end).
        let mut used = 0usize;
        let mut p = w0;
        // After a quiet window only every `QUIET_STRIDE`-th position is searched (and
        // inserted), until one finds a match of `QUIET_END` bytes or more.
        let mut skip_mask = if quiet { QUIET_STRIDE - 1 } else { 0 };
        // The distance of the last match of `nice` bytes or more, if it ended here.
        let mut rep = 0usize;
        while p < w1 {
            first[p - w0] = used as u32;
            if (p - w0) & skip_mask != 0 {
                mf.next = p + 1;
                p += 1;
                continue;
            }
            if matches.len() < used + FOUND + 1 {
                matches.resize(2 * used + FOUND + 1, (0, 0));
            }
            let at = used;
            let (found, mut long) =
                mf.advance::<true>(buf, p, w1, depth, nice, max_dist, &mut matches[used..]);
            used += found;
            if rep != 0 {
                // Right after a match of `nice` bytes or more: its distance, which goes on
                // where the data repeats, though the trees may not hold the position that
                // continues it (the quiet windows' skipped positions).
                let have = matches[at..used]
                    .last()
                    .map_or(0, |m| (m.0 & LEN_MASK) as usize);
                let l = match_len(buf, p - rep, p, (w1 - p).min(MAX_MATCH));
                if l >= 4 && l > have {
                    matches[used] = pack(l, rep);
                    used += 1;
                    long = long.max(l);
                }
                rep = 0;
            }
            if long >= QUIET_END {
                skip_mask = 0;
            }
            if long >= nice {
                // Inside such a match only every third position is in the trees
                // ([`Bt::skip_match`]), so in periodic data the copy found may be two or three
                // periods back: the period itself, as long, is taken instead (see
                // [`closer_period`]).
                let (l, d) = matches[used - 1];
                matches[used - 1] = pack(
                    (l & LEN_MASK) as usize,
                    closer_period(buf, p, d as usize, long, w1),
                );
                rep = matches[used - 1].1 as usize;
                let skip_to = (p + long).min(w1);
                first[p + 1 - w0..skip_to - w0].fill(used as u32);
                mf.skip_match(buf, skip_to, depth, nice, max_dist);
                p = skip_to;
            } else {
                p += 1;
            }
        }
        first[n] = used as u32;
        if matches.len() < used + KERNEL_MATCHES {
            matches.resize(used + KERNEL_MATCHES, (0, 0));
        }
        // 2. Dynamic program, refined `passes` times. The first pass prices symbols as the
        // previous window's final parse used them (static prices, and a pass more, only for a
        // stream's first window).
        let (mut model, passes) = match ctx.costs.take() {
            Some(m) => (m, passes),
            None => (Costs::initial(), passes + EXTRA_FIRST),
        };
        let bytes = &buf[w0..w1];
        let candidates = Candidates {
            bytes,
            first: &first,
            matches: &matches,
            min_len,
        };
        let mut bits = 0;
        for _ in 0..passes {
            parse.run(&candidates, &model);
            (model, bits) = parse.prices(bytes);
        }
        // A parse that saves less than a tenth over literals alone may have settled where
        // matches look cheap only because literals are rare: the window is parsed again from
        // literals priced as if they were alone, and the cheaper parse kept.
        if bits * ESCAPE_SHARE.1 > literal_bits_sampled(bytes) * ESCAPE_SHARE.0 {
            let alt = ctx.alt_parse.get_or_insert_with(Parse::new);
            let mut m = model.with_literals_of(bytes);
            let mut alt_bits = 0;
            for _ in 0..passes {
                alt.run(&candidates, &m);
                (m, alt_bits) = alt.prices(bytes);
            }
            if alt_bits < bits {
                std::mem::swap(&mut parse, alt);
                model = m;
            }
        }
        ctx.costs = Some(model);
        // 3. Emit the chosen path.
        let (mut i, mut matched) = (0, 0);
        let choice = parse.choice(n);
        while i < n {
            let (l, d) = choice[i];
            if l == 0 {
                ctx.sb.lit(buf[w0 + i]);
                i += 1;
            } else {
                ctx.sb.matched(l as u32, d as u32);
                i += l as usize;
                matched += l as usize;
            }
            ctx.sym_done(buf, w0 + i);
        }
        quiet = matched * QUIET_SHARE <= n;
        w0 = w1;
    }
    ctx.bt = Some(mf);
    ctx.parse = Some(parse);
}

/// The distance a third or half of `d` back from `p` if the match there is as long as `long`
/// (clamped to `w1`), else `d`.
///
/// A 1 KiB block of random bytes repeated (8 MB): every match is 258 bytes long, so the
/// matches start, and the positions inserted inside them lie, a multiple of three apart; the
/// copy one period (1,024 bytes) back was never in the trees and the parse took the one three
/// periods back, at two more extra bits per match. Level 10 ratio 180.9 -> 199.0 (libdeflate
/// -10 199.2, our level 6 198.4); per-file corpus bytes at levels 10 / 11 / 12 -9 / -19 / -41.
fn closer_period(buf: &[u8], p: usize, d: usize, long: usize, w1: usize) -> usize {
    for k in [3, 2] {
        if d.is_multiple_of(k) && match_len(buf, p - d / k, p, (w1 - p).min(MAX_MATCH)) >= long {
            return d / k;
        }
    }
    d
}

#[cfg(test)]
pub(super) mod tests {
    use crate::deflate::block::sym_match_len;
    use crate::deflate::ctx::Ctx;
    use crate::deflate::LevelRow;
    use crate::deflate::LEVELS;

    /// `n` bytes of text from 40-60 random words of `letters` letters, `len.0` to
    /// `len.0 + len.1 - 1` letters long (a space after each if `spaced`), and the same bytes
    /// scrambled so that they no longer look like text (the 3-byte table's trigger).
    pub(in crate::deflate::strategy) fn text_and_binary(
        rnd: &mut impl FnMut() -> u64,
        letters: u64,
        len: (usize, usize),
        spaced: bool,
        n: usize,
    ) -> [Vec<u8>; 2] {
        let words: Vec<Vec<u8>> = (0..40 + rnd() as usize % 21)
            .map(|_| {
                let mut w: Vec<u8> = (0..len.0 + rnd() as usize % len.1)
                    .map(|_| b'a' + (rnd() % letters) as u8)
                    .collect();
                if spaced {
                    w.push(b' ');
                }
                w
            })
            .collect();
        let mut text = Vec::with_capacity(n + 16);
        while text.len() < n {
            text.extend_from_slice(&words[rnd() as usize % words.len()]);
        }
        text.truncate(n);
        let binary = text
            .iter()
            .map(|&b| b.wrapping_mul(37) ^ (b >> 1))
            .collect();
        [text, binary]
    }

    /// The symbols of `data` parsed alone with `row` and a shortest match of `min`.
    pub(in crate::deflate::strategy) fn parse(row: LevelRow, min: usize, data: &[u8]) -> Vec<u32> {
        let mut ctx = Ctx::new(row, 15, 8);
        ctx.min_match = min;
        ctx.begin(0);
        super::run(&mut ctx, data, 0);
        ctx.sb.syms
    }

    /// The parse takes no match shorter than the context's minimum (6 under Z_FILTERED), also
    /// where the trees report shorter ones before longer ones: on bytes full of 4- and 5-byte
    /// repeats, with and without the 3-byte table (text-like and not).
    #[test]
    fn no_match_below_the_minimum() {
        let mut rnd = crate::deflate::bytes::xorshift(0x5851_F42D_4C95_7F2Du64);
        for data in text_and_binary(&mut rnd, 8, (4, 6), false, 60_000) {
            for (level, &row) in LEVELS.iter().enumerate().skip(10) {
                for min in [3, 6] {
                    let shortest = parse(row, min, &data)
                        .iter()
                        .filter_map(|&s| sym_match_len(s))
                        .min()
                        .expect("matches");
                    assert!(
                        shortest as usize >= min,
                        "level {level} min {min}: {shortest}"
                    );
                }
            }
        }
    }
}
