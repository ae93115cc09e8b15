//! Z_RLE: matches only at distance 1 (runs of one byte value), found greedily; fast and good
//! for images and other data whose redundancy is runs.
#![forbid(unsafe_code)]

use crate::deflate::bytes::{match_len, MAX_MATCH};
use crate::deflate::ctx::Ctx;

/// Parses `buf[start..]` into literals and distance-1 matches.
pub fn run(ctx: &mut Ctx, buf: &[u8], start: usize) {
    let end = buf.len();
    let mut p = start;
    let min = ctx.min_match.max(3);
    while p < end {
        if p > 0 && p + min <= end {
            let max = (end - p).min(MAX_MATCH);
            let l = match_len(buf, p - 1, p, max);
            if l >= min {
                ctx.sb.matched(l as u32, 1);
                p += l;
                ctx.sym_done(buf, p);
                continue;
            }
        }
        ctx.sb.lit(buf[p]);
        p += 1;
        ctx.sym_done(buf, p);
    }
}
