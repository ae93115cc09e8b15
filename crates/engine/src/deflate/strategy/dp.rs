//! The near-optimal parser's dynamic program (`optimal.rs`): the backward pass that picks, for
//! every position of a window, the literal or (length, distance) that minimises the bits to
//! the window's end at the symbol prices of `prices.rs`, trying every length a candidate
//! match allows.
//!
//! A position's candidates come from the binary trees (`bt.rs`), each longer than all closer
//! ones and [`pack`](crate::deflate::bt::pack)ed with its distance symbol. Each length is
//! priced with the first (closest) candidate that reaches it. Where the CPU has AVX2 and a
//! position has one to four candidates (88% of bible.txt's positions at level 10; 11% have
//! none), its lengths are priced 8 to 32 at a time by a kernel with no data-dependent branch
//! (`lanes.rs`); the loop over each candidate's lengths ends at a different count every time
//! and was mispredicted about once per candidate. Either way the parse is the same, first
//! length on ties: the output does not depend on the CPU.
#![forbid(unsafe_code)]

use super::optimal::WINDOW;
use super::prices::{Costs, MAX_MATCH_PRICE, MAX_PRICE};
use crate::arch::Avx2;
use crate::deflate::bt::{LEN_BITS, LEN_MASK};
use crate::deflate::bytes::MAX_MATCH;
use crate::deflate::tables::{dist_sym, LEN_SYM};
use crate::lanes::{self, LANES};

/// Candidates the kernel takes at one position (more go through the plain loop: 0.7% of
/// bible.txt's positions at level 10): `lanes::best`'s four, which the arrays passed to it
/// tie to this at compile time.
pub const KERNEL_MATCHES: usize = 4;
/// Costs to the window's end: every position's, the end's, and room for a kernel's lanes
/// past the end (read, never chosen).
const COST_LEN: usize = WINDOW + 1 + MAX_MATCH + LANES;

/// A pass holds every price and cost shifted left by this many bits, and a length's price
/// carries the length in them, so the least of a position's sums names its length (the
/// shortest on ties, as the comparisons in order chose before): the kernel needs no search
/// for the lane that gave its minimum (`lanes::best`).
const LEN_FIELD: u32 = 9;
/// The low bits of a pass's price or cost.
const LOW: u32 = (1 << LEN_FIELD) - 1;
// Every length, the kernel's lanes past the longest included, fits in the field.
const _: () = assert!(MAX_MATCH + LANES <= LOW as usize);
// No sum overflows: a position's cost is at most its bytes' as literals to the window's end,
// and a sum adds one length's and one distance's price to such a cost.
const _: () = assert!(
    ((WINDOW as u64 * MAX_PRICE as u64 + MAX_MATCH_PRICE as u64) << LEN_FIELD) < u32::MAX as u64
);

/// Prices per length, symbol and extra bits: every length's, then room for a kernel's lanes
/// past the longest (read, never chosen).
type LenCosts = [u32; MAX_MATCH + 1 + LANES];

/// The prices of [`Costs`] as a pass holds them (see [`LEN_FIELD`]), each length's looked up
/// once.
struct Scaled {
    lit: [u32; 256],
    dist: [u32; 32],
    len: LenCosts,
}

impl Scaled {
    fn of(model: &Costs) -> Scaled {
        Scaled {
            lit: std::array::from_fn(|b| model.lit[b] << LEN_FIELD),
            dist: model.dist.map(|d| d << LEN_FIELD),
            len: std::array::from_fn(|l| {
                let price = if (3..=MAX_MATCH).contains(&l) {
                    model.lit[257 + LEN_SYM[l] as usize]
                } else {
                    0
                };
                price << LEN_FIELD | l as u32
            }),
        }
    }
}

/// A window's bytes and candidate matches, as the dynamic program reads them.
pub struct Candidates<'a> {
    /// The window (at most [`WINDOW`] bytes).
    pub bytes: &'a [u8],
    /// Where each position's candidates start in `matches`; `first[bytes.len()]` is where the
    /// last position's end.
    pub first: &'a [u32; WINDOW + 1],
    /// The candidates, packed, with at least [`KERNEL_MATCHES`] entries of any value after
    /// the last position's (the kernel reads four at once).
    pub matches: &'a [(u16, u16)],
    /// Shortest length to take (the trees report lengths from 4, the 3-byte table 3, and
    /// Z_FILTERED asks for 6).
    pub min_len: usize,
}

/// A window's parse: each position's cost to the window's end (shifted as [`LEN_FIELD`] says)
/// and cheapest choice, (0, 0) for a literal. The arrays are sized for any window and never
/// cleared: a pass writes each position's before reading it.
#[derive(Clone)]
pub struct Parse {
    cost: Box<[u32; COST_LEN]>,
    choice: Box<[(u16, u16); WINDOW]>,
}

impl Parse {
    pub fn new() -> Parse {
        Parse {
            cost: vec![0; COST_LEN]
                .into_boxed_slice()
                .try_into()
                .expect("COST_LEN"),
            choice: vec![(0, 0); WINDOW]
                .into_boxed_slice()
                .try_into()
                .expect("WINDOW"),
        }
    }

    /// One pass over `c` with the prices `model`.
    pub fn run(&mut self, c: &Candidates, model: &Costs) {
        let model = Scaled::of(model);
        let (cost, choice) = (&mut *self.cost, &mut *self.choice);
        crate::arch::with_avx2(
            #[inline(always)]
            |tok| pass(tok, c, &model, cost, choice),
        );
    }

    /// The choices of the last pass over a window of `n` bytes.
    pub fn choice(&self, n: usize) -> &[(u16, u16)] {
        &self.choice[..n]
    }

    /// The prices the last pass's parse of `bytes` gives its symbols (the next pass's, or the
    /// next window's first), and the bits that parse costs at them ([`Costs::from_counts`]).
    pub fn prices(&self, bytes: &[u8]) -> (Costs, u64) {
        let (mut lf, mut df) = ([0u32; 286], [0u32; 30]);
        let mut i = 0;
        while i < bytes.len() {
            let (l, d) = self.choice[i];
            if l == 0 {
                lf[bytes[i] as usize] += 1;
                i += 1;
            } else {
                lf[257 + LEN_SYM[l as usize] as usize] += 1;
                df[dist_sym(d as u32)] += 1;
                i += l as usize;
            }
        }
        lf[256] = 1;
        Costs::from_counts(&lf, &df)
    }
}

/// The backward pass: `cost[i]` and `choice[i]` for every position `i` of the window, last
/// first (`cost[n]`, the end, is 0). With `tok`, positions with one to [`KERNEL_MATCHES`]
/// candidates go through the AVX2 kernel. Those with none skip it: through the kernel they
/// made level 10 1.3x slower on 1 KB of text, where most positions have none, and the corpus
/// 1.02x. Against the plain loop alone, in alternating runs (same bytes): the kernel on up to
/// 16 lengths 0.93-0.94x the time at level 10 and 0.89-0.90x at level 12; up to 32, a
/// further 0.97x / 0.96x; longer matches too ([`long_lanes`]), a further 1.00x / 0.97x; one
/// vector (eight lengths) where the longest candidate reaches no further, a further
/// 0.97-1.01x / 0.96-0.99x (level 11 0.97-1.00x; four pairs of runs, same bytes). Three
/// vectors where it reaches no further than 24 lengths measured 1.01x / 0.99x against that.
///
/// The kernel's call, comparison and choice are written out here and again in [`long_lanes`]:
/// one `#[inline(always)]` helper for both (cost and choice returned as a pair) made levels
/// 10 and 12 1.02-1.03x slower in alternating runs.
///
/// Also measured against this pass, in alternating runs (same bytes), and not kept: 32 lengths
/// priced wherever there are candidates (no branch between 16 and 32) 1.02-1.03x the time at
/// levels 10-12; the next position's cost carried in a register instead of read back from
/// `cost` (its store would be forwarded on every position's path) 0.99-1.00x.
#[inline(always)]
fn pass(
    tok: Option<Avx2>,
    c: &Candidates,
    model: &Scaled,
    cost: &mut [u32; COST_LEN],
    choice: &mut [(u16, u16); WINDOW],
) {
    let Candidates {
        bytes,
        first,
        matches,
        min_len,
    } = *c;
    let n = bytes.len();
    assert!(n <= WINDOW && min_len <= MAX_MATCH);
    let len_cost = &model.len;
    cost[n] = 0;
    for i in (0..n).rev() {
        let mut best = model.lit[bytes[i] as usize] + cost[i + 1];
        let mut ch = (0u16, 0u16);
        let (a, b) = (first[i] as usize, first[i + 1] as usize);
        let k = b - a;
        // The position's candidates and whatever follows them, and its longest length, for
        // the kernel (read here, before the branch, even where the plain loop runs: read
        // inside the kernel's arm they cost 1.01-1.02x the time at levels 10 and 12).
        let quad: &[(u16, u16); KERNEL_MATCHES] =
            matches[a..a + KERNEL_MATCHES].try_into().expect("four");
        let lmax = if k > 0 {
            (matches[b - 1].0 & LEN_MASK) as usize
        } else {
            0
        };
        match tok {
            Some(tok) if (1..=KERNEL_MATCHES).contains(&k) => {
                // Lengths past the `k`-th candidate are taken as 0, which reaches no length.
                let [mut ls, mut ds, mut dcs] = [[0u32; KERNEL_MATCHES]; 3];
                for (j, &(l, d)) in quad.iter().enumerate() {
                    ls[j] = if j < k { (l & LEN_MASK) as u32 } else { 0 };
                    ds[j] = d as u32;
                    dcs[j] = model.dist[(l >> LEN_BITS) as usize & 31];
                }
                let lc = &len_cost[min_len..min_len + LANES];
                let cs = &cost[i + min_len..i + min_len + LANES];
                let m = if lmax < min_len + 8 {
                    lanes::best::<1>(tok, lc, cs, min_len as u32, lmax as u32, ls, dcs)
                } else if lmax < min_len + 16 {
                    lanes::best::<2>(tok, lc, cs, min_len as u32, lmax as u32, ls, dcs)
                } else {
                    lanes::best::<4>(tok, lc, cs, min_len as u32, lmax as u32, ls, dcs)
                };
                // Found before the comparison, so that it compiles to conditional moves (a
                // branch on it is mispredicted: 1.03x the time at level 10, 1.04x at 12).
                let pick = chosen(m & LOW, ls, ds);
                if m < best {
                    best = m;
                    ch = pick;
                }
                if lmax >= min_len + LANES {
                    let rest = (min_len + LANES, lmax);
                    (best, ch) = long_lanes(tok, len_cost, &cost[i..], rest, ls, ds, dcs, best, ch);
                }
            }
            _ => {
                let mut from = min_len;
                for &(l, d) in &matches[a..b] {
                    let (l, sym) = ((l & LEN_MASK) as usize, (l >> LEN_BITS) as usize);
                    if l >= from {
                        let dc = model.dist[sym & 31];
                        // Lengths from..=l of this match: the cheapest, first on ties.
                        let rest = &cost[i + from..=i + l];
                        for (k, (&lc, &r)) in len_cost[from..=l].iter().zip(rest).enumerate() {
                            let c = lc + dc + r;
                            if c < best {
                                best = c;
                                ch = ((from + k) as u16, d);
                            }
                        }
                    }
                    // Never below the minimum: a shorter match earlier in the list must not
                    // let the next one be taken below it.
                    from = from.max(l + 1);
                }
            }
        }
        cost[i] = best & !LOW;
        choice[i] = ch;
    }
}

/// The choice of length `len`, with the distance of the first of the candidates (lengths
/// `ls`, distances `ds`; the last reaches it) that reaches it.
#[inline(always)]
fn chosen(len: u32, ls: [u32; KERNEL_MATCHES], ds: [u32; KERNEL_MATCHES]) -> (u16, u16) {
    let mut d = ds[KERNEL_MATCHES - 1];
    for k in (0..KERNEL_MATCHES - 1).rev() {
        d = if len <= ls[k] { ds[k] } else { d };
    }
    (len as u16, d as u16)
}

/// The kernel over lengths `from..=lmax` (`range`), [`LANES`] at a time, for a position
/// whose longest candidate is longer than one call prices; `cost` starts at the position.
/// Returns the cheaper of `best` (with its choice `ch`) and these lengths' cheapest.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn long_lanes(
    tok: Avx2,
    len_cost: &LenCosts,
    cost: &[u32],
    range: (usize, usize),
    ls: [u32; KERNEL_MATCHES],
    ds: [u32; KERNEL_MATCHES],
    dcs: [u32; KERNEL_MATCHES],
    mut best: u32,
    mut ch: (u16, u16),
) -> (u32, (u16, u16)) {
    let (mut base, lmax) = range;
    while base <= lmax {
        let lc = &len_cost[base..base + LANES];
        let cs = &cost[base..base + LANES];
        let m = lanes::best::<4>(tok, lc, cs, base as u32, lmax as u32, ls, dcs);
        if m < best {
            best = m;
            ch = chosen(m & LOW, ls, ds);
        }
        base += LANES;
    }
    (best, ch)
}

#[cfg(test)]
mod tests {
    use super::super::optimal::tests::{parse, text_and_binary};
    use crate::arch::BASELINE_ONLY;
    use crate::deflate::bytes::xorshift;
    use crate::deflate::LEVELS;

    /// The AVX2 kernel and the plain loop parse alike: the same symbols at levels 10-12, with
    /// the 3-byte table and without, at the minimum length of 3 and Z_FILTERED's 6, on text,
    /// binary bytes, long repeats (lengths past one kernel call, up to 258) and random bytes.
    /// Without AVX2 on this CPU both runs take the plain loop (and the test shows nothing).
    #[test]
    fn kernel_and_plain_loop_parse_alike() {
        let mut rnd = xorshift(0x2545_F491_4F6C_DD1Du64);
        let [text, binary] = text_and_binary(&mut rnd, 20, (2, 9), true, 90_000);
        let mut repeats = Vec::new();
        while repeats.len() < 90_000 {
            let at = rnd() as usize % (repeats.len() + 1);
            let len = 20 + rnd() as usize % 400;
            if at + len <= repeats.len() {
                repeats.extend_from_within(at..at + len);
            } else {
                repeats.extend((0..len).map(|_| rnd() as u8 % 4));
            }
        }
        let random: Vec<u8> = (0..50_000).map(|_| rnd() as u8).collect();
        for data in [&text, &binary, &repeats, &random] {
            for &row in &LEVELS[10..=12] {
                for min in [3, 6] {
                    let syms = |baseline: bool| {
                        BASELINE_ONLY.with(|b| b.set(baseline));
                        let syms = parse(row, min, data);
                        BASELINE_ONLY.with(|b| b.set(false));
                        syms
                    };
                    assert!(syms(false) == syms(true), "min {min} row {row:?}");
                }
            }
        }
    }
}
