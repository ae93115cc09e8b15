//! Run-time configuration of the drop-in, read once from the environment, and the trace
//! summary printed at exit (the GenWQE library's `ZLIB_TRACE`, seed 001).
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `HYPERZ_ENGINES` | engine threads for parallel deflate (and pieces a checksum of 4 MiB or more is split into) | number of cores |
//! | `HYPERZ_INLINE=1` | never use the engines: every stream is compressed on the caller's thread | off |
//! | `HYPERZ_THRESHOLD` | bytes a deflate stream buffers before it goes parallel | 256 KiB (one block) |
//! | `HYPERZ_BUDGET` | bytes all streams together may buffer for the engines | 256 MiB |
//! | `HYPERZ_VERIFY=1` | decompress and compare every parallel block | off |
//! | `HYPERZ_TRACE=1` | print call counts, bytes and a buffer-size histogram to stderr at exit | off |
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::OnceLock;

use hyperz_device::{Device, DeviceConfig};

/// The settings read from the environment.
pub struct Config {
    /// Never go parallel.
    pub force_inline: bool,
    /// Buffered bytes at which a stream goes parallel.
    pub threshold: usize,
    /// Global limit on bytes buffered for the engines.
    pub budget: usize,
    /// Print the trace summary at exit.
    pub trace: bool,
    /// Engines the device runs (`HYPERZ_ENGINES`, else the number of cores).
    pub engines: usize,
}

fn env_num(name: &str) -> Option<usize> {
    let v = std::env::var(name).ok()?;
    let v = v.trim();
    let (digits, mult) = match v.as_bytes().last()? {
        b'k' | b'K' => (&v[..v.len() - 1], 1 << 10),
        b'm' | b'M' => (&v[..v.len() - 1], 1 << 20),
        b'g' | b'G' => (&v[..v.len() - 1], 1 << 30),
        _ => (v, 1),
    };
    digits.parse::<usize>().ok().map(|n| n.saturating_mul(mult))
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// The configuration (read on first use).
pub fn config() -> &'static Config {
    static CFG: OnceLock<Config> = OnceLock::new();
    CFG.get_or_init(|| {
        let c = Config {
            force_inline: env_flag("HYPERZ_INLINE"),
            threshold: env_num("HYPERZ_THRESHOLD").unwrap_or(256 << 10).max(1),
            budget: env_num("HYPERZ_BUDGET").unwrap_or(256 << 20),
            trace: env_flag("HYPERZ_TRACE"),
            engines: env_num("HYPERZ_ENGINES")
                .unwrap_or_else(|| DeviceConfig::default().engines)
                .max(1),
        };
        if c.trace {
            // SAFETY: registering a plain `extern "C" fn()` with atexit has no preconditions.
            unsafe { libc::atexit(print_trace) };
        }
        c
    })
}

/// The device the drop-in's parallel streams run on (started lazily by the first parallel
/// block; its threads never keep the process alive and are restarted in a forked child).
pub fn device() -> &'static Device {
    static DEV: OnceLock<Device> = OnceLock::new();
    DEV.get_or_init(|| {
        Device::new(DeviceConfig {
            engines: config().engines,
            verify: env_flag("HYPERZ_VERIFY"),
            ..DeviceConfig::default()
        })
    })
}

/// Bytes held by streams that are still deciding (buffering before going parallel).
static BUFFERED: AtomicUsize = AtomicUsize::new(0);

/// Reserves `n` bytes of the global budget; false when that would exceed it.
pub fn reserve(n: usize) -> bool {
    let budget = config().budget;
    let engines_hold = device().stats().buffered_bytes as usize;
    let mut cur = BUFFERED.load(Relaxed);
    loop {
        if cur + n + engines_hold > budget {
            return false;
        }
        match BUFFERED.compare_exchange_weak(cur, cur + n, Relaxed, Relaxed) {
            Ok(_) => return true,
            Err(c) => cur = c,
        }
    }
}

/// Returns `n` reserved bytes.
pub fn release(n: usize) {
    BUFFERED.fetch_sub(n, Relaxed);
}

/// Call and byte counters for the trace summary.
pub struct Trace {
    pub deflate_calls: AtomicU64,
    pub inflate_calls: AtomicU64,
    pub streams_inline: AtomicU64,
    pub streams_parallel: AtomicU64,
    pub deflate_in: AtomicU64,
    pub deflate_out: AtomicU64,
    pub inflate_in: AtomicU64,
    pub inflate_out: AtomicU64,
    /// Input sizes of deflate/inflate calls: bucket `i` holds sizes in `[2^(i-1), 2^i)`.
    pub sizes: [AtomicU64; 32],
}

/// The process-wide trace counters.
pub static TRACE: Trace = Trace {
    deflate_calls: AtomicU64::new(0),
    inflate_calls: AtomicU64::new(0),
    streams_inline: AtomicU64::new(0),
    streams_parallel: AtomicU64::new(0),
    deflate_in: AtomicU64::new(0),
    deflate_out: AtomicU64::new(0),
    inflate_in: AtomicU64::new(0),
    inflate_out: AtomicU64::new(0),
    sizes: [const { AtomicU64::new(0) }; 32],
};

/// Records one call with `len` input bytes (only when tracing: the counters are shared).
pub fn trace_call(deflate: bool, len: usize) {
    if !config().trace {
        return;
    }
    if deflate {
        TRACE.deflate_calls.fetch_add(1, Relaxed);
    } else {
        TRACE.inflate_calls.fetch_add(1, Relaxed);
    }
    let b = (usize::BITS - len.leading_zeros()).min(31) as usize;
    TRACE.sizes[b].fetch_add(1, Relaxed);
}

/// Records the totals of one finished stream.
pub fn trace_stream(deflate: bool, parallel: bool, bytes_in: u64, bytes_out: u64) {
    if !config().trace {
        return;
    }
    if deflate {
        if parallel {
            &TRACE.streams_parallel
        } else {
            &TRACE.streams_inline
        }
        .fetch_add(1, Relaxed);
        TRACE.deflate_in.fetch_add(bytes_in, Relaxed);
        TRACE.deflate_out.fetch_add(bytes_out, Relaxed);
    } else {
        TRACE.inflate_in.fetch_add(bytes_in, Relaxed);
        TRACE.inflate_out.fetch_add(bytes_out, Relaxed);
    }
}

/// The summary text.
pub fn trace_summary() -> String {
    use std::fmt::Write as _;
    let t = &TRACE;
    let g = |a: &AtomicU64| a.load(Relaxed);
    let mut s = String::new();
    let _ = writeln!(s, "hyperz libz trace (pid {})", std::process::id());
    let _ = writeln!(
        s,
        "  deflate calls {:>10}  streams inline {:>8}  parallel {:>8}  bytes in {:>14}  out {:>14}",
        g(&t.deflate_calls),
        g(&t.streams_inline),
        g(&t.streams_parallel),
        g(&t.deflate_in),
        g(&t.deflate_out)
    );
    let _ = writeln!(
        s,
        "  inflate calls {:>10}  bytes in {:>14}  out {:>14}",
        g(&t.inflate_calls),
        g(&t.inflate_in),
        g(&t.inflate_out)
    );
    let _ = writeln!(s, "  call input sizes:");
    for (i, b) in t.sizes.iter().enumerate() {
        let n = g(b);
        if n > 0 {
            let lo = if i == 0 { 0 } else { 1u64 << (i - 1) };
            let _ = writeln!(s, "    {:>12} .. {:<12} {:>10}", lo, (1u64 << i) - 1, n);
        }
    }
    let _ = write!(s, "{}", device().summary());
    s
}

extern "C" fn print_trace() {
    // Never unwind out of an atexit handler.
    let _ = std::panic::catch_unwind(|| {
        eprint!("{}", trace_summary());
    });
}
