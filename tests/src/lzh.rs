//! A writer of SCO `compress -H` (LZH, `-lh5-`) files, which no Debian package writes, for the
//! tests of reading them: GNU gzip decodes what it writes (the tests check that first), so it
//! stands for the real thing. The layout is ar002's (Haruhiko Okumura's encoder, which SCO's
//! and LHA's derive from) as gzip's `unlzh.c` reads it (see `crates/cli/src/lzh.rs`): greedy
//! LZ77 over an 8 KiB window, blocks of static Huffman codes.

/// How to write: codes per block, and whether to look for matches at all.
#[derive(Clone, Copy)]
pub struct LzhOptions {
    /// Codes (literals and matches) per block, at most 65,535.
    pub block_codes: usize,
    /// Whether to look for matches (without: literals only).
    pub matches: bool,
}

impl Default for LzhOptions {
    fn default() -> Self {
        LzhOptions {
            block_codes: 16_384,
            matches: true,
        }
    }
}

const NC: usize = 510;
const NP: usize = 14;
const NT: usize = 19;
const WINDOW: usize = 1 << 13;

/// `data` as an LZH file (magic included).
pub fn lzh(data: &[u8], opts: LzhOptions) -> Vec<u8> {
    // (symbol, distance - 1) pairs: literals are (byte, 0), matches (253 + length, distance - 1).
    let codes = parse(data, opts.matches);
    let mut w = BitWriter {
        out: vec![0x1f, 0xa0],
        acc: 0,
        n: 0,
    };
    for block in codes.chunks(opts.block_codes.clamp(1, 65_535)) {
        write_block(&mut w, block);
    }
    w.put(7, 0); // ar002's flush: the last bits to a byte
    w.out
}

/// Greedy matches of 3 to 256 bytes, distances 1 to 8192, from a chain per 3-byte hash.
fn parse(data: &[u8], matches: bool) -> Vec<(u16, u16)> {
    let mut head = vec![usize::MAX; 1 << 15];
    let mut prev = vec![usize::MAX; data.len()];
    let hash = |p: usize| {
        ((data[p] as usize) << 10 ^ (data[p + 1] as usize) << 5 ^ data[p + 2] as usize)
            & ((1 << 15) - 1)
    };
    let insert = |p: usize, head: &mut [usize], prev: &mut [usize]| {
        if p + 3 <= data.len() {
            let h = hash(p);
            prev[p] = head[h];
            head[h] = p;
        }
    };
    let mut out = Vec::new();
    let mut p = 0;
    while p < data.len() {
        let (mut best, mut dist) = (0usize, 0usize);
        if matches && p + 3 <= data.len() {
            let mut c = head[hash(p)];
            let mut depth = 64;
            while c != usize::MAX && p - c <= WINDOW && depth > 0 {
                let n = data[c..]
                    .iter()
                    .zip(&data[p..])
                    .take(256)
                    .take_while(|(a, b)| a == b)
                    .count();
                if n > best {
                    (best, dist) = (n, p - c);
                }
                c = prev[c];
                depth -= 1;
            }
        }
        if best >= 3 {
            out.push(((253 + best) as u16, (dist - 1) as u16));
            for k in p..p + best {
                insert(k, &mut head, &mut prev);
            }
            p += best;
        } else {
            out.push((data[p] as u16, 0));
            insert(p, &mut head, &mut prev);
            p += 1;
        }
    }
    out
}

struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter {
    /// Writes the low `bits` bits of `v`, most significant first.
    fn put(&mut self, bits: u32, v: u32) {
        for i in (0..bits).rev() {
            self.acc = self.acc << 1 | (v >> i & 1) as u64;
            self.n += 1;
            if self.n == 8 {
                self.out.push(self.acc as u8);
                self.acc = 0;
                self.n = 0;
            }
        }
    }
}

/// Huffman code lengths for `freq`, none above 16: merging the two lightest groups, with the
/// frequencies halved (kept at 1 at least) while the code is too deep. One used symbol or
/// none: all zero (the caller writes a one-symbol description).
fn lengths(freq: &[u32]) -> Vec<u8> {
    let mut f: Vec<u64> = freq.iter().map(|&x| x as u64).collect();
    loop {
        let leaves: Vec<(u64, usize, usize)> = (0..f.len())
            .filter(|&s| f[s] > 0)
            .map(|s| (f[s], s, s))
            .collect();
        let depth = crate::huffman_depths(&leaves, f.len());
        if depth.iter().all(|&d| d <= 16) {
            return depth.iter().map(|&d| d as u8).collect();
        }
        for x in f.iter_mut().filter(|x| **x > 0) {
            *x = (*x / 2).max(1);
        }
    }
}

/// Canonical codes for `lens` as gzip's make_table assigns them: by length, then symbol.
fn canonical(lens: &[u8]) -> Vec<u32> {
    let mut codes = vec![0u32; lens.len()];
    let mut next = 0u32;
    for len in 1..=16u8 {
        for (s, &l) in lens.iter().enumerate() {
            if l == len {
                codes[s] = next >> (16 - len);
                next += 1 << (16 - len);
            }
        }
    }
    codes
}

/// The one used symbol of `freq`, if no more than one is used.
fn only(freq: &[u32]) -> Option<u32> {
    match freq.iter().filter(|&&x| x > 0).count() {
        0 => Some(0),
        1 => freq.iter().position(|&x| x > 0).map(|s| s as u32),
        _ => None,
    }
}

/// A `t` or `p` description: the count, then 3-bit lengths (7 and up: ones and a zero), and
/// with `special` a 2-bit count of zeros after the third.
fn write_pt(w: &mut BitWriter, lens: &[u8], nbit: u32, special: Option<usize>) {
    let mut n = lens.len();
    while n > 0 && lens[n - 1] == 0 {
        n -= 1;
    }
    w.put(nbit, n as u32);
    let mut i = 0;
    while i < n {
        let k = lens[i] as u32;
        if k <= 6 {
            w.put(3, k);
        } else {
            w.put(k - 3, (1 << (k - 3)) - 2);
        }
        i += 1;
        if Some(i) == special {
            let mut z = 0;
            while z < 3 && i + z < n && lens[i + z] == 0 {
                z += 1;
            }
            w.put(2, z as u32);
            i += z;
        }
    }
}

/// The `c` lengths as `t` symbols: (symbol, extra bits, extra value).
fn c_symbols(lens: &[u8]) -> Vec<(usize, u32, u32)> {
    let mut n = lens.len();
    while n > 0 && lens[n - 1] == 0 {
        n -= 1;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        if lens[i] != 0 {
            out.push((lens[i] as usize + 2, 0, 0));
            i += 1;
            continue;
        }
        let mut run = 0;
        while i + run < n && lens[i + run] == 0 {
            run += 1;
        }
        i += run;
        match run {
            1..=2 => out.extend(std::iter::repeat_n((0, 0, 0), run)),
            3..=18 => out.push((1, 4, run as u32 - 3)),
            19 => {
                out.push((0, 0, 0));
                out.push((1, 4, 15));
            }
            _ => out.push((2, 9, run as u32 - 20)),
        }
    }
    out
}

fn write_block(w: &mut BitWriter, block: &[(u16, u16)]) {
    let mut c_freq = [0u32; NC];
    let mut p_freq = [0u32; NP];
    for &(c, d) in block {
        c_freq[c as usize] += 1;
        if c >= 256 {
            p_freq[class(d)] += 1;
        }
    }
    w.put(16, block.len() as u32);
    let c_single = only(&c_freq);
    let c_lens = lengths(&c_freq);
    if let Some(sym) = c_single {
        // A `t` description of one symbol, then a `c` of one.
        w.put(5, 0);
        w.put(5, 0);
        w.put(9, 0);
        w.put(9, sym);
    } else {
        let syms = c_symbols(&c_lens);
        let mut t_freq = [0u32; NT];
        for &(s, _, _) in &syms {
            t_freq[s] += 1;
        }
        let t_lens = lengths(&t_freq);
        let t_codes = canonical(&t_lens);
        match only(&t_freq) {
            // One kind of length symbol (every used byte as long, no gaps): a one-symbol
            // description, its codes in no bits.
            Some(t) => {
                w.put(5, 0);
                w.put(5, t);
            }
            None => write_pt(w, &t_lens, 5, Some(3)),
        }
        let mut n = NC;
        while c_lens[n - 1] == 0 {
            n -= 1;
        }
        w.put(9, n as u32);
        for (s, bits, v) in syms {
            w.put(t_lens[s] as u32, t_codes[s]);
            w.put(bits, v);
        }
    }
    let p_single = only(&p_freq);
    let p_lens = lengths(&p_freq);
    match p_single {
        Some(sym) => {
            w.put(4, 0);
            w.put(4, sym);
        }
        None => write_pt(w, &p_lens, 4, None),
    }
    let c_codes = canonical(&c_lens);
    let p_codes = canonical(&p_lens);
    for &(c, d) in block {
        if c_single.is_none() {
            w.put(c_lens[c as usize] as u32, c_codes[c as usize]);
        }
        if c >= 256 {
            let k = class(d);
            if p_single.is_none() {
                w.put(p_lens[k] as u32, p_codes[k]);
            }
            if k > 1 {
                w.put(k as u32 - 1, d as u32 - (1 << (k - 1)));
            }
        }
    }
}

/// The distance class of `d` (distance - 1): 0 for 0, else the bit length of `d`.
fn class(d: u16) -> usize {
    (16 - d.leading_zeros()) as usize
}
