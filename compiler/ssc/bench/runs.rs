//! `ssc bench`'s configurations: what each is called, how each file is
//! measured and built with every one ([`build_all`]), and the interleaved
//! runs of the executables ([`run_all`]) with their latencies and periods.

use super::{Build, Builder, Error, Options, RunError, Stats};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;
use ssc::analysis::{self, Analysis};
use ssc::memory::MemoryKind;
use ssc::pipeline::Compiled;
use ssc::schedule::SchedulerKind;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    pub(super) compiled: Option<Compiled>,
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

/// `reduced4`, `simple`: a configuration's name in the table, the JSON and
/// its directory.
fn scheduler_name(t: SchedulerKind) -> String {
    format!(
        "{}{}",
        t.keyword(),
        t.threads().map(|n| n.to_string()).unwrap_or_default()
    )
}

/// `simple`, `barrier`, `fixed`, `fixed4`, `reduced:2`… (a counted kind
/// without N: `cpus` threads).
pub fn parse_config(s: &str, cpus: usize) -> Result<SchedulerKind, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| c.is_ascii_digit() || c == ':')
        .unwrap_or(s.len());
    let (kind, n) = s.split_at(split);
    let n = n.trim_start_matches(':');
    let k = SchedulerKind::parse(kind, (!n.is_empty()).then_some(n)).map_err(|e| {
        format!(
            "bad configuration `{s}`: {e} (expected {}, with [N] for the counted ones)",
            SchedulerKind::keywords().join(", ")
        )
    })?;
    Ok(match k.threads() {
        Some(0) => k.with_threads(cpus),
        _ => k,
    })
}

/// A file's name as a directory and C identifier.
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

/// A progress bar on stderr.
fn bar(len: u64, prefix: &'static str, template: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix(prefix);
    bar
}

/// Measures every file and builds it with every configuration; a file
/// that does not build (measured) is left out with a warning.
pub fn build_all<B: Builder>(o: &Options, builder: &B) -> Result<Vec<Job>, Error<B::Error>> {
    let per_file = 1 + o.configs.len() * o.memories.len();
    let bar = bar(
        (o.files.len() * per_file) as u64,
        "build",
        "{prefix:>8} [{bar:40}] {pos}/{len} {msg}",
    );
    let mut jobs: Vec<Job> = Vec::new();
    for file in &o.files {
        let name = stem(file);
        let dir = o.out.join(&name);
        bar.set_message(format!("{name}: measuring"));
        let Ok(measured) = bar.suspend(|| builder.measure(file, &dir)) else {
            bar.suspend(|| eprintln!("warning: {} left out: it does not build", file.display()));
            bar.inc(per_file as u64);
            continue;
        };
        bar.inc(1);
        for &scheduler in &o.configs {
            for &memory in &o.memories {
                let label = format!("{}_{}", scheduler_name(scheduler), memory.keyword());
                bar.set_message(format!("{name}: {label}"));
                let b = Build {
                    file,
                    description: &measured,
                    scheduler,
                    memory,
                    dir: dir.join(&label),
                    iterations: o.iterations,
                };
                let (executable, compiled) =
                    bar.suspend(|| builder.build(&b)).map_err(Error::Build)?;
                jobs.push(job(&name, scheduler, memory, executable, &b.dir, compiled));
                bar.inc(1);
            }
        }
    }
    bar.finish_and_clear();
    Ok(jobs)
}

/// A built configuration, not yet run.
fn job(
    name: &str,
    scheduler: SchedulerKind,
    memory: MemoryKind,
    executable: PathBuf,
    dir: &Path,
    compiled: Option<Compiled>,
) -> Job {
    let predicted = compiled.as_ref().and_then(|c| analysis::analyse(c).ok());
    Job {
        executable,
        dump: dir.join("latency.csv"),
        compiled,
        ..Job::measured(
            name,
            &scheduler_name(scheduler),
            memory.keyword(),
            Stats::default(),
            0.0,
            predicted,
        )
    }
}

/// Runs the jobs interleaved — round r runs every job once — and gives
/// each its statistics.
pub fn run_all(jobs: &mut [Job], iterations: u64, repeat: u64) -> Result<(), RunError> {
    let bar = bar(
        (jobs.len() as u64) * repeat,
        "run",
        "{prefix:>8} [{bar:40}] {pos}/{len} {msg} (eta {eta})",
    );
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
    Ok(())
}

/// One run of a job's executable: its checksum, every iteration's latency
/// and the mean period.
fn run_once(job: &mut Job, iterations: u64) -> Result<(), RunError> {
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
        .map_err(|source| RunError::Spawn {
            executable: job.executable.clone(),
            source,
        })?;
    if !out.status.success() {
        return Err(RunError::Failed {
            executable: job.executable.clone(),
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    if let Some(c) = report["checksum"].as_str() {
        if !job.checksums.iter().any(|k| k == c) {
            job.checksums.push(c.to_string());
        }
    }
    let csv = std::fs::read_to_string(&job.dump).map_err(|source| RunError::Dump {
        dump: job.dump.clone(),
        source,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_parse() {
        assert_eq!(parse_config("reduced4", 8), Ok(SchedulerKind::Reduced(4)));
        assert_eq!(parse_config("fixed:2", 8), Ok(SchedulerKind::Fixed(2)));
        assert_eq!(parse_config("fixed", 8), Ok(SchedulerKind::Fixed(8)));
        assert_eq!(parse_config("simple", 8), Ok(SchedulerKind::Simple));
        assert!(parse_config("simple2", 8).is_err());
        assert!(parse_config("best", 8).is_err());
    }
}
