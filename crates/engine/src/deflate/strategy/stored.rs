//! Level 0: the data is copied into stored blocks of up to 65535 bytes.
#![forbid(unsafe_code)]

use crate::deflate::block::write_stored;
use crate::deflate::ctx::Ctx;

/// Emits `buf[start..]` as stored blocks (nothing if empty and not last).
pub fn run(ctx: &mut Ctx, buf: &[u8], start: usize, last: bool) {
    if start == buf.len() && !last {
        return;
    }
    write_stored(&mut ctx.w, &buf[start..], last);
    ctx.block_start = buf.len();
}
