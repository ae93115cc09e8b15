//! Helpers for the zlib drop-in tests: the freshly built `libz.so`, C programs compiled against
//! the system `zlib.h` (and so against the system ABI), and running programs with our library
//! preloaded.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use crate::{repo_root, require_tool};

/// `target/<profile>/libz.so`, built (or brought up to date) on first use with the same profile
/// as the running test, so the test exercises the library of this source tree.
pub fn libz() -> PathBuf {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        // <target>/<profile>/deps/<test binary>
        let profile_dir = exe.parent().unwrap().parent().unwrap().to_path_buf();
        let target = profile_dir.parent().unwrap();
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(["build", "-q", "-p", "hyperz-zlib"])
            .current_dir(repo_root())
            .env("CARGO_TARGET_DIR", target);
        if profile_dir.file_name().unwrap() == "release" {
            cmd.arg("--release");
        }
        let st = cmd.status().expect("cargo build -p hyperz-zlib");
        assert!(st.success(), "building libz.so failed");
        let lib = profile_dir.join("libz.so");
        assert!(lib.is_file(), "{} was not built", lib.display());
        lib
    })
    .clone()
}

/// A scratch directory for one test, emptied first and removed when the test is done with it,
/// unless the test failed (its files are then left for a look).
pub fn scratch(name: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("hyperz-dropin-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

/// The directory [`scratch`] made; removed on drop unless the thread is panicking.
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("test files kept in {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Compiles C `sources` into `out` against the system zlib headers, linked with the system
/// `-lz` (so the binary is exactly what an unmodified program would be).
pub fn cc(sources: &[&Path], out: &Path, extra: &[&str]) {
    require_tool("cc");
    let o = Command::new("cc")
        .args(["-O1", "-w", "-o"])
        .arg(out)
        .args(sources)
        .args(extra)
        .arg("-lz")
        .output()
        .expect("cc");
    assert!(
        o.status.success(),
        "cc failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A command that runs with our `libz.so` preloaded (and tracing on, so the test can tell the
/// preload took effect).
pub fn preloaded(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = Command::new(program);
    c.env("LD_PRELOAD", libz()).env("HYPERZ_TRACE", "1");
    c
}

/// Runs `exe` with `args` under the system libz, then with ours preloaded (which it must use),
/// and asserts that the two transcripts on stdout are identical line by line; returns the
/// system's.
pub fn same_transcript(exe: &Path, args: &[&std::ffi::OsStr]) -> String {
    let want = String::from_utf8(check(Command::new(exe).args(args)).stdout).unwrap();
    let o = check(preloaded(exe).args(args));
    assert!(traced(&o), "our libz.so was not used");
    let got = String::from_utf8(o.stdout).unwrap();
    for (i, (a, b)) in want.lines().zip(got.lines()).enumerate() {
        assert_eq!(a, b, "line {} differs (system zlib first)", i + 1);
    }
    assert_eq!(
        want.lines().count(),
        got.lines().count(),
        "transcript lengths"
    );
    want
}

/// Runs `cmd`, panicking with its output unless it succeeds.
pub fn check(cmd: &mut Command) -> Output {
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        o.status.success(),
        "{cmd:?} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// True if the stderr of a preloaded run carries our trace summary (the library was used).
pub fn traced(o: &Output) -> bool {
    String::from_utf8_lossy(&o.stderr).contains("hyperz libz trace")
}
