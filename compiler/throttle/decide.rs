//! The pure decision core: one sample of a best-effort core's traffic in,
//! one action out. No clock, no I/O, no threads: the monitor
//! ([`super::cycle`]) feeds it live samples, the tests feed it a replayed
//! trace on a virtual clock, and both get the same decisions.
//!
//! Three modes:
//! - **fixed** (the thesis, §4.6.3): when the read or the write bandwidth of
//!   the last interval exceeds the threshold, suspend for `suspend_us`.
//! - **proportional** (the thesis' future work, §6.6.2): the same test, but
//!   the suspension grows with *how much* (`bandwidth / threshold`) and *how
//!   often in a row* (`streak`) the threshold was exceeded:
//!   `suspend_us × ratio × streak`, capped at `suspend_us × max_factor`.
//!   At the threshold, the first time, it equals the fixed mode.
//! - **memguard** (MemGuard, seed 002): each core has a budget of bytes
//!   (read + write) per regulation period; once the period's traffic reaches
//!   the budget, the core is suspended until the period ends, and the
//!   budget is refilled at the start of the next one.

use serde::Serialize;

/// How suspensions are decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Fixed,
    Proportional,
    Memguard,
}

/// The parameters of a decision, all in bytes and microseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Policy {
    pub mode: Mode,
    /// Sampling interval (µs).
    pub interval_us: u64,
    /// Read or write bandwidth above which a core is suspended (bytes/s);
    /// fixed and proportional modes.
    pub threshold_bps: f64,
    /// Base suspension time (µs); fixed and proportional modes.
    pub suspend_us: u64,
    /// Proportional mode: the longest suspension is `suspend_us × max_factor`.
    pub max_factor: f64,
    /// MemGuard mode: bytes (read + write) a core may move per period.
    pub budget_bytes: u64,
    /// MemGuard mode: the regulation period (µs).
    pub period_us: u64,
}

/// The traffic of one core over one sampling interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Sample {
    /// End of the interval, µs since the monitor started.
    pub t_us: u64,
    /// Length of the interval (µs).
    pub dt_us: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
}

impl Sample {
    /// Read bandwidth over the interval (bytes/s); 0 for an empty interval.
    pub fn read_bps(&self) -> f64 {
        rate(self.read_bytes, self.dt_us)
    }
    /// Write bandwidth over the interval (bytes/s).
    pub fn write_bps(&self) -> f64 {
        rate(self.write_bytes, self.dt_us)
    }
}

fn rate(bytes: u64, dt_us: u64) -> f64 {
    if dt_us == 0 {
        0.0
    } else {
        bytes as f64 * 1e6 / dt_us as f64
    }
}

/// What to do with a core after a sample.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum Action {
    /// Let it run for another interval.
    Run,
    /// Suspend its best-effort tasks for `us` microseconds, then resume them.
    Suspend { us: u64 },
}

/// What a core's decisions remember between samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CoreState {
    /// Consecutive samples over the threshold (proportional mode).
    pub streak: u32,
    /// Index of the current regulation period (MemGuard mode).
    pub period: u64,
    /// Bytes used in the current period (MemGuard mode).
    pub used: u64,
}

impl Policy {
    /// Decides on one sample, updating the core's state.
    pub fn decide(&self, state: &mut CoreState, s: &Sample) -> Action {
        match self.mode {
            Mode::Fixed => {
                if self.ratio(s) > 1.0 {
                    Action::Suspend {
                        us: self.suspend_us,
                    }
                } else {
                    Action::Run
                }
            }
            Mode::Proportional => {
                let ratio = self.ratio(s);
                if ratio > 1.0 {
                    state.streak = state.streak.saturating_add(1);
                    let factor = (ratio * state.streak as f64).min(self.max_factor.max(1.0));
                    Action::Suspend {
                        us: (self.suspend_us as f64 * factor).round() as u64,
                    }
                } else {
                    state.streak = 0;
                    Action::Run
                }
            }
            Mode::Memguard => {
                let period_us = self.period_us.max(1);
                let period = s.t_us / period_us;
                if period != state.period {
                    state.period = period;
                    state.used = 0;
                }
                state.used = state
                    .used
                    .saturating_add(s.read_bytes)
                    .saturating_add(s.write_bytes);
                let left = (period + 1) * period_us - s.t_us;
                if state.used >= self.budget_bytes && left > 0 {
                    Action::Suspend { us: left }
                } else {
                    Action::Run
                }
            }
        }
    }

    /// The larger of read and write bandwidth over the threshold
    /// (> 1 means exceeded); 0 with no threshold.
    pub fn ratio(&self, s: &Sample) -> f64 {
        if self.threshold_bps <= 0.0 {
            return 0.0;
        }
        s.read_bps().max(s.write_bps()) / self.threshold_bps
    }
}
