//! The hyperz engine as the device's codec. Each engine thread keeps its own
//! `hyperz_engine::deflate::Compressor` per level in thread-local state (the engine state of
//! seed 000's NXU: allocated once, reused for every job that engine runs), so a block costs no
//! match-finder allocation.
//!
//! Decoding: `hyperz_engine::inflate` does not exist yet; until it does, members are decoded by
//! the store-raw decoder, which accepts only stored blocks and reports any other block as
//! [`DecodeErrorKind::BadBlock`](crate::DecodeErrorKind::BadBlock). That is why
//! [`StoreCodec`](crate::StoreCodec) is still the device default: switching the default to this
//! codec is one line in `device.rs` once `Decompressor::decompress_member` lands.
use std::cell::RefCell;

use hyperz_engine::deflate::Compressor;
use hyperz_engine::Format;

use crate::codec::{Codec, DecodeError, StoreCodec};

thread_local! {
    /// This thread's compressors, one per level used (levels are 0..=12).
    static COMPRESSORS: RefCell<Vec<(u32, Compressor)>> = const { RefCell::new(Vec::new()) };
}

/// `hyperz-engine`'s DEFLATE behind the [`Codec`] trait.
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineCodec;

impl Codec for EngineCodec {
    fn name(&self) -> &'static str {
        "hyperz-engine"
    }

    fn compress_raw_chunk(
        &self,
        level: u32,
        dict: &[u8],
        input: &[u8],
        last: bool,
        out: &mut Vec<u8>,
    ) {
        let level = level.min(12);
        COMPRESSORS.with(|c| {
            let mut c = c.borrow_mut();
            let i = match c.iter().position(|(l, _)| *l == level) {
                Some(i) => i,
                None => {
                    c.push((level, Compressor::new(level)));
                    c.len() - 1
                }
            };
            c[i].1.compress_raw_chunk(dict, input, last, out);
        })
    }

    fn decompress_member(
        &self,
        format: Format,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<usize, DecodeError> {
        StoreCodec.decompress_member(format, input, out)
    }
}
