//! Container framing around raw DEFLATE chunks: zlib and gzip headers and trailers, and the
//! independent-block gzip member with its size subfield.
//!
//! # The `HZ` subfield
//!
//! In independent-block mode each block is a complete gzip member whose header sets FEXTRA and
//! carries one subfield (RFC 1952 section 2.3.1.1): `SI1 = 'H'`, `SI2 = 'Z'`, `LEN = 8`, then two
//! little-endian u32: the member's total size in bytes (header, DEFLATE data and trailer) and its
//! uncompressed size. A reader can therefore find every member boundary from the headers alone,
//! decode members in parallel and seek to any uncompressed offset; any gzip reader sees
//! ordinary concatenated members. Member headers are exactly [`HZ_HEADER_LEN`] bytes.
use hyperz_engine::checksum::{adler32, crc32};
use hyperz_engine::format::GZIP_OS_UNIX;
use hyperz_engine::Format;

use crate::codec::{DecodeError, DecodeErrorKind};

/// The subfield id of the member-size subfield.
pub const HZ_SUBFIELD_ID: [u8; 2] = *b"HZ";
/// Length of an independent-block member header: 10 fixed bytes, XLEN, and a 12-byte extra field.
pub const HZ_HEADER_LEN: usize = 10 + 2 + 4 + 8;
/// Length of a gzip trailer (CRC-32, ISIZE).
pub const GZIP_TRAILER_LEN: usize = 8;

/// The sizes recorded in an `HZ` subfield.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberSizes {
    /// Total member size in bytes, header to trailer.
    pub member_len: u32,
    /// Uncompressed size of the member.
    pub raw_len: u32,
}

/// The initial value of the running check of `format` (CRC-32 0, Adler-32 1, raw 0).
pub fn check_init(format: Format) -> u32 {
    if format == Format::Zlib {
        1
    } else {
        0
    }
}

/// Updates the running check of `format` with `data`.
pub fn check_update(format: Format, check: u32, data: &[u8]) -> u32 {
    match format {
        Format::Raw => 0,
        Format::Zlib => adler32(check, data),
        Format::Gzip => crc32(check, data),
    }
}

/// Combines checks of `A` and `B` (`B` of `len_b` bytes) into the check of `A || B`.
pub fn check_combine(format: Format, a: u32, b: u32, len_b: u64) -> u32 {
    use hyperz_engine::checksum::{adler32_combine, crc32_combine};
    match format {
        Format::Raw => 0,
        Format::Zlib => adler32_combine(a, b, len_b),
        Format::Gzip => crc32_combine(a, b, len_b),
    }
}

fn gzip_xfl(level: u32) -> u8 {
    match level {
        0 | 1 => 4,
        9.. => 2,
        _ => 0,
    }
}

/// Appends the header of `format` for compression `level` (nothing for raw).
pub fn write_header(format: Format, level: u32, out: &mut Vec<u8>) {
    match format {
        Format::Raw => {}
        Format::Zlib => {
            let cmf = 0x78u8; // deflate, 32 KiB window
            let flevel: u8 = match level {
                0 | 1 => 0,
                2..=5 => 1,
                6 => 2,
                _ => 3,
            };
            let mut flg = flevel << 6;
            flg += (31 - ((cmf as u16 * 256 + flg as u16) % 31) as u8) % 31;
            out.extend_from_slice(&[cmf, flg]);
        }
        Format::Gzip => {
            out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, gzip_xfl(level), GZIP_OS_UNIX])
        }
    }
}

/// Appends an independent-block member header recording `sizes`.
pub fn write_hz_header(level: u32, sizes: MemberSizes, out: &mut Vec<u8>) {
    out.extend_from_slice(&[
        0x1f,
        0x8b,
        8,
        4,
        0,
        0,
        0,
        0,
        gzip_xfl(level),
        GZIP_OS_UNIX,
        12,
        0,
    ]);
    out.extend_from_slice(&HZ_SUBFIELD_ID);
    out.extend_from_slice(&8u16.to_le_bytes());
    out.extend_from_slice(&sizes.member_len.to_le_bytes());
    out.extend_from_slice(&sizes.raw_len.to_le_bytes());
}

/// Rewrites the member length recorded in the header at the start of `member` (the subfield's
/// first size, eight bytes before the header's end).
pub fn set_member_len(member: &mut [u8], member_len: u32) {
    member[HZ_HEADER_LEN - 8..HZ_HEADER_LEN - 4].copy_from_slice(&member_len.to_le_bytes());
}

/// Appends the trailer of `format` for data with running check `check` and length `len`.
pub fn write_trailer(format: Format, check: u32, len: u64, out: &mut Vec<u8>) {
    match format {
        Format::Raw => {}
        Format::Zlib => out.extend_from_slice(&check.to_be_bytes()),
        Format::Gzip => {
            out.extend_from_slice(&check.to_le_bytes());
            out.extend_from_slice(&(len as u32).to_le_bytes());
        }
    }
}

fn need(input: &[u8], n: usize) -> Result<(), DecodeError> {
    if input.len() < n {
        Err(DecodeError::at(
            DecodeErrorKind::Truncated,
            input.len() as u64,
        ))
    } else {
        Ok(())
    }
}

/// Parses the header of `format` at the start of `input`: returns its length and, for a gzip
/// member carrying an `HZ` subfield, the recorded sizes.
pub fn parse_header(
    format: Format,
    input: &[u8],
) -> Result<(usize, Option<MemberSizes>), DecodeError> {
    let bad = |o: usize| Err(DecodeError::at(DecodeErrorKind::BadHeader, o as u64));
    match format {
        Format::Raw => Ok((0, None)),
        Format::Zlib => {
            need(input, 2)?;
            let (cmf, flg) = (input[0], input[1]);
            if cmf & 0x0f != 8
                || cmf >> 4 > 7
                || !(cmf as u16 * 256 + flg as u16).is_multiple_of(31)
            {
                return bad(0);
            }
            if flg & 0x20 != 0 {
                return bad(1); // preset dictionaries are not used by parallel streams
            }
            Ok((2, None))
        }
        Format::Gzip => {
            need(input, 10)?;
            if input[0] != 0x1f || input[1] != 0x8b {
                return bad(0);
            }
            if input[2] != 8 {
                return bad(2);
            }
            let flags = input[3];
            if flags & 0xe0 != 0 {
                return bad(3);
            }
            let mut pos = 10;
            let mut sizes = None;
            if flags & 4 != 0 {
                need(input, pos + 2)?;
                let xlen = u16::from_le_bytes([input[pos], input[pos + 1]]) as usize;
                pos += 2;
                need(input, pos + xlen)?;
                let extra = &input[pos..pos + xlen];
                let mut i = 0;
                while i + 4 <= extra.len() {
                    let len = u16::from_le_bytes([extra[i + 2], extra[i + 3]]) as usize;
                    if i + 4 + len > extra.len() {
                        return bad(pos + i + 2);
                    }
                    if extra[i..i + 2] == HZ_SUBFIELD_ID && len == 8 {
                        let f = &extra[i + 4..i + 12];
                        sizes = Some(MemberSizes {
                            member_len: u32::from_le_bytes([f[0], f[1], f[2], f[3]]),
                            raw_len: u32::from_le_bytes([f[4], f[5], f[6], f[7]]),
                        });
                    }
                    i += 4 + len;
                }
                pos += xlen;
            }
            for bit in [8u8, 16] {
                if flags & bit != 0 {
                    match input[pos.min(input.len())..].iter().position(|&b| b == 0) {
                        Some(z) => pos += z + 1,
                        None => {
                            return Err(DecodeError::at(
                                DecodeErrorKind::Truncated,
                                input.len() as u64,
                            ))
                        }
                    }
                }
            }
            if flags & 2 != 0 {
                need(input, pos + 2)?;
                let want = crc32(0, &input[..pos]) as u16;
                if u16::from_le_bytes([input[pos], input[pos + 1]]) != want {
                    return bad(pos);
                }
                pos += 2;
            }
            Ok((pos, sizes))
        }
    }
}

/// Checks the trailer of `format` at the start of `trailer` against the decoded `data`;
/// returns the trailer length. Offsets are relative to the start of `trailer`.
pub fn check_trailer(format: Format, data: &[u8], trailer: &[u8]) -> Result<usize, DecodeError> {
    let check = check_update(format, check_init(format), data);
    match format {
        Format::Raw => Ok(0),
        Format::Zlib => {
            need(trailer, 4)?;
            if u32::from_be_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]) != check {
                return Err(DecodeError::at(DecodeErrorKind::BadChecksum, 0));
            }
            Ok(4)
        }
        Format::Gzip => {
            need(trailer, 8)?;
            let crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
            let isize = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
            if crc != check {
                return Err(DecodeError::at(DecodeErrorKind::BadChecksum, 0));
            }
            if isize != data.len() as u32 {
                return Err(DecodeError::at(DecodeErrorKind::BadChecksum, 4));
            }
            Ok(8)
        }
    }
}
