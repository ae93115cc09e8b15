//! libdeflate, built from its bundled C source by the `libdeflate-sys` crate.
//!
//! libdeflate is whole-buffer by design, so its one-shot API is its natural use. A compressor is
//! allocated per level and kept (allocation is not part of the measured work for any peer that
//! can avoid it; zlib's API cannot, which is part of zlib's cost).

use super::Peer;
use libdeflate_sys as ld;
use std::collections::HashMap;

/// libdeflate with one cached compressor per level and one decompressor.
pub struct Libdeflate {
    compressors: HashMap<u32, *mut ld::libdeflate_compressor>,
    decompressor: *mut ld::libdeflate_decompressor,
}

impl Libdeflate {
    /// Allocates the decompressor; compressors are allocated on first use of each level.
    pub fn new() -> Libdeflate {
        // SAFETY: plain allocation; a null result is checked before use.
        let decompressor = unsafe { ld::libdeflate_alloc_decompressor() };
        Libdeflate {
            compressors: HashMap::new(),
            decompressor,
        }
    }
}

impl Default for Libdeflate {
    fn default() -> Self {
        Libdeflate::new()
    }
}

impl Drop for Libdeflate {
    fn drop(&mut self) {
        // SAFETY: each pointer came from the matching libdeflate_alloc_* and is freed once.
        unsafe {
            for (_, c) in self.compressors.drain() {
                ld::libdeflate_free_compressor(c);
            }
            if !self.decompressor.is_null() {
                ld::libdeflate_free_decompressor(self.decompressor);
            }
        }
    }
}

impl Peer for Libdeflate {
    fn name(&self) -> &'static str {
        "libdeflate"
    }
    fn version(&self) -> String {
        "libdeflate 1.26 (libdeflate-sys 1.26, bundled source)".to_string()
    }
    fn levels(&self) -> Vec<u32> {
        (1..=12).collect()
    }
    fn compress(&mut self, level: u32, input: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        let c = match self.compressors.get(&level) {
            Some(&c) => c,
            None => {
                // SAFETY: plain allocation; null (bad level or out of memory) is checked.
                let c = unsafe { ld::libdeflate_alloc_compressor(level as i32) };
                if c.is_null() {
                    return Err(format!("libdeflate_alloc_compressor({level}) failed"));
                }
                self.compressors.insert(level, c);
                c
            }
        };
        // SAFETY: `c` is a live compressor; the output pointer has `bound` bytes of capacity
        // and libdeflate writes at most that many, returning the count (0 = did not fit).
        unsafe {
            let bound = ld::libdeflate_deflate_compress_bound(c, input.len());
            out.clear();
            out.reserve(bound);
            let n = ld::libdeflate_deflate_compress(
                c,
                input.as_ptr().cast(),
                input.len(),
                out.as_mut_ptr().cast(),
                bound,
            );
            if n == 0 {
                return Err("libdeflate_deflate_compress: output did not fit its bound".into());
            }
            out.set_len(n);
        }
        Ok(())
    }
    fn decompress(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        expected_len: usize,
    ) -> Result<(), String> {
        if self.decompressor.is_null() {
            return Err("libdeflate_alloc_decompressor failed".into());
        }
        out.clear();
        out.reserve(expected_len);
        let mut actual = 0usize;
        // SAFETY: the decompressor is live; the output has `expected_len` bytes of capacity and
        // libdeflate writes at most that many, reporting the count in `actual`.
        unsafe {
            let rc = ld::libdeflate_deflate_decompress(
                self.decompressor,
                input.as_ptr().cast(),
                input.len(),
                out.as_mut_ptr().cast(),
                expected_len,
                &mut actual,
            );
            if rc != ld::libdeflate_result_LIBDEFLATE_SUCCESS {
                return Err(format!("libdeflate_deflate_decompress returned {rc}"));
            }
            out.set_len(actual);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn libdeflate_round_trips() {
        super::super::testutil::round_trip(&mut super::Libdeflate::new());
    }
}
