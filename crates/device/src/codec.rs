//! The codec the engines run, behind a trait so the runtime does not depend on how DEFLATE is
//! implemented. [`StoreCodec`] is the store-raw path of the offload policy (RFC 1951 stored
//! blocks, which every inflater accepts); the engine codec binds `hyperz-engine`'s
//! `Compressor::compress_raw_window` and `Decompressor::decompress_member`.
use std::fmt;

pub use hyperz_engine::deflate::Strategy;
use hyperz_engine::Format;

use crate::container;

/// Largest payload of one stored block (RFC 1951 section 3.2.4: LEN is 16 bits).
const STORED_MAX: usize = 65535;

/// How a compression job compresses: the level (0-12) and zlib's strategy (pigz's -H and -U
/// are Huffman-only and RLE; the zlib drop-in passes the caller's). A bare level converts to
/// the default strategy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Settings {
    /// 0 (stored) ..= 12.
    pub level: u32,
    /// zlib strategy.
    pub strategy: Strategy,
}

impl Settings {
    /// `level` with `strategy`.
    pub fn new(level: u32, strategy: Strategy) -> Self {
        Settings { level, strategy }
    }
}

impl From<u32> for Settings {
    fn from(level: u32) -> Self {
        Settings::new(level, Strategy::Default)
    }
}

/// Why a stream could not be decoded: what went wrong and at which input byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// What is wrong.
    pub kind: DecodeErrorKind,
    /// Byte offset in the input where it was detected.
    pub offset: u64,
}

/// The kinds of [`DecodeError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// The input ended inside a header, block or trailer.
    Truncated,
    /// A header field is invalid (magic, method, flags).
    BadHeader,
    /// A block uses a construct this codec cannot decode or is malformed.
    BadBlock,
    /// The CRC-32 / Adler-32 / ISIZE trailer does not match the data.
    BadChecksum,
    /// An independent-block member's recorded sizes disagree with its contents.
    BadMemberSize,
    /// An engine failed while decoding.
    EngineFailed,
    /// A member would decode to more bytes than allowed (for independent members, their
    /// recorded size: the decompression-bomb guard).
    OutputLimit,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} at byte {}", self.kind, self.offset)
    }
}
impl std::error::Error for DecodeError {}

impl DecodeError {
    /// An error of `kind` at `offset`.
    pub fn at(kind: DecodeErrorKind, offset: u64) -> Self {
        DecodeError { kind, offset }
    }
    /// The same error shifted by `base` bytes (for a member decoded out of a larger stream).
    pub fn shifted(self, base: u64) -> Self {
        DecodeError {
            kind: self.kind,
            offset: self.offset + base,
        }
    }
}

/// What an engine runs. Implementations must be deterministic: the same arguments give the
/// same bytes on every engine, which is what makes parallel output independent of the engine
/// count.
pub trait Codec: Send + Sync + 'static {
    /// A short name for summaries.
    fn name(&self) -> &'static str;
    /// Appends raw DEFLATE for `buf[start..]` to `out`, using `buf[..start]` (at most 32 KiB)
    /// as preset history: every caller holds a block right after its dictionary, so the two
    /// are read in place. When `last` is false the output must end byte-aligned and not set
    /// BFINAL; when true it ends with a final block.
    fn compress_raw_window(
        &self,
        settings: Settings,
        buf: &[u8],
        start: usize,
        last: bool,
        out: &mut Vec<u8>,
    );
    /// Decodes one member of `format` at the start of `input` into `out`, checking its trailer,
    /// failing with [`DecodeErrorKind::OutputLimit`] rather than append more than `limit`
    /// bytes. Returns the number of input bytes consumed.
    fn decompress_member(
        &self,
        format: Format,
        input: &[u8],
        out: &mut Vec<u8>,
        limit: usize,
    ) -> Result<usize, DecodeError>;
    /// A compressor for one stream's flushed pieces that carries its state from one piece to
    /// the next (see [`PieceCompressor`]), or `None` if this codec has none: each piece is then
    /// a block job with its 32 KiB of history, as every block is.
    fn piece_compressor(&self, settings: Settings) -> Option<Box<dyn PieceCompressor>> {
        let _ = settings;
        None
    }
    /// Decodes one member of `format` at the start of `input` straight into `out`, failing
    /// with [`DecodeErrorKind::OutputLimit`] if it is longer. Returns the input bytes consumed
    /// and the bytes written, or `None` if this codec cannot decode into a slice (the caller
    /// then decodes into a buffer and copies).
    fn decompress_member_into(
        &self,
        format: Format,
        input: &[u8],
        out: &mut [u8],
    ) -> Option<Result<(usize, usize), DecodeError>> {
        let _ = (format, input, out);
        None
    }
}

/// Compresses the pieces a stream flushes one after another (a stream that sends a short
/// message and flushes, over and over), keeping its match finder between them: a block job
/// would hash its 32 KiB of history again for every piece. Deterministic like the codec: the
/// same calls give the same bytes.
pub trait PieceCompressor: Send {
    /// Starts over with `dict` (at most 32 KiB) as the history of the next piece.
    fn start(&mut self, dict: &[u8]);
    /// Appends raw DEFLATE for `piece`, which follows the dictionary and the pieces since
    /// [`start`](Self::start), ending byte-aligned with an empty stored block (zlib's sync
    /// flush) and without BFINAL.
    fn piece(&mut self, piece: &[u8], out: &mut Vec<u8>);
    /// An independent copy that continues from the same state.
    fn clone_box(&self) -> Box<dyn PieceCompressor>;
}

/// Appends `input` as RFC 1951 stored blocks (the last one with BFINAL when `last`); the output
/// starts and ends byte-aligned.
pub fn write_stored(input: &[u8], last: bool, out: &mut Vec<u8>) {
    if input.is_empty() {
        if last {
            out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
        }
        return;
    }
    let mut chunks = input.chunks(STORED_MAX).peekable();
    while let Some(c) = chunks.next() {
        let fin = last && chunks.peek().is_none();
        let len = c.len() as u16;
        out.push(fin as u8);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(c);
    }
}

/// The store-raw codec: compresses to stored blocks and decodes streams made only of stored
/// blocks (anything else is reported as [`DecodeErrorKind::BadBlock`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct StoreCodec;

impl Codec for StoreCodec {
    fn name(&self) -> &'static str {
        "store"
    }
    fn compress_raw_window(
        &self,
        _settings: Settings,
        buf: &[u8],
        start: usize,
        last: bool,
        out: &mut Vec<u8>,
    ) {
        write_stored(&buf[start..], last, out);
    }
    fn decompress_member(
        &self,
        format: Format,
        input: &[u8],
        out: &mut Vec<u8>,
        limit: usize,
    ) -> Result<usize, DecodeError> {
        let (hlen, _) = container::parse_header(format, input)?;
        let start = out.len();
        let mut pos = hlen;
        loop {
            let Some(h) = input.get(pos..pos + 5) else {
                return Err(DecodeError::at(
                    DecodeErrorKind::Truncated,
                    input.len() as u64,
                ));
            };
            if h[0] & 0b110 != 0 || h[0] >> 3 != 0 {
                return Err(DecodeError::at(DecodeErrorKind::BadBlock, pos as u64));
            }
            let len = u16::from_le_bytes([h[1], h[2]]);
            if len != !u16::from_le_bytes([h[3], h[4]]) {
                return Err(DecodeError::at(DecodeErrorKind::BadBlock, pos as u64 + 1));
            }
            let Some(data) = input.get(pos + 5..pos + 5 + len as usize) else {
                return Err(DecodeError::at(
                    DecodeErrorKind::Truncated,
                    input.len() as u64,
                ));
            };
            if out.len() - start + data.len() > limit {
                return Err(DecodeError::at(DecodeErrorKind::OutputLimit, pos as u64));
            }
            out.extend_from_slice(data);
            pos += 5 + len as usize;
            if h[0] & 1 == 1 {
                break;
            }
        }
        let tlen = container::check_trailer(format, &out[start..], &input[pos..])
            .map_err(|e| e.shifted(pos as u64))?;
        Ok(pos + tlen)
    }
}
