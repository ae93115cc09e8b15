//! zlib (RFC 1950) and gzip (RFC 1952) headers and trailers around the raw DEFLATE stream.
#![forbid(unsafe_code)]

use crate::checksum::crc32;
use crate::format::GzipHeader;

/// zlib's FLEVEL hint for a level/strategy (0 fastest .. 3 maximum).
fn flevel(level: u32, huffman_or_rle: bool) -> u16 {
    if huffman_or_rle || level < 2 {
        0
    } else if level < 6 {
        1
    } else if level == 6 {
        2
    } else {
        3
    }
}

/// Appends the two-byte zlib header (and the dictionary id if `dict_id` is set).
pub fn zlib_header(
    out: &mut Vec<u8>,
    window_bits: u8,
    level: u32,
    huffman_or_rle: bool,
    dict_id: Option<u32>,
) {
    let cmf = ((window_bits as u16 - 8) << 4) | 8;
    let mut h = (cmf << 8) | (flevel(level, huffman_or_rle) << 6);
    if dict_id.is_some() {
        h |= 0x20;
    }
    h += 31 - h % 31;
    out.extend_from_slice(&h.to_be_bytes());
    if let Some(id) = dict_id {
        out.extend_from_slice(&id.to_be_bytes());
    }
}

/// The XFL byte zlib writes for a level.
pub fn gzip_xfl(level: u32, huffman_or_rle: bool) -> u8 {
    if level >= 9 {
        2
    } else if huffman_or_rle || level < 2 {
        4
    } else {
        0
    }
}

/// Appends a gzip member header with every field of `h`; `xfl` is used when `h.xfl` is 0.
pub fn gzip_header(out: &mut Vec<u8>, h: &GzipHeader, xfl: u8) {
    let start = out.len();
    let mut flg = 0u8;
    if h.text {
        flg |= 1;
    }
    if h.hcrc {
        flg |= 2;
    }
    if h.extra.is_some() {
        flg |= 4;
    }
    if h.name.is_some() {
        flg |= 8;
    }
    if h.comment.is_some() {
        flg |= 16;
    }
    out.extend_from_slice(&[0x1f, 0x8b, 8, flg]);
    out.extend_from_slice(&h.mtime.to_le_bytes());
    out.push(if h.xfl != 0 { h.xfl } else { xfl });
    out.push(h.os);
    if let Some(e) = &h.extra {
        let e = &e[..e.len().min(65535)];
        out.extend_from_slice(&(e.len() as u16).to_le_bytes());
        out.extend_from_slice(e);
    }
    for s in [&h.name, &h.comment].into_iter().flatten() {
        // A zero byte would end the field early; the field stops at the first one.
        let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
        out.extend_from_slice(&s[..end]);
        out.push(0);
    }
    if h.hcrc {
        let c = crc32(0, &out[start..]) as u16;
        out.extend_from_slice(&c.to_le_bytes());
    }
}

/// Length of the default gzip header.
pub const GZIP_MIN_HEADER: usize = 10;
/// Length of the gzip trailer.
pub const GZIP_TRAILER: usize = 8;
