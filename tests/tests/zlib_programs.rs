//! Unmodified programs on the zlib drop-in: CPython's own zlib, gzip and zipfile test suites,
//! git (objects, packs, gc, fsck, clone), and a Java program using java.util.zip, each run
//! with our `libz.so` preloaded and checked to have actually used it.

use std::path::Path;
use std::process::Command;

use hyperz_tests::dropin::{check, libz, preloaded, scratch, traced};
use hyperz_tests::{repo_root, require_tool, sample_dir};

#[test]
fn cpython_zlib_gzip_zipfile_suites_pass() {
    require_tool("python3");
    // No HYPERZ_TRACE here: test_gzip's command-line tests require an empty stderr.
    let mut suite = Command::new("python3");
    suite
        .env("LD_PRELOAD", libz())
        .args([
            "-m",
            "test",
            "-j2",
            "test_zlib",
            "test_gzip",
            "test_zipfile",
        ])
        .current_dir(std::env::temp_dir());
    let o = check(&mut suite);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("Result: SUCCESS"), "CPython tests:\n{out}");
    // The same environment really maps our library into Python.
    let maps = check(
        Command::new("python3")
            .env("LD_PRELOAD", libz())
            .args(["-c", "import zlib; print(open('/proc/self/maps').read())"]),
    );
    let maps = String::from_utf8_lossy(&maps.stdout);
    assert!(
        maps.contains(libz().to_str().unwrap()),
        "libz.so not mapped"
    );
    assert!(
        !maps.contains("/x86_64-linux-gnu/libz.so"),
        "the system libz was loaded too"
    );
}

#[test]
fn python_gzip_large_data_uses_parallel_streams() {
    let code = "import gzip, zlib, sys\n\
                d = b''.join(open(p, 'rb').read() for p in sys.argv[1:]) * 8\n\
                c = gzip.compress(d, 6)\n\
                assert gzip.decompress(c) == d\n\
                z = zlib.compress(d, 9)\n\
                assert zlib.decompress(z) == d\n\
                sys.stdout.buffer.write(c)";
    let mut files: Vec<String> = std::fs::read_dir(sample_dir())
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    files.sort();
    let o = check(preloaded("python3").arg("-c").arg(code).args(&files));
    let err = String::from_utf8_lossy(&o.stderr);
    let parallel = err
        .lines()
        .find(|l| l.contains("streams inline"))
        .and_then(|l| l.split("parallel").nth(1))
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or(0);
    assert!(parallel >= 2, "large streams did not go parallel:\n{err}");
    // The stream decodes with GNU gzip too.
    let mut want = Vec::new();
    for f in &files {
        want.extend(std::fs::read(f).unwrap());
    }
    let want = want.repeat(8);
    let plain = hyperz_tests::run_tool("gzip", &["-dc"], &o.stdout);
    assert!(plain == want, "gzip -dc of Python's output differs");
}

fn git(dir: &Path, args: &[&str]) -> String {
    let o = check(
        preloaded("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .env("HOME", dir),
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn git_repository_lifecycle() {
    require_tool("git");
    let dir = scratch("git");
    let repo = dir.join("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["config", "core.compression", "6"]);
    for (i, e) in std::fs::read_dir(sample_dir()).unwrap().enumerate() {
        let p = e.unwrap().path();
        std::fs::copy(&p, repo.join(p.file_name().unwrap())).unwrap();
        git(&repo, &["add", "."]);
        git(&repo, &["commit", "-q", "-m", &format!("commit {i}")]);
    }
    git(&repo, &["gc", "-q", "--aggressive"]);
    git(&repo, &["fsck", "--full", "--strict"]);
    let clone = dir.join("clone");
    git(
        &dir,
        &[
            "clone",
            "-q",
            "--no-local",
            repo.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );
    git(&clone, &["fsck", "--full"]);
    for e in std::fs::read_dir(sample_dir()).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap();
        assert_eq!(
            std::fs::read(&p).unwrap(),
            std::fs::read(clone.join(name)).unwrap(),
            "{name:?} differs after the clone"
        );
    }
    // The system git (and so the system zlib) reads the repository we wrote.
    let o = Command::new("git")
        .args(["fsck", "--full", "--strict"])
        .current_dir(&repo)
        .output()
        .unwrap();
    assert!(o.status.success(), "system git fsck failed");
}

#[test]
fn java_util_zip_matches_without_preload() {
    require_tool("javac");
    require_tool("java");
    let dir = scratch("java");
    let src = repo_root().join("tests/java/ZipCheck.java");
    check(Command::new("javac").arg("-d").arg(&dir).arg(&src));
    let run = |preload: bool| {
        let mut c = if preload {
            preloaded("java")
        } else {
            Command::new("java")
        };
        c.arg("-cp")
            .arg(&dir)
            .arg("ZipCheck")
            .arg(sample_dir())
            .arg(&dir);
        check(&mut c)
    };
    let plain = run(false);
    let ours = run(true);
    assert!(traced(&ours), "the JVM did not use the preloaded library");
    assert_eq!(
        String::from_utf8_lossy(&plain.stdout),
        String::from_utf8_lossy(&ours.stdout),
        "java.util.zip results differ with the drop-in"
    );
    assert!(String::from_utf8_lossy(&ours.stdout).contains("all checks passed"));
}

#[test]
fn fork_after_parallel_streams_and_clean_exit() {
    // The parent starts the worker threads with a parallel stream, forks, and the child
    // compresses in parallel again (it must start its own workers); both exit normally, so
    // the workers keep neither process alive (`timeout` turns a hang into a failure).
    let code = "import os, zlib, sys\n\
                d = b''.join(open(p, 'rb').read() for p in sys.argv[1:]) * 4\n\
                assert zlib.decompress(zlib.compress(d, 6)) == d\n\
                pid = os.fork()\n\
                if pid == 0:\n\
                \x20   ok = zlib.decompress(zlib.compress(d, 1)) == d\n\
                \x20   os._exit(0 if ok else 3)\n\
                _, st = os.waitpid(pid, 0)\n\
                assert os.waitstatus_to_exitcode(st) == 0, st\n\
                assert zlib.decompress(zlib.compress(d, 9)) == d\n\
                print('fork ok')";
    let mut files: Vec<String> = std::fs::read_dir(sample_dir())
        .unwrap()
        .map(|e| e.unwrap().path().display().to_string())
        .collect();
    files.sort();
    let o = check(
        preloaded("timeout")
            .args(["120", "python3", "-c", code])
            .args(&files),
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("fork ok"));
    assert!(traced(&o));
}

#[test]
fn many_concurrent_streams_within_the_memory_budget() {
    // 300 streams each holding 200 KB of unflushed input: with a 4 MB budget most of them
    // must go inline instead of buffering, and every stream still decodes.
    let code = "import zlib, sys\n\
                d = open(sys.argv[1], 'rb').read()[:200000]\n\
                objs = [zlib.compressobj(6) for _ in range(300)]\n\
                parts = [o.compress(d) for o in objs]\n\
                outs = [p + o.flush() for p, o in zip(parts, objs)]\n\
                assert all(zlib.decompress(x) == d for x in outs)\n\
                print('streams ok')";
    let big = sample_dir().join("kennedy.xls");
    let o = check(
        preloaded("python3")
            .env("HYPERZ_BUDGET", "4m")
            .args(["-c", code])
            .arg(&big),
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("streams ok"));
    assert!(traced(&o));
}

/// Memory a WebSocket server keeps per connection: a compressor and a decompressor with
/// Python websockets' defaults (raw, 2^12 window, memLevel 5), 20 sync-flushed messages
/// each, 1,000 connections, measured with glibc's mallinfo2. System zlib keeps 49 KiB per
/// pair; we kept 63 KiB, 12.6 of them the Huffman builder's work arrays held by every
/// compressor. They are per thread now: 54 KiB.
#[test]
fn websocket_connections_hold_about_what_zlib_does() {
    let code = r#"
import ctypes, zlib, sys
class MI(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in
                "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MI
def used():
    m = libc.mallinfo2()
    return m.uordblks + m.hblkhd
msgs = [('{"id": %d, "user": "user%d", "action": "click", "path": "/items/%d"}\n'
         % (k, k % 37, k * 7919 % 10001)).encode() for k in range(20)]
n = 1000
before = used()
objs = [zlib.compressobj(6, zlib.DEFLATED, -12, 5) for _ in range(n)]
decs = [zlib.decompressobj(-12) for _ in range(n)]
for m in msgs:
    for c, d in zip(objs, decs):
        assert d.decompress(c.compress(m) + c.flush(zlib.Z_SYNC_FLUSH)) == m
print((used() - before) / n)
"#;
    let per_pair = |o: std::process::Output| -> f64 {
        String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
    };
    let zlib = per_pair(check(Command::new("python3").args(["-c", code])));
    let o = check(preloaded("python3").args(["-c", code]));
    assert!(traced(&o));
    let ours = per_pair(o);
    assert!(
        ours <= 1.2 * zlib,
        "{:.1} KiB per connection against zlib's {:.1}",
        ours / 1024.0,
        zlib / 1024.0
    );
}
