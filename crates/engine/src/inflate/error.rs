//! The decoder's one error type: what was wrong, and at which input byte it was detected.
#![forbid(unsafe_code)]

use std::fmt;

/// What check failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Block type 3 (reserved).
    BadBlockType,
    /// A stored block's LEN is not the complement of NLEN.
    StoredLengthMismatch,
    /// A code-length set assigns more codes than its lengths allow.
    OversubscribedCodes,
    /// A code-length set leaves codes unused where RFC 1951 (as zlib reads it) forbids it.
    IncompleteCodes,
    /// HLIT > 286 or HDIST > 30 in a dynamic block header.
    TooManyCodes,
    /// A code-length repeat (code 16) with no previous length, or repeats past the end.
    BadCodeLengthRepeat,
    /// The literal/length code gives end-of-block no code.
    MissingEndOfBlock,
    /// A literal/length symbol 286-287, a distance symbol 30-31, or an unassigned codeword.
    InvalidSymbol,
    /// A distance reaches before the start of the output (or the window, or the dictionary).
    DistanceTooFar,
    /// The zlib header's check bits, method or window size are invalid.
    BadZlibHeader,
    /// The zlib stream needs a preset dictionary with this Adler-32.
    DictionaryRequired(u32),
    /// The dictionary given does not match the stream's DICTID.
    WrongDictionary,
    /// The gzip magic number or method is wrong.
    BadGzipHeader,
    /// The gzip header has reserved flag bits set.
    ReservedFlags,
    /// The gzip header CRC-16 (FHCRC) does not match.
    HeaderCrcMismatch,
    /// A gzip header field (name, comment) is longer than the decoder accepts.
    HeaderTooLong,
    /// The trailer's checksum (CRC-32 or Adler-32) does not match the data.
    ChecksumMismatch {
        /// The checksum stored in the stream.
        expected: u32,
        /// The checksum of the decoded data.
        actual: u32,
    },
    /// The gzip ISIZE does not match the decoded length modulo 2^32.
    LengthMismatch {
        /// ISIZE from the trailer.
        expected: u32,
        /// The decoded length modulo 2^32.
        actual: u32,
    },
    /// The input ended before the stream did.
    Truncated,
    /// Bytes follow the end of the stream (whole-buffer decoding, unless allowed).
    TrailingData,
    /// The output would exceed the configured limit.
    OutputLimitExceeded,
    /// The window size is outside 2^8..2^15 or smaller than the stream's.
    BadWindowSize,
}

/// A decoding failure: its kind and the input byte offset where it was detected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InflateError {
    /// What was wrong.
    pub kind: ErrorKind,
    /// Offset in the input (from the start of the whole input given to the decoder) at which
    /// the problem was detected.
    pub offset: u64,
}

impl InflateError {
    pub(crate) fn new(kind: ErrorKind, offset: u64) -> Self {
        InflateError { kind, offset }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::BadBlockType => write!(f, "invalid block type"),
            ErrorKind::StoredLengthMismatch => {
                write!(f, "stored block length does not match its complement")
            }
            ErrorKind::OversubscribedCodes => write!(f, "over-subscribed Huffman code lengths"),
            ErrorKind::IncompleteCodes => write!(f, "incomplete Huffman code lengths"),
            ErrorKind::TooManyCodes => write!(f, "too many length or distance codes"),
            ErrorKind::BadCodeLengthRepeat => write!(f, "invalid code-length repeat"),
            ErrorKind::MissingEndOfBlock => write!(f, "no code for end-of-block"),
            ErrorKind::InvalidSymbol => write!(f, "invalid literal/length or distance code"),
            ErrorKind::DistanceTooFar => write!(f, "distance too far back"),
            ErrorKind::BadZlibHeader => write!(f, "invalid zlib header"),
            ErrorKind::DictionaryRequired(id) => write!(f, "preset dictionary {id:08x} required"),
            ErrorKind::WrongDictionary => write!(f, "preset dictionary does not match"),
            ErrorKind::BadGzipHeader => write!(f, "not in gzip format"),
            ErrorKind::ReservedFlags => write!(f, "reserved gzip header flags set"),
            ErrorKind::HeaderCrcMismatch => write!(f, "gzip header CRC mismatch"),
            ErrorKind::HeaderTooLong => write!(f, "gzip header field too long"),
            ErrorKind::ChecksumMismatch { expected, actual } => {
                write!(
                    f,
                    "checksum mismatch (stored {expected:08x}, computed {actual:08x})"
                )
            }
            ErrorKind::LengthMismatch { expected, actual } => {
                write!(
                    f,
                    "length mismatch (stored {expected}, decoded {actual} mod 2^32)"
                )
            }
            ErrorKind::Truncated => write!(f, "unexpected end of input"),
            ErrorKind::TrailingData => write!(f, "trailing data after the end of the stream"),
            ErrorKind::OutputLimitExceeded => write!(f, "output size limit exceeded"),
            ErrorKind::BadWindowSize => write!(f, "invalid window size"),
        }
    }
}

impl fmt::Display for InflateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind, self.offset)
    }
}

impl std::error::Error for InflateError {}
