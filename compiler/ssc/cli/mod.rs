//! The `ssc` command line: parses arguments, runs the pipeline stages a
//! command needs, renders diagnostics and maps outcomes to exit codes
//! (docs/commands.md: 0 success, 1 wrong input, 2 wrong command line, 3 an external
//! step failed).

pub(crate) mod args;
mod bench;
mod build;
mod commands;
pub(crate) mod config;
mod defaults;
pub(crate) mod diag;
mod doctor;
mod explain;
mod ptts;
mod source;
mod throttle;
mod tune;

use clap::Parser;

/// Exit codes (docs/commands.md).
pub(crate) mod exit {
    pub(crate) const OK: i32 = 0;
    pub(crate) const INPUT: i32 = 1;
    pub(crate) const USAGE: i32 = 2;
    pub(crate) const EXTERNAL: i32 = 3;
}

/// Runs `ssc` with these arguments (the first is the program name) and
/// returns the exit code.
pub(crate) fn run(argv: Vec<String>) -> i32 {
    let cli = match args::Cli::try_parse_from(args::normalise(argv.iter().cloned())) {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            let _ = e.print();
            return code;
        }
    };
    diag::configure(cli.message_format, cli.color);
    commands::dispatch(cli.command, &argv)
}

/// The `ssc` binary's entry point: `run`, with a closed standard output
/// (`ssc generate | head -1`) ending the process quietly, as Unix tools do:
/// the printing code's panic is caught (so clean-ups such as resuming
/// throttled tasks still run) and ssc dies of `SIGPIPE` without a message.
pub fn main() -> ! {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !is_broken_pipe(info.payload()) {
            default_hook(info);
        }
    }));
    let argv: Vec<String> = std::env::args().collect();
    match std::panic::catch_unwind(move || run(argv)) {
        Ok(code) => std::process::exit(code),
        Err(payload) if is_broken_pipe(&*payload) => {
            // SAFETY: restoring the default action of SIGPIPE and raising
            // it: the process ends as if it had not ignored the signal.
            unsafe {
                libc::signal(libc::SIGPIPE, libc::SIG_DFL);
                libc::raise(libc::SIGPIPE);
            }
            std::process::exit(128 + libc::SIGPIPE)
        }
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// Whether a panic is `print!`'s on a closed pipe (EPIPE).
fn is_broken_pipe(payload: &(dyn std::any::Any + Send)) -> bool {
    let msg = match (
        payload.downcast_ref::<String>(),
        payload.downcast_ref::<&str>(),
    ) {
        (Some(s), _) => s.as_str(),
        (None, Some(s)) => s,
        (None, None) => return false,
    };
    msg.starts_with("failed printing to std")
        && msg.contains(&format!("(os error {})", libc::EPIPE))
}
