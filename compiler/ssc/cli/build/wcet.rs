//! The `-t wcet` timing harness of a description ([`harness`]) and `-gw`'s
//! measured timing table ([`measure`], and [`measured_description`] for
//! `ssc bench`).

use super::super::args::BuildArgs;
use super::super::config::Config;
use super::super::{diag, exit};
use super::options::options_of;
use super::program::{kernels_or_report, user_kernel_names};
use super::{lower_or_report, output_dir, program_name};
use ssc::back;
use ssc::diagnostics::SourceFile;
use ssc::pipeline;
use std::path::{Path, PathBuf};

fn wcet_options(a: &BuildArgs, name: &str) -> Result<back::wcet::WcetOptions, i32> {
    Ok(back::wcet::WcetOptions {
        name: name.to_string(),
        runs: a.wcet_runs.unwrap_or(100),
        warmup: 10,
        percentile: a.wcet_percentile.unwrap_or(99.0),
        user_kernels: user_kernel_names(&a.kernels)?,
        float: a.float_rules(),
    })
}

/// Writes and compiles the `-t wcet` harness of a description into `dir`.
fn compile_harness(
    a: &BuildArgs,
    desc: &ssc::ir::Description,
    opts: &pipeline::Options,
    name: &str,
    file: &SourceFile,
    dir: &Path,
    exe: &Path,
) -> Result<(), i32> {
    let (_, h) = lower_or_report(ssc::lower::lower_to_hsdfg(desc, &opts.lower), file)?;
    let wopts = wcet_options(a, name)?;
    kernels_or_report(&h, desc, &wopts.user_kernels, file)?;
    let program = back::wcet::emit(&h, &wopts).map_err(|d| {
        diag::emit(&d, file);
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
pub(super) fn harness(
    a: &BuildArgs,
    desc: &ssc::ir::Description,
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
pub(super) fn measure(
    a: &BuildArgs,
    desc: &ssc::ir::Description,
    opts: &pipeline::Options,
    name: &str,
    file: &SourceFile,
) -> Result<ssc::ir::Description, i32> {
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

/// `-gw` on its own: the description with the measured table (for `ssc bench`).
pub(in crate::cli) fn measured_description(a: &BuildArgs) -> Result<ssc::ir::Description, i32> {
    let (file, desc) = super::super::source::load_expanded(&a.file, &a.defines)?;
    let kernels = user_kernel_names(&a.kernels)?;
    let diags = ssc::front::check::check_with_kernels(&desc, &kernels);
    if super::super::source::report(&diags, &file) {
        return Err(exit::INPUT);
    }
    let opts = options_of(a, &Config::resolve(a), &kernels);
    measure(a, &desc, &opts, &program_name(&a.file), &file)
}
