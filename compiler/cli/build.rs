//! `ssc build` and `ssc run`: the whole pipeline from the command line.

use super::args::{BuildArgs, DataParallelism, DynamicMemory, Target, TimerDump};
use super::config::Config;
use super::exit;
use crate::back;
use crate::diagnostics::SourceFile;
use crate::ir::Pair;
use crate::lower::split::{self, SplitOptions};
use crate::lower::LowerOptions;
use crate::pipeline::{self, Compiled};
use crate::schedule::ScheduleOptions;
use crate::sync::SyncOptions;
use std::path::{Path, PathBuf};

/// What a successful build leaves behind.
pub struct Built {
    pub executable: Option<PathBuf>,
}

/// A spinner with the stage and its elapsed time on standard error, only
/// when that is a terminal (and diagnostics are not JSON): a 3 000-box
/// chain takes half a minute to compile and as long again in `cc`.
pub(super) struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    pub(super) fn start(message: &str) -> Progress {
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

fn options_of(a: &BuildArgs, c: &Config) -> pipeline::Options {
    let split = SplitOptions {
        dp: match c.data_parallelism {
            DataParallelism::None => split::DataParallelism::None,
            DataParallelism::Some => split::DataParallelism::Some,
            DataParallelism::Full => split::DataParallelism::Full,
        },
        max_parts: c.max_parts,
        precise: a.precise_data_parallelism,
        coarse: a.coarse_dependencies,
        weighted: c.weighted,
        strips: matches!(c.threads, crate::schedule::SchedulerKind::Fused(_)).then(|| {
            split::Strips {
                cache_bytes: a
                    .cache_bytes
                    .unwrap_or_else(split::Strips::default_cache_bytes),
                rows: a.strip_rows,
                forced: a.strip_rows.is_some() || a.cache_bytes.is_some(),
            }
        }),
    };
    let (scheduler, memory) = (c.threads, c.memory);
    pipeline::Options {
        lower: LowerOptions {
            resolution_override: a.compose_resolution.map(|(w, h)| Pair::new(w, h)),
            split,
            cost: Some(cost_model().coefficients),
        },
        scheduler,
        schedule: ScheduleOptions {
            cores: Some(c.cores.clone()),
            affinity: a.core_affinity,
            ..ScheduleOptions::default()
        },
        memory,
        sync: SyncOptions {
            iteration_barrier: a.add_barrier,
            iteration_sync: a.add_iteration_sync,
            keep_barrier_every: a
                .keep_synced
                .then(|| a.keep_synced_interval.unwrap_or(1).min(u32::MAX as u64) as u32),
            keep_distance: if a.keep_synced || a.keep_synced_delta.is_some() {
                a.keep_synced_delta.map(|d| d.min(u32::MAX as u64) as u32)
            } else {
                None
            },
            sort_signals: a.sort_signals || a.sort_signals_twice,
            sort_waits: a.sort_signals_twice,
            timing: Vec::new(),
            timing_system: Vec::new(),
        },
        thread_execution: !a.no_thread_execution,
        dynamic_memory: a.dynamic_memory.is_some(),
        asked: pipeline::Asked {
            scheduler: a.thread_schedule.is_some(),
            memory: a.memory_schedule.is_some(),
        },
    }
}

/// The cost model's coefficients for functions without a timing entry:
/// this CPU's calibration (`ssc calibrate`) or the shipped defaults, read
/// once per process.
fn cost_model() -> &'static crate::calibrate::Loaded {
    static LOADED: std::sync::OnceLock<crate::calibrate::Loaded> = std::sync::OnceLock::new();
    LOADED.get_or_init(crate::calibrate::load)
}

/// E504 (once per process) when a calibration cache exists but cannot be
/// trusted, and under `-v` which coefficients the cost model uses.
fn report_cost_model(a: &BuildArgs, file: &SourceFile) {
    static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if SAID.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    let model = cost_model();
    if let Some(why) = &model.ignored {
        let d = crate::diagnostics::Diagnostic::warning("E504", why.clone()).hint(
            "the cost model uses the shipped defaults; `ssc calibrate` measures this machine again and replaces the file",
        );
        super::diag::emit(&[d], file);
    }
    if a.verbose {
        eprintln!("{}", model.note());
    }
}

/// Targets ssc does not generate for: refused with a clear message.
fn refuse_target(c: &Config) -> Option<i32> {
    match c.target {
        Target::Helix => Some(fail_usage(
            "-t helix: the helix platform is not supported by this ssc; targets are linux, interpreter, info (and wcet)",
        )),
        _ => None,
    }
}

/// Loads, checks and compiles; prints diagnostics. Ok(None) when the
/// command is complete before code generation (-gd, -t interpreter, -t info).
pub fn build(a: &BuildArgs) -> Result<Built, i32> {
    build_with(a, None)
}

/// [`build`], with `desc` in place of the file's description when given
/// (`ssc bench` builds a measured description; diagnostics still name the file).
pub(super) fn build_with(
    a: &BuildArgs,
    replacement: Option<&crate::ir::Description>,
) -> Result<Built, i32> {
    let (file, mut desc) = super::commands::load(&a.file)?;
    if let Some(r) = replacement {
        desc = r.clone();
    }
    let diags = crate::front::check(&desc);
    if super::commands::report(&diags, &file) {
        return Err(exit::INPUT);
    }
    let config = Config::resolve(a);
    report_cost_model(a, &file);
    if (a.strip_rows.is_some() || a.cache_bytes.is_some())
        && !matches!(config.threads, crate::schedule::SchedulerKind::Fused(_))
    {
        return Err(fail_usage(
            "--strip-rows and --cache-bytes size the strips of -ts fused; add -ts fused N",
        ));
    }
    if a.verbose {
        for d in &config.defaults {
            eprintln!("default: {d}");
        }
    }
    if let Some(code) = refuse_target(&config) {
        return Err(code);
    }
    if let Some(path) = &a.normalized_input {
        write(path, &back::description::print(&desc))?;
    }
    let opts = options_of(a, &config);
    let name = program_name(&a.file);
    let measured;
    let desc = if a.generate_wcet {
        measured = measure(a, &desc, &opts, &name, &file)?;
        &measured
    } else {
        &desc
    };

    if a.generate_declaration || a.declaration_graph.is_some() {
        let declared =
            lower_or_report(crate::lower::lower_to_declaration(desc, &opts.lower), &file)?;
        if let Some(path) = &a.declaration_graph {
            write(
                path,
                &back::dot::declaration_dot(declared.declaration.as_ref().expect("lowered")),
            )?;
        }
        if a.generate_declaration {
            print!("{}", back::description::print(&declared));
            return Ok(Built { executable: None });
        }
    }

    if config.target == Target::Wcet {
        let exe = wcet_harness(a, desc, &opts, &name, &file)?;
        return Ok(Built {
            executable: Some(exe),
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
    if a.verbose {
        for n in &compiled.notes {
            eprintln!("{n}");
        }
    }
    exports(a, &compiled, &name)?;
    if a.sdf_runtime || a.sdf_log.is_some() {
        analysis(a, &compiled)?;
    }

    match config.target {
        Target::Interpreter => {
            print!("{}", back::description::print(&compiled.description));
            Ok(Built { executable: None })
        }
        Target::Info => {
            let mut info = back::info::info(&compiled);
            if let crate::schedule::SchedulerKind::Fused(n) = opts.scheduler {
                // What streaming saves: the box-at-a-time reference.
                let mut reference = opts.clone();
                reference.scheduler = crate::schedule::SchedulerKind::Reduced(n);
                reference.memory = crate::memory::MemoryKind::Interference;
                reference.lower.split.strips = None;
                reference.lower.split.max_parts = n as u64;
                if let Ok(r) = pipeline::compile(desc, &reference) {
                    info.set_reference(
                        &format!("-ts reduced {n} -ms interference"),
                        r.memory.map_or(0, |m| m.used_bytes()),
                        compiled.memory.as_ref().map_or(0, |m| m.used_bytes()),
                    );
                }
            }
            if a.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&info).unwrap_or_default()
                );
            } else {
                print!("{}", back::info::text(&info));
            }
            Ok(Built { executable: None })
        }
        Target::Library => {
            if a.output.is_some() {
                return Err(fail_usage(
                    "-o names the executable; -t library writes its files into the program directory: give it with -od DIR",
                ));
            }
            linux(a, &config, &compiled, &name, &file)?;
            Ok(Built { executable: None })
        }
        _ => linux(a, &config, &compiled, &name, &file).map(|exe| Built {
            executable: Some(exe),
        }),
    }
}

fn lower_or_report<T>(
    r: Result<T, Vec<crate::diagnostics::Diagnostic>>,
    file: &SourceFile,
) -> Result<T, i32> {
    r.map_err(|diags| {
        super::diag::emit(&diags, file);
        if diags.iter().any(|d| d.code == "E299") {
            exit::EXTERNAL
        } else {
            exit::INPUT
        }
    })
}

fn output_dir(a: &BuildArgs, name: &str) -> PathBuf {
    a.output_dir
        .clone()
        .unwrap_or_else(|| Path::new("build").join(name))
}

fn exports(a: &BuildArgs, c: &Compiled, name: &str) -> Result<(), i32> {
    if let Some(path) = &a.instantiation_graph {
        write(path, &back::dot::instantiation_dot(&c.hsdfg))?;
    }
    if let Some(path) = &a.runtime_graph {
        write(path, &back::dot::runtime_dot(&c.runtime))?;
    }
    if a.xml_sdf_runtime {
        let path = a
            .xml_sdf_output
            .clone()
            .unwrap_or_else(|| output_dir(a, name).join(format!("{name}.sdf3.xml")));
        // The runtime HSDFG whenever there are programs (always, for a
        // build), unless `--xr-graph instantiation` asks for the HSDFG of
        // the sub-boxes alone.
        let graph = a
            .xr_graph
            .unwrap_or(if c.runtime.thread_executions.is_empty() {
                super::args::XrGraph::Instantiation
            } else {
                super::args::XrGraph::Runtime
            });
        let xml = match graph {
            super::args::XrGraph::Instantiation => back::sdf3::sdf3(&c.hsdfg, name),
            super::args::XrGraph::Runtime => {
                back::sdf3::sdf3_runtime(&crate::analysis::runtime_graph(c), name)
            }
        };
        write(&path, &xml)?;
        if path.as_os_str() != "-" {
            eprintln!("wrote {}", path.display());
        }
    }
    if let Some(path) = &a.groove_graph {
        let gxl = match a.gg_graph.unwrap_or(super::args::XrGraph::Instantiation) {
            super::args::XrGraph::Instantiation => back::gxl::gxl(&c.hsdfg, name),
            super::args::XrGraph::Runtime => {
                back::gxl::gxl_runtime(&crate::analysis::runtime_graph(c), name)
            }
        };
        write(path, &gxl)?;
    }
    Ok(())
}

/// E301 before any file is written or `cc` runs, labelled where the
/// description binds the C function (`container_bind` or `function`).
fn kernels_or_report(
    h: &crate::lower::hsdfg::Hsdfg,
    desc: &crate::ir::Description,
    user_kernels: &[String],
    file: &SourceFile,
) -> Result<(), i32> {
    let Some((function, mut d)) = back::c::unimplemented(h, user_kernels) else {
        return Ok(());
    };
    // The hint cites the repository's own reference.
    d = d.hint(format!(
        "it is not a built-in (docs/language.md, \"Built-in functions\"); write `void {function}(const ssc_call *call)` in a C file and pass it with `--kernels FILE.c`"
    ));
    let binds = desc.composition.iter().flat_map(|c| &c.binds);
    let uses = desc.declaration.iter().flat_map(|d| &d.functions);
    let span = binds
        .map(|b| &b.function)
        .chain(uses.map(|f| &f.function))
        .find(|f| f.name == function && !f.span.is_none())
        .map(|f| f.span);
    if let Some(span) = span {
        d = d.label(span, "bound here");
    }
    super::diag::emit(&[d], file);
    Err(exit::INPUT)
}

fn linux(
    a: &BuildArgs,
    config: &Config,
    c: &Compiled,
    name: &str,
    file: &SourceFile,
) -> Result<PathBuf, i32> {
    let user_kernels = user_kernel_names(&a.kernels)?;
    let cores = if c.cores.is_some() || config.pinned || a.core_affinity {
        Some(c.cores.clone().unwrap_or_else(|| config.cores.clone()))
    } else {
        None
    };
    // `-cm` given but threads not pinned: the mask still confines them.
    let core_mask = match (&cores, &a.core_mask) {
        (None, Some(m)) => Some(m.0.clone()),
        _ => None,
    };
    let opts = back::c::COptions {
        name: name.to_string(),
        source: a.file.display().to_string(),
        options: std::env::args().skip(1).collect::<Vec<_>>().join(" "),
        iterations: config.iterations,
        cores,
        core_mask,
        huge_pages: a.huge_tables,
        verbose: a.verbose_output,
        time_boxes: a.timers_all,
        time_threads: a.thread_timers,
        dump_format: a.timer_dump.map(|d| match d {
            TimerDump::Csv => "SSC_DUMP_CSV",
            TimerDump::Json => "SSC_DUMP_JSON",
            TimerDump::Binary => "SSC_DUMP_BINARY",
        }),
        dump_path: a.dump_timer.as_ref().map(|p| p.display().to_string()),
        user_kernels,
        periodic_barrier: c
            .periodic_barrier
            .as_ref()
            .map(|p| (p.name.clone(), p.every, p.threads.clone())),
        signal_tokens: c.signal_tokens.clone(),
        dynamic_memory: a.dynamic_memory.map(|d| match d {
            DynamicMemory::Dynamic => back::c::DynamicMemory::Dynamic,
            DynamicMemory::Reduced => back::c::DynamicMemory::Reduced,
        }),
        library: config.target == Target::Library,
    };
    kernels_or_report(&c.hsdfg, &c.description, &opts.user_kernels, file)?;
    let program = back::c::emit(&c.hsdfg, &c.runtime, &opts).map_err(|d| {
        super::diag::emit(&d, file);
        exit::INPUT
    })?;
    let dir = output_dir(a, name);
    let exe = a.output.clone().unwrap_or_else(|| dir.join(name));
    back::c::write_files(&program, &a.kernels, &dir, a.portable).map_err(|e| {
        eprintln!("error: {e}");
        exit::EXTERNAL
    })?;
    if opts.library {
        return library(a, &program, &dir, name);
    }
    let progress = Progress::start(&format!("{name}: compiling the C ({name}.c)"));
    let compiled = back::c::compile(&program, &a.kernels, &dir, &exe, a.portable);
    drop(progress);
    compiled.map_err(|e| {
        eprintln!("error: {e}");
        exit::EXTERNAL
    })?;
    eprintln!("{}", summary(&exe, c, &config.threads));
    Ok(exe)
}

/// The line a successful build ends with: what was built and where, its
/// sub-boxes and threads, memory against the lower bound, what was proven.
fn summary(exe: &Path, c: &Compiled, scheduler: &crate::schedule::SchedulerKind) -> String {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let threads = c.runtime.thread_executions.len();
    let how = if let Some(s) = &c.schedule {
        match (scheduler, s.kind) {
            // -ts fused on frames that fit the cache (E140): what ran.
            (crate::schedule::SchedulerKind::Fused(_), ran)
                if !matches!(ran, crate::schedule::SchedulerKind::Fused(_)) =>
            {
                format!("-ts {ran}, box-at-a-time for -ts {scheduler}")
            }
            _ => format!("-ts {}", scheduler.to_string().trim()),
        }
    } else {
        "the runtime section as written".to_string()
    };
    let memory = match &c.memory {
        Some(m) => format!(
            "{} bytes of buffers (lower bound {})",
            m.used_bytes(),
            m.lower_bound
        ),
        None => "buffers as written or allocated at run time".to_string(),
    };
    format!(
        "built {}: {}, {} on {} ({how}); {memory}; proven deadlock- and race-free",
        exe.display(),
        plural(c.hsdfg.functions.len(), "function", "functions"),
        plural(c.hsdfg.actors().count(), "sub-box", "sub-boxes"),
        plural(threads, "thread", "threads"),
    )
}

/// `-t library`: the static and shared library and the pkg-config file in
/// `dir`, beside the header and the Python module `write_files` wrote.
fn library(
    a: &BuildArgs,
    program: &back::c::Program,
    dir: &Path,
    name: &str,
) -> Result<PathBuf, i32> {
    back::c::compile_library(program, &a.kernels, dir, a.portable).map_err(|e| {
        eprintln!("error: {e}");
        exit::EXTERNAL
    })?;
    let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    write(
        &dir.join(format!("{name}.pc")),
        &back::c::pkg_config(name, &abs),
    )?;
    eprintln!(
        "built lib{name}.a, lib{name}.so, {name}.h, {name}.py and {name}.pc in {}",
        dir.display()
    );
    Ok(dir.join(format!("lib{name}.so")))
}

/// The kernels `--kernels` files define (`void NAME(const ssc_call …`).
/// A built-in's own name is E302, before any file is written or `cc` runs
/// (the runtime defines it too, and the linker would refuse both): a
/// kernel of one's own takes a variant's name (`func_sink_mine`), which a
/// `--kernels` definition overrides.
fn user_kernel_names(files: &[PathBuf]) -> Result<Vec<String>, i32> {
    let mut names = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f)
            .map_err(|e| fail_usage(format!("cannot read kernels `{}`: {e}", f.display())))?;
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let at = offset;
            offset += line.len();
            let l = line.trim_start();
            let Some(rest) = l.strip_prefix("void ") else {
                continue;
            };
            let Some(open) = rest.find('(') else { continue };
            let name = rest[..open].trim();
            let args = rest[open + 1..].trim_start();
            if !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && args.starts_with("const ssc_call")
                && !names.iter().any(|n| n == name)
            {
                if crate::ir::builtins::BUILTINS.contains(&name) {
                    let start = at
                        + (line.len() - l.len())
                        + "void ".len()
                        + (rest.len() - rest.trim_start().len());
                    let file = SourceFile::new(f.display().to_string(), text.clone());
                    let d = crate::diagnostics::Diagnostic::error(
                        "E302",
                        format!("`{name}` is a built-in: a kernel of that name would be defined twice"),
                    )
                    .label(crate::ir::Span::new(start, start + name.len()), "defined here")
                    .hint(format!(
                        "give your kernel a variant's name, e.g. `{name}_mine`, and bind that in the description: a `--kernels` definition of a variant takes its place"
                    ));
                    super::diag::emit(&[d], &file);
                    return Err(exit::INPUT);
                }
                names.push(name.to_string());
            }
        }
    }
    Ok(names)
}

/// `ssc run`: builds, then runs the executable with `program_args` (and
/// `--json` when given to `ssc run` for a program, not for `-t info`),
/// streaming its report. SIGINT and SIGTERM sent to ssc alone reach the
/// program too (a terminal's ^C reaches both at once and is not sent
/// again): ssc waits for it and ends as it did.
pub fn run(a: &BuildArgs, program_args: &[String]) -> i32 {
    let built = match build(a) {
        Ok(b) => b,
        Err(code) => return code,
    };
    let Some(exe) = built.executable else {
        return exit::OK;
    };
    let exe = std::path::absolute(&exe).unwrap_or(exe);
    let mut args = program_args.to_vec();
    if a.json && !args.iter().any(|x| x == "--json") {
        args.push("--json".to_string());
    }
    // Handlers first: a signal between the start of the program and
    // theirs is forwarded too.
    let forwarded = forward::Forward::start();
    let child = match std::process::Command::new(&exe).args(&args).spawn() {
        Ok(child) => child,
        Err(e) => {
            forwarded.stop();
            eprintln!("error: cannot run `{}`: {e}", exe.display());
            return exit::EXTERNAL;
        }
    };
    forwarded.child(child.id());
    let status = wait(child);
    let signal = forwarded.stop();
    match status {
        Ok(status) if signal.is_some() => {
            // Stopped on our signal: end as the program did.
            use std::os::unix::process::ExitStatusExt;
            match (status.code(), status.signal()) {
                (Some(code), _) => code,
                (None, Some(sig)) => forward::die_of(sig),
                (None, None) => exit::EXTERNAL,
            }
        }
        Ok(status) if status.success() => exit::OK,
        Ok(status) => {
            eprintln!("error: `{}` exited with {status}", exe.display());
            if status.code() == Some(2) {
                exit::USAGE
            } else {
                exit::EXTERNAL
            }
        }
        Err(e) => {
            eprintln!("error: waiting for `{}`: {e}", exe.display());
            exit::EXTERNAL
        }
    }
}

/// Waits for the child, through the interruptions of forwarded signals.
fn wait(mut child: std::process::Child) -> std::io::Result<std::process::ExitStatus> {
    loop {
        match child.wait() {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// Forwarding SIGINT and SIGTERM to the program `ssc run` runs.
mod forward {
    use std::sync::atomic::{AtomicI32, Ordering};

    /// The program's pid while it runs, else 0.
    static CHILD: AtomicI32 = AtomicI32::new(0);
    /// The last signal forwarded, else 0.
    static GOT: AtomicI32 = AtomicI32::new(0);

    extern "C" fn on_signal(sig: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        GOT.store(sig, Ordering::SeqCst);
        let pid = CHILD.load(Ordering::SeqCst);
        // A terminal's ^C (sent by the kernel, SI_KERNEL) goes to the whole
        // foreground process group, the program included: sent again, it
        // would be the program's second SIGINT, which ends it without its
        // report (its handler is SA_RESETHAND).
        // SAFETY: the kernel passes a valid siginfo_t with SA_SIGINFO.
        let from_terminal = !info.is_null() && unsafe { (*info).si_code } == libc::SI_KERNEL;
        if pid > 0 && !from_terminal {
            // SAFETY: kill is async-signal-safe.
            unsafe { libc::kill(pid, sig) };
        }
    }

    /// The handlers installed while the program runs, and the ones they replaced.
    pub struct Forward {
        old: Vec<(libc::c_int, libc::sigaction)>,
    }

    impl Forward {
        pub fn start() -> Forward {
            CHILD.store(0, Ordering::SeqCst);
            GOT.store(0, Ordering::SeqCst);
            let mut old = Vec::new();
            for sig in [libc::SIGINT, libc::SIGTERM] {
                // SAFETY: plain sigaction calls on zeroed, then filled, structs;
                // the handler only touches atomics and calls kill.
                unsafe {
                    let mut sa: libc::sigaction = std::mem::zeroed();
                    sa.sa_sigaction = on_signal as *const () as libc::sighandler_t;
                    sa.sa_flags = libc::SA_RESTART | libc::SA_SIGINFO;
                    libc::sigemptyset(&mut sa.sa_mask);
                    let mut prev: libc::sigaction = std::mem::zeroed();
                    if libc::sigaction(sig, &sa, &mut prev) == 0 {
                        old.push((sig, prev));
                    }
                }
            }
            Forward { old }
        }

        /// The program started: signals go to it from now on, and one
        /// that came before goes now (a terminal's too: the program did
        /// not exist to receive it).
        pub fn child(&self, pid: u32) {
            CHILD.store(pid as i32, Ordering::SeqCst);
            let sig = GOT.load(Ordering::SeqCst);
            if sig != 0 {
                // SAFETY: a signal to our own child.
                unsafe { libc::kill(pid as i32, sig) };
            }
        }

        /// Restores the handlers; the signal forwarded, if any.
        pub fn stop(self) -> Option<i32> {
            CHILD.store(0, Ordering::SeqCst);
            for (sig, prev) in &self.old {
                // SAFETY: restores what `start` saved.
                unsafe { libc::sigaction(*sig, prev, std::ptr::null_mut()) };
            }
            match GOT.load(Ordering::SeqCst) {
                0 => None,
                sig => Some(sig),
            }
        }
    }

    /// Ends ssc by `sig`, as the program ended (a shell sees the same
    /// status); 128 + sig when the signal does not end it.
    pub fn die_of(sig: i32) -> i32 {
        // SAFETY: the default action, then the signal to ourselves.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
        128 + sig
    }
}

/// `-pr` / `-sl F`: the dataflow analysis of the runtime HSDFG.
fn analysis(a: &BuildArgs, c: &Compiled) -> Result<(), i32> {
    let report = crate::analysis::analyse(c).map_err(|d| {
        eprintln!("error: {d}");
        exit::EXTERNAL
    })?;
    let text = crate::analysis::text(&report);
    if a.sdf_runtime {
        print!("{text}");
    }
    if let Some(path) = &a.sdf_log {
        write(path, &text)?;
    }
    Ok(())
}

fn wcet_options(a: &BuildArgs, name: &str) -> Result<back::wcet::WcetOptions, i32> {
    Ok(back::wcet::WcetOptions {
        name: name.to_string(),
        runs: a.wcet_runs.unwrap_or(100),
        warmup: 10,
        percentile: a.wcet_percentile.unwrap_or(99.0),
        user_kernels: user_kernel_names(&a.kernels)?,
    })
}

/// Writes and compiles the `-t wcet` harness of a description into `dir`.
fn compile_harness(
    a: &BuildArgs,
    desc: &crate::ir::Description,
    opts: &pipeline::Options,
    name: &str,
    file: &SourceFile,
    dir: &Path,
    exe: &Path,
) -> Result<(), i32> {
    let (_, h) = lower_or_report(crate::lower::lower_to_hsdfg(desc, &opts.lower), file)?;
    let wopts = wcet_options(a, name)?;
    kernels_or_report(&h, desc, &wopts.user_kernels, file)?;
    let program = back::wcet::emit(&h, &wopts).map_err(|d| {
        super::diag::emit(&d, file);
        exit::INPUT
    })?;
    back::c::write_files(&program, &a.kernels, dir, a.portable).map_err(|e| {
        eprintln!("error: {e}");
        exit::EXTERNAL
    })?;
    back::c::compile(&program, &a.kernels, dir, exe, a.portable).map_err(|e| {
        eprintln!("error: {e}");
        exit::EXTERNAL
    })
}

/// `-t wcet`: the harness, built into `<outputdir>/<name>_wcet` (or `-o`).
fn wcet_harness(
    a: &BuildArgs,
    desc: &crate::ir::Description,
    opts: &pipeline::Options,
    name: &str,
    file: &SourceFile,
) -> Result<PathBuf, i32> {
    let hname = format!("{name}_wcet");
    let dir = output_dir(a, name);
    let exe = a.output.clone().unwrap_or_else(|| dir.join(&hname));
    compile_harness(a, desc, opts, &hname, file, &dir, &exe)?;
    eprintln!("built the timing harness {}", exe.display());
    Ok(exe)
}

/// `-gw`: builds and runs the harness, and gives the description with the
/// measured table in its runtime section (entries for functions it does not
/// measure are kept). Profiles go to `<outputdir>/etp/F.json`.
fn measure(
    a: &BuildArgs,
    desc: &crate::ir::Description,
    opts: &pipeline::Options,
    name: &str,
    file: &SourceFile,
) -> Result<crate::ir::Description, i32> {
    let hname = format!("{name}_wcet");
    let dir = output_dir(a, name).join("wcet");
    let exe = std::path::absolute(dir.join(&hname)).unwrap_or_else(|_| dir.join(&hname));
    compile_harness(a, desc, opts, &hname, file, &dir, &exe)?;
    let etp = output_dir(a, name).join("etp");
    let out = std::process::Command::new(&exe)
        .arg("--json")
        .arg("--etp-dir")
        .arg(&etp)
        .output()
        .map_err(|e| {
            eprintln!("error: cannot run `{}`: {e}", exe.display());
            exit::EXTERNAL
        })?;
    if !out.status.success() {
        eprintln!(
            "error: the timing harness `{}` failed ({}): {}",
            exe.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        return Err(exit::EXTERNAL);
    }
    let report = back::wcet::parse_report(&String::from_utf8_lossy(&out.stdout)).map_err(|e| {
        eprintln!("error: {e}");
        exit::EXTERNAL
    })?;
    if a.verbose {
        eprintln!(
            "-gw: measured p{} of {} runs per function instance: {}",
            report.percentile,
            report.runs,
            report
                .profiles
                .iter()
                .map(|p| format!("{} ({}) {}", p.function, p.c_function, p.percentile))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(back::wcet::with_timing(desc, &back::wcet::entries(&report)))
}

/// The compiled description of a build's arguments (for `ssc bench`'s
/// analysis and Gantt chart), with diagnostics printed.
pub(super) fn compiled(
    a: &BuildArgs,
    replacement: Option<&crate::ir::Description>,
) -> Result<Compiled, i32> {
    let (file, mut desc) = super::commands::load(&a.file)?;
    if let Some(r) = replacement {
        desc = r.clone();
    }
    let config = Config::resolve(a);
    let opts = options_of(a, &config);
    lower_or_report(pipeline::compile(&desc, &opts), &file)
}

/// `-gw` on its own: the description with the measured table (for `ssc bench`).
pub(super) fn measured_description(a: &BuildArgs) -> Result<crate::ir::Description, i32> {
    let (file, desc) = super::commands::load(&a.file)?;
    if super::commands::report(&crate::front::check(&desc), &file) {
        return Err(exit::INPUT);
    }
    let config = Config::resolve(a);
    let opts = options_of(a, &config);
    measure(a, &desc, &opts, &program_name(&a.file), &file)
}
