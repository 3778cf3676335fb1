//! Why `ssc bench` stops: takes the failures of parsing its options
//! ([`UsageError`]), of running the built executables ([`RunError`]) and of
//! building a configuration (the builder's own error); gives [`Error`],
//! whose Display is the complete message (the command line adds `error: `
//! and picks the exit code by variant).

use std::path::PathBuf;
use std::process::ExitStatus;

/// Why `ssc bench` stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error<E> {
    /// A wrong argument or an output that cannot be written (exit 2).
    #[error(transparent)]
    Usage(#[from] UsageError),
    /// An executable could not be run or failed (exit 3).
    #[error(transparent)]
    Run(#[from] RunError),
    /// A configuration did not build (its diagnostics already printed;
    /// `E` is the builder's error, the command line's exit code).
    #[error("a configuration did not build")]
    Build(E),
}

/// A wrong argument, or an output directory or file that cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    #[error("ssc bench needs at least one description")]
    NoFiles,
    /// `--configs`: the message of [`super::parse_config`].
    #[error("{0}")]
    Config(String),
    /// `--memory`: the message of `MemoryKind`'s keyword parser.
    #[error("{0}")]
    Memory(String),
    #[error("cannot create `{}`: {source}", .path.display())]
    Create {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write `{}`: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A built executable that could not be run, failed, or left no latencies.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("cannot run `{}`: {source}", .executable.display())]
    Spawn {
        executable: PathBuf,
        source: std::io::Error,
    },
    /// Its exit status and standard error.
    #[error("`{}` failed ({status}): {stderr}", .executable.display())]
    Failed {
        executable: PathBuf,
        status: ExitStatus,
        stderr: String,
    },
    /// Its latency dump.
    #[error("cannot read `{}`: {source}", .dump.display())]
    Dump {
        dump: PathBuf,
        source: std::io::Error,
    },
}
