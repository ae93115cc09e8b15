//! The `inflateBack` half of the `zlib_abi` fuzz target: a raw stream decoded through the
//! callback interface, its input handed out in random pieces.

use core::ffi::{c_int, c_uint, c_void};
use hyperz_zlib::inflate_back::*;
use hyperz_zlib::types::*;

use crate::{new_stream, size, Rnd, LIMIT};

/// `inflateBack`'s input callback state: the stream, handed out in random pieces.
struct BackIn<'a> {
    data: &'a [u8],
    pos: usize,
    rnd: Rnd,
}

/// `inflateBack`'s output callback state: what it wrote.
struct BackOut {
    got: Vec<u8>,
}

unsafe extern "C" fn back_in(desc: *mut c_void, buf: *mut *const u8) -> c_uint {
    // SAFETY: `desc` is the `BackIn` that `inflate_back` passed, alive during the call.
    let s = unsafe { &mut *(desc as *mut BackIn) };
    let n = s.rnd.piece(s.data.len() - s.pos).min(s.data.len() - s.pos);
    // SAFETY: `buf` is inflateBack's pointer to fill; the data outlives the call.
    unsafe { *buf = s.data[s.pos..].as_ptr() };
    s.pos += n;
    n as c_uint
}

unsafe extern "C" fn back_out(desc: *mut c_void, buf: *mut u8, len: c_uint) -> c_int {
    // SAFETY: `desc` is the `BackOut` that `inflate_back` passed, alive during the call.
    let s = unsafe { &mut *(desc as *mut BackOut) };
    // SAFETY: inflateBack hands `len` bytes at `buf`.
    s.got
        .extend_from_slice(unsafe { core::slice::from_raw_parts(buf, len as usize) });
    (s.got.len() > LIMIT) as c_int
}

/// Decodes the raw stream `input` with `inflateBack` (window `1 << wbits`, input in random
/// pieces); returns its code and output.
pub fn inflate_back(input: &[u8], wbits: c_int, rnd: &mut Rnd) -> (c_int, Vec<u8>) {
    let mut z = new_stream();
    // Exactly the size zlib asks for: ASan sees any access past it.
    let mut window = vec![0u8; 1 << wbits];
    // SAFETY: a zeroed stream, a window of 1 << wbits bytes that outlives the stream, and
    // zlib's version string.
    let r = unsafe {
        inflateBackInit_(
            &mut *z,
            wbits,
            window.as_mut_ptr(),
            ZLIB_VERSION.as_ptr(),
            size(),
        )
    };
    assert_eq!(r, Z_OK, "inflateBackInit_({wbits})");
    let mut inp = BackIn {
        data: input,
        pos: 0,
        rnd: Rnd(rnd.next() | 1),
    };
    let mut out = BackOut { got: Vec::new() };
    // SAFETY: a live inflateBack stream; the callbacks get the states passed with them.
    let r = unsafe {
        inflateBack(
            &mut *z,
            Some(back_in),
            &mut inp as *mut BackIn as *mut c_void,
            Some(back_out),
            &mut out as *mut BackOut as *mut c_void,
        )
    };
    assert!(
        matches!(r, Z_STREAM_END | Z_BUF_ERROR | Z_DATA_ERROR),
        "inflateBack returned {r}"
    );
    if r == Z_STREAM_END {
        assert!(
            z.avail_in as usize <= inp.pos,
            "unused input beyond what was given"
        );
    }
    // SAFETY: a live inflateBack stream, ended once.
    assert_eq!(unsafe { inflateBackEnd(&mut *z) }, Z_OK, "inflateBackEnd");
    (r, out.got)
}
