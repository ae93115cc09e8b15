//! DEFLATE decoding (RFC 1951) with the raw, zlib (RFC 1950) and gzip (RFC 1952) containers.
//!
//! Two APIs over one block decoder (`core.rs`):
//! - whole-buffer: [`decompress`] and the reusable [`Decompressor`], which decode straight into
//!   a growing `Vec` (or a caller's slice) and checksum each piece with SIMD while it is in
//!   cache;
//! - streaming: [`Inflater`], resumable with input and output in pieces of any size.
//!
//! Every error is an [`InflateError`]: a precise [`ErrorKind`] and the input byte offset.
//!
//! Every file here forbids `unsafe` except `copy.rs`, the match-copy primitive.
#![deny(unsafe_code)]

mod container;
mod copy;
mod core;
mod error;
mod fast;
mod huffman;
mod stream;

pub use error::{ErrorKind, InflateError};
pub use stream::{InflateStatus, Inflater, StreamState};

use crate::checksum::{adler32, crc32};
use crate::format::{Format, GzipHeader};
use container::Header;

/// Output decoded between two checksum updates by [`Decompressor::decompress_member_into`].
const CHECK_PIECE: usize = 1 << 16;

/// Decodes a whole stream: every gzip member, concatenated. Trailing bytes are an error.
pub fn decompress(format: Format, input: &[u8]) -> Result<Vec<u8>, InflateError> {
    Decompressor::new(format).decompress(input).map(|d| d.data)
}

/// The result of [`Decompressor::decompress`].
#[derive(Debug)]
pub struct Decoded {
    /// The decoded data.
    pub data: Vec<u8>,
    /// The header of each gzip member, in order (empty for raw and zlib).
    pub headers: Vec<GzipHeader>,
    /// Input bytes that belonged to the stream(s).
    pub consumed: usize,
    /// Input bytes after the stream that were ignored (only with `allow_trailing`).
    pub trailing: usize,
}

/// What [`Decompressor::decompress_member`] found.
#[derive(Debug)]
pub struct MemberInfo {
    /// Input bytes the member occupied, header and trailer included.
    pub consumed: usize,
    /// The gzip header, for gzip members.
    pub header: Option<GzipHeader>,
    /// The member's checksum: CRC-32 (gzip), Adler-32 (zlib), or 0 for raw DEFLATE, which
    /// carries none.
    pub checksum: u32,
}

/// A reusable whole-buffer decoder.
pub struct Decompressor {
    format: Format,
    limit: usize,
    dict: Option<Vec<u8>>,
    multi_member: bool,
    allow_trailing: bool,
    core: core::Core,
}

impl Decompressor {
    /// A decoder for `format` with no output limit, multi-member gzip and no trailing data.
    pub fn new(format: Format) -> Self {
        Decompressor {
            format,
            limit: usize::MAX,
            dict: None,
            multi_member: true,
            allow_trailing: false,
            core: core::Core::default(),
        }
    }

    /// Fails with [`ErrorKind::OutputLimitExceeded`] rather than produce more than `max_output`
    /// bytes (a decompression-bomb guard).
    pub fn with_limit(mut self, max_output: usize) -> Self {
        self.set_limit(max_output);
        self
    }

    /// Changes the output limit of [`Decompressor::with_limit`].
    pub fn set_limit(&mut self, max_output: usize) {
        self.limit = max_output;
    }

    /// A preset dictionary: required by zlib streams with FDICT, history for raw streams.
    pub fn with_dictionary(mut self, dict: &[u8]) -> Self {
        self.dict = Some(dict[dict.len().saturating_sub(32768)..].to_vec());
        self
    }

    /// Whether gzip members after the first are decoded (default true).
    pub fn multi_member(mut self, yes: bool) -> Self {
        self.multi_member = yes;
        self
    }

    /// Whether bytes after the stream are ignored rather than an error (default false).
    pub fn allow_trailing(mut self, yes: bool) -> Self {
        self.allow_trailing = yes;
        self
    }

    /// Decodes the whole input.
    pub fn decompress(&mut self, input: &[u8]) -> Result<Decoded, InflateError> {
        let mut data = Vec::with_capacity(input.len().saturating_mul(3).min(1 << 30));
        let mut headers = Vec::new();
        let mut pos = 0;
        loop {
            let info = self
                .decompress_member(&input[pos..], &mut data)
                .map_err(|e| InflateError::new(e.kind, e.offset + pos as u64))?;
            pos += info.consumed;
            headers.extend(info.header);
            let more_member = self.format == Format::Gzip
                && self.multi_member
                && input.len() - pos >= 2
                && input[pos] == 0x1f
                && input[pos + 1] == 0x8b;
            if !more_member {
                break;
            }
        }
        let trailing = input.len() - pos;
        if trailing > 0 && !self.allow_trailing {
            return Err(InflateError::new(ErrorKind::TrailingData, pos as u64));
        }
        Ok(Decoded {
            data,
            headers,
            consumed: pos,
            trailing,
        })
    }

    /// Decodes one member (gzip) or stream (zlib, raw) from the start of `input`, appending the
    /// data to `out`. Offsets in errors are relative to `input`.
    pub fn decompress_member(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<MemberInfo, InflateError> {
        let err = |kind, at: usize| InflateError::new(kind, at as u64);
        let (header, mut ip) = self.header(input)?;
        let start = out.len();
        let mut dict_len = 0;
        let use_dict = match &header {
            Some(Header::Zlib {
                dict_id: Some(id), ..
            }) => match &self.dict {
                Some(d) if adler32(1, d) == *id => true,
                Some(_) => return Err(err(ErrorKind::WrongDictionary, 2)),
                None => return Err(err(ErrorKind::DictionaryRequired(*id), 2)),
            },
            _ => self.format == Format::Raw && self.dict.is_some(),
        };
        if use_dict {
            let d = self.dict.as_ref().unwrap();
            out.extend_from_slice(d);
            dict_len = d.len();
        }
        let limit_end = start.saturating_add(dict_len).saturating_add(self.limit);
        // One byte of slack past the limit: the core reports a full buffer before it reads the
        // end-of-block code, so an output of exactly `limit` bytes needs room for one more to be
        // seen as complete.
        let alloc_end = limit_end.saturating_add(1);
        self.core.reset();
        let mut op = out.len();
        // Output space is zeroed a piece at a time just ahead of the decoder, so the zeroing and
        // the page faults of fresh memory happen while the piece is about to be written (in
        // cache) rather than in one pass over the whole output first; capacity still grows by
        // doubling. Pieces start small (a small stream, or a small member of a long
        // multi-member input, zeroes little) and double up to 1 MiB.
        let mut piece = (input.len() * 4).clamp(1 << 12, 1 << 16);
        // The checksum follows the decoder piece by piece, while the output is still in cache.
        let mut check = self.check_start();
        let mut checked = start + dict_len;
        loop {
            if out.len() - op < 1 << 16 {
                let want = (out.len() + piece).max(op + (1 << 16)).min(alloc_end);
                piece = (piece * 2).min(1 << 20);
                if want > out.capacity() {
                    // Grow (doubling) before zeroing, so a large output's fresh capacity can be
                    // backed by huge pages before any of it is touched.
                    out.reserve(want - out.len());
                    crate::mem::advise_huge_spare(out);
                }
                if want > out.len() {
                    out.resize(want, 0);
                }
            }
            let status = self
                .core
                .run(input, &mut ip, out, &mut op, start)
                .map_err(|k| err(k, ip))?;
            check = self.check(check, &out[checked..op]);
            checked = op;
            match status {
                core::Status::Done if op > limit_end => {
                    out.truncate(op);
                    return Err(err(ErrorKind::OutputLimitExceeded, ip));
                }
                core::Status::Done => break,
                core::Status::NeedInput => {
                    out.truncate(op);
                    return Err(err(ErrorKind::Truncated, input.len()));
                }
                // The whole-buffer decoder never sets stop_at_block or stop_after_header.
                core::Status::BlockBoundary | core::Status::HeaderEnd => {}
                core::Status::OutputFull => {
                    if op > limit_end {
                        out.truncate(op);
                        return Err(err(ErrorKind::OutputLimitExceeded, ip));
                    }
                }
            }
        }
        out.truncate(op);
        if dict_len > 0 {
            out.drain(start..start + dict_len);
        }
        let len = out.len() - start;
        self.trailer(input, ip, header, len as u64, check)
    }

    /// The member checksum (Adler-32 for zlib, CRC-32 for gzip) of no data: where
    /// [`Decompressor::check`] starts.
    fn check_start(&self) -> u32 {
        match self.format {
            Format::Zlib => 1,
            Format::Gzip | Format::Raw => 0,
        }
    }

    /// The member checksum continued over `data` from `running`. A raw stream carries none,
    /// so none is computed (0), as in the streaming decoder: it cost 7% of raw decoding time.
    fn check(&self, running: u32, data: &[u8]) -> u32 {
        match self.format {
            Format::Zlib => adler32(running, data),
            Format::Gzip => crc32(running, data),
            Format::Raw => 0,
        }
    }

    /// Parses the container header at the start of `input`: the header and its length.
    fn header(&self, input: &[u8]) -> Result<(Option<Header>, usize), InflateError> {
        let err = |kind, at: usize| InflateError::new(kind, at as u64);
        Ok(match self.format {
            Format::Raw => (None, 0),
            Format::Zlib => match container::parse_zlib(input) {
                Ok(Some((h, n))) => (Some(h), n),
                Ok(None) => return Err(err(ErrorKind::Truncated, input.len())),
                Err((k, at)) => return Err(err(k, at)),
            },
            Format::Gzip => match container::parse_gzip(input) {
                Ok(Some((h, n))) => (Some(h), n),
                Ok(None) => return Err(err(ErrorKind::Truncated, input.len())),
                Err((k, at)) => return Err(err(k, at)),
            },
        })
    }

    /// After the final block ended with the decoder at `ip`: steps back over whole bytes read
    /// ahead, checks the trailer against `check` and the data length `len`.
    fn trailer(
        &mut self,
        input: &[u8],
        mut ip: usize,
        header: Option<Header>,
        len: u64,
        check: u32,
    ) -> Result<MemberInfo, InflateError> {
        let err = |kind, at: usize| InflateError::new(kind, at as u64);
        // Whole bytes still buffered were read ahead from `input`: step back over them.
        self.core.align();
        while self.core.take_byte().is_some() {
            ip -= 1;
        }
        let trailer_byte = |_: usize, ip: &mut usize| -> Result<u8, InflateError> {
            let b = *input
                .get(*ip)
                .ok_or(err(ErrorKind::Truncated, input.len()))?;
            *ip += 1;
            Ok(b)
        };
        let (header, checksum) = match self.format {
            Format::Raw => (None, check),
            Format::Zlib => {
                let at = ip;
                let mut t = [0u8; 4];
                for (i, b) in t.iter_mut().enumerate() {
                    *b = trailer_byte(i, &mut ip)?;
                }
                container::check_zlib_trailer(&t, check).map_err(|k| err(k, at))?;
                (None, check)
            }
            Format::Gzip => {
                // Each field is checked as soon as it has been read (see `check_gzip_crc`),
                // and reported at its first byte.
                for field in 0..2 {
                    let at = ip;
                    let mut t = [0u8; 4];
                    for (i, b) in t.iter_mut().enumerate() {
                        *b = trailer_byte(i, &mut ip)?;
                    }
                    if field == 0 {
                        container::check_gzip_crc(t, check)
                    } else {
                        container::check_gzip_isize(t, len)
                    }
                    .map_err(|k| err(k, at))?;
                }
                let h = match header {
                    Some(Header::Gzip(h)) => Some(h),
                    _ => None,
                };
                (h, check)
            }
        };
        Ok(MemberInfo {
            consumed: ip,
            header,
            checksum,
        })
    }

    /// Decodes one member (gzip) or stream (zlib, raw) from the start of `input` into `out`,
    /// which must hold it exactly or with room to spare: more output than `out.len()` is
    /// [`ErrorKind::OutputLimitExceeded`]. Returns the member's information and the bytes
    /// written. For independent members (no preset dictionary: one is an error here) whose
    /// sizes are known, so each can be decoded straight into its place in a shared output.
    pub fn decompress_member_into(
        &mut self,
        input: &[u8],
        out: &mut [u8],
    ) -> Result<(MemberInfo, usize), InflateError> {
        let err = |kind, at: usize| InflateError::new(kind, at as u64);
        let (header, mut ip) = self.header(input)?;
        if let Some(Header::Zlib {
            dict_id: Some(id), ..
        }) = header
        {
            return Err(err(ErrorKind::DictionaryRequired(id), 2));
        }
        if self.format == Format::Raw && self.dict.is_some() {
            return Err(err(ErrorKind::WrongDictionary, 0));
        }
        self.core.reset();
        let mut op = 0;
        // The checksum follows the decoder a piece at a time, while the piece is still in
        // cache: the decoder stops at each piece's end (a full slice) and goes on after the
        // sum. Over zlib -6 streams of the corpus (`examples/inflate_raw.rs -z`), Adler-32
        // fell from 2.3% to 1.75% of the profile against one sum over the whole output after
        // decoding. On those files (4 MB at most, in the caches either way) the whole decode's
        // time changed within the noise of two builds (raw streams, which sum nothing, moved as
        // much: 0.99x both, alternating processes); on a 199 MB output, which a sum after the
        // decode reads again from memory, 1.025-1.034x (raw 1.005x).
        let (mut check, mut checked) = (self.check_start(), 0);
        let status = loop {
            let limit = match self.format {
                Format::Raw => out.len(),
                _ => out.len().min(op + CHECK_PIECE),
            };
            let status = self
                .core
                .run(input, &mut ip, &mut out[..limit], &mut op, 0)
                .map_err(|k| err(k, ip))?;
            // The core reports a full slice only when it is full.
            if limit < out.len() && matches!(status, core::Status::OutputFull) && op == limit {
                check = self.check(check, &out[checked..op]);
                checked = op;
                continue;
            }
            break status;
        };
        match status {
            core::Status::Done => {}
            core::Status::NeedInput => return Err(err(ErrorKind::Truncated, input.len())),
            core::Status::BlockBoundary | core::Status::HeaderEnd | core::Status::OutputFull => {
                // `out` is full (the core stops nowhere else here). The stream may still end here (the core stops before reading
                // an end-of-block code it has no room after, and empty blocks may follow):
                // decode on into a one-byte probe, where any output, a match into the missing
                // history or a copy left over means the member is longer than `out`.
                let over = |at: usize| err(ErrorKind::OutputLimitExceeded, at);
                if self.core.in_copy() {
                    return Err(over(ip));
                }
                let mut probe = [0u8; 1];
                let mut pp = 0;
                match self.core.run(input, &mut ip, &mut probe, &mut pp, 0) {
                    Ok(core::Status::Done) if pp == 0 => {}
                    Ok(core::Status::NeedInput) => {
                        return Err(err(ErrorKind::Truncated, input.len()))
                    }
                    Ok(_) | Err(ErrorKind::DistanceTooFar) => return Err(over(ip)),
                    Err(k) => return Err(err(k, ip)),
                }
            }
        }
        let check = self.check(check, &out[checked..op]);
        let info = self.trailer(input, ip, header, op as u64, check)?;
        Ok((info, op))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text-like and binary-like data with matches of every distance class.
    fn sample() -> Vec<u8> {
        let words = [
            "the ", "deflate ", "stream ", "of ", "hyperz ", "1951 ", "zlib\n",
        ];
        let mut x = 12345u32;
        let mut v = Vec::new();
        while v.len() < 300_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            if x >> 28 < 2 {
                v.extend((0..(x >> 20) % 64).map(|i| (x >> (i % 24)) as u8));
            } else {
                v.extend_from_slice(words[(x >> 16) as usize % words.len()].as_bytes());
            }
        }
        v
    }

    /// The fast loop's baseline copy (used on CPUs without BMI2) decodes exactly as the BMI2
    /// copy does, data and errors alike.
    #[test]
    fn baseline_and_bmi2_copies_agree() {
        let data = sample();
        for level in [1, 6, 12] {
            let z = crate::deflate::compress(Format::Gzip, &data, level);
            let run = |baseline: bool, input: &[u8]| {
                crate::arch::BASELINE_ONLY.with(|b| b.set(baseline));
                let r = decompress(Format::Gzip, input);
                crate::arch::BASELINE_ONLY.with(|b| b.set(false));
                r
            };
            assert_eq!(run(true, &z).unwrap(), data, "level {level}");
            assert_eq!(run(false, &z).unwrap(), data, "level {level}");
            for cut in [10, z.len() / 3, z.len() - 9] {
                let a = run(true, &z[..cut]).unwrap_err();
                let b = run(false, &z[..cut]).unwrap_err();
                assert_eq!((a.kind, a.offset), (b.kind, b.offset), "cut {cut}");
            }
            let mut bad = z.clone();
            bad[z.len() / 2] ^= 0x55;
            match (run(true, &bad), run(false, &bad)) {
                (Ok(x), Ok(y)) => assert_eq!(x, y),
                (Err(a), Err(b)) => assert_eq!((a.kind, a.offset), (b.kind, b.offset)),
                (a, b) => panic!("baseline {a:?} vs bmi2 {b:?}"),
            }
        }
    }

    /// Decoding into an exact-size slice gives the data and the same member information as
    /// appending to a Vec; one byte less is an output-limit error, never a panic; room to spare
    /// is fine. Streams that end with empty blocks after the data (sync flushes) too.
    #[test]
    fn decode_into_a_slice() {
        let data = sample();
        let mut cases = Vec::new();
        for level in [0, 1, 6] {
            cases.push((
                Format::Gzip,
                crate::deflate::compress(Format::Gzip, &data, level),
            ));
            cases.push((
                Format::Zlib,
                crate::deflate::compress(Format::Zlib, &data, level),
            ));
        }
        // Data, a sync flush (an empty stored block) and a finish that adds only an empty
        // final block: the data fills the slice before the stream's last blocks.
        for format in [Format::Raw, Format::Gzip] {
            use crate::deflate::{Deflater, Flush, Params};
            let mut d = Deflater::new(format, Params::default()).unwrap();
            let mut z = vec![0u8; 400_000];
            let mut n = 0;
            let st = d.deflate(&data, &mut z[n..], Flush::Sync).unwrap();
            assert_eq!(st.consumed, data.len());
            n += st.produced;
            n += d.deflate(&[], &mut z[n..], Flush::Finish).unwrap().produced;
            z.truncate(n);
            cases.push((format, z));
        }
        for (format, z) in cases {
            let want = decompress(format, &z).unwrap();
            let mut d = Decompressor::new(format);
            let mut out = vec![0u8; want.len()];
            let (info, n) = d.decompress_member_into(&z, &mut out).unwrap();
            assert_eq!((n, &out[..]), (want.len(), &want[..]));
            assert_eq!(info.consumed, z.len());
            let mut big = vec![0u8; want.len() + 1000];
            let (_, n) = d.decompress_member_into(&z, &mut big).unwrap();
            assert_eq!(&big[..n], &want[..]);
            for short in [1, 2, 100, 5000.min(want.len())] {
                let mut small = vec![0u8; want.len() - short];
                let e = d.decompress_member_into(&z, &mut small).unwrap_err();
                assert_eq!(
                    e.kind,
                    ErrorKind::OutputLimitExceeded,
                    "{format:?} short {short}"
                );
            }
            let e = d
                .decompress_member_into(&z[..z.len() - 1], &mut out)
                .unwrap_err();
            assert_eq!(e.kind, ErrorKind::Truncated);
            // Corruption anywhere, at any slice size: an error or some output, never a panic.
            for k in (0..z.len()).step_by(z.len() / 97 + 1) {
                let mut bad = z.clone();
                bad[k] ^= 0xa5;
                for len in [0, 7, want.len() / 2, want.len()] {
                    let _ = d.decompress_member_into(&bad, &mut out[..len]);
                }
            }
        }
    }

    /// Decoding into a slice sums the checksum a piece ([`CHECK_PIECE`]) at a time: outputs
    /// that end just before, at and just after a piece's end, into exact slices and slices
    /// with room, give the data and verify; a trailer whose checksum is off by one bit is
    /// reported with the checksum of the whole data.
    #[test]
    fn checksum_by_pieces() {
        let data = sample();
        for len in [
            CHECK_PIECE - 1,
            CHECK_PIECE,
            CHECK_PIECE + 1,
            2 * CHECK_PIECE,
            2 * CHECK_PIECE + 300,
        ] {
            let data = &data[..len];
            for (format, whole) in [
                (Format::Zlib, crate::checksum::adler32(1, data)),
                (Format::Gzip, crate::checksum::crc32(0, data)),
            ] {
                let z = crate::deflate::compress(format, data, 6);
                let mut d = Decompressor::new(format);
                for room in [0, 1, CHECK_PIECE] {
                    let mut out = vec![0u8; len + room];
                    let (info, n) = d.decompress_member_into(&z, &mut out).unwrap();
                    assert!(n == len && &out[..n] == data, "{format:?} {len} +{room}");
                    assert_eq!(info.checksum, whole);
                }
                // The trailer's checksum: the last four bytes of zlib, the four before ISIZE
                // of gzip.
                let at = z.len() - if format == Format::Zlib { 1 } else { 5 };
                let mut bad = z.clone();
                bad[at] ^= 1;
                let mut out = vec![0u8; len];
                let e = d.decompress_member_into(&bad, &mut out).unwrap_err();
                assert!(
                    matches!(e.kind, ErrorKind::ChecksumMismatch { actual, .. } if actual == whole),
                    "{format:?} {len}: {e}"
                );
            }
        }
    }
}
