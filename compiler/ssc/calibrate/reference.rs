//! The reference chain and the program factor (`super`'s docs, "Inside
//! a program"; `lower::cost`, "Inside a program").

use super::{build, relative_spread, run_json_with, Error, PASSES};
use ssc::back;
use ssc::lower::cost::{Coefficients, PROGRAM_FACTORS};
use std::path::Path;

/// The reference chain's side (its coarse branch runs at half of it).
pub const REFERENCE_SIDE: u64 = 1024;
/// Threads the reference program runs on.
pub const REFERENCE_THREADS: usize = 2;
/// The strip height of the reference in strips (rows of its full side).
pub const REFERENCE_STRIP_ROWS: u64 = 32;

/// How the reference program is scheduled, one program factor each: on
/// whole frames (`-ts reduced 2 -ms reuse`, the factor of every schedule
/// that is not in strips) or in strips (`-ts fused 2 --strip-rows 32`,
/// the factor of `-ts fused` streaming, `lower::cost`, "In strips").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Regime {
    Whole,
    Strips,
}

impl Regime {
    pub const ALL: [Regime; 2] = [Regime::Whole, Regime::Strips];

    /// Its factor in `c`.
    pub fn factor(self, c: &mut Coefficients) -> &mut f64 {
        match self {
            Regime::Whole => &mut c.program,
            Regime::Strips => &mut c.strip_program,
        }
    }

    /// Its folder and its name in `ssc calibrate`'s report.
    pub fn name(self) -> &'static str {
        match self {
            Regime::Whole => "whole frames",
            Regime::Strips => "strips",
        }
    }

    fn options(self) -> ssc::pipeline::Options {
        use ssc::memory::MemoryKind;
        use ssc::schedule::SchedulerKind;
        match self {
            Regime::Whole => ssc::pipeline::Options::new(
                SchedulerKind::Reduced(REFERENCE_THREADS),
                MemoryKind::Reuse,
            ),
            Regime::Strips => {
                let mut o = ssc::pipeline::Options::new(
                    SchedulerKind::Fused(REFERENCE_THREADS),
                    MemoryKind::Fold,
                );
                let mut strips = ssc::lower::split::Strips::new(1 << 20);
                strips.rows = Some(REFERENCE_STRIP_ROWS);
                strips.forced = true;
                o.lower.split.strips = Some(strips);
                o
            }
        }
    }
}
/// The reference program's period over its back-to-back mean latency.
pub(super) const REFERENCE_PERIOD: f64 = 2.0;
/// Iterations of one run of the reference program (one a pass).
const REFERENCE_ITERATIONS: u64 = 200;

/// The reference chain that measures the program factor: a small imaging
/// chain of `float` stages (a dark correction, a 5×5 smoothing, a detail
/// layer, a 2×2 mean down, a 3×3 median, a linear up, a merge and a
/// conversion to 16 bits), with one branch at half the side. None of the
/// bundled examples or benchmarks.
pub fn reference() -> String {
    let (n, h) = (REFERENCE_SIDE, REFERENCE_SIDE / 2);
    format!(
        "declaration {{
  function_declaration func_source_ushort FULL {{ out OUT ushort mul [1, 1]; }};
  function_declaration func_source FULL {{ out OUT float mul [1, 1]; }};
  function_declaration func_sink_ushort FULL {{ in IN ushort mul [1, 1]; }};
  function_declaration func_sink FULL {{ in IN float mul [1, 1]; }};
  function_declaration ref_correct FULL {{ raw IN ushort mul [1, 1]; dark IN float mul [1, 1]; out OUT float mul [1, 1]; }};
  function_definition ref_correct {{ out = max(float(raw) - dark, 0); }};
  function_declaration ref_smooth FULL {{ in IN float mul [1, 1] [5, 5]; out OUT float mul [1, 1]; }};
  function_definition ref_smooth {{ out = separable(in, [1, 4, 6, 4, 1], [1, 4, 6, 4, 1]) / 256; }};
  function_declaration ref_detail FULL {{ image IN float mul [1, 1]; smooth IN float mul [1, 1]; out OUT float mul [1, 1]; }};
  function_definition ref_detail {{ out = image - smooth; }};
  function_declaration ref_down FULL {{ in IN float mul [2, 2]; out OUT float mul [1, 1]; }};
  function_definition ref_down {{ out = mean(in); }};
  function_declaration ref_median FULL {{ in IN float mul [1, 1] [3, 3]; out OUT float mul [1, 1]; }};
  function_definition ref_median {{ out = median(in); }};
  function_declaration ref_up FULL {{ in IN float mul [1, 1] [3, 3]; out OUT float mul [2, 2]; }};
  function_definition ref_up {{ out = linear(in); }};
  function_declaration ref_merge FULL {{ coarse IN float mul [1, 1]; detail IN float mul [1, 1]; out OUT float mul [1, 1]; }};
  function_definition ref_merge {{ out = coarse + 1.5 * detail; }};
  function_declaration ref_out FULL {{ in IN float mul [1, 1]; out OUT ushort mul [1, 1]; }};
  function_definition ref_out {{ out = ushort(clamp(round(in), 0, 65535)); }};
  function raw func_source_ushort [{n}, {n}], dark func_source [{n}, {n}],
    correct ref_correct [{n}, {n}], smooth ref_smooth [{n}, {n}], detail ref_detail [{n}, {n}],
    down ref_down [{h}, {h}], median ref_median [{h}, {h}], up ref_up [{h}, {h}],
    merge ref_merge [{n}, {n}], out ref_out [{n}, {n}],
    image func_sink_ushort [{n}, {n}], preview func_sink [{h}, {h}];
  raw.out -> correct.raw;
  dark.out -> correct.dark;
  correct.out -> smooth.in;
  correct.out -> detail.image;
  smooth.out -> detail.smooth;
  smooth.out -> down.in;
  down.out -> median.in;
  median.out -> up.in;
  median.out -> preview.in;
  up.out -> merge.coarse;
  detail.out -> merge.detail;
  merge.out -> out.in;
  out.out -> image.in;
}}
"
    )
}

/// The reference chain compiled with coefficients `c` under `regime`, and
/// its predicted latency (µs, `-pr`'s).
pub(super) fn reference_compiled(
    c: &Coefficients,
    regime: Regime,
) -> Result<(ssc::pipeline::Compiled, f64), Error> {
    let mut opts = regime.options();
    opts.lower.cost = Some(*c);
    let compiled = ssc::compile(&reference(), &opts).map_err(Error::Reference)?;
    let predicted = ssc::analysis::analyse(&compiled)
        .map_err(|d| Error::ReferenceAnalysis(format!("{d:?}")))?
        .latency_us;
    Ok((compiled, predicted))
}

/// The reference program of a compilation of [`reference`].
pub(super) fn reference_program(
    compiled: &ssc::pipeline::Compiled,
) -> Result<back::c::Program, Error> {
    let opts = back::c::COptions {
        name: "ssc_calibrate_reference".into(),
        iterations: REFERENCE_ITERATIONS,
        cores: compiled.cores.clone(),
        ..Default::default()
    };
    back::c::emit(&compiled.hsdfg, &compiled.runtime, &opts).map_err(Error::Reference)
}

/// One run of the reference program, back to back (`period_us` `None`)
/// or with a frame every `period_us`: its mean and its median latency
/// (p50), µs. The factor is fitted to the median, not the mean: a frame
/// the host stalls for milliseconds (a preempted vCPU) moves the mean of a
/// run by tens of per cent and its median by nothing, and the factor is a
/// property of the program. The period follows the mean, so that the
/// frames do not queue.
pub(super) fn reference_latency(exe: &Path, period_us: Option<f64>) -> Result<(f64, f64), Error> {
    let args: Vec<String> = match period_us {
        Some(p) => vec!["--period-us".into(), format!("{:.0}", p.ceil())],
        None => Vec::new(),
    };
    let text = run_json_with(exe, "ssc_calibrate_reference", &args)?;
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| {
            Some((
                v["latency_us"]["mean"].as_f64()?,
                v["latency_us"]["p50"].as_f64()?,
            ))
        })
        .filter(|(m, p)| [m, p].iter().all(|v| v.is_finite() && **v > 0.0))
        .ok_or_else(|| Error::ReferenceOutput(text.trim().to_string()))
}

/// A program factor as measured: the factor, and what it says of the
/// measurement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Factor {
    /// Within [`PROGRAM_FACTORS`].
    pub value: f64,
    /// The measured one before it was held to [`PROGRAM_FACTORS`].
    pub measured: f64,
    /// The runs' spread: (largest − smallest latency) / their median.
    pub spread: f64,
    /// How many runs it rests on ([`PASSES`]).
    pub runs: usize,
}

/// The program factor under `regime` of coefficients `c` fitted on the
/// harness, from the median latencies `means` of the reference program's
/// passes built as `built`: the smallest over the latency `c` predicts for it, refined
/// once so the prediction with the factor (whose waits and signals it does
/// not scale) meets the measurement, held to [`PROGRAM_FACTORS`]. When `c`
/// schedules the reference otherwise than `built` ran it, that schedule is
/// built and measured again here. The refinement predicts with the factor
/// applied, which may schedule the reference otherwise again; it is one
/// step of a few per cent, so that schedule is not measured.
pub(super) fn program_factor(
    c: &Coefficients,
    regime: Regime,
    built: &ssc::pipeline::Compiled,
    mut means: Vec<f64>,
    dir: &Path,
) -> Result<Factor, Error> {
    let (compiled, predicted) = reference_compiled(c, regime)?;
    if compiled.runtime != built.runtime {
        let again = dir.join(format!(
            "reference-again-{}",
            regime.name().replace(' ', "-")
        ));
        let exe = build(&reference_program(&compiled)?, &again)?;
        let period = REFERENCE_PERIOD * reference_latency(&exe, None)?.0;
        means = (0..PASSES)
            .map(|_| Ok::<f64, Error>(reference_latency(&exe, Some(period))?.1))
            .collect::<Result<_, _>>()?;
    }
    // The fastest run: a busy host only ever adds time to a run, so the
    // least disturbed is the closest to the program's own.
    let spread = relative_spread(&means);
    let measured = means.iter().copied().fold(f64::INFINITY, f64::min);
    let mut factor = measured / predicted;
    let mut scaled = *c;
    *regime.factor(&mut scaled) = factor;
    let (_, again) = reference_compiled(&scaled, regime)?;
    factor *= measured / again;
    Ok(Factor {
        value: factor.clamp(*PROGRAM_FACTORS.start(), *PROGRAM_FACTORS.end()),
        measured: factor,
        spread,
        runs: means.len(),
    })
}
