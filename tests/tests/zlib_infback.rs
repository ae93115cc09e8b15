//! inflateBack in the drop-in against the system zlib: `tests/c/infback_diff.c` runs raw
//! streams through inflateBack (input in pieces of 1 byte to all at once, windows of 2^9 to
//! 2^15) and prints, per stream, the return code, the bytes out() received and their hash and
//! the input left unused; compiled once against the system `zlib.h`, run with the system libz
//! and with ours preloaded, the transcripts must be identical. The streams are whole (each
//! must end Z_STREAM_END), cut short (Z_BUF_ERROR: what was decoded still reaches out()) or
//! damaged. Damaged streams whose first fault is a distance too far back are left out: zlib's
//! inflateBack accepts some of those, depending on how its input was split (its inflate() does
//! not), and the drop-in rejects them all.

use hyperz_engine::inflate::{decompress, ErrorKind};
use hyperz_engine::Format;
use hyperz_tests::dropin::{cc, same_transcript, scratch};
use hyperz_tests::zapi::Zlib;
use hyperz_tests::{repo_root, sample_files, xorshift};

#[test]
fn inflate_back_matches_system_zlib() {
    let system = &Zlib::both()[0];
    let files = sample_files();
    let mut rnd = xorshift(0x1B0A_C4D5_E6F7_0819);
    let (mut cases, mut whole) = (Vec::new(), 0);
    while whole < 400 || cases.len() < 1500 {
        let (_, d) = &files[rnd() as usize % files.len()];
        let off = rnd() as usize % d.len();
        let data = &d[off..(off + rnd() as usize % 200_000).min(d.len())];
        let wbits = [9u8, 12, 15][(rnd() % 3) as usize];
        let level = (rnd() % 10) as i32;
        let mut z = system.deflate_all(data, (level, -(wbits as i32), 0), None);
        let n = z.len();
        match rnd() % 4 {
            0 => whole += 1,
            1 => z.truncate(rnd() as usize % n),
            // Mostly in the first block's header, where a flip makes a bad code; a flip in
            // the data mostly changes a literal (raw streams carry no check value).
            2 => z[rnd() as usize % n.min(40)] ^= 1 << (rnd() % 8),
            _ => z.extend([1, 2, 3]), // whole, with bytes after it
        }
        if matches!(decompress(Format::Raw, &z), Err(e) if e.kind == ErrorKind::DistanceTooFar) {
            continue;
        }
        let piece = [1u32, 7, 100, 4096, 1 << 30][(rnd() % 5) as usize];
        cases.extend((z.len() as u32).to_le_bytes());
        cases.push(wbits);
        cases.extend(piece.to_le_bytes());
        cases.extend(&z);
    }
    let root = scratch("infback");
    let exe = root.join("infback_diff");
    cc(&[&repo_root().join("tests/c/infback_diff.c")], &exe, &[]);
    let input = root.join("cases");
    std::fs::write(&input, &cases).unwrap();
    let want = same_transcript(&exe, &[input.as_os_str()]);
    // Every outcome is there: finished streams, cut ones, bad ones.
    for code in ["inflateBack 1 ", "inflateBack -5 ", "inflateBack -3 "] {
        assert!(
            want.matches(code).count() > 100,
            "{code}: too few ({})",
            want.matches(code).count()
        );
    }
}
