//! The engine pool, queue and asynchronous API with closure jobs and sliced compression jobs.
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use hyperz_device::{wait_any, Device, DeviceConfig, FaultPlan, Job, Priority};
use hyperz_engine::Format;

fn queued(engines: usize) -> DeviceConfig {
    DeviceConfig {
        inline_threshold: 0,
        ..DeviceConfig::with_engines(engines)
    }
}

#[test]
fn engines_start_lazily_and_drop_joins_them() {
    let dev = Device::new(queued(3));
    assert_eq!(dev.started_engines(), 0);
    let out = dev.run(Job::custom(1, || vec![7])).unwrap();
    assert_eq!(out.data, vec![7]);
    assert_eq!(dev.started_engines(), 3);
    drop(dev); // returns only after the three engines exit
}

#[test]
fn small_jobs_run_inline_without_starting_engines() {
    let dev = Device::new(DeviceConfig {
        inline_threshold: 1000,
        ..DeviceConfig::with_engines(2)
    });
    let h = dev.submit(Job::custom(10, || b"x".to_vec()), Priority::Normal);
    assert!(h.poll());
    assert_eq!(h.wait().unwrap().data, b"x");
    assert_eq!(dev.started_engines(), 0);
    let s = dev.stats();
    assert_eq!((s.jobs_inline, s.jobs_queued), (1, 0));
}

#[test]
fn high_priority_jobs_overtake_normal_ones() {
    let dev = Device::new(queued(1));
    let (tx, rx) = mpsc::channel::<()>();
    let rx = Arc::new(Mutex::new(rx));
    let order = Arc::new(Mutex::new(Vec::new()));
    let r2 = rx.clone();
    let blocker = dev.submit(
        Job::custom(1, move || {
            r2.lock().unwrap().recv().unwrap();
            vec![]
        }),
        Priority::Normal,
    );
    let mut hs = Vec::new();
    for (i, p) in [
        (1, Priority::Normal),
        (2, Priority::High),
        (3, Priority::Normal),
        (4, Priority::High),
    ] {
        let o = order.clone();
        hs.push(dev.submit(
            Job::custom(1, move || {
                o.lock().unwrap().push(i);
                vec![]
            }),
            p,
        ));
    }
    tx.send(()).unwrap();
    blocker.wait().unwrap();
    for h in hs {
        h.wait().unwrap();
    }
    assert_eq!(*order.lock().unwrap(), vec![2, 4, 1, 3]);
}

#[test]
fn wait_any_returns_the_finished_job() {
    let dev = Device::new(queued(2));
    let (tx, rx) = mpsc::channel::<()>();
    let rx = Arc::new(Mutex::new(rx));
    let slow = dev.submit(
        Job::custom(1, move || {
            rx.lock().unwrap().recv().unwrap();
            b"slow".to_vec()
        }),
        Priority::Normal,
    );
    let fast = dev.submit(Job::custom(1, || b"fast".to_vec()), Priority::Normal);
    assert_eq!(wait_any(&[&slow, &fast]), 1);
    assert!(!slow.poll());
    tx.send(()).unwrap();
    assert_eq!(wait_any(&[&slow]), 0);
    assert_eq!(slow.wait().unwrap().data, b"slow");
    assert_eq!(fast.wait().unwrap().data, b"fast");
}

#[test]
fn many_threads_submit_concurrently() {
    let dev = Arc::new(Device::new(DeviceConfig {
        queue_depth: 4,
        ..queued(3)
    }));
    let threads: Vec<_> = (0..8u8)
        .map(|t| {
            let dev = dev.clone();
            std::thread::spawn(move || {
                let hs: Vec<_> = (0..40u8)
                    .map(|i| {
                        let prio = if i % 3 == 0 {
                            Priority::High
                        } else {
                            Priority::Normal
                        };
                        if i % 2 == 0 {
                            dev.submit(Job::custom(1, move || vec![t, i]), prio)
                        } else {
                            let data: Vec<u8> = (0..5000u32).map(|k| (k as u8) ^ t ^ i).collect();
                            dev.submit(Job::compress(Format::Gzip, 6, data), prio)
                        }
                    })
                    .collect();
                // Collect completions in any order with wait_any.
                let mut hs: Vec<Option<_>> = hs.into_iter().map(Some).collect();
                for _ in 0..hs.len() {
                    let live: Vec<usize> = (0..hs.len()).filter(|&k| hs[k].is_some()).collect();
                    let refs: Vec<_> = live.iter().map(|&k| hs[k].as_ref().unwrap()).collect();
                    let k = live[wait_any(&refs)];
                    let out = hs[k].take().unwrap().wait().unwrap().data;
                    let i = k as u8;
                    if i.is_multiple_of(2) {
                        assert_eq!(out, vec![t, i]);
                    } else {
                        let data: Vec<u8> = (0..5000u32).map(|k| (k as u8) ^ t ^ i).collect();
                        assert_eq!(dev.decompress(Format::Gzip, &out).unwrap(), data);
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let s = dev.stats();
    assert_eq!(s.jobs_queued, 8 * 40);
    assert_eq!(s.retries, 0);
}

#[test]
fn failing_engine_loses_no_data() {
    let plan = FaultPlan {
        engine: 1,
        nth_job: 2,
        repeat: true,
    };
    let dev = Device::new(DeviceConfig {
        fault_plan: Some(plan),
        job_limit: 10_000,
        ..queued(2)
    });
    let inputs: Vec<Vec<u8>> = (0..40u32)
        .map(|i| (0..30_000 + i * 7).map(|k| (k * i) as u8).collect())
        .collect();
    let hs: Vec<_> = inputs
        .iter()
        .map(|d| dev.submit(Job::compress(Format::Zlib, 6, d.clone()), Priority::Normal))
        .collect();
    let customs: Vec<_> = (0..40u8)
        .map(|i| dev.submit(Job::custom(1, move || vec![i; 3]), Priority::High))
        .collect();
    for (h, d) in hs.into_iter().zip(&inputs) {
        let out = h.wait().unwrap().data;
        assert_eq!(&dev.decompress(Format::Zlib, &out).unwrap(), d);
    }
    for (i, h) in customs.into_iter().enumerate() {
        assert_eq!(h.wait().unwrap().data, vec![i as u8; 3]);
    }
    let s = dev.stats();
    assert!(s.faults > 0, "the plan must have fired: {s:?}");
    assert_eq!(s.faults, s.retries);
}

#[test]
fn long_jobs_are_sliced_and_still_one_stream() {
    let dev = Device::new(DeviceConfig {
        job_limit: 4096,
        ..queued(2)
    });
    let data: Vec<u8> = (0..100_000u32).map(|k| (k % 251) as u8).collect();
    for format in [Format::Raw, Format::Zlib, Format::Gzip] {
        let out = dev
            .run(Job::compress(format, 6, data.clone()))
            .unwrap()
            .data;
        assert_eq!(dev.decompress(format, &out).unwrap(), data);
    }
    assert!(dev.stats().slices >= 3 * 25);
}

#[test]
fn verify_mode_and_stats_summary() {
    let dev = Device::new(DeviceConfig {
        verify: true,
        ..queued(2)
    });
    let data = vec![42u8; 300_000];
    let out = dev
        .run(Job::compress(Format::Gzip, 6, data.clone()))
        .unwrap()
        .data;
    assert_eq!(dev.decompress(Format::Gzip, &out).unwrap(), data);
    let s = dev.stats();
    assert_eq!(s.verify_failures, 0);
    assert_eq!(s.histogram[hyperz_device::HISTOGRAM_BUCKETS - 9], 1); // 256 KiB < 300 KB <= 512 KiB
    let text = dev.summary();
    assert!(
        text.contains("trace summary") && text.contains("queued"),
        "{text}"
    );
}
