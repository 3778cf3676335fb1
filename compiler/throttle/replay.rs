//! The `replay:FILE` sensor: a recorded per-core trace instead of counters.
//!
//! The file is CSV with the header `t_us,core,read_bytes,write_bytes`; each
//! row says that `core` read and wrote that many bytes in the interval that
//! ends at `t_us` and starts at the core's previous row (or at the start of
//! the trace). Within an interval traffic is spread evenly, so the
//! cumulative traffic of a core is piecewise linear in time. After the
//! core's last row the trace repeats from its start (a short trace describes
//! a periodic pattern); a core that has no rows has no traffic. Blank lines
//! and lines starting with `#` are skipped.
//!
//! The trace starts one sampling interval (the smallest gap between two rows
//! of one core) before its first row, or at 0 if that is earlier — so a
//! trace recorded with absolute times (`5000000,…`) replays from its first
//! row, and a trace that starts at `t_us` 0 works: a row at 0 only marks the
//! start (its interval is empty, its bytes belong to none). Without two rows
//! of one core the trace starts at 0.

use super::sensor::{CoreSensor, Traffic};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One core's rows: (end of interval µs, cumulative read, cumulative write).
#[derive(Clone, Debug, Default, PartialEq)]
struct Track {
    points: Vec<(u64, u64, u64)>,
}

/// A parsed trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    tracks: BTreeMap<usize, Track>,
}

/// Why a trace cannot be replayed: what is wrong on which line (1-based,
/// counting every line of the file), or the file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("line {line}: expected the header `t_us,core,read_bytes,write_bytes`")]
    Header { line: usize },
    #[error("line {line}: missing {what}")]
    Missing { line: usize, what: &'static str },
    #[error("line {line}: {what} is not a whole number")]
    NotWhole { line: usize, what: &'static str },
    #[error("line {line}: expected 4 fields, found {found}")]
    Fields { line: usize, found: usize },
    #[error("line {line}: t_us {t} of core {core} does not increase (previous {previous})")]
    NotIncreasing {
        line: usize,
        t: u64,
        core: usize,
        previous: u64,
    },
    #[error("empty trace: expected the header `t_us,core,read_bytes,write_bytes`")]
    Empty,
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file's text is not a trace.
    #[error("{}: {source}", .path.display())]
    In {
        path: PathBuf,
        source: Box<TraceError>,
    },
}

impl Trace {
    /// Parses the CSV text; errors name the line.
    pub fn parse(text: &str) -> Result<Trace, TraceError> {
        let mut trace = Trace::default();
        let mut header = false;
        // (t_us, core, read, write) in file order; the smallest gap between
        // two rows of one core.
        let mut rows: Vec<(u64, usize, u64, u64)> = Vec::new();
        let mut gap = u64::MAX;
        let mut last: BTreeMap<usize, u64> = BTreeMap::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if !header {
                let cols: Vec<&str> = line.split(',').map(str::trim).collect();
                if cols != ["t_us", "core", "read_bytes", "write_bytes"] {
                    return Err(TraceError::Header { line: i + 1 });
                }
                header = true;
                continue;
            }
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            let at = i + 1;
            let num = |k: usize, what: &'static str| -> Result<u64, TraceError> {
                f.get(k)
                    .ok_or(TraceError::Missing { line: at, what })?
                    .parse::<u64>()
                    .map_err(|_| TraceError::NotWhole { line: at, what })
            };
            if f.len() != 4 {
                return Err(TraceError::Fields {
                    line: at,
                    found: f.len(),
                });
            }
            let (t, core, r, w) = (
                num(0, "t_us")?,
                num(1, "core")? as usize,
                num(2, "read_bytes")?,
                num(3, "write_bytes")?,
            );
            if let Some(pt) = last.insert(core, t) {
                if t <= pt {
                    return Err(TraceError::NotIncreasing {
                        line: at,
                        t,
                        core,
                        previous: pt,
                    });
                }
                gap = gap.min(t - pt);
            }
            rows.push((t, core, r, w));
        }
        if !header {
            return Err(TraceError::Empty);
        }
        let first = rows.iter().map(|row| row.0).min().unwrap_or(0);
        let origin = if gap == u64::MAX {
            0
        } else {
            first.saturating_sub(gap)
        };
        for (t, core, r, w) in rows {
            let track = trace.tracks.entry(core).or_default();
            let t = t - origin;
            if t == 0 {
                // A row at the start of the trace: an empty interval.
                continue;
            }
            let (_, pr, pw) = track.points.last().copied().unwrap_or((0, 0, 0));
            track.points.push((t, pr + r, pw + w));
        }
        Ok(trace)
    }

    /// Reads and parses a trace file.
    pub fn load(path: &Path) -> Result<Trace, TraceError> {
        let text = std::fs::read_to_string(path).map_err(|source| TraceError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Trace::parse(&text).map_err(|e| TraceError::In {
            path: path.to_path_buf(),
            source: Box::new(e),
        })
    }

    /// The cores the trace has rows for.
    pub fn cores(&self) -> Vec<usize> {
        self.tracks.keys().copied().collect()
    }

    /// Cumulative (read, write) bytes of `core` from 0 to `t_us`.
    pub fn cumulative(&self, core: usize, t_us: u64) -> Traffic {
        let Some(track) = self.tracks.get(&core) else {
            return Traffic::default();
        };
        let Some(&(end, total_r, total_w)) = track.points.last() else {
            return Traffic::default();
        };
        let laps = t_us / end;
        let t = t_us % end;
        let (mut pt, mut pr, mut pw) = (0u64, 0u64, 0u64);
        let mut part = (0u64, 0u64);
        for &(pt1, r1, w1) in &track.points {
            if t < pt1 {
                let f = (t - pt) as f64 / (pt1 - pt) as f64;
                part = (
                    pr + ((r1 - pr) as f64 * f) as u64,
                    pw + ((w1 - pw) as f64 * f) as u64,
                );
                break;
            }
            (pt, pr, pw) = (pt1, r1, w1);
            part = (r1, w1);
        }
        Traffic {
            read_bytes: laps * total_r + part.0,
            write_bytes: laps * total_w + part.1,
        }
    }

    /// The highest read or write bandwidth of any row (bytes/s): the
    /// "measured maximum" of a `N%` threshold under replay.
    pub fn max_bps(&self) -> f64 {
        let mut max = 0.0f64;
        for track in self.tracks.values() {
            let mut prev = (0u64, 0u64, 0u64);
            for &p in &track.points {
                let dt = (p.0 - prev.0) as f64 / 1e6;
                max = max
                    .max((p.1 - prev.1) as f64 / dt)
                    .max((p.2 - prev.2) as f64 / dt);
                prev = p;
            }
        }
        max
    }
}

/// A replayed core on the wall clock: time 0 is when the sensor opened.
pub struct ReplaySensor {
    trace: std::sync::Arc<Trace>,
    core: usize,
    start: Instant,
}

impl ReplaySensor {
    pub fn new(trace: std::sync::Arc<Trace>, core: usize, start: Instant) -> Self {
        ReplaySensor { trace, core, start }
    }
}

impl CoreSensor for ReplaySensor {
    fn read(&mut self) -> std::io::Result<Traffic> {
        let t = self.start.elapsed().as_micros() as u64;
        Ok(self.trace.cumulative(self.core, t))
    }
}

/// A replayed core on a virtual clock (the deterministic tests).
pub struct VirtualReplay<'a> {
    pub trace: &'a Trace,
    pub core: usize,
    pub now: &'a std::cell::Cell<u64>,
}

impl CoreSensor for VirtualReplay<'_> {
    fn read(&mut self) -> std::io::Result<Traffic> {
        Ok(self.trace.cumulative(self.core, self.now.get()))
    }
}
