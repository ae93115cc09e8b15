//! # hyperz-engine
//!
//! The DEFLATE engine: the software counterpart of the NXU compress and uncompress macros
//! (seed 000, sections IV-VI). It owns
//!
//! - [`inflate`]: RFC 1951 decoding with the raw, zlib (RFC 1950) and gzip (RFC 1952) containers,
//!   as a whole-buffer fast path and as a resumable streaming decoder;
//! - [`deflate`]: RFC 1951 encoding, levels 0-12, with the same containers and zlib's flush modes;
//! - [`checksum`]: CRC-32 and Adler-32 with run-time SIMD selection and combine functions;
//! - [`format`](mod@format): the container types shared by both directions;
//! - [`mem`]: the huge-page hint for large output buffers.
//!
//! The engine runs on the caller's thread. It must not spawn threads, do I/O, read the
//! environment or allocate inside its hot loops: scheduling, queues and policy belong to the
//! device runtime (`hyperz-device`), and the C ABI belongs to `hyperz-zlib`. `unsafe` is allowed
//! only in the bit I/O, the SIMD kernels, the match-copy primitives and the memory hint, each
//! block with a `// SAFETY:` comment; algorithm modules start with `#![forbid(unsafe_code)]`.
#![deny(missing_docs)]

mod arch;
pub mod checksum;
pub mod deflate;
pub mod format;
pub mod inflate;
mod lanes;
pub mod mem;

pub use format::{Format, GzipHeader};
