//! One best-effort core's sample → decide → act loop, on any clock.
//!
//! The live monitor runs it on the wall clock in a pinned thread; the
//! tests run it on a virtual clock with the replay sensor ([`simulate`]),
//! which makes every decision deterministic. The loop: sleep until the end
//! of the interval, read the sensor, decide ([`super::decide`]); on a
//! suspension, suspend, sleep for it, resume, and start the next interval
//! at the resume with a fresh baseline (traffic during a suspension is not
//! charged to the next interval). A resume always follows a suspend, also
//! when the monitor is told to stop during the suspension.

use super::actuator::ActError;
use super::decide::{Action, CoreState, Policy, Sample};
use super::replay::{Trace, VirtualReplay};
use super::sensor::{CoreSensor, Traffic};
use serde::Serialize;
use std::cell::Cell;

/// A time source in µs since the monitor started.
pub trait Clock {
    fn now_us(&self) -> u64;
    /// Sleeps until `t_us`, or returns early once `stop()` is true.
    fn sleep_until(&self, t_us: u64, stop: &dyn Fn() -> bool);
}

/// The wall clock from a start instant; sleeps in slices of at most 20 ms
/// so that a stop request is seen quickly.
pub struct WallClock(pub std::time::Instant);

impl Clock for WallClock {
    fn now_us(&self) -> u64 {
        self.0.elapsed().as_micros() as u64
    }
    fn sleep_until(&self, t_us: u64, stop: &dyn Fn() -> bool) {
        loop {
            let now = self.now_us();
            if now >= t_us || stop() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_micros((t_us - now).min(20_000)));
        }
    }
}

/// A clock that jumps to wherever it is asked to sleep.
#[derive(Default)]
pub struct VirtualClock(pub Cell<u64>);

impl Clock for VirtualClock {
    fn now_us(&self) -> u64 {
        self.0.get()
    }
    fn sleep_until(&self, t_us: u64, _stop: &dyn Fn() -> bool) {
        if t_us > self.0.get() {
            self.0.set(t_us);
        }
    }
}

/// One logged decision.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Record {
    /// End of the sampled interval (µs since start).
    pub t_us: u64,
    pub core: usize,
    pub read_bps: f64,
    pub write_bps: f64,
    /// 0 when the core keeps running.
    pub suspend_us: u64,
    /// Fraction of the time so far this core's best-effort work ran.
    pub duty: f64,
}

/// What a core's loop did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CoreSummary {
    pub core: usize,
    pub samples: u64,
    pub suspensions: u64,
    pub suspended_us: u64,
    pub elapsed_us: u64,
}

impl CoreSummary {
    /// Fraction of the time the core's best-effort work ran.
    pub fn duty(&self) -> f64 {
        if self.elapsed_us == 0 {
            1.0
        } else {
            1.0 - self.suspended_us as f64 / self.elapsed_us as f64
        }
    }
}

/// Why a core's loop ended early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CycleError {
    Sensor(String),
    Actuator(ActError),
}

/// Runs one core until `end_us` (if any) or `stop()`. `act(true)` suspends
/// the core's best-effort work, `act(false)` resumes it.
#[allow(clippy::too_many_arguments)]
pub fn run_core(
    core: usize,
    policy: &Policy,
    end_us: Option<u64>,
    clock: &dyn Clock,
    sensor: &mut dyn CoreSensor,
    act: &mut dyn FnMut(bool) -> Result<(), ActError>,
    stop: &dyn Fn() -> bool,
    log: &mut dyn FnMut(Record),
) -> (CoreSummary, Option<CycleError>) {
    let start = clock.now_us();
    let mut sum = CoreSummary {
        core,
        ..Default::default()
    };
    let mut state = CoreState::default();
    let read = |s: &mut dyn CoreSensor| s.read().map_err(|e| CycleError::Sensor(e.to_string()));
    let finish = |mut sum: CoreSummary, e: Option<CycleError>| {
        sum.elapsed_us = clock.now_us() - start;
        (sum, e)
    };
    let interval = policy.interval_us.max(1);
    let (mut base, mut t0): (Traffic, u64) = match read(sensor) {
        Ok(b) => (b, start),
        Err(e) => return finish(sum, Some(e)),
    };
    loop {
        let next = t0 + interval;
        if stop() || end_us.is_some_and(|e| next > e) {
            if let Some(e) = end_us {
                clock.sleep_until(e, stop);
            }
            return finish(sum, None);
        }
        clock.sleep_until(next, stop);
        if stop() {
            return finish(sum, None);
        }
        let now = clock.now_us();
        let c = match read(sensor) {
            Ok(c) => c,
            Err(e) => return finish(sum, Some(e)),
        };
        let s = Sample {
            t_us: now,
            dt_us: now - t0,
            read_bytes: c.read_bytes.saturating_sub(base.read_bytes),
            write_bytes: c.write_bytes.saturating_sub(base.write_bytes),
        };
        sum.samples += 1;
        let action = policy.decide(&mut state, &s);
        let suspend_us = match action {
            Action::Run => 0,
            Action::Suspend { us } => us,
        };
        let elapsed = (now - start).max(1);
        log(Record {
            t_us: now,
            core,
            read_bps: s.read_bps(),
            write_bps: s.write_bps(),
            suspend_us,
            duty: 1.0 - sum.suspended_us as f64 / elapsed as f64,
        });
        if suspend_us == 0 {
            base = c;
            t0 = now;
            continue;
        }
        let suspended = act(true);
        let until = end_us.map_or(now + suspend_us, |e| e.min(now + suspend_us));
        if suspended.is_ok() {
            clock.sleep_until(until, stop);
        }
        let resumed = act(false);
        let t1 = clock.now_us();
        sum.suspensions += 1;
        sum.suspended_us += t1 - now;
        if let Err(e) = suspended.and(resumed) {
            return finish(sum, Some(CycleError::Actuator(e)));
        }
        match read(sensor) {
            Ok(b) => base = b,
            Err(e) => return finish(sum, Some(e)),
        }
        t0 = t1;
    }
}

/// Runs one core of a trace on a virtual clock for `duration_us`; the
/// decisions and the summary are a pure function of the arguments.
pub fn simulate(
    trace: &Trace,
    core: usize,
    policy: &Policy,
    duration_us: u64,
) -> (Vec<Record>, CoreSummary) {
    let clock = VirtualClock::default();
    let mut sensor = VirtualReplay {
        trace,
        core,
        now: &clock.0,
    };
    let mut records = Vec::new();
    let (sum, _) = run_core(
        core,
        policy,
        Some(duration_us),
        &clock,
        &mut sensor,
        &mut |_| Ok(()),
        &|| false,
        &mut |r| records.push(r),
    );
    (records, sum)
}
