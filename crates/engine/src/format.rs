//! The three DEFLATE containers and the gzip header fields shared by encoder and decoder.
#![forbid(unsafe_code)]

/// Which wrapper surrounds the DEFLATE data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Bare RFC 1951 data, no header or trailer.
    Raw,
    /// RFC 1950: a two-byte header (optionally a preset-dictionary id) and an Adler-32 trailer.
    Zlib,
    /// RFC 1952: a header with optional fields and a CRC-32 + ISIZE trailer.
    Gzip,
}

/// Operating-system code written in a gzip header when the caller sets none (3 = Unix).
pub const GZIP_OS_UNIX: u8 = 3;
/// Operating-system code meaning "unknown".
pub const GZIP_OS_UNKNOWN: u8 = 255;

/// The fields of one gzip member header (RFC 1952 section 2.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GzipHeader {
    /// FTEXT: the data is probably ASCII text.
    pub text: bool,
    /// MTIME: modification time of the original file, seconds since the epoch (0 = none).
    pub mtime: u32,
    /// XFL: extra flags (2 = maximum compression, 4 = fastest).
    pub xfl: u8,
    /// OS: the file system on which compression took place.
    pub os: u8,
    /// FEXTRA: the raw extra field (subfields included), if present.
    pub extra: Option<Vec<u8>>,
    /// FNAME: the original file name without the terminating zero, if present.
    pub name: Option<Vec<u8>>,
    /// FCOMMENT: the comment without the terminating zero, if present.
    pub comment: Option<Vec<u8>>,
    /// FHCRC: whether a header CRC-16 is (or was) present.
    pub hcrc: bool,
}

impl Default for GzipHeader {
    fn default() -> Self {
        GzipHeader {
            text: false,
            mtime: 0,
            xfl: 0,
            os: GZIP_OS_UNIX,
            extra: None,
            name: None,
            comment: None,
            hcrc: false,
        }
    }
}
