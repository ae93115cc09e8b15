//! Container framing: headers we write parse back, foreign optional fields are skipped, the
//! `HZ` subfield is found among others, and bad or short headers give precise errors.
use hyperz_device::container::{self, MemberSizes, HZ_HEADER_LEN};
use hyperz_device::{looks_incompressible, DecodeErrorKind};
use hyperz_engine::checksum::crc32;
use hyperz_engine::Format;

#[test]
fn written_headers_parse_back() {
    for level in 0..=12 {
        let mut z = Vec::new();
        container::write_header(Format::Zlib, level, &mut z);
        assert_eq!((z[0] as u16 * 256 + z[1] as u16) % 31, 0);
        assert_eq!(
            container::parse_header(Format::Zlib, &z).unwrap(),
            (2, None)
        );
        let mut g = Vec::new();
        container::write_header(Format::Gzip, level, &mut g);
        assert_eq!(
            container::parse_header(Format::Gzip, &g).unwrap(),
            (10, None)
        );
    }
    let sizes = MemberSizes {
        member_len: 123_456,
        raw_len: 7_654_321,
    };
    let mut h = Vec::new();
    container::write_hz_header(6, sizes, &mut h);
    assert_eq!(h.len(), HZ_HEADER_LEN);
    assert_eq!(
        container::parse_header(Format::Gzip, &h).unwrap(),
        (HZ_HEADER_LEN, Some(sizes))
    );
}

#[test]
fn optional_fields_are_skipped_and_hz_found_among_subfields() {
    // FEXTRA with a foreign subfield first, then HZ; FNAME; FCOMMENT; FHCRC.
    let mut h = vec![0x1f, 0x8b, 8, 4 | 8 | 16 | 2, 0, 0, 0, 0, 0, 3];
    let mut extra = vec![b'A', b'p', 2, 0, 9, 9, b'H', b'Z', 8, 0];
    extra.extend_from_slice(&100u32.to_le_bytes());
    extra.extend_from_slice(&200u32.to_le_bytes());
    h.extend_from_slice(&(extra.len() as u16).to_le_bytes());
    h.extend_from_slice(&extra);
    h.extend_from_slice(b"name.txt\0a comment\0");
    let hcrc = crc32(0, &h) as u16;
    h.extend_from_slice(&hcrc.to_le_bytes());
    let (len, sizes) = container::parse_header(Format::Gzip, &h).unwrap();
    assert_eq!(len, h.len());
    assert_eq!(
        sizes,
        Some(MemberSizes {
            member_len: 100,
            raw_len: 200
        })
    );
    // A wrong header CRC is reported where it sits.
    let mut bad = h.clone();
    let n = bad.len();
    bad[n - 1] ^= 1;
    let e = container::parse_header(Format::Gzip, &bad).unwrap_err();
    assert_eq!(
        (e.kind, e.offset),
        (DecodeErrorKind::BadHeader, (n - 2) as u64)
    );
    // Every truncation is reported as such.
    for cut in 0..h.len() {
        let e = container::parse_header(Format::Gzip, &h[..cut]).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::Truncated, "cut {cut}");
    }
}

#[test]
fn bad_headers_are_located() {
    let e =
        container::parse_header(Format::Gzip, &[0x1f, 0x8c, 8, 0, 0, 0, 0, 0, 0, 3]).unwrap_err();
    assert_eq!((e.kind, e.offset), (DecodeErrorKind::BadHeader, 0));
    let e =
        container::parse_header(Format::Gzip, &[0x1f, 0x8b, 7, 0, 0, 0, 0, 0, 0, 3]).unwrap_err();
    assert_eq!((e.kind, e.offset), (DecodeErrorKind::BadHeader, 2));
    let e = container::parse_header(Format::Gzip, &[0x1f, 0x8b, 8, 0x20, 0, 0, 0, 0, 0, 3])
        .unwrap_err();
    assert_eq!((e.kind, e.offset), (DecodeErrorKind::BadHeader, 3));
    let e = container::parse_header(Format::Zlib, &[0x78, 0x9d]).unwrap_err();
    assert_eq!((e.kind, e.offset), (DecodeErrorKind::BadHeader, 0));
    // A subfield running past XLEN.
    let h = [
        0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 3, 6, 0, b'H', b'Z', 8, 0, 0, 0,
    ];
    let e = container::parse_header(Format::Gzip, &h).unwrap_err();
    assert_eq!((e.kind, e.offset), (DecodeErrorKind::BadHeader, 14));
}

#[test]
fn trailers_are_checked() {
    let data = b"hello hello hello";
    for format in [Format::Zlib, Format::Gzip] {
        let check = container::check_update(format, container::check_init(format), data);
        let mut t = Vec::new();
        container::write_trailer(format, check, data.len() as u64, &mut t);
        assert_eq!(container::check_trailer(format, data, &t).unwrap(), t.len());
        t[0] ^= 0x40;
        assert_eq!(
            container::check_trailer(format, data, &t).unwrap_err().kind,
            DecodeErrorKind::BadChecksum
        );
    }
}

#[test]
fn incompressibility_test_separates_random_from_text() {
    let mut x = 99u64;
    let random: Vec<u8> = (0..100_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    assert!(looks_incompressible(&random));
    let text = b"It was the best of times, it was the worst of times. ".repeat(2000);
    assert!(!looks_incompressible(&text));
    assert!(
        !looks_incompressible(&random[..20_000]),
        "too small to judge"
    );
    // Bytes spread evenly that repeat within DEFLATE's window compress (gzip -1: 10 MB of the
    // ramp below to 75 KB); repeats from farther back do not.
    let ramp: Vec<u8> = (0..300_000).map(|i| (i % 251) as u8).collect();
    assert!(!looks_incompressible(&ramp), "a ramp of 251 byte values");
    for period in [64, 4096, 20_000, 32_768] {
        let copies = random[..period].repeat(300_000 / period + 1);
        assert!(
            !looks_incompressible(&copies),
            "random bytes, period {period}"
        );
    }
    // (7.5 copies: the histogram's 64 evenly spaced runs must not all fall on a few offsets.)
    let far = &random[..40_000].repeat(8)[..300_000];
    assert!(looks_incompressible(far), "random bytes, period 40,000");
}
