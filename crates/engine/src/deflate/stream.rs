//! The streaming compressor with zlib's semantics (deflate, deflateParams, deflatePrime,
//! deflateSetDictionary, deflatePending, deflateReset).
//!
//! Input is buffered behind up to one window of history and parsed in segments of the level's
//! size ([`SEGMENT`](super::SEGMENT), or [`OPTIMAL_SEGMENT`](super::OPTIMAL_SEGMENT) at levels
//! 10-12) at the same stream offsets the whole-buffer path uses, so with `Flush::None` the
//! output is byte-identical to [`super::compress`] however the input is split. Compressed bytes
//! wait in the bit writer's buffer (`pending`) until the caller's output has room; a new segment
//! is only parsed once the previous one's output has been delivered, bounding memory to about
//! one segment of input and one of output.
#![forbid(unsafe_code)]

use super::block::write_stored;
use super::container;
use super::ctx::Ctx;
use super::{
    apply_strategy, make_ctx, segment, DeflateError, DeflateStatus, Flush, Params, Strategy, LEVELS,
};
use crate::checksum::{adler32, crc32};
use crate::format::{Format, GzipHeader};

/// Streaming, zlib-semantics compressor.
#[derive(Clone)]
pub struct Deflater {
    format: Format,
    params: Params,
    ctx: Ctx,
    /// History (first `hist` bytes) followed by unparsed input.
    inbuf: Vec<u8>,
    hist: usize,
    /// Bytes of `ctx.w.out` already handed to the caller.
    delivered: usize,
    header_done: bool,
    finished: bool,
    /// zlib's last_flush: -2 never called, -1 output ran full, else rank.
    last_flush: i32,
    total_in: u64,
    total_out: u64,
    check: u32,
    dict_id: Option<u32>,
    gzhead: Option<GzipHeader>,
}

impl Deflater {
    /// A compressor for `format` with `params` (validated: level <= 12, window 9..=15, memLevel 1..=9).
    pub fn new(format: Format, params: Params) -> Result<Self, DeflateError> {
        if params.level > 12
            || !(9..=15).contains(&params.window_bits)
            || !(1..=9).contains(&params.mem_level)
        {
            return Err(DeflateError::BadParams);
        }
        let mut d = Deflater {
            format,
            params,
            ctx: make_ctx(&params),
            inbuf: Vec::new(),
            hist: 0,
            delivered: 0,
            header_done: false,
            finished: false,
            last_flush: -2,
            total_in: 0,
            total_out: 0,
            check: 0,
            dict_id: None,
            gzhead: None,
        };
        d.reset();
        Ok(d)
    }

    /// Sets a preset dictionary: zlib format only before the first `deflate`, raw format when no
    /// input is buffered; not allowed for gzip.
    pub fn set_dictionary(&mut self, dict: &[u8]) -> Result<(), DeflateError> {
        if self.finished || self.format == Format::Gzip || self.inbuf.len() > self.hist {
            return Err(DeflateError::BadState);
        }
        if self.format == Format::Zlib {
            if self.header_done {
                return Err(DeflateError::BadState);
            }
            let id = adler32(1, dict);
            self.dict_id = Some(id);
            self.check = id;
        }
        self.inbuf.extend_from_slice(dict);
        self.hist = self.inbuf.len();
        self.trim_history();
        Ok(())
    }

    /// Sets the gzip header fields written at the start of a gzip stream.
    pub fn set_gzip_header(&mut self, h: GzipHeader) {
        self.gzhead = Some(h);
    }

    /// Forgets the fields [`Deflater::set_gzip_header`] set ([`Deflater::reset`] keeps them,
    /// as zlib's `deflateReset` does): the next stream gets the default header.
    pub fn clear_gzip_header(&mut self) {
        self.gzhead = None;
    }

    /// Compresses as much of `input` into `output` as possible (zlib's deflate()).
    pub fn deflate(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        flush: Flush,
    ) -> Result<DeflateStatus, DeflateError> {
        if output.is_empty() {
            return Err(DeflateError::BufferError);
        }
        if self.finished && (flush != Flush::Finish || !input.is_empty()) {
            return Err(DeflateError::StreamFinished);
        }
        let old = self.last_flush;
        self.last_flush = flush.rank();
        self.write_header();
        let mut st = DeflateStatus {
            consumed: 0,
            produced: 0,
            done: false,
        };
        let had_pending = self.pending_bytes() > 0;
        if had_pending {
            self.drain(output, &mut st);
            if self.pending_bytes() > 0 {
                self.last_flush = -1;
                return Ok(st);
            }
        } else if input.is_empty() && flush.rank() <= old && flush != Flush::Finish {
            return Err(DeflateError::BufferError);
        }
        loop {
            self.drain(output, &mut st);
            if self.pending_bytes() > 0 {
                break;
            }
            let seg = self.ctx.row.segment();
            if self.inbuf.len() - self.hist > seg {
                let (h, end) = (self.hist, self.hist + seg);
                segment(
                    &mut self.ctx,
                    self.params.strategy,
                    &self.inbuf[..end],
                    h,
                    end,
                    false,
                );
                self.hist = end;
                self.trim_history();
                continue;
            }
            if st.consumed < input.len() {
                let room = seg + 1 - (self.inbuf.len() - self.hist);
                let take = (input.len() - st.consumed).min(room);
                let chunk = &input[st.consumed..st.consumed + take];
                self.update_check(chunk);
                self.inbuf.extend_from_slice(chunk);
                st.consumed += take;
                self.total_in += take as u64;
                continue;
            }
            break;
        }
        if st.consumed == input.len()
            && self.pending_bytes() == 0
            && flush != Flush::None
            && !self.finished
        {
            self.flush_action(flush);
            self.drain(output, &mut st);
        }
        if self.pending_bytes() > 0 {
            self.last_flush = -1;
        }
        st.done = self.finished && self.pending_bytes() == 0;
        Ok(st)
    }

    /// Changes level and strategy (zlib deflateParams): if they change after data was given, the
    /// current block is completed first (as `Flush::Block`).
    pub fn set_params(&mut self, level: u32, strategy: Strategy) -> Result<(), DeflateError> {
        if level > 12 {
            return Err(DeflateError::BadParams);
        }
        if self.finished {
            return Err(DeflateError::StreamFinished);
        }
        let changed = LEVELS[level as usize] != self.ctx.row || strategy != self.params.strategy;
        if changed && self.last_flush != -2 {
            self.write_header();
            self.flush_action(Flush::Block);
        }
        self.params.level = level;
        self.params.strategy = strategy;
        self.ctx.row = LEVELS[level as usize];
        apply_strategy(&mut self.ctx, strategy);
        Ok(())
    }

    /// Inserts `bits` (<= 16) low bits of `value` into the output (zlib deflatePrime).
    pub fn prime(&mut self, bits: u32, value: u32) -> Result<(), DeflateError> {
        if bits > 16 {
            return Err(DeflateError::BadParams);
        }
        if self.finished {
            return Err(DeflateError::StreamFinished);
        }
        self.write_header();
        self.ctx.w.put(value & ((1u32 << bits) - 1), bits);
        Ok(())
    }

    /// Output not yet delivered: whole bytes and extra bits (zlib deflatePending).
    pub fn pending(&self) -> (usize, u32) {
        let r = self.ctx.w.bits_in_register();
        (self.pending_bytes() + (r / 8) as usize, r % 8)
    }

    /// Starts a new stream with the same parameters (and gzip header), keeping allocations.
    pub fn reset(&mut self) {
        self.ctx.start_stream();
        self.inbuf.clear();
        self.hist = 0;
        self.delivered = 0;
        self.header_done = false;
        self.finished = false;
        self.last_flush = -2;
        self.total_in = 0;
        self.total_out = 0;
        self.dict_id = None;
        self.check = if self.format == Format::Gzip { 0 } else { 1 };
    }

    /// The most recent input (up to the window size, unparsed input included), which zlib's
    /// `deflateGetDictionary` returns.
    pub fn history(&self) -> &[u8] {
        let w = 1usize << self.params.window_bits;
        &self.inbuf[self.inbuf.len().saturating_sub(w)..]
    }

    /// Input bytes consumed so far.
    pub fn total_in(&self) -> u64 {
        self.total_in
    }

    /// Output bytes produced so far.
    pub fn total_out(&self) -> u64 {
        self.total_out
    }

    /// Running Adler-32 (zlib; the dictionary id before the first deflate), CRC-32 (gzip), or 1 (raw).
    pub fn checksum(&self) -> u32 {
        self.check
    }

    fn pending_bytes(&self) -> usize {
        self.ctx.w.out.len() - self.delivered
    }

    fn update_check(&mut self, data: &[u8]) {
        match self.format {
            Format::Raw => {}
            Format::Zlib => self.check = adler32(self.check, data),
            Format::Gzip => self.check = crc32(self.check, data),
        }
    }

    fn write_header(&mut self) {
        if self.header_done {
            return;
        }
        self.header_done = true;
        let p = &self.params;
        let hr = matches!(p.strategy, Strategy::HuffmanOnly | Strategy::Rle);
        match self.format {
            Format::Raw => {}
            Format::Zlib => {
                container::zlib_header(
                    &mut self.ctx.w.out,
                    p.window_bits,
                    p.level,
                    hr,
                    self.dict_id,
                );
                self.check = 1;
            }
            Format::Gzip => {
                let h = self.gzhead.clone().unwrap_or_default();
                container::gzip_header(&mut self.ctx.w.out, &h, container::gzip_xfl(p.level, hr));
            }
        }
    }

    /// Keeps at most one window of history in `inbuf`.
    fn trim_history(&mut self) {
        let w = self.ctx.max_dist;
        if self.hist > w {
            let cut = self.hist - w;
            self.inbuf.drain(..cut);
            self.hist = w;
        }
    }

    /// Parses all buffered input and performs `flush`'s marker / finish.
    fn flush_action(&mut self, flush: Flush) {
        let last = flush == Flush::Finish;
        let end = self.inbuf.len();
        segment(
            &mut self.ctx,
            self.params.strategy,
            &self.inbuf,
            self.hist,
            end,
            last,
        );
        self.hist = end;
        self.trim_history();
        match flush {
            Flush::None | Flush::Block => {}
            Flush::Partial => {
                self.ctx.w.put(1 << 1, 3);
                self.ctx.w.put(0, 7);
            }
            Flush::Sync | Flush::Full => {
                write_stored(&mut self.ctx.w, &[], false);
                if flush == Flush::Full {
                    self.inbuf.clear();
                    self.hist = 0;
                }
            }
            Flush::Finish => {
                self.ctx.w.align();
                let out = &mut self.ctx.w.out;
                match self.format {
                    Format::Raw => {}
                    Format::Zlib => out.extend_from_slice(&self.check.to_be_bytes()),
                    Format::Gzip => {
                        out.extend_from_slice(&self.check.to_le_bytes());
                        out.extend_from_slice(&(self.total_in as u32).to_le_bytes());
                    }
                }
                self.finished = true;
            }
        }
        self.ctx.w.flush_bytes();
    }

    /// Copies pending bytes into `output[st.produced..]`.
    fn drain(&mut self, output: &mut [u8], st: &mut DeflateStatus) {
        self.ctx.w.flush_bytes();
        let avail = &self.ctx.w.out[self.delivered..];
        let n = avail.len().min(output.len() - st.produced);
        output[st.produced..st.produced + n].copy_from_slice(&avail[..n]);
        st.produced += n;
        self.delivered += n;
        self.total_out += n as u64;
        if self.delivered == self.ctx.w.out.len() {
            self.ctx.w.out.clear();
            self.delivered = 0;
        }
    }
}
