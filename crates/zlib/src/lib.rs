//! # hyperz-zlib
//!
//! `libz.so.1`: the zlib C ABI, so unmodified programs use hyperz through `LD_PRELOAD` or by
//! installing this library in place of the system zlib — the counterpart of IBM's libnxz, the
//! GenWQE zlib library and zlib with DFLTCC (seeds 000 and 001).
//!
//! It owns the `extern "C"` functions, the `z_stream` layout and zlib's exact return codes and
//! flush semantics. It must not implement DEFLATE or scheduling itself: compression and
//! decompression go to `hyperz-engine` directly or through `hyperz-device`. No panic may unwind
//! across the ABI: every entry point catches panics and returns a zlib error code.
//!
//! Functions that zlib versions (`ZLIB_1.2.0` and later) are exported as `hz_<name>` and renamed
//! by the generated `.symver` directives (see `build.rs`); zlib's oldest functions are exported
//! unversioned, as Debian's libz does. The directives are the default `symver` feature: the
//! crate is also an rlib, which the `zlib_abi` fuzz target links without them (they only link
//! into the shared object, with its version script).
#![deny(missing_docs)]
#![allow(non_snake_case)]

mod checksum;
pub mod compress_api;
mod config;
pub mod deflate_api;
mod deflate_stream;
pub mod gz;
pub mod inflate_api;
pub mod inflate_back;
mod pool;
mod printf;
pub mod types;

pub use checksum::*;

#[cfg(all(not(test), feature = "symver"))]
include!(concat!(env!("OUT_DIR"), "/symver.rs"));
