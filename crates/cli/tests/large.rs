//! Members of 4 GiB and more, whose gzip trailer holds the length modulo 2^32 only.

use hyperz_tests::dropin::scratch;
use std::fs;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

const HYPERZ: &str = env!("CARGO_BIN_EXE_hyperz");

/// `program args` in `dir`: exit code, standard output and standard error.
fn run(dir: &Path, program: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    (o.status.code(), text(o.stdout), text(o.stderr))
}

/// A member of 2^32 + 1000 zero bytes, compressed by hyperz from a pipe, decodes to exactly
/// that (its ISIZE, 1000, checked modulo 2^32), and `-l` shows it as GNU gzip 1.12 does: the
/// last member's decoded length, also after a small member, not the trailer's 1000 (which gave
/// a ratio of -1698922.0%). Both programs list the two files in one call (rows and totals).
#[test]
fn a_member_past_4_gib_is_listed_and_decoded_whole() {
    const LEN: u64 = (1 << 32) + 1000;
    let dir = scratch("large");
    let big = dir.join("big.gz");
    let mut c = Command::new(HYPERZ)
        .args(["-1", "-c"])
        .stdin(Stdio::piped())
        .stdout(fs::File::create(&big).unwrap())
        .spawn()
        .unwrap();
    let mut stdin = c.stdin.take().unwrap();
    let zeros = vec![0u8; 1 << 20];
    let mut left = LEN;
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        stdin.write_all(&zeros[..n]).unwrap();
        left -= n as u64;
    }
    drop(stdin);
    assert!(c.wait().unwrap().success());
    let member = fs::read(&big).unwrap();
    assert_eq!(member[member.len() - 4..], 1000u32.to_le_bytes(), "ISIZE");

    let mut d = Command::new(HYPERZ)
        .args(["-dc", "big.gz"])
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = d.stdout.take().unwrap();
    let (mut total, mut buf) = (0u64, vec![0u8; 1 << 20]);
    loop {
        let n = out.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        assert!(buf[..n].iter().all(|&b| b == 0), "a byte that is not zero");
        total += n as u64;
    }
    assert!(d.wait().unwrap().success());
    assert_eq!(total, LEN);

    fs::write(dir.join("small"), b"a small first member\n").unwrap();
    let small = Command::new("gzip")
        .args(["-c", "-n", "small"])
        .current_dir(&dir)
        .output()
        .unwrap()
        .stdout;
    fs::write(dir.join("two.gz"), [&small[..], &member[..]].concat()).unwrap();
    let args = ["-l", "big.gz", "two.gz"];
    let (ours, theirs) = (run(&dir, HYPERZ, &args), run(&dir, "gzip", &args));
    assert_eq!(ours, theirs, "hyperz, then gzip");
    assert_eq!(ours.0, Some(0));
    let rows: Vec<&str> = ours.1.lines().collect();
    for (row, name) in [(rows[1], "big"), (rows[2], "two")] {
        assert!(
            row.contains(" 4294968296 ") && row.ends_with(name),
            "{}",
            ours.1
        );
    }
}
