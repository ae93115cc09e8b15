//! CRC-32 (gzip) and Adler-32 (zlib) checksums, and their combine functions.
//!
//! Every function takes the running value and returns the updated one, zlib-style: start CRC-32
//! at 0 and Adler-32 at 1. The combine functions give the checksum of `A || B` from the checksums
//! of `A` and `B` and the length of `B`, which parallel compression needs to stitch blocks.
//!
//! The SIMD kernels are chosen at run time; the portable code is the reference they are tested
//! against (`tests.rs`).

mod adler32;
mod crc32;
#[cfg(test)]
mod tests;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use adler32::{adler32, adler32_combine};
pub use crc32::{crc32, crc32_combine, crc32_combine_gen, crc32_combine_op, CRC32_TABLE};
