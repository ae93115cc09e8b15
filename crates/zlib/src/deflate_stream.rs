//! The state behind one deflate `z_stream`, and the policy that picks its engine.
//!
//! A stream starts by *buffering* its input (no output yet, which zlib allows), as the GenWQE
//! library did, because only the amount of input tells whether the engines pay off:
//! - once more than one parallel block (`HYPERZ_THRESHOLD`, 256 KiB) is buffered with
//!   `Z_NO_FLUSH`, or `Z_FINISH` arrives with that much, the stream goes **parallel**: the
//!   device's [`ParallelDeflater`] compresses 256 KiB blocks on all engines, each with the
//!   previous 32 KiB as dictionary, and the output is drained to the caller in order;
//! - any other flush, or `Z_FINISH` on a small stream, sends it **inline**: the engine's
//!   [`Deflater`], which implements every zlib flush mode, `deflateParams` and
//!   `deflatePrime` exactly, runs on the caller's thread with the buffered input as its
//!   first input. Small and flush-heavy streams (interactive protocols) therefore never touch
//!   the queue.
//!
//! A parallel stream keeps zlib's meaning for every later call: `Z_SYNC_FLUSH`, `Z_PARTIAL_FLUSH`
//! and `Z_BLOCK` end the current block byte-aligned with the sync marker (a stronger guarantee
//! than the latter two ask for), `Z_FULL_FLUSH` also drops the history, and `deflateParams`
//! flushes and changes the level of the following blocks. The stream's bytes depend only on the
//! input, the call pattern and the parameters, never on the number of engines. Streams whose
//! parameters the blocks cannot honour (a window below 32 KiB, `Z_HUFFMAN_ONLY`, `Z_RLE`,
//! `Z_FIXED`, level 0, or a prior `deflatePrime`) stay inline.
#![forbid(unsafe_code)]

use hyperz_device::{ParallelDeflater, Settings};
use hyperz_engine::checksum::adler32;
use hyperz_engine::deflate::{gzip_header, gzip_xfl, Deflater, Flush, Params, Strategy};
use hyperz_engine::{Format, GzipHeader};

use crate::config;
use crate::pool;
use crate::types::*;

/// Output a parallel stream may queue before it stops taking input until the caller drains it.
const QUEUE_LIMIT: usize = 4 << 20;

enum Mode {
    /// Deciding: input held here, nothing emitted yet.
    Buffer(Vec<u8>),
    Inline(Box<Deflater>),
    Parallel(Box<ParallelDeflater<'static>>),
    /// A parallel stream after `Z_FINISH`.
    Done,
}

/// Moves queued output (`queue[*qpos..]`) into `output[*produced..]`; the queue is emptied
/// once delivered, so it never holds more than what the caller has not taken yet.
fn drain_queue(queue: &mut Vec<u8>, qpos: &mut usize, output: &mut [u8], produced: &mut usize) {
    let n = (queue.len() - *qpos).min(output.len() - *produced);
    output[*produced..*produced + n].copy_from_slice(&queue[*qpos..*qpos + n]);
    *qpos += n;
    *produced += n;
    if *qpos == queue.len() {
        queue.clear();
        *qpos = 0;
    }
}

/// What one [`DeflateStream::deflate`] call did.
pub struct Step {
    pub consumed: usize,
    pub produced: usize,
    pub code: i32,
}

/// One deflate stream (zlib's `deflate_state`).
pub struct DeflateStream {
    pub format: Format,
    pub params: Params,
    mode: Mode,
    /// Output waiting for the caller (buffering and parallel modes) and how much was delivered.
    queue: Vec<u8>,
    qpos: usize,
    /// Bytes of the global budget this stream holds while buffering.
    reserved: usize,
    gzhead: Option<GzipHeader>,
    dict: Option<Vec<u8>>,
    primed: bool,
    /// The inline compressor of a previous stream (after `deflateReset`), reused when the
    /// parameters match: callers that reset per message keep zlib's allocation pattern.
    spare: Option<(Params, Box<Deflater>)>,
    /// zlib's last_flush: -2 before the first call, -1 when the output ran full, else a rank.
    last_flush: i32,
    finished: bool,
    /// Adler-32/CRC-32 reported in `strm->adler` (kept current after flushes in parallel mode).
    pub check: u32,
    pub total_in: u64,
    pub total_out: u64,
}

impl DeflateStream {
    /// A stream with validated parameters.
    pub fn new(format: Format, params: Params) -> Self {
        DeflateStream {
            format,
            params,
            mode: Mode::Buffer(Vec::new()),
            queue: Vec::new(),
            qpos: 0,
            reserved: 0,
            gzhead: None,
            dict: None,
            primed: false,
            spare: None,
            last_flush: -2,
            finished: false,
            check: if format == Format::Zlib { 1 } else { 0 },
            total_in: 0,
            total_out: 0,
        }
    }

    /// Whether this stream may go to the engines, whose jobs carry its level and strategy: not
    /// at level 0, with a smaller window, or after deflatePrime's bits.
    fn parallel_ok(&self) -> bool {
        !config::config().force_inline
            && !self.primed
            && self.params.level >= 1
            && self.params.window_bits == 15
    }

    /// The engine's streaming compressor for this stream's settings.
    fn new_inline(&mut self) -> Result<Box<Deflater>, i32> {
        let spare = match self.spare.take() {
            Some((p, d)) if p == self.params => Some(d),
            Some((p, d)) => {
                pool::give_deflater(self.format, p, d);
                None
            }
            None => None,
        };
        let mut d = match spare.or_else(|| pool::take_deflater(self.format, self.params)) {
            Some(d) => d,
            None => Box::new(Deflater::new(self.format, self.params).map_err(|_| Z_STREAM_ERROR)?),
        };
        if let Some(h) = &self.gzhead {
            d.set_gzip_header(h.clone());
        }
        if let Some(dict) = &self.dict {
            d.set_dictionary(dict).map_err(|_| Z_STREAM_ERROR)?;
        }
        Ok(d)
    }

    /// The header a parallel stream writes: zlib's (with the dictionary id) or gzip's fields.
    fn header(&self) -> Vec<u8> {
        let mut h = Vec::new();
        match self.format {
            Format::Raw => {}
            Format::Zlib => {
                let cmf = 0x78u8;
                let flevel: u8 = match self.params.level {
                    0 | 1 => 0,
                    2..=5 => 1,
                    6 => 2,
                    _ => 3,
                };
                let mut flg = flevel << 6;
                if self.dict.is_some() {
                    flg |= 0x20;
                }
                flg += (31 - ((cmf as u16 * 256 + flg as u16) % 31) as u8) % 31;
                h.extend_from_slice(&[cmf, flg]);
                if let Some(d) = &self.dict {
                    h.extend_from_slice(&adler32(1, d).to_be_bytes());
                }
            }
            Format::Gzip => {
                let g = self.gzhead.clone().unwrap_or_default();
                gzip_header(&mut h, &g, gzip_xfl(self.params.level, false));
            }
        }
        h
    }

    fn release(&mut self) {
        config::release(std::mem::take(&mut self.reserved));
    }

    /// Leaves buffering for the inline compressor, feeding it the buffered input.
    fn go_inline(&mut self) -> Result<(), i32> {
        let Mode::Buffer(buf) = std::mem::replace(&mut self.mode, Mode::Done) else {
            return Ok(());
        };
        self.release();
        let mut d = self.new_inline()?;
        let mut pos = 0;
        // With Flush::None the compressor holds up to a segment of input before it emits
        // anything, so a small scratch buffer suffices (and costs a small stream nothing).
        let mut chunk = vec![0u8; 4096];
        while pos < buf.len() {
            let st = d
                .deflate(&buf[pos..], &mut chunk, Flush::None)
                .map_err(|_| Z_STREAM_ERROR)?;
            pos += st.consumed;
            self.queue.extend_from_slice(&chunk[..st.produced]);
        }
        self.mode = Mode::Inline(d);
        Ok(())
    }

    /// Leaves buffering for the engines.
    fn go_parallel(&mut self) {
        let Mode::Buffer(buf) = std::mem::replace(&mut self.mode, Mode::Done) else {
            return;
        };
        self.release();
        let settings = Settings::new(self.params.level, self.params.strategy);
        let mut pd = ParallelDeflater::new(config::device(), self.format, settings);
        pd.set_header(self.header());
        if let Some(d) = &self.dict {
            pd.set_dictionary(d);
        }
        pd.write(&buf, &mut self.queue);
        self.mode = Mode::Parallel(Box::new(pd));
    }

    fn pending_queue(&self) -> usize {
        self.queue.len() - self.qpos
    }

    fn drain(&mut self, output: &mut [u8], produced: &mut usize) {
        drain_queue(&mut self.queue, &mut self.qpos, output, produced);
    }

    /// zlib's `deflate()`: the caller has checked the pointers; `output` is not empty.
    pub fn deflate(&mut self, input: &[u8], output: &mut [u8], flush: Flush) -> Step {
        let mut st = Step {
            consumed: 0,
            produced: 0,
            code: Z_OK,
        };
        if self.finished && flush != Flush::Finish {
            st.code = Z_STREAM_ERROR;
            return st;
        }
        if self.finished && !input.is_empty() {
            st.code = Z_BUF_ERROR;
            return st;
        }
        let old = self.last_flush;
        self.last_flush = flush.rank();
        if self.pending_queue() > 0 {
            self.drain(output, &mut st.produced);
            if self.pending_queue() > 0 {
                self.last_flush = -1;
                self.account(&st);
                return st;
            }
        } else if input.is_empty()
            && flush.rank() <= old
            && flush != Flush::Finish
            && !matches!(self.mode, Mode::Inline(_))
        {
            st.code = Z_BUF_ERROR;
            return st;
        }
        let r = match self.mode {
            Mode::Buffer(_) => self.step_buffer(input, output, flush, &mut st),
            Mode::Inline(_) => self.step_inline(input, output, flush, &mut st),
            Mode::Parallel(_) | Mode::Done => self.step_parallel(input, output, flush, &mut st),
        };
        if let Err(code) = r {
            st.code = code;
        }
        if self.pending_queue() > 0 {
            self.last_flush = -1;
        }
        self.account(&st);
        st
    }

    fn account(&mut self, st: &Step) {
        self.total_in += st.consumed as u64;
        self.total_out += st.produced as u64;
    }

    fn step_buffer(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        flush: Flush,
        st: &mut Step,
    ) -> Result<(), i32> {
        let ok = self.parallel_ok();
        let Mode::Buffer(buf) = &mut self.mode else {
            unreachable!()
        };
        let big = buf.len() + input.len() > config::config().threshold;
        if ok && flush == Flush::None && !big && config::reserve(input.len()) {
            // Keep deciding: hold the input (zlib may consume input without output).
            self.reserved += input.len();
            buf.extend_from_slice(input);
            st.consumed = input.len();
            return Ok(());
        }
        if ok && big && matches!(flush, Flush::None | Flush::Finish) {
            self.go_parallel();
            return self.step_parallel(input, output, flush, st);
        }
        self.go_inline()?;
        self.drain(output, &mut st.produced);
        if self.pending_queue() > 0 {
            return Ok(());
        }
        self.step_inline(input, output, flush, st)
    }

    fn step_inline(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        flush: Flush,
        st: &mut Step,
    ) -> Result<(), i32> {
        let Mode::Inline(d) = &mut self.mode else {
            unreachable!()
        };
        let out = &mut output[st.produced..];
        if out.is_empty() {
            return Ok(());
        }
        let r = d.deflate(input, out, flush);
        self.check = d.checksum();
        match r {
            Ok(s) => {
                st.consumed += s.consumed;
                st.produced += s.produced;
                if s.done {
                    self.finished = true;
                    st.code = Z_STREAM_END;
                    config::trace_stream(true, false, d.total_in(), d.total_out());
                }
                Ok(())
            }
            Err(hyperz_engine::deflate::DeflateError::BufferError) => {
                Err(if st.produced > 0 { Z_OK } else { Z_BUF_ERROR })
            }
            Err(_) => Err(Z_STREAM_ERROR),
        }
    }

    fn step_parallel(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        flush: Flush,
        st: &mut Step,
    ) -> Result<(), i32> {
        let block = config::device().config().block_size.max(1);
        if let Mode::Parallel(pd) = &mut self.mode {
            while st.consumed < input.len() && self.queue.len() - self.qpos < QUEUE_LIMIT {
                let n = (input.len() - st.consumed).min(block);
                pd.write(&input[st.consumed..st.consumed + n], &mut self.queue);
                st.consumed += n;
                drain_queue(&mut self.queue, &mut self.qpos, output, &mut st.produced);
            }
            if st.consumed == input.len() {
                match flush {
                    Flush::None => {}
                    Flush::Full => pd.full_flush(&mut self.queue),
                    Flush::Partial | Flush::Sync | Flush::Block => pd.flush(&mut self.queue),
                    Flush::Finish => {
                        let Mode::Parallel(pd) = std::mem::replace(&mut self.mode, Mode::Done)
                        else {
                            unreachable!()
                        };
                        let s = pd.finish(&mut self.queue);
                        self.check = s.check;
                        self.finished = true;
                        config::trace_stream(true, true, s.bytes_in, s.bytes_out);
                    }
                }
                if let Mode::Parallel(pd) = &self.mode {
                    if flush != Flush::None {
                        self.check = pd.check();
                    }
                }
            }
        }
        self.drain(output, &mut st.produced);
        if self.finished && self.pending_queue() == 0 {
            st.code = Z_STREAM_END;
        }
        Ok(())
    }

    /// `deflateParams`: zlib flushes the current block (`Z_BLOCK`) before new parameters apply
    /// when the stream has started; that output goes to the queue.
    pub fn set_params(&mut self, level: u32, strategy: Strategy) -> i32 {
        if self.finished {
            return Z_STREAM_ERROR;
        }
        let changed = level != self.params.level || strategy != self.params.strategy;
        match &mut self.mode {
            Mode::Buffer(_) => {
                if changed && self.last_flush != -2 {
                    // Data given at the old level: compress it inline at that level first.
                    if let Err(c) = self.go_inline() {
                        return c;
                    }
                    return self.set_params(level, strategy);
                }
            }
            Mode::Inline(d) => {
                if d.set_params(level, strategy).is_err() {
                    return Z_STREAM_ERROR;
                }
                // The Z_BLOCK flush's output waits in the engine and leads the next deflate().
            }
            Mode::Parallel(pd) => {
                if changed {
                    pd.flush(&mut self.queue);
                    pd.set_settings(Settings::new(level.max(1), strategy));
                }
            }
            Mode::Done => return Z_STREAM_ERROR,
        }
        self.params.level = level;
        self.params.strategy = strategy;
        Z_OK
    }

    /// `deflateSetDictionary`.
    pub fn set_dictionary(&mut self, dict: &[u8]) -> i32 {
        if self.format == Format::Gzip || self.finished {
            return Z_STREAM_ERROR;
        }
        match &mut self.mode {
            Mode::Buffer(buf)
                if buf.is_empty() && (self.format == Format::Raw || self.last_flush == -2) =>
            {
                self.dict = Some(dict.to_vec());
                if self.format == Format::Zlib {
                    self.check = adler32(1, dict);
                }
                Z_OK
            }
            Mode::Inline(d) => match d.set_dictionary(dict) {
                Ok(()) => {
                    self.check = d.checksum();
                    Z_OK
                }
                Err(_) => Z_STREAM_ERROR,
            },
            _ => Z_STREAM_ERROR,
        }
    }

    /// `deflateGetDictionary`: the last bytes of history, at most the window (2^windowBits,
    /// as zlib: a caller may size its buffer by it).
    pub fn dictionary(&self) -> Vec<u8> {
        let mut v = match &self.mode {
            Mode::Buffer(buf) => {
                let mut v = self.dict.clone().unwrap_or_default();
                v.extend_from_slice(buf);
                v
            }
            Mode::Inline(d) => d.history().to_vec(),
            Mode::Parallel(pd) => pd.history().to_vec(),
            Mode::Done => Vec::new(),
        };
        v.drain(..v.len().saturating_sub(1 << self.params.window_bits));
        v
    }

    /// Whether `deflate()` has been called since init or reset.
    pub fn started(&self) -> bool {
        self.last_flush != -2 || self.total_in > 0
    }

    /// Whether the stream has been finished (trailer written or queued).
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Header bytes beyond the plain container header (gzip extra, name, comment, header CRC).
    pub fn header_extra(&self) -> usize {
        match &self.gzhead {
            Some(h) if self.format == Format::Gzip => {
                h.extra.as_ref().map_or(0, |e| e.len() + 2)
                    + h.name.as_ref().map_or(0, |n| n.len() + 1)
                    + h.comment.as_ref().map_or(0, |c| c.len() + 1)
                    + if h.hcrc { 2 } else { 0 }
            }
            _ if self.dict.is_some() => 4,
            _ => 0,
        }
    }

    /// `deflateSetHeader`.
    pub fn set_header(&mut self, h: GzipHeader) -> i32 {
        if self.format != Format::Gzip {
            return Z_STREAM_ERROR;
        }
        if let Mode::Inline(d) = &mut self.mode {
            d.set_gzip_header(h.clone());
        }
        self.gzhead = Some(h);
        Z_OK
    }

    /// `deflatePrime`.
    pub fn prime(&mut self, bits: u32, value: u32) -> i32 {
        if self.finished {
            return Z_STREAM_ERROR;
        }
        self.primed = true;
        if let Mode::Buffer(_) = self.mode {
            if let Err(c) = self.go_inline() {
                return c;
            }
        }
        match &mut self.mode {
            Mode::Inline(d) => match d.prime(bits, value) {
                Ok(()) => Z_OK,
                Err(_) => Z_BUF_ERROR,
            },
            // Parallel blocks are byte-aligned by construction: bits cannot be inserted.
            _ => Z_BUF_ERROR,
        }
    }

    /// `deflatePending`: bytes and bits not yet delivered.
    pub fn pending(&self) -> (usize, u32) {
        let q = self.pending_queue();
        match &self.mode {
            Mode::Inline(d) => {
                let (b, bits) = d.pending();
                (q + b, bits)
            }
            _ => (q, 0),
        }
    }

    /// `deflateReset`: a new stream with the same parameters and header.
    pub fn reset(&mut self) {
        self.release();
        let old = std::mem::replace(&mut self.mode, Mode::Done);
        if let Mode::Inline(mut d) = old {
            d.reset();
            self.spare = Some((self.params, d));
        }
        self.mode = Mode::Buffer(Vec::new());
        self.queue.clear();
        self.qpos = 0;
        self.dict = None;
        self.primed = false;
        self.last_flush = -2;
        self.finished = false;
        self.check = if self.format == Format::Zlib { 1 } else { 0 };
        self.total_in = 0;
        self.total_out = 0;
    }

    /// `deflateCopy`: an independent copy continuing from the same point.
    pub fn duplicate(&mut self) -> Option<DeflateStream> {
        let mode = match &mut self.mode {
            Mode::Buffer(b) => {
                if !config::reserve(b.len()) {
                    return None;
                }
                Mode::Buffer(b.clone())
            }
            Mode::Inline(d) => Mode::Inline(d.clone()),
            Mode::Parallel(pd) => {
                pd.settle(&mut self.queue);
                Mode::Parallel(Box::new(pd.duplicate()?))
            }
            Mode::Done => Mode::Done,
        };
        let reserved = if let Mode::Buffer(b) = &mode {
            b.len()
        } else {
            0
        };
        Some(DeflateStream {
            format: self.format,
            params: self.params,
            mode,
            queue: self.queue[self.qpos..].to_vec(),
            qpos: 0,
            reserved,
            gzhead: self.gzhead.clone(),
            dict: self.dict.clone(),
            primed: self.primed,
            spare: None,
            last_flush: self.last_flush,
            finished: self.finished,
            check: self.check,
            total_in: self.total_in,
            total_out: self.total_out,
        })
    }
}

impl Drop for DeflateStream {
    fn drop(&mut self) {
        self.release();
        if let Some((p, d)) = self.spare.take() {
            pool::give_deflater(self.format, p, d);
        }
        if let Mode::Inline(d) = std::mem::replace(&mut self.mode, Mode::Done) {
            if !self.primed {
                pool::give_deflater(self.format, self.params, d);
            }
        }
    }
}
