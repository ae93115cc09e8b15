//! Small CPU hints wrapped as safe functions, so algorithm modules (which forbid `unsafe`)
//! can use them.

/// Hints the CPU to bring the cache line holding `table[i]` into L1 before it is read (the
/// hash-chain walk is bound by the latency of such loads). Out-of-range `i` does nothing.
#[inline(always)]
pub fn prefetch<T>(table: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = table.get(i) {
        // SAFETY: `_mm_prefetch` only hints the cache; it never faults and reads nothing, and
        // SSE (which provides it) is part of the x86_64 baseline. The pointer is to a live
        // element anyway.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                (x as *const T).cast::<i8>(),
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (table, i);
}
