//! SCO `compress -H` (LZH) files, decompressed as gzip does (`gzip -d`, `zcat`): after the
//! magic `1f a0`, the `-lh5-` stream of LHA (Haruhiko Okumura's ar002): LZ77 over an 8 KiB
//! window with static Huffman codes per block.
//!
//! A block starts with its number of codes (16 bits), then three code descriptions: the code
//! of the code lengths (`t`, 19 symbols), the literal/length code (`c`, 510 symbols: 256 bytes
//! and lengths 3 to 256), described with `t`, and the distance-class code (`p`, 14 symbols).
//! Codes are canonical and read most significant bit first; a description with no lengths
//! names the one symbol every code of the block is, in no bits.
//!
//! The stream has no end marker and no checksum: it ends where a block's size reads as 0,
//! which the input's zero bits past its end give (gzip reads zeros there). So a block, or a
//! code, that needs bits past the end is a truncated file. gzip decodes those zeros as data
//! instead and exits with success. Also stricter than gzip: a code that is not complete, or
//! a one-symbol description naming a symbol outside its alphabet, is "Bad table" here, where
//! gzip decodes on with whatever its tables hold.
#![forbid(unsafe_code)]

use crate::codec::{CodecError, Counted, DecodeReport};
use crate::progress::Progress;
use std::io::{self, BufRead, BufReader, Read, Write};

/// The magic bytes of an LZH file.
pub const MAGIC: [u8; 2] = [0x1f, 0xa0];
/// The window: 2^13 bytes (`-lh5-`).
const DICSIZ: usize = 1 << 13;
/// Literal/length symbols: 256 bytes and lengths 3 to 256.
const NC: usize = 256 + 256 + 1 - 3;
/// Distance classes: 0 to 13 (a class k > 0 is 2^(k-1) plus k - 1 more bits).
const NP: usize = 14;
/// Code-length symbols: runs of zeros (0-2) and lengths 1 to 16 (3-18).
const NT: usize = 19;
/// Bits of the counts of each description.
const CBIT: u32 = 9;
const PBIT: u32 = 4;
const TBIT: u32 = 5;
/// Longest code.
const MAX_LEN: usize = 16;
/// Output buffer after the window's history.
const OUT_BUF: usize = 1 << 20;

fn bad_table() -> CodecError {
    CodecError::Unsupported("Bad table")
}

/// Reads bits most significant first; past the end of the input it reads zeros (as gzip),
/// and tells how far past it has gone.
struct Bits<R> {
    r: R,
    /// The next bits, from the top.
    buf: u64,
    have: u32,
    /// Bits taken from the input, and bits consumed (zeros past the end included).
    input: u64,
    used: u64,
    eof: bool,
}

impl<R: BufRead> Bits<R> {
    /// The next 16 bits, not consumed.
    #[inline(always)]
    fn peek16(&mut self) -> Result<u32, CodecError> {
        if self.have < 16 {
            self.refill()?;
        }
        Ok((self.buf >> 48) as u32)
    }

    #[cold]
    #[inline(never)]
    fn refill(&mut self) -> Result<(), CodecError> {
        while self.have <= 56 {
            if self.eof {
                self.have = 64; // zeros from here on
                break;
            }
            let chunk = self.r.fill_buf().map_err(CodecError::Read)?;
            if chunk.is_empty() {
                self.eof = true;
                continue;
            }
            let take = (((64 - self.have) / 8) as usize).min(chunk.len());
            for &b in &chunk[..take] {
                self.buf |= (b as u64) << (56 - self.have);
                self.have += 8;
            }
            self.input += 8 * take as u64;
            self.r.consume(take);
        }
        Ok(())
    }

    /// Consumes `n` (<= 16) bits.
    #[inline(always)]
    fn skip(&mut self, n: u32) {
        self.buf <<= n;
        self.have -= n;
        self.used += n as u64;
    }

    /// The next `n` (<= 16) bits as a number.
    fn get(&mut self, n: u32) -> Result<u32, CodecError> {
        if n == 0 {
            return Ok(0);
        }
        let v = self.peek16()? >> (16 - n);
        self.skip(n);
        Ok(v)
    }

    /// Whether bits past the end of the input were consumed.
    fn past_end(&self) -> bool {
        self.used > self.input
    }
}

/// A canonical code: codes of each length in symbol order, shorter codes first, read from
/// the top of a 16-bit window.
struct Code {
    /// Bits resolved by one lookup, and per value of them (symbol << 5 | length); length 0:
    /// the code is longer.
    fast_bits: u32,
    fast: Vec<u16>,
    /// Per length: the end of its codes in the 16-bit window, and where its symbols start.
    end: [u32; MAX_LEN + 1],
    first: [u16; MAX_LEN + 1],
    /// The symbols sorted by (length, symbol).
    sorted: Vec<u16>,
    /// A one-symbol description: that symbol in no bits.
    single: Option<u16>,
}

impl Code {
    /// The code with lengths `lens`, which must be complete (gzip's make_table).
    fn new(lens: &[u8], fast_bits: u32) -> Result<Code, CodecError> {
        let mut count = [0u32; MAX_LEN + 1];
        for &l in lens {
            count[l as usize] += 1;
        }
        count[0] = 0;
        let (mut end, mut first) = ([0u32; MAX_LEN + 1], [0u16; MAX_LEN + 1]);
        let (mut at, mut k) = (0u32, 0u16);
        for len in 1..=MAX_LEN {
            first[len] = k;
            k += count[len] as u16;
            at += count[len] << (16 - len);
            end[len] = at;
        }
        if at != 1 << 16 {
            return Err(bad_table());
        }
        let mut sorted = vec![0u16; k as usize];
        let mut next = first;
        for (s, &l) in lens.iter().enumerate() {
            if l > 0 {
                sorted[next[l as usize] as usize] = s as u16;
                next[l as usize] += 1;
            }
        }
        let mut fast = vec![0u16; 1 << fast_bits];
        let mut start = 0u32;
        for len in 1..=fast_bits as usize {
            for i in 0..count[len] {
                let sym = sorted[first[len] as usize + i as usize];
                let from = (start >> (16 - fast_bits)) as usize;
                let n = 1usize << (fast_bits as usize - len);
                fast[from..from + n].fill(sym << 5 | len as u16);
                start += 1 << (16 - len);
            }
        }
        Ok(Code {
            fast_bits,
            fast,
            end,
            first,
            sorted,
            single: None,
        })
    }

    /// A description with no lengths: every code is `sym`, which must be below `alphabet`.
    fn single(sym: u32, alphabet: usize) -> Result<Code, CodecError> {
        if sym as usize >= alphabet {
            return Err(bad_table());
        }
        Ok(Code {
            fast_bits: 0,
            fast: Vec::new(),
            end: [0; MAX_LEN + 1],
            first: [0; MAX_LEN + 1],
            sorted: Vec::new(),
            single: Some(sym as u16),
        })
    }

    /// Reads one symbol.
    #[inline]
    fn decode<R: BufRead>(&self, bits: &mut Bits<R>) -> Result<u32, CodecError> {
        if let Some(s) = self.single {
            return Ok(s as u32);
        }
        let v = bits.peek16()?;
        let e = self.fast[(v >> (16 - self.fast_bits)) as usize];
        if e & 31 != 0 {
            bits.skip((e & 31) as u32);
            return Ok((e >> 5) as u32);
        }
        // Longer than the lookup: the length whose codes' range holds `v` (a complete code's
        // ranges cover the window).
        let mut len = self.fast_bits as usize + 1;
        while v >= self.end[len] {
            len += 1;
        }
        let i = self.first[len] as usize + ((v - self.end[len - 1]) >> (16 - len)) as usize;
        bits.skip(len as u32);
        Ok(self.sorted[i] as u32)
    }
}

/// Reads a `t` or `p` description: `n` lengths of 3 bits (7 and more: further 1 bits, then a
/// 0), after the third of them (`t` only) a 2-bit count of zero lengths.
fn read_pt<R: BufRead>(
    bits: &mut Bits<R>,
    alphabet: usize,
    nbit: u32,
    special: Option<usize>,
) -> Result<Code, CodecError> {
    let n = bits.get(nbit)? as usize;
    if n == 0 {
        let sym = bits.get(nbit)?;
        return Code::single(sym, alphabet);
    }
    // The count may name more lengths than the alphabet has (up to 31 + 3); those are read
    // and not used, as gzip does.
    let mut lens = [0u8; 40];
    let mut i = 0;
    while i < n {
        let v = bits.peek16()?;
        let mut c = v >> 13;
        if c == 7 {
            let mut mask = 1u32 << 12;
            while v & mask != 0 {
                mask >>= 1;
                c += 1;
            }
            if c > MAX_LEN as u32 {
                return Err(bad_table());
            }
        }
        bits.skip(if c < 7 { 3 } else { c - 3 });
        lens[i] = c as u8;
        i += 1;
        if Some(i) == special {
            i += bits.get(2)? as usize; // zero lengths
        }
    }
    Code::new(&lens[..alphabet], 8)
}

/// Reads the `c` description, its lengths coded with `t`: symbols 0-2 are runs of zero
/// lengths (1, 3-18 with 4 bits, 20 and more with 9), the others lengths 1-16.
fn read_c<R: BufRead>(bits: &mut Bits<R>, t: &Code) -> Result<Code, CodecError> {
    let n = bits.get(CBIT)? as usize;
    if n == 0 {
        let sym = bits.get(CBIT)?;
        return Code::single(sym, NC);
    }
    // Lengths past the alphabet (a count up to 511, a last run up to 531) are not used.
    let mut lens = vec![0u8; 512 + 532];
    let mut i = 0;
    while i < n {
        match t.decode(bits)? {
            0 => i += 1,
            1 => i += bits.get(4)? as usize + 3,
            2 => i += bits.get(CBIT)? as usize + 20,
            c => {
                lens[i] = (c - 2) as u8;
                i += 1;
            }
        }
    }
    Code::new(&lens[..NC], 12)
}

/// Decompresses the LZH stream `r` (which starts with [`MAGIC`]) into `w`.
pub fn decompress(
    r: &mut dyn Read,
    w: &mut dyn Write,
    progress: &Progress,
) -> Result<DecodeReport, CodecError> {
    let mut counted = Counted::new(r, progress);
    let mut br = BufReader::with_capacity(1 << 16, &mut counted);
    let mut magic = [0u8; 2];
    crate::zip::read_exact(&mut br, &mut magic, 0)?;
    let mut bits = Bits {
        r: br,
        buf: 0,
        have: 0,
        input: 16,
        used: 16,
        eof: false,
    };
    // The window's history, then the output: a distance before the first byte reads zeros,
    // as gzip's window holds them.
    let mut out = vec![0u8; DICSIZ + OUT_BUF];
    let mut o = DICSIZ;
    let mut written = 0u64;
    let truncated = |bits: &Bits<_>| CodecError::Truncated {
        offset: bits.input / 8,
    };
    let result = (|| -> Result<(), CodecError> {
        let mut left = 0u32;
        let (mut c_code, mut p_code) = (Code::single(0, 1)?, Code::single(0, 1)?);
        loop {
            if left == 0 {
                left = bits.get(16)?;
                if left == 0 {
                    return Ok(()); // the end (the zeros past the input's end, or written)
                }
                let codes = (|| {
                    let t = read_pt(&mut bits, NT, TBIT, Some(3))?;
                    Ok((read_c(&mut bits, &t)?, read_pt(&mut bits, NP, PBIT, None)?))
                })();
                // Descriptions cut short read zeros, which make bad tables: the file is
                // truncated.
                if bits.past_end() {
                    return Err(truncated(&bits));
                }
                (c_code, p_code) = codes?;
            }
            left -= 1;
            if o + 256 > out.len() {
                w.write_all(&out[DICSIZ..o]).map_err(CodecError::Write)?;
                written += (o - DICSIZ) as u64;
                out.copy_within(o - DICSIZ..o, 0);
                o = DICSIZ;
            }
            let c = c_code.decode(&mut bits)?;
            let dist = match c {
                0..256 => 0,
                _ => match p_code.decode(&mut bits)? {
                    0 => 1,
                    class => (1usize << (class - 1)) + bits.get(class - 1)? as usize + 1,
                },
            };
            // A code read partly from the zeros past the end is not data.
            if bits.past_end() {
                return Err(truncated(&bits));
            }
            if dist == 0 {
                out[o] = c as u8;
                o += 1;
            } else {
                let len = c as usize - (256 - 3);
                for k in o..o + len {
                    out[k] = out[k - dist];
                }
                o += len;
            }
        }
    })();
    // What was decoded before an error goes out too.
    w.write_all(&out[DICSIZ..o]).map_err(CodecError::Write)?;
    written += (o - DICSIZ) as u64;
    w.flush().map_err(CodecError::Write)?;
    result?;
    // Like a compress file, an LZH stream is the last thing gzip reads of its input.
    let mut rest = bits.r;
    io::copy(&mut rest, &mut io::sink()).map_err(CodecError::Read)?;
    drop(rest);
    Ok(DecodeReport {
        lzh: true,
        ..DecodeReport::one_member(counted.n, written)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyperz_tests::lzh::{lzh, LzhOptions};

    fn unlzh(input: &[u8]) -> (Result<DecodeReport, CodecError>, Vec<u8>) {
        let mut out = Vec::new();
        let r = decompress(&mut &input[..], &mut out, &Progress::none());
        (r, out)
    }

    /// Mixed data: text, a run, bytes of a skewed distribution (long codes: the lookups'
    /// slow path), random bytes.
    fn sample() -> Vec<u8> {
        let mut rnd = hyperz_tests::xorshift(0x1a2b_3c4d);
        let mut d = b"the quick brown fox jumps over the lazy dog; ".repeat(300);
        d.extend(std::iter::repeat_n(b'z', 5000));
        d.extend((0..20_000).map(|_| (rnd().trailing_zeros() * 7) as u8));
        d.extend((0..5_000).map(|_| rnd() as u8));
        d
    }

    #[test]
    fn decodes_what_the_writer_writes() {
        let data = sample();
        for (block_codes, matches) in [(16_384, true), (7, true), (65_535, false), (1, false)] {
            let z = lzh(
                &data,
                LzhOptions {
                    block_codes,
                    matches,
                },
            );
            let (r, out) = unlzh(&z);
            let r = r.unwrap();
            assert!(out == data, "blocks of {block_codes}, matches {matches}");
            assert_eq!(
                (r.counts.bytes_in, r.counts.bytes_out, r.lzh),
                (z.len() as u64, data.len() as u64, true)
            );
        }
        // No bytes: the magic alone.
        assert_eq!(unlzh(&lzh(&[], LzhOptions::default())).1, b"");
    }

    /// A cut is an error ("unexpected end of file") after the data before it, unless it falls where a block ends on a
    /// byte boundary: the stream has no end marker, so that is a shorter stream, whose output
    /// is the data's start. No change of a byte makes the decoder panic or read past its input.
    #[test]
    fn cut_and_damaged_streams_are_errors_not_panics() {
        let data = sample();
        let z = lzh(
            &data,
            LzhOptions {
                block_codes: 500,
                matches: true,
            },
        );
        let mut clean = 0;
        for cut in 2..z.len() {
            let (r, out) = unlzh(&z[..cut]);
            match r {
                Err(CodecError::Truncated { offset }) => {
                    assert_eq!(offset, cut as u64);
                    assert!(
                        data.starts_with(&out),
                        "cut at {cut}: output not the data's start"
                    );
                }
                Err(e) => panic!("cut at {cut}: {e}"),
                Ok(_) => {
                    assert!(data.starts_with(&out), "cut at {cut}");
                    clean += 1;
                }
            }
        }
        assert!(clean < 20, "{clean} cuts decoded cleanly");
        let mut rnd = hyperz_tests::xorshift(0x5eed_0fba_5e01);
        for _ in 0..3_000 {
            let mut bad = z.clone();
            let at = 2 + (rnd() as usize) % (bad.len() - 2);
            bad[at] = rnd() as u8;
            if let (Ok(r), _) = unlzh(&bad) {
                assert!(r.counts.bytes_in <= bad.len() as u64);
            }
        }
    }

    /// Codes that are not complete are refused; gzip decodes on with whatever its tables hold.
    #[test]
    fn incomplete_and_oversubscribed_codes_are_bad_tables() {
        assert!(Code::new(&[1, 1], 8).is_ok());
        for lens in [&[1u8, 2][..], &[1, 1, 1], &[0, 0, 0], &[2, 2, 2]] {
            assert!(Code::new(lens, 8).is_err(), "{lens:?}");
        }
        assert!(Code::single(18, NT).is_ok() && Code::single(19, NT).is_err());
    }
}
