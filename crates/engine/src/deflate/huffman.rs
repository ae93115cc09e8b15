//! Length-limited Huffman code construction.
//!
//! Algorithm: sort the used symbols by (frequency, symbol), build an optimal tree with the
//! two-queue method (leaves in sorted order, internal nodes created in non-decreasing weight),
//! count the leaves at each depth, and if any is deeper than the limit, repair the per-length
//! counts the way miniz and zlib do: clamp overlong lengths to the limit, then repeatedly lengthen
//! the deepest shorter code by one until the Kraft sum is exactly 1. Lengths are then handed out
//! longest-first to the least frequent symbols. This is optimal when no clamp is needed and within
//! a fraction of a percent of package-merge otherwise, at a fraction of its cost. The result is
//! deterministic. A single used symbol gets a partner so that every code is complete.
//!
//! Also the integer log2 the cost estimates use (the near-optimal parser's prices, the block
//! planner's entropy).
#![forbid(unsafe_code)]

use std::cell::Cell;

/// Most symbols an alphabet has (literal/length: 288).
const MAX_SYMS: usize = 288;

/// 16 log2(x) for x >= 1 to within 0.75 (a twentieth of a bit), in integers so the output does
/// not depend on the platform's floating-point library.
pub const fn log2_x16(x: u32) -> u32 {
    // round(16 log2(1 + (i + 1/2) / 32)) for the five bits after the leading one.
    const FRAC: [u32; 32] = [
        0, 1, 2, 2, 3, 4, 4, 5, 5, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 11, 12, 12, 13, 13, 14, 14,
        14, 15, 15, 15, 16,
    ];
    let k = 31 - x.leading_zeros();
    let m = if k >= 5 { x >> (k - 5) } else { x << (5 - k) } & 31;
    16 * k + FRAC[m as usize]
}

/// Counters of the counting sort in [`build_lengths`]; frequencies beyond them are sorted by
/// comparison.
const COUNTERS: usize = 512;

/// Work arrays of [`build_lengths`], kept between calls (one per thread, [`with_scratch`]): a
/// dynamic block builds three codes, and zeroing 12 KiB of arrays on the stack for each was 6% of
/// the instructions of a 4 KiB input at level 6 (grammar.lsp; 2-3% of the time of such files in
/// interleaved runs). Every entry a call reads it first writes, except the sort's counters, which
/// each call leaves zeroed for the next, and the weight just past the node being made, which a
/// pick may read ahead and then not use.
#[derive(Clone)]
pub struct Scratch {
    start: [u16; COUNTERS],
    keys: [u64; MAX_SYMS],
    weight: [u64; 2 * MAX_SYMS + 2],
    parent: [u16; 2 * MAX_SYMS + 2],
    depth: [u32; 2 * MAX_SYMS + 2],
    count: [u32; MAX_SYMS + 2],
    leaves: [u8; 2 * MAX_SYMS + 2],
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            start: [0; COUNTERS],
            keys: [0; MAX_SYMS],
            weight: [0; 2 * MAX_SYMS + 2],
            parent: [0; 2 * MAX_SYMS + 2],
            depth: [0; 2 * MAX_SYMS + 2],
            count: [0; MAX_SYMS + 2],
            leaves: [0; 2 * MAX_SYMS + 2],
        }
    }
}

thread_local! {
    /// This thread's work arrays, out of the cell while a call uses them.
    static SCRATCH: Cell<Option<Box<Scratch>>> = const { Cell::new(None) };
}

/// Runs `f` with this thread's work arrays for [`build_lengths`]: 12 KiB per thread instead of
/// per compressor, which a server holding thousands of streams (one per WebSocket
/// connection) keeps open. Allocated on a thread's first use. The arrays are out of the
/// thread's cell during `f`, so a panic in it drops them (the sort's counters may not be zero)
/// and the next call starts with fresh ones.
pub fn with_scratch<R>(f: impl FnOnce(&mut Scratch) -> R) -> R {
    let mut w = SCRATCH
        .try_with(Cell::take)
        .ok()
        .flatten()
        .unwrap_or_default();
    let r = f(&mut w);
    let _ = SCRATCH.try_with(|s| s.set(Some(w)));
    r
}

/// Computes code lengths (0 = unused) for `freqs` (at most 288 symbols) with no length above
/// `max_len`, in the work arrays `w`.
///
/// A 4 KiB block's literal/length code, timed alone (the same lengths before and after):
/// 243 symbols used 2,473 -> 1,632 ns, 54 symbols 685 -> 455 ns, after the queues' heads
/// moved into registers, the depths came from the internal nodes only (each counting the
/// leaves among its children) and the counting sort's counters from the symbols used. A
/// dynamic block builds three codes: 4 KiB inputs compress in 0.94x the time at level 1 and
/// 0.96x at levels 2 and 6 (16 KiB: 0.97-0.98x), the corpus in the same time.
///
/// Moffat and Katajainen's in-place construction (one array: the merge, then the internal
/// nodes' depths, then the leaves' counts by depth), after the same sort and with the same
/// tie rule, gave the same lengths on 200,000 random counts, and took 769 ns per code against
/// this one's 740 (the byte counts of 192 pieces of 512 bytes to 16 KiB): not kept.
pub fn build_lengths(freqs: &[u32], max_len: u32, lens: &mut [u8], w: &mut Scratch) {
    let n = freqs.len();
    assert!(n <= MAX_SYMS, "alphabet of {n} symbols");
    lens[..n].fill(0);
    // (frequency, symbol) packed so that sorting the keys sorts by frequency, then symbol:
    // a counting sort on the frequency (stable: symbols come in ascending order), then a
    // comparison sort of the few keys whose frequency is beyond the counters.
    let m = freqs.iter().filter(|&&f| f != 0).count();
    if m == 0 {
        return;
    }
    // Counters for frequencies up to about twice the symbols used (at least 64): the prefix
    // sums run over fewer of them, and few keys are left to the comparison sort.
    let last = (2 * m).next_power_of_two().clamp(64, COUNTERS) - 1;
    let start = &mut w.start;
    let mut top = 0;
    for &f in freqs {
        if f != 0 {
            let b = (f as usize).min(last);
            start[b] += 1;
            top = top.max(b);
        }
    }
    // Prefix sums up to the highest counter in use (small blocks use few).
    let mut sum = 0;
    for c in start[..=top].iter_mut() {
        let k = *c;
        *c = sum;
        sum += k;
    }
    let keys = &mut w.keys;
    for (s, &f) in freqs.iter().enumerate() {
        if f != 0 {
            let b = (f as usize).min(last);
            keys[start[b] as usize] = (f as u64) << 16 | s as u64;
            start[b] += 1;
        }
    }
    // Keys beyond the counters, in the last one, still need sorting.
    let big = if top == last {
        start[last - 1] as usize
    } else {
        m
    };
    // The counters go back to zero for the next call.
    start[..=top].fill(0);
    keys[big..m].sort_unstable();
    if m == 1 {
        let s = (keys[0] & 0xFFFF) as usize;
        lens[s] = 1;
        lens[if s == 0 { 1 } else { 0 }] = 1;
        return;
    }
    let syms = &keys[..m];
    // Node weights: leaves 0..m, a sentinel at m, internal nodes from m + 1 on, each followed
    // by a sentinel while it is the next to be created. The sentinels (u64::MAX) stand for an
    // exhausted queue, so each pick is one comparison and conditional moves, not branches:
    // which queue's head is lighter is a coin toss the branch predictor loses.
    let weight = &mut w.weight;
    for (w, &k) in weight.iter_mut().zip(syms) {
        *w = k >> 16;
    }
    weight[m] = u64::MAX;
    let parent = &mut w.parent;
    let leaves = &mut w.leaves;
    // The two queues' head weights are held in registers, and the weight behind each head is
    // read before the comparison that may need it: a pick then waits on a comparison and a
    // conditional move, not on a load whose address the pick before chose.
    let (mut leaf, mut node, mut next) = (0usize, m + 1, m + 1);
    let (mut wl, mut wn) = (weight[0], u64::MAX);
    for _ in 0..m - 1 {
        weight[next] = u64::MAX;
        let mut pick = || {
            let (after_leaf, after_node) = (weight[leaf + 1], weight[node + 1]);
            let take_leaf = wl <= wn;
            let (i, wi) = if take_leaf { (leaf, wl) } else { (node, wn) };
            leaf += take_leaf as usize;
            node += !take_leaf as usize;
            if take_leaf {
                wl = after_leaf;
            } else {
                wn = after_node;
            }
            (i, wi, take_leaf as u8)
        };
        let (a, wa, la) = pick();
        let (b, wb, lb) = pick();
        let sum = wa + wb;
        weight[next] = sum;
        // The node just made heads its queue if every node before it is taken.
        if node == next {
            wn = sum;
        }
        // Only internal nodes' parents are read; a leaf's is written anyway, as a store costs
        // less than the test that would skip it.
        parent[a] = next as u16;
        parent[b] = next as u16;
        leaves[next] = la + lb;
        next += 1;
    }
    // Parents come after their children, so one backward pass over the internal nodes gives
    // each its depth, and the leaves among its children are counted one deeper.
    let root = next - 1;
    let lim = max_len as usize;
    let count = &mut w.count;
    count.fill(0);
    let depth = &mut w.depth;
    depth[root] = 0;
    count[1] = leaves[root] as u32;
    let mut maxd = 1;
    for i in (m + 1..root).rev() {
        let d = depth[parent[i] as usize] + 1;
        depth[i] = d;
        count[d as usize + 1] += leaves[i] as u32;
        maxd = maxd.max((d as usize + 1) * (leaves[i] != 0) as usize);
    }
    if maxd > lim {
        for d in lim + 1..=maxd {
            count[lim] += count[d];
            count[d] = 0;
        }
        let mut total: u64 = (1..=lim).map(|d| (count[d] as u64) << (lim - d)).sum();
        while total != 1u64 << lim {
            count[lim] -= 1;
            for d in (1..lim).rev() {
                if count[d] != 0 {
                    count[d] -= 1;
                    count[d + 1] += 2;
                    break;
                }
            }
            total -= 1;
        }
    }
    // Longest lengths to the least frequent symbols (syms is ascending by frequency).
    let mut i = 0;
    for d in (1..=lim.max(maxd).min(count.len() - 1)).rev() {
        for _ in 0..count[d] {
            lens[(syms[i] & 0xFFFF) as usize] = d as u8;
            i += 1;
        }
    }
}

/// Each byte with its bits in reverse order.
const REV8: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).reverse_bits();
        i += 1;
    }
    t
};

/// Counts each of `values` (taken mod `N`) into four interleaved sets, the `k`-th set getting
/// every fourth value from the `k`-th, to be summed with [`sum_sets`]. A value that comes
/// again within a few bytes (a block's unused symbols, length 0; text's spaces and vowels)
/// then does not wait on the store of its count before.
#[inline(always)]
pub(crate) fn count_into_sets<T, const N: usize>(sets: &mut [[T; N]; 4], values: &[u8])
where
    T: Copy + std::ops::AddAssign + From<u8>,
{
    let mut quads = values.chunks_exact(4);
    for q in &mut quads {
        for (set, &v) in sets.iter_mut().zip(q) {
            set[v as usize % N] += T::from(1);
        }
    }
    for (set, &v) in sets.iter_mut().zip(quads.remainder()) {
        set[v as usize % N] += T::from(1);
    }
}

/// The four sets of [`count_into_sets`] summed.
#[inline(always)]
pub(crate) fn sum_sets<T, const N: usize>(sets: &[[T; N]; 4]) -> [T; N]
where
    T: Copy + std::ops::Add<Output = T>,
{
    std::array::from_fn(|i| sets[0][i] + sets[1][i] + sets[2][i] + sets[3][i])
}

/// How many of `lens` have each length 1..=15 (index 0 stays 0), for building a canonical
/// code here and a decode table (`inflate/huffman.rs`). Counted in interleaved sets
/// ([`count_into_sets`]): a block flushed after a 90-byte message spent a third of its time
/// here with one set.
#[inline(always)]
pub(crate) fn length_counts(lens: &[u8]) -> [u16; 16] {
    let mut sets = [[0u16; 16]; 4];
    count_into_sets(&mut sets, lens);
    let mut count = sum_sets(&sets);
    count[0] = 0;
    count
}

/// Computes canonical codes, bit-reversed for LSB-first output.
pub fn build_codes(lens: &[u8], codes: &mut [u16]) {
    let bl_count = length_counts(lens);
    let mut next = [0u16; 16];
    let mut code = 0u16;
    for b in 1..16 {
        code = (code + bl_count[b - 1]) << 1;
        next[b] = code;
    }
    for (s, &l) in lens.iter().enumerate() {
        if l != 0 {
            let c = next[l as usize];
            next[l as usize] += 1;
            // Reversed a byte at a time by table (x86 has no bit-reverse instruction; the
            // shifts and masks were most of this loop).
            let r = (REV8[c as usize & 0xFF] as u16) << 8 | REV8[(c >> 8) as usize] as u16;
            codes[s] = r >> (16 - l as u32);
        } else {
            codes[s] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_x16_is_within_a_twentieth_of_a_bit() {
        for x in (1..5000u32).chain([65535, 1 << 20, u32::MAX]) {
            let exact = 16.0 * (x as f64).log2();
            assert!((log2_x16(x) as f64 - exact).abs() <= 0.75, "x {x}");
        }
    }

    fn kraft(lens: &[u8], lim: u32) -> u64 {
        lens.iter()
            .filter(|&&l| l > 0)
            .map(|&l| 1u64 << (lim - l as u32))
            .sum()
    }
    /// Random counts (few or many symbols, small or large, tied or not): every code is
    /// complete, within its limit, no longer for a more frequent symbol, and, where the total
    /// is too small for a tree deeper than the limit (below Fibonacci(18) = 2,584 for 15
    /// bits), exactly as cheap as Huffman's merges (the sum of the merged weights, taken here
    /// from a heap).
    #[test]
    fn codes_are_complete_ordered_and_optimal() {
        let mut rnd = crate::deflate::bytes::xorshift(0x4855_4646_4D41_4E21);
        let mut w = Scratch::default();
        for _ in 0..20_000 {
            let n = [19usize, 30, 286][(rnd() % 3) as usize];
            let lim = if n == 19 && rnd().is_multiple_of(2) {
                7
            } else {
                15
            };
            let mut f = vec![0u32; n];
            let (used, kind) = ((rnd() % n as u64) as usize + 1, rnd() % 4);
            for _ in 0..used {
                let i = (rnd() % n as u64) as usize;
                f[i] = match kind {
                    0 => 1 + (rnd() % 3) as u32,
                    1 => 1 + (rnd() % 40) as u32,
                    2 => 1 + (rnd() % 100_000) as u32,
                    _ => 1 << (rnd() % 20),
                };
            }
            let mut lens = vec![0u8; n];
            build_lengths(&f, lim, &mut lens, &mut w);
            let used: Vec<usize> = (0..n).filter(|&i| f[i] != 0).collect();
            if used.len() == 1 {
                assert_eq!(lens[used[0]], 1);
                continue;
            }
            for i in 0..n {
                assert_eq!(lens[i] == 0, f[i] == 0, "symbol {i} of {f:?}");
                assert!(lens[i] as u32 <= lim);
            }
            assert_eq!(kraft(&lens, lim), 1 << lim, "{f:?}");
            for &i in &used {
                for &j in &used {
                    assert!(f[i] <= f[j] || lens[i] <= lens[j], "{i} {j} of {f:?}");
                }
            }
            let total: u64 = f.iter().map(|&x| x as u64).sum();
            if lim == 15 && total < 2584 {
                let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<u64>> = used
                    .iter()
                    .map(|&i| std::cmp::Reverse(f[i] as u64))
                    .collect();
                let mut best = 0;
                while heap.len() > 1 {
                    let (a, b) = (heap.pop().unwrap().0, heap.pop().unwrap().0);
                    best += a + b;
                    heap.push(std::cmp::Reverse(a + b));
                }
                let cost: u64 = (0..n).map(|i| f[i] as u64 * lens[i] as u64).sum();
                assert_eq!(cost, best, "{f:?}");
            }
        }
    }

    #[test]
    fn limited_codes_are_complete() {
        // Fibonacci frequencies force deep trees.
        let mut f = vec![0u32; 286];
        let (mut a, mut b) = (1u32, 1u32);
        for x in f.iter_mut().take(30) {
            *x = a;
            let c = a.saturating_add(b);
            a = b;
            b = c;
        }
        let mut lens = vec![0u8; 286];
        let mut w = Scratch::default();
        build_lengths(&f, 15, &mut lens, &mut w);
        assert!(lens.iter().all(|&l| l <= 15));
        assert_eq!(kraft(&lens, 15), 1 << 15);
        let mut lens7 = vec![0u8; 19];
        build_lengths(&f[..19], 7, &mut lens7, &mut w);
        assert_eq!(kraft(&lens7, 7), 1 << 7);
    }
}
