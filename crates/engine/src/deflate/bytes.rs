//! Byte access, match lengths and hashes shared by the match finders: level 1's table
//! (`strategy/fast.rs`), the hash chains (`matchfind.rs`), the binary trees (`bt.rs`) and the
//! parsers that measure a match themselves (`strategy/rle.rs`, `strategy/optimal.rs`).
//!
//! Every read is little-endian and bounds-checked (safe code); the functions that walk a range
//! slice it once, so the checks leave their loops. [`word`] reads zeros past the end of a
//! buffer, the same way whenever a position is hashed, which keeps the output a function of
//! the input alone.
#![forbid(unsafe_code)]

/// Longest DEFLATE match.
pub const MAX_MATCH: usize = 258;

/// Reads eight bytes little-endian at `i` (caller guarantees `i + 8 <= buf.len()`).
#[inline(always)]
pub fn load64(buf: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(buf[i..i + 8].try_into().unwrap())
}

/// Reads four bytes little-endian at `i`.
#[inline(always)]
pub fn load32(buf: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(buf[i..i + 4].try_into().unwrap())
}

/// Length of the common prefix of `buf[a..]` and `buf[b..]`, at most `max`
/// (caller guarantees `b + max <= buf.len()` and `a < b`).
#[inline(always)]
pub fn match_len(buf: &[u8], a: usize, b: usize, max: usize) -> usize {
    // Both sides sliced to `max` once, then walked in whole words: the loads need no bounds
    // checks.
    let (x, y) = (&buf[a..a + max], &buf[b..b + max]);
    let mut n = 0;
    for (wx, wy) in x.chunks_exact(8).zip(y.chunks_exact(8)) {
        let d = load64(wx, 0) ^ load64(wy, 0);
        if d != 0 {
            return n + (d.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    while n < x.len() && x[n] == y[n] {
        n += 1;
    }
    n
}

/// [`match_len`], and whether the first differing byte of `buf[a..]` is below that of
/// `buf[b..]` (meaningless when the length is `max`). The binary trees need both: the order
/// comes from the words already compared, without reading the bytes again. The two stay
/// separate: `match_len` as this function's length measured 1-2% slower at levels 1 and 2.
#[inline(always)]
pub fn match_len_order(buf: &[u8], a: usize, b: usize, max: usize) -> (usize, bool) {
    let (x, y) = (&buf[a..a + max], &buf[b..b + max]);
    let mut n = 0;
    for (cx, cy) in x.chunks_exact(8).zip(y.chunks_exact(8)) {
        let (wa, wb) = (load64(cx, 0), load64(cy, 0));
        let d = wa ^ wb;
        if d != 0 {
            // Byte-swapped, the first differing byte is the most significant one.
            let lt = wa.swap_bytes() < wb.swap_bytes();
            return (n + (d.trailing_zeros() / 8) as usize, lt);
        }
        n += 8;
    }
    while n < x.len() {
        if x[n] != y[n] {
            return (n, x[n] < y[n]);
        }
        n += 1;
    }
    (n, false)
}

/// Reads eight bytes little-endian at `i`, zero past the end of `buf` (the last positions of
/// a buffer hash their bytes with zeros after them, the same way whenever they are hashed).
#[inline(always)]
pub fn word(buf: &[u8], i: usize) -> u64 {
    if i + 8 <= buf.len() {
        load64(buf, i)
    } else {
        tail_word(buf, i)
    }
}

/// Calls `f(p, word(buf, p))` for each position `p` in `from..to` in order (`to <= buf.len()`),
/// reading the words as eight-byte windows of the input, without a bounds check each; only the
/// last seven positions of the buffer, if the range reaches them, go through [`word`].
#[inline(always)]
pub fn each_word(buf: &[u8], from: usize, to: usize, mut f: impl FnMut(usize, u64)) {
    if from >= to {
        return;
    }
    let fast = to.min(buf.len().saturating_sub(7)).max(from);
    if fast > from {
        for (p, w) in (from..).zip(buf[from..fast + 7].windows(8)) {
            f(p, load64(w, 0));
        }
    }
    for p in fast..to {
        f(p, word(buf, p));
    }
}

/// [`word`] for the last seven positions, kept out of the hot loops.
#[cold]
#[inline(never)]
fn tail_word(buf: &[u8], i: usize) -> u64 {
    let mut b = [0u8; 8];
    let n = buf.len() - i;
    b[..n].copy_from_slice(&buf[i..]);
    u64::from_le_bytes(b)
}

/// A `bits`-bit hash of the four bytes `v` (the four-byte keys of level 1's table, of the
/// chains and their four-byte short heads, and of the binary trees).
#[inline(always)]
pub fn hash4(v: u32, bits: u32) -> usize {
    (v.wrapping_mul(0x1E35_A7BD) >> (32 - bits)) as usize
}

/// A `bits`-bit hash of the low three bytes of `v` (the short heads of four-byte chains and
/// the binary trees' 3-byte table).
#[inline(always)]
pub fn hash3(v: u32, bits: u32) -> usize {
    hash4(v << 8, bits)
}

/// A `bits`-bit hash of the low five bytes of `w` (the five-byte keys of level 1's table and
/// of the chains).
#[inline(always)]
pub fn hash5(w: u64, bits: u32) -> usize {
    ((w << 24).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
}

/// log2 of the buckets a buffer of `len` bytes hashes into at most (its memory level may
/// allow fewer): 2^floor(log2 len), more than half as many as it has positions and at most as
/// many, and at least 2^10. The hash chains
/// ([`Chains::reset`](super::matchfind::Chains::reset)) and level 1's table
/// (`strategy/fast.rs`) size themselves by it; the choice depends only on `len`, which keeps
/// the output deterministic.
pub fn fit_bits(len: usize) -> u32 {
    (usize::BITS - len.leading_zeros())
        .saturating_sub(1)
        .max(10)
}

/// A zeroed fixed-size table on the heap (built there, not on the stack), for a parse's
/// scratch. The tables a stream keeps are [`ZeroTable`](crate::mem::ZeroTable)s, whose
/// untouched pages take no memory. Both have compile-time sizes and are indexed with masked values, so the compiler
/// drops the bounds checks from the chain walk (and the binary trees' walk, `bt.rs`).
pub(super) fn table<const N: usize>() -> Box<[u32; N]> {
    vec![0u32; N]
        .into_boxed_slice()
        .try_into()
        .expect("length N")
}

/// A deterministic pseudo-random sequence (xorshift64) for the match finders' tests.
#[cfg(test)]
pub(crate) fn xorshift(mut s: u64) -> impl FnMut() -> u64 {
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order bit is the first differing byte's comparison, wherever it falls: in the
    /// first word, a later word, the byte tail, or nowhere (equal up to `max`).
    #[test]
    fn match_len_order_agrees_with_the_bytes() {
        let mut rnd = xorshift(0x51_7CC1_B727_220Au64);
        let mut buf = vec![0u8; 700];
        for _ in 0..20_000 {
            for b in buf.iter_mut() {
                // Few distinct bytes: long common prefixes.
                *b = b"ab\x00\xff"[(rnd() % 4) as usize];
            }
            let a = (rnd() % 300) as usize;
            let b = a + 1 + (rnd() % 100) as usize;
            // Copy a prefix so the first difference lands at any offset.
            let same = (rnd() % 280) as usize;
            for i in 0..same.min(buf.len() - b) {
                buf[b + i] = buf[a + i];
            }
            let max = ((rnd() % 259) as usize).min(buf.len() - b);
            let (n, lt) = match_len_order(&buf, a, b, max);
            assert_eq!(n, match_len(&buf, a, b, max));
            if n < max {
                assert_eq!(lt, buf[a + n] < buf[b + n], "a {a} b {b} n {n}");
            }
        }
    }

    /// Buffers get 2^floor(log2 len) buckets, at least 2^10.
    #[test]
    fn small_buffers_use_fewer_buckets() {
        assert_eq!(fit_bits(0), 10);
        assert_eq!(fit_bits(3_000), 11);
        assert_eq!(fit_bits(40_000), 15);
        assert_eq!(fit_bits(65_535), 15);
        assert_eq!(fit_bits(65_536), 16);
    }
}
