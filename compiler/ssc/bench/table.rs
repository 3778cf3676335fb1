//! `ssc bench`'s table on stdout: one block per file, a row per
//! scheduler × memory schedule (mean, σ, p99.9, max µs, ratios to
//! `simple`, predicted against measured period, predicted latency), and
//! whether the configurations agree on the checksum.

use super::Job;
use ssc::schedule::SchedulerKind;

/// The configuration the ratios compare with.
const SIMPLE: &str = SchedulerKind::Simple.keyword();

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
                .find(|k| k.scheduler == SIMPLE && k.memory == j.memory)
                .or_else(|| rows.iter().find(|k| k.scheduler == SIMPLE));
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
