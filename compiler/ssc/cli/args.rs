//! The command line (docs/commands.md): clap definitions of every command and
//! option, in the thesis' groups, with the thesis' one-dash spellings.
//!
//! The thesis writes options with one dash and several letters (`-ts
//! reduced 4`); clap only knows one-letter short options, so [`normalise`]
//! rewrites each known thesis spelling to its `--` alias before clap sees
//! the command line. Both spellings are documented in `--help`.
//!
//! `-ts KIND N` takes N only for the kinds that count threads
//! (`SchedulerKind::counted`) and only when it is a number; `-ts fixed`
//! without N uses the online CPUs.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use ssc::lower::split::DataParallelism;
use ssc::memory::MemoryKind;
use ssc::schedule::SchedulerKind;
use std::path::PathBuf;

/// ssc, the Simple Streaming Compiler: a static image processing chain →
/// a multithreaded C program with low, reproducible latency.
#[derive(Debug, Parser)]
#[command(name = "ssc", version, about, long_about = None)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Diagnostics as text, or JSON lines on stderr (docs/diagnostics.md).
    #[arg(long, global = true, value_enum, value_name = "FMT", default_value_t = super::diag::MessageFormat::Human)]
    pub message_format: super::diag::MessageFormat,
    /// Colour diagnostics (auto: on a terminal without NO_COLOR).
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = super::diag::ColorChoice::Auto)]
    pub color: super::diag::ColorChoice,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Lower, check, emit and compile a description (the thesis' `scc [OPTIONS] file`).
    Build(BuildArgs),
    /// Parse and validate every section present; prove a runtime section deadlock- and race-free.
    Check(CheckArgs),
    /// Print the normal form of a description (same as `-ni`).
    Fmt(FmtArgs),
    /// Build, run the executable, print its latency report.
    Run(RunArgs),
    /// Generate a synthetic chain like the thesis' generator.
    Generate(GenerateArgs),
    /// Run every scheduler × memory schedule on each file and tabulate latencies.
    Bench(BenchArgs),
    /// Duty-cycle best-effort work on cores whose measured bandwidth exceeds a threshold.
    Throttle(super::throttle::ThrottleArgs),
    /// Exact end-to-end latency distribution of a time-triggered chain (`.ptts`, docs/ptts.md).
    Ptts(super::ptts::PttsArgs),
    /// Measure this machine's cost-model coefficients (4–25 s) and cache them per CPU model.
    Calibrate(CalibrateArgs),
    /// Measure a chain's schedules on this machine and keep the fastest in FILE.tune (`ssc build` uses it).
    Tune(TuneArgs),
    /// Is this machine ready for a real-time chain? Isolation, frequency, RT limits, IRQs, a timer-latency probe.
    Doctor(DoctorArgs),
    /// Explain a diagnostic code: `ssc explain E108` (as `rustc --explain`).
    Explain(ExplainArgs),
    /// Print a shell completion script: `ssc completions bash > /etc/bash_completion.d/ssc`.
    Completions(CompletionsArgs),
    /// Print the man page `ssc.1`, or write one page per command into a directory.
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// A chain: check the cores its build runs on (its threads, on the
    /// first cores of `-cm`, or of 0, 1, … without it).
    pub file: Option<PathBuf>,
    /// [-cm] The cores to check (default: those this process may use), or
    /// with FILE, the mask the chain is built with.
    #[arg(long = "coremask", value_name = "CORE,…", value_parser = parse_cores)]
    pub core_mask: Option<CoreMask>,
    /// Read /proc and /sys under DIR instead of / (a copy of another
    /// machine's, or a test's): the kernel's answers (the SCHED_FIFO try)
    /// and the timer probe are still this machine's.
    #[arg(long, value_name = "DIR", default_value = "/")]
    pub root: PathBuf,
    /// Absolute sleeps the timer probe takes on each core (0: no probe).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub samples: u64,
    /// The probe's period: each sleep ends this long after the last one's end.
    #[arg(long = "period-us", default_value_t = 250, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub period_us: u64,
    /// The findings and the probe's percentiles as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// With FILE: `ssc build`'s flags, after `--` (`-- -ts fused 2`), which
    /// say how many threads it has.
    #[arg(last = true, value_name = "BUILD FLAGS")]
    pub build: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct TuneArgs {
    /// The description.
    pub file: PathBuf,
    /// How long the measuring may take, after the builds: `60s`, `2m`, `90`
    /// (seconds). One round always runs; at most five.
    #[arg(long, default_value = "60s", value_parser = parse_budget)]
    pub budget: f64,
    /// Frames each candidate runs in a round.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..))]
    pub iterations: u64,
    /// A frame to run on, as the program takes it (`raw=frames/`); the
    /// sources' test pattern without.
    #[arg(long = "input", value_name = "NAME=PATH")]
    pub inputs: Vec<String>,
    /// Where to write the tune file (default: FILE.tune, beside FILE).
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// `ssc build`'s other flags, after `--` (`-- -D W=1760 --contract`);
    /// not `-ts`, `--strip-rows` or `--inline`, which tune chooses.
    #[arg(last = true, value_name = "BUILD FLAGS")]
    pub build: Vec<String>,
}

/// A duration in seconds: `60`, `60s`, `2m`.
fn parse_budget(s: &str) -> Result<f64, String> {
    let (n, unit) = match s.strip_suffix('m') {
        Some(n) => (n, 60.0),
        None => (s.strip_suffix('s').unwrap_or(s), 1.0),
    };
    match n.parse::<f64>() {
        Ok(v) if v > 0.0 && v.is_finite() => Ok(v * unit),
        _ => Err(format!("`{s}`: a duration such as 60s or 2m")),
    }
}

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Write `ssc.1` and `ssc-COMMAND.1` for every command into DIR instead
    /// of printing `ssc.1`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct CalibrateArgs {
    /// Measure nothing: print the coefficients `ssc build` uses now (the
    /// cached calibration of this CPU, or the shipped defaults) and where
    /// they come from.
    #[arg(long)]
    pub show: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
    /// The code, as in `error[E108]` (`E108`, `e108` or `108`).
    #[arg(required_unless_present = "list")]
    pub code: Option<String>,
    /// Every code, one line each: the code and the first clause of its kind.
    #[arg(long, conflicts_with = "code")]
    pub list: bool,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The description (`-` for standard input).
    pub file: PathBuf,
    /// Kernels of your own: a C file defining functions the description
    /// binds (as `ssc build --kernels`); any other function that is not a
    /// built-in or defined in the description is an error (E038).
    #[arg(long = "kernels", value_name = "FILE.c")]
    pub kernels: Vec<PathBuf>,
    /// Set a chain's parameter (`param W = 1024;`) for this run, as
    /// `ssc build -D` does.
    #[arg(short = 'D', long = "define", value_name = "NAME=VALUE")]
    pub defines: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct FmtArgs {
    /// The description (`-` for standard input).
    pub file: PathBuf,
    /// Print nothing but a unified diff when the file is not in normal
    /// form, and exit 1; exit 0 when it is.
    #[arg(long, conflicts_with = "write")]
    pub check: bool,
    /// Write the normal form back to the file instead of printing it.
    #[arg(long)]
    pub write: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub build: BuildArgs,
    /// Arguments for the executable, after `--` (`--iterations N`, `--forever`,
    /// `--period-us P`, …; the program's `--help` lists them).
    #[arg(last = true)]
    pub program_args: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct GenerateArgs {
    /// About how many boxes: at least 3 × sources + sinks + 5 (13 with the
    /// defaults), so one box or more processes between sources and sinks.
    #[arg(long, default_value_t = 100, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    pub boxes: usize,
    /// Source boxes.
    #[arg(long, default_value_t = 2, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
    pub sources: usize,
    /// Sink boxes.
    #[arg(long, default_value_t = 2, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
    pub sinks: usize,
    /// The seed: the same seed gives the same chain.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Full resolution of the chain [default: 256,256].
    #[arg(long, value_parser = parse_pair, value_name = "W,H")]
    pub resolution: Option<(u64, u64)>,
}

#[derive(Debug, Args)]
pub(crate) struct BenchArgs {
    /// The descriptions to benchmark.
    pub files: Vec<PathBuf>,
    /// Thread schedules, comma-separated (from the schedule stage's kinds).
    #[arg(long, value_delimiter = ',', value_name = "KIND[N],…", help = bench_configs_help())]
    pub configs: Vec<String>,
    /// Memory schedules, comma-separated (from the memory stage's kinds).
    #[arg(long, value_delimiter = ',', value_name = "KIND,…", help = bench_memory_help())]
    pub memory: Vec<String>,
    /// Iterations of each executable per run (at least 2) [default: 1000].
    #[arg(long, value_name = "N")]
    pub iterations: Option<u64>,
    /// Rounds: each runs every configuration of every file once, interleaved
    /// [default: 3].
    #[arg(long, value_name = "R")]
    pub repeat: Option<u64>,
    /// Where the builds, dumps, `bench.json` and the figures go [default: build/bench].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Kernels of one's own, for every file (as `ssc build --kernels`).
    #[arg(long = "kernels", value_name = "FILE.c")]
    pub kernels: Vec<PathBuf>,
}

/// `-dm`: run-time memory allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum DynamicMemory {
    Dynamic,
    Reduced,
}

/// `-t`: target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Target {
    Linux,
    /// The chain as a C library (header, static and shared library,
    /// pkg-config file) and a Python module.
    Library,
    Interpreter,
    Info,
    Wcet,
    Helix,
}

/// `-td`: timer dump format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum TimerDump {
    Csv,
    Json,
    Binary,
}

/// Every option of `ssc build` (docs/commands.md), in the thesis' groups.
#[derive(Clone, Debug, Args, Default)]
pub(crate) struct BuildArgs {
    /// The description (`-` for standard input).
    pub file: PathBuf,

    // ------------------------------------------------------------ COMPOSITION
    /// Set a chain's parameter (`param W = 1024;`) for this build; may be
    /// given several times (`-D W=1760 -D H=1760`).
    #[arg(
        short = 'D',
        long = "define",
        value_name = "NAME=VALUE",
        help_heading = "Composition"
    )]
    pub defines: Vec<String>,
    /// [-gd] Stop after generating the declaration, print it.
    #[arg(long = "generatedeclaration", help_heading = "Composition")]
    pub generate_declaration: bool,
    /// [-gw] Measure each function instance's execution-time profile and use it as the timing table (per-instance entries).
    #[arg(long = "generatewcet", help_heading = "Composition")]
    pub generate_wcet: bool,
    /// [-cr] Override the composed resolution.
    #[arg(long = "composeresolution", value_name = "W,H", value_parser = parse_pair, help_heading = "Composition")]
    pub compose_resolution: Option<(u64, u64)>,

    // ------------------------------------------------------------ DECLARATION
    /// [-dp] Data parallelism [default: full].
    #[arg(long = "dataparallelism", value_parser = kind::<DataParallelism>(DataParallelism::keywords()), help_heading = "Declaration")]
    pub data_parallelism: Option<DataParallelism>,
    /// [-mdp] The most sub-boxes per function [default: the thread count].
    #[arg(long = "maxdataparallelism", value_name = "N", value_parser = parse_positive, help_heading = "Declaration")]
    pub max_data_parallelism: Option<u64>,
    /// [-gpp] Precise data parallelism: every sub-box close to one target grain.
    #[arg(
        long = "generateprecisedataparallelism",
        visible_alias = "generatepreciscedataparallelism",
        help_heading = "Declaration"
    )]
    pub precise_data_parallelism: bool,

    // ---------------------------------------------------------- INSTANTIATION
    /// [-ts] Thread schedule (the schedule stage's kinds, `KIND [N]`).
    #[arg(long = "threadschedule", value_name = "KIND [N]", value_parser = ThreadSchedule::parse, help = thread_schedule_help(), help_heading = "Instantiation")]
    pub thread_schedule: Option<ThreadSchedule>,
    /// What `-ts auto` chose and why (set by the build, not a flag).
    #[arg(skip)]
    pub auto_choice: Option<super::build::AutoChoice>,
    /// [-wt] Weight sub-box time by its share of the function [default: true].
    #[arg(long = "weightedtokens", value_name = "BOOL", action = clap::ArgAction::Set, help_heading = "Instantiation")]
    pub weighted_tokens: Option<bool>,
    /// [-ms] Memory schedule (the memory stage's kinds).
    #[arg(
        long = "memoryschedule",
        value_name = "KIND",
        value_parser = kind::<MemoryKind>(MemoryKind::keywords()),
        help = memory_schedule_help(),
        help_heading = "Instantiation"
    )]
    pub memory_schedule: Option<MemoryKind>,
    /// Compile the program for any machine of this architecture (-O2)
    /// instead of this one (-O3 -march=native); $CFLAGS, when set, wins.
    #[arg(long = "portable", help_heading = "Runtime")]
    pub portable: bool,
    /// Strip height of -ts fused, in rows of the tallest function; forces
    /// strips even when every frame fits the cache [default: from --cache-bytes].
    #[arg(long = "strip-rows", value_name = "N", value_parser = parse_positive, help_heading = "Instantiation")]
    pub strip_rows: Option<u64>,
    /// Cache budget of -ts fused: one strip of every buffer, twice, fits in
    /// it (bytes; K, M suffixes); given, it forces strips even when every frame
    /// fits it [default: the per-core L2 from sysfs, else 1M].
    #[arg(long = "cache-bytes", value_name = "BYTES", value_parser = parse_bytes, help_heading = "Instantiation")]
    pub cache_bytes: Option<u64>,
    /// Fuse pointwise defined functions into their neighbours: one loop,
    /// no intermediate buffer, the same outputs (docs/fused.md, "Stage fusion").
    #[arg(long = "inline", help_heading = "Instantiation")]
    pub inline: bool,
    /// Contract a * b + c in defined functions into one rounding (C's fma),
    /// the same in every schedule: faster, outputs within rounding of the
    /// default's, another checksum (docs/language.md, "Contraction").
    #[arg(long = "contract", help_heading = "Instantiation")]
    pub contract: bool,
    /// Divide a floating value by a constant as a multiply by the constant's
    /// rounded reciprocal (what Halide does without strict_float), the same
    /// in every schedule: faster, outputs within an ulp of the default's,
    /// another checksum (docs/language.md, "Reciprocals").
    #[arg(long = "reciprocal", help_heading = "Instantiation")]
    pub reciprocal: bool,
    /// The most sub-boxes the strips of -ts fused may make (the split's limit).
    #[arg(long = "max-subboxes", value_name = "N", value_parser = parse_positive, help = max_subboxes_help(), help_heading = "Instantiation")]
    pub max_subboxes: Option<u64>,
    /// [-te] Emit explicit thread_execution programs and signals (the default).
    #[arg(long = "threadexecution", help_heading = "Instantiation")]
    pub thread_execution: bool,
    /// Leave thread_execution and signal out of the runtime section: whoever
    /// reads it derives them from the thread schedule.
    #[arg(
        long = "no-threadexecution",
        conflicts_with = "thread_execution",
        help_heading = "Instantiation"
    )]
    pub no_thread_execution: bool,
    /// [-cd] Coarse dependencies: every sub-box of a consumer depends on every sub-box of its producer.
    #[arg(
        long = "coarsedependencies",
        visible_alias = "coarsedepencies",
        help_heading = "Instantiation"
    )]
    pub coarse_dependencies: bool,

    // ---------------------------------------------------------------- RUNTIME
    /// [-ab] A barrier at the end of every iteration.
    #[arg(long = "addbarrier", help_heading = "Runtime")]
    pub add_barrier: bool,
    /// [-ai] Each source sub-box of iteration i+1 waits for every sink of iteration i.
    #[arg(long = "additerationsync", help_heading = "Runtime")]
    pub add_iteration_sync: bool,
    /// [-cm] Cores to use.
    #[arg(long = "coremask", value_name = "CORE,…", value_parser = parse_cores, help_heading = "Runtime")]
    pub core_mask: Option<CoreMask>,
    /// [-ca] Pin thread i to core i of the mask [default: on for fixed, predictable, reduced].
    #[arg(long = "coreaffinity", help_heading = "Runtime")]
    pub core_affinity: bool,
    /// [-ks] Keep threads synced.
    #[arg(long = "keepsynced", help_heading = "Runtime")]
    pub keep_synced: bool,
    /// [-ki] With -ks: a barrier every N iterations.
    #[arg(long = "keepsyncedinterval", value_name = "N", value_parser = parse_positive, help_heading = "Runtime")]
    pub keep_synced_interval: Option<u64>,
    /// [-kd] With -ks: no thread runs more than N iterations ahead of the slowest.
    #[arg(long = "keepsynceddelta", value_name = "N", value_parser = parse_positive, help_heading = "Runtime")]
    pub keep_synced_delta: Option<u64>,
    /// [-dm] Buffers allocated at run time: malloc per use, or from a pool.
    #[arg(long = "dynamicmemoryallocation", value_enum, help_heading = "Runtime")]
    pub dynamic_memory: Option<DynamicMemory>,
    /// [-ss] Order each thread's signals by when their receiver needs them.
    #[arg(long = "sortsignals", help_heading = "Runtime")]
    pub sort_signals: bool,
    /// [-st] As -ss, and also order the waits.
    #[arg(long = "sortsignalstwice", help_heading = "Runtime")]
    pub sort_signals_twice: bool,

    // ----------------------------------------------------------------- EXPORT
    /// [-dg] Graphviz DOT of the declaration.
    #[arg(
        long = "declarationgraph",
        value_name = "FILE",
        help_heading = "Export"
    )]
    pub declaration_graph: Option<PathBuf>,
    /// [-ig] Graphviz DOT of the instantiation.
    #[arg(
        long = "instantiationgraph",
        visible_alias = "instantationgraph",
        value_name = "FILE",
        help_heading = "Export"
    )]
    pub instantiation_graph: Option<PathBuf>,
    /// [-rg] Graphviz DOT of the runtime.
    #[arg(long = "runtimegraph", value_name = "FILE", help_heading = "Export")]
    pub runtime_graph: Option<PathBuf>,
    /// [-xr] SDF3 XML of an HSDFG (--xr-graph), to <outputdir>/<name>.sdf3.xml or --xr-output.
    #[arg(long = "xmlsdfruntime", help_heading = "Export")]
    pub xml_sdf_runtime: bool,
    /// Where -xr writes (`-` for standard output).
    #[arg(
        long = "xr-output",
        value_name = "FILE",
        requires = "xml_sdf_runtime",
        help_heading = "Export"
    )]
    pub xml_sdf_output: Option<PathBuf>,
    /// Which HSDFG -xr writes: runtime (what -pr analyses, times in whole ns; the
    /// default, as a build always has programs) or instantiation (sub-box
    /// dependencies, no programs, times in whole µs).
    #[arg(
        long = "xr-graph",
        value_enum,
        value_name = "GRAPH",
        requires = "xml_sdf_runtime",
        help_heading = "Export"
    )]
    pub xr_graph: Option<XrGraph>,
    /// [-gg] GXL for GROOVE of the instantiation HSDFG (sub-box dependencies, no programs), or of the runtime HSDFG with --gg-graph runtime.
    #[arg(long = "groovegraph", value_name = "FILE", help_heading = "Export")]
    pub groove_graph: Option<PathBuf>,
    /// Which HSDFG -gg writes: instantiation (the default: sub-boxes and their dependencies, times in whole µs) or runtime (what -pr analyses: program order, signals, barriers; times in whole ns).
    #[arg(
        long = "gg-graph",
        value_enum,
        value_name = "GRAPH",
        requires = "groove_graph",
        help_heading = "Export"
    )]
    pub gg_graph: Option<XrGraph>,
    /// [-ni] The normalised input.
    #[arg(long = "normalizedinput", value_name = "FILE", help_heading = "Export")]
    pub normalized_input: Option<PathBuf>,

    // --------------------------------------------------------------- CODE GEN
    /// [-ht] Huge pages for the arenas (falls back with a warning).
    #[arg(long = "hugetables", help_heading = "Code generation")]
    pub huge_tables: bool,
    /// [-vo] Comments in the generated code that tie every line to the description.
    #[arg(long = "verboseoutput", help_heading = "Code generation")]
    pub verbose_output: bool,
    /// [-o] The executable (its folder is made when missing).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        help_heading = "Code generation"
    )]
    pub output: Option<PathBuf>,
    /// [-od] Output directory [default: build/<name>/; with -o FILE, build/<name>/FILE-HASH/].
    #[arg(
        long = "outputdir",
        value_name = "DIR",
        help_heading = "Code generation"
    )]
    pub output_dir: Option<PathBuf>,
    /// [-ic] Default iteration count of the executable [default: 1000].
    #[arg(long = "iterationcount", value_name = "N", value_parser = parse_positive, help_heading = "Code generation")]
    pub iteration_count: Option<u64>,
    /// [-t] Target [default: linux].
    #[arg(
        short = 't',
        long = "target",
        value_enum,
        help_heading = "Code generation"
    )]
    pub target: Option<Target>,
    /// User kernels: a C file implementing functions the description binds.
    #[arg(
        long = "kernels",
        value_name = "FILE.c",
        help_heading = "Code generation"
    )]
    pub kernels: Vec<PathBuf>,
    /// A program whose folded buffers sit behind a guard: a kernel that
    /// says `ROWS` but addresses a row without `SSC_ROW` faults, and the
    /// program names it and exits with code 70.
    #[arg(long = "check-kernels", help_heading = "Code generation")]
    pub check_kernels: bool,
    /// With `-t info`: JSON instead of text; with `ssc run`: the program's
    /// report as JSON (passed on to it, as `-- --json`).
    #[arg(long = "json", help_heading = "Code generation")]
    pub json: bool,
    /// With `-t wcet` / `-gw`: timed runs of every function [default: 100].
    #[arg(long = "wcet-runs", value_name = "N", value_parser = parse_positive, help_heading = "Code generation")]
    pub wcet_runs: Option<u64>,
    /// With `-t wcet` / `-gw`: the percentile of the runs the timing table holds [default: 99].
    #[arg(long = "wcet-percentile", value_name = "P", value_parser = parse_percentile, help_heading = "Code generation")]
    pub wcet_percentile: Option<f64>,

    // --------------------------------------------------- PERFORMANCE MEASUREMENTS
    /// [-ta] Time every sub-box.
    #[arg(long = "inserttimersall", help_heading = "Performance measurements")]
    pub timers_all: bool,
    /// [-tt] Time every thread iteration (busy and waiting).
    #[arg(long = "threadtimers", help_heading = "Performance measurements")]
    pub thread_timers: bool,
    /// [-td] Timer dump format.
    #[arg(
        long = "typetimerdump",
        value_enum,
        help_heading = "Performance measurements"
    )]
    pub timer_dump: Option<TimerDump>,
    /// [-dt] Timer dump file.
    #[arg(
        long = "dumptimer",
        value_name = "FILE",
        help_heading = "Performance measurements"
    )]
    pub dump_timer: Option<PathBuf>,

    // ------------------------------------------------------------------- MISC
    /// [-v] Verbose: print every default applied and every stage's report.
    #[arg(short = 'v', long = "verbose", help_heading = "Misc")]
    pub verbose: bool,

    // --------------------------------------------------------------- ANALYSIS
    /// [-pr] Analyse the runtime HSDFG: period, throughput, latency.
    #[arg(long = "sdfruntime", help_heading = "Analysis")]
    pub sdf_runtime: bool,
    /// [-sl] Write that analysis to a log file.
    #[arg(long = "sdfaslog", value_name = "FILE", help_heading = "Analysis")]
    pub sdf_log: Option<PathBuf>,
}

/// The thesis' one-dash spellings and the long option each stands for.
pub(crate) const THESIS_SPELLINGS: &[(&str, &str)] = &[
    ("-gd", "--generatedeclaration"),
    ("-gw", "--generatewcet"),
    ("-cr", "--composeresolution"),
    ("-dp", "--dataparallelism"),
    ("-mdp", "--maxdataparallelism"),
    ("-gpp", "--generateprecisedataparallelism"),
    ("-ts", "--threadschedule"),
    ("-wt", "--weightedtokens"),
    ("-ms", "--memoryschedule"),
    ("-te", "--threadexecution"),
    ("-cd", "--coarsedependencies"),
    ("-ab", "--addbarrier"),
    ("-ai", "--additerationsync"),
    ("-cm", "--coremask"),
    ("-ca", "--coreaffinity"),
    ("-ks", "--keepsynced"),
    ("-ki", "--keepsyncedinterval"),
    ("-kd", "--keepsynceddelta"),
    ("-dm", "--dynamicmemoryallocation"),
    ("-ss", "--sortsignals"),
    ("-st", "--sortsignalstwice"),
    ("-dg", "--declarationgraph"),
    ("-ig", "--instantiationgraph"),
    ("-rg", "--runtimegraph"),
    ("-xr", "--xmlsdfruntime"),
    ("-gg", "--groovegraph"),
    ("-ni", "--normalizedinput"),
    ("-ht", "--hugetables"),
    ("-vo", "--verboseoutput"),
    ("-od", "--outputdir"),
    ("-ic", "--iterationcount"),
    ("-ta", "--inserttimersall"),
    ("-tt", "--threadtimers"),
    ("-td", "--typetimerdump"),
    ("-dt", "--dumptimer"),
    ("-pr", "--sdfruntime"),
    ("-sl", "--sdfaslog"),
];

/// Rewrites the thesis' one-dash spellings (`-ts`) to their long forms, and
/// `-ts KIND N` to the single value `--threadschedule=KIND N` (so that the
/// thread count is taken only for the schedulers that have one, and a file
/// name after `-ts simple` stays a file name). Everything after `--` is left
/// alone (it belongs to the executable).
pub(crate) fn normalise(args: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = false;
    let mut args = args.into_iter().peekable();
    while let Some(arg) = args.next() {
        if !rest && (arg == "-ts" || arg == "--threadschedule") {
            let Some(kind) = args.next() else {
                out.push("--threadschedule".to_string());
                continue;
            };
            let counted = kind == "auto" || SchedulerKind::counted(&kind);
            let count = match args.peek() {
                Some(n) if counted && n.parse::<i64>().is_ok() => args.next(),
                _ => None,
            };
            match count {
                Some(n) => out.push(format!("--threadschedule={kind} {n}")),
                None => out.push(format!("--threadschedule={kind}")),
            }
            continue;
        }
        if rest {
            out.push(arg);
            continue;
        }
        if arg == "--" {
            rest = true;
            out.push(arg);
            continue;
        }
        match THESIS_SPELLINGS.iter().find(|(short, _)| *short == arg) {
            Some((_, long)) => out.push(long.to_string()),
            None => out.push(arg),
        }
    }
    out
}

fn parse_pair(s: &str) -> Result<(u64, u64), String> {
    let (a, b) = s
        .split_once(',')
        .ok_or_else(|| format!("expected `W,H` (two whole numbers and a comma), found `{s}`"))?;
    let a = parse_positive(a.trim())?;
    let b = parse_positive(b.trim())?;
    Ok((a, b))
}

fn parse_percentile(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok(p),
        _ => Err(format!("expected a percentile in (0, 100], found `{s}`")),
    }
}

/// `512K`, `1M`, `65536`: a positive byte count.
fn parse_bytes(s: &str) -> Result<u64, String> {
    let (num, shift) = match s.strip_suffix(['K', 'k']) {
        Some(n) => (n, 10),
        None => match s.strip_suffix(['M', 'm']) {
            Some(n) => (n, 20),
            None => (s, 0),
        },
    };
    match num
        .parse::<u64>()
        .ok()
        .and_then(|v| v.checked_mul(1u64 << shift))
    {
        Some(0) => Err("must be at least 1 byte".to_string()),
        Some(v) => Ok(v),
        None => Err(format!(
            "expected a byte count such as 65536, 512K or 1M, found `{s}`"
        )),
    }
}

fn parse_positive(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(0) => Err("must be at least 1".to_string()),
        Ok(v) => Ok(v),
        Err(_) => Err(format!("expected a whole number ≥ 1, found `{s}`")),
    }
}

impl BuildArgs {
    /// The roundings `--contract` and `--reciprocal` give up, for the C back
    /// end and the WCET harness alike.
    pub(crate) fn float_rules(&self) -> ssc::back::c::FloatRules {
        ssc::back::c::FloatRules {
            contract: self.contract,
            reciprocal: self.reciprocal,
        }
    }
}

/// `-cm 0,1`: the cores to use, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CoreMask(pub Vec<usize>);

fn parse_cores(s: &str) -> Result<CoreMask, String> {
    let mut cores = Vec::new();
    for part in s.split(',') {
        let core = part
            .trim()
            .parse::<usize>()
            .map_err(|_| format!("expected a list of core numbers like `0,1`, found `{s}`"))?;
        if cores.contains(&core) {
            return Err(format!("core {core} is listed twice in `{s}`"));
        }
        cores.push(core);
    }
    Ok(CoreMask(cores))
}

/// A stage's kind as clap takes it: one of the stage's keywords (listed
/// by `--help` and by the error for any other word), parsed by the stage.
fn kind<K>(keywords: impl IntoIterator<Item = &'static str>) -> impl TypedValueParser<Value = K>
where
    K: std::str::FromStr + Clone + Send + Sync + 'static,
    K::Err: std::fmt::Debug,
{
    PossibleValuesParser::new(keywords).map(|s| s.parse::<K>().expect("a listed keyword"))
}

/// What `-ts` gives: `auto [N]` (the build chooses, on at most N threads,
/// 0: the cores this process may use) or one scheduler.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ThreadSchedule {
    Auto(usize),
    Kind(SchedulerKind),
}

impl ThreadSchedule {
    /// `auto`, `auto N` or a scheduler's `KIND [N]`.
    pub(crate) fn parse(s: &str) -> Result<ThreadSchedule, String> {
        let mut words = s.split_whitespace();
        if words.next() == Some("auto") {
            return match (words.next(), words.next()) {
                (None, _) => Ok(ThreadSchedule::Auto(0)),
                (Some(n), None) => n
                    .parse::<usize>()
                    .ok()
                    .filter(|&n| n > 0)
                    .map(ThreadSchedule::Auto)
                    .ok_or_else(|| {
                        format!("`auto N` takes a thread count of 1 or more, found `{n}`")
                    }),
                _ => Err(format!("expected `auto [N]`, found `{s}`")),
            };
        }
        SchedulerKind::parse_words(s).map(ThreadSchedule::Kind)
    }
}

impl BuildArgs {
    /// The scheduler `-ts` names; `None` without `-ts` or with `-ts auto`
    /// (which the build resolves into one before anything reads it).
    pub(crate) fn scheduler(&self) -> Option<SchedulerKind> {
        match self.thread_schedule {
            Some(ThreadSchedule::Kind(k)) => Some(k),
            _ => None,
        }
    }
}

/// `-ts`'s help: the schedule stage's kinds, and the default.
fn thread_schedule_help() -> String {
    format!(
        "[-ts] Thread schedule: auto [N] | {} (auto: the build chooses the scheduler, its strips, --inline and the threads, at most N or the usable cores, by the cost model; fused: strips of rows streamed depth first through the chain, in cache; box-at-a-time when every frame fits the cache, warning E140) [default: auto]",
        SchedulerKind::synopsis(" N").join(" | "),
    )
}

/// `--max-subboxes`'s help, with the split's default limit.
fn max_subboxes_help() -> String {
    format!(
        "The most sub-boxes the strips of -ts fused may make: default strips are made taller to stay within it, a --strip-rows beyond it is refused (E141); compile time and memory grow with the sub-boxes [default: {}]",
        ssc::lower::split::MAX_SUBBOXES
    )
}

/// `-ms`'s help: the memory stage's kinds, and the defaults.
fn memory_schedule_help() -> String {
    format!(
        "[-ms] Memory schedule: {} (fold: each buffer a ring of the rows live at once) [default: {}; {} with -ts {}, or naive or interference when it runs box-at-a-time (E140)]",
        MemoryKind::keywords().join(" | "),
        super::defaults::DEFAULT_MEMORY.keyword(),
        super::defaults::FUSED_MEMORY.keyword(),
        SchedulerKind::Fused(0).keyword()
    )
}

/// `ssc bench --configs`'s help: the schedule stage's kinds, bench's default.
fn bench_configs_help() -> String {
    let default: Vec<&str> = crate::bench::default_configs()
        .into_iter()
        .map(SchedulerKind::keyword)
        .collect();
    format!(
        "Thread schedules, comma-separated: {} (N: threads, default the online CPUs) [default: {}]",
        SchedulerKind::synopsis("[N]").join(", "),
        default.join(",")
    )
}

/// `ssc bench --memory`'s help: the memory stage's kinds, bench's default.
fn bench_memory_help() -> String {
    format!(
        "Memory schedules, comma-separated: {} [default: {}]",
        MemoryKind::keywords().join(", "),
        crate::bench::DEFAULT_MEMORIES
            .map(MemoryKind::keyword)
            .join(",")
    )
}

/// `--xr-graph`: which HSDFG `-xr` exports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum XrGraph {
    Instantiation,
    Runtime,
}
