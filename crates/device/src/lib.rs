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
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod codec;
mod config;
pub mod container;
mod device;
mod handle;
mod inflate_par;
pub use inflate_par::{member_index, MemberEntry};
mod job;
mod parallel;
mod queue;
mod stats;

pub use codec::{write_stored, Codec, DecodeError, DecodeErrorKind, StoreCodec};
pub use config::{DeviceConfig, FaultPlan};
pub use device::Device;
pub use handle::{wait_any, JobHandle};
pub use job::{looks_incompressible, CustomFn, Job, JobError, Output};
pub use parallel::{ParallelDeflater, StreamStats};
pub use queue::Priority;
pub use stats::{Stats, HISTOGRAM_BUCKETS};
