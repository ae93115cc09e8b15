//! Per-thread pools of engine compressors and decompressors, so programs that open a stream
//! per small message (`zlib.compress` on 1 KiB, HTTP bodies) do not pay for allocating and
//! zeroing hash tables and windows on every call. A stream's engine object goes back to its
//! thread's pool at `deflateEnd`/`inflateEnd` and is reset before reuse, so reuse never
//! changes output.
#![forbid(unsafe_code)]

use std::cell::RefCell;

use hyperz_engine::deflate::{Deflater, Params};
use hyperz_engine::inflate::Inflater;
use hyperz_engine::Format;

/// Objects kept per thread and kind: enough for a compress and a decompress stream in flight
/// at once per format, without holding many megabytes per idle thread.
const KEEP: usize = 4;

thread_local! {
    static DEFLATERS: RefCell<Vec<(Format, Params, Box<Deflater>)>> = const { RefCell::new(Vec::new()) };
    // Boxed in the pool too: a stream holds its decompressor as a Box, and the pool keeps
    // that allocation for the next stream instead of freeing it and allocating another.
    #[allow(clippy::vec_box)]
    static INFLATERS: RefCell<Vec<Box<Inflater>>> = const { RefCell::new(Vec::new()) };
}

/// A reset compressor for `format` and `params` from this thread's pool, if one is there.
pub fn take_deflater(format: Format, params: Params) -> Option<Box<Deflater>> {
    DEFLATERS
        .try_with(|p| {
            let mut p = p.borrow_mut();
            let i = p
                .iter()
                .position(|(f, q, _)| *f == format && *q == params)?;
            Some(p.swap_remove(i).2)
        })
        .ok()
        .flatten()
}

/// Returns a compressor to this thread's pool (reset first, and without the gzip header its
/// stream was given: the next stream to take it may have none, and must not write another
/// stream's name, comment or time).
pub fn give_deflater(format: Format, params: Params, mut d: Box<Deflater>) {
    d.reset();
    d.clear_gzip_header();
    let _ = DEFLATERS.try_with(|p| {
        let mut p = p.borrow_mut();
        if p.len() >= KEEP {
            p.remove(0);
        }
        p.push((format, params, d));
    });
}

/// A decompressor configured for `format` and `window_bits`, reused from the pool if possible.
pub fn take_inflater(format: Format, window_bits: u8) -> Box<Inflater> {
    let reused = INFLATERS.try_with(|p| p.borrow_mut().pop()).ok().flatten();
    match reused {
        Some(mut i) => {
            i.reconfigure(format, window_bits);
            i
        }
        None => Box::new(Inflater::new(format, window_bits)),
    }
}

/// Returns a decompressor to this thread's pool.
pub fn give_inflater(i: Box<Inflater>) {
    let _ = INFLATERS.try_with(|p| {
        let mut p = p.borrow_mut();
        if p.len() < KEEP {
            p.push(i);
        }
    });
}
