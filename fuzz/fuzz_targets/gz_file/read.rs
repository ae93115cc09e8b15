//! The read half of the `gz_file` target: a file read back against a model of its contents.

use core::ffi::{c_int, c_uint};
use std::ffi::CString;

use hyperz_zlib::gz::*;
use hyperz_zlib::types::gzFile_s;

use crate::{errnum, open, tell, Rnd, Z_DATA_ERROR, Z_OK};

/// What the read side expects: the file's contents, the position `gztell` must give, and the
/// bytes pushed back with `gzungetc` (the last one is read first).
///
/// A seek forward is carried out by the next read, which stops at the end of the data; a seek
/// back starts over from the file. A file that is not gzip is read transparently (`copy`), and
/// once the reader has seen that, a seek moves the file offset at once, as zlib does: the
/// position may then stay past the end. Until it has looked (after opening or rewinding), a
/// seek is pending as in a gzip file.
struct Model<'a> {
    content: &'a [u8],
    copy: bool,
    pos: i64,
    pushed: Vec<u8>,
    /// The reader has looked at the data (a transparent file: seeks are direct).
    looked: bool,
    /// A seek is pending that will stop at the end of the data.
    pending: bool,
}

impl Model<'_> {
    fn len(&self) -> i64 {
        self.content.len() as i64
    }

    /// The next `n` bytes a read returns (fewer at the end), consumed.
    fn take(&mut self, n: usize) -> Vec<u8> {
        if n == 0 {
            // zlib returns before it carries out a pending seek.
            return Vec::new();
        }
        self.skip();
        self.looked = true;
        let mut v = Vec::with_capacity(n);
        while v.len() < n {
            if let Some(c) = self.pushed.pop() {
                v.push(c);
            } else if self.pos >= self.len() {
                break;
            } else {
                let k = (n - v.len()).min((self.len() - self.pos) as usize);
                let at = self.pos as usize;
                v.extend_from_slice(&self.content[at..at + k]);
                self.pos += k as i64;
                continue;
            }
            self.pos += 1;
        }
        v
    }

    /// Carries out a pending seek.
    fn skip(&mut self) {
        if self.pending {
            self.pending = false;
            self.looked = true;
            self.pos = self.pos.min(self.len());
        }
    }

    /// A line as `gzgets` with room for `room - 1` bytes returns it (None at the end).
    fn line(&mut self, room: usize) -> Option<Vec<u8>> {
        self.skip();
        let mut v = Vec::new();
        while v.len() + 1 < room {
            match self.take(1).first() {
                Some(&c) => {
                    v.push(c);
                    if c == b'\n' {
                        break;
                    }
                }
                None => break,
            }
        }
        (!v.is_empty()).then_some(v)
    }

    /// A seek to `to` (not negative): forward ones skip pushed-back bytes first, backward ones
    /// start over from the file (unless direct).
    fn seek(&mut self, to: i64) {
        if self.copy && self.looked {
            self.pushed.clear();
            self.pending = false;
        } else if to >= self.pos {
            let k = ((to - self.pos) as usize).min(self.pushed.len());
            self.pushed.truncate(self.pushed.len() - k);
            // What is left of the seek after the pushed bytes, pending; a gzip file's
            // buffered data is skipped at once, but that stops at the end all the same.
            self.pending |= to - self.pos > k as i64;
        } else {
            self.rewind();
            self.pending = to > 0;
        }
        self.pos = to;
    }

    fn rewind(&mut self) {
        self.pushed.clear();
        self.pos = 0;
        self.looked = false;
        self.pending = false;
    }
}

/// Reads the file back with a data-chosen schedule, every result checked against `content`.
pub fn read(p: &CString, content: &[u8], transparent: bool, rnd: &mut Rnd) {
    if transparent && content.starts_with(&[0x1f, 0x8b]) {
        // Written plain, but it starts like gzip: reading would take it for gzip.
        return;
    }
    // An empty file is never found to be plain (zlib looks for the magic and finds nothing),
    // though `gzdirect` says it is (as for any file before a look found the magic).
    let copy = transparent && !content.is_empty();
    trace!("read {} bytes (transparent: {transparent})", content.len());
    let f = open(p, "rb", rnd);
    let mut m = Model {
        content,
        copy,
        pos: 0,
        pushed: Vec::new(),
        looked: false,
        pending: false,
    };
    let ops = 1 + rnd.below(60);
    for i in 0..ops {
        let op = rnd.below(14);
        match op {
            0 | 1 => {
                let n = rnd.size(content.len() + 100);
                let mut buf = vec![0u8; n];
                // SAFETY: a live handle and a buffer of `n` bytes.
                let r = unsafe { gzread(f, buf.as_mut_ptr().cast(), n as c_uint) };
                trace!("gzread {n} -> {r}");
                let want = m.take(n);
                assert_eq!(r, want.len() as c_int, "gzread {n} (op {i})");
                assert!(buf[..want.len()] == want[..], "gzread bytes (op {i})");
            }
            2 => {
                let size = 1 + rnd.below(5) as usize;
                let items = rnd.size(content.len() / size + 10);
                let mut buf = vec![0u8; size * items];
                // SAFETY: a live handle and room for `items` items of `size` bytes.
                let r = unsafe { gzfread(buf.as_mut_ptr().cast(), size, items, f) };
                trace!("gzfread {size} {items} -> {r}");
                let want = m.take(size * items);
                assert_eq!(r, want.len() / size, "gzfread {size} x {items} (op {i})");
                assert!(buf[..want.len()] == want[..], "gzfread bytes (op {i})");
            }
            3 | 4 => {
                let c = if op == 3 {
                    // SAFETY: a live handle.
                    unsafe { gzgetc(f) }
                } else {
                    getc_macro(f)
                };
                trace!("gzgetc{} -> {c}", if op == 3 { "" } else { " (macro)" });
                let want = m.take(1).first().map_or(-1, |&b| b as c_int);
                assert_eq!(c, want, "gzgetc (op {i})");
            }
            5 if !copy => {
                let c = rnd.below(256) as c_int;
                // SAFETY: a live handle.
                let r = unsafe { gzungetc(c, f) };
                trace!("gzungetc {c} -> {r}");
                if r == -1 {
                    // Out of room for more: an error, and the end of this read.
                    assert_eq!(errnum(f), Z_DATA_ERROR, "gzungetc's error (op {i})");
                    break;
                }
                assert_eq!(r, c, "gzungetc (op {i})");
                m.skip();
                m.pos -= 1;
                m.pushed.push(c as u8);
            }
            6 => {
                let room = 1 + rnd.size(300);
                let mut buf = vec![0xA5u8; room];
                // SAFETY: a live handle and a buffer of `room` bytes.
                let r = unsafe { gzgets(f, buf.as_mut_ptr().cast(), room as c_int) };
                trace!("gzgets {room} -> {}", !r.is_null());
                match m.line(room) {
                    None => assert!(r.is_null(), "gzgets at the end (op {i})"),
                    Some(line) => {
                        assert_eq!(r, buf.as_mut_ptr().cast(), "gzgets (op {i})");
                        assert!(
                            buf[..line.len()] == line[..] && buf[line.len()] == 0,
                            "gzgets line (op {i})"
                        );
                    }
                }
            }
            7 | 8 => {
                let len = m.len() + 100;
                let (off, whence, to) = if op == 7 {
                    let to = rnd.below(len as u64 + 1) as i64;
                    (to, libc::SEEK_SET, to)
                } else {
                    let d = rnd.below(2 * len as u64 + 1) as i64 - len;
                    (d, libc::SEEK_CUR, m.pos + d)
                };
                // SAFETY: a live handle.
                let r = unsafe { gzseek(f, off, whence) };
                trace!("gzseek {off} {whence} -> {r}");
                // zlib refuses a seek back to before the start; one forward stays forward, even
                // to a position below 0 (bytes pushed back at the start are there).
                if to < 0 && to < m.pos {
                    assert_eq!(r, -1, "gzseek before the start (op {i})");
                    // zlib drops a seek still pending (a skip not yet read through) before it
                    // fails: the position is then where reading last was.
                    let at = tell(f);
                    assert!(at <= m.pos, "a failed gzseek moved ahead (op {i})");
                    if at != m.pos {
                        assert!(m.pushed.is_empty(), "pushed bytes with a pending seek");
                        m.pos = at;
                    }
                    m.pending = false;
                } else {
                    assert_eq!(r, to, "gzseek {off} {whence} (op {i})");
                    m.seek(to);
                }
            }
            9 => {
                // SAFETY: a live handle.
                trace!("gzrewind");
                assert_eq!(unsafe { gzrewind(f) }, 0, "gzrewind (op {i})");
                m.rewind();
            }
            10 => {
                trace!("gzeof");
                // SAFETY: a live handle.
                if unsafe { gzeof(f) } != 0 {
                    assert!(m.pos >= m.len(), "gzeof before the end (op {i})");
                }
            }
            11 => {
                // SAFETY: a live handle.
                let d = unsafe { gzdirect(f) };
                trace!("gzdirect -> {d}");
                assert_eq!(d != 0, transparent, "gzdirect (op {i})");
                m.looked = true;
            }
            12 => {
                // SAFETY: a live handle.
                unsafe { gzclearerr(f) };
                trace!("gzclearerr");
            }
            _ => {
                // SAFETY: a live handle.
                let o = unsafe { gzoffset(f) };
                trace!("gzoffset -> {o}");
                assert!(o >= 0, "gzoffset {o} (op {i})");
            }
        }
        trace!("  tell {} model {}", tell(f), m.pos);
        assert_eq!(errnum(f), Z_OK, "error reading a good file (op {i})");
        assert_eq!(tell(f), m.pos, "gztell (op {i})");
    }
    // SAFETY: a live handle, closed once.
    let r = unsafe { gzclose(f) };
    assert_eq!(r, Z_OK, "gzclose after reading");
}

/// `zlib.h`'s `gzgetc()` macro: the byte at `next` when `have` is not zero, else the function.
pub fn getc_macro(f: *mut gzFile_s) -> c_int {
    // SAFETY: `f` is a live handle, whose public fields the library keeps consistent: `next`
    // points at `have` readable bytes.
    unsafe {
        let x = &mut *f;
        if x.have != 0 {
            x.have -= 1;
            x.pos += 1;
            let c = *x.next;
            x.next = x.next.add(1);
            c as c_int
        } else {
            gzgetc(f)
        }
    }
}
