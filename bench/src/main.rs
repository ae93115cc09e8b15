//! `hyperz-bench`: ratio, compression MB/s and decompression MB/s of hyperz and its peers (the
//! system zlib, zlib-ng, libdeflate, ISA-L) per level, per file and over a whole corpus, in one
//! process and one run.
//!
//! Arguments become a plan (paths, peers, levels, repetitions); `measure` runs it one file at a
//! time, `report` prints and saves it, `chart` draws the Pareto view and `tools` times the
//! command-line programs instead of the libraries. See `bench/README.md` for every column.

mod chart;
mod measure;
mod peers;
mod report;
mod tools;

use clap::Parser;
use measure::{Entrant, Reference, Reps, Row};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Benchmark hyperz against system zlib, zlib-ng, libdeflate and ISA-L.
#[derive(Parser, Debug)]
#[command(name = "hyperz-bench", version)]
struct Args {
    /// Files or directories to use as the corpus (default: the bundled data/sample).
    paths: Vec<PathBuf>,
    /// Levels to run, e.g. 1,6,9 (default: every level of each peer). Peers with a smaller
    /// range (ISA-L: 0-3) run the requested levels clamped into their range.
    #[arg(long, value_delimiter = ',')]
    levels: Option<Vec<u32>>,
    /// Peers to run (default: all): hyperz,zlib,zlib-ng,libdeflate,isal.
    #[arg(long, value_delimiter = ',')]
    peers: Option<Vec<String>>,
    /// Repetitions per measurement; the best is kept.
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Seconds after which a measurement stops repeating (at least one run always happens).
    #[arg(long, default_value_t = 10.0)]
    budget: f64,
    /// Threads for multi-threaded tools in --tools mode (pigz -p, igzip -T, hyperz -p);
    /// default: all cores.
    #[arg(long)]
    threads: Option<usize>,
    /// Write every row (per file and totals) as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write every row (per file and totals) as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Draw ratio against compression speed (PNG).
    #[arg(long)]
    png: Option<PathBuf>,
    /// Time the command-line tools (gzip, pigz, igzip, libdeflate-gzip, hyperz) file to file.
    #[arg(long)]
    tools: bool,
    /// The main job: hyperz against the system zlib at levels 1,6,9, summarised as a speedup
    /// table like seed 000's Table I.
    #[arg(long)]
    vs_zlib: bool,
    /// Also print one table per file.
    #[arg(long)]
    per_file: bool,
    /// The producer of the stream every decoder decompresses in the cross rows, as PEER:LEVEL
    /// (default zlib:6, zlib-ng:6 without the system zlib), e.g. isal:1 or libdeflate:12.
    #[arg(long, value_name = "PEER:LEVEL")]
    cross_from: Option<String>,
    /// No progress lines on stderr.
    #[arg(long)]
    quiet: bool,
}

/// The bundled sample: `data/sample` under the current directory, else next to the sources.
fn default_corpus() -> PathBuf {
    let here = PathBuf::from("data/sample");
    if here.is_dir() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/sample")
}

/// A short name for `file` relative to the corpus root it was found under.
fn scope_of(file: &Path, roots: &[PathBuf]) -> String {
    for r in roots {
        if r.is_dir() {
            if let Ok(rel) = file.strip_prefix(r) {
                return rel.display().to_string();
            }
        }
    }
    file.file_name().map_or_else(
        || file.display().to_string(),
        |n| n.to_string_lossy().into(),
    )
}

/// The encoder and level of the cross rows' common stream: `spec` as PEER:LEVEL, or the system
/// zlib at level 6 (zlib-ng's if the system zlib is missing).
fn cross_reference(spec: Option<&str>) -> Result<Reference, String> {
    let Some(spec) = spec else {
        let encoder = peers::open("zlib")
            .unwrap_or_else(|_| Box::new(peers::zlibng::ZlibNg::new()) as Box<dyn peers::Peer>);
        return Ok(Reference { encoder, level: 6 });
    };
    let bad = || format!("--cross-from {spec}: expected PEER:LEVEL, e.g. libdeflate:12");
    let (name, level) = spec.split_once(':').ok_or_else(bad)?;
    let level: u32 = level.parse().map_err(|_| bad())?;
    let encoder = peers::open(name).map_err(|e| format!("--cross-from {spec}: {e}"))?;
    if !encoder.levels().contains(&level) {
        return Err(format!(
            "--cross-from {spec}: {name} has levels {:?}",
            encoder.levels()
        ));
    }
    Ok(Reference { encoder, level })
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("hyperz-bench: error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(mut args: Args) -> Result<(), String> {
    if args.vs_zlib {
        args.peers
            .get_or_insert_with(|| vec!["hyperz".into(), "zlib".into()]);
        args.levels.get_or_insert_with(|| vec![1, 6, 9]);
    }
    let roots = if args.paths.is_empty() {
        vec![default_corpus()]
    } else {
        args.paths.clone()
    };
    let files = measure::walk(&roots).map_err(|e| format!("reading the corpus: {e}"))?;
    if files.is_empty() {
        return Err(format!("no non-empty files under {roots:?}"));
    }
    let total_bytes: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    let corpus = roots
        .iter()
        .map(|r| r.display().to_string())
        .collect::<Vec<_>>()
        .join(" ");
    let reps = Reps {
        n: args.reps.max(1),
        budget: Duration::from_secs_f64(args.budget.max(0.0)),
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let quiet = args.quiet;
    let mut log = |s: &str| {
        if !quiet {
            eprintln!("{s}");
        }
    };
    let mut notes: Vec<String> = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    let mut versions: Vec<String> = Vec::new();
    let mut reference_name = String::new();

    if args.tools {
        let (tools, missing) = tools::discover(threads);
        notes.extend(missing);
        versions.extend(
            tools
                .iter()
                .map(|t| format!("{} = {}", t.label, t.program.display())),
        );
        let levels = args.levels.clone().unwrap_or_else(|| vec![1, 6, 9]);
        let scratch = std::env::temp_dir().join(format!("hyperz-bench-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
        for f in &files {
            let scope = scope_of(f, &roots);
            let r = tools::measure_file(f, &scope, &tools, &levels, reps, &scratch, &mut log);
            match r {
                Ok(r) => rows.extend(r),
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&scratch);
                    return Err(e);
                }
            }
        }
        let _ = std::fs::remove_dir_all(&scratch);
    } else {
        let names: Vec<String> = args
            .peers
            .clone()
            .unwrap_or_else(|| peers::ALL.iter().map(|s| s.to_string()).collect());
        let mut entrants = Vec::new();
        for name in &names {
            match peers::open(name) {
                Ok(p) => {
                    let own = p.levels();
                    let levels = match &args.levels {
                        Some(l) => tools::levels_for(l, (own[0], own[own.len() - 1])),
                        None => own,
                    };
                    versions.push(p.version());
                    entrants.push(Entrant { peer: p, levels });
                }
                Err(e) => notes.push(format!("{name}: unavailable: {e}")),
            }
        }
        if entrants.is_empty() {
            return Err(format!("no peer available: {}", notes.join("; ")));
        }
        let mut reference = Some(cross_reference(args.cross_from.as_deref())?);
        reference_name = reference
            .as_ref()
            .map_or(String::new(), |r| r.encoder.name().to_string());
        for f in &files {
            let scope = scope_of(f, &roots);
            let data = std::fs::read(f).map_err(|e| format!("{}: {e}", f.display()))?;
            rows.extend(measure::measure_file(
                &scope,
                &data,
                &mut entrants,
                reference.as_mut(),
                reps,
                &mut log,
            )?);
        }
    }

    let totals = measure::totals(&rows);
    let mode = if args.tools {
        format!("command-line tools, {threads} threads where supported")
    } else {
        "libraries, raw DEFLATE, one thread".to_string()
    };
    println!(
        "corpus: {corpus} ({} files, {:.2} MB); {mode}; best of {} (budget {}s)",
        files.len(),
        total_bytes as f64 / 1e6,
        reps.n,
        args.budget
    );
    for v in &versions {
        println!("  {v}");
    }
    for n in &notes {
        println!("  note: {n}");
    }
    println!();
    if args.vs_zlib {
        print!("{}", report::vs_zlib(&totals, &corpus, files.len(), reps.n));
    } else {
        if args.per_file {
            for f in &files {
                let scope = scope_of(f, &roots);
                let mine: Vec<Row> = rows.iter().filter(|r| r.scope == scope).cloned().collect();
                println!("{}", report::own_table(&format!("file {scope}"), &mine));
                if !args.tools {
                    println!(
                        "{}",
                        report::cross_table(&format!("file {scope}"), &mine, &reference_name)
                    );
                }
            }
        }
        println!("{}", report::own_table("TOTAL over the corpus", &totals));
        if !args.tools {
            print!("{}", report::cross_table("TOTAL", &totals, &reference_name));
        }
    }

    let mut all = rows.clone();
    all.extend(totals.iter().cloned());
    if let Some(p) = &args.csv {
        let mut w = std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?;
        report::write_csv(&mut w, &all).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    if let Some(p) = &args.json {
        let meta = serde_json::json!({
            "corpus": corpus, "files": files.len(), "bytes": total_bytes, "reps": reps.n,
            "budget_secs": args.budget, "mode": mode, "threads": threads,
            "versions": versions, "notes": notes, "cross_reference": reference_name,
        });
        let mut w = std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?;
        report::write_json(&mut w, &meta, &rows, &totals)
            .map_err(|e| format!("{}: {e}", p.display()))?;
    }
    if let Some(p) = &args.png {
        // The roots' last components: whole paths overran the chart's width.
        let names = roots
            .iter()
            .map(|r| r.file_name().unwrap_or(r.as_os_str()).to_string_lossy())
            .collect::<Vec<_>>()
            .join(", ");
        let title = format!("ratio vs compression speed: {names} ({mode})");
        if let Some(note) = chart::draw(p, &totals, &title)? {
            println!("note: {note}");
        }
    }
    Ok(())
}
