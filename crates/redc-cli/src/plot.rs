//! Charts as SVG, drawn with `plotters` (SVG backend): line charts on a
//! logarithmic y axis (`redc speed --plot`, `redc bench mont --plot`) and
//! an agreement chart on two logarithmic axes (`redc hw reproduce --plot`).
//! Every chart carries a stamp line: the CPU, the date and the redc build
//! (version, and the commit `REDC_PLOT_COMMIT` names: `scripts/plots.sh`
//! sets it), so that an image read alone says where it came from. The SVG
//! is made in memory and written only once complete.

use plotters::prelude::*;

/// One line: its label and its (x, y) points, x ascending.
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

/// Draws `series` against a log-scale y axis and writes the SVG to `path`.
pub fn line_chart(
    path: &str,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
) -> Result<(), String> {
    let pts = || series.iter().flat_map(|s| s.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in pts() {
        if !(x.is_finite() && y.is_finite() && y > 0.0) {
            return Err(format!("cannot plot the point ({x}, {y})"));
        }
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        return Err("nothing to plot".into());
    }
    // The legend goes to the left corner the lines leave free: the lower one
    // when they fall with x (ops/s), the upper one when they rise (ns).
    let rising = series
        .iter()
        .filter_map(|s| Some((s.points.first()?.1, s.points.last()?.1)))
        .filter(|(a, b)| b > a)
        .count()
        * 2
        > series.len();
    let legend_at = if rising {
        SeriesLabelPosition::UpperLeft
    } else {
        SeriesLabelPosition::LowerLeft
    };
    let pad = ((x1 - x0) * 0.04).max(x0.abs() * 0.1).max(1.0);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<_>| format!("plot: {e}");
        root.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x0 - pad..x1 + pad, (y0 / 1.5..y1 * 1.5).log_scale())
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format_si(*y))
            .draw()
            .map_err(e)?;
        for (i, s) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(s.points.iter().copied(), color.stroke_width(2)))
                .map_err(e)?
                .label(s.label.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            chart
                .draw_series(s.points.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(e)?;
        }
        chart
            .configure_series_labels()
            .position(legend_at)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(e)?;
        stamp(&root).map_err(e)?;
        root.present().map_err(e)?;
    }
    crate::io::write_output(path, svg.as_bytes(), crate::io::Secrecy::Public)
}

/// "CPU: MODEL · DATE · redc VERSION (commit C)": where a chart came from.
pub fn stamp_text() -> String {
    let commit = std::env::var("REDC_PLOT_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .map(|c| format!(" (commit {c})"))
        .unwrap_or_default();
    format!(
        "CPU: {} \u{b7} {} \u{b7} redc {}{commit}",
        redc::arch::select::cpu_model(),
        crate::date::today(),
        env!("CARGO_PKG_VERSION")
    )
}

/// The stamp line, small, along the chart's bottom edge.
fn stamp<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (_, h) = root.dim_in_pixel();
    root.draw_text(
        &stamp_text(),
        &("sans-serif", 12).into_font().color(&BLACK.mix(0.6)),
        (8, h as i32 - 14),
    )
}

/// An agreement chart: one point per (x, y) pair on two logarithmic axes,
/// and the line y = x (exact agreement) across their range.
pub fn agreement_chart(
    path: &str,
    title: &str,
    x_label: &str,
    y_label: &str,
    points: &[(f64, f64)],
) -> Result<(), String> {
    let (mut lo, mut hi) = (f64::MAX, f64::MIN);
    for &(x, y) in points {
        if !(x.is_finite() && y.is_finite() && x > 0.0 && y > 0.0) {
            return Err(format!("cannot plot the point ({x}, {y})"));
        }
        (lo, hi) = (lo.min(x).min(y), hi.max(x).max(y));
    }
    if lo > hi {
        return Err("nothing to plot".into());
    }
    let range = lo / 2.0..hi * 2.0;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, 700)).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<_>| format!("plot: {e}");
        root.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d(range.clone().log_scale(), range.clone().log_scale())
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .x_label_formatter(&|x| format_si(*x))
            .y_label_formatter(&|y| format_si(*y))
            .draw()
            .map_err(e)?;
        let line = Palette99::pick(1).to_rgba();
        chart
            .draw_series(LineSeries::new(
                [(range.start, range.start), (range.end, range.end)],
                line.stroke_width(1),
            ))
            .map_err(e)?
            .label("model = paper")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], line.stroke_width(1)));
        let dot = Palette99::pick(0).to_rgba();
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, dot.filled())))
            .map_err(e)?
            .label("one table row")
            .legend(move |(x, y)| Circle::new((x + 10, y), 3, dot.filled()));
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(e)?;
        stamp(&root).map_err(e)?;
        root.present().map_err(e)?;
    }
    crate::io::write_output(path, svg.as_bytes(), crate::io::Secrecy::Public)
}

fn format_si(y: f64) -> String {
    if y >= 1e6 {
        format!("{}M", trim(y / 1e6))
    } else if y >= 1e3 {
        format!("{}k", trim(y / 1e3))
    } else {
        trim(y)
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
