//! # hyperz-device
//!
//! The device runtime: the accelerator itself, in software. It owns the engines (one worker
//! thread per core, each holding its own engine state), the job queues with two priorities and
//! job-limit fairness, parallel compression and decompression of one stream, and the offload
//! policy (inline below a size threshold, store-raw for incompressible data, verify, fallback on
//! engine failure) — the NXU job queues of seed 000, GenWQE's engine assignment and retry of seed
//! 001, and QZFS's compression service engine of seed 004.
//!
//! It must not implement DEFLATE itself (that is `hyperz-engine`), parse command lines or touch
//! files (that is the CLI), or expose a C ABI (that is `hyperz-zlib`).
//!
//! ## API
//!
//! - [`Device`]: `Device::new(DeviceConfig)` or the process-wide [`Device::global`]. Engines
//!   start lazily on the first queued job; dropping a device joins them; after `fork()` the
//!   child starts fresh engines on first use (the pid is checked on every queue access).
//! - Synchronous: [`Device::compress`] (one raw/zlib/gzip stream, parallel blocks),
//!   [`Device::compress_independent`] (multi-member gzip with the `HZ` subfield, see
//!   [`container`]), [`Device::decompress`], the `Read -> Write` forms
//!   [`Device::compress_stream`] / [`Device::decompress_stream`], and random access with
//!   [`Device::decompress_range`] / [`member_index`].
//! - Incremental: [`ParallelDeflater`] — `write(&[u8], &mut out)` appends finished output in
//!   order, `finish(&mut out)` ends the stream. Memory is bounded by `in_flight` blocks.
//! - Asynchronous: [`Device::submit`]`(Job, Priority) -> JobHandle`, then [`JobHandle::poll`],
//!   [`JobHandle::wait`] and [`wait_any`]; completions come in any order and every call is safe
//!   from many threads.
//! - In-memory decompression of an independent-block stream ([`Device::decompress`]) does not
//!   go through the queue: the caller and `engines - 1` helper threads scoped to the call decode
//!   the members and each puts its members into their slices of the one output buffer (queued
//!   jobs need owned buffers, and concatenating those was a serial copy of the whole output).
//! - Policy: jobs under `inline_threshold` run on the caller's thread (no queue hop); jobs over
//!   `job_limit` run in slices and go back to the end of their queue between slices; blocks
//!   that look incompressible are stored; `verify` decompresses and compares; a job whose
//!   engine panics (or hits the [`FaultPlan`]) is redone inline inside `wait`.
//! - [`Device::stats`] / [`Device::summary`]: jobs inline and queued, slices, bytes, faults,
//!   retries, stored blocks, stream memory, and a histogram by job size.
//!
//! ## Output identity
//!
//! Parallel streams are cut at fixed byte offsets (`block_size`); each block is primed with the
//! previous 32 KiB and ends byte-aligned, and the codec is deterministic, so the bytes do not
//! depend on the number of engines or on how the input was chunked. Checks are computed per
//! block on the engines and combined with `crc32_combine` / `adler32_combine`.
//!
//! ## Codec
//!
//! Engines run a [`Codec`]. The default is [`EngineCodec`]: `hyperz-engine`'s deflate and
//! inflate, with one compressor per level and one decoder per format kept in each engine
//! thread. [`StoreCodec`] (stored blocks only) and any other deterministic DEFLATE
//! implementation can be supplied in [`DeviceConfig::codec`] (the throughput example and a test
//! plug in system zlib this way).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod codec;
mod config;
pub mod container;
mod device;
mod engine_codec;
pub use engine_codec::EngineCodec;
mod handle;
mod inflate_par;
pub use inflate_par::{hz_member, member_index, MemberEntry};
mod job;
mod parallel;
mod queue;
mod sequential;
mod stats;

pub use codec::{
    write_stored, Codec, DecodeError, DecodeErrorKind, PieceCompressor, Settings, StoreCodec,
    Strategy,
};
pub use config::{DeviceConfig, FaultPlan};
pub use device::Device;
pub use handle::{wait_any, JobHandle};
pub use job::{looks_incompressible, CustomFn, Job, JobError, Output};
pub use parallel::{ParallelDeflater, StreamStats};
pub use queue::Priority;
pub use stats::{Stats, HISTOGRAM_BUCKETS};
