//! `ssc bench`'s command line: its arguments into [`crate::bench`]'s
//! options, `ssc build`'s own code as its builder, and its errors as exit
//! codes (docs/commands.md).

use super::args::{BenchArgs, BuildArgs};
use super::config::online_cpus;
use super::exit;
use crate::bench::{self, Build, Builder, Error};
use ssc::ir::Description;
use ssc::pipeline::Compiled;
use std::path::{Path, PathBuf};

/// `ssc bench`.
pub(crate) fn bench(a: &BenchArgs, argv: &[String]) -> i32 {
    let options = match bench::Options::parse(
        a.files.clone(),
        &a.configs,
        &a.memory,
        a.iterations,
        a.repeat,
        a.out.clone(),
        online_cpus(),
    ) {
        Ok(o) => o,
        Err(e) => return usage(&e),
    };
    // Every configuration builds the same file: a warning about it (E140
    // for each fused build) is said once.
    super::diag::once();
    match bench::run(
        &options,
        &Cli {
            argv,
            kernels: &a.kernels,
        },
    ) {
        Ok(()) => exit::OK,
        Err(Error::Usage(e)) => usage(&e),
        Err(Error::Run(e)) => {
            eprintln!("error: {e}");
            exit::EXTERNAL
        }
        Err(Error::Build(code)) => code,
    }
}

fn usage(e: &bench::UsageError) -> i32 {
    eprintln!("error: {e}");
    exit::USAGE
}

/// `ssc build`, as `ssc bench` measures and builds.
struct Cli<'a> {
    /// ssc's command line, recorded in every program.
    argv: &'a [String],
    /// `--kernels`, given to every measurement and build.
    kernels: &'a [PathBuf],
}

impl Builder for Cli<'_> {
    /// The exit code.
    type Error = i32;

    fn measure(&self, file: &Path, dir: &Path) -> Result<Description, i32> {
        let args = BuildArgs {
            file: file.to_path_buf(),
            output_dir: Some(dir.to_path_buf()),
            wcet_runs: Some(30),
            wcet_percentile: Some(50.0),
            kernels: self.kernels.to_vec(),
            ..BuildArgs::default()
        };
        super::build::measured_description(&args)
    }

    fn build(&self, b: &Build<'_>) -> Result<(PathBuf, Option<Compiled>), i32> {
        let args = BuildArgs {
            file: b.file.to_path_buf(),
            thread_schedule: Some(super::args::ThreadSchedule::Kind(b.scheduler)),
            memory_schedule: Some(b.memory),
            output_dir: Some(b.dir.clone()),
            iteration_count: Some(b.iterations),
            kernels: self.kernels.to_vec(),
            ..BuildArgs::default()
        };
        let built = super::build::build_with(&args, Some(b.description), self.argv)?;
        Ok((built.executable.unwrap_or_default(), built.compiled))
    }
}
