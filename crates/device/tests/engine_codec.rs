//! The device running hyperz-engine's deflate: streams identical for any engine count and
//! decodable by GNU gzip, Python and our own inflater.
use std::sync::Arc;

use hyperz_device::{Device, DeviceConfig, EngineCodec, FaultPlan};
use hyperz_engine::Format;
use hyperz_tests::run_tool;

fn text(len: usize) -> Vec<u8> {
    let words = [
        "alpha ", "beta ", "gamma ", "delta\n", "epsilon ", "zeta ", "eta, ",
    ];
    let mut x = 777u32;
    let mut v = Vec::with_capacity(len + 16);
    while v.len() < len {
        x = x.wrapping_mul(1103515245).wrapping_add(12345);
        v.extend_from_slice(words[(x >> 16) as usize % words.len()].as_bytes());
    }
    v.truncate(len);
    v
}

fn device(engines: usize, fault: Option<FaultPlan>) -> Device {
    Device::new(DeviceConfig {
        codec: Some(Arc::new(EngineCodec)),
        block_size: 64 << 10,
        inline_threshold: 1024,
        fault_plan: fault,
        ..DeviceConfig::with_engines(engines)
    })
}

#[test]
fn engine_streams_identical_for_one_to_eight_engines_and_standard() {
    let data = text(600_001);
    for level in [1u32, 6, 9] {
        for format in [Format::Raw, Format::Zlib, Format::Gzip] {
            let reference = device(1, None).compress(format, level, &data);
            assert!(reference.len() < data.len() / 2, "really compressed");
            for engines in 2..=8 {
                assert_eq!(
                    device(engines, None).compress(format, level, &data),
                    reference,
                    "{format:?} L{level} x{engines}"
                );
            }
            let py = match format {
                Format::Raw => "import zlib,sys; sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read(), -15))",
                Format::Zlib => "import zlib,sys; sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read()))",
                Format::Gzip => "import gzip,sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))",
            };
            assert_eq!(
                run_tool("python3", &["-c", py], &reference),
                data,
                "{format:?} L{level}"
            );
        }
    }
}

#[test]
fn engine_independent_streams_decode_with_gzip_and_python_despite_faults() {
    let data = text(1_000_000);
    let reference = device(1, None).compress_independent(6, &data);
    let dev = device(
        2,
        Some(FaultPlan {
            engine: 1,
            nth_job: 2,
            repeat: true,
        }),
    );
    assert_eq!(dev.compress_independent(6, &data), reference);
    assert_eq!(
        dev.compress(Format::Gzip, 6, &data),
        device(1, None).compress(Format::Gzip, 6, &data)
    );
    assert!(dev.stats().faults > 0);
    assert_eq!(run_tool("gzip", &["-dc"], &reference), data);
    let py = "import gzip,sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))";
    assert_eq!(run_tool("python3", &["-c", py], &reference), data);
}
