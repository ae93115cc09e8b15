//! Independent members (`hyperz -i` output, and BGZF blocks: BAM files, bgzip's .gz) decoded on
//! the device's engines while the CLI reads on: each member's `HZ` (or `BC`) subfield gives its
//! length, so it can be cut from the input and handed to an engine whole; outputs are written
//! in stream order, at most `in_flight` members out.
//!
//! Only success is parallel. A member whose job fails, or decodes to another size than its
//! subfield says, is handed back with every member after it, so the caller decodes them again
//! sequentially from that member on: the output before a damaged byte and the error reported
//! are then exactly the sequential decoder's.

use crate::codec::CodecError;
use hyperz_device::{hz_member, Device, Job, JobHandle, Priority};
use std::collections::VecDeque;
use std::io::Write;
use std::sync::Arc;

/// A member longer than this is decoded sequentially (the input buffer would have to hold it).
pub const MAX_MEMBER: usize = 64 << 20;

/// Largest BGZF block, and largest uncompressed block (SAM/BAM format specification, 4.1).
const BGZF_MAX: u32 = 1 << 16;

/// The length of the BGZF block at the start of `b` (genomics' blocked gzip: BAM, bgzip's
/// .gz), if it starts one: a gzip member whose extra field has the subfield `BC`, which holds
/// the block's length less one.
fn bgzf_len(b: &[u8]) -> Option<usize> {
    if b.len() < 12 || b[..3] != [0x1f, 0x8b, 8] || b[3] & 0x04 == 0 || b[3] & 0xe0 != 0 {
        return None;
    }
    let xlen = u16::from_le_bytes([b[10], b[11]]) as usize;
    let mut extra = b.get(12..12 + xlen)?;
    while extra.len() >= 4 {
        let slen = u16::from_le_bytes([extra[2], extra[3]]) as usize;
        let data = extra.get(4..4 + slen)?;
        if extra[..2] == *b"BC" && slen == 2 {
            let len = u16::from_le_bytes([data[0], data[1]]) as usize + 1;
            // Room for the header, an empty final block and the trailer.
            return (len >= 12 + xlen + 2 + 8).then_some(len);
        }
        extra = &extra[4 + slen..];
    }
    None
}

struct Pending {
    handle: JobHandle,
    bytes: Arc<[u8]>,
    raw_len: u32,
}

/// The members out on the engines.
pub struct Members<'d> {
    dev: &'d Device,
    pending: VecDeque<Pending>,
    in_flight: usize,
}

/// What to decode again sequentially after a member failed: its bytes and those of every
/// member submitted after it, and how many members that is.
pub struct Redo {
    pub bytes: Vec<u8>,
    pub members: u64,
}

impl<'d> Members<'d> {
    /// Parallel decoding on `dev`, if it has more than one engine.
    pub fn new(dev: &'d Device) -> Option<Members<'d>> {
        (dev.config().engines > 1).then(|| Members {
            dev,
            pending: VecDeque::new(),
            in_flight: dev.config().in_flight().max(2),
        })
    }

    /// The total length of the independent member at the start of `b`, if `b` starts one
    /// (`b` holds at least the header), with its uncompressed length when the header gives it
    /// (`HZ`); a BGZF block's is in its trailer ([`Members::bgzf_raw_len`]).
    pub fn member_at(b: &[u8]) -> Option<(usize, Option<u32>)> {
        match hz_member(b) {
            Some(s) => {
                Some((s.member_len as usize, Some(s.raw_len))).filter(|&(len, _)| len <= MAX_MEMBER)
            }
            None => bgzf_len(b).map(|len| (len, None)),
        }
    }

    /// The uncompressed length of the whole BGZF block `m`, from its trailer's ISIZE: at most
    /// 64 KiB, as the format allows (a larger claim is decoded sequentially).
    pub fn bgzf_raw_len(m: &[u8]) -> Option<u32> {
        let isize = u32::from_le_bytes(m.get(m.len().checked_sub(4)?..)?.try_into().ok()?);
        (isize <= BGZF_MAX).then_some(isize)
    }

    /// Hands `bytes` (one whole member) to an engine, first writing out the oldest members
    /// while as many as `in_flight` are out.
    pub fn submit(
        &mut self,
        bytes: &[u8],
        raw_len: u32,
        w: &mut dyn Write,
    ) -> Result<Option<Redo>, CodecError> {
        while self.pending.len() >= self.in_flight {
            if let Some(redo) = self.finish_front(w)? {
                return Ok(Some(redo));
            }
        }
        let bytes: Arc<[u8]> = Arc::from(bytes);
        let job = Job::decompress_member(bytes.clone(), raw_len as usize);
        self.pending.push_back(Pending {
            handle: self.dev.submit(job, Priority::Normal),
            bytes,
            raw_len,
        });
        Ok(None)
    }

    /// Writes out every member still out, in order.
    pub fn drain(&mut self, w: &mut dyn Write) -> Result<Option<Redo>, CodecError> {
        while !self.pending.is_empty() {
            if let Some(redo) = self.finish_front(w)? {
                return Ok(Some(redo));
            }
        }
        Ok(None)
    }

    /// Waits for the oldest member and writes its output, or gives it and all later members
    /// back if it failed.
    fn finish_front(&mut self, w: &mut dyn Write) -> Result<Option<Redo>, CodecError> {
        let p = self.pending.pop_front().expect("a member is out");
        match p.handle.wait() {
            Ok(o) if o.data.len() == p.raw_len as usize => {
                w.write_all(&o.data).map_err(CodecError::Write)?;
                Ok(None)
            }
            _ => {
                let mut bytes = p.bytes.to_vec();
                let members = 1 + self.pending.len() as u64;
                for q in self.pending.drain(..) {
                    // Their results are not used; waiting keeps the engines' queue in order.
                    let _ = q.handle.wait();
                    bytes.extend_from_slice(&q.bytes);
                }
                Ok(Some(Redo { bytes, members }))
            }
        }
    }
}
