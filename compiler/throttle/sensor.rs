//! The sensor trait and the choice of a sensor.
//!
//! A sensor gives, per best-effort core, the cumulative bytes read and
//! written since it opened; the monitor takes differences. `--sensor perf`,
//! `resctrl` and `replay:FILE` choose one; without `--sensor` the hardware
//! sensors are tried in order (perf, then resctrl). When none can be
//! opened, [`SensorError`] lists every attempt and why it failed: the
//! throttler never runs blind.

use std::fmt;

/// Cumulative traffic of one core.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    pub read_bytes: u64,
    pub write_bytes: u64,
}

/// One core's traffic counter.
pub trait CoreSensor {
    /// Cumulative traffic since the sensor opened.
    fn read(&mut self) -> std::io::Result<Traffic>;
}

/// A sensor for the monitor's threads.
pub type BoxedSensor = Box<dyn CoreSensor + Send>;

/// `--sensor`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SensorSpec {
    /// Try perf, then resctrl.
    Auto,
    Perf,
    Resctrl,
    Replay(std::path::PathBuf),
}

impl std::str::FromStr for SensorSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(SensorSpec::Auto),
            "perf" => Ok(SensorSpec::Perf),
            "resctrl" => Ok(SensorSpec::Resctrl),
            _ => match s.strip_prefix("replay:") {
                Some(f) if !f.is_empty() => Ok(SensorSpec::Replay(f.into())),
                _ => Err(format!(
                    "unknown sensor `{s}`: expected perf, resctrl, auto or replay:FILE"
                )),
            },
        }
    }
}

/// Why no sensor could be used: every attempt (what was tried) and its
/// error (`replay::TraceError`, `perf::PerfError`, `resctrl::ResctrlError`).
#[derive(Debug)]
pub struct SensorError {
    pub attempts: Vec<(String, Box<dyn std::error::Error + Send + Sync>)>,
}

impl std::error::Error for SensorError {}

impl fmt::Display for SensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "no usable bandwidth sensor; tried:")?;
        for (what, why) in &self.attempts {
            writeln!(f, "  - {what}: {why}")?;
        }
        write!(
            f,
            "hint: on a machine without hardware counters use --sensor replay:FILE \
             (CSV `t_us,core,read_bytes,write_bytes`)"
        )
    }
}
