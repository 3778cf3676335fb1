//! The live monitor: resolves the cores, opens the sensor and the
//! actuator, forks the watchdog, runs one pinned (SCHED_FIFO when
//! permitted) `cycle::run_core` thread per best-effort core, and on every
//! way out — the duration elapsed, SIGINT/SIGTERM, a vanished task, an
//! error — resumes everything before it returns.

use super::actuator::{ActError, Actuator, ActuatorKind, OpenError, Target};
use super::cycle::{self, CoreSummary, CycleError, Record, WallClock};
use super::decide::{Mode, Policy};
use super::open::{self, Opened};
use super::sensor::{BoxedSensor, SensorError, SensorSpec};
use super::watchdog::{self, WatchdogError};
use super::{calibrate, cpu, log, svg};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// `--threshold`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Threshold {
    /// Bytes per second.
    Rate(f64),
    /// Percent of the measured maximum.
    Percent(f64),
}

/// Everything `ssc throttle` was asked to do.
#[derive(Clone, Debug)]
pub struct Config {
    pub mode: Mode,
    pub interval_us: u64,
    pub threshold: Threshold,
    pub suspend_us: u64,
    pub max_factor: f64,
    pub budget_bytes: u64,
    pub period_us: u64,
    pub target: Target,
    pub actuator: ActuatorKind,
    pub duty: u8,
    pub rt_cores: Vec<usize>,
    pub be_cores: Option<Vec<usize>>,
    pub sensor: SensorSpec,
    pub event: Option<String>,
    pub duration_us: Option<u64>,
    pub log: Option<PathBuf>,
    pub svg: Option<PathBuf>,
    pub priority: i32,
}

/// Why the monitor could not run; the message is complete.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Contradictory or impossible options (exit 2).
    #[error("{0}")]
    Usage(String),
    /// No usable sensor (exit 3).
    #[error(transparent)]
    Sensor(SensorError),
    /// The actuator could not be opened (exit 3).
    #[error(transparent)]
    Actuator(OpenError),
    /// The watchdog could not be started (exit 3).
    #[error(transparent)]
    Watchdog(WatchdogError),
    /// Measuring the maximum bandwidth or writing a file failed (exit 3).
    #[error("{0}")]
    External(String),
}

/// What a run did.
#[derive(Debug)]
pub struct Outcome {
    pub sensor: String,
    pub actuator: String,
    pub policy: Policy,
    pub be_cores: Vec<usize>,
    pub cores: Vec<CoreSummary>,
    pub records: Vec<Record>,
    /// Per `--be-pid` process: its CPU share and its runnable share over the
    /// run (None if it vanished).
    pub cpu_share: Vec<(i32, Option<(f64, f64)>)>,
    /// Why the run ended early, if it did without failing (a task vanished).
    pub note: Option<String>,
    /// Set when the run failed after starting (everything was resumed).
    pub failure: Option<String>,
}

static SIGNALLED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    SIGNALLED.store(true, Ordering::SeqCst);
}

fn install_handlers() {
    // SAFETY: the handler only stores to an atomic (async-signal-safe).
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

/// (time on a CPU, time waiting for one) of a process in seconds, from
/// `/proc/PID/schedstat`; their sum over the wall time is the fraction of
/// the time it was runnable (not stopped), whatever else loads the machine.
pub fn sched_seconds(pid: i32) -> Option<(f64, f64)> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/schedstat")).ok()?;
    let mut f = s.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some((f.next()?? / 1e9, f.next()?? / 1e9))
}

/// Runs the monitor until the duration elapses, a signal, or a vanished task.
pub fn run(cfg: &Config) -> Result<Outcome, Error> {
    let start = Instant::now();
    let be_cores = best_effort_cores(cfg)?;
    if cfg.interval_us == 0 {
        return Err(Error::Usage("--interval-us must be positive".into()));
    }
    let mut opened =
        open::sensor(&cfg.sensor, &be_cores, cfg.event.as_deref(), start).map_err(Error::Sensor)?;
    let threshold_bps = threshold_bps(cfg, &mut opened, &be_cores)?;
    let policy = Policy {
        mode: cfg.mode,
        interval_us: cfg.interval_us,
        threshold_bps,
        suspend_us: cfg.suspend_us,
        max_factor: cfg.max_factor,
        budget_bytes: cfg.budget_bytes,
        period_us: cfg.period_us,
    };
    let act =
        open::actuator(cfg.actuator, &cfg.target, &be_cores, cfg.duty).map_err(Error::Actuator)?;
    let act_name = act.name();
    let dog = watchdog::spawn(&act.rescue()).map_err(Error::Watchdog)?;
    install_handlers();
    let pids = match &cfg.target {
        Target::Pids(p) => p.clone(),
        _ => Vec::new(),
    };
    let cpu0: Vec<Option<(f64, f64)>> = pids.iter().map(|&p| sched_seconds(p)).collect();
    let wall0 = Instant::now();

    let shared = Shared {
        act: Arc::new(Mutex::new(act)),
        halt: Arc::new(AtomicBool::new(false)),
        records: Arc::new(Mutex::new(Vec::new())),
        fifo_warned: Arc::new(AtomicBool::new(false)),
    };
    let begin = start.elapsed().as_micros() as u64;
    let end_us = cfg.duration_us.map(|d| begin + d);
    let mut handles = Vec::new();
    for (core, sensor) in be_cores.iter().copied().zip(opened.sensors.drain(..)) {
        let sampler = Sampler {
            core,
            policy,
            end_us,
            clock_start: start,
            priority: cfg.priority,
            shared: shared.clone(),
        };
        handles.push(std::thread::spawn(move || sampler.run(sensor)));
    }
    let (cores, mut note, failure) = join(handles);
    shared
        .act
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .resume_all();
    dog.disarm();
    if SIGNALLED.load(Ordering::SeqCst) && note.is_none() {
        note = Some("stopped by a signal".into());
    }
    let wall = wall0.elapsed().as_secs_f64().max(1e-6);
    let cpu_share = cpu_shares(&pids, cpu0, wall);
    let mut records =
        std::mem::take(&mut *shared.records.lock().unwrap_or_else(|p| p.into_inner()));
    records.sort_by_key(|r| (r.t_us, r.core));
    let out = Outcome {
        sensor: opened.name,
        actuator: act_name,
        policy,
        be_cores,
        cores,
        records,
        cpu_share,
        note,
        failure,
    };
    write_files(cfg, &out)?;
    Ok(out)
}

/// The best-effort cores: `--be-cores`, else every online core not in
/// `--rt-cores`; an error when there are none, or one is real-time or
/// offline.
fn best_effort_cores(cfg: &Config) -> Result<Vec<usize>, Error> {
    let online = cpu::online();
    let be_cores: Vec<usize> = match &cfg.be_cores {
        Some(c) => c.clone(),
        None => online
            .iter()
            .copied()
            .filter(|c| !cfg.rt_cores.contains(c))
            .collect(),
    };
    if be_cores.is_empty() {
        return Err(Error::Usage(
            "no best-effort cores: --rt-cores covers every online CPU (name them with --be-cores)"
                .into(),
        ));
    }
    if let Some(c) = be_cores.iter().find(|c| cfg.rt_cores.contains(c)) {
        return Err(Error::Usage(format!(
            "core {c} is in both --rt-cores and --be-cores"
        )));
    }
    if let Some(c) = be_cores.iter().find(|c| !online.contains(c)) {
        return Err(Error::Usage(format!(
            "core {c} is not online (online: {online:?})"
        )));
    }
    Ok(be_cores)
}

/// `--threshold` in bytes per second: as given, or a percentage of the
/// replayed trace's maximum or of the maximum measured on the first core.
fn threshold_bps(cfg: &Config, opened: &mut Opened, be_cores: &[usize]) -> Result<f64, Error> {
    Ok(match cfg.threshold {
        Threshold::Rate(r) => r,
        Threshold::Percent(p) => {
            let max =
                match &opened.trace {
                    Some(t) => t.max_bps(),
                    None => calibrate::measure(opened.sensors[0].as_mut(), be_cores[0]).map_err(
                        |e| Error::External(format!("measuring the maximum bandwidth: {e}")),
                    )?,
                };
            if max <= 0.0 {
                return Err(Error::Usage(format!(
                    "--threshold {p}%: the measured maximum bandwidth is 0 (give bytes/s instead)"
                )));
            }
            max * p / 100.0
        }
    })
}

/// What the sampling threads share: the actuator, the halt flag (set by a
/// thread that fails), the records, and whether the SCHED_FIFO warning was
/// printed.
#[derive(Clone)]
struct Shared {
    act: Arc<Mutex<Box<dyn Actuator>>>,
    halt: Arc<AtomicBool>,
    records: Arc<Mutex<Vec<Record>>>,
    fifo_warned: Arc<AtomicBool>,
}

/// One best-effort core's sampling thread.
struct Sampler {
    core: usize,
    policy: Policy,
    end_us: Option<u64>,
    clock_start: Instant,
    priority: i32,
    shared: Shared,
}

impl Sampler {
    /// Raises its priority, pins itself, runs [`cycle::run_core`] and
    /// hands its records over.
    fn run(self, mut sensor: BoxedSensor) -> (CoreSummary, Option<CycleError>) {
        let Sampler {
            core,
            policy,
            end_us,
            clock_start,
            priority,
            shared:
                Shared {
                    act,
                    halt,
                    records,
                    fifo_warned,
                },
        } = self;
        if let Err(e) = cpu::fifo(priority) {
            if !fifo_warned.swap(true, Ordering::SeqCst) {
                eprintln!(
                    "warning: SCHED_FIFO not permitted ({e}); sampling threads run at normal priority, so sampling may be late"
                );
            }
        }
        // Pinned after SCHED_FIFO: a busy best-effort task on the core
        // cannot delay the thread's start.
        if let Err(e) = cpu::pin(core) {
            eprintln!("warning: cannot pin the sampling thread to core {core}: {e}");
        }
        let clock = WallClock(clock_start);
        let stop = || SIGNALLED.load(Ordering::SeqCst) || halt.load(Ordering::SeqCst);
        let mut local = Vec::new();
        let (sum, err) = cycle::run_core(
            core,
            &policy,
            end_us,
            &clock,
            sensor.as_mut(),
            &mut |suspend| {
                let mut a = act.lock().unwrap_or_else(|p| p.into_inner());
                if suspend {
                    a.suspend(core)
                } else {
                    a.resume(core)
                }
            },
            &stop,
            &mut |r| local.push(r),
        );
        if err.is_some() {
            halt.store(true, Ordering::SeqCst);
        }
        records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(local);
        (sum, err)
    }
}

/// The sampling threads' summaries, in core order; why the run ended early
/// (a vanished task), and why it failed, if it did.
#[allow(clippy::type_complexity)]
fn join(
    handles: Vec<std::thread::JoinHandle<(CoreSummary, Option<CycleError>)>>,
) -> (Vec<CoreSummary>, Option<String>, Option<String>) {
    let mut cores = Vec::new();
    let mut note = None;
    let mut failure = None;
    for h in handles {
        match h.join() {
            Ok((sum, err)) => {
                match err {
                    Some(CycleError::Actuator(ActError::Gone(s))) => note = Some(s),
                    Some(CycleError::Actuator(ActError::Failed(s))) => failure = Some(s),
                    Some(CycleError::Sensor(s)) => {
                        failure = Some(format!("reading the sensor of core {}: {s}", sum.core))
                    }
                    None => {}
                }
                cores.push(sum);
            }
            Err(_) => failure = Some("a sampling thread panicked".into()),
        }
    }
    (cores, note, failure)
}

/// Per `--be-pid` process, its CPU and runnable shares of the wall time
/// since `cpu0` was read (None if it vanished).
fn cpu_shares(
    pids: &[i32],
    cpu0: Vec<Option<(f64, f64)>>,
    wall: f64,
) -> Vec<(i32, Option<(f64, f64)>)> {
    pids.iter()
        .zip(cpu0)
        .map(|(&p, c0)| {
            let share = c0
                .zip(sched_seconds(p))
                .map(|((r0, w0), (r1, w1))| ((r1 - r0) / wall, (r1 - r0 + w1 - w0) / wall));
            (p, share)
        })
        .collect()
}

/// `--log` and `--svg`.
fn write_files(cfg: &Config, out: &Outcome) -> Result<(), Error> {
    if let Some(path) = &cfg.log {
        let meta = log::Meta {
            sensor: &out.sensor,
            actuator: &out.actuator,
            policy: &out.policy,
        };
        log::write(path, &meta, &out.records, &out.cores)
            .map_err(|e| Error::External(format!("cannot write {}: {e}", path.display())))?;
    }
    if let Some(path) = &cfg.svg {
        let threshold = if out.policy.mode == Mode::Memguard {
            0.0
        } else {
            out.policy.threshold_bps
        };
        std::fs::write(path, svg::render(&out.records, &out.cores, threshold))
            .map_err(|e| Error::External(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}
