//! The device: engines (worker threads, started lazily, one per core by default) fed by the
//! two-priority queue, plus the offload policy at submission (inline below the threshold).
//!
//! Workers hold only the shared state and the queue, never the `Device`, so dropping a device
//! closes its queue and joins them. The pid at start is recorded; after `fork()` the child sees a
//! different `std::process::id()` and starts a fresh queue and fresh engines (the parent's
//! threads do not exist there). Rust does not wait for threads at exit, so engines never keep a
//! process alive; the global device is simply never dropped.
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

use crate::codec::Codec;
use crate::config::DeviceConfig;
use crate::engine_codec::EngineCodec;
use crate::handle::{JobHandle, Slot, SlotState};
use crate::job::{Job, JobError, Run};
use crate::queue::{JobQueue, Priority};
use crate::stats::{Counters, Stats};

/// State shared by the device, its engines and its handles.
pub(crate) struct Shared {
    pub cfg: DeviceConfig,
    pub codec: Arc<dyn Codec>,
    pub counters: Counters,
}

pub(crate) struct Task {
    run: Run,
    slot: Arc<Slot>,
    prio: Priority,
}

struct Pool {
    pid: u32,
    queue: Option<Arc<JobQueue<Task>>>,
    workers: Vec<JoinHandle<()>>,
}

/// The payload of an injected fault (unwinding with it skips the panic hook, so tests stay quiet).
pub(crate) struct InjectedFault;

/// A set of engines with their queue and policy. See the crate documentation.
pub struct Device {
    pub(crate) shared: Arc<Shared>,
    pool: Mutex<Pool>,
}

impl Device {
    /// A device with `cfg`; no thread starts until the first queued job.
    pub fn new(cfg: DeviceConfig) -> Device {
        let codec = cfg.codec.clone().unwrap_or_else(default_codec);
        let mut cfg = cfg;
        cfg.engines = cfg.engines.max(1);
        Device {
            shared: Arc::new(Shared {
                cfg,
                codec,
                counters: Counters::default(),
            }),
            pool: Mutex::new(Pool {
                pid: std::process::id(),
                queue: None,
                workers: Vec::new(),
            }),
        }
    }

    /// The process-wide default device (default configuration), created on first use.
    pub fn global() -> &'static Device {
        static GLOBAL: OnceLock<Device> = OnceLock::new();
        GLOBAL.get_or_init(|| Device::new(DeviceConfig::default()))
    }

    /// The configuration.
    pub fn config(&self) -> &DeviceConfig {
        &self.shared.cfg
    }

    /// A snapshot of the statistics.
    pub fn stats(&self) -> Stats {
        self.shared.counters.snapshot()
    }

    /// The statistics as a printable trace summary.
    pub fn summary(&self) -> String {
        format!(
            "engines {} codec {}\n{}",
            self.shared.cfg.engines,
            self.shared.codec.name(),
            self.stats()
        )
    }

    /// Number of engine threads currently started in this process.
    pub fn started_engines(&self) -> usize {
        let p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        if p.pid == std::process::id() {
            p.workers.len()
        } else {
            0
        }
    }

    /// The queue, starting the engines if needed (first use, or first use after `fork()`).
    fn queue(&self) -> Arc<JobQueue<Task>> {
        let mut p = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        let pid = std::process::id();
        if p.pid != pid {
            // In a forked child the parent's threads do not exist: forget their handles
            // (joining or detaching them would touch dead thread ids) and start over.
            std::mem::forget(std::mem::take(&mut p.workers));
            p.queue = None;
            p.pid = pid;
        }
        if let Some(q) = &p.queue {
            return q.clone();
        }
        let q = Arc::new(JobQueue::new(self.shared.cfg.queue_depth));
        for id in 0..self.shared.cfg.engines {
            let (sh, qq) = (self.shared.clone(), q.clone());
            match std::thread::Builder::new()
                .name(format!("hyperz-engine-{id}"))
                .spawn(move || engine_loop(id, &sh, &qq))
            {
                Ok(h) => p.workers.push(h),
                // The system gives no more threads: the engines already running serve the
                // queue (jobs only wait longer).
                Err(_) if !p.workers.is_empty() => break,
                Err(e) => panic!("spawn engine thread: {e}"),
            }
        }
        p.queue = Some(q.clone());
        q
    }

    /// Submits a job. Jobs below the inline threshold run now on this thread (the handle is
    /// already complete); others go to the queue, blocking while it is full.
    pub fn submit(&self, job: Job, prio: Priority) -> JobHandle {
        let len = job.input_len();
        let sh = &self.shared;
        if len < sh.cfg.inline_threshold {
            sh.counters.job(true, len);
            let state = match catch_unwind(AssertUnwindSafe(|| Run::run_to_end(job.clone(), sh))) {
                Ok(Err(JobError::VerifyFailed)) => SlotState::Redo(job),
                Ok(r) => {
                    if let Ok(o) = &r {
                        sh.counters.io(len, o.data.len());
                    }
                    SlotState::Done(r)
                }
                Err(p) => resume_unwind(p),
            };
            return JobHandle {
                slot: Slot::new(state),
                shared: sh.clone(),
            };
        }
        sh.counters.job(false, len);
        let slot = Slot::new(SlotState::Pending);
        let task = Task {
            run: Run::new(job),
            slot: slot.clone(),
            prio,
        };
        if let Err(task) = self.queue().push(task, prio) {
            task.slot.complete(SlotState::Redo(task.run.job));
        }
        JobHandle {
            slot,
            shared: sh.clone(),
        }
    }

    /// Runs a job and waits for it.
    pub fn run(&self, job: Job) -> Result<crate::job::Output, JobError> {
        self.submit(job, Priority::High).wait()
    }
}

fn default_codec() -> Arc<dyn Codec> {
    Arc::new(EngineCodec)
}

fn engine_loop(id: usize, sh: &Shared, q: &JobQueue<Task>) {
    let mut count = 0u64;
    let limit = sh.cfg.job_limit.max(1);
    while let Some(mut t) = q.pop() {
        count += 1;
        sh.counters.slices.fetch_add(1, Relaxed);
        let fault = sh.cfg.fault_plan.is_some_and(|f| f.hits(id, count));
        let r = catch_unwind(AssertUnwindSafe(|| {
            if fault {
                resume_unwind(Box::new(InjectedFault));
            }
            t.run.step(sh, limit)
        }));
        match r {
            Ok(None) => {
                let prio = t.prio;
                q.requeue(t, prio);
            }
            Ok(Some(Err(JobError::VerifyFailed))) => t.slot.complete(SlotState::Redo(t.run.job)),
            Ok(Some(r)) => {
                if let Ok(o) = &r {
                    sh.counters.io(t.run.job.input_len(), o.data.len());
                }
                // The job (and its share of the input) is released before the waiter wakes, so
                // a stream can take its input buffer back for the next block.
                let slot = t.slot;
                drop(t.run);
                slot.complete(SlotState::Done(r));
            }
            Err(_) => {
                sh.counters.faults.fetch_add(1, Relaxed);
                t.slot.complete(SlotState::Redo(t.run.job));
            }
        }
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        let p = self.pool.get_mut().unwrap_or_else(|e| e.into_inner());
        if p.pid != std::process::id() {
            std::mem::forget(std::mem::take(&mut p.workers));
            return;
        }
        if let Some(q) = p.queue.take() {
            q.close();
        }
        for h in p.workers.drain(..) {
            let _ = h.join();
        }
    }
}
