//! `--log F`: every decision of every core (time, read and write
//! bandwidth, suspension, duty cycle so far), as JSON when F ends in
//! `.json` (with the run's parameters and per-core summaries) and as CSV
//! otherwise (`t_us,core,read_Bps,write_Bps,suspend_us,duty`).

use super::cycle::{CoreSummary, Record};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

/// What the JSON log says about the run besides the records.
#[derive(Debug, Serialize)]
pub struct Meta<'a> {
    pub sensor: &'a str,
    pub actuator: &'a str,
    pub policy: &'a super::decide::Policy,
}

#[derive(Serialize)]
struct CoreOut<'a> {
    #[serde(flatten)]
    summary: &'a CoreSummary,
    duty: f64,
}

#[derive(Serialize)]
struct JsonLog<'a> {
    #[serde(flatten)]
    meta: &'a Meta<'a>,
    cores: Vec<CoreOut<'a>>,
    records: &'a [Record],
}

/// The CSV text.
pub fn csv(records: &[Record]) -> String {
    let mut s = String::from("t_us,core,read_Bps,write_Bps,suspend_us,duty\n");
    for r in records {
        let _ = writeln!(
            s,
            "{},{},{:.0},{:.0},{},{:.4}",
            r.t_us, r.core, r.read_bps, r.write_bps, r.suspend_us, r.duty
        );
    }
    s
}

/// The JSON text.
pub fn json(meta: &Meta, records: &[Record], cores: &[CoreSummary]) -> String {
    let log = JsonLog {
        meta,
        cores: cores
            .iter()
            .map(|c| CoreOut {
                summary: c,
                duty: c.duty(),
            })
            .collect(),
        records,
    };
    serde_json::to_string_pretty(&log).unwrap_or_default()
}

/// Writes the log in the format its extension names.
pub fn write(
    path: &Path,
    meta: &Meta,
    records: &[Record],
    cores: &[CoreSummary],
) -> std::io::Result<()> {
    let text = if path.extension().is_some_and(|e| e == "json") {
        json(meta, records, cores)
    } else {
        csv(records)
    };
    std::fs::write(path, text)
}
