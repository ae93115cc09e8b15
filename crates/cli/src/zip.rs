//! Zip archives of one file, as gzip and pigz handle them.
//!
//! Reading (`gzip -d`, `zcat` and pigz read a `.zip` holding one file): the local file header,
//! the entry's data (deflated or stored), its CRC-32 and length, checked against the header or,
//! when the sizes follow the data (general-purpose flag bit 3), against the data descriptor,
//! whose sizes are 64-bit when the header has a zip64 field (pigz -K's; gzip 1.12 misreads
//! those). A second entry is reported (gzip warns that the rest is ignored); the central
//! directory after the entry is not data and is read past silently.
//!
//! Writing (pigz's `-K`): the framing around one deflated entry, laid out as pigz lays it out:
//! a local header with a zip64 field and an extended timestamp, the sizes in a zip64 data
//! descriptor after the data (so the entry can be streamed), then the central directory, with
//! zip64 records only where a size or offset needs more than 32 bits.
#![forbid(unsafe_code)]

use crate::codec::{CodecError, Counted, DecodeReport};
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
    csize: u64,
    usize: u64,
    /// The header has a zip64 extra field: sizes are 64-bit (also in the data descriptor).
    zip64: bool,
}

/// The zip64 extra field's id.
const ZIP64: u16 = 1;

/// Parses the local header's extra fields into `e`: a zip64 field makes the sizes 64-bit and
/// holds those the header marks 0xFFFFFFFF (uncompressed first).
fn read_extra(e: &mut Entry, mut extra: &[u8]) {
    while extra.len() >= 4 {
        let (id, n) = (le16(extra), le16(&extra[2..]) as usize);
        let data = &extra[4..(4 + n).min(extra.len())];
        if id == ZIP64 {
            e.zip64 = true;
            let mut vals = data
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()));
            for size in [&mut e.usize, &mut e.csize] {
                if *size == 0xFFFF_FFFF {
                    *size = vals.next().unwrap_or(*size);
                }
            }
        }
        extra = &extra[(4 + n).min(extra.len())..];
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
pub(crate) fn read_exact(r: &mut impl Read, buf: &mut [u8], at: u64) -> Result<(), CodecError> {
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
    let mut counted = Counted::new(r, progress);
    let mut br = BufReader::with_capacity(CHUNK, &mut counted);
    let mut head = [0u8; 30];
    read_exact(&mut br, &mut head, 0)?;
    let mut e = Entry {
        flags: le16(&head[6..]),
        method: le16(&head[8..]),
        crc: le32(&head[14..]),
        csize: le32(&head[18..]) as u64,
        usize: le32(&head[22..]) as u64,
        zip64: false,
    };
    let name_len = le16(&head[26..]) as usize;
    let mut rest = vec![0u8; name_len + le16(&head[28..]) as usize];
    read_exact(&mut br, &mut rest, 30)?;
    read_extra(&mut e, &rest[name_len..]);
    let data_at = 30 + rest.len() as u64;
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
        let mut left = e.csize;
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
        // The descriptor: an optional signature, then CRC-32, compressed and uncompressed size
        // (8 bytes each after a zip64 header, as pigz -K writes them).
        let w = if e.zip64 { 8 } else { 4 };
        let mut d = [0u8; 24];
        read_exact(&mut br, &mut d[..4 + 2 * w], at)?;
        let mut f = 0;
        if d[..4] == DESCRIPTOR {
            read_exact(&mut br, &mut d[4 + 2 * w..8 + 2 * w], at + 4 + 2 * w as u64)?;
            f = 4;
        }
        let size = |b: &[u8]| {
            let mut v = [0u8; 8];
            v[..w].copy_from_slice(&b[..w]);
            u64::from_le_bytes(v)
        };
        (le32(&d[f..]), size(&d[f + 4..]), size(&d[f + 4 + w..]))
    } else {
        (e.crc, e.csize, e.usize)
    };
    // Without zip64 the sizes are kept modulo 2^32.
    let keep = |v: u64| if e.zip64 { v } else { v & 0xFFFF_FFFF };
    if crc != want_crc {
        let kind = ErrorKind::ChecksumMismatch {
            expected: want_crc,
            actual: crc,
        };
        return Err(corrupt(kind, at));
    }
    if keep(written) != want_usize || keep(used) != want_csize {
        let kind = ErrorKind::LengthMismatch {
            expected: want_usize as u32,
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
        more_entries,
        zip_method: Some(e.method),
        ..DecodeReport::one_member(counted.n, written)
    })
}

/// The extended-timestamp extra field (modification time only).
fn timestamp_extra(mtime: u32, out: &mut Vec<u8>) {
    out.extend_from_slice(&0x5455u16.to_le_bytes());
    out.extend_from_slice(&5u16.to_le_bytes());
    out.push(1);
    out.extend_from_slice(&mtime.to_le_bytes());
}

/// MS-DOS time and date (local time, which is UTC here; two-second resolution, 1980-2107).
fn dos_time(mtime: u32) -> (u16, u16) {
    let [y, mo, d, h, mi, s] = crate::list::civil(mtime as i64);
    let y = y.clamp(1980, 2107);
    let time = ((h << 11) | (mi << 5) | (s / 2)) as u16;
    let date = (((y - 1980) << 9) | (mo << 5) | d) as u16;
    (time, date)
}

/// The fields local and central headers share from "version needed" to the uncompressed size.
fn common(mtime: u32, crc: u32, csize: u32, usize: u32, out: &mut Vec<u8>) {
    let (time, date) = dos_time(mtime);
    for v in [45u16, 8, 8, time, date] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in [crc, csize, usize] {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// The local header of an entry named `name` whose deflated data follows, its sizes to come in
/// the data descriptor.
pub fn local_header(name: &[u8], mtime: u32) -> Vec<u8> {
    let mut h = LOCAL.to_vec();
    common(mtime, 0, u32::MAX, u32::MAX, &mut h);
    h.extend_from_slice(&(name.len() as u16).to_le_bytes());
    h.extend_from_slice(&29u16.to_le_bytes());
    h.extend_from_slice(name);
    h.extend_from_slice(&ZIP64.to_le_bytes());
    h.extend_from_slice(&16u16.to_le_bytes());
    h.extend_from_slice(&[0; 16]);
    timestamp_extra(mtime, &mut h);
    h
}

/// What follows an entry's data: its data descriptor, the central directory and the end
/// records. `at` is where the descriptor starts (the local header's length plus the data's).
/// `zip64` forces the zip64 records, which are otherwise written only when needed.
pub fn trailer(
    name: &[u8],
    mtime: u32,
    (crc, csize, usize): (u32, u64, u64),
    at: u64,
    zip64: bool,
) -> Vec<u8> {
    let mut t = DESCRIPTOR.to_vec();
    t.extend_from_slice(&crc.to_le_bytes());
    t.extend_from_slice(&csize.to_le_bytes());
    t.extend_from_slice(&usize.to_le_bytes());
    let cd_at = at + t.len() as u64;
    // Sizes that do not fit 32 bits go in a zip64 field, uncompressed first.
    let big = |v: u64| zip64 || v >= u32::MAX as u64;
    let small = |v: u64| if big(v) { u32::MAX } else { v as u32 };
    let mut extra = Vec::new();
    let wide: Vec<u64> = [usize, csize].into_iter().filter(|&v| big(v)).collect();
    if !wide.is_empty() {
        extra.extend_from_slice(&ZIP64.to_le_bytes());
        extra.extend_from_slice(&(8 * wide.len() as u16).to_le_bytes());
        wide.iter()
            .for_each(|v| extra.extend_from_slice(&v.to_le_bytes()));
    }
    timestamp_extra(mtime, &mut extra);
    t.extend_from_slice(b"PK\x01\x02");
    t.extend_from_slice(&(3u16 << 8 | 45).to_le_bytes()); // made by: Unix, zip 4.5
    common(mtime, crc, small(csize), small(usize), &mut t);
    for v in [name.len(), extra.len(), 0, 0, 0] {
        t.extend_from_slice(&(v as u16).to_le_bytes());
    }
    t.extend_from_slice(&(0o100644u32 << 16).to_le_bytes()); // a regular file, rw-r--r--
    t.extend_from_slice(&0u32.to_le_bytes()); // the local header is at 0
    t.extend_from_slice(name);
    t.extend_from_slice(&extra);
    let cd_len = at + t.len() as u64 - cd_at;
    let end_at = cd_at + cd_len;
    if big(cd_at) {
        t.extend_from_slice(b"PK\x06\x06");
        t.extend_from_slice(&44u64.to_le_bytes());
        t.extend_from_slice(&(3u16 << 8 | 45).to_le_bytes());
        t.extend_from_slice(&45u16.to_le_bytes());
        t.extend_from_slice(&[0; 8]); // this disk, the directory's disk
        for v in [1, 1, cd_len, cd_at] {
            t.extend_from_slice(&v.to_le_bytes());
        }
        t.extend_from_slice(b"PK\x06\x07");
        t.extend_from_slice(&0u32.to_le_bytes());
        t.extend_from_slice(&end_at.to_le_bytes());
        t.extend_from_slice(&1u32.to_le_bytes());
    }
    t.extend_from_slice(b"PK\x05\x06");
    t.extend_from_slice(&[0; 4]);
    t.extend_from_slice(&1u16.to_le_bytes());
    t.extend_from_slice(&1u16.to_le_bytes());
    t.extend_from_slice(&(cd_len as u32).to_le_bytes());
    t.extend_from_slice(&small(cd_at).to_le_bytes());
    t.extend_from_slice(&0u16.to_le_bytes());
    t
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

    /// Archives as `-K` writes them, with and without the zip64 records (forced here; they are
    /// needed from 4 GiB), read back by this reader and by Python's zipfile, which checks the
    /// central directory and the end records too.
    #[test]
    fn written_archives_read_back_here_and_in_python() {
        let data = b"zip me, zip me again; ".repeat(3000);
        for zip64 in [false, true] {
            let mut z = local_header(b"name.txt", 1_700_000_000);
            let body = hyperz_engine::deflate::compress(Format::Raw, &data, 6);
            z.extend_from_slice(&body);
            let sizes = (crc32(0, &data), body.len() as u64, data.len() as u64);
            let at = z.len() as u64;
            z.extend(trailer(b"name.txt", 1_700_000_000, sizes, at, zip64));
            let (out, r) = run(&z).unwrap();
            assert!(out == data && !r.more_entries && r.zip_method == Some(8));
            let path = std::env::temp_dir().join(format!("hz-zip-{}-{zip64}", std::process::id()));
            std::fs::write(&path, &z).unwrap();
            let py = "import sys, zipfile\n\
                      z = zipfile.ZipFile(sys.argv[1]); i = z.infolist()[0]\n\
                      assert z.testzip() is None and len(z.infolist()) == 1\n\
                      print(i.filename, i.date_time, i.file_size, i.compress_size)\n\
                      sys.stdout.flush(); sys.stdout.buffer.write(z.read(i))";
            let o = std::process::Command::new("python3")
                .args(["-c", py])
                .arg(&path)
                .output()
                .expect("python3");
            std::fs::remove_file(&path).unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let want = format!(
                "name.txt (2023, 11, 14, 22, 13, 20) {} {}\n",
                data.len(),
                body.len()
            );
            assert!(o.stdout.starts_with(want.as_bytes()), "zip64 {zip64}");
            assert!(o.stdout[want.len()..] == data[..]);
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
