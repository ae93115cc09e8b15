//! Asynchronous completion: a [`JobHandle`] per submitted job, with `poll`, `wait` and
//! [`wait_any`]. Completion is signalled through condvars (no polling loops); `wait_any`
//! registers one waker on every handle it watches. A job whose engine failed comes back as
//! "redo" and `wait` runs it inline on the caller's thread, so the caller still gets its output.
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::device::Shared;
use crate::job::{Job, JobError, Output, Run};

pub(crate) enum SlotState {
    Pending,
    Done(Result<Output, JobError>),
    Redo(Job),
    Taken,
}

struct Waker {
    fired: Mutex<bool>,
    cv: Condvar,
}

/// Where an engine leaves a job's result.
pub(crate) struct Slot {
    state: Mutex<SlotState>,
    cv: Condvar,
    wakers: Mutex<Vec<Arc<Waker>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Slot {
    pub fn new(state: SlotState) -> Arc<Slot> {
        Arc::new(Slot {
            state: Mutex::new(state),
            cv: Condvar::new(),
            wakers: Mutex::new(Vec::new()),
        })
    }
    pub fn complete(&self, state: SlotState) {
        *lock(&self.state) = state;
        self.cv.notify_all();
        for w in lock(&self.wakers).iter() {
            *lock(&w.fired) = true;
            w.cv.notify_all();
        }
    }
    fn ready(&self) -> bool {
        !matches!(*lock(&self.state), SlotState::Pending)
    }
}

/// The handle of a submitted job. Results may complete in any order; a handle may be waited on
/// from any thread.
pub struct JobHandle {
    pub(crate) slot: Arc<Slot>,
    pub(crate) shared: Arc<Shared>,
}

impl JobHandle {
    /// Whether the job has finished (or failed and awaits its inline redo in `wait`).
    pub fn poll(&self) -> bool {
        self.slot.ready()
    }

    /// Blocks until the job finishes and returns its result. A job whose engine failed is redone
    /// here, inline.
    pub fn wait(self) -> Result<Output, JobError> {
        let mut st = lock(&self.slot.state);
        while matches!(*st, SlotState::Pending) {
            st = self.slot.cv.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        match std::mem::replace(&mut *st, SlotState::Taken) {
            SlotState::Done(r) => r,
            SlotState::Redo(job) => {
                drop(st);
                self.shared.counters.retries.fetch_add(1, Relaxed);
                let len = job.input_len();
                let r = Run::run_to_end(job, &self.shared);
                if let Ok(o) = &r {
                    self.shared.counters.io(len, o.data.len());
                }
                r
            }
            SlotState::Pending | SlotState::Taken => unreachable!("a handle is consumed by wait"),
        }
    }
}

/// Blocks until at least one of `handles` is ready and returns the index of a ready one
/// (the lowest). Panics if `handles` is empty.
pub fn wait_any(handles: &[&JobHandle]) -> usize {
    assert!(!handles.is_empty(), "wait_any on no handles");
    let waker = Arc::new(Waker {
        fired: Mutex::new(false),
        cv: Condvar::new(),
    });
    for h in handles {
        lock(&h.slot.wakers).push(waker.clone());
    }
    let found = loop {
        if let Some(i) = handles.iter().position(|h| h.poll()) {
            break i;
        }
        let mut fired = lock(&waker.fired);
        while !*fired {
            fired = waker.cv.wait(fired).unwrap_or_else(|e| e.into_inner());
        }
        *fired = false;
    };
    for h in handles {
        lock(&h.slot.wakers).retain(|w| !Arc::ptr_eq(w, &waker));
    }
    found
}
