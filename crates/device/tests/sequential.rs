//! Device::decompress_stream on what is not an independent-block member: ordinary gzip
//! members, zlib and raw streams are decoded as they are read, in bounded memory, with errors
//! at absolute offsets.
use std::cell::Cell;
use std::io::{self, Read, Write};
use std::rc::Rc;

use hyperz_device::{DecodeError, DecodeErrorKind, Device, DeviceConfig};
use hyperz_engine::Format;
use hyperz_tests::xorshift;

/// Text-like bytes that compress about 3:1.
fn text(len: usize, seed: u32) -> Vec<u8> {
    let words: [&[u8]; 8] = [
        b"stream ", b"member ", b"window ", b"reader ", b"engine ", b"offset ", b"\n", b"42 ",
    ];
    let mut next = xorshift(seed as u64 | 1);
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        let x = next();
        out.extend_from_slice(words[(x % 8) as usize]);
        if x.is_multiple_of(5) {
            out.push(b'a' + (x >> 8) as u8 % 26);
        }
    }
    out.truncate(len);
    out
}

fn device() -> Device {
    Device::new(DeviceConfig {
        block_size: 64 << 10,
        ..DeviceConfig::with_engines(2)
    })
}

/// Hands out its bytes 64 KiB at a time and counts what it has handed out.
struct Source {
    data: Vec<u8>,
    at: usize,
    given: Rc<Cell<usize>>,
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(64 << 10).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        self.given.set(self.at);
        Ok(n)
    }
}

/// Records how much input had been handed out when the first output arrived.
struct Sink {
    out: Vec<u8>,
    given: Rc<Cell<usize>>,
    given_at_first_write: Option<usize>,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !buf.is_empty() && self.given_at_first_write.is_none() {
            self.given_at_first_write = Some(self.given.get());
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Decodes `comp` through the reader and writer above.
fn run(dev: &Device, format: Format, comp: &[u8]) -> (io::Result<(u64, u64)>, Sink) {
    let given = Rc::new(Cell::new(0));
    let src = Source {
        data: comp.to_vec(),
        at: 0,
        given: given.clone(),
    };
    let mut sink = Sink {
        out: Vec::new(),
        given,
        given_at_first_write: None,
    };
    let r = dev
        .decompress_stream(format, src, &mut sink)
        .map(|st| (st.bytes_in, st.bytes_out));
    (r, sink)
}

fn decode_error(e: io::Error) -> DecodeError {
    assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
    *e.into_inner()
        .expect("a decode error inside")
        .downcast::<DecodeError>()
        .expect("a DecodeError")
}

/// The whole compressed stream was read before anything was written: 4 MB of input for an
/// ordinary stream was held in memory. Now output comes out while the input is still being
/// read, for each container and after independent members.
#[test]
fn ordinary_streams_are_decoded_as_they_are_read() {
    let dev = device();
    let data = text(4 << 20, 7);
    let mut mixed = dev.compress_independent(6, &data[..1 << 20]);
    mixed.extend(dev.compress(Format::Gzip, 6, &data[1 << 20..]));
    let mut two = dev.compress(Format::Gzip, 1, &data[..3 << 20]);
    two.extend(dev.compress(Format::Gzip, 6, &data[3 << 20..]));
    let cases = [
        ("raw", Format::Raw, dev.compress(Format::Raw, 6, &data)),
        ("zlib", Format::Zlib, dev.compress(Format::Zlib, 6, &data)),
        ("gzip", Format::Gzip, dev.compress(Format::Gzip, 6, &data)),
        ("two gzip members", Format::Gzip, two),
        ("independent, then ordinary", Format::Gzip, mixed),
    ];
    for (what, format, comp) in cases {
        let (r, sink) = run(&dev, format, &comp);
        assert_eq!(r.unwrap(), (comp.len() as u64, data.len() as u64), "{what}");
        assert!(sink.out == data, "{what}: output differs");
        let first = sink.given_at_first_write.unwrap();
        assert!(
            first <= comp.len() / 2,
            "{what}: first output after {first} of {} bytes read",
            comp.len()
        );
    }
}

#[test]
fn sequential_errors_are_located_and_earlier_output_is_kept() {
    let dev = device();
    let (a, b) = (text(300_000, 3), text(200_000, 4));
    let first = dev.compress(Format::Gzip, 6, &a);
    let mut comp = first.clone();
    comp.extend(dev.compress(Format::Gzip, 6, &b));

    // Cut anywhere in the second member (header, body, trailer): truncated at the cut.
    for cut in [
        first.len() + 1,
        first.len() + 9,
        first.len() + 500,
        comp.len() - 8,
        comp.len() - 1,
    ] {
        let (r, sink) = run(&dev, Format::Gzip, &comp[..cut]);
        let e = decode_error(r.unwrap_err());
        assert_eq!(
            (e.kind, e.offset),
            (DecodeErrorKind::Truncated, cut as u64),
            "cut {cut}"
        );
        assert!(sink.out.starts_with(&a), "cut {cut}: first member lost");
    }

    // A wrong CRC in the second member's trailer: a checksum error inside that trailer, after
    // the first member and all of the second's data have been written.
    let mut bad = comp.clone();
    let crc_at = comp.len() - 8;
    bad[crc_at] ^= 0x40;
    let (r, sink) = run(&dev, Format::Gzip, &bad);
    let e = decode_error(r.unwrap_err());
    assert_eq!(e.kind, DecodeErrorKind::BadChecksum, "{e:?}");
    assert!(
        (crc_at as u64..comp.len() as u64).contains(&e.offset),
        "{e:?}"
    );
    assert_eq!(sink.out.len(), a.len() + b.len());

    // Junk after the members: a header error where the junk starts.
    let mut junk = comp.clone();
    junk.extend_from_slice(b"not gzip at all");
    let e = decode_error(run(&dev, Format::Gzip, &junk).0.unwrap_err());
    assert_eq!(e.kind, DecodeErrorKind::BadHeader, "{e:?}");
    assert!(
        (comp.len() as u64..comp.len() as u64 + 2).contains(&e.offset),
        "{e:?}"
    );

    // A zlib stream that needs a preset dictionary cannot be decoded here.
    let fdict = [0x78, 0xbb, 0, 0, 0, 1, 0x03, 0x00];
    let e = decode_error(run(&dev, Format::Zlib, &fdict).0.unwrap_err());
    assert_eq!(e.kind, DecodeErrorKind::BadHeader, "{e:?}");

    // Empty input is a truncated stream in every container.
    for format in [Format::Raw, Format::Zlib, Format::Gzip] {
        let e = decode_error(run(&dev, format, &[]).0.unwrap_err());
        assert_eq!((e.kind, e.offset), (DecodeErrorKind::Truncated, 0));
    }
}
