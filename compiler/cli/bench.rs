//! `ssc bench FILES… [--configs LIST] [--memory LIST] [--iterations N]
//! [--repeat R] [--out DIR]`: the thesis' experiments (§3.5–3.6, Tables
//! 3.1–3.3, Figure 3.8).
//!
//! For every file: measures its functions once with the `-t wcet` harness
//! (the median of 30 runs, so the predictions aim at the mean; profiles in
//! `DIR/<stem>/etp/`) and puts that table into its description; builds it
//! with every scheduler × memory schedule (`DIR/<stem>/<config>_<memory>/`);
//! analyses each runtime (`-pr`). Then runs every executable `--iterations
//! N` times per round, R rounds, *interleaved* — round r runs every
//! configuration of every file once before round r + 1 starts — so machine
//! noise hits all alike, each run dumping its per-iteration latencies (CSV)
//! and its `--json` report (the checksum must agree across configurations).
//!
//! Gives: the table (mean, σ, p99.9, max µs per scheduler × memory schedule,
//! ratios to `simple` with the same memory schedule, the predicted period
//! and latency against the measured back-to-back period and mean latency) on
//! stdout; `DIR/bench.json`; `DIR/boxplot.svg` (one box per file for the
//! figure configuration — reduced + interference when run — sorted by
//! median, as Figure 3.8); `DIR/<stem>/gantt.svg`, the predicted schedule of
//! that configuration. A progress bar runs on stderr.

use super::args::{BenchArgs, BuildArgs, MemorySchedule, ThreadSchedule};
use super::config::online_cpus;
use super::exit;
use crate::analysis::{self, Analysis};
use crate::pipeline::Compiled;
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Statistics of a set of latencies, µs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub count: usize,
    pub mean: f64,
    /// Sample standard deviation.
    pub stddev: f64,
    pub min: f64,
    pub p25: f64,
    pub p50: f64,
    pub p75: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub max: f64,
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    // p · n / 100, less a hair so 99.9 % of 1000 is rank 999, not 1000.
    let rank = (p * sorted.len() as f64 / 100.0 - 1e-9).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Stats {
    /// The statistics of some values (µs).
    pub fn of(values: &[f64]) -> Stats {
        let mut v = values.to_vec();
        v.sort_by(|a, b| a.total_cmp(b));
        let n = v.len();
        if n == 0 {
            return Stats::default();
        }
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Stats {
            count: n,
            mean,
            stddev: var.sqrt(),
            min: v[0],
            p25: percentile(&v, 25.0),
            p50: percentile(&v, 50.0),
            p75: percentile(&v, 75.0),
            p99: percentile(&v, 99.0),
            p99_9: percentile(&v, 99.9),
            max: v[n - 1],
        }
    }
}

/// One configuration of one file, and what it gave.
#[derive(Clone, Debug, Serialize)]
pub struct Job {
    pub file: String,
    pub scheduler: String,
    pub memory: String,
    #[serde(skip)]
    pub executable: PathBuf,
    #[serde(skip)]
    pub dump: PathBuf,
    /// `-pr` of the runtime (with the measured table).
    pub predicted: Option<Analysis>,
    pub latency: Stats,
    /// Mean time between the ends of consecutive iterations (µs), averaged
    /// over the runs: the measured period of a back-to-back run.
    pub measured_period_us: f64,
    pub checksums: Vec<String>,
    #[serde(skip)]
    samples: Vec<f64>,
    #[serde(skip)]
    periods: Vec<f64>,
    #[serde(skip)]
    compiled: Option<Compiled>,
}

impl Job {
    /// A measured configuration as the table and the figures read it
    /// (latencies in µs), without the files of a run.
    pub fn measured(
        file: &str,
        scheduler: &str,
        memory: &str,
        latency: Stats,
        measured_period_us: f64,
        predicted: Option<Analysis>,
    ) -> Job {
        Job {
            file: file.to_string(),
            scheduler: scheduler.to_string(),
            memory: memory.to_string(),
            executable: PathBuf::new(),
            dump: PathBuf::new(),
            predicted,
            latency,
            measured_period_us,
            checksums: Vec::new(),
            samples: Vec::new(),
            periods: Vec::new(),
            compiled: None,
        }
    }
}

fn scheduler_name(t: ThreadSchedule) -> String {
    format!(
        "{}{}",
        t.keyword(),
        t.threads().map(|n| n.to_string()).unwrap_or_default()
    )
}

/// `simple`, `barrier`, `fixed`, `fixed4`, `reduced:2`… (a counted kind
/// without N: the online CPUs).
fn parse_config(s: &str) -> Result<ThreadSchedule, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| c.is_ascii_digit() || c == ':')
        .unwrap_or(s.len());
    let (kind, n) = s.split_at(split);
    let n = n.trim_start_matches(':');
    let k = ThreadSchedule::parse(kind, (!n.is_empty()).then_some(n)).map_err(|e| {
        format!(
            "bad configuration `{s}`: {e} (expected {}, with [N] for the counted ones)",
            ThreadSchedule::KEYWORDS.join(", ")
        )
    })?;
    Ok(match k.threads() {
        Some(0) => k.with_threads(online_cpus()),
        _ => k,
    })
}

fn parse_memory(s: &str) -> Result<MemorySchedule, String> {
    s.trim().to_ascii_lowercase().parse()
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "chain".into())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `ssc bench`.
pub fn bench(a: &BenchArgs) -> i32 {
    match run(a) {
        Ok(()) => exit::OK,
        Err(code) => code,
    }
}

fn usage(msg: String) -> i32 {
    eprintln!("error: {msg}");
    exit::USAGE
}

fn run(a: &BenchArgs) -> Result<(), i32> {
    if a.files.is_empty() {
        return Err(usage("ssc bench needs at least one description".into()));
    }
    let configs: Vec<ThreadSchedule> = if a.configs.is_empty() {
        ["simple", "barrier", "fixed", "predictable", "reduced"]
            .iter()
            .map(|c| parse_config(c))
            .collect::<Result<_, _>>()
    } else {
        a.configs.iter().map(|c| parse_config(c)).collect()
    }
    .map_err(usage)?;
    let memories: Vec<MemorySchedule> = if a.memory.is_empty() {
        vec![MemorySchedule::Naive, MemorySchedule::Interference]
    } else {
        a.memory
            .iter()
            .map(|m| parse_memory(m))
            .collect::<Result<_, _>>()
            .map_err(usage)?
    };
    let iterations = a.iterations.unwrap_or(1000).max(2);
    let repeat = a.repeat.unwrap_or(3).max(1);
    let out = a
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("build/bench"));
    std::fs::create_dir_all(&out)
        .map_err(|e| usage(format!("cannot create `{}`: {e}", out.display())))?;

    // Build everything first.
    let total_builds = a.files.len() * (1 + configs.len() * memories.len());
    let bar = ProgressBar::new(total_builds as u64);
    bar.set_style(
        ProgressStyle::with_template("{prefix:>8} [{bar:40}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix("build");
    let mut jobs: Vec<Job> = Vec::new();
    for file in &a.files {
        let name = stem(file);
        let dir = out.join(&name);
        bar.set_message(format!("{name}: measuring"));
        let measured = match bar.suspend(|| measure(file, &dir)) {
            Ok(m) => m,
            Err(_) => {
                bar.suspend(|| {
                    eprintln!("warning: {} left out: it does not build", file.display())
                });
                bar.inc((1 + configs.len() * memories.len()) as u64);
                continue;
            }
        };
        bar.inc(1);
        for &cfg in &configs {
            for &mem in &memories {
                let label = format!("{}_{}", scheduler_name(cfg), mem_name(mem));
                bar.set_message(format!("{name}: {label}"));
                let args = BuildArgs {
                    file: file.clone(),
                    thread_schedule: Some(cfg),
                    memory_schedule: Some(mem),
                    output_dir: Some(dir.join(&label)),
                    iteration_count: Some(iterations),
                    ..BuildArgs::default()
                };
                let built = bar.suspend(|| super::build::build_with(&args, Some(&measured)))?;
                let compiled = bar
                    .suspend(|| super::build::compiled(&args, Some(&measured)))
                    .ok();
                let predicted = compiled.as_ref().and_then(|c| analysis::analyse(c).ok());
                jobs.push(Job {
                    file: name.clone(),
                    scheduler: scheduler_name(cfg),
                    memory: mem_name(mem).into(),
                    executable: built.executable.unwrap_or_default(),
                    dump: dir.join(&label).join("latency.csv"),
                    predicted,
                    latency: Stats::default(),
                    measured_period_us: 0.0,
                    checksums: Vec::new(),
                    samples: Vec::new(),
                    periods: Vec::new(),
                    compiled,
                });
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();

    // Run them interleaved: round r runs every job once.
    let bar = ProgressBar::new((jobs.len() as u64) * repeat);
    bar.set_style(
        ProgressStyle::with_template("{prefix:>8} [{bar:40}] {pos}/{len} {msg} (eta {eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix("run");
    for round in 0..repeat {
        for job in jobs.iter_mut() {
            bar.set_message(format!(
                "round {}/{repeat}: {} {} {}",
                round + 1,
                job.file,
                job.scheduler,
                job.memory
            ));
            run_once(job, iterations)?;
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    for job in jobs.iter_mut() {
        job.latency = Stats::of(&job.samples);
        job.measured_period_us = job.periods.iter().sum::<f64>() / job.periods.len().max(1) as f64;
    }

    print!("{}", table(&jobs, iterations, repeat));
    let json = serde_json::json!({
        "iterations": iterations,
        "repeat": repeat,
        "cpus": online_cpus(),
        "jobs": &jobs,
    });
    let json_path = out.join("bench.json");
    std::fs::write(
        &json_path,
        serde_json::to_string_pretty(&json).unwrap_or_default(),
    )
    .map_err(|e| usage(format!("cannot write `{}`: {e}", json_path.display())))?;
    let figure = figure_config(&jobs);
    let boxes: Vec<&Job> = jobs
        .iter()
        .filter(|j| {
            Some((j.scheduler.as_str(), j.memory.as_str()))
                == figure.as_ref().map(|(s, m)| (s.as_str(), m.as_str()))
        })
        .collect();
    if let Some((s, m)) = &figure {
        let path = out.join("boxplot.svg");
        if let Err(e) = super::figures::boxplot(&boxes, &format!("{s} + {m}"), &path) {
            eprintln!("warning: cannot draw `{}`: {e}", path.display());
        }
        for j in &boxes {
            if let Some(c) = &j.compiled {
                let path = out.join(&j.file).join("gantt.svg");
                if let Err(e) =
                    super::figures::gantt(c, &format!("{}: {s} + {m}, predicted", j.file), &path)
                {
                    eprintln!("warning: cannot draw `{}`: {e}", path.display());
                }
            }
        }
    }
    println!(
        "wrote {}, {}, and a gantt.svg per file under {}",
        json_path.display(),
        out.join("boxplot.svg").display(),
        out.display()
    );
    Ok(())
}

fn mem_name(m: MemorySchedule) -> &'static str {
    m.keyword()
}

/// reduced + interference when it ran, else the last configuration.
fn figure_config(jobs: &[Job]) -> Option<(String, String)> {
    jobs.iter()
        .find(|j| j.scheduler.starts_with("reduced") && j.memory == "interference")
        .or(jobs.last())
        .map(|j| (j.scheduler.clone(), j.memory.clone()))
}

/// Measures a file's functions (median of 30 runs): the description with
/// that table (profiles in `DIR/<stem>/etp/`).
fn measure(file: &Path, dir: &Path) -> Result<crate::ir::Description, i32> {
    let args = BuildArgs {
        file: file.to_path_buf(),
        output_dir: Some(dir.to_path_buf()),
        wcet_runs: Some(30),
        wcet_percentile: Some(50.0),
        ..BuildArgs::default()
    };
    super::build::measured_description(&args)
}

fn run_once(job: &mut Job, iterations: u64) -> Result<(), i32> {
    let out = Command::new(&job.executable)
        .arg("--iterations")
        .arg(iterations.to_string())
        .arg("--json")
        .arg("--dump")
        .arg(&job.dump)
        .arg("--dump-format")
        .arg("csv")
        // Every iteration's latency: the box plot and the measured period.
        .arg("--dump-iterations")
        .arg(iterations.to_string())
        .output()
        .map_err(|e| {
            eprintln!("error: cannot run `{}`: {e}", job.executable.display());
            exit::EXTERNAL
        })?;
    if !out.status.success() {
        eprintln!(
            "error: `{}` failed ({}): {}",
            job.executable.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        return Err(exit::EXTERNAL);
    }
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    if let Some(c) = report["checksum"].as_str() {
        if !job.checksums.iter().any(|k| k == c) {
            job.checksums.push(c.to_string());
        }
    }
    let csv = std::fs::read_to_string(&job.dump).map_err(|e| {
        eprintln!("error: cannot read `{}`: {e}", job.dump.display());
        exit::EXTERNAL
    })?;
    let mut ends = Vec::new();
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() >= 6 && f[0] == "latency" {
            if let (Ok(b), Ok(e)) = (f[4].parse::<u64>(), f[5].parse::<u64>()) {
                job.samples.push(e.saturating_sub(b) as f64 / 1000.0);
                ends.push(e);
            }
        }
    }
    ends.sort_unstable();
    if ends.len() > 1 {
        let span = (ends[ends.len() - 1] - ends[0]) as f64 / 1000.0;
        job.periods.push(span / (ends.len() - 1) as f64);
    }
    Ok(())
}

/// The thesis' table, one block per file.
pub fn table(jobs: &[Job], iterations: u64, repeat: u64) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "ssc bench: {iterations} iterations × {repeat} interleaved rounds per configuration, latencies in µs"
    );
    // What the columns mean (BENCHMARKS.md says the same).
    s.push_str(concat!(
        "  mean, σ, p99.9, max: end-to-end latency of an iteration (µs)\n",
        "  x̄/sim, σ/sim: mean and σ over those of `simple` with the same memory schedule (below 1: better)\n",
        "  pred.per: the period -pr predicts (maximum cycle mean of the runtime graph, µs)\n",
        "  meas.per: the measured period, mean time between the ends of consecutive iterations (µs)\n",
        "  pred.lat: the latency -pr predicts for one iteration (µs)\n",
    ));
    let mut files: Vec<&str> = jobs.iter().map(|j| j.file.as_str()).collect();
    files.dedup();
    for f in files {
        let _ = writeln!(s, "\n{f}");
        let _ = writeln!(
            s,
            "  {:<14} {:<13} {:>9} {:>8} {:>9} {:>9} {:>6} {:>6} {:>10} {:>10} {:>10}",
            "scheduler",
            "memory",
            "mean",
            "σ",
            "p99.9",
            "max",
            "x̄/sim",
            "σ/sim",
            "pred.per",
            "meas.per",
            "pred.lat"
        );
        let rows: Vec<&Job> = jobs.iter().filter(|j| j.file == f).collect();
        let mut checksums: Vec<&String> = rows.iter().flat_map(|j| &j.checksums).collect();
        checksums.sort();
        checksums.dedup();
        for j in &rows {
            let simple = rows
                .iter()
                .find(|k| k.scheduler == "simple" && k.memory == j.memory)
                .or_else(|| rows.iter().find(|k| k.scheduler == "simple"));
            let ratio = |a: f64, b: Option<f64>| match b {
                Some(b) if b > 0.0 => format!("{:.2}", a / b),
                _ => "-".into(),
            };
            let (pp, pl) = j
                .predicted
                .as_ref()
                .map(|p| {
                    (
                        format!("{:.1}", p.period_us),
                        format!("{:.1}", p.latency_us),
                    )
                })
                .unwrap_or(("-".into(), "-".into()));
            let _ = writeln!(
                s,
                "  {:<14} {:<13} {:>9.1} {:>8.1} {:>9.1} {:>9.1} {:>6} {:>6} {:>10} {:>10.1} {:>10}",
                j.scheduler,
                j.memory,
                j.latency.mean,
                j.latency.stddev,
                j.latency.p99_9,
                j.latency.max,
                ratio(j.latency.mean, simple.map(|k| k.latency.mean)),
                ratio(j.latency.stddev, simple.map(|k| k.latency.stddev)),
                pp,
                j.measured_period_us,
                pl
            );
        }
        if checksums.len() > 1 {
            let _ = writeln!(
                s,
                "  WARNING: the configurations disagree on the checksum: {}",
                checksums
                    .iter()
                    .map(|c| c.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        } else if let Some(c) = checksums.first() {
            let _ = writeln!(s, "  checksum {c} (every configuration)");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_use_nearest_rank() {
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        let s = Stats::of(&v);
        assert_eq!(s.p50, 500.0);
        assert_eq!(s.p99_9, 999.0);
        assert_eq!(s.max, 1000.0);
        assert_eq!(s.mean, 500.5);
        assert!((s.stddev - 288.8194).abs() < 1e-3);
    }

    #[test]
    fn configurations_parse() {
        assert_eq!(parse_config("reduced4"), Ok(ThreadSchedule::Reduced(4)));
        assert_eq!(parse_config("fixed:2"), Ok(ThreadSchedule::Fixed(2)));
        assert_eq!(parse_config("simple"), Ok(ThreadSchedule::Simple));
        assert!(parse_config("simple2").is_err());
        assert!(parse_config("best").is_err());
        assert_eq!(parse_memory("Reuse"), Ok(MemorySchedule::Reuse));
    }
}
