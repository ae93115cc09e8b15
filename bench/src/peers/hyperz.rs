//! hyperz's own engine (`hyperz_engine`), single-threaded, raw DEFLATE.
//!
//! This is the row every other peer is compared against. The parallel engine (many cores on
//! one stream, `hyperz-device`) gets its own peer here once it exists: add a `HyperzParallel`
//! with a thread count, register it in `peers::open` as `hyperz-mt`, and the harness, table and
//! chart pick it up unchanged.
#![forbid(unsafe_code)]

use super::{Peer, Unavailable};

/// The hyperz engine on the caller's thread.
pub struct Hyperz;

impl Hyperz {
    /// Available once the engine exports `deflate::compress` and `inflate::decompress`.
    pub fn open() -> Result<Hyperz, Unavailable> {
        Err(Unavailable(
            "hyperz engine: deflate::compress / inflate::decompress are not implemented yet".into(),
        ))
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
    fn compress(&mut self, _level: u32, _input: &[u8], _out: &mut Vec<u8>) -> Result<(), String> {
        Err("not implemented".into())
    }
    fn decompress(
        &mut self,
        _input: &[u8],
        _out: &mut Vec<u8>,
        _expected_len: usize,
    ) -> Result<(), String> {
        Err("not implemented".into())
    }
}
