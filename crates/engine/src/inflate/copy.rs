//! The match-copy primitive of the decode loop: LZ77 back-references copied in whole words.
//!
//! A match of `len` bytes from `dist` back may overlap its own output (`dist < len`), so a plain
//! `copy_within` is wrong for it and a byte loop is slow. The copy checks its bounds once, then
//! moves 16-byte words when the distance allows (each word's source lies wholly before its
//! destination), 8-byte words for distances 8..16, a broadcast word for distance 1, and for
//! distances 2..8 a word of whole periods stored again and again. It may write up to `SLACK` bytes
//! past the match's end; the fast loop keeps that much room.
//!
//! As in libdeflate, the first words are copied whatever the length (48 bytes for distances of
//! 16 or more, 16 for 8..16), and a loop runs only for longer matches: a test of the length
//! after each word is a branch the CPU often mispredicts, on text and markup where lengths
//! vary around 16. zlib -6 streams of the corpus, MB/s with that test -> with the words
//! first (round-robin over the files, best of 5): bible.txt 1261 -> 1337, world192.txt
//! 990 -> 1089, html 1876 -> 2052, kppkn.gtb 1448 -> 1517, urls.10K 840 -> 876, corpus
//! 1183 -> 1251. Three words first rather than two (libdeflate writes 40 bytes), with the
//! decode loop of `fast.rs`: corpus 1.01x (alternating runs, best of 20 in four rounds),
//! markup most (html 1.03-1.04x, geo.protodata 1.03x, ptt5 1.02-1.03x); four words, 1.00x
//! against three.
//! Five 8-byte words first at distances 8..16 (libdeflate's count) cost kennedy.xls 40%
//! (1740 -> 1040): a third of its matches are 9-16 bytes at such distances, and every word
//! past the first loads bytes the word before has just stored.
//!
//! Distances 2..8 first copied one period's worth of bytes one at a time and then eight bytes
//! at a time from whole periods back: each of those loads spanned two earlier stores, which
//! the CPU cannot forward, and waited for them to reach the cache. A file of a 7-byte pattern
//! repeated (8 MB, compressed to 12.8 KB by zlib -6 and by libdeflate -6) decoded at 2,281
//! MB/s, libdeflate at 12,781; stored as a spread word, with no load in the loop, 17,028
//! MB/s. The corpus's zlib -6 streams decode at the same speed (0.994-0.998x, alternating
//! runs). The same for distances 8..16 (a period spread over two words, stored a period
//! apart) was slower: corpus 0.992x, kennedy.xls 0.965-0.977x.
#![allow(unsafe_code)]

/// Bytes the copy may write past `o + len`.
pub const SLACK: usize = 48;

/// A 16-byte word in a vector register. With `[u8; 16]` the compiler moved words through the
/// stack in the two-word loop (a store and a reload per step).
#[cfg(target_arch = "x86_64")]
type Word = core::arch::x86_64::__m128i;
#[cfg(not(target_arch = "x86_64"))]
type Word = [u8; 16];

/// Loads 16 bytes at `p`.
///
/// # Safety
/// `p..p + 16` must be readable.
#[inline(always)]
unsafe fn load16(p: *const u8) -> Word {
    // SAFETY: the caller guarantees the 16 bytes are readable; the load is unaligned.
    unsafe { p.cast::<Word>().read_unaligned() }
}

/// Stores 16 bytes at `p`.
///
/// # Safety
/// `p..p + 16` must be writable.
#[inline(always)]
unsafe fn store16(p: *mut u8, w: Word) {
    // SAFETY: the caller guarantees the 16 bytes are writable; the store is unaligned.
    unsafe { p.cast::<Word>().write_unaligned(w) }
}

/// Copies 8 bytes from `s` to `d`.
///
/// # Safety
/// `s..s + 8` must be readable and `d..d + 8` writable.
#[inline(always)]
unsafe fn copy8(s: *const u8, d: *mut u8) {
    // SAFETY: the caller guarantees both ranges; the accesses are unaligned.
    unsafe {
        d.cast::<u64>()
            .write_unaligned(s.cast::<u64>().read_unaligned())
    }
}

/// [`copy_match`] where `out` may end right after the match (the last bytes of an output
/// buffer, or a match cut at its end): the word copy when there is room for its overshoot,
/// else byte by byte. The caller has checked `1 <= dist <= o` and `o + len <= out.len()`.
#[inline(always)]
pub fn copy_match_bounded(out: &mut [u8], o: usize, dist: usize, len: usize) {
    if out.len() - o >= len + SLACK {
        copy_match(out, o, dist, len);
    } else {
        for k in o..o + len {
            out[k] = out[k - dist];
        }
    }
}

/// Copies `len` bytes (at most 258) from `o - dist` to `o` in `out`, writing up to [`SLACK`]
/// bytes beyond `o + len`.
///
/// Panics if `dist` is 0 or reaches before the start of `out`, if `len > 258`, or if
/// `out[o..o + len + SLACK]` is not in bounds (the caller has checked all of these; the assert
/// is the proof the unchecked copies below rely on). The room is measured from `o` only once
/// `o` is known to be inside `out`: `out.len() - o` alone wraps past the end in a release
/// build and would pass any `o`.
#[inline(always)]
pub fn copy_match(out: &mut [u8], o: usize, dist: usize, len: usize) {
    assert!(
        dist.wrapping_sub(1) < o
            && len <= 258
            && out
                .len()
                .checked_sub(o)
                .is_some_and(|room| room >= len + SLACK)
    );
    let base = out.as_mut_ptr();
    if dist >= 16 {
        // SAFETY: the assert puts every destination word, which starts before `o + len` (or is
        // one of the first three, which start before `o + 48`) and is 16 bytes long, inside
        // `out[o..o + len + SLACK]`; each source word starts `dist` (>= 16, <= o) bytes
        // earlier, so it is in bounds and written before it is read: each word is loaded after
        // the previous one is stored. Unaligned 16-byte loads and stores have no alignment
        // requirement.
        unsafe {
            let mut d = base.add(o);
            let end = d.add(len);
            let mut s = d.sub(dist);
            // Three words whatever the length: most matches end within them, and a test of the
            // length between them is often mispredicted. (Two words written once, as a loop
            // tested at its end, measured 3-5% slower in two runs of three.)
            store16(d, load16(s));
            store16(d.add(16), load16(s.add(16)));
            store16(d.add(32), load16(s.add(32)));
            d = d.add(48);
            s = s.add(48);
            while d < end {
                store16(d, load16(s));
                store16(d.add(16), load16(s.add(16)));
                d = d.add(32);
                s = s.add(32);
            }
        }
    } else if dist >= 8 {
        // SAFETY: as above with 8-byte words and `dist >= 8`, two words first (before
        // `o + 16`).
        unsafe {
            let mut d = base.add(o);
            let end = d.add(len);
            let mut s = d.sub(dist);
            copy8(s, d);
            copy8(s.add(8), d.add(8));
            d = d.add(16);
            s = s.add(16);
            while d < end {
                copy8(s, d);
                d = d.add(8);
                s = s.add(8);
            }
        }
    } else if dist == 1 {
        let w = u64::from_ne_bytes([out[o - 1]; 8]);
        // SAFETY: the destination words start before `o + len` and lie inside
        // `out[o..o + len + SLACK]` by the assert.
        unsafe {
            let mut d = base.add(o);
            let end = d.add(len);
            loop {
                d.cast::<u64>().write_unaligned(w);
                d = d.add(8);
                if d >= end {
                    break;
                }
            }
        }
    } else {
        // Distances 2..8: the match repeats its first `dist` bytes. They are spread over a word
        // (the eight bytes at `o - dist`, of which only the first `dist` are the match's
        // source), which is then stored again and again, each store `step` bytes (whole
        // periods) after the last. No store is read back, so no load waits on one.
        let mut w = u64::from_le_bytes(out[o - dist..o - dist + 8].try_into().unwrap());
        w &= u64::MAX >> (64 - 8 * dist);
        let mut filled = dist;
        while filled < 8 {
            w |= w << (8 * filled);
            filled *= 2;
        }
        let w = w.to_le_bytes();
        let step = dist * (8 / dist);
        // SAFETY: each store starts before `o + len` and is eight bytes long, so it lies
        // inside `out[o..o + len + SLACK]` by the assert; unaligned stores have no alignment
        // requirement.
        unsafe {
            let mut d = base.add(o);
            let end = d.add(len);
            loop {
                d.cast::<[u8; 8]>().write_unaligned(w);
                d = d.add(step);
                if d >= end {
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every distance and length against a byte-by-byte copy, including the slack never
    /// reaching past its promise.
    #[test]
    fn matches_byte_loop() {
        for dist in 1..300usize {
            for len in [
                0usize, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 100, 257, 258,
            ] {
                let o = 300;
                let mut a: Vec<u8> = (0..o + len + SLACK).map(|i| (i * 7 + 3) as u8).collect();
                let mut b = a.clone();
                copy_match(&mut a, o, dist, len);
                for k in 0..len {
                    b[o + k] = b[o - dist + k];
                }
                assert_eq!(a[..o + len], b[..o + len], "dist {dist} len {len}");
            }
        }
    }

    #[test]
    #[should_panic]
    fn refuses_a_distance_before_the_start() {
        let mut a = vec![0u8; 400];
        copy_match(&mut a, 10, 11, 3);
    }

    /// An output position past the end of `out` is refused, not measured as a wrapped room.
    #[test]
    #[should_panic]
    fn refuses_a_position_past_the_end() {
        let mut a = vec![0u8; 100];
        copy_match(&mut a, 200, 20, 3);
    }

    #[test]
    #[should_panic]
    fn refuses_too_little_room() {
        let mut a = vec![0u8; 100];
        copy_match(&mut a, 50, 10, 30);
    }
}
