//! Device statistics: counters updated with relaxed atomics by engines and callers, read as a
//! [`Stats`] snapshot and printed as a summary like the GenWQE trace summary (seed 001).
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Number of size classes in the histogram: `<= 1 KiB`, then one per power of two up to
/// `>= 64 MiB` (1 KiB << 16).
pub const HISTOGRAM_BUCKETS: usize = 18;

/// The live counters (shared by all threads of one device).
#[derive(Default)]
pub(crate) struct Counters {
    pub jobs_inline: AtomicU64,
    pub jobs_queued: AtomicU64,
    pub slices: AtomicU64,
    pub bytes_in: AtomicU64,
    pub bytes_out: AtomicU64,
    pub retries: AtomicU64,
    pub faults: AtomicU64,
    pub verify_failures: AtomicU64,
    pub stored_raw: AtomicU64,
    pub buffered: AtomicU64,
    pub max_buffered: AtomicU64,
    pub histogram: [AtomicU64; HISTOGRAM_BUCKETS],
}

/// The histogram bucket of a job of `len` input bytes.
pub fn bucket_of(len: usize) -> usize {
    if len <= 1024 {
        0
    } else {
        let log = usize::BITS - (len - 1).leading_zeros(); // ceil(log2(len))
        ((log as usize) - 10).min(HISTOGRAM_BUCKETS - 1)
    }
}

impl Counters {
    pub fn job(&self, inline: bool, len: usize) {
        if inline {
            &self.jobs_inline
        } else {
            &self.jobs_queued
        }
        .fetch_add(1, Relaxed);
        self.histogram[bucket_of(len)].fetch_add(1, Relaxed);
    }
    pub fn io(&self, input: usize, output: usize) {
        self.bytes_in.fetch_add(input as u64, Relaxed);
        self.bytes_out.fetch_add(output as u64, Relaxed);
    }
    pub fn buffer_add(&self, n: usize) {
        let now = self.buffered.fetch_add(n as u64, Relaxed) + n as u64;
        self.max_buffered.fetch_max(now, Relaxed);
    }
    pub fn buffer_sub(&self, n: usize) {
        self.buffered.fetch_sub(n as u64, Relaxed);
    }
    pub fn snapshot(&self) -> Stats {
        Stats {
            jobs_inline: self.jobs_inline.load(Relaxed),
            jobs_queued: self.jobs_queued.load(Relaxed),
            slices: self.slices.load(Relaxed),
            bytes_in: self.bytes_in.load(Relaxed),
            bytes_out: self.bytes_out.load(Relaxed),
            retries: self.retries.load(Relaxed),
            faults: self.faults.load(Relaxed),
            verify_failures: self.verify_failures.load(Relaxed),
            stored_raw: self.stored_raw.load(Relaxed),
            buffered_bytes: self.buffered.load(Relaxed),
            max_buffered_bytes: self.max_buffered.load(Relaxed),
            histogram: std::array::from_fn(|i| self.histogram[i].load(Relaxed)),
        }
    }
}

/// A snapshot of a device's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Jobs run on the caller's thread (below the inline threshold, or single-engine paths),
    /// and the members of an in-memory independent-block decompression, which run on the
    /// caller's thread and helper threads of the call rather than through the queue.
    pub jobs_inline: u64,
    /// Jobs that went through the queue to an engine.
    pub jobs_queued: u64,
    /// Slices executed by engines (a job over the job limit takes several).
    pub slices: u64,
    /// Input bytes of completed jobs.
    pub bytes_in: u64,
    /// Output bytes of completed jobs.
    pub bytes_out: u64,
    /// Jobs redone inline after an engine failure or a verify mismatch.
    pub retries: u64,
    /// Engine failures caught (panics, injected faults).
    pub faults: u64,
    /// Verify-mode mismatches.
    pub verify_failures: u64,
    /// Blocks stored raw because they looked incompressible.
    pub stored_raw: u64,
    /// Bytes currently held by parallel streams (input blocks, dictionaries, pending output).
    pub buffered_bytes: u64,
    /// The most bytes ever held at once by parallel streams.
    pub max_buffered_bytes: u64,
    /// Jobs by input size: bucket 0 is `<= 1 KiB`, bucket `i` is `(512 << i, 1024 << i]`, the
    /// last bucket everything above 64 MiB.
    pub histogram: [u64; HISTOGRAM_BUCKETS],
}

fn size_label(i: usize) -> String {
    let kib = 1u64 << i;
    if kib >= 1024 {
        format!("{}M", kib >> 10)
    } else {
        format!("{kib}K")
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "hyperz device trace summary")?;
        writeln!(
            f,
            "  jobs      inline {:>10}  queued {:>10}  slices {:>10}",
            self.jobs_inline, self.jobs_queued, self.slices
        )?;
        let ratio = if self.bytes_in == 0 {
            0.0
        } else {
            self.bytes_out as f64 / self.bytes_in as f64
        };
        writeln!(
            f,
            "  bytes     in {:>14}  out {:>14}  out/in {:.4}",
            self.bytes_in, self.bytes_out, ratio
        )?;
        writeln!(
            f,
            "  recovery  faults {:>6}  retries {:>6}  verify mismatches {:>6}  stored raw {:>6}",
            self.faults, self.retries, self.verify_failures, self.stored_raw
        )?;
        writeln!(
            f,
            "  memory    max buffered by streams {} bytes",
            self.max_buffered_bytes
        )?;
        writeln!(f, "  jobs by input size:")?;
        for (i, &n) in self.histogram.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let label = match i {
                0 => "<= 1K".to_string(),
                _ if i == HISTOGRAM_BUCKETS - 1 => format!("> {}", size_label(i - 1)),
                _ => format!("<= {}", size_label(i)),
            };
            writeln!(f, "    {label:>8} {n:>10}")?;
        }
        Ok(())
    }
}
