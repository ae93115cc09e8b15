//! Parallel compression of one stream (pigz's scheme, seed 000's multi-engine throughput).
//!
//! The input is cut into blocks of `block_size` bytes. In *dependent* mode each block is
//! compressed with the previous 32 KiB of input as dictionary and ends byte-aligned (the last
//! one with BFINAL); concatenated behind one header, the blocks form one standard raw, zlib or
//! gzip stream whose trailer check is combined from per-block checks computed on the engines.
//! In *independent* mode each block is a complete gzip member with the `HZ` size subfield
//! (see [`container`](crate::container)), decodable in parallel and seekable.
//!
//! Block boundaries depend only on the byte offsets, never on how the caller chunked its
//! writes or how many engines ran, so the output is identical for any engine count. With
//! [`rsyncable`](ParallelDeflater::rsyncable) they depend on the content too: a block ends
//! after the last position in it where a rolling hash of the preceding 12 bytes hits (about
//! one position in 4096), as pigz's `--rsyncable` cuts its blocks, so an insertion or deletion
//! changes the compressed stream only up to the next boundaries after it, and rsync finds the
//! rest unchanged. At most
//! `in_flight` blocks are outstanding; when the window is full the writer waits for the oldest,
//! which bounds memory to about `in_flight * (block_size + 32 KiB)` plus their outputs.
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::sync::Arc;

use hyperz_engine::Format;

use crate::codec::{PieceCompressor, Settings};
use crate::container;
use crate::device::Device;
use crate::handle::JobHandle;
use crate::job::{Job, WINDOW};
use crate::queue::Priority;

/// Byte counts of a finished stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// Bytes read from the input.
    pub bytes_in: u64,
    /// Bytes written to the output.
    pub bytes_out: u64,
    /// The stream's check value (Adler-32 or CRC-32 of all input; 0 for raw streams).
    pub check: u32,
}

struct Pending {
    handle: JobHandle,
    raw_len: usize,
    held: usize,
    /// The block's input, taken back for a later block once the job is done.
    data: Arc<Vec<u8>>,
}

/// Finished blocks' input buffers a stream keeps for reuse: fresh block-sized allocations would
/// be new pages, faulted in (and zeroed by the kernel) again for every block.
const SPARE_BUFFERS: usize = 2;

/// An incremental parallel compressor: push input with [`write`](Self::write), collect output
/// chunks in order, end with [`finish`](Self::finish).
pub struct ParallelDeflater<'d> {
    dev: &'d Device,
    format: Format,
    settings: Settings,
    independent: bool,
    block_size: usize,
    /// Blocks end at input-determined positions (`--rsyncable`).
    rsync: bool,
    in_flight: usize,
    /// Input not yet submitted; in dependent mode it starts with up to 32 KiB of dictionary.
    buf: Vec<u8>,
    dict_len: usize,
    pending: VecDeque<Pending>,
    spare: Vec<Vec<u8>>,
    header_done: bool,
    /// The header written instead of the default one (e.g. a caller's gzip header fields).
    header: Option<Vec<u8>>,
    check: u32,
    total_in: u64,
    total_out: u64,
    /// The codec's compressor for flushed pieces (see [`flush`](Self::flush)), made on the
    /// first one, and whether its history is the stream's up to `dict_len` (no block has been
    /// submitted and no full flush made since its last piece).
    pieces: Option<Box<dyn PieceCompressor>>,
    pieces_synced: bool,
}

impl<'d> ParallelDeflater<'d> {
    /// A compressor producing one `format` stream at `settings` (a level, or a level and
    /// strategy) on `dev`.
    pub fn new(dev: &'d Device, format: Format, settings: impl Into<Settings>) -> Self {
        Self::with_mode(dev, format, settings.into(), false)
    }

    /// A compressor producing an independent-block (multi-member gzip) stream.
    pub fn independent(dev: &'d Device, settings: impl Into<Settings>) -> Self {
        Self::with_mode(dev, Format::Gzip, settings.into(), true)
    }

    fn with_mode(dev: &'d Device, format: Format, settings: Settings, independent: bool) -> Self {
        let cfg = dev.config();
        // Independent members record sizes as u32; keep blocks well below that.
        let block_size = cfg.block_size.clamp(1, 1 << 30);
        ParallelDeflater {
            dev,
            format,
            settings,
            independent,
            block_size,
            rsync: false,
            in_flight: cfg.in_flight().max(1),
            buf: Vec::new(),
            dict_len: 0,
            pending: VecDeque::new(),
            spare: Vec::new(),
            header_done: false,
            header: None,
            check: container::check_init(format),
            total_in: 0,
            total_out: 0,
            pieces: None,
            pieces_synced: false,
        }
    }

    /// Ends blocks at input-determined positions (see the module comment), before any input.
    pub fn rsyncable(mut self, on: bool) -> Self {
        self.rsync = on;
        self
    }

    /// Writes `header` (complete header bytes for this stream's format, e.g. a zlib header with
    /// a dictionary id or a gzip header with a name) instead of the default header.
    pub fn set_header(&mut self, header: Vec<u8>) {
        self.header = Some(header);
    }

    /// Primes the stream with a preset dictionary (its last 32 KiB become the first block's
    /// history). Only before the first `write`.
    pub fn set_dictionary(&mut self, dict: &[u8]) {
        assert!(
            self.total_in == 0 && !self.independent,
            "dictionary after data"
        );
        let d = &dict[dict.len().saturating_sub(WINDOW)..];
        self.counters().buffer_sub(self.dict_len);
        self.buf.clear();
        self.buf.extend_from_slice(d);
        self.dict_len = d.len();
        self.counters().buffer_add(self.dict_len);
    }

    /// Compresses blocks submitted from now on at `settings` (call after
    /// [`flush`](Self::flush) to change them at a known point, as zlib's `deflateParams` does).
    pub fn set_settings(&mut self, settings: impl Into<Settings>) {
        self.settings = settings.into();
        self.pieces = None;
        self.pieces_synced = false;
    }

    /// Like [`flush`](Self::flush), and forgets the history so decoding can restart after this
    /// point (zlib's `Z_FULL_FLUSH`).
    pub fn full_flush(&mut self, out: &mut Vec<u8>) {
        self.flush(out);
        let dl = self.dict_len;
        self.buf.clear();
        self.dict_len = 0;
        self.pieces_synced = false;
        self.counters().buffer_sub(dl);
    }

    /// The check value (Adler-32 or CRC-32) of all input whose blocks have been emitted: after
    /// [`flush`](Self::flush), of everything written.
    pub fn check(&self) -> u32 {
        self.check
    }

    /// The last (up to 32 KiB) bytes written, dictionary included: the history the next block
    /// will see.
    pub fn history(&self) -> &[u8] {
        &self.buf[self.buf.len().saturating_sub(WINDOW)..]
    }

    /// Input bytes written so far.
    pub fn total_in(&self) -> u64 {
        self.total_in
    }

    /// Waits for every submitted block and appends its output, without ending the input that is
    /// still buffered (so the output bytes are unchanged).
    pub fn settle(&mut self, out: &mut Vec<u8>) {
        while !self.pending.is_empty() {
            self.emit_front(out);
        }
    }

    /// An independent copy of this stream (zlib's `deflateCopy`): both continue from the same
    /// point and produce the same bytes for the same further input. Call [`settle`](Self::settle)
    /// first; blocks still in flight cannot be copied.
    pub fn duplicate(&self) -> Option<Self> {
        if !self.pending.is_empty() {
            return None;
        }
        self.counters().buffer_add(self.buf.len());
        Some(ParallelDeflater {
            dev: self.dev,
            format: self.format,
            settings: self.settings,
            independent: self.independent,
            block_size: self.block_size,
            rsync: self.rsync,
            in_flight: self.in_flight,
            buf: self.buf.clone(),
            dict_len: self.dict_len,
            pending: VecDeque::new(),
            spare: Vec::new(),
            header_done: self.header_done,
            header: self.header.clone(),
            check: self.check,
            total_in: self.total_in,
            total_out: self.total_out,
            pieces: self.pieces.as_ref().map(|p| p.clone_box()),
            pieces_synced: self.pieces_synced,
        })
    }

    fn counters(&self) -> &crate::stats::Counters {
        &self.dev.shared.counters
    }

    /// Feeds `data`; compressed output that is ready (in order) is appended to `out`.
    pub fn write(&mut self, mut data: &[u8], out: &mut Vec<u8>) {
        self.total_in += data.len() as u64;
        while !data.is_empty() {
            // Fill the current block; a full block is submitted only once a further byte
            // exists, so the last block (BFINAL) is known without look-ahead by the caller.
            let room = (self.dict_len + self.block_size + 1).saturating_sub(self.buf.len());
            let take = room.min(data.len());
            if self.buf.capacity() - self.buf.len() < take {
                // Room for the whole block at once: it will move into its job as it is.
                self.buf.reserve_exact(room);
            }
            self.buf.extend_from_slice(&data[..take]);
            self.counters().buffer_add(take);
            data = &data[take..];
            while self.buf.len() > self.dict_len + self.block_size {
                self.submit_block(false, out);
            }
        }
        self.drain_ready(out);
    }

    /// Submits `buf[dict_len..end]` (the whole buffer when `last` or `flush`, else one block).
    fn submit_block(&mut self, last: bool, out: &mut Vec<u8>) {
        let full = self.dict_len + self.block_size;
        let end = if last {
            self.buf.len()
        } else if self.rsync {
            rsync_cut(&self.buf, self.dict_len, full).unwrap_or(full)
        } else {
            full
        };
        self.submit_until(end, last, out);
    }

    fn submit_until(&mut self, end: usize, last: bool, out: &mut Vec<u8>) {
        self.pieces_synced = false;
        while self.pending.len() >= self.in_flight {
            self.emit_front(out);
        }
        let raw_len = end - self.dict_len;
        // The block's bytes move into the job; only what the next block needs (its 32 KiB of
        // dictionary in dependent mode, and input past `end`) is copied into a new buffer.
        let keep_from = if self.independent {
            end
        } else {
            end.saturating_sub(WINDOW)
        };
        let mut next = self.spare.pop().unwrap_or_default();
        next.extend_from_slice(&self.buf[keep_from..]);
        let mut data = std::mem::replace(&mut self.buf, next);
        data.truncate(end);
        let data = Arc::new(data);
        let (job, held) = if self.independent {
            (Job::member(self.settings, data.clone()), raw_len)
        } else {
            (
                Job::block(
                    self.format,
                    self.settings,
                    data.clone(),
                    self.dict_len,
                    last,
                ),
                end,
            )
        };
        self.counters().buffer_add(held);
        let handle = self.dev.submit(job, Priority::Normal);
        self.pending.push_back(Pending {
            handle,
            raw_len,
            held,
            data,
        });
        self.dict_len = end - keep_from;
        self.counters().buffer_sub(keep_from);
    }

    fn write_header(&mut self, out: &mut Vec<u8>) {
        if !self.header_done {
            self.header_done = true;
            if !self.independent {
                let before = out.len();
                match self.header.take() {
                    Some(h) => out.extend_from_slice(&h),
                    None => container::write_header(self.format, self.settings.level, out),
                }
                self.total_out += (out.len() - before) as u64;
            }
        }
    }

    fn emit_front(&mut self, out: &mut Vec<u8>) {
        let p = self.pending.pop_front().expect("a pending block");
        let o = p
            .handle
            .wait()
            .unwrap_or_else(|e| panic!("compression job failed: {e}"));
        self.counters().buffer_sub(p.held);
        if let Ok(mut v) = Arc::try_unwrap(p.data) {
            if self.spare.len() < SPARE_BUFFERS {
                v.clear();
                self.spare.push(v);
            }
        }
        self.write_header(out);
        // A member's check is its CRC-32, a block's its piece's check: either way the
        // stream's check is their combination.
        self.check = container::check_combine(self.format, self.check, o.check, p.raw_len as u64);
        self.total_out += o.data.len() as u64;
        if out.is_empty() {
            // Nothing waiting: the block's output becomes the buffer, without a copy.
            *out = o.data;
        } else {
            out.extend_from_slice(&o.data);
        }
    }

    fn drain_ready(&mut self, out: &mut Vec<u8>) {
        while self.pending.front().is_some_and(|p| p.handle.poll()) {
            self.emit_front(out);
        }
    }

    /// Ends the buffered input as a (possibly short) byte-aligned block and waits for every
    /// block, so `out` holds output for all input written so far (zlib's `Z_SYNC_FLUSH`; in
    /// independent mode the buffered input becomes a complete member). Flush points become
    /// block boundaries, so they are part of what determines the output bytes.
    ///
    /// In dependent mode the buffered input goes to the codec's [`PieceCompressor`] when it has
    /// one (and output is not verified), on the caller's thread, rather than to a block job:
    /// the flush waits for it either way, and the piece compressor carries its match finder
    /// from one flushed piece to the next, where a job hashes its 32 KiB of history again. A
    /// stream that went parallel and then flushed after every 90-byte message took 67 us per
    /// message through the zlib drop-in; see `flushed_pieces_carry_over` for the bytes. Which
    /// path a piece takes depends only on the calls, so the output still does not depend on
    /// the engine count.
    pub fn flush(&mut self, out: &mut Vec<u8>) {
        let piece = !self.independent && !self.dev.shared.cfg.verify;
        if self.buf.len() > self.dict_len && !(piece && self.flush_piece(out)) {
            let end = self.buf.len();
            self.submit_until(end, false, out);
        }
        while !self.pending.is_empty() {
            self.emit_front(out);
        }
        self.write_header(out);
    }

    /// Compresses the buffered input with the piece compressor (see [`flush`](Self::flush));
    /// false if the codec has none.
    fn flush_piece(&mut self, out: &mut Vec<u8>) -> bool {
        if self.pieces.is_none() {
            self.pieces = self.dev.shared.codec.piece_compressor(self.settings);
            self.pieces_synced = false;
        }
        let Some(mut pc) = self.pieces.take() else {
            return false;
        };
        // The blocks before the piece come out first.
        self.settle(out);
        self.write_header(out);
        if !self.pieces_synced {
            pc.start(&self.buf[..self.dict_len]);
            self.pieces_synced = true;
        }
        let piece = &self.buf[self.dict_len..];
        let before = out.len();
        pc.piece(piece, out);
        let sh = &self.dev.shared;
        sh.counters.job(true, piece.len());
        sh.counters.io(piece.len(), out.len() - before);
        self.total_out += (out.len() - before) as u64;
        self.check = container::check_update(self.format, self.check, piece);
        // The piece's last 32 KiB are the next block's dictionary.
        let keep_from = self.buf.len().saturating_sub(WINDOW);
        self.buf.drain(..keep_from);
        self.counters().buffer_sub(keep_from);
        self.dict_len = self.buf.len();
        self.pieces = Some(pc);
        true
    }

    /// Flushes the last block and the trailer into `out`; returns the byte counts.
    pub fn finish(mut self, out: &mut Vec<u8>) -> StreamStats {
        let leftover = self.buf.len();
        if !self.independent || leftover > 0 || self.total_in == 0 {
            self.submit_block(true, out);
        }
        while !self.pending.is_empty() {
            self.emit_front(out);
        }
        self.write_header(out);
        if !self.independent {
            let before = out.len();
            container::write_trailer(self.format, self.check, self.total_in, out);
            self.total_out += (out.len() - before) as u64;
        }
        let dl = self.dict_len;
        self.counters().buffer_sub(dl);
        self.dict_len = 0;
        self.buf.clear();
        StreamStats {
            bytes_in: self.total_in,
            bytes_out: self.total_out,
            check: self.check,
        }
    }
}

/// Bits of the rolling hash behind `--rsyncable` (pigz's): a position is a hit about once in
/// 2^RSYNC_BITS.
const RSYNC_BITS: u32 = 12;

/// Where a block of `buf[from..to]` ends for `--rsyncable`: after the last position whose hash
/// hits, or None if none does. The hash takes each byte in with a shift, so after
/// `RSYNC_BITS` bytes a byte has left it; starting that far before `from` (or at the stream's
/// or member's start) gives every position the hash of the bytes just before it.
fn rsync_cut(buf: &[u8], from: usize, to: usize) -> Option<usize> {
    const MASK: u32 = (1 << RSYNC_BITS) - 1;
    // Not 0: runs of zeros would hit at every byte.
    const HIT: u32 = MASK >> 1;
    let start = from.saturating_sub(RSYNC_BITS as usize);
    let mut h = 0u32;
    let mut cut = None;
    for (p, &b) in buf[..to].iter().enumerate().skip(start) {
        h = ((h << 1) ^ b as u32) & MASK;
        if h == HIT && p >= from {
            cut = Some(p + 1);
        }
    }
    cut
}

impl Drop for ParallelDeflater<'_> {
    /// A stream abandoned mid-way (e.g. `deflateEnd` before `Z_FINISH`) returns what it holds to
    /// the buffered-bytes count; blocks still in flight finish on their engines and are dropped.
    fn drop(&mut self) {
        let held: usize = self.buf.len() + self.pending.iter().map(|p| p.held).sum::<usize>();
        self.counters().buffer_sub(held);
    }
}

impl Device {
    /// Compresses `input` into one `format` stream with all engines. The output is identical for
    /// any number of engines; inputs below one block run as a single job.
    pub fn compress(&self, format: Format, settings: impl Into<Settings>, input: &[u8]) -> Vec<u8> {
        let settings = settings.into();
        if input.len() <= self.config().block_size {
            return self
                .run(Job::compress(format, settings, input))
                .expect("compression cannot fail")
                .data;
        }
        let mut out = Vec::new();
        let mut z = ParallelDeflater::new(self, format, settings);
        z.write(input, &mut out);
        z.finish(&mut out);
        out
    }

    /// Compresses `input` into an independent-block gzip stream.
    pub fn compress_independent(&self, settings: impl Into<Settings>, input: &[u8]) -> Vec<u8> {
        let settings = settings.into();
        let sh = &self.shared;
        if input.len() < sh.cfg.inline_threshold && input.len() <= sh.cfg.block_size {
            // One member, inline: written straight from `input` into the result, without the
            // stream's block buffer, job and handle (they cost 1-4% of the call at 0.5-4 KiB).
            // A member that fails verification takes the general path, which redoes it.
            sh.counters.job(true, input.len());
            let mut out = Vec::new();
            crate::job::write_member(sh, settings, input, &mut out);
            if !sh.cfg.verify || crate::job::verify(sh, Format::Gzip, &out, input) {
                sh.counters.io(input.len(), out.len());
                return out;
            }
        }
        let mut out = Vec::with_capacity(input.len() / 2);
        let mut z = ParallelDeflater::independent(self, settings);
        z.write(input, &mut out);
        z.finish(&mut out);
        out
    }

    /// Compresses everything `r` yields into `w` as one `format` stream (or an independent-block
    /// gzip stream when `independent`), with bounded memory.
    pub fn compress_stream<R: Read, W: Write>(
        &self,
        mut r: R,
        mut w: W,
        format: Format,
        settings: impl Into<Settings>,
        independent: bool,
    ) -> io::Result<StreamStats> {
        let mut z = ParallelDeflater::with_mode(self, format, settings.into(), independent);
        let mut inbuf = vec![0u8; 64 << 10];
        let mut out = Vec::new();
        loop {
            let n = match r.read(&mut inbuf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            z.write(&inbuf[..n], &mut out);
            if !out.is_empty() {
                w.write_all(&out)?;
                out.clear();
            }
        }
        let st = z.finish(&mut out);
        w.write_all(&out)?;
        w.flush()?;
        Ok(st)
    }
}
