//! LSB-first bit writer for DEFLATE. Bits accumulate in a 64-bit register and leave it four
//! bytes at a time, so one `put` of up to 32 bits costs a shift, an or and (sometimes) a store.
//! Whole bytes go to `out`; fewer than 32 bits may stay in the register until `flush_bytes`.
//!
//! For a block's symbols, [`BitWriter::burst`] lends a [`Burst`]: the output grown once for
//! the whole block, and after each symbol the register stored as one unconditional 8-byte word
//! with the cursor advanced by the whole bytes in it (libdeflate's branch-free flush).
#![forbid(unsafe_code)]

/// Accumulates bits and appends completed bytes to `out`.
#[derive(Default, Debug, Clone)]
pub struct BitWriter {
    /// Completed output bytes.
    pub out: Vec<u8>,
    buf: u64,
    n: u32,
}

impl BitWriter {
    /// Appends the low `n` (<= 32) bits of `bits`.
    #[inline(always)]
    pub fn put(&mut self, bits: u32, n: u32) {
        debug_assert!(n <= 32 && (n == 32 || bits >> n == 0));
        self.buf |= (bits as u64) << self.n;
        self.n += n;
        if self.n >= 32 {
            self.out.extend_from_slice(&(self.buf as u32).to_le_bytes());
            self.buf >>= 32;
            self.n -= 32;
        }
    }

    /// Moves every complete byte from the register to `out`; fewer than 8 bits remain.
    pub fn flush_bytes(&mut self) {
        while self.n >= 8 {
            self.out.push(self.buf as u8);
            self.buf >>= 8;
            self.n -= 8;
        }
    }

    /// Pads with zero bits to a byte boundary and flushes.
    pub fn align(&mut self) {
        self.flush_bytes();
        if self.n > 0 {
            self.out.push(self.buf as u8);
            self.buf = 0;
            self.n = 0;
        }
    }

    /// Bits not yet in `out` (after `flush_bytes` this is < 8).
    pub fn bits_in_register(&self) -> u32 {
        self.n
    }

    /// Bit position modulo 8 of the next bit written.
    pub fn bit_phase(&self) -> u32 {
        self.n & 7
    }

    /// Clears everything, keeping the allocation.
    pub fn clear(&mut self) {
        self.out.clear();
        self.buf = 0;
        self.n = 0;
    }
}

impl BitWriter {
    /// Runs `f` with a [`Burst`] that may write up to `max_bytes` bytes, then settles `out` and
    /// the register. The burst writes into a plain slice, so its pointer and length stay in
    /// registers (a `Vec` behind `&mut self` is reloaded after every byte store).
    #[inline(always)]
    pub fn burst(&mut self, max_bytes: usize, f: impl FnOnce(&mut Burst<'_>)) {
        self.flush_bytes();
        let pos = self.out.len();
        self.out.resize(pos + max_bytes + 8, 0);
        let mut b = Burst {
            bytes: &mut self.out[..],
            pos,
            buf: self.buf,
            n: self.n,
        };
        f(&mut b);
        let (pos, buf, n) = (b.pos, b.buf, b.n);
        self.out.truncate(pos);
        self.buf = buf;
        self.n = n;
    }
}

/// Bit output with a branch-free flush; see [`BitWriter::burst`].
pub struct Burst<'a> {
    bytes: &'a mut [u8],
    pos: usize,
    buf: u64,
    n: u32,
}

impl Burst<'_> {
    /// Appends the low `n` bits of `bits`; at most 56 bits between two [`Burst::flush`] calls.
    #[inline(always)]
    pub fn add(&mut self, bits: u64, n: u32) {
        debug_assert!(self.n + n <= 63 && (bits >> n) == 0);
        self.buf |= bits << self.n;
        self.n += n;
    }

    /// Stores the register's whole bytes; fewer than 8 bits remain.
    #[inline(always)]
    pub fn flush(&mut self) {
        let word: &mut [u8; 8] = self.bytes[self.pos..].first_chunk_mut().unwrap();
        *word = self.buf.to_le_bytes();
        let k = self.n >> 3;
        self.pos += k as usize;
        self.buf >>= k << 3;
        self.n &= 7;
    }
}
