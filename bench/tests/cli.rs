//! End-to-end runs of the `hyperz-bench` binary on a small scratch corpus: the table, CSV, JSON
//! and PNG outputs exist and hold real rows; bad arguments fail cleanly.

use std::path::PathBuf;
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hyperz-bench-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("corpus/sub")).unwrap();
    let text: String = (0..20_000)
        .map(|i| format!("line {} of {}\n", i % 97, i % 13))
        .collect();
    std::fs::write(d.join("corpus/a.txt"), &text).unwrap();
    std::fs::write(
        d.join("corpus/sub/b.bin"),
        text.as_bytes().iter().rev().copied().collect::<Vec<u8>>(),
    )
    .unwrap();
    d
}

fn bench() -> Command {
    Command::new(env!("CARGO_BIN_EXE_hyperz-bench"))
}

/// The standard output of a run that must have succeeded (else its output and errors).
fn succeeded(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn library_run_writes_table_csv_json_and_png() {
    let d = scratch("lib");
    let out = bench()
        .arg(d.join("corpus"))
        .args([
            "--peers",
            "zlib,zlib-ng,libdeflate,isal",
            "--levels",
            "1,6",
            "--reps",
            "1",
        ])
        .args(["--quiet", "--csv"])
        .arg(d.join("o.csv"))
        .arg("--json")
        .arg(d.join("o.json"))
        .arg("--png")
        .arg(d.join("o.png"))
        .output()
        .unwrap();
    let stdout = succeeded(&out);
    assert!(stdout.contains("2 files"), "{stdout}");
    for peer in ["zlib ", "zlib-ng ", "libdeflate ", "isal "] {
        assert!(
            stdout.lines().any(|l| l.starts_with(peer)),
            "no {peer} row:\n{stdout}"
        );
    }
    let csv = std::fs::read_to_string(d.join("o.csv")).unwrap();
    // 2 files + TOTAL, each: zlib/zlib-ng/libdeflate at 1 and 6, isal at 1 and 3 = 8 own rows,
    // plus 4 cross rows.
    assert_eq!(csv.lines().count(), 1 + 3 * 12, "{csv}");
    assert!(
        csv.lines().any(|l| l.starts_with("sub/b.bin,own,isal,3,")),
        "{csv}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("o.json")).unwrap()).unwrap();
    assert_eq!(json["totals"].as_array().unwrap().len(), 12);
    let png = std::fs::read(d.join("o.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn unknown_peer_is_reported_and_an_empty_corpus_fails() {
    let d = scratch("bad");
    let out = bench()
        .arg(d.join("corpus/a.txt"))
        .args([
            "--peers",
            "zlib,nosuch",
            "--levels",
            "1",
            "--reps",
            "1",
            "--quiet",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(
        stdout.contains("nosuch: unavailable: unknown peer"),
        "{stdout}"
    );
    std::fs::create_dir_all(d.join("empty")).unwrap();
    let out = bench()
        .arg(d.join("empty"))
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no non-empty files"));
    std::fs::remove_dir_all(&d).unwrap();
}

/// `--cross-from` gives the cross rows another producer's stream (named in the table and the
/// JSON), and a malformed or impossible producer fails before any measuring.
#[test]
fn cross_rows_decode_the_chosen_producers_stream() {
    let d = scratch("cross");
    let out = bench()
        .arg(d.join("corpus/a.txt"))
        .args(["--peers", "zlib,libdeflate", "--levels", "1", "--reps", "1"])
        .args(["--quiet", "--cross-from", "libdeflate:12", "--json"])
        .arg(d.join("o.json"))
        .output()
        .unwrap();
    let stdout = succeeded(&out);
    assert!(
        stdout.contains("every decoder on the same stream (libdeflate -12 output"),
        "{stdout}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("o.json")).unwrap()).unwrap();
    assert_eq!(json["meta"]["cross_reference"], "libdeflate");
    let cross: Vec<&serde_json::Value> = json["totals"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["kind"] == "cross")
        .collect();
    assert_eq!(cross.len(), 2, "{cross:?}");
    assert!(cross.iter().all(|r| r["level"] == 12), "{cross:?}");
    for (spec, why) in [
        ("libdeflate", "expected PEER:LEVEL"),
        ("zlib:x", "expected PEER:LEVEL"),
        ("zlib:12", "zlib has levels"),
        ("nosuch:1", "unknown peer"),
    ] {
        let out = bench()
            .arg(d.join("corpus/a.txt"))
            .args(["--quiet", "--cross-from", spec])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{spec}");
        assert!(stderr.contains(why), "{spec}: {stderr}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}
