//! The hyperz engine as the device's codec. Each engine thread keeps its own
//! `hyperz_engine::deflate::Compressor` per level in thread-local state (the engine state of
//! seed 000's NXU: allocated once, reused for every job that engine runs), so a block costs no
//! match-finder allocation.
//!
//! Decoding uses `hyperz_engine::inflate::Decompressor::decompress_member` (or
//! `decompress_member_into` for a member's slice of a shared output), one decoder per format per
//! engine thread; engine errors map onto [`DecodeErrorKind`] with their offsets.
use std::cell::RefCell;

use hyperz_engine::deflate::{Compressor, DeflateError, Deflater, Flush, Params};
use hyperz_engine::inflate::{Decompressor, ErrorKind, InflateError};
use hyperz_engine::Format;

use crate::codec::{Codec, DecodeError, DecodeErrorKind, PieceCompressor, Settings};

thread_local! {
    /// This thread's compressors, one per level and strategy used.
    static COMPRESSORS: RefCell<Vec<(Settings, Compressor)>> = const { RefCell::new(Vec::new()) };
    /// This thread's single-member decoders for raw, zlib and gzip.
    static DECOMPRESSORS: RefCell<[Option<Decompressor>; 3]> = const { RefCell::new([None, None, None]) };
}

pub(crate) fn map_error(e: InflateError) -> DecodeError {
    let kind = match e.kind {
        ErrorKind::Truncated => DecodeErrorKind::Truncated,
        ErrorKind::OutputLimitExceeded => DecodeErrorKind::OutputLimit,
        ErrorKind::BadZlibHeader
        | ErrorKind::BadGzipHeader
        | ErrorKind::ReservedFlags
        | ErrorKind::HeaderCrcMismatch
        | ErrorKind::HeaderTooLong
        | ErrorKind::DictionaryRequired(_)
        | ErrorKind::WrongDictionary
        | ErrorKind::BadWindowSize => DecodeErrorKind::BadHeader,
        ErrorKind::ChecksumMismatch { .. } | ErrorKind::LengthMismatch { .. } => {
            DecodeErrorKind::BadChecksum
        }
        _ => DecodeErrorKind::BadBlock,
    };
    DecodeError::at(kind, e.offset)
}

/// The engine's streaming compressor, sync-flushed after each piece: after a flush it goes on
/// from its match finder's state (the engine's `Deflater` carries it between flushed
/// segments).
#[derive(Clone)]
struct EnginePieces(Deflater);

impl PieceCompressor for EnginePieces {
    fn start(&mut self, dict: &[u8]) {
        self.0.reset();
        if !dict.is_empty() {
            self.0
                .set_dictionary(dict)
                .expect("a raw stream takes a dictionary before its input");
        }
    }

    fn piece(&mut self, piece: &[u8], out: &mut Vec<u8>) {
        let mut input = piece;
        let mut buf = [0u8; 16 << 10];
        loop {
            match self.0.deflate(input, &mut buf, Flush::Sync) {
                Ok(st) => {
                    out.extend_from_slice(&buf[..st.produced]);
                    input = &input[st.consumed..];
                    if input.is_empty() && st.produced < buf.len() {
                        break;
                    }
                }
                // The flush ended exactly at the end of the buffer: nothing is left.
                Err(DeflateError::BufferError) if input.is_empty() => break,
                Err(e) => panic!("a raw stream flushes: {e}"),
            }
        }
    }

    fn clone_box(&self) -> Box<dyn PieceCompressor> {
        Box::new(self.clone())
    }
}

/// `hyperz-engine`'s DEFLATE behind the [`Codec`] trait.
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineCodec;

impl Codec for EngineCodec {
    fn name(&self) -> &'static str {
        "hyperz-engine"
    }

    fn compress_raw_window(
        &self,
        settings: Settings,
        buf: &[u8],
        start: usize,
        last: bool,
        out: &mut Vec<u8>,
    ) {
        with_compressor(settings, |c| c.compress_raw_window(buf, start, last, out));
    }

    fn piece_compressor(&self, settings: Settings) -> Option<Box<dyn PieceCompressor>> {
        let p = Params {
            level: settings.level,
            strategy: settings.strategy,
            ..Params::default()
        };
        let d = Deflater::new(Format::Raw, p).ok()?;
        Some(Box::new(EnginePieces(d)))
    }

    fn decompress_member(
        &self,
        format: Format,
        input: &[u8],
        out: &mut Vec<u8>,
        limit: usize,
    ) -> Result<usize, DecodeError> {
        with_decoder(format, |dec| {
            // One byte of headroom: the engine reports a full output buffer before it sees the
            // end of a block that fills it exactly, so the exact limit is checked here.
            dec.set_limit(limit.saturating_add(1));
            let start = out.len();
            let r = dec.decompress_member(input, out);
            let consumed = r.map(|info| info.consumed).map_err(map_error)?;
            if out.len() - start > limit {
                return Err(DecodeError::at(
                    DecodeErrorKind::OutputLimit,
                    consumed as u64,
                ));
            }
            Ok(consumed)
        })
    }

    fn decompress_member_into(
        &self,
        format: Format,
        input: &[u8],
        out: &mut [u8],
    ) -> Option<Result<(usize, usize), DecodeError>> {
        Some(with_decoder(format, |dec| {
            dec.decompress_member_into(input, out)
                .map(|(info, n)| (info.consumed, n))
                .map_err(map_error)
        }))
    }
}

/// Runs `f` with this thread's single-member decoder for `format`.
fn with_decoder<R>(format: Format, f: impl FnOnce(&mut Decompressor) -> R) -> R {
    let slot = match format {
        Format::Raw => 0,
        Format::Zlib => 1,
        Format::Gzip => 2,
    };
    DECOMPRESSORS.with(|d| {
        let mut d = d.borrow_mut();
        let mut dec = d[slot].take().unwrap_or_else(|| {
            Decompressor::new(format)
                .multi_member(false)
                .allow_trailing(true)
        });
        let r = f(&mut dec);
        d[slot] = Some(dec);
        r
    })
}

/// Runs `f` with this thread's compressor for `level` (made on first use).
fn with_compressor(settings: Settings, f: impl FnOnce(&mut Compressor)) {
    let s = Settings::new(settings.level.min(12), settings.strategy);
    COMPRESSORS.with(|c| {
        let mut c = c.borrow_mut();
        let i = match c.iter().position(|(k, _)| *k == s) {
            Some(i) => i,
            None => {
                c.push((s, Compressor::with_strategy(s.level, s.strategy)));
                c.len() - 1
            }
        };
        f(&mut c[i].1);
    })
}
