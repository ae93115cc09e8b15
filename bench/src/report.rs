//! Output: the console tables (fits 100 columns), CSV and JSON.
//!
//! Every peer's row carries its speed and ratio relative to hyperz at the same nominal level
//! ("0.42x" = 42% of hyperz's figure), so the table answers "how far ahead or behind are we"
//! directly. The cross table compares decoders on one identical stream; its last line is the
//! figure the decoder goal is judged on: hyperz over the faster of libdeflate and ISA-L.
#![forbid(unsafe_code)]

use crate::measure::{Kind, Row};
use std::fmt::Write as _;
use std::io::Write;

fn find<'a>(rows: &'a [Row], kind: Kind, peer: &str, level: u32) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.kind == kind && r.peer == peer && r.level == level)
}

fn rel(a: f64, b: Option<f64>) -> String {
    match b {
        Some(b) if b > 0.0 && a > 0.0 => format!("{:.2}x", a / b),
        _ => "-".to_string(),
    }
}

/// The main table for one scope (TOTAL or one file): one line per (peer, level).
pub fn own_table(title: &str, rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{title}");
    let _ = writeln!(
        s,
        "{:<11}{:>4}{:>9}{:>11}{:>11}  |{:>10}{:>10}{:>10}",
        "peer", "lvl", "ratio", "comp MB/s", "dec MB/s", "ratio/hz", "comp/hz", "dec/hz"
    );
    let _ = writeln!(s, "{}", "-".repeat(79));
    let mut last_peer = "";
    for r in rows.iter().filter(|r| r.kind == Kind::Own) {
        if !last_peer.is_empty() && r.peer != last_peer {
            let _ = writeln!(s);
        }
        last_peer = &r.peer;
        let hz = find(rows, Kind::Own, "hyperz", r.level);
        let _ = writeln!(
            s,
            "{:<11}{:>4}{:>9.3}{:>11.1}{:>11.1}  |{:>10}{:>10}{:>10}",
            r.peer,
            r.level,
            r.ratio(),
            r.comp_mbs(),
            r.decomp_mbs(),
            rel(r.ratio(), hz.map(Row::ratio)),
            rel(r.comp_mbs(), hz.map(Row::comp_mbs)),
            rel(r.decomp_mbs(), hz.map(Row::decomp_mbs)),
        );
    }
    s
}

/// The decoder comparison on the common stream, with the decoder-goal line.
pub fn cross_table(title: &str, rows: &[Row], reference: &str) -> String {
    let cross: Vec<&Row> = rows.iter().filter(|r| r.kind == Kind::Cross).collect();
    let mut s = String::new();
    let Some(first) = cross.first() else { return s };
    let _ = writeln!(
        s,
        "{title}: every decoder on the same stream ({reference} -{} output, {} -> {} bytes)",
        first.level, first.in_bytes, first.out_bytes
    );
    let _ = writeln!(s, "{:<11}{:>11}{:>11}", "decoder", "dec MB/s", "vs hyperz");
    let _ = writeln!(s, "{}", "-".repeat(33));
    let hz = cross
        .iter()
        .find(|r| r.peer == "hyperz")
        .map(|r| r.decomp_mbs());
    for r in &cross {
        let _ = writeln!(
            s,
            "{:<11}{:>11.1}{:>11}",
            r.peer,
            r.decomp_mbs(),
            rel(r.decomp_mbs(), hz)
        );
    }
    let fastest = cross
        .iter()
        .filter(|r| r.peer == "libdeflate" || r.peer == "isal")
        .max_by(|a, b| a.decomp_mbs().total_cmp(&b.decomp_mbs()));
    match (hz, fastest) {
        (Some(h), Some(f)) => {
            let _ = writeln!(
                s,
                "hyperz decode / fastest of libdeflate, ISA-L ({}): {:.2}x (goal: 1.20x)",
                f.peer,
                h / f.decomp_mbs()
            );
        }
        _ => {
            let _ = writeln!(s, "decoder goal: needs hyperz and libdeflate or ISA-L rows");
        }
    }
    s
}

/// The `--vs-zlib` summary in the form of seed 000's Table I: speedup of hyperz over zlib.
pub fn vs_zlib(totals: &[Row], corpus: &str, files: usize, reps: usize) -> String {
    let mut s = String::new();
    let bytes = totals.first().map_or(0, |r| r.in_bytes);
    let _ = writeln!(
        s,
        "hyperz vs system zlib on {corpus} ({files} files, {:.2} MB), raw DEFLATE, one thread, \
         best of {reps}",
        bytes as f64 / 1e6
    );
    let _ = writeln!(
        s,
        "{:<22}{:>4}{:>11}{:>13}{:>10}{:>12}{:>14}",
        "function", "lvl", "zlib MB/s", "hyperz MB/s", "speedup", "zlib ratio", "hyperz ratio"
    );
    let _ = writeln!(s, "{}", "-".repeat(86));
    let levels: Vec<u32> = totals
        .iter()
        .filter(|r| r.kind == Kind::Own && r.peer == "zlib")
        .map(|r| r.level)
        .collect();
    let line = |s: &mut String, f: &str, lvl: u32, z: Option<&Row>, h: Option<&Row>, d: bool| {
        let speed = |r: &Row| if d { r.decomp_mbs() } else { r.comp_mbs() };
        let num = |v: Option<f64>, p: usize| v.map_or("-".to_string(), |v| format!("{v:.p$}"));
        let (zs, hs) = (z.map(speed), h.map(speed));
        let _ = writeln!(
            s,
            "{:<22}{:>4}{:>11}{:>13}{:>10}{:>12}{:>14}",
            f,
            lvl,
            num(zs, 1),
            num(hs, 1),
            rel(hs.unwrap_or(0.0), zs),
            num(z.map(Row::ratio), 3),
            num(h.map(Row::ratio), 3)
        );
    };
    for &l in &levels {
        let (z, h) = (
            find(totals, Kind::Own, "zlib", l),
            find(totals, Kind::Own, "hyperz", l),
        );
        line(&mut s, "compress", l, z, h, false);
    }
    for &l in &levels {
        let (z, h) = (
            find(totals, Kind::Own, "zlib", l),
            find(totals, Kind::Own, "hyperz", l),
        );
        line(&mut s, "decompress own stream", l, z, h, true);
    }
    let zc = totals
        .iter()
        .find(|r| r.kind == Kind::Cross && r.peer == "zlib");
    let hc = totals
        .iter()
        .find(|r| r.kind == Kind::Cross && r.peer == "hyperz");
    if let Some(r) = zc.or(hc) {
        line(&mut s, "decompress zlib stream", r.level, zc, hc, true);
    }
    let _ = writeln!(
        s,
        "speedup = hyperz MB/s / zlib MB/s (= zlib time / hyperz time)"
    );
    s
}

/// CSV header, matching [`write_csv`]'s columns.
pub const CSV_HEADER: &str =
    "scope,kind,peer,level,in_bytes,out_bytes,ratio,comp_secs,decomp_secs,comp_mbs,decomp_mbs";

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Writes every row (per file, then totals) as CSV.
pub fn write_csv(w: &mut dyn Write, rows: &[Row]) -> std::io::Result<()> {
    writeln!(w, "{CSV_HEADER}")?;
    for r in rows {
        let kind = match r.kind {
            Kind::Own => "own",
            Kind::Cross => "cross",
        };
        writeln!(
            w,
            "{},{kind},{},{},{},{},{:.4},{:.6},{:.6},{:.2},{:.2}",
            csv_field(&r.scope),
            csv_field(&r.peer),
            r.level,
            r.in_bytes,
            r.out_bytes,
            r.ratio(),
            r.comp_secs,
            r.decomp_secs,
            r.comp_mbs(),
            r.decomp_mbs()
        )?;
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct JsonRow<'a> {
    #[serde(flatten)]
    row: &'a Row,
    ratio: f64,
    comp_mbs: f64,
    decomp_mbs: f64,
}

/// Writes a JSON document: run metadata, unavailable peers, per-file rows and totals.
pub fn write_json(
    w: &mut dyn Write,
    meta: &serde_json::Value,
    rows: &[Row],
    totals: &[Row],
) -> std::io::Result<()> {
    let conv = |rs: &[Row]| -> Vec<serde_json::Value> {
        rs.iter()
            .map(|r| {
                serde_json::to_value(JsonRow {
                    row: r,
                    ratio: r.ratio(),
                    comp_mbs: r.comp_mbs(),
                    decomp_mbs: r.decomp_mbs(),
                })
                .expect("rows serialise")
            })
            .collect()
    };
    let doc = serde_json::json!({ "meta": meta, "files": conv(rows), "totals": conv(totals) });
    serde_json::to_writer_pretty(&mut *w, &doc)?;
    writeln!(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> Vec<Row> {
        let r = |peer: &str, kind, c: f64| Row {
            scope: "dir/a,b \"x\".txt".into(),
            kind,
            peer: peer.into(),
            level: 6,
            in_bytes: 2_000_000,
            out_bytes: 500_000,
            comp_secs: c,
            decomp_secs: 0.01,
        };
        vec![
            r("hyperz", Kind::Own, 0.02),
            r("zlib", Kind::Own, 0.04),
            r("zlib", Kind::Cross, 0.0),
        ]
    }

    #[test]
    fn csv_has_header_quotes_and_derived_columns() {
        let mut out = Vec::new();
        write_csv(&mut out, &rows()).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4);
        assert_eq!(lines[0], CSV_HEADER);
        assert_eq!(
            lines[2],
            "\"dir/a,b \"\"x\"\".txt\",own,zlib,6,2000000,500000,4.0000,0.040000,0.010000,50.00,200.00"
        );
        assert!(lines[3].contains(",cross,zlib,6,"));
    }

    #[test]
    fn table_shows_speed_relative_to_hyperz() {
        let t = own_table("t", &rows());
        let zlib_line = t.lines().find(|l| l.starts_with("zlib")).unwrap();
        assert!(zlib_line.contains("0.50x"), "{t}"); // half hyperz's compression speed
        assert!(zlib_line.contains("1.00x"), "{t}"); // same ratio
        assert!(t.lines().all(|l| l.len() <= 100));
    }

    #[test]
    fn json_is_parseable_with_totals() {
        let mut out = Vec::new();
        let rs = rows();
        write_json(&mut out, &serde_json::json!({"reps": 3}), &rs, &rs[..1]).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["files"].as_array().unwrap().len(), 3);
        assert_eq!(v["totals"][0]["peer"], "hyperz");
        assert_eq!(v["totals"][0]["comp_mbs"], 100.0);
    }
}
