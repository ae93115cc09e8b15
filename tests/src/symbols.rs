//! A slow, plain DEFLATE reader that reports what a stream is made of: each block's type and
//! the (length, distance) of each match. Tests use it to check that a compressor kept to a
//! strategy (Huffman-only has no matches, RLE only distance 1, fixed no dynamic blocks,
//! filtered no short matches), which decoding to the input cannot show. Written for clarity
//! (one bit at a time, canonical codes decoded by counting), independent of the engine's
//! decoder; it panics on a malformed stream, which the tests decode with real decoders first.

/// One block of a stream.
#[derive(Clone, Debug, Default)]
pub struct Block {
    /// BTYPE: 0 stored, 1 fixed, 2 dynamic.
    pub btype: u8,
    /// Literal bytes (stored bytes included).
    pub literals: usize,
    /// (length, distance) of every match, in order.
    pub matches: Vec<(u16, u16)>,
}

struct Bits<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Bits<'_> {
    fn bit(&mut self) -> u32 {
        let b = self.data[self.pos / 8] >> (self.pos % 8) & 1;
        self.pos += 1;
        b as u32
    }

    /// `n` bits, least significant first.
    fn bits(&mut self, n: u32) -> u32 {
        (0..n).fold(0, |v, i| v | self.bit() << i)
    }
}

/// A canonical Huffman code: how many codes of each length, and the symbols in code order.
struct Code {
    count: [u16; 16],
    symbols: Vec<u16>,
}

impl Code {
    fn new(lengths: &[u8]) -> Code {
        let mut count = [0u16; 16];
        for &l in lengths {
            count[l as usize] += 1;
        }
        count[0] = 0;
        let mut symbols = Vec::new();
        for len in 1..16u8 {
            for (s, &l) in lengths.iter().enumerate() {
                if l == len {
                    symbols.push(s as u16);
                }
            }
        }
        Code { count, symbols }
    }

    /// The next symbol: codes are read most significant bit first, and the codes of each
    /// length follow those of the shorter ones.
    fn decode(&self, b: &mut Bits) -> u16 {
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for len in 1..16 {
            code |= b.bit() as i32;
            let count = self.count[len] as i32;
            if code - first < count {
                return self.symbols[(index + code - first) as usize];
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        panic!("invalid Huffman code at bit {}", b.pos);
    }
}

/// Base and extra bits of length code `i` (symbol 257 + i), from RFC 1951's rule rather than
/// its table: extra bits grow by one every four codes from the ninth, and code 28 is 258.
fn length_code(i: usize) -> (u16, u32) {
    let extra = |j: usize| if j < 8 { 0 } else { j as u32 / 4 - 1 };
    if i == 28 {
        return (258, 0);
    }
    (3 + (0..i).map(|j| 1u16 << extra(j)).sum::<u16>(), extra(i))
}

/// Base and extra bits of distance code `i`: extra bits grow by one every two codes from the
/// fifth.
fn distance_code(i: usize) -> (u16, u32) {
    let extra = |j: usize| if j < 4 { 0 } else { j as u32 / 2 - 1 };
    (1 + (0..i).map(|j| 1u16 << extra(j)).sum::<u16>(), extra(i))
}

/// The blocks of the raw DEFLATE stream at the start of `raw`, up to its final block.
pub fn deflate_blocks(raw: &[u8]) -> Vec<Block> {
    let mut b = Bits { data: raw, pos: 0 };
    let mut blocks = Vec::new();
    loop {
        let last = b.bit() == 1;
        let btype = b.bits(2) as u8;
        let mut block = Block {
            btype,
            ..Block::default()
        };
        match btype {
            0 => {
                b.pos = b.pos.div_ceil(8) * 8;
                let len = b.bits(16);
                assert_eq!(b.bits(16), !len & 0xffff, "stored length complement");
                block.literals = len as usize;
                b.pos += 8 * len as usize;
            }
            1 => {
                let mut lit = [8u8; 288];
                lit[144..256].fill(9);
                lit[256..280].fill(7);
                symbols(&mut b, &Code::new(&lit), &Code::new(&[5; 30]), &mut block);
            }
            2 => {
                let (lit, dist) = dynamic_codes(&mut b);
                symbols(&mut b, &lit, &dist, &mut block);
            }
            _ => panic!("reserved block type at bit {}", b.pos),
        }
        blocks.push(block);
        if last {
            return blocks;
        }
    }
}

/// Reads a dynamic block's code description.
fn dynamic_codes(b: &mut Bits) -> (Code, Code) {
    const ORDER: [usize; 19] = [
        16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
    ];
    let nlen = b.bits(5) as usize + 257;
    let ndist = b.bits(5) as usize + 1;
    let ncode = b.bits(4) as usize + 4;
    let mut cl = [0u8; 19];
    for &i in &ORDER[..ncode] {
        cl[i] = b.bits(3) as u8;
    }
    let clcode = Code::new(&cl);
    let mut lengths = Vec::with_capacity(nlen + ndist);
    while lengths.len() < nlen + ndist {
        match clcode.decode(b) {
            s @ 0..=15 => lengths.push(s as u8),
            16 => {
                let prev = *lengths.last().expect("repeat with no previous length");
                lengths.extend(std::iter::repeat_n(prev, 3 + b.bits(2) as usize));
            }
            17 => lengths.extend(std::iter::repeat_n(0, 3 + b.bits(3) as usize)),
            _ => lengths.extend(std::iter::repeat_n(0, 11 + b.bits(7) as usize)),
        }
    }
    (Code::new(&lengths[..nlen]), Code::new(&lengths[nlen..]))
}

/// Reads a Huffman block's symbols up to its end-of-block code.
fn symbols(b: &mut Bits, lit: &Code, dist: &Code, block: &mut Block) {
    loop {
        let s = lit.decode(b) as usize;
        match s {
            0..=255 => block.literals += 1,
            256 => return,
            _ => {
                let (base, extra) = length_code(s - 257);
                let l = base + b.bits(extra) as u16;
                let (base, extra) = distance_code(dist.decode(b) as usize);
                let d = base + b.bits(extra) as u16;
                block.matches.push((l, d));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-made streams: a stored block, then a fixed block holding "a", a match (3, 1) and
    /// the end code, final.
    #[test]
    fn reads_stored_and_fixed_blocks() {
        // Stored: BFINAL 0, BTYPE 00, aligned, LEN 2, NLEN, "hi".
        let mut raw = vec![0x00, 0x02, 0x00, 0xfd, 0xff, b'h', b'i'];
        // Fixed, final: bits 1, 01 (LSB first: 1, 1, 0), then 'a' (0x61: code 0x30 + 0x61 =
        // 0x91, 8 bits), length 3 (symbol 257: 0000001, 7 bits), distance 0 (00000), 256
        // (0000000).
        let mut bits: Vec<u8> = vec![1, 1, 0];
        let msb = |v: u32, n: u32| (0..n).rev().map(move |i| (v >> i & 1) as u8);
        bits.extend(msb(0x91, 8));
        bits.extend(msb(1, 7));
        bits.extend(msb(0, 5));
        bits.extend(msb(0, 7));
        for chunk in bits.chunks(8) {
            raw.push(chunk.iter().enumerate().fold(0, |v, (i, &b)| v | b << i));
        }
        let blocks = deflate_blocks(&raw);
        assert_eq!(blocks.len(), 2);
        assert_eq!((blocks[0].btype, blocks[0].literals), (0, 2));
        assert_eq!((blocks[1].btype, blocks[1].literals), (1, 1));
        assert_eq!(blocks[1].matches, vec![(3, 1)]);
    }

    /// The rule gives RFC 1951's table at its corners.
    #[test]
    fn code_rules_match_the_rfc() {
        assert_eq!(length_code(0), (3, 0));
        assert_eq!(length_code(8), (11, 1));
        assert_eq!(length_code(27), (227, 5));
        assert_eq!(length_code(28), (258, 0));
        assert_eq!(distance_code(0), (1, 0));
        assert_eq!(distance_code(4), (5, 1));
        assert_eq!(distance_code(29), (24577, 13));
    }
}
