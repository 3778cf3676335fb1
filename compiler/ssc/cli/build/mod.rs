//! `ssc build` and `ssc run`: the whole pipeline from the command line.
//!
//! [`build`] loads and checks the description, chooses the schedule when
//! `-ts` does not ([`auto`]), resolves the options ([`options`]), runs the pipeline and prints its warnings, then what the
//! target asks for: the exports and `-pr` ([`exports`]), the C program or
//! library ([`program`]), the `-t wcet` harness or `-gw`'s measured table
//! ([`wcet`]); [`run()`] builds and runs the program ([`run`]).

mod auto;
mod exports;
mod options;
mod program;
mod run;
mod wcet;

pub(crate) use auto::AutoChoice;
pub(crate) use program::user_kernel_names;
pub(crate) use run::run;
pub(super) use wcet::measured_description;

use super::args::{BuildArgs, Target};
use super::exit;
use ssc::back;
use ssc::diagnostics::SourceFile;
use ssc::pipeline::{self, Compiled};
use std::path::{Path, PathBuf};

/// What a successful build leaves behind.
pub(crate) struct Built {
    pub executable: Option<PathBuf>,
    /// The compiled description, when the pipeline ran to its end.
    pub compiled: Option<Compiled>,
}

impl Built {
    fn nothing() -> Built {
        Built {
            executable: None,
            compiled: None,
        }
    }
}

/// A spinner with the stage and its elapsed time on standard error, only
/// when that is a terminal (and diagnostics are not JSON): a 3 000-box
/// chain takes half a minute to compile and as long again in `cc`.
struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    fn start(message: &str) -> Progress {
        use std::io::IsTerminal;
        if !std::io::stderr().is_terminal() || super::diag::json() {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::new_spinner();
        if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.set_message(message.to_string());
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Progress(Some(bar))
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

fn fail_usage(msg: impl std::fmt::Display) -> i32 {
    eprintln!("error: {msg}");
    exit::USAGE
}

fn write(path: &Path, text: &str) -> Result<(), i32> {
    if path.as_os_str() == "-" {
        print!("{text}");
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = std::fs::create_dir_all(dir);
    }
    std::fs::write(path, text)
        .map_err(|e| fail_usage(format!("cannot write `{}`: {e}", path.display())))
}

/// The program's name: the description's file stem, as a C identifier.
fn program_name(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() || name == "_" || path.as_os_str() == "-" {
        name = "stdin".into();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    name
}

/// The program directory (the C, the runtime, the Makefile, the exports):
/// `-od DIR`; else `build/NAME/`, or with `-o FILE` a folder of that
/// executable's own inside it, [`output_folder`], so that two `-o` builds
/// of one description keep their C apart.
fn output_dir(a: &BuildArgs, name: &str) -> PathBuf {
    if let Some(dir) = &a.output_dir {
        return dir.clone();
    }
    let default = Path::new("build").join(name);
    match &a.output {
        Some(exe) => default.join(output_folder(exe)),
        None => default,
    }
}

/// `FILE-HASH` for `-o PATH`: FILE its last component (`out` when it has
/// none), characters other than letters, digits, `_`, `-` and `.` made
/// `_`; HASH 8 hex digits of the 64-bit FNV-1a hash of PATH made absolute
/// (its two halves xored), so another path with the same file name gets
/// another folder.
fn output_folder(exe: &Path) -> String {
    let file: String = exe
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let path = std::path::absolute(exe).unwrap_or_else(|_| exe.to_path_buf());
    let hash = path
        .as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        });
    format!("{file}-{:08x}", (hash ^ (hash >> 32)) as u32)
}

fn lower_or_report<T>(
    r: Result<T, Vec<ssc::diagnostics::Diagnostic>>,
    file: &SourceFile,
) -> Result<T, i32> {
    r.map_err(|diags| {
        super::diag::emit(&diags, file);
        if diags.iter().any(|d| d.code == "E299") {
            exit::EXTERNAL
        } else if diags.iter().any(|d| d.code == "E141") {
            // Strips too short for the limit: the command line's choice
            // (`--strip-rows`, `--max-subboxes`); the default never is.
            exit::USAGE
        } else {
            exit::INPUT
        }
    })
}

/// Loads, checks and compiles; prints diagnostics. `argv` is ssc's command
/// line as given (the program records it). No executable when the command
/// is complete before code generation (-gd, -t interpreter, -t info,
/// -t library).
pub(crate) fn build(a: &BuildArgs, argv: &[String]) -> Result<Built, i32> {
    build_with(a, None, argv)
}

/// E505: a mapped scheduler's pinned threads outnumber the cores this
/// process may use (its affinity mask and CPU quota): two threads then
/// share a core and wait on each other's signals and barriers.
fn more_threads_than_cores(
    opts: &pipeline::Options,
    compiled: &pipeline::Compiled,
) -> Option<ssc::diagnostics::Diagnostic> {
    let asked = opts.scheduler.threads()?;
    let threads = compiled.runtime.thread_executions.len().min(asked);
    let cores = std::thread::available_parallelism().ok()?.get();
    (threads > cores).then(|| {
        ssc::diagnostics::Diagnostic::warning(
            "E505",
            format!(
                "the program runs {threads} pinned threads, and this machine gives the process {cores} cores"
            ),
        )
        .hint(format!(
            "two threads on one core wait on each other's signals and barriers: build with `-ts {} {cores}` (or run it on a machine with {threads} cores)",
            opts.scheduler.keyword()
        ))
    })
}

/// [`build`], with `desc` in place of the file's description when given
/// (`ssc bench` builds a measured description; diagnostics still name the file).
pub(super) fn build_with(
    a: &BuildArgs,
    replacement: Option<&ssc::ir::Description>,
    argv: &[String],
) -> Result<Built, i32> {
    // Without -ts, the fastest schedule `ssc tune` measured here.
    let tuned = super::tune::lookup(a);
    let a = tuned.as_ref().unwrap_or(a);
    let (file, mut desc) = super::source::load_expanded(&a.file, &a.defines)?;
    if let Some(r) = replacement {
        desc = r.clone();
    }
    let kernels = program::user_kernel_names(&a.kernels)?;
    let diags = ssc::front::check::check_with_kernels(&desc, &kernels);
    if super::source::report(&diags, &file) {
        return Err(exit::INPUT);
    }
    // Without -ts (or with -ts auto), the candidate the cost model prefers.
    let chosen = auto::choose(a, &desc, &kernels, &file)?;
    let a = chosen.as_ref().unwrap_or(a);
    if let (true, Some(c)) = (a.verbose, &a.auto_choice) {
        eprint!("{}", c.verbose());
    }
    let config = options::resolve(a, &file)?;
    if let Some(path) = &a.normalized_input {
        write(path, &back::description::print(&desc))?;
    }
    let opts = options::options_of(a, &config, &kernels);
    let name = program_name(&a.file);
    let measured;
    let desc = if a.generate_wcet {
        measured = wcet::measure(a, &desc, &opts, &name, &file)?;
        &measured
    } else {
        &desc
    };
    if a.generate_declaration || a.declaration_graph.is_some() {
        if let Some(done) = exports::declaration(a, desc, &opts, &file)? {
            return Ok(done);
        }
    }
    if config.target == Target::Wcet {
        let exe = wcet::harness(a, desc, &opts, &name, &file)?;
        return Ok(Built {
            executable: Some(exe),
            compiled: None,
        });
    }

    let progress = Progress::start(&format!(
        "{}: lowering, scheduling, allocating, synchronising, proving",
        file.name
    ));
    let compiled = lower_or_report(pipeline::compile(desc, &opts), &file);
    drop(progress);
    let compiled = compiled?;
    if !compiled.warnings.is_empty() {
        super::diag::emit(&compiled.warnings, &file);
    }
    if matches!(config.target, Target::Linux | Target::Library) {
        if let Some(d) = more_threads_than_cores(&opts, &compiled) {
            super::diag::emit(&[d], &file);
        }
    }
    if a.verbose {
        for n in &compiled.notes {
            eprintln!("{n}");
        }
    }
    exports::exports(a, &compiled, &name)?;
    if a.sdf_runtime || a.sdf_log.is_some() {
        exports::analysis(a, &compiled)?;
    }
    if a.check_kernels && !matches!(config.target, Target::Linux | Target::Helix) {
        return Err(fail_usage(
            "--check-kernels guards the folded buffers of a program: build it with -t linux (the default)",
        ));
    }
    let executable = match config.target {
        Target::Interpreter => {
            print!("{}", back::description::print(&compiled.description));
            None
        }
        Target::Info => {
            exports::info(a, desc, &opts, &compiled);
            None
        }
        Target::Library => {
            program::linux(a, argv, &config, &compiled, &name, &file)?;
            None
        }
        _ => Some(program::linux(a, argv, &config, &compiled, &name, &file)?),
    };
    Ok(Built {
        executable,
        compiled: Some(compiled),
    })
}
