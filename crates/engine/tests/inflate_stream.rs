//! The streaming decoder equals the whole-buffer one: random input split points and random
//! output buffer sizes (down to one byte) over gzip, zlib and raw streams made by the system zlib
//! (python3) and by our own encoder; plus multi-member gzip and trailing data in `Decompressor`.

use hyperz_engine::deflate::compress;
use hyperz_engine::format::Format;
use hyperz_engine::inflate::{decompress, Decompressor, ErrorKind, Inflater, StreamState};
use proptest::prelude::*;
use std::process::Command;
use std::sync::OnceLock;

fn sample(name: &str) -> Vec<u8> {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../data/sample")
        .join(name);
    std::fs::read(p).unwrap()
}

/// The test inputs: text, binary, highly repetitive, and empty.
fn inputs() -> &'static Vec<Vec<u8>> {
    static I: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    I.get_or_init(|| {
        vec![
            sample("fields.c"),
            sample("sum"),
            sample("xargs.1"),
            sample("alice29.txt")[..60_000].to_vec(),
            b"abcabcabd".repeat(20_000),
            Vec::new(),
        ]
    })
}

const PY: &str = r#"
import sys, zlib, struct
out = sys.stdout.buffer
for path in sys.argv[1:]:
    data = open(path, 'rb').read()
    for w, level in ((-15, 6), (15, 9), (31, 1), (-9, 6), (25, 0), (12, 6)):
        c = zlib.compressobj(level, zlib.DEFLATED, w)
        s = c.compress(data) + c.flush()
        out.write(struct.pack('<bI', w, len(s)) + s)
"#;

/// Streams from the system zlib, with their format and expected output.
fn python_streams() -> &'static Vec<(Format, Vec<u8>, usize)> {
    static S: OnceLock<Vec<(Format, Vec<u8>, usize)>> = OnceLock::new();
    S.get_or_init(|| {
        let dir =
            std::env::temp_dir().join(format!("hyperz-inflate-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut paths = Vec::new();
        for (i, d) in inputs().iter().enumerate() {
            let p = dir.join(i.to_string());
            std::fs::write(&p, d).unwrap();
            paths.push(p);
        }
        let out = Command::new("python3")
            .arg("-c")
            .arg(PY)
            .args(&paths)
            .output()
            .expect("python3 is required");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::remove_dir_all(&dir).ok();
        let mut r = &out.stdout[..];
        let mut v = Vec::new();
        let mut k = 0;
        while !r.is_empty() {
            let w = r[0] as i8;
            let n = u32::from_le_bytes([r[1], r[2], r[3], r[4]]) as usize;
            let f = if w < 0 {
                Format::Raw
            } else if w > 15 {
                Format::Gzip
            } else {
                Format::Zlib
            };
            v.push((f, r[5..5 + n].to_vec(), k / 6));
            r = &r[5 + n..];
            k += 1;
        }
        v
    })
}

/// Streams from our encoder.
fn own_streams() -> &'static Vec<(Format, Vec<u8>, usize)> {
    static S: OnceLock<Vec<(Format, Vec<u8>, usize)>> = OnceLock::new();
    S.get_or_init(|| {
        let mut v = Vec::new();
        for (i, d) in inputs().iter().enumerate() {
            for (f, l) in [
                (Format::Raw, 1),
                (Format::Zlib, 6),
                (Format::Gzip, 9),
                (Format::Gzip, 0),
                (Format::Raw, 12),
            ] {
                v.push((f, compress(f, d, l), i));
            }
        }
        v
    })
}

/// Streams one member with the given input chunk sizes and output buffer sizes (cycled).
fn stream(f: Format, s: &[u8], ins: &[usize], outs: &[usize]) -> (Vec<u8>, usize) {
    let mut inf = Inflater::new(f, 15);
    let mut out = Vec::new();
    let mut buf = vec![0u8; 70_000];
    let (mut pos, mut i, mut idle) = (0, 0, 0);
    loop {
        let end = (pos + ins[i % ins.len()]).min(s.len());
        let o = outs[i % outs.len()];
        i += 1;
        let st = inf
            .inflate(&s[pos..end], &mut buf[..o])
            .unwrap_or_else(|e| panic!("{f:?}: {e}"));
        assert!(st.consumed <= end - pos && st.produced <= o);
        pos += st.consumed;
        out.extend_from_slice(&buf[..st.produced]);
        match st.state {
            StreamState::StreamEnd => {
                // Further calls stay at the end and consume nothing.
                let again = inf.inflate(&s[pos..], &mut buf[..10]).unwrap();
                assert_eq!(
                    (again.consumed, again.produced, again.state),
                    (0, 0, StreamState::StreamEnd)
                );
                assert_eq!(inf.total_in(), pos as u64);
                assert_eq!(inf.total_out(), out.len() as u64);
                return (out, pos);
            }
            StreamState::NeedDictionary(_) => panic!("no dictionary expected"),
            StreamState::Progress => {
                idle = if st.consumed == 0 && st.produced == 0 {
                    idle + 1
                } else {
                    0
                };
                assert!(
                    idle < 3 * ins.len().max(outs.len()) + 3,
                    "{f:?}: no progress at {pos}/{}",
                    s.len()
                );
            }
        }
    }
}

/// The last few hundred bytes of every output buffer are decoded by the fast loop's tail copy,
/// whose matches check their own room: copied with the word copy, byte by byte when the
/// overshoot does not fit, or left to the copy state when the match itself does not fit. Every
/// output buffer size from 1 to 700 bytes, on streams from the system zlib and our own, and
/// whole members into buffers of exactly their size (the tail copy ends them), give the input.
#[test]
fn every_small_output_buffer_size_decodes_the_same() {
    let mut streams: Vec<&(Format, Vec<u8>, usize)> = python_streams().iter().collect();
    streams.extend(own_streams().iter());
    for (f, s, i) in streams {
        let want = &inputs()[*i];
        if want.len() > 100_000 || s.is_empty() {
            continue;
        }
        for o in 1..=700 {
            let (got, used) = stream(*f, s, &[s.len()], &[o]);
            assert_eq!(used, s.len());
            assert!(&got == want, "{f:?} input {i} with {o}-byte output buffers");
        }
        if *f == Format::Gzip {
            let mut out = vec![0u8; want.len()];
            let (_, n) = Decompressor::new(Format::Gzip)
                .decompress_member_into(s, &mut out)
                .unwrap();
            assert!(
                n == want.len() && &out == want,
                "input {i} into an exact buffer"
            );
        }
    }
}

/// Where a stream stopping before every block (zlib's `Z_BLOCK`) and after every block header
/// (`Z_TREES`) stops, with input and output in the given pieces: each stop as (after a header,
/// bit offset in the stream, output so far), in order, without repeats; every stop has fewer
/// than 8 bits buffered.
fn stops(f: Format, s: &[u8], ins: &[usize], outs: &[usize]) -> Vec<(bool, u64, u64)> {
    let mut inf = Inflater::new(f, 15);
    inf.set_stop_at_block(true);
    inf.set_stop_after_header(true);
    let mut buf = vec![0u8; 70_000];
    let (mut pos, mut i) = (0, 0);
    let mut seen: Vec<(bool, u64, u64)> = Vec::new();
    loop {
        let end = (pos + ins[i % ins.len()]).min(s.len());
        let o = outs[i % outs.len()];
        i += 1;
        let st = inf.inflate(&s[pos..end], &mut buf[..o]).unwrap();
        pos += st.consumed;
        if st.state == StreamState::StreamEnd {
            return seen;
        }
        for (header, at) in [
            (false, inf.at_block_boundary()),
            (true, inf.at_header_end()),
        ] {
            if at {
                assert!(
                    inf.pending_bits() < 8,
                    "{} bits at a stop",
                    inf.pending_bits()
                );
                let stop = (
                    header,
                    inf.total_in() * 8 - inf.pending_bits() as u64,
                    inf.total_out(),
                );
                if seen.last() != Some(&stop) {
                    seen.push(stop);
                }
            }
        }
    }
}

fn sizes(max: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(prop_oneof![1..8usize, 1..max], 1..8)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn python_zlib_streams_split_anywhere(k in any::<prop::sample::Index>(), ins in sizes(5000), outs in sizes(70_000)) {
        let all = python_streams();
        let (f, s, i) = &all[k.index(all.len())];
        let want = &inputs()[*i];
        let whole = decompress(*f, s).unwrap();
        prop_assert!(&whole == want);
        let (got, used) = stream(*f, s, &ins, &outs);
        prop_assert_eq!(used, s.len());
        prop_assert!(&got == want, "{:?} stream of input {} differs", f, i);
    }

    #[test]
    fn own_streams_split_anywhere(k in any::<prop::sample::Index>(), ins in sizes(5000), outs in sizes(70_000)) {
        let all = own_streams();
        let (f, s, i) = &all[k.index(all.len())];
        let want = &inputs()[*i];
        prop_assert!(&decompress(*f, s).unwrap() == want);
        let (got, used) = stream(*f, s, &ins, &outs);
        prop_assert_eq!(used, s.len());
        prop_assert!(&got == want);
    }

    /// The block boundaries and header ends a stream stops at do not depend on how its input
    /// and output are split: one header end per block, between the boundaries around it (the
    /// last after the final block).
    #[test]
    fn block_and_header_stops_split_anywhere(k in any::<prop::sample::Index>(), ins in sizes(5000), outs in sizes(70_000)) {
        let all = python_streams();
        let (f, s, _) = &all[k.index(all.len())];
        let whole = stops(*f, s, &[s.len()], &[70_000]);
        // As in zlib, a raw stream does not stop before its first block.
        let raw = (*f == Format::Raw) as usize;
        let headers = whole.iter().filter(|x| x.0).count();
        prop_assert!(headers >= 1 && whole.len() == 2 * headers + 1 - raw, "{:?}", whole);
        prop_assert!(whole.iter().enumerate().all(|(j, x)| x.0 == ((j + raw) % 2 == 1)));
        prop_assert_eq!(stops(*f, s, &ins, &outs), whole);
    }

    #[test]
    fn members_and_trailing(parts in prop::collection::vec((0..6usize, 0..10u32), 1..5), trail in prop::collection::vec(any::<u8>(), 0..20)) {
        let mut g = Vec::new();
        let mut want = Vec::new();
        let mut bounds = Vec::new();
        for (i, l) in &parts {
            let d = &inputs()[*i][..inputs()[*i].len().min(20_000)];
            g.extend(compress(Format::Gzip, d, *l));
            bounds.push(g.len());
            want.extend_from_slice(d);
        }
        let n = g.len();
        let d = Decompressor::new(Format::Gzip).decompress(&g).unwrap();
        prop_assert!(d.data == want);
        prop_assert_eq!(d.headers.len(), parts.len());
        prop_assert_eq!(d.consumed, n);
        // Only the first member when multi_member is off: the rest is trailing data.
        let first = Decompressor::new(Format::Gzip).multi_member(false).allow_trailing(true).decompress(&g).unwrap();
        prop_assert_eq!(first.consumed, bounds[0]);
        prop_assert_eq!(first.trailing, n - bounds[0]);
        if parts.len() > 1 {
            let e = Decompressor::new(Format::Gzip).multi_member(false).decompress(&g).unwrap_err();
            prop_assert_eq!(e.kind, ErrorKind::TrailingData);
            prop_assert_eq!(e.offset, bounds[0] as u64);
        }
        // Streaming, member by member with reset().
        let mut inf = Inflater::new(Format::Gzip, 15);
        let mut buf = vec![0u8; 777];
        let mut pos = 0;
        let mut got = Vec::new();
        for &b in &bounds {
            inf.reset();
            loop {
                let st = inf.inflate(&g[pos..], &mut buf).unwrap();
                pos += st.consumed;
                got.extend_from_slice(&buf[..st.produced]);
                if st.state == StreamState::StreamEnd { break; }
            }
            prop_assert_eq!(pos, b);
            prop_assert!(inf.gzip_header().is_some());
        }
        prop_assert!(got == want);
        // Trailing bytes: an error unless allowed; garbage that starts like a member is
        // decoded as one and must fail.
        let mut t = g.clone();
        t.extend(&trail);
        if !trail.is_empty() {
            let looks_like_member = trail.len() >= 2 && trail[0] == 0x1f && trail[1] == 0x8b;
            let e = decompress(Format::Gzip, &t).unwrap_err();
            if !looks_like_member {
                prop_assert_eq!(e.kind, ErrorKind::TrailingData);
                prop_assert_eq!(e.offset, n as u64);
                let a = Decompressor::new(Format::Gzip).allow_trailing(true).decompress(&t).unwrap();
                prop_assert_eq!((a.consumed, a.trailing), (n, trail.len()));
                prop_assert!(a.data == want);
            }
        }
    }
}

#[test]
fn zero_trailing_padding_after_gzip() {
    // Zero padding (as tape archives leave) is trailing data, reported where it starts.
    let mut g = compress(Format::Gzip, b"data", 6);
    let n = g.len();
    g.extend([0u8; 512]);
    let e = decompress(Format::Gzip, &g).unwrap_err();
    assert_eq!((e.kind, e.offset), (ErrorKind::TrailingData, n as u64));
    let d = Decompressor::new(Format::Gzip)
        .allow_trailing(true)
        .decompress(&g)
        .unwrap();
    assert_eq!((d.data.as_slice(), d.trailing), (&b"data"[..], 512));
}

#[test]
fn zlib_and_raw_with_trailing() {
    for f in [Format::Raw, Format::Zlib] {
        let mut s = compress(f, &inputs()[0], 6);
        let n = s.len();
        s.extend(b"\x1f\x8b tail");
        let e = decompress(f, &s).unwrap_err();
        assert_eq!((e.kind, e.offset), (ErrorKind::TrailingData, n as u64));
        let d = Decompressor::new(f)
            .allow_trailing(true)
            .decompress(&s)
            .unwrap();
        assert_eq!((d.consumed, d.trailing), (n, 7));
        assert!(d.data == inputs()[0]);
    }
}

#[test]
fn small_window_streams_with_matching_inflater_window() {
    // A zlib stream declaring a 512-byte window decodes with an Inflater of 9 window bits, and
    // a raw stream made with a preset dictionary decodes after set_dictionary.
    let py = r#"
import sys, zlib
d = open(sys.argv[1], 'rb').read()
c = zlib.compressobj(9, zlib.DEFLATED, 9); a = c.compress(d) + c.flush()
c = zlib.compressobj(6, zlib.DEFLATED, -15, 8, 0, d[:4000]); b = c.compress(d[4000:]) + c.flush()
sys.stdout.buffer.write(len(a).to_bytes(4, 'little') + a + b)
"#;
    let path =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/sample/fields.c");
    let data = std::fs::read(&path).unwrap();
    let out = Command::new("python3")
        .arg("-c")
        .arg(py)
        .arg(&path)
        .output()
        .expect("python3 is required");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let n = u32::from_le_bytes(out.stdout[..4].try_into().unwrap()) as usize;
    let (a, b) = (&out.stdout[4..4 + n], &out.stdout[4 + n..]);
    assert_eq!(a[0] >> 4, 1, "python should declare a 512-byte window");
    let mut inf = Inflater::new(Format::Zlib, 9);
    let mut buf = vec![0u8; 100];
    let (mut pos, mut got) = (0, Vec::new());
    loop {
        let st = inf.inflate(&a[pos..], &mut buf).unwrap();
        pos += st.consumed;
        got.extend_from_slice(&buf[..st.produced]);
        if st.state == StreamState::StreamEnd {
            break;
        }
    }
    assert!(got == data);
    let mut inf = Inflater::new(Format::Raw, 15);
    inf.set_dictionary(&data[..4000]).unwrap();
    let (mut pos, mut got) = (0, Vec::new());
    loop {
        let st = inf
            .inflate(&b[pos..(pos + 7).min(b.len())], &mut buf[..33])
            .unwrap();
        pos += st.consumed;
        got.extend_from_slice(&buf[..st.produced]);
        if st.state == StreamState::StreamEnd {
            break;
        }
    }
    assert!(got == data[4000..]);
    let whole = Decompressor::new(Format::Raw)
        .with_dictionary(&data[..4000])
        .decompress(b)
        .unwrap();
    assert!(whole.data == data[4000..]);
}
