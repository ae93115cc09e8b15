//! `pack` (.z) files, decompressed as gzip does (`gzip -d file.z`, `zcat file.z`): the static
//! Huffman coding of System V's pack, magic `1f 1e`.
//!
//! A member is the magic, the original length (4 bytes, big-endian), the longest code length
//! (1-24), the number of leaves at each length from 1 on (the longest's less 2), the leaves'
//! bytes in that order (the last leaf of the longest length, the end code, is not stored), then
//! the codes, most significant bit first, up to the end code. Codes are canonical with the
//! internal nodes first: at each length the lowest values lead further down the tree and the
//! leaves follow in their listed order, so the all-ones code is the shortest leaf and the end
//! code is the highest value of the longest length. There is no checksum; the decoded length
//! must equal the stored one modulo 2^32. Members may follow one another, and a gzip member may
//! follow them (gzip reads such a file to its end); anything else after them is trailing
//! garbage, as after gzip members.
#![forbid(unsafe_code)]

use crate::codec::{read_full, CodecError, Counted, DecodeReport};
use crate::progress::Progress;
use std::io::{self, BufRead, BufReader, Read, Write};

/// The magic bytes of a packed file.
pub const MAGIC: [u8; 2] = [0x1f, 0x1e];
/// Longest code gzip accepts (its MAX_BITLEN); pack writes at most 24.
const MAX_BITLEN: usize = 25;
/// Codes up to this long are decoded with one table lookup (gzip's MAX_PEEK).
const MAX_PEEK: usize = 12;

fn corrupt(what: &'static str) -> CodecError {
    CodecError::Unsupported(what)
}

/// Reads a member's bytes, most significant bit first, counting the bytes taken.
struct Bits<'a, R> {
    r: &'a mut R,
    buf: u64,
    have: u32,
    taken: u64,
}

impl<R: BufRead> Bits<'_, R> {
    /// The next byte of the input, or "unexpected end of file" at `base` plus what was read.
    fn byte(&mut self, base: u64) -> Result<u8, CodecError> {
        let chunk = self.r.fill_buf().map_err(CodecError::Read)?;
        let Some(&b) = chunk.first() else {
            return Err(CodecError::Truncated {
                offset: base + self.taken,
            });
        };
        self.r.consume(1);
        self.taken += 1;
        Ok(b)
    }

    /// The next `n` (<= 32) bits as a number, without consuming them; reads whole bytes only
    /// as far as they are needed, so after the end code fewer than 8 bits of padding remain.
    fn peek(&mut self, n: u32, base: u64) -> Result<u32, CodecError> {
        while self.have < n {
            self.buf = self.buf << 8 | self.byte(base)? as u64;
            self.have += 8;
        }
        Ok((self.buf >> (self.have - n)) as u32 & ((1u32 << n) - 1))
    }

    fn skip(&mut self, n: u32) {
        self.have -= n;
        self.buf &= (1u64 << self.have) - 1;
    }
}

/// The code of one member, read from its header.
struct Code {
    /// Longest code length.
    max_len: usize,
    /// Leaves at each length (the end code included at `max_len`).
    leaves: [usize; MAX_BITLEN + 1],
    /// Internal nodes at each length: the lowest code values of that length.
    parents: [usize; MAX_BITLEN + 1],
    /// The leaves' bytes, shortest codes first.
    literals: Vec<u8>,
    /// Where each length's leaves start in `literals`.
    lit_base: [usize; MAX_BITLEN + 1],
    /// Bits looked up at once, and for each value of them the length of the code they start
    /// with (0: longer than `peek_bits`).
    peek_bits: usize,
    prefix_len: Vec<u8>,
}

impl Code {
    /// Reads the header after the magic: the original length and the code. gzip's checks and
    /// messages.
    fn read<R: BufRead>(bits: &mut Bits<'_, R>, base: u64) -> Result<(u32, Code), CodecError> {
        let mut orig_len = 0u32;
        for _ in 0..4 {
            orig_len = orig_len << 8 | bits.byte(base)? as u32;
        }
        let max_len = bits.byte(base)? as usize;
        if !(1..=MAX_BITLEN).contains(&max_len) {
            return Err(corrupt(
                "invalid compressed data -- Huffman code bit length out of range",
            ));
        }
        let mut leaves = [0usize; MAX_BITLEN + 1];
        // The nodes at each length, less one: above the longest length one of them at least
        // leads further down, and at the longest the stored count is 2 below the nodes.
        let mut room = 1usize;
        let mut stored = 0usize;
        for (len, l) in leaves.iter_mut().enumerate().take(max_len + 1).skip(1) {
            *l = bits.byte(base)? as usize;
            if *l + (len == max_len) as usize > room {
                return Err(corrupt("too many leaves in Huffman tree"));
            }
            room = (room - *l + 1) * 2 - 1;
            stored += *l;
        }
        if stored >= 256 {
            return Err(corrupt("too many leaves in Huffman tree"));
        }
        // The longest length's count is stored less 2: one for the end code, which has no
        // byte, and one so that 256 leaves fit in a byte.
        leaves[max_len] += 1;
        let mut literals = Vec::with_capacity(stored + 1);
        let mut lit_base = [0usize; MAX_BITLEN + 1];
        for len in 1..=max_len {
            lit_base[len] = literals.len();
            for _ in 0..leaves[len] {
                literals.push(bits.byte(base)?);
            }
        }
        leaves[max_len] += 1;
        // Internal nodes at each length: half the nodes one length down.
        let mut parents = [0usize; MAX_BITLEN + 1];
        let mut nodes = 0usize;
        for len in (1..=max_len).rev() {
            // An odd count leaves a node without a sibling: codes that lead nowhere (gzip
            // finds most such trees only at the root).
            if nodes % 2 == 1 {
                return Err(corrupt("too few leaves in Huffman tree"));
            }
            nodes >>= 1;
            parents[len] = nodes;
            nodes += leaves[len];
        }
        if nodes != 2 {
            return Err(corrupt("too few leaves in Huffman tree"));
        }
        let peek_bits = max_len.min(MAX_PEEK);
        let mut prefix_len = vec![0u8; 1 << peek_bits];
        for len in 1..=peek_bits {
            let span = peek_bits - len;
            let first = parents[len] << span;
            let end = (parents[len] + leaves[len]) << span;
            // In range for a complete tree (at most 2^len nodes of length len).
            prefix_len
                .get_mut(first..end)
                .ok_or(corrupt("too many leaves in Huffman tree"))?
                .fill(len as u8);
        }
        Ok((
            orig_len,
            Code {
                max_len,
                leaves,
                parents,
                literals,
                lit_base,
                peek_bits,
                prefix_len,
            },
        ))
    }
}

/// Decodes one member (its magic already read) into `out`; returns the bytes it decoded. `base`
/// is the member's offset in the input, for messages.
fn member<R: BufRead>(r: &mut R, out: &mut dyn Write, base: u64) -> Result<u64, CodecError> {
    let mut bits = Bits {
        r,
        buf: 0,
        have: 0,
        taken: 2,
    };
    let (orig_len, code) = Code::read(&mut bits, base)?;
    let end_code = code.leaves[code.max_len] - 1;
    let mut buf = Vec::with_capacity(1 << 16);
    let mut written = 0u64;
    let peek_bits = code.peek_bits as u32;
    // What was decoded before an error is written out first, as gzip writes it.
    let decoded = (|| loop {
        let peek = bits.peek(peek_bits, base)?;
        let mut len = code.prefix_len[peek as usize] as usize;
        let value = if len > 0 {
            (peek >> (code.peek_bits - len)) as usize
        } else {
            // Longer than the table: down the tree while the value is an internal node.
            len = code.peek_bits;
            let mut v = peek as usize;
            while v < code.parents[len] {
                len += 1;
                v = bits.peek(len as u32, base)? as usize;
            }
            v
        };
        bits.skip(len as u32);
        if len == code.max_len && value == end_code {
            return Ok(());
        }
        // A leaf of the complete tree: the checks of `Code::read` keep `value` among them.
        let leaf = value
            .checked_sub(code.parents[len])
            .filter(|&k| k < code.leaves[len])
            .ok_or(corrupt("invalid compressed data -- code out of the tree"))?;
        buf.push(code.literals[code.lit_base[len] + leaf]);
        if buf.len() == buf.capacity() {
            out.write_all(&buf).map_err(CodecError::Write)?;
            written += buf.len() as u64;
            buf.clear();
        }
    })();
    out.write_all(&buf).map_err(CodecError::Write)?;
    written += buf.len() as u64;
    decoded?;
    if written as u32 != orig_len {
        return Err(corrupt("invalid compressed data--length error"));
    }
    Ok(written)
}

/// Decompresses the packed members that start `r` (with [`MAGIC`]) into `w`. Returns what they
/// gave and, if a gzip, compress or LZH member follows them, the input read past them (the
/// rest is still in `r`), for its decoder to go on with. Anything else after them is trailing garbage, or
/// copied as it is with `copy_plain` (gzip's `-cf`).
pub fn decompress(
    r: &mut dyn Read,
    w: &mut dyn Write,
    progress: &Progress,
    copy_plain: bool,
) -> Result<(DecodeReport, Option<Vec<u8>>), CodecError> {
    let mut counted = Counted::new(r, progress);
    let mut br = BufReader::with_capacity(1 << 16, &mut counted);
    let mut out = io::BufWriter::with_capacity(1 << 18, w);
    let mut report = DecodeReport {
        pack: true,
        ..DecodeReport::default()
    };
    let mut at = 0u64;
    let mut follows = None;
    loop {
        let mut magic = [0u8; 2];
        let n = read_full(&mut br, &mut magic)?;
        if n == 2 && magic == MAGIC {
            let out_len = member(&mut br, &mut out, at)?;
            report.members += 1;
            report.last_member_out = out_len;
            report.counts.bytes_out += out_len;
            at = counted_so_far(&br);
            continue;
        }
        let head = &magic[..n];
        let next = [
            [0x1f, 0x8b],
            crate::codec::OLD_GZIP_MAGIC,
            crate::lzw::MAGIC,
            crate::lzh::MAGIC,
        ];
        if n == 2 && next.contains(&magic) {
            let mut rest = head.to_vec();
            rest.extend_from_slice(br.buffer());
            follows = Some(rest);
            break;
        }
        if n == 0 {
            break;
        }
        if copy_plain {
            out.write_all(head).map_err(CodecError::Write)?;
            let copied = io::copy(&mut br, &mut out).map_err(CodecError::Read)?;
            report.counts.bytes_out += n as u64 + copied;
        } else {
            let mut zeros = head.iter().all(|&b| b == 0);
            loop {
                let chunk = br.fill_buf().map_err(CodecError::Read)?;
                if chunk.is_empty() {
                    break;
                }
                zeros &= chunk.iter().all(|&b| b == 0);
                let k = chunk.len();
                br.consume(k);
            }
            report.trailing_zeros = zeros;
            report.trailing_garbage = !zeros;
        }
        break;
    }
    out.flush().map_err(CodecError::Write)?;
    drop(out);
    let unread = follows.as_ref().map_or(0, |f| f.len() as u64);
    drop(br);
    report.counts.bytes_in = counted.n - unread;
    Ok((report, follows))
}

/// Input bytes taken from a buffered reader so far.
fn counted_so_far(br: &BufReader<&mut Counted<'_>>) -> u64 {
    br.get_ref().n - br.buffer().len() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyperz_tests::pack::pack;

    /// What [`decompress`] reported, handed back, and wrote.
    type Unpacked = (DecodeReport, Option<Vec<u8>>, Vec<u8>);

    fn unpack(input: &[u8]) -> Result<Unpacked, CodecError> {
        let mut out = Vec::new();
        let (report, follows) = decompress(&mut &input[..], &mut out, &Progress::none(), false)?;
        Ok((report, follows, out))
    }

    #[test]
    fn members_and_what_follows_them() {
        let text = b"abracadabra, abracadabra; a cadabra of abras".repeat(40);
        let z = pack(&text);
        let (r, follows, out) = unpack(&[&z[..], &z].concat()).unwrap();
        assert_eq!(out, [&text[..], &text].concat());
        assert_eq!(
            (r.members, r.last_member_out, follows),
            (2, text.len() as u64, None)
        );
        assert_eq!(r.counts.bytes_in, 2 * z.len() as u64);
        // A gzip member after them: handed back whole, magic included, and not counted.
        let gz = [0x1f, 0x8b, 8, 0, 1, 2, 3];
        let (r, follows, _) = unpack(&[&z[..], &gz].concat()).unwrap();
        assert_eq!(
            (follows.unwrap(), r.counts.bytes_in),
            (gz.to_vec(), z.len() as u64)
        );
        let (r, ..) = unpack(&[&z[..], &[0; 5]].concat()).unwrap();
        assert!(r.trailing_zeros && !r.trailing_garbage);
        let (r, ..) = unpack(&[&z[..], b"x"].concat()).unwrap();
        assert!(r.trailing_garbage);
    }

    /// Every cut of a member is an error, and no change of a byte (in the header, the leaves or
    /// the codes) makes the decoder panic or read past its input.
    #[test]
    fn cut_and_damaged_members_are_errors_not_panics() {
        let data: Vec<u8> = (0..3000u32).map(|i| (i * i % 251 % 37) as u8).collect();
        let z = pack(&data);
        for cut in 0..z.len() {
            assert!(unpack(&z[..cut]).is_err() || cut < 2, "cut at {cut}");
        }
        let mut rnd = hyperz_tests::xorshift(0x5eed_0fba_5e00);
        for _ in 0..20_000 {
            let mut bad = z.clone();
            let at = 2 + (rnd() as usize) % (bad.len() - 2);
            bad[at] = rnd() as u8;
            if let Ok((r, ..)) = unpack(&bad) {
                assert!(r.counts.bytes_in <= bad.len() as u64);
            }
        }
    }
}
