//! `--svg F`: a timeline, one lane per best-effort core: read (blue) and
//! write (red) bandwidth per interval, the threshold (dashed), and the
//! suspensions as grey bands; the lane title gives the duty cycle. Drawn
//! with plotters (as the other figures of ssc): time axis in ms with
//! ticks, bandwidth axis in GB/s, a legend.

use super::cycle::{CoreSummary, Record};
use plotters::prelude::*;

const WIDTH: u32 = 1000;
const LANE: u32 = 220;

/// The SVG text; `threshold_bps` 0 draws no threshold line.
pub fn render(records: &[Record], cores: &[CoreSummary], threshold_bps: f64) -> String {
    let mut svg = String::new();
    if let Err(e) = draw(&mut svg, records, cores, threshold_bps) {
        // Only a drawing error of plotters' own: say so in the file.
        svg = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><text x=\"10\" y=\"20\">ssc throttle: cannot draw: {e}</text></svg>\n"
        );
    }
    svg
}

fn draw(
    svg: &mut String,
    records: &[Record],
    cores: &[CoreSummary],
    threshold_bps: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    let t_end_ms = cores
        .iter()
        .map(|c| c.elapsed_us)
        .chain(records.iter().map(|r| r.t_us + r.suspend_us))
        .max()
        .unwrap_or(1)
        .max(1) as f64
        / 1000.0;
    let lanes = cores.len().max(1) as u32;
    let root = SVGBackend::with_string(svg, (WIDTH, 40 + LANE * lanes)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        "ssc throttle: bandwidth per sampling interval, threshold, suspensions",
        ("sans-serif", 16),
    )?;
    let areas = root.split_evenly((cores.len().max(1), 1));
    for (c, area) in cores.iter().zip(&areas) {
        let mine: Vec<&Record> = records.iter().filter(|r| r.core == c.core).collect();
        let max_gbs = mine
            .iter()
            .map(|r| r.read_bps.max(r.write_bps))
            .fold(threshold_bps * 1.2, f64::max)
            .max(1.0)
            / 1e9
            * 1.05;
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "core {}: {} suspensions, duty {:.1} %",
                    c.core,
                    c.suspensions,
                    100.0 * c.duty()
                ),
                ("sans-serif", 13),
            )
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..t_end_ms, 0f64..max_gbs)?;
        chart
            .configure_mesh()
            .x_desc("time (ms)")
            .y_desc("GB/s")
            .x_labels(12)
            .y_labels(5)
            .draw()?;
        let grey = RGBColor(150, 150, 150).mix(0.45).filled();
        let mut first = true;
        for r in mine.iter().filter(|r| r.suspend_us > 0) {
            let (a, b) = (
                r.t_us as f64 / 1000.0,
                (r.t_us + r.suspend_us) as f64 / 1000.0,
            );
            let band = chart.draw_series(std::iter::once(Rectangle::new(
                [(a, 0.0), (b, max_gbs)],
                grey,
            )))?;
            if first {
                band.label("suspended")
                    .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], grey));
                first = false;
            }
        }
        let blue = RGBColor(0x1f, 0x5f, 0xbf);
        let red = RGBColor(0xc0, 0x39, 0x2b);
        for (colour, name, pick) in [
            (
                blue,
                "read",
                (|r: &Record| r.read_bps) as fn(&Record) -> f64,
            ),
            (red, "write", |r: &Record| r.write_bps),
        ] {
            chart
                .draw_series(LineSeries::new(
                    mine.iter().map(|r| (r.t_us as f64 / 1000.0, pick(r) / 1e9)),
                    colour.stroke_width(1),
                ))?
                .label(name)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], colour));
        }
        if threshold_bps > 0.0 {
            let t = threshold_bps / 1e9;
            chart
                .draw_series(DashedLineSeries::new(
                    [(0.0, t), (t_end_ms, t)],
                    6,
                    4,
                    BLACK.stroke_width(1),
                ))?
                .label("threshold")
                .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLACK));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 11))
            .draw()?;
    }
    root.present()?;
    Ok(())
}
