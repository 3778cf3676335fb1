//! `ssc bench FILES… [--configs LIST] [--memory LIST] [--iterations N]
//! [--repeat R] [--out DIR]`: the thesis' experiments (§3.5–3.6, Tables
//! 3.1–3.3, Figure 3.8), beside the pipeline like `ptts` and `throttle`.
//!
//! Takes the files, the configurations ([`Options`]) and a [`Builder`]
//! (the command line's `ssc build`, which sits above this module). For
//! every file: measures its functions once with the `-t wcet` harness (the
//! median of 30 runs, so the predictions aim at the mean; profiles in
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
//! stdout; `DIR/bench.json`; `DIR/boxplot.svg` (one box per configuration
//! of every file, grouped by file sorted by best median, as Figure 3.8, on a
//! log axis); `DIR/<stem>/gantt.svg`, the predicted schedule of the figure
//! configuration — reduced + interference when run, else the last. A progress bar runs on stderr.
//!
//! One file per job: [`runs`] builds and runs the configurations,
//! [`stats`] summarises latencies, `table` prints them, [`figures`]
//! draws them, [`error`] says why it stopped.

pub mod error;
pub mod figures;
pub mod runs;
pub mod stats;
pub mod table;

pub use error::{Error, RunError, UsageError};
pub use runs::{parse_config, Job};
pub use stats::{percentile, Stats};
pub use table::table;

use ssc::ir::Description;
use ssc::memory::MemoryKind;
use ssc::pipeline::Compiled;
use ssc::schedule::SchedulerKind;
use std::path::{Path, PathBuf};

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    pub files: Vec<PathBuf>,
    /// Thread schedules, each counted one with its thread count.
    pub configs: Vec<SchedulerKind>,
    pub memories: Vec<MemoryKind>,
    /// Iterations of each executable per run (at least 2).
    pub iterations: u64,
    /// Interleaved rounds (at least 1).
    pub repeat: u64,
    /// Where the builds, dumps, `bench.json` and the figures go.
    pub out: PathBuf,
    /// The online CPUs, for `bench.json`.
    pub cpus: usize,
}

impl Options {
    /// The options as the command line spells them: configurations such
    /// as `reduced4` or `fixed:2` ([`parse_config`]; a counted kind without
    /// N gets `cpus` threads), memory schedules by keyword (any case), the
    /// defaults for what is left out. An error says what is wrong.
    ///
    /// Not a clap value parser (clap hands over the words; this checks
    /// them together), so it gives a typed [`UsageError`]; the keyword
    /// parsers it calls keep clap's `String` messages, which the error
    /// carries.
    pub fn parse(
        files: Vec<PathBuf>,
        configs: &[String],
        memories: &[String],
        iterations: Option<u64>,
        repeat: Option<u64>,
        out: Option<PathBuf>,
        cpus: usize,
    ) -> Result<Options, UsageError> {
        if files.is_empty() {
            return Err(UsageError::NoFiles);
        }
        let configs = if configs.is_empty() {
            default_configs()
                .into_iter()
                .map(|k| k.threads().map_or(k, |_| k.with_threads(cpus)))
                .collect()
        } else {
            configs
                .iter()
                .map(|c| parse_config(c, cpus))
                .collect::<Result<_, _>>()
                .map_err(UsageError::Config)?
        };
        let memories = if memories.is_empty() {
            DEFAULT_MEMORIES.to_vec()
        } else {
            memories
                .iter()
                .map(|m| m.trim().to_ascii_lowercase().parse())
                .collect::<Result<_, _>>()
                .map_err(UsageError::Memory)?
        };
        Ok(Options {
            files,
            configs,
            memories,
            iterations: iterations.unwrap_or(1000).max(2),
            repeat: repeat.unwrap_or(3).max(1),
            out: out.unwrap_or_else(|| PathBuf::from("build/bench")),
            cpus,
        })
    }
}

/// The thread schedules run when none are given: every one of
/// [`SchedulerKind::ALL`] but fused (the thesis' five).
pub fn default_configs() -> Vec<SchedulerKind> {
    SchedulerKind::ALL
        .into_iter()
        .filter(|k| !matches!(k, SchedulerKind::Fused(_)))
        .collect()
}

/// The memory schedules run when none are given.
pub const DEFAULT_MEMORIES: [MemoryKind; 2] = [MemoryKind::Naive, MemoryKind::Interference];

/// One configuration of one file to build.
pub struct Build<'a> {
    /// The description's file (diagnostics name it).
    pub file: &'a Path,
    /// Its description with the measured timing table.
    pub description: &'a Description,
    pub scheduler: SchedulerKind,
    pub memory: MemoryKind,
    /// The program directory.
    pub dir: PathBuf,
    /// The executable's default iteration count.
    pub iterations: u64,
}

/// How `ssc bench` measures and builds: `ssc build`'s own code, given by
/// the command line (which prints the diagnostics and knows the exit codes).
pub trait Builder {
    /// Why a build failed (its diagnostics already printed).
    type Error;
    /// The description of `file` with its functions' timing measured by the
    /// `-t wcet` harness (the median of 30 runs; profiles in `dir/etp/`).
    fn measure(&self, file: &Path, dir: &Path) -> Result<Description, Self::Error>;
    /// Builds one configuration: its executable and its compiled
    /// description (for `-pr` and the Gantt chart).
    fn build(&self, b: &Build<'_>) -> Result<(PathBuf, Option<Compiled>), Self::Error>;
}

/// `ssc bench`: see the module documentation.
pub fn run<B: Builder>(o: &Options, builder: &B) -> Result<(), Error<B::Error>> {
    std::fs::create_dir_all(&o.out).map_err(|source| UsageError::Create {
        path: o.out.clone(),
        source,
    })?;
    let mut jobs = runs::build_all(o, builder)?;
    runs::run_all(&mut jobs, o.iterations, o.repeat)?;
    print!("{}", table(&jobs, o.iterations, o.repeat));
    let json = serde_json::json!({
        "iterations": o.iterations,
        "repeat": o.repeat,
        "cpus": o.cpus,
        "jobs": &jobs,
    });
    let json_path = o.out.join("bench.json");
    if let Err(source) = std::fs::write(
        &json_path,
        serde_json::to_string_pretty(&json).unwrap_or_default(),
    ) {
        return Err(UsageError::Write {
            path: json_path,
            source,
        }
        .into());
    }
    figures::draw(&jobs, &o.out);
    println!(
        "wrote {}, {}, and a gantt.svg per file under {}",
        json_path.display(),
        o.out.join("boxplot.svg").display(),
        o.out.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(configs: &[&str], memories: &[&str]) -> Result<Options, UsageError> {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        Options::parse(
            vec![PathBuf::from("a.ssc")],
            &s(configs),
            &s(memories),
            None,
            None,
            None,
            4,
        )
    }

    #[test]
    fn options_parse_with_defaults() {
        let o = parse(&[], &[]).unwrap();
        assert_eq!(
            o.configs,
            [
                SchedulerKind::Simple,
                SchedulerKind::Barrier,
                SchedulerKind::Fixed(4),
                SchedulerKind::Predictable(4),
                SchedulerKind::Reduced(4)
            ]
        );
        assert_eq!(o.memories, DEFAULT_MEMORIES);
        assert_eq!((o.iterations, o.repeat), (1000, 3));
        let o = parse(&["fused2"], &["Reuse"]).unwrap();
        assert_eq!(o.configs, [SchedulerKind::Fused(2)]);
        assert_eq!(o.memories, [MemoryKind::Reuse]);
        assert!(parse(&[], &["best"]).is_err());
    }
}
