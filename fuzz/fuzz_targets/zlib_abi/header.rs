//! The gzip header half of the `zlib_abi` fuzz target: random fields for `deflateSetHeader`,
//! caller buffers for `inflateGetHeader` and the check of what it filled in, and an
//! independent parse of a written header.

use core::ffi::{c_int, c_uint};
use hyperz_engine::GzipHeader;
use hyperz_zlib::types::gz_header;

use crate::Rnd;

/// Random header fields for `deflateSetHeader` (`xfl` is not one of them: deflate sets it).
pub fn random_header(rnd: &mut Rnd) -> GzipHeader {
    let mut field = |zero_free: bool| -> Option<Vec<u8>> {
        (rnd.next() % 3 != 0).then(|| {
            let n = rnd.next() % 40;
            (0..n)
                .map(|_| rnd.next() as u8)
                .map(|b| if zero_free { b.max(1) } else { b })
                .collect()
        })
    };
    let (extra, name, comment) = (field(false), field(true), field(true));
    GzipHeader {
        text: rnd.next() % 2 == 0,
        mtime: rnd.next() as u32,
        xfl: 0,
        os: rnd.next() as u8,
        extra,
        name,
        comment,
        hcrc: rnd.next() % 2 == 0,
    }
}

/// Caller buffers for `inflateGetHeader`, of random sizes (NULL for some), and the structure
/// pointing into them.
pub struct HeadBufs {
    extra: Option<Vec<u8>>,
    name: Option<Vec<u8>>,
    comment: Option<Vec<u8>>,
    pub head: Box<gz_header>,
}

impl HeadBufs {
    pub fn new(rnd: &mut Rnd) -> HeadBufs {
        let mut buf = || (rnd.next() % 4 != 0).then(|| vec![0xA5u8; (rnd.next() % 48) as usize]);
        let (mut extra, mut name, mut comment) = (buf(), buf(), buf());
        let ptr = |b: &mut Option<Vec<u8>>| {
            b.as_mut().map_or((core::ptr::null_mut(), 0), |v| {
                (v.as_mut_ptr(), v.len() as c_uint)
            })
        };
        let ((e, em), (n, nm), (c, cm)) = (ptr(&mut extra), ptr(&mut name), ptr(&mut comment));
        // SAFETY: gz_header is plain C data; zeros are valid for every field.
        let mut head: Box<gz_header> = Box::new(unsafe { core::mem::zeroed() });
        (
            head.extra,
            head.extra_max,
            head.name,
            head.name_max,
            head.comment,
            head.comm_max,
        ) = (e, em, n, nm, c, cm);
        HeadBufs {
            extra,
            name,
            comment,
            head,
        }
    }

    /// After the header was read: the fields must be `want`'s, each truncated to its buffer
    /// as zlib does (a string's terminating zero is written when it fits).
    pub fn check(&self, want: &GzipHeader) {
        let h = &*self.head;
        assert_eq!(h.done, 1, "header not marked done");
        assert_eq!(h.text != 0, want.text, "text");
        assert_eq!(h.time as u32, want.mtime, "time");
        assert_eq!(h.os, want.os as c_int, "os");
        assert_eq!(h.hcrc != 0, want.hcrc, "hcrc");
        match &want.extra {
            Some(x) => {
                assert_eq!(h.extra_len as usize, x.len(), "extra_len");
                if let Some(b) = &self.extra {
                    let n = x.len().min(b.len());
                    assert_eq!(&b[..n], &x[..n], "extra");
                    assert!(
                        b[n..].iter().all(|&v| v == 0xA5),
                        "extra written past its length"
                    );
                }
            }
            None => {
                if let Some(b) = &self.extra {
                    assert!(b.iter().all(|&v| v == 0xA5), "extra written without one");
                }
            }
        }
        for (got, want, what) in [
            (&self.name, &want.name, "name"),
            (&self.comment, &want.comment, "comment"),
        ] {
            let Some(b) = got else { continue };
            let mut full = want.clone().unwrap_or_default();
            let n = if want.is_some() {
                full.push(0);
                full.len().min(b.len())
            } else {
                0
            };
            assert_eq!(&b[..n], &full[..n], "{what}");
            assert!(
                b[n..].iter().all(|&v| v == 0xA5),
                "{what} written past its length"
            );
        }
    }
}

/// A header for `deflateSetHeader`: the structure and the buffers it points into.
pub struct SetHead {
    _extra: Option<Vec<u8>>,
    _name: Option<Vec<u8>>,
    _comment: Option<Vec<u8>>,
    pub gz: Box<gz_header>,
}

impl SetHead {
    pub fn new(h: &GzipHeader) -> SetHead {
        let mut extra = h.extra.clone();
        let (name, comment) = (
            h.name.as_deref().map(c_string),
            h.comment.as_deref().map(c_string),
        );
        // SAFETY: gz_header is plain C data; zeros are valid for every field.
        let mut gz: Box<gz_header> = Box::new(unsafe { core::mem::zeroed() });
        gz.text = h.text as c_int;
        gz.time = h.mtime as _;
        gz.os = h.os as c_int;
        if let Some(x) = &mut extra {
            (gz.extra, gz.extra_len) = (x.as_mut_ptr(), x.len() as c_uint);
        }
        let text = |v: &Option<Vec<u8>>| {
            v.as_ref()
                .map_or(core::ptr::null_mut(), |v| v.as_ptr() as *mut u8)
        };
        (gz.name, gz.comment) = (text(&name), text(&comment));
        gz.hcrc = h.hcrc as c_int;
        SetHead {
            _extra: extra,
            _name: name,
            _comment: comment,
            gz,
        }
    }
}

/// `bytes` with a terminating zero.
fn c_string(bytes: &[u8]) -> Vec<u8> {
    let mut v = bytes.to_vec();
    v.push(0);
    v
}

/// The length of the gzip header at the start of `z` (RFC 1952), whose header CRC, if any,
/// must check out.
pub fn gzip_header_len(z: &[u8]) -> usize {
    assert_eq!(&z[..3], &[0x1f, 0x8b, 8], "gzip magic and method");
    let flg = z[3];
    let mut n = 10;
    if flg & 4 != 0 {
        n += 2 + u16::from_le_bytes([z[n], z[n + 1]]) as usize;
    }
    for bit in [8, 16] {
        if flg & bit != 0 {
            n += 1 + z[n..]
                .iter()
                .position(|&b| b == 0)
                .expect("terminated string");
        }
    }
    if flg & 2 != 0 {
        let crc = hyperz_engine::checksum::crc32(0, &z[..n]) as u16;
        assert_eq!(crc.to_le_bytes(), [z[n], z[n + 1]], "header CRC");
        n += 2;
    }
    n
}
