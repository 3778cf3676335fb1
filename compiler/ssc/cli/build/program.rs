//! The C program or library of a compiled description (`-t linux`,
//! `-t library`): the kernels checked (E301, E302) before any file is
//! written, the files written and compiled, the summary line.

use super::super::args::{BuildArgs, DynamicMemory, Target, TimerDump};
use super::super::config::Config;
use super::super::{diag, exit};
use super::{fail_usage, output_dir, write, Progress};
use ssc::back;
use ssc::diagnostics::SourceFile;
use ssc::pipeline::Compiled;
use ssc::schedule::SchedulerKind;
use std::path::{Path, PathBuf};

/// E301 before any file is written or `cc` runs, labelled where the
/// description binds the C function (`container_bind` or `function`).
pub(super) fn kernels_or_report(
    h: &ssc::ir::hsdfg::Hsdfg,
    desc: &ssc::ir::Description,
    user_kernels: &[String],
    file: &SourceFile,
) -> Result<(), i32> {
    let Some((function, mut d)) = back::c::unimplemented(h, user_kernels) else {
        return Ok(());
    };
    if let Some(span) = desc.binding_of(function) {
        d = d.label(span, "bound here");
    }
    diag::emit(&[d], file);
    Err(exit::INPUT)
}

/// The C program (`-t linux`) or library (`-t library`) of a compiled
/// description, written into the program directory and compiled; `argv`
/// is ssc's command line as given, recorded in the program.
pub(super) fn linux(
    a: &BuildArgs,
    argv: &[String],
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
        options: argv.iter().skip(1).cloned().collect::<Vec<_>>().join(" "),
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
        check_kernels: a.check_kernels,
        float: a.float_rules(),
    };
    kernels_or_report(&c.hsdfg, &c.description, &opts.user_kernels, file)?;
    let program = back::c::emit(&c.hsdfg, &c.runtime, &opts).map_err(|d| {
        diag::emit(&d, file);
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
    eprintln!(
        "{}",
        summary(&exe, c, &config.threads, a.auto_choice.as_ref())
    );
    Ok(exe)
}

/// The line a successful build ends with: what was built and where, its
/// sub-boxes and threads, memory against the lower bound, what was proven.
fn summary(
    exe: &Path,
    c: &Compiled,
    scheduler: &SchedulerKind,
    auto: Option<&super::AutoChoice>,
) -> String {
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let threads = c.runtime.thread_executions.len();
    let how = if let Some(s) = &c.schedule {
        match (scheduler, s.kind) {
            // -ts fused on frames that fit the cache (E140): what ran.
            (SchedulerKind::Fused(_), ran) if !matches!(ran, SchedulerKind::Fused(_)) => {
                format!("-ts {ran}, box-at-a-time for -ts {scheduler}")
            }
            _ => match auto {
                Some(choice) => format!("{}, {}", choice.flags, choice.reason()),
                None => format!("-ts {}", scheduler.to_string().trim()),
            },
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
        "built lib{name}.a, lib{name}.so, {name}.h, {name}.py, {name}.pyi and {name}.pc in {}",
        dir.display()
    );
    Ok(dir.join(format!("lib{name}.so")))
}

/// The kernels `--kernels` files define (`void NAME(const ssc_call …`).
/// A built-in's own name is E302, before any file is written or `cc` runs
/// (the runtime defines it too, and the linker would refuse both): a
/// kernel of one's own takes a variant's name (`func_sink_mine`), which a
/// `--kernels` definition overrides.
pub(crate) fn user_kernel_names(files: &[PathBuf]) -> Result<Vec<String>, i32> {
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
                if ssc::ir::builtins::BUILTINS.contains(&name) {
                    let start = at
                        + (line.len() - l.len())
                        + "void ".len()
                        + (rest.len() - rest.trim_start().len());
                    let file = SourceFile::new(f.display().to_string(), text.clone());
                    let d = ssc::diagnostics::Diagnostic::error(
                        "E302",
                        format!("`{name}` is a built-in: a kernel of that name would be defined twice"),
                    )
                    .label(ssc::ir::Span::new(start, start + name.len()), "defined here")
                    .hint(format!(
                        "give your kernel a variant's name, e.g. `{name}_mine`, and bind that in the description: a `--kernels` definition of a variant takes its place"
                    ));
                    diag::emit(&[d], &file);
                    return Err(exit::INPUT);
                }
                names.push(name.to_string());
            }
        }
    }
    Ok(names)
}
