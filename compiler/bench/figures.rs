//! SVG figures of `ssc bench` (plotters, SVG backend only); [`draw`]
//! writes them for a bench run.
//!
//! * [`boxplot`]: one box per chain, sorted by median latency, like the
//!   thesis' Figure 3.8 — box from p25 to p75, a line at the median,
//!   whiskers from the minimum to p99.9, a cross at the maximum, a legend
//!   saying so, the chain's name under its box.
//! * [`gantt`]: the predicted schedule of one iteration, one row per
//!   thread (its name left of the row), one bar per sub-box from its
//!   predicted start for its predicted time, labelled with the sub-box
//!   where it fits, coloured by function instance with a legend.
//!
//! `tests/figures.rs` renders both (and the other SVGs of ssc) and checks
//! their labels.

use super::Job;
use crate::memory::MemoryKind;
use crate::pipeline::Compiled;
use crate::schedule::SchedulerKind;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

type Failure = Box<dyn std::error::Error>;

/// reduced + interference when it ran, else the last configuration.
fn figure_config(jobs: &[Job]) -> Option<(String, String)> {
    jobs.iter()
        .find(|j| {
            j.scheduler.starts_with(SchedulerKind::Reduced(0).keyword())
                && j.memory == MemoryKind::Interference.keyword()
        })
        .or(jobs.last())
        .map(|j| (j.scheduler.clone(), j.memory.clone()))
}

/// `ssc bench`'s figures under `out`: `boxplot.svg` of the figure
/// configuration's jobs and each one's `<file>/gantt.svg`; a figure that
/// cannot be drawn is a warning.
pub fn draw(jobs: &[Job], out: &Path) {
    let Some((s, m)) = figure_config(jobs) else {
        return;
    };
    let boxes: Vec<&Job> = jobs
        .iter()
        .filter(|j| j.scheduler == s && j.memory == m)
        .collect();
    let path = out.join("boxplot.svg");
    if let Err(e) = boxplot(&boxes, &format!("{s} + {m}"), &path) {
        eprintln!("warning: cannot draw `{}`: {e}", path.display());
    }
    for j in &boxes {
        if let Some(c) = &j.compiled {
            let path = out.join(&j.file).join("gantt.svg");
            if let Err(e) = gantt(c, &format!("{}: {s} + {m}, predicted", j.file), &path) {
                eprintln!("warning: cannot draw `{}`: {e}", path.display());
            }
        }
    }
}

/// Figure 3.8: latency box plots of the jobs, sorted by median.
pub fn boxplot(jobs: &[&Job], config: &str, path: &Path) -> Result<(), Failure> {
    let mut jobs: Vec<&Job> = jobs.to_vec();
    jobs.sort_by(|a, b| a.latency.p50.total_cmp(&b.latency.p50));
    let n = jobs.len().max(1);
    let top = jobs.iter().map(|j| j.latency.max).fold(1.0f64, f64::max) * 1.25;
    // Wide enough for the title and the legend with one chain, and for
    // every chain's name under its box with many.
    let width = (220 + 80 * n as u32).max(680);
    let root = SVGBackend::new(path, (width, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("end-to-end latency, {config}"), ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..n as f64, 0f64..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("latency (µs)")
        .x_desc("chain (sorted by median latency)")
        .draw()?;
    for (i, j) in jobs.iter().enumerate() {
        let x = i as f64 + 0.5;
        let l = &j.latency;
        let first = i == 0;
        let boxes = chart.draw_series(std::iter::once(Rectangle::new(
            [(x - 0.3, l.p25), (x + 0.3, l.p75)],
            BLUE.mix(0.3).filled(),
        )))?;
        if first {
            boxes.label("p25 – p75").legend(|(x, y)| {
                Rectangle::new([(x, y - 5), (x + 16, y + 5)], BLUE.mix(0.3).filled())
            });
        }
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x - 0.3, l.p25), (x + 0.3, l.p75)],
            BLUE.stroke_width(1),
        )))?;
        let median = chart.draw_series(LineSeries::new(
            [(x - 0.3, l.p50), (x + 0.3, l.p50)],
            RED.stroke_width(2),
        ))?;
        if first {
            median
                .label("median")
                .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], RED.stroke_width(2)));
        }
        chart.draw_series(LineSeries::new([(x, l.min), (x, l.p25)], BLACK))?;
        let whisker = chart.draw_series(LineSeries::new([(x, l.p75), (x, l.p99_9)], BLACK))?;
        if first {
            whisker
                .label("whiskers: min and p99.9")
                .legend(|(x, y)| PathElement::new([(x + 8, y - 6), (x + 8, y + 6)], BLACK));
        }
        for y in [l.min, l.p99_9] {
            chart.draw_series(LineSeries::new([(x - 0.15, y), (x + 0.15, y)], BLACK))?;
        }
        let max = chart.draw_series(std::iter::once(Cross::new((x, l.max), 4, BLACK)))?;
        if first {
            max.label("max")
                .legend(|(x, y)| Cross::new((x + 8, y), 4, BLACK));
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .draw()?;
    // Each chain's name under its box, centred.
    let name_style = ("sans-serif", 12)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    for (i, j) in jobs.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
        root.draw(&Text::new(j.file.clone(), (px, py + 8), name_style.clone()))?;
    }
    root.present()?;
    Ok(())
}

/// The predicted schedule of one iteration as a Gantt chart: one row per
/// thread (its name left of the row), one bar per sub-box labelled with
/// its name where it fits, coloured by function instance, and a legend of
/// the colours under the chart.
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
    // The functions that run, in order of their ids, for the legend.
    let mut functions: Vec<usize> = s
        .threads
        .iter()
        .flat_map(|t| t.actors.iter().map(|a| h.actor(*a).function.0))
        .collect();
    functions.sort();
    functions.dedup();
    const WIDTH: u32 = 1100;
    const COLUMNS: usize = 6;
    let legend_rows = functions.len().div_ceil(COLUMNS) as u32;
    let chart_height = 110 + 46 * threads as u32;
    let root =
        SVGBackend::new(path, (WIDTH, chart_height + 24 + 18 * legend_rows)).into_drawing_area();
    root.fill(&WHITE)?;
    let (upper, lower) = root.split_vertically(chart_height);
    let mut chart = ChartBuilder::on(&upper)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(90)
        .build_cartesian_2d(0f64..end * 1.02, 0f64..threads as f64)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_desc("predicted time within one iteration (µs)")
        .draw()?;
    let right = ("sans-serif", 12)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Right, VPos::Center));
    let centred = ("sans-serif", 9)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Center));
    for (ti, t) in s.threads.iter().enumerate() {
        let y = ti as f64;
        // The thread's name in the label area, left of its row.
        let (px, py) = chart.backend_coord(&(0.0, y + 0.5));
        upper.draw(&Text::new(t.name.clone(), (px - 8, py), right.clone()))?;
        for (a, st) in t.actors.iter().zip(&t.start) {
            let actor = h.actor(*a);
            let colour = Palette99::pick(actor.function.0);
            let (x0, x1) = (*st, st + actor.time);
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, y + 0.15), (x1, y + 0.85)],
                colour.mix(0.7).filled(),
            )))?;
            chart.draw_series(std::iter::once(Rectangle::new(
                [(x0, y + 0.15), (x1, y + 0.85)],
                BLACK.stroke_width(1),
            )))?;
            // The sub-box's name inside its bar when it fits.
            let label = actor.subbox.to_string();
            let (a0, _) = chart.backend_coord(&(x0, y));
            let (a1, _) = chart.backend_coord(&(x1, y));
            // (9 px sans-serif: about 5 px a character.)
            if (a1 - a0) as usize > 5 * label.chars().count() + 2 {
                let (cx, cy) = chart.backend_coord(&((x0 + x1) / 2.0, y + 0.5));
                upper.draw(&Text::new(label, (cx, cy), centred.clone()))?;
            }
        }
    }
    // Legend: a swatch and the function instance's name, in columns.
    let column = (WIDTH as i32 - 40) / COLUMNS as i32;
    lower.draw(&Text::new(
        "colour = function instance (bars too narrow for a name are unlabelled):",
        (20, 4),
        ("sans-serif", 12).into_font().color(&BLACK),
    ))?;
    for (k, f) in functions.iter().enumerate() {
        let (cx, cy) = (
            20 + column * (k % COLUMNS) as i32,
            22 + 18 * (k / COLUMNS) as i32,
        );
        lower.draw(&Rectangle::new(
            [(cx, cy), (cx + 14, cy + 12)],
            Palette99::pick(*f).mix(0.7).filled(),
        ))?;
        lower.draw(&Text::new(
            h.functions[*f].name.clone(),
            (cx + 20, cy),
            ("sans-serif", 12).into_font().color(&BLACK),
        ))?;
    }
    root.present()?;
    Ok(())
}
