//! The `ssc` command line: parses arguments, runs the pipeline stages a
//! command needs, renders diagnostics and maps outcomes to exit codes
//! (SPEC §6: 0 success, 1 wrong input, 2 wrong command line, 3 an external
//! step failed).

pub mod args;
pub mod bench;
mod build;
mod commands;
pub mod config;
pub mod figures;
mod ptts;
mod source;
mod throttle;

use clap::Parser;

/// Exit codes of SPEC §6.
pub mod exit {
    pub const OK: i32 = 0;
    pub const INPUT: i32 = 1;
    pub const USAGE: i32 = 2;
    pub const EXTERNAL: i32 = 3;
}

/// Runs `ssc` with these arguments (the first is the program name) and
/// returns the exit code.
pub fn run(argv: Vec<String>) -> i32 {
    let argv = args::normalise(argv);
    let cli = match args::Cli::try_parse_from(argv) {
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
    commands::dispatch(cli.command)
}
