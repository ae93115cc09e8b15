//! Differential tests: the same zlib call sequences against the system zlib and the drop-in,
//! both loaded in this process with dlopen. Return codes must match wherever zlib defines
//! them; every stream either library writes must inflate to the input with both libraries.
//! Compressed bytes are never compared (they legitimately differ).

use std::ffi::{c_int, c_ulong};

use hyperz_tests::sample_files;
use hyperz_tests::zapi::{ZStream, Zlib};
use proptest::prelude::*;

const Z_OK: c_int = 0;
const Z_STREAM_END: c_int = 1;
const Z_NEED_DICT: c_int = 2;
const Z_STREAM_ERROR: c_int = -2;
const Z_DATA_ERROR: c_int = -3;
const Z_BUF_ERROR: c_int = -5;
const Z_VERSION_ERROR: c_int = -6;
const NO: c_int = 0;
const SYNC: c_int = 2;
const FULL: c_int = 3;
const FINISH: c_int = 4;

fn corpus() -> Vec<u8> {
    sample_files()
        .into_iter()
        .flat_map(|(_, d)| d)
        .take(600_000)
        .collect()
}

/// Deflates `data` through `z` with the scripted chunking and flushes; returns the stream.
fn deflate_script(
    z: &Zlib,
    data: &[u8],
    (level, wbits, mem, strategy): (c_int, c_int, c_int, c_int),
    chunks: &[(usize, c_int)],
    out_size: usize,
) -> Vec<u8> {
    let mut s = ZStream::new();
    assert_eq!(
        z.d_init(&mut s, level, wbits, mem, strategy),
        Z_OK,
        "{}",
        z.name
    );
    let mut out = Vec::new();
    let mut small = vec![0u8; out_size];
    // zlib.h: for flushes other than Z_NO_FLUSH and Z_FINISH, avail_out must exceed six, or
    // a call that ends exactly at a full buffer is followed by another flush marker (forever,
    // with tiny buffers). Flush calls therefore get at least 4 KiB.
    let mut roomy = vec![0u8; out_size.max(4096)];
    let mut pos = 0;
    let mut i = 0;
    loop {
        let (n, flush) = chunks[i % chunks.len()];
        i += 1;
        let end = (pos + n).min(data.len());
        let flush = if end == data.len() { FINISH } else { flush };
        let mut input = &data[pos..end];
        let buf = if flush == NO || flush == FINISH {
            &mut small
        } else {
            &mut roomy
        };
        loop {
            let (r, c, p) = z.d_step(&mut s, input, buf, flush);
            out.extend_from_slice(&buf[..p]);
            input = &input[c..];
            // A runaway stream fails the test instead of exhausting memory.
            assert!(
                out.len() < 2 * data.len() + (1 << 20),
                "{}: deflate output keeps growing",
                z.name
            );
            assert!(
                r == Z_OK || r == Z_STREAM_END || r == Z_BUF_ERROR,
                "{}: deflate returned {r}",
                z.name
            );
            if r == Z_STREAM_END {
                // SAFETY: live stream.
                assert_eq!(unsafe { (z.deflate_end)(&mut *s) }, Z_OK);
                assert_eq!(s.total_in as usize, data.len(), "{}: total_in", z.name);
                return out;
            }
            // zlib's contract: all input consumed and output not full means the flush is done.
            if input.is_empty() && p < buf.len() {
                if flush == SYNC || flush == FULL {
                    assert!(
                        out.ends_with(&[0, 0, 0xff, 0xff]),
                        "{}: sync marker",
                        z.name
                    );
                }
                break;
            }
        }
        pos = end;
    }
}

fn check_decodes(libs: &[Zlib; 2], stream: &[u8], wbits: c_int, data: &[u8], what: &str) {
    for z in libs {
        let (r, out, left) = z.inflate_all(stream, wbits, 4096, 8192, None);
        assert_eq!(r, Z_STREAM_END, "{what}: {} inflate code", z.name);
        assert!(out == data, "{what}: {} decoded different data", z.name);
        assert_eq!(left, 0, "{what}: {} left input", z.name);
    }
}

#[test]
fn every_parameter_combination_round_trips_in_both() {
    let libs = Zlib::both();
    let data = corpus();
    let chunks = [
        (70_000, NO),
        (1, NO),
        (5000, SYNC),
        (100_000, NO),
        (3, FULL),
        (300_000, NO),
    ];
    for level in [-1, 0, 1, 4, 6, 9] {
        for wbits in [15, -15, 31, 9, -9, 25] {
            for strategy in 0..=4 {
                for mem in [1, 8] {
                    for z in &libs {
                        let what = format!("{} l{level} w{wbits} s{strategy} m{mem}", z.name);
                        let st = deflate_script(
                            z,
                            &data,
                            (level, wbits, mem, strategy),
                            &chunks,
                            30_000,
                        );
                        let iw = if wbits == 9 {
                            15
                        } else if wbits == 25 {
                            31
                        } else {
                            wbits
                        };
                        check_decodes(&libs, &st, iw, &data, &what);
                    }
                }
            }
        }
    }
}

#[test]
fn tiny_output_buffers_and_large_parallel_streams() {
    let libs = Zlib::both();
    let data = corpus();
    for z in &libs {
        let st = deflate_script(z, &data[..20_000], (6, 15, 8, 0), &[(777, NO)], 1);
        check_decodes(&libs, &st, 15, &data[..20_000], "1-byte output");
        let big: Vec<u8> = data.iter().copied().cycle().take(3_000_000).collect();
        let st = deflate_script(z, &big, (6, 31, 8, 0), &[(1 << 20, NO)], 1 << 16);
        check_decodes(&libs, &st, 31, &big, "3 MB gzip");
        let st = deflate_script(
            z,
            &big,
            (6, -15, 8, 0),
            &[(1 << 20, NO), (10, SYNC)],
            1 << 16,
        );
        check_decodes(&libs, &st, -15, &big, "3 MB raw with sync flushes");
    }
}

/// A stream long enough to go to the drop-in's engines keeps to its strategy there, as zlib's
/// does: Z_FILTERED no match below six bytes, Z_HUFFMAN_ONLY no match, Z_RLE distance one only,
/// Z_FIXED no dynamic block. (The engines' jobs carried only the level: such streams came out
/// with the default strategy, which decodes the same.) Also after deflateParams switches to a
/// strategy mid-stream.
#[test]
fn strategies_hold_on_parallel_streams() {
    let libs = Zlib::both();
    let big: Vec<u8> = corpus().iter().copied().cycle().take(3_000_000).collect();
    let holds = |strategy: c_int, b: &hyperz_tests::symbols::Block| match strategy {
        1 => b.matches.iter().all(|&(l, _)| l >= 6),
        2 => b.matches.is_empty(),
        3 => b.matches.iter().all(|&(_, d)| d == 1),
        _ => b.btype != 2,
    };
    for strategy in 1..=4 {
        for z in &libs {
            let what = format!("{} strategy {strategy}", z.name);
            let st = deflate_script(z, &big, (6, -15, 8, strategy), &[(1 << 20, NO)], 1 << 16);
            check_decodes(&libs, &st, -15, &big, &what);
            let blocks = hyperz_tests::symbols::deflate_blocks(&st);
            let bad = blocks.iter().position(|b| !holds(strategy, b));
            assert_eq!(bad, None, "{what}: block breaks the strategy");
            let (lits, matches): (usize, usize) = blocks
                .iter()
                .fold((0, 0), |(l, m), b| (l + b.literals, m + b.matches.len()));
            assert!(
                lits > 0 && (strategy == 2 || matches > 0),
                "{what}: {lits} {matches}"
            );

            // deflateParams to the strategy after 1.5 MB at the default one.
            let mut s = ZStream::new();
            assert_eq!(z.d_init(&mut s, 6, -15, 8, 0), Z_OK);
            let (mut out, mut buf) = (Vec::new(), vec![0u8; 1 << 16]);
            let half = big.len() / 2;
            for (k, part) in [&big[..half], &big[half..]].into_iter().enumerate() {
                if k == 1 {
                    s.avail_in = 0;
                    s.next_out = buf.as_mut_ptr();
                    s.avail_out = buf.len() as u32;
                    // SAFETY: live stream with a valid output buffer.
                    let r = unsafe { (z.deflate_params)(&mut *s, 6, strategy) };
                    assert_eq!(r, Z_OK, "{what}: deflateParams");
                    out.extend_from_slice(&buf[..buf.len() - s.avail_out as usize]);
                }
                let flush = if k == 1 { FINISH } else { NO };
                let mut input = part;
                loop {
                    let (r, c, p) = z.d_step(&mut s, input, &mut buf, flush);
                    out.extend_from_slice(&buf[..p]);
                    input = &input[c..];
                    if r == Z_STREAM_END || (flush == NO && input.is_empty() && p < buf.len()) {
                        break;
                    }
                    assert!(r == Z_OK || r == Z_BUF_ERROR, "{what}: {r}");
                }
            }
            // SAFETY: live stream.
            assert_eq!(unsafe { (z.deflate_end)(&mut *s) }, Z_OK);
            check_decodes(
                &libs,
                &out,
                -15,
                &big,
                &format!("{what} after deflateParams"),
            );
            // The blocks that end past the switch (plus the one flushed at it) keep to it.
            let blocks = hyperz_tests::symbols::deflate_blocks(&out);
            let mut at = 0usize;
            for (i, b) in blocks.iter().enumerate() {
                let len = b.literals + b.matches.iter().map(|&(l, _)| l as usize).sum::<usize>();
                let start = at;
                at += len;
                if start > half {
                    assert!(holds(strategy, b), "{what}: block {i} after deflateParams");
                }
            }
            assert_eq!(at, big.len(), "{what}: block lengths");
        }
    }
}

#[test]
fn return_codes_match_for_misuse_and_bad_data() {
    let libs = Zlib::both();
    let data = corpus();
    let mut codes: Vec<Vec<c_int>> = Vec::new();
    for z in &libs {
        let mut c = Vec::new();
        let mut s = ZStream::new();
        // Bad parameters and versions.
        c.push(z.d_init(&mut s, 10, 15, 8, 0));
        c.push(z.d_init(&mut s, 6, 16 + 8, 8, 0));
        c.push(z.d_init(&mut s, 6, 15, 10, 0));
        c.push(z.d_init(&mut s, 6, 15, 8, 5));
        c.push(z.d_init(&mut s, 6, -16, 8, 0));
        // SAFETY: a bad version string only.
        c.push(unsafe { (z.deflate_init2)(&mut *s, 6, 8, 15, 8, 0, c"2.0".as_ptr(), 112) });
        c.push(z.i_init(&mut s, 7));
        c.push(z.i_init(&mut s, -16));
        // Calls on a stream that was never initialised (state NULL).
        let mut bare = ZStream::new();
        // SAFETY: zlib must reject these without touching memory.
        unsafe {
            c.push((z.deflate)(&mut *bare, NO));
            c.push((z.deflate_end)(&mut *bare));
            c.push((z.inflate)(&mut *bare, NO));
            c.push((z.inflate_end)(&mut *bare));
            c.push((z.deflate)(std::ptr::null_mut(), NO));
            c.push((z.inflate_end)(std::ptr::null_mut()));
        }
        // deflate: bad flush, no output space, finish then more, end before finish.
        assert_eq!(z.d_init(&mut s, 6, 15, 8, 0), Z_OK);
        let mut out = vec![0u8; 100_000];
        c.push(z.d_step(&mut s, &data[..100], &mut out, 7).0);
        c.push(z.d_step(&mut s, &data[..100], &mut out[..0], NO).0);
        c.push(z.d_step(&mut s, &data[..1000], &mut out, FINISH).0);
        c.push(z.d_step(&mut s, &data[..10], &mut out, NO).0);
        c.push(z.d_step(&mut s, &[], &mut out, FINISH).0);
        // SAFETY: live stream.
        c.push(unsafe { (z.deflate_end)(&mut *s) });
        assert_eq!(z.d_init(&mut s, 6, 15, 8, 0), Z_OK);
        c.push(z.d_step(&mut s, &data[..1000], &mut out, NO).0);
        c.push(z.d_step(&mut s, &[], &mut out, NO).0); // no progress possible
                                                       // SAFETY: live stream; dictionary after data on a zlib stream is an error.
        unsafe {
            c.push((z.deflate_set_dictionary)(&mut *s, data.as_ptr(), 100));
            c.push((z.deflate_params)(&mut *s, 11, 0));
            c.push((z.deflate_prime)(&mut *s, 17, 0));
            c.push((z.deflate_end)(&mut *s)); // freed before finishing: Z_DATA_ERROR
        }
        assert_eq!(z.d_init(&mut s, 6, 31, 8, 0), Z_OK);
        // SAFETY: live stream; no dictionaries for gzip.
        unsafe {
            c.push((z.deflate_set_dictionary)(&mut *s, data.as_ptr(), 100));
            c.push((z.deflate_end)(&mut *s));
        }
        // inflate: corrupt, truncated (with and without Z_FINISH), wrong dictionary.
        let good = {
            let mut d = vec![0u8; 200_000];
            let mut n: c_ulong = d.len() as c_ulong;
            // SAFETY: valid buffers.
            assert_eq!(
                unsafe { (z.compress2)(d.as_mut_ptr(), &mut n, data.as_ptr(), 50_000, 6) },
                Z_OK
            );
            d.truncate(n as usize);
            d
        };
        let mut bad = good.clone();
        bad[0] ^= 1;
        c.push(z.inflate_all(&bad, 15, 100, 1000, None).0);
        let mut bad = good.clone();
        let n = bad.len();
        bad[n - 1] ^= 0x55; // adler mismatch
        c.push(z.inflate_all(&bad, 15, 100, 1000, None).0);
        c.push(
            z.inflate_all(&good[..good.len() / 2], 15, 100, 1000, None)
                .0,
        );
        assert_eq!(z.i_init(&mut s, 15), Z_OK);
        let mut o = vec![0u8; 100_000];
        c.push(z.i_step(&mut s, &good[..good.len() / 2], &mut o, FINISH).0);
        // SAFETY: live stream.
        c.push(unsafe { (z.inflate_end)(&mut *s) });
        // A zlib stream with a dictionary: NEED_DICT, then a wrong and the right dictionary.
        let dict = &data[1000..3000];
        let mut ds = ZStream::new();
        assert_eq!(z.d_init(&mut ds, 6, 15, 8, 0), Z_OK);
        // SAFETY: live stream.
        c.push(unsafe { (z.deflate_set_dictionary)(&mut *ds, dict.as_ptr(), dict.len() as u32) });
        let mut zd = vec![0u8; 100_000];
        let (r, _, p) = z.d_step(&mut ds, &data[..20_000], &mut zd, FINISH);
        c.push(r);
        zd.truncate(p);
        // SAFETY: live stream.
        unsafe { (z.deflate_end)(&mut *ds) };
        assert_eq!(z.i_init(&mut s, 15), Z_OK);
        let (r, _, _) = z.i_step(&mut s, &zd, &mut o, NO);
        c.push(r);
        c.push(if r == Z_NEED_DICT {
            (s.adler == unsafe_adler(z, dict)) as c_int
        } else {
            -99
        });
        // SAFETY: live stream.
        unsafe {
            c.push((z.inflate_set_dictionary)(&mut *s, data.as_ptr(), 10));
            c.push((z.inflate_set_dictionary)(
                &mut *s,
                dict.as_ptr(),
                dict.len() as u32,
            ));
        }
        let (r, _, p) = z.i_step(&mut s, &zd[2 + 4..], &mut o, NO);
        c.push(r);
        c.push((p == 20_000 && o[..p] == data[..20_000]) as c_int);
        // SAFETY: live stream.
        unsafe { (z.inflate_end)(&mut *s) };
        // uncompress: too small, corrupt, truncated, exact.
        let mut dst = vec![0u8; 50_000];
        let mut dl: c_ulong = 10;
        // SAFETY: valid buffers (dl <= dst.len()).
        unsafe {
            c.push((z.uncompress)(
                dst.as_mut_ptr(),
                &mut dl,
                good.as_ptr(),
                good.len() as c_ulong,
            ));
            dl = 50_000;
            c.push((z.uncompress)(
                dst.as_mut_ptr(),
                &mut dl,
                bad.as_ptr(),
                bad.len() as c_ulong,
            ));
            dl = 50_000;
            c.push((z.uncompress)(
                dst.as_mut_ptr(),
                &mut dl,
                good.as_ptr(),
                (good.len() - 3) as c_ulong,
            ));
            dl = 50_000;
            c.push((z.uncompress)(
                dst.as_mut_ptr(),
                &mut dl,
                good.as_ptr(),
                good.len() as c_ulong,
            ));
            c.push((dl == 50_000 && dst == data[..50_000]) as c_int);
            let mut sl: c_ulong = good.len() as c_ulong + 5;
            let mut padded = good.clone();
            padded.extend_from_slice(b"extra");
            dl = 50_000;
            c.push((z.uncompress2)(
                dst.as_mut_ptr(),
                &mut dl,
                padded.as_ptr(),
                &mut sl,
            ));
            c.push((sl as usize == good.len()) as c_int);
            let mut n: c_ulong = 100;
            c.push((z.compress2)(
                dst.as_mut_ptr(),
                &mut n,
                data.as_ptr(),
                1000,
                10,
            ));
            c.push((z.compress2)(
                dst.as_mut_ptr(),
                &mut n,
                data.as_ptr(),
                1000,
                6,
            ));
        }
        codes.push(c);
    }
    assert_eq!(codes[0], codes[1], "system vs hyperz return codes");
    assert!(codes[0].contains(&Z_VERSION_ERROR) && codes[0].contains(&Z_DATA_ERROR));
    assert!(codes[0].contains(&Z_STREAM_ERROR) && codes[0].contains(&Z_BUF_ERROR));
}

fn unsafe_adler(z: &Zlib, d: &[u8]) -> c_ulong {
    // SAFETY: valid slice.
    unsafe {
        (z.adler32)(
            (z.adler32)(0, std::ptr::null(), 0),
            d.as_ptr(),
            d.len() as u32,
        )
    }
}

#[test]
fn inflate_sync_copy_and_trailing_data_agree() {
    let libs = Zlib::both();
    let data = corpus();
    for z in &libs {
        // A raw stream with full flushes, damaged after the first flush point.
        let st = deflate_script(
            z,
            &data[..200_000],
            (6, -15, 8, 0),
            &[(50_000, FULL)],
            65536,
        );
        let mut damaged = st.clone();
        for b in &mut damaged[10..40] {
            *b = 0xAA;
        }
        for lib in &libs {
            let mut s = ZStream::new();
            assert_eq!(lib.i_init(&mut s, -15), Z_OK);
            let mut o = vec![0u8; 400_000];
            let (r, _, _) = lib.i_step(&mut s, &damaged, &mut o, NO);
            assert_eq!(r, Z_DATA_ERROR, "{} on damaged data", lib.name);
            // Skip to the next full-flush point and decode the rest.
            s.next_in = damaged[40..].as_ptr();
            s.avail_in = (damaged.len() - 40) as u32;
            // SAFETY: live stream with valid input.
            let r = unsafe { (lib.inflate_sync)(&mut *s) };
            assert_eq!(r, Z_OK, "{} inflateSync", lib.name);
            let at = damaged.len() - s.avail_in as usize;
            let (r, _, p) = lib.i_step(&mut s, &damaged[at..], &mut o, NO);
            assert_eq!(r, Z_STREAM_END, "{} after sync", lib.name);
            assert!(
                o[..p] == data[50_000..200_000],
                "{} data after sync",
                lib.name
            );
            // SAFETY: live stream.
            unsafe { (lib.inflate_end)(&mut *s) };
        }
        // Trailing bytes after a gzip member stay unconsumed, by the same count.
        let mut gz = deflate_script(z, &data[..100_000], (9, 31, 8, 0), &[(100_000, NO)], 65536);
        gz.extend_from_slice(b"TRAILER!");
        let left: Vec<usize> = libs
            .iter()
            .map(|l| l.inflate_all(&gz, 31, 1000, 4096, None).2)
            .collect();
        assert_eq!(left, vec![8, 8], "{}: unconsumed trailing bytes", z.name);
        // inflateCopy mid-stream: both copies finish the stream.
        let mut s = ZStream::new();
        assert_eq!(z.i_init(&mut s, 47), Z_OK);
        let mut o = vec![0u8; 200_000];
        let (_, c, p) = z.i_step(&mut s, &gz[..20_000], &mut o, NO);
        let mut t = ZStream::new();
        // SAFETY: live source, fresh destination.
        assert_eq!(unsafe { (z.inflate_copy)(&mut *t, &mut *s) }, Z_OK);
        for st in [&mut s, &mut t] {
            let mut o2 = vec![0u8; 200_000];
            let (r, _, p2) = z.i_step(st, &gz[c..gz.len() - 8], &mut o2, NO);
            assert_eq!(r, Z_STREAM_END, "{} copy", z.name);
            assert!(o[..p] == data[..p] && o2[..p2] == data[p..100_000]);
            // SAFETY: live stream.
            unsafe { (z.inflate_end)(&mut **st) };
        }
    }
}

/// Decompressing in place, the compressed bytes at the end of the output buffer (as boot
/// loaders and some archivers do), gives the data with both libraries; ours reads such an
/// input from a copy, since Rust may not hold it and the output as overlapping slices. A
/// stream copied onto itself (deflateCopy, inflateCopy) goes on to the same end.
#[test]
fn in_place_inflate_and_copies_onto_themselves() {
    let libs = Zlib::both();
    let data = corpus();
    for z in &libs {
        let comp = deflate_script(z, &data, (6, 15, 8, 0), &[(data.len(), NO)], 65536);
        let margin = 64;
        for lib in &libs {
            let mut buf = vec![0u8; data.len() + margin];
            let at = buf.len() - comp.len();
            buf[at..].copy_from_slice(&comp);
            let base = buf.as_mut_ptr();
            let mut s = ZStream::new();
            assert_eq!(lib.i_init(&mut s, 15), Z_OK);
            // SAFETY: both pointers come from `buf`, which outlives the call; only raw
            // pointers to it exist while inflate runs.
            let r = unsafe {
                s.next_in = base.add(at);
                s.avail_in = comp.len() as u32;
                s.next_out = base;
                s.avail_out = data.len() as u32;
                let r = (lib.inflate)(&mut *s, FINISH);
                (lib.inflate_end)(&mut *s);
                r
            };
            assert_eq!(
                r, Z_STREAM_END,
                "{} inflating {}'s stream in place",
                lib.name, z.name
            );
            assert!(buf[..data.len()] == data[..], "{} in place", lib.name);
        }
        // Copies onto themselves, mid-stream.
        let mut s = ZStream::new();
        assert_eq!(z.i_init(&mut s, 15), Z_OK);
        let mut o = vec![0u8; data.len()];
        let (_, c, p) = z.i_step(&mut s, &comp[..comp.len() / 2], &mut o, NO);
        let sp: *mut ZStream = &mut *s;
        // SAFETY: a live stream, given as both arguments.
        assert_eq!(
            unsafe { (z.inflate_copy)(sp, sp) },
            Z_OK,
            "{} inflateCopy",
            z.name
        );
        let (r, _, p2) = z.i_step(&mut s, &comp[c..], &mut o[p..], NO);
        assert_eq!(r, Z_STREAM_END, "{} after inflateCopy onto itself", z.name);
        assert!(
            o[..p + p2] == data[..],
            "{} after inflateCopy onto itself",
            z.name
        );
        // SAFETY: live stream.
        unsafe { (z.inflate_end)(&mut *s) };
        let mut d = ZStream::new();
        assert_eq!(z.d_init(&mut d, 6, 15, 8, 0), Z_OK);
        let mut out = vec![0u8; data.len() + 1000];
        let (_, c, p) = z.d_step(&mut d, &data[..data.len() / 2], &mut out, NO);
        let dp: *mut ZStream = &mut *d;
        // SAFETY: a live stream, given as both arguments.
        assert_eq!(
            unsafe { (z.deflate_copy)(dp, dp) },
            Z_OK,
            "{} deflateCopy",
            z.name
        );
        let (r, _, p2) = z.d_step(&mut d, &data[c..], &mut out[p..], FINISH);
        assert_eq!(r, Z_STREAM_END, "{} after deflateCopy onto itself", z.name);
        // SAFETY: live stream.
        unsafe { (z.deflate_end)(&mut *d) };
        check_decodes(&libs, &out[..p + p2], 15, &data, "deflateCopy onto itself");
    }
}

#[test]
fn checksums_match() {
    let libs = Zlib::both();
    let data = corpus();
    for len in [0usize, 1, 7, 63, 64, 1000, 65536, 300_001] {
        let r: Vec<(c_ulong, c_ulong)> = libs
            .iter()
            .map(|z| {
                // SAFETY: valid slices.
                unsafe {
                    let c = (z.crc32)(0, data.as_ptr(), len as u32);
                    let a = (z.adler32)(1, data.as_ptr(), len as u32);
                    let c2 = (z.crc32_combine)(c, (z.crc32)(0, data.as_ptr(), 99), 99);
                    let a2 = (z.adler32_combine)(a, (z.adler32)(1, data.as_ptr(), 99), 99);
                    (c ^ c2 << 1, a ^ a2 << 1)
                }
            })
            .collect();
        assert_eq!(r[0], r[1], "length {len}");
    }
}

/// Start values that are not valid Adler-32s (a half of 65521 or more) give zlib's answers:
/// zlib reduces them for every length but one, and one byte takes a single subtraction per
/// half. We returned `0xffffffff` for no bytes (zlib: `0x000e000e`) and `0x0000ffe3` for a zero
/// byte after `0xffffffe3` (zlib: `0xfff1ffe3`).
#[test]
fn adler32_from_invalid_start_values_matches_zlib() {
    let libs = Zlib::both();
    let data = corpus();
    for start in [
        0xffff_ffffu32,
        0xffff_ffe3,
        0xfff1_fff1,
        0xfff0_fff0,
        0x0000_fff1,
        0xfff1_0000,
        0x0001_ffff,
    ] {
        for len in [0usize, 1, 2, 15, 16, 17, 100, 5552, 5553, 70_000] {
            for at in [0usize, 1000] {
                let r: Vec<c_ulong> = libs
                    .iter()
                    // SAFETY: valid slices.
                    .map(|z| unsafe {
                        (z.adler32)(start as c_ulong, data[at..].as_ptr(), len as u32)
                    })
                    .collect();
                assert_eq!(r[0], r[1], "start {start:#x}, length {len}, at {at}");
            }
        }
    }
}

/// Buffers of 4 MiB and more are checksummed in pieces on several threads: the combined checks
/// must equal zlib's serial ones, from any starting value and for uneven piece sizes.
#[test]
fn large_checksums_match() {
    let libs = Zlib::both();
    let mut data = hyperz_tests::noise((9 << 20) + 5);
    for b in data.iter_mut().step_by(3) {
        *b = b'a';
    }
    for len in [4 << 20, (4 << 20) + 1, (9 << 20) + 5] {
        let r: Vec<(c_ulong, c_ulong)> = libs
            .iter()
            .map(|z| {
                // SAFETY: valid slices.
                unsafe {
                    let c0 = (z.crc32)(0, b"hello".as_ptr(), 5);
                    let a0 = (z.adler32)(1, b"hello".as_ptr(), 5);
                    (
                        (z.crc32)(c0, data.as_ptr(), len as u32),
                        (z.adler32)(a0, data.as_ptr(), len as u32),
                    )
                }
            })
            .collect();
        assert_eq!(r[0], r[1], "length {len}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Random chunking, flush modes and output sizes: both libraries' streams decode with both.
    #[test]
    fn random_call_sequences(
        start in 0usize..500_000,
        len in 0usize..400_000,
        level in -1i32..=9,
        wbits in prop::sample::select(vec![15, -15, 31, 10]),
        chunks in prop::collection::vec((1usize..120_000, prop::sample::select(vec![0, 0, 0, 1, 2, 3, 5])), 1..6),
        out_size in prop::sample::select(vec![1usize, 13, 4096, 100_000]),
    ) {
        let libs = Zlib::both();
        let data = corpus();
        let start = start.min(data.len());
        let input = &data[start..(start + len).min(data.len())];
        let out_size = if input.len() > 50_000 { out_size.max(4096) } else { out_size };
        for z in &libs {
            let st = deflate_script(z, input, (level, wbits, 8, 0), &chunks, out_size);
            check_decodes(&libs, &st, wbits, input, &format!("{} random", z.name));
        }
    }
}

#[test]
fn params_copy_and_bound_on_large_streams() {
    // A multi-megabyte stream goes parallel in the drop-in: deflateParams between chunks,
    // deflateCopy mid-stream (both copies finish), and deflateBound as the output buffer for a
    // one-call Z_FINISH must all keep zlib's meaning.
    let libs = Zlib::both();
    let data: Vec<u8> = corpus().iter().copied().cycle().take(4_000_000).collect();
    for z in &libs {
        let mut s = ZStream::new();
        assert_eq!(z.d_init(&mut s, 6, 15, 8, 0), Z_OK);
        let mut out = Vec::new();
        let mut buf = vec![0u8; 1 << 16];
        for (i, chunk) in data.chunks(700_000).enumerate() {
            if i > 0 {
                let (level, strategy) = [(1, 0), (9, 0), (4, 1), (0, 0), (6, 0)][i % 5];
                // zlib's deflateParams writes the Z_BLOCK flush it implies into next_out
                // (ours delivers it with the next deflate call): give it the buffer and keep
                // what it wrote.
                s.next_in = chunk.as_ptr();
                s.avail_in = 0;
                s.next_out = buf.as_mut_ptr();
                s.avail_out = buf.len() as u32;
                // SAFETY: live stream with a valid output buffer.
                let r = unsafe { (z.deflate_params)(&mut *s, level, strategy) };
                assert!(r == Z_OK, "{}: deflateParams {r}", z.name);
                out.extend_from_slice(&buf[..buf.len() - s.avail_out as usize]);
            }
            let mut input = chunk;
            loop {
                let (r, c, p) = z.d_step(&mut s, input, &mut buf, NO);
                assert!(r == Z_OK || r == Z_BUF_ERROR, "{}: {r}", z.name);
                out.extend_from_slice(&buf[..p]);
                input = &input[c..];
                if input.is_empty() && p < buf.len() {
                    break;
                }
            }
            if i == 3 {
                // Copy here; the copy finishes the stream on its own.
                let mut t = ZStream::new();
                // SAFETY: live source, fresh destination.
                assert_eq!(unsafe { (z.deflate_copy)(&mut *t, &mut *s) }, Z_OK);
                let mut tail = out.clone();
                let rest = &data[4 * 700_000..];
                let mut input = rest;
                loop {
                    let (r, c, p) = z.d_step(&mut t, input, &mut buf, FINISH);
                    tail.extend_from_slice(&buf[..p]);
                    input = &input[c..];
                    if r == Z_STREAM_END {
                        break;
                    }
                    assert!(r == Z_OK || r == Z_BUF_ERROR, "{}: copy {r}", z.name);
                }
                // SAFETY: live stream.
                assert_eq!(unsafe { (z.deflate_end)(&mut *t) }, Z_OK);
                check_decodes(
                    &libs,
                    &tail,
                    15,
                    &data,
                    &format!("{} deflateCopy branch", z.name),
                );
            }
        }
        loop {
            let (r, _, p) = z.d_step(&mut s, &[], &mut buf, FINISH);
            out.extend_from_slice(&buf[..p]);
            if r == Z_STREAM_END {
                break;
            }
            assert!(r == Z_OK || r == Z_BUF_ERROR, "{}: finish {r}", z.name);
        }
        // SAFETY: live stream.
        assert_eq!(unsafe { (z.deflate_end)(&mut *s) }, Z_OK);
        check_decodes(&libs, &out, 15, &data, &format!("{} params", z.name));

        // deflateBound is enough for one Z_FINISH call, on text and on random bytes.
        let noise = hyperz_tests::noise(2_000_000);
        for input in [&data[..], &noise[..]] {
            for wbits in [15, 31, -15] {
                let mut s = ZStream::new();
                assert_eq!(z.d_init(&mut s, 6, wbits, 8, 0), Z_OK);
                // SAFETY: live stream.
                let bound = unsafe { (z.deflate_bound)(&mut *s, input.len() as c_ulong) } as usize;
                let mut big = vec![0u8; bound];
                let (r, c, p) = z.d_step(&mut s, input, &mut big, FINISH);
                assert_eq!(
                    (r, c),
                    (Z_STREAM_END, input.len()),
                    "{} bound {bound} wbits {wbits}",
                    z.name
                );
                assert!(p <= bound);
                // SAFETY: live stream.
                unsafe { (z.deflate_end)(&mut *s) };
                check_decodes(&libs, &big[..p], wbits, input, "deflateBound");
            }
            // compress2 into compressBound.
            // SAFETY: plain function.
            let cb = unsafe { (z.compress_bound)(input.len() as c_ulong) };
            let mut dst = vec![0u8; cb as usize];
            let mut n = cb;
            // SAFETY: valid buffers.
            let r = unsafe {
                (z.compress2)(
                    dst.as_mut_ptr(),
                    &mut n,
                    input.as_ptr(),
                    input.len() as c_ulong,
                    6,
                )
            };
            assert_eq!(r, Z_OK, "{} compress2 into compressBound", z.name);
            check_decodes(&libs, &dst[..n as usize], 15, input, "compress2");
        }
    }
}

/// Reads a stream's window with `get` (deflateGetDictionary or inflateGetDictionary) into a
/// buffer of exactly `room` bytes with a guard after it; the guard must be untouched.
fn window_of(
    get: unsafe extern "C" fn(*mut ZStream, *mut u8, *mut std::ffi::c_uint) -> c_int,
    s: &mut ZStream,
    room: usize,
    what: &str,
) -> Vec<u8> {
    let mut buf = vec![0xA5u8; room + 64];
    let mut n = 0;
    // SAFETY: a live stream, a buffer of `room` + 64 bytes and a length to write.
    let r = unsafe { get(s, buf.as_mut_ptr(), &mut n) };
    assert_eq!(r, Z_OK, "{what}");
    assert!(
        n as usize <= room && buf[room..].iter().all(|&b| b == 0xA5),
        "{what}: {n} bytes, more than the window of {room}"
    );
    buf.truncate(n as usize);
    buf
}

/// deflateGetDictionary and inflateGetDictionary give at most the stream's window, 2^windowBits
/// (or what the zlib header declared, for inflate with windowBits 0), as zlib does: a caller
/// may size the buffer by it. Before, the drop-in gave up to 32 KiB whatever the window.
#[test]
fn get_dictionary_gives_at_most_the_window() {
    let libs = Zlib::both();
    let data = corpus();
    let dict = &data[200_000..240_000];
    let data = &data[..120_000];
    for bits in [9, 10, 12, 15] {
        let w = 1usize << bits;
        for wbits in [-bits, bits, bits + 16] {
            for z in &libs {
                let what = format!("{} windowBits {wbits}", z.name);
                let mut s = ZStream::new();
                assert_eq!(z.d_init(&mut s, 6, wbits, 8, 0), Z_OK, "{what}");
                let mut seen = Vec::new();
                if wbits < 16 {
                    // A dictionary longer than the window: its tail is the window.
                    // SAFETY: a live stream and a valid slice.
                    let r = unsafe {
                        (z.deflate_set_dictionary)(&mut *s, dict.as_ptr(), dict.len() as u32)
                    };
                    assert_eq!(r, Z_OK, "{what}");
                    let got = window_of(z.deflate_get_dictionary, &mut s, w, &what);
                    assert!(got == dict[dict.len() - w..], "{what}: dictionary's window");
                    seen.extend_from_slice(dict);
                }
                let mut out = vec![0u8; 200_000];
                for piece in data.chunks(9_000).take(8) {
                    let (r, c, _) = z.d_step(&mut s, piece, &mut out, NO);
                    assert_eq!((r, c), (Z_OK, piece.len()), "{what}");
                    seen.extend_from_slice(piece);
                    let got = window_of(z.deflate_get_dictionary, &mut s, w, &what);
                    assert!(
                        seen.ends_with(&got) && got.len() == seen.len().min(w),
                        "{what}: deflate window of {} bytes after {}",
                        got.len(),
                        seen.len()
                    );
                }
                // SAFETY: a live stream.
                unsafe { (z.deflate_end)(&mut *s) };
            }
            // Inflate, in output pieces, stopped mid-stream: the last 2^bits bytes.
            let stream = libs[0].deflate_all(data, (6, wbits, 0), None);
            for init in [wbits, if wbits == bits { 0 } else { wbits }] {
                let window: Vec<Vec<u8>> = libs
                    .iter()
                    .map(|z| {
                        let what = format!("{} inflate windowBits {init}", z.name);
                        let mut s = ZStream::new();
                        assert_eq!(z.i_init(&mut s, init), Z_OK, "{what}");
                        let mut out = vec![0u8; 7_000];
                        let (mut used, mut made) = (0, 0);
                        while made < 60_000 {
                            let (r, c, p) = z.i_step(&mut s, &stream[used..], &mut out, NO);
                            assert_eq!(r, Z_OK, "{what}");
                            assert!(out[..p] == data[made..made + p], "{what}");
                            (used, made) = (used + c, made + p);
                        }
                        let got = window_of(z.inflate_get_dictionary, &mut s, w, &what);
                        assert!(got == data[made - w..made], "{what}: {} bytes", got.len());
                        // SAFETY: a live stream.
                        unsafe { (z.inflate_end)(&mut *s) };
                        got
                    })
                    .collect();
                assert_eq!(window[0].len(), window[1].len());
            }
        }
    }
}
