//! SVG figures of `ssc bench` (plotters, SVG backend only).
//!
//! * [`boxplot`]: one box per chain, sorted by median latency, like the
//!   thesis' Figure 3.8 — box from p25 to p75, a line at the median,
//!   whiskers from the minimum to p99.9, a cross at the maximum, the
//!   chain's name at the top.
//! * [`gantt`]: the predicted schedule of one iteration, one row per
//!   thread (its name above the row), one bar per sub-box from its
//!   predicted start for its predicted time (colour by function instance).

use super::bench::Job;
use crate::pipeline::Compiled;
use plotters::prelude::*;
use std::path::Path;

type Failure = Box<dyn std::error::Error>;

/// Figure 3.8: latency box plots of the jobs, sorted by median.
pub fn boxplot(jobs: &[&Job], config: &str, path: &Path) -> Result<(), Failure> {
    let mut jobs: Vec<&Job> = jobs.to_vec();
    jobs.sort_by(|a, b| a.latency.p50.total_cmp(&b.latency.p50));
    let n = jobs.len().max(1);
    let top = jobs.iter().map(|j| j.latency.max).fold(1.0f64, f64::max) * 1.05;
    let root = SVGBackend::new(path, (160 + 60 * n as u32, 480)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("end-to-end latency, {config}"), ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(70)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..n as f64, 0f64..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("latency (µs)")
        .x_desc("chain (sorted by median)")
        .draw()?;
    for (i, j) in jobs.iter().enumerate() {
        let x = i as f64 + 0.5;
        let l = &j.latency;
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x - 0.3, l.p25), (x + 0.3, l.p75)],
            BLUE.mix(0.3).filled(),
        )))?;
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x - 0.3, l.p25), (x + 0.3, l.p75)],
            BLUE.stroke_width(1),
        )))?;
        chart.draw_series(LineSeries::new(
            [(x - 0.3, l.p50), (x + 0.3, l.p50)],
            RED.stroke_width(2),
        ))?;
        chart.draw_series(LineSeries::new([(x, l.min), (x, l.p25)], BLACK))?;
        chart.draw_series(LineSeries::new([(x, l.p75), (x, l.p99_9)], BLACK))?;
        for y in [l.min, l.p99_9] {
            chart.draw_series(LineSeries::new([(x - 0.15, y), (x + 0.15, y)], BLACK))?;
        }
        chart.draw_series(std::iter::once(Cross::new((x, l.max), 4, BLACK)))?;
        chart.draw_series(std::iter::once(Text::new(
            j.file.clone(),
            (x - 0.4, top * 0.99),
            ("sans-serif", 11),
        )))?;
    }
    root.present()?;
    Ok(())
}

/// The predicted schedule of one iteration as a Gantt chart.
pub fn gantt(c: &Compiled, title: &str, path: &Path) -> Result<(), Failure> {
    let Some(s) = &c.schedule else {
        return Ok(());
    };
    let h = &c.hsdfg;
    let threads = s.threads.len().max(1);
    let end = s
        .threads
        .iter()
        .flat_map(|t| {
            t.actors
                .iter()
                .zip(&t.start)
                .map(|(a, st)| st + h.actor(*a).time)
        })
        .fold(1.0f64, f64::max);
    let root = SVGBackend::new(path, (1000, 120 + 40 * threads as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..end * 1.02, 0f64..threads as f64)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_desc("predicted time within one iteration (µs)")
        .draw()?;
    for (ti, t) in s.threads.iter().enumerate() {
        chart.draw_series(std::iter::once(Text::new(
            t.name.clone(),
            (0.0, ti as f64 + 0.95),
            ("sans-serif", 11),
        )))?;
        for (a, st) in t.actors.iter().zip(&t.start) {
            let actor = h.actor(*a);
            let colour = Palette99::pick(actor.function.0);
            let y = ti as f64;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(*st, y + 0.15), (st + actor.time, y + 0.85)],
                colour.mix(0.7).filled(),
            )))?;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(*st, y + 0.15), (st + actor.time, y + 0.85)],
                BLACK.stroke_width(1),
            )))?;
        }
    }
    root.present()?;
    Ok(())
}
