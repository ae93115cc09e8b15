//! Damaged streams, differentially: the system zlib and the drop-in, both loaded in this
//! process, must reach the same outcome on every stream.
//!
//! Through inflate(): if either finishes (Z_STREAM_END), both do, with the same output and the
//! same unconsumed input; otherwise both stop with the same return code (Z_DATA_ERROR for a
//! failed check, Z_BUF_ERROR for a stream that needs more input) and the same output: all of
//! what precedes the damage, whatever the sizes of the pieces. Through uncompress() and
//! uncompress2(): the same code and lengths (see that test).
//!
//! The streams are zlib and raw streams written with windows of 2^9 to 2^15, zlib streams with
//! a preset dictionary (given on Z_NEED_DICT), and gzip members with every header field, one
//! to three concatenated; each is written by one of the two libraries, then damaged once: a
//! bit flipped anywhere, in the header or in the trailer, a byte replaced, three bits flipped,
//! a cut, bytes appended, or a trailer bit flipped and the last bytes cut. Input and output go
//! in pieces of 1 byte to 100 KiB. Every stream is inflated with a 32 KiB window: a distance
//! beyond a smaller declared window is not compared, since zlib rejects one only when it
//! reaches into its window buffer, which depends on how the output was split across calls (the
//! drop-in keeps 32 KiB of history and accepts it).

use std::ffi::{c_int, c_ulong};

use hyperz_tests::zapi::Zlib;
use hyperz_tests::{sample_files, xorshift};

const Z_STREAM_END: c_int = 1;

/// A gzip member with header flags `flg` (FHCRC, FEXTRA, FNAME, FCOMMENT in any mix).
fn gzip_member(z: &Zlib, data: &[u8], level: c_int, flg: u8, extra: usize) -> Vec<u8> {
    let crc = |b: &[u8]| {
        // SAFETY: a valid slice.
        unsafe { (z.crc32)(0, b.as_ptr(), b.len() as u32) as u32 }
    };
    let mut m = vec![0x1f, 0x8b, 8, flg, 1, 2, 3, 4, 0, 3];
    if flg & 4 != 0 {
        m.extend([extra as u8, 0]);
        m.extend((0..extra).map(|i| i as u8));
    }
    if flg & 8 != 0 {
        m.extend(b"name.txt\0");
    }
    if flg & 16 != 0 {
        m.extend(b"a comment\0");
    }
    if flg & 2 != 0 {
        let c = crc(&m);
        m.extend(&c.to_le_bytes()[..2]);
    }
    m.extend(z.deflate_all(data, (level, -15, 0), None));
    m.extend(crc(data).to_le_bytes());
    m.extend((data.len() as u32).to_le_bytes());
    m
}

#[test]
fn damaged_streams_end_the_same_way_in_both() {
    let libs = Zlib::both();
    let files = sample_files();
    let mut rnd = xorshift(0x9E37_79B9_7F4A_7C15);
    let piece = |rnd: &mut dyn FnMut() -> u64| {
        let (_, d) = &files[rnd() as usize % files.len()];
        let off = rnd() as usize % d.len();
        let len = (rnd() as usize % 3000).min(d.len() - off);
        d[off..off + len].to_vec()
    };
    let mut outcomes = [0usize; 3]; // ends, data errors, needs more input
    for it in 0..6000 {
        let maker = &libs[(rnd() % 2) as usize];
        let level = (rnd() % 10) as c_int;
        let (mut st, wbits, dict) = match rnd() % 3 {
            0 => {
                let wbits = [31, 47][(rnd() % 2) as usize];
                let mut st = Vec::new();
                for _ in 0..1 + rnd() % 3 {
                    let (flg, extra) = ((rnd() % 32) as u8 & 0x1e, (rnd() % 20) as usize);
                    st.extend(gzip_member(maker, &piece(&mut rnd), level, flg, extra));
                }
                (st, wbits, None)
            }
            1 => {
                let (data, d) = (piece(&mut rnd), piece(&mut rnd));
                let dict = (!d.is_empty() && rnd().is_multiple_of(2)).then_some(d);
                (
                    maker.deflate_all(&data, (level, 15, 0), dict.as_deref()),
                    15,
                    dict,
                )
            }
            _ => {
                // Written with any window, inflated with the largest (see the module comment).
                let sign = if rnd().is_multiple_of(2) { 1 } else { -1 };
                let wbits = (9 + rnd() % 7) as c_int * sign;
                let strategy = (rnd() % 5) as c_int;
                let st = maker.deflate_all(&piece(&mut rnd), (level, wbits, strategy), None);
                (st, 15 * sign, None)
            }
        };
        let n = st.len();
        let at = |rnd: &mut dyn FnMut() -> u64, span: usize| rnd() as usize % span.min(n);
        let damage = rnd() % 8;
        match damage {
            0 => st[at(&mut rnd, n)] ^= 1 << (rnd() % 8),
            1 => st[at(&mut rnd, n)] = rnd() as u8,
            2 => st.truncate(at(&mut rnd, n)),
            3 => (0..3).for_each(|_| st[at(&mut rnd, n)] ^= 1 << (rnd() % 8)),
            4 => st[at(&mut rnd, 30)] ^= 1 << (rnd() % 8),
            5 => st[n - 1 - at(&mut rnd, 10)] ^= 1 << (rnd() % 8),
            6 => st.extend([rnd() as u8, rnd() as u8, rnd() as u8]),
            _ => {
                // A bit of the trailer flipped and its end cut: a gzip member whose CRC is
                // wrong and whose ISIZE is incomplete is a data error (zlib checks the CRC as
                // soon as it has its four bytes).
                st[n - 1 - at(&mut rnd, 8)] ^= 1 << (rnd() % 8);
                st.truncate(n - 1 - at(&mut rnd, 3));
            }
        }
        let chunk = [1, 7, 100, 100_000][(rnd() % 4) as usize];
        let ochunk = [1, 13, 4096, 100_000][(rnd() % 4) as usize];
        let [a, b] =
            [&libs[0], &libs[1]].map(|z| z.inflate_all(&st, wbits, chunk, ochunk, dict.as_deref()));
        let what = format!(
            "case {it}: written by {} (level {level}, windowBits {wbits}, {} bytes), damage {damage}, \
             pieces {chunk}/{ochunk}: system ({}, {} out, {} left), hyperz ({}, {} out, {} left)",
            maker.name, n, a.0, a.1.len(), a.2, b.0, b.1.len(), b.2
        );
        if a.0 == Z_STREAM_END || b.0 == Z_STREAM_END {
            assert!(a == b, "{what}");
            outcomes[0] += 1;
        } else {
            assert_eq!(a.0, b.0, "{what}");
            assert!(a.1 == b.1, "{what}: outputs differ");
            outcomes[if a.0 == -3 { 1 } else { 2 }] += 1;
        }
    }
    // The damage reaches every outcome often enough to mean something.
    assert!(outcomes.iter().all(|&k| k > 300), "{outcomes:?}");
}

/// uncompress() and uncompress2() on damaged zlib streams, with destination sizes from zero
/// (zlib then decodes into a one-byte scratch: any data at all is Z_DATA_ERROR) through too
/// small, exact and roomy: the same return code, the same `*destLen` (the output before an
/// error counts), and the same `*sourceLen` when the stream decoded.
#[test]
fn uncompress_reports_damage_as_zlib_does() {
    let libs = Zlib::both();
    let files = sample_files();
    let mut rnd = xorshift(0x5555_1234_9ABC_DEF1);
    // One literal, then a match reaching before the start (found by this test's random
    // search): with room for only the literal, zlib stops before it copies the match and
    // reports Z_BUF_ERROR; with more room, Z_DATA_ERROR.
    let far: &[u8] = &[
        0x78, 0x5e, 0x63, 0x18, 0x04, 0xa3, 0x60, 0x14, 0x8c, 0x82, 0x51, 0x30, 0x0a, 0x06, 0x1c,
        0x00, 0x00, 0x06, 0x8e, 0x00, 0x01,
    ];
    let mut cases: Vec<(Vec<u8>, usize)> = vec![(far.to_vec(), 1), (far.to_vec(), 100)];
    for _ in 0..8000 {
        let (_, d) = &files[rnd() as usize % files.len()];
        let off = rnd() as usize % d.len();
        let data = &d[off..(off + rnd() as usize % 5000).min(d.len())];
        let maker = &libs[(rnd() % 2) as usize];
        let mut z = maker.deflate_all(data, ((rnd() % 10) as c_int, 15, 0), None);
        let n = z.len();
        match rnd() % 6 {
            0 => z[rnd() as usize % n] ^= 1 << (rnd() % 8),
            1 => z.truncate(rnd() as usize % n),
            2 => z[n - 1 - rnd() as usize % 4] ^= 1 << (rnd() % 8),
            3 => z.extend([1, 2, 3]),
            4 => z[rnd() as usize % 2] ^= 1 << (rnd() % 8),
            _ => {}
        }
        let len = data.len();
        cases.push((z, [0, 1, len / 2, len, len + 10][(rnd() % 5) as usize]));
    }
    let mut codes = [0usize; 3]; // Z_OK, Z_DATA_ERROR, Z_BUF_ERROR
    for (i, (z, cap)) in cases.iter().enumerate() {
        let [a, b] = [&libs[0], &libs[1]].map(|l| {
            let mut out = vec![0u8; (*cap).max(1)];
            let (mut dl, mut sl) = (*cap as c_ulong, z.len() as c_ulong);
            // SAFETY: `out` has `cap` bytes (at least one), `z` `sl` bytes.
            let r = unsafe { (l.uncompress2)(out.as_mut_ptr(), &mut dl, z.as_ptr(), &mut sl) };
            let mut dl1 = *cap as c_ulong;
            // SAFETY: as above.
            let r1 =
                unsafe { (l.uncompress)(out.as_mut_ptr(), &mut dl1, z.as_ptr(), z.len() as _) };
            (r, dl, sl, r1, dl1)
        });
        let what = format!(
            "case {i} ({} bytes into {cap}): system {a:?}, hyperz {b:?} \
             (uncompress2 code, destLen, sourceLen; uncompress code, destLen)",
            z.len()
        );
        assert!(
            a.0 == b.0 && a.1 == b.1 && a.3 == b.3 && a.4 == b.4 && (a.0 != 0 || a.2 == b.2),
            "{what}"
        );
        if i < 2 {
            assert_eq!(a.0, [-5, -3][i], "{what}");
        }
        codes[match a.0 {
            0 => 0,
            -3 => 1,
            _ => 2,
        }] += 1;
    }
    assert!(codes.iter().all(|&k| k > 500), "{codes:?}");
}
