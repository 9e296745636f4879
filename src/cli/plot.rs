//! The throughput chart of `warpjit bench --plot`: one group of horizontal bars per workload,
//! one bar per engine, lane-instructions per second on a log scale, as an SVG file (drawn with
//! `plotters`).

use plotters::prelude::*;
use std::path::Path;

/// One workload's measured throughput per engine (`(engine, lane-instructions per second)`).
#[derive(Clone, Debug)]
pub struct Bars {
    /// The workload (a built-in kernel or a trace's name).
    pub name: String,
    /// Engines in drawing order, with their throughput (> 0).
    pub engines: Vec<(String, f64)>,
}

/// The colour of an engine's bars: fixed per known engine, so charts compare.
fn colour(engine: &str) -> RGBColor {
    match engine {
        "interp" => RGBColor(0x9e, 0x9e, 0x9e),
        "jit" => RGBColor(0x1f, 0x77, 0xb4),
        "rust" => RGBColor(0xff, 0x7f, 0x0e),
        _ => RGBColor(0x2c, 0xa0, 0x2c),
    }
}

/// Writes the chart of `rows` to `path` (SVG), titled `title`.
pub fn throughput_svg(path: &Path, title: &str, rows: &[Bars]) -> Result<(), String> {
    let values: Vec<f64> = rows
        .iter()
        .flat_map(|r| r.engines.iter().map(|e| e.1))
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    if values.is_empty() {
        return Err("nothing to plot: no workload was measured".into());
    }
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(0.0, f64::max);
    // Whole decades around the data, with a decade to spare below the smallest value, so that
    // its bar is not a sliver at the axis.
    let (lo, hi) = (
        10f64.powf(lo.log10().floor() - 1.0),
        10f64.powf(hi.log10().ceil().max(lo.log10().floor() + 1.0)),
    );
    let mut engines: Vec<&str> = Vec::new();
    for r in rows {
        for (e, _) in &r.engines {
            if !engines.contains(&e.as_str()) {
                engines.push(e);
            }
        }
    }
    let n = rows.len();
    let height = 90 + 26 * n as u32 * engines.len().max(1) as u32 / 2 + 14 * n as u32;
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let root = SVGBackend::new(path, (900, height.max(240))).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .margin_left(170)
        .x_label_area_size(36)
        .y_label_area_size(0)
        .build_cartesian_2d((lo..hi).log_scale(), 0.0..n as f64)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .x_desc("lane-instructions per second (log scale)")
        .x_label_formatter(&|v| format!("{v:.0e}"))
        .draw()
        .map_err(|e| err(&e))?;
    let k = engines.len().max(1) as f64;
    let band = 0.8 / k;
    for (ei, engine) in engines.iter().enumerate() {
        let c = colour(engine);
        let bars = rows.iter().enumerate().filter_map(|(i, r)| {
            let v = r.engines.iter().find(|(e, _)| e == engine)?.1;
            // The first workload on top.
            let top = (n - i) as f64 - 0.1 - band * ei as f64;
            Some(Rectangle::new(
                [(lo, top - band), (v.max(lo), top)],
                c.filled(),
            ))
        });
        chart
            .draw_series(bars)
            .map_err(|e| err(&e))?
            .label(*engine)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], c.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    // Workload names in the left margin, level with their group.
    for (i, r) in rows.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(lo, (n - i) as f64 - 0.5));
        let style = ("sans-serif", 13).into_font().color(&BLACK).pos(
            plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Right,
                plotters::style::text_anchor::VPos::Center,
            ),
        );
        root.draw_text(&r.name, &style, (x - 8, y))
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chart_names_every_workload_and_engine() {
        let dir = std::env::temp_dir().join(format!("warpjit-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("t.svg");
        let rows = vec![
            Bars {
                name: "gather".into(),
                engines: vec![("interp".into(), 2.0e8), ("jit".into(), 1.5e9)],
            },
            Bars {
                name: "loop".into(),
                engines: vec![("interp".into(), 3.0e8), ("jit".into(), 4.0e9)],
            },
        ];
        throughput_svg(&path, "warpjit bench", &rows).expect("writes");
        let svg = std::fs::read_to_string(&path).expect("reads");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(svg.starts_with("<svg"), "{svg}");
        for word in ["gather", "loop", "interp", "jit", "warpjit bench"] {
            assert!(svg.contains(word), "{word} missing");
        }
        // Four bars (the legend's two swatches are rectangles too).
        assert!(svg.matches("<rect").count() >= 6, "{svg}");
        assert!(throughput_svg(&path, "x", &[]).is_err());
    }
}
