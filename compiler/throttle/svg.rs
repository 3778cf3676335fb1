//! `--svg F`: a timeline, one lane per best-effort core: read (blue) and
//! write (red) bandwidth per interval, the threshold (dashed), and the
//! suspensions as grey bands; the lane title gives the duty cycle.
//! Hand-written SVG (no plotting dependency).

use super::cycle::{CoreSummary, Record};
use std::fmt::Write as _;

const W: f64 = 900.0;
const LANE: f64 = 140.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 30.0;

/// The SVG text; `threshold_bps` 0 draws no threshold line.
pub fn render(records: &[Record], cores: &[CoreSummary], threshold_bps: f64) -> String {
    let t_end = cores
        .iter()
        .map(|c| c.elapsed_us)
        .chain(records.iter().map(|r| r.t_us + r.suspend_us))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let h = TOP + LANE * cores.len().max(1) as f64 + 30.0;
    let x = |t: f64| LEFT + (W - LEFT - RIGHT) * t / t_end;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="18" font-size="13">ssc throttle: bandwidth (read blue, write red), threshold (dashed), suspensions (grey); 0 … {:.1} ms</text>"#,
        t_end / 1000.0
    );
    for (i, c) in cores.iter().enumerate() {
        let y0 = TOP + LANE * i as f64;
        let (top, bottom) = (y0 + 18.0, y0 + LANE - 12.0);
        let mine: Vec<&Record> = records.iter().filter(|r| r.core == c.core).collect();
        let max = mine
            .iter()
            .map(|r| r.read_bps.max(r.write_bps))
            .fold(threshold_bps * 1.2, f64::max)
            .max(1.0);
        let y = |v: f64| bottom - (bottom - top) * v / max;
        let _ = writeln!(
            s,
            r#"<text x="{LEFT}" y="{:.1}">core {}: {} suspensions, duty {:.1} %, max {:.2} GB/s</text>"#,
            y0 + 12.0,
            c.core,
            c.suspensions,
            100.0 * c.duty(),
            max / 1e9
        );
        let _ = writeln!(
            s,
            r##"<rect x="{LEFT}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="none" stroke="#999"/>"##,
            W - LEFT - RIGHT,
            bottom - top
        );
        for r in mine.iter().filter(|r| r.suspend_us > 0) {
            let (a, b) = (x(r.t_us as f64), x((r.t_us + r.suspend_us) as f64));
            let _ = writeln!(
                s,
                r##"<rect x="{a:.2}" y="{top:.1}" width="{:.2}" height="{:.1}" fill="#bbb" fill-opacity="0.6"/>"##,
                (b - a).max(0.5),
                bottom - top
            );
        }
        for (colour, pick) in [
            ("#1f5fbf", (|r: &Record| r.read_bps) as fn(&Record) -> f64),
            ("#c0392b", |r: &Record| r.write_bps),
        ] {
            let pts: Vec<String> = mine
                .iter()
                .map(|r| format!("{:.2},{:.2}", x(r.t_us as f64), y(pick(r))))
                .collect();
            if !pts.is_empty() {
                let _ = writeln!(
                    s,
                    r#"<polyline fill="none" stroke="{colour}" stroke-width="1" points="{}"/>"#,
                    pts.join(" ")
                );
            }
        }
        if threshold_bps > 0.0 {
            let ty = y(threshold_bps);
            let _ = writeln!(
                s,
                r#"<line x1="{LEFT}" y1="{ty:.2}" x2="{:.1}" y2="{ty:.2}" stroke="black" stroke-dasharray="4 3"/>"#,
                W - RIGHT
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="4" y="{:.1}">{:.2} GB/s</text><text x="4" y="{bottom:.1}">0</text>"#,
            top + 10.0,
            max / 1e9
        );
    }
    s.push_str("</svg>\n");
    s
}
