//! Decode tables for canonical Huffman codes, with zlib's acceptance rules.
//!
//! A table is a primary array indexed by the next `pbits` input bits (LSB-first, as DEFLATE
//! packs codes), plus subtables for longer codes. Each `u32` entry is laid out so the decode loop
//! needs one shift to consume a symbol together with its extra bits (libdeflate's layout):
//!
//! | bits  | symbol entry                                  | subtable pointer        |
//! |-------|-----------------------------------------------|-------------------------|
//! | 0-7   | bits consumed: codeword length + extra bits   | `pbits`                 |
//! | 8-11  | codeword length (the shift to the extra bits) | subtable index bits     |
//! | 12-14 | kind                                          | `SUB`                   |
//! | 15    | `EXCEPTIONAL`: end of block or invalid        | `EXCEPTIONAL`           |
//! | 16-30 | literal, length or distance base              | subtable start          |
//! | 31    | `LITERAL` (a sign test in the decode loop)    | 0                       |
//!
//! A total is at most 48, so bits 6-7 are clear and a shift by the whole entry (its count taken
//! mod 64, as `wrapping_shr` and the x86 shift instructions do) consumes the symbol.
//!
//! Unassigned codewords hold `BAD` entries whose length is the full index width, so a decoder
//! that lacks bits asks for more before it reports an invalid code.
#![forbid(unsafe_code)]

use super::error::ErrorKind;
use crate::deflate::huffman::length_counts;

/// A literal byte (or a code-length symbol).
pub const LIT: u32 = 0;
/// An invalid or unassigned code.
pub const BAD: u32 = 1;
/// End of block.
pub const EOB: u32 = 2;
/// A pointer to a subtable.
pub const SUB: u32 = 3;
/// A match length: `value` is the base, `extra` the extra bits. Bits 12-13 of its entries are
/// clear, so `entry >> 8` is the codeword length as a shift count (see [`e_shift`]).
pub const LEN: u32 = 4;
/// A distance: `value` is the base, `extra` the extra bits. The same kind as [`LEN`]: the two
/// live in different tables.
pub const DIST: u32 = 4;

/// Length bases and extra bits for symbols 257..=285 (RFC 1951 3.2.5).
const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEN_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
/// Distance bases and extra bits for symbols 0..=29.
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];

/// Which alphabet a table decodes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Alphabet {
    /// The code-length code (19 symbols); must be complete.
    CodeLen,
    /// Literal/length (up to 288 symbols).
    LitLen,
    /// Distance (up to 32 symbols).
    Dist,
}

/// Set in literal entries.
pub const LITERAL: u32 = 1 << 31;
/// Set in end-of-block, subtable-pointer and invalid entries: the decode loop's rare cases.
pub const EXCEPTIONAL: u32 = 1 << 15;

/// An entry: `len` is the codeword length (for `SUB`: the primary index bits), `extra` the extra
/// bits of a length or distance (for `SUB`: the subtable index bits).
#[inline(always)]
pub const fn entry(value: u32, extra: u32, kind: u32, len: u32) -> u32 {
    let head = (value << 16) | (kind << 12);
    match kind {
        SUB => head | EXCEPTIONAL | (extra << 8) | len,
        LIT => head | LITERAL | (len << 8) | len,
        EOB | BAD => head | EXCEPTIONAL | (len << 8) | len,
        _ => head | (len << 8) | (len + extra),
    }
}
/// Bits a symbol entry consumes with its extra bits (a subtable pointer: the primary bits).
#[inline(always)]
pub const fn e_total(e: u32) -> u32 {
    e & 0xff
}
/// The codeword length of a symbol entry.
#[inline(always)]
pub const fn e_len(e: u32) -> u32 {
    (e >> 8) & 15
}
/// The codeword length of a `LEN` or `DIST` entry as a shift count taken mod 64
/// (`wrapping_shr`): bits 8-11 hold the length and bits 12-13 are clear.
#[inline(always)]
pub const fn e_shift(e: u32) -> u32 {
    e >> 8
}
/// The subtable index bits of a `SUB` entry.
#[inline(always)]
pub const fn e_sub_bits(e: u32) -> u32 {
    (e >> 8) & 15
}
#[inline(always)]
pub const fn e_kind(e: u32) -> u32 {
    (e >> 12) & 7
}
/// The extra-bit count of a length or distance entry.
#[inline(always)]
pub const fn e_extra(e: u32) -> u32 {
    e_total(e) - e_len(e)
}
#[inline(always)]
pub const fn e_value(e: u32) -> u32 {
    (e >> 16) & 0x7fff
}
/// [`e_value`] of an entry that is not a literal (its `LITERAL` bit is clear): one shift.
#[inline(always)]
pub const fn e_base(e: u32) -> u32 {
    e >> 16
}

/// The entry of symbol `sym` of `alpha` before its codeword length is added (see
/// [`symbol_entries`]).
const fn symbol_entry(alpha: Alphabet, sym: usize) -> u32 {
    match alpha {
        Alphabet::CodeLen => entry(sym as u32, 0, LIT, 0),
        Alphabet::LitLen => match sym {
            0..=255 => entry(sym as u32, 0, LIT, 0),
            256 => entry(0, 0, EOB, 0),
            257..=285 => entry(
                LEN_BASE[sym - 257] as u32,
                LEN_EXTRA[sym - 257] as u32,
                LEN,
                0,
            ),
            _ => entry(0, 0, BAD, 0),
        },
        Alphabet::Dist => match sym {
            0..=29 => entry(DIST_BASE[sym] as u32, DIST_EXTRA[sym] as u32, DIST, 0),
            _ => entry(0, 0, BAD, 0),
        },
    }
}

/// [`symbol_entry`] for every symbol of an alphabet, computed at compile time.
const fn entries<const N: usize>(alpha: Alphabet) -> [u32; N] {
    let mut t = [0u32; N];
    let mut s = 0;
    while s < N {
        t[s] = symbol_entry(alpha, s);
        s += 1;
    }
    t
}

static LITLEN_ENTRIES: [u32; 288] = entries(Alphabet::LitLen);
static DIST_ENTRIES: [u32; 32] = entries(Alphabet::Dist);
static CODELEN_ENTRIES: [u32; 19] = entries(Alphabet::CodeLen);

/// The entries of `alpha`'s symbols with a codeword length of 0: the entry of symbol `s` with
/// a codeword of `len` bits is `symbol_entries(alpha)[s] + len * LEN_UNIT` (the length goes to
/// bits 8-11 and adds to the bits consumed, bits 0-7; see [`entry`]). Looked up per symbol when
/// a table is built, instead of a `match` on the alphabet and the symbol: building is most of
/// the cost of decoding a short message.
fn symbol_entries(alpha: Alphabet) -> &'static [u32] {
    match alpha {
        Alphabet::CodeLen => &CODELEN_ENTRIES,
        Alphabet::LitLen => &LITLEN_ENTRIES,
        Alphabet::Dist => &DIST_ENTRIES,
    }
}

/// What a codeword length of one bit adds to a symbol entry.
const LEN_UNIT: u32 = 0x101;

/// Builds the decode table for `lens` into `table`: the primary array of `2^pbits` entries at
/// `table[base..]` (which must exist), subtables appended at the end of `table`. Subtable
/// pointers hold absolute indices, so several codes can share one `Vec` (see [`build_pair`]).
///
/// Rejects over-subscribed sets, and incomplete sets except where zlib accepts them: an empty
/// set, or a literal/length or distance set whose only code has length 1.
pub fn build(
    lens: &[u8],
    alpha: Alphabet,
    pbits: u32,
    table: &mut Vec<u32>,
    base: usize,
) -> Result<(), ErrorKind> {
    debug_assert!(lens.iter().all(|&l| l < 16));
    let count = length_counts(lens);
    let mut left: i32 = 1;
    let mut max = 0;
    for (len, &c) in count.iter().enumerate().skip(1) {
        left <<= 1;
        left -= c as i32;
        if left < 0 {
            return Err(ErrorKind::OversubscribedCodes);
        }
        if c != 0 {
            max = len;
        }
    }
    if left > 0 && max != 0 && (alpha == Alphabet::CodeLen || max != 1) {
        return Err(ErrorKind::IncompleteCodes);
    }
    let prim_len = 1usize << pbits;
    // A complete code writes every primary entry (below), so only an incomplete one (empty,
    // or a single code of length 1) needs the unassigned entries marked first.
    if left > 0 {
        table[base..base + prim_len].fill(entry(0, 0, BAD, pbits));
    }
    if max == 0 {
        return Ok(());
    }
    // Symbols sorted by (length, symbol): the order of their canonical codes.
    let mut start = [0usize; 17];
    for len in 1..16 {
        start[len + 1] = start[len] + count[len] as usize;
    }
    let mut sorted = [0u16; 320];
    {
        let mut at = start;
        for (sym, &l) in lens.iter().enumerate() {
            if l != 0 {
                sorted[at[l as usize]] = sym as u16;
                at[l as usize] += 1;
            }
        }
    }
    // Primary table, shortest codes first: codes of length `len` are written at their
    // bit-reversed codeword, then the first 2^len entries are copied to double the table, which
    // replicates every code into all the slots its unused high bits select (sequential copies
    // instead of strided stores).
    let sym_entries = symbol_entries(alpha);
    let mut cw = 0u32; // the next canonical codeword, bit-reversed
    let mut i = 0usize;
    {
        let prim = &mut table[base..base + prim_len];
        for len in 1..=pbits {
            for _ in 0..count[len as usize] {
                prim[cw as usize & (prim_len - 1)] =
                    sym_entries[sorted[i] as usize] + len * LEN_UNIT;
                i += 1;
                cw = reversed_increment(cw, len);
            }
            if len < pbits {
                let size = 1usize << len;
                prim.copy_within(0..size, size);
            }
        }
    }
    // Longer codes go to subtables hanging off their primary prefix. Only a complete code has
    // them (an incomplete one has no code longer than 1 bit), and in canonical order the codes
    // sharing a prefix come one after another, so a subtable starts where the prefix changes.
    // It is sized as libdeflate sizes it: from the first code's length up, until the codes
    // not yet placed fill the prefix's codespace. Every primary entry a short code did not
    // write (an old one, from the previous block) is such a prefix and gets its pointer here.
    let long_start = i;
    let total = start[16];
    if long_start == total {
        return Ok(());
    }
    debug_assert!(
        left == 0,
        "only complete codes have codes longer than the primary bits"
    );
    let pmask = (1u32 << pbits) - 1;
    let mut remaining = count;
    let (mut cur_p, mut cur_start, mut cur_bits) = (usize::MAX, 0usize, 0u32);
    for len in pbits + 1..=15 {
        for _ in 0..count[len as usize] {
            let (sym, rev) = (sorted[i], cw);
            i += 1;
            cw = reversed_increment(cw, len);
            let p = (rev & pmask) as usize;
            if p != cur_p {
                let mut sub_bits = len - pbits;
                let mut space = 1i32 << sub_bits;
                loop {
                    space -= remaining[(pbits + sub_bits) as usize] as i32;
                    if space <= 0 || pbits + sub_bits >= 15 {
                        break;
                    }
                    sub_bits += 1;
                    space <<= 1;
                }
                cur_start = table.len();
                table.resize(cur_start + (1 << sub_bits), entry(0, 0, BAD, sub_bits));
                table[base + p] = entry(cur_start as u32, sub_bits, SUB, pbits);
                (cur_p, cur_bits) = (p, sub_bits);
            }
            remaining[len as usize] -= 1;
            let sl = len - pbits;
            let e = sym_entries[sym as usize] + sl * LEN_UNIT;
            let sub = &mut table[cur_start..cur_start + (1 << cur_bits)];
            let mut k = (rev >> pbits) as usize;
            while k < sub.len() {
                sub[k] = e;
                k += 1 << sl;
            }
        }
    }
    Ok(())
}

/// The next canonical codeword of length `len` in bit-reversed form: adding one to the
/// codeword flips its trailing ones (the reversed form's leading ones) and sets the next bit.
/// That bit is the reversed form's highest zero (libdeflate's way): set, with the ones above
/// it cleared; after the last codeword (all ones) the result is 0. Flipping the ones one at a
/// time in a loop, whose trip count changes from codeword to codeword, took 624 of the 701
/// mispredicted branches callgrind counts in building `geo.protodata`'s literal/length tables
/// (its gzip -6 stream; 150 now); without it, 1 KiB to 16 KiB zlib -6 pieces of the corpus
/// files (54 streams) decode 1.007x as fast, and the corpus's whole files 1.003x
/// (`examples/inflate_raw.rs`, alternating runs).
#[inline(always)]
fn reversed_increment(cw: u32, len: u32) -> u32 {
    match (cw ^ ((1 << len) - 1)).checked_ilog2() {
        Some(h) => (cw & ((1 << h) - 1)) | 1 << h,
        None => 0,
    }
}

/// Primary index bits for literal/length tables: 11 bits keep the table in L1 and resolve
/// nearly every code of real data in one lookup. Against 10 and 12 bits, zlib -6 streams of
/// the corpus (`examples/inflate_raw.rs`, two binaries alternating): 12 bits 0.98x; 10 bits
/// 1.00-1.01x, within the noise, and with 10 literal/length bits, 7 or 9 distance bits 0.99x
/// of 8.
pub const LITLEN_BITS: u32 = 11;
/// Primary index bits for distance tables.
pub const DIST_BITS: u32 = 8;
/// Primary index bits for the code-length code (its codes are at most 7 bits).
pub const CODELEN_BITS: u32 = 7;

/// Where a [`build_pair`] table's distance primary array starts.
pub const DIST_AT: usize = 1 << LITLEN_BITS;
/// Entries of a [`build_pair`] table before its subtables: both primary arrays.
pub const PAIR_PRIMARY: usize = DIST_AT + (1 << DIST_BITS);

/// Builds the literal/length and distance codes of a block into one table: the literal/length
/// primary array at 0, the distance primary array at [`DIST_AT`], then both codes' subtables.
/// One table keeps one pointer live in the decode loop instead of two.
pub fn build_pair(litlen: &[u8], dist: &[u8], table: &mut Vec<u32>) -> Result<(), ErrorKind> {
    // `build` fills both primary arrays; only the subtables of the last block go.
    table.truncate(PAIR_PRIMARY);
    table.resize(PAIR_PRIMARY, 0);
    build(litlen, Alphabet::LitLen, LITLEN_BITS, table, 0)?;
    build(dist, Alphabet::Dist, DIST_BITS, table, DIST_AT)
}

/// The fixed-Huffman tables of RFC 1951 3.2.6 as one [`build_pair`] table, built once.
pub fn fixed_tables() -> &'static [u32] {
    static FIXED: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
    FIXED.get_or_init(|| {
        let mut l = [0u8; 288];
        l[..144].fill(8);
        l[144..256].fill(9);
        l[256..280].fill(7);
        l[280..].fill(8);
        let mut t = Vec::new();
        build_pair(&l, &[5u8; 32], &mut t).expect("fixed codes are complete");
        t
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every codeword of every length steps as adding one to the unreversed codeword does.
    #[test]
    fn reversed_increment_adds_one() {
        let rev = |x: u32, len: u32| x.reverse_bits() >> (32 - len);
        for len in 1..=15 {
            for cw in 0..1u32 << len {
                let next = (cw + 1) & ((1 << len) - 1);
                assert_eq!(
                    reversed_increment(rev(cw, len), len),
                    rev(next, len),
                    "{len} {cw}"
                );
            }
        }
    }

    #[test]
    fn acceptance_rules() {
        let mut t = vec![0; 512];
        assert_eq!(
            build(&[1, 1, 1], Alphabet::LitLen, 9, &mut t, 0),
            Err(ErrorKind::OversubscribedCodes)
        );
        assert_eq!(
            build(&[2, 2, 2], Alphabet::LitLen, 9, &mut t, 0),
            Err(ErrorKind::IncompleteCodes)
        );
        assert_eq!(build(&[1], Alphabet::Dist, 8, &mut t, 0), Ok(()));
        assert_eq!(
            build(&[1], Alphabet::CodeLen, 7, &mut t, 0),
            Err(ErrorKind::IncompleteCodes)
        );
        assert_eq!(build(&[0, 0], Alphabet::Dist, 8, &mut t, 0), Ok(()));
        assert_eq!(e_kind(t[0]), BAD);
    }

    /// Random complete codes of up to 256 literals with lengths up to 15, each built over the
    /// table of the code before it (as a stream's blocks reuse it): every 15-bit input decodes
    /// to the one symbol whose canonical codeword it starts with, with that codeword's length.
    #[test]
    fn complete_codes_decode_every_input() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut rnd = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) as usize
        };
        let mut t = Vec::new();
        for _ in 0..150 {
            // Split random leaves of a one-leaf tree until it has n: a complete code.
            let n = 2 + rnd() % 255;
            let mut depths = vec![0u8];
            while depths.len() < n {
                let i = rnd() % depths.len();
                if depths[i] < 15 {
                    depths[i] += 1;
                    depths.push(depths[i]);
                }
            }
            let mut syms: Vec<usize> = (0..256).collect();
            for i in (1..256).rev() {
                syms.swap(i, rnd() % (i + 1));
            }
            let mut lens = [0u8; 256];
            for (&s, &d) in syms.iter().zip(&depths) {
                lens[s] = d;
            }
            t.truncate(1 << LITLEN_BITS);
            t.resize(1 << LITLEN_BITS, 0);
            build(&lens, Alphabet::LitLen, LITLEN_BITS, &mut t, 0).unwrap();
            // Canonical codewords (RFC 1951 3.2.2), most significant bit first.
            let mut next = [0u32; 17];
            for l in 1..16 {
                let below = lens.iter().filter(|&&x| x as usize == l).count() as u32;
                next[l + 1] = (next[l] + below) << 1;
            }
            let mut code = [0u32; 256];
            for (s, &l) in lens.iter().enumerate() {
                if l != 0 {
                    code[s] = next[l as usize];
                    next[l as usize] += 1;
                }
            }
            let pmask = (1u32 << LITLEN_BITS) - 1;
            for x in 0..1u32 << 15 {
                let mut e = t[(x & pmask) as usize];
                let mut used = 0;
                if e_kind(e) == SUB {
                    let sb = e_sub_bits(e);
                    e = t[e_value(e) as usize + ((x >> LITLEN_BITS) & ((1 << sb) - 1)) as usize];
                    used = LITLEN_BITS;
                }
                assert_eq!(e_kind(e), LIT, "input {x:#x}");
                let (s, l) = (e_value(e) as usize, used + e_len(e));
                assert_eq!(l, lens[s] as u32, "input {x:#x}");
                let cw = code[s].reverse_bits() >> (32 - l);
                assert_eq!(cw, x & ((1 << l) - 1), "input {x:#x} symbol {s}");
            }
        }
    }

    #[test]
    fn long_codes_go_to_subtables() {
        // 2^15 - 1 symbols would be too many; use a skewed complete code: lengths 1..15, 15.
        let mut lens: Vec<u8> = (1..=15).collect();
        lens.push(15);
        let mut t = vec![0; 128];
        build(&lens, Alphabet::CodeLen, 7, &mut t, 0).unwrap();
        assert!(t.len() > 128);
    }
}
