//! The figures of ssc: each SVG is rendered and its labels
//! checked — the bench box plot (title whole, a legend, every chain named),
//! the Gantt chart (thread names beside the rows, sub-boxes named on their
//! bars, a legend of the functions), the bench table's column legend, the
//! throttle timeline (plotters, a time axis with ticks in ms, a legend) and
//! the `ssc ptts` plots (axes with the unit). With `SSC_FIGURES_PNG=DIR`
//! and `rsvg-convert` on the PATH, each is also written as a PNG to look at.

use ssc::pipeline;
use ssc_cli::bench::figures;
use ssc_cli::bench::{Job, Stats};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("figures");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The SVG's text, and a PNG beside it when asked for.
fn read_svg(path: &Path) -> String {
    let svg = std::fs::read_to_string(path).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
    if let Some(dir) = std::env::var_os("SSC_FIGURES_PNG") {
        let png = Path::new(&dir).join(path.with_extension("png").file_name().unwrap());
        let _ = std::process::Command::new("rsvg-convert")
            .arg(path)
            .arg("-o")
            .arg(png)
            .status();
    }
    svg
}

/// The texts drawn (`<text …>TEXT</text>`), unescaped enough to compare.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = t.split_once('>')?.1;
            Some(
                body.split("</text>")
                    .next()?
                    .trim()
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&amp;", "&"),
            )
        })
        .collect()
}

fn width(svg: &str) -> f64 {
    let w = svg.split("width=\"").nth(1).unwrap();
    w[..w.find('"').unwrap()].parse().unwrap()
}

fn job(file: &str, base: f64) -> Job {
    job_of(file, "reduced2", "interference", base)
}

fn job_of(file: &str, scheduler: &str, memory: &str, base: f64) -> Job {
    let samples: Vec<f64> = (0..200).map(|i| base + (i % 37) as f64).collect();
    Job::measured(file, scheduler, memory, Stats::of(&samples), 10.0, None)
}

#[test]
fn the_box_plot_keeps_its_title_names_every_chain_and_has_a_legend() {
    for n in [1usize, 11] {
        let jobs: Vec<Job> = (0..n)
            .map(|i| job(&format!("chain{i}"), 1000.0 + 300.0 * i as f64))
            .collect();
        let refs: Vec<&Job> = jobs.iter().collect();
        let path = scratch(&format!("boxplot{n}.svg"));
        figures::boxplot(&refs, &path).unwrap();
        let svg = read_svg(&path);
        let t = texts(&svg);
        let title = "end-to-end latency, reduced2 + interference";
        assert!(t.iter().any(|x| x == title), "{t:?}");
        // A 18 px title needs about 9 px a character, plus the margins.
        assert!(
            width(&svg) > 9.0 * title.len() as f64 + 60.0,
            "clipped title"
        );
        for label in [
            "reduced2 + interference",
            "median",
            "whiskers: min and p99.9",
            "max",
            "latency (µs, log scale)",
        ] {
            assert!(t.iter().any(|x| x == label), "{label} missing: {t:?}");
        }
        for i in 0..n {
            assert!(t.contains(&format!("chain{i}")), "chain{i}: {t:?}");
        }
    }
}

#[test]
fn the_box_plot_draws_every_configuration_on_a_log_axis() {
    // `--configs reduced2,fused2,simple --memory interference,fold` draws
    // every configuration on a log axis, not one box on a linear axis up
    // to 10 000 µs where a 320–339 µs box is a flat line.
    let mut jobs = Vec::new();
    for (k, s) in ["reduced2", "fused2", "simple"].iter().enumerate() {
        for (m, mem) in ["interference", "fold"].iter().enumerate() {
            let mut j = job_of("chain.ssc", s, mem, 320.0 + 40.0 * (2 * k + m) as f64);
            if k == 0 && m == 0 {
                j.latency.max = 8000.0; // one long frame
            }
            jobs.push(j);
        }
    }
    let refs: Vec<&Job> = jobs.iter().collect();
    let path = scratch("boxplot-configs.svg");
    figures::boxplot(&refs, &path).unwrap();
    let svg = read_svg(&path);
    let t = texts(&svg);
    assert!(
        t.iter()
            .any(|x| x == "end-to-end latency, 6 configurations"),
        "{t:?}"
    );
    for s in ["reduced2", "fused2", "simple"] {
        for m in ["interference", "fold"] {
            let name = format!("{s} + {m}");
            assert!(t.contains(&name), "{name} not in the legend: {t:?}");
        }
    }
    assert!(t.iter().any(|x| x == "latency (µs, log scale)"), "{t:?}");
    // Log ticks: whole µs, in a geometric progression (equal ratios).
    let ticks: Vec<f64> = t.iter().filter_map(|x| x.parse::<f64>().ok()).collect();
    let axis: Vec<f64> = ticks.iter().copied().filter(|v| *v < 8000.0).collect();
    assert!(axis.len() >= 3, "{t:?}");
    let ratios: Vec<f64> = axis.windows(2).map(|w| w[0] / w[1]).collect();
    assert!(
        ratios
            .iter()
            .all(|r| (r - ratios[0]).abs() < 0.02 * ratios[0]),
        "not a log axis: {axis:?}"
    );
    // The one long frame: marked above the axis with its value, not an
    // axis up to 8 000 µs.
    assert!(ticks.contains(&8000.0), "{t:?}");
    assert!(t.iter().any(|x| x == "max above the axis (µs)"), "{t:?}");
    // Six boxes, each at least 8 px tall: p25 to p75 of a 37 µs spread
    // around 320–520 µs is no flat line beside an 8 000 µs maximum.
    let boxes: Vec<(f64, f64)> = svg
        .split("<rect")
        .skip(1)
        .filter(|r| r.contains("opacity=\"0.45\"") || r.contains("fill-opacity=\"0.45\""))
        .map(|r| {
            let attr = |name: &str| -> f64 {
                let v = r.split(&format!(" {name}=\"")).nth(1).unwrap();
                v[..v.find('"').unwrap()].parse().unwrap()
            };
            (attr("width"), attr("height"))
        })
        .collect();
    assert_eq!(
        boxes.len(),
        6 + 6,
        "six boxes and six legend swatches: {boxes:?}"
    );
    assert!(boxes[..6].iter().all(|(_, h)| *h >= 8.0), "{boxes:?}");
}

#[test]
fn the_gantt_chart_names_threads_bars_and_functions() {
    let text = std::fs::read_to_string("examples/xray.ssc").unwrap();
    let desc = ssc::front::read(&text, &[]).map(|x| x.description).unwrap();
    let mut opts = pipeline::Options {
        lower: ssc::lower::LowerOptions::default(),
        scheduler: ssc::schedule::SchedulerKind::Fixed(2),
        schedule: ssc::schedule::ScheduleOptions::default(),
        memory: ssc::memory::MemoryKind::Interference,
        sync: ssc::sync::SyncOptions::default(),
        thread_execution: true,
        dynamic_memory: false,
        asked: Default::default(),
    };
    opts.lower.split.max_parts = 2;
    let c = pipeline::compile(&desc, &opts).unwrap();
    let path = scratch("gantt.svg");
    figures::gantt(&c, "xray: fixed2 + interference, predicted", &path).unwrap();
    let svg = read_svg(&path);
    let t = texts(&svg);
    assert!(
        t.contains(&"thread0".to_string()) && t.contains(&"thread1".to_string()),
        "{t:?}"
    );
    // Sub-box names on the bars: the long ones at least.
    let subboxes = t
        .iter()
        .filter(|x| x.contains('.') && !x.contains(' '))
        .count();
    assert!(subboxes >= 10, "{subboxes} bar labels: {t:?}");
    // The legend names every function instance that runs.
    for f in &c.hsdfg.functions {
        assert!(t.contains(&f.name), "{} not in the legend: {t:?}", f.name);
    }
    // Thread names sit left of the plot, never on a bar.
    let x_of = |label: &str| -> f64 {
        let at = svg.find(&format!("\n{label}\n</text>")).unwrap();
        let tag = &svg[svg[..at].rfind("<text").unwrap()..at];
        let x = tag.split("x=\"").nth(1).unwrap();
        x[..x.find('"').unwrap()].parse().unwrap()
    };
    assert!(
        x_of("thread0") < 100.0,
        "thread0 at x = {}",
        x_of("thread0")
    );
}

#[test]
fn the_bench_table_explains_its_columns() {
    let jobs = vec![job("xray", 1000.0)];
    let table = ssc_cli::bench::table(&jobs, 1000, 3);
    for column in ["x̄/sim", "σ/sim", "pred.per", "meas.per", "pred.lat"] {
        let explained = table.lines().any(|l| {
            l.split_once(':')
                .is_some_and(|(names, _)| names.contains(column))
        });
        assert!(explained, "{column} is not explained:\n{table}");
    }
}

#[test]
fn the_throttle_timeline_has_a_time_axis_and_a_legend() {
    use ssc_throttle::cycle::{CoreSummary, Record};
    let records: Vec<Record> = (0..200)
        .map(|i| Record {
            t_us: 100 * (i + 1),
            core: 1,
            read_bps: 1e9 * (1.0 + (i as f64 / 15.0).sin()),
            write_bps: 3e8,
            suspend_us: if i % 10 == 0 { 300 } else { 0 },
            duty: 0.9,
        })
        .collect();
    let cores = vec![CoreSummary {
        core: 1,
        samples: 200,
        suspensions: 20,
        suspended_us: 6000,
        elapsed_us: 20_000,
    }];
    let path = scratch("throttle.svg");
    std::fs::write(&path, ssc_throttle::svg::render(&records, &cores, 1.5e9)).unwrap();
    let svg = read_svg(&path);
    let t = texts(&svg);
    for label in [
        "time (ms)",
        "GB/s",
        "read",
        "write",
        "threshold",
        "suspended",
    ] {
        assert!(t.iter().any(|x| x == label), "{label} missing: {t:?}");
    }
    // Ticks along the 20 ms: at least five numbers between 0 and 20.
    let ticks = t
        .iter()
        .filter_map(|x| x.parse::<f64>().ok())
        .filter(|v| (0.0..=20.0).contains(v))
        .count();
    assert!(ticks >= 5, "{ticks} ticks: {t:?}");
    assert!(
        t.iter()
            .any(|x| x.contains("core 1: 20 suspensions, duty 70.0 %")),
        "{t:?}"
    );
}

#[test]
fn ptts_reports_and_plots_carry_the_unit() {
    let path = scratch("ptts.svg");
    let out = crate::support::run_ok(
        std::process::Command::new(env!("CARGO_BIN_EXE_ssc"))
            .args(["ptts", "examples/ptts_config_a.ptts", "--svg"])
            .arg(&path),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The unit comes from the chain's ETP file (`"unit": "ms"`).
    assert!(stdout.contains("times in ms"), "{stdout}");
    assert!(stdout.contains("end-to-end latency (ms)"), "{stdout}");
    let t = texts(&read_svg(&path));
    assert_eq!(
        t.iter().filter(|x| *x == "latency (ms)").count(),
        2,
        "{t:?}"
    );
    // A chain without ETP files says where the unit comes from, or takes --unit.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ssc"))
        .args(["ptts", "examples/ptts_section54.ptts"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("time units of the file"), "{stdout}");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ssc"))
        .args([
            "ptts",
            "examples/ptts_section54.ptts",
            "--unit",
            "us",
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["unit"], "us");
}
