//! The streaming decoder: input and output in pieces of any size, down to one byte.
//!
//! Data is decoded into an internal window (32 KiB of history plus up to 64 KiB of fresh output)
//! and copied out as the caller's output space allows, so a match never needs the caller's
//! buffer as history. The window grows with the output: a stream whose calls each decode little
//! (a server's connection inflating one short message per call) keeps 4 KiB of room past its
//! history, a bulk stream gets the whole 64 KiB (see `Inflater::make_room`).
//! Each call consumes what it can and always makes progress when it can; at the end
//! of a stream it stops exactly after the trailer, leaving the next member's bytes unconsumed.
//!
//! An error comes after the output that precedes it: a call that meets an error with output
//! decoded before it (delivered in this call, or decoded ahead and not yet delivered) returns
//! that output, and a later call returns the error, once everything before it is out
//! ([`Inflater::pending_error`] says when). So a damaged stream yields everything up to the
//! damage, as it does from zlib, which decodes no further than its caller's output space.
#![forbid(unsafe_code)]

use super::container::{self, Header, MAX_FIELD};
use super::core::{Core, Status};
use super::error::{ErrorKind, InflateError};
use crate::checksum::{adler32, crc32};
use crate::format::{Format, GzipHeader};

/// History kept for matches.
const HISTORY: usize = 32 * 1024;
/// Window size: history plus room to decode ahead of the caller.
const WINDOW: usize = HISTORY + 64 * 1024;
/// The window starts this small and doubles as output grows, so the many short streams of a
/// server hold a few KiB each rather than the whole window (zlib allocates its window lazily
/// for the same reason).
const INITIAL_WINDOW: usize = 4 * 1024;
/// Room past the history in the window of a stream whose calls decode little each: the history
/// moves to the front once per 4 KiB decoded.
const SMALL_AHEAD: usize = 4 * 1024;
/// Room past the history, per byte a call decodes on average (since the window last changed):
/// 16 makes moving the 32 KiB of history cost two copies per byte at most, against the
/// decoding's one.
const AHEAD_PER_CALL_BYTE: usize = 16;

/// Where the decoder stands after a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamState {
    /// More input or output space is needed.
    Progress,
    /// The stream (one zlib stream or one gzip member) ended and its trailer checked out.
    StreamEnd,
    /// A zlib stream needs the preset dictionary with this Adler-32: call
    /// [`Inflater::set_dictionary`].
    NeedDictionary(u32),
}

/// The result of one [`Inflater::inflate`] call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InflateStatus {
    /// Input bytes consumed.
    pub consumed: usize,
    /// Output bytes written.
    pub produced: usize,
    /// Where the stream stands.
    pub state: StreamState,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Header,
    NeedDict(u32),
    Body,
    Trailer,
    Done,
}

/// A resumable decoder for one raw, zlib or gzip stream.
#[derive(Clone)]
pub struct Inflater {
    format: Format,
    window_bits: u8,
    core: Core,
    phase: Phase,
    hdr: Vec<u8>,
    trailer: Vec<u8>,
    win: Vec<u8>,
    wlen: usize,
    delivered: usize,
    check: u32,
    member_out: u64,
    total_in: u64,
    total_out: u64,
    header: Option<GzipHeader>,
    failed: Option<InflateError>,
    /// An error met with output before it still to deliver (see the module comment).
    deferred: Option<InflateError>,
    /// Verify the trailer's check value (zlib's `inflateValidate`; off after a resync).
    verify: bool,
    /// The window size a zlib header declared (log2), once read.
    declared_bits: Option<u8>,
    /// Calls (`inflate`) and bytes decoded since the window last grew or moved its history.
    calls: usize,
    decoded: usize,
}

impl Inflater {
    /// A decoder for `format` with a window of 2^`window_bits` bytes (8..=15; streams declaring
    /// a larger window are rejected for zlib).
    pub fn new(format: Format, window_bits: u8) -> Self {
        Inflater {
            format,
            window_bits: window_bits.clamp(8, 15),
            core: Core::default(),
            phase: Phase::Header,
            hdr: Vec::new(),
            trailer: Vec::new(),
            win: vec![0; INITIAL_WINDOW],
            wlen: 0,
            delivered: 0,
            check: if format == Format::Zlib { 1 } else { 0 },
            member_out: 0,
            total_in: 0,
            total_out: 0,
            header: None,
            failed: None,
            deferred: None,
            verify: true,
            declared_bits: None,
            calls: 0,
            decoded: 0,
        }
    }

    /// Starts a new stream for `format` with a window of 2^`window_bits` bytes, keeping the
    /// allocations (a pooled decoder reused for another stream).
    pub fn reconfigure(&mut self, format: Format, window_bits: u8) {
        self.format = format;
        self.window_bits = window_bits.clamp(8, 15);
        self.reset();
    }

    /// The error the next call will return, once the output before it has all been delivered
    /// (see the module comment): a caller that wants the output and the error from one call,
    /// as zlib's `inflate()` gives them, checks this after a call that made progress.
    pub fn pending_error(&self) -> Option<InflateError> {
        self.deferred.filter(|_| self.delivered == self.wlen)
    }

    /// Starts a new stream with the same settings (keeps the allocations).
    pub fn reset(&mut self) {
        self.core.reset();
        self.phase = Phase::Header;
        self.hdr.clear();
        self.trailer.clear();
        self.wlen = 0;
        self.delivered = 0;
        self.check = if self.format == Format::Zlib { 1 } else { 0 };
        self.member_out = 0;
        self.total_in = 0;
        self.total_out = 0;
        self.header = None;
        self.failed = None;
        self.deferred = None;
        self.verify = true;
        self.declared_bits = None;
        self.calls = 0;
        self.decoded = 0;
        self.core.stop_at_block = false;
        self.core.stop_after_header = false;
    }

    /// Stop before every block header, after delivering all output before it (zlib's
    /// `Z_BLOCK`): `inflate` then returns with [`Inflater::at_block_boundary`] true.
    pub fn set_stop_at_block(&mut self, stop: bool) {
        self.core.stop_at_block = stop;
    }

    /// Also stop after every block header, before the block's data, after delivering all
    /// output before it (zlib's `Z_TREES`): `inflate` then returns with
    /// [`Inflater::at_header_end`] true.
    pub fn set_stop_after_header(&mut self, stop: bool) {
        self.core.stop_after_header = stop;
    }

    /// Whether the trailer's Adler-32/CRC-32 (and gzip length) is verified (default true).
    pub fn set_verify(&mut self, verify: bool) {
        self.verify = verify;
    }

    /// The whole bytes still held in the bit buffer, handed back (zlib's `inflateSync` searches
    /// them first). The stream must be resynchronised afterwards.
    pub fn take_buffered_bytes(&mut self) -> Vec<u8> {
        self.core.align();
        let mut v = Vec::new();
        while let Some(b) = self.core.take_byte() {
            v.push(b);
        }
        v
    }

    /// Restarts decoding at a block header after a full-flush point found by the caller
    /// (zlib's `inflateSync`): history is dropped, and the trailer, if any, is read but not
    /// verified. A stream whose header was never seen continues as raw DEFLATE.
    pub fn resync(&mut self) {
        if self.phase == Phase::Header {
            self.format = Format::Raw;
        }
        self.core.reset();
        self.phase = Phase::Body;
        self.wlen = 0;
        self.delivered = 0;
        self.trailer.clear();
        self.failed = None;
        self.deferred = None;
        self.verify = false;
    }

    /// True right after a stored block's header (zlib's `inflateSyncPoint`).
    pub fn at_sync_point(&self) -> bool {
        self.phase == Phase::Body && self.core.at_stored_start()
    }

    /// The running check of the output delivered so far (Adler-32 for zlib, CRC-32 for gzip,
    /// 0 for raw), as zlib keeps it in `strm->adler`.
    pub fn checksum(&self) -> u32 {
        self.check
    }

    /// True while the decoder waits for a zlib preset dictionary.
    pub fn needs_dictionary(&self) -> bool {
        matches!(self.phase, Phase::NeedDict(_))
    }

    /// Empties the bit buffer (zlib's `inflatePrime` with negative bits).
    pub fn clear_bits(&mut self) {
        self.core.clear_bits();
    }

    /// Entries in the current decoding tables (zlib's `inflateCodesUsed` diagnostic).
    pub fn table_entries(&self) -> usize {
        self.core.table_entries()
    }

    /// True once the stream (and its trailer) has been completely decoded.
    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }

    /// The container being decoded.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The gzip header, once parsed.
    pub fn gzip_header(&self) -> Option<&GzipHeader> {
        self.header.as_ref()
    }

    /// Input bytes consumed since the start (or the last reset).
    pub fn total_in(&self) -> u64 {
        self.total_in
    }

    /// Output bytes produced since the start (or the last reset).
    pub fn total_out(&self) -> u64 {
        self.total_out
    }

    /// The history window (up to 32 KiB of the most recent output), as zlib's
    /// `inflateGetDictionary` returns it.
    pub fn window(&self) -> &[u8] {
        let end = self.delivered;
        &self.win[end.saturating_sub(HISTORY)..end]
    }

    /// The window size (log2, 8..=15) the zlib header declared, once it has been read (zlib's
    /// `inflate` adopts it when asked for windowBits 0).
    pub fn declared_window_bits(&self) -> Option<u8> {
        self.declared_bits
    }

    /// True when the decoder stands between blocks.
    pub fn at_block_boundary(&self) -> bool {
        // Only once everything before the boundary has been handed out (zlib decodes straight
        // into the caller's buffer, so its boundary always comes after the output).
        self.phase == Phase::Body && self.core.at_block_boundary() && self.delivered == self.wlen
    }

    /// True when the decoder stopped after a block header, before its data (see
    /// [`Inflater::set_stop_after_header`]), and all output before it was delivered.
    pub fn at_header_end(&self) -> bool {
        self.phase == Phase::Body && self.core.at_header_end() && self.delivered == self.wlen
    }

    /// True once the final block's header was read.
    pub fn in_last_block(&self) -> bool {
        self.core.in_last_block()
    }

    /// Bits of input held unconsumed in the bit buffer.
    pub fn pending_bits(&self) -> u32 {
        self.core.pending_bits()
    }

    /// Inserts bits ahead of the next input (zlib's `inflatePrime`); false if they do not fit.
    pub fn prime(&mut self, bits: u32, value: u32) -> bool {
        if self.phase == Phase::Header && self.format == Format::Raw {
            self.phase = Phase::Body;
        }
        self.core.prime(bits, value)
    }

    /// Supplies the preset dictionary: after [`StreamState::NeedDictionary`] for zlib, or before
    /// any data for raw streams.
    pub fn set_dictionary(&mut self, dict: &[u8]) -> Result<(), InflateError> {
        let at = self.total_in;
        match self.phase {
            Phase::NeedDict(id) => {
                if adler32(1, dict) != id {
                    return Err(InflateError::new(ErrorKind::WrongDictionary, at));
                }
            }
            Phase::Header | Phase::Body if self.format == Format::Raw && self.member_out == 0 => {}
            _ => return Err(InflateError::new(ErrorKind::WrongDictionary, at)),
        }
        let d = &dict[dict.len().saturating_sub(HISTORY)..];
        if self.win.len() < d.len() + INITIAL_WINDOW {
            self.win.resize((d.len() + INITIAL_WINDOW).min(WINDOW), 0);
        }
        self.win[..d.len()].copy_from_slice(d);
        self.wlen = d.len();
        self.delivered = d.len();
        self.phase = Phase::Body;
        Ok(())
    }

    fn deliver(&mut self, output: &mut [u8], produced: &mut usize) {
        let n = (self.wlen - self.delivered).min(output.len() - *produced);
        if n == 0 {
            return;
        }
        let chunk = &self.win[self.delivered..self.delivered + n];
        output[*produced..*produced + n].copy_from_slice(chunk);
        self.check = match self.format {
            Format::Gzip => crc32(self.check, chunk),
            Format::Zlib => adler32(self.check, chunk),
            Format::Raw => 0,
        };
        self.delivered += n;
        *produced += n;
        self.member_out += n as u64;
    }

    /// Grows the window, or moves its last 32 KiB to the front once everything after them has
    /// been delivered. Below 32 KiB it doubles; past that, the room after the history is
    /// [`AHEAD_PER_CALL_BYTE`] times what a call decoded on average since the last change, a
    /// power of two from [`SMALL_AHEAD`] to 64 KiB, so a connection inflating a short message
    /// per call holds 36 KiB and a bulk stream 96 KiB. Matches reach 32 KiB back whatever the
    /// window's size (after a move, `wlen` is 32 KiB), so it changes no output, only how often
    /// the history is copied.
    fn make_room(&mut self) {
        let len = self.win.len();
        // No call since the last change: this call alone fills the window, a bulk stream.
        let ahead = match self.decoded.checked_div(self.calls) {
            None => WINDOW - HISTORY,
            Some(per_call) => (per_call * AHEAD_PER_CALL_BYTE)
                .next_power_of_two()
                .clamp(SMALL_AHEAD, WINDOW - HISTORY),
        };
        let grow = if len < HISTORY {
            (len * 2).min(HISTORY)
        } else {
            len.max(HISTORY + ahead)
        };
        if grow > len {
            // Exactly: `resize` alone would double the capacity.
            self.win.reserve_exact(grow - len);
            self.win.resize(grow, 0);
        } else if self.delivered == self.wlen {
            let keep = self.wlen.min(HISTORY);
            self.win.copy_within(self.wlen - keep..self.wlen, 0);
            self.wlen = keep;
            self.delivered = keep;
        } else {
            return;
        }
        self.calls = 0;
        self.decoded = 0;
    }

    /// Decodes from `input` into `output`.
    pub fn inflate(
        &mut self,
        input: &[u8],
        output: &mut [u8],
    ) -> Result<InflateStatus, InflateError> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let mut ip = 0;
        let mut produced = 0;
        self.calls += 1;
        let mut result = self.step(input, &mut ip, output, &mut produced);
        if let Err(e) = result {
            // What was decoded before the error goes out first.
            self.deliver(output, &mut produced);
            if produced > 0 || self.delivered < self.wlen {
                // Output before the error first (see the module comment).
                self.deferred = Some(e);
                result = Ok(StreamState::Progress);
            }
        }
        self.total_in += ip as u64;
        self.total_out += produced as u64;
        match result {
            Ok(state) => Ok(InflateStatus {
                consumed: ip,
                produced,
                state,
            }),
            Err(e) => {
                self.failed = Some(e);
                Err(e)
            }
        }
    }

    fn step(
        &mut self,
        input: &[u8],
        ip: &mut usize,
        output: &mut [u8],
        produced: &mut usize,
    ) -> Result<StreamState, InflateError> {
        let base = self.total_in;
        let err = |kind, at: usize| InflateError::new(kind, base + at as u64);
        loop {
            if self.delivered < self.wlen {
                self.deliver(output, produced);
                if self.delivered < self.wlen {
                    return Ok(StreamState::Progress);
                }
            }
            if let Some(e) = self.deferred {
                if *produced > 0 {
                    return Ok(StreamState::Progress);
                }
                self.deferred = None;
                return Err(e);
            }
            match self.phase {
                Phase::Header => {
                    if self.format == Format::Raw {
                        // zlib's Z_BLOCK does not stop before the first block of a raw stream
                        // (it stops there after a zlib or gzip header).
                        self.core.skip_next_stop();
                        self.phase = Phase::Body;
                        continue;
                    }
                    let prev = self.hdr.len();
                    let take = (input.len() - *ip).min(2 * MAX_FIELD + 70_000 - prev);
                    self.hdr.extend_from_slice(&input[*ip..*ip + take]);
                    let parsed = match self.format {
                        Format::Zlib => container::parse_zlib(&self.hdr),
                        _ => container::parse_gzip(&self.hdr),
                    };
                    match parsed {
                        Ok(Some((h, n))) => {
                            *ip += n - prev;
                            self.hdr.clear();
                            match h {
                                Header::Gzip(g) => {
                                    self.header = Some(g);
                                    self.phase = Phase::Body;
                                }
                                Header::Zlib {
                                    window_bits,
                                    dict_id,
                                } => {
                                    if window_bits > self.window_bits {
                                        return Err(err(ErrorKind::BadWindowSize, 0));
                                    }
                                    self.declared_bits = Some(window_bits);
                                    self.phase = match dict_id {
                                        Some(id) => Phase::NeedDict(id),
                                        None => Phase::Body,
                                    };
                                }
                            }
                        }
                        Ok(None) => {
                            *ip += take;
                            return Ok(StreamState::Progress);
                        }
                        Err((k, at)) => {
                            let at = at.saturating_sub(prev);
                            *ip += at;
                            return Err(err(k, *ip));
                        }
                    }
                }
                Phase::NeedDict(id) => return Ok(StreamState::NeedDictionary(id)),
                Phase::Body => {
                    if self.wlen + 300 > self.win.len() {
                        self.make_room();
                    }
                    let before = self.wlen;
                    let status = self
                        .core
                        .run(input, ip, &mut self.win, &mut self.wlen, 0)
                        .map_err(|k| err(k, *ip))?;
                    self.decoded += self.wlen - before;
                    match status {
                        Status::OutputFull => continue,
                        Status::BlockBoundary => {
                            self.deliver(output, produced);
                            if self.delivered < self.wlen {
                                // Deliver the rest first; the boundary is reported again.
                                self.core.unstop();
                            }
                            return Ok(StreamState::Progress);
                        }
                        Status::HeaderEnd => {
                            self.deliver(output, produced);
                            if self.delivered < self.wlen {
                                // The same for the end of a header.
                                self.core.unstop_header();
                            }
                            return Ok(StreamState::Progress);
                        }
                        Status::NeedInput => {
                            self.deliver(output, produced);
                            return Ok(StreamState::Progress);
                        }
                        Status::Done => {
                            self.core.align();
                            while let Some(b) = self.core.take_byte() {
                                self.trailer.push(b);
                            }
                            self.phase = Phase::Trailer;
                        }
                    }
                }
                Phase::Trailer => {
                    let need = match self.format {
                        Format::Raw => 0,
                        Format::Zlib => 4,
                        Format::Gzip => 8,
                    };
                    let n = (need - self.trailer.len().min(need)).min(input.len() - *ip);
                    self.trailer.extend_from_slice(&input[*ip..*ip + n]);
                    *ip += n;
                    // The trailer's bytes are the last ones consumed: its first is at `start`.
                    // Each field is checked as soon as its four bytes are there (zlib does the
                    // same; see `container::check_gzip_crc`), and reported at its first byte.
                    let start = base + *ip as u64 - self.trailer.len() as u64;
                    let t = &self.trailer;
                    let field = |i: usize| -> [u8; 4] { t[i..i + 4].try_into().unwrap() };
                    let at = |k, f: u64| InflateError::new(k, start + 4 * f);
                    if self.verify && t.len() >= 4 {
                        match self.format {
                            Format::Zlib => container::check_zlib_trailer(&field(0), self.check)
                                .map_err(|k| at(k, 0))?,
                            Format::Gzip => {
                                container::check_gzip_crc(field(0), self.check)
                                    .map_err(|k| at(k, 0))?;
                                if t.len() >= 8 {
                                    container::check_gzip_isize(field(4), self.member_out)
                                        .map_err(|k| at(k, 1))?;
                                }
                            }
                            Format::Raw => {}
                        }
                    }
                    if self.trailer.len() < need {
                        return Ok(StreamState::Progress);
                    }
                    self.phase = Phase::Done;
                }
                Phase::Done => return Ok(StreamState::StreamEnd),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deflate::{Deflater, Flush, Params};

    /// Compresses each message with a sync flush; returns the pieces.
    fn flushed(msgs: &[Vec<u8>]) -> Vec<Vec<u8>> {
        let mut d = Deflater::new(Format::Raw, Params::default()).unwrap();
        let mut obuf = vec![0u8; 1 << 20];
        msgs.iter()
            .map(|m| {
                let st = d.deflate(m, &mut obuf, Flush::Sync).unwrap();
                assert_eq!(st.consumed, m.len());
                obuf[..st.produced].to_vec()
            })
            .collect()
    }

    /// Inflates each piece with one call and checks it gives its message.
    fn inflate_each(inf: &mut Inflater, pieces: &[Vec<u8>], msgs: &[Vec<u8>]) {
        let mut obuf = vec![0u8; 1 << 20];
        for (p, m) in pieces.iter().zip(msgs) {
            let st = inf.inflate(p, &mut obuf).unwrap();
            assert_eq!((st.consumed, &obuf[..st.produced]), (p.len(), &m[..]));
        }
    }

    #[test]
    fn window_room_follows_what_calls_decode() {
        // A connection's short messages, one per call: 36 KiB of window, the history moved
        // to its front about once per 4 KiB; matches reach the whole 32 KiB back.
        let mut text = Vec::new();
        let msgs: Vec<Vec<u8>> = (0..4000u32)
            .map(|i| {
                let m = format!(
                    "{{\"id\": {i}, \"user\": \"u{}\", \"path\": \"/items/{}\"}}",
                    i * 7919 % 501,
                    i * 104_729 % 10_007
                );
                text.extend_from_slice(m.as_bytes());
                // Every 100th message repeats 200 bytes from about 32,700 bytes back.
                let mut m = m.into_bytes();
                if i % 100 == 99 && text.len() > 33_000 {
                    let at = text.len() - 32_700;
                    m.extend_from_slice(&text[at..at + 200]);
                    let tail = m[m.len() - 200..].to_vec();
                    text.extend_from_slice(&tail);
                }
                m
            })
            .collect();
        let pieces = flushed(&msgs);
        let mut inf = Inflater::new(Format::Raw, 15);
        inflate_each(&mut inf, &pieces, &msgs);
        assert!(text.len() > 2 * WINDOW);
        assert_eq!(inf.win.capacity(), HISTORY + SMALL_AHEAD);

        // Messages of about 1.5 KB a call: 16 times that past the history.
        let mid: Vec<Vec<u8>> = msgs.chunks(25).map(|c| c.concat()).collect();
        let mut inf = Inflater::new(Format::Raw, 15);
        inflate_each(&mut inf, &flushed(&mid), &mid);
        assert_eq!(inf.win.capacity(), HISTORY + 32 * 1024);

        // A bulk stream (all of it in one call, then from the small window): the whole window.
        let all = vec![msgs.concat()];
        let mut inf = Inflater::new(Format::Raw, 15);
        inflate_each(&mut inf, &flushed(&all), &all);
        assert_eq!(inf.win.len(), WINDOW);
        let mut inf = Inflater::new(Format::Raw, 15);
        inflate_each(&mut inf, &pieces[..1000], &msgs[..1000]);
        let cap = inf.win.capacity();
        assert!(cap < WINDOW, "{cap}");
        let rest = vec![msgs[1000..].concat()];
        let d = flushed(&[msgs[..1000].concat(), rest[0].clone()]);
        let mut again = Inflater::new(Format::Raw, 15);
        inflate_each(&mut again, &d[..1], &[msgs[..1000].concat()]);
        inflate_each(&mut again, &d[1..], &rest);
        assert_eq!(again.win.len(), WINDOW);
    }
}
