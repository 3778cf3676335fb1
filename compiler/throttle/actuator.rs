//! The actuator trait and the choice of an actuator (`--actuator`).
//!
//! An actuator suspends and resumes the best-effort work of one core; a
//! core's suspension always ends with a resume (the monitor pairs them, and
//! `Actuator::resume_all` runs on every exit path). `Rescue` is what
//! the watchdog process must undo if the monitor dies without resuming.

use std::path::PathBuf;

/// Why an actuation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActError {
    /// Nothing is left to control (every task vanished, the cgroup was
    /// removed): the monitor stops cleanly.
    Gone(String),
    /// A real failure: the monitor resumes everything and exits 3.
    Failed(String),
}

impl std::fmt::Display for ActError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ActError::Gone(s) | ActError::Failed(s) => f.write_str(s),
        }
    }
}

/// Why an actuator could not be opened (`open::actuator`): a target it
/// cannot act on, or the file or process it needs, with the OS error.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("--actuator freeze needs --be-cgroup PATH")]
    FreezeNeedsCgroup,
    #[error("--actuator signal needs --be-pid PID…")]
    SignalNeedsPids,
    #[error("--be-cgroup {}: no such directory", .dir.display())]
    NoCgroup { dir: PathBuf },
    #[error("--be-cgroup {}: no cgroup.freeze (not a cgroup v2 directory, the root cgroup, or a kernel older than 5.2)", .dir.display())]
    NoFreezeFile { dir: PathBuf },
    #[error("cannot open {} for writing: {source}", .file.display())]
    FreezeFile {
        file: PathBuf,
        source: std::io::Error,
    },
    #[error("--be-pid {pid}: not a process id")]
    NotAPid { pid: i32 },
    #[error("--be-pid {pid}: {source}")]
    Pid { pid: i32, source: std::io::Error },
    #[error("--duty {level}: expected 1..7 (eighths of the cycles)")]
    Duty { level: u8 },
    #[error("cannot open {}: {source} (needs root and `modprobe msr`; virtual machines rarely expose MSRs)", .path.display())]
    MsrFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "cannot read MSR 0x19a (IA32_CLOCK_MODULATION) of cpu {cpu}: {source} (not an Intel CPU?)"
    )]
    MsrRead { cpu: usize, source: std::io::Error },
}

/// Everything an actuator may have suspended, for the watchdog.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rescue {
    /// Send SIGCONT.
    pub pids: Vec<i32>,
    /// Write `0` to these `cgroup.freeze` files.
    pub freeze_files: Vec<PathBuf>,
    /// Write 0 to IA32_CLOCK_MODULATION of these CPUs.
    pub msr_cpus: Vec<usize>,
}

/// Suspends and resumes the best-effort work of a core.
pub trait Actuator: Send {
    fn name(&self) -> String;
    fn suspend(&mut self, core: usize) -> Result<(), ActError>;
    fn resume(&mut self, core: usize) -> Result<(), ActError>;
    /// Resumes everything this actuator ever suspended (idempotent, never fails).
    fn resume_all(&mut self);
    fn rescue(&self) -> Rescue;
}

/// `--actuator`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ActuatorKind {
    /// cgroup v2 `cgroup.freeze` of `--be-cgroup`.
    Freeze,
    /// SIGSTOP/SIGCONT of `--be-pid`.
    Signal,
    /// IA32_CLOCK_MODULATION duty cycle of the best-effort cores.
    Msr,
}

/// What the best-effort work is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Cgroup(PathBuf),
    Pids(Vec<i32>),
    /// The cores themselves (MSR duty cycle).
    Cores(Vec<usize>),
}
