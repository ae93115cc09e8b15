//! The runtime with a real DEFLATE codec (system zlib behind the `Codec` trait, the same
//! adapter the throughput example uses): dictionary priming, byte-aligned block ends and
//! combined checks must give standard streams that gzip and Python decode, identical for any
//! engine count, and the fault path must still hold with real compression work.
#[path = "../examples/throughput/zlib.rs"]
#[allow(dead_code)]
mod zlib;

use std::sync::Arc;

use hyperz_device::{Device, DeviceConfig, FaultPlan};
use hyperz_engine::Format;
use hyperz_tests::run_tool;

fn text(len: usize) -> Vec<u8> {
    let words = [
        "alpha ", "beta ", "gamma ", "delta\n", "epsilon ", "zeta ", "eta, ",
    ];
    let mut x = 12345u32;
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
        codec: Some(Arc::new(zlib::Zlib::open())),
        block_size: 64 << 10,
        inline_threshold: 1024,
        fault_plan: fault,
        ..DeviceConfig::with_engines(engines)
    })
}

#[test]
fn real_deflate_streams_are_identical_across_engines_and_standard() {
    let data = text(900_001);
    let one = device(1, None);
    for format in [Format::Raw, Format::Zlib, Format::Gzip] {
        let reference = one.compress(format, 6, &data);
        assert!(reference.len() < data.len() / 2, "really compressed");
        for engines in 2..=4 {
            assert_eq!(
                device(engines, None).compress(format, 6, &data),
                reference,
                "{format:?} x{engines}"
            );
        }
        assert_eq!(one.decompress(format, &reference).unwrap(), data);
        let py = match format {
            Format::Raw => "import zlib,sys; sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read(), -15))",
            Format::Zlib => "import zlib,sys; sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read()))",
            Format::Gzip => "import gzip,sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))",
        };
        assert_eq!(
            run_tool("python3", &["-c", py], &reference),
            data,
            "{format:?}"
        );
    }
    let gz = device(2, None).compress(Format::Gzip, 6, &data);
    assert_eq!(run_tool("gzip", &["-dc"], &gz), data);
}

#[test]
fn real_independent_streams_decode_everywhere() {
    let data = text(700_000);
    let dev = device(2, None);
    let ind = dev.compress_independent(6, &data);
    assert_eq!(ind, device(3, None).compress_independent(6, &data));
    assert_eq!(dev.decompress(Format::Gzip, &ind).unwrap(), data);
    assert_eq!(run_tool("gzip", &["-dc"], &ind), data);
    let py = "import gzip,sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))";
    assert_eq!(run_tool("python3", &["-c", py], &ind), data);
    // An ordinary gzip stream (GNU gzip's) decodes through the sequential fallback.
    let plain = run_tool("gzip", &["-c", "-6"], &data);
    assert_eq!(dev.decompress(Format::Gzip, &plain).unwrap(), data);
}

#[test]
fn failing_engine_with_real_codec_loses_no_data() {
    let data = text(2_000_000);
    let reference = device(1, None).compress(Format::Gzip, 6, &data);
    for k in 0..2 {
        let dev = device(
            2,
            Some(FaultPlan {
                engine: k,
                nth_job: 3,
                repeat: true,
            }),
        );
        assert_eq!(dev.compress(Format::Gzip, 6, &data), reference);
        let ind = dev.compress_independent(6, &data);
        assert_eq!(dev.decompress(Format::Gzip, &ind).unwrap(), data);
        let s = dev.stats();
        assert!(s.faults > 0 && s.faults == s.retries, "{s:?}");
    }
}
