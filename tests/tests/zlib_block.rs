//! inflate() with Z_BLOCK and Z_TREES in the drop-in against the system zlib, as random-access
//! tools (zran) use them to find block boundaries and header ends: `tests/c/block_diff.c`
//! inflates each stream with one of them and prints every boundary and (Z_TREES) header end it
//! stops at (input and output totals, unused bits, last block, inflateMark), the return code
//! and the
//! output; compiled once against the system `zlib.h`, run with
//! the system libz and with ours preloaded, the transcripts must be identical. The streams are
//! raw, zlib and gzip, written by the system zlib at every level and strategy with sync, full,
//! partial and block flushes between pieces, some cut short; input and output go in pieces of
//! 1 byte to 1 MiB.

use hyperz_tests::dropin::{cc, same_transcript, scratch};
use hyperz_tests::zapi::{ZStream, Zlib};
use hyperz_tests::{repo_root, sample_files, xorshift};

#[test]
fn block_boundaries_match_system_zlib() {
    let system = &Zlib::both()[0];
    let files = sample_files();
    let mut rnd = xorshift(0xB10C_B0DA_5EED_0001);
    let mut cases = Vec::new();
    for _ in 0..600 {
        let (_, d) = &files[rnd() as usize % files.len()];
        let off = rnd() as usize % d.len();
        let data = &d[off..(off + rnd() as usize % 300_000).min(d.len())];
        let wbits = [-15i32, 15, 31][(rnd() % 3) as usize];
        let mut s = ZStream::new();
        let (level, strategy) = ((rnd() % 10) as i32, (rnd() % 5) as i32);
        assert_eq!(system.d_init(&mut s, level, wbits, 8, strategy), 0);
        let mut z = Vec::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut pos = 0;
        loop {
            let end = (pos + 1 + rnd() as usize % 60_000).min(data.len());
            // Z_PARTIAL_FLUSH, Z_SYNC_FLUSH, Z_FULL_FLUSH, Z_BLOCK or none between pieces.
            let flush = if end == data.len() {
                4
            } else {
                [0, 1, 2, 3, 5][(rnd() % 5) as usize]
            };
            let (r, c, p) = system.d_step(&mut s, &data[pos..end], &mut buf, flush);
            assert!(r >= 0 && c == end - pos, "deflate {r}");
            z.extend_from_slice(&buf[..p]);
            pos = end;
            if flush == 4 {
                break;
            }
        }
        // SAFETY: a live stream.
        unsafe { (system.deflate_end)(&mut *s) };
        if rnd().is_multiple_of(4) {
            z.truncate(rnd() as usize % z.len());
        }
        let (ipiece, opiece) = (
            [1u32, 7, 4096, 1 << 20][(rnd() % 4) as usize],
            [1u32, 100, 65536, 1 << 20][(rnd() % 4) as usize],
        );
        cases.extend((z.len() as u32).to_le_bytes());
        cases.push(wbits as i8 as u8);
        cases.extend(ipiece.to_le_bytes());
        cases.extend(opiece.to_le_bytes());
        cases.extend(&z);
    }
    let root = scratch("zblock");
    let exe = root.join("block_diff");
    cc(&[&repo_root().join("tests/c/block_diff.c")], &exe, &[]);
    let input = root.join("cases");
    std::fs::write(&input, &cases).unwrap();
    let want = same_transcript(&exe, &[input.as_os_str()]);
    assert!(
        want.matches(" last m-65536]").count() > 300,
        "few streams reached their last block"
    );
    // Z_TREES: the same stops, and one more after each block header (data_type bit 8).
    let trees = same_transcript(&exe, &[input.as_os_str(), "trees".as_ref()]);
    assert!(
        trees.matches(" last m-65536}").count() > 300
            && trees.matches(" last m-65536]").count() > 300,
        "few streams reached their last block's header"
    );
}
