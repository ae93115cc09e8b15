//! The resumable DEFLATE block decoder (RFC 1951), shared by the whole-buffer and the streaming
//! APIs.
//!
//! Algorithm: a state machine over block headers, stored data, dynamic-table headers and coded
//! data. Coded data is decoded in units — a literal, an end-of-block, or a whole length+distance
//! pair — and a unit is consumed only once all its bits (at most 48) are in the 64-bit bit
//! buffer, so the decoder can stop between any two units and resume with the next input piece.
//! Only a match that does not fit the output space is split (the `Copy` state).
//!
//! Coded data goes through the loops of `fast.rs` while at least 16 input bytes and some
//! output room remain; they give back whole unread bytes on exit, so this slow path never
//! holds more than seven bits, which is what lets a stream end exactly at its last byte.
//!
//! Building the tables without data-dependent branches (libdeflate's bit-reversed increment,
//! unused symbols sorted with the rest) took callgrind's modelled mispredictions per bible.txt
//! decode from 246K to 214K and changed no measured time, on small files either.
#![forbid(unsafe_code)]

use super::copy;
use super::error::ErrorKind;
use super::fast::{self, Stop, FAST_IN, FAST_OUT, TAIL_OUT};
use super::huffman::{self as hf, Alphabet};

/// Order in which code-length code lengths are sent.
const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    BlockHeader,
    StoredLen,
    Stored { remaining: u32 },
    DynCounts,
    DynCl { i: usize },
    DynLens { i: usize },
    Codes,
    Copy { len: u32, dist: u32 },
    Done,
}

/// Why `run` returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// All input was used; more is needed.
    NeedInput,
    /// The output slice is full.
    OutputFull,
    /// The final block ended. Fewer than 8 bits remain in the bit buffer.
    Done,
    /// Stopped before a block header because `stop_at_block` is set (zlib's `Z_BLOCK`).
    BlockBoundary,
    /// Stopped after a block header, before the block's data, because `stop_after_header` is
    /// set (zlib's `Z_TREES`). Fewer than 8 bits remain in the bit buffer, as at a boundary,
    /// when the header's last bytes came in this call.
    HeaderEnd,
}

/// Decoder state between calls.
#[derive(Clone)]
pub struct Core {
    /// Return [`Status::BlockBoundary`] before each block header (once per boundary).
    pub stop_at_block: bool,
    /// The current boundary has already been reported.
    stopped: bool,
    /// Return [`Status::HeaderEnd`] after each block header (once per header).
    pub stop_after_header: bool,
    /// A block header has been read and none of its block's data yet.
    header_end: bool,
    /// That header end has already been reported.
    header_stopped: bool,
    state: State,
    bitbuf: u64,
    bitcnt: u32,
    last: bool,
    fixed: bool,
    /// The block's literal/length and distance codes ([`hf::build_pair`]).
    codes: Vec<u32>,
    cl: Vec<u32>,
    hlit: usize,
    hdist: usize,
    hclen: usize,
    lens: [u8; 320],
    cl_lens: [u8; 19],
}

impl Default for Core {
    fn default() -> Self {
        Core {
            stop_at_block: false,
            stopped: false,
            stop_after_header: false,
            header_end: false,
            header_stopped: false,
            state: State::BlockHeader,
            bitbuf: 0,
            bitcnt: 0,
            last: false,
            fixed: false,
            codes: Vec::with_capacity(hf::PAIR_PRIMARY + 512),
            cl: Vec::with_capacity(128),
            hlit: 0,
            hdist: 0,
            hclen: 0,
            lens: [0; 320],
            cl_lens: [0; 19],
        }
    }
}

/// Outcome of trying to decode one coded unit from the bit buffer.
enum Unit {
    More,
    Lit(u8, u32),
    End(u32),
    Match(u32, u32, u32),
}

impl Core {
    /// Starts over at a new stream.
    pub fn reset(&mut self) {
        self.state = State::BlockHeader;
        self.bitbuf = 0;
        self.bitcnt = 0;
        self.last = false;
        self.stopped = false;
        self.header_end = false;
        self.header_stopped = false;
    }

    /// Empties the bit buffer.
    pub fn clear_bits(&mut self) {
        self.bitbuf = 0;
        self.bitcnt = 0;
    }

    /// Entries in the literal/length and distance tables now built.
    pub fn table_entries(&self) -> usize {
        self.codes.len()
    }

    /// Does not report the next block boundary (the start of a raw stream).
    pub fn skip_next_stop(&mut self) {
        self.stopped = true;
    }

    /// Reports the current block boundary again on the next `run`.
    pub fn unstop(&mut self) {
        self.stopped = false;
    }

    /// True after a stored block's header, before its length (zlib's `inflateSyncPoint`).
    pub fn at_stored_start(&self) -> bool {
        self.state == State::StoredLen && self.bitcnt.is_multiple_of(8)
    }

    /// Reports the current header end again on the next `run`.
    pub fn unstop_header(&mut self) {
        self.header_stopped = false;
    }

    /// True when stopped after a block header, before its data (for `Z_TREES` and
    /// `data_type`).
    pub fn at_header_end(&self) -> bool {
        self.header_end && self.header_stopped
    }

    /// True between blocks (for `Z_BLOCK`-style stopping and `data_type`).
    pub fn at_block_boundary(&self) -> bool {
        self.state == State::BlockHeader
    }

    /// True while a match that did not fit the output is still being copied.
    pub fn in_copy(&self) -> bool {
        matches!(self.state, State::Copy { .. })
    }

    /// True once the final block's header has been read.
    pub fn in_last_block(&self) -> bool {
        self.last
    }

    /// Bits held in the bit buffer.
    pub fn pending_bits(&self) -> u32 {
        self.bitcnt
    }

    /// Inserts `bits` low bits of `value` into the bit buffer (zlib's `inflatePrime`).
    pub fn prime(&mut self, bits: u32, value: u32) -> bool {
        if bits > 16 || self.bitcnt + bits > 32 {
            return false;
        }
        let v = (value as u64) & ((1u64 << bits) - 1);
        self.bitbuf |= v << self.bitcnt;
        self.bitcnt += bits;
        true
    }

    /// Returns to the input the whole bytes in the bit buffer that were read since `ip0`
    /// (a header's code lengths are read a word at a time), so what is left is the bits of
    /// the byte the stream has reached.
    fn give_back(&mut self, ip: &mut usize, ip0: usize) {
        let back = ((self.bitcnt / 8) as usize).min(*ip - ip0);
        *ip -= back;
        self.bitcnt -= 8 * back as u32;
        self.bitbuf &= (1u64 << self.bitcnt) - 1;
    }

    /// Drops the bits up to the next byte boundary (after the final block, before a trailer).
    pub fn align(&mut self) {
        let drop = self.bitcnt & 7;
        self.bitbuf >>= drop;
        self.bitcnt -= drop;
    }

    /// Takes one whole byte left in the bit buffer, if any (for trailers after `align`).
    pub fn take_byte(&mut self) -> Option<u8> {
        if self.bitcnt >= 8 {
            let b = self.bitbuf as u8;
            self.bitbuf >>= 8;
            self.bitcnt -= 8;
            Some(b)
        } else {
            None
        }
    }

    #[inline(always)]
    fn pull(&mut self, input: &[u8], ip: &mut usize) -> bool {
        if *ip < input.len() {
            self.bitbuf |= (input[*ip] as u64) << self.bitcnt;
            self.bitcnt += 8;
            *ip += 1;
            true
        } else {
            false
        }
    }

    /// [`refill_word`] on the decoder's bit buffer; false (nothing read) with under eight
    /// bytes left.
    #[inline(always)]
    fn refill_word(&mut self, input: &[u8], ip: &mut usize) -> bool {
        refill_word(&mut self.bitbuf, &mut self.bitcnt, input, ip)
    }

    /// Ensures `n` bits (n <= 56) are buffered; false if the input ran out.
    #[inline(always)]
    fn need(&mut self, n: u32, input: &[u8], ip: &mut usize) -> bool {
        while self.bitcnt < n {
            if !self.pull(input, ip) {
                return false;
            }
        }
        true
    }

    #[inline(always)]
    fn take(&mut self, n: u32) -> u32 {
        let v = (self.bitbuf & ((1u64 << n) - 1)) as u32;
        self.bitbuf >>= n;
        self.bitcnt -= n;
        v
    }

    /// The current block's codes in the [`hf::build_pair`] layout.
    fn tables(&self) -> &[u32] {
        if self.fixed {
            hf::fixed_tables()
        } else {
            &self.codes
        }
    }

    /// Looks up a symbol at bit offset `at` of `bits`, with `avail` valid bits from `at`.
    /// Returns the entry and the bits it consumes, or None if more bits are needed.
    #[inline(always)]
    fn lookup(table: &[u32], base: usize, pbits: u32, bits: u64, avail: u32) -> Option<(u32, u32)> {
        let e = table[base + (bits & ((1 << pbits) - 1)) as usize];
        if hf::e_kind(e) == hf::SUB {
            let sb = hf::e_sub_bits(e);
            let s = table[hf::e_value(e) as usize + ((bits >> pbits) & ((1 << sb) - 1)) as usize];
            let n = pbits + hf::e_len(s);
            (n <= avail).then_some((s, n))
        } else {
            let n = hf::e_len(e);
            (n <= avail).then_some((e, n))
        }
    }

    /// Decodes one unit from the bit buffer without consuming it.
    fn try_unit(&self) -> Result<Unit, ErrorKind> {
        let t = self.tables();
        let (bits, avail) = (self.bitbuf, self.bitcnt);
        let Some((e, n)) = Self::lookup(t, 0, hf::LITLEN_BITS, bits, avail) else {
            return Ok(Unit::More);
        };
        match hf::e_kind(e) {
            hf::LIT => Ok(Unit::Lit(hf::e_value(e) as u8, n)),
            hf::EOB => Ok(Unit::End(n)),
            hf::LEN => {
                let x = hf::e_extra(e);
                if n + x > avail {
                    return Ok(Unit::More);
                }
                let len = hf::e_value(e) + ((bits >> n) & ((1 << x) - 1)) as u32;
                let used = n + x;
                let Some((d, dn)) =
                    Self::lookup(t, hf::DIST_AT, hf::DIST_BITS, bits >> used, avail - used)
                else {
                    return Ok(Unit::More);
                };
                if hf::e_kind(d) != hf::DIST {
                    return Err(ErrorKind::InvalidSymbol);
                }
                let used = used + dn;
                let dx = hf::e_extra(d);
                if used + dx > avail {
                    return Ok(Unit::More);
                }
                let dist = hf::e_value(d) + ((bits >> used) & ((1 << dx) - 1)) as u32;
                Ok(Unit::Match(len, dist, used + dx))
            }
            _ => Err(ErrorKind::InvalidSymbol),
        }
    }

    /// Decodes from `input[*ip..]` into `out[*op..]`. `out[hist_start..*op]` is the history
    /// matches may reach. Errors leave `*ip` at the byte where the problem was detected.
    ///
    /// Between calls at most 7 bits stay buffered, except after `NeedInput`, when the bits of
    /// the unit the input ran out in are: the whole bytes read ahead in this call are given
    /// back on every other return (the next block, a trailer or the next member start there).
    pub fn run(
        &mut self,
        input: &[u8],
        ip: &mut usize,
        out: &mut [u8],
        op: &mut usize,
        hist_start: usize,
    ) -> Result<Status, ErrorKind> {
        let ip0 = *ip;
        let r = self.run_from(input, ip, out, op, hist_start, ip0);
        if !matches!(r, Ok(Status::NeedInput)) {
            self.give_back(ip, ip0);
        }
        r
    }

    /// Buffers as many whole bytes as fit (at least 56 bits when the input has them): the slow
    /// path's units then rarely find their bits short. Only for `bitcnt` under 48, the most a
    /// unit takes (15-bit length code, 5 extra bits, 15-bit distance code, 13 extra bits).
    #[inline(always)]
    fn top_up(&mut self, input: &[u8], ip: &mut usize) {
        if !self.refill_word(input, ip) {
            while self.bitcnt <= 56 && self.pull(input, ip) {}
        }
    }

    /// [`Core::run`]'s decoding, which leaves the bytes read ahead to it; `ip0` is where the
    /// call's input started.
    fn run_from(
        &mut self,
        input: &[u8],
        ip: &mut usize,
        out: &mut [u8],
        op: &mut usize,
        hist_start: usize,
        ip0: usize,
    ) -> Result<Status, ErrorKind> {
        loop {
            match self.state {
                State::BlockHeader => {
                    // zlib's Z_BLOCK also stops after the last block, before the trailer.
                    if self.stop_at_block && !self.stopped {
                        self.stopped = true;
                        return Ok(Status::BlockBoundary);
                    }
                    if self.last {
                        self.state = State::Done;
                        continue;
                    }
                    if !self.need(3, input, ip) {
                        return Ok(Status::NeedInput);
                    }
                    self.stopped = false;
                    self.last = self.take(1) == 1;
                    match self.take(2) {
                        0 => {
                            self.align();
                            self.state = State::StoredLen;
                        }
                        1 => {
                            self.fixed = true;
                            self.state = State::Codes;
                            self.header_end = true;
                        }
                        2 => self.state = State::DynCounts,
                        _ => return Err(ErrorKind::BadBlockType),
                    }
                }
                State::StoredLen => {
                    if !self.need(32, input, ip) {
                        return Ok(Status::NeedInput);
                    }
                    let len = self.take(16);
                    let nlen = self.take(16);
                    if len != !nlen & 0xffff {
                        return Err(ErrorKind::StoredLengthMismatch);
                    }
                    self.state = State::Stored { remaining: len };
                    self.header_end = true;
                }
                State::Stored { .. } | State::Codes
                    if self.header_end && self.stop_after_header && !self.header_stopped =>
                {
                    self.header_stopped = true;
                    self.give_back(ip, ip0);
                    return Ok(Status::HeaderEnd);
                }
                State::Stored { mut remaining } => {
                    (self.header_end, self.header_stopped) = (false, false);
                    while remaining > 0 && self.bitcnt >= 8 && *op < out.len() {
                        out[*op] = self.take(8) as u8;
                        *op += 1;
                        remaining -= 1;
                    }
                    let n = (remaining as usize)
                        .min(input.len() - *ip)
                        .min(out.len() - *op);
                    out[*op..*op + n].copy_from_slice(&input[*ip..*ip + n]);
                    *op += n;
                    *ip += n;
                    remaining -= n as u32;
                    if remaining == 0 {
                        self.state = State::BlockHeader;
                    } else {
                        self.state = State::Stored { remaining };
                        return Ok(if *op == out.len() {
                            Status::OutputFull
                        } else {
                            Status::NeedInput
                        });
                    }
                }
                State::DynCounts => {
                    if !self.need(14, input, ip) {
                        return Ok(Status::NeedInput);
                    }
                    self.hlit = self.take(5) as usize + 257;
                    self.hdist = self.take(5) as usize + 1;
                    self.hclen = self.take(4) as usize + 4;
                    if self.hlit > 286 || self.hdist > 30 {
                        return Err(ErrorKind::TooManyCodes);
                    }
                    self.cl_lens = [0; 19];
                    self.state = State::DynCl { i: 0 };
                }
                State::DynCl { mut i } => {
                    while i < self.hclen {
                        if !self.need(3, input, ip) {
                            self.state = State::DynCl { i };
                            return Ok(Status::NeedInput);
                        }
                        self.cl_lens[CL_ORDER[i]] = self.take(3) as u8;
                        i += 1;
                    }
                    self.cl.clear();
                    self.cl.resize(1 << hf::CODELEN_BITS, 0);
                    hf::build(
                        &self.cl_lens,
                        Alphabet::CodeLen,
                        hf::CODELEN_BITS,
                        &mut self.cl,
                        0,
                    )?;
                    self.state = State::DynLens { i: 0 };
                }
                State::DynLens { mut i } => {
                    let total = self.hlit + self.hdist;
                    i = self.dyn_lens_fast(input, ip, i, total)?;
                    while i < total {
                        // A code-length symbol (<= 7 bits) and its repeat bits (<= 7): a word
                        // refill covers four of them, rather than a pull per byte.
                        if self.bitcnt < 14 {
                            self.refill_word(input, ip);
                        }
                        let sym = loop {
                            if let Some((e, n)) = Self::lookup(
                                &self.cl,
                                0,
                                hf::CODELEN_BITS,
                                self.bitbuf,
                                self.bitcnt,
                            ) {
                                if hf::e_kind(e) == hf::BAD {
                                    return Err(ErrorKind::InvalidSymbol);
                                }
                                let sym = hf::e_value(e) as usize;
                                let x = repeat_bits(sym);
                                if n + x <= self.bitcnt {
                                    self.take(n);
                                    break (sym, self.take(x) as usize);
                                }
                            }
                            if !self.pull(input, ip) {
                                self.state = State::DynLens { i };
                                return Ok(Status::NeedInput);
                            }
                        };
                        i = put_lengths(&mut self.lens, i, total, sym)?;
                    }
                    let (hlit, hdist) = (self.hlit, self.hdist);
                    if self.lens[256] == 0 {
                        return Err(ErrorKind::MissingEndOfBlock);
                    }
                    hf::build_pair(
                        &self.lens[..hlit],
                        &self.lens[hlit..hlit + hdist],
                        &mut self.codes,
                    )?;
                    self.fixed = false;
                    self.state = State::Codes;
                    self.header_end = true;
                }
                State::Codes => {
                    (self.header_end, self.header_stopped) = (false, false);
                    if input.len() - *ip >= FAST_IN && out.len() - *op >= FAST_OUT {
                        self.fast(false, input, ip, out, op, hist_start)?;
                        if self.state != State::Codes {
                            continue;
                        }
                    }
                    if input.len() - *ip >= FAST_IN && out.len() - *op >= TAIL_OUT {
                        self.fast(true, input, ip, out, op, hist_start)?;
                        if self.state != State::Codes {
                            continue;
                        }
                    }
                    // Slow path: one unit at a time, pulling bytes only as needed.
                    loop {
                        if *op >= out.len() {
                            return Ok(Status::OutputFull);
                        }
                        if self.bitcnt < 48 {
                            self.top_up(input, ip);
                        }
                        let unit = self.try_unit()?;
                        match unit {
                            Unit::More => {
                                if !self.pull(input, ip) {
                                    return Ok(Status::NeedInput);
                                }
                            }
                            Unit::Lit(b, n) => {
                                self.take(n);
                                out[*op] = b;
                                *op += 1;
                            }
                            Unit::End(n) => {
                                self.take(n);
                                self.state = State::BlockHeader;
                                break;
                            }
                            Unit::Match(len, dist, n) => {
                                if dist as usize > *op - hist_start {
                                    return Err(ErrorKind::DistanceTooFar);
                                }
                                self.take(n);
                                self.state = State::Copy { len, dist };
                                break;
                            }
                        }
                        if input.len() - *ip >= FAST_IN && out.len() - *op >= TAIL_OUT {
                            break;
                        }
                    }
                }
                State::Copy { len, dist } => {
                    let n = (len as usize).min(out.len() - *op);
                    copy::copy_match_bounded(out, *op, dist as usize, n);
                    *op += n;
                    if n < len as usize {
                        self.state = State::Copy {
                            len: len - n as u32,
                            dist,
                        };
                        return Ok(Status::OutputFull);
                    }
                    self.state = State::Codes;
                }
                State::Done => return Ok(Status::Done),
            }
        }
    }

    /// Decodes the code lengths `i..total` of a dynamic header while eight input bytes remain
    /// for each refill; returns how far it got (the resumable loop in [`Core::run`] does the
    /// rest). The bit buffer lives in registers, and a symbol with its repeat bits (at most
    /// 7 + 7) is taken from the at least 14 bits each step starts with.
    fn dyn_lens_fast(
        &mut self,
        input: &[u8],
        ip: &mut usize,
        mut i: usize,
        total: usize,
    ) -> Result<usize, ErrorKind> {
        let (mut bitbuf, mut bitcnt) = (self.bitbuf, self.bitcnt);
        let cl: &[u32; 1 << hf::CODELEN_BITS] = self.cl[..].try_into().expect("built table");
        let mut result = Ok(());
        while i < total {
            if bitcnt < 14 && !refill_word(&mut bitbuf, &mut bitcnt, input, ip) {
                break;
            }
            let e = cl[(bitbuf & ((1 << hf::CODELEN_BITS) - 1)) as usize];
            if hf::e_kind(e) == hf::BAD {
                result = Err(ErrorKind::InvalidSymbol);
                break;
            }
            let sym = hf::e_value(e) as usize;
            let (n, x) = (hf::e_len(e), repeat_bits(sym));
            let r = ((bitbuf >> n) & ((1 << x) - 1)) as usize;
            bitbuf >>= n + x;
            bitcnt -= n + x;
            match put_lengths(&mut self.lens, i, total, (sym, r)) {
                Ok(next) => i = next,
                Err(k) => {
                    result = Err(k);
                    break;
                }
            }
        }
        self.bitbuf = bitbuf;
        self.bitcnt = bitcnt;
        result.map(|()| i)
    }

    /// Runs [`fast::run`], or [`fast::run_tail`] for the last bytes of the output (`tail`),
    /// from the decoder's bit buffer, and goes on to the next state where it stopped at the
    /// block's end or in a match that does not fit.
    fn fast(
        &mut self,
        tail: bool,
        input: &[u8],
        ip: &mut usize,
        out: &mut [u8],
        op: &mut usize,
        hist_start: usize,
    ) -> Result<(), ErrorKind> {
        let mut bits = fast::Bits {
            bitbuf: self.bitbuf,
            bitcnt: self.bitcnt,
        };
        let t = self.tables();
        let stop = if tail {
            fast::run_tail(&mut bits, t, input, ip, out, op, hist_start)
        } else {
            fast::run(&mut bits, t, input, ip, out, op, hist_start)
        };
        (self.bitbuf, self.bitcnt) = (bits.bitbuf, bits.bitcnt);
        match stop? {
            Stop::Room => {}
            Stop::End => self.state = State::BlockHeader,
            Stop::Copy { len, dist } => self.state = State::Copy { len, dist },
        }
        Ok(())
    }
}

/// Tops `bitbuf` (at most 55 bits) up to 56-63 bits with one 8-byte read when eight input bytes
/// are there (the bytes past the count stay in the input); false, and nothing read, otherwise.
#[inline(always)]
fn refill_word(bitbuf: &mut u64, bitcnt: &mut u32, input: &[u8], ip: &mut usize) -> bool {
    debug_assert!(*bitcnt <= 55, "room for at least one byte");
    let Some(w) = input.get(*ip..*ip + 8) else {
        return false;
    };
    let k = (63 - *bitcnt) / 8;
    let w = u64::from_le_bytes(w.try_into().unwrap()) & (u64::MAX >> (64 - 8 * k));
    *bitbuf |= w << *bitcnt;
    *bitcnt += 8 * k;
    *ip += k as usize;
    true
}

/// Repeat bits after code-length symbol `sym`: 16 repeats the previous length 3-6 times, 17
/// and 18 give 3-10 and 11-138 zeros; 0-15 are lengths.
#[inline(always)]
fn repeat_bits(sym: usize) -> u32 {
    match sym {
        16 => 2,
        17 => 3,
        18 => 7,
        _ => 0,
    }
}

/// Writes code-length symbol `sym` with its repeat bits' value at `lens[i..]`, checking that a
/// repeat has a previous length and stays within the `total` lengths; returns the next index.
#[inline(always)]
fn put_lengths(
    lens: &mut [u8; 320],
    i: usize,
    total: usize,
    sym: (usize, usize),
) -> Result<usize, ErrorKind> {
    let (value, count) = match sym {
        (s @ 0..=15, _) => (s as u8, 1),
        (16, r) => {
            if i == 0 {
                return Err(ErrorKind::BadCodeLengthRepeat);
            }
            (lens[i - 1], 3 + r)
        }
        (17, r) => (0, 3 + r),
        (_, r) => (0, 11 + r),
    };
    if i + count > total {
        return Err(ErrorKind::BadCodeLengthRepeat);
    }
    // Most runs are short: a fixed 16-byte fill (one store) may write past the run, into
    // lengths not decoded yet.
    if count <= 16 && i + 16 <= lens.len() {
        lens[i..i + 16].fill(value);
    } else {
        lens[i..i + count].fill(value);
    }
    Ok(i + count)
}
