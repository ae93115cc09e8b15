//! `--tools`: whole-process timings of the command-line compressors, file to file.
//!
//! Multi-threaded compression in the peers exists only as programs (pigz's and igzip's thread
//! pools), so this mode times programs rather than libraries: GNU gzip, pigz -p N, igzip -T N,
//! libdeflate-gzip and hyperz's own CLI (taken from the directory of this binary, i.e.
//! `target/release/hyperz`, when it has been built). Each compresses the file to a gzip file in
//! a scratch directory and decompresses its own output back to a file; the decompressed copy is
//! compared with the original (streamed, never whole in memory) and a mismatch is a hard error.
//! Times include process start-up and file I/O, as a user of the tool would see them.
#![forbid(unsafe_code)]

use crate::measure::{best_of, Kind, Reps, Row};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One command-line tool and how to call it.
#[derive(Clone, Debug)]
pub struct Tool {
    /// Label in the table (`pigz`, `igzip`, ...); `hyperz` for ours so rows compare to it.
    pub label: String,
    /// Program to run.
    pub program: PathBuf,
    /// Levels the tool accepts (inclusive range).
    pub levels: (u32, u32),
    /// Extra arguments for compression (thread count).
    pub comp_args: Vec<String>,
    /// How the level is passed: `-6` style (false) or `--level 6` (true).
    pub long_level: bool,
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The tools found on this machine, plus a message for each one that is missing.
pub fn discover(threads: usize) -> (Vec<Tool>, Vec<String>) {
    let n = threads.to_string();
    let own_dir = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf));
    // HYPERZ_BIN overrides where our CLI is taken from (e.g. another target directory).
    let hyperz = match std::env::var_os("HYPERZ_BIN") {
        Some(p) => Some(PathBuf::from(p)),
        None => own_dir.map(|d| d.join("hyperz")),
    }
    .filter(|p| p.is_file());
    let threaded = |flag: &str| vec![flag.to_string(), n.clone()];
    // (label, program if found, levels, compression arguments, long level option)
    type Spec = (String, Option<PathBuf>, (u32, u32), Vec<String>, bool);
    let specs: Vec<Spec> = vec![
        ("hyperz".into(), hyperz, (1, 12), threaded("-p"), true),
        ("gzip".into(), on_path("gzip"), (1, 9), vec![], false),
        (
            format!("pigz -p{n}"),
            on_path("pigz"),
            (1, 9),
            threaded("-p"),
            false,
        ),
        (
            "libdeflate".into(),
            on_path("libdeflate-gzip"),
            (1, 12),
            vec![],
            false,
        ),
        (
            format!("igzip -T{n}"),
            on_path("igzip"),
            (0, 3),
            threaded("-T"),
            false,
        ),
    ];
    let mut tools = Vec::new();
    let mut missing = Vec::new();
    for (label, program, levels, comp_args, long_level) in specs {
        match program {
            Some(program) => tools.push(Tool {
                label,
                program,
                levels,
                comp_args,
                long_level,
            }),
            None => missing.push(format!(
                "{label}: not found (hyperz: build target/release/hyperz; \
                 others: apt-get install gzip pigz isal libdeflate-tools)"
            )),
        }
    }
    (tools, missing)
}

/// The requested levels mapped into the tool's range (clamped, deduplicated).
pub fn levels_for(requested: &[u32], (lo, hi): (u32, u32)) -> Vec<u32> {
    let mut v: Vec<u32> = requested.iter().map(|&l| l.clamp(lo, hi)).collect();
    v.sort_unstable();
    v.dedup();
    v
}

fn run(program: &Path, args: &[String], input: &Path, output: &Path) -> Result<(), String> {
    let out = File::create(output).map_err(|e| format!("{}: {e}", output.display()))?;
    let status = Command::new(program)
        .args(args)
        .arg(input)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(Stdio::inherit())
        .status()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} {:?} {}: {status}",
            program.display(),
            args,
            input.display()
        ))
    }
}

/// Streams both files and reports whether their contents are equal.
pub fn same_contents(a: &Path, b: &Path) -> std::io::Result<bool> {
    if std::fs::metadata(a)?.len() != std::fs::metadata(b)?.len() {
        return Ok(false);
    }
    let (mut ra, mut rb) = (
        BufReader::new(File::open(a)?),
        BufReader::new(File::open(b)?),
    );
    let (mut ba, mut bb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = ra.read(&mut ba)?;
        if n == 0 {
            return Ok(true);
        }
        rb.read_exact(&mut bb[..n])?;
        if ba[..n] != bb[..n] {
            return Ok(false);
        }
    }
}

/// Times every tool at every level on one file; `scratch` holds the temporary outputs.
pub fn measure_file(
    file: &Path,
    scope: &str,
    tools: &[Tool],
    levels: &[u32],
    reps: Reps,
    scratch: &Path,
    log: &mut dyn FnMut(&str),
) -> Result<Vec<Row>, String> {
    let size = std::fs::metadata(file)
        .map_err(|e| format!("{}: {e}", file.display()))?
        .len();
    let gz = scratch.join("bench.gz");
    let back = scratch.join("bench.out");
    let mut rows = Vec::new();
    for t in tools {
        for level in levels_for(levels, t.levels) {
            let mut args: Vec<String> = t.comp_args.clone();
            if t.long_level {
                args.extend(["--level".to_string(), level.to_string()]);
            } else {
                args.push(format!("-{level}"));
            }
            args.push("-c".into());
            let comp_secs = best_of(reps, || run(&t.program, &args, file, &gz))?;
            let out_bytes = std::fs::metadata(&gz).map_err(|e| e.to_string())?.len();
            let dargs = vec!["-d".to_string(), "-c".to_string()];
            let decomp_secs = best_of(reps, || run(&t.program, &dargs, &gz, &back))?;
            if !same_contents(file, &back).map_err(|e| e.to_string())? {
                return Err(format!(
                    "{} -{level}: {scope} did not round-trip: MISMATCH",
                    t.label
                ));
            }
            let row = Row {
                scope: scope.to_string(),
                kind: Kind::Own,
                peer: t.label.clone(),
                level,
                in_bytes: size,
                out_bytes,
                comp_secs,
                decomp_secs,
            };
            log(&format!(
                "{scope}: {} -{level}: ratio {:.3}, {:.1} MB/s, {:.1} MB/s",
                t.label,
                row.ratio(),
                row.comp_mbs(),
                row.decomp_mbs()
            ));
            rows.push(row);
        }
    }
    let _ = std::fs::remove_file(&gz);
    let _ = std::fs::remove_file(&back);
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_clamp_into_each_tools_range() {
        assert_eq!(levels_for(&[1, 6, 9], (0, 3)), [1, 3]);
        assert_eq!(levels_for(&[12, 1], (1, 9)), [1, 9]);
    }

    #[test]
    fn gzip_tool_round_trips_a_file() {
        let (tools, _) = discover(2);
        let gzip: Vec<Tool> = tools.into_iter().filter(|t| t.label == "gzip").collect();
        assert_eq!(
            gzip.len(),
            1,
            "GNU gzip is installed on every Debian system"
        );
        let dir = std::env::temp_dir().join(format!("hyperz-bench-tools-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("input");
        std::fs::write(&f, "hello tools ".repeat(5000)).unwrap();
        let reps = Reps {
            n: 1,
            budget: std::time::Duration::ZERO,
        };
        let rows = measure_file(&f, "input", &gzip, &[1, 9], reps, &dir, &mut |_| {}).unwrap();
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|r| r.ratio() > 10.0));
        let g = dir.join("x");
        std::fs::write(&g, "hello tools ".repeat(4999) + "hello toolz ").unwrap();
        assert!(!same_contents(&f, &g).unwrap());
        assert!(same_contents(&f, &f).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
