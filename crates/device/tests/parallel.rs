//! Parallel streams: identical output for any engine count, bounded memory, independent-block
//! streams readable by GNU gzip and Python, parallel and random-access decoding.
use std::io::{Read, Write};

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use hyperz_device::{
    member_index, Codec, DecodeError, DecodeErrorKind, Device, DeviceConfig, EngineCodec,
    ParallelDeflater, PieceCompressor, Settings,
};
use hyperz_engine::Format;
use hyperz_tests::{run_tool, xorshift};

/// Mixed data: text-like runs and pseudo-random stretches (so the store-raw policy fires too).
fn sample(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2654435761).wrapping_add(1);
    (0..len)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if (i / 50_000) % 3 == 2 {
                x as u8
            } else {
                b"the quick brown fox "[(i + (x as usize % 3)) % 20]
            }
        })
        .collect()
}

fn small_blocks(engines: usize) -> DeviceConfig {
    DeviceConfig {
        block_size: 64 << 10,
        inline_threshold: 1 << 10,
        ..DeviceConfig::with_engines(engines)
    }
}

/// The store-raw policy stored data whose bytes are evenly spread but repeat within the
/// window: a ramp of 251 byte values and a 20 KB block of random bytes written 50 times were
/// stored whole at every level (1.0004 of their size; gzip -1 makes 0.75% and 1.7% of it).
/// Now they compress, to less than 5% at levels 1, 6 and 10 (the first copy alone is 2% of
/// the copies), and decode with gzip.
#[test]
fn evenly_spread_bytes_that_repeat_are_compressed() {
    let random = sample(300_000, 3)[100_000..120_000].to_vec();
    let ramp: Vec<u8> = (0..1_000_000).map(|i| (i % 251) as u8).collect();
    for (what, data) in [("ramp", ramp), ("copies", random.repeat(50))] {
        for level in [1, 6, 10] {
            let dev = Device::new(DeviceConfig {
                block_size: 128 << 10,
                ..DeviceConfig::with_engines(2)
            });
            let gz = dev.compress(Format::Gzip, level, &data);
            assert!(
                gz.len() * 20 < data.len(),
                "{what} at level {level}: {} of {}",
                gz.len(),
                data.len()
            );
            assert_eq!(run_tool("gzip", &["-dc"], &gz), data, "{what}, gzip -dc");
        }
    }
}

/// Like a tar of compressed files, some of which still repeat themselves (an image stored in
/// a compressed file): 256 KiB blocks of random bytes whose fourth 16 KiB are a 30-byte unit
/// repeated. Such a block looks incompressible as a whole (the sample's entropy stays above
/// the bar, the repeat probes look elsewhere) and was stored whole; its 16 KiB parts are
/// judged again now, so the repeats are compressed: four blocks must come to less than their
/// random bytes plus 2 KiB, at levels 1, 6 and 10, and decode with gzip.
#[test]
fn repeats_between_incompressible_stretches_are_compressed() {
    let mut rnd = xorshift(0x2545_F491_4F6C_DD1D);
    let mut noise = |n: usize| -> Vec<u8> { (0..n).map(|_| (rnd() >> 32) as u8).collect() };
    let mut data = Vec::new();
    for _ in 0..4 {
        data.extend_from_slice(&noise(48 << 10));
        data.extend_from_slice(&noise(30).repeat(1 << 20)[..16 << 10]);
        data.extend_from_slice(&noise(192 << 10));
    }
    let random = 4 * (240 << 10);
    for level in [1, 6, 10] {
        let dev = Device::new(DeviceConfig::with_engines(2));
        let gz = dev.compress(Format::Gzip, level, &data);
        assert!(
            gz.len() < random + (2 << 10),
            "level {level}: {} bytes, {random} of them random",
            gz.len()
        );
        assert_eq!(run_tool("gzip", &["-dc"], &gz), data, "level {level}");
    }
}

#[test]
fn output_identical_for_one_to_eight_engines() {
    let data = sample(1_000_003, 1);
    for format in [Format::Raw, Format::Zlib, Format::Gzip] {
        let reference = Device::new(small_blocks(1)).compress(format, 6, &data);
        let reference_ind = Device::new(small_blocks(1)).compress_independent(6, &data);
        for engines in 1..=8 {
            let dev = Device::new(small_blocks(engines));
            assert_eq!(
                dev.compress(format, 6, &data),
                reference,
                "{format:?} {engines} engines"
            );
            assert_eq!(
                dev.compress_independent(6, &data),
                reference_ind,
                "{engines} engines"
            );
            assert_eq!(dev.decompress(format, &reference).unwrap(), data);
        }
    }
}

#[test]
fn chunking_of_writes_does_not_change_output() {
    let data = sample(300_000, 2);
    let dev = Device::new(small_blocks(2));
    let whole = dev.compress(Format::Gzip, 6, &data);
    let mut out = Vec::new();
    let mut z = ParallelDeflater::new(&dev, Format::Gzip, 6);
    for piece in data.chunks(7919) {
        z.write(piece, &mut out);
    }
    let st = z.finish(&mut out);
    assert_eq!(out, whole);
    assert_eq!(
        (st.bytes_in, st.bytes_out),
        (data.len() as u64, out.len() as u64)
    );
}

#[test]
fn exact_block_multiples_and_empty_input() {
    let dev = Device::new(small_blocks(2));
    for len in [0usize, 1, 64 << 10, 128 << 10, (128 << 10) + 1] {
        let data = sample(len, 3);
        for format in [Format::Raw, Format::Zlib, Format::Gzip] {
            let mut out = Vec::new();
            let mut z = ParallelDeflater::new(&dev, format, 6);
            z.write(&data, &mut out);
            z.finish(&mut out);
            assert_eq!(
                dev.decompress(format, &out).unwrap(),
                data,
                "{format:?} {len}"
            );
        }
        let ind = dev.compress_independent(6, &data);
        assert_eq!(
            dev.decompress(Format::Gzip, &ind).unwrap(),
            data,
            "independent {len}"
        );
    }
}

/// A reader of `total` generated bytes that never hands out more than 10 KiB per call.
struct Gen {
    left: u64,
    x: u32,
}
impl Read for Gen {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(10_000).min(self.left as usize);
        for b in &mut buf[..n] {
            self.x = self.x.wrapping_mul(1103515245).wrapping_add(12345);
            *b = b"abcabdabe"[(self.x >> 16) as usize % 9];
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// Counts and checksums what is written, keeping nothing.
struct Sink(u64);
impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn memory_stays_bounded_on_a_long_stream() {
    let cfg = DeviceConfig {
        max_in_flight: 4,
        ..small_blocks(2)
    };
    let dev = Device::new(cfg);
    let total = 64u64 << 20;
    let st = dev
        .compress_stream(Gen { left: total, x: 5 }, Sink(0), Format::Gzip, 6, false)
        .unwrap();
    assert_eq!(st.bytes_in, total);
    let s = dev.stats();
    // In flight: 4 blocks with their dictionaries, plus the block being filled.
    let bound = 5 * ((64 << 10) + (32 << 10) + 1) as u64;
    assert!(
        s.max_buffered_bytes <= bound,
        "{} > {bound}",
        s.max_buffered_bytes
    );
    assert!(s.max_buffered_bytes > 0);
    assert_eq!(s.buffered_bytes, 0, "everything released at finish");
}

#[test]
fn independent_stream_round_trips_through_streams_and_ranges() {
    let data = sample(700_000, 4);
    let dev = Device::new(small_blocks(2));
    let mut comp = Vec::new();
    dev.compress_stream(&data[..], &mut comp, Format::Gzip, 6, true)
        .unwrap();
    assert_eq!(comp, dev.compress_independent(6, &data));
    let index = member_index(&comp).unwrap();
    assert_eq!(index.len(), data.len().div_ceil(64 << 10));
    assert_eq!(
        index.iter().map(|m| m.raw_len as usize).sum::<usize>(),
        data.len()
    );
    let mut back = Vec::new();
    let st = dev
        .decompress_stream(Format::Gzip, &comp[..], &mut back)
        .unwrap();
    assert_eq!(back, data);
    assert_eq!(
        (st.bytes_in, st.bytes_out),
        (comp.len() as u64, data.len() as u64)
    );
    for (off, len) in [
        (0u64, 10usize),
        (65_530, 20),
        (300_000, 200_000),
        (699_990, 10),
    ] {
        assert_eq!(
            dev.decompress_range(&comp, off, len).unwrap(),
            &data[off as usize..off as usize + len]
        );
    }
    // Past the end: the bytes up to the end, as pread gives; no overflow, no huge allocation.
    let n = data.len() as u64;
    for (off, len, want) in [
        (n - 5, 100usize, &data[data.len() - 5..]),
        (n, 1, &data[..0]),
        (n + 1_000, 10, &data[..0]),
        (n - 3, usize::MAX, &data[data.len() - 3..]),
        (u64::MAX, usize::MAX, &data[..0]),
    ] {
        assert_eq!(dev.decompress_range(&comp, off, len).unwrap(), want);
    }
}

#[test]
fn ordinary_members_after_independent_ones_fall_back_to_sequential() {
    let a = sample(200_000, 5);
    let b = sample(100_000, 6);
    let dev = Device::new(small_blocks(2));
    let mut comp = dev.compress_independent(6, &a);
    comp.extend(dev.compress(Format::Gzip, 6, &b));
    let mut want = a.clone();
    want.extend(&b);
    assert_eq!(dev.decompress(Format::Gzip, &comp).unwrap(), want);
}

#[test]
fn corrupt_independent_members_give_precise_errors() {
    let data = sample(300_000, 7);
    let dev = Device::new(small_blocks(2));
    let comp = dev.compress_independent(6, &data);
    let index = member_index(&comp).unwrap();
    // Flip a data byte in the third member: its CRC must fail, reported inside that member.
    let mut bad = comp.clone();
    let m = index[2];
    bad[(m.offset + 40) as usize] ^= 1;
    let e = dev.decompress(Format::Gzip, &bad).unwrap_err();
    assert!(
        matches!(
            e.kind,
            DecodeErrorKind::BadChecksum | DecodeErrorKind::BadBlock
        ),
        "{e:?}"
    );
    assert!(
        e.offset >= m.offset && e.offset < m.offset + m.member_len as u64,
        "{e:?} {m:?}"
    );
    // Truncation anywhere is an error, never a panic or a hang.
    for cut in [1usize, 10, 23, 24, 100, comp.len() / 2, comp.len() - 1] {
        assert!(
            dev.decompress(Format::Gzip, &comp[..cut]).is_err(),
            "cut {cut}"
        );
    }
}

#[test]
fn independent_streams_decode_with_gnu_gzip_and_python() {
    let data = sample(500_000, 8);
    let dev = Device::new(small_blocks(2));
    let comp = dev.compress_independent(6, &data);
    assert_eq!(run_tool("gzip", &["-dc"], &comp), data);
    let py = "import gzip,sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))";
    assert_eq!(run_tool("python3", &["-c", py], &comp), data);
    // The dependent-block streams are ordinary single streams for every reader too.
    assert_eq!(
        run_tool("gzip", &["-dc"], &dev.compress(Format::Gzip, 6, &data)),
        data
    );
    let pyz = "import zlib,sys; sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read()))";
    assert_eq!(
        run_tool(
            "python3",
            &["-c", pyz],
            &dev.compress(Format::Zlib, 6, &data)
        ),
        data
    );
}

#[test]
fn flush_makes_all_written_input_decodable() {
    let data = sample(400_000, 9);
    let dev = Device::new(small_blocks(2));
    for format in [Format::Raw, Format::Zlib, Format::Gzip] {
        let mut out = Vec::new();
        let mut z = ParallelDeflater::new(&dev, format, 6);
        let mut flushed_at = Vec::new();
        for (i, piece) in data.chunks(90_001).enumerate() {
            z.write(piece, &mut out);
            if i % 2 == 0 {
                z.flush(&mut out);
                flushed_at.push(out.len());
            }
        }
        z.finish(&mut out);
        assert_eq!(dev.decompress(format, &out).unwrap(), data, "{format:?}");
    }
    let mut out = Vec::new();
    let mut z = ParallelDeflater::independent(&dev, 6);
    z.write(&data[..1000], &mut out);
    z.flush(&mut out);
    assert_eq!(
        dev.decompress(Format::Gzip, &out).unwrap(),
        &data[..1000],
        "a flushed member is complete"
    );
    z.write(&data[1000..], &mut out);
    z.finish(&mut out);
    assert_eq!(dev.decompress(Format::Gzip, &out).unwrap(), data);
}

/// The engine's codec, counting the block jobs and flushed pieces it compresses.
#[derive(Default)]
struct Counting {
    blocks: AtomicUsize,
    pieces: Arc<AtomicUsize>,
}

struct CountedPieces(Box<dyn PieceCompressor>, Arc<AtomicUsize>);

impl PieceCompressor for CountedPieces {
    fn start(&mut self, dict: &[u8]) {
        self.0.start(dict)
    }
    fn piece(&mut self, piece: &[u8], out: &mut Vec<u8>) {
        self.1.fetch_add(1, Ordering::Relaxed);
        self.0.piece(piece, out)
    }
    fn clone_box(&self) -> Box<dyn PieceCompressor> {
        Box::new(CountedPieces(self.0.clone_box(), self.1.clone()))
    }
}

impl Codec for Counting {
    fn name(&self) -> &'static str {
        "counting"
    }
    fn compress_raw_window(
        &self,
        s: Settings,
        buf: &[u8],
        start: usize,
        last: bool,
        out: &mut Vec<u8>,
    ) {
        self.blocks.fetch_add(1, Ordering::Relaxed);
        EngineCodec.compress_raw_window(s, buf, start, last, out)
    }
    fn piece_compressor(&self, s: Settings) -> Option<Box<dyn PieceCompressor>> {
        let inner = EngineCodec.piece_compressor(s)?;
        Some(Box::new(CountedPieces(inner, self.pieces.clone())))
    }
    fn decompress_member(
        &self,
        f: Format,
        i: &[u8],
        o: &mut Vec<u8>,
        l: usize,
    ) -> Result<usize, DecodeError> {
        EngineCodec.decompress_member(f, i, o, l)
    }
}

/// A stream that went parallel and then flushes after every short message (a log shipper
/// after its backlog, a server streaming a large response): each flushed piece goes to the
/// codec's piece compressor, which carries its match finder from piece to piece, not to a
/// block job that hashes the 32 KiB of history again (67 us per 90-byte message through the
/// zlib drop-in; 5 us now). Blocks written without a flush still go to the engines, and a
/// piece after them starts from their history. The output is the same for one and four
/// engines and for a duplicate taken half-way, and decodes with the system zlib (Python).
#[test]
fn flushed_pieces_carry_over() {
    let backlog = sample(300_000, 5);
    let msgs: Vec<Vec<u8>> = (0..600)
        .map(|i| {
            format!(
                "{{\"seq\": {i}, \"level\": \"info\", \"msg\": \"request {}\"}}\n",
                i * 7919 % 1000
            )
            .into_bytes()
        })
        .collect();
    let mut outs = Vec::new();
    for engines in [1, 4] {
        let codec = Arc::new(Counting::default());
        let dev = Device::new(DeviceConfig {
            codec: Some(codec.clone()),
            ..small_blocks(engines)
        });
        let mut out = Vec::new();
        let mut z = ParallelDeflater::new(&dev, Format::Gzip, 6);
        z.write(&backlog, &mut out);
        z.settle(&mut out);
        let blocks = codec.blocks.load(Ordering::Relaxed);
        let mut copy = None;
        for (i, m) in msgs.iter().enumerate() {
            z.write(m, &mut out);
            z.flush(&mut out);
            if i == 300 {
                // More backlog between messages: blocks again, then pieces.
                z.write(&backlog[..150_000], &mut out);
                z.settle(&mut out);
                copy = Some((z.duplicate().expect("settled"), out.clone()));
            }
        }
        assert_eq!(
            codec.pieces.load(Ordering::Relaxed),
            msgs.len(),
            "{engines} engines"
        );
        // The second backlog's blocks (a block of mixed data may take a few calls: the
        // store-raw policy's parts), none for the messages.
        let blocks = codec.blocks.load(Ordering::Relaxed) - blocks;
        assert!(
            blocks < 20,
            "{engines} engines: {blocks} blocks for the messages"
        );
        z.finish(&mut out);
        let (mut z2, mut out2) = copy.unwrap();
        for m in &msgs[301..] {
            z2.write(m, &mut out2);
            z2.flush(&mut out2);
        }
        z2.finish(&mut out2);
        assert!(
            out2 == out,
            "{engines} engines: the duplicate went another way"
        );
        outs.push(out);
    }
    assert!(outs[0] == outs[1], "the engine count changed the bytes");
    let mut want = backlog.clone();
    for (i, m) in msgs.iter().enumerate() {
        want.extend_from_slice(m);
        if i == 300 {
            want.extend_from_slice(&backlog[..150_000]);
        }
    }
    assert!(run_tool("python3", &["-c", "import sys, gzip; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))"], &outs[0]) == want);
}

#[test]
fn recorded_sizes_bound_member_decoding() {
    let data = sample(200_000, 10);
    let dev = Device::new(small_blocks(2));
    let comp = dev.compress_independent(6, &data);
    // Understate the first member's uncompressed size: decoding must stop at the recorded size.
    let mut lie = comp.clone();
    lie[20..24].copy_from_slice(&1000u32.to_le_bytes());
    let e = dev.decompress(Format::Gzip, &lie).unwrap_err();
    assert_eq!(e.kind, DecodeErrorKind::OutputLimit, "{e:?}");
    assert!(e.offset < member_index(&comp).unwrap()[0].member_len as u64);
    let mut out = Vec::new();
    assert!(dev
        .decompress_stream(Format::Gzip, &lie[..], &mut out)
        .is_err());
}

#[test]
fn the_first_bad_member_is_reported_for_any_engine_count() {
    let data = sample(700_000, 11);
    let comp = Device::new(small_blocks(1)).compress_independent(6, &data);
    let index = member_index(&comp).unwrap();
    assert!(index.len() >= 8);
    // A corrupt body in member 2 and 6, an understated size in member 4.
    let mut bad = comp.clone();
    for k in [2, 6] {
        bad[(index[k].offset + 40) as usize] ^= 1;
    }
    let at = index[4].offset as usize + 20;
    bad[at..at + 4].copy_from_slice(&1000u32.to_le_bytes());
    // Member 1 recorded one byte too long, member 3 one byte too short.
    let mut size = comp.clone();
    for (k, d) in [(1, 1i64), (3, -1)] {
        let at = index[k].offset as usize + 20;
        let raw = u32::from_le_bytes(size[at..at + 4].try_into().unwrap()) as i64 + d;
        size[at..at + 4].copy_from_slice(&(raw as u32).to_le_bytes());
    }
    for engines in 1..=4 {
        let dev = Device::new(small_blocks(engines));
        assert_eq!(dev.decompress(Format::Gzip, &comp).unwrap(), data);
        let e = dev.decompress(Format::Gzip, &bad).unwrap_err();
        let m = index[2];
        assert!(
            e.offset >= m.offset && e.offset < m.offset + m.member_len as u64,
            "x{engines}: {e:?} {m:?}"
        );
        bad[(m.offset + 40) as usize] ^= 1;
        let e = dev.decompress(Format::Gzip, &bad).unwrap_err();
        assert_eq!(e.kind, DecodeErrorKind::OutputLimit, "x{engines}: {e:?}");
        assert!(e.offset >= index[4].offset && e.offset < index[5].offset);
        bad[(m.offset + 40) as usize] ^= 1;
        let e = dev.decompress(Format::Gzip, &size).unwrap_err();
        assert_eq!(
            e,
            hyperz_device::DecodeError::at(DecodeErrorKind::BadMemberSize, index[1].offset),
            "x{engines}"
        );
    }
}

/// The engine codec, panicking (without the panic hook's message) on one decode call.
struct PanicOnce {
    calls: std::sync::atomic::AtomicUsize,
    at: usize,
}

impl hyperz_device::Codec for PanicOnce {
    fn name(&self) -> &'static str {
        "panic-once"
    }
    fn compress_raw_window(
        &self,
        settings: hyperz_device::Settings,
        buf: &[u8],
        start: usize,
        last: bool,
        out: &mut Vec<u8>,
    ) {
        hyperz_device::EngineCodec.compress_raw_window(settings, buf, start, last, out)
    }
    fn decompress_member(
        &self,
        format: Format,
        input: &[u8],
        out: &mut Vec<u8>,
        limit: usize,
    ) -> Result<usize, hyperz_device::DecodeError> {
        let n = self
            .calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        if n == self.at {
            std::panic::resume_unwind(Box::new("injected decoder failure"));
        }
        hyperz_device::EngineCodec.decompress_member(format, input, out, limit)
    }
}

#[test]
fn a_member_whose_decoder_panics_is_redone() {
    let data = sample(600_000, 12);
    for at in [1, 3, 9] {
        let dev = Device::new(DeviceConfig {
            codec: Some(std::sync::Arc::new(PanicOnce {
                calls: Default::default(),
                at,
            })),
            ..small_blocks(2)
        });
        let comp = dev.compress_independent(6, &data);
        assert!(member_index(&comp).unwrap().len() >= 9);
        assert_eq!(dev.decompress(Format::Gzip, &comp).unwrap(), data);
        let s = dev.stats();
        assert_eq!((s.faults, s.retries), (1, 1), "panic at call {at}: {s:?}");
    }
}

#[test]
fn parallel_decoding_with_a_failing_engine_loses_no_data() {
    let data = sample(2_600_000, 12);
    // Which engine decodes how many members is up to the scheduler (on a loaded machine the
    // helper may take them all while the caller allocates the output), so each plan is tried
    // until it fires; every attempt must decode correctly and count each fault as a retry.
    for (engine, nth_job, repeat) in [(0, 1, false), (0, 3, true), (1, 1, true), (1, 2, true)] {
        let plan = hyperz_device::FaultPlan {
            engine,
            nth_job,
            repeat,
        };
        let dev = Device::new(DeviceConfig {
            fault_plan: Some(plan),
            ..small_blocks(2)
        });
        let comp = dev.compress_independent(6, &data);
        let mut fired = false;
        for _ in 0..200 {
            let before = dev.stats();
            assert_eq!(
                dev.decompress(Format::Gzip, &comp).unwrap(),
                data,
                "{plan:?}"
            );
            let s = dev.stats();
            let faults = s.faults - before.faults;
            assert_eq!(faults, s.retries - before.retries, "{plan:?}");
            if faults > 0 {
                fired = true;
                break;
            }
        }
        assert!(fired, "the plan never fired in 200 decodes: {plan:?}");
    }
}

#[test]
fn small_inline_members_equal_queued_ones() {
    // Below the inline threshold (16 KiB by default) a member is written straight from the
    // input; through the queue (threshold 0) the same member must come out.
    let data = sample(20_000, 3);
    let inline = Device::new(DeviceConfig::with_engines(2));
    let queued = Device::new(DeviceConfig {
        inline_threshold: 0,
        ..DeviceConfig::with_engines(2)
    });
    let sizes = [0, 1, 100, 1023, 1024, 5000, 20_000];
    let members: Vec<Vec<u8>> = sizes
        .iter()
        .map(|&n| inline.compress_independent(6, &data[..n]))
        .collect();
    let s = inline.stats();
    assert_eq!((s.jobs_inline, s.jobs_queued), (6, 1), "{s:?}");
    assert_eq!(s.bytes_in, sizes.iter().sum::<usize>() as u64);
    for (&n, a) in sizes.iter().zip(&members) {
        assert_eq!(a, &queued.compress_independent(6, &data[..n]), "{n} bytes");
        assert_eq!(inline.decompress(Format::Gzip, a).unwrap(), &data[..n]);
    }
}

/// `--rsyncable`: blocks end where the content says, so an insertion near the start leaves the
/// rest of the compressed stream as it was (rsync then sends only the blocks around it), in
/// one member or independent ones; the output is still the same for any engine count and
/// decodes. With blocks at fixed offsets every block after the insertion changes.
#[test]
fn rsyncable_streams_resynchronise_after_an_insertion() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/sample");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    let data: Vec<u8> = names
        .iter()
        .flat_map(|p| std::fs::read(p).unwrap())
        .collect();
    let mut changed = data.clone();
    changed.splice(3000..3000, *b"an insertion");
    let compress = |engines: usize, independent: bool, rsync: bool, input: &[u8]| {
        let dev = Device::new(small_blocks(engines));
        let z = if independent {
            ParallelDeflater::independent(&dev, 6)
        } else {
            ParallelDeflater::new(&dev, Format::Gzip, 6)
        };
        let mut z = z.rsyncable(rsync);
        let mut out = Vec::new();
        for chunk in input.chunks(100_000) {
            z.write(chunk, &mut out);
        }
        z.finish(&mut out);
        out
    };
    // Bytes the two streams end with alike, before the last member's trailer.
    let common_tail = |a: &[u8], b: &[u8]| {
        let (a, b) = (&a[..a.len() - 8], &b[..b.len() - 8]);
        a.iter()
            .rev()
            .zip(b.iter().rev())
            .take_while(|(x, y)| x == y)
            .count()
    };
    let dev = Device::new(small_blocks(1));
    for independent in [false, true] {
        let a = compress(1, independent, true, &data);
        assert_eq!(compress(3, independent, true, &data), a, "engine count");
        let b = compress(2, independent, true, &changed);
        assert_eq!(dev.decompress(Format::Gzip, &a).unwrap(), data);
        assert_eq!(dev.decompress(Format::Gzip, &b).unwrap(), changed);
        let kept = common_tail(&a, &b);
        assert!(
            kept * 100 > a.len() * 95,
            "independent {independent}: only {kept} of {} bytes unchanged",
            a.len()
        );
        let (p, q) = (
            compress(1, independent, false, &data),
            compress(1, independent, false, &changed),
        );
        assert!(common_tail(&p, &q) * 100 < p.len(), "fixed blocks shift");
    }
}

/// Whether this thread is one of the device's engines.
fn on_engine() -> bool {
    std::thread::current()
        .name()
        .is_some_and(|n| n.starts_with("hyperz-engine"))
}

/// The engine's codec, flipping a byte in the middle of what it compresses on an engine thread
/// (a faulty engine, which `verify` is there to catch), and counting its decodes.
#[derive(Default)]
struct Flaky {
    decodes: AtomicUsize,
}

impl Codec for Flaky {
    fn name(&self) -> &'static str {
        "flaky"
    }
    fn compress_raw_window(
        &self,
        s: Settings,
        buf: &[u8],
        start: usize,
        last: bool,
        out: &mut Vec<u8>,
    ) {
        let at = out.len();
        EngineCodec.compress_raw_window(s, buf, start, last, out);
        if on_engine() && out.len() > at + 20 {
            let k = at + (out.len() - at) / 2;
            out[k] ^= 0x55;
        }
    }
    fn decompress_member(
        &self,
        f: Format,
        i: &[u8],
        o: &mut Vec<u8>,
        l: usize,
    ) -> Result<usize, DecodeError> {
        self.decodes.fetch_add(1, Ordering::Relaxed);
        EngineCodec.decompress_member(f, i, o, l)
    }
}

/// With `verify`, every block of a dependent stream (the CLI's default gzip output and the
/// zlib drop-in's parallel streams, `--verify` and `HYPERZ_VERIFY=1`) is decoded after its
/// dictionary and compared; a block a faulty engine got wrong is redone. Before, only whole
/// jobs and independent members were checked, and the faulty engine's stream came out corrupt
/// (a CRC mismatch at byte 733,696 of 2 MiB) with verify on.
#[test]
fn verify_checks_every_block_of_a_dependent_stream() {
    let data = sample(2 << 20, 11);
    let codec = Arc::new(Flaky::default());
    let dev = Device::new(DeviceConfig {
        verify: true,
        codec: Some(codec.clone()),
        ..DeviceConfig::with_engines(2)
    });
    let reference = Device::new(DeviceConfig::with_engines(1));
    let gz = dev.compress(Format::Gzip, 6, &data);
    assert!(
        codec.decodes.load(Ordering::Relaxed) >= 8,
        "every block decoded"
    );
    assert!(dev.stats().verify_failures > 0, "{:?}", dev.stats());
    assert!(reference.decompress(Format::Gzip, &gz).unwrap() == data);
    assert!(
        gz == reference.compress(Format::Gzip, 6, &data),
        "redone as it should be"
    );
    assert_eq!(run_tool("gzip", &["-dc"], &gz), data);
}

/// A compression job longer than the engines' slice (`job_limit`) is compressed in slices;
/// redone after an engine fault, it is sliced the same way, so the bytes do not depend on
/// whether an engine failed. Before, the redo ran it in one piece: 1,100,441 bytes without the
/// fault, 1,100,431 with it.
#[test]
fn a_sliced_job_redone_after_a_fault_gives_the_same_bytes() {
    // Text throughout (the store-raw policy leaves it to the engines).
    let mut x = 12345u32;
    let data: Vec<u8> = (0..3 << 20)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if x.is_multiple_of(7) {
                (x >> 8) as u8
            } else {
                b"lorem ipsum dolor sit amet "[i % 27]
            }
        })
        .collect();
    let device = |engines, fault| {
        Device::new(DeviceConfig {
            block_size: 4 << 20,
            job_limit: 1 << 20,
            fault_plan: fault,
            ..DeviceConfig::with_engines(engines)
        })
    };
    let want = device(2, None).compress(Format::Gzip, 6, &data);
    for engines in [1, 2] {
        let plan = hyperz_device::FaultPlan {
            engine: 0,
            nth_job: 2,
            repeat: false,
        };
        let dev = device(engines, Some(plan));
        let got = dev.compress(Format::Gzip, 6, &data);
        // With two engines the other one may take the slices the plan names.
        if engines == 1 {
            assert_eq!(dev.stats().faults, 1, "the fault fired");
        }
        assert!(
            got == want,
            "{engines} engines: {} / {} bytes",
            got.len(),
            want.len()
        );
    }
    assert_eq!(run_tool("gzip", &["-dc"], &want), data);
}

/// The check a stream reports is that of all its input, for independent members as for one
/// member (it was 0 for independent streams, which the documentation did not say).
#[test]
fn stream_check_is_the_crc_of_all_input() {
    let data = sample(700_000, 13);
    let dev = Device::new(small_blocks(2));
    let want = hyperz_engine::checksum::crc32(0, &data);
    for independent in [false, true] {
        let mut z = if independent {
            ParallelDeflater::independent(&dev, 6)
        } else {
            ParallelDeflater::new(&dev, Format::Gzip, 6)
        };
        let mut out = Vec::new();
        z.write(&data, &mut out);
        let stats = z.finish(&mut out);
        assert_eq!(stats.check, want, "independent: {independent}");
        assert_eq!(run_tool("gzip", &["-dc"], &out), data);
    }
}
