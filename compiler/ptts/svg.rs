//! The `--svg` report of `ssc ptts`: the PMF (stems) and the CDF (steps)
//! of the end-to-end latency side by side, like the thesis' Figures
//! 5.6–5.9, drawn with plotters' SVG backend (no fonts needed).

use super::model::Model;
use super::report::Summary;
use plotters::drawing::DrawingAreaErrorKind;
use plotters::prelude::*;

/// Why the plots could not be drawn: plotters' error (its SVG backend
/// writes into a string, so this is a layout or drawing failure).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct DrawError(#[from] DrawingAreaErrorKind<std::io::Error>);

/// Draws both plots into an SVG document and returns it.
pub fn render(model: &Model, s: &Summary, title: &str) -> Result<String, DrawError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1200, 480)).into_drawing_area();
        root.fill(&WHITE)?;
        let (left, right) = root.split_horizontally(600);
        let x = |v: i128| model.time_f64(v);
        let (lo, hi) = (x(s.min), x(s.max));
        let pad = ((hi - lo) * 0.05).max(model.time_f64(1));
        let (x0, x1) = (lo - pad, hi + pad);
        let maxp = s.points.iter().map(|p| p.p).fold(0.0, f64::max).max(1e-12);

        let mut pmf = ChartBuilder::on(&left)
            .caption(format!("{title}: PMF"), ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, 0.0..maxp * 1.1)?;
        pmf.configure_mesh()
            .x_desc(model.with_unit("latency"))
            .y_desc("probability")
            .draw()?;
        pmf.draw_series(s.points.iter().map(|p| {
            PathElement::new(
                vec![(x(p.latency), 0.0), (x(p.latency), p.p)],
                BLUE.stroke_width(2),
            )
        }))?;

        let mut cdf = ChartBuilder::on(&right)
            .caption(format!("{title}: CDF"), ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, 0.0..1.05)?;
        cdf.configure_mesh()
            .x_desc(model.with_unit("latency"))
            .y_desc("P(latency ≤ x)")
            .draw()?;
        let mut steps = vec![(x0, 0.0)];
        let mut prev = 0.0;
        for p in &s.points {
            steps.push((x(p.latency), prev));
            steps.push((x(p.latency), p.cdf));
            prev = p.cdf;
        }
        steps.push((x1, prev));
        cdf.draw_series(LineSeries::new(steps, RED.stroke_width(2)))?;
        root.present()?;
    }
    Ok(svg)
}
