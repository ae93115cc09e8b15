//! Parallel decompression of independent-block gzip streams, in order, with bounded memory.
//!
//! Each member's `HZ` subfield gives its total size, so members are split from the headers
//! alone and decoded in parallel; the recorded uncompressed size is checked against the decoded
//! one. In memory ([`Device::decompress`]) the whole output is allocated once and every member
//! is decoded into its own slice of it by the caller and helper threads scoped to the call (see
//! `decompress_indexed`). From a reader ([`Device::decompress_stream`]) members go to the
//! engines, at most `in_flight` outstanding, and output is written in stream order.
//! At the first member without the subfield (an ordinary gzip stream, or a foreign member
//! appended) decoding falls back to sequential, member by member, on the caller's thread.
//! The same index gives random access: [`Device::decompress_range`] decodes only the members
//! covering the requested bytes.
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use hyperz_engine::Format;

use crate::codec::{DecodeError, DecodeErrorKind};
use crate::container::{self, GZIP_TRAILER_LEN, HZ_HEADER_LEN};
use crate::device::{Device, InjectedFault, Shared};
use crate::handle::JobHandle;
use crate::job::{decode_all, Job, JobError};
use crate::parallel::StreamStats;
use crate::queue::Priority;
use crate::sequential;

/// One member of an independent-block stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemberEntry {
    /// Offset of the member in the compressed stream.
    pub offset: u64,
    /// Total member length (header to trailer).
    pub member_len: u32,
    /// Offset of its first byte in the uncompressed data.
    pub raw_offset: u64,
    /// Its uncompressed length.
    pub raw_len: u32,
}

/// The `HZ` sizes of the member at the start of `input`, if it is a well-formed independent
/// member header.
pub fn hz_member(input: &[u8]) -> Option<container::MemberSizes> {
    match container::parse_header(Format::Gzip, input) {
        Ok((HZ_HEADER_LEN, Some(s)))
            if s.member_len as usize > HZ_HEADER_LEN + GZIP_TRAILER_LEN =>
        {
            Some(s)
        }
        _ => None,
    }
}

/// Indexes an independent-block stream from its headers alone. Fails at the first member
/// without an `HZ` subfield or one that runs past the end.
pub fn member_index(input: &[u8]) -> Result<Vec<MemberEntry>, DecodeError> {
    let (mut pos, mut raw) = (0usize, 0u64);
    let mut index = Vec::new();
    while pos < input.len() {
        let s = hz_member(&input[pos..])
            .ok_or(DecodeError::at(DecodeErrorKind::BadHeader, pos as u64))?;
        if pos + s.member_len as usize > input.len() {
            return Err(DecodeError::at(
                DecodeErrorKind::Truncated,
                input.len() as u64,
            ));
        }
        index.push(MemberEntry {
            offset: pos as u64,
            member_len: s.member_len,
            raw_offset: raw,
            raw_len: s.raw_len,
        });
        pos += s.member_len as usize;
        raw += s.raw_len as u64;
    }
    Ok(index)
}

/// Output room a decoder is allowed past a member's recorded size. hyperz-engine decodes in its
/// fast loop only while 290 bytes of output space remain (a maximal match plus its copy
/// overshoot) and sizes its buffer by the limit, so with the exact size as limit the last
/// 290 bytes of every member went through the slow loop: 7% of a 4 KiB member. The recorded
/// size is still enforced exactly, after decoding.
const MEMBER_ROOM: usize = 320;

/// Spare capacity when members are decoded onto the end of one buffer, so the room the
/// decoder takes past the last member does not reallocate the whole output.
const DECODE_SLACK: usize = MEMBER_ROOM + 64;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Decodes member `m` of `input`, appending exactly its recorded size to `out`. Like a member
/// job, the bytes after a first gzip member inside `member_len` are decoded as further members
/// (and then the size cannot match). Errors carry offsets in the whole stream: more output than
/// recorded is [`DecodeErrorKind::OutputLimit`], less is [`DecodeErrorKind::BadMemberSize`].
fn decode_member(
    sh: &Shared,
    input: &[u8],
    m: &MemberEntry,
    out: &mut Vec<u8>,
) -> Result<(), DecodeError> {
    let bytes = &input[m.offset as usize..(m.offset + m.member_len as u64) as usize];
    let (start, raw_len) = (out.len(), m.raw_len as usize);
    let mut pos = 0;
    while pos < bytes.len() {
        pos += sh
            .codec
            .decompress_member(Format::Gzip, &bytes[pos..], out, raw_len + MEMBER_ROOM)
            .map_err(|e| e.shifted(m.offset + pos as u64))?;
        if out.len() - start > raw_len {
            return Err(DecodeError::at(
                DecodeErrorKind::OutputLimit,
                m.offset + pos as u64,
            ));
        }
    }
    if out.len() - start != raw_len {
        return Err(DecodeError::at(DecodeErrorKind::BadMemberSize, m.offset));
    }
    Ok(())
}

/// Decodes member `m` straight into `slice` (its recorded size); true if the codec could and
/// the member filled it exactly as one gzip member. Anything else (including an error) is left
/// to [`decode_member`], which reports it precisely.
fn decode_into(sh: &Shared, input: &[u8], m: &MemberEntry, slice: &mut [u8]) -> bool {
    let bytes = &input[m.offset as usize..(m.offset + m.member_len as u64) as usize];
    matches!(
        sh.codec.decompress_member_into(Format::Gzip, bytes, slice),
        Some(Ok((consumed, written))) if consumed == bytes.len() && written == slice.len()
    )
}

/// Keeps the error of the earliest member (`i` is its index).
fn keep_first(slot: &mut Option<(usize, DecodeError)>, i: usize, e: DecodeError) {
    match slot {
        Some((f, _)) if *f < i => {}
        _ => *slot = Some((i, e)),
    }
}

/// Each member's slice of the output, published by the caller once the output exists, so that
/// helper threads can start decoding (into their scratch buffers) before it does.
struct Slices<'a> {
    slots: Mutex<Option<Vec<Option<&'a mut [u8]>>>>,
    ready: Condvar,
}

impl<'a> Slices<'a> {
    fn new() -> Self {
        Slices {
            slots: Mutex::new(None),
            ready: Condvar::new(),
        }
    }

    /// Splits `out` at the members' recorded sizes and wakes the threads waiting in `take`.
    fn publish(&self, mut out: &'a mut [u8], index: &[MemberEntry]) {
        let mut slots = Vec::with_capacity(index.len());
        for m in index {
            let (slice, rest) = out.split_at_mut(m.raw_len as usize);
            slots.push(Some(slice));
            out = rest;
        }
        *lock(&self.slots) = Some(slots);
        self.ready.notify_all();
    }

    /// Member `i`'s slice (each is taken once), or `None` before `publish`.
    fn try_take(&self, i: usize) -> Option<&'a mut [u8]> {
        let mut slots = lock(&self.slots);
        let slot = slots.as_mut()?[i].take();
        Some(slot.expect("each member is taken once"))
    }

    /// Member `i`'s slice (each is taken once), waiting for `publish` if needed.
    fn take(&self, i: usize) -> &'a mut [u8] {
        let mut slots = lock(&self.slots);
        loop {
            if let Some(v) = slots.as_mut() {
                return v[i].take().expect("each member is taken once");
            }
            slots = self.ready.wait(slots).unwrap_or_else(|e| e.into_inner());
        }
    }
}

struct Pending {
    handle: JobHandle,
    offset: u64,
    raw_len: u32,
}

/// Waits for the oldest member and checks its recorded size.
fn finish_member(p: Pending) -> Result<Vec<u8>, DecodeError> {
    match p.handle.wait() {
        Ok(o) if o.data.len() == p.raw_len as usize => Ok(o.data),
        Ok(_) => Err(DecodeError::at(DecodeErrorKind::BadMemberSize, p.offset)),
        Err(JobError::Decode(e)) => Err(e.shifted(p.offset)),
        Err(JobError::VerifyFailed) => {
            Err(DecodeError::at(DecodeErrorKind::EngineFailed, p.offset))
        }
    }
}

impl Device {
    /// Decompresses a whole `format` stream. Independent-block gzip members are decoded on all
    /// engines; anything else sequentially.
    pub fn decompress(&self, format: Format, input: &[u8]) -> Result<Vec<u8>, DecodeError> {
        if format == Format::Gzip {
            if let Ok(index) = member_index(input) {
                if !index.is_empty() {
                    return self.decompress_indexed(input, &index);
                }
            }
        }
        if format != Format::Gzip || hz_member(input).is_none() {
            // Not one independent member first: the whole stream on this thread, in one piece.
            return decode_all(&self.shared, format, input, usize::MAX).map_err(|e| match e {
                JobError::Decode(d) => d,
                JobError::VerifyFailed => DecodeError::at(DecodeErrorKind::EngineFailed, 0),
            });
        }
        let mut out = Vec::new();
        self.decompress_stream(format, input, &mut out)
            .map_err(|e| match e.into_inner() {
                Some(b) => *b.downcast::<DecodeError>().expect("decode errors only"),
                None => unreachable!("in-memory I/O does not fail"),
            })?;
        Ok(out)
    }

    /// Decompresses `r` into `w` in bounded memory. Independent-block gzip members go to the
    /// engines, at most `in_flight` at a time, and each is written once it is decoded and the
    /// members before it are out: while the reader waits, members still on the engines wait
    /// too, until the next member has been read or the input ends. From the first member
    /// without the subfield (an ordinary gzip stream, or a zlib or raw one) the rest is
    /// decoded sequentially in 256 KiB pieces, its output written as it comes. Decode errors
    /// come back as `InvalidData` wrapping a [`DecodeError`] with the absolute byte offset;
    /// the output before the error has been written.
    pub fn decompress_stream<R: Read, W: Write>(
        &self,
        format: Format,
        mut r: R,
        mut w: W,
    ) -> io::Result<StreamStats> {
        let bad = |e: DecodeError| io::Error::new(io::ErrorKind::InvalidData, e);
        let mut buf: Vec<u8> = Vec::new();
        let mut base = 0u64; // stream offset of buf[0]
        let mut eof = false;
        let mut st = StreamStats::default();
        let mut fill = |buf: &mut Vec<u8>, want: usize, eof: &mut bool| -> io::Result<()> {
            let mut chunk = [0u8; 64 << 10];
            while !*eof && buf.len() < want {
                match r.read(&mut chunk) {
                    Ok(0) => *eof = true,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        };
        let mut pending: VecDeque<Pending> = VecDeque::new();
        let in_flight = self.config().in_flight().max(1);
        let emit = |p: Pending, w: &mut W, st: &mut StreamStats| -> io::Result<()> {
            let data = finish_member(p).map_err(bad)?;
            st.bytes_out += data.len() as u64;
            w.write_all(&data)
        };
        if format == Format::Gzip {
            loop {
                fill(&mut buf, HZ_HEADER_LEN, &mut eof)?;
                if buf.is_empty() && base > 0 {
                    break;
                }
                let Some(s) = hz_member(&buf) else { break };
                fill(&mut buf, s.member_len as usize, &mut eof)?;
                if buf.len() < s.member_len as usize {
                    return Err(bad(DecodeError::at(
                        DecodeErrorKind::Truncated,
                        base + buf.len() as u64,
                    )));
                }
                while pending.len() >= in_flight {
                    emit(pending.pop_front().expect("pending"), &mut w, &mut st)?;
                }
                let member: Arc<[u8]> = Arc::from(&buf[..s.member_len as usize]);
                let handle = self.submit(
                    Job::decompress_member(member, s.raw_len as usize),
                    Priority::Normal,
                );
                pending.push_back(Pending {
                    handle,
                    offset: base,
                    raw_len: s.raw_len,
                });
                buf.drain(..s.member_len as usize);
                base += s.member_len as u64;
                while pending.front().is_some_and(|p| p.handle.poll()) {
                    emit(pending.pop_front().expect("pending"), &mut w, &mut st)?;
                }
            }
        }
        while let Some(p) = pending.pop_front() {
            emit(p, &mut w, &mut st)?;
        }
        if !(eof && buf.is_empty() && base > 0) {
            // Sequential fallback for the rest of the stream, in bounded memory.
            let d = sequential::decode_rest(format, &buf, eof, base, &mut r, &mut w)?;
            st.bytes_out += d.bytes_out;
            base += d.bytes_in;
        }
        st.bytes_in = base;
        w.flush()?;
        Ok(st)
    }

    /// Decodes a fully indexed independent-block stream into one buffer of the recorded size.
    ///
    /// With one engine, a single member or less input than the inline threshold, the caller
    /// decodes the members in order straight onto the end of the output. Otherwise the output
    /// is allocated whole (zeroed pages from the allocator, faulted in by whichever thread
    /// writes them) and split into one slice per member; the caller and `engines - 1` helper
    /// threads, scoped to this call so they may borrow the slices, take members in stream order
    /// and decode each straight into its slice (a member taken before the output exists goes
    /// through a scratch buffer and is copied). No thread copies or faults in the output for
    /// all, and the caller works instead of waiting. A member whose decoder panics (or that the
    /// [`FaultPlan`](crate::FaultPlan) fails; the caller counts as engine 0 and helper k as
    /// engine k) is counted as a fault and redone on the caller's thread afterwards, where a
    /// panic that repeats reaches the caller.
    fn decompress_indexed(
        &self,
        input: &[u8],
        index: &[MemberEntry],
    ) -> Result<Vec<u8>, DecodeError> {
        let sh = &*self.shared;
        // The recorded sizes are untrusted: beyond DEFLATE's ~1032:1 limit some member lies,
        // and decoding in order finds the first one without allocating the claimed total.
        let total: u64 = index.iter().map(|m| m.raw_len as u64).sum();
        let plausible = total <= input.len() as u64 * 1032;
        let workers = sh.cfg.engines.min(index.len());
        if workers <= 1 || input.len() < sh.cfg.inline_threshold || !plausible {
            let cap = total.min(input.len() as u64 * 1032) as usize;
            let mut out = Vec::with_capacity(cap.saturating_add(DECODE_SLACK));
            hyperz_engine::mem::advise_huge_spare(&mut out);
            for m in index {
                sh.counters.job(true, m.member_len as usize);
                decode_member(sh, input, m, &mut out)?;
                sh.counters.io(m.member_len as usize, m.raw_len as usize);
            }
            return Ok(out);
        }
        let mut out = Vec::new();
        let slices = Slices::new();
        let next = AtomicUsize::new(0);
        let first_error: Mutex<Option<(usize, DecodeError)>> = Mutex::new(None);
        let failed = AtomicBool::new(false);
        let redo = Mutex::new(Vec::new());
        // The caller is engine 0 of this call and helper k is engine k; each counts its
        // members for the fault plan.
        let worker = |engine: usize| {
            let mut count = 0u64;
            let mut scratch = Vec::new();
            // Members decoded before the output exists (helpers only, while the caller
            // allocates it): kept and copied once it does, rather than waiting.
            let mut early: Vec<(usize, Vec<u8>)> = Vec::new();
            while !failed.load(Relaxed) {
                // Members are taken in stream order, so when one fails every earlier member has
                // been taken and finishes: the error kept is the first in the stream.
                let i = next.fetch_add(1, Relaxed);
                let Some(m) = index.get(i) else { break };
                sh.counters.job(true, m.member_len as usize);
                // Once the output exists a member is decoded straight into its slice; before
                // that, or if the direct call declines or fails (the scratch decode then gives
                // the precise error), into the scratch buffer.
                let mut slice = slices.try_take(i);
                count += 1;
                let fault = sh.cfg.fault_plan.is_some_and(|f| f.hits(engine, count));
                let r = catch_unwind(AssertUnwindSafe(|| {
                    if fault {
                        resume_unwind(Box::new(InjectedFault));
                    }
                    if let Some(s) = slice.as_deref_mut() {
                        if decode_into(sh, input, m, s) {
                            return Ok(true);
                        }
                    }
                    scratch.clear();
                    decode_member(sh, input, m, &mut scratch).map(|()| false)
                }));
                match r {
                    Ok(Ok(direct)) => {
                        if !direct {
                            match slice.or_else(|| slices.try_take(i)) {
                                Some(slice) => slice.copy_from_slice(&scratch),
                                None => early.push((i, std::mem::take(&mut scratch))),
                            }
                        }
                        sh.counters.io(m.member_len as usize, m.raw_len as usize);
                    }
                    Ok(Err(e)) => {
                        keep_first(&mut lock(&first_error), i, e);
                        failed.store(true, Relaxed);
                    }
                    Err(_) => {
                        sh.counters.faults.fetch_add(1, Relaxed);
                        scratch = Vec::new();
                        lock(&redo).push(i);
                    }
                }
            }
            for (i, data) in early {
                slices.take(i).copy_from_slice(&data);
            }
        };
        let out_ref = &mut out;
        std::thread::scope(|s| {
            let worker = &worker;
            for k in 1..workers {
                let helper = std::thread::Builder::new().name(format!("hyperz-inflate-{k}"));
                if helper.spawn_scoped(s, move || worker(k)).is_err() {
                    break; // out of threads: fewer helpers, the caller takes the rest
                }
            }
            // The helpers decode while the output is allocated: zeroing it is a memset of the
            // whole buffer when the allocator reuses memory (1-2 ms for 16 MiB). Fresh memory is
            // backed by huge pages: 64 MiB of 4 KiB page faults cost 25-44 ms here.
            let out: &mut Vec<u8> = out_ref;
            *out = vec![0u8; total as usize];
            hyperz_engine::mem::advise_huge(out);
            slices.publish(out, index);
            worker(0);
        });
        drop(slices);
        let mut first_error = first_error.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut redo = redo.into_inner().unwrap_or_else(|e| e.into_inner());
        redo.sort_unstable();
        let mut scratch = Vec::new();
        for i in redo {
            let m = &index[i];
            if first_error.as_ref().is_some_and(|(f, _)| *f < i) {
                break;
            }
            sh.counters.retries.fetch_add(1, Relaxed);
            scratch.clear();
            match decode_member(sh, input, m, &mut scratch) {
                Ok(()) => {
                    let at = m.raw_offset as usize;
                    out[at..at + scratch.len()].copy_from_slice(&scratch);
                    sh.counters.io(m.member_len as usize, m.raw_len as usize);
                }
                Err(e) => keep_first(&mut first_error, i, e),
            }
        }
        match first_error {
            Some((_, e)) => Err(e),
            None => Ok(out),
        }
    }

    /// Decodes `len` uncompressed bytes starting at `offset` of an independent-block stream,
    /// touching only the members that cover them. Like `pread`, a range that runs past the end
    /// of the data gives the bytes up to the end (none when `offset` is at or past it); the
    /// caller compares the length it gets with the one it asked for.
    pub fn decompress_range(
        &self,
        input: &[u8],
        offset: u64,
        len: usize,
    ) -> Result<Vec<u8>, DecodeError> {
        let index = member_index(input)?;
        let total = index.last().map_or(0, |m| m.raw_offset + m.raw_len as u64);
        let end = offset.saturating_add(len as u64).min(total);
        let mut handles = Vec::new();
        for m in index
            .iter()
            .filter(|m| m.raw_offset < end && m.raw_offset + m.raw_len as u64 > offset)
        {
            let bytes: Arc<[u8]> =
                Arc::from(&input[m.offset as usize..(m.offset + m.member_len as u64) as usize]);
            let handle = self.submit(
                Job::decompress_member(bytes, m.raw_len as usize),
                Priority::High,
            );
            handles.push((
                m,
                Pending {
                    handle,
                    offset: m.offset,
                    raw_len: m.raw_len,
                },
            ));
        }
        let mut out = Vec::with_capacity(end.saturating_sub(offset) as usize);
        for (m, p) in handles {
            let data = finish_member(p)?;
            let from = offset.saturating_sub(m.raw_offset) as usize;
            let to = ((end - m.raw_offset) as usize).min(data.len());
            out.extend_from_slice(&data[from..to]);
        }
        Ok(out)
    }
}
