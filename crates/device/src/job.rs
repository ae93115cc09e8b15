//! Jobs: the request block (seed 000 section VII) describing one piece of work, and its
//! execution in slices of at most the job limit so one large job cannot monopolise the engines.
//!
//! A compression job keeps its position, output so far and running check between slices; each
//! slice is primed with the previous 32 KiB of input as dictionary and ends byte-aligned, so the
//! sliced output is one standard stream and does not depend on which engine ran which slice.
use std::fmt;
use std::sync::Arc;

use hyperz_engine::Format;

use crate::codec::{write_stored, DecodeError, Settings};
use crate::container::{self, MemberSizes, HZ_HEADER_LEN};
use crate::device::Shared;

/// DEFLATE's window: the dictionary each block or slice is primed with.
pub const WINDOW: usize = 32 << 10;

/// The result of a job.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// The produced bytes.
    pub data: Vec<u8>,
    /// For block jobs, the check (CRC-32 or Adler-32) of the block's uncompressed data.
    pub check: u32,
}

/// Why a job failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JobError {
    /// The input could not be decoded.
    Decode(DecodeError),
    /// Verify mode found a mismatch even after the inline retry.
    VerifyFailed,
}

impl fmt::Display for JobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobError::Decode(e) => write!(f, "decode error: {e}"),
            JobError::VerifyFailed => write!(f, "verify mismatch after retry"),
        }
    }
}
impl std::error::Error for JobError {}

/// A user-supplied job body; it may be run twice (once more inline after an engine failure).
pub type CustomFn = Arc<dyn Fn() -> Vec<u8> + Send + Sync>;

/// One request: what to do and on which data. Cheap to clone (data is shared), which is what
/// lets a failed job be redone inline.
#[derive(Clone)]
pub struct Job {
    pub(crate) kind: Kind,
}

#[derive(Clone)]
pub(crate) enum Kind {
    Compress {
        format: Format,
        settings: Settings,
        input: Arc<[u8]>,
    },
    /// `limit`: most bytes any one member may decode to.
    Decompress {
        format: Format,
        input: Arc<[u8]>,
        limit: usize,
    },
    /// A parallel-stream block: `data[..dict_len]` is the dictionary, the rest is compressed.
    /// The stream's buffer moves into the job whole (no copy), hence a `Vec`.
    Block {
        format: Format,
        settings: Settings,
        data: Arc<Vec<u8>>,
        dict_len: usize,
        last: bool,
    },
    /// An independent-block gzip member.
    Member {
        settings: Settings,
        input: Arc<Vec<u8>>,
    },
    Custom {
        len: usize,
        f: CustomFn,
    },
}

impl Job {
    /// Compress `input` into one complete `format` stream at `settings` (a level, or a level
    /// and strategy).
    pub fn compress(
        format: Format,
        settings: impl Into<Settings>,
        input: impl Into<Arc<[u8]>>,
    ) -> Job {
        Job {
            kind: Kind::Compress {
                format,
                settings: settings.into(),
                input: input.into(),
            },
        }
    }
    /// Compress a scatter-gather list as one stream (the parts are gathered into one buffer).
    pub fn compress_sg(format: Format, settings: impl Into<Settings>, parts: &[&[u8]]) -> Job {
        Job::compress(format, settings, parts.concat())
    }
    /// Decompress one complete `format` stream (all gzip members).
    pub fn decompress(format: Format, input: impl Into<Arc<[u8]>>) -> Job {
        Job {
            kind: Kind::Decompress {
                format,
                input: input.into(),
                limit: usize::MAX,
            },
        }
    }
    /// Decompress one independent gzip member that may decode to at most `limit` bytes (its
    /// `HZ` size: a member that claims less is an error, not an allocation).
    pub fn decompress_member(input: Arc<[u8]>, limit: usize) -> Job {
        Job {
            kind: Kind::Decompress {
                format: Format::Gzip,
                input,
                limit,
            },
        }
    }
    /// Run an arbitrary closure on an engine; `len` is its size for the policy and statistics.
    pub fn custom(len: usize, f: impl Fn() -> Vec<u8> + Send + Sync + 'static) -> Job {
        Job {
            kind: Kind::Custom {
                len,
                f: Arc::new(f),
            },
        }
    }
    pub(crate) fn block(
        format: Format,
        settings: Settings,
        data: Arc<Vec<u8>>,
        dict_len: usize,
        last: bool,
    ) -> Job {
        Job {
            kind: Kind::Block {
                format,
                settings,
                data,
                dict_len,
                last,
            },
        }
    }
    pub(crate) fn member(settings: Settings, input: Arc<Vec<u8>>) -> Job {
        Job {
            kind: Kind::Member { settings, input },
        }
    }
    /// Input bytes of the job (for the inline threshold and the histogram).
    pub fn input_len(&self) -> usize {
        match &self.kind {
            Kind::Compress { input, .. } | Kind::Decompress { input, .. } => input.len(),
            Kind::Member { input, .. } => input.len(),
            Kind::Block { data, dict_len, .. } => data.len() - dict_len,
            Kind::Custom { len, .. } => *len,
        }
    }
}

/// Order-0 entropy of a sample above this many bits per byte marks data as incompressible.
/// Random bytes measure ~7.95 on a 4 KiB sample; text is 4-5, binaries 6-7.
const INCOMPRESSIBLE_BITS: f64 = 7.9;

/// Inputs below this size skip the test: the engine's own block-type choice (stored, fixed or
/// dynamic by exact cost) already stores them when they do not compress, and at a few KiB the
/// test's cost would show next to the compression itself.
const INCOMPRESSIBLE_MIN: usize = 32 << 10;

/// `TABLE[c] = c * log2(c)` for the sample counts `0..=4096`, computed once.
fn clog2c(c: u32) -> f64 {
    static TABLE: std::sync::OnceLock<Vec<f64>> = std::sync::OnceLock::new();
    let t = TABLE.get_or_init(|| {
        (0..=4096u32)
            .map(|c| {
                if c == 0 {
                    0.0
                } else {
                    c as f64 * (c as f64).log2()
                }
            })
            .collect()
    });
    t[c as usize]
}

/// Cheap incompressibility test: the order-0 entropy of a strided 4 KiB sample (64 runs of 64
/// bytes), from a byte histogram and a `c log2 c` table — a few microseconds per block. Bytes
/// spread that evenly may still repeat at distances DEFLATE reaches (a ramp of every byte
/// value, a table of them, a block of random bytes written twice: entropy 8.0, yet gzip
/// compresses 10 MB of the bytes 0..251 repeated to 75 KB); `repeats` looks for that before
/// the data is stored.
pub fn looks_incompressible(data: &[u8]) -> bool {
    data.len() >= INCOMPRESSIBLE_MIN && spread_evenly(data) && !repeats(data)
}

/// Whether the order-0 entropy of a sample of `data` (64 runs of 64 bytes, or all of it)
/// exceeds [`INCOMPRESSIBLE_BITS`].
fn spread_evenly(data: &[u8]) -> bool {
    let mut hist = [0u32; 256];
    let runs = 64;
    let stride = data.len() / runs;
    for r in 0..runs {
        for &b in &data[r * stride..r * stride + 64] {
            hist[b as usize] += 1;
        }
    }
    let n = (runs * 64) as f64;
    let sum: f64 = hist.iter().map(|&c| clog2c(c)).sum();
    n.log2() - sum / n > INCOMPRESSIBLE_BITS
}

/// Bytes [`repeats`] looks up at each of its probes.
const PROBE: usize = 2 << 10;
/// Probes [`repeats`] makes, spread over the data.
const PROBES: usize = 2;
/// [`repeats`] indexes every this many positions of the window before a probe.
const PROBE_STEP: usize = 32;
/// log2 of the slots of [`repeats`]'s table.
const PROBE_BITS: u32 = 12;

/// Whether `data` (at least `INCOMPRESSIBLE_MIN` bytes) repeats eight bytes or more at a
/// window's distance or less: at each of `PROBES` stretches of `PROBE` bytes spread over it,
/// every position is looked up among every `PROBE_STEP`-th position of the window before the
/// stretch and all of the stretch's own, each candidate's eight bytes compared. A repeat at
/// any distance up to the window then hits at one position in `PROBE_STEP` at least, where
/// random bytes almost never hit (2^-64 per candidate); a quarter of that is the bar.
fn repeats(data: &[u8]) -> bool {
    let word = |p: usize| u64::from_le_bytes(data[p..p + 8].try_into().unwrap());
    let slot = |w: u64| (w.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - PROBE_BITS)) as usize;
    // A slot holds a position plus one (0: empty).
    let mut table = [0u32; 1 << PROBE_BITS];
    let last = data.len() - 8;
    for k in 1..=PROBES {
        let b0 = (data.len() - PROBE) * k / PROBES;
        let a0 = b0.saturating_sub(WINDOW);
        for p in (a0..b0).step_by(PROBE_STEP) {
            table[slot(word(p))] = p as u32 + 1;
        }
        let mut hits = 0;
        for q in b0..(b0 + PROBE).min(last) {
            let w = word(q);
            let s = slot(w);
            let c = table[s] as usize;
            if c > a0 && q - (c - 1) <= WINDOW && word(c - 1) == w {
                hits += 1;
            }
            table[s] = q as u32 + 1;
        }
        if hits * PROBE_STEP * 4 >= PROBE {
            return true;
        }
    }
    false
}

/// Appends `input` as one independent-block gzip member to `out`; returns its CRC-32. The
/// header records the member's length, known only once it is compressed: the body goes
/// straight after a provisional header, which is then rewritten (no second buffer and copy).
pub(crate) fn write_member(
    sh: &Shared,
    settings: Settings,
    input: &[u8],
    out: &mut Vec<u8>,
) -> u32 {
    out.reserve(HZ_HEADER_LEN + input.len() / 2 + 64);
    let start = out.len();
    let sizes = MemberSizes {
        member_len: 0,
        raw_len: input.len() as u32,
    };
    container::write_hz_header(settings.level, sizes, out);
    deflate_piece(sh, settings, input, 0, true, out);
    let crc = container::check_update(Format::Gzip, 0, input);
    container::write_trailer(Format::Gzip, crc, input.len() as u64, out);
    let member_len = (out.len() - start) as u32;
    container::set_member_len(&mut out[start..], member_len);
    crc
}

/// A piece that looks incompressible as a whole is judged again in parts of this size, by the
/// entropy of each part's sample: compressed files in a tar are not all random throughout
/// (one holds an image that repeats itself), and a stored piece stored those stretches too.
/// `/usr/share/doc` as a tar (8 MB, mostly `changelog.gz` files): level 6 6,392,596 ->
/// 6,333,107 bytes (gzip -6 6,352,129, libdeflate -6 6,315,302), level 12 6,347,719 ->
/// 6,285,898 (libdeflate -12 6,288,155). Random bytes cost more to judge: 200 MB at level 1
/// on one engine 0.055 -> 0.104 s of CPU (the same wall time, 0.12-0.13 s); parts of 32 KiB
/// cost half that and gained 18% less.
const POLICY_PART: usize = 16 << 10;

/// Compresses `buf[start..]`, with `buf[..start]` (at most a window) as its history, through
/// the store-raw policy or the codec: a piece that looks incompressible is stored, except its
/// parts ([`POLICY_PART`]) that do not; those go to the codec, each stretch of them with the
/// window before it as history.
fn deflate_piece(
    sh: &Shared,
    settings: Settings,
    buf: &[u8],
    start: usize,
    last: bool,
    out: &mut Vec<u8>,
) {
    let input = &buf[start..];
    if settings.level == 0 {
        return write_stored(input, last, out);
    }
    if !(sh.cfg.store_incompressible && looks_incompressible(input)) {
        return sh
            .codec
            .compress_raw_window(settings, buf, start, last, out);
    }
    // Parts from `start` (a last part shorter than half of one joins the one before), each
    // stored or not; a stretch of parts alike goes out as one.
    let end = buf.len();
    let mut parts: Vec<(usize, bool)> = Vec::new();
    let mut a = start;
    while a < end {
        let b = match (a + POLICY_PART).min(end) {
            b if end - b < POLICY_PART / 2 => end,
            b => b,
        };
        let stored = spread_evenly(&buf[a..b]);
        if parts.last().is_none_or(|p| p.1 != stored) {
            parts.push((a, stored));
        }
        a = b;
    }
    for (i, &(a, stored)) in parts.iter().enumerate() {
        let b = parts.get(i + 1).map_or(end, |p| p.0);
        let fin = last && b == end;
        if stored {
            sh.counters
                .stored_raw
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            write_stored(&buf[a..b], fin, out);
        } else {
            let from = a.saturating_sub(WINDOW);
            sh.codec
                .compress_raw_window(settings, &buf[from..b], a - from, fin, out);
        }
    }
}

/// A job in progress: its request plus the state carried between slices.
pub(crate) struct Run {
    pub job: Job,
    pos: usize,
    out: Vec<u8>,
    check: u32,
}

/// Result of one slice: `None` = suspended, run again later.
pub(crate) type Step = Option<Result<Output, JobError>>;

impl Run {
    pub fn new(job: Job) -> Run {
        Run {
            job,
            pos: 0,
            out: Vec::new(),
            check: 0,
        }
    }

    /// Runs the job to completion on this thread, in slices of `job_limit` as an engine runs
    /// it: a sliced compression job redone here after an engine failed gives the same bytes.
    pub fn run_to_end(job: Job, sh: &Shared) -> Result<Output, JobError> {
        let mut run = Run::new(job);
        loop {
            if let Some(r) = run.step(sh, sh.cfg.job_limit.max(1)) {
                return r;
            }
        }
    }

    /// Runs one slice of at most `limit` input bytes.
    pub fn step(&mut self, sh: &Shared, limit: usize) -> Step {
        match self.job.kind.clone() {
            Kind::Compress {
                format,
                settings,
                input,
            } => {
                if self.pos == 0 && self.out.is_empty() {
                    container::write_header(format, settings.level, &mut self.out);
                    self.check = container::check_init(format);
                }
                let end = input.len().min(self.pos.saturating_add(limit.max(1)));
                let last = end == input.len();
                let piece = &input[self.pos..end];
                let from = self.pos.saturating_sub(WINDOW);
                deflate_piece(
                    sh,
                    settings,
                    &input[from..end],
                    self.pos - from,
                    last,
                    &mut self.out,
                );
                self.check = container::check_update(format, self.check, piece);
                self.pos = end;
                if !last {
                    return None;
                }
                container::write_trailer(format, self.check, input.len() as u64, &mut self.out);
                let data = std::mem::take(&mut self.out);
                if sh.cfg.verify && !verify(sh, format, &data, &input) {
                    return Some(Err(JobError::VerifyFailed));
                }
                Some(Ok(Output {
                    data,
                    check: self.check,
                }))
            }
            Kind::Decompress {
                format,
                input,
                limit,
            } => Some(decode_all(sh, format, &input, limit).map(|data| Output { data, check: 0 })),
            Kind::Block {
                format,
                settings,
                data,
                dict_len,
                last,
            } => {
                let piece = &data[dict_len..];
                let mut out = Vec::with_capacity(piece.len() / 2 + 64);
                deflate_piece(sh, settings, &data, dict_len, last, &mut out);
                let check = container::check_update(format, container::check_init(format), piece);
                if sh.cfg.verify {
                    // The dictionary as a stored block, the block, and a final empty stored
                    // block form one raw stream that decodes to `data` (dictionary + piece).
                    let mut raw = Vec::with_capacity(data.len() + out.len() + 16);
                    write_stored(&data[..dict_len], false, &mut raw);
                    raw.extend_from_slice(&out);
                    if !last {
                        write_stored(&[], true, &mut raw);
                    }
                    if !verify(sh, Format::Raw, &raw, &data) {
                        return Some(Err(JobError::VerifyFailed));
                    }
                }
                Some(Ok(Output { data: out, check }))
            }
            Kind::Member { settings, input } => {
                let mut out = Vec::new();
                let crc = write_member(sh, settings, &input, &mut out);
                if sh.cfg.verify && !verify(sh, Format::Gzip, &out, &input) {
                    return Some(Err(JobError::VerifyFailed));
                }
                Some(Ok(Output {
                    data: out,
                    check: crc,
                }))
            }
            Kind::Custom { f, .. } => Some(Ok(Output {
                data: f(),
                check: 0,
            })),
        }
    }
}

/// Decodes a whole `format` stream (every gzip member) on this thread.
/// Every member may decode to at most `limit` bytes.
pub(crate) fn decode_all(
    sh: &Shared,
    format: Format,
    input: &[u8],
    limit: usize,
) -> Result<Vec<u8>, JobError> {
    let mut out = Vec::new();
    let mut pos = 0;
    loop {
        let n = sh
            .codec
            .decompress_member(format, &input[pos..], &mut out, limit)
            .map_err(|e| JobError::Decode(e.shifted(pos as u64)))?;
        pos += n;
        if format != Format::Gzip || pos >= input.len() {
            return Ok(out);
        }
    }
}

pub(crate) fn verify(sh: &Shared, format: Format, compressed: &[u8], original: &[u8]) -> bool {
    let ok = matches!(decode_all(sh, format, compressed, original.len()), Ok(d) if d == original);
    if !ok {
        sh.counters
            .verify_failures
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    ok
}
