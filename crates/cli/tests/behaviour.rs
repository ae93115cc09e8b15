//! The common gzip options run against both GNU gzip and hyperz in twin directories: the
//! resulting files, their contents and the exit codes must match. Compressed bytes are not
//! compared (only what they decode to), since hyperz's encoder is not gzip's.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const HYPERZ: &str = env!("CARGO_BIN_EXE_hyperz");

fn sample(name: &str) -> Vec<u8> {
    fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../data/sample")
            .join(name),
    )
    .unwrap()
}

struct Twin {
    root: PathBuf,
}

impl Twin {
    fn new(tag: &str) -> Twin {
        let root = std::env::temp_dir().join(format!("hyperz-beh-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for side in ["gzip", "hyperz"] {
            fs::create_dir_all(root.join(side)).unwrap();
        }
        Twin { root }
    }
    fn dir(&self, side: &str) -> PathBuf {
        self.root.join(side)
    }
    fn write(&self, rel: &str, data: &[u8]) {
        for side in ["gzip", "hyperz"] {
            let p = self.dir(side).join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, data).unwrap();
        }
    }
    /// Runs the same arguments with both programs; returns (gzip, hyperz) outputs.
    fn run(&self, args: &[&str]) -> (Output, Output) {
        self.run_with(args, &[])
    }
    /// [`Twin::run`] with other programs in place of gzip's side (`(side, program)`).
    fn run_with(&self, args: &[&str], programs: &[(&str, &str)]) -> (Output, Output) {
        let go = |side: &str| {
            let program = programs
                .iter()
                .find(|(s, _)| *s == side)
                .map_or(if side == "hyperz" { HYPERZ } else { side }, |(_, p)| p);
            Command::new(program)
                .args(args)
                .current_dir(self.dir(side))
                .stdin(Stdio::null())
                .output()
                .unwrap()
        };
        (go("gzip"), go("hyperz"))
    }
    /// Sets the modification time of `names` (relative paths) on both sides to `secs`.
    fn touch<S: AsRef<std::ffi::OsStr>>(
        &self,
        secs: u32,
        names: impl IntoIterator<Item = S> + Clone,
    ) {
        for side in ["gzip", "hyperz"] {
            let st = Command::new("touch")
                .args(["-d", &format!("@{secs}")])
                .args(names.clone())
                .current_dir(self.dir(side))
                .status()
                .unwrap();
            assert!(st.success());
        }
    }
    /// Files in a side, with contents decoded if gzip-compressed (so encoders may differ).
    fn state(&self, side: &str) -> BTreeMap<String, Vec<u8>> {
        let mut m = BTreeMap::new();
        walk(&self.dir(side), &self.dir(side), &mut m);
        m
    }
    fn assert_same_state(&self, what: &str) {
        let (g, h) = (self.state("gzip"), self.state("hyperz"));
        assert_eq!(
            g.keys().collect::<Vec<_>>(),
            h.keys().collect::<Vec<_>>(),
            "{what}: different files"
        );
        for (k, v) in &g {
            assert!(h[k] == *v, "{what}: {k} differs");
        }
    }
}

impl Drop for Twin {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.root);
    }
}

fn walk(base: &Path, dir: &Path, m: &mut BTreeMap<String, Vec<u8>>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            walk(base, &p, m);
            continue;
        }
        let rel = p.strip_prefix(base).unwrap().to_string_lossy().into_owned();
        let raw = fs::read(&p).unwrap();
        let data = if raw.starts_with(&[0x1f, 0x8b]) {
            let out = Command::new("gzip").args(["-dc"]).arg(&p).output().unwrap();
            assert!(out.status.success(), "{rel} does not decode with gzip");
            out.stdout
        } else {
            raw
        };
        m.insert(rel, data);
    }
}

fn codes(o: &(Output, Output)) -> (Option<i32>, Option<i32>) {
    (o.0.status.code(), o.1.status.code())
}

#[test]
fn compress_replaces_the_file_and_decompress_restores_it() {
    let t = Twin::new("basic");
    t.write("a.txt", &sample("alice29.txt"));
    t.write("b.c", &sample("fields.c"));
    let r = t.run(&["a.txt", "b.c"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("compress");
    let r = t.run(&["-d", "a.txt.gz", "b.c.gz"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("decompress");
}

#[test]
fn keep_stdout_and_levels() {
    let t = Twin::new("keep");
    t.write("x", &sample("xargs.1"));
    for args in [
        &["-k", "-9", "x"][..],
        &["-dk", "x.gz"],
        &["-f", "-1k", "x"],
    ] {
        if args[0] == "-dk" {
            for side in ["gzip", "hyperz"] {
                fs::remove_file(t.dir(side).join("x")).unwrap();
            }
        }
        let r = t.run(args);
        assert_eq!(codes(&r), (Some(0), Some(0)), "{args:?}");
        t.assert_same_state(&format!("{args:?}"));
    }
    let r = t.run(&["-c", "x"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    let out = Command::new("gzip")
        .arg("-dc")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let mut child = out.unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&r.1.stdout).unwrap();
    assert_eq!(child.wait_with_output().unwrap().stdout, sample("xargs.1"));
}

#[test]
fn existing_output_is_not_overwritten_without_force() {
    let t = Twin::new("exists");
    t.write("f", b"new data new data");
    t.write("f.gz", b"precious");
    let r = t.run(&["f"]);
    assert_eq!(codes(&r), (Some(2), Some(2)));
    t.assert_same_state("no -f");
    assert_eq!(fs::read(t.dir("hyperz").join("f.gz")).unwrap(), b"precious");
    let r = t.run(&["-f", "f"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("-f");
}

#[test]
fn warnings_and_errors_have_gzip_exit_codes() {
    let t = Twin::new("codes");
    t.write("plain", b"not compressed");
    t.write("done.gz", b"whatever");
    t.write("dir/inner", b"inner file");
    for args in [
        &["missing-file"][..],
        &["-d", "plain"],
        &["done.gz"],
        &["dir"],
        &["-d", "done.gz"],
        &["-t", "done.gz"],
    ] {
        let r = t.run(args);
        assert_eq!(
            codes(&r).0,
            codes(&r).1,
            "{args:?}: gzip {:?} hyperz {:?}",
            r.0,
            r.1
        );
        t.assert_same_state(&format!("{args:?}"));
        let msg = String::from_utf8_lossy(&r.1.stderr);
        if r.1.status.code() != Some(0) {
            assert!(msg.starts_with("hyperz: "), "{args:?}: {msg}");
        }
    }
}

#[test]
fn recursive_and_suffix() {
    let t = Twin::new("rec");
    t.write("d/one", &sample("grammar.lsp"));
    t.write("d/sub/two", &sample("cp.html"));
    let r = t.run(&["-r", "d"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("-r");
    let r = t.run(&["-dr", "d"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("-dr");
    let r = t.run(&["-S", ".zz", "d/one"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("-S");
    let r = t.run(&["-d", "-S", ".zz", "d/one.zz"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("-d -S");
}

#[test]
fn name_and_time_are_stored_and_restored_with_n() {
    let t = Twin::new("name");
    t.write("original.txt", b"some text for the name test");
    let r = t.run(&["original.txt"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    for side in ["gzip", "hyperz"] {
        fs::rename(
            t.dir(side).join("original.txt.gz"),
            t.dir(side).join("renamed.gz"),
        )
        .unwrap();
    }
    let r = t.run(&["-dN", "renamed.gz"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("-N");
    let tg = fs::metadata(t.dir("gzip").join("original.txt"))
        .unwrap()
        .modified()
        .unwrap();
    let th = fs::metadata(t.dir("hyperz").join("original.txt"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(tg, th);
}

#[test]
fn list_matches_gzip() {
    let t = Twin::new("list");
    t.write("a", &sample("sum"));
    t.write("b", &sample("fields.c"));
    // Both list gzip's own files so the sizes are identical.
    let _ = Command::new("gzip")
        .args(["-k", "a", "b"])
        .current_dir(t.dir("gzip"))
        .status();
    for f in ["a.gz", "b.gz"] {
        fs::copy(t.dir("gzip").join(f), t.dir("hyperz").join(f)).unwrap();
    }
    let r = t.run(&["-l", "a.gz", "b.gz"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    let (g, h) = (
        String::from_utf8_lossy(&r.0.stdout),
        String::from_utf8_lossy(&r.1.stdout),
    );
    let g_rows: Vec<&str> = g.lines().take(3).collect();
    let h_rows: Vec<&str> = h.lines().take(3).collect();
    assert_eq!(g_rows, h_rows);
}

#[test]
fn trailing_garbage_is_a_warning_and_the_data_is_kept() {
    let t = Twin::new("trail");
    t.write("f", &sample("grammar.lsp"));
    let _ = t.run(&["f"]);
    for side in ["gzip", "hyperz"] {
        let p = t.dir(side).join("f.gz");
        let mut d = fs::read(&p).unwrap();
        d.extend_from_slice(b"garbage!");
        fs::write(&p, d).unwrap();
    }
    let r = t.run(&["-d", "f.gz"]);
    assert_eq!(codes(&r), (Some(2), Some(2)));
    t.assert_same_state("trailing garbage");
}

/// One byte after the last member that is not zero: gzip reads it as the start of the next
/// member's magic, finds the input ended, and fails ("unexpected end of file", exit 1), keeping
/// the .gz and writing no file; one zero byte is padding, two bytes are trailing garbage.
#[test]
fn a_lone_trailing_byte_is_an_unexpected_end_of_file() {
    let t = Twin::new("trail1");
    t.write("f", &sample("grammar.lsp"));
    let _ = t.run(&["f"]);
    for (tail, code) in [(&b"A"[..], 1), (b"\x1f", 1), (b"\0", 0), (b"AB", 2)] {
        for side in ["gzip", "hyperz"] {
            let mut d = fs::read(t.dir(side).join("f.gz")).unwrap();
            d.extend_from_slice(tail);
            fs::write(t.dir(side).join("g.gz"), d).unwrap();
        }
        let r = t.run(&["-dc", "g.gz"]);
        assert_eq!(codes(&r), (Some(code), Some(code)), "-dc, tail {tail:?}");
        assert!(r.0.stdout == r.1.stdout, "-dc output, tail {tail:?}");
        let r = t.run(&["-t", "g.gz"]);
        assert_eq!(codes(&r), (Some(code), Some(code)), "-t, tail {tail:?}");
        let r = t.run(&["-d", "g.gz"]);
        assert_eq!(codes(&r), (Some(code), Some(code)), "-d, tail {tail:?}");
        for side in ["gzip", "hyperz"] {
            let (gz, plain) = (t.dir(side).join("g.gz"), t.dir(side).join("g"));
            assert_eq!(gz.exists(), code == 1, "{side}: g.gz kept, tail {tail:?}");
            assert_eq!(
                plain.exists(),
                code != 1,
                "{side}: g written, tail {tail:?}"
            );
            let _ = fs::remove_file(gz);
            let _ = fs::remove_file(plain);
        }
    }
}

/// Names that look compressed already, symbolic links and repeated options, as gzip has them:
/// a known suffix (.gz, .tgz, .taz, .z, -gz, -z, _z in any case, or the -S one) is left alone
/// with a notice and exit 0 unless -f; a symbolic link is an error (exit 1) unless -f, or -c,
/// which only reads it; an option may be repeated, the last -S winning.
#[test]
fn compressed_suffixes_symlinks_and_repeated_options() {
    let t = Twin::new("suffix");
    let names = ["a.tgz", "b.TAZ", "c_z", "d-z", "e.z", "f-gz", "g.gz.txt"];
    for f in names {
        t.write(f, &sample("fields.c"));
    }
    let r = t.run(&names);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("known suffixes left alone, g.gz.txt compressed");
    let r = t.run(&["-f", "a.tgz", "e.z"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("-f compresses them");
    let r = t.run(&[
        "-S",
        ".x",
        "-S",
        ".y",
        "-d",
        "-d",
        "-c",
        "-c",
        "g.gz.txt.gz",
    ]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    assert!(r.0.stdout == r.1.stdout && !r.0.stdout.is_empty());
    let r = t.run(&["-S", ".x", "-S", ".y", "c_z"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("-S .y: c_z keeps its _z");
    for side in ["gzip", "hyperz"] {
        std::os::unix::fs::symlink("c_z", t.dir(side).join("link")).unwrap();
    }
    let r = t.run(&["link"]);
    assert_eq!(codes(&r), (Some(1), Some(1)));
    t.assert_same_state("a link is not compressed");
    let r = t.run(&["-c", "link"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    let r = t.run(&["-f", "link"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("-f: the link's data, the link replaced");
}

/// `zcat -f`: with -f, -c and -t take input that is not gzip as it is, from the start or after
/// the last member; without -f it is an error, or trailing garbage. -l decompresses first, as
/// gzip 1.12 does: a truncated file is an error and one with trailing garbage a warning,
/// neither listed; under -r, -t and -l pass over names without a compressed suffix.
#[test]
fn plain_input_with_f_and_listing_damaged_files() {
    let t = Twin::new("plainf");
    t.write("plain", b"plain text\n");
    let gz = Command::new("gzip")
        .args(["-c", "-n"])
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../data/sample")
                .join("grammar.lsp"),
        )
        .output()
        .unwrap()
        .stdout;
    let mut tail = gz.clone();
    tail.extend_from_slice(b"and some plain text after it\n");
    t.write("tail.gz", &tail);
    t.write("cut.gz", &gz[..gz.len() / 2]);
    t.write("sub/whole.gz", &gz);
    t.write("sub/plain", b"not compressed");
    let r = t.run(&["-dcf", "plain", "tail.gz"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    assert!(r.0.stdout == r.1.stdout, "-dcf output");
    assert!(r.1.stdout.ends_with(b"and some plain text after it\n"));
    for (args, want) in [
        (&["-tf", "plain", "tail.gz"][..], 0),
        (&["-t", "plain"], 1),
        (&["-dc", "tail.gz"], 2),
        (&["-l", "cut.gz"], 1),
        (&["-l", "tail.gz"], 2),
        (&["-r", "-t", "sub"], 0),
        (&["-r", "-l", "sub/plain"], 0),
    ] {
        let r = t.run(args);
        assert_eq!(codes(&r), (Some(want), Some(want)), "{args:?}");
        if args[0] == "-l" {
            assert!(
                r.0.stdout.is_empty() && r.1.stdout.is_empty(),
                "{args:?}: listed"
            );
        }
    }
    // Nothing written or removed (the damaged files do not decode, so names only).
    let names = |side: &str| {
        let mut v: Vec<String> = ["", "sub"]
            .iter()
            .flat_map(|d| fs::read_dir(t.dir(side).join(d)).unwrap())
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names("gzip"), names("hyperz"));
    assert_eq!(names("hyperz").len(), 6);
    // -lv shows the file's time when the header has none (gzip -n wrote 0).
    t.touch(1_700_000_000, ["sub/whole.gz"]);
    let r = t.run(&["-lv", "sub/whole.gz"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    assert_eq!(
        String::from_utf8_lossy(&r.0.stdout),
        String::from_utf8_lossy(&r.1.stdout)
    );
}

/// -l rows and totals as gzip 1.12 prints them, on the same files (written by gzip, so the
/// sizes agree): a file of several members shows its last member's size and a ratio over all
/// its bytes; the totals leave out the header and trailer of the last file listed only; a
/// file with zeros after its last member gets no row (a warning with -v); standard input is
/// decompressed as files are, and -df on it passes plain data through.
#[test]
fn list_rows_and_totals_like_gzip() {
    let t = Twin::new("listrows");
    let gz = |data: &[u8]| {
        let mut c = Command::new("gzip")
            .args(["-c", "-n"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        c.stdin.take().unwrap().write_all(data).unwrap();
        c.wait_with_output().unwrap().stdout
    };
    let (a, b) = (gz(&sample("fields.c")), gz(&sample("grammar.lsp")));
    t.write("one.gz", &a);
    t.write("two.gz", &[&a[..], &b[..]].concat());
    t.write("zeros.gz", &[&b[..], &[0u8; 64][..]].concat());
    for (args, want) in [
        (&["-l", "two.gz", "one.gz"][..], 0),
        (&["-l", "one.gz", "two.gz"], 0),
        (&["-l", "zeros.gz", "one.gz"], 0),
        (&["-lv", "zeros.gz"], 2),
    ] {
        let r = t.run(args);
        assert_eq!(codes(&r), (Some(want), Some(want)), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&r.0.stdout),
            String::from_utf8_lossy(&r.1.stdout),
            "{args:?}"
        );
    }
    let piped = |program: &str, args: &[&str], input: &[u8]| run_in(&t.root, program, args, input);
    let two = [&a[..], &b[..]].concat();
    for (args, input) in [
        (&["-l"][..], &two[..]),
        (&["-l"], &two[..two.len() - 5]),
        (&["-df"], b"plain, not gzip\n"),
        (&["-d"], b"plain, not gzip\n"),
    ] {
        assert_eq!(
            piped("gzip", args, input),
            piped(HYPERZ, args, input),
            "{args:?} on stdin"
        );
    }
}

/// `--rsyncable`, as gzip has it: the output decodes to the input (the resynchronising itself is
/// tested on the parallel compressor).
#[test]
fn rsyncable_is_accepted_and_decodes() {
    let t = Twin::new("rsync");
    t.write("big", &sample("kennedy.xls").repeat(2));
    let r = t.run(&["--rsyncable", "-k", "big"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("--rsyncable");
}

/// pigz's header options, against pigz: -m stores no time, -M stores it even with -n, the last
/// of -m/-M wins, -C stores a comment; -b (block size in KiB) and -R (--rsyncable) are taken.
/// Compared: the header's MTIME, FNAME and FCOMMENT, and the data.
#[test]
fn pigz_header_and_block_options() {
    let t = Twin::new("pigzopts");
    t.write("f.txt", &sample("alice29.txt"));
    let st = Command::new("touch")
        .args(["-d", "@1700000000"])
        .arg(t.dir("hyperz").join("f.txt"))
        .status()
        .unwrap();
    assert!(st.success());
    // (MTIME, FNAME, FCOMMENT) of a gzip member.
    let fields = |g: &[u8]| {
        let (flg, mtime) = (g[3], u32::from_le_bytes(g[4..8].try_into().unwrap()));
        let mut p = 10;
        if flg & 4 != 0 {
            p += 2 + u16::from_le_bytes([g[10], g[11]]) as usize;
        }
        let mut text = |bit: u8| {
            (flg & bit != 0).then(|| {
                let e = p + g[p..].iter().position(|&b| b == 0).unwrap();
                let s = g[p..e].to_vec();
                p = e + 1;
                s
            })
        };
        let name = text(8);
        (mtime, name, text(16))
    };
    let dir = t.dir("hyperz");
    for args in [
        &["-c", "-m"][..],
        &["-c", "-n", "-M"],
        &["-c", "-m", "-M"],
        &["-c", "-M", "-m"],
        &["-c", "-C", "a comment"],
        &["-c", "-b", "64", "-R", "-p", "2"],
    ] {
        let run = |program: &str| {
            let o = Command::new(program)
                .args(args)
                .arg("f.txt")
                .current_dir(&dir)
                .output()
                .unwrap();
            assert!(o.status.success(), "{program} {args:?}");
            o.stdout
        };
        let (p, h) = (run("pigz"), run(HYPERZ));
        assert_eq!(fields(&p), fields(&h), "{args:?}");
        let mut d = Command::new("gzip")
            .arg("-dc")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        d.stdin.take().unwrap().write_all(&h).unwrap();
        assert!(d.wait_with_output().unwrap().stdout == sample("alice29.txt"));
    }
}

/// pigz's -H (Huffman codes only) and -U (run-length matches only), the last of them counting:
/// each stream, ours and pigz's for the same options, keeps to the strategy (no match; only
/// distance-one matches), decodes with gzip (pigz for -z), and ours is the same on one engine
/// and on two. Before, both options were refused.
#[test]
fn pigz_strategy_options() {
    let t = Twin::new("strategy");
    let mut data: Vec<u8> = ["alice29.txt", "kennedy.xls", "ptt5"]
        .iter()
        .flat_map(|n| sample(n))
        .collect();
    data.extend(std::iter::repeat_n(b'=', 5000));
    let data: Vec<u8> = data.iter().copied().cycle().take(1_500_000).collect();
    // The raw DEFLATE after a gzip header (its optional fields skipped) or a zlib header.
    let body = |g: &[u8], zlib: bool| -> Vec<u8> {
        if zlib {
            return g[2..].to_vec();
        }
        let flg = g[3];
        let mut p = 10;
        if flg & 4 != 0 {
            p += 2 + u16::from_le_bytes([g[10], g[11]]) as usize;
        }
        for bit in [8, 16] {
            if flg & bit != 0 {
                p += g[p..].iter().position(|&b| b == 0).unwrap() + 1;
            }
        }
        if flg & 2 != 0 {
            p += 2;
        }
        g[p..].to_vec()
    };
    let dir = t.dir("hyperz");
    for (opts, huffman) in [
        (&["-H"][..], true),
        (&["-U"], false),
        (&["-U", "-H"], true),
        (&["--huffman", "--rle"], false),
        (&["-H", "-z", "-1"], true),
        (&["-U", "-z", "-9"], false),
    ] {
        let zlib = opts.contains(&"-z");
        let mut ours = Vec::new();
        for (program, p) in [(HYPERZ, "1"), (HYPERZ, "2"), ("pigz", "2")] {
            let args: Vec<&str> = opts.iter().copied().chain(["-c", "-p", p]).collect();
            let (code, out) = run_in(&dir, program, &args, &data);
            assert_eq!(code, Some(0), "{program} {args:?}");
            let (decoder, dargs) = if zlib {
                ("pigz", &["-dcz"][..])
            } else {
                ("gzip", &["-dc"][..])
            };
            let back = run_in(&dir, decoder, dargs, &out);
            assert!(back == (Some(0), data.clone()), "{program} {args:?}");
            let blocks = hyperz_tests::symbols::deflate_blocks(&body(&out, zlib));
            let matches: Vec<(u16, u16)> = blocks.iter().flat_map(|b| b.matches.clone()).collect();
            if huffman {
                assert!(matches.is_empty(), "{program} {args:?}: matches");
            } else {
                assert!(
                    !matches.is_empty() && matches.iter().all(|&(_, d)| d == 1),
                    "{program} {args:?}: distances"
                );
            }
            if program == HYPERZ {
                ours.push(out);
            }
        }
        assert!(ours[0] == ours[1], "{opts:?}: one engine and two differ");
    }
}

/// Runs `program` with `args` in `dir`, standard input from `input`; (exit code, stdout).
fn run_in(dir: &Path, program: &str, args: &[&str], input: &[u8]) -> (Option<i32>, Vec<u8>) {
    let o = run_full(dir, program, args, input);
    (o.status.code(), o.stdout)
}

/// [`run_in`] with the whole outcome, standard error included.
fn run_full(dir: &Path, program: &str, args: &[&str], input: &[u8]) -> Output {
    let mut c = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = c.stdin.take().unwrap();
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&input));
    let o = c.wait_with_output().unwrap();
    let _ = feeder.join();
    o
}

/// zip archives as gzip reads them (`zcat file.zip`): the first entry, deflated or stored,
/// with its sizes in the header or in a data descriptor, its CRC checked; a second entry is a
/// warning (exit 2); a damaged or truncated one an error; -l and -lv rows and totals. Against
/// gzip in twin directories, with the archives written by Python's zipfile.
#[test]
fn zip_archives_like_gzip() {
    let t = Twin::new("zip");
    let data = sample("alice29.txt");
    fs::write(t.root.join("alice.txt"), &data).unwrap();
    let py = r#"
import io, sys, zipfile
src = open(sys.argv[1], 'rb').read()
def write(name, method, entries, stream=False):
    class Sink(io.RawIOBase):
        def __init__(s): s.b = bytearray()
        def writable(s): return True
        def write(s, d): s.b += d; return len(d)
    sink = Sink() if stream else io.BytesIO()
    with zipfile.ZipFile(sink, 'w', method) as z:
        for i in range(entries):
            if stream:
                with z.open('e%d.txt' % i, 'w') as f: f.write(src)
            else:
                z.writestr('e%d.txt' % i, src)
    open(name, 'wb').write(bytes(sink.b) if stream else sink.getvalue())
write('d.zip', zipfile.ZIP_DEFLATED, 1)
write('s.zip', zipfile.ZIP_STORED, 1)
write('two.zip', zipfile.ZIP_DEFLATED, 2)
write('desc.zip', zipfile.ZIP_DEFLATED, 1, stream=True)
"#;
    let o = Command::new("python3")
        .args(["-c", py])
        .arg(t.root.join("alice.txt"))
        .current_dir(&t.root)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut zips = BTreeMap::new();
    for n in ["d.zip", "s.zip", "two.zip", "desc.zip"] {
        zips.insert(n, fs::read(t.root.join(n)).unwrap());
    }
    let d = zips["d.zip"].clone();
    let mut bad_crc = d.clone();
    bad_crc[14] ^= 0x40;
    zips.insert("crc.zip", bad_crc);
    zips.insert("cut.zip", d[..d.len() / 2].to_vec());
    for (n, z) in &zips {
        t.write(n, z);
    }
    t.touch(1_700_000_000, zips.keys());
    for (n, z) in &zips {
        for args in [&["-dc", n][..], &["-t", n], &["-l", n], &["-lv", n]] {
            let g = run_in(&t.dir("gzip"), "gzip", args, b"");
            let h = run_in(&t.dir("hyperz"), HYPERZ, args, b"");
            assert_eq!(g.0, h.0, "{args:?}: exit codes");
            assert!(g.1 == h.1, "{args:?}: output differs");
        }
        let stdin = (
            run_in(&t.root, "gzip", &["-dc"], z),
            run_in(&t.root, HYPERZ, &["-dc"], z),
        );
        assert!(stdin.0 == stdin.1, "{n} on standard input");
    }
    assert_eq!(
        run_in(&t.dir("hyperz"), HYPERZ, &["-dc", "desc.zip"], b""),
        (Some(0), data.clone())
    );
    let r = t.run(&["-l", "d.zip", "s.zip", "two.zip"]);
    assert_eq!(codes(&r), (Some(2), Some(2)));
    assert_eq!(r.0.stdout, r.1.stdout, "rows and totals");
    // Files: .zip is not a suffix gzip knows (an error); with -S it is.
    let r = t.run(&["-d", "d.zip"]);
    assert_eq!(codes(&r), (Some(2), Some(2)));
    let r = t.run(&["-d", "-S", ".zip", "d.zip", "s.zip"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("-d -S .zip");
    assert!(fs::read(t.dir("hyperz").join("s")).unwrap() == data);
}

/// zlib streams as pigz reads them (its -z output): one stream, its Adler-32 checked, then
/// gzip's rules for what follows. Against pigz's own decoding of the same streams.
#[test]
fn zlib_streams_like_pigz() {
    let t = Twin::new("zlib");
    let data = sample("alice29.txt");
    let zz = run_in(&t.root, "pigz", &["-z", "-c"], &data).1;
    assert_eq!(&zz[..1], b"x");
    let out = |args: &[&str], input: &[u8]| run_in(&t.root, HYPERZ, args, input);
    assert_eq!(out(&["-dc"], &zz), (Some(0), data.clone()));
    assert_eq!(
        run_in(&t.root, "pigz", &["-dc"], &zz),
        (Some(0), data.clone())
    );
    assert_eq!(out(&["-t"], &zz).0, Some(0));
    // Trailing bytes: a warning, the data kept (pigz warns too).
    let junk = [&zz[..], b"junk"].concat();
    assert_eq!(out(&["-dc"], &junk), (Some(2), data.clone()));
    // Damage: an error.
    let mut bad = zz.clone();
    let n = bad.len();
    bad[n - 2] ^= 1;
    assert_eq!(out(&["-t"], &bad).0, Some(1));
    assert_eq!(out(&["-t"], &zz[..n / 2]).0, Some(1));
    // Under -f -c plain text that happens to start like a zlib header passes through.
    let text = b"x^ plain text, not zlib\n";
    assert_eq!(out(&["-dcf"], text), (Some(0), text.to_vec()));
    // -z writes them, as pigz -z: f becomes f.zz (the input removed), which pigz and Python's
    // zlib decode, at any level and engine count; -d restores f from f.zz.
    let big: Vec<u8> = (0..6).flat_map(|_| data.clone()).collect();
    for level in ["-1", "-6", "-11"] {
        for p in ["1", "2"] {
            t.write("f", &big);
            let r = t.run_with(&["-z", level, "-p", p, "f"], &[("gzip", "pigz")]);
            assert_eq!(codes(&r), (Some(0), Some(0)), "-z {level} -p {p}");
            for side in ["gzip", "hyperz"] {
                let dir = t.dir(side);
                assert!(!dir.join("f").exists() && dir.join("f.zz").exists());
                let zz = fs::read(dir.join("f.zz")).unwrap();
                assert_eq!(run_in(&dir, "pigz", &["-dc"], &zz), (Some(0), big.clone()));
                let py = "import sys, zlib; sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read()))";
                assert_eq!(
                    run_in(&dir, "python3", &["-c", py], &zz),
                    (Some(0), big.clone())
                );
            }
            let r = t.run_with(&["-d", "f.zz"], &[("gzip", "pigz")]);
            assert_eq!(codes(&r), (Some(0), Some(0)));
            t.assert_same_state("-d f.zz");
            for side in ["gzip", "hyperz"] {
                fs::remove_file(t.dir(side).join("f")).unwrap();
            }
        }
    }
}

/// -l with -N shows the stored name and time, without it the file's name and time, as gzip
/// does; standard input's time is its file's, or 0 for a pipe.
#[test]
fn list_names_and_times_like_gzip() {
    let t = Twin::new("listn");
    t.write("orig.txt", &sample("fields.c"));
    for side in ["gzip", "hyperz"] {
        let dir = t.dir(side);
        let ok = |args: &[&str]| {
            let st = Command::new(args[0])
                .args(&args[1..])
                .current_dir(&dir)
                .status()
                .unwrap();
            assert!(st.success(), "{args:?}");
        };
        ok(&["touch", "-d", "@1600000000", "orig.txt"]);
        ok(&["gzip", "-k", "orig.txt"]);
        ok(&["cp", "orig.txt.gz", "copy.gz"]);
        ok(&["touch", "-d", "@1700000000", "copy.gz", "orig.txt.gz"]);
    }
    for args in [
        &["-lv", "orig.txt.gz", "copy.gz"][..],
        &["-lvN", "orig.txt.gz", "copy.gz"],
        &["-lN", "copy.gz"],
    ] {
        let r = t.run(args);
        assert_eq!(codes(&r), (Some(0), Some(0)), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&r.0.stdout),
            String::from_utf8_lossy(&r.1.stdout),
            "{args:?}"
        );
    }
    let gz = fs::read(t.dir("gzip").join("copy.gz")).unwrap();
    for args in [&["-lv"][..], &["-lvN"]] {
        assert_eq!(
            run_in(&t.root, "gzip", args, &gz),
            run_in(&t.root, HYPERZ, args, &gz),
            "{args:?} on a pipe"
        );
        let file = |program: &str| {
            let o = Command::new(program)
                .args(args)
                .stdin(fs::File::open(t.dir("gzip").join("copy.gz")).unwrap())
                .output()
                .unwrap();
            (o.status.code(), o.stdout)
        };
        assert_eq!(file("gzip"), file(HYPERZ), "{args:?} on a file as stdin");
    }
}

/// pigz's -K: f becomes f.zip, one deflated entry named f with f's time, which Python's zipfile
/// (checking the central directory), pigz and hyperz read back; from standard input the entry
/// is named "-". Against pigz -K in twin directories.
#[test]
fn zip_output_like_pigz() {
    let t = Twin::new("zipout");
    let data: Vec<u8> = (0..4).flat_map(|_| sample("alice29.txt")).collect();
    t.write("f", &data);
    t.touch(1_700_000_000, ["f"]);
    let r = t.run_with(&["-K", "-p", "2", "f"], &[("gzip", "pigz")]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    let py = "import sys, zipfile\n\
              z = zipfile.ZipFile(sys.argv[1]); i = z.infolist()[0]\n\
              assert z.testzip() is None\n\
              print(len(z.infolist()), i.filename, i.date_time, i.file_size, z.read(i) == open(sys.argv[2], 'rb').read())";
    fs::write(t.root.join("want"), &data).unwrap();
    let mut seen = Vec::new();
    for side in ["gzip", "hyperz"] {
        let dir = t.dir(side);
        assert!(!dir.join("f").exists());
        let o = Command::new("python3")
            .args(["-c", py])
            .arg(dir.join("f.zip"))
            .arg(t.root.join("want"))
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{side}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        seen.push(String::from_utf8(o.stdout).unwrap());
        let z = fs::read(dir.join("f.zip")).unwrap();
        assert_eq!(run_in(&dir, "pigz", &["-dc"], &z), (Some(0), data.clone()));
        assert_eq!(run_in(&dir, HYPERZ, &["-dc"], &z), (Some(0), data.clone()));
    }
    assert_eq!(seen[0], seen[1]);
    assert!(
        seen[1].starts_with("1 f (2023, 11, 14, 22, 13, 20)"),
        "{}",
        seen[1]
    );
    let z = run_in(&t.root, HYPERZ, &["-K"], b"from a pipe\n").1;
    fs::write(t.root.join("p.zip"), &z).unwrap();
    fs::write(t.root.join("want"), b"from a pipe\n").unwrap();
    let o = Command::new("python3")
        .args(["-c", py])
        .arg(t.root.join("p.zip"))
        .arg(t.root.join("want"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("1 - "));
    assert!(String::from_utf8_lossy(&o.stdout)
        .trim_end()
        .ends_with("True"));
    // -A names it, as pigz's -A does.
    let py = "import io, sys, zipfile\n\
              print(zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read())).namelist())";
    let names: Vec<Vec<u8>> = ["pigz", HYPERZ]
        .iter()
        .map(|p| {
            let z = run_in(&t.root, p, &["-K", "-A", "table.csv"], b"a,b\n").1;
            run_in(&t.root, "python3", &["-c", py], &z).1
        })
        .collect();
    assert_eq!(names[0], names[1]);
    assert_eq!(names[1], b"['table.csv']\n");
}

/// The inputs of the other-format tests: text ("t"), mixed data ("m"), no bytes ("e") and
/// one ("o").
fn format_samples() -> [(&'static str, Vec<u8>); 4] {
    let mixed = [sample("kennedy.xls"), sample("alice29.txt"), sample("ptt5")].concat();
    [
        ("t", sample("alice29.txt")),
        ("m", mixed),
        ("e", Vec::new()),
        ("o", b"x".to_vec()),
    ]
}

/// `z` with `n` bytes after its first `keep` set to random values.
fn damaged(z: &[u8], keep: usize, n: usize, rnd: &mut impl FnMut() -> u64) -> Vec<u8> {
    let mut d = z.to_vec();
    for _ in 0..n {
        let r = rnd();
        let at = keep + (r >> 8) as usize % (d.len() - keep);
        d[at] = r as u8;
    }
    d
}

/// compress (.Z) files as gzip reads them: written by ncompress at code widths 10 to 16, in
/// block mode (with table clears on mixed data) and without (-C, which neither gzip nor
/// compress itself decodes: then the same error), empty and one byte; -dc,
/// -t, -l, -lv and -d (file.Z becomes file) against gzip in twin directories, and 200
/// damaged copies whose output and exit code must be gzip's (the output before the damage,
/// then an error, or whatever the damage decodes to: LZW has no checksum).
#[test]
fn compress_files_like_gzip() {
    let t = Twin::new("lzw");
    let mut names = Vec::new();
    for (name, data) in &format_samples() {
        // (Not -b 9: compress 4.2's own decoder and gzip's both reject what it writes there.)
        for (bits, compat) in [("10", false), ("12", false), ("16", false), ("16", true)] {
            let mut args = vec!["-c", "-b", bits];
            if compat {
                args.push("-C");
            }
            let (code, z) = run_in(&t.root, "compress", &args, data);
            assert!(
                code == Some(0) || (code == Some(2) && data.len() < 2),
                "compress {args:?}"
            );
            if z.len() < 3 {
                continue; // compress writes nothing for what it cannot shrink to stdout
            }
            let n = format!("{name}{bits}{}.Z", if compat { "c" } else { "" });
            t.write(&n, &z);
            names.push((n, z));
        }
    }
    assert!(names.len() >= 8, "compress made {} files", names.len());
    t.touch(1_700_000_000, names.iter().map(|(n, _)| n));
    // Files that decode (compress 4.2's -C output does not, with gzip or compress -d).
    let mut good = Vec::new();
    for (n, _) in &names {
        for args in [&["-dc", n][..], &["-t", n], &["-l", n], &["-lv", n]] {
            let r = t.run(args);
            assert_eq!(codes(&r).0, codes(&r).1, "{args:?}: exit codes");
            assert!(r.0.stdout == r.1.stdout, "{args:?}: output differs");
            if args[0] == "-t" && codes(&r).0 == Some(0) {
                good.push(n.as_str());
            }
        }
    }
    assert!(good.len() >= 7, "only {good:?} decode");
    let all = good;
    let r = t.run(&[&["-d"][..], &all].concat());
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("-d *.Z");
    let mut rnd = hyperz_tests::xorshift(0x2545_F491_4F6C_DD1D);
    let z = &names.iter().find(|(n, _)| n == "m12.Z").unwrap().1;
    for i in 0..200 {
        let d = damaged(z, 3, 1 + i % 3, &mut rnd);
        assert_eq!(
            run_in(&t.root, "gzip", &["-dc"], &d),
            run_in(&t.root, HYPERZ, &["-dc"], &d),
            "damaged copy {i}"
        );
    }
}

/// SCO `compress -H` (LZH) files as gzip reads them. No Debian package writes them, so the
/// tests crate's writer does (gzip decodes each file to its input first): text, mixed data,
/// no bytes and one, in blocks of 16,384 codes, of 100, and literals only. -dc, -t, -l, -lv
/// and -d (file.Z becomes file) against gzip in twin directories; then 200 damaged copies:
/// where gzip fails so do we, where we succeed gzip gives the same output, and where we fail
/// alone (a table that is not complete, which gzip decodes on with) one output starts the
/// other. A truncated file: gzip decodes the zeros past its end as data and succeeds; we say
/// "unexpected end of file" and exit with 1, after the bytes before the cut.
#[test]
fn lzh_files_like_gzip() {
    use hyperz_tests::lzh::{lzh, LzhOptions};
    let t = Twin::new("lzh");
    let samples = format_samples();
    let mixed = &samples[1].1;
    let mut names = Vec::new();
    for (name, data) in &samples {
        for (tag, block_codes, matches) in
            [("", 16_384, true), ("b", 100, true), ("l", 16_384, false)]
        {
            let z = lzh(
                data,
                LzhOptions {
                    block_codes,
                    matches,
                },
            );
            assert_eq!(
                run_in(&t.root, "gzip", &["-dc"], &z),
                (Some(0), data.clone()),
                "gzip reads the writer's {name}{tag}"
            );
            let n = format!("{name}{tag}.Z");
            t.write(&n, &z);
            names.push((n, z));
        }
    }
    t.touch(1_700_000_000, names.iter().map(|(n, _)| n));
    for (n, _) in &names {
        for args in [&["-dc", n][..], &["-t", n], &["-l", n], &["-lv", n]] {
            let r = t.run(args);
            assert_eq!(codes(&r), (Some(0), Some(0)), "{args:?}: exit codes");
            assert!(r.0.stdout == r.1.stdout, "{args:?}: output differs");
        }
    }
    let all: Vec<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
    let r = t.run(&[&["-d"][..], &all].concat());
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("-d *.Z");
    let z = &names.iter().find(|(n, _)| n == "mb.Z").unwrap().1;
    let mut rnd = hyperz_tests::xorshift(0x2545_F491_4F6C_DD1E);
    let mut alone = 0;
    for i in 0..200 {
        let d = damaged(z, 2, 1 + i % 3, &mut rnd);
        let g = run_in(&t.root, "gzip", &["-dc"], &d);
        let h = run_in(&t.root, HYPERZ, &["-dc"], &d);
        match (g.0, h.0) {
            (_, Some(0)) => assert_eq!(g, h, "damaged copy {i}"),
            (Some(0), Some(1)) => {
                alone += 1;
                assert!(
                    g.1.starts_with(&h.1) || h.1.starts_with(&g.1),
                    "damaged copy {i}: outputs part"
                );
            }
            (gc, hc) => assert_eq!(gc, hc, "damaged copy {i}: exit codes"),
        }
    }
    assert!(alone < 150, "{alone} of 200 refused where gzip went on");
    let cut = &z[..z.len() / 2];
    let g = run_full(&t.root, "gzip", &["-dc"], cut);
    let h = run_full(&t.root, HYPERZ, &["-dc"], cut);
    assert_eq!((g.status.code(), h.status.code()), (Some(0), Some(1)));
    assert!(String::from_utf8_lossy(&h.stderr).contains("unexpected end of file"));
    assert!(mixed.starts_with(&h.stdout) && g.stdout.starts_with(&h.stdout));
}

/// gzip reads a member of each format it knows after a gzip member (get_method runs for
/// every member): packed, compress and LZH ones, and gzip members after packed ones. We took
/// what followed a gzip member for trailing garbage (exit 2, the rest lost). Against gzip:
/// -dc, -t and -l on gzip + compress, gzip + packed + gzip, gzip + LZH, independent members
/// (decoded on two engines) + packed + gzip, gzip + packed + garbage, packed + compress and
/// packed + LZH.
#[test]
fn members_of_other_formats_after_gzip_members_like_gzip() {
    use hyperz_tests::lzh::{lzh, LzhOptions};
    use hyperz_tests::pack::pack;
    let t = Twin::new("follow");
    let text = sample("alice29.txt");
    let xls = sample("kennedy.xls");
    let gz = |d: &[u8]| run_in(&t.root, "gzip", &["-c"], d).1;
    let z = run_in(&t.root, "compress", &["-c"], &xls).1;
    let (_, indep) = run_in(&t.root, HYPERZ, &["-i", "-c", "-b", "64"], &xls);
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("gz_Z", [gz(&text), z.clone()].concat()),
        (
            "gz_pack_gz",
            [gz(&text), pack(&xls), gz(b"tail\n")].concat(),
        ),
        (
            "gz_lzh",
            [gz(&xls), lzh(&text, LzhOptions::default())].concat(),
        ),
        ("indep_pack_gz", [indep, pack(&text), gz(&text)].concat()),
        (
            "gz_pack_junk",
            [gz(&text), pack(&xls), b"junk".to_vec()].concat(),
        ),
        ("pack_Z", [pack(&text), z.clone()].concat()),
        (
            "pack_lzh",
            [pack(&text), lzh(&xls, LzhOptions::default())].concat(),
        ),
    ];
    for (name, data) in &cases {
        t.write(name, data);
    }
    t.touch(1_700_000_000, cases.iter().map(|(n, _)| n));
    for (name, data) in &cases {
        for args in [&["-dc", name][..], &["-t", name], &["-l", name]] {
            let r = t.run(args);
            assert_eq!(codes(&r).0, codes(&r).1, "{args:?}: exit codes");
            assert!(r.0.stdout == r.1.stdout, "{args:?}: output differs");
        }
        let want = run_in(&t.root, "gzip", &["-dc"], data);
        let two = run_in(&t.root, HYPERZ, &["-dc", "-p", "2"], data);
        assert!(want == two, "{name} on two engines");
    }
    let r = t.run(&["-dc", "gz_pack_gz"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    assert_eq!(r.1.stdout, [&text[..], &xls, b"tail\n"].concat());
}

/// Independent members (-i) are decoded on every engine after the first: the output and the
/// exit code with two engines are those with one (the sequential decoder) and gzip's, on an
/// intact stream, with a damaged member in the middle, cut inside a member, with a foreign
/// member between independent ones, and with trailing garbage.
#[test]
fn independent_members_decode_alike_on_any_engine_count() {
    let t = Twin::new("indep");
    let data = members_data();
    let (code, z) = run_in(&t.root, HYPERZ, &["-i", "-c", "-b", "64"], &data);
    assert_eq!(code, Some(0));
    decode_alike_on_any_engine_count(&t, &z, &data, &[]);
}

/// BGZF blocks (bgzip's .gz, BAM) are independent members too: decoded on every engine, with
/// the same output and exit code as on one and as gzip's, in the same cases as -i output, plus
/// a block whose `BC` length is wrong. Two engines used to decode them one after another.
#[test]
fn bgzf_blocks_decode_alike_on_any_engine_count() {
    hyperz_tests::require_tool("bgzip");
    let t = Twin::new("bgzf");
    let data = members_data();
    let (code, z) = run_in(&t.root, "bgzip", &["-c"], &data);
    assert_eq!(code, Some(0));
    // The `BC` length of a block in the middle, one too long.
    let mid = z.len() / 2
        + z[z.len() / 2..]
            .windows(4)
            .position(|w| w == [0x1f, 0x8b, 8, 4])
            .unwrap();
    let mut bad_len = z.clone();
    bad_len[mid + 16] = bad_len[mid + 16].wrapping_add(1);
    decode_alike_on_any_engine_count(&t, &z, &data, &[("bad BC length", bad_len)]);
}

/// Files shorter than 64 KiB run on one engine (no core count asked, `files.rs`): the bytes
/// written, from a file or standard input, and what they decode to are the same on any
/// engine count, on both sides of that size, with blocks small enough (`-b 32`) that the
/// shorter file holds two.
#[test]
fn short_and_long_files_compress_alike_on_any_engine_count() {
    let t = Twin::new("short");
    let dir = t.dir("hyperz");
    let data = members_data();
    for len in [60 << 10, 70 << 10] {
        let input = &data[..len];
        fs::write(dir.join("f"), input).unwrap();
        // -n: no name or time in the header, which standard input has none of.
        for opts in [
            &["-nc", "-b", "32"][..],
            &["-nc", "-i", "-b", "32"],
            &["-nc", "-9"],
        ] {
            let mut outs = Vec::new();
            for p in ["1", "2", "3"] {
                let args: Vec<&str> = opts.iter().copied().chain(["-p", p, "f"]).collect();
                let (code, z) = run_in(&dir, HYPERZ, &args, b"");
                assert_eq!(code, Some(0), "{len} {args:?}");
                outs.push(z);
            }
            let args: Vec<&str> = opts.iter().copied().chain(["-p", "2"]).collect();
            outs.push(run_in(&dir, HYPERZ, &args, input).1);
            assert!(outs.windows(2).all(|w| w[0] == w[1]), "{len} {opts:?}");
            fs::write(dir.join("f.gz"), &outs[0]).unwrap();
            for p in ["1", "2"] {
                let back = run_in(&dir, HYPERZ, &["-dc", "-p", p, "f.gz"], b"");
                assert!(
                    back == (Some(0), input.to_vec()),
                    "{len} {opts:?} -d -p {p}"
                );
            }
            assert!(run_in(&dir, "gzip", &["-dc"], &outs[0]) == (Some(0), input.to_vec()));
        }
    }
}

/// The text, spreadsheet and image samples, three times: enough for a few dozen members.
fn members_data() -> Vec<u8> {
    (0..3)
        .flat_map(|_| [sample("alice29.txt"), sample("kennedy.xls"), sample("ptt5")].concat())
        .collect()
}

/// `z`, a stream of independent members of `data`, and its damaged forms (with `more`) decode
/// with two engines as with one, with gzip's exit code.
fn decode_alike_on_any_engine_count(t: &Twin, z: &[u8], data: &[u8], more: &[(&str, Vec<u8>)]) {
    let members = z.windows(4).filter(|w| *w == [0x1f, 0x8b, 8, 4]).count();
    assert!(members > 20, "{members} members");
    let foreign = run_in(&t.root, "gzip", &["-c"], b"a member gzip wrote\n").1;
    let third = z.len() / 3;
    let split = third
        + z[third..]
            .windows(4)
            .position(|w| w == [0x1f, 0x8b, 8, 4])
            .unwrap();
    let mut damaged = z.to_vec();
    damaged[split + 200] ^= 0x55;
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("intact", z.to_vec()),
        ("damaged", damaged),
        ("cut", z[..z.len() - z.len() / 5].to_vec()),
        ("foreign", [&z[..split], &foreign[..], &z[split..]].concat()),
        ("garbage", [z, b"garbage"].concat()),
    ];
    cases.extend(more.iter().cloned());
    for (what, input) in &cases {
        let one = run_in(&t.root, HYPERZ, &["-dc", "-p", "1"], input);
        let two = run_in(&t.root, HYPERZ, &["-dc", "-p", "2"], input);
        let gzip = run_in(&t.root, "gzip", &["-dc"], input);
        assert!(one == two, "{what}: two engines differ from one");
        assert_eq!(one.0, gzip.0, "{what}: exit code");
        if *what == "intact" {
            assert!(two.1 == data);
        }
    }
}

/// The GZIP environment variable, as gzip 1.12 reads it: levels, -n, -N, -q, -v and
/// --rsyncable apply before the command line's options (with a deprecation warning unless
/// quiet), anything else stops the run with exit 1. Level 1 from it must give level 1's size
/// class, and the command line's -9 must override it.
#[test]
fn gzip_environment_variable_like_gzip() {
    let t = Twin::new("envgzip");
    let data = sample("alice29.txt");
    let run = |program: &str, env: &str, args: &[&str]| {
        let o = Command::new(program)
            .args(args)
            .env("GZIP", env)
            .current_dir(&t.root)
            .output()
            .unwrap();
        let warned = String::from_utf8_lossy(&o.stderr).contains("deprecated");
        (o.status.code(), o.stdout, warned)
    };
    fs::write(t.root.join("a.txt"), &data).unwrap();
    let size = |out: &[u8]| {
        let d = run_in(&t.root, "gzip", &["-dc"], out);
        assert!(d == (Some(0), data.clone()), "decodes");
        out.len()
    };
    let (_, base, _) = run(HYPERZ, "", &["-c", "a.txt"]);
    for (env, args) in [
        ("-1", &["-c", "a.txt"][..]),
        ("-1", &["-9", "-c", "a.txt"]),
        ("--fast -n", &["-c", "a.txt"]),
        ("-1q", &["-c", "a.txt"]),
        ("-1", &["-q", "-c", "a.txt"]),
        ("-c", &["-c", "a.txt"]),
        ("-9 -k", &["-c", "a.txt"]),
        ("a.txt", &["-c", "a.txt"]),
        ("--synchronous", &["-c", "a.txt"]),
    ] {
        let (g, h) = (run("gzip", env, args), run(HYPERZ, env, args));
        assert_eq!(
            (g.0, g.2),
            (h.0, h.2),
            "GZIP={env} {args:?}: exit code, warning"
        );
        if g.0 == Some(0) {
            let fast = env.contains('1') || env.contains("fast");
            let fast = fast && !args.contains(&"-9");
            assert_eq!(size(&h.1) > size(&base), fast, "GZIP={env} {args:?}: level");
        }
    }
}

/// gzip 1.12 refuses an empty `-S` suffix in every mode and one over 30 bytes (exit 1, files
/// untouched); before, `hyperz -d -S ''` took `.gz` and decompressed.
#[test]
fn empty_and_overlong_suffixes_are_refused() {
    let t = Twin::new("badsuffix");
    t.write("f", b"some data");
    t.write("g", b"other data");
    let r = t.run_with(&["g"], &[("hyperz", "gzip")]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    let long = "x".repeat(31);
    for args in [
        &["-S", "", "f"][..],
        &["-d", "-S", "", "g.gz"],
        &["-dc", "-S", "", "g.gz"],
        &["-t", "-S", "", "g.gz"],
        &["-c", "-S", "", "f"],
        &["-S", &long, "f"],
    ] {
        let r = t.run(args);
        assert_eq!(codes(&r), (Some(1), Some(1)), "{args:?}");
        t.assert_same_state(&format!("{args:?}"));
        let msg = String::from_utf8_lossy(&r.1.stderr);
        assert!(
            msg.starts_with("hyperz: invalid suffix '"),
            "{args:?}: {msg}"
        );
    }
    let r = t.run(&["-S", &long[1..], "f"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("a 30-byte suffix");
}

/// An input of 0 or 1 bytes ends before gzip's two magic bytes: "unexpected end of file" from
/// both, with -d, -t and -l (it was "not in gzip format"); two bytes that are not the magic are
/// "not in gzip format".
#[test]
fn inputs_shorter_than_the_magic_are_truncated() {
    let t = Twin::new("short");
    for (name, data) in [
        ("e.gz", &b""[..]),
        ("o.gz", b"\x1f"),
        ("a.gz", b"a"),
        ("ab.gz", b"ab"),
    ] {
        t.write(name, data);
        let want = if data.len() < 2 {
            "unexpected end of file"
        } else {
            "not in gzip format"
        };
        for mode in ["-d", "-t", "-l", "-dc"] {
            let r = t.run(&[mode, name]);
            assert_eq!(codes(&r), (Some(1), Some(1)), "{mode} {name}");
            t.assert_same_state(&format!("{mode} {name}"));
            for (who, out) in [("gzip", &r.0), ("hyperz", &r.1)] {
                let msg = String::from_utf8_lossy(&out.stderr);
                assert!(msg.contains(want), "{who} {mode} {name}: {msg}");
            }
        }
    }
}

/// An input that cannot be removed once its output is complete: gzip warns and exits 2 (its
/// WARN, silent with -q), keeping both files; hyperz exited 1. Needs root, to run both tools as
/// `nobody` in a sticky directory, where nobody else may remove a file of root's.
#[test]
fn an_input_that_cannot_be_removed_is_a_warning() {
    let uid = Command::new("id").arg("-u").output().unwrap();
    if String::from_utf8_lossy(&uid.stdout).trim() != "0" {
        eprintln!("skipped: needs root to run gzip and hyperz as another user");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let t = Twin::new("unremovable");
    t.write("f", &sample("fields.c"));
    t.write("g", &sample("grammar.lsp"));
    for side in ["gzip", "hyperz"] {
        fs::set_permissions(t.dir(side), fs::Permissions::from_mode(0o1777)).unwrap();
    }
    let as_nobody = |side: &str, args: &[&str]| {
        let program = if side == "hyperz" { HYPERZ } else { "gzip" };
        Command::new("setpriv")
            .args([
                "--reuid=nobody",
                "--regid=nogroup",
                "--clear-groups",
                program,
            ])
            .args(args)
            .current_dir(t.dir(side))
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    for args in [&["f"][..], &["-q", "g"]] {
        let r = (as_nobody("gzip", args), as_nobody("hyperz", args));
        assert_eq!(codes(&r), (Some(2), Some(2)), "{args:?}: {r:?}");
        t.assert_same_state(&format!("{args:?}"));
        let msg = String::from_utf8_lossy(&r.1.stderr);
        if args[0] == "-q" {
            assert!(r.0.stderr.is_empty() && msg.is_empty(), "{args:?}: {msg}");
        } else {
            assert_eq!(msg.trim_end(), "hyperz: f: Operation not permitted");
        }
    }
    assert!(t.dir("hyperz").join("f.gz").exists() && t.dir("hyperz").join("f").exists());
}

/// Data whose byte counts fall off geometrically: codes deeper than the 12 bits a packed file's
/// decoder looks up at once.
fn skewed(len: usize) -> Vec<u8> {
    let mut rnd = hyperz_tests::xorshift(0x9ac4_11d3);
    (0..len)
        .map(|_| (rnd().trailing_zeros() * 3 + (rnd() % 3) as u32).min(255) as u8)
        .collect()
}

/// Packed (.z) files, which gzip 1.12 decompresses: the file is restored and listed as gzip
/// does it, alone, after another packed member and before a gzip member; trailing garbage and
/// zeros, `-cf` copying what follows, truncation and corrupt headers give gzip's exit codes and
/// messages. Before, all were "not in gzip format".
#[test]
fn packed_files_are_read_as_gzip_reads_them() {
    let t = Twin::new("pack");
    let alice = sample("alice29.txt");
    let deep = skewed(100_000);
    let z = hyperz_tests::pack::pack(&alice);
    assert!(deep.len() == 100_000 && hyperz_tests::pack::pack(&deep)[6] > 12);
    for (name, data) in [
        ("alice", &alice[..]),
        ("deep", &deep[..]),
        ("one", b"x"),
        (
            "all",
            &(0..=255u8).cycle().take(1000).collect::<Vec<_>>()[..],
        ),
    ] {
        let packed = hyperz_tests::pack::pack(data);
        let file = format!("{name}.z");
        t.write(&file, &packed);
        // The writer stands for pack only if gzip reads what it wrote.
        assert_eq!(run_in(&t.root, "gzip", &["-dc"], &packed).1, data, "{name}");
        t.touch(1_000_000_000, [&file]);
        let (g, h) = t.run(&["-lv", &file]);
        assert_eq!(
            (&h.stdout, h.status.code()),
            (&g.stdout, Some(0)),
            "-lv {name}"
        );
        let r = t.run(&["-d", &file]);
        assert_eq!(codes(&r), (Some(0), Some(0)), "{name}");
        t.assert_same_state(&format!("-d {name}"));
    }
    let gz = run_in(&t.root, "gzip", &["-c"], &sample("fields.c")).1;
    let cat = |parts: &[&[u8]]| parts.concat();
    let trunc = &z[..z.len() / 2];
    let mut bad_len = z.clone();
    bad_len[5] ^= 1;
    let mut bad_max = z.clone();
    bad_max[6] = 26;
    let mut bad_leaves = z.clone();
    bad_leaves[7] = 200;
    for (what, input, args, code, msg) in [
        ("two members", cat(&[&z, &z]), &["-dc"][..], 0, ""),
        ("then gzip", cat(&[&z, &gz]), &["-dc"], 0, ""),
        (
            "junk",
            cat(&[&z, b"junk"]),
            &["-dc"],
            2,
            "trailing garbage ignored",
        ),
        (
            "zeros",
            cat(&[&z, &[0; 9]]),
            &["-dcv"],
            2,
            "trailing zero bytes ignored",
        ),
        ("-cf junk", cat(&[&z, b"junk"]), &["-dcf"], 0, ""),
        (
            "truncated",
            trunc.to_vec(),
            &["-dc"],
            1,
            "unexpected end of file",
        ),
        (
            "length",
            bad_len,
            &["-dc"],
            1,
            "invalid compressed data--length error",
        ),
        ("max", bad_max, &["-dc"], 1, "bit length out of range"),
        (
            "leaves",
            bad_leaves,
            &["-dc"],
            1,
            "too many leaves in Huffman tree",
        ),
    ] {
        let g = run_full(&t.root, "gzip", args, &input);
        let h = run_full(&t.root, HYPERZ, args, &input);
        assert_eq!(
            (g.status.code(), h.status.code()),
            (Some(code), Some(code)),
            "{what}"
        );
        assert!(h.stdout == g.stdout, "{what}: output");
        for (who, err) in [("gzip", &g.stderr), ("hyperz", &h.stderr)] {
            let err = String::from_utf8_lossy(err);
            assert!(err.contains(msg), "{what}: {who} said {err}");
        }
    }
}

/// gzip before 0.5 wrote `1f 9e` as the magic of the same member, and gzip 1.12 still reads
/// it, first or after another member, and lists it.
#[test]
fn the_old_gzip_magic_is_read() {
    let t = Twin::new("oldmagic");
    let data = sample("xargs.1");
    let mut old = run_in(&t.root, "gzip", &["-nc"], &data).1;
    old[1] = 0x9e;
    let new = run_in(&t.root, "gzip", &["-nc"], b"first member\n").1;
    for input in [old.clone(), [&new[..], &old].concat()] {
        let g = run_in(&t.root, "gzip", &["-dc"], &input);
        let h = run_full(&t.root, HYPERZ, &["-dc"], &input);
        assert_eq!(g, (Some(0), h.stdout));
        assert!(h.status.success(), "{}", String::from_utf8_lossy(&h.stderr));
    }
    t.write("x.gz", &old);
    t.touch(1_000_000_000, ["x.gz"]);
    let (g, h) = t.run(&["-l", "x.gz"]);
    assert_eq!((&h.stdout, h.status.code()), (&g.stdout, Some(0)));
    let r = t.run(&["-d", "x.gz"]);
    assert_eq!(codes(&r), (Some(0), Some(0)));
    t.assert_same_state("-d of an old-magic member");
}

/// Independent members decoded on two engines from a pipe whose writer then waits for their
/// output (a protocol, or a pipeline stage that answers first): every member it has written
/// comes out before it writes more, as with gzip. The decoder held the members out on its
/// engines while it waited for more input (786 KB of 3 MB came out), so such a writer would
/// wait forever; the reader thread below gives up after a minute instead.
#[test]
fn members_already_read_from_a_pipe_are_written_before_more_input() {
    let part: Vec<u8> = sample("alice29.txt").repeat(20);
    let t = Twin::new("pipewait");
    let z = run_in(&t.root, HYPERZ, &["-i", "-c", "-n", "-b", "128"], &part).1;
    assert!(z.len() > 300_000, "several members");
    let mut child = Command::new(HYPERZ)
        .args(["-dc", "-p", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut got = Vec::new();
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            match std::io::Read::read(&mut stdout, &mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    got.extend_from_slice(&chunk[..n]);
                    let _ = tx.send(got.len());
                }
            }
        }
        got
    });
    stdin.write_all(&z).unwrap();
    stdin.flush().unwrap();
    // Wait for the whole first part's output before writing the second.
    let mut have = 0;
    while have < part.len() {
        have = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("only {have} of {} bytes came out", part.len()));
    }
    assert_eq!(have, part.len(), "no more than the first part");
    stdin.write_all(&z).unwrap();
    drop(stdin);
    let got = reader.join().unwrap();
    assert!(child.wait().unwrap().success());
    assert!(got == [&part[..], &part].concat(), "both parts, in order");
}
