//! Block emission: the symbol buffer a parser fills, and the encoder that writes it as whichever
//! of stored, fixed-Huffman or dynamic-Huffman costs the fewest bits — the costs are computed
//! exactly (header, code-length RLE, extra bits, stored padding), not estimated.
//!
//! Symbols are packed in a `u32`: `distance << 15 | distance symbol << 10 | index`, with
//! `MATCH_FLAG` on matches. The index is a literal's byte value, or 256 plus a match's length:
//! one lookup in the writer's table ([`SymTables`]) gives either's code. A literal carries the
//! distance symbol [`LIT_DIST_SYM`] and distance 0, which add no bits, so the writer treats both
//! kinds alike without a branch or a mask. The distance symbol is found once, for the
//! frequencies, and read back by the encoder. Against the words before (a literal its bare
//! byte, a match's length at bit 16 read from a second table, one of the two entries and the
//! distance's bits kept by a mask), the same bytes came out at 0.98x the time at levels 1, 2
//! and 6, and 0.97x at 3 and 4 (per-file corpus, alternating runs).
#![forbid(unsafe_code)]

use super::bitwriter::{BitWriter, Burst};
use super::bound::{dynamic_lower_bound, fixed_symbol_bits, BOUND_MAX_SYMS};
use super::huffman::{build_codes, build_lengths, with_scratch};
use super::tables::*;

/// Marks a match in the symbol buffer.
const MATCH_FLAG: u32 = 1 << 31;
/// A block whose symbols are at least this share of literals (`.0 / .1`) is written three
/// literals at a time where three come in a row ([`put_syms`]).
const RUNS_SHARE: (u64, u64) = (3, 4);
/// Where a match's distance symbol sits in its symbol word.
const DIST_SYM_SHIFT: u32 = 10;
/// Where a match's distance sits in its symbol word.
const DIST_SHIFT: u32 = 15;
/// A match's index is this plus its length.
const LEN_INDEX: u32 = 256;
/// The distance symbol literals carry: one past the alphabet, its writer entry adds no bits.
const LIT_DIST_SYM: u32 = 30;
/// A literal's symbol word without its byte.
const LIT: u32 = LIT_DIST_SYM << DIST_SYM_SHIFT;

/// The length of the match in symbol word `s`, or `None` for a literal (for tests that read
/// the buffer; the layout is this file's).
#[cfg(test)]
pub(crate) fn sym_match_len(s: u32) -> Option<u32> {
    (s & MATCH_FLAG != 0).then(|| (s & 0x3ff) - LEN_INDEX)
}

/// The byte of the literal in symbol word `s`, or `None` for a match.
#[cfg(test)]
pub(crate) fn sym_literal(s: u32) -> Option<u8> {
    (s & MATCH_FLAG == 0).then_some(s as u8)
}

/// Symbols and their frequencies for the block being built.
#[derive(Clone)]
pub struct SymBuf {
    /// The parsed symbols. Written by index into a buffer kept 1,024 symbols ahead (room
    /// made at each `Ctx::sym_done`) instead of pushed, so that recording a symbol holds no
    /// call that returns: levels 1 / 2 / 6 / 10 took 1.02 / 1.04 / 1.02-1.03 / 1.02x the time
    /// (per-file corpus, alternating runs, same bytes). Not kept.
    pub syms: Vec<u32>,
    /// Literal/length symbol frequencies (257..286 are lengths).
    pub lit_freq: [u32; 288],
    /// Distance symbol frequencies.
    pub dist_freq: [u32; 30],
    /// `lit_freq` when the splitter last looked: the symbols since then are the difference
    /// (see [`SymBuf::obs`]).
    pub obs_base: [u32; 286],
    /// Length of `syms` when the splitter last looked.
    pub obs_from: usize,
}

/// Observation types of the block splitter: eight for literals, short and long matches.
pub const OBS_TYPES: usize = 10;

impl Default for SymBuf {
    fn default() -> Self {
        SymBuf {
            syms: Vec::new(),
            lit_freq: [0; 288],
            dist_freq: [0; 30],
            obs_base: [0; 286],
            obs_from: 0,
        }
    }
}

impl SymBuf {
    /// Empties the buffer.
    pub fn clear(&mut self) {
        self.syms.clear();
        self.lit_freq = [0; 288];
        self.dist_freq = [0; 30];
        self.obs_base = [0; 286];
        self.obs_from = 0;
    }
    /// Drops the symbols before index `from`; `lf` and `df` count the ones that stay (the
    /// end-of-block symbol is not kept).
    pub fn keep(&mut self, from: usize, lf: &[u32; 288], df: &[u32; 30]) {
        self.syms.drain(..from);
        self.lit_freq = *lf;
        self.lit_freq[256] = 0;
        self.dist_freq = *df;
        self.look();
    }
    /// The symbols recorded since the splitter last looked, counted by its observation type
    /// (see `split.rs`). They are found from the symbol counts when it looks, once per 512
    /// symbols or so, rather than counted as each symbol is recorded: the same output, level 1
    /// about 5% faster on the corpus (per file, interleaved runs: 134.1 -> 140.9 MB/s) and
    /// 0.78x the time on random bytes.
    pub fn obs(&self) -> [u32; OBS_TYPES] {
        let mut obs = [0u32; OBS_TYPES];
        let d = |i: usize| self.lit_freq[i].wrapping_sub(self.obs_base[i]);
        // A literal's type is its top two bits and its lowest bit: sixty-four byte values in a
        // row share the top bits, and alternate in the lowest.
        for q in 0..4 {
            let (mut even, mut odd) = (0u32, 0u32);
            for b in (64 * q..64 * q + 64).step_by(2) {
                even = even.wrapping_add(d(b));
                odd = odd.wrapping_add(d(b + 1));
            }
            obs[2 * q] = even;
            obs[2 * q + 1] = odd;
        }
        // Lengths 3-8 are symbols 257-262.
        obs[8] = (257..263).map(d).fold(0, u32::wrapping_add);
        obs[9] = (263..286).map(d).fold(0, u32::wrapping_add);
        obs
    }
    /// The splitter has looked: the next observations start here.
    pub fn look(&mut self) {
        self.obs_base = self.lit_freq[..286].try_into().unwrap();
        self.obs_from = self.syms.len();
    }
    /// Observations since the splitter last looked: the symbols recorded since then.
    #[inline(always)]
    pub fn obs_total(&self) -> u32 {
        (self.syms.len() - self.obs_from) as u32
    }
    /// Records a literal.
    #[inline(always)]
    pub fn lit(&mut self, b: u8) {
        self.syms.push(LIT | b as u32);
        self.lit_freq[b as usize] += 1;
    }
    /// Records a run of literals (the parsers' unsearched stretches in incompressible data):
    /// the symbols are appended in one extend.
    #[inline(never)]
    pub fn lits(&mut self, bytes: &[u8]) {
        self.syms.extend(bytes.iter().map(|&b| LIT | b as u32));
        for &b in bytes {
            self.lit_freq[b as usize] += 1;
        }
    }
    /// Records a match (3 <= len <= 258, 1 <= dist <= 32768).
    #[inline(always)]
    pub fn matched(&mut self, len: u32, dist: u32) {
        debug_assert!((3..=258).contains(&len) && (1..=32768).contains(&dist));
        let ls = LEN_SYM[len as usize] as usize;
        let ds = dist_sym(dist);
        self.syms.push(
            MATCH_FLAG | dist << DIST_SHIFT | (ds as u32) << DIST_SYM_SHIFT | (LEN_INDEX + len),
        );
        self.lit_freq[257 + ls] += 1;
        self.dist_freq[ds] += 1;
    }
}

/// Bits a run of stored blocks for `len` bytes costs when the writer is at `phase` bits past a
/// byte boundary.
pub fn stored_cost(len: usize, phase: u32) -> u64 {
    let pieces = len.div_ceil(65535).max(1) as u64;
    let first_pad = (8 - (phase + 3) % 8) % 8;
    let rest_pad = 5; // after the first piece the writer is byte aligned: 3 header bits + 5 pad
    pieces * (3 + 32) + first_pad as u64 + (pieces - 1) * rest_pad + 8 * len as u64
}

/// Writes `data` as stored blocks; the last piece has BFINAL = `last`.
pub fn write_stored(w: &mut BitWriter, data: &[u8], last: bool) {
    let mut chunks = data.chunks(65535).peekable();
    if data.is_empty() {
        put_stored_piece(w, &[], last);
        return;
    }
    while let Some(c) = chunks.next() {
        let fin = last && chunks.peek().is_none();
        put_stored_piece(w, c, fin);
    }
}

fn put_stored_piece(w: &mut BitWriter, c: &[u8], fin: bool) {
    w.put(fin as u32, 3);
    w.align();
    let n = c.len() as u16;
    w.out.extend_from_slice(&n.to_le_bytes());
    w.out.extend_from_slice(&(!n).to_le_bytes());
    w.out.extend_from_slice(c);
}

/// Which Huffman codes a block may use.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum BlockCodes {
    /// Cheapest of stored, fixed and dynamic.
    Any,
    /// Stored or fixed only (zlib's Z_FIXED).
    FixedOnly,
}

/// Reusable scratch for dynamic-code construction.
#[derive(Default, Clone)]
pub struct Encoder {
    lit_lens: Vec<u8>,
    dist_lens: Vec<u8>,
    lit_codes: Vec<u16>,
    dist_codes: Vec<u16>,
    rle: Vec<(u8, u8)>,
    /// The symbol writer's tables of the last block's code.
    tables: Box<SymTables>,
}

/// A block's sizes under each block type, from [`Encoder::size`]; the dynamic code's lengths
/// and header stay in the encoder's scratch until the next call.
struct Sizes {
    /// Bits of the dynamic block (header included), of its symbols alone, and of the fixed one.
    dynamic: u64,
    dyn_syms: u64,
    fixed: u64,
    fixed_syms: u64,
    hlit: usize,
    hdist: usize,
    hclen: usize,
    cl_lens: [u8; 19],
}

impl Sizes {
    /// Bits of the cheaper Huffman block `codes` allows, and whether it is the dynamic one.
    fn coded(&self, codes: BlockCodes) -> (u64, bool) {
        if codes == BlockCodes::Any && self.dynamic < self.fixed {
            (self.dynamic, true)
        } else {
            (self.fixed, false)
        }
    }
}

/// Extra bits of the length and distance symbols counted in `lf` and `df`.
fn extra_bits(lf: &[u32; 288], df: &[u32; 30]) -> u64 {
    let l: u64 = (0..29)
        .map(|i| lf[257 + i] as u64 * LEN_EXTRA[i] as u64)
        .sum();
    let d: u64 = (0..30).map(|i| df[i] as u64 * DIST_EXTRA[i] as u64).sum();
    l + d
}

impl Encoder {
    /// Ends a block: writes `sb`'s symbols (which encode exactly `raw`) as the cheapest block
    /// type, with BFINAL = `last`. Clears `sb`.
    pub fn write_block(
        &mut self,
        w: &mut BitWriter,
        sb: &mut SymBuf,
        raw: &[u8],
        last: bool,
        codes: BlockCodes,
    ) {
        sb.lit_freq[256] = 1;
        self.write_range(w, &sb.syms, &sb.lit_freq, &sb.dist_freq, raw, last, codes);
        sb.clear();
    }

    /// Writes `syms` (which encode exactly `raw`, with symbol counts `lf` and `df`, the
    /// end-of-block symbol counted) as the cheapest block type, with BFINAL = `last`.
    #[allow(clippy::too_many_arguments)]
    pub fn write_range(
        &mut self,
        w: &mut BitWriter,
        syms: &[u32],
        lf: &[u32; 288],
        df: &[u32; 30],
        raw: &[u8],
        last: bool,
        codes: BlockCodes,
    ) {
        let z = self.size(lf, df);
        let (best, use_dyn) = z.coded(codes);
        if stored_cost(raw.len(), w.bit_phase()) <= best {
            write_stored(w, raw, last);
        } else if use_dyn {
            w.put(last as u32 | 2 << 1, 3);
            w.put((z.hlit - 257) as u32, 5);
            w.put((z.hdist - 1) as u32, 5);
            w.put((z.hclen - 4) as u32, 4);
            for &s in &CLEN_ORDER[..z.hclen] {
                w.put(z.cl_lens[s] as u32, 3);
            }
            let mut cl_codes = [0u16; 19];
            build_codes(&z.cl_lens, &mut cl_codes);
            for &(s, x) in &self.rle {
                w.put(cl_codes[s as usize] as u32, z.cl_lens[s as usize] as u32);
                match s {
                    16 => w.put(x as u32, 2),
                    17 => w.put(x as u32, 3),
                    18 => w.put(x as u32, 7),
                    _ => {}
                }
            }
            self.write_syms(w, syms, lf, z.dyn_syms, false);
        } else {
            w.put(last as u32 | 1 << 1, 3);
            self.write_syms(w, syms, lf, z.fixed_syms, true);
        }
    }

    /// Exact bits of a block of `raw_len` input bytes with symbol counts `lf` and `df` (the
    /// end-of-block symbol counted) as the cheapest block type `codes` allows (stored priced
    /// as if the writer were byte-aligned).
    pub fn cost(
        &mut self,
        lf: &[u32; 288],
        df: &[u32; 30],
        raw_len: usize,
        codes: BlockCodes,
    ) -> u64 {
        self.size(lf, df)
            .coded(codes)
            .0
            .min(stored_cost(raw_len, 0))
    }

    /// Builds the dynamic code for `lf` and `df` (lengths in `lit_lens` and `dist_lens`, the
    /// code-length RLE in `rle`) and sizes the block both ways. The costs are exact (header,
    /// code-length RLE, extra bits).
    fn size(&mut self, lf: &[u32; 288], df: &[u32; 30]) -> Sizes {
        let extra = extra_bits(lf, df);
        let (fixed_syms, count) = fixed_symbol_bits(lf, df);
        let fixed_syms = fixed_syms + extra;
        if count <= BOUND_MAX_SYMS && 3 + fixed_syms <= dynamic_lower_bound(lf, df) + extra {
            // No dynamic code can beat the fixed one (a short block, such as one flushed after
            // each short message): skip building it. Same choice, same bytes.
            return Sizes {
                dynamic: u64::MAX,
                dyn_syms: 0,
                fixed: 3 + fixed_syms,
                fixed_syms,
                hlit: 0,
                hdist: 0,
                hclen: 0,
                cl_lens: [0; 19],
            };
        }
        self.size_both(lf, df, extra, fixed_syms)
    }

    /// [`Encoder::size`] with the dynamic code built; `extra` and `fixed_syms` as there.
    fn size_both(&mut self, lf: &[u32; 288], df: &[u32; 30], extra: u64, fixed_syms: u64) -> Sizes {
        self.lit_lens.resize(288, 0);
        self.dist_lens.resize(30, 0);
        with_scratch(|w| {
            build_lengths(&lf[..286], 15, &mut self.lit_lens[..286], w);
            if df.iter().all(|&f| f == 0) {
                self.dist_lens.fill(0);
                self.dist_lens[0] = 1;
                self.dist_lens[1] = 1;
            } else {
                build_lengths(df, 15, &mut self.dist_lens, w);
            }
        });
        self.lit_lens[286] = 0;
        self.lit_lens[287] = 0;
        let hlit = 257
            + self.lit_lens[257..286]
                .iter()
                .rposition(|&l| l != 0)
                .map_or(0, |p| p + 1);
        let hdist = 1 + self.dist_lens[1..30]
            .iter()
            .rposition(|&l| l != 0)
            .map_or(0, |p| p + 1);
        // Code-length RLE.
        self.rle.clear();
        let mut all = [0u8; 286 + 30];
        all[..hlit].copy_from_slice(&self.lit_lens[..hlit]);
        all[hlit..hlit + hdist].copy_from_slice(&self.dist_lens[..hdist]);
        rle_lengths(&all[..hlit + hdist], &mut self.rle);
        let mut cl_freq = [0u32; 19];
        for &(s, _) in &self.rle {
            cl_freq[s as usize] += 1;
        }
        let mut cl_lens = [0u8; 19];
        with_scratch(|w| build_lengths(&cl_freq, 7, &mut cl_lens, w));
        let hclen = 4 + CLEN_ORDER[4..]
            .iter()
            .rposition(|&s| cl_lens[s] != 0)
            .map_or(0, |p| p + 1);
        let sym_bits = |ll: &[u8], dl: &[u8]| -> u64 {
            let a: u64 = (0..286).map(|s| lf[s] as u64 * ll[s] as u64).sum();
            let b: u64 = (0..30).map(|s| df[s] as u64 * dl[s] as u64).sum();
            a + b + extra
        };
        let cl_bits: u64 = (0..19)
            .map(|s| cl_freq[s] as u64 * cl_lens[s] as u64)
            .sum::<u64>()
            + 2 * cl_freq[16] as u64
            + 3 * cl_freq[17] as u64
            + 7 * cl_freq[18] as u64;
        let dyn_syms = sym_bits(&self.lit_lens, &self.dist_lens);
        Sizes {
            dynamic: 3 + 14 + 3 * hclen as u64 + cl_bits + dyn_syms,
            dyn_syms,
            fixed: 3 + fixed_syms,
            fixed_syms,
            hlit,
            hdist,
            hclen,
            cl_lens,
        }
    }

    /// Writes the block's symbols (with symbol counts `lf`), which take exactly `bits` bits
    /// with these codes.
    fn write_syms(
        &mut self,
        w: &mut BitWriter,
        syms: &[u32],
        lf: &[u32; 288],
        bits: u64,
        fixed: bool,
    ) {
        // Per block: each literal's code and length in one word, and each match length's code
        // with its extra bits already shifted in, so the loop does one lookup per literal or
        // length. A symbol is at most 15 + 5 + 15 + 13 = 48 bits, one flush each. The fixed
        // code's tables stay from one fixed block to the next.
        if !(fixed && self.tables.fixed) {
            if fixed {
                self.lit_lens.clear();
                self.lit_lens.extend_from_slice(&fixed_litlen_lens());
                self.dist_lens.clear();
                self.dist_lens.extend_from_slice(&fixed_dist_lens()[..30]);
            }
            self.lit_codes.resize(288, 0);
            self.dist_codes.resize(30, 0);
            build_codes(&self.lit_lens, &mut self.lit_codes);
            build_codes(&self.dist_lens, &mut self.dist_codes);
            self.tables.build(
                &self.lit_codes,
                &self.lit_lens,
                &self.dist_codes,
                &self.dist_lens,
            );
            self.tables.fixed = fixed;
        }
        let SymTables { ll, dists, .. } = &*self.tables;
        let lits: u64 = lf[..256].iter().map(|&f| f as u64).sum();
        let runs = lits * RUNS_SHARE.1 >= syms.len() as u64 * RUNS_SHARE.0;
        // Room for exactly the symbols' bits (plus slack), not for the worst case of 6 bytes
        // per symbol: the room is zero-filled first. Compiled for BMI2 where the CPU has it
        // (shifts by a register count in one instruction, without the count in `cl`): levels
        // 1, 2 and 6 in 0.985-1.00x, 0.97-0.98x and 0.99-0.995x the time (per-file corpus,
        // alternating runs of two binaries, three sets).
        crate::arch::with_bmi2(
            #[inline(always)]
            || {
                w.burst(
                    bits as usize / 8 + 16,
                    #[inline(always)]
                    |b| {
                        if runs {
                            put_syms::<true>(b, syms, ll, dists)
                        } else {
                            put_syms::<false>(b, syms, ll, dists)
                        }
                    },
                )
            },
        );
    }
}

/// Writes `syms` and the end-of-block code with the block's tables ([`SymTables`]).
///
/// Each symbol is written without a branch on its kind, which data mixes unpredictably: a
/// literal's distance part adds no bits (see the module's symbol words). With `RUNS` (a block
/// of mostly literals), three literals in a row go out as one word instead: their codes are
/// joined off the bit buffer's chain of dependent shifts, then added and flushed once (a
/// literal's code is at most 15 bits, so the 45 and the 7 a flush leaves fit in the buffer).
/// The test for three literals is a branch that mispredicts where literals and matches
/// alternate, hence the block's share of literals first. Same output, in alternating runs of
/// two binaries: at levels 1, 2 and 6, pieces of 1 and 4 KiB (`bench/pieces.py`) in
/// 0.92-0.95x the time, 16 KiB 0.96-0.98x, 64 KiB 1.00x; htslib's SAM reads and C. elegans
/// FASTA, random bases, a JSON log, a VCF, a CSV table, 16- and 32-bit samples and a tar of
/// executables together 0.94-0.97x; the per-file corpus 0.99-1.01x. With the share at 2/3 or
/// 1/2 the corpus took up to 1.02x; at 5/6 or 7/8 the small pieces gained less. Four literals
/// a word where every literal's code is 14 bits or less (libdeflate's count) measured 1.00-1.02x
/// the time of three on the pieces and the corpus.
#[inline(always)]
fn put_syms<const RUNS: bool>(
    b: &mut Burst<'_>,
    syms: &[u32],
    ll: &[u32; 1024],
    dists: &[(u64, u32); 32],
) {
    let mut rest = syms;
    if RUNS {
        while let [s0, s1, s2, tail @ ..] = rest {
            if (s0 | s1 | s2) & MATCH_FLAG == 0 {
                let (e0, e1, e2) = (
                    ll[(s0 & 0x3ff) as usize],
                    ll[(s1 & 0x3ff) as usize],
                    ll[(s2 & 0x3ff) as usize],
                );
                let (l0, l1) = (e0 >> 24, e1 >> 24);
                let word = (e0 & 0xff_ffff) as u64
                    | ((e1 & 0xff_ffff) as u64) << l0
                    | ((e2 & 0xff_ffff) as u64) << (l0 + l1);
                b.add(word, l0 + l1 + (e2 >> 24));
                b.flush();
                rest = tail;
            } else {
                put_sym(b, *s0, ll, dists);
                rest = &rest[1..];
            }
        }
    }
    for &s in rest {
        put_sym(b, s, ll, dists);
    }
    let e = ll[256];
    b.add((e & 0xff_ffff) as u64, e >> 24);
    b.flush();
}

/// Writes symbol `s` (see [`put_syms`]).
#[inline(always)]
fn put_sym(b: &mut Burst<'_>, s: u32, ll: &[u32; 1024], dists: &[(u64, u32); 32]) {
    let e = ll[(s & 0x3ff) as usize];
    b.add((e & 0xff_ffff) as u64, e >> 24);
    let (off, n) = dists[(s >> DIST_SYM_SHIFT) as usize & 31];
    let bits = ((((s >> DIST_SHIFT) & 0xffff) as u64) << (n & 0xff)).wrapping_add(off);
    b.add(bits, n >> 8);
    b.flush();
}

/// A block's codes as its symbol writer reads them (see [`SymTables::build`]), kept by the
/// encoder: the fixed code's stay from one fixed block to the next, and a dynamic code's
/// length table writes only the entries of the lengths the block uses.
#[derive(Clone)]
struct SymTables {
    /// By a symbol word's index: each literal's (and at 256 the end-of-block's) code and
    /// length in one word (length in the top byte), and at 256 + length each match length's
    /// code with its extra bits shifted in, and its total bits. 1,024 entries, so the index's
    /// ten bits read it unchecked.
    ll: [u32; 1024],
    /// Each distance symbol's code with its base folded in, and its code length and total bits.
    dists: [(u64, u32); 32],
    /// These are the fixed code's.
    fixed: bool,
}

impl Default for SymTables {
    fn default() -> Self {
        SymTables {
            ll: [0; 1024],
            dists: [(0, 0); 32],
            fixed: false,
        }
    }
}

impl SymTables {
    /// The tables of the code with these codes and lengths.
    fn build(&mut self, lc: &[u16], ll: &[u8], dc: &[u16], dl: &[u8]) {
        for (i, e) in self.ll[..257].iter_mut().enumerate() {
            *e = lc[i] as u32 | (ll[i] as u32) << 24;
        }
        // The lengths' entries, at 256 + length: filled a length symbol at a time, each
        // length's extra bits one more than the last's, and only for the symbols the block
        // uses (the others' entries are never read): a small block spent a fifth of the
        // writer's time on the table when each entry looked its symbol up.
        let lens = &mut self.ll[LEN_INDEX as usize..];
        for ls in 0..29 {
            let n = ll[257 + ls] as u32;
            if n == 0 {
                continue;
            }
            // Up to the next symbol's base (symbol 284's five extra bits would reach 258, which
            // is symbol 285's).
            let (base, end) = (
                LEN_BASE[ls] as usize,
                LEN_BASE.get(ls + 1).map_or(259, |&b| b as usize),
            );
            let mut e = lc[257 + ls] as u32 | (n + LEN_EXTRA[ls] as u32) << 24;
            for x in &mut lens[base..end] {
                *x = e;
                e += 1 << n;
            }
        }
        // Each distance symbol's code with its base folded in (the code plus the extra bits
        // is `(dist << code length) + dists[ds].0`: the base's shifted bits cancel), and its
        // code length and total bits; 32 entries, so the symbol's five bits index it unchecked.
        for (ds, e) in self.dists.iter_mut().enumerate().take(30) {
            let n = dl[ds] as u32;
            e.0 = (dc[ds] as u64).wrapping_sub((DIST_BASE[ds] as u64) << n);
            e.1 = n | (n + DIST_EXTRA[ds] as u32) << 8;
        }
        // The entry literals carry is never written: it adds no bits.
        debug_assert_eq!(self.dists[LIT_DIST_SYM as usize], (0, 0));
    }
}

/// Run-length codes a sequence of code lengths with symbols 16 (repeat previous 3-6),
/// 17 (zeros 3-10) and 18 (zeros 11-138); each entry is (symbol, extra-bits value).
fn rle_lengths(lens: &[u8], out: &mut Vec<(u8, u8)>) {
    let mut i = 0;
    while i < lens.len() {
        let l = lens[i];
        let mut run = 1;
        while i + run < lens.len() && lens[i + run] == l {
            run += 1;
        }
        i += run;
        if l == 0 {
            while run >= 11 {
                let r = run.min(138);
                out.push((18, (r - 11) as u8));
                run -= r;
            }
            if run >= 3 {
                out.push((17, (run - 3) as u8));
                run = 0;
            }
            for _ in 0..run {
                out.push((0, 0));
            }
        } else {
            out.push((l, 0));
            run -= 1;
            while run >= 3 {
                let r = run.min(6);
                out.push((16, (r - 3) as u8));
                run -= r;
            }
            for _ in 0..run {
                out.push((l, 0));
            }
        }
    }
}

#[cfg(test)]
mod bound_tests {
    use super::*;
    use crate::deflate::bytes::xorshift;

    /// The bound that lets `size` skip the dynamic code is never above the dynamic code's
    /// exact size, so the choice, and the output, are the same as with the code built; and
    /// short blocks do skip it.
    #[test]
    fn dynamic_lower_bound_is_below_the_dynamic_size() {
        let mut rnd = xorshift(0x5EED);
        let mut enc = Encoder::default();
        let mut skipped = 0;
        for case in 0..20_000 {
            let (mut lf, mut df) = ([0u32; 288], [0u32; 30]);
            // From a handful of symbols to thousands, sparse or dense, skewed or even.
            let syms = [1, 2, 3, 5, 10, 30, 100, 1000, 20_000][case % 9];
            let spread = 1 + (rnd() % 286) as usize;
            let dists = (rnd() % 31) as usize;
            let skew = rnd() % 4;
            for _ in 0..syms {
                let r = rnd();
                let pick = |n: usize| match skew {
                    0 => (r >> 8) as usize % n,
                    _ => ((r >> 8) as usize % n).min((r >> 40) as usize % n),
                };
                let s = pick(spread);
                if s >= 257 && dists > 0 {
                    lf[s.min(285)] += 1;
                    df[(r >> 20) as usize % dists] += 1;
                } else {
                    lf[s.min(255)] += 1;
                }
            }
            lf[256] = 1;
            let extra = extra_bits(&lf, &df);
            let fixed_syms = fixed_symbol_bits(&lf, &df).0 + extra;
            let exact = enc.size_both(&lf, &df, extra, fixed_syms);
            assert_eq!(exact.fixed_syms, fixed_syms, "case {case}");
            let bound = dynamic_lower_bound(&lf, &df) + extra;
            assert!(
                bound <= exact.dynamic,
                "case {case}: {bound} > {}",
                exact.dynamic
            );
            let z = enc.size(&lf, &df);
            if z.dynamic == u64::MAX {
                skipped += 1;
                assert!(exact.fixed <= exact.dynamic, "case {case}");
            }
            assert_eq!(z.coded(BlockCodes::Any).0, exact.coded(BlockCodes::Any).0);
        }
        assert!(skipped > 2000, "{skipped}");
        // A block flushed after a short message: literals and a few matches.
        let (mut lf, mut df) = ([0u32; 288], [0u32; 30]);
        for b in b"{\"id\": 17, \"user\"" {
            lf[*b as usize] += 1;
        }
        (lf[256], lf[270], df[12]) = (1, 2, 2);
        assert_eq!(enc.size(&lf, &df).dynamic, u64::MAX);
    }

    /// Symbols written three literals at a time (a block of mostly literals) and one at a time
    /// give the same bits: runs of 0-7 literals between matches, with the fixed code and with
    /// dynamic codes built from Fibonacci counts, whose rarest literals get 15-bit codes.
    #[test]
    fn literal_runs_write_the_same_bits() {
        let mut rnd = xorshift(0x7E57_1175);
        for case in 0..300 {
            let mut sb = SymBuf::default();
            for _ in 0..rnd() % 400 {
                for _ in 0..rnd() % 8 {
                    sb.lit((rnd() % 24) as u8);
                }
                sb.matched(3 + (rnd() % 256) as u32, 1 + (rnd() % 32768) as u32);
            }
            let (mut ll, mut dl) = (vec![0u8; 288], vec![0u8; 30]);
            if case % 4 == 0 {
                ll.copy_from_slice(&fixed_litlen_lens());
                dl.copy_from_slice(&fixed_dist_lens()[..30]);
            } else {
                let (mut lf, df) = ([1u32; 286], [1u32; 30]);
                let (mut a, mut b) = (1u32, 1u32);
                for f in lf[..24].iter_mut().rev() {
                    *f = a;
                    (a, b) = (b, a + b);
                }
                with_scratch(|w| {
                    build_lengths(&lf, 15, &mut ll[..286], w);
                    build_lengths(&df, 15, &mut dl, w);
                });
                assert_eq!(ll[..24].iter().max(), Some(&15));
            }
            let (mut lc, mut dc) = (vec![0u16; 288], vec![0u16; 30]);
            build_codes(&ll, &mut lc);
            build_codes(&dl, &mut dc);
            let mut t = SymTables::default();
            t.build(&lc, &ll, &dc, &dl);
            let write = |runs: bool| {
                let mut w = BitWriter::default();
                w.put(case as u32 & 7, 3);
                w.burst(8 * sb.syms.len() + 16, |b| {
                    if runs {
                        put_syms::<true>(b, &sb.syms, &t.ll, &t.dists)
                    } else {
                        put_syms::<false>(b, &sb.syms, &t.ll, &t.dists)
                    }
                });
                w.align();
                w.out
            };
            assert_eq!(write(true), write(false), "case {case}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{SymBuf, OBS_TYPES};
    use crate::deflate::bytes::xorshift;

    /// A literal's observation type, as libdeflate's splitter counts it: its top two bits and
    /// its lowest bit.
    fn lit_type(b: u8) -> usize {
        (((b >> 5) & 6) | (b & 1)) as usize
    }

    /// A match's observation type: shorter than 9, or not.
    fn match_type(len: u32) -> usize {
        8 + (len >= 9) as usize
    }

    /// The counts found from the symbol counts equal the symbols counted one by one since the
    /// last look, across looks, runs of literals, `keep` and `clear`.
    #[test]
    fn observations_are_the_symbols_since_the_last_look() {
        let mut rnd = xorshift(0x2545_F491_4F6C_DD1D);
        let mut sb = SymBuf::default();
        let mut want = [0u32; OBS_TYPES];
        for round in 0..2000 {
            match rnd() % 8 {
                0..=3 => {
                    let b = rnd() as u8;
                    sb.lit(b);
                    want[lit_type(b)] += 1;
                }
                4 => {
                    let bytes: Vec<u8> = (0..rnd() % 70).map(|_| rnd() as u8).collect();
                    sb.lits(&bytes);
                    for &b in &bytes {
                        want[lit_type(b)] += 1;
                    }
                }
                5 | 6 => {
                    let len = 3 + (rnd() % 256) as u32;
                    sb.matched(len, 1 + (rnd() % 32768) as u32);
                    want[match_type(len)] += 1;
                }
                _ => {
                    assert_eq!(sb.obs(), want, "round {round}");
                    assert_eq!(sb.obs_total(), want.iter().sum::<u32>());
                    match rnd() % 4 {
                        0 => sb.clear(),
                        1 => {
                            let (lf, df) = (sb.lit_freq, sb.dist_freq);
                            sb.keep(sb.syms.len() / 2, &lf, &df);
                        }
                        _ => sb.look(),
                    }
                    want = [0; OBS_TYPES];
                    assert_eq!(sb.obs(), want);
                }
            }
        }
    }
}
