//! The bounded two-priority job queue (NXU's high and normal priority send queues, seed 000
//! section VII). Engines block on a condvar when it is empty, submitters block when it is full;
//! nobody polls. A sliced job that has used its job limit re-enters at the back of its priority
//! level without waiting for space, so an engine never blocks on its own queue.
use std::collections::VecDeque;
use std::sync::{Condvar, Mutex};

/// The priority of a job: high-priority jobs are always dispatched first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Priority {
    /// Latency-sensitive work (small synchronous calls).
    High,
    /// Bulk work (the default).
    #[default]
    Normal,
}

struct State<T> {
    high: VecDeque<T>,
    normal: VecDeque<T>,
    closed: bool,
}

/// A bounded blocking queue with two priority levels.
pub(crate) struct JobQueue<T> {
    state: Mutex<State<T>>,
    not_empty: Condvar,
    not_full: Condvar,
    depth: usize,
}

impl<T> JobQueue<T> {
    pub fn new(depth: usize) -> Self {
        JobQueue {
            state: Mutex::new(State {
                high: VecDeque::new(),
                normal: VecDeque::new(),
                closed: false,
            }),
            not_empty: Condvar::new(),
            not_full: Condvar::new(),
            depth: depth.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a job, blocking while the queue is full. Returns the job back if the queue is closed.
    pub fn push(&self, item: T, prio: Priority) -> Result<(), T> {
        let mut s = self.lock();
        while !s.closed && s.high.len() + s.normal.len() >= self.depth {
            s = self.not_full.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        if s.closed {
            return Err(item);
        }
        match prio {
            Priority::High => s.high.push_back(item),
            Priority::Normal => s.normal.push_back(item),
        }
        drop(s);
        self.not_empty.notify_one();
        Ok(())
    }

    /// Puts a suspended job back at the end of its level, ignoring the bound.
    pub fn requeue(&self, item: T, prio: Priority) {
        let mut s = self.lock();
        match prio {
            Priority::High => s.high.push_back(item),
            Priority::Normal => s.normal.push_back(item),
        }
        drop(s);
        self.not_empty.notify_one();
    }

    /// Takes the next job, blocking while empty; `None` once closed and drained.
    pub fn pop(&self) -> Option<T> {
        let mut s = self.lock();
        loop {
            if let Some(t) = s.high.pop_front().or_else(|| s.normal.pop_front()) {
                drop(s);
                self.not_full.notify_one();
                return Some(t);
            }
            if s.closed {
                return None;
            }
            s = self.not_empty.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Closes the queue: pending jobs still drain, new pushes fail, idle engines exit.
    pub fn close(&self) {
        self.lock().closed = true;
        self.not_empty.notify_all();
        self.not_full.notify_all();
    }
}
