//! `compress` (.Z) files, decompressed as gzip does (`gzip -d file.Z`, `zcat file.Z`): the
//! adaptive LZW of compress 4.0, codes of 9 up to 16 bits.
//!
//! The format's one subtlety is how code widths change. compress writes codes in groups of
//! eight, so a group of `n` bit codes is `n` bytes; when the width grows, or the table is
//! cleared (code 256 in block mode), the rest of the current group is padding. The decoder
//! therefore rounds its bit position up to a whole group, counted from where the current width
//! began, before reading at the new width (gzip's `unlzw`, compress's `decompress`).
//!
//! There is no checksum and no end marker: the data ends with the input, a code that needs
//! more bits than are left is ignored (as compress pads the last byte), and only a code that
//! is not in the table yet is an error.
#![forbid(unsafe_code)]

use crate::codec::{CodecError, Counted, DecodeReport};
use crate::progress::Progress;
use std::io::{self, BufRead, BufReader, Read, Write};

/// The magic bytes of a .Z file.
pub const MAGIC: [u8; 2] = [0x1f, 0x9d];
/// Widest code.
const MAX_BITS: u32 = 16;
/// First width.
const INIT_BITS: u32 = 9;
/// The clear code (block mode).
const CLEAR: u32 = 256;
/// Entries of the string table.
const TABLE: usize = 1 << MAX_BITS;
/// Output buffer: 1 MiB, written out when less than a longest string is left.
const OUT_BUF: usize = 1 << 20;

/// Reads `n`-bit codes least significant bit first, counting the bits read.
struct Bits<R> {
    r: R,
    buf: u64,
    have: u32,
    pos: u64,
    eof: bool,
}

impl<R: BufRead> Bits<R> {
    /// The next `n`-bit code, or None at the end of the input.
    #[inline(always)]
    fn code(&mut self, n: u32) -> Result<Option<u32>, CodecError> {
        if self.have < n {
            self.refill()?;
            if self.have < n {
                return Ok(None);
            }
        }
        let c = (self.buf & ((1 << n) - 1)) as u32;
        self.buf >>= n;
        self.have -= n;
        self.pos += n as u64;
        Ok(Some(c))
    }

    /// Fills the bit buffer with as many whole bytes as it holds (one `fill_buf` per call
    /// mostly; it took one per byte, which was most of the time on poorly compressible
    /// data).
    #[cold]
    #[inline(never)]
    fn refill(&mut self) -> Result<(), CodecError> {
        while self.have <= 56 && !self.eof {
            let chunk = self.r.fill_buf().map_err(CodecError::Read)?;
            if chunk.is_empty() {
                self.eof = true;
                break;
            }
            let take = (((64 - self.have) / 8) as usize).min(chunk.len());
            for &b in &chunk[..take] {
                self.buf |= (b as u64) << self.have;
                self.have += 8;
            }
            self.r.consume(take);
        }
        Ok(())
    }

    /// Skips to the next multiple of `group` bits after `from` (padding), if not on one.
    fn align(&mut self, from: u64, group: u64) -> Result<(), CodecError> {
        let mut pad = (group - (self.pos - from) % group) % group;
        while pad > 0 {
            let k = pad.min(16) as u32;
            if self.code(k)?.is_none() {
                break;
            }
            pad -= k as u64;
        }
        Ok(())
    }
}

fn corrupt(at: u64) -> CodecError {
    CodecError::Unsupported(if at == 0 {
        "corrupt input: not a compress (.Z) stream"
    } else {
        "corrupt input (compress data)"
    })
}

/// Decompresses the .Z stream `r` (which starts with [`MAGIC`]) into `w`.
pub fn decompress(
    r: &mut dyn Read,
    w: &mut dyn Write,
    progress: &Progress,
) -> Result<DecodeReport, CodecError> {
    let mut counted = Counted::new(r, progress);
    let mut br = BufReader::with_capacity(1 << 16, &mut counted);
    let mut head = [0u8; 3];
    crate::zip::read_exact(&mut br, &mut head, 0)?;
    let max_bits = (head[2] & 0x1f) as u32;
    let block_mode = head[2] & 0x80 != 0;
    if !(INIT_BITS..=MAX_BITS).contains(&max_bits) {
        return Err(CodecError::Unsupported(
            "compressed with a code width other than 9 to 16 bits",
        ));
    }
    let max_max = 1u32 << max_bits;
    // Entry `c >= 256` is entry `prefix[c]`'s string plus `suffix[c]`, `len[c]` bytes long.
    // An entry's prefix is always an earlier code, so a walk down the prefixes ends.
    // Fixed-size tables indexed by `as u16` values: no bounds checks in the walk.
    let mut prefix: Box<[u16; TABLE]> = vec![0u16; TABLE].try_into().expect("TABLE");
    let mut suffix: Box<[u8; TABLE]> = vec![0u8; TABLE].try_into().expect("TABLE");
    let mut len: Box<[u16; TABLE]> = vec![1u16; TABLE].try_into().expect("TABLE");
    // Strings are written straight into the output buffer, last byte first; it is written
    // out when a longest string (under 2^16 bytes) might not fit.
    let mut out = vec![0u8; OUT_BUF];
    let mut o = 0usize;
    let mut bits = Bits {
        r: br,
        buf: 0,
        have: 0,
        pos: 0,
        eof: false,
    };
    let mut n_bits = INIT_BITS;
    let mut max_code = (1u32 << n_bits) - 1;
    let mut free = if block_mode { 257 } else { 256 };
    let mut old: Option<u32> = None;
    let mut epoch = 0u64; // where the current width began: groups are counted from here
    let mut written = 0u64;
    let result = loop {
        if o > OUT_BUF - (1 << MAX_BITS) - 1 {
            w.write_all(&out[..o]).map_err(CodecError::Write)?;
            written += o as u64;
            o = 0;
        }
        if free > max_code {
            if let Err(e) = bits.align(epoch, 8 * n_bits as u64) {
                break Err(e);
            }
            epoch = bits.pos;
            n_bits += 1;
            max_code = if n_bits == max_bits {
                max_max
            } else {
                (1 << n_bits) - 1
            };
        }
        let code = match bits.code(n_bits) {
            Ok(Some(c)) => c,
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        };
        let Some(prev) = old else {
            if code >= 256 {
                break Err(corrupt(bits.pos));
            }
            out[o] = code as u8;
            o += 1;
            old = Some(code);
            continue;
        };
        if code == CLEAR && block_mode {
            // The entries go; the next code's entry lands on 256, which is never used.
            free = 256;
            if let Err(e) = bits.align(epoch, 8 * n_bits as u64) {
                break Err(e);
            }
            epoch = bits.pos;
            n_bits = INIT_BITS;
            max_code = (1 << n_bits) - 1;
            continue;
        }
        // The string about to be defined (code == free) is the previous one plus its own
        // first byte.
        let (c, again) = if code < free {
            (code, false)
        } else if code == free {
            (prev, true)
        } else {
            break Err(corrupt(bits.pos));
        };
        let n = len[c as u16 as usize] as usize;
        let mut k = o + n;
        let mut x = c;
        while x >= 256 {
            k -= 1;
            out[k] = suffix[x as u16 as usize];
            x = prefix[x as u16 as usize] as u32;
        }
        let fin = x as u8;
        out[o] = fin;
        o += n;
        if again {
            out[o] = fin;
            o += 1;
        }
        if free < max_max {
            prefix[free as u16 as usize] = prev as u16;
            suffix[free as u16 as usize] = fin;
            len[free as u16 as usize] = len[prev as u16 as usize] + 1;
            free += 1;
        }
        old = Some(code);
    };
    // What was decoded before an error goes out too, as gzip writes it.
    w.write_all(&out[..o]).map_err(CodecError::Write)?;
    written += o as u64;
    w.flush().map_err(CodecError::Write)?;
    result?;
    let mut rest = bits.r;
    io::copy(&mut rest, &mut io::sink()).map_err(CodecError::Read)?;
    drop(rest);
    Ok(DecodeReport {
        lzw: true,
        ..DecodeReport::one_member(counted.n, written)
    })
}
