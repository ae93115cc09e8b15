//! Device configuration: how many engines, how deep the queue, where the inline threshold lies,
//! how big the parallel blocks are, and the fault plan used to test the retry path.
//!
//! Every tunable has a default chosen for a small multi-core machine; the comments say why.
use std::fmt;
use std::sync::Arc;

use crate::codec::Codec;

/// Makes engine `engine` panic on its `nth` slice (1-based), to prove that a failing engine loses
/// no data: the failed job is redone inline on the caller's thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultPlan {
    /// Index of the engine (worker) that fails, `0..engines`.
    pub engine: usize,
    /// The slice count at which it fails (1 = its first slice).
    pub nth_job: u64,
    /// Fail again every `nth_job` slices instead of once.
    pub repeat: bool,
}

impl FaultPlan {
    /// Whether engine `engine` must fail on its `count`-th slice.
    pub fn hits(&self, engine: usize, count: u64) -> bool {
        engine == self.engine
            && self.nth_job > 0
            && if self.repeat {
                count.is_multiple_of(self.nth_job)
            } else {
                count == self.nth_job
            }
    }
}

/// The configuration of one [`Device`](crate::Device).
#[derive(Clone)]
pub struct DeviceConfig {
    /// Number of engines (worker threads). Default: the number of cores.
    pub engines: usize,
    /// Jobs the queue holds before `submit` blocks (back-pressure). Default 64: enough to keep
    /// every engine busy while bounding memory held by queued jobs.
    pub queue_depth: usize,
    /// Jobs whose input is below this many bytes run inline on the caller's thread. The queue
    /// round trip (submit, engine wake-up, completion) measured 9.6 us on the 2-core machine
    /// (`examples/throughput`), about the time level 6 needs for 1 KiB and inflate for 3 KiB;
    /// at 16 KiB the hop is at most ~5% of the work. Default 16 KiB.
    pub inline_threshold: usize,
    /// Block size for parallel compression of one stream. Default 256 KiB: large enough that
    /// the 32 KiB dictionary priming and block ends cost < 0.1% ratio, small enough to give
    /// every engine work on multi-megabyte inputs.
    pub block_size: usize,
    /// Blocks in flight per parallel stream (bounds its memory). 0 = `2 * engines + 2`.
    pub max_in_flight: usize,
    /// The job limit: a compression job runs at most this many input bytes per slice, then goes
    /// back to the end of its queue (NXU's suspend/resume fairness). Default 1 MiB.
    pub job_limit: usize,
    /// Decompress and compare every compressed result before returning it (GenWQE's verify).
    pub verify: bool,
    /// Store blocks that look incompressible (order-0 entropy test) instead of encoding them.
    pub store_incompressible: bool,
    /// Injected engine failure, for tests.
    pub fault_plan: Option<FaultPlan>,
    /// The codec the engines run; `None` selects the default codec.
    pub codec: Option<Arc<dyn Codec>>,
}

impl Default for DeviceConfig {
    fn default() -> Self {
        Self::with_engines(
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
        )
    }
}

impl DeviceConfig {
    /// The default configuration with `n` engines. (Not built from [`Default`], which asks the
    /// system for the core count: three files read from /proc and /sys for a value replaced.)
    pub fn with_engines(n: usize) -> Self {
        DeviceConfig {
            engines: n.max(1),
            queue_depth: 64,
            inline_threshold: 16 << 10,
            block_size: 256 << 10,
            max_in_flight: 0,
            job_limit: 1 << 20,
            verify: false,
            store_incompressible: true,
            fault_plan: None,
            codec: None,
        }
    }

    /// The effective number of blocks in flight per parallel stream.
    pub fn in_flight(&self) -> usize {
        if self.max_in_flight == 0 {
            2 * self.engines.max(1) + 2
        } else {
            self.max_in_flight
        }
    }
}

impl fmt::Debug for DeviceConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceConfig")
            .field("engines", &self.engines)
            .field("queue_depth", &self.queue_depth)
            .field("inline_threshold", &self.inline_threshold)
            .field("block_size", &self.block_size)
            .field("max_in_flight", &self.max_in_flight)
            .field("job_limit", &self.job_limit)
            .field("verify", &self.verify)
            .field("store_incompressible", &self.store_incompressible)
            .field("fault_plan", &self.fault_plan)
            .field("codec", &self.codec.as_ref().map(|c| c.name()))
            .finish()
    }
}
