//! The zlib drop-in under zlib's own programs: the examples Debian ships with zlib1g-dev
//! (`example.c`, `minigzip.c`, `zpipe.c`, `gun.c`, `gzappend.c`, `gzjoin.c`) and our gz* API
//! program (`tests/c/gz_api.c`), each compiled against the system `zlib.h` and linked with the
//! system `-lz` (an unmodified program), then run with our `libz.so` preloaded. Their output is
//! checked with GNU gzip and Python, and the symbol table is compared with the system library.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use hyperz_tests::dropin::{cc, check, libz, preloaded, scratch, traced};
use hyperz_tests::{repo_root, run_tool, sample_dir};

const EXAMPLES: &str = "/usr/share/doc/zlib1g-dev/examples";

/// Compiles one of zlib's example programs into `dir`.
fn example(dir: &Path, name: &str) -> PathBuf {
    let mut src = PathBuf::from(EXAMPLES).join(format!("{name}.c"));
    if !src.is_file() {
        // Some Debian releases compress the examples.
        let gz = PathBuf::from(EXAMPLES).join(format!("{name}.c.gz"));
        assert!(
            gz.is_file(),
            "zlib's {name}.c is missing: install zlib1g-dev (scripts/install-test-deps.sh)"
        );
        let c = run_tool("gzip", &["-dc", gz.to_str().unwrap()], b"");
        src = dir.join(format!("{name}.c"));
        std::fs::write(&src, c).unwrap();
    }
    let exe = dir.join(name);
    cc(&[&src], &exe, &[]);
    exe
}

fn corpus() -> Vec<u8> {
    let mut all = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(sample_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for p in names {
        all.extend(std::fs::read(p).unwrap());
    }
    all
}

fn gunzip(path: &Path) -> Vec<u8> {
    run_tool("gzip", &["-dc", path.to_str().unwrap()], b"")
}

fn gzip_file(data: &[u8], path: &Path) {
    std::fs::write(path, run_tool("gzip", &["-c"], data)).unwrap();
}

/// Symbols (name -> version node) the shared library at `lib` exports as functions.
fn exports(lib: &Path) -> std::collections::BTreeMap<String, String> {
    let out = run_tool("objdump", &["-T", lib.to_str().unwrap()], b"");
    String::from_utf8_lossy(&out)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (f.len() >= 7 && f[1] == "g" && f[3] == ".text")
                .then(|| (f[f.len() - 1].to_string(), f[f.len() - 2].to_string()))
        })
        .collect()
}

#[test]
fn exports_every_system_symbol_with_its_version() {
    let ours = exports(&libz());
    let sys = exports(Path::new("/lib/x86_64-linux-gnu/libz.so.1"));
    assert!(
        sys.len() > 80,
        "system libz exports only {} symbols?",
        sys.len()
    );
    for (name, version) in &sys {
        assert_eq!(
            ours.get(name),
            Some(version),
            "{name}: system libz exports it as {version}"
        );
    }
    let soname = run_tool("objdump", &["-p", libz().to_str().unwrap()], b"");
    assert!(String::from_utf8_lossy(&soname).contains("SONAME               libz.so.1"));
}

#[test]
fn zlib_example_program_passes() {
    let dir = scratch("example");
    let exe = example(&dir, "example");
    let o = check(preloaded(&exe).arg(dir.join("foo.gz")));
    assert!(traced(&o), "the preload did not take effect");
    let out = String::from_utf8_lossy(&o.stdout);
    for line in [
        "uncompress(): hello, hello!",
        "gzread(): hello, hello!",
        "gzgets() after gzseek:  hello!",
        "inflate(): hello, hello!",
        "large_inflate(): OK",
        "after inflateSync(): hello, hello!",
        "inflate with dictionary: hello, hello!",
    ] {
        assert!(
            out.contains(line),
            "example.c did not print {line:?}:\n{out}"
        );
    }
    assert!(
        !String::from_utf8_lossy(&o.stderr).contains("different zlib version"),
        "version mismatch reported"
    );
}

#[test]
fn minigzip_interoperates_with_gzip() {
    let dir = scratch("minigzip");
    let exe = example(&dir, "minigzip");
    let data = corpus();
    for level in ["-1", "-6", "-9"] {
        let f = dir.join("data.bin");
        std::fs::write(&f, &data).unwrap();
        check(preloaded(&exe).arg(level).arg(&f));
        assert_eq!(gunzip(&dir.join("data.bin.gz")), data, "minigzip {level}");
        // And back: minigzip -d of a file GNU gzip wrote.
        gzip_file(&data, &dir.join("g.bin.gz"));
        check(preloaded(&exe).arg("-d").arg(dir.join("g.bin.gz")));
        assert_eq!(std::fs::read(dir.join("g.bin")).unwrap(), data);
        std::fs::remove_file(dir.join("g.bin")).unwrap();
        std::fs::remove_file(dir.join("data.bin.gz")).unwrap();
    }
}

#[test]
fn zpipe_round_trips_through_python() {
    let dir = scratch("zpipe");
    let exe = example(&dir, "zpipe");
    let data = corpus();
    let z = run_with_stdin(&mut preloaded(&exe), &data);
    let py = "import zlib,sys; sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read()))";
    assert_eq!(run_tool("python3", &["-c", py], &z), data);
    let back = run_with_stdin(preloaded(&exe).arg("-d"), &z);
    assert_eq!(back, data);
}

fn run_with_stdin(cmd: &mut Command, input: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || pipe.write_all(&input));
    let o = child.wait_with_output().unwrap();
    feeder.join().unwrap().unwrap();
    assert!(o.status.success(), "{cmd:?} failed");
    o.stdout
}

#[test]
fn gun_decodes_with_inflate_back() {
    let dir = scratch("gun");
    let exe = example(&dir, "gun");
    let data = corpus();
    gzip_file(&data, &dir.join("c.gz"));
    check(preloaded(&exe).arg("-t").arg(dir.join("c.gz")));
    check(preloaded(&exe).arg(dir.join("c.gz")));
    assert_eq!(std::fs::read(dir.join("c")).unwrap(), data);
}

#[test]
fn gzappend_and_gzjoin_splice_streams_bit_exactly() {
    // gzappend and gzjoin walk deflate streams block by block with inflate(Z_BLOCK) and
    // data_type's bit counts, and gzappend continues one with deflatePrime and
    // deflateSetDictionary while keeping its CRC in strm->adler.
    let dir = scratch("gzappend");
    let append = example(&dir, "gzappend");
    let join = example(&dir, "gzjoin");
    let data = corpus();
    let head = &data[..150_000];
    gzip_file(head, &dir.join("a.gz"));
    std::fs::write(dir.join("more.bin"), &data).unwrap();
    check(
        preloaded(&append)
            .arg(dir.join("a.gz"))
            .arg(dir.join("more.bin")),
    );
    check(
        preloaded(&append)
            .arg("-9")
            .arg(dir.join("a.gz"))
            .arg(dir.join("more.bin")),
    );
    let mut want = head.to_vec();
    want.extend_from_slice(&data);
    want.extend_from_slice(&data);
    assert_eq!(gunzip(&dir.join("a.gz")), want, "gzappend");

    gzip_file(head, &dir.join("j1.gz"));
    gzip_file(&data, &dir.join("j2.gz"));
    let o = check(
        preloaded(&join)
            .arg(dir.join("j1.gz"))
            .arg(dir.join("j2.gz")),
    );
    std::fs::write(dir.join("j.gz"), &o.stdout).unwrap();
    let mut want = head.to_vec();
    want.extend_from_slice(&data);
    assert_eq!(gunzip(&dir.join("j.gz")), want, "gzjoin");
}

#[test]
fn gz_file_api_program_passes() {
    let dir = scratch("gzapi");
    let exe = dir.join("gz_api");
    cc(&[&repo_root().join("tests/c/gz_api.c")], &exe, &[]);
    let o = check(preloaded(&exe).arg(&dir));
    assert!(traced(&o), "the preload did not take effect");
    assert!(String::from_utf8_lossy(&o.stdout).contains("gz ok"));
    // What it wrote decodes with GNU gzip to what the system zlib's run writes.
    let ours = gunzip(&dir.join("gzt.out.gz"));
    let sys_dir = scratch("gzapi-sys");
    check(Command::new(&exe).arg(&sys_dir));
    assert_eq!(ours, gunzip(&sys_dir.join("gzt.out.gz")));
    assert_eq!(gunzip(&dir.join("empty.gz")), b"");
}
