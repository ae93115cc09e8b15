//! Z_HUFFMAN_ONLY: every byte is a literal; only the entropy coder works.
#![forbid(unsafe_code)]

use crate::deflate::ctx::Ctx;

/// Parses `buf[start..]` as literals.
pub fn run(ctx: &mut Ctx, buf: &[u8], start: usize) {
    for p in start..buf.len() {
        ctx.sb.lit(buf[p]);
        ctx.sym_done(buf, p + 1);
    }
}
