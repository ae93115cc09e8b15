//! The fuzz targets' pseudo-random schedules: a deterministic sequence seeded by the input.

/// A deterministic pseudo-random sequence (xorshift64) seeded by the fuzz input.
pub struct Rnd(pub u64);

// Each target uses some of these.
#[allow(dead_code)]
impl Rnd {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (at least 1).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// A piece size from 1 up to `max`, small ones as likely as large ones.
    pub fn piece(&mut self, max: usize) -> usize {
        let bits = self.next() % 17;
        1 + (self.next() as usize & ((1usize << bits) - 1)) % max.max(1)
    }

    /// A size from 0 up to `max`, small ones as likely as large ones.
    pub fn size(&mut self, max: usize) -> usize {
        let bits = self.below(18);
        (self.next() as usize & ((1usize << bits) - 1)) % (max + 1)
    }
}
