//! Reading ahead and writing behind on helper threads, so that decompression's read and write
//! system calls (each a copy of all the data inside the kernel) run beside the decoding instead
//! of between its steps, as pigz's read and write threads do. Used when the run may use more
//! than one thread (`-p`, all cores by default).
//!
//! Both keep a few fixed buffers that go round between the two threads, so memory stays
//! bounded (`DEPTH` chunks of `CHUNK` bytes each way) and no buffer is allocated per chunk.
//! Errors keep their place: a read error reaches the reader where the data stops, and a write
//! error is returned by the next write or by [`WriteBehind::finish`], which a caller must call
//! before it counts the output as written.
#![forbid(unsafe_code)]

use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Bytes per buffer.
const CHUNK: usize = 256 << 10;
/// Buffers in flight each way.
const DEPTH: usize = 4;

/// A reader whose source is read on a helper thread, up to `DEPTH` chunks ahead.
pub struct ReadAhead {
    /// Filled chunks (empty at the end of the input) or the error that stopped the reading.
    full: Receiver<io::Result<Vec<u8>>>,
    /// Emptied chunks, back to the helper.
    free: SyncSender<Vec<u8>>,
    cur: Vec<u8>,
    pos: usize,
    done: bool,
    /// Chunks the helper has read (or is handing over) that the reader has not taken.
    queued: Arc<AtomicUsize>,
}

impl ReadAhead {
    /// Starts reading `src` on a helper thread. The thread ends at the end of the input, at an
    /// error, or when this reader is dropped and its read in progress returns.
    pub fn new(mut src: impl Read + Send + 'static) -> ReadAhead {
        let (full_tx, full) = sync_channel(DEPTH);
        let (free, free_rx) = sync_channel::<Vec<u8>>(DEPTH + 1);
        for _ in 0..DEPTH {
            free.send(Vec::new()).expect("the receiver is here");
        }
        let queued = Arc::new(AtomicUsize::new(0));
        let counted = queued.clone();
        std::thread::spawn(move || {
            while let Ok(mut buf) = free_rx.recv() {
                buf.resize(CHUNK, 0);
                let r = loop {
                    match src.read(&mut buf) {
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        r => break r,
                    }
                };
                let last = !matches!(r, Ok(n) if n > 0);
                let msg = r.map(|n| {
                    buf.truncate(n);
                    buf
                });
                counted.fetch_add(1, Ordering::Release);
                if full_tx.send(msg).is_err() || last {
                    return;
                }
            }
        });
        ReadAhead {
            full,
            free,
            cur: Vec::new(),
            pos: 0,
            done: false,
            queued,
        }
    }

    /// Whether a read would return at once, for a caller that has work to finish before it
    /// waits for input: data is held (in a chunk it has not yet taken) or the input ended.
    /// A chunk partly read counts as none (a wrong "no" costs only the caller's early work).
    pub fn ready(&self) -> impl Fn() -> bool + Send + Sync + 'static {
        let queued = self.queued.clone();
        move || queued.load(Ordering::Acquire) > 0
    }
}

impl Read for ReadAhead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.cur.len() {
            if self.done || out.is_empty() {
                return Ok(0);
            }
            let spent = std::mem::take(&mut self.cur);
            if spent.capacity() > 0 {
                // The helper may have stopped already; then the buffer just goes.
                let _ = self.free.try_send(spent);
            }
            self.pos = 0;
            let msg = self.full.recv();
            if msg.is_ok() {
                self.queued.fetch_sub(1, Ordering::AcqRel);
            }
            match msg {
                Ok(Ok(buf)) if !buf.is_empty() => self.cur = buf,
                Ok(Ok(_)) => self.done = true,
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => {
                    self.done = true;
                    return Err(io::Error::other("the reading thread stopped"));
                }
            }
        }
        let n = out.len().min(self.cur.len() - self.pos);
        out[..n].copy_from_slice(&self.cur[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// A writer whose destination is written on a helper thread, up to `DEPTH` chunks behind.
pub struct WriteBehind<W: Write + Send + 'static> {
    full: Option<SyncSender<Vec<u8>>>,
    free: Receiver<Vec<u8>>,
    cur: Vec<u8>,
    thread: Option<JoinHandle<(W, io::Result<()>)>>,
}

impl<W: Write + Send + 'static> WriteBehind<W> {
    /// Starts a helper thread that writes to `dst`.
    pub fn new(mut dst: W) -> WriteBehind<W> {
        let (full, full_rx) = sync_channel::<Vec<u8>>(DEPTH);
        let (free_tx, free) = sync_channel(DEPTH + 2);
        let thread = std::thread::spawn(move || {
            for mut buf in full_rx {
                // At the first error the thread stops, so the next write learns of it. Each
                // buffer goes out whole: standard output holds back what follows its last
                // newline until a flush, and the caller may be waiting on a reader of it.
                if let Err(e) = dst.write_all(&buf).and_then(|()| dst.flush()) {
                    return (dst, Err(e));
                }
                buf.clear();
                let _ = free_tx.try_send(buf);
            }
            let r = dst.flush();
            (dst, r)
        });
        WriteBehind {
            full: Some(full),
            free,
            cur: Vec::new(),
            thread: Some(thread),
        }
    }

    /// Hands the buffered bytes to the helper; on failure, the helper's error.
    fn send(&mut self) -> io::Result<()> {
        let next = self
            .free
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(CHUNK));
        let buf = std::mem::replace(&mut self.cur, next);
        let sent = self.full.as_ref().map(|tx| tx.send(buf));
        if matches!(sent, Some(Ok(()))) {
            return Ok(());
        }
        Err(self
            .stop()
            .err()
            .unwrap_or_else(|| io::Error::other("the writing thread stopped")))
    }

    /// Ends the helper and returns its error, if any (and its destination otherwise).
    fn stop(&mut self) -> io::Result<W> {
        self.full = None;
        match self.thread.take().map(|t| t.join()) {
            Some(Ok((dst, Ok(())))) => Ok(dst),
            Some(Ok((_, Err(e)))) => Err(e),
            Some(Err(_)) => Err(io::Error::other("the writing thread panicked")),
            None => Err(io::Error::other("the writing thread stopped")),
        }
    }

    /// Writes what is buffered, waits for every write and the destination's flush, and
    /// returns the destination, or the first error.
    pub fn finish(mut self) -> io::Result<W> {
        if !self.cur.is_empty() {
            self.send()?;
        }
        self.stop()
    }
}

impl<W: Write + Send + 'static> Write for WriteBehind<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.cur.capacity() == 0 {
            self.cur.reserve(CHUNK);
        }
        let n = data.len().min(CHUNK - self.cur.len());
        self.cur.extend_from_slice(&data[..n]);
        if self.cur.len() == CHUNK {
            self.send()?;
        }
        Ok(n)
    }

    /// Hands over what is buffered (the helper writes it in order); [`WriteBehind::finish`]
    /// is what waits for the destination.
    fn flush(&mut self) -> io::Result<()> {
        if self.cur.is_empty() {
            return Ok(());
        }
        self.send()
    }
}

impl<W: Write + Send + 'static> Drop for WriteBehind<W> {
    /// Without [`WriteBehind::finish`] (an error elsewhere, say damaged input), everything
    /// written so far still goes out, as it would have without the helper: data decoded before
    /// the damage is kept. The write's own result no longer matters.
    fn drop(&mut self) {
        if !self.cur.is_empty() {
            let _ = self.send();
        }
        self.full = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Tells whether a read of a source would return at once ([`ReadAhead::ready`]).
pub type Ready = Box<dyn Fn() -> bool>;

/// The probe of a source read where it is used: there is no telling, a read may always wait.
pub fn never_ready() -> bool {
    false
}

/// A source read ahead on a helper thread when `threaded`, else read where it is used, with
/// what tells whether a read would return at once ([`ReadAhead::ready`], or [`never_ready`]).
pub fn reader(src: impl Read + Send + 'static, threaded: bool) -> (Box<dyn Read>, Ready) {
    if threaded {
        let r = ReadAhead::new(src);
        let ready = Box::new(r.ready());
        (Box::new(r), ready)
    } else {
        (Box::new(src), Box::new(never_ready))
    }
}

/// An output written behind on a helper thread, or through a buffer on the caller's thread.
pub enum Output<W: Write + Send + 'static> {
    /// Written by the caller, `buf` bytes at a time.
    Direct(io::BufWriter<W>),
    /// Written by a helper thread.
    Behind(WriteBehind<W>),
}

impl<W: Write + Send + 'static> Output<W> {
    /// `dst` written behind when `threaded`, else through a buffer of `buf` bytes.
    pub fn new(dst: W, threaded: bool, buf: usize) -> Self {
        if threaded {
            Output::Behind(WriteBehind::new(dst))
        } else {
            Output::Direct(io::BufWriter::with_capacity(buf, dst))
        }
    }

    /// Writes everything out and returns the destination, or the first write error.
    pub fn finish(self) -> io::Result<W> {
        match self {
            Output::Direct(b) => b.into_inner().map_err(|e| e.into_error()),
            Output::Behind(w) => w.finish(),
        }
    }
}

impl<W: Write + Send + 'static> Write for Output<W> {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        match self {
            Output::Direct(b) => b.write(data),
            Output::Behind(w) => w.write(data),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Direct(b) => b.flush(),
            Output::Behind(w) => w.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gives its data in pieces of varying size, then an error if asked.
    struct Pieces {
        data: Vec<u8>,
        pos: usize,
        fail: bool,
    }

    impl Read for Pieces {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.pos == self.data.len() && self.fail {
                return Err(io::Error::other("disk gone"));
            }
            let n = out
                .len()
                .min(self.data.len() - self.pos)
                .min(1 + self.pos % 70_001);
            out[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    fn data() -> Vec<u8> {
        (0..3_000_000u32)
            .map(|i| (i * 7 + i / 1000) as u8)
            .collect()
    }

    #[test]
    fn reads_everything_in_order_then_the_error() {
        for fail in [false, true] {
            let d = data();
            let mut r = ReadAhead::new(Pieces {
                data: d.clone(),
                pos: 0,
                fail,
            });
            let mut got = Vec::new();
            let mut buf = vec![0u8; 100_003];
            let err = loop {
                match r.read(&mut buf) {
                    Ok(0) => break None,
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                    Err(e) => break Some(e),
                }
            };
            assert!(got == d);
            assert_eq!(
                err.map(|e| e.to_string()),
                fail.then(|| "disk gone".to_string())
            );
            assert_eq!(r.read(&mut buf).unwrap(), 0, "nothing after the end");
        }
    }

    /// Accepts `room` bytes, then fails.
    struct Limited {
        got: Vec<u8>,
        room: usize,
    }

    impl Write for Limited {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            if self.got.len() + b.len() > self.room {
                return Err(io::Error::other("no space"));
            }
            self.got.extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn writes_everything_in_order_or_reports_the_error() {
        let d = data();
        let mut w = WriteBehind::new(Limited {
            got: Vec::new(),
            room: usize::MAX,
        });
        for piece in d.chunks(77_777) {
            w.write_all(piece).unwrap();
        }
        assert!(w.finish().unwrap().got == d);

        // The error comes back from a later write or from finish, never silently.
        let mut w = WriteBehind::new(Limited {
            got: Vec::new(),
            room: 1_000_000,
        });
        let r = d.chunks(77_777).try_for_each(|p| w.write_all(p));
        let e = match r {
            Err(e) => e,
            Ok(()) => w.finish().map(|_| ()).unwrap_err(),
        };
        assert_eq!(e.to_string(), "no space");
    }
}
