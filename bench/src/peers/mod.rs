//! The codecs under test, each behind one [`Peer`] trait so the harness times them identically.
//!
//! Every peer works on raw DEFLATE (RFC 1951, no container) so that ratios and speeds compare the
//! same work: no header parsing, no checksum. Each adapter is the thinnest one-shot wrapper its
//! library offers (whole input in, whole output out), the way libdeflate is normally used, so the
//! numbers measure the codec rather than buffer management.
//!
//! Libraries that may be missing on the machine (the system zlib and ISA-L, loaded with `dlopen`)
//! are opened at run time; a missing one yields [`Unavailable`] with a message instead of a crash.

pub mod hyperz;
pub mod isal;
pub mod libdeflate;
pub mod zlib;
pub mod zlibng;

use std::fmt;

/// Names of every peer, in the order the table prints them; `hyperz` first because the other
/// rows are expressed relative to it.
pub const ALL: &[&str] = &["hyperz", "zlib", "zlib-ng", "libdeflate", "isal"];

/// One DEFLATE implementation under test.
pub trait Peer {
    /// Short name used in tables, CSV and the chart (`zlib`, `isal`, ...).
    fn name(&self) -> &'static str;
    /// Library version or origin, for the report header.
    fn version(&self) -> String;
    /// Compression levels the peer accepts, ascending.
    fn levels(&self) -> Vec<u32>;
    /// Compresses `input` as raw DEFLATE at `level`, replacing the contents of `out`.
    fn compress(&mut self, level: u32, input: &[u8], out: &mut Vec<u8>) -> Result<(), String>;
    /// Decompresses the raw DEFLATE stream `input`, replacing the contents of `out`;
    /// `expected_len` is the size of the original data (all one-shot decoders need it).
    fn decompress(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        expected_len: usize,
    ) -> Result<(), String>;
}

/// Why a peer could not be opened (its shared library is not installed, say).
#[derive(Debug, Clone)]
pub struct Unavailable(pub String);

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Opens the peer called `name` (one of [`ALL`]).
pub fn open(name: &str) -> Result<Box<dyn Peer>, Unavailable> {
    match name {
        "hyperz" => hyperz::Hyperz::open().map(|p| Box::new(p) as Box<dyn Peer>),
        "zlib" => zlib::SystemZlib::open().map(|p| Box::new(p) as Box<dyn Peer>),
        "zlib-ng" => Ok(Box::new(zlibng::ZlibNg::new())),
        "libdeflate" => Ok(Box::new(libdeflate::Libdeflate::new())),
        "isal" => isal::Isal::open().map(|p| Box::new(p) as Box<dyn Peer>),
        other => Err(Unavailable(format!(
            "unknown peer `{other}` (known: {})",
            ALL.join(", ")
        ))),
    }
}

/// Worst-case raw DEFLATE size for `n` input bytes with stored blocks (5 bytes per 64 KiB
/// block) plus slack for a final partial block; used where a library offers no bound of its own.
pub fn stored_bound(n: usize) -> usize {
    n + 5 * (n / 65535 + 1) + 64
}

#[cfg(test)]
pub(crate) mod testutil {
    use super::Peer;

    /// Text-like and binary-like data with repeats at many distances: exercises matches,
    /// literals and (at 300 KiB) several blocks.
    pub fn sample() -> Vec<u8> {
        let mut v = Vec::new();
        let mut x: u32 = 12345;
        while v.len() < 300_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let word = ["alpha ", "beta ", "gamma ", "delta\n", "epsilon "][(x >> 16) as usize % 5];
            v.extend_from_slice(word.as_bytes());
            if x.is_multiple_of(7) {
                v.push((x >> 8) as u8);
            }
        }
        v
    }

    /// Compresses and decompresses `sample()` (and an empty and a tiny input) at every level.
    pub fn round_trip(p: &mut dyn Peer) {
        let data = sample();
        for input in [&data[..], b"", b"a"] {
            for level in p.levels() {
                let mut c = Vec::new();
                let mut d = Vec::new();
                p.compress(level, input, &mut c).unwrap();
                if input.len() > 1000 {
                    assert!(
                        c.len() < input.len(),
                        "{} level {level} did not compress",
                        p.name()
                    );
                }
                p.decompress(&c, &mut d, input.len()).unwrap();
                assert!(
                    d == input,
                    "{} level {level}: round trip mismatch",
                    p.name()
                );
            }
        }
    }
}
