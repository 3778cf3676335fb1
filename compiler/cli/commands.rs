//! One function per subcommand.

use super::args::{BuildArgs, Command};
use super::exit;
use super::source::{self, ReadError};
use crate::front::diagnostics::{render, Diagnostic, SourceFile};
use crate::ir::Description;
use std::path::Path;

pub fn dispatch(command: Command) -> i32 {
    match command {
        Command::Check(a) => check(&a.file),
        Command::Fmt(a) => fmt(&a.file),
        Command::Build(a) => build(&a),
        Command::Run(_) => not_yet("ssc run"),
        Command::Generate(_) => not_yet("ssc generate"),
        Command::Bench(_) => not_yet("ssc bench"),
    }
}

fn not_yet(what: &str) -> i32 {
    eprintln!("error: {what} is not yet implemented");
    exit::USAGE
}

/// Reads and parses a file; on failure prints the diagnostics and gives the exit code.
fn load(path: &Path) -> Result<(SourceFile, Description), i32> {
    let file = match source::read(path) {
        Ok(f) => f,
        Err(ReadError::Io(msg)) => {
            eprintln!("error: {msg}");
            return Err(exit::USAGE);
        }
        Err(ReadError::NotText(file, diag)) => {
            eprint!("{}", render(&[diag], &file));
            return Err(exit::INPUT);
        }
    };
    match crate::front::syntax::parse(&file.text) {
        Ok(desc) => Ok((file, desc)),
        Err(diags) => {
            eprint!("{}", render(&diags, &file));
            Err(exit::INPUT)
        }
    }
}

/// Prints diagnostics; returns whether any is an error.
fn report(diags: &[Diagnostic], file: &SourceFile) -> bool {
    if !diags.is_empty() {
        eprint!("{}", render(diags, file));
    }
    diags.iter().any(|d| d.is_error())
}

fn check(path: &Path) -> i32 {
    let (file, desc) = match load(path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let diags = crate::front::check(&desc);
    if report(&diags, &file) {
        return exit::INPUT;
    }
    println!("{}: ok", file.name);
    exit::OK
}

fn fmt(path: &Path) -> i32 {
    let (file, desc) = match load(path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let diags = crate::front::check(&desc);
    if report(&diags, &file) {
        return exit::INPUT;
    }
    print!("{}", crate::back::description::print(&desc));
    exit::OK
}

fn build(args: &BuildArgs) -> i32 {
    let (file, desc) = match load(&args.file) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let diags = crate::front::check(&desc);
    if report(&diags, &file) {
        return exit::INPUT;
    }
    if let Some(path) = &args.normalized_input {
        if let Err(e) = std::fs::write(path, crate::back::description::print(&desc)) {
            eprintln!("error: cannot write `{}`: {e}", path.display());
            return exit::USAGE;
        }
    }
    not_yet("ssc build (lowering and code generation)")
}
