//! The first entry of a zip archive, decompressed as gzip does (`gzip -d`, `zcat` and pigz read
//! a `.zip` holding one file): the local file header, the entry's data (deflated or stored),
//! its CRC-32 and length, checked against the header or, when the sizes follow the data
//! (general-purpose flag bit 3), against the data descriptor. A second entry is reported
//! (gzip warns that the rest is ignored); the central directory after the entry is not data
//! and is read past silently.
#![forbid(unsafe_code)]

use crate::codec::{CodecError, Counts, DecodeReport};
use crate::progress::Progress;
use hyperz_engine::checksum::crc32;
use hyperz_engine::inflate::{ErrorKind, InflateError, Inflater, StreamState};
use hyperz_engine::Format;
use std::io::{self, BufRead, BufReader, Read, Write};

/// A local file header's signature, "PK\3\4".
pub const LOCAL: [u8; 4] = *b"PK\x03\x04";
/// The optional signature of a data descriptor, "PK\7\8".
const DESCRIPTOR: [u8; 4] = *b"PK\x07\x08";
/// Buffer size for the input and the output.
const CHUNK: usize = 256 * 1024;

/// What the local file header says of the entry.
struct Entry {
    flags: u16,
    method: u16,
    crc: u32,
    csize: u32,
    usize: u32,
}

/// A reader that counts the bytes it passes and advances the progress bar.
struct Counted<'a> {
    inner: &'a mut dyn Read,
    progress: &'a Progress,
    n: u64,
}

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.n += n as u64;
        self.progress.advance(n as u64);
        Ok(n)
    }
}

fn le16(b: &[u8]) -> u16 {
    u16::from_le_bytes([b[0], b[1]])
}

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes(b[..4].try_into().unwrap())
}

/// Reads exactly `buf.len()` bytes; `at` (the input offset of the first) names where the input
/// ended if it ends first.
fn read_exact(r: &mut impl Read, buf: &mut [u8], at: u64) -> Result<(), CodecError> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => {
                return Err(CodecError::Truncated {
                    offset: at + n as u64,
                })
            }
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(CodecError::Read(e)),
        }
    }
    Ok(())
}

fn corrupt(kind: ErrorKind, offset: u64) -> CodecError {
    CodecError::Corrupt {
        error: InflateError { kind, offset },
        offset,
    }
}

/// Decompresses the first entry of the zip archive `r` (which starts with [`LOCAL`]) into `w`.
pub fn decompress(
    r: &mut dyn Read,
    w: &mut dyn Write,
    progress: &Progress,
) -> Result<DecodeReport, CodecError> {
    let mut counted = Counted {
        inner: r,
        progress,
        n: 0,
    };
    let mut br = BufReader::with_capacity(CHUNK, &mut counted);
    let mut head = [0u8; 30];
    read_exact(&mut br, &mut head, 0)?;
    let e = Entry {
        flags: le16(&head[6..]),
        method: le16(&head[8..]),
        crc: le32(&head[14..]),
        csize: le32(&head[18..]),
        usize: le32(&head[22..]),
    };
    let skip = le16(&head[26..]) as usize + le16(&head[28..]) as usize;
    read_exact(&mut br, &mut vec![0u8; skip], 30)?;
    let data_at = 30 + skip as u64;
    let sizes_after = e.flags & 8 != 0;
    if e.flags & 1 != 0 {
        return Err(CodecError::Unsupported("encrypted zip entry -- use unzip"));
    }
    if e.method != 8 && (e.method != 0 || sizes_after) {
        return Err(CodecError::Unsupported(
            "first zip entry not deflated or stored -- use unzip",
        ));
    }
    let mut w = io::BufWriter::with_capacity(CHUNK, w);
    let (mut crc, mut written, mut used) = (0u32, 0u64, 0u64);
    if e.method == 0 {
        let mut left = e.csize as u64;
        while left > 0 {
            let buf = br.fill_buf().map_err(CodecError::Read)?;
            if buf.is_empty() {
                return Err(CodecError::Truncated {
                    offset: data_at + used,
                });
            }
            let n = buf.len().min(left as usize);
            crc = crc32(crc, &buf[..n]);
            w.write_all(&buf[..n]).map_err(CodecError::Write)?;
            br.consume(n);
            (left, used, written) = (left - n as u64, used + n as u64, written + n as u64);
        }
    } else {
        let mut inf = Inflater::new(Format::Raw, 15);
        let mut out = vec![0u8; CHUNK];
        loop {
            let buf = br.fill_buf().map_err(CodecError::Read)?;
            let eof = buf.is_empty();
            let st = inf
                .inflate(buf, &mut out)
                .map_err(|error| CodecError::Corrupt {
                    offset: data_at + error.offset,
                    error,
                })?;
            br.consume(st.consumed);
            used += st.consumed as u64;
            crc = crc32(crc, &out[..st.produced]);
            written += st.produced as u64;
            w.write_all(&out[..st.produced])
                .map_err(CodecError::Write)?;
            if st.state == StreamState::StreamEnd {
                break;
            }
            if eof && st.consumed == 0 && st.produced == 0 {
                return Err(CodecError::Truncated {
                    offset: data_at + used,
                });
            }
        }
    }
    let at = data_at + used;
    let (want_crc, want_csize, want_usize) = if sizes_after {
        // The descriptor: an optional signature, then CRC-32, compressed and uncompressed size.
        let mut d = [0u8; 16];
        read_exact(&mut br, &mut d[..12], at)?;
        if d[..4] == DESCRIPTOR {
            read_exact(&mut br, &mut d[12..], at + 12)?;
            (le32(&d[4..]), le32(&d[8..]), le32(&d[12..]))
        } else {
            (le32(&d[..]), le32(&d[4..]), le32(&d[8..]))
        }
    } else {
        (e.crc, e.csize, e.usize)
    };
    if crc != want_crc {
        let kind = ErrorKind::ChecksumMismatch {
            expected: want_crc,
            actual: crc,
        };
        return Err(corrupt(kind, at));
    }
    if written as u32 != want_usize || used as u32 != want_csize {
        let kind = ErrorKind::LengthMismatch {
            expected: want_usize,
            actual: written as u32,
        };
        return Err(corrupt(kind, at));
    }
    w.flush().map_err(CodecError::Write)?;
    // Another entry is data left out; anything else (the central directory) is not.
    let next = br.fill_buf().map_err(CodecError::Read)?;
    let more_entries = next.len() >= 4 && next[..4] == LOCAL;
    io::copy(&mut br, &mut io::sink()).map_err(CodecError::Read)?;
    drop(br);
    Ok(DecodeReport {
        counts: Counts {
            bytes_in: counted.n,
            bytes_out: written,
        },
        members: 1,
        more_entries,
        zip_method: Some(e.method),
        ..DecodeReport::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-entry archive of `data`, deflated or stored, with the sizes in the local header
    /// or in a data descriptor (with or without its signature).
    fn archive(data: &[u8], method: u16, descriptor: Option<bool>) -> Vec<u8> {
        let body = if method == 8 {
            hyperz_engine::deflate::compress(Format::Raw, data, 6)
        } else {
            data.to_vec()
        };
        let crc = crc32(0, data);
        let sizes = [crc, body.len() as u32, data.len() as u32];
        let mut z = LOCAL.to_vec();
        z.extend_from_slice(&20u16.to_le_bytes());
        let flags: u16 = if descriptor.is_some() { 8 } else { 0 };
        z.extend_from_slice(&flags.to_le_bytes());
        z.extend_from_slice(&method.to_le_bytes());
        z.extend_from_slice(&[0; 4]);
        for v in sizes {
            let v = if descriptor.is_some() { 0 } else { v };
            z.extend_from_slice(&v.to_le_bytes());
        }
        z.extend_from_slice(&5u16.to_le_bytes());
        z.extend_from_slice(&0u16.to_le_bytes());
        z.extend_from_slice(b"x.txt");
        z.extend_from_slice(&body);
        if let Some(sig) = descriptor {
            if sig {
                z.extend_from_slice(&DESCRIPTOR);
            }
            for v in sizes {
                z.extend_from_slice(&v.to_le_bytes());
            }
        }
        z.extend_from_slice(b"PK\x01\x02 central directory");
        z
    }

    fn run(z: &[u8]) -> Result<(Vec<u8>, DecodeReport), CodecError> {
        let mut out = Vec::new();
        let r = decompress(&mut &z[..], &mut out, &Progress::none())?;
        Ok((out, r))
    }

    #[test]
    fn deflated_and_stored_entries_with_and_without_descriptors() {
        let data: Vec<u8> = (0..100_000u32)
            .map(|i| (i % 251) as u8 ^ (i / 7) as u8)
            .collect();
        for (method, desc) in [(8, None), (8, Some(true)), (8, Some(false)), (0, None)] {
            let z = archive(&data, method, desc);
            let (out, r) = run(&z).unwrap();
            assert!(out == data, "method {method} descriptor {desc:?}");
            assert!(!r.more_entries && r.counts.bytes_in == z.len() as u64);
        }
    }

    #[test]
    fn damage_is_an_error_and_a_second_entry_is_reported() {
        let data = b"hello hello hello hello, zip".repeat(50);
        let z = archive(&data, 8, None);
        let mut bad = z.clone();
        bad[14] ^= 1; // the CRC-32 in the local header
        assert!(matches!(
            run(&bad),
            Err(CodecError::Corrupt { error, .. }) if matches!(error.kind, ErrorKind::ChecksumMismatch { .. })
        ));
        let cut = &z[..z.len() / 2];
        assert!(matches!(run(cut), Err(CodecError::Truncated { .. })));
        let mut two = archive(&data, 0, None);
        two.truncate(two.len() - 22);
        two.extend_from_slice(&z);
        let (out, r) = run(&two).unwrap();
        assert!(out == data && r.more_entries);
        let mut enc = z.clone();
        enc[6] |= 1;
        assert!(matches!(run(&enc), Err(CodecError::Unsupported(_))));
    }
}
