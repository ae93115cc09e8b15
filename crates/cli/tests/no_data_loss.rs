//! The no-data-loss rules under failure: a full disk, a process killed mid-write, corrupt or
//! truncated input. In every case the input survives unchanged and no partial output is left
//! under the final name.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

const HYPERZ: &str = env!("CARGO_BIN_EXE_hyperz");

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hyperz-ndl-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// `hyperz args` to be run in `dir`.
fn hyperz(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(HYPERZ);
    c.args(args).current_dir(dir);
    c
}

/// `hyperz args` run in `dir` to its end.
fn hyperz_in(dir: &Path, args: &[&str]) -> std::process::Output {
    hyperz(dir, args).output().unwrap()
}

/// 8 MB of mildly compressible data, so the output exceeds the small file-size limits below.
fn big_input() -> Vec<u8> {
    let mut x = 0x1234_5678u32;
    (0..8_000_000)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if i % 3 == 0 {
                b'a'
            } else {
                x as u8
            }
        })
        .collect()
}

fn leftovers(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into())
        .collect();
    v.sort();
    v
}

#[test]
fn full_disk_leaves_the_input_and_no_output() {
    // RLIMIT_FSIZE with SIGXFSZ ignored makes writes past 1 MB fail with EFBIG, the way a full
    // disk fails them with ENOSPC.
    let d = scratch("full");
    let data = big_input();
    fs::write(d.join("in"), &data).unwrap();
    let st = Command::new("sh")
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f 1024; exec {HYPERZ} in"))
        .current_dir(&d)
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(1), "{st:?}");
    let msg = String::from_utf8_lossy(&st.stderr);
    assert!(msg.contains("in.gz"), "error must name the output: {msg}");
    assert_eq!(fs::read(d.join("in")).unwrap(), data);
    assert_eq!(leftovers(&d), vec!["in".to_string()]);
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn killed_mid_write_leaves_the_input_and_no_final_output() {
    // Without the trap, exceeding RLIMIT_FSIZE kills the process with SIGXFSZ in the middle of
    // writing: the input must survive and no file may appear under the final name.
    let d = scratch("kill");
    let data = big_input();
    fs::write(d.join("in"), &data).unwrap();
    let st = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -f 1024; exec {HYPERZ} in"))
        .current_dir(&d)
        .output()
        .unwrap();
    assert!(!st.status.success());
    assert_eq!(fs::read(d.join("in")).unwrap(), data);
    assert!(
        !d.join("in.gz").exists(),
        "a partial in.gz was left: {:?}",
        leftovers(&d)
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn corrupt_and_truncated_input_keep_the_compressed_file() {
    let d = scratch("corrupt");
    let data = big_input();
    fs::write(d.join("f"), &data).unwrap();
    assert!(hyperz(&d, &["-k", "f"]).status().unwrap().success());
    let gz = fs::read(d.join("f.gz")).unwrap();
    fs::remove_file(d.join("f")).unwrap();

    let mut corrupt = gz.clone();
    let mid = corrupt.len() / 2;
    corrupt[mid] ^= 0x55;
    fs::write(d.join("c.gz"), &corrupt).unwrap();
    fs::write(d.join("t.gz"), &gz[..gz.len() - 1000]).unwrap();
    for name in ["c.gz", "t.gz"] {
        let st = hyperz_in(&d, &["-d", name]);
        assert_eq!(st.status.code(), Some(1), "{name}");
        let msg = String::from_utf8_lossy(&st.stderr);
        assert!(msg.contains(name), "the error names the file: {msg}");
        assert!(d.join(name).exists(), "{name} was removed");
        assert!(
            !d.join(&name[..1]).exists(),
            "partial output of {name} was left"
        );
    }
    let names = leftovers(&d);
    assert_eq!(names, vec!["c.gz", "f.gz", "t.gz"]);
    let _ = fs::remove_dir_all(&d);
}

/// Decompressing to stdout, a damaged member still gives everything decoded before the damage
/// (as gzip does), and the error names the byte of the whole file where it was found: here the
/// CRC of a second member, whose data is all written before its trailer fails.
#[test]
fn damaged_second_member_keeps_the_data_and_names_the_file_offset() {
    let d = scratch("second");
    let data = big_input();
    let (a, b) = data.split_at(data.len() / 3);
    let gz = |part: &[u8]| {
        let mut c = Command::new(HYPERZ)
            .args(["-c", "-6"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut input = c.stdin.take().unwrap();
        let part = part.to_vec();
        let feeder = std::thread::spawn(move || input.write_all(&part).unwrap());
        let out = c.wait_with_output().unwrap();
        feeder.join().unwrap();
        assert!(out.status.success());
        out.stdout
    };
    let mut two = gz(a);
    let mut second = gz(b);
    let crc_at = two.len() + second.len() - 8;
    let last = second.len() - 8;
    second[last] ^= 1;
    two.extend(&second);
    fs::write(d.join("two.gz"), &two).unwrap();
    let out = hyperz_in(&d, &["-dc", "two.gz"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout == data, "all of both members' data is written");
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(
        msg.contains(&format!("at byte {crc_at}: checksum mismatch")),
        "{msg}"
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn failing_stdout_is_an_error() {
    let d = scratch("devfull");
    fs::write(d.join("in"), big_input()).unwrap();
    let st = Command::new("sh")
        .arg("-c")
        .arg(format!("exec {HYPERZ} -c in > /dev/full"))
        .current_dir(&d)
        .output()
        .unwrap();
    assert_eq!(st.status.code(), Some(1));
    assert!(d.join("in").exists());
    let _ = fs::remove_dir_all(&d);
}

/// Decompression writes and reads on helper threads when it may use more than one (`-p 2`):
/// a full disk, a failing stdout, damaged or truncated input and a directory as input end
/// exactly as they do on one thread: the same exit code, the input kept, nothing left under the
/// final name, and to stdout the same bytes decoded before the damage.
#[test]
fn decompression_failures_are_the_same_with_io_threads() {
    let d = scratch("iothreads");
    let data = big_input();
    fs::write(d.join("f"), &data).unwrap();
    let ok = hyperz(&d, &["-k", "f"]).status();
    assert!(ok.unwrap().success());
    let gz = fs::read(d.join("f.gz")).unwrap();
    // Files under 4 MiB are read and written without the helper threads (files.rs); the cut
    // one stays above that.
    assert!(gz.len() * 2 / 3 > 4 << 20, "{} bytes", gz.len());
    fs::remove_file(d.join("f")).unwrap();
    fs::write(d.join("t.gz"), &gz[..gz.len() * 2 / 3]).unwrap();
    let mut bad = gz.clone();
    bad[gz.len() / 2] ^= 0x55;
    fs::write(d.join("c.gz"), &bad).unwrap();
    fs::create_dir(d.join("dir")).unwrap();
    let sh = |script: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(&d)
            .output()
            .unwrap()
    };
    let mut seen = Vec::new();
    for p in ["1", "2"] {
        // Full disk: writes past 1 MB fail (EFBIG, as ENOSPC would).
        let st = sh(&format!(
            "trap '' XFSZ; ulimit -f 1024; exec {HYPERZ} -d -k -p {p} f.gz"
        ));
        assert_eq!(st.status.code(), Some(1), "-p {p} full disk");
        assert!(
            String::from_utf8_lossy(&st.stderr).contains("f: "),
            "-p {p}: {st:?}"
        );
        // A failing stdout.
        let st = sh(&format!("exec {HYPERZ} -dc -p {p} f.gz > /dev/full"));
        assert_eq!(st.status.code(), Some(1), "-p {p} /dev/full");
        // Damaged and truncated input, from a file and from stdin, to stdout.
        let mut outs = Vec::new();
        for script in [
            format!("exec {HYPERZ} -dc -p {p} t.gz"),
            format!("exec {HYPERZ} -dc -p {p} < t.gz"),
            format!("exec {HYPERZ} -dc -p {p} c.gz"),
            format!("exec {HYPERZ} -d -p {p} t.gz c.gz"),
            format!("exec {HYPERZ} -dc -p {p} < dir"),
        ] {
            let st = sh(&script);
            assert_eq!(st.status.code(), Some(1), "{script}");
            // (A damaged byte may decode to other bytes before it is caught.)
            let cut = script.contains("t.gz");
            assert!(
                !cut || data.starts_with(&st.stdout),
                "{script}: not a prefix"
            );
            outs.push((st.stdout, String::from_utf8_lossy(&st.stderr).into_owned()));
        }
        assert!(
            outs[0].0.len() > 1_000_000,
            "-p {p}: {} bytes",
            outs[0].0.len()
        );
        seen.push(outs);
        assert_eq!(leftovers(&d), vec!["c.gz", "dir", "f.gz", "t.gz"], "-p {p}");
    }
    assert_eq!(seen[0], seen[1], "one thread and two differ");
    let _ = fs::remove_dir_all(&d);
}

/// Only regular files are replaced by their output, with or without -f (gzip's rule): -f used
/// to let a FIFO through, compress what it gave and delete it, and a device node the same way
/// (`hyperz -f /dev/null` as root). Reading one to stdout is still allowed.
#[test]
fn force_leaves_fifos_in_place() {
    let d = scratch("fifo");
    let st = Command::new("mkfifo").arg(d.join("pipe")).status().unwrap();
    assert!(st.success());
    for args in [&["-f", "pipe"][..], &["-f", "-d", "pipe"], &["pipe"]] {
        let out = hyperz_in(&d, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("not a directory or a regular file"),
            "{args:?}: {out:?}"
        );
        let kind = fs::symlink_metadata(d.join("pipe")).unwrap().file_type();
        assert!(
            std::os::unix::fs::FileTypeExt::is_fifo(&kind),
            "{args:?} removed the FIFO"
        );
        assert_eq!(leftovers(&d), ["pipe"], "{args:?}");
    }
    let _ = fs::remove_dir_all(&d);
}

/// gzip's other refusals when the output goes to a file: a file with other hard links or the
/// sticky bit (unless -f), set-user-ID or set-group-ID (even with -f); and an output that would
/// be the input itself (a stored name under -N -f), where removing the input removed both.
#[test]
fn links_special_bits_and_self_output_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let d = scratch("refuse");
    fs::write(d.join("f"), b"hello\n").unwrap();
    fs::hard_link(d.join("f"), d.join("g")).unwrap();
    for args in [&["f"][..], &["-k", "f"]] {
        let out = hyperz_in(&d, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("f has 1 other link"));
        assert_eq!(leftovers(&d), ["f", "g"]);
    }
    let out = hyperz_in(&d, &["-f", "f"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(leftovers(&d), ["f.gz", "g"]);
    for (mode, force, what) in [
        (0o4755, true, "set-user-ID"),
        (0o2755, true, "set-group-ID"),
        (0o1644, false, "sticky bit"),
    ] {
        fs::write(d.join("s"), b"special\n").unwrap();
        fs::set_permissions(d.join("s"), fs::Permissions::from_mode(mode)).unwrap();
        let args: &[&str] = if force { &["-f", "s"] } else { &["s"] };
        let out = hyperz_in(&d, args);
        assert_eq!(out.status.code(), Some(2), "{what}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(what),
            "{out:?}"
        );
        assert!(d.join("s").exists() && !d.join("s.gz").exists(), "{what}");
        fs::remove_file(d.join("s")).unwrap();
    }
    // A member whose stored name is its own file's name.
    let inner = d.join("x.gz");
    fs::write(&inner, b"payload\n").unwrap();
    let gz = Command::new("gzip")
        .arg("-c")
        .arg(&inner)
        .output()
        .unwrap()
        .stdout;
    fs::write(&inner, &gz).unwrap();
    let out = hyperz_in(&d, &["-d", "-N", "-f", "x.gz"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(fs::read(&inner).unwrap(), gz, "x.gz must survive");
    let _ = fs::remove_dir_all(&d);
}

/// A reader that closes the pipe early (`hyperz -dc f | head`) ends the run quietly with the
/// status of a process killed by SIGPIPE (141), as gzip: before, "write error: Broken pipe"
/// and status 1.
#[test]
fn closed_pipe_on_stdout_ends_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let d = scratch("pipe");
    let data = big_input();
    fs::write(d.join("in"), &data).unwrap();
    for args in [&["-c", "in"][..], &["-c", "-1", "in"]] {
        let mut child = hyperz(&d, args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 1];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The read end is dropped: the next write fails with EPIPE.
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(141), "{args:?}: {out:?}");
        assert!(out.stderr.is_empty(), "{args:?}: {out:?}");
        assert_eq!(fs::read(d.join("in")).unwrap(), data);
    }
    let _ = fs::remove_dir_all(&d);
}

/// SIGINT, SIGTERM or SIGHUP in the middle of a run remove the temporary output, as gzip
/// removes its partial file, and end the run with the signal's status; the input stays.
/// Before, the hidden temporary file stayed behind.
#[test]
fn a_signal_mid_run_removes_the_temporary_output() {
    use std::time::{Duration, Instant};
    let d = scratch("signal");
    // Text-like data that level 12 takes seconds over.
    let words = [
        "the ",
        "data ",
        "of ",
        "compression ",
        "stream ",
        "block ",
        "and ",
        "hyperz ",
    ];
    let mut x = 0x9E37_79B9u32;
    let mut data = Vec::new();
    while data.len() < 24_000_000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        data.extend_from_slice(words[(x % 8) as usize].as_bytes());
        if x.is_multiple_of(97) {
            data.extend_from_slice(format!("{x}\n").as_bytes());
        }
    }
    fs::write(d.join("in"), &data).unwrap();
    for (sig, code) in [("TERM", 143), ("INT", 130), ("HUP", 129)] {
        let mut child = hyperz(&d, &["-12", "-p", "1", "in"]).spawn().unwrap();
        let start = Instant::now();
        while !leftovers(&d).iter().any(|n| n.contains("hyperz-tmp")) {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no temporary file"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(200));
        let st = Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(st.success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "SIG{sig}: {status:?}");
        assert_eq!(leftovers(&d), ["in"], "SIG{sig}");
        assert_eq!(fs::read(d.join("in")).unwrap(), data);
    }
    let _ = fs::remove_dir_all(&d);
}
