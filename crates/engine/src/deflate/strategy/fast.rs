//! The fastest tier (level 1): a two-way hash table keyed by four bytes, greedy parsing.
//!
//! Each position looks up the two most recent positions with the same 4-byte hash; a match of at
//! least four bytes is taken at once. Inside a match only the first `insert_inside` positions
//! are hashed, which is where most of the speed over hash chains comes from. When nothing
//! matches for a while the step grows (the "skip" heuristic of LZ4/snappy), so incompressible
//! input flows through at memory speed and ends up in stored blocks.
#![forbid(unsafe_code)]

use crate::deflate::ctx::Ctx;
use crate::deflate::matchfind::{load32, match_len, MAX_MATCH};

/// log2 of the bucket count: 64 Ki two-way buckets (512 KiB); 2^15 measured within noise of it and
/// 2^14 lost 0.6 % ratio on the corpus.
const TABLE_BITS: u32 = 16;

#[inline(always)]
fn hash4(v: u32) -> usize {
    (v.wrapping_mul(0x1E35_A7BD) >> (32 - TABLE_BITS)) as usize
}

/// Greedy parse of `buf[start..]`.
pub fn run(ctx: &mut Ctx, buf: &[u8], start: usize) {
    let mut table = std::mem::take(&mut ctx.table);
    table.clear();
    table.resize(2 << TABLE_BITS, 0);
    let end = buf.len();
    let max_dist = ctx.max_dist;
    let min = ctx.min_match.max(4);
    let insert_inside = ctx.row.depth as usize; // reused as "positions hashed inside a match"
                                                // History: hash the window preceding `start`.
    let hist = start.saturating_sub(max_dist);
    let mut p = hist;
    while p + 4 <= start.min(end) {
        let h = hash4(load32(buf, p));
        table[2 * h + 1] = table[2 * h];
        table[2 * h] = p as u32 + 1;
        p += 1;
    }
    let mut p = start;
    let mut miss = 0usize;
    while p + 4 <= end {
        let v = load32(buf, p);
        let h = hash4(v);
        // The next position's bucket (the next position, unless a match follows): its load
        // overlaps this one's work. The table is larger than L2.
        if p + 5 <= end {
            crate::arch::prefetch(&table[..], 2 * hash4(load32(buf, p + 1)));
        }
        // Two-way bucket: the newest and the previous position with this hash.
        let (c0, c1) = (table[2 * h] as usize, table[2 * h + 1] as usize);
        table[2 * h + 1] = c0 as u32;
        table[2 * h] = p as u32 + 1;
        let max = (end - p).min(MAX_MATCH);
        let (mut l, mut c) = (0usize, 0usize);
        for cand in [c0, c1] {
            if cand != 0 && p - (cand - 1) <= max_dist && load32(buf, cand - 1) == v {
                let cl = 4 + match_len(buf, cand - 1 + 4, p + 4, max - 4);
                if cl > l {
                    l = cl;
                    c = cand - 1;
                }
            }
        }
        {
            if l >= min {
                if p + l + 4 <= end {
                    crate::arch::prefetch(&table[..], 2 * hash4(load32(buf, p + l)));
                }
                ctx.sb.matched(l as u32, (p - c) as u32);
                // Positions p + 1.. inside the match, each with its four bytes (a window of
                // the input: no bounds check per position).
                let stop = (p + l).min(end.saturating_sub(3));
                let lim = stop.min(p + 1 + insert_inside).max(p + 1);
                for (q, w) in (p + 1..).zip(buf[p + 1..lim + 3].windows(4)) {
                    let h = hash4(load32(w, 0));
                    table[2 * h + 1] = table[2 * h];
                    table[2 * h] = q as u32 + 1;
                }
                p += l;
                miss = 0;
                ctx.sym_done(buf, p);
                continue;
            }
        }
        // Literal(s): step grows after long runs without a match.
        let step = 1 + (miss >> 6);
        miss += 1;
        let to = (p + step).min(end);
        while p < to {
            ctx.sb.lit(buf[p]);
            p += 1;
        }
        ctx.sym_done(buf, p);
    }
    while p < end {
        ctx.sb.lit(buf[p]);
        p += 1;
    }
    ctx.sym_done(buf, p);
    ctx.table = table;
}
