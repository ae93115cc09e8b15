//! Invalid input: one hand-built stream (written bit by bit, LSB first as RFC 1951 packs them)
//! for each error the decoder can report, checked for kind and offset in both the whole-buffer
//! and the streaming decoder; every prefix of real streams must be `Truncated`; random garbage
//! and bit-flipped streams must give an error or data, never a panic, and both decoders agree.

mod deflate_util;

use deflate_util::{dyn_header, Bits};
use hyperz_engine::checksum::adler32;
use hyperz_engine::deflate::compress;
use hyperz_engine::format::Format;
use hyperz_engine::inflate::{
    decompress, Decompressor, ErrorKind, InflateError, Inflater, StreamState,
};

fn stream_result(
    format: Format,
    input: &[u8],
) -> Result<(Vec<u8>, StreamState, usize), InflateError> {
    let mut inf = Inflater::new(format, 15);
    let mut out = Vec::new();
    let mut buf = [0u8; 977];
    let mut pos = 0;
    loop {
        let end = (pos + 1000).min(input.len());
        let st = inf.inflate(&input[pos..end], &mut buf)?;
        pos += st.consumed;
        out.extend_from_slice(&buf[..st.produced]);
        match st.state {
            StreamState::Progress if st.consumed == 0 && st.produced == 0 && pos == input.len() => {
                return Ok((out, st.state, pos))
            }
            StreamState::Progress => {}
            s => return Ok((out, s, pos)),
        }
    }
}

/// Asserts both decoders fail with `kind`; the whole-buffer offset must lie in `at`.
fn expect(format: Format, input: &[u8], kind: ErrorKind, at: std::ops::RangeInclusive<u64>) {
    expect_with(format, input, |k| k == kind, at)
}

fn expect_with(
    format: Format,
    input: &[u8],
    is: impl Fn(ErrorKind) -> bool,
    at: std::ops::RangeInclusive<u64>,
) {
    let e = decompress(format, input).expect_err("whole-buffer decode should fail");
    let kind = e.kind;
    assert!(
        is(kind),
        "whole-buffer: unexpected {e} on {:02x?}",
        &input[..input.len().min(64)]
    );
    assert!(
        at.contains(&e.offset),
        "whole-buffer offset {} not in {at:?} ({e})",
        e.offset
    );
    assert!(e.offset <= input.len() as u64);
    if kind == ErrorKind::TrailingData || kind == ErrorKind::Truncated {
        return; // streaming reports these as StreamEnd-with-leftover / Progress
    }
    let s = stream_result(format, input).expect_err("streaming decode should fail");
    assert_eq!(s.kind, kind, "streaming: {s}");
    assert!(
        s.offset <= input.len() as u64,
        "streaming offset {} past the input",
        s.offset
    );
}

#[test]
fn bad_block_type() {
    let s = Bits::new().put(1, 1).put(3, 2).finish();
    expect(Format::Raw, &s, ErrorKind::BadBlockType, 0..=1);
}

#[test]
fn stored_length_mismatch() {
    let s = Bits::new()
        .put(1, 1)
        .put(0, 2)
        .bytes(&[5, 0, 0, 0])
        .bytes(b"hello")
        .finish();
    expect(Format::Raw, &s, ErrorKind::StoredLengthMismatch, 1..=5);
}

#[test]
fn too_many_codes() {
    let mut b = Bits::new();
    b.put(1, 1)
        .put(2, 2)
        .put(30, 5)
        .put(0, 5)
        .put(0, 4)
        .put(0, 12);
    expect(Format::Raw, &b.finish(), ErrorKind::TooManyCodes, 0..=3);
    let mut b = Bits::new();
    b.put(1, 1)
        .put(2, 2)
        .put(0, 5)
        .put(30, 5)
        .put(0, 4)
        .put(0, 12);
    expect(Format::Raw, &b.finish(), ErrorKind::TooManyCodes, 0..=3);
}

#[test]
fn oversubscribed_code_length_code() {
    let s = dyn_header(257, 1, &[1; 19]).put(0, 16).finish();
    expect(Format::Raw, &s, ErrorKind::OversubscribedCodes, 0..=12);
}

#[test]
fn incomplete_code_length_code() {
    let mut cl = [0; 19];
    cl[0] = 2;
    cl[8] = 2;
    cl[18] = 2; // three of four 2-bit codes
    let s = dyn_header(257, 1, &cl).put(0, 16).finish();
    expect(Format::Raw, &s, ErrorKind::IncompleteCodes, 0..=12);
}

#[test]
fn oversubscribed_literal_code() {
    // Code-length code: 8 -> '0', 0 -> '10', 18 -> '11'. Literals 0..2 get length... we give
    // three literals length 1 (via symbol 1 unavailable), so use length 8 for 257 symbols.
    let mut cl = [0; 19];
    cl[8] = 1;
    cl[0] = 2;
    cl[18] = 2;
    let mut b = dyn_header(257, 1, &cl);
    for _ in 0..257 {
        b.code(0, 1); // 257 codes of length 8: over-subscribed (256 allowed)
    }
    b.code(0, 1); // distance code length 8
    expect(
        Format::Raw,
        &b.finish(),
        ErrorKind::OversubscribedCodes,
        0..=60,
    );
}

#[test]
fn bad_code_length_repeat_without_previous() {
    let mut cl = [0; 19];
    cl[16] = 1;
    cl[0] = 2;
    cl[8] = 2;
    let s = dyn_header(257, 1, &cl)
        .code(0, 1)
        .put(0, 2)
        .put(0, 16)
        .finish();
    expect(Format::Raw, &s, ErrorKind::BadCodeLengthRepeat, 0..=10);
}

#[test]
fn bad_code_length_repeat_past_end() {
    let mut cl = [0; 19];
    cl[18] = 1;
    cl[0] = 2;
    cl[8] = 2;
    // 138 + 138 zeros > 257 + 1 lengths.
    let s = dyn_header(257, 1, &cl)
        .code(0, 1)
        .put(127, 7)
        .code(0, 1)
        .put(127, 7)
        .put(0, 16)
        .finish();
    expect(Format::Raw, &s, ErrorKind::BadCodeLengthRepeat, 0..=10);
}

/// A dynamic header's code lengths are decoded by a fast loop while eight input bytes remain
/// to refill from, and by the resumable loop after. The streams above end within a few bytes
/// of the error, so only the resumable loop sees it; with input to spare (zero padding here)
/// the fast loop must report the same errors.
#[test]
fn code_length_errors_with_input_to_spare() {
    let pad = |s: &mut Bits| {
        let mut v = s.finish();
        v.extend_from_slice(&[0; 64]);
        v
    };
    // Code-length code: 18 -> '0', 0 -> '10', 17 -> '11'.
    let mut cl = [0; 19];
    cl[18] = 1;
    cl[0] = 2;
    cl[17] = 2;
    // A repeat (16) first, with no previous length; its code-length code: 16 -> '0',
    // 0 -> '10', 8 -> '11'.
    let mut cl16 = [0; 19];
    cl16[16] = 1;
    cl16[0] = 2;
    cl16[8] = 2;
    let mut b = dyn_header(257, 1, &cl16);
    b.code(0, 1).put(0, 2);
    expect(
        Format::Raw,
        &pad(&mut b),
        ErrorKind::BadCodeLengthRepeat,
        0..=20,
    );
    // 138 zeros, `more` zeros, then a run of 3 zeros, for 257 + 1 lengths.
    let zeros = |more: u32| {
        let mut b = dyn_header(257, 1, &cl);
        b.code(0, 1).put(127, 7);
        b.code(0, 1).put(more - 11, 7);
        b.code(3, 2).put(0, 3);
        pad(&mut b)
    };
    // 138 + 118 + 3 = 259 lengths: one too many.
    expect(
        Format::Raw,
        &zeros(118),
        ErrorKind::BadCodeLengthRepeat,
        0..=20,
    );
    // The control: 138 + 117 + 3 fill the 258 lengths exactly. The header is accepted, and
    // the all-zero code has no end-of-block symbol.
    expect(
        Format::Raw,
        &zeros(117),
        ErrorKind::MissingEndOfBlock,
        0..=20,
    );
}

#[test]
fn missing_end_of_block() {
    // Code-length code: 18 -> '0', 0 -> '10', 1 -> '11'.
    let mut cl = [0; 19];
    cl[18] = 1;
    cl[0] = 2;
    cl[1] = 2;
    let mut b = dyn_header(257, 1, &cl);
    b.code(3, 2).code(3, 2); // literals 0 and 1: length 1 (a complete code without 256)
    b.code(0, 1).put(127, 7); // 138 zeros
    b.code(0, 1).put(117 - 11, 7); // 117 zeros: up to and including 256
    b.code(3, 2); // one distance code of length 1
    b.put(0, 16);
    expect(
        Format::Raw,
        &b.finish(),
        ErrorKind::MissingEndOfBlock,
        0..=12,
    );
}

/// A final fixed-Huffman block header.
fn fixed() -> Bits {
    let mut b = Bits::new();
    b.put(1, 1).put(1, 2);
    b
}

#[test]
fn invalid_literal_length_symbols_in_fixed_block() {
    for sym in [286u32, 287] {
        let s = fixed().code(0xc0 + sym - 280, 8).put(0, 16).finish();
        expect(Format::Raw, &s, ErrorKind::InvalidSymbol, 0..=2);
    }
}

#[test]
fn invalid_distance_symbols_in_fixed_block() {
    for d in [30u32, 31] {
        // Literal 'a' (0x30 + 0x61 = 8-bit code), then length 3 (symbol 257, code 0000001),
        // then distance symbol 30/31.
        let s = fixed()
            .code(0x30 + 0x61, 8)
            .code(1, 7)
            .code(d, 5)
            .put(0, 16)
            .finish();
        expect(Format::Raw, &s, ErrorKind::InvalidSymbol, 0..=4);
    }
}

#[test]
fn distance_too_far() {
    // Length 3, distance 1 with no output yet.
    let s = fixed().code(1, 7).code(0, 5).code(0, 7).finish();
    expect(Format::Raw, &s, ErrorKind::DistanceTooFar, 0..=3);
    // One literal, then distance 2.
    let s = fixed()
        .code(0x30 + 0x61, 8)
        .code(1, 7)
        .code(1, 5)
        .code(0, 7)
        .finish();
    expect(Format::Raw, &s, ErrorKind::DistanceTooFar, 0..=4);
    // In a zlib stream too: the header does not count as history.
    let mut z = vec![0x78, 0x01];
    z.extend(fixed().code(1, 7).code(0, 5).code(0, 7).finish());
    expect(Format::Zlib, &z, ErrorKind::DistanceTooFar, 2..=5);
}

#[test]
fn bad_zlib_header() {
    expect(
        Format::Zlib,
        &[0x78, 0x00, 3, 0],
        ErrorKind::BadZlibHeader,
        0..=1,
    ); // FCHECK
    expect(
        Format::Zlib,
        &[0x79, 0x1c, 3, 0],
        ErrorKind::BadZlibHeader,
        0..=1,
    ); // method 9
    expect(
        Format::Zlib,
        &[0x88, 0x1b, 3, 0],
        ErrorKind::BadZlibHeader,
        0..=1,
    ); // CINFO 8
}

fn zlib_with_dict(dict: &[u8], data: &[u8]) -> Vec<u8> {
    // Stored block of `data` with FDICT: the content does not need the dictionary, but the
    // header still demands it.
    let mut z = vec![0x78, 0x20];
    z.extend(adler32(1, dict).to_be_bytes());
    z.push(1);
    z.extend((data.len() as u16).to_le_bytes());
    z.extend((!(data.len() as u16)).to_le_bytes());
    z.extend(data);
    z.extend(adler32(1, data).to_be_bytes());
    z
}

#[test]
fn dictionary_required_and_wrong_dictionary() {
    let z = zlib_with_dict(b"the dictionary", b"payload");
    let id = adler32(1, b"the dictionary");
    let e = decompress(Format::Zlib, &z).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DictionaryRequired(id));
    assert!(e.offset <= 6);
    let e = Decompressor::new(Format::Zlib)
        .with_dictionary(b"another")
        .decompress(&z)
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::WrongDictionary);
    assert!(e.offset <= 6);
    let ok = Decompressor::new(Format::Zlib)
        .with_dictionary(b"the dictionary")
        .decompress(&z)
        .unwrap();
    assert_eq!(ok.data, b"payload");
    // Streaming: NeedDictionary, a wrong dictionary is refused, the right one works.
    let mut inf = Inflater::new(Format::Zlib, 15);
    let mut out = [0u8; 64];
    let st = inf.inflate(&z, &mut out).unwrap();
    assert_eq!(st.state, StreamState::NeedDictionary(id));
    assert_eq!(st.consumed, 6);
    assert_eq!(
        inf.set_dictionary(b"wrong").unwrap_err().kind,
        ErrorKind::WrongDictionary
    );
    inf.set_dictionary(b"the dictionary").unwrap();
    let st2 = inf.inflate(&z[6..], &mut out).unwrap();
    assert_eq!(st2.state, StreamState::StreamEnd);
    assert_eq!(&out[..st2.produced], b"payload");
}

fn gzip_header(flags: u8) -> Vec<u8> {
    vec![0x1f, 0x8b, 8, flags, 0, 0, 0, 0, 0, 3]
}

#[test]
fn bad_gzip_header_and_reserved_flags() {
    let good = compress(Format::Gzip, b"hello hello hello", 6);
    let mut b = good.clone();
    b[0] = 0x1e;
    expect(Format::Gzip, &b, ErrorKind::BadGzipHeader, 0..=0);
    let mut b = good.clone();
    b[1] = 0x8c;
    expect(Format::Gzip, &b, ErrorKind::BadGzipHeader, 1..=1);
    let mut b = good.clone();
    b[2] = 7;
    expect(Format::Gzip, &b, ErrorKind::BadGzipHeader, 2..=2);
    for bit in [0x20u8, 0x40, 0x80] {
        let mut b = good.clone();
        b[3] |= bit;
        expect(Format::Gzip, &b, ErrorKind::ReservedFlags, 3..=3);
    }
    // The magic, then the method with the flags, are judged in pairs (as zlib reads them): a
    // stream that ends after one byte of a pair is truncated, whatever that byte is.
    for cut in [&[0x1e][..], &[0x1f, 0x8b, 7], &[0x1f, 0x8b, 8]] {
        expect(
            Format::Gzip,
            cut,
            ErrorKind::Truncated,
            0..=cut.len() as u64,
        );
    }
    expect(
        Format::Gzip,
        &[0x1f, 0x8b, 7, 0],
        ErrorKind::BadGzipHeader,
        2..=2,
    );
    expect(Format::Gzip, &[0x1e, 0x8b], ErrorKind::BadGzipHeader, 0..=0);
}

#[test]
fn header_crc_mismatch() {
    let body = compress(Format::Raw, b"abc", 6);
    let mut g = gzip_header(2 | 8);
    g.extend(b"name\0");
    let crc = hyperz_engine::checksum::crc32(0, &g) as u16;
    let mut good = g.clone();
    good.extend(crc.to_le_bytes());
    good.extend(&body);
    good.extend(hyperz_engine::checksum::crc32(0, b"abc").to_le_bytes());
    good.extend(3u32.to_le_bytes());
    assert_eq!(decompress(Format::Gzip, &good).unwrap(), b"abc");
    let mut bad = good.clone();
    bad[15] ^= 1;
    expect(Format::Gzip, &bad, ErrorKind::HeaderCrcMismatch, 15..=17);
}

#[test]
fn header_too_long() {
    let mut g = gzip_header(8);
    g.extend(std::iter::repeat_n(b'x', 70_000));
    g.push(0);
    g.extend(compress(Format::Raw, b"", 6));
    g.extend([0; 8]);
    expect(Format::Gzip, &g, ErrorKind::HeaderTooLong, 10..=70_010);
}

#[test]
fn checksum_and_length_mismatch() {
    let data = b"The quick brown fox jumps over the lazy dog. ".repeat(40);
    let g = compress(Format::Gzip, &data, 6);
    let t = g.len() as u64 - 8;
    let mut b = g.clone();
    b[t as usize] ^= 0x10;
    expect_with(
        Format::Gzip,
        &b,
        |k| matches!(k, ErrorKind::ChecksumMismatch { expected, actual } if expected ^ actual == 0x10),
        t..=t + 8,
    );
    let mut b = g.clone();
    b[t as usize + 4] ^= 1;
    let len = data.len() as u32;
    expect_with(
        Format::Gzip,
        &b,
        |k| {
            k == ErrorKind::LengthMismatch {
                expected: len ^ 1,
                actual: len,
            }
        },
        t..=t + 8,
    );
    let z = compress(Format::Zlib, &data, 6);
    let t = z.len() as u64 - 4;
    let mut b = z.clone();
    b[t as usize + 3] ^= 0x80;
    expect_with(
        Format::Zlib,
        &b,
        |k| matches!(k, ErrorKind::ChecksumMismatch { expected, actual } if expected ^ actual == 0x80),
        t..=t + 4,
    );
    // A corrupted second gzip member is reported at its own trailer.
    let mut two = g.clone();
    let mut second = g.clone();
    second[t as usize] ^= 1;
    two.extend(&second);
    let e = decompress(Format::Gzip, &two).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::ChecksumMismatch { .. }));
    assert!(
        e.offset >= g.len() as u64 + t && e.offset <= 2 * g.len() as u64,
        "{e}"
    );
}

/// Each trailer field is checked as soon as its bytes are there, and reported at its first
/// byte by both decoders (the streaming one fed a byte at a time): a gzip member cut short
/// inside ISIZE whose CRC is already wrong is a checksum mismatch, as zlib reports it (`incorrect
/// data check`), not a truncated stream; with the right CRC it is truncated.
#[test]
fn trailer_fields_are_checked_as_they_arrive() {
    let data = b"Trailer fields, one at a time. ".repeat(30);
    let g = compress(Format::Gzip, &data, 6);
    let t = g.len() - 8;
    let byte_at_a_time = |input: &[u8]| -> Result<(), InflateError> {
        let mut inf = Inflater::new(Format::Gzip, 15);
        let mut out = vec![0u8; 4096];
        for i in 0..input.len() {
            inf.inflate(&input[i..i + 1], &mut out)?;
        }
        Ok(())
    };
    let crc_bad = |k: ErrorKind| matches!(k, ErrorKind::ChecksumMismatch { expected, actual } if expected ^ actual == 1 << 24);
    for cut in [t + 4, t + 5, t + 7, t + 8] {
        let mut b = g[..cut].to_vec();
        b[t + 3] ^= 1;
        let whole = decompress(Format::Gzip, &b).unwrap_err();
        let streamed = byte_at_a_time(&b).unwrap_err();
        for e in [whole, streamed] {
            assert!(crc_bad(e.kind), "cut at {cut}: {e}");
            assert_eq!(e.offset, t as u64, "cut at {cut}: {e}");
        }
        // The same cut with the right CRC: the whole-buffer decoder says truncated (a complete
        // trailer has nothing left to check), the streaming one waits for more.
        let ok = &g[..cut];
        if cut < g.len() {
            assert_eq!(
                decompress(Format::Gzip, ok).unwrap_err().kind,
                ErrorKind::Truncated
            );
            assert!(byte_at_a_time(ok).is_ok());
        }
    }
    let mut b = g.clone();
    b[t + 4] ^= 2;
    let len = data.len() as u32;
    for e in [
        decompress(Format::Gzip, &b).unwrap_err(),
        byte_at_a_time(&b).unwrap_err(),
    ] {
        assert_eq!(
            (e.kind, e.offset),
            (
                ErrorKind::LengthMismatch {
                    expected: len ^ 2,
                    actual: len
                },
                t as u64 + 4
            ),
            "{e}"
        );
    }
}

#[test]
fn trailing_data_and_output_limit() {
    let data = vec![7u8; 5000];
    for f in [Format::Raw, Format::Zlib, Format::Gzip] {
        let mut s = compress(f, &data, 6);
        let n = s.len() as u64;
        assert_eq!(decompress(f, &s).unwrap(), data);
        let e = Decompressor::new(f)
            .with_limit(100)
            .decompress(&s)
            .unwrap_err();
        assert_eq!(e.kind, ErrorKind::OutputLimitExceeded, "{f:?}");
        assert!(e.offset <= n);
        s.extend(b"xyz");
        expect(f, &s, ErrorKind::TrailingData, n..=n);
        let d = Decompressor::new(f)
            .allow_trailing(true)
            .decompress(&s)
            .unwrap();
        assert_eq!(
            (d.data.as_slice(), d.consumed, d.trailing),
            (&data[..], n as usize, 3)
        );
    }
}

#[test]
fn bad_window_size() {
    let z = compress(Format::Zlib, &[1u8; 100000], 6);
    let mut inf = Inflater::new(Format::Zlib, 9);
    let mut out = vec![0u8; 1000];
    let e = inf.inflate(&z, &mut out).unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadWindowSize);
}

fn real_streams() -> Vec<(Format, Vec<u8>)> {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/sample");
    let text = std::fs::read(dir.join("fields.c")).unwrap();
    let bin = std::fs::read(dir.join("sum")).unwrap();
    let mut v = Vec::new();
    for (f, d, l) in [
        (Format::Raw, &text[..], 6),
        (Format::Zlib, &bin, 1),
        (Format::Gzip, &text, 9),
        (Format::Gzip, &bin[..3000], 0),
    ] {
        v.push((f, compress(f, d, l)));
    }
    v
}

#[test]
fn every_prefix_is_truncated() {
    for (f, s) in real_streams() {
        for cut in 0..s.len() {
            let p = &s[..cut];
            let e = decompress(f, p).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Truncated, "{f:?} cut at {cut}: {e}");
            assert_eq!(e.offset, cut as u64, "{f:?} cut at {cut}");
            // Streaming, all at once and then byte by byte at a few cut points.
            let r = stream_result(f, p).unwrap_or_else(|e| panic!("{f:?} cut {cut}: {e}"));
            assert_eq!(r.1, StreamState::Progress, "{f:?} cut {cut}");
            assert_eq!(r.2, cut, "{f:?} cut {cut}: not all input consumed");
        }
        for cut in [1, s.len() / 3, s.len() - 1] {
            let mut inf = Inflater::new(f, 15);
            let mut out = [0u8; 1];
            let mut pos = 0;
            while pos < cut {
                let st = inf.inflate(&s[pos..pos + 1], &mut out).unwrap();
                assert_ne!(st.state, StreamState::StreamEnd);
                pos += st.consumed;
            }
        }
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Whole-buffer and streaming agree: same data on success, same error kind on failure.
fn agree(f: Format, input: &[u8]) {
    let whole = Decompressor::new(f).multi_member(false).decompress(input);
    let stream = stream_result(f, input);
    match (&whole, &stream) {
        (Ok(w), Ok((d, StreamState::StreamEnd, used))) => {
            assert_eq!(*used, input.len());
            assert!(w.data == *d, "{f:?}: outputs differ");
        }
        (Err(e), Ok((_, StreamState::StreamEnd, used))) => {
            assert_eq!(
                e.kind,
                ErrorKind::TrailingData,
                "{f:?}: stream ok, whole {e}"
            );
            assert_eq!(e.offset, *used as u64);
        }
        (Err(e), Ok((_, StreamState::Progress, _))) => {
            assert_eq!(
                e.kind,
                ErrorKind::Truncated,
                "{f:?}: stream wants more, whole {e}"
            )
        }
        (Err(e), Ok((_, StreamState::NeedDictionary(id), _))) => {
            assert_eq!(e.kind, ErrorKind::DictionaryRequired(*id))
        }
        (Err(a), Err(b)) => assert_eq!(a.kind, b.kind, "{f:?}: whole {a}, stream {b}"),
        _ => panic!("{f:?}: whole {whole:?} vs stream {stream:?}"),
    }
}

#[test]
fn random_garbage_never_panics() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    for i in 0..3000 {
        let len = (rng.next() % 300) as usize;
        let mut g: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let f = [Format::Raw, Format::Zlib, Format::Gzip][i % 3];
        // Give the containers a valid-looking start so the block decoder is exercised.
        if f == Format::Zlib && g.len() >= 2 {
            g[0] = 0x78;
            g[1] = 0x9c;
        }
        if f == Format::Gzip && g.len() >= 10 {
            g[..4].copy_from_slice(&[0x1f, 0x8b, 8, 0]);
        }
        agree(f, &g);
    }
}

#[test]
fn bit_flipped_streams_never_panic() {
    let mut rng = Rng(12345);
    for (f, s) in real_streams() {
        for _ in 0..400 {
            let mut m = s.clone();
            for _ in 0..1 + rng.next() % 3 {
                let bit = (rng.next() % (m.len() as u64 * 8)) as usize;
                m[bit / 8] ^= 1 << (bit % 8);
            }
            agree(f, &m);
        }
    }
}

/// A damaged stream yields all of its output before the damage, then the error: the streaming
/// decoder decodes ahead of its caller, and an error it meets there waits until the output
/// before it has been delivered (`pending_error` says when it is next). So the output and the
/// error (kind and offset) are the same whatever the output piece size, from one byte to more
/// than the whole output, and the error is the one the whole-buffer decoder reports.
#[test]
fn damaged_streams_yield_everything_before_the_damage() {
    let mut rng = Rng(0xDA3A_6ED5);
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/sample");
    let text = std::fs::read(dir.join("alice29.txt")).unwrap();
    let mut failures = 0;
    for i in 0..300 {
        let f = [Format::Raw, Format::Zlib, Format::Gzip][i % 3];
        let data = &text[..20_000 + (rng.next() % 100_000) as usize];
        let mut s = compress(f, data, 1 + (rng.next() % 9) as u32);
        let bit = (rng.next() % (s.len() as u64 * 8)) as usize;
        s[bit / 8] ^= 1 << (bit % 8);
        let Err(whole) = decompress(f, &s) else {
            continue; // the flip kept the stream valid (or only changed literals)
        };
        failures += 1;
        let mut first: Option<Vec<u8>> = None;
        for piece in [1usize, 7, 4096, 1 << 20] {
            let mut inf = Inflater::new(f, 15);
            let (mut out, mut buf, mut pos) = (Vec::new(), vec![0u8; piece], 0);
            let e = loop {
                match inf.inflate(&s[pos..], &mut buf) {
                    Ok(st) => {
                        pos += st.consumed;
                        out.extend_from_slice(&buf[..st.produced]);
                        if let Some(e) = inf.pending_error() {
                            assert_eq!(inf.inflate(&s[pos..], &mut buf), Err(e));
                            break e;
                        }
                        assert!(
                            st.produced > 0 || st.consumed > 0,
                            "stalled ({f:?} {piece})"
                        );
                    }
                    Err(e) => break e,
                }
            };
            assert_eq!(
                (e.kind, e.offset),
                (whole.kind, whole.offset),
                "{f:?} piece {piece}"
            );
            match &first {
                None => first = Some(out),
                Some(o) => assert!(o == &out, "{f:?}: piece {piece} gave other output"),
            }
        }
    }
    assert!(failures > 100, "{failures}");
}

#[test]
fn output_exactly_at_the_limit_is_accepted() {
    let data = vec![7u8; 5000];
    for f in [Format::Raw, Format::Zlib, Format::Gzip] {
        for level in [0, 6] {
            let s = compress(f, &data, level);
            let d = Decompressor::new(f).with_limit(5000).decompress(&s);
            assert_eq!(
                d.map(|d| d.data).as_deref(),
                Ok(&data[..]),
                "{f:?} level {level}"
            );
            let e = Decompressor::new(f)
                .with_limit(4999)
                .decompress(&s)
                .unwrap_err();
            assert_eq!(e.kind, ErrorKind::OutputLimitExceeded);
        }
    }
}
