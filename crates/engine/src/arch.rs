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

/// Runs `f`, compiled for BMI2 (shifts and bit extracts that do not touch the flags) when the
/// CPU has it. `f` must be an `#[inline(always)]` closure over `#[inline(always)]` code for the
/// BMI2 copy to differ from the plain one; either way the result is the same.
#[inline(always)]
pub fn with_bmi2<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(test)]
    if BASELINE_ONLY.with(|b| b.get()) {
        return f();
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU supports BMI2, checked just above.
        return unsafe { call_bmi2(f) };
    }
    f()
}

/// Calls `f` inside a function compiled with BMI2 enabled, so `f`'s inlined body uses it.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
unsafe fn call_bmi2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

/// Proof that the CPU has AVX2, BMI1/2 and LZCNT. Only [`with_avx2`] makes one, so code that
/// holds one may call the AVX2 kernels (`lanes.rs`).
#[derive(Clone, Copy)]
pub struct Avx2(Private);

#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Private;

/// No value: other CPUs never get a proof.
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy)]
enum Private {}

impl Avx2 {
    /// A proof cannot exist off x86_64, so code holding one there is unreachable.
    #[cfg(not(target_arch = "x86_64"))]
    pub fn unreachable(self) -> ! {
        match self.0 {}
    }
}

/// Runs `f`, compiled for AVX2 (with BMI1/2 and LZCNT) and given an [`Avx2`] proof, when the
/// CPU has them; otherwise runs it plain, given `None`. As for [`with_bmi2`], `f` must be an
/// `#[inline(always)]` closure over `#[inline(always)]` code, and both copies must give the
/// same result.
#[inline(always)]
pub fn with_avx2<R>(f: impl FnOnce(Option<Avx2>) -> R) -> R {
    #[cfg(test)]
    if BASELINE_ONLY.with(|b| b.get()) {
        return f(None);
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("lzcnt")
    {
        // SAFETY: the CPU supports AVX2, BMI1/2 and LZCNT, checked just above.
        return unsafe {
            call_avx2(
                #[inline(always)]
                || f(Some(Avx2(Private))),
            )
        };
    }
    f(None)
}

/// Calls `f` inside a function compiled with AVX2, BMI1/2 and LZCNT enabled, so `f`'s inlined
/// body uses them (and may inline the AVX2 kernels).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt")]
unsafe fn call_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}

#[cfg(test)]
thread_local! {
    /// Set by tests on their own thread to run the baseline copy of [`with_bmi2`] and
    /// [`with_avx2`] code on a CPU that has BMI2 and AVX2, so both copies are tested.
    pub static BASELINE_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
