//! A lower bound of a dynamic-Huffman block's size from its symbol counts alone, so that a
//! short block, whose dynamic code always loses to the fixed one, does not build that code to
//! find out (`block.rs`'s `Encoder::size`; its test there checks the bound against the exact
//! size).
#![forbid(unsafe_code)]

use super::huffman::log2_x16;

/// Blocks of at most this many symbols (lengths and distances counted apart) try
/// [`dynamic_lower_bound`] before building their dynamic code. Larger ones rarely lose it
/// to the fixed code, and the bound's passes over the alphabets would be spent for nothing.
pub const BOUND_MAX_SYMS: u64 = 64;

/// Bits of the symbols counted in `lf` and `df` in the fixed code, extra bits left out, and
/// how many symbols they count.
pub fn fixed_symbol_bits(lf: &[u32; 288], df: &[u32; 30]) -> (u64, u64) {
    let sum = |f: &[u32]| f.iter().map(|&f| f as u64).sum::<u64>();
    let (a, b, c, d, e) = (
        sum(&lf[..144]),
        sum(&lf[144..256]),
        sum(&lf[256..280]),
        sum(&lf[280..286]),
        sum(df),
    );
    (8 * a + 9 * b + 7 * c + 8 * d + 5 * e, a + b + c + d + e)
}

/// A lower bound of the bits of any dynamic block for the symbols counted in `lf` (the
/// end-of-block symbol counted) and `df`, extra bits left out: the header's fields, at least
/// four code-length code lengths, the code-length symbols each code must take at the least
/// (built as `Encoder::size` builds them, which symbols have a length follows from the counts
/// alone), and the symbols' information content, which no prefix code goes below.
pub fn dynamic_lower_bound(lf: &[u32; 288], df: &[u32; 30]) -> u64 {
    // The symbols with a length, as bit sets: those counted (the end-of-block symbol always
    // is), and the partner a lone symbol gets (`build_lengths`), or distance codes 0 and 1
    // where no distance is counted (`Encoder::size`). Each word is built in a register:
    // or-ing into the array's words made each step wait on the store of the one before.
    let mut lit = [0u64; 5];
    for (w, counts) in lit.iter_mut().zip(lf[..286].chunks(64)) {
        for (i, &f) in counts.iter().enumerate() {
            *w |= ((f != 0) as u64) << i;
        }
    }
    let mut dist = 0u64;
    for (i, &f) in df.iter().enumerate() {
        dist |= ((f != 0) as u64) << i;
    }
    if lit.iter().map(|w| w.count_ones()).sum::<u32>() == 1 {
        lit[0] |= 1;
    }
    match dist.count_ones() {
        0 => dist = 0b11,
        1 => dist |= if dist == 1 { 0b10 } else { 0b01 },
        _ => {}
    }
    // The lengths sent run from literal/length symbol 0 to the last one with a length (the
    // end-of-block symbol at least), then from distance code 0 to the last.
    let mut rle = RleBound::default();
    let mut content = Content::default();
    for (k, &w) in lit.iter().enumerate() {
        let mut w = w;
        while w != 0 {
            let s = k * 64 + w.trailing_zeros() as usize;
            w &= w - 1;
            rle.visit(s);
            content.add(lf[s]);
        }
    }
    // The literal/length lengths sent: at least 257.
    let hlit = rle.next.max(257);
    let mut w = dist;
    let mut dcontent = Content::default();
    while w != 0 {
        let d = w.trailing_zeros() as usize;
        w &= w - 1;
        rle.visit(hlit + d);
        dcontent.add(df[d]);
    }
    let rle = rle.bits();
    3 + 5 + 5 + 4 + 3 * 4 + rle + content.bits() + dcontent.bits()
}

/// The least a code-length RLE takes for lengths whose zero and non-zero places are known,
/// given the non-zero places in order ([`RleBound::visit`]).
#[derive(Default)]
struct RleBound {
    /// Place after the last non-zero length.
    next: usize,
    /// Non-zero lengths in the run it ends.
    run: u64,
    bits: u64,
}

impl RleBound {
    fn visit(&mut self, p: usize) {
        if self.run > 0 && p == self.next {
            self.run += 1;
        } else {
            self.end_run();
            // Zeros before `p`: a bit each (code 0) up to 4, 4 bits with code 17 (3-10 zeros
            // for 1 + 3 bits), at least 5 up to 13 and 8 beyond (code 18: 1 + 7).
            self.bits += match p - self.next {
                r @ 0..=4 => r as u64,
                5..=10 => 4,
                11..=13 => 5,
                _ => 8,
            };
            self.run = 1;
        }
        self.next = p + 1;
    }

    /// A run of non-zero lengths: a bit for its first, half a bit for each other (code 16
    /// repeats the last length up to six times for 1 + 2 bits).
    fn end_run(&mut self) {
        if self.run > 0 {
            self.bits += 1 + (self.run - 1) / 2;
        }
        self.run = 0;
    }

    fn bits(mut self) -> u64 {
        self.end_run();
        self.bits
    }
}

/// The information content of an alphabet's symbols, from their counts: a lower bound of the
/// bits of any prefix code for them, also a bit per symbol at least.
#[derive(Default)]
struct Content {
    n: u64,
    /// Sum of count x 16 log2(count).
    x16: u64,
}

impl Content {
    fn add(&mut self, f: u32) {
        self.n += f as u64;
        self.x16 += f as u64 * log2_x16(f.max(1)) as u64;
    }

    /// 16 log2 is within 0.75 of the truth, so 2 per symbol is taken off.
    fn bits(&self) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let ln = log2_x16(self.n.min(u32::MAX as u64) as u32) as u64;
        let total = (self.n * ln).saturating_sub(self.x16);
        self.n.max(total.saturating_sub(2 * self.n) / 16)
    }
}
