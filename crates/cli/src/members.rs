//! Independent members (`hyperz -i` output) decoded on the device's engines while the CLI reads
//! on: each member's `HZ` subfield gives its length, so it can be cut from the input and handed
//! to an engine whole; outputs are written in stream order, at most `in_flight` members out.
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

    /// The total and uncompressed lengths of the independent member at the start of `b`, if
    /// `b` starts one (`b` holds at least the header).
    pub fn member_at(b: &[u8]) -> Option<(usize, u32)> {
        hz_member(b)
            .filter(|s| s.member_len as usize <= MAX_MEMBER)
            .map(|s| (s.member_len as usize, s.raw_len))
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
