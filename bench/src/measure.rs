//! The measurement loop: walk the corpus, load one file at a time, and time every peer on it.
//!
//! For each file and each (peer, level) the harness compresses (best of N), decompresses its own
//! output (best of N) and checks the result equals the input — a mismatch is a hard error, the
//! benchmark never reports a speed for wrong output. Then every peer decodes one common stream
//! (the system zlib's level-6 output, or zlib-ng's if the system zlib is absent) so decoders are
//! compared on identical input: the "cross" rows.
//!
//! Best of N rather than a mean, because on a shared machine noise only ever adds time; the N
//! repetitions are interleaved across peers ([`measure_file`]), so noise does not favour one.
//! A time budget per (peer, level) stops the repetitions early on huge files (at least one
//! always runs).
//! Only one file (plus its compressed and decompressed copies) is in memory at a time.
#![forbid(unsafe_code)]

use crate::peers::Peer;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Which measurement a row holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The peer compressed the data at `level` and decompressed its own output.
    Own,
    /// The peer decompressed the common reference stream (no compression timing).
    Cross,
}

/// One measured (scope, peer, level) cell; times are the best repetition, in seconds.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    /// The file measured, or `TOTAL` for the whole corpus.
    pub scope: String,
    /// Own or cross.
    pub kind: Kind,
    /// Peer name.
    pub peer: String,
    /// Compression level (for cross rows: the reference stream's level).
    pub level: u32,
    /// Uncompressed bytes.
    pub in_bytes: u64,
    /// Compressed bytes.
    pub out_bytes: u64,
    /// Best compression time (0 for cross rows).
    pub comp_secs: f64,
    /// Best decompression time.
    pub decomp_secs: f64,
}

impl Row {
    /// Uncompressed size over compressed size.
    pub fn ratio(&self) -> f64 {
        self.in_bytes as f64 / self.out_bytes.max(1) as f64
    }
    /// Compression speed in MB/s of uncompressed data (10^6 bytes).
    pub fn comp_mbs(&self) -> f64 {
        mbs(self.in_bytes, self.comp_secs)
    }
    /// Decompression speed in MB/s of uncompressed data.
    pub fn decomp_mbs(&self) -> f64 {
        mbs(self.in_bytes, self.decomp_secs)
    }
}

/// Bytes per second in units of 10^6 (0 when nothing was timed).
pub fn mbs(bytes: u64, secs: f64) -> f64 {
    if secs > 0.0 {
        bytes as f64 / secs / 1e6
    } else {
        0.0
    }
}

/// Repetition policy.
#[derive(Clone, Copy, Debug)]
pub struct Reps {
    /// Maximum repetitions per measurement (best is kept).
    pub n: usize,
    /// Stop repeating once this much time was spent on one measurement (in the library mode,
    /// on one peer and level's compressions and decompressions together).
    pub budget: Duration,
}

/// Runs `f` up to `reps.n` times (at least once, fewer if the budget runs out) and returns the
/// shortest run in seconds.
pub fn best_of(reps: Reps, mut f: impl FnMut() -> Result<(), String>) -> Result<f64, String> {
    let start = Instant::now();
    let mut best = f64::INFINITY;
    for _ in 0..reps.n.max(1) {
        let t = Instant::now();
        f()?;
        best = best.min(t.elapsed().as_secs_f64());
        if start.elapsed() >= reps.budget {
            break;
        }
    }
    Ok(best)
}

/// Every regular, non-empty file under `paths` (files as given, directories recursively), in
/// sorted order so runs are comparable. Symbolic links are followed.
pub fn walk(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        walk_one(p, &mut out)?;
    }
    Ok(out)
}

fn walk_one(p: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let meta = std::fs::metadata(p)?;
    if meta.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(p)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()?;
        entries.sort();
        for e in entries {
            walk_one(&e, out)?;
        }
    } else if meta.is_file() && meta.len() > 0 {
        out.push(p.to_path_buf());
    }
    Ok(())
}

/// A peer together with the levels to run it at.
pub struct Entrant {
    /// The codec.
    pub peer: Box<dyn Peer>,
    /// Levels to measure, ascending.
    pub levels: Vec<u32>,
}

/// The stream every decoder is timed on: who made it and at which level.
pub struct Reference {
    /// Encoder that produces the common stream.
    pub encoder: Box<dyn Peer>,
    /// Its level (6, zlib's default).
    pub level: u32,
}

/// Measures one file: own rows for every entrant and level, then cross rows for every entrant.
/// `log` receives one progress line per measurement.
///
/// The repetitions are interleaved: each round times every (peer, level) once, compressing
/// and then decompressing its own output, and the next round starts over. A burst of load
/// from another tenant of a shared machine then slows one round of every peer rather than all
/// the repetitions of one, so the best times (and the ratios between peers the goals are
/// judged on) are not skewed towards whoever ran while the machine was quiet. The budget is
/// per (peer, level): one that has spent it sits out the remaining rounds. Only one
/// compressed and one decompressed copy exist at a time, as before.
pub fn measure_file(
    scope: &str,
    data: &[u8],
    entrants: &mut [Entrant],
    reference: Option<&mut Reference>,
    reps: Reps,
    log: &mut dyn FnMut(&str),
) -> Result<Vec<Row>, String> {
    let mut comp = Vec::new();
    let mut back = Vec::new();
    // (entrant, level) cells and their best times, sizes and time spent.
    let mut own: Vec<(usize, u32, Cell)> = Vec::new();
    for (i, e) in entrants.iter().enumerate() {
        own.extend(e.levels.iter().map(|&l| (i, l, Cell::default())));
    }
    for round in 0..reps.n.max(1) {
        for (i, level, cell) in own.iter_mut() {
            if !cell.wants(round, reps.budget) {
                continue;
            }
            let (name, level) = (entrants[*i].peer.name(), *level);
            let peer = &mut entrants[*i].peer;
            let ct = timed(|| peer.compress(level, data, &mut comp))
                .map_err(|m| format!("{name} -{level} compressing {scope}: {m}"))?;
            let dt = timed(|| peer.decompress(&comp, &mut back, data.len()))
                .map_err(|m| format!("{name} -{level} decompressing {scope}: {m}"))?;
            verify(&back, data, || {
                format!("{name} -{level} round trip of {scope}")
            })?;
            cell.add(ct, dt, comp.len());
        }
    }
    let mut rows = Vec::new();
    for (i, level, cell) in own {
        let row = Row {
            scope: scope.to_string(),
            kind: Kind::Own,
            peer: entrants[i].peer.name().to_string(),
            level,
            in_bytes: data.len() as u64,
            out_bytes: cell.out_bytes as u64,
            comp_secs: cell.comp,
            decomp_secs: cell.decomp,
        };
        log(&format!(
            "{scope}: {} -{level}: ratio {:.3}, {:.1} MB/s, {:.1} MB/s",
            row.peer,
            row.ratio(),
            row.comp_mbs(),
            row.decomp_mbs()
        ));
        rows.push(row);
    }
    if let Some(r) = reference {
        let ref_name = r.encoder.name();
        r.encoder
            .compress(r.level, data, &mut comp)
            .map_err(|m| format!("reference {ref_name} -{} on {scope}: {m}", r.level))?;
        let mut cross = vec![Cell::default(); entrants.len()];
        for round in 0..reps.n.max(1) {
            for (e, cell) in entrants.iter_mut().zip(cross.iter_mut()) {
                if !cell.wants(round, reps.budget) {
                    continue;
                }
                let name = e.peer.name();
                let peer = &mut e.peer;
                let dt = timed(|| peer.decompress(&comp, &mut back, data.len())).map_err(|m| {
                    format!("{name} decoding {ref_name} -{} of {scope}: {m}", r.level)
                })?;
                verify(&back, data, || {
                    format!("{name} decoding {ref_name} -{} of {scope}", r.level)
                })?;
                cell.add(0.0, dt, comp.len());
            }
        }
        for (e, cell) in entrants.iter().zip(cross) {
            rows.push(Row {
                scope: scope.to_string(),
                kind: Kind::Cross,
                peer: e.peer.name().to_string(),
                level: r.level,
                in_bytes: data.len() as u64,
                out_bytes: cell.out_bytes as u64,
                comp_secs: 0.0,
                decomp_secs: cell.decomp,
            });
        }
    }
    Ok(rows)
}

/// One (peer, level)'s measurements so far: best times, compressed size, time spent.
#[derive(Clone, Default)]
struct Cell {
    comp: f64,
    decomp: f64,
    out_bytes: usize,
    spent: f64,
    runs: usize,
}

impl Cell {
    /// Whether the cell runs in `round`: always the first, then while under `budget`.
    fn wants(&self, round: usize, budget: Duration) -> bool {
        round == 0 || self.spent < budget.as_secs_f64()
    }

    /// Records one repetition's times (seconds) and compressed size.
    fn add(&mut self, comp: f64, decomp: f64, out_bytes: usize) {
        if self.runs == 0 {
            (self.comp, self.decomp) = (comp, decomp);
        } else {
            self.comp = self.comp.min(comp);
            self.decomp = self.decomp.min(decomp);
        }
        self.out_bytes = out_bytes;
        self.spent += comp + decomp;
        self.runs += 1;
    }
}

/// Runs `f` once and returns its wall-clock time in seconds.
fn timed(f: impl FnOnce() -> Result<(), String>) -> Result<f64, String> {
    let t = Instant::now();
    f()?;
    Ok(t.elapsed().as_secs_f64())
}

fn verify(got: &[u8], want: &[u8], what: impl FnOnce() -> String) -> Result<(), String> {
    if got == want {
        return Ok(());
    }
    let at = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    Err(format!(
        "{}: MISMATCH (got {} bytes, want {}, first difference at byte {at})",
        what(),
        got.len(),
        want.len()
    ))
}

/// Sums per-file rows into corpus totals: bytes add up, and so do the best times, so a total's
/// MB/s is total bytes over total best time (large files weigh by their size).
pub fn totals(rows: &[Row]) -> Vec<Row> {
    let mut out: Vec<Row> = Vec::new();
    for r in rows {
        match out
            .iter_mut()
            .find(|t| t.kind == r.kind && t.peer == r.peer && t.level == r.level)
        {
            Some(t) => {
                t.in_bytes += r.in_bytes;
                t.out_bytes += r.out_bytes;
                t.comp_secs += r.comp_secs;
                t.decomp_secs += r.decomp_secs;
            }
            None => out.push(Row {
                scope: "TOTAL".to_string(),
                ..r.clone()
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walker_recurses_sorts_and_skips_empty_files() {
        let dir = std::env::temp_dir().join(format!("hyperz-bench-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub/deeper")).unwrap();
        std::fs::write(dir.join("b.txt"), b"bbb").unwrap();
        std::fs::write(dir.join("a.txt"), b"aaa").unwrap();
        std::fs::write(dir.join("empty"), b"").unwrap();
        std::fs::write(dir.join("sub/deeper/c"), b"c").unwrap();
        let files = walk(&[dir.clone(), dir.join("a.txt")]).unwrap();
        let rel: Vec<String> = files
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(rel, ["a.txt", "b.txt", "sub/deeper/c", "a.txt"]);
        assert!(walk(&[dir.join("missing")]).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn totals_add_bytes_and_best_times() {
        let row = |scope: &str, n: u64, c: f64| Row {
            scope: scope.into(),
            kind: Kind::Own,
            peer: "zlib".into(),
            level: 6,
            in_bytes: n,
            out_bytes: n / 2,
            comp_secs: c,
            decomp_secs: c / 4.0,
        };
        let t = totals(&[row("a", 1_000_000, 0.5), row("b", 3_000_000, 0.5)]);
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].scope, "TOTAL");
        assert_eq!(t[0].in_bytes, 4_000_000);
        assert!((t[0].comp_mbs() - 4.0).abs() < 1e-9);
        assert!((t[0].decomp_mbs() - 16.0).abs() < 1e-9);
        assert!((t[0].ratio() - 2.0).abs() < 1e-9);
    }

    /// A peer that copies its input both ways and logs each call, to watch the schedule.
    struct Copier(&'static str, std::rc::Rc<std::cell::RefCell<Vec<String>>>);

    impl Peer for Copier {
        fn name(&self) -> &'static str {
            self.0
        }
        fn version(&self) -> String {
            String::new()
        }
        fn levels(&self) -> Vec<u32> {
            vec![1, 2]
        }
        fn compress(&mut self, level: u32, input: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
            self.1.borrow_mut().push(format!("{}{level}c", self.0));
            out.clear();
            out.extend_from_slice(input);
            Ok(())
        }
        fn decompress(&mut self, input: &[u8], out: &mut Vec<u8>, _: usize) -> Result<(), String> {
            self.1.borrow_mut().push(format!("{}d", self.0));
            out.clear();
            out.extend_from_slice(input);
            Ok(())
        }
    }

    /// Each round times every (peer, level) once, then every decoder on the reference stream
    /// once per round; a zero budget leaves one round.
    #[test]
    fn repetitions_are_interleaved_across_peers() {
        let calls = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let entrants = |levels: &[u32]| -> Vec<Entrant> {
            ["a", "b"]
                .iter()
                .map(|&n| Entrant {
                    peer: Box::new(Copier(n, calls.clone())),
                    levels: levels.to_vec(),
                })
                .collect()
        };
        let mut reference = Reference {
            encoder: Box::new(Copier("r", calls.clone())),
            level: 6,
        };
        let reps = Reps {
            n: 2,
            budget: Duration::from_secs(100),
        };
        let rows = measure_file(
            "f",
            b"data",
            &mut entrants(&[1, 2]),
            Some(&mut reference),
            reps,
            &mut |_| {},
        )
        .unwrap();
        let got = calls.borrow().join(" ");
        let own_round = "a1c ad a2c ad b1c bd b2c bd";
        assert_eq!(got, format!("{own_round} {own_round} r6c ad bd ad bd"));
        assert_eq!(rows.len(), 6);
        assert!(rows.iter().all(|r| r.out_bytes == 4 && r.decomp_secs > 0.0));
        calls.borrow_mut().clear();
        let one = Reps {
            n: 3,
            budget: Duration::ZERO,
        };
        measure_file("f", b"data", &mut entrants(&[2]), None, one, &mut |_| {}).unwrap();
        assert_eq!(calls.borrow().join(" "), "a2c ad b2c bd");
    }

    #[test]
    fn mismatch_is_an_error_with_the_offset() {
        let e = verify(b"abcX", b"abcd", || "t".into()).unwrap_err();
        assert!(e.contains("MISMATCH") && e.contains("byte 3"), "{e}");
        assert!(verify(b"same", b"same", || "t".into()).is_ok());
    }
}
