//! The Pareto chart: compression ratio against compression speed, one series per peer.
//!
//! x is compression MB/s on a log scale (speeds span two orders of magnitude between level 1
//! and level 12), y is the ratio; each point is labelled with its level, and each peer's points
//! are joined in level order so its speed/ratio curve is visible. A point up and to the right of
//! another peer's curve dominates it.
//!
//! Text needs a TrueType font. To keep the build free of fontconfig/freetype `-dev` packages the
//! chart uses plotters' pure-Rust `ab_glyph` renderer and loads DejaVu Sans at run time
//! (Debian's fonts-dejavu-core). Without a font the chart is still drawn, without any text.
#![forbid(unsafe_code)]

use crate::measure::{Kind, Row};
use plotters::prelude::*;
use std::path::Path;

/// Fonts tried in order; the first that exists is used.
const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
];

/// Loads and registers a font as "sans-serif"; returns whether one was found.
fn load_font() -> bool {
    for p in FONT_PATHS {
        if let Ok(bytes) = std::fs::read(p) {
            // The registry wants 'static bytes; one font leaked once per run is fine.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                return true;
            }
        }
    }
    false
}

const COLOURS: [RGBColor; 6] = [
    RGBColor(214, 39, 40),   // hyperz: red, drawn last so it sits on top
    RGBColor(31, 119, 180),  // zlib
    RGBColor(44, 160, 44),   // zlib-ng
    RGBColor(148, 103, 189), // libdeflate
    RGBColor(255, 127, 14),  // isal
    RGBColor(100, 100, 100),
];

/// Draws the chart of the `Own` rows in `totals` to `path` (PNG). Returns a note for the user
/// when text could not be drawn.
pub fn draw(path: &Path, totals: &[Row], title: &str) -> Result<Option<String>, String> {
    let pts: Vec<&Row> = totals
        .iter()
        .filter(|r| r.kind == Kind::Own && r.comp_mbs() > 0.0)
        .collect();
    if pts.is_empty() {
        return Err("no rows to chart".into());
    }
    let text = load_font();
    let (xmin, xmax) = pts.iter().fold((f64::MAX, 0f64), |(a, b), r| {
        (a.min(r.comp_mbs()), b.max(r.comp_mbs()))
    });
    let (ymin, ymax) = pts.iter().fold((f64::MAX, 0f64), |(a, b), r| {
        (a.min(r.ratio()), b.max(r.ratio()))
    });
    let ypad = ((ymax - ymin) * 0.08).max(0.02);
    let err = |e: &dyn std::fmt::Display| format!("chart {}: {e}", path.display());

    let root = BitMapBackend::new(path, (1200, 800)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut builder = ChartBuilder::on(&root);
    builder.margin(20);
    if text {
        builder
            .caption(title, ("sans-serif", 24))
            .x_label_area_size(50)
            .y_label_area_size(70);
    }
    let mut chart = builder
        .build_cartesian_2d(
            (xmin * 0.7..xmax * 1.5).log_scale(),
            ymin - ypad..ymax + ypad,
        )
        .map_err(|e| err(&e))?;
    let mut mesh = chart.configure_mesh();
    if text {
        mesh.x_desc("compression speed, MB/s (log scale)")
            .y_desc("compression ratio (uncompressed / compressed)")
            .label_style(("sans-serif", 16))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.2}"));
    } else {
        mesh.x_labels(0).y_labels(0);
    }
    mesh.draw().map_err(|e| err(&e))?;

    let mut peers: Vec<&str> = Vec::new();
    for r in &pts {
        if !peers.contains(&r.peer.as_str()) {
            peers.push(&r.peer);
        }
    }
    // hyperz last, so its series is drawn over the others.
    peers.sort_by_key(|p| *p == "hyperz");
    for peer in peers {
        let i = crate::peers::ALL
            .iter()
            .position(|p| *p == peer)
            .unwrap_or(5);
        let colour = COLOURS[i.min(5)];
        let mut series: Vec<(f64, f64, u32)> = pts
            .iter()
            .filter(|r| r.peer == peer)
            .map(|r| (r.comp_mbs(), r.ratio(), r.level))
            .collect();
        series.sort_by_key(|s| s.2);
        let line = chart
            .draw_series(LineSeries::new(
                series.iter().map(|s| (s.0, s.1)),
                colour.stroke_width(2),
            ))
            .map_err(|e| err(&e))?;
        if text {
            line.label(peer).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(3))
            });
        }
        let font = ("sans-serif", 15).into_font().color(&colour);
        chart
            .draw_series(series.iter().map(|s| {
                // The level label sits up and to the right of its point, clear of the marker.
                let label = if text {
                    format!("{}", s.2)
                } else {
                    String::new()
                };
                EmptyElement::at((s.0, s.1))
                    + Circle::new((0, 0), 5, colour.filled())
                    + Text::new(label, (6, -18), font.clone())
            }))
            .map_err(|e| err(&e))?;
    }
    if text {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 18))
            .draw()
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok((!text).then(|| {
        format!(
            "no TrueType font found ({}); chart drawn without text",
            FONT_PATHS[0]
        )
    }))
}
