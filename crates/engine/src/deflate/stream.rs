//! The streaming compressor with zlib's semantics (deflate, deflateParams, deflatePrime,
//! deflateSetDictionary, deflatePending, deflateReset).
//!
//! Input is buffered behind up to one window of history and parsed in segments of the level's
//! size ([`SEGMENT`](super::SEGMENT), or [`OPTIMAL_SEGMENT`](super::OPTIMAL_SEGMENT) at levels
//! 10-12) at the same stream offsets the whole-buffer path uses, so with `Flush::None` the
//! output is byte-identical to [`super::compress`] however the input is split. After a
//! segment ended by a flush the buffer keeps up to two windows (at least [`SLIDE_MIN`] past
//! one), so the next flushed segment can go on from its match finder's state
//! ([`Deflater::flush_action`]). Compressed bytes
//! wait in the bit writer's buffer (`pending`) until the caller's output has room; a new segment
//! is only parsed once the previous one's output has been delivered, bounding memory to about
//! one segment of input and one of output.
#![forbid(unsafe_code)]

use super::block::write_stored;
use super::container;
use super::ctx::Ctx;
use super::{
    apply_strategy, compress_segment, make_ctx, segment, DeflateError, DeflateStatus, Flush,
    Params, Strategy, LEVELS,
};
use crate::checksum::{adler32, crc32};
use crate::format::{Format, GzipHeader};

/// History held beyond the window before whole windows are slid out of the buffer behind a
/// carried match-finder state (see [`Deflater::slide_history`]): at least one window, and at
/// least this much, so a small window does not slide its hash table every few hundred bytes.
const SLIDE_MIN: usize = 16 << 10;

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
    /// A compressor for `format` with `params` (validated: level <= 12, window 9..=15, memLevel
    /// 1..=9).
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
        self.ctx.carry = None;
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
                // A whole segment starts afresh (as the whole-buffer path does).
                self.ctx.carry = None;
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

    /// Running Adler-32 (zlib; the dictionary id before the first deflate), CRC-32 (gzip), or 1
    /// (raw).
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

    /// Keeps at most one window of history in `inbuf`. The buffer's positions move, so no
    /// match-finder state carries over.
    fn trim_history(&mut self) {
        let w = self.ctx.max_dist;
        if self.hist > w {
            let cut = self.hist - w;
            self.inbuf.drain(..cut);
            self.hist = w;
            self.ctx.carry = None;
        }
    }

    /// Slides whole windows out of the front of the buffer once it holds [`SLIDE_MIN`] (and a
    /// window) more than a window of history, moving the carried match-finder state's
    /// positions with them (zlib's window slide): the buffer then keeps between one and two
    /// windows of history. If the state cannot move, it is dropped and the history trimmed.
    fn slide_history(&mut self) {
        let w = self.ctx.max_dist;
        if self.hist.saturating_sub(w) >= w.max(SLIDE_MIN) {
            let by = (self.hist - w) / w * w;
            if self.ctx.slide(by) {
                self.inbuf.drain(..by);
                self.hist -= by;
                return;
            }
            self.trim_history();
        }
    }

    /// Parses all buffered input and performs `flush`'s marker / finish.
    ///
    /// A segment ended by a flush other than `Finish` leaves its match finder's state
    /// ([`Ctx::keep`]), and the buffer keeps its positions (sliding whole windows out of it,
    /// [`Deflater::slide_history`]), so the next flushed segment goes on from that state
    /// instead of hashing its window of history again: a stream flushed after every short
    /// message (WebSocket's permessage-deflate, SSH, log shippers) used to take a window's
    /// worth of hashing per message, 10x zlib's time per 90-byte message. Whole segments (no
    /// flush) always start afresh, which keeps a stream without flushes byte-identical to the
    /// whole-buffer path. The bytes depend only on the input and the flush points.
    fn flush_action(&mut self, flush: Flush) {
        let last = flush == Flush::Finish;
        if self.ctx.carry.is_none() {
            self.trim_history();
        }
        let end = self.inbuf.len();
        self.ctx.keep = !last && flush != Flush::Full;
        compress_segment(
            &mut self.ctx,
            self.params.strategy,
            &self.inbuf,
            self.hist,
            last,
        );
        self.ctx.keep = false;
        self.hist = end;
        if self.ctx.carry.is_some() {
            self.slide_history();
        } else {
            self.trim_history();
        }
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
                    self.ctx.carry = None;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deflate::bytes::xorshift;
    use crate::deflate::ctx::Finder;
    use crate::deflate::matchfind::SMALL_SEGMENT;
    use crate::inflate::decompress;

    /// `n` log lines of about 90 bytes that share their fields and differ in their numbers.
    fn messages(n: usize) -> Vec<Vec<u8>> {
        let mut rnd = xorshift(0x2545_F491_4F6C_DD1D);
        let acts = ["click", "view", "buy", "scroll"];
        (0..n)
            .map(|i| {
                let r = rnd();
                format!(
                    "{{\"id\": {i}, \"user\": \"user{}\", \"action\": \"{}\", \"path\": \"/items/{}\"}}\n",
                    r % 501,
                    acts[(r >> 20) as usize % 4],
                    (r >> 32) % 10_001
                )
                .into_bytes()
            })
            .collect()
    }

    /// Compresses `m` and flushes it with `flush`, all in one call; returns the output.
    fn send(d: &mut Deflater, m: &[u8], flush: Flush) -> Vec<u8> {
        let mut out = vec![0u8; m.len() + 4096];
        let st = d.deflate(m, &mut out, flush).unwrap();
        assert_eq!(st.consumed, m.len());
        assert!(st.produced < out.len());
        out.truncate(st.produced);
        out
    }

    /// Messages each followed by a sync flush, 400 KB in all: at the levels whose parsers can
    /// (1, and 2-12 once the buffer holds the small chains' 4 KiB: 10-12 parse short flushed
    /// segments with level 9's chains), every flushed segment leaves its match finder's state
    /// for the next, and the buffer behind it slides (one to two windows of history, at least
    /// `SLIDE_MIN` past one) instead of growing; level 1's base shows it never starts afresh.
    /// Level 0 and the Huffman-only and RLE strategies leave no state and trim the buffer to
    /// its window at every flush. With windows of 512 bytes and 4 KiB too (the chains of a
    /// window under 4 KiB carry only until the first slide). Every stream decodes to the
    /// messages.
    #[test]
    fn flushed_segments_go_on_from_the_last_one() {
        let all = messages(4500);
        let mut cases: Vec<(u32, Strategy, u8)> =
            (0..=12).map(|l| (l, Strategy::Default, 15)).collect();
        cases.extend(
            [
                Strategy::Filtered,
                Strategy::Fixed,
                Strategy::HuffmanOnly,
                Strategy::Rle,
            ]
            .map(|s| (6, s, 15)),
        );
        cases.extend([
            (1, Strategy::Default, 9),
            (6, Strategy::Default, 9),
            (4, Strategy::Default, 12),
        ]);
        for (level, strategy, window_bits) in cases {
            let p = Params {
                level,
                strategy,
                window_bits,
                ..Params::default()
            };
            let msgs = &all[..];
            let mut d = Deflater::new(Format::Raw, p).unwrap();
            let carries = level >= 1 && !matches!(strategy, Strategy::HuffmanOnly | Strategy::Rle);
            let window = d.ctx.max_dist;
            let bound = window + window.max(SLIDE_MIN);
            let (mut z, mut base, mut slides) = (Vec::new(), None, 0);
            for m in msgs {
                // The buffer of the segment about to be parsed.
                let seg_buf = d.inbuf.len() + m.len();
                z.extend(send(&mut d, m, Flush::Sync));
                let carry = d.ctx.carry;
                let what = format!("level {level} {strategy:?} window {window}");
                if carries && (level == 1 || seg_buf >= SMALL_SEGMENT) {
                    let c = carry.unwrap_or_else(|| panic!("{what}: no carry"));
                    assert_eq!(c.end, d.inbuf.len(), "{what}");
                    assert!(d.inbuf.len() < bound, "{what}: {} held", d.inbuf.len());
                    slides += (d.inbuf.len() < seg_buf) as usize;
                    assert_eq!(matches!(c.finder, Finder::Fast { .. }), level == 1);
                    if let Finder::Fast { base: b, .. } = c.finder {
                        // Up by what slid out, never a fresh base.
                        if let Some(old) = base {
                            assert_eq!(b as usize, old + seg_buf - d.inbuf.len(), "{what}");
                        }
                        base = Some(b as usize);
                    }
                } else {
                    assert_eq!(carry, None, "{what}");
                    assert_eq!(d.inbuf.len(), seg_buf.min(window), "{what}");
                }
            }
            // (The chains of a window under the small chains' 4 KiB: once slid, the buffer is
            // that short, and each segment hashes its short history afresh.)
            if carries && (level == 1 || window >= SMALL_SEGMENT) {
                let total: usize = msgs.iter().map(|m| m.len()).sum();
                assert!(slides >= total / bound, "level {level}: {slides} slides");
            }
            z.extend(send(&mut d, &[], Flush::Finish));
            assert_eq!(
                decompress(Format::Raw, &z).unwrap(),
                msgs.concat(),
                "level {level} window {window}"
            );
        }
    }

    /// What moves the buffer or changes the match finder drops the carried state, and the
    /// stream still decodes: a full flush (history gone), a raw preset dictionary, a level
    /// change to another parser (chains to level 1's table, then level 10, whose short flushed
    /// segments start fresh chains). A flush with no new input keeps it.
    #[test]
    fn what_moves_the_buffer_drops_the_carry() {
        let msgs = messages(400);
        let mut d = Deflater::new(Format::Raw, Params::default()).unwrap();
        let mut z = Vec::new();
        let mut want = Vec::new();
        for (i, m) in msgs.iter().enumerate() {
            z.extend(send(&mut d, m, Flush::Sync));
            want.extend_from_slice(m);
            let carry = d.ctx.carry.map(|c| c.finder);
            match i {
                100 => {
                    assert!(matches!(carry, Some(Finder::Chains { .. })));
                    // A flush with nothing new to parse keeps the state.
                    z.extend(send(&mut d, b"then a block flush", Flush::Block));
                    want.extend_from_slice(b"then a block flush");
                    let carry = d.ctx.carry;
                    z.extend(send(&mut d, &[], Flush::Sync));
                    assert!(carry.is_some());
                    assert_eq!(d.ctx.carry, carry);
                }
                150 => {
                    z.extend(send(&mut d, b"", Flush::Full));
                    assert_eq!((d.ctx.carry, d.inbuf.len()), (None, 0));
                }
                200 => {
                    d.set_dictionary(b"a dictionary the decoder is not given")
                        .unwrap();
                    assert_eq!(d.ctx.carry, None);
                    // (The decoder cannot know it: end this check's stream here.)
                    z.extend(send(&mut d, &[], Flush::Finish));
                    assert_eq!(decompress(Format::Raw, &z).unwrap(), want);
                    d = Deflater::new(Format::Raw, Params::default()).unwrap();
                    (z, want) = (Vec::new(), Vec::new());
                }
                300 => {
                    d.set_params(1, Strategy::Default).unwrap();
                    assert!(matches!(
                        d.ctx.carry.map(|c| c.finder),
                        Some(Finder::Chains { .. })
                    ));
                }
                301 => assert!(matches!(carry, Some(Finder::Fast { .. }))),
                // Level 10 parses a short flushed segment with level 9's chains: level 1's
                // table is no use to them, and they start afresh.
                350 => d.set_params(10, Strategy::Default).unwrap(),
                351 => assert!(matches!(carry, Some(Finder::Chains { .. }))),
                _ => {}
            }
        }
        z.extend(send(&mut d, &[], Flush::Finish));
        assert_eq!(decompress(Format::Raw, &z).unwrap(), want);
    }

    /// Levels 10-12 parse a flushed segment of less than `FLUSHED_CHAINS_MAX` new bytes with
    /// level 9's chains, carried from one to the next: sync-flushed messages come to exactly
    /// level 9's stream (they were 8% larger with the binary trees, each message searched
    /// after its 32 KiB of history). A flushed segment of that size or more, and every
    /// unflushed one, keeps the near-optimal parse, which carries nothing; the next short one
    /// starts fresh chains. Every stream decodes.
    #[test]
    fn short_flushed_segments_at_levels_10_to_12_take_level_9s_chains() {
        let msgs = messages(1500);
        let run = |level: u32, msgs: &[Vec<u8>]| {
            let p = Params {
                level,
                ..Params::default()
            };
            let mut d = Deflater::new(Format::Raw, p).unwrap();
            let mut z = Vec::new();
            for m in msgs {
                // The buffer of the segment about to be parsed: under the small chains' 4 KiB
                // it leaves no state (as at level 9).
                let seg_buf = d.inbuf.len() + m.len();
                z.extend(send(&mut d, m, Flush::Sync));
                let short = m.len() < crate::deflate::FLUSHED_CHAINS_MAX;
                let chains = matches!(d.ctx.carry.map(|c| c.finder), Some(Finder::Chains { .. }));
                let want = short && seg_buf >= SMALL_SEGMENT;
                assert_eq!(chains, want, "level {level}, {} bytes", m.len());
            }
            z.extend(send(&mut d, &[], Flush::Finish));
            assert_eq!(decompress(Format::Raw, &z).unwrap(), msgs.concat());
            z
        };
        let nine = run(9, &msgs);
        for level in 10..=12 {
            assert_eq!(run(level, &msgs), nine, "level {level}");
        }
        // Long flushed pieces between short ones.
        let long: Vec<u8> = msgs[..400].concat();
        assert!(long.len() >= crate::deflate::FLUSHED_CHAINS_MAX);
        let mixed = [
            msgs[400].clone(),
            long.clone(),
            msgs[401].clone(),
            msgs[402].clone(),
            long,
        ];
        run(11, &mixed);
    }
}
