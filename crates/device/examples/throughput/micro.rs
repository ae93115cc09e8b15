//! The device microbenchmark (seed 000, Figs 13-14 and Table II): throughput against buffer
//! size for the device with 1..N engines, compression and decompression of independent-block
//! streams, against one-thread system zlib loaded at run time; a table with the peak, half-peak
//! data size and setup time T0, and a PNG chart. Shared by `hyperz bench` and the device's
//! `throughput` example (both include this file).
//!
//! The device runs the codec given: `engine` (default) is hyperz-engine; `zlib` is system zlib
//! behind the device's `Codec` trait (the device's scaling on the baseline's own work);
//! `store` is the store-raw codec, which measures the runtime's own overhead.
//! Level 6 throughout.
//!
//! Half-peak data size and T0 follow the paper: with `T(n) = T0 + n / Peak`, throughput is half
//! of the peak at `n = T0 * Peak`; we take the measured peak, find (log-linear interpolation)
//! the size where throughput crosses half of it, and divide by the peak to get T0.
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyperz_device::{Codec, Device, DeviceConfig, EngineCodec, StoreCodec};
use hyperz_engine::Format;
use plotters::prelude::*;

const LEVEL: u32 = 6;
const SIZES: [usize; 9] = [
    1 << 12,
    1 << 14,
    1 << 16,
    1 << 18,
    1 << 20,
    1 << 22,
    1 << 24,
    1 << 25,
    1 << 26,
];

/// Best-of-5 throughput in MB/s of `f` on `n` bytes; each run repeats `f` for at least 0.15 s.
fn measure(n: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        let mut reps = 0u32;
        while t.elapsed() < Duration::from_millis(150) || reps == 0 {
            f();
            reps += 1;
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64);
    }
    n as f64 / best / 1e6
}

/// The test data: every file under `path` (a file or a directory, recursively) concatenated
/// and repeated to 64 MiB.
pub fn load_data(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    let mut files = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            for e in std::fs::read_dir(&p)? {
                stack.push(e?.path());
            }
        } else if p.is_file() {
            files.push(p);
        }
    }
    files.sort();
    let mut one = Vec::new();
    for f in &files {
        one.extend(std::fs::read(f)?);
        if one.len() >= SIZES[SIZES.len() - 1] {
            break;
        }
    }
    if one.is_empty() {
        return Err(std::io::Error::other("no data to benchmark"));
    }
    Ok(one
        .iter()
        .copied()
        .cycle()
        .take(SIZES[SIZES.len() - 1])
        .collect())
}

struct Series {
    name: String,
    mbps: Vec<f64>,
}

impl Series {
    /// (peak MB/s, half-peak data size in KiB, T0 in microseconds).
    fn table2(&self) -> (f64, f64, f64) {
        let peak = self.mbps.iter().cloned().fold(0.0, f64::max);
        let half = peak / 2.0;
        let mut size = SIZES[0] as f64;
        for i in 1..SIZES.len() {
            let (a, b) = (self.mbps[i - 1], self.mbps[i]);
            if a < half && b >= half {
                let (la, lb) = ((SIZES[i - 1] as f64).ln(), (SIZES[i] as f64).ln());
                size = (la + (lb - la) * (half - a) / (b - a)).exp();
                break;
            }
        }
        if self.mbps[0] >= half {
            size = SIZES[0] as f64 * self.mbps[0].min(half) / self.mbps[0]; // at or below 4 KiB
        }
        (peak, size / 1024.0, size / (peak * 1e6) * 1e6)
    }
}

/// Parses a size like `4K`, `16M` or `65536`.
fn parse_size(s: &str) -> Option<usize> {
    let (num, shift) = match s.as_bytes().last()? {
        b'K' | b'k' => (&s[..s.len() - 1], 10),
        b'M' | b'm' => (&s[..s.len() - 1], 20),
        _ => (s, 0),
    };
    num.parse::<usize>().ok().map(|n| n << shift)
}

const HELP: &str = "\
options:
  [out.png]                 chart file (default device-throughput.png)
  --codec engine|zlib|store the device's codec (default engine)
  --decode                  decompression only: 1 and 2 engines against the codec called
                            directly, runs interleaved (A/B/C, repeated) for noisy machines
  --sizes 4K,16M,64M        sizes for --decode (default 4K,16M,64M; at most 64M)
  --rounds N                interleaved rounds for --decode and --small, best of each (default 7)
  --small                   compression of small buffers (1K,4K; --sizes to change): the
                            device with 1 and 2 engines against the codec called directly,
                            interleaved like --decode
  --help                    this text";

/// The sizes (`--sizes`, else `default`), rounds (`--rounds`, default 7) and the 1- and
/// 2-engine devices running `codec` of an interleaved run.
fn interleaved_setup(
    args: &[String],
    data: &[u8],
    codec: &Arc<dyn Codec>,
    default: &str,
) -> (Vec<usize>, usize, Vec<Device>) {
    let opt = |name: &str| args.windows(2).find(|w| w[0] == name).map(|w| w[1].clone());
    let sizes = opt("--sizes")
        .unwrap_or(default.into())
        .split(',')
        .map(|s| parse_size(s).expect("--sizes: like 4K,16M"))
        .map(|n| n.min(data.len()))
        .collect();
    let rounds = opt("--rounds").map_or(7, |r| r.parse().expect("--rounds N"));
    let devices = [1, 2]
        .iter()
        .map(|&e| {
            Device::new(DeviceConfig {
                codec: Some(codec.clone()),
                ..DeviceConfig::with_engines(e)
            })
        })
        .collect();
    (sizes, rounds, devices)
}

/// Best time of `f` per call over one 150 ms burst.
fn burst(f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    let mut reps = 0u32;
    while t.elapsed() < Duration::from_millis(150) || reps == 0 {
        f();
        reps += 1;
    }
    t.elapsed().as_secs_f64() / reps as f64
}

/// Compression of small buffers, interleaved round by round like [`run_decode`]: the device's
/// independent-block compression with 1 and 2 engines (inline below its threshold) against the
/// same member written by calling the codec directly on this thread.
fn run_small(args: &[String], data: &[u8], codec: Arc<dyn Codec>) {
    let (sizes, rounds, devices) = interleaved_setup(args, data, &codec, "1K,4K");
    println!(
        "small-buffer compression, codec {}, level {LEVEL}, best of {rounds} interleaved rounds (MB/s)",
        codec.name()
    );
    println!(
        "{:>10} {:>9} {:>9} {:>9} {:>10} {:>10}",
        "size", "1 eng C", "2 eng C", "direct C", "1eng/dir", "2eng/dir"
    );
    for &n in &sizes {
        let buf = &data[..n];
        let direct = || {
            let mut out = Vec::with_capacity(n / 2 + 64);
            let sizes = hyperz_device::container::MemberSizes {
                member_len: 0,
                raw_len: n as u32,
            };
            hyperz_device::container::write_hz_header(LEVEL, sizes, &mut out);
            codec.compress_raw_window(LEVEL.into(), buf, 0, true, &mut out);
            let crc = hyperz_engine::checksum::crc32(0, buf);
            hyperz_device::container::write_trailer(Format::Gzip, crc, n as u64, &mut out);
            out
        };
        for d in &devices {
            assert_eq!(
                d.decompress(Format::Gzip, &d.compress_independent(LEVEL, buf))
                    .unwrap(),
                buf
            );
        }
        let mut best = [f64::MAX; 3];
        for _ in 0..rounds {
            for (k, d) in devices.iter().enumerate() {
                let t =
                    burst(&mut || drop(std::hint::black_box(d.compress_independent(LEVEL, buf))));
                best[k] = best[k].min(t);
            }
            best[2] = best[2].min(burst(&mut || drop(std::hint::black_box(direct()))));
        }
        let mbps = best.map(|t| n as f64 / t / 1e6);
        println!(
            "{:>10} {:>9.1} {:>9.1} {:>9.1} {:>9.2}x {:>9.2}x",
            if n % 1024 == 0 {
                format!("{}K", n >> 10)
            } else {
                format!("{n}")
            },
            mbps[0],
            mbps[1],
            mbps[2],
            mbps[0] / mbps[2],
            mbps[1] / mbps[2]
        );
    }
}

/// Decompression only, the series interleaved round by round so slow drifts of a noisy machine
/// hit every series alike: 1 engine, 2 engines and the codec called directly on this thread.
fn run_decode(args: &[String], data: &[u8], codec: Arc<dyn Codec>) {
    let (sizes, rounds, devices) = interleaved_setup(args, data, &codec, "4K,16M,64M");
    println!(
        "decode only, codec {}, level {LEVEL}, best of {rounds} interleaved rounds (MB/s)",
        codec.name()
    );
    println!(
        "{:>10} {:>9} {:>9} {:>9} {:>10} {:>10}",
        "size", "1 eng D", "2 eng D", "direct D", "2eng/1eng", "1eng/dir"
    );
    for &n in &sizes {
        let buf = &data[..n];
        let ind = devices[0].compress_independent(LEVEL, buf);
        for d in &devices {
            assert_eq!(d.decompress(Format::Gzip, &ind).unwrap(), buf);
        }
        // The codec on this thread, member by member. Members go through a scratch buffer:
        // appending member after member to one unbounded buffer makes hyperz-engine re-zero
        // the whole buffer at each member start (quadratic), which is not what is measured here.
        let direct = || {
            let (mut out, mut scratch) = (Vec::new(), Vec::new());
            let mut pos = 0;
            while pos < ind.len() {
                scratch.clear();
                pos += codec
                    .decompress_member(Format::Gzip, &ind[pos..], &mut scratch, usize::MAX)
                    .unwrap();
                if out.is_empty() {
                    std::mem::swap(&mut out, &mut scratch);
                } else {
                    out.extend_from_slice(&scratch);
                }
            }
            out
        };
        assert_eq!(direct(), buf);
        let mut best = [f64::MAX; 3];
        for _ in 0..rounds {
            for (k, d) in devices.iter().enumerate() {
                let t = burst(&mut || {
                    drop(std::hint::black_box(
                        d.decompress(Format::Gzip, &ind).unwrap(),
                    ))
                });
                best[k] = best[k].min(t);
            }
            best[2] = best[2].min(burst(&mut || drop(std::hint::black_box(direct()))));
        }
        let mbps = best.map(|t| n as f64 / t / 1e6);
        println!(
            "{:>9}K {:>9.1} {:>9.1} {:>9.1} {:>9.2}x {:>9.2}x",
            n >> 10,
            mbps[0],
            mbps[1],
            mbps[2],
            mbps[1] / mbps[0],
            mbps[0] / mbps[2]
        );
    }
}

/// Runs the benchmark: `args` are `[out.png] [--codec engine|zlib|store]`; `data` is 64 MiB.
/// `--decode` runs only the interleaved decompression comparison; `--help` lists the options.
pub fn run(args: &[String], data: Vec<u8>) {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{HELP}");
        return;
    }
    let png = args
        .iter()
        .find(|a| a.ends_with(".png"))
        .cloned()
        .unwrap_or("device-throughput.png".into());
    let which = args
        .windows(2)
        .find(|w| w[0] == "--codec")
        .map(|w| w[1].clone())
        .unwrap_or("engine".into());
    let zl = Arc::new(super::zlib::Zlib::open());
    let codec: Arc<dyn Codec> = match which.as_str() {
        "store" => Arc::new(StoreCodec),
        "zlib" => zl.clone(),
        _ => Arc::new(EngineCodec),
    };
    if args.iter().any(|a| a == "--decode") {
        return run_decode(args, &data, codec);
    }
    if args.iter().any(|a| a == "--small") {
        return run_small(args, &data, codec);
    }
    let dec_codec = codec.clone();
    let make = |c: &Arc<dyn Codec>| -> Vec<Device> {
        [1, 2]
            .iter()
            .map(|&e| {
                Device::new(DeviceConfig {
                    codec: Some(c.clone()),
                    ..DeviceConfig::with_engines(e)
                })
            })
            .collect()
    };
    let (devices, dec_devices) = (make(&codec), make(&dec_codec));
    println!(
        "codec {} (decode: {}), level {LEVEL}, inline threshold {} B, block {} KiB",
        codec.name(),
        dec_codec.name(),
        devices[0].config().inline_threshold,
        devices[0].config().block_size >> 10
    );

    let mut series: Vec<Series> = [
        "zlib C", "1 eng C", "2 eng C", "zlib D", "1 eng D", "2 eng D", "direct C",
    ]
    .iter()
    .map(|n| Series {
        name: n.to_string(),
        mbps: Vec::new(),
    })
    .collect();
    for &n in &SIZES {
        let buf = &data[..n];
        series[0].mbps.push(measure(n, || {
            drop(std::hint::black_box(zl.gzip(LEVEL, buf)))
        }));
        for (k, dev) in devices.iter().enumerate() {
            series[1 + k].mbps.push(measure(n, || {
                drop(std::hint::black_box(dev.compress_independent(LEVEL, buf)))
            }));
        }
        let z = zl.gzip(LEVEL, buf);
        series[3].mbps.push(measure(n, || {
            let mut out = Vec::with_capacity(n);
            zl.inflate(31, &z, &mut out).unwrap();
        }));
        let ind = dec_devices[0].compress_independent(LEVEL, buf);
        assert_eq!(dec_devices[1].decompress(Format::Gzip, &ind).unwrap(), buf);
        for (k, dev) in dec_devices.iter().enumerate() {
            series[4 + k].mbps.push(measure(n, || {
                drop(std::hint::black_box(
                    dev.decompress(Format::Gzip, &ind).unwrap(),
                ))
            }));
        }
        // "Calling the engine directly": the codec on the caller's thread, no device at all.
        series[6].mbps.push(measure(n, || {
            let mut out = Vec::new();
            hyperz_device::container::write_hz_header(
                LEVEL,
                hyperz_device::container::MemberSizes {
                    member_len: 0,
                    raw_len: 0,
                },
                &mut out,
            );
            codec.compress_raw_window(LEVEL.into(), buf, 0, true, &mut out);
            std::hint::black_box(hyperz_engine::checksum::crc32(0, buf));
        }));
        eprintln!("{:>9} done", n);
    }

    print!("{:>10}", "size");
    for s in &series {
        print!(" {:>9}", s.name);
    }
    println!("   (MB/s)");
    for (i, &n) in SIZES.iter().enumerate() {
        print!("{:>9}K", n >> 10);
        for s in &series {
            print!(" {:>9.1}", s.mbps[i]);
        }
        println!();
    }
    println!(
        "\n{:>10} {:>10} {:>16} {:>10}",
        "series", "peak MB/s", "half-peak KiB", "T0 us"
    );
    for s in &series {
        let (p, h, t0) = s.table2();
        println!("{:>10} {:>10.1} {:>16.1} {:>10.1}", s.name, p, h, t0);
    }
    let last = SIZES.len() - 1;
    println!(
        "\n2 engines / 1 engine at {} MiB: compression {:.2}x, decompression {:.2}x",
        SIZES[last] >> 20,
        series[2].mbps[last] / series[1].mbps[last],
        series[5].mbps[last] / series[4].mbps[last]
    );
    println!(
        "device (2 eng) / direct call at 4 KiB: compression {:.2}x",
        series[2].mbps[0] / series[6].mbps[0]
    );
    // The queue hop alone: an empty job through the queue and back (what inlining saves).
    let hop_dev = Device::new(DeviceConfig {
        inline_threshold: 0,
        ..DeviceConfig::with_engines(1)
    });
    let hop = (0..5)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..2000 {
                hop_dev
                    .run(hyperz_device::Job::custom(1, Vec::new))
                    .unwrap();
            }
            t.elapsed().as_secs_f64() / 2000.0 * 1e6
        })
        .fold(f64::MAX, f64::min);
    println!("queue round trip (submit, engine wake-up, completion): {hop:.1} us");
    chart(&png, &series).expect("chart");
    println!("chart: {png}");
}

fn chart(path: &str, series: &[Series]) -> Result<(), Box<dyn std::error::Error>> {
    for f in [
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    ] {
        if let Ok(bytes) = std::fs::read(f) {
            let _ = plotters::style::register_font(
                "sans-serif",
                FontStyle::Normal,
                Box::leak(bytes.into_boxed_slice()),
            );
            break;
        }
    }
    let root = BitMapBackend::new(path, (1100, 700)).into_drawing_area();
    root.fill(&WHITE)?;
    let ymax = series
        .iter()
        .flat_map(|s| s.mbps.iter().cloned())
        .fold(0.0, f64::max)
        * 1.1;
    let mut c = ChartBuilder::on(&root)
        .caption(
            "hyperz device: throughput vs buffer size (level 6)",
            ("sans-serif", 24),
        )
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(12f64..26f64, 0f64..ymax)?;
    c.configure_mesh()
        .x_desc("buffer size (log2 bytes: 12 = 4 KiB, 20 = 1 MiB, 26 = 64 MiB)")
        .y_desc("MB/s")
        .draw()?;
    let colours = [
        RED,
        BLUE,
        GREEN,
        MAGENTA,
        CYAN,
        BLACK,
        RGBColor(200, 130, 0),
    ];
    for (s, col) in series.iter().zip(colours) {
        let pts: Vec<(f64, f64)> = SIZES
            .iter()
            .zip(&s.mbps)
            .map(|(&n, &v)| ((n as f64).log2(), v))
            .collect();
        c.draw_series(LineSeries::new(pts.clone(), col.stroke_width(2)))?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
        c.draw_series(pts.iter().map(|&p| Circle::new(p, 3, col.filled())))?;
    }
    c.configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
