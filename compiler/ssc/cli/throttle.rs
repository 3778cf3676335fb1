//! `ssc throttle`: the command line of the bandwidth duty-cycler
//! ([`ssc_throttle`]); options, their checks and the closing note.

use super::exit;
use clap::{Args, Subcommand};
use ssc_throttle::actuator::{ActuatorKind, Target};
use ssc_throttle::bench;
use ssc_throttle::decide::Mode;
use ssc_throttle::sensor::SensorSpec;
use ssc_throttle::{cpu, parse, Config, Error, Threshold};
use std::path::PathBuf;

/// Suspend best-effort work on cores whose measured bandwidth exceeds a
/// threshold (the thesis' Chapter 4 duty-cycling).
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct ThrottleArgs {
    #[command(subcommand)]
    pub action: Option<ThrottleAction>,
    /// Sampling interval in µs (thesis: 100 or 500).
    #[arg(long, default_value_t = 100)]
    pub interval_us: u64,
    /// Read or write bandwidth that triggers a suspension: bytes/s
    /// (`2G`, `500MB/s`) or `N%` of the measured maximum.
    #[arg(long, default_value = "25%", value_parser = parse::threshold)]
    pub threshold: Threshold,
    /// Suspension time in µs (thesis: 900 or 500); the base of proportional mode.
    #[arg(long, default_value_t = 900)]
    pub suspend_us: u64,
    /// The cgroup v2 directory holding the best-effort work.
    #[arg(long, value_name = "PATH", conflicts_with = "be_pid")]
    pub be_cgroup: Option<PathBuf>,
    /// The best-effort processes (several, or comma-separated).
    #[arg(long, value_name = "PID", num_args = 1.., value_delimiter = ',', value_parser = pid)]
    pub be_pid: Vec<i32>,
    /// Cores of the real-time work (never throttled), e.g. `0-1`.
    #[arg(long, value_parser = cores, value_name = "LIST")]
    pub rt_cores: Option<Cores>,
    /// Best-effort cores to monitor [default: the online cores not in --rt-cores].
    #[arg(long, value_parser = cores, value_name = "LIST")]
    pub be_cores: Option<Cores>,
    /// perf, resctrl, auto (perf then resctrl) or replay:FILE (CSV `t_us,core,read_bytes,write_bytes`).
    #[arg(long, default_value = "auto")]
    pub sensor: SensorSpec,
    /// perf events: `rHEX` or `read=SPEC,write=SPEC` [default: by CPU vendor].
    #[arg(long)]
    pub event: Option<String>,
    /// How to suspend [default: freeze with --be-cgroup, signal with --be-pid].
    #[arg(long, value_enum)]
    pub actuator: Option<ActuatorKind>,
    /// fixed (thesis), proportional (§6.6.2) or memguard (per-period budgets).
    #[arg(long, value_enum, default_value_t = ModeArg::Fixed)]
    pub mode: ModeArg,
    /// memguard: bytes (read + write) per core per period, e.g. `10M`.
    #[arg(long, value_parser = parse::bytes)]
    pub budget: Option<f64>,
    /// memguard: the regulation period in µs.
    #[arg(long, default_value_t = 1000)]
    pub period_us: u64,
    /// proportional: the longest suspension, in multiples of --suspend-us.
    #[arg(long, default_value_t = 8.0)]
    pub max_factor: f64,
    /// msr: the duty cycle while throttled, in eighths (1..7).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=7))]
    pub duty: u8,
    /// Stop after this long (`2s`, `500ms`); default: until SIGINT/SIGTERM.
    #[arg(long, value_parser = parse::duration_us, value_name = "T")]
    pub duration: Option<u64>,
    /// Write every decision: JSON if F ends in .json, else CSV.
    #[arg(long, value_name = "F")]
    pub log: Option<PathBuf>,
    /// Write an SVG timeline.
    #[arg(long, value_name = "F")]
    pub svg: Option<PathBuf>,
    /// SCHED_FIFO priority of the sampling threads.
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(i32).range(1..=99))]
    pub priority: i32,
}

/// `ssc throttle bench` (and the hidden `hammer` it re-executes).
#[derive(Debug, Subcommand)]
pub(crate) enum ThrottleAction {
    /// The thesis' Tables 4.1–4.3 on this machine: one measured core's
    /// bandwidth alone, with the other cores hammering memory, and with the
    /// hammers duty-cycled by `ssc throttle`.
    Bench(BenchArgs),
    /// One hammer process (used by `bench`): pinned, touches its buffer
    /// until standard input closes, then prints `bytes seconds`.
    #[command(hide = true)]
    Hammer(HammerArgs),
}

#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    /// The measured core.
    #[arg(long, default_value_t = 0)]
    pub measured_core: usize,
    /// The hammer cores [default: every other online core].
    #[arg(long, value_parser = cores, value_name = "LIST")]
    pub hammer_cores: Option<Cores>,
    /// Accesses: read, write, mixed (comma-separated).
    #[arg(long, default_value = "read,write,mixed", value_delimiter = ',', value_parser = bench::Kind::parse)]
    pub kinds: Vec<bench::Kind>,
    /// The thesis' configurations: a (nothing fits in the cache), c (all
    /// fits), e (only the measured core's data fits); b and d need a
    /// partitioned cache.
    #[arg(long, default_value = "a,c,e", value_delimiter = ',', value_parser = bench::Column::parse)]
    pub columns: Vec<bench::Column>,
    /// A buffer that fits in the cache (per core).
    #[arg(long, default_value = "256Ki", value_parser = parse::bytes)]
    pub fit: f64,
    /// A buffer that does not fit in the cache.
    #[arg(long, default_value = "64Mi", value_parser = parse::bytes)]
    pub nofit: f64,
    /// Seconds per measurement (each cell measures three times per repetition).
    #[arg(long, default_value_t = 0.5)]
    pub seconds: f64,
    /// Repetitions per cell (the table shows medians).
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// The monitor's sampling interval in µs (thesis: 100).
    #[arg(long, default_value_t = 100)]
    pub interval_us: u64,
    /// The monitor's suspension in µs (thesis: 900).
    #[arg(long, default_value_t = 900)]
    pub suspend_us: u64,
    /// The monitor's threshold (thesis: 25 % of the maximum).
    #[arg(long, default_value = "25%")]
    pub threshold: String,
    /// The monitor's sensor [default: replay of the hammers' own byte counts;
    /// `perf` or `resctrl` on a machine with counters].
    #[arg(long)]
    pub sensor: Option<String>,
    /// Do not make the measured thread and the hammers SCHED_FIFO (priority
    /// 1, below the monitor's sampling threads; by default they are, when
    /// permitted, so that other load on the machine does not decide who runs).
    #[arg(long)]
    pub no_fifo: bool,
}

#[derive(Debug, Args)]
pub(crate) struct HammerArgs {
    #[arg(long, value_parser = bench::Kind::parse)]
    pub kind: bench::Kind,
    #[arg(long, value_parser = parse::bytes)]
    pub bytes: f64,
    #[arg(long)]
    pub core: usize,
    #[arg(long)]
    pub fifo: bool,
}

/// A core list (`0-2,5`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Cores(pub Vec<usize>);

fn cores(s: &str) -> Result<Cores, String> {
    cpu::parse_list(s).map(Cores)
}

/// `--be-pid`: a process id, checked before anything runs.
fn pid(s: &str) -> Result<i32, String> {
    match s.trim().parse::<i32>() {
        Ok(p) if p > 0 => Ok(p),
        _ => Err(format!(
            "`{s}` is not a process id (a whole number of at least 1)"
        )),
    }
}

/// `--mode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ModeArg {
    Fixed,
    Proportional,
    Memguard,
}

/// Options that contradict each other or leave something out (exit 2),
/// found before any sensor is probed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ConfigError {
    #[error("name the best-effort work with --be-cgroup PATH or --be-pid PID…")]
    NoTarget,
    #[error("--actuator freeze needs --be-cgroup PATH (it freezes a cgroup)")]
    FreezeNeedsCgroup,
    #[error("--actuator signal needs --be-pid PID… (it stops processes)")]
    SignalNeedsPids,
    #[error("--mode memguard needs --budget BYTES")]
    NoBudget,
    #[error("--interval-us and --period-us must be positive")]
    ZeroInterval,
    #[error("--suspend-us must be positive")]
    ZeroSuspend,
    #[error("--max-factor must be at least 1")]
    MaxFactor { factor: f64 },
}

fn config(a: &ThrottleArgs) -> Result<Config, ConfigError> {
    let mode = match a.mode {
        ModeArg::Fixed => Mode::Fixed,
        ModeArg::Proportional => Mode::Proportional,
        ModeArg::Memguard => Mode::Memguard,
    };
    let target = match (&a.be_cgroup, a.be_pid.is_empty()) {
        (Some(p), _) => Target::Cgroup(p.clone()),
        (None, false) => Target::Pids(a.be_pid.clone()),
        (None, true) if a.actuator == Some(ActuatorKind::Msr) => Target::Cores(Vec::new()),
        (None, true) => return Err(ConfigError::NoTarget),
    };
    let actuator = a.actuator.unwrap_or(match target {
        Target::Cgroup(_) => ActuatorKind::Freeze,
        _ => ActuatorKind::Signal,
    });
    // Checked here, before any sensor is probed: a command-line error.
    match (actuator, &target) {
        (ActuatorKind::Freeze, Target::Cgroup(_)) | (ActuatorKind::Msr, _) => {}
        (ActuatorKind::Signal, Target::Pids(_)) => {}
        (ActuatorKind::Freeze, _) => return Err(ConfigError::FreezeNeedsCgroup),
        (ActuatorKind::Signal, _) => return Err(ConfigError::SignalNeedsPids),
    }
    let budget = match (mode, a.budget) {
        (Mode::Memguard, None) => return Err(ConfigError::NoBudget),
        (_, b) => b.unwrap_or(0.0) as u64,
    };
    if a.interval_us == 0 || a.period_us == 0 {
        return Err(ConfigError::ZeroInterval);
    }
    if mode != Mode::Memguard && a.suspend_us == 0 {
        return Err(ConfigError::ZeroSuspend);
    }
    if a.max_factor.is_nan() || a.max_factor < 1.0 {
        return Err(ConfigError::MaxFactor {
            factor: a.max_factor,
        });
    }
    Ok(Config {
        mode,
        interval_us: a.interval_us,
        threshold: a.threshold,
        suspend_us: a.suspend_us,
        max_factor: a.max_factor,
        budget_bytes: budget,
        period_us: a.period_us,
        target,
        actuator,
        duty: a.duty,
        rt_cores: a.rt_cores.clone().map(|c| c.0).unwrap_or_default(),
        be_cores: a.be_cores.clone().map(|c| c.0),
        sensor: a.sensor.clone(),
        event: a.event.clone(),
        duration_us: a.duration,
        log: a.log.clone(),
        svg: a.svg.clone(),
        priority: a.priority,
    })
}

/// Runs `ssc throttle`; prints the closing note and gives the exit code.
pub(crate) fn run(a: &ThrottleArgs) -> i32 {
    match &a.action {
        Some(ThrottleAction::Bench(b)) => return run_bench(b),
        Some(ThrottleAction::Hammer(h)) => {
            return bench::hammer(h.kind, h.bytes as usize, h.core, h.fifo);
        }
        None => {}
    }
    let cfg = match config(a) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::USAGE;
        }
    };
    let out = match ssc_throttle::run(&cfg) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return match e {
                Error::Usage(_) => exit::USAGE,
                Error::Sensor(_) | Error::Actuator(_) | Error::Watchdog(_) | Error::External(_) => {
                    exit::EXTERNAL
                }
            };
        }
    };
    let p = &out.policy;
    println!(
        "ssc throttle: sensor {}; actuator {}; mode {}; interval {} us; threshold {:.3} GB/s; suspend {} us",
        out.sensor,
        out.actuator,
        match p.mode {
            Mode::Fixed => "fixed",
            Mode::Proportional => "proportional",
            Mode::Memguard => "memguard",
        },
        p.interval_us,
        p.threshold_bps / 1e9,
        p.suspend_us
    );
    for c in &out.cores {
        println!(
            "core {}: {} samples, {} suspensions, suspended {:.1} % of {:.3} s (duty {:.1} %)",
            c.core,
            c.samples,
            c.suspensions,
            100.0 * (1.0 - c.duty()),
            c.elapsed_us as f64 / 1e6,
            100.0 * c.duty()
        );
    }
    for (pid, share) in &out.cpu_share {
        match share {
            Some((cpu, runnable)) => println!(
                "pid {pid}: CPU share {:.1} %, runnable (not suspended) {:.1} % of the time",
                100.0 * cpu,
                100.0 * runnable
            ),
            None => println!("pid {pid}: exited"),
        }
    }
    if let Some(n) = &out.note {
        println!("note: {n}; everything was resumed");
    }
    if let Some(f) = &out.failure {
        eprintln!("error: {f}; everything was resumed");
        return exit::EXTERNAL;
    }
    exit::OK
}

/// `ssc throttle bench`: prints the table (Markdown) and what it could not measure.
fn run_bench(b: &BenchArgs) -> i32 {
    let online = cpu::online();
    let hammer_cores = match &b.hammer_cores {
        Some(c) => c.0.clone(),
        None => online
            .iter()
            .copied()
            .filter(|&c| c != b.measured_core)
            .collect(),
    };
    let bad = |m: String| {
        eprintln!("error: {m}");
        exit::USAGE
    };
    if !online.contains(&b.measured_core) {
        return bad(format!("core {} is not online", b.measured_core));
    }
    if let Some(c) = hammer_cores
        .iter()
        .find(|c| !online.contains(c) || **c == b.measured_core)
    {
        return bad(format!(
            "hammer core {c} is not online or is the measured core"
        ));
    }
    if hammer_cores.is_empty() {
        return bad("no hammer core: needs at least two online cores".into());
    }
    if !(b.seconds > 0.0 && b.seconds <= 60.0) || b.reps == 0 || b.reps > 100 {
        return bad("--seconds must be in (0, 60] and --reps in 1..=100".into());
    }
    if b.interval_us == 0 || b.suspend_us == 0 {
        return bad("--interval-us and --suspend-us must be positive".into());
    }
    if let Err(e) = parse::threshold(&b.threshold) {
        return bad(e);
    }
    if b.fit < 1024.0 || b.nofit < 1024.0 {
        return bad("--fit and --nofit must be at least 1Ki".into());
    }
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("error: cannot find the ssc executable: {e}");
            return exit::EXTERNAL;
        }
    };
    let plan = bench::Plan {
        measured_core: b.measured_core,
        hammer_cores,
        kinds: b.kinds.clone(),
        columns: b.columns.clone(),
        fit: b.fit as usize,
        nofit: b.nofit as usize,
        seconds: b.seconds,
        reps: b.reps,
        interval_us: b.interval_us,
        suspend_us: b.suspend_us,
        threshold: b.threshold.clone(),
        sensor: b.sensor.clone(),
        fifo: !b.no_fifo,
        exe,
        scratch: std::env::temp_dir(),
    };
    let duty = b.interval_us as f64 / (b.interval_us + b.suspend_us) as f64;
    println!(
        "ssc throttle bench: measured core {}, hammer cores {:?}; fit {} KiB, nofit {} KiB; {} s × 3 × {} reps per cell (medians); monitor: sensor {}, threshold {}, interval {} us, suspend {} us (fixed duty {:.0} %)",
        plan.measured_core,
        plan.hammer_cores,
        plan.fit / 1024,
        plan.nofit / 1024,
        plan.seconds,
        plan.reps,
        plan.sensor.as_deref().unwrap_or("replay of the hammers' own byte counts"),
        plan.threshold,
        plan.interval_us,
        plan.suspend_us,
        100.0 * duty
    );
    let cells = match bench::run(&plan, |c| {
        eprintln!(
            "  {} {}: alone {:.1}, hammered {:.1}, throttled {:.1} GB/s",
            c.kind,
            c.column,
            c.alone / 1e9,
            c.hammered / 1e9,
            c.throttled / 1e9
        )
    }) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return exit::EXTERNAL;
        }
    };
    println!();
    print!("{}", bench::table(&cells));
    println!();
    println!("Bandwidth: bytes the measured program read + wrote per second of its thread's CPU time (no counters needed).");
    println!("degr. = 1 - bandwidth/alone; reduction = (degr. hammered - degr. throttled)/degr. hammered (the thesis' Table 4.3).");
    if plan.sensor.is_none() {
        println!("Needs counters: the throttle decision. Here the monitor replays a constant trace of the hammers' own byte counts,");
        println!("so every interval is above the threshold and the hammers run interval/(interval+suspend) of the time (fixed duty);");
        println!("with --sensor perf or resctrl the decision would come from the hammer cores' measured traffic.");
    }
    println!("Not measured: columns b and d (a partitioned cache: Intel CAT through resctrl).");
    exit::OK
}
