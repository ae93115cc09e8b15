//! Memory hints wrapped as safe functions: large output buffers asked to be backed by
//! transparent huge pages, and zeroed match-finder tables on pages the system provides on first
//! touch ([`ZeroTable`]).
//!
//! A fresh 64 MiB output buffer costs 16384 page faults with 4 KiB pages. On this project's
//! machines (Linux with transparent huge pages in `madvise` mode) first-touching 64 MiB took
//! 25-44 ms with 4 KiB pages and 3.7 ms with 2 MiB pages, against about 160 ms to decode it, and
//! the 4 KiB faults did not get faster with two threads faulting. The hint changes neither the
//! contents nor the validity of memory, only how the kernel backs it; where it is unsupported
//! (another OS, THP disabled) it does nothing.
//!
//! On a virtual machine huge pages are not always the faster: some come slowly, with no
//! compaction stall counted in /proc/vmstat (likely guest memory the host has yet to back).
//! First-touching a fresh 66 MiB mapping (2026-11-29, the 2-core Zen 5 VM, one process at a
//! time): 4 KiB pages 23.9-25.7 ms in twelve runs; 2 MiB pages 3.1-3.5 ms, but 57.3 and 9.2
//! ms in the first two. So the whole-buffer decoder's output still grows as it did (doubling,
//! each new part advised; the moves keep few huge pages, 4-10 MB of a 66 MB output). Reserved
//! instead at its likely size in one step and advised (four times the input, or a gzip
//! ISIZE), 66 MB of gzip -6 output decoded in 56-63 ms in 23 of 31 runs against 77-82 ms, but
//! in 107-165 ms in the other eight; reserved so without the advice, in 79-81 ms.

use core::ops::{Deref, DerefMut};
use core::ptr::NonNull;

/// Huge page size the hint is rounded to (x86-64 and aarch64 with 4 KiB base pages).
const HUGE: usize = 2 << 20;
/// Regions smaller than this are not worth a system call.
const MIN_REGION: usize = 2 * HUGE;

/// Asks for huge pages under the whole 2 MiB-aligned part of `buf`. Meant for freshly
/// allocated, untouched memory (such as `vec![0; n]`, which the allocator maps lazily).
pub fn advise_huge(buf: &mut [u8]) {
    advise(buf.as_mut_ptr() as usize, buf.len());
}

/// Asks for huge pages under the whole 2 MiB-aligned part of `v`'s spare capacity, where the
/// next writes will land.
pub fn advise_huge_spare(v: &mut Vec<u8>) {
    let spare = v.spare_capacity_mut();
    advise(spare.as_mut_ptr() as usize, spare.len());
}

fn advise(addr: usize, len: usize) {
    if len < MIN_REGION {
        return;
    }
    let start = (addr + HUGE - 1) & !(HUGE - 1);
    let end = (addr + len) & !(HUGE - 1);
    if end <= start {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn madvise(addr: *mut core::ffi::c_void, len: usize, advice: core::ffi::c_int) -> i32;
        }
        /// `MADV_HUGEPAGE` from <sys/mman.h> (the same on every Linux architecture).
        const MADV_HUGEPAGE: core::ffi::c_int = 14;
        // SAFETY: [start, end) lies inside memory the caller owns (rounded inward from a live
        // slice or spare capacity), and MADV_HUGEPAGE only changes how the kernel backs those
        // pages: their contents and mapping stay valid. Failure (EINVAL where THP is not
        // built in) is harmless and ignored.
        unsafe {
            madvise(start as *mut _, end - start, MADV_HUGEPAGE);
        }
    }
}

/// Tables of at least this many bytes are mapped by [`ZeroTable`]; smaller ones come from the
/// allocator.
const MIN_MAPPED: usize = 64 * 1024;

/// A zeroed `[u32; N]` on the heap whose untouched pages take no memory.
///
/// The match finder's tables have compile-time sizes (their indices are masked, so the walks
/// need no bounds checks) fit for the largest window and memory level, while a stream with a
/// small window or memory level uses only their first part. From the allocator, that does not
/// help: once glibc has freed a mapped block its threshold for mapping rises, tables come from
/// the heap and `calloc` writes all of their pages, so 300 zlib streams with a 4 KiB window
/// each held 235 KB (zlib: 41). Mapped directly, a table takes memory for the pages the
/// stream touches, as zlib's tables sized by its parameters do. Elsewhere than Linux, or if
/// the mapping fails, the table comes from the allocator.
///
/// 2 MiB pages do not help the tables, though they would spare the searches' random reads
/// the TLB misses of 4 KiB pages: each table mapped 2 MiB-aligned and advised `MADV_HUGEPAGE`
/// (backed by huge pages, as `/proc/PID/smaps_rollup` showed), levels 1 / 6 / 10 took 1.002x /
/// 1.004x / 1.005x their time (per-file corpus, best of 5 per file, one binary alternating
/// with and without the advice, four rounds; Zen 5). A huge page would also hold 2 MiB for
/// a stream that touches a few of a table's pages.
pub struct ZeroTable<const N: usize> {
    ptr: NonNull<[u32; N]>,
    mapped: bool,
}

// SAFETY: a ZeroTable owns its memory as a Box does; it holds no shared or thread-bound state.
unsafe impl<const N: usize> Send for ZeroTable<N> {}
// SAFETY: shared references give only `&[u32; N]` (see Send).
unsafe impl<const N: usize> Sync for ZeroTable<N> {}

impl<const N: usize> ZeroTable<N> {
    const BYTES: usize = N * 4;

    /// A table of zeros.
    pub fn new() -> Self {
        #[cfg(target_os = "linux")]
        if Self::BYTES >= MIN_MAPPED {
            if let Some(ptr) = linux::map(Self::BYTES) {
                return ZeroTable {
                    ptr: ptr.cast(),
                    mapped: true,
                };
            }
        }
        let b: Box<[u32; N]> = vec![0u32; N]
            .into_boxed_slice()
            .try_into()
            .expect("length N");
        ZeroTable {
            ptr: NonNull::from(Box::leak(b)),
            mapped: false,
        }
    }
}

impl<const N: usize> Default for ZeroTable<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Deref for ZeroTable<N> {
    type Target = [u32; N];
    fn deref(&self) -> &[u32; N] {
        // SAFETY: `ptr` points to N initialised u32s (zeroed by the mapping or the allocator)
        // that this table owns for its lifetime; `&self` keeps them from being mutated.
        unsafe { self.ptr.as_ref() }
    }
}

impl<const N: usize> DerefMut for ZeroTable<N> {
    fn deref_mut(&mut self) -> &mut [u32; N] {
        // SAFETY: as in `deref`, and `&mut self` makes this the only reference.
        unsafe { self.ptr.as_mut() }
    }
}

impl<const N: usize> Clone for ZeroTable<N> {
    /// A copy that writes only the 4 KiB stretches holding a non-zero entry (reading the
    /// source's untouched pages maps nothing), so it takes no more memory than its source.
    fn clone(&self) -> Self {
        let mut t = Self::new();
        for (d, s) in t.chunks_mut(1024).zip(self.chunks(1024)) {
            if s.iter().any(|&x| x != 0) {
                d.copy_from_slice(s);
            }
        }
        t
    }
}

impl<const N: usize> Drop for ZeroTable<N> {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if self.mapped {
            linux::unmap(self.ptr.cast(), Self::BYTES);
            return;
        }
        debug_assert!(!self.mapped);
        // SAFETY: not mapped, so `ptr` came from `Box::leak` in `new` and is freed once, here.
        drop(unsafe { Box::from_raw(self.ptr.as_ptr()) });
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use core::ffi::{c_int, c_long, c_void};
    use core::ptr::NonNull;

    extern "C" {
        fn mmap(
            addr: *mut c_void,
            len: usize,
            prot: c_int,
            flags: c_int,
            fd: c_int,
            off: c_long,
        ) -> *mut c_void;
        fn munmap(addr: *mut c_void, len: usize) -> c_int;
    }
    /// From <sys/mman.h>, the same on every Linux architecture but MIPS, PA-RISC, Alpha and
    /// SPARC, which have another MAP_ANONYMOUS (None: not known here, no mapping).
    const PROT_READ_WRITE: c_int = 0x1 | 0x2;
    const MAP_PRIVATE: c_int = 0x02;
    const MAP_ANONYMOUS: Option<c_int> = if cfg!(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        target_arch = "x86"
    )) {
        Some(0x20)
    } else {
        None
    };
    const MAP_FAILED: *mut c_void = !0usize as *mut c_void;

    /// A private anonymous mapping of `len` bytes (zero-filled on first touch), or None where
    /// the system refuses one or the architecture's flags are not known here.
    pub fn map(len: usize) -> Option<NonNull<u8>> {
        let anonymous = MAP_ANONYMOUS?;
        // SAFETY: a new anonymous mapping aliases no existing memory; the result is checked
        // for failure before use.
        let p = unsafe {
            mmap(
                core::ptr::null_mut(),
                len,
                PROT_READ_WRITE,
                MAP_PRIVATE | anonymous,
                -1,
                0,
            )
        };
        if p == MAP_FAILED {
            return None;
        }
        NonNull::new(p.cast())
    }

    /// Releases a mapping made by [`map`] with the same length.
    pub fn unmap(p: NonNull<u8>, len: usize) {
        // SAFETY: `p` and `len` are a mapping from `map` that its owner releases once, with no
        // reference into it left.
        unsafe {
            munmap(p.as_ptr().cast(), len);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_tables_are_zero_and_keep_what_is_written() {
        fn check<const N: usize>() {
            let mut t = ZeroTable::<N>::new();
            assert!(t.iter().all(|&x| x == 0));
            t[N - 1] = 7;
            t[N / 3] = 9;
            let c = t.clone();
            assert_eq!(&c[..], &t[..]);
            t[0] = 1;
            assert_eq!(c[0], 0);
            assert_eq!(c.iter().map(|&x| x as u64).sum::<u64>(), 16);
            drop(t);
            assert_eq!((c[N - 1], c[N / 3]), (7, 9));
        }
        check::<{ 1 << 10 }>(); // from the allocator
        check::<{ 1 << 16 }>(); // mapped on Linux
        check::<{ (1 << 15) + 3 }>(); // not a whole number of pages
        assert_eq!(
            ZeroTable::<{ 1 << 16 }>::new().mapped,
            cfg!(target_os = "linux")
        );
    }

    #[test]
    fn advised_memory_keeps_its_contents() {
        let mut v = vec![7u8; 9 << 20];
        advise_huge(&mut v[3..]);
        assert!(v.iter().all(|&b| b == 7));
        let mut z = vec![0u8; 9 << 20];
        advise_huge(&mut z);
        z[5 << 20] = 1;
        assert_eq!(z.iter().map(|&b| b as usize).sum::<usize>(), 1);
        let mut w: Vec<u8> = Vec::with_capacity(9 << 20);
        w.extend_from_slice(b"abc");
        advise_huge_spare(&mut w);
        w.resize(9 << 20, 1);
        assert_eq!(&w[..4], b"abc\x01");
        // Small regions are left alone (no system call) and stay intact.
        let mut s = vec![1u8; 100];
        advise_huge(&mut s);
        assert!(s.iter().all(|&b| b == 1));
    }
}
