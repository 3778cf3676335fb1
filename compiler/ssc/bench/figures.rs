//! SVG figures of `ssc bench` (plotters, SVG backend only); [`draw`]
//! writes them for a bench run.
//!
//! * [`boxplot`]: one box per configuration of every chain, grouped by
//!   chain (sorted by its best median latency), like the thesis' Figure
//!   3.8 — box from p25 to p75 in its configuration's colour, a line at
//!   the median, whiskers from the minimum to p99.9, a cross at the
//!   maximum, a legend column naming the configurations and the marks, the
//!   chain's name under its group — on a logarithmic latency axis fitted
//!   to the boxes and whiskers (a maximum above it a triangle at the top
//!   with its value).
//! * [`gantt`]: the predicted schedule of one iteration, one row per
//!   thread (its name left of the row), one bar per sub-box from its
//!   predicted start for its predicted time, labelled with the sub-box
//!   where it fits, coloured by function instance with a legend.
//!
//! `tests/it/figures.rs` renders both (and the other SVGs of ssc) and checks
//! their labels.

use super::Job;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use ssc::memory::MemoryKind;
use ssc::pipeline::Compiled;
use ssc::schedule::SchedulerKind;
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

/// `ssc bench`'s figures under `out`: `boxplot.svg` of every job (every
/// configuration of every file) and, for the figure configuration, each
/// file's `<file>/gantt.svg`; a figure that cannot be drawn is a warning.
pub fn draw(jobs: &[Job], out: &Path) {
    let Some((s, m)) = figure_config(jobs) else {
        return;
    };
    let all: Vec<&Job> = jobs.iter().collect();
    let path = out.join("boxplot.svg");
    if let Err(e) = boxplot(&all, &path) {
        eprintln!("warning: cannot draw `{}`: {e}", path.display());
    }
    for j in jobs.iter().filter(|j| j.scheduler == s && j.memory == m) {
        if let Some(c) = &j.compiled {
            let path = out.join(&j.file).join("gantt.svg");
            if let Err(e) = gantt(c, &format!("{}: {s} + {m}, predicted", j.file), &path) {
                eprintln!("warning: cannot draw `{}`: {e}", path.display());
            }
        }
    }
}

/// A job's configuration as the legend names it: `reduced2 + interference`.
fn config_name(j: &Job) -> String {
    format!("{} + {}", j.scheduler, j.memory)
}

/// The jobs in the order they are drawn: chains sorted by their least
/// median (ties by name), and within a chain the configurations in the
/// order they first appear in `jobs`; with the configurations, in that order.
fn box_order<'a>(jobs: &[&'a Job]) -> (Vec<Vec<&'a Job>>, Vec<String>) {
    let mut configs: Vec<String> = Vec::new();
    let mut chains: Vec<Vec<&Job>> = Vec::new();
    for &j in jobs {
        let c = config_name(j);
        if !configs.contains(&c) {
            configs.push(c);
        }
        match chains.iter_mut().find(|g| g[0].file == j.file) {
            Some(g) => g.push(j),
            None => chains.push(vec![j]),
        }
    }
    for g in &mut chains {
        g.sort_by_key(|j| configs.iter().position(|c| *c == config_name(j)));
    }
    let best = |g: &Vec<&Job>| {
        g.iter()
            .map(|j| j.latency.p50)
            .fold(f64::INFINITY, f64::min)
    };
    chains.sort_by(|a, b| best(a).total_cmp(&best(b)).then(a[0].file.cmp(&b[0].file)));
    (chains, configs)
}

/// Figure 3.8: latency box plots of every job — one group per chain
/// (sorted by its best median, named under the group), one box per
/// configuration, coloured by configuration — on a logarithmic axis fitted
/// to the boxes and whiskers, so boxes of a few hundred µs stay boxes
/// beside a maximum of milliseconds (marked at the top with its value);
/// the legend (the configurations and the marks) in a
/// column right of the plot, over no box. The title names the
/// configuration when there is one.
pub fn boxplot(jobs: &[&Job], path: &Path) -> Result<(), Failure> {
    let (chains, configs) = box_order(jobs);
    let n: usize = chains.iter().map(Vec::len).sum::<usize>().max(1);
    let gaps = chains.len().saturating_sub(1);
    let slots = (n + gaps) as f64;
    // Fitted to the boxes and whiskers (min to p99.9): a maximum far
    // above them (one long frame) is marked at the top with its value,
    // not allowed to squash every box into a line.
    let top = jobs.iter().map(|j| j.latency.p99_9).fold(1.0f64, f64::max);
    let low = jobs
        .iter()
        .map(|j| j.latency.min)
        .filter(|v| *v > 0.0)
        .fold(top, f64::min);
    let (lo, hi) = (low / 1.3, top * 1.6);
    let title = match configs.as_slice() {
        [one] => format!("end-to-end latency, {one}"),
        _ => format!("end-to-end latency, {} configurations", configs.len()),
    };
    let plot_width = (140 + 56 * (n + gaps) as u32).max(480);
    let root = SVGBackend::new(path, (plot_width + LEGEND_WIDTH, 520)).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot, legend) = root.split_horizontally(plot_width);
    let mut chart = ChartBuilder::on(&plot)
        .caption(title, ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(80)
        .build_cartesian_2d(0f64..slots, lo.log10()..hi.log10())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("latency (µs, log scale)")
        .y_labels(8)
        .y_label_formatter(&|v| tick(10f64.powf(*v)))
        .x_desc(if chains.len() > 1 {
            "chain (sorted by best median), a box per configuration"
        } else {
            "one box per configuration"
        })
        .draw()?;
    let colours: Vec<RGBAColor> = (0..configs.len())
        .map(|k| Palette99::pick(k).to_rgba())
        .collect();
    let colour = |j: &Job| {
        let k = configs.iter().position(|c| *c == config_name(j));
        colours[k.unwrap_or(0)]
    };
    let mut x = 0.5;
    let mut centres = Vec::new();
    for g in &chains {
        let first_x = x;
        for j in g {
            draw_box(&mut chart, j, x, colour(j), hi)?;
            x += 1.0;
        }
        centres.push(((first_x + x - 1.0) / 2.0, g[0].file.clone()));
        x += 1.0;
    }
    // Each chain's name under its group, centred.
    let name_style = ("sans-serif", 12)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    for (cx, file) in centres {
        let (px, py) = chart.backend_coord(&(cx, lo.log10()));
        plot.draw(&Text::new(file, (px, py + 8), name_style.clone()))?;
    }
    draw_legend(&legend, &configs, &colours)?;
    root.present()?;
    Ok(())
}

/// The width of the legend column right of the box plot, px.
const LEGEND_WIDTH: u32 = 230;

/// The box plot's legend: a swatch per configuration, then the marks
/// (median, whiskers, maximum).
fn draw_legend(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    configs: &[String],
    colours: &[RGBAColor],
) -> Result<(), Failure> {
    let font = ("sans-serif", 12).into_font().color(&BLACK);
    let text = |s: &str, y: i32| Text::new(s.to_string(), (28, y - 6), font.clone());
    let mut y = 64;
    for (c, colour) in configs.iter().zip(colours) {
        area.draw(&Rectangle::new(
            [(4, y - 5), (20, y + 5)],
            colour.mix(0.45).filled(),
        ))?;
        area.draw(&Rectangle::new(
            [(4, y - 5), (20, y + 5)],
            BLACK.stroke_width(1),
        ))?;
        area.draw(&text(c, y))?;
        y += 20;
    }
    y += 6;
    area.draw(&PathElement::new([(4, y), (20, y)], RED.stroke_width(2)))?;
    area.draw(&text("median", y))?;
    y += 20;
    area.draw(&PathElement::new([(12, y - 6), (12, y + 6)], BLACK))?;
    area.draw(&text("whiskers: min and p99.9", y))?;
    y += 20;
    area.draw(&Cross::new((12, y), 4, BLACK))?;
    area.draw(&text("max", y))?;
    y += 20;
    area.draw(&TriangleMarker::new((12, y), 5, BLACK))?;
    area.draw(&text("max above the axis (µs)", y))?;
    Ok(())
}

/// A latency tick or value, µs, to 3 significant digits at most
/// (`316`, `31.6`, `3.16`, `0.316`) and whole from 100 up (`10000`).
fn tick(v: f64) -> String {
    let decimals = match v {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        v if v >= 1.0 => 2,
        _ => 3,
    };
    let t = format!("{v:.decimals$}");
    if t.contains('.') {
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        t
    }
}

type LatencyChart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// One job's box (p25–p75, in its configuration's colour), median,
/// whiskers (min, p99.9) and maximum at `x`; a maximum above the axis'
/// top `hi` is a triangle at the top with its value.
fn draw_box(
    chart: &mut LatencyChart<'_, '_>,
    j: &Job,
    x: f64,
    colour: RGBAColor,
    hi: f64,
) -> Result<(), Failure> {
    let l = &j.latency;
    // The axis is log10 µs.
    let y = |v: f64| v.max(1e-9).log10();
    chart.draw_series(std::iter::once(Rectangle::new(
        [(x - 0.35, y(l.p25)), (x + 0.35, y(l.p75))],
        colour.mix(0.45).filled(),
    )))?;
    chart.draw_series(std::iter::once(Rectangle::new(
        [(x - 0.35, y(l.p25)), (x + 0.35, y(l.p75))],
        BLACK.stroke_width(1),
    )))?;
    chart.draw_series(LineSeries::new(
        [(x - 0.35, y(l.p50)), (x + 0.35, y(l.p50))],
        RED.stroke_width(2),
    ))?;
    chart.draw_series(LineSeries::new([(x, y(l.min)), (x, y(l.p25))], BLACK))?;
    chart.draw_series(LineSeries::new([(x, y(l.p75)), (x, y(l.p99_9))], BLACK))?;
    for v in [l.min, l.p99_9] {
        chart.draw_series(LineSeries::new([(x - 0.15, y(v)), (x + 0.15, y(v))], BLACK))?;
    }
    if l.max <= hi {
        chart.draw_series(std::iter::once(Cross::new((x, y(l.max)), 4, BLACK)))?;
    } else {
        let at = y(hi / 1.04);
        chart.draw_series(std::iter::once(TriangleMarker::new((x, at), 5, BLACK)))?;
        let font = ("sans-serif", 10).into_font().color(&BLACK);
        chart.draw_series(std::iter::once(Text::new(
            tick(l.max),
            (x + 0.12, at),
            font.pos(Pos::new(HPos::Left, VPos::Center)),
        )))?;
    }
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
