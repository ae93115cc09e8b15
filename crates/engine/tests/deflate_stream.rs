//! The streaming Deflater: random input/output split points and flush schedules at every level
//! and strategy, window sizes, memory levels, preset dictionaries, gzip header fields,
//! deflateParams/deflatePrime, and determinism against the whole-buffer path.

#[path = "deflate_util.rs"]
mod util;

use hyperz_engine::deflate::{compress, DeflateError, Deflater, Flush, Params, Strategy};
use hyperz_engine::format::{Format, GzipHeader};
use proptest::prelude::{any, prop_assert_eq, proptest, ProptestConfig};
use util::*;

const FLUSHES: [Flush; 5] = [
    Flush::None,
    Flush::Partial,
    Flush::Sync,
    Flush::Full,
    Flush::Block,
];

/// Streams `data` through `d` with random input pieces, output space and flushes; returns the
/// compressed bytes.
fn stream(d: &mut Deflater, data: &[u8], r: &mut Rng, flushy: bool) -> Vec<u8> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut obuf = vec![0u8; 70_000];
    loop {
        let n = (r.below(40_000) + 1).min(data.len() - pos);
        let fin = pos + n == data.len();
        let flush = if fin {
            Flush::Finish
        } else if flushy && r.below(4) == 0 {
            FLUSHES[r.below(5)]
        } else {
            Flush::None
        };
        let mut inp = &data[pos..pos + n];
        loop {
            let olen = if r.below(3) == 0 {
                1 + r.below(16)
            } else {
                1 + r.below(obuf.len() - 1)
            };
            match d.deflate(inp, &mut obuf[..olen], flush) {
                Ok(st) => {
                    out.extend_from_slice(&obuf[..st.produced]);
                    inp = &inp[st.consumed..];
                    if st.done {
                        assert!(fin);
                        return out;
                    }
                    if inp.is_empty() && st.produced < olen && flush != Flush::Finish {
                        break;
                    }
                }
                Err(DeflateError::BufferError) if inp.is_empty() && flush != Flush::Finish => break,
                Err(e) => panic!("deflate error {e:?}"),
            }
        }
        pos += n;
    }
}

#[test]
fn random_flushes_every_level_and_strategy() {
    let mut ck = Checker::new("stream");
    let mut r = Rng(7);
    let mut inputs = adversarial();
    inputs.extend(sample_files().into_iter().take(6));
    let mut k = 0usize;
    for (_n, data) in &inputs {
        for level in 0..=12u32 {
            let strategy = Strategy::ALL[k % 5];
            let format = [Format::Raw, Format::Zlib, Format::Gzip][k % 3];
            k += 1;
            let p = Params {
                level,
                strategy,
                ..Params::default()
            };
            let mut d = Deflater::new(format, p).unwrap();
            let z = stream(&mut d, data, &mut r, true);
            assert_eq!(d.total_in(), data.len() as u64);
            assert_eq!(d.total_out(), z.len() as u64);
            ck.add(&z, format, data);
        }
    }
    ck.check();
}

#[test]
fn chunking_does_not_change_output() {
    let mut r = Rng(11);
    let mut inputs = sample_files();
    inputs.extend(adversarial());
    for (i, (_n, data)) in inputs.iter().enumerate() {
        let level = (i % 13) as u32;
        let format = [Format::Raw, Format::Zlib, Format::Gzip][i % 3];
        let whole = compress(format, data, level);
        let p = Params {
            level,
            ..Params::default()
        };
        let mut d = Deflater::new(format, p).unwrap();
        let z = stream(&mut d, data, &mut r, false);
        assert_eq!(
            z, whole,
            "level {level}: streamed output differs from whole-buffer"
        );
        // A reset stream forgets the last one (levels 10-12 carry symbol prices between
        // windows of a stream).
        d.reset();
        let z = stream(&mut d, data, &mut r, false);
        assert_eq!(z, whole, "level {level}: output differs after reset");
    }
}

/// Pieces of one to three bytes, each sync-flushed: every segment is a few bytes after a few
/// bytes of history, shorter than the eight-byte words the match finders read. Every level
/// gives a stream that decodes to the input (with the system zlib, through Python).
#[test]
fn tiny_flushed_pieces_at_every_level() {
    let data: Vec<u8> = b"abcabcabdabcabd the cat the hat "
        .iter()
        .cycle()
        .take(160)
        .copied()
        .collect();
    let mut r = Rng(5);
    for level in 0..=12u32 {
        let p = Params {
            level,
            ..Params::default()
        };
        let mut d = Deflater::new(Format::Raw, p).unwrap();
        let mut out = vec![0u8; 4096];
        let mut z = Vec::new();
        let mut pos = 0;
        while pos < data.len() {
            let n = (1 + r.below(3)).min(data.len() - pos);
            let fin = pos + n == data.len();
            let flush = if fin { Flush::Finish } else { Flush::Sync };
            let st = d.deflate(&data[pos..pos + n], &mut out, flush).unwrap();
            assert_eq!(st.consumed, n);
            z.extend_from_slice(&out[..st.produced]);
            pos += n;
        }
        assert_eq!(py_decode(&z, -15).unwrap(), data, "level {level}");
    }
}

/// Levels 10-12 cut their input into larger segments than levels 1-9 (`OPTIMAL_SEGMENT`):
/// over several of them, with runs across the segment ends, streaming in random pieces gives
/// the whole-buffer bytes, which decode to the input with the system zlib too.
#[test]
fn optimal_levels_stream_across_their_segments() {
    let mut data: Vec<u8> = sample_files().into_iter().flat_map(|(_, d)| d).collect();
    let mut r = Rng(23);
    data.extend(r.bytes(100_000));
    for edge in [1usize << 20, 2 << 20] {
        data[edge - 300..edge + 300].fill(b'z');
    }
    assert!(data.len() > (2 << 20) + 300);
    let mut ck = Checker::new("optimal segments");
    for (level, format) in [(10, Format::Raw), (12, Format::Gzip)] {
        let whole = compress(format, &data, level);
        let p = Params {
            level,
            ..Params::default()
        };
        let z = stream(&mut Deflater::new(format, p).unwrap(), &data, &mut r, false);
        assert!(
            z == whole,
            "level {level}: streamed output differs from whole-buffer"
        );
        ck.add(&whole, format, &data);
    }
    ck.check();
}

#[test]
fn window_bits_and_mem_levels() {
    let mut ck = Checker::new("wbits");
    let data = &sample_files()
        .into_iter()
        .max_by_key(|f| f.1.len())
        .unwrap()
        .1;
    let data = &data[..data.len().min(400_000)];
    let mut r = Rng(3);
    for wb in 9..=15u8 {
        for level in [1u32, 4, 6, 9, 12] {
            let p = Params {
                level,
                window_bits: wb,
                mem_level: 1 + (r.below(9) as u8),
                ..Params::default()
            };
            let mut d = Deflater::new(Format::Zlib, p).unwrap();
            let z = stream(&mut d, data, &mut r, true);
            assert_eq!(z[0] >> 4, wb - 8, "CINFO");
            // zlib rejects distances beyond the window the header announces.
            ck.add_w(&z, wb as i32, data, None);
            let mut d = Deflater::new(Format::Raw, p).unwrap();
            let z = stream(&mut d, data, &mut r, false);
            ck.add_w(&z, -(wb as i32), data, None);
        }
    }
    ck.check();
}

#[test]
fn bad_params_are_rejected() {
    let bad = [
        Params {
            level: 13,
            ..Params::default()
        },
        Params {
            window_bits: 8,
            ..Params::default()
        },
        Params {
            window_bits: 16,
            ..Params::default()
        },
        Params {
            mem_level: 0,
            ..Params::default()
        },
        Params {
            mem_level: 10,
            ..Params::default()
        },
    ];
    for p in bad {
        assert_eq!(
            Deflater::new(Format::Zlib, p).err(),
            Some(DeflateError::BadParams)
        );
    }
    let mut d = Deflater::new(Format::Raw, Params::default()).unwrap();
    assert_eq!(
        d.set_params(13, Strategy::Default),
        Err(DeflateError::BadParams)
    );
    assert_eq!(d.prime(17, 0), Err(DeflateError::BadParams));
    assert_eq!(
        d.deflate(b"x", &mut [], Flush::None),
        Err(DeflateError::BufferError)
    );
}

#[test]
fn preset_dictionary_zlib_and_raw() {
    let mut ck = Checker::new("dict");
    let files = sample_files();
    let dict = &files[0].1[..files[0].1.len().min(40_000)];
    for (i, (_n, data)) in files.iter().enumerate().take(6) {
        let level = [1u32, 3, 6, 9, 11, 0][i];
        for format in [Format::Zlib, Format::Raw] {
            let mut d = Deflater::new(
                format,
                Params {
                    level,
                    ..Params::default()
                },
            )
            .unwrap();
            d.set_dictionary(dict).unwrap();
            if format == Format::Zlib {
                assert_eq!(d.checksum(), hyperz_engine::checksum::adler32(1, dict));
            }
            let z = stream(&mut d, data, &mut Rng(i as u64 + 1), true);
            ck.add_w(
                &z,
                if format == Format::Zlib { 15 } else { -15 },
                data,
                Some(dict),
            );
        }
    }
    let mut g = Deflater::new(Format::Gzip, Params::default()).unwrap();
    assert_eq!(g.set_dictionary(b"abc"), Err(DeflateError::BadState));
    let mut z = Deflater::new(Format::Zlib, Params::default()).unwrap();
    let mut o = [0u8; 64];
    z.deflate(b"hello", &mut o, Flush::Sync).unwrap();
    assert_eq!(z.set_dictionary(b"abc"), Err(DeflateError::BadState));
    ck.check();
}

#[test]
fn gzip_header_fields() {
    let mut ck = Checker::new("gzhdr");
    let data = b"header field test data header field test data".repeat(100);
    let h = GzipHeader {
        text: true,
        mtime: 0x5f5e_1000,
        xfl: 0,
        os: 11,
        extra: Some(b"AB\x04\x00wxyz".to_vec()),
        name: Some(b"name.txt".to_vec()),
        comment: Some(b"a comment".to_vec()),
        hcrc: true,
    };
    let mut d = Deflater::new(Format::Gzip, Params::default()).unwrap();
    d.set_gzip_header(h.clone());
    let z = stream(&mut d, &data, &mut Rng(5), false);
    assert_eq!(&z[..4], &[0x1f, 0x8b, 8, 1 | 2 | 4 | 8 | 16]);
    assert_eq!(&z[4..8], &h.mtime.to_le_bytes());
    assert_eq!(z[9], 11);
    assert_eq!(&z[10..12], &[8, 0]);
    assert_eq!(&z[12..20], b"AB\x04\x00wxyz");
    assert_eq!(&z[20..29], b"name.txt\0");
    let hlen = 29 + 10 + 2;
    let crc = hyperz_engine::checksum::crc32(0, &z[..hlen - 2]) as u16;
    assert_eq!(&z[hlen - 2..hlen], &crc.to_le_bytes());
    ck.add(&z, Format::Gzip, &data);
    ck.check();
}

#[test]
fn sync_flush_is_byte_aligned_and_decodable_so_far() {
    let data = sample_files().into_iter().next().unwrap().1;
    for (flush, level) in [
        (Flush::Sync, 6u32),
        (Flush::Full, 1),
        (Flush::Sync, 0),
        (Flush::Full, 12),
    ] {
        let mut d = Deflater::new(
            Format::Raw,
            Params {
                level,
                ..Params::default()
            },
        )
        .unwrap();
        let mut out = vec![0u8; data.len() * 2 + 1000];
        let half = data.len() / 2;
        let st = d.deflate(&data[..half], &mut out, flush).unwrap();
        assert_eq!(st.consumed, half);
        assert_eq!(&out[st.produced - 4..st.produced], &[0, 0, 0xff, 0xff]);
        assert_eq!(d.pending(), (0, 0));
        let got = py_decode(&out[..st.produced], -15).unwrap();
        assert_eq!(got, &data[..half]);
        // Asking again for the same flush with nothing new: zlib's Z_BUF_ERROR.
        assert_eq!(
            d.deflate(&[], &mut out, flush),
            Err(DeflateError::BufferError)
        );
    }
}

/// Short messages each followed by a sync flush (WebSocket's permessage-deflate, SSH), 300
/// KB in all so the carried match-finder state is dropped and rebuilt on the way (see
/// `Deflater::flush_action`): at levels 0-9 and the zlib strategies, the stream decodes with
/// the system zlib, and feeding each message in random pieces before its flush gives the same
/// bytes as feeding it whole.
#[test]
fn messages_sync_flushed_one_by_one() {
    let mut r = Rng(41);
    let words: Vec<&[u8]> = vec![
        b"GET ",
        b"/api/v1/",
        b"items",
        b"users",
        b"?page=",
        b"&sort=",
        b"asc",
        b"desc",
        b" HTTP/1.1\r\n",
    ];
    let msgs: Vec<Vec<u8>> = (0..3500)
        .map(|_| {
            let mut m = Vec::new();
            for _ in 0..4 + r.below(8) {
                m.extend_from_slice(words[r.below(words.len())]);
                m.extend_from_slice(r.below(100_000).to_string().as_bytes());
            }
            m
        })
        .collect();
    let want = msgs.concat();
    for level in 0..=9u32 {
        for strategy in [Strategy::Default, Strategy::ALL[1 + level as usize % 4]] {
            let p = Params {
                level,
                strategy,
                ..Params::default()
            };
            let mut whole = Deflater::new(Format::Raw, p).unwrap();
            let mut pieces = Deflater::new(Format::Raw, p).unwrap();
            let mut out = vec![0u8; 8192];
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for (i, m) in msgs.iter().enumerate() {
                let last = i + 1 == msgs.len();
                let flush = if last { Flush::Finish } else { Flush::Sync };
                let st = whole.deflate(m, &mut out, flush).unwrap();
                assert_eq!(st.consumed, m.len());
                a.extend_from_slice(&out[..st.produced]);
                let mut rest = &m[..];
                while !rest.is_empty() {
                    let n = (1 + r.below(40)).min(rest.len());
                    let st = pieces.deflate(&rest[..n], &mut out, Flush::None).unwrap();
                    assert_eq!((st.consumed, st.produced), (n, 0));
                    rest = &rest[n..];
                }
                let st = pieces.deflate(&[], &mut out, flush).unwrap();
                b.extend_from_slice(&out[..st.produced]);
            }
            assert!(
                a == b,
                "level {level} {strategy:?}: the pieces changed the bytes"
            );
            assert!(
                py_decode(&a, -15).unwrap() == want,
                "level {level} {strategy:?}"
            );
        }
    }
}

/// Random pieces and flushes with level and strategy changes and raw dictionaries in
/// between (the events that keep, use, slide or drop a carried match-finder state): 100
/// streams of 0.2-0.8 MB of the sample corpus at levels 0-9, windows of 512 bytes to 32 KiB
/// and every memory level, each decoding to its input (40 with the system zlib too, in its
/// window).
#[test]
fn flushes_level_changes_and_dictionaries_mixed() {
    let mut r = Rng(97);
    let data: Vec<u8> = sample_files().into_iter().flat_map(|(_, d)| d).collect();
    let flushes = [
        Flush::None,
        Flush::None,
        Flush::Sync,
        Flush::Sync,
        Flush::Partial,
        Flush::Block,
        Flush::Full,
    ];
    let mut out = vec![0u8; 1 << 20];
    for round in 0..100 {
        let level = r.below(10) as u32;
        let p = Params {
            level,
            window_bits: [15, 15, 9, 12][round % 4],
            mem_level: 1 + r.below(9) as u8,
            ..Params::default()
        };
        let mut d = Deflater::new(Format::Raw, p).unwrap();
        let (mut z, mut want) = (Vec::new(), Vec::new());
        let mut pos = r.below(data.len() / 2);
        let end = (pos + 200_000 + r.below(600_000)).min(data.len());
        while pos < end {
            let n = (1 + if r.below(3) == 0 {
                r.below(20_000)
            } else {
                r.below(300)
            })
            .min(end - pos);
            let f = flushes[r.below(flushes.len())];
            let st = d.deflate(&data[pos..pos + n], &mut out, f).unwrap();
            assert_eq!(st.consumed, n);
            z.extend_from_slice(&out[..st.produced]);
            want.extend_from_slice(&data[pos..pos + n]);
            pos += n;
            match r.below(40) {
                0 => d
                    .set_params(r.below(10) as u32, Strategy::ALL[r.below(5)])
                    .unwrap(),
                // After a full flush, the bytes just sent as a raw dictionary: the decoder
                // has them as its history.
                1 if f == Flush::Full => {
                    let k = r.below(5000).min(want.len());
                    d.set_dictionary(&want[want.len() - k..]).unwrap();
                }
                _ => {}
            }
        }
        let st = d.deflate(&[], &mut out, Flush::Finish).unwrap();
        z.extend_from_slice(&out[..st.produced]);
        let back = hyperz_engine::inflate::decompress(Format::Raw, &z).unwrap();
        assert!(back == want, "round {round} {p:?}");
        if round % 10 < 4 {
            let w = -(p.window_bits as i32);
            assert!(py_decode(&z, w).unwrap() == want, "round {round} {p:?}");
        }
    }
}

#[test]
fn partial_and_block_flush_bits() {
    let mut d = Deflater::new(
        Format::Raw,
        Params {
            level: 6,
            ..Params::default()
        },
    )
    .unwrap();
    let mut out = vec![0u8; 1000];
    let st = d.deflate(b"abcabcabcabc", &mut out, Flush::Block).unwrap();
    let (bytes, bits) = d.pending();
    assert_eq!(bytes, 0);
    let st2 = d
        .deflate(&[], &mut out[st.produced..], Flush::Partial)
        .unwrap();
    let (_, bits2) = d.pending();
    // The empty fixed block adds exactly 10 bits.
    let total_bits = |p: usize, b: u32| p as u32 * 8 + b;
    assert_eq!(
        total_bits(st.produced + st2.produced, bits2),
        total_bits(st.produced, bits) + 10
    );
    let st3 = d
        .deflate(
            b"xyz",
            &mut out[st.produced + st2.produced..],
            Flush::Finish,
        )
        .unwrap();
    assert!(st3.done);
    let n = st.produced + st2.produced + st3.produced;
    assert_eq!(py_decode(&out[..n], -15).unwrap(), b"abcabcabcabcxyz");
    // After Finish only Finish without input is accepted.
    assert_eq!(
        d.deflate(b"q", &mut out, Flush::Finish),
        Err(DeflateError::StreamFinished)
    );
    assert_eq!(
        d.deflate(&[], &mut out, Flush::None),
        Err(DeflateError::StreamFinished)
    );
    assert!(d.deflate(&[], &mut out, Flush::Finish).unwrap().done);
    d.reset();
    let st = d.deflate(b"again", &mut out, Flush::Finish).unwrap();
    assert_eq!(py_decode(&out[..st.produced], -15).unwrap(), b"again");
}

#[test]
fn set_params_mid_stream_and_prime() {
    let mut ck = Checker::new("params");
    let data = sample_files().into_iter().next().unwrap().1;
    let mut r = Rng(17);
    for format in [Format::Raw, Format::Zlib, Format::Gzip] {
        let mut d = Deflater::new(
            format,
            Params {
                level: 1,
                ..Params::default()
            },
        )
        .unwrap();
        let mut out = Vec::new();
        let mut obuf = vec![0u8; 300_000];
        let mut pos = 0;
        while pos < data.len() {
            let n = (1 + r.below(30_000)).min(data.len() - pos);
            let st = d
                .deflate(&data[pos..pos + n], &mut obuf, Flush::None)
                .unwrap();
            assert_eq!(st.consumed, n);
            out.extend_from_slice(&obuf[..st.produced]);
            pos += n;
            d.set_params(r.below(13) as u32, Strategy::ALL[r.below(5)])
                .unwrap();
        }
        loop {
            let st = d.deflate(&[], &mut obuf, Flush::Finish).unwrap();
            out.extend_from_slice(&obuf[..st.produced]);
            if st.done {
                break;
            }
        }
        ck.add(&out, format, &data);
    }
    // Prime an empty fixed block (BFINAL 0, BTYPE 01, EOB) in front of a raw stream.
    let mut d = Deflater::new(Format::Raw, Params::default()).unwrap();
    d.prime(3, 0b010).unwrap();
    d.prime(7, 0).unwrap();
    assert_eq!(d.pending(), (1, 2));
    let mut o = vec![0u8; 100_000];
    let st = d.deflate(&data[..1000], &mut o, Flush::Finish).unwrap();
    assert!(st.done);
    ck.add(&o[..st.produced], Format::Raw, &data[..1000]);
    ck.check();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]
    #[test]
    fn prop_stream_roundtrip(
        seed in any::<u64>(),
        len in 0usize..120_000,
        level in 0u32..=12,
        s in 0usize..5,
        f in 0usize..3,
        period in 1usize..400,
    ) {
        let mut r = Rng(seed | 1);
        let noise = r.below(4);
        let pat = r.bytes(period);
        let data: Vec<u8> = (0..len)
            .map(|i| if noise > 0 && r.below(64) < noise { r.next_u64() as u8 } else { pat[i % period] })
            .collect();
        let format = [Format::Raw, Format::Zlib, Format::Gzip][f];
        let p = Params { level, strategy: Strategy::ALL[s], ..Params::default() };
        let mut d = Deflater::new(format, p).unwrap();
        let z = stream(&mut d, &data, &mut r, true);
        let w = match format { Format::Raw => -15, Format::Zlib => 15, Format::Gzip => 31 };
        prop_assert_eq!(py_decode(&z, w).unwrap(), data);
    }
}
