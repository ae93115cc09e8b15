//! Position and status of a `gzFile` (zlib's gzlib.c): `gzseek` (forward by decompressing and
//! dropping, backward by rewinding and starting over, as zlib does; a transparent read moves
//! the file offset directly; a write fills the gap with zeros), `gztell`, `gzoffset`,
//! `gzrewind`, `gzeof`, `gzdirect`, `gzerror` and `gzclearerr`.
use core::ffi::{c_char, c_int};

use super::{read, state, How, Mode};
use crate::types::*;

/// `const char *gzerror(gzFile file, int *errnum)`
///
/// # Safety
/// `errnum` must be NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn gzerror(file: *mut gzFile_s, errnum: *mut c_int) -> *const c_char {
    guard(core::ptr::null(), || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        let Some(s) = (unsafe { state(file) }) else {
            return core::ptr::null();
        };
        if !errnum.is_null() {
            // SAFETY: errnum is non-NULL, and writable per the caller's contract.
            unsafe { *errnum = s.err };
        }
        if s.err == Z_MEM_ERROR {
            return c"out of memory".as_ptr();
        }
        s.msg.as_ptr().cast()
    })
}

/// `void gzclearerr(gzFile file)`
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[export_name = "hz_gzclearerr"]
pub unsafe extern "C" fn gzclearerr(file: *mut gzFile_s) {
    guard((), || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        if let Some(s) = unsafe { state(file) } {
            if s.mode == Mode::Read {
                s.eof = false;
                s.past = false;
            }
            s.error(Z_OK, "");
        }
    })
}

/// `int gzeof(gzFile file)`: true once a read went past the end of the data.
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[no_mangle]
pub unsafe extern "C" fn gzeof(file: *mut gzFile_s) -> c_int {
    guard(0, || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        match unsafe { state(file) } {
            Some(s) if s.mode == Mode::Read => s.past as c_int,
            _ => 0,
        }
    })
}

/// `int gzdirect(gzFile file)`: 1 when reading a file that is not gzip (copied unchanged) or
/// writing transparently.
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[export_name = "hz_gzdirect"]
pub unsafe extern "C" fn gzdirect(file: *mut gzFile_s) -> c_int {
    guard(0, || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        let Some(s) = (unsafe { state(file) }) else {
            return 0;
        };
        if s.mode == Mode::Read && s.how == How::Look && s.x.have == 0 {
            let _ = read::look(s);
            // A plain file's first bytes are now buffered: a pending seek passes over them
            // here, as gzseek itself would have. zlib leaves them in front of the seek, and
            // `gzgetc()` (which does not look for a pending seek while bytes are buffered) then
            // returns the file's first bytes instead of those at the position sought.
            if s.seek {
                s.skip -= read::use_buffered(s, s.skip);
                s.seek = s.skip > 0;
            }
        }
        s.direct as c_int
    })
}

/// `z_off_t gzseek(gzFile file, z_off_t offset, int whence)`: reading seeks forward by
/// decompressing and backward by rewinding; writing seeks only forward, writing zeros.
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[no_mangle]
pub unsafe extern "C" fn gzseek(file: *mut gzFile_s, offset: z_off_t, whence: c_int) -> z_off_t {
    guard(-1, || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        let Some(s) = (unsafe { state(file) }) else {
            return -1;
        };
        if s.err != Z_OK && s.err != Z_BUF_ERROR {
            return -1;
        }
        if whence != libc::SEEK_SET && whence != libc::SEEK_CUR {
            return -1;
        }
        let mut offset = offset;
        if whence == libc::SEEK_SET {
            offset -= s.x.pos;
        } else if s.seek {
            offset += s.skip;
        }
        s.seek = false;
        if s.mode == Mode::Read && s.how == How::Copy && s.x.pos + offset >= 0 {
            // Transparent reading: move the file position directly.
            let buffered = (s.inbuf.len() - s.in_pos) as i64;
            // SAFETY: lseek on our descriptor.
            let r =
                unsafe { libc::lseek(s.fd, offset - buffered - s.x.have as i64, libc::SEEK_CUR) };
            if r < 0 {
                return -1;
            }
            s.x.have = 0;
            s.eof = false;
            s.past = false;
            s.inbuf.clear();
            s.in_pos = 0;
            s.skip = 0;
            s.error(Z_OK, "");
            s.x.pos += offset;
            return s.x.pos;
        }
        if offset < 0 {
            if s.mode != Mode::Read {
                return -1;
            }
            offset += s.x.pos;
            if offset < 0 {
                return -1;
            }
            if read::rewind(s).is_err() {
                return -1;
            }
        }
        if s.mode == Mode::Read {
            // Use what is already buffered first.
            offset -= read::use_buffered(s, offset);
        }
        if offset > 0 {
            s.seek = true;
            s.skip = offset;
        }
        s.x.pos + offset
    })
}

/// `z_off64_t gzseek64(gzFile file, z_off64_t offset, int whence)`
///
/// # Safety
/// As [`gzseek`].
#[export_name = "hz_gzseek64"]
pub unsafe extern "C" fn gzseek64(file: *mut gzFile_s, offset: z_off_t, whence: c_int) -> z_off_t {
    // SAFETY: forwarded.
    unsafe { gzseek(file, offset, whence) }
}

/// `int gzrewind(gzFile file)`
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[no_mangle]
pub unsafe extern "C" fn gzrewind(file: *mut gzFile_s) -> c_int {
    guard(-1, || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        let Some(s) = (unsafe { state(file) }) else {
            return -1;
        };
        let ok = s.mode == Mode::Read && (s.err == Z_OK || s.err == Z_BUF_ERROR);
        if ok && read::rewind(s).is_ok() {
            0
        } else {
            -1
        }
    })
}

/// `z_off_t gztell(gzFile file)`: the uncompressed position (pending seeks included).
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[no_mangle]
pub unsafe extern "C" fn gztell(file: *mut gzFile_s) -> z_off_t {
    guard(-1, || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        match unsafe { state(file) } {
            Some(s) => s.x.pos + if s.seek { s.skip } else { 0 },
            None => -1,
        }
    })
}

/// `z_off64_t gztell64(gzFile file)`
///
/// # Safety
/// As [`gztell`].
#[export_name = "hz_gztell64"]
pub unsafe extern "C" fn gztell64(file: *mut gzFile_s) -> z_off_t {
    // SAFETY: forwarded.
    unsafe { gztell(file) }
}

/// `z_off_t gzoffset(gzFile file)`: the position in the compressed file.
///
/// # Safety
/// `file` must be NULL or an open gzFile.
#[export_name = "hz_gzoffset"]
pub unsafe extern "C" fn gzoffset(file: *mut gzFile_s) -> z_off_t {
    guard(-1, || {
        // SAFETY: zlib's contract: NULL or a live handle from gzopen/gzdopen (checked by magic).
        let Some(s) = (unsafe { state(file) }) else {
            return -1;
        };
        // SAFETY: lseek on our descriptor.
        let off = unsafe { libc::lseek(s.fd, 0, libc::SEEK_CUR) };
        if off < 0 {
            return -1;
        }
        if s.mode == Mode::Read {
            off - (s.inbuf.len() - s.in_pos) as i64
        } else {
            off
        }
    })
}

/// `z_off64_t gzoffset64(gzFile file)`
///
/// # Safety
/// As [`gzoffset`].
#[export_name = "hz_gzoffset64"]
pub unsafe extern "C" fn gzoffset64(file: *mut gzFile_s) -> z_off_t {
    // SAFETY: forwarded.
    unsafe { gzoffset(file) }
}
