//! Greedy and lazy parsing over hash chains (levels 2-12 of the chain tiers).
//!
//! Greedy takes the longest match found at each position. Lazy (zlib's deflate_slow,
//! libdeflate's lazy) first looks one position ahead, with half the search depth: if the next
//! position has a better match (longer, unless its distance costs many more bits; or as long
//! and much closer), the current byte becomes a literal and the decision is repeated there.
//! Lazy2 (libdeflate's, levels 5-9) then also looks at the position after that, with a quarter
//! of the depth, and emits two literals if a match there is clearly better. Matches of length 3
//! further than `TOO_FAR` cost more bits than the three literals they replace and are dropped.
#![forbid(unsafe_code)]

use crate::deflate::bytes::MAX_MATCH;
use crate::deflate::ctx::{Carry, Ctx, Finder};
use crate::deflate::matchfind::{Chains, SMALL_SEGMENT};
use crate::deflate::minlen;

/// A length-3 match further than this is not worth its distance bits (zlib uses 4096).
const TOO_FAR: usize = 8192;
/// Consecutive failed searches before the parser starts skipping: compressible data rarely
/// goes 64 positions without a match, random data always does. (256 gave the same ratio on
/// the sample, the corpus and a 200 MB tar of /usr, at L6 2% slower on the tar.)
const MISS_LIMIT: usize = 64;

/// Of the positions stepped over in data that looks incompressible, every this many is hashed
/// (the first of each step among them); the searched ones are hashed as always. Hashing all of
/// them cost most of the time on such data: 20 MB of random bytes in 0.60x the time at level 6
/// and 0.63x at level 9, a 67 MB tar of /usr/bin 0.96x at level 6 (paired alternating runs).
/// What the skipped positions could still match is little: per-file corpus at level 6
/// 3174059 -> 3174233 bytes (paper-100k.pdf, with compressed streams, 81273 -> 81362), the tar
/// 28319302 -> 28320364. Hashing none of them lost 0.9% on paper-100k.pdf. A later copy of
/// such a stretch is found late (at a searched position whose counterpart was hashed), then
/// carried on by the distance check after each match of the longest length
/// ([`Chains::find`]): 16 KiB copied after 32 KiB of random bytes costs 575 bytes (179 with
/// every position hashed, 718 without the check).
const SKIP_STRIDE: usize = 8;

/// Parses `buf[start..]`, looking `ahead` positions past a match before taking it: 0 is greedy,
/// 1 lazy, 2 libdeflate's lazy2.
///
/// A segment that goes on from the last one's chains ([`Ctx::resume`], full-size chains only)
/// keeps their keys and hashes no history. Full-size chains left for a continuation
/// ([`Ctx::keep`]) use all the hash bits the memory level allows, as the buffer will grow;
/// a buffer shorter than [`SMALL_SEGMENT`] keeps the small chains and leaves nothing (its
/// history is short to hash again).
pub fn run(ctx: &mut Ctx, buf: &[u8], start: usize, ahead: u32) {
    let resume = match ctx.resume.take() {
        Some(Finder::Chains { long, short }) if ctx.chains.is_some() => Some((long, short)),
        _ => None,
    };
    if buf.len() < SMALL_SEGMENT && resume.is_none() {
        run_with(ctx, |c| &mut c.small_chains, buf, start, ahead, None, false);
    } else {
        let keep = ctx.keep;
        run_with(ctx, |c| &mut c.chains, buf, start, ahead, resume, keep);
    }
}

/// [`run`] with the chains kept in `slot` (allocated on first use, reset for this segment
/// unless it goes on with the `resume` keys), leaving them for a continuation if `keep`.
fn run_with<const H: usize, const P: usize, const Q: usize>(
    ctx: &mut Ctx,
    slot: fn(&mut Ctx) -> &mut Option<Chains<H, P, Q>>,
    buf: &[u8],
    start: usize,
    ahead: u32,
    resume: Option<(bool, bool)>,
    keep: bool,
) {
    let mut mf = slot(ctx).take().unwrap_or_else(|| ctx.new_chains());
    if resume.is_some() {
        mf.resume();
    } else {
        // A buffer kept for a continuation grows: it gets every hash bit from the start.
        mf.reset(if keep { usize::MAX >> 1 } else { buf.len() });
        mf.next = start.saturating_sub(ctx.max_dist);
    }
    let freq = minlen::sample(&buf[start..]);
    // Raised where literals are cheap (`minlen.rs`), for greedy parsing too: on genomic data
    // (C. elegans FASTA, SAM reads, random bases) it gained 6-13% at levels 2 and 3 (ce.fa
    // 3.352 -> 3.779 at level 2), where libdeflate's greedy levels already did the same; the
    // per-file corpus 0.02% (3,279,135 -> 3,278,392 bytes at level 2), at the same speed.
    let min = ctx.min_match.max(minlen::from_counts(&freq).unwrap_or(3));
    // Five-byte chains for text-like data of 32 KiB or more; data with more byte values in use
    // (executables, compressed files) keeps its short matches on four-byte chains, and short
    // text its few repeats. A short head (`SHORT`, see `matchfind.rs`) keeps the nearest
    // four-byte match on five-byte chains (the lazy parsers: greedy parsing measured better
    // without it), and on four-byte chains the nearest three-byte one where three-byte
    // matches pay (data that is not text-like, minimum 3). On executables the greedy levels
    // gain with it as the lazy ones do: level 2 2.4128 -> 2.4612 at 0.91-0.92x of its speed,
    // level 3 2.4285 -> 2.4753 at 0.89-0.92x (interleaved runs), so level 2 now compresses
    // them better than level 3 did.
    let (long, short) = resume.unwrap_or_else(|| {
        let long = ctx.row.chain5 && minlen::long_keys(buf.len() - start, || freq);
        let short = if long {
            ahead > 0
        } else {
            minlen::three_byte_matches(min, &freq)
        };
        (long, short)
    });
    match (ahead, long, short) {
        (0, false, false) => parse::<H, P, Q, 0, false, false>(ctx, &mut mf, buf, start, min),
        (0, false, true) => parse::<H, P, Q, 0, false, true>(ctx, &mut mf, buf, start, min),
        (0, true, _) => parse::<H, P, Q, 0, true, false>(ctx, &mut mf, buf, start, min),
        (1, false, false) => parse::<H, P, Q, 1, false, false>(ctx, &mut mf, buf, start, min),
        (1, false, true) => parse::<H, P, Q, 1, false, true>(ctx, &mut mf, buf, start, min),
        (1, true, _) => parse::<H, P, Q, 1, true, true>(ctx, &mut mf, buf, start, min),
        (_, false, false) => parse::<H, P, Q, 2, false, false>(ctx, &mut mf, buf, start, min),
        (_, false, true) => parse::<H, P, Q, 2, false, true>(ctx, &mut mf, buf, start, min),
        (_, true, _) => parse::<H, P, Q, 2, true, true>(ctx, &mut mf, buf, start, min),
    }
    if keep {
        // On five-byte chains the parser chose the short head by its look-ahead.
        let short = if long { ahead > 0 } else { short };
        ctx.carry = Some(Carry {
            finder: Finder::Chains { long, short },
            end: buf.len(),
        });
    }
    *slot(ctx) = Some(mf);
}

/// [`run`] with chains of either size, compiled for each look-ahead and for four- or five-byte
/// chains (`LONG`, from the row's `chain5`) with or without a short head (`SHORT`; see
/// `matchfind.rs`). Compiled for BMI2 as well (its shifts by the hash bits take one
/// instruction, not two, and each position inserted shifts twice), levels 4 / 6 / 8 took
/// 1.01-1.02x / 1.02-1.04x / 1.01-1.03x the time (per-file corpus, alternating runs): not kept.
fn parse<
    const H: usize,
    const P: usize,
    const Q: usize,
    const AHEAD: u32,
    const LONG: bool,
    const SHORT: bool,
>(
    ctx: &mut Ctx,
    mf: &mut Chains<H, P, Q>,
    buf: &[u8],
    start: usize,
    min: usize,
) {
    let end = buf.len();
    let max_dist = ctx.max_dist;
    let depth = ctx.row.depth;
    let nice = ctx.row.nice as usize;
    let lazy_max = (ctx.row.lazy as usize).min(nice);
    let good = ctx.row.good as usize;
    // The history (from `mf.next`, which the caller set).
    mf.insert_to::<LONG, SHORT>(buf, start);
    let accept = |l: usize, d: usize| l >= min && (l > 3 || d <= TOO_FAR);
    // libdeflate's rule: a longer match is worth a literal unless its distance costs many more
    // bits; an equally long one only if it is much closer.
    let bsr = |d: usize| (usize::BITS - 1 - d.leading_zeros()) as i32;
    // lazy2 asks more of a match two positions on (> 6), which costs two literals.
    let gain = |l: usize, d: usize, l2: usize, d2: usize| 4 * (l2 - l) as i32 + bsr(d) - bsr(d2);
    let mut p = start;
    let mut miss = 0usize;
    // The distance of a match of the longest length that ends at `p` (0 if none). The last
    // match's distance tried at every search instead (structured text repeats at a line's
    // distance) gained nothing on JSON logs, a VCF or SAM reads and cost the corpus 1,060
    // bytes at level 6 and 15,000 at level 4.
    let mut rep = 0usize;
    while p < end {
        let (mut l, mut d) = mf.find::<LONG, SHORT>(buf, p, min - 1, depth, nice, max_dist, rep);
        rep = 0;
        if !accept(l, d) {
            // After MISS_LIMIT searches without a match the data looks incompressible: step
            // over more and more positions unsearched, hashing only every `SKIP_STRIDE`-th.
            miss += 1;
            if miss > MISS_LIMIT {
                p = skip_literals(ctx, buf, p, miss);
                mf.insert_sparse::<LONG, SHORT>(buf, p, SKIP_STRIDE);
            } else {
                ctx.sb.lit(buf[p]);
                p += 1;
            }
            ctx.sym_done(buf, p);
            continue;
        }
        miss = 0;
        while AHEAD > 0 && l < lazy_max && p + 1 < end {
            // A shallower search suffices to beat a match in hand, shallower still a good one.
            let dd = if l >= good { depth / 4 } else { depth / 2 };
            let (l2, d2) = mf.find::<LONG, SHORT>(buf, p + 1, l - 1, dd.max(1), nice, max_dist, 0);
            if l2 >= l && accept(l2, d2) && gain(l, d, l2, d2) > 2 {
                ctx.sb.lit(buf[p]);
                p += 1;
                l = l2;
                d = d2;
                continue;
            }
            // lazy2: a second look, for a match worth two literals. Not past a three-byte
            // match (found on data where those pay, see `matchfind.rs`): on executables that
            // look cost 1-11% of level 6's time (median 3%, interleaved runs) and gained
            // nothing (ratio 2.5353 -> 2.5359 without it).
            if AHEAD > 1 && l > 3 && p + 2 < end {
                let (l3, d3) = mf.find::<LONG, SHORT>(
                    buf,
                    p + 2,
                    l - 1,
                    (depth / 4).max(1),
                    nice,
                    max_dist,
                    0,
                );
                if l3 >= l && accept(l3, d3) && gain(l, d, l3, d3) > 6 {
                    ctx.sb.lit(buf[p]);
                    ctx.sb.lit(buf[p + 1]);
                    p += 2;
                    l = l3;
                    d = d3;
                    continue;
                }
            }
            break;
        }
        ctx.sb.matched(l as u32, d as u32);
        // Every position inside the match goes into the chains (at the next search): leaving
        // out the middle of long matches (all but the last K positions of a match longer
        // than T) bought level 6 about 3% of its time for 0.15-1.1% of its ratio (per-file
        // corpus bytes 3,171,866 -> 3,176,717 with T 64, K 16; 3,206,501 with T 16, K 8).
        // The time goes to the searches: the chain walk alone is a quarter of level 6's
        // profile, the insertions about a tenth.
        p += l;
        if l == MAX_MATCH {
            rep = d;
        }
        ctx.sym_done(buf, p);
    }
    // For a segment that may continue this buffer (the positions inside the last match).
    mf.insert_all::<LONG, SHORT>(buf);
}

/// Records the literals at `buf[p..]` that the parser steps over unsearched after `miss`
/// failed searches (more the longer the data stays incompressible); returns the new position.
#[cold]
#[inline(never)]
fn skip_literals(ctx: &mut Ctx, buf: &[u8], p: usize, miss: usize) -> usize {
    let step = 1 + ((miss - MISS_LIMIT) >> 4).min(64);
    let to = (p + step).min(buf.len());
    ctx.sb.lits(&buf[p..to]);
    to
}
