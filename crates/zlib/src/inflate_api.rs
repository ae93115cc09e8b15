//! zlib's inflate family as C entry points around the engine's streaming [`Inflater`]:
//! windowBits decoding (raw, zlib, gzip, automatic detection), `Z_BLOCK` and `Z_TREES` stops with
//! zlib's `data_type` bits, dictionaries, header retrieval, `inflateSync` and zlib's return codes.
//! `inflateBack` lives in `inflate_back.rs`.
use core::ffi::{c_char, c_int, c_long, c_uint, c_ulong, CStr};

use hyperz_engine::inflate::{ErrorKind, InflateError, Inflater, StreamState};
use hyperz_engine::{Format, GzipHeader};

use crate::config;
use crate::pool;
use crate::types::*;

const MAGIC: u32 = 0x687a_6966; // "hzif"

/// Which containers a stream accepts (zlib's `wrap` bits 1 and 2).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wrap {
    Raw,
    Zlib,
    Gzip,
    Auto,
}

/// What `strm->state` points to for an inflate stream (see `deflate_api::DState`).
#[repr(C)]
pub struct IState {
    magic: u32,
    strm: *const z_stream,
    wrap: Wrap,
    wbits: u8,
    /// Created once the container is known (after the first byte for `Auto`).
    inf: Option<Box<Inflater>>,
    /// The caller's header structure from `inflateGetHeader`, filled when the header is parsed.
    head: *mut gz_header,
    head_filled: bool,
    verify: bool,
    /// Bytes of the 00 00 ff ff pattern matched so far by `inflateSync`.
    sync_have: usize,
}

impl Drop for IState {
    fn drop(&mut self) {
        if let Some(i) = self.inf.take() {
            pool::give_inflater(i);
        }
    }
}

/// The stream's state if `strm` is a live inflate stream created for this very `z_stream`.
///
/// # Safety
/// As [`state_of`].
pub(crate) unsafe fn state<'a>(strm: *mut z_stream) -> Option<&'a mut IState> {
    // SAFETY: forwarded contract.
    unsafe { state_of::<IState>(strm) }
}

impl ZState for IState {
    const MAGIC: u32 = MAGIC;
}

/// Whether zlib reports error `e` in the call that delivered the output before it (which left
/// the output full if `full`). zlib finds a distance too far back only when it copies the
/// match, which it does not try without output space; every other error it finds on reading
/// the symbols or checks, which needs none.
pub(crate) fn reported_now(e: &InflateError, full: bool) -> bool {
    !(full && e.kind == ErrorKind::DistanceTooFar)
}

/// zlib's message for a decoding error, as close to zlib's wording as the kinds allow.
/// Static strings, as zlib's are: programs read `strm->msg` after `inflateEnd` (CPython does).
fn message(e: &InflateError) -> &'static CStr {
    match e.kind {
        ErrorKind::BadBlockType => c"invalid block type",
        ErrorKind::StoredLengthMismatch => c"invalid stored block lengths",
        ErrorKind::OversubscribedCodes | ErrorKind::IncompleteCodes => c"invalid code lengths set",
        ErrorKind::TooManyCodes => c"too many length or distance symbols",
        ErrorKind::BadCodeLengthRepeat => c"invalid bit length repeat",
        ErrorKind::MissingEndOfBlock => c"invalid code -- missing end-of-block",
        ErrorKind::InvalidSymbol => c"invalid literal/length code",
        ErrorKind::DistanceTooFar => c"invalid distance too far back",
        ErrorKind::BadZlibHeader => c"incorrect header check",
        ErrorKind::DictionaryRequired(_) | ErrorKind::WrongDictionary => c"incorrect dictionary",
        ErrorKind::BadGzipHeader => c"unknown compression method",
        ErrorKind::ReservedFlags => c"unknown header flags set",
        ErrorKind::HeaderCrcMismatch => c"header crc mismatch",
        ErrorKind::HeaderTooLong => c"header too long",
        ErrorKind::BadWindowSize => c"invalid window size",
        ErrorKind::Truncated => c"unexpected end of stream",
        ErrorKind::LengthMismatch { .. } => c"incorrect length check",
        ErrorKind::ChecksumMismatch { .. } => c"incorrect data check",
        ErrorKind::TrailingData => c"trailing data",
        ErrorKind::OutputLimitExceeded => c"output limit exceeded",
    }
}

fn parse_wbits(window_bits: c_int) -> Option<(Wrap, u8)> {
    let (wrap, w) = if window_bits < 0 {
        if window_bits < -15 {
            return None;
        }
        (Wrap::Raw, -window_bits)
    } else {
        let wrap = match window_bits >> 4 {
            0 => Wrap::Zlib,
            1 => Wrap::Gzip,
            _ => Wrap::Auto,
        };
        (
            wrap,
            if window_bits < 48 {
                window_bits & 15
            } else {
                window_bits
            },
        )
    };
    if w != 0 && !(8..=15).contains(&w) {
        return None;
    }
    Some((wrap, w as u8))
}

impl IState {
    fn new(strm: *const z_stream, wrap: Wrap, wbits: u8) -> Self {
        IState {
            magic: MAGIC,
            strm,
            wrap,
            wbits,
            inf: None,
            head: core::ptr::null_mut(),
            head_filled: false,
            verify: true,
            sync_have: 0,
        }
    }

    fn make(&mut self, format: Format) {
        let w = if self.wbits == 0 { 15 } else { self.wbits };
        let mut inf = pool::take_inflater(format, w);
        inf.set_verify(self.verify);
        self.inf = Some(inf);
    }

    /// Creates the decoder once the container is known; `false` while more input is needed.
    fn ensure(&mut self, input: &[u8]) -> bool {
        if self.inf.is_some() {
            return true;
        }
        let format = match self.wrap {
            Wrap::Raw => Format::Raw,
            Wrap::Zlib => Format::Zlib,
            Wrap::Gzip => Format::Gzip,
            Wrap::Auto => match input.first() {
                None => return false,
                Some(0x1f) => Format::Gzip,
                Some(_) => Format::Zlib,
            },
        };
        self.make(format);
        true
    }

    fn reset(&mut self) {
        if let Some(i) = self.inf.take() {
            pool::give_inflater(i);
        }
        self.head_filled = false;
        self.sync_have = 0;
        // As zlib's inflateResetKeep: the header structure is forgotten, not written. The
        // caller asks again (inflateGetHeader) for the next stream's; the old one may be gone.
        self.head = core::ptr::null_mut();
    }

    /// Copies a parsed gzip header into the caller's `gz_header` (zlib's inflateGetHeader).
    fn fill_head(&mut self) {
        if self.head.is_null() || self.head_filled {
            return;
        }
        let Some(inf) = &self.inf else { return };
        if inf.format() == Format::Zlib {
            // Automatic detection found a zlib stream: zlib marks the structure it will not
            // fill with done = -1.
            self.head_filled = true;
            // SAFETY: the caller keeps `head` valid (zlib's contract).
            unsafe { (*self.head).done = -1 };
            return;
        }
        let Some(g) = inf.gzip_header() else { return };
        self.head_filled = true;
        // SAFETY: the caller keeps `head` and the buffers it points to valid (zlib's contract).
        unsafe { fill(&mut *self.head, g) };
    }
}

/// Copies `src` into a caller buffer of `max` bytes; a text field (`nul`) with its terminating
/// zero, which, as zlib.h says, is not written when the text is `max` bytes or longer (the
/// first `max` bytes of the text are).
///
/// # Safety
/// `dst` must be NULL or have `max` writable bytes.
unsafe fn copy_field(dst: *mut u8, max: c_uint, src: &[u8], nul: bool) {
    if dst.is_null() {
        return;
    }
    let n = src.len().min(max as usize);
    // SAFETY: n <= max, the buffer's size, and the zero is written only when n < max.
    unsafe {
        core::ptr::copy_nonoverlapping(src.as_ptr(), dst, n);
        if nul && n < max as usize {
            *dst.add(n) = 0;
        }
    }
}

/// # Safety
/// `h`'s buffers must be NULL or as large as their `*_max` fields say.
unsafe fn fill(h: &mut gz_header, g: &GzipHeader) {
    h.text = g.text as c_int;
    h.time = g.mtime as c_ulong;
    h.xflags = g.xfl as c_int;
    h.os = g.os as c_int;
    h.hcrc = g.hcrc as c_int;
    // SAFETY: forwarded contract for each buffer.
    unsafe {
        if let Some(e) = &g.extra {
            h.extra_len = e.len() as c_uint;
            copy_field(h.extra, h.extra_max, e, false);
        } else {
            h.extra = core::ptr::null_mut();
        }
        match &g.name {
            Some(n) => copy_field(h.name, h.name_max, n, true),
            None => h.name = core::ptr::null_mut(),
        }
        match &g.comment {
            Some(c) => copy_field(h.comment, h.comm_max, c, true),
            None => h.comment = core::ptr::null_mut(),
        }
    }
    h.done = 1;
}

/// `int inflateInit_(z_streamp strm, const char *version, int stream_size)`
///
/// # Safety
/// zlib's contract: `strm` points to a `z_stream` with `next_in`/`avail_in` set.
#[no_mangle]
pub unsafe extern "C" fn inflateInit_(
    strm: *mut z_stream,
    version: *const c_char,
    stream_size: c_int,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { inflateInit2_(strm, 15, version, stream_size) }
}

/// `int inflateInit2_(z_streamp strm, int windowBits, const char *version, int stream_size)`
///
/// # Safety
/// As [`inflateInit_`].
#[no_mangle]
pub unsafe extern "C" fn inflateInit2_(
    strm: *mut z_stream,
    window_bits: c_int,
    version: *const c_char,
    stream_size: c_int,
) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: version is a C string per contract.
        if !unsafe { version_ok(version, stream_size) } {
            return Z_VERSION_ERROR;
        }
        if strm.is_null() {
            return Z_STREAM_ERROR;
        }
        // SAFETY: non-null per contract.
        let z = unsafe { &mut *strm };
        z.msg = core::ptr::null();
        let Some((wrap, wbits)) = parse_wbits(window_bits) else {
            // zlib frees the state it allocated and leaves NULL: a later inflateEnd or inflate
            // on the stream is a clean Z_STREAM_ERROR instead of a read through whatever the
            // caller's struct held.
            z.state = core::ptr::null_mut();
            return Z_STREAM_ERROR;
        };
        z.state = Box::into_raw(Box::new(IState::new(strm, wrap, wbits))).cast();
        z.total_in = 0;
        z.total_out = 0;
        z.adler = 1;
        z.data_type = 0;
        Z_OK
    })
}

/// `int inflate(z_streamp strm, int flush)`
///
/// # Safety
/// zlib's contract: `next_in`/`avail_in` and `next_out`/`avail_out` describe valid buffers.
#[no_mangle]
pub unsafe extern "C" fn inflate(strm: *mut z_stream, flush: c_int) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(st) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        // SAFETY: strm valid.
        let z = unsafe { &mut *strm };
        if !(Z_NO_FLUSH..=Z_TREES).contains(&flush) {
            return Z_STREAM_ERROR;
        }
        if z.next_out.is_null() || (z.next_in.is_null() && z.avail_in != 0) {
            return Z_STREAM_ERROR;
        }
        // SAFETY: zlib's contract on the stream's buffers.
        let (input, output) = unsafe { io_slices(z) };
        let input = &input[..];
        config::trace_call(false, input.len());
        if !st.ensure(input) {
            return Z_BUF_ERROR;
        }
        let inf = st.inf.as_mut().expect("decoder created");
        inf.set_stop_at_block(flush == Z_BLOCK || flush == Z_TREES);
        inf.set_stop_after_header(flush == Z_TREES);
        let before = inf.total_in();
        let r = inf.inflate(input, output);
        let (consumed, produced, code) = match r {
            Ok(s) => {
                let code = match s.state {
                    StreamState::StreamEnd => Z_STREAM_END,
                    StreamState::NeedDictionary(id) => {
                        z.adler = id as c_ulong;
                        Z_NEED_DICT
                    }
                    // The output before an error, then the error, in one call, as zlib.
                    StreamState::Progress => match inf.pending_error() {
                        Some(e) if reported_now(&e, s.produced == output.len()) => {
                            z.msg = message(&e).as_ptr();
                            Z_DATA_ERROR
                        }
                        _ => Z_OK,
                    },
                };
                (s.consumed, s.produced, code)
            }
            Err(e) => {
                let consumed = (inf.total_in() - before) as usize;
                z.msg = message(&e).as_ptr();
                if e.kind == ErrorKind::BadGzipHeader && e.offset < 2 && !st.head.is_null() {
                    // Not gzip at all (no magic): zlib marks the header structure done = -1
                    // before it reports the error.
                    // SAFETY: the caller keeps `head` valid (zlib's contract).
                    unsafe { (*st.head).done = -1 };
                }
                (consumed.min(input.len()), 0, Z_DATA_ERROR)
            }
        };
        advance(z, consumed, produced);
        st.fill_head();
        let inf = st.inf.as_ref().expect("decoder created");
        if code != Z_NEED_DICT && st.wrap != Wrap::Raw {
            z.adler = inf.checksum() as c_ulong;
        }
        z.data_type = inf.pending_bits() as c_int
            + if inf.in_last_block() { 64 } else { 0 }
            + if inf.at_block_boundary() { 128 } else { 0 }
            + if inf.at_header_end() { 256 } else { 0 };
        if code == Z_STREAM_END {
            config::trace_stream(false, false, inf.total_in(), inf.total_out());
        }
        if code == Z_OK && ((consumed == 0 && produced == 0) || flush == Z_FINISH) {
            return Z_BUF_ERROR;
        }
        code
    })
}

/// `int inflateEnd(z_streamp strm)`
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[no_mangle]
pub unsafe extern "C" fn inflateEnd(strm: *mut z_stream) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: zlib's contract on strm; states come from inflateInit2_/inflateCopy.
        if unsafe { free_state::<IState>(strm) } {
            Z_OK
        } else {
            Z_STREAM_ERROR
        }
    })
}

/// `int inflateReset(z_streamp strm)`
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[no_mangle]
pub unsafe extern "C" fn inflateReset(strm: *mut z_stream) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(st) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        st.reset();
        // SAFETY: strm valid.
        let z = unsafe { &mut *strm };
        z.total_in = 0;
        z.total_out = 0;
        z.msg = core::ptr::null();
        z.adler = 1;
        Z_OK
    })
}

/// `int inflateResetKeep(z_streamp strm)`
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[export_name = "hz_inflateResetKeep"]
pub unsafe extern "C" fn inflateResetKeep(strm: *mut z_stream) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { inflateReset(strm) }
}

/// `int inflateReset2(z_streamp strm, int windowBits)`
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[export_name = "hz_inflateReset2"]
pub unsafe extern "C" fn inflateReset2(strm: *mut z_stream, window_bits: c_int) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(st) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        let Some((wrap, wbits)) = parse_wbits(window_bits) else {
            return Z_STREAM_ERROR;
        };
        st.wrap = wrap;
        st.wbits = wbits;
        // SAFETY: forwarded contract.
        unsafe { inflateReset(strm) }
    })
}

/// `int inflateSetDictionary(z_streamp strm, const Bytef *dictionary, uInt dictLength)`
///
/// # Safety
/// `dictionary` must point to `dict_length` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn inflateSetDictionary(
    strm: *mut z_stream,
    dictionary: *const u8,
    dict_length: c_uint,
) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(st) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        if dictionary.is_null() && dict_length != 0 {
            return Z_STREAM_ERROR;
        }
        let dict: &[u8] = if dict_length == 0 {
            &[]
        } else {
            // SAFETY: caller contract.
            unsafe { core::slice::from_raw_parts(dictionary, dict_length as usize) }
        };
        if st.inf.is_none() {
            if st.wrap != Wrap::Raw {
                return Z_STREAM_ERROR;
            }
            st.make(Format::Raw);
        }
        let inf = st.inf.as_mut().expect("decoder created");
        match inf.set_dictionary(dict) {
            Ok(()) => Z_OK,
            Err(e) if e.kind == ErrorKind::WrongDictionary && inf.needs_dictionary() => {
                Z_DATA_ERROR
            }
            Err(_) => Z_STREAM_ERROR,
        }
    })
}

/// `int inflateGetDictionary(z_streamp strm, Bytef *dictionary, uInt *dictLength)`
///
/// # Safety
/// `dictionary` must be NULL or have room for the window (32 KiB is always enough);
/// `dict_length` NULL or writable.
#[export_name = "hz_inflateGetDictionary"]
pub unsafe extern "C" fn inflateGetDictionary(
    strm: *mut z_stream,
    dictionary: *mut u8,
    dict_length: *mut c_uint,
) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(st) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        // At most the stream's window, as zlib keeps: 2^windowBits, or with windowBits 0 the
        // size the zlib header declared. A caller may size its buffer by it.
        let w: &[u8] = st.inf.as_ref().map_or(&[], |i| {
            let bits = match st.wbits {
                0 => i.declared_window_bits().unwrap_or(15),
                b => b,
            };
            let w = i.window();
            &w[w.len().saturating_sub(1 << bits)..]
        });
        // SAFETY: caller contract (room for the window; pointers NULL or valid).
        unsafe {
            if !dictionary.is_null() {
                core::ptr::copy_nonoverlapping(w.as_ptr(), dictionary, w.len());
            }
            if !dict_length.is_null() {
                *dict_length = w.len() as c_uint;
            }
        }
        Z_OK
    })
}

/// `int inflateGetHeader(z_streamp strm, gz_headerp head)`
///
/// # Safety
/// `head` must stay valid (with its buffers) until the header has been read.
#[export_name = "hz_inflateGetHeader"]
pub unsafe extern "C" fn inflateGetHeader(strm: *mut z_stream, head: *mut gz_header) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(st) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        if matches!(st.wrap, Wrap::Raw | Wrap::Zlib) {
            return Z_STREAM_ERROR;
        }
        st.head = head;
        st.head_filled = false;
        if !head.is_null() {
            // SAFETY: caller contract.
            unsafe { (*head).done = 0 };
        }
        st.fill_head();
        Z_OK
    })
}

/// `int inflateSync(z_streamp strm)`: skips to the next full-flush point (an empty stored
/// block, `00 00 ff ff`) and resumes decoding there without verifying the check value.
///
/// # Safety
/// `next_in`/`avail_in` must describe valid input.
#[no_mangle]
pub unsafe extern "C" fn inflateSync(strm: *mut z_stream) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(st) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        // SAFETY: strm valid.
        let z = unsafe { &mut *strm };
        if z.next_in.is_null() && z.avail_in != 0 {
            // As inflate refuses it (zlib would read through the null pointer here).
            return Z_STREAM_ERROR;
        }
        let held = st
            .inf
            .as_mut()
            .map(|i| i.take_buffered_bytes())
            .unwrap_or_default();
        if z.avail_in == 0 && held.is_empty() {
            return Z_BUF_ERROR;
        }
        // zlib's syncsearch: count consecutive bytes of 00 00 ff ff.
        let step = |have: &mut usize, b: u8| {
            let want = if *have < 2 { 0 } else { 0xff };
            if b == want {
                *have += 1;
            } else if b != 0 {
                *have = 0;
            } else {
                *have = 4 - *have;
            }
        };
        for &b in &held {
            if st.sync_have < 4 {
                step(&mut st.sync_have, b);
            }
        }
        let input: &[u8] = if z.avail_in == 0 {
            &[]
        } else {
            // SAFETY: next_in points to avail_in readable bytes.
            unsafe { core::slice::from_raw_parts(z.next_in, z.avail_in as usize) }
        };
        let mut n = 0;
        while n < input.len() && st.sync_have < 4 {
            step(&mut st.sync_have, input[n]);
            n += 1;
        }
        // SAFETY: n <= avail_in.
        z.next_in = unsafe { z.next_in.add(n) };
        z.avail_in -= n as c_uint;
        z.total_in += n as c_ulong;
        if st.sync_have != 4 {
            return Z_DATA_ERROR;
        }
        st.sync_have = 0;
        if st.inf.is_none() {
            st.make(Format::Raw);
        }
        st.inf.as_mut().expect("decoder created").resync();
        Z_OK
    })
}

/// `int inflateSyncPoint(z_streamp strm)`
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[no_mangle]
pub unsafe extern "C" fn inflateSyncPoint(strm: *mut z_stream) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(st) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        st.inf.as_ref().is_some_and(|i| i.at_sync_point()) as c_int
    })
}

/// `int inflateCopy(z_streamp dest, z_streamp source)`
///
/// # Safety
/// `dest` must point to writable `z_stream` memory; `source` a live inflate stream.
#[export_name = "hz_inflateCopy"]
pub unsafe extern "C" fn inflateCopy(dest: *mut z_stream, source: *mut z_stream) -> c_int {
    guard(Z_STREAM_ERROR, || {
        if dest.is_null() {
            return Z_STREAM_ERROR;
        }
        // SAFETY: validated by state().
        let Some(st) = (unsafe { state(source) }) else {
            return Z_STREAM_ERROR;
        };
        if dest == source {
            // A stream is already its own copy. (zlib memcpys the struct onto itself, UB in
            // C and Rust alike, and leaks the old state.)
            return Z_OK;
        }
        let copy = Box::new(IState {
            magic: MAGIC,
            strm: dest,
            wrap: st.wrap,
            wbits: st.wbits,
            inf: st.inf.clone(),
            head: st.head,
            head_filled: st.head_filled,
            verify: st.verify,
            sync_have: st.sync_have,
        });
        // SAFETY: both are z_streams; zlib copies the struct, then installs the new state.
        unsafe {
            core::ptr::copy_nonoverlapping(source, dest, 1);
            (*dest).state = Box::into_raw(copy).cast();
        }
        Z_OK
    })
}

/// `int inflatePrime(z_streamp strm, int bits, int value)`: negative `bits` empties the bit
/// buffer, as in zlib.
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[export_name = "hz_inflatePrime"]
pub unsafe extern "C" fn inflatePrime(strm: *mut z_stream, bits: c_int, value: c_int) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(st) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        if st.inf.is_none() {
            if st.wrap != Wrap::Raw {
                return Z_STREAM_ERROR;
            }
            st.make(Format::Raw);
        }
        let inf = st.inf.as_mut().expect("decoder created");
        if bits < 0 {
            inf.take_buffered_bytes();
            inf.clear_bits();
            return Z_OK;
        }
        if inf.prime(bits as u32, value as u32) {
            Z_OK
        } else {
            Z_STREAM_ERROR
        }
    })
}

/// `long inflateMark(z_streamp strm)`: -65536 at a block boundary and at a `Z_TREES` stop
/// after a header (zlib's `back = -1` until a block's first code), 0 within a block. zlib also reports the bytes left of a match or stored copy in progress; our
/// decoder completes each match before returning, so that part is 0.
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[export_name = "hz_inflateMark"]
pub unsafe extern "C" fn inflateMark(strm: *mut z_stream) -> c_long {
    guard(-(1 << 16), || {
        // SAFETY: validated by state().
        let Some(st) = (unsafe { state(strm) }) else {
            return -(1 << 16);
        };
        match &st.inf {
            Some(i) if !i.at_block_boundary() && !i.at_header_end() && !i.is_done() => 0,
            _ => -(1 << 16),
        }
    })
}

/// `unsigned long inflateCodesUsed(z_streamp strm)`: zlib's count of decoding-table entries
/// in use, a diagnostic; we report the entries of our current tables.
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[export_name = "hz_inflateCodesUsed"]
pub unsafe extern "C" fn inflateCodesUsed(strm: *mut z_stream) -> c_ulong {
    guard(c_ulong::MAX, || {
        // SAFETY: validated by state().
        match unsafe { state(strm) } {
            Some(st) => st.inf.as_ref().map_or(0, |i| i.table_entries()) as c_ulong,
            None => c_ulong::MAX,
        }
    })
}

/// `int inflateValidate(z_streamp strm, int check)`: turns trailer check verification off
/// (`check == 0`) or on.
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[export_name = "hz_inflateValidate"]
pub unsafe extern "C" fn inflateValidate(strm: *mut z_stream, check: c_int) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        let Some(st) = (unsafe { state(strm) }) else {
            return Z_STREAM_ERROR;
        };
        st.verify = check != 0;
        if let Some(i) = st.inf.as_mut() {
            i.set_verify(st.verify);
        }
        Z_OK
    })
}

/// `int inflateUndermine(z_streamp strm, int subvert)`: like a default zlib build (without
/// INFLATE_ALLOW_INVALID_DISTANCE_TOOFAR_ARRR), distances beyond the window stay errors and
/// the call returns `Z_DATA_ERROR`.
///
/// # Safety
/// `strm` must be NULL or a `z_stream`.
#[export_name = "hz_inflateUndermine"]
pub unsafe extern "C" fn inflateUndermine(strm: *mut z_stream, _subvert: c_int) -> c_int {
    guard(Z_STREAM_ERROR, || {
        // SAFETY: validated by state().
        match unsafe { state(strm) } {
            Some(_) => Z_DATA_ERROR,
            None => Z_STREAM_ERROR,
        }
    })
}
