//! `ssc calibrate`: the per-machine coefficients of the built-ins' cost
//! model (`lower::cost`), measured in a few seconds and cached per CPU
//! model.
//!
//! **Measuring.** A synthetic declaration ([`suite`]) has one instance of
//! every built-in at a few hundred thousand points (`float`), a
//! convolution with a 3×3 and one with a 7×7 window, a gain at 64×64 (the
//! cost of a call), a gain of each other element type, and ten defined
//! functions ([`DEFINED`]: the pointwise, window and scaling operations of
//! the example chains). The `-t wcet`
//! harness (`back::wcet`) built from it, compiled as `ssc build` compiles
//! (`-O3 -march=native` unless `$CC`/`$CFLAGS` say otherwise), times every
//! instance alone; the median of [`RUNS`] runs is fitted: the call cost
//! from the two gains, each built-in's cost per point from its own time,
//! the window's cost per tap from the two convolutions, each type's factor
//! from its gain against the `float` one; for defined functions
//! (`lower::cost::Work`) the cost of a write and of arithmetic from the
//! four pointwise ones (relative least squares), then each other kind of
//! operation's cost per use from the functions that use it. A
//! coefficient the fit makes 0 or
//! less (noise) is clamped to a small positive one, so the model stays
//! strictly monotone.
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

use serde::{Deserialize, Serialize};
use ssc::back;
use ssc::diagnostics::Diagnostic;
use ssc::ir::Pair;
use ssc::lower::cost::{CoefficientError, Coefficients, Named, Work, TYPES};
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
/// defined functions (`write_ns`, `arith_ns`, … `linear_ns`); a file of an older
/// version is ignored with a warning, as any other version is.
pub const VERSION: u32 = 4;

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

/// The side of the big instances (points = SIDE²), and of the small gain.
const SIDE: u64 = 512;
const SMALL: u64 = 64;

/// The declaration measured: see the module documentation.
pub fn suite() -> String {
    let mut d = String::from("declaration {\n");
    let port = |name: &str, dir: &str, ty: &str, mul: u64, window: u64| {
        let w = if window > 1 {
            format!(" [{window}, {window}]")
        } else {
            String::new()
        };
        format!("{name} {dir} {ty} mul [{mul}, {mul}]{w}; ")
    };
    let decl = |d: &mut String, name: &str, ports: &[String]| {
        d.push_str(&format!(
            "  function_declaration {name} FULL {{ {}}};\n",
            ports.concat()
        ));
    };
    let f = "float";
    decl(&mut d, "func_source", &[port("out", "OUT", f, 1, 1)]);
    decl(&mut d, "func_sink", &[port("in", "IN", f, 1, 1)]);
    for k in ["func_gain", "func_copy"] {
        decl(
            &mut d,
            k,
            &[port("in", "IN", f, 1, 1), port("out", "OUT", f, 1, 1)],
        );
    }
    decl(
        &mut d,
        "func_dup",
        &[
            port("in", "IN", f, 1, 1),
            port("out1", "OUT", f, 1, 1),
            port("out2", "OUT", f, 1, 1),
        ],
    );
    for k in ["func_plus", "func_mul", "func_avg"] {
        decl(
            &mut d,
            k,
            &[
                port("in1", "IN", f, 1, 1),
                port("in2", "IN", f, 1, 1),
                port("out", "OUT", f, 1, 1),
            ],
        );
    }
    decl(
        &mut d,
        "func_conv",
        &[port("in", "IN", f, 1, 3), port("out", "OUT", f, 1, 1)],
    );
    decl(
        &mut d,
        "func_conv_7x7",
        &[port("in", "IN", f, 1, 7), port("out", "OUT", f, 1, 1)],
    );
    decl(
        &mut d,
        "func_down",
        &[port("in", "IN", f, 2, 1), port("out", "OUT", f, 1, 1)],
    );
    decl(
        &mut d,
        "func_up",
        &[port("in", "IN", f, 1, 1), port("out", "OUT", f, 2, 1)],
    );
    for t in TYPES.iter().filter(|t| t.keyword() != "float") {
        let t = t.keyword();
        decl(
            &mut d,
            &format!("func_source_{t}"),
            &[port("out", "OUT", t, 1, 1)],
        );
        decl(
            &mut d,
            &format!("func_gain_{t}"),
            &[port("in", "IN", t, 1, 1), port("out", "OUT", t, 1, 1)],
        );
    }
    // Defined functions, for the costs of reading, writing and computing.
    for (name, ports, value, _) in DEFINED {
        let ports: Vec<String> = ports
            .iter()
            .map(|(p, dir, ty, mul, window)| port(p, dir, ty, *mul, *window))
            .collect();
        decl(&mut d, name, &ports);
        d.push_str(&format!(
            "  function_definition {name} {{ out = {value}; }};\n"
        ));
    }
    let (n, h, s) = (SIDE, SIDE / 2, SMALL);
    let mut inst = vec![
        format!("src func_source [{n}, {n}]"),
        format!("src_half func_source [{h}, {h}]"),
        format!("src_small func_source [{s}, {s}]"),
        format!("sink func_sink [{n}, {n}]"),
        format!("gain func_gain [{n}, {n}]"),
        format!("gain_small func_gain [{s}, {s}]"),
        format!("copy func_copy [{n}, {n}]"),
        format!("dup func_dup [{n}, {n}]"),
        format!("plus func_plus [{n}, {n}]"),
        format!("product func_mul [{n}, {n}]"),
        format!("avg func_avg [{n}, {n}]"),
        format!("conv3 func_conv [{n}, {n}]"),
        format!("conv7 func_conv_7x7 [{n}, {n}]"),
        format!("down func_down [{h}, {h}]"),
        format!("up func_up [{h}, {h}]"),
    ];
    let mut conns = Vec::new();
    for (name, ports, _, div) in DEFINED {
        let side = SIDE / div;
        inst.push(format!("{name} {name} [{side}, {side}]"));
        for (p, _, ty, mul, _) in ports.iter().filter(|p| p.1 == "IN") {
            let from = match (*ty, side * mul) {
                ("float", g) if g == n => "src".to_string(),
                ("float", g) if g == h => "src_half".to_string(),
                (t, _) => format!("src_{t}"),
            };
            conns.push(format!("{from}.out -> {name}.{p};"));
        }
    }
    conns.extend([
        "src.out -> sink.in;".to_string(),
        "src_small.out -> gain_small.in;".to_string(),
        "src_half.out -> up.in;".to_string(),
        "src.out -> down.in;".to_string(),
    ]);
    for k in ["gain", "copy", "dup", "conv3", "conv7"] {
        conns.push(format!("src.out -> {k}.in;"));
    }
    for k in ["plus", "product", "avg"] {
        conns.push(format!("src.out -> {k}.in1;"));
        conns.push(format!("src.out -> {k}.in2;"));
    }
    for t in TYPES.iter().filter(|t| t.keyword() != "float") {
        let t = t.keyword();
        inst.push(format!("src_{t} func_source_{t} [{n}, {n}]"));
        inst.push(format!("gain_{t} func_gain_{t} [{n}, {n}]"));
        conns.push(format!("src_{t}.out -> gain_{t}.in;"));
    }
    d.push_str(&format!("  function {};\n", inst.join(", ")));
    for c in conns {
        d.push_str(&format!("  {c}\n"));
    }
    d.push_str("}\n");
    d
}

/// A port of a defined function of the suite: name, direction, type,
/// `mul` (both axes), window (both axes).
type DefinedPort = (&'static str, &'static str, &'static str, u64, u64);

/// The defined functions of the suite, the operations imaging chains use
/// (`examples/xray.ssc`'s, `examples/fluoro.ssc`'s): name, ports, the value
/// of `out`, and the divisor of `SIDE` their instance runs at (2 for the
/// scalers, so every one reads and writes frames of about one size).
pub const DEFINED: [(&str, &[DefinedPort], &str, u64); 10] = [
    ("def_add", &[IN, OUT], "in + 1", 1),
    (
        "def_mul",
        &[IN, ("g", "IN", "float", 1, 1), OUT],
        "in * g",
        1,
    ),
    (
        "def_sub",
        &[("raw", "IN", "ushort", 1, 1), IN, OUT],
        "max(float(raw) - in, 0)",
        1,
    ),
    (
        "def_blend",
        &[IN, ("c", "IN", "float", 1, 1), OUT],
        "c + 1.5 * (in - c)",
        1,
    ),
    ("def_window", &[IN, OUT], "window_level(in, 16000, 8000)", 1),
    (
        "def_to16",
        &[IN, ("out", "OUT", "ushort", 1, 1)],
        "ushort(clamp(round(65535 * in), 0, 65535))",
        1,
    ),
    ("def_median", &[IN3, OUT], "median(in)", 1),
    (
        "def_gauss",
        &[IN3, OUT],
        "separable(in, [1, 2, 1], [1, 2, 1]) / 16",
        1,
    ),
    (
        "def_mean",
        &[("in", "IN", "float", 2, 1), OUT],
        "mean(in)",
        2,
    ),
    (
        "def_linear",
        &[IN3, ("out", "OUT", "float", 2, 1)],
        "linear(in)",
        2,
    ),
];
const IN: DefinedPort = ("in", "IN", "float", 1, 1);
const IN3: DefinedPort = ("in", "IN", "float", 1, 3);
const OUT: DefinedPort = ("out", "OUT", "float", 1, 1);

/// The defined functions whose cost is writes and arithmetic only.
const POINTWISE: [&str; 4] = ["def_add", "def_mul", "def_blend", "def_window"];

/// The least-squares solution of `rows` (`(x, y)`: x · c ≈ y) for two
/// coefficients c, by the normal equations; 0 where they are singular.
fn least_squares(rows: &[([f64; 2], f64)]) -> [f64; 2] {
    let (mut a, mut b, mut d, mut e, mut f) = (0.0, 0.0, 0.0, 0.0, 0.0);
    for ([x0, x1], y) in rows {
        a += x0 * x0;
        b += x0 * x1;
        d += x1 * x1;
        e += x0 * y;
        f += x1 * y;
    }
    let det = a * d - b * b;
    if det.abs() < 1e-300 {
        return [0.0; 2];
    }
    [(e * d - b * f) / det, (a * f - b * e) / det]
}

/// The coefficients of the medians (µs) of the suite's instances.
pub fn fit(median_us: &BTreeMap<String, f64>) -> Result<Coefficients, Error> {
    let t = |name: &str| -> Result<f64, Error> {
        median_us
            .get(name)
            .map(|v| v * 1000.0)
            .ok_or_else(|| Error::Untimed {
                name: name.to_string(),
            })
    };
    const TINY: f64 = 1e-3;
    let (big, half, small) = (
        (SIDE * SIDE) as f64,
        (SIDE * SIDE / 4) as f64,
        (SMALL * SMALL) as f64,
    );
    let mut c = Coefficients::shipped();
    // The call cost: the line through the small and the big gain.
    let per_point = ((t("gain")? - t("gain_small")?) / (big - small)).max(TINY);
    c.call = (t("gain_small")? - small * per_point).max(1.0);
    let point = |name: &str, points: f64| -> Result<f64, Error> {
        Ok(((t(name)? - c.call) / points).max(TINY))
    };
    let per: [(&str, f64); 11] = [
        ("src", big),
        ("sink", big),
        ("gain", big),
        ("copy", big),
        ("dup", big),
        ("plus", big),
        ("product", big),
        ("avg", big),
        ("conv3", big),
        ("down", half),
        ("up", half),
    ];
    for (i, (name, points)) in per.iter().enumerate() {
        c.point[i] = point(name, *points)?;
    }
    // The convolution: 9 and 49 taps.
    let (c3, c7) = (point("conv3", big)?, point("conv7", big)?);
    c.tap = ((c7 - c3) / 40.0).max(TINY);
    c.point[8] = (c3 - 9.0 * c.tap).max(TINY);
    // Defined functions. The pointwise ones without conversions give the
    // cost of a write and of arithmetic (the relative least-squares line
    // through them); each other kind's cost is what its function takes
    // beyond that, per use.
    let desc = ssc::front::syntax::parse(&suite()).map_err(Error::SuiteParse)?;
    let d = ssc::lower::lower_to_declaration(&desc, &LowerOptions::default())
        .map_err(Error::SuiteLower)?
        .declaration
        .ok_or(Error::SuiteDeclaration)?;
    // (work, points, ns beyond the call) of each defined function.
    let mut measured = BTreeMap::new();
    for (name, _, _, _) in DEFINED {
        let f = d
            .functions
            .iter()
            .find(|f| f.name.name == name)
            .ok_or(Error::SuiteLacks { name })?;
        let fd = d.function_decl(name).ok_or(Error::SuiteLacks { name })?;
        let def = d.definition(name).ok_or(Error::SuiteUndefined { name })?;
        let points = (f.resolution.value.x * f.resolution.value.y) as f64;
        measured.insert(name, (Work::of(def, &fd.ports), points, t(name)? - c.call));
    }
    // ns per point ≈ writes · write + elements · arith · arith, weighted by
    // 1 / ns so each function counts by its relative error.
    let rows: Vec<([f64; 2], f64)> = POINTWISE
        .iter()
        .map(|name| {
            let (w, points, ns) = measured[name];
            let per_point = ns / points;
            (
                [
                    w.writes / per_point,
                    w.elements * w.ops.arith as f64 / per_point,
                ],
                1.0,
            )
        })
        .collect();
    let [write, arith] = least_squares(&rows);
    (c.write, c.arith) = (write.max(TINY), arith.max(TINY / 10.0));
    // The rest: what is left per use, averaged over the functions of a kind.
    type Count = fn(&ssc::ir::Operations) -> u64;
    let kinds: [(&str, &[&str], Count); 5] = [
        ("convert", &["def_sub", "def_to16"], |o| o.convert),
        ("stencil_tap", &["def_gauss"], |o| o.taps),
        ("exchange", &["def_median"], |o| o.exchanges),
        ("block", &["def_mean"], |o| o.block),
        ("linear", &["def_linear"], |o| o.linear),
    ];
    // What a function costs by its writes and arithmetic alone (each of
    // these uses one kind besides).
    let mut without = c;
    without.convert = 0.0;
    without.stencil_tap = 0.0;
    without.exchange = 0.0;
    without.block = 0.0;
    without.linear = 0.0;
    for (kind, names, count) in kinds {
        let mut per_use = Vec::new();
        for name in names {
            let (w, points, ns) = measured[name];
            let uses = count(&w.ops) as f64 * w.elements * points;
            let rest = without.defined_cost(w, Pair::new(points as u64, 1)) * 1000.0 - c.call;
            per_use.push((ns - rest) / uses);
        }
        let v = (per_use.iter().sum::<f64>() / per_use.len() as f64).max(TINY / 10.0);
        match kind {
            "convert" => c.convert = v,
            "stencil_tap" => c.stencil_tap = v,
            "exchange" => c.exchange = v,
            "block" => c.block = v,
            _ => c.linear = v,
        }
    }
    let float = point("gain", big)?;
    for (i, ty) in TYPES.iter().enumerate() {
        c.types[i] = if ty.keyword() == "float" {
            1.0
        } else {
            (point(&format!("gain_{}", ty.keyword()), big)? / float).max(TINY)
        };
    }
    c.validate()?;
    Ok(c)
}

/// The ping-pong of two signals (see the module docs), embedded so an
/// installed ssc needs no source tree.
const BENCH_SIGNAL: &str = include_str!("../../runtime-c/bench_signal.c");

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
fn build(program: &back::c::Program, dir: &Path) -> Result<PathBuf, Error> {
    let exe = dir.join(&program.name);
    back::c::write_files(program, &[], dir, false)?;
    back::c::compile(program, &[], dir, &exe, false)?;
    Ok(exe)
}

/// Runs `exe` with `--json`; its output.
fn run_json(exe: &Path, name: &str) -> Result<String, Error> {
    let out = std::process::Command::new(exe)
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

/// Measures this machine: writes the harness of [`suite`] and the signal
/// ping-pong into two folders of `dir` and compiles them at once (the C
/// compiler is most of the time), runs them one after the other, fits.
/// Errors say which step failed.
pub fn measure(dir: &Path) -> Result<Coefficients, Error> {
    let desc = ssc::front::syntax::parse(&suite()).map_err(Error::SuiteParse)?;
    let mut opts = LowerOptions::default();
    opts.split.dp = ssc::lower::split::DataParallelism::None;
    let (_, h) = ssc::lower::lower_to_hsdfg(&desc, &opts).map_err(Error::SuiteLower)?;
    let wopts = back::wcet::WcetOptions {
        name: "ssc_calibrate".into(),
        runs: RUNS,
        warmup: WARMUP,
        percentile: 50.0,
        user_kernels: Vec::new(),
    };
    let program = back::wcet::emit(&h, &wopts).map_err(Error::Harness)?;
    let sync = sync_program();
    let (harness_dir, sync_dir) = (dir.join("harness"), dir.join("sync"));
    let (harness_exe, sync_exe) = std::thread::scope(|s| {
        let sync_build = s.spawn(|| build(&sync, &sync_dir));
        let harness = build(&program, &harness_dir);
        let sync = sync_build.join().unwrap_or(Err(Error::BuildPanicked));
        (harness, sync)
    });
    // One at a time: neither measurement shares the machine with the other.
    let stdout = run_json(&harness_exe?, &program.name)?;
    let sync_text = run_json(&sync_exe?, &sync.name)?;
    let report = back::wcet::parse_report(&stdout)?;
    let medians: BTreeMap<String, f64> = report
        .profiles
        .iter()
        .map(|p| (p.function.clone(), p.percentile))
        .collect();
    let mut c = fit(&medians)?;
    (c.wait, c.signal, c.transfer) = sync_costs(&sync_text)?.fit()?;
    c.validate()?;
    Ok(c)
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
}

/// What every version of the format starts with: read first, so a file of
/// another version is named as such rather than as a malformed one.
#[derive(Deserialize)]
struct Header {
    format: String,
    version: u32,
}

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
    /// The `-v` line: which coefficients, and from where.
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
                "cost model: shipped defaults (no calibration for {}; `ssc calibrate` measures it in a few seconds)",
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
pub fn store(c: &Coefficients, cpu: &str, seconds: f64) -> Result<PathBuf, Error> {
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
        coefficients: c.to_named(),
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
    fn the_suite_lowers_with_one_instance_per_measurement() {
        let desc = ssc::front::syntax::parse(&suite()).unwrap();
        let mut opts = LowerOptions::default();
        opts.split.dp = ssc::lower::split::DataParallelism::None;
        let (_, h) = ssc::lower::lower_to_hsdfg(&desc, &opts).unwrap();
        assert_eq!(h.functions.len(), 15 + DEFINED.len() + 2 * 7);
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

    #[test]
    fn the_fit_recovers_the_coefficients_of_exact_times() {
        // Times made by a known model fit back to it.
        let c = Coefficients::shipped();
        let desc = ssc::front::syntax::parse(&suite()).unwrap();
        let d = ssc::lower::lower_to_declaration(&desc, &LowerOptions::default())
            .unwrap()
            .declaration
            .unwrap();
        let medians: BTreeMap<String, f64> = d
            .functions
            .iter()
            .map(|f| {
                let fd = d.function_decl(f.function.as_str()).unwrap();
                let i = ssc::lower::timing::Instance::new(f.name.as_str(), fd, f.resolution.value);
                let t = match d.definition(fd.name.as_str()) {
                    Some(def) => c.defined_cost(Work::of(def, &fd.ports), i.resolution),
                    None => c.cost(i.function, i.ty, i.resolution, i.window).unwrap(),
                };
                (f.name.name.clone(), t)
            })
            .collect();
        let fitted = fit(&medians).unwrap();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-6 * a.abs().max(1.0);
        assert!(close(fitted.call, c.call), "{fitted:?}");
        assert!(close(fitted.tap, c.tap), "{fitted:?}");
        for ((name, fitted), (_, shipped)) in fitted.defined().into_iter().zip(c.defined()) {
            assert!(close(fitted, shipped), "{name}: {fitted} against {shipped}");
        }
        for i in 0..11 {
            assert!(close(fitted.point[i], c.point[i]), "{i}: {fitted:?}");
        }
        for i in 0..8 {
            assert!(close(fitted.types[i], c.types[i]), "{i}: {fitted:?}");
        }
    }
}
