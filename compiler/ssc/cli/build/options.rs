//! `ssc build`'s options resolved ([`resolve`]: the defaults, the
//! refusals) and turned into the pipeline's ([`options_of`]).

use super::super::args::{BuildArgs, Target};
use super::super::config::Config;
use super::fail_usage;
use ssc::diagnostics::SourceFile;
use ssc::ir::Pair;
use ssc::lower::split::{self, SplitOptions};
use ssc::lower::LowerOptions;
use ssc::pipeline;
use ssc::schedule::{ScheduleOptions, SchedulerKind};
use ssc::sync::SyncOptions;

/// The options of a build with every default applied: E504 and `-v`'s
/// notes said, the refusals (`--strip-rows` without fused, `-t helix`) a
/// usage error.
pub(super) fn resolve(a: &BuildArgs, file: &SourceFile) -> Result<Config, i32> {
    let config = Config::resolve(a);
    report_cost_model(a, file);
    if (a.strip_rows.is_some() || a.cache_bytes.is_some())
        && !matches!(config.threads, SchedulerKind::Fused(_))
    {
        return Err(fail_usage(
            "--strip-rows and --cache-bytes size the strips of -ts fused; add -ts fused N",
        ));
    }
    if a.max_subboxes.is_some() && !matches!(config.threads, SchedulerKind::Fused(_)) {
        return Err(fail_usage(
            "--max-subboxes bounds the strips of -ts fused; add -ts fused N",
        ));
    }
    if a.verbose {
        for d in &config.defaults {
            eprintln!("default: {d}");
        }
    }
    match refuse_target(&config).or_else(|| refuse_contradictions(a, &config)) {
        Some(code) => Err(code),
        None => Ok(config),
    }
}

/// Options that contradict each other: a usage error (exit 2) that names
/// both, before anything is compiled, whatever the description.
fn refuse_contradictions(a: &BuildArgs, c: &Config) -> Option<i32> {
    if c.target != Target::Library {
        return None;
    }
    if let Some(dm) = a.dynamic_memory {
        let dm = match dm {
            super::super::args::DynamicMemory::Dynamic => "dynamic",
            super::super::args::DynamicMemory::Reduced => "reduced",
        };
        return Some(fail_usage(format!(
            "contradictory options: -t library and -dm {dm}: the library keeps its buffers placed for the life of the chain, -dm allocates them per iteration; drop -dm (and place the buffers with -ms)",
        )));
    }
    if a.output.is_some() {
        return Some(fail_usage(
            "contradictory options: -t library and -o: -o names the executable, a library has none and writes its files into the program directory; give that with -od DIR",
        ));
    }
    None
}

/// The pipeline's options; `own_kernels` are the functions `--kernels`
/// implements (`program::user_kernel_names`).
pub(super) fn options_of(a: &BuildArgs, c: &Config, own_kernels: &[String]) -> pipeline::Options {
    let split = SplitOptions {
        dp: c.data_parallelism,
        max_parts: c.max_parts,
        precise: a.precise_data_parallelism,
        coarse: a.coarse_dependencies,
        weighted: c.weighted,
        strips: matches!(c.threads, SchedulerKind::Fused(_)).then(|| split::Strips {
            cache_bytes: a
                .cache_bytes
                .unwrap_or_else(split::Strips::default_cache_bytes),
            rows: a.strip_rows,
            forced: a.strip_rows.is_some() || a.cache_bytes.is_some(),
            max_subboxes: a.max_subboxes.unwrap_or(split::MAX_SUBBOXES),
        }),
    };
    let (scheduler, memory) = (c.threads, c.memory);
    pipeline::Options {
        lower: LowerOptions {
            resolution_override: a.compose_resolution.map(|(w, h)| Pair::new(w, h)),
            split,
            cost: Some(cost_model().coefficients),
            inline: a.inline,
            contract: a.contract,
            own_kernels: own_kernels.to_vec(),
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
pub(super) fn cost_model() -> &'static crate::calibrate::Loaded {
    static LOADED: std::sync::OnceLock<crate::calibrate::Loaded> = std::sync::OnceLock::new();
    LOADED.get_or_init(crate::calibrate::load)
}

/// E504 (once per process) when a calibration cache exists but cannot be
/// trusted; which coefficients the cost model uses, under `-v`, and
/// without it when there is no calibration and the build predicts (`-pr`,
/// or the schedule `-ts auto` chose). (`-ts auto` resolves the options of
/// every candidate quietly first: the note is said once, by the first
/// build that asks for `-v` or predicts.)
fn report_cost_model(a: &BuildArgs, file: &SourceFile) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static WARNED: AtomicBool = AtomicBool::new(false);
    static NOTED: AtomicBool = AtomicBool::new(false);
    let model = cost_model();
    if !WARNED.swap(true, Ordering::SeqCst) {
        if let Some(why) = &model.ignored {
            let d = ssc::diagnostics::Diagnostic::warning("E504", why.clone()).hint(
                "the cost model uses the shipped defaults; `ssc calibrate` measures this machine again and replaces the file",
            );
            super::super::diag::emit(&[d], file);
        }
    }
    // Without -v, said only when no calibration exists and the build
    // predicts (-ts auto's choice, -pr): what a user of a new machine
    // should know before trusting either.
    // (A description that schedules itself is built as written: no
    // choice, nothing predicted.)
    let predicts = a.sdf_runtime || a.auto_choice.is_some();
    let uncalibrated = model.from.is_none() && model.ignored.is_none();
    if (a.verbose || (uncalibrated && predicts)) && !NOTED.swap(true, Ordering::SeqCst) {
        if a.verbose {
            eprintln!("{}", model.note());
        } else {
            eprintln!("note: {}", model.note());
        }
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
