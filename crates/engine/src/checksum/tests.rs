//! The run-time-selected kernels against the portable code, which the unit tests in `crc32.rs`
//! and `adler32.rs` check against bit-by-bit and modulo-every-byte references.

use proptest::prelude::*;

use super::adler32::adler32_portable;
use super::crc32::crc32_combine_op;
use super::crc32::crc32_portable;
use super::{adler32, crc32};

/// Bytes whose sums push Adler-32 hardest (all 0xff) or look like data, at every length around
/// the kernels' 16-, 32-, 64-, 128- and 256-byte, block and NMAX boundaries, at every alignment.
#[test]
fn kernels_match_portable_at_boundary_lengths() {
    let ones = vec![0xffu8; 3 * 5552 + 200];
    let mixed: Vec<u8> = (0..ones.len() as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8)
        .collect();
    let mut lens: Vec<usize> = (0..300).collect();
    for edge in [384usize, 512, 1024, 5504, 5536, 5552, 2 * 5552, 3 * 5552] {
        lens.extend(edge - 40..edge + 40);
    }
    for data in [&ones, &mixed] {
        for align in 0..4 {
            for &n in &lens {
                let d = &data[align..align + n];
                assert_eq!(
                    crc32(0, d),
                    crc32_portable(0, d),
                    "crc len {n} align {align}"
                );
                assert_eq!(
                    adler32(1, d),
                    adler32_portable(1, d),
                    "adler len {n} align {align}"
                );
            }
        }
    }
}

/// Starting values near the modulus and all-ones registers.
#[test]
fn kernels_continue_from_any_value() {
    let data = vec![0xffu8; 20_000];
    for start in [0u32, 1, 0xffff_ffff, 0xfff0_fff0, (65520 << 16) | 65520] {
        assert_eq!(crc32(start, &data), crc32_portable(start, &data));
        assert_eq!(adler32(start, &data), adler32_portable(start, &data));
    }
}

proptest! {
    #[test]
    fn crc32_matches_portable(data in proptest::collection::vec(any::<u8>(), 0..3000),
                              start in any::<u32>(), cut in any::<usize>()) {
        prop_assert_eq!(crc32(start, &data), crc32_portable(start, &data));
        // Split anywhere: the running value carries over.
        let cut = cut % (data.len() + 1);
        prop_assert_eq!(crc32(crc32(start, &data[..cut]), &data[cut..]), crc32(start, &data));
    }

    #[test]
    fn adler32_matches_portable(data in proptest::collection::vec(any::<u8>(), 0..12000),
                                a in 0u32..65521, b in 0u32..65521, cut in any::<usize>()) {
        let start = (b << 16) | a;
        prop_assert_eq!(adler32(start, &data), adler32_portable(start, &data));
        let cut = cut % (data.len() + 1);
        prop_assert_eq!(adler32(adler32(start, &data[..cut]), &data[cut..]), adler32(start, &data));
    }
}

/// On a CPU with the features, the kernels themselves run (not only the fallback) and agree.
#[cfg(target_arch = "x86_64")]
#[test]
fn kernels_run_where_the_cpu_has_them() {
    let data: Vec<u8> = (0..10_000u32).map(|i| (i * 131 + (i >> 7)) as u8).collect();
    let crc = super::x86::crc32(7, &data);
    if is_x86_feature_detected!("pclmulqdq") && is_x86_feature_detected!("sse4.1") {
        assert_eq!(crc, Some(crc32_portable(7, &data)));
    }
    let adler = super::x86::adler32(9, &data);
    if is_x86_feature_detected!("avx2") {
        assert_eq!(adler, Some(adler32_portable(9, &data)));
    }
}

/// An operator of 0 (never made by `crc32_combine_gen`, but a caller's own) gives the second
/// CRC, the product being 0; zlib loops forever on it, and so did we.
#[test]
fn combine_with_a_zero_operator_returns() {
    assert_eq!(crc32_combine_op(0x1234_5678, 0x9abc_def0, 0), 0x9abc_def0);
}
