//! hyperz's own engine (`hyperz_engine`), single-threaded, raw DEFLATE.
//!
//! This is the row every other peer is compared against. The parallel engine (many cores on
//! one stream, `hyperz-device`) gets its own peer here: add a `HyperzParallel` with a thread
//! count, register it in `peers::open` as `hyperz-mt`, and the harness, table and chart pick it
//! up unchanged.
#![forbid(unsafe_code)]

use super::{Peer, Unavailable};
use hyperz_engine::deflate::Compressor;
use hyperz_engine::inflate::Decompressor;
use hyperz_engine::Format;

/// The hyperz engine on the caller's thread; compressors are kept per level so their match
/// finder allocations are reused between files, as a long-running user would.
pub struct Hyperz {
    compressors: Vec<Option<Compressor>>,
    decompressor: Decompressor,
}

impl Hyperz {
    /// The engine is always available.
    pub fn open() -> Result<Hyperz, Unavailable> {
        Ok(Hyperz {
            compressors: (0..=12).map(|_| None).collect(),
            decompressor: Decompressor::new(Format::Raw),
        })
    }
}

impl Peer for Hyperz {
    fn name(&self) -> &'static str {
        "hyperz"
    }
    fn version(&self) -> String {
        format!("hyperz-engine {}", env!("CARGO_PKG_VERSION"))
    }
    fn levels(&self) -> Vec<u32> {
        (1..=12).collect()
    }
    fn compress(&mut self, level: u32, input: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        let slot = self
            .compressors
            .get_mut(level as usize)
            .ok_or("level out of range")?;
        let c = slot.get_or_insert_with(|| Compressor::new(level));
        out.clear();
        c.compress(Format::Raw, input, out);
        Ok(())
    }
    fn decompress(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        expected_len: usize,
    ) -> Result<(), String> {
        // Like the C peers, which are handed a buffer of the known size: decode into the
        // caller's buffer. It is zeroed once (safe code writes only initialized memory) and
        // then reused, as the other peers' buffers are; more output than expected is an error.
        if out.len() != expected_len {
            out.clear();
            out.resize(expected_len, 0);
        }
        let (_, n) = self
            .decompressor
            .decompress_member_into(input, out)
            .map_err(|e| e.to_string())?;
        out.truncate(n);
        Ok(())
    }
}
