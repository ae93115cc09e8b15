//! zlib's gz* file API in the drop-in, checked against the system zlib call by call.
//!
//! `tests/c/gz_diff.c` prints a transcript of every gz* call it makes (return values, gztell,
//! gzeof, gzdirect, error codes, a hash of the bytes read) while reading files written by GNU
//! gzip and pigz (concatenated members, trailing garbage, truncated and corrupt members, plain
//! and empty files) and while writing in every mode. It is compiled once against the system
//! `zlib.h` and run three times on identical inputs: with the system libz, with our `libz.so`
//! preloaded, and linked directly against our `libz.so` (`-L<dir> -lz`, `LD_LIBRARY_PATH`).
//! The transcripts must be identical, and the files each run wrote must decode with GNU gzip
//! and Python's zlib (the system library) to the same data. A second test does the same with
//! random call sequences (`gz_diff DIR random SEED`) for a fixed set of seeds.

use std::path::{Path, PathBuf};
use std::process::Command;

use hyperz_tests::dropin::{cc, check, libz, preloaded, scratch, traced};
use hyperz_tests::{repo_root, require_tool, run_tool, sample_files};

fn gzip(args: &[&str], data: &[u8]) -> Vec<u8> {
    run_tool("gzip", args, data)
}

/// The inputs `gz_diff` reads, written into `dir`.
fn make_inputs(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let corpus: Vec<u8> = sample_files().into_iter().flat_map(|(_, d)| d).collect();
    let text = &corpus[..300_000.min(corpus.len())];
    let g1 = gzip(&["-6", "-c", "-n"], text);
    let pigz = run_tool(
        "pigz",
        &["-c", "-p", "2", "-b", "32"],
        &corpus[100_000..260_000],
    );
    let w = |name: &str, data: &[u8]| std::fs::write(dir.join(name), data).unwrap();
    w("g1.gz", &g1);
    w("pigz.gz", &pigz);
    w(
        "igzip.gz",
        &run_tool("igzip", &["-3", "-c"], &corpus[..200_000]),
    );
    let mut libdeflate = run_tool("libdeflate-gzip", &["-12", "-c"], &text[..70_000]);
    libdeflate.extend(run_tool("libdeflate-gzip", &["-1", "-c"], &text[70_000..]));
    w("libdeflate.gz", &libdeflate);
    let mut multi = gzip(&["-1", "-c"], &text[..1000]);
    multi.extend(run_tool("pigz", &["-c"], &text[1000..50_000]));
    multi.extend(gzip(&["-c"], b""));
    multi.extend(gzip(&["-9", "-c"], &text[50_000..]));
    w("multi.gz", &multi);
    let small = gzip(&["-c"], &text[..20_000]);
    let mut garbage = small.clone();
    garbage.extend_from_slice(b"this is trailing garbage, not a gzip member\n");
    w("garbage.gz", &garbage);
    let mut zeros = small.clone();
    zeros.extend_from_slice(&[0u8; 512]);
    w("zeros.gz", &zeros);
    let mut magic = small.clone();
    magic.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff, 0xff]);
    w("magic-garbage.gz", &magic);
    w("trunc.gz", &g1[..g1.len() / 2]);
    let mut corrupt = g1.clone();
    for i in (2000..2100).step_by(7) {
        corrupt[i] ^= 0x5a;
    }
    w("corrupt.gz", &corrupt);
    // A second member cut after a bad method byte: zlib reads the method and the flags
    // together, so this is a truncated member (the first member's data is still returned).
    let mut cut = small.clone();
    cut.extend_from_slice(&[0x1f, 0x8b, 7]);
    w("cut-method.gz", &cut);
    // A member whose CRC is wrong, cut inside ISIZE: zlib checks the CRC as soon as it has it.
    let mut cut = small.clone();
    let crc_at = cut.len() - 8;
    cut[crc_at] ^= 1;
    cut.truncate(cut.len() - 2);
    w("cut-trailer.gz", &cut);
    w("plain.txt", &text[..40_000]);
    w("append-plain.txt", &text[..777]);
    w("empty.txt", b"");
    w("one.txt", &[0x1f]);
    w("empty-member.gz", &gzip(&["-c"], b""));
    w("big.gz", &gzip(&["-1", "-c"], &corpus));
    w("append.gz", &gzip(&["-c"], &text[..5000]));
    w("dopen-append.gz", &gzip(&["-c"], &text[..3000]));
    let mut prefixed = b"PREFIX!".to_vec();
    prefixed.extend(gzip(&["-c"], &text[..150]));
    w("prefixed.gz", &prefixed);
}

/// A directory holding `libz.so` and `libz.so.1` (our library) for linking and loading.
fn lib_dir(root: &Path) -> PathBuf {
    let d = root.join("lib");
    std::fs::create_dir_all(&d).unwrap();
    for name in ["libz.so", "libz.so.1"] {
        let _ = std::fs::remove_file(d.join(name));
        std::os::unix::fs::symlink(libz(), d.join(name)).unwrap();
    }
    d
}

/// Decodes `path` with GNU gzip (all members, trailing data an error).
fn gunzip(path: &Path) -> Vec<u8> {
    gzip(&["-dc", path.to_str().unwrap()], b"")
}

/// Decodes `path` with Python's zlib module (the system libz), member after member.
fn python_gunzip(path: &Path) -> Vec<u8> {
    let code = "import sys, zlib\n\
                d = open(sys.argv[1], 'rb').read()\n\
                out = b''\n\
                while d:\n\
                \x20   o = zlib.decompressobj(31)\n\
                \x20   out += o.decompress(d)\n\
                \x20   assert o.eof, 'truncated member'\n\
                \x20   d = o.unused_data\n\
                sys.stdout.buffer.write(out)\n";
    run_tool("python3", &["-c", code, path.to_str().unwrap()], b"")
}

/// Panics at the first line where the transcripts differ.
fn same_transcript(want: &str, got: &str, what: &str) {
    for (i, (a, b)) in want.lines().zip(got.lines()).enumerate() {
        assert_eq!(
            a,
            b,
            "{what}: transcript line {} differs (system zlib first)",
            i + 1
        );
    }
    assert_eq!(
        want.lines().count(),
        got.lines().count(),
        "{what}: transcripts differ in length"
    );
}

#[test]
fn gz_api_matches_system_zlib_call_by_call() {
    for tool in ["pigz", "igzip", "libdeflate-gzip"] {
        require_tool(tool);
    }
    let root = scratch("gzdiff");
    let exe = gz_diff(&root);
    let src = repo_root().join("tests/c/gz_diff.c");
    let libs = lib_dir(&root);
    let linked = root.join("gz_diff_linked");
    let o = Command::new("cc")
        .args(["-O1", "-w", "-o"])
        .arg(&linked)
        .arg(&src)
        .arg(format!("-L{}", libs.display()))
        .arg("-lz")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "cc: {}",
        String::from_utf8_lossy(&o.stderr)
    );

    let runs = ["system", "preloaded", "linked"];
    let mut out = Vec::new();
    for run in runs {
        let dir = root.join(run);
        make_inputs(&dir);
        let o = match run {
            "system" => check(Command::new(&exe).arg(&dir)),
            "preloaded" => check(preloaded(&exe).arg(&dir)),
            _ => check(
                Command::new(&linked)
                    .arg(&dir)
                    .env("LD_LIBRARY_PATH", &libs)
                    .env("HYPERZ_TRACE", "1"),
            ),
        };
        if run != "system" {
            assert!(traced(&o), "{run}: our libz.so was not used");
        }
        out.push((dir, String::from_utf8(o.stdout).unwrap()));
    }
    let (sys_dir, want) = &out[0];
    assert!(
        want.contains("== empty write: gzclose 0"),
        "the program stopped early"
    );
    for (run, (dir, got)) in runs.iter().zip(&out).skip(1) {
        same_transcript(want, got, run);
        // Every file written decodes, with GNU gzip and the system zlib, to what the system
        // zlib's run wrote.
        for e in std::fs::read_dir(sys_dir).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            let ours = dir.join(&name);
            if name == "w_transparent.gz" || name == "append-plain.txt" {
                let sys = std::fs::read(sys_dir.join(&name)).unwrap();
                assert_eq!(std::fs::read(&ours).unwrap(), sys, "{run}: {name}");
                continue;
            }
            if !(name.starts_with("w_") || name.contains("append") || name == "dopen.gz") {
                continue;
            }
            let want = gunzip(&sys_dir.join(&name));
            assert_eq!(gunzip(&ours), want, "{run}: gzip -dc {name}");
            assert_eq!(python_gunzip(&ours), want, "{run}: python zlib {name}");
        }
    }
}

/// Compiles `tests/c/gz_diff.c` against the system zlib into `root`.
fn gz_diff(root: &Path) -> PathBuf {
    let exe = root.join("gz_diff");
    cc(&[&repo_root().join("tests/c/gz_diff.c")], &exe, &[]);
    exe
}

#[test]
fn gz_api_random_call_sequences_match_system_zlib() {
    for tool in ["pigz", "igzip", "libdeflate-gzip"] {
        require_tool(tool);
    }
    let root = scratch("gzrandom");
    let exe = gz_diff(&root);
    let sys_dir = root.join("system");
    let our_dir = root.join("ours");
    make_inputs(&sys_dir);
    make_inputs(&our_dir);
    // (The trace summary only appears when a seed's calls reached the codecs.)
    let mut used_ours = false;
    for seed in 1..=32 {
        let seed = seed.to_string();
        let want =
            check(Command::new(&exe).args([sys_dir.as_os_str(), "random".as_ref(), seed.as_ref()]));
        let got =
            check(preloaded(&exe).args([our_dir.as_os_str(), "random".as_ref(), seed.as_ref()]));
        used_ours |= traced(&got);
        let want = String::from_utf8(want.stdout).unwrap();
        assert!(
            want.contains("read back"),
            "seed {seed}: the program stopped early"
        );
        same_transcript(
            &want,
            &String::from_utf8(got.stdout).unwrap(),
            &format!("seed {seed}"),
        );
        let name = format!("r_{seed}.gz");
        let sys = std::fs::read(sys_dir.join(&name)).unwrap();
        let ours = our_dir.join(&name);
        if sys.starts_with(&[0x1f, 0x8b]) {
            assert_eq!(
                gunzip(&ours),
                gunzip(&sys_dir.join(&name)),
                "seed {seed}: gzip -dc"
            );
        } else {
            // Transparent ("wT") writes.
            assert_eq!(
                std::fs::read(&ours).unwrap(),
                sys,
                "seed {seed}: transparent file"
            );
        }
    }
    assert!(used_ours, "our libz.so was not used");
}

#[test]
fn gz_api_program_reads_and_writes_like_zlib() {
    // The hand-written checks of tests/c/gz_api.c, linked directly against our library.
    let root = scratch("gzapi-linked");
    let libs = lib_dir(&root);
    let exe = root.join("gz_api");
    let o = Command::new("cc")
        .args(["-O1", "-w", "-o"])
        .arg(&exe)
        .arg(repo_root().join("tests/c/gz_api.c"))
        .arg(format!("-L{}", libs.display()))
        .arg("-lz")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "cc: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let work = root.join("work");
    std::fs::create_dir_all(&work).unwrap();
    let o = check(
        Command::new(&exe)
            .arg(&work)
            .env("LD_LIBRARY_PATH", &libs)
            .env("HYPERZ_TRACE", "1"),
    );
    assert!(traced(&o), "our libz.so was not used");
    assert!(String::from_utf8_lossy(&o.stdout).contains("gz ok"));
    let written = gunzip(&work.join("gzt.out.gz"));
    assert!(written.starts_with(b"hello\nx-42-abc- 3.14\n"));
    assert!(written.ends_with(b"second member\nlast line"));
    assert_eq!(written.len(), 6 + 1 + 14 + 3_000_000 + 23);
}

#[test]
fn a_seek_pending_when_gzdirect_looks_reads_the_bytes_sought() {
    // tests/c/gz_seek_look.c: zlib returns the file's first bytes here ("getc a", "getc_ b");
    // the drop-in returns the bytes at the position sought, whatever the buffer size.
    let root = scratch("gzseeklook");
    let exe = root.join("gz_seek_look");
    cc(&[&repo_root().join("tests/c/gz_seek_look.c")], &exe, &[]);
    // (No trace to tell the preload took effect: a plain file never reaches the codecs. The
    // system zlib's lines differ from these.)
    let o = check(preloaded(&exe).arg(&*root));
    let got = String::from_utf8(o.stdout).unwrap();
    for size in [8, 64, 512, 4096, 32768] {
        let want = format!(
            "buffer {size}: seek 197 direct 1 tell 197 getc p tell 198 getc_ q tell 199 \
             read 3 rst tell 202"
        );
        assert!(got.lines().any(|l| l == want), "{got}");
    }
}
