//! `ssc calibrate`: the per-machine coefficients of the built-ins' cost
//! model (`lower::cost`), measured in 4–25 s and cached per CPU
//! model.
//!
//! **Measuring.** A synthetic declaration ([`suite`]) has one instance of
//! every built-in at a few hundred thousand points (`float`), a
//! convolution with a 3×3 and one with a 7×7 window, a gain at 64×64 (the
//! cost of a call), a gain, a source and a sink of each other element
//! type, and eleven defined functions ([`DEFINED`]: the pointwise, window
//! and scaling operations of the example chains). The `-t wcet`
//! harness (`back::wcet`) built from it, compiled as `ssc build` compiles
//! (`-O3 -march=native` unless `$CC`/`$CFLAGS` say otherwise), times every
//! instance alone; the median of [`RUNS`] runs, and of that the median
//! over [`PASSES`] passes, is fitted: the call cost
//! from the two gains, the source's costs per computed and per copied
//! element from two sources of as many points and different widths, each other built-in's
//! cost per point from its own time,
//! the window's cost per tap from the two convolutions, each type's factor
//! from its gain against the `float` one (the source's and the sink's
//! from their own); for defined functions
//! (`lower::cost::Work`) the cost of a write and of arithmetic from the
//! four pointwise ones (relative least squares), then each other kind of
//! operation's cost per use from the functions that use it. A
//! coefficient the fit makes 0 or
//! less (noise) is clamped to a small positive one, so the model stays
//! strictly monotone.
//!
//! **Beyond the cache.** The per-core cache is the level-2 cache sysfs
//! (`/sys/devices/system/cpu/cpu0/cache`) shows (else the largest level
//! shared by fewer CPUs than the machine has; [`FALLBACK_CACHE`] without
//! sysfs; [`private_cache_under`]). The suite also has a copy, an addition and a 2×2 mean
//! at [`big_side`] (frames at least twice that cache), fed by a source of
//! that side: the median
//! of their ns per byte read and written is the streaming cost.
//!
//! **Inside a program.** [`reference`](fn@reference) is a small imaging chain (none of
//! the bundled examples); its two programs ([`Regime`]: `-ts reduced 2 -ms
//! reuse` on whole frames, `-ts fused 2 --strip-rows 32` in strips, built
//! with the harness) run once back to back, then once in each pass with a
//! frame every twice that mean latency, as a detector drives a chain; the
//! fastest pass's median latency over the latency the fitted model
//! predicts is that regime's program factor (`lower::cost`, "Inside a
//! program"), held to `PROGRAM_FACTORS`.
//!
//! **Spread.** Each pass is also fitted alone; every coefficient's
//! (largest − smallest) / median over those fits, and each factor's over
//! its passes, goes into the cache file beside the coefficients
//! ([`Measured::spread`]).
//!
//! **Synchronisation.** `runtime-c/bench_signal.c`, compiled the same way
//! with the runtime, ping-pongs two signals between two pinned threads and
//! reports the mean cost of a post nobody waits for and the median one-way
//! latency of a wait/signal pair (the runtime's default spin bound). The
//! signal cost is the post, the wait cost the rest of the pair (at least
//! what a wait whose token is already there costs), both rounded to whole
//! ns (the unit of `-pr` and the exports). The same program times reading
//! 128 KiB the other core just wrote against reading 128 KiB this core
//! wrote: the difference per KiB (at least 0, in tenths of ns) is the
//! transfer cost.
//!
//! **The cache.** `${XDG_CACHE_HOME:-$HOME/.cache}/ssc/calibration/KEY.json`
//! (`XDG_CACHE_HOME` only when it is an absolute path, as the XDG spec
//! says), KEY a hash of the CPU model (`/proc/cpuinfo`'s `model name`).
//! The file names its CPU; [`load`] uses it only when it is well-formed
//! JSON of this format and version, names this CPU and every coefficient
//! is valid; otherwise (corrupt, copied from another machine, another
//! version) it is ignored with a warning and the shipped defaults are
//! used, as they are when there is no file.
//!
//! Why five passes, interleaved, and medians: one pass of 15 runs gave
//! coefficients 20–60 % apart from one minute to the next on a VM. The
//! measurement is warm (the same buffers run after run), as `-gw`'s is. The
//! cache key is a FNV-1a hash, which never changes between Rust versions,
//! and a cache file is written beside and renamed, so a reader never sees
//! half a file.

mod fit;
mod reference;
mod suite;

pub use fit::{at_floor, fit};
use reference::{
    program_factor, reference_compiled, reference_latency, reference_program, REFERENCE_PERIOD,
};
pub use reference::{
    reference, Factor, Regime, REFERENCE_SIDE, REFERENCE_STRIP_ROWS, REFERENCE_THREADS,
};
pub use suite::{big_side, private_cache, private_cache_under, suite, DEFINED, FALLBACK_CACHE};

use serde::{Deserialize, Serialize};
use ssc::back;
use ssc::diagnostics::Diagnostic;
use ssc::lower::cost::{CoefficientError, Coefficients, Named};
use ssc::lower::LowerOptions;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;

/// Timed runs per instance (after [`WARMUP`] untimed ones); the median goes
/// into the fit.
pub const RUNS: u64 = 15;
pub const WARMUP: u64 = 3;

/// The format's name and version, in every cache file.
const FORMAT: &str = "ssc-calibration";
/// Version 2 added the synchronisation costs (`wait_ns`, `signal_ns`),
/// version 3 the transfer (`transfer_ns_per_kib`), version 4 the costs of
/// defined functions (`write_ns`, `arith_ns`, … `linear_ns`), version 5
/// the source's and the sink's own costs (`source_copy_ns`,
/// `source_type_factor`, `sink_type_factor`), the cost beyond the cache
/// (`stream_ns_per_byte`, `cache_bytes`) and the program factor
/// (`program_factor`), version 6 the program factor in strips
/// (`strip_program_factor`) and each coefficient's spread over the passes
/// (`spread`); a file of an older version is ignored with a warning, as
/// any other version is.
pub const VERSION: u32 = 6;

/// Why calibrating failed ([`measure`], [`fit`]), or why a cache file
/// cannot be trusted ([`read`]) or written ([`store`]): the step, with the
/// file, program or instance it was about and the underlying error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The built-in suite did not parse: a bug of ssc.
    #[error("internal error: the calibration suite does not parse: {0:?}")]
    SuiteParse(Vec<Diagnostic>),
    /// The built-in suite did not lower: a bug of ssc.
    #[error("internal error: the calibration suite does not lower: {0:?}")]
    SuiteLower(Vec<Diagnostic>),
    #[error("internal error: the calibration suite has no declaration")]
    SuiteDeclaration,
    #[error("internal error: the suite lacks `{name}`")]
    SuiteLacks { name: &'static str },
    #[error("internal error: the suite does not define `{name}`")]
    SuiteUndefined { name: &'static str },
    /// The `-t wcet` harness of the suite could not be emitted: a bug of ssc.
    #[error("internal error: the calibration harness: {0:?}")]
    Harness(Vec<Diagnostic>),
    /// Writing or compiling a program failed.
    #[error(transparent)]
    Compile(#[from] back::c::CompileError),
    #[error("the signal ping-pong's build panicked")]
    BuildPanicked,
    #[error("cannot run `{}`: {source}", .exe.display())]
    Run {
        exe: PathBuf,
        source: std::io::Error,
    },
    /// A measuring program exited with an error: its name, status and
    /// standard error.
    #[error("`{name}` failed ({status}): {stderr}")]
    Failed {
        name: String,
        status: ExitStatus,
        stderr: String,
    },
    /// The harness' report is not JSON of its format.
    #[error(transparent)]
    Report(#[from] back::wcet::ReportError),
    #[error("the harness did not time `{name}`")]
    Untimed { name: String },
    #[error("the signal measurement printed `{text}`: {source}")]
    SyncOutput {
        text: String,
        source: serde_json::Error,
    },
    /// The reference chain did not compile: a bug of ssc.
    #[error("internal error: the reference chain: {0:?}")]
    Reference(Vec<Diagnostic>),
    #[error("internal error: the reference chain's analysis: {0}")]
    ReferenceAnalysis(String),
    #[error("the reference program printed `{0}`, not a latency")]
    ReferenceOutput(String),
    #[error("the signal measurement is not a set of times: {0:?}")]
    NotTimes(SyncCosts),
    /// A coefficient (measured or read) is not valid.
    #[error(transparent)]
    Coefficients(#[from] CoefficientError),
    #[error("cannot read it: {0}")]
    ReadCache(#[source] std::io::Error),
    #[error("it is not UTF-8 text")]
    NotUtf8,
    #[error("it is not a calibration file: {0}")]
    NotCalibration(#[source] serde_json::Error),
    #[error("it is `{format}` version {version}, not `{FORMAT}` version {VERSION}", FORMAT = FORMAT, VERSION = VERSION)]
    OtherVersion { format: String, version: u32 },
    #[error("it was measured on another CPU ({measured}), not this one ({cpu})")]
    OtherCpu { measured: String, cpu: String },
    #[error("no cache directory: neither XDG_CACHE_HOME (absolute) nor HOME is set")]
    NoCacheDir,
    #[error("cannot create `{}`: {source}", .path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write `{}`: {source}", .path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The ping-pong of two signals (see the module docs), embedded so an
/// installed ssc needs no source tree.
const BENCH_SIGNAL: &str = include_str!("../../../runtime-c/bench_signal.c");

/// What `bench_signal --json` prints, ns.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyncCosts {
    pub post_ns: f64,
    pub ready_wait_ns: f64,
    pub pair_ns: f64,
    pub remote_read_ns: f64,
    pub local_read_ns: f64,
}

/// The KiB `bench_signal` reads for the transfer cost.
const TRANSFER_KIB: f64 = 128.0;

impl SyncCosts {
    /// Each field's median over several measurements.
    pub fn median(all: &[SyncCosts]) -> SyncCosts {
        let field = |f: fn(&SyncCosts) -> f64| median(&mut all.iter().map(f).collect::<Vec<_>>());
        SyncCosts {
            post_ns: field(|s| s.post_ns),
            ready_wait_ns: field(|s| s.ready_wait_ns),
            pair_ns: field(|s| s.pair_ns),
            remote_read_ns: field(|s| s.remote_read_ns),
            local_read_ns: field(|s| s.local_read_ns),
        }
    }

    /// The model's `(wait, signal, transfer)`: the wait and the signal in
    /// whole ns, each at least 1 (the signal is the post, the wait the rest
    /// of the pair's latency and no less than a wait whose token is
    /// there); the transfer in ns per KiB, tenths, at least 0.
    pub fn fit(&self) -> Result<(f64, f64, f64), Error> {
        let ok = |v: f64| (0.0..1e9).contains(&v);
        let all = [
            self.post_ns,
            self.ready_wait_ns,
            self.pair_ns,
            self.remote_read_ns,
            self.local_read_ns,
        ];
        if !all.into_iter().all(ok) {
            return Err(Error::NotTimes(*self));
        }
        let signal = self.post_ns.round().max(1.0);
        let wait = (self.pair_ns - signal)
            .max(self.ready_wait_ns)
            .round()
            .max(1.0);
        let per_kib = (self.remote_read_ns - self.local_read_ns) / TRANSFER_KIB;
        let transfer = (per_kib * 10.0).round().max(0.0) / 10.0;
        Ok((wait, signal, transfer))
    }
}

/// The signal ping-pong as a program directory's files.
fn sync_program() -> back::c::Program {
    let mut files: Vec<(String, String)> = back::c::RUNTIME_FILES
        .iter()
        .map(|f| (f.name.to_string(), f.text.to_string()))
        .collect();
    files.push(("ssc_calibrate_sync.c".into(), BENCH_SIGNAL.into()));
    back::c::Program {
        name: "ssc_calibrate_sync".into(),
        files,
        kernel_types: back::c::KernelTypes::none(),
    }
}

/// What the signal ping-pong printed.
fn sync_costs(text: &str) -> Result<SyncCosts, Error> {
    serde_json::from_str(text.trim()).map_err(|source| Error::SyncOutput {
        text: text.trim().to_string(),
        source,
    })
}

/// Writes and compiles `program` in `dir`; the executable.
pub(super) fn build(program: &back::c::Program, dir: &Path) -> Result<PathBuf, Error> {
    let exe = dir.join(&program.name);
    back::c::write_files(program, &[], dir, false)?;
    back::c::compile(program, &[], dir, &exe, false)?;
    Ok(exe)
}

/// Runs `exe` with `--json`; its output.
fn run_json(exe: &Path, name: &str) -> Result<String, Error> {
    run_json_with(exe, name, &[])
}

/// Runs `exe` with `args` and `--json`; its output.
pub(super) fn run_json_with(exe: &Path, name: &str, args: &[String]) -> Result<String, Error> {
    let out = std::process::Command::new(exe)
        .args(args)
        .arg("--json")
        .output()
        .map_err(|source| Error::Run {
            exe: exe.to_path_buf(),
            source,
        })?;
    if !out.status.success() {
        return Err(Error::Failed {
            name: name.to_string(),
            status: out.status,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// What [`measure`] found: the coefficients, each one's spread over the
/// passes, and the two program factors as measured.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    pub coefficients: Coefficients,
    /// Per serialised coefficient (`point_ns.func_conv`, `program_factor`,
    /// …): (largest − smallest of the passes' fits) / the median fit. 0
    /// for one that is not measured (the call, the cache).
    pub spread: BTreeMap<String, f64>,
    /// On whole frames and in strips ([`Regime::ALL`]'s order).
    pub factors: [Factor; 2],
}

/// Every serialised coefficient of `c` by its path (`point_ns.func_conv`).
pub fn values_of(c: &Coefficients) -> BTreeMap<String, f64> {
    let mut values = BTreeMap::new();
    push_values(c, &mut values);
    values.into_iter().map(|(k, v)| (k, v[0])).collect()
}

/// Appends every serialised coefficient of `c` to `out`, by its path.
fn push_values(c: &Coefficients, out: &mut BTreeMap<String, Vec<f64>>) {
    leaves(
        "",
        &serde_json::to_value(c.to_named()).unwrap_or_default(),
        out,
    );
}

/// The numbers of a JSON value by their dotted paths under `prefix`.
fn leaves(prefix: &str, v: &serde_json::Value, out: &mut BTreeMap<String, Vec<f64>>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                leaves(&key, v, out);
            }
        }
        serde_json::Value::Number(n) => {
            out.entry(prefix.to_string())
                .or_default()
                .push(n.as_f64().unwrap_or(0.0));
        }
        _ => {}
    }
}

/// The spread of each serialised coefficient over `passes` (see
/// [`Measured::spread`]).
pub fn spread_of(passes: &[Coefficients]) -> BTreeMap<String, f64> {
    let mut values = BTreeMap::new();
    for c in passes {
        push_values(c, &mut values);
    }
    values
        .into_iter()
        .map(|(k, v)| (k, relative_spread(&v)))
        .collect()
}

/// Measures this machine: writes the harness of [`suite`], the signal
/// ping-pong and the reference program in its two regimes into folders of
/// `dir` and compiles them at once (the C compiler is most of the time),
/// runs them one after the other, fits. Errors say which step failed.
pub fn measure(dir: &Path) -> Result<Measured, Error> {
    let cache = private_cache();
    let desc = ssc::front::syntax::parse(&suite(big_side(cache))).map_err(Error::SuiteParse)?;
    let mut opts = LowerOptions::default();
    opts.split.dp = ssc::lower::split::DataParallelism::None;
    let (_, h) = ssc::lower::lower_to_hsdfg(&desc, &opts).map_err(Error::SuiteLower)?;
    let wopts = back::wcet::WcetOptions {
        name: "ssc_calibrate".into(),
        runs: RUNS,
        warmup: WARMUP,
        percentile: 50.0,
        user_kernels: Vec::new(),
        float: back::c::FloatRules::default(),
    };
    let program = back::wcet::emit(&h, &wopts).map_err(Error::Harness)?;
    let sync = sync_program();
    // The reference program in each regime, scheduled with the shipped
    // coefficients (the fitted ones are checked to schedule it alike:
    // `program_factor`).
    let [whole, strips] = Regime::ALL.map(|r| reference_compiled(&Coefficients::shipped(), r));
    let built = [whole?.0, strips?.0];
    let references = [reference_program(&built[0])?, reference_program(&built[1])?];
    let (harness_dir, sync_dir) = (dir.join("harness"), dir.join("sync"));
    let reference_dirs = [dir.join("reference-whole"), dir.join("reference-strips")];
    let (harness_exe, sync_exe, reference_exes) = std::thread::scope(|s| {
        let sync_build = s.spawn(|| build(&sync, &sync_dir));
        let reference_builds = [0, 1].map(|i| {
            let (p, d) = (&references[i], &reference_dirs[i]);
            s.spawn(move || build(p, d))
        });
        let harness = build(&program, &harness_dir);
        let sync = sync_build.join().unwrap_or(Err(Error::BuildPanicked));
        let references = reference_builds.map(|b| b.join().unwrap_or(Err(Error::BuildPanicked)));
        (harness, sync, references)
    });
    let [whole_exe, strips_exe] = reference_exes;
    let (harness_exe, sync_exe) = (harness_exe?, sync_exe?);
    let reference_exes = [whole_exe?, strips_exe?];
    // One at a time: no measurement shares the machine with another.
    // PASSES of each, interleaved, so a slow moment of the host moves one
    // pass of every measurement rather than every pass of some.
    let mut times: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut syncs = Vec::new();
    let mut medians_of_runs = [Vec::new(), Vec::new()];
    // The reference runs as a detector drives it, a frame every period:
    // twice its back-to-back latency, so it never queues.
    let mut periods = [0.0; 2];
    for (p, exe) in periods.iter_mut().zip(&reference_exes) {
        *p = REFERENCE_PERIOD * reference_latency(exe, None)?.0;
    }
    for _ in 0..PASSES {
        let report = back::wcet::parse_report(&run_json(&harness_exe, &program.name)?)?;
        for p in report.profiles {
            times.entry(p.function).or_default().push(p.percentile);
        }
        syncs.push(sync_costs(&run_json(&sync_exe, &sync.name)?)?);
        for i in 0..2 {
            medians_of_runs[i].push(reference_latency(&reference_exes[i], Some(periods[i]))?.1);
        }
    }
    // Each pass fitted alone, for the spread only: a pass whose fit fails
    // (one noisy run of a kernel) or misses a kernel has no spread to give
    // and is left out, where the fit of the medians below decides.
    let passes: Vec<Coefficients> = (0..PASSES)
        .filter_map(|k| {
            let one: BTreeMap<String, f64> = times
                .iter()
                .map(|(n, v)| Some((n.clone(), *v.get(k)?)))
                .collect::<Option<_>>()?;
            let mut c = fit(&one, cache).ok()?;
            (c.wait, c.signal, c.transfer) = syncs.get(k)?.fit().ok()?;
            Some(c)
        })
        .collect();
    let mut spread = spread_of(&passes);
    let medians: BTreeMap<String, f64> = times
        .into_iter()
        .map(|(name, mut v)| (name, median(&mut v)))
        .collect();
    let mut c = fit(&medians, cache)?;
    (c.wait, c.signal, c.transfer) = SyncCosts::median(&syncs).fit()?;
    let [whole_runs, strips_runs] = medians_of_runs;
    let factors = [
        program_factor(&c, Regime::Whole, &built[0], whole_runs, dir)?,
        program_factor(&c, Regime::Strips, &built[1], strips_runs, dir)?,
    ];
    for (r, f) in Regime::ALL.iter().zip(&factors) {
        *r.factor(&mut c) = f.value;
    }
    spread.insert("program_factor".into(), factors[0].spread);
    spread.insert("strip_program_factor".into(), factors[1].spread);
    c.validate()?;
    Ok(Measured {
        coefficients: c,
        spread,
        factors,
    })
}

/// Passes of the harness and of the signal ping-pong ([`measure`]).
pub const PASSES: usize = 5;

/// The spread of a program factor's runs above which `ssc calibrate` warns.
/// It warns rather than runs the reference more: ten runs instead of five
/// where they lay further apart take the calibration from 5–7 s to 15–23 s
/// on a busy AMD EPYC guest and leave the factor as scattered (1.26–2.05
/// on whole frames in three calibrations).
pub const FACTOR_SPREAD: f64 = 0.25;

/// (largest − smallest) / median of `v`, to three decimals (0 when the
/// median is not positive).
pub fn relative_spread(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    let m = median(&mut v);
    let range = v.last().copied().unwrap_or(0.0) - v.first().copied().unwrap_or(0.0);
    let s = if m > 0.0 { range / m } else { 0.0 };
    (s * 1000.0).round() / 1000.0
}

/// The median of `v` (the upper one of an even count; 0 when empty).
pub(super) fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

/// The CPU model this machine reports (`/proc/cpuinfo`'s `model name`,
/// else its `Hardware`/`CPU part` lines, else the architecture).
pub fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |key: &str| {
        info.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == key).then(|| v.trim().to_string())
        })
    };
    field("model name")
        .or_else(|| field("Hardware"))
        .or_else(|| field("CPU part").map(|p| format!("CPU part {p}")))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// FNV-1a, 64 bits: a hash that never changes between Rust versions.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The user's cache directory: `$XDG_CACHE_HOME` when it is an absolute
/// path, else `$HOME/.cache`.
pub fn cache_dir() -> Option<PathBuf> {
    let xdg = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    xdg.or_else(|| {
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".cache"))
    })
}

/// The cache file of a CPU model.
pub fn cache_file(cpu: &str) -> Option<PathBuf> {
    Some(cache_file_under(&cache_dir()?, cpu))
}

/// The cache file of a CPU model under a cache directory.
pub fn cache_file_under(cache_dir: &Path, cpu: &str) -> PathBuf {
    cache_dir
        .join("ssc")
        .join("calibration")
        .join(format!("{:016x}.json", fnv(cpu)))
}

/// A cache file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheFile {
    pub format: String,
    pub version: u32,
    /// The CPU model it was measured on.
    pub cpu: String,
    /// Seconds the calibration took.
    pub seconds: f64,
    pub coefficients: Named,
    /// Each coefficient's spread over the passes ([`Measured::spread`]).
    pub spread: BTreeMap<String, f64>,
}

/// What every version of the format starts with: read first, so a file of
/// another version is named as such rather than as a malformed one.
#[derive(Deserialize)]
struct Header {
    format: String,
    version: u32,
}

/// How long `ssc calibrate` takes, s, for the build's note: 4–7 s on a
/// 2-core AMD EPYC guest with AVX-512, 8–10 s on an Intel Xeon one, 21–23 s
/// on a 2-core AMD EPYC guest without AVX-512, where programs run 2–2.5×
/// slower.
pub const CALIBRATION_SECONDS: &str = "4–25";

/// Which coefficients a build uses, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Loaded {
    pub coefficients: Coefficients,
    /// The cache file they come from; `None`: the shipped defaults.
    pub from: Option<PathBuf>,
    /// Why a cache file that exists was not used (corrupt, foreign).
    pub ignored: Option<String>,
    pub cpu: String,
}

impl Loaded {
    /// Which coefficients, and from where: the `-v` line, and the note of
    /// a build that predicts without a calibration.
    pub fn note(&self) -> String {
        match (&self.from, &self.ignored) {
            (Some(p), _) => format!(
                "cost model: calibrated coefficients for {} ({})",
                self.cpu,
                p.display()
            ),
            (None, Some(_)) => format!(
                "cost model: shipped defaults (the cache file was ignored; `ssc calibrate` measures {})",
                self.cpu
            ),
            (None, None) => format!(
                "cost model: shipped defaults (no calibration for {}: the schedule -ts auto chooses and the latency -pr predicts rest on another machine's coefficients, which can be several times off here; `ssc calibrate` measures this one in {CALIBRATION_SECONDS} s)",
                self.cpu
            ),
        }
    }
}

/// Reads a cache file for `cpu`: the coefficients, or why it cannot be
/// trusted.
pub fn read(path: &Path, cpu: &str) -> Result<Coefficients, Error> {
    let text = std::fs::read(path).map_err(Error::ReadCache)?;
    let text = String::from_utf8(text).map_err(|_| Error::NotUtf8)?;
    let header: Header = serde_json::from_str(&text).map_err(Error::NotCalibration)?;
    if header.format != FORMAT || header.version != VERSION {
        return Err(Error::OtherVersion {
            format: header.format,
            version: header.version,
        });
    }
    let file: CacheFile = serde_json::from_str(&text).map_err(Error::NotCalibration)?;
    if file.cpu != cpu {
        return Err(Error::OtherCpu {
            measured: file.cpu,
            cpu: cpu.to_string(),
        });
    }
    Ok(Coefficients::from_named(&file.coefficients)?)
}

/// The coefficients for this machine: its cache file when it can be
/// trusted, else the shipped defaults (with the reason when a file was
/// there).
pub fn load() -> Loaded {
    let cpu = cpu_model();
    let shipped = |ignored| Loaded {
        coefficients: Coefficients::shipped(),
        from: None,
        ignored,
        cpu: cpu.clone(),
    };
    let Some(path) = cache_file(&cpu) else {
        return shipped(None);
    };
    if !path.exists() {
        return shipped(None);
    }
    match read(&path, &cpu) {
        Ok(c) => Loaded {
            coefficients: c,
            from: Some(path),
            ignored: None,
            cpu,
        },
        Err(why) => shipped(Some(format!(
            "the calibration cache `{}` is ignored: {why}",
            path.display()
        ))),
    }
}

/// Writes the cache file of this machine; its path.
pub fn store(m: &Measured, cpu: &str, seconds: f64) -> Result<PathBuf, Error> {
    let path = cache_file(cpu).ok_or(Error::NoCacheDir)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| Error::CreateDir {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    let file = CacheFile {
        format: FORMAT.into(),
        version: VERSION,
        cpu: cpu.into(),
        seconds,
        coefficients: m.coefficients.to_named(),
        spread: m.spread.clone(),
    };
    let text = serde_json::to_string_pretty(&file).unwrap_or_default() + "\n";
    // Write beside it and rename: a reader never sees half a file.
    let tmp = path.with_extension(format!("json.{}", std::process::id()));
    if let Err(source) = std::fs::write(&tmp, text) {
        return Err(Error::Write { path: tmp, source });
    }
    if let Err(source) = std::fs::rename(&tmp, &path) {
        return Err(Error::Write { path, source });
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_is_the_range_of_the_passes_over_their_median() {
        let mut passes = [Coefficients::shipped(); 3];
        passes[0].tap = 0.9 * passes[1].tap;
        passes[2].tap = 1.2 * passes[1].tap;
        passes[2].program = 2.0 * passes[1].program;
        let s = spread_of(&passes);
        assert_eq!(s["tap_ns"], 0.3);
        assert_eq!(s["program_factor"], 1.0);
        assert_eq!(s["call_ns"], 0.0);
        assert_eq!(s["point_ns.func_conv"], 0.0);
        assert_eq!(s["type_factor.int"], 0.0);
    }

    #[test]
    fn the_signal_measurement_fits_whole_positive_ns() {
        let m = SyncCosts {
            post_ns: 4.98,
            ready_wait_ns: 9.9,
            pair_ns: 60.0,
            remote_read_ns: 1422.0,
            local_read_ns: 991.0,
        };
        assert_eq!(m.fit().ok(), Some((55.0, 5.0, 3.4)));
        // A pair faster than post + ready wait (noise): the wait is never
        // below a ready wait, nothing is 0, and a remote read faster than
        // a local one costs no transfer.
        let m = SyncCosts {
            post_ns: 0.2,
            ready_wait_ns: 3.4,
            pair_ns: 2.0,
            remote_read_ns: 900.0,
            local_read_ns: 1000.0,
        };
        assert_eq!(m.fit().ok(), Some((3.0, 1.0, 0.0)));
        let m = SyncCosts {
            post_ns: f64::NAN,
            ready_wait_ns: 1.0,
            pair_ns: 1.0,
            remote_read_ns: 1.0,
            local_read_ns: 1.0,
        };
        assert!(m.fit().is_err());
    }
}
