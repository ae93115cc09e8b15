//! The decode loops for coded data while input and output room last (`core.rs` runs them and
//! decodes the rest a unit at a time).
//!
//! Both refill the 64-bit bit buffer a word at a time without a branch (`bitcnt |= 56`), take
//! a symbol and its extra bits with one shift by the whole table entry (`huffman.rs`), decode
//! up to three literals per refill and copy matches in whole words into the slack past the
//! output position (`copy.rs`). On exit they give back the whole bytes read ahead, so the
//! caller never holds more than seven bits, which lets a stream end exactly at its last byte.
//!
//! - [`run`], the main loop, needs [`FAST_IN`] input and [`FAST_OUT`] output bytes at every
//!   step.
//! - [`run_tail`] covers the last [`FAST_OUT`] bytes of an output buffer, needing only
//!   [`TAIL_OUT`]: each of its matches checks its own room.
//!
//! Both are one body in libdeflate's order (see [`run`]).
//!
//! Two literals per primary entry (ISA-L's multi-symbol idea within the 11-bit table: the
//! second literal in the entry's spare bits, written with the first as one 16-bit store, the
//! output advanced by a count bit) did not pay, in the loop's order before libdeflate's (see
//! [`run`]): over zlib -6 streams of bible.txt, world192.txt, kennedy.xls, plrabn12.txt and
//! urls.10K (`examples/inflate_raw.rs`), the loop with a variable advance per literal went
//! from 1170 to 1111 MB/s, and the pairs on top to 1079. The literal path is bound by its
//! unpredictable literal-or-length branch, which pairs do not remove, more than by the lookup
//! chain they shorten. Nor did they pay in the present loop (a pair flag and a second literal
//! below 128 in the entry's spare bits, a 16-bit store and a variable advance per entry):
//! corpus 0.90-0.92x, bible.txt 0.91-0.92x, and the pass over the 2,048 primary entries that
//! forms the pairs, once per block, took files of a few KiB to 0.41-0.64x. With that pass
//! written without branches and the literals stored as bytes into an eight-byte window (safe
//! code), it was worse: corpus 0.88x, bible.txt 0.89x, small files 0.49-0.66x. (ISA-L, whose
//! tables hold several symbols, decodes plrabn12.txt and asyoulik.txt 7-15% faster than this
//! loop in the harness's per-file runs, and small files slower.)
//!
//! Two independent streams decoded in one loop, a step of each in turn (the loop below
//! written twice over two sets of registers), would let one stream's lookups run while the
//! other waits on its own: the way zstd's four Huffman streams reach their speed. It is the
//! upper bound of splitting one DEFLATE stream at a block found by search (rapidgzip's way),
//! before that search and the resolving of references into the unknown window are paid. It
//! was measured on the best case, the two halves of each of the eight corpus files above
//! 200 KB compressed apart with zlib -6 (`inflate_raw`'s conditions, best of 20, three runs):
//! 1.05-1.08x the two decoded one after the other (bible.txt 1.05x, world192.txt 1.02x,
//! plrabn12.txt 1.04x; kennedy.xls and html_x_4 1.22x). So this loop is not bound by its
//! lookup chain, which the second stream would hide, but by the literal-or-length branch
//! it mispredicts. Yet a loop without that branch is slower: one step per symbol, the
//! distance looked up for every symbol and its bits taken only for a match (an entry of 0 for
//! a literal), and one write for both, the literal ORed into a word read from a constant array
//! instead of the output (distances under 16 still branching to [`copy_match`]). Over the
//! corpus's zlib -6 streams (`examples/inflate_raw.rs -z`, best of 20, three runs each way)
//! it decoded at 0.88-0.89x this loop's speed, every file 0.81-0.93x; with the three choices
//! forced to conditional moves (`select_unpredictable`), 0.79x. Both lookups then lie on
//! every literal's chain, and the branch's prediction, when right, lets the next symbols
//! start early: the chain of lookups bounds this loop more than the mispredictions do.
//!
//! Nor does resolving a match in one lookup. Where a length's codeword, its extra bits and the
//! distance's codeword fit in the 11 index bits together (90% of the matches of the corpus's
//! zlib -6 streams, 94% with 12 bits), an entry can take the whole match's bits with one
//! shift and name the distance's entry, which is then read off the lookup chain: a match's
//! chain becomes a literal's. A primary array of such fused entries, built per block from the
//! length symbols' codewords (only the indices they select, each entry chosen without a
//! branch), measured over those streams (`examples/inflate_raw.rs -z`): kennedy.xls 1.10x,
//! plrabn12.txt 1.05x, bible.txt 1.02x, but html and html_x_4 0.83x, geo.protodata 0.86x,
//! urls.10K 0.90x, world192.txt 0.96x; corpus 0.94-0.99x. Building the array took 3.5% of
//! bible.txt's time (2 us a block; a pass over all 2,048 entries with a branch on each kind,
//! 6%), and where a third of the matches do not fuse, the branch between the two kinds of
//! match mispredicts more than the shorter chain saves. Fused only in blocks where the codes
//! say that 88% or more of the matches would be (judged from the code lengths alone, before
//! building), the corpus came to 1.00-1.01x (kennedy.xls 1.09x, bible.txt 1.01-1.02x,
//! world192.txt 0.97-0.99x): with no block fused, the loop with the second kind of match
//! already ran at 0.96-0.98x.
//!
//! Nor does deciding a run of literals without a branch per literal: three entries looked up
//! in a chain as if all were literals, their bytes written whatever they are, the output
//! advanced by the literals that lead and the state after them selected by masks, with one
//! branch for "all three were literals". Over the corpus's zlib -6 streams
//! (`examples/inflate_raw.rs`) 1,096 MB/s against this loop's 1,392; with two entries, 1,208.
//! The chain of lookups before the first non-literal is known costs more than the
//! mispredictions it saves.
#![forbid(unsafe_code)]

use super::copy::{self, copy_match};
use super::error::ErrorKind;
use super::huffman as hf;

/// Output room the main loop needs: two literals, then a maximal match plus the copy's
/// overshoot.
pub const FAST_OUT: usize = 2 + 258 + copy::SLACK;
/// Output room the tail loop needs (the last `FAST_OUT` bytes of an output buffer): the three
/// literals an iteration may write. Its matches check their own room: they are copied by
/// [`copy::copy_match_bounded`], and one that does not fit at all ends the loop
/// ([`Stop::Copy`]). Before, that whole stretch went through the slow path: 8-30% of a
/// 1-4 KiB message, half of a 512-byte streaming buffer.
pub const TAIL_OUT: usize = 3;
/// Input both loops need at every step: two 8-byte refills, each past at most seven bytes
/// the one before took.
pub const FAST_IN: usize = 16;

const LMASK: u64 = (1 << hf::LITLEN_BITS) - 1;
const DMASK: u64 = (1 << hf::DIST_BITS) - 1;

/// The bit buffer between calls: `bitcnt` bits (at most 7 on return) in the low end of
/// `bitbuf`, the rest zero.
pub struct Bits {
    pub bitbuf: u64,
    pub bitcnt: u32,
}

/// Why a loop returned without an error.
#[derive(Debug)]
pub enum Stop {
    /// Too little input or output room left for another step.
    Room,
    /// The block's end-of-block symbol was consumed.
    End,
    /// (Tail loop) A match was decoded that does not fit in the output: the caller copies
    /// what fits and keeps the rest.
    Copy { len: u32, dist: u32 },
}

/// The main loop over `input[*ip..]` into `out[*op..]` (`out[hist_start..*op]` is the
/// history matches may reach), with the block's tables `t` ([`hf::build_pair`]). Returns at
/// the block's end, when fewer than [`FAST_IN`] input or [`FAST_OUT`] output bytes remain,
/// or on an invalid symbol or distance (with the positions where it was found).
///
/// libdeflate's order. The next literal/length entry is always looked up before the bits of
/// the one in hand are known to be a literal or not, and a symbol's bits leave the buffer
/// first thing, whatever it is (a length's extra bits are taken from the buffer saved before
/// the shift). The refill comes after the lookup of the next entry, off its path, and only
/// where an iteration ends: after the third literal, after a match, and, conditionally,
/// before a distance. Against the order before (a refill at the top of every iteration, the
/// bits consumed after the test, a second refill before a length that follows literals),
/// zlib -6 streams of the corpus (`examples/inflate_raw.rs`, alternating processes, best of
/// 20 in six rounds) decode 8% faster in total (1253.9 -> 1357.1 MB/s; bible.txt, world192.txt
/// and plrabn12.txt 9-10%, kennedy.xls 5%), 2-4% faster than libdeflate in the same
/// conditions (in the bench harness, 1.00-1.05x the fastest peer where it was 0.96x). Writing
/// the literals and matches through raw pointers gained nothing more (1.00x); one bounds check
/// per byte written cost 5%, hence the three-byte window the literals go to. Also measured
/// against this loop, and not kept: four literals per refill 0.998x; the refill before a
/// distance made unconditional 0.97-0.99x, or taken below 40 counted bits 0.975x; the loop
/// compiled for AVX2 instead of BMI2 alone 0.978x.
///
/// Bit budget, in bits consumed since the last refill (`C`), which left at least 56 counted
/// and 64 valid: a lookup of `w` bits needs `C + w <= 64`, and `C` must stay within the count.
/// Literals from the primary table take at most 11 bits (15 through a subtable), a length
/// with its extra bits 16 (20 through a subtable). Two literals and a length: `C <= 42`, and
/// the distance lookup (8 bits) fits. A distance takes at most 21 bits and the next lookup 11,
/// so the distance is preceded by a refill unless 32 or more counted bits remain (then
/// `C <= 31` and `31 + 21 + 11 <= 64`). Each iteration refills at most twice, reading at most
/// 15 bytes past where it began: inside the [`FAST_IN`] its bound checks.
///
/// The bit count lives in the low byte of `bitcnt`: a symbol subtracts its whole table entry,
/// whose low byte is the bits it takes (libdeflate's trick: no extraction on the chain); the
/// bytes above collect borrows and are ignored. A shift by the whole entry uses its low six
/// bits, which are the same bits.
///
/// Compiled twice: for the baseline CPU and, chosen at run time, for BMI2, whose shifts by a
/// variable count are one instruction instead of three.
///
/// Where the linker happens to place this loop moves its speed by about 5%: the harness built
/// at `ade7b12` and at `356a898`, with the same decoder code, decoded the corpus's zlib -6
/// streams at 1410-1453 and 1332-1377 MB/s (alternating runs; ISA-L 1309-1388 in both). With
/// every function aligned to 64 bytes (`-C llvm-args=-align-all-functions=6`) both came to
/// 1367-1401, and with every loop so aligned to 1377-1403: steadier, but not the fast
/// placement, which depends on where the function starts within its 64 bytes. So a change of
/// a few percent in this loop's harness ratio between two builds may be layout alone.
#[inline(never)]
pub fn run(
    bits: &mut Bits,
    t: &[u32],
    input: &[u8],
    ip: &mut usize,
    out: &mut [u8],
    op: &mut usize,
    hist_start: usize,
) -> Result<Stop, ErrorKind> {
    crate::arch::with_bmi2(
        #[inline(always)]
        || run_body::<false>(bits, t, input, ip, out, op, hist_start),
    )
}

/// [`run`] (`TAIL` false) and [`run_tail`].
#[inline(always)]
fn run_body<const TAIL: bool>(
    bits: &mut Bits,
    t: &[u32],
    input: &[u8],
    ip: &mut usize,
    out: &mut [u8],
    op: &mut usize,
    hist_start: usize,
) -> Result<Stop, ErrorKind> {
    let (mut bitbuf, mut bitcnt) = (bits.bitbuf, bits.bitcnt);
    let (mut pos, mut o) = (*ip, *op);
    // Both primary arrays are always there; saying so lets the compiler drop the bounds checks
    // of the masked primary lookups below.
    assert!(t.len() >= hf::PAIR_PRIMARY);
    // Output positions at or below `out_end` leave the room an iteration needs.
    let room = if TAIL { TAIL_OUT } else { FAST_OUT };
    let (Some(in_end), Some(out_end)) = (
        input.len().checked_sub(FAST_IN),
        out.len().checked_sub(room),
    ) else {
        return Ok(Stop::Room);
    };
    if pos > in_end || o > out_end {
        return Ok(Stop::Room);
    }
    let start = pos;
    // Fills the buffer to 56..=63 counted bits from the eight input bytes at `pos` and advances
    // `pos` by the whole bytes taken. All 64 bits of the buffer are then input: the bits past
    // the count are the bytes at the new `pos`, which the next refill ORs in again unchanged.
    // Bits 3-5 of the count's complement are the whole bytes missing.
    macro_rules! refill {
        () => {
            let w = u64::from_le_bytes(input[pos..pos + 8].try_into().unwrap());
            bitbuf |= w.wrapping_shl(bitcnt);
            pos += ((!bitcnt >> 3) & 7) as usize;
            bitcnt |= 56;
        };
    }
    // Takes entry `$e`'s bits (codeword and extra bits) out of the buffer.
    macro_rules! eat {
        ($e:expr) => {
            bitbuf = bitbuf.wrapping_shr($e);
            bitcnt = bitcnt.wrapping_sub($e);
        };
    }
    // The base of length or distance entry `$e` plus its extra bits, from `$saved`, the
    // buffer before the entry was eaten.
    macro_rules! value {
        ($saved:expr, $e:expr) => {
            hf::e_base($e)
                + ($saved & ((1u64 << hf::e_total($e)) - 1)).wrapping_shr(hf::e_shift($e)) as u32
        };
    }
    let mut stop = Stop::Room;
    let mut result = Ok(());
    refill!();
    let mut e = t[(bitbuf & LMASK) as usize];
    while pos <= in_end && o <= out_end {
        let mut saved = bitbuf;
        eat!(e);
        if e & hf::LITERAL != 0 {
            // Up to three literals; one bounds check covers the bytes they may write.
            let lit: &mut [u8; 3] = (&mut out[o..o + 3]).try_into().unwrap();
            lit[0] = (e >> 16) as u8;
            e = t[(bitbuf & LMASK) as usize];
            saved = bitbuf;
            eat!(e);
            o += 1;
            if e & hf::LITERAL != 0 {
                lit[1] = (e >> 16) as u8;
                e = t[(bitbuf & LMASK) as usize];
                saved = bitbuf;
                eat!(e);
                o += 1;
                if e & hf::LITERAL != 0 {
                    lit[2] = (e >> 16) as u8;
                    e = t[(bitbuf & LMASK) as usize];
                    refill!();
                    o += 1;
                    continue;
                }
            }
        }
        if e & hf::EXCEPTIONAL != 0 {
            // A subtable pointer took the primary table's bits; its entry may be anything.
            if hf::e_kind(e) == hf::SUB {
                let sb = hf::e_sub_bits(e);
                e = t[hf::e_base(e) as usize + (bitbuf & ((1 << sb) - 1)) as usize];
                saved = bitbuf;
                eat!(e);
                if e & hf::LITERAL != 0 {
                    out[o] = (e >> 16) as u8;
                    o += 1;
                    e = t[(bitbuf & LMASK) as usize];
                    refill!();
                    continue;
                }
            }
            match hf::e_kind(e) {
                hf::LEN => {}
                hf::EOB => {
                    stop = Stop::End;
                    break;
                }
                _ => {
                    result = Err(ErrorKind::InvalidSymbol);
                    break;
                }
            }
        }
        let len = value!(saved, e) as usize;
        let mut d = t[hf::DIST_AT + (bitbuf & DMASK) as usize];
        if d & hf::EXCEPTIONAL != 0 {
            refill!();
            if hf::e_kind(d) == hf::SUB {
                bitbuf >>= hf::DIST_BITS;
                bitcnt = bitcnt.wrapping_sub(hf::DIST_BITS);
                let sb = hf::e_sub_bits(d);
                d = t[hf::e_base(d) as usize + (bitbuf & ((1 << sb) - 1)) as usize];
            }
            if hf::e_kind(d) != hf::DIST {
                result = Err(ErrorKind::InvalidSymbol);
                break;
            }
        } else if bitcnt & 0xff < 32 {
            refill!();
        }
        saved = bitbuf;
        eat!(d);
        let dist = value!(saved, d) as usize;
        if dist > o - hist_start {
            result = Err(ErrorKind::DistanceTooFar);
            break;
        }
        e = t[(bitbuf & LMASK) as usize];
        refill!();
        if TAIL {
            if out.len() - o < len {
                // The output is full before the match ends: the caller copies what fits and
                // keeps the rest for the next call.
                stop = Stop::Copy {
                    len: len as u32,
                    dist: dist as u32,
                };
                break;
            }
            copy::copy_match_bounded(out, o, dist, len);
        } else {
            copy_match(out, o, dist, len);
        }
        o += len;
    }
    // Give back the whole bytes read ahead, so at most 7 bits stay buffered (the bits past the
    // count are dropped). Only the low byte of `bitcnt` counts.
    let mut bitcnt = bitcnt & 0xff;
    let back = ((bitcnt >> 3) as usize).min(pos - start);
    bitcnt -= (back as u32) << 3;
    bits.bitbuf = bitbuf
        & if bitcnt == 0 {
            0
        } else {
            u64::MAX >> (64 - bitcnt)
        };
    bits.bitcnt = bitcnt;
    *ip = pos - back;
    *op = o;
    result.map(|()| stop)
}

/// The loop for the last [`FAST_OUT`] bytes of an output buffer: [`run`]'s arguments and
/// results, needing only [`TAIL_OUT`] output bytes; a match that does not fit ends it with
/// [`Stop::Copy`]. It runs a few hundred bytes per buffer, so it is compiled once, for the
/// baseline CPU, and kept apart from the main loop's code.
#[cold]
#[inline(never)]
pub fn run_tail(
    bits: &mut Bits,
    t: &[u32],
    input: &[u8],
    ip: &mut usize,
    out: &mut [u8],
    op: &mut usize,
    hist_start: usize,
) -> Result<Stop, ErrorKind> {
    run_body::<true>(bits, t, input, ip, out, op, hist_start)
}
