//! Parsing of the zlib (RFC 1950) and gzip (RFC 1952) headers and trailers.
//!
//! Header parsers take the bytes seen so far and answer "need more", "invalid", or the parsed
//! header with its length, so the whole-buffer and streaming decoders share them.
#![forbid(unsafe_code)]

use super::error::ErrorKind;
use crate::checksum::crc32;
use crate::format::GzipHeader;

/// Largest FNAME or FCOMMENT accepted, bounding the memory a hostile header can claim.
pub const MAX_FIELD: usize = 1 << 16;

/// A parsed header.
#[derive(Debug)]
pub enum Header {
    /// zlib: the window bits it declares and the preset-dictionary id, if FDICT.
    Zlib {
        /// log2 of the window size (8..=15).
        window_bits: u8,
        /// DICTID when FDICT is set.
        dict_id: Option<u32>,
    },
    /// gzip: the member's header fields.
    Gzip(GzipHeader),
}

/// Parses a zlib header from `b`. `Ok(None)`: more bytes needed.
pub fn parse_zlib(b: &[u8]) -> Result<Option<(Header, usize)>, (ErrorKind, usize)> {
    if b.len() < 2 {
        return Ok(None);
    }
    let (cmf, flg) = (b[0], b[1]);
    if cmf & 0x0f != 8 || (cmf >> 4) > 7 || !((cmf as u16) << 8 | flg as u16).is_multiple_of(31) {
        return Err((ErrorKind::BadZlibHeader, 0));
    }
    let window_bits = (cmf >> 4) + 8;
    if flg & 0x20 != 0 {
        if b.len() < 6 {
            return Ok(None);
        }
        let id = u32::from_be_bytes([b[2], b[3], b[4], b[5]]);
        return Ok(Some((
            Header::Zlib {
                window_bits,
                dict_id: Some(id),
            },
            6,
        )));
    }
    Ok(Some((
        Header::Zlib {
            window_bits,
            dict_id: None,
        },
        2,
    )))
}

/// Parses a gzip member header from `b`. `Ok(None)`: more bytes needed. Errors carry the
/// offset within `b`.
///
/// The first four bytes are judged in pairs, as zlib reads them: the magic once both of its
/// bytes are there, the method and the flags once both of those are. So a member cut short
/// right after a bad method byte is truncated, not invalid, and where the input ends decides
/// between those two as it does for zlib (gzread's Z_BUF_ERROR, which still returns the data
/// before it, against Z_DATA_ERROR).
pub fn parse_gzip(b: &[u8]) -> Result<Option<(Header, usize)>, (ErrorKind, usize)> {
    if b.len() >= 2 {
        if b[0] != 0x1f {
            return Err((ErrorKind::BadGzipHeader, 0));
        }
        if b[1] != 0x8b {
            return Err((ErrorKind::BadGzipHeader, 1));
        }
    }
    if b.len() >= 4 {
        if b[2] != 8 {
            return Err((ErrorKind::BadGzipHeader, 2));
        }
        if b[3] & 0xe0 != 0 {
            return Err((ErrorKind::ReservedFlags, 3));
        }
    }
    if b.len() < 10 {
        return Ok(None);
    }
    let flg = b[3];
    let mut h = GzipHeader {
        text: flg & 1 != 0,
        mtime: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        xfl: b[8],
        os: b[9],
        extra: None,
        name: None,
        comment: None,
        hcrc: flg & 2 != 0,
    };
    let mut pos = 10;
    if flg & 4 != 0 {
        if b.len() < pos + 2 {
            return Ok(None);
        }
        let xlen = u16::from_le_bytes([b[pos], b[pos + 1]]) as usize;
        pos += 2;
        if b.len() < pos + xlen {
            return Ok(None);
        }
        h.extra = Some(b[pos..pos + xlen].to_vec());
        pos += xlen;
    }
    for (bit, slot) in [(8u8, 0), (16u8, 1)] {
        if flg & bit != 0 {
            let rest = &b[pos..];
            match rest.iter().take(MAX_FIELD + 1).position(|&c| c == 0) {
                Some(end) => {
                    let field = Some(rest[..end].to_vec());
                    if slot == 0 {
                        h.name = field;
                    } else {
                        h.comment = field;
                    }
                    pos += end + 1;
                }
                None if rest.len() > MAX_FIELD => {
                    return Err((ErrorKind::HeaderTooLong, pos + MAX_FIELD))
                }
                None => return Ok(None),
            }
        }
    }
    if flg & 2 != 0 {
        if b.len() < pos + 2 {
            return Ok(None);
        }
        let stored = u16::from_le_bytes([b[pos], b[pos + 1]]);
        if crc32(0, &b[..pos]) as u16 != stored {
            return Err((ErrorKind::HeaderCrcMismatch, pos));
        }
        pos += 2;
    }
    Ok(Some((Header::Gzip(h), pos)))
}

/// Checks a zlib trailer (big-endian Adler-32).
pub fn check_zlib_trailer(t: &[u8; 4], adler: u32) -> Result<(), ErrorKind> {
    let expected = u32::from_be_bytes(*t);
    if expected != adler {
        return Err(ErrorKind::ChecksumMismatch {
            expected,
            actual: adler,
        });
    }
    Ok(())
}

/// Checks a gzip trailer's first field, the CRC-32 of the member's data (little-endian). It is
/// checked as soon as its four bytes are there, as zlib does: a member cut short inside ISIZE
/// whose CRC is already wrong is reported as a checksum mismatch, not as truncated.
pub fn check_gzip_crc(t: [u8; 4], crc: u32) -> Result<(), ErrorKind> {
    let expected = u32::from_le_bytes(t);
    if expected != crc {
        return Err(ErrorKind::ChecksumMismatch {
            expected,
            actual: crc,
        });
    }
    Ok(())
}

/// Checks a gzip trailer's second field, ISIZE: the member's length mod 2^32 (little-endian).
pub fn check_gzip_isize(t: [u8; 4], len: u64) -> Result<(), ErrorKind> {
    let isize = u32::from_le_bytes(t);
    if isize != len as u32 {
        return Err(ErrorKind::LengthMismatch {
            expected: isize,
            actual: len as u32,
        });
    }
    Ok(())
}
