//! Fuzz target: the zlib C entry points of `libz.so` (crate `hyperz-zlib`), called in-process so
//! the sanitizer sees the ABI layer's unsafe code.
//!
//! Round trip (first byte even): bytes compressed through `deflateInit2_`/`deflate` with an
//! arbitrary level, windowBits (raw, zlib, gzip), memLevel and strategy, an optional preset
//! dictionary or gzip header (`deflateSetHeader`), and a data-chosen schedule of input and output
//! pieces, flushes, `deflateParams` changes, `deflateCopy` hand-overs, `deflateGetDictionary` reads
//! and `deflatePending` queries; streams of 512 bytes or more go to the parallel engines. Then
//! decompressed through `inflateInit2_`/`inflate` (explicit or automatic container detection,
//! `inflateSetDictionary`, `inflateGetHeader` into buffers of random sizes, its own schedule of
//! pieces and flushes, `inflateCopy` hand-overs, `inflateGetDictionary` reads), raw streams also
//! through `inflateBack`, and by miniz_oxide, an independent decoder: all must give the bytes back,
//! and the header fields as set, cut to their buffers as zlib cuts them. Every return code must be
//! one zlib allows at that point, a call that returns `Z_BUF_ERROR` must have made no progress
//! (unless it asked for `Z_FINISH`), and a dictionary read must be a tail of what went through.
//!
//! Arbitrary bytes (first byte odd): into `inflate` in data-chosen pieces with data-chosen
//! flushes (and raw ones into `inflateBack`). They may fail but not panic, hang or disagree
//! with the engine's whole-buffer decoder: a stream they end must decode to the same bytes
//! there, and one they reject must be rejected there too. A quarter of the runs go on past
//! damage with `inflateSync` instead, where only the return codes are checked.
//!
//! The streams of one run share the library's per-thread pools of compressors and decoders,
//! so state one stream leaves in them is seen by the next (as a gzip header was, once).
#![no_main]

use core::ffi::{c_int, c_uint};
use hyperz_engine::inflate::{Decompressor, ErrorKind};
use hyperz_engine::{Format, GzipHeader};
use hyperz_zlib::deflate_api::*;
use hyperz_zlib::inflate_api::*;
use hyperz_zlib::types::*;
use libfuzzer_sys::fuzz_target;

#[path = "zlib_abi/back.rs"]
mod back;
#[path = "zlib_abi/header.rs"]
mod header;
#[path = "common/rnd.rs"]
mod rnd;

use back::inflate_back;
use header::{gzip_header_len, random_header, HeadBufs, SetHead};
use rnd::Rnd;

/// Output beyond this is not decoded (bounds the fuzzer's memory).
const LIMIT: usize = 1 << 22;
/// Calls in a row without progress that `inflate` may make with input and output space: a
/// `Z_BLOCK` or `Z_TREES` stop at a block boundary and one after its header need no input.
const IDLE: u32 = 3;

/// A fresh stream on the heap: the library ties its state to the `z_stream`'s address.
fn new_stream() -> Box<z_stream> {
    // SAFETY: `z_stream` is plain C data for which all zeros (null pointers, no allocator
    // functions) is the state zlib asks callers to initialise it to.
    Box::new(unsafe { core::mem::zeroed() })
}

fn size() -> c_int {
    core::mem::size_of::<z_stream>() as c_int
}

/// Points the stream at `input` and `out` (both live across the following call).
fn set_io(z: &mut z_stream, input: &[u8], out: &mut [u8]) {
    z.next_in = input.as_ptr();
    z.avail_in = input.len() as c_uint;
    z.next_out = out.as_mut_ptr();
    z.avail_out = out.len() as c_uint;
}

/// `deflate` or `inflate`.
type Call = unsafe extern "C" fn(*mut z_stream, c_int) -> c_int;

/// One `deflate` or `inflate` call (`f`) on `input` with `flush` and `out_len` bytes of output
/// space, whose output is appended to `sink`; returns its code and the bytes it took and made.
fn call(
    f: Call,
    z: &mut z_stream,
    input: &[u8],
    out_len: usize,
    flush: c_int,
    sink: &mut Vec<u8>,
) -> (c_int, usize, usize) {
    let mut out = vec![0u8; out_len];
    set_io(z, input, &mut out);
    // SAFETY: a live stream of the kind `f` drives, whose buffers are `input` and `out`.
    let r = unsafe { f(z, flush) };
    let used = input.len() - z.avail_in as usize;
    let made = out_len - z.avail_out as usize;
    sink.extend_from_slice(&out[..made]);
    (r, used, made)
}

/// `deflateCopy` or `inflateCopy`, and `deflateEnd` or `inflateEnd`.
type CopyFn = unsafe extern "C" fn(*mut z_stream, *mut z_stream) -> c_int;
type EndFn = unsafe extern "C" fn(*mut z_stream) -> c_int;

/// Copies the stream `z` with `copy` into a fresh one, ends the original with `end` and goes
/// on with the copy; returns `end`'s code.
fn hand_over(copy: CopyFn, end: EndFn, z: &mut Box<z_stream>) -> c_int {
    let mut dup = new_stream();
    // SAFETY: a zeroed destination and a live stream of the kind `copy` copies.
    assert_eq!(
        unsafe { copy(&mut *dup, &mut **z) },
        Z_OK,
        "copying the stream"
    );
    // SAFETY: the original, a live stream, is ended once and then dropped.
    let r = unsafe { end(&mut **z) };
    *z = dup;
    r
}

/// `deflateGetDictionary` or `inflateGetDictionary`.
type GetWindow = unsafe extern "C" fn(*mut z_stream, *mut u8, *mut c_uint) -> c_int;

/// Reads a stream's window with `get` into a buffer of `room` bytes, the stream's window
/// (2^windowBits, what zlib gives at most: ASan sees any write past it); it must be a tail of
/// `dict` and `data`, what went through the stream.
fn check_window(get: GetWindow, z: &mut z_stream, room: usize, dict: Option<&[u8]>, data: &[u8]) {
    let mut d = vec![0u8; room];
    let mut n: c_uint = 0;
    // SAFETY: a live stream of the kind `get` reads, a 32 KiB buffer and a length to write.
    let r = unsafe { get(z, d.as_mut_ptr(), &mut n) };
    assert_eq!(r, Z_OK, "reading the window");
    let mut seen = dict.map_or(Vec::new(), <[u8]>::to_vec);
    seen.extend_from_slice(data);
    let n = n as usize;
    assert!(
        n <= seen.len() && d[..n] == seen[seen.len() - n..],
        "the window is not a tail of the data ({n} bytes)"
    );
}

/// What a compression run used: its container, window, dictionary and gzip header.
struct Made {
    format: Format,
    wbits: c_int,
    dict: Option<Vec<u8>>,
    head: Option<GzipHeader>,
    stream: Vec<u8>,
}

/// Compresses `payload` through the C entry points with the parameters `params[..4]` chooses
/// (level, windowBits and container, memLevel and strategy, dictionary or gzip header) and a
/// schedule from `rnd`, checking every return code; returns the stream and what it was made
/// with.
fn compress(params: &[u8], payload: &[u8], rnd: &mut Rnd) -> Made {
    let level = (params[0] % 11) as c_int - 1;
    let wbits = 9 + (params[1] % 7) as c_int;
    let format = match (params[1] >> 3) % 3 {
        0 => Format::Raw,
        1 => Format::Zlib,
        _ => Format::Gzip,
    };
    let wb_arg = match format {
        Format::Raw => -wbits,
        Format::Zlib => wbits,
        Format::Gzip => wbits + 16,
    };
    let mem_level = 1 + (params[2] % 9) as c_int;
    let strategy = (params[2] / 9 % 5) as c_int;
    let mut z = new_stream();
    // SAFETY: a zeroed stream and zlib's version string (the contract of deflateInit2_).
    let r = unsafe {
        deflateInit2_(
            &mut *z,
            level,
            Z_DEFLATED,
            wb_arg,
            mem_level,
            strategy,
            ZLIB_VERSION.as_ptr(),
            size(),
        )
    };
    assert_eq!(
        r, Z_OK,
        "deflateInit2_({level}, {wb_arg}, {mem_level}, {strategy})"
    );
    let dict = (params[3] & 1 != 0 && format != Format::Gzip && !payload.is_empty()).then(|| {
        let n = 1 + (params[3] as usize >> 1) % payload.len().min(300);
        payload[..n].to_vec()
    });
    if let Some(d) = &dict {
        // SAFETY: a live deflate stream and a dictionary buffer of the given length.
        let r = unsafe { deflateSetDictionary(&mut *z, d.as_ptr(), d.len() as c_uint) };
        assert_eq!(r, Z_OK, "deflateSetDictionary");
    }
    let head = (params[3] & 1 != 0 && format == Format::Gzip).then(|| random_header(rnd));
    // The structure and its strings stay alive until the stream ends (zlib's contract).
    let mut set = head.as_ref().map(SetHead::new);
    if let Some(set) = &mut set {
        // SAFETY: a live deflate stream before its first deflate call, and a header whose
        // buffers outlive the stream.
        let r = unsafe { deflateSetHeader(&mut *z, &mut *set.gz) };
        assert_eq!(r, Z_OK, "deflateSetHeader");
    }
    let flushes = [
        Z_NO_FLUSH,
        Z_NO_FLUSH,
        Z_PARTIAL_FLUSH,
        Z_SYNC_FLUSH,
        Z_FULL_FLUSH,
        Z_BLOCK,
    ];
    let mut plain = true;
    let mut stream = Vec::new();
    let mut pos = 0;
    // Once a Z_FINISH is asked for, every call asks for it, with all the input left.
    let mut finishing = false;
    for _ in 0..1_000_000 {
        finishing |= pos == payload.len() || rnd.next() % 64 == 0;
        if !finishing && rnd.next() % 32 == 0 {
            let (l, s) = ((rnd.next() % 11) as c_int - 1, (rnd.next() % 5) as c_int);
            let mut out = vec![0u8; rnd.piece(1 << 12)];
            set_io(&mut z, &[], &mut out);
            // SAFETY: a live deflate stream whose buffers are `out` and an empty input.
            let r = unsafe { deflateParams(&mut *z, l, s) };
            assert!(r == Z_OK || r == Z_BUF_ERROR, "deflateParams returned {r}");
            stream.extend_from_slice(&out[..out.len() - z.avail_out as usize]);
            plain = false;
        }
        if rnd.next() % 64 == 0 {
            let r = hand_over(deflateCopy, deflateEnd, &mut z);
            // zlib's answer for a stream ended before it finished (output discarded).
            assert!(
                r == Z_OK || r == Z_DATA_ERROR,
                "deflateEnd of the original returned {r}"
            );
        }
        if rnd.next() % 16 == 0 {
            check_window(
                deflateGetDictionary,
                &mut z,
                1 << wbits,
                dict.as_deref(),
                &payload[..pos],
            );
        }
        if rnd.next() % 16 == 0 {
            let (mut pend, mut bits): (c_uint, c_int) = (u32::MAX, -1);
            // SAFETY: a live deflate stream and two values to write.
            let r = unsafe { deflatePending(&mut *z, &mut pend, &mut bits) };
            assert!(
                r == Z_OK && (0..8).contains(&bits),
                "deflatePending: {r}, {bits} bits"
            );
        }
        let n_in = if finishing {
            payload.len() - pos
        } else {
            rnd.piece(payload.len() - pos)
        };
        let flush = if finishing {
            Z_FINISH
        } else {
            flushes[(rnd.next() % 6) as usize]
        };
        plain &= flush == Z_NO_FLUSH || flush == Z_FINISH;
        let input = &payload[pos..pos + n_in];
        let (r, used, made) = call(
            deflate,
            &mut z,
            input,
            rnd.piece(1 << 16),
            flush,
            &mut stream,
        );
        pos += used;
        match r {
            Z_OK => {}
            Z_BUF_ERROR => assert!(used == 0 && made == 0, "Z_BUF_ERROR after progress"),
            Z_STREAM_END => {
                assert!(
                    flush == Z_FINISH && pos == payload.len(),
                    "Z_STREAM_END before the end"
                );
                assert_eq!(z.total_in as usize, payload.len(), "total_in");
                assert_eq!(z.total_out as usize, stream.len(), "total_out");
                if plain && dict.is_none() {
                    // SAFETY: a live deflate stream.
                    let bound = unsafe { deflateBound(&mut *z, payload.len() as _) } as usize;
                    assert!(
                        stream.len() <= bound,
                        "{} bytes above deflateBound {bound}",
                        stream.len()
                    );
                }
                // SAFETY: a live deflate stream, ended once.
                assert_eq!(unsafe { deflateEnd(&mut *z) }, Z_OK, "deflateEnd");
                return Made {
                    format,
                    wbits,
                    dict,
                    head,
                    stream,
                };
            }
            _ => panic!("deflate({flush}) returned {r}"),
        }
    }
    panic!("deflate did not finish");
}

/// Inflates `input` through the C entry points with windowBits `wb_arg` and a schedule from
/// `rnd`; returns the code that ended the run (`Z_STREAM_END`, an error, `Z_NEED_DICT` without
/// a dictionary to give, or `Z_BUF_ERROR` when the input ran out) and the output. With
/// `resync`, a data error is followed by `inflateSync` and more decoding, up to four times.
fn inflate_all(
    input: &[u8],
    wb_arg: c_int,
    dict: Option<&[u8]>,
    head: Option<&mut HeadBufs>,
    resync: bool,
    rnd: &mut Rnd,
) -> (c_int, Vec<u8>) {
    let mut z = new_stream();
    // SAFETY: a zeroed stream and zlib's version string.
    let r = unsafe { inflateInit2_(&mut *z, wb_arg, ZLIB_VERSION.as_ptr(), size()) };
    assert_eq!(r, Z_OK, "inflateInit2_({wb_arg})");
    // The window: 2^windowBits, or with 0 what the zlib header declares (when it is valid).
    let room = 1usize
        << match wb_arg {
            0 => input.first().map_or(15, |&b| (b >> 4) + 8).min(15),
            a if a < 0 => -a as u8,
            a => (a & 15) as u8,
        };
    if let Some(h) = head {
        // SAFETY: a live inflate stream that reads gzip, and a header whose buffers (of the
        // sizes it gives) outlive the stream.
        let r = unsafe { inflateGetHeader(&mut *z, &mut *h.head) };
        assert_eq!(r, Z_OK, "inflateGetHeader");
    }
    if let (Some(d), true) = (dict, wb_arg < 0) {
        // SAFETY: a live inflate stream and a dictionary buffer of the given length.
        let r = unsafe { inflateSetDictionary(&mut *z, d.as_ptr(), d.len() as c_uint) };
        assert_eq!(r, Z_OK, "inflateSetDictionary (raw)");
    }
    let flushes = [
        Z_NO_FLUSH,
        Z_NO_FLUSH,
        Z_SYNC_FLUSH,
        Z_FINISH,
        Z_BLOCK,
        Z_TREES,
    ];
    let (mut got, mut pos, mut idle, mut syncs) = (Vec::new(), 0, 0, 0);
    let end = loop {
        if rnd.next() % 64 == 0 {
            let r = hand_over(inflateCopy, inflateEnd, &mut z);
            assert_eq!(r, Z_OK, "inflateEnd of the original");
        }
        if rnd.next() % 16 == 0 {
            check_window(inflateGetDictionary, &mut z, room, dict, &got);
        }
        let n_in = rnd.piece(input.len() - pos).min(input.len() - pos);
        let flush = flushes[(rnd.next() % 6) as usize];
        let chunk = &input[pos..pos + n_in];
        let (r, used, made) = call(inflate, &mut z, chunk, rnd.piece(1 << 16), flush, &mut got);
        pos += used;
        assert_eq!(z.total_out as usize, got.len(), "total_out");
        idle = if used == 0 && made == 0 { idle + 1 } else { 0 };
        match r {
            Z_OK => assert!(idle <= IDLE, "inflate made no progress {idle} times"),
            Z_BUF_ERROR => {
                // With Z_FINISH, zlib says Z_BUF_ERROR for any call that does not end the
                // stream; otherwise only for one that could make no progress.
                assert!(
                    flush == Z_FINISH || (used == 0 && made == 0),
                    "Z_BUF_ERROR after progress"
                );
                // Out of input: a few calls more, as a Z_BLOCK or Z_TREES stop can be one
                // without progress (zlib's too).
                if pos == input.len() && idle > IDLE {
                    break Z_BUF_ERROR;
                }
                assert!(idle <= IDLE, "inflate made no progress {idle} times");
            }
            Z_NEED_DICT => {
                // Arbitrary bytes can ask for one too.
                let Some(d) = dict else { break r };
                assert_eq!(
                    z.adler,
                    hyperz_engine::checksum::adler32(1, d) as _,
                    "dictionary id"
                );
                // SAFETY: a live inflate stream and a dictionary buffer of the given length.
                let r = unsafe { inflateSetDictionary(&mut *z, d.as_ptr(), d.len() as c_uint) };
                assert_eq!(r, Z_OK, "inflateSetDictionary");
            }
            Z_DATA_ERROR if resync && syncs < 4 => {
                // Skip to the next sync point (00 00 ff ff) in the rest and go on from there.
                syncs += 1;
                let rest = &input[pos..];
                set_io(&mut z, rest, &mut []);
                // SAFETY: a live inflate stream whose input is `rest`.
                let r = unsafe { inflateSync(&mut *z) };
                pos += rest.len() - z.avail_in as usize;
                match r {
                    Z_OK => idle = 0,
                    Z_DATA_ERROR | Z_BUF_ERROR => break Z_DATA_ERROR,
                    _ => panic!("inflateSync returned {r}"),
                }
            }
            Z_STREAM_END | Z_DATA_ERROR => break r,
            _ => panic!("inflate({flush}) returned {r}"),
        }
        if got.len() > LIMIT {
            break Z_MEM_ERROR;
        }
    };
    if end == Z_STREAM_END {
        assert_eq!(z.total_in as usize, pos, "total_in");
    }
    // SAFETY: a live inflate stream, ended once.
    assert_eq!(unsafe { inflateEnd(&mut *z) }, Z_OK, "inflateEnd");
    (end, got)
}

/// miniz_oxide's decoding of a stream made without a dictionary.
fn independent(format: Format, z: &[u8]) -> Vec<u8> {
    match format {
        Format::Raw => miniz_oxide::inflate::decompress_to_vec(z).expect("miniz raw"),
        Format::Zlib => miniz_oxide::inflate::decompress_to_vec_zlib(z).expect("miniz zlib"),
        Format::Gzip => {
            let body = &z[gzip_header_len(z)..z.len() - 8];
            let d = miniz_oxide::inflate::decompress_to_vec(body).expect("miniz gzip");
            let t = &z[z.len() - 8..];
            assert_eq!(
                t[..4],
                hyperz_engine::checksum::crc32(0, &d).to_le_bytes(),
                "CRC-32"
            );
            assert_eq!(t[4..], (d.len() as u32).to_le_bytes(), "ISIZE");
            d
        }
    }
}

fn round_trip(data: &[u8]) {
    if data.len() < 6 {
        return;
    }
    let mut rnd = Rnd(u64::from_le_bytes([data[4], data[5], 1, 2, 3, 4, 5, 6]) | 1);
    let payload = &data[6..];
    let m = compress(&data[..4], payload, &mut rnd);
    if m.dict.is_none() {
        assert!(
            independent(m.format, &m.stream) == payload,
            "miniz_oxide disagrees"
        );
    }
    let auto = rnd.next() % 2 == 0;
    let wb_arg = match m.format {
        Format::Raw => -m.wbits.max(if rnd.next() % 2 == 0 { 15 } else { 0 }),
        Format::Zlib if auto => 32 + 15,
        Format::Zlib => {
            if rnd.next() % 2 == 0 {
                0
            } else {
                m.wbits.max(9)
            }
        }
        Format::Gzip if auto => 32 + m.wbits,
        Format::Gzip => 16 + m.wbits,
    };
    let mut head = (m.format == Format::Gzip).then(|| HeadBufs::new(&mut rnd));
    let (end, got) = inflate_all(
        &m.stream,
        wb_arg,
        m.dict.as_deref(),
        head.as_mut(),
        false,
        &mut rnd,
    );
    assert_eq!(end, Z_STREAM_END, "inflate ended with {end}");
    assert!(got == payload, "inflate gave other bytes");
    if let Some(h) = &head {
        h.check(m.head.as_ref().unwrap_or(&GzipHeader {
            text: false,
            mtime: 0,
            xfl: 0,
            os: 3,
            extra: None,
            name: None,
            comment: None,
            hcrc: false,
        }));
    }
    if m.format == Format::Raw && m.dict.is_none() {
        let (end, got) = inflate_back(&m.stream, m.wbits, &mut rnd);
        assert_eq!(end, Z_STREAM_END, "inflateBack ended with {end}");
        assert!(got == payload, "inflateBack gave other bytes");
    }
}

fn arbitrary(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let mut rnd = Rnd(u64::from_le_bytes([data[1], data[2], 9, 8, 7, 6, 5, 4]) | 1);
    let (format, wb_arg) = match (data[0] >> 1) % 3 {
        0 => (Format::Raw, -15),
        1 => (Format::Zlib, 15),
        _ => (Format::Gzip, 31),
    };
    let input = &data[3..];
    let mut head = (format == Format::Gzip).then(|| HeadBufs::new(&mut rnd));
    // Every fourth run skips damage with inflateSync; its output is then not comparable.
    let resync = data[0] & 8 != 0 && data[0] & 16 != 0;
    let (end, got) = inflate_all(input, wb_arg, None, head.as_mut(), resync, &mut rnd);
    if resync {
        return;
    }
    if let (Some(h), Z_STREAM_END) = (&head, end) {
        assert_eq!(h.head.done, 1, "header not marked done");
    }
    let whole = Decompressor::new(format)
        .multi_member(false)
        .allow_trailing(true)
        .with_limit(LIMIT)
        .decompress(input);
    match (end, &whole) {
        (_, Err(e)) if e.kind == ErrorKind::OutputLimitExceeded => {}
        (Z_STREAM_END, Ok(w)) => assert!(w.data == got, "inflate and the engine disagree"),
        (Z_STREAM_END, Err(e)) => panic!("inflate ended a stream the engine rejects: {e:?}"),
        (Z_DATA_ERROR, Ok(_)) => panic!("inflate rejected a stream the engine decodes"),
        _ => {}
    }
    if format == Format::Raw {
        let (end, got) = inflate_back(input, 15, &mut rnd);
        match (end, &whole) {
            (_, Err(e)) if e.kind == ErrorKind::OutputLimitExceeded => {}
            (Z_STREAM_END, Ok(w)) => assert!(w.data == got, "inflateBack and the engine disagree"),
            (Z_STREAM_END, Err(e)) => {
                panic!("inflateBack ended a stream the engine rejects: {e:?}")
            }
            (Z_DATA_ERROR, Ok(_)) => panic!("inflateBack rejected a stream the engine decodes"),
            _ => {}
        }
    }
}

fuzz_target!(|data: &[u8]| {
    static INIT: std::sync::Once = std::sync::Once::new();
    // Streams go parallel (256 KiB blocks on the device's engines) from 512 bytes of input
    // on, so the fuzzer's short inputs reach that path too.
    INIT.call_once(|| std::env::set_var("HYPERZ_THRESHOLD", "512"));
    match data.first() {
        Some(b) if b & 1 == 0 => round_trip(&data[1..]),
        Some(_) => arbitrary(data),
        None => {}
    }
});
