//! `ssc throttle`: bandwidth reservation for best-effort co-runners by
//! duty-cycling (the thesis' Chapter 4, seeds 000–002).
//!
//! One pinned, high-priority thread per best-effort core samples that
//! core's cache/memory traffic every interval ([`sensor`]: perf hardware
//! events, resctrl MBM, or a replayed trace), decides ([`decide`]: fixed,
//! proportional or MemGuard-style suspension) and suspends and resumes the
//! core's best-effort work ([`actuator`]: cgroup v2 freeze, SIGSTOP/SIGCONT,
//! or IA32_CLOCK_MODULATION duty cycle). Everything suspended is resumed on
//! every exit path; a [`watchdog`] child covers the monitor's own death.
//! See `docs/throttle.md`.

pub mod actuator;
pub mod bench;
pub mod calibrate;
pub mod cpu;
pub mod cycle;
pub mod decide;
pub mod freeze;
pub mod log;
pub mod monitor;
pub mod msr;
pub mod open;
pub mod parse;
pub mod perf;
pub mod replay;
pub mod resctrl;
pub mod sensor;
pub mod signal;
pub mod svg;
pub mod watchdog;

pub use monitor::{run, Config, Error, Outcome, Threshold};
