//! The PTTS model: a parsed `.ptts` file resolved onto its grid.
//!
//! Takes the `syntax::PttsFile` and gives a [`Model`]:
//! every time (period, offset, ETP value) a whole number of grid steps,
//! every ETP a list of (value, weight) with exact whole weights over their
//! total. The grid is the finest decimal step any time of the file uses
//! (after `--round`, which only changes periods; the ETP files' values
//! count too). Reads `etp file "…"` profiles (the ETP JSON of
//! `docs/ptts.md`). Reports every problem as a diagnostic `E402`–`E413`.

use super::syntax::{ComponentSpec, Decimal, EtpSpec, Probability, PttsFile, MAX_SCALE};
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{One, ToPrimitive, Zero};
use ssc::diagnostics::Diagnostic;
use ssc::ir::Span;
use std::collections::BTreeMap;
use std::path::Path;

/// An execution-time profile on the grid: values in grid steps, sorted,
/// each with a positive weight; the probability of a value is its weight
/// over `total` (weights share no common factor). `runs` writes the same
/// points compactly (a `uniform` is one run), for the analysis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Etp {
    pub points: Vec<(i128, u128)>,
    pub total: u128,
    pub runs: Vec<Run>,
}

/// Equally likely values in arithmetic progression: `start + j·step` for
/// `j` in `0..count`, each with weight `weight`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub start: i128,
    /// At least 1 (1 for a run of one value).
    pub step: i128,
    pub count: i128,
    pub weight: u128,
}

impl Run {
    /// The last value.
    pub fn last(&self) -> i128 {
        self.start + (self.count - 1) * self.step
    }
}

impl Etp {
    /// An ETP of sorted points with positive weights over `total`.
    pub fn new(points: Vec<(i128, u128)>, total: u128) -> Etp {
        let runs = runs(&points);
        Etp {
            points,
            total,
            runs,
        }
    }
    pub fn min(&self) -> i128 {
        self.points.first().map(|p| p.0).unwrap_or(0)
    }
    pub fn max(&self) -> i128 {
        self.points.last().map(|p| p.0).unwrap_or(0)
    }
}

/// One component of the chain on the grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Component {
    pub name: String,
    /// Period and offset in grid steps (period > 0).
    pub period: i128,
    pub offset: i128,
    pub etp: Etp,
    /// The ETP as the file writes it (`uniform [50, 149]`), for reports.
    pub etp_text: String,
    /// The period as the file wrote it, when `--round` changed it.
    pub rounded_from: Option<Decimal>,
    pub span: Span,
}

/// A chain resolved on its grid of `10^-scale` time units.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    pub scale: u32,
    pub components: Vec<Component>,
    /// `--round STEP`, when given.
    pub round: Option<Decimal>,
    /// The unit of every time (`ms`): the `unit` the ETP files declare
    /// when they agree, or `ssc ptts --unit`; `None` when nothing says.
    pub unit: Option<String>,
}

impl Model {
    /// A grid value as a decimal in the file's unit.
    pub fn time(&self, v: i128) -> String {
        super::num::grid_text(v, self.scale)
    }
    /// `latency (ms)`, or `latency (time units of the file)`: an axis or
    /// heading with its unit.
    pub fn with_unit(&self, what: &str) -> String {
        match &self.unit {
            Some(u) => format!("{what} ({u})"),
            None => format!("{what} (time units of the file)"),
        }
    }
    pub fn time_f64(&self, v: i128) -> f64 {
        v as f64 / 10f64.powi(self.scale as i32)
    }
}

/// Sorted points as runs, greedily: a point extends the run before it when
/// it has the run's weight and continues its progression. Runs cover
/// consecutive points, so their value ranges are disjoint and in order.
fn runs(points: &[(i128, u128)]) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    for &(v, w) in points {
        if let Some(r) = out.last_mut() {
            if r.weight == w && (r.count == 1 || v == r.start + r.count * r.step) {
                if r.count == 1 {
                    r.step = v - r.start;
                }
                r.count += 1;
                continue;
            }
        }
        out.push(Run {
            start: v,
            step: 1,
            count: 1,
            weight: w,
        });
    }
    out
}

/// The most grid points a `uniform` ETP may have.
pub const MAX_UNIFORM_POINTS: u128 = 1_000_000;
/// A file ETP's probabilities must sum to 1 within this (then they are
/// normalised exactly by their sum).
pub const FILE_TOLERANCE: f64 = 1e-6;

/// The ETP JSON (`docs/ptts.md`): `{"function": name, "unit": "us",
/// "pmf": [[value, probability], …]}`.
#[derive(Clone, Debug, serde::Deserialize, serde::Serialize)]
pub struct EtpJson {
    #[serde(default)]
    pub function: Option<String>,
    #[serde(default)]
    pub unit: Option<String>,
    pub pmf: Vec<(f64, f64)>,
}

/// A decimal written by a float (shortest round-trip text).
fn float_decimal(f: f64) -> Option<Decimal> {
    if !f.is_finite() || f < 0.0 {
        return None;
    }
    Decimal::parse(&format!("{f}"))
}

/// An ETP before the grid is known: values as decimals, exact weights.
struct RawEtp {
    values: Vec<(Decimal, BigUint)>,
    uniform: Option<(Decimal, Decimal)>,
    /// The `unit` of an ETP file.
    unit: Option<String>,
}

/// Resolves a parsed file. `base` is the folder that relative ETP file
/// names start from; `round` is `--round STEP`.
pub fn resolve(
    file: &PttsFile,
    base: &Path,
    round: Option<Decimal>,
) -> Result<Model, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    if file.components.is_empty() {
        errors.push(
            Diagnostic::error("E410", "the chain has no component")
                .label(file.span, "no `component` in here")
                .hint("add `component NAME period D offset O etp …;` lines (docs/ptts.md)"),
        );
        return Err(errors);
    }
    check_names_and_periods(file, &mut errors);
    let raws: Vec<Option<RawEtp>> = file
        .components
        .iter()
        .map(|c| raw_etp(c, base, &mut errors))
        .collect();
    if !errors.is_empty() {
        return Err(errors);
    }
    let raws: Vec<RawEtp> = raws.into_iter().flatten().collect();
    let unit = common_unit(&raws);
    let periods = rounded_periods(file, round);
    let scale = grid_scale(file, &raws, &periods);

    let mut components = Vec::new();
    for ((c, raw), (period, rounded_from)) in file.components.iter().zip(raws).zip(periods) {
        let too_big = |span: Span| {
            Diagnostic::error("E412", "number too large for the analysis")
                .label(span, "too large on the file's grid")
                .hint("times are whole numbers of grid steps below 2^96: use fewer digits")
        };
        let limit = 1u128 << 96;
        let grid = |d: Decimal| d.on_grid(scale).filter(|v| *v < limit);
        let Some(p) = grid(period) else {
            errors.push(too_big(c.period.span));
            continue;
        };
        let offset = c.offset.as_ref().map(|o| o.value).unwrap_or(Decimal::ZERO);
        let Some(o) = grid(offset) else {
            errors.push(too_big(c.offset.as_ref().map(|o| o.span).unwrap_or(c.span)));
            continue;
        };
        let etp = match etp_on_grid(c, raw, scale) {
            Ok(e) => e,
            Err(d) => {
                errors.push(d);
                continue;
            }
        };
        components.push(Component {
            name: c.name.name.clone(),
            period: p as i128,
            offset: o as i128,
            etp,
            etp_text: etp_text(&c.etp),
            rounded_from,
            span: c.span,
        });
    }
    if errors.is_empty() {
        Ok(Model {
            scale,
            components,
            round,
            unit,
        })
    } else {
        Err(errors)
    }
}

/// Reports a component name defined twice (E409) and a zero period (E402),
/// in the order of the components.
fn check_names_and_periods(file: &PttsFile, errors: &mut Vec<Diagnostic>) {
    let mut seen: BTreeMap<&str, Span> = BTreeMap::new();
    for c in &file.components {
        if let Some(first) = seen.get(c.name.name.as_str()) {
            errors.push(
                Diagnostic::error("E409", format!("component `{}` defined twice", c.name.name))
                    .label(c.name.span, "defined again here")
                    .label(*first, "first defined here")
                    .hint("each component of the chain needs its own name"),
            );
        } else {
            seen.insert(&c.name.name, c.name.span);
        }
        if c.period.value.mantissa == 0 {
            errors.push(
                Diagnostic::error("E402", "a period must be greater than 0")
                    .label(c.period.span, "zero period")
                    .hint("the period is the time between two triggerings of the component"),
            );
        }
    }
}

/// The ETP files' unit, when they name one and agree.
fn common_unit(raws: &[RawEtp]) -> Option<String> {
    let mut units: Vec<&str> = raws.iter().filter_map(|r| r.unit.as_deref()).collect();
    units.sort();
    units.dedup();
    match units.as_slice() {
        [u] => Some(u.to_string()),
        _ => None,
    }
}

/// Each component's period after `--round`, with the period as written
/// when rounding changed it.
fn rounded_periods(file: &PttsFile, round: Option<Decimal>) -> Vec<(Decimal, Option<Decimal>)> {
    file.components
        .iter()
        .map(|c| match round {
            Some(step) if step.mantissa > 0 => {
                let r = round_to(c.period.value, step);
                if r == c.period.value {
                    (r, None)
                } else {
                    (r, Some(c.period.value))
                }
            }
            _ => (c.period.value, None),
        })
        .collect()
}

/// The grid: the finest step among all times, at most [`MAX_SCALE`].
fn grid_scale(file: &PttsFile, raws: &[RawEtp], periods: &[(Decimal, Option<Decimal>)]) -> u32 {
    let mut scale = 0;
    for (c, raw) in file.components.iter().zip(raws) {
        scale = scale.max(c.period.value.min_scale());
        if let Some(o) = &c.offset {
            scale = scale.max(o.value.min_scale());
        }
        for (v, _) in &raw.values {
            scale = scale.max(v.min_scale());
        }
        if let Some((lo, hi)) = raw.uniform {
            scale = scale.max(lo.min_scale()).max(hi.min_scale());
        }
    }
    for (p, _) in periods {
        scale = scale.max(p.min_scale());
    }
    scale.min(MAX_SCALE)
}

/// `d` rounded to the nearest multiple of `step` (halves up), at least `step`.
pub fn round_to(d: Decimal, step: Decimal) -> Decimal {
    let scale = d.scale.max(step.scale);
    let (Some(v), Some(s)) = (d.on_grid(scale), step.on_grid(scale)) else {
        return d;
    };
    let k = ((v + s / 2) / s).max(1);
    match k.checked_mul(s) {
        Some(m) => Decimal { mantissa: m, scale },
        None => d,
    }
}

fn etp_text(e: &EtpSpec) -> String {
    match e {
        EtpSpec::Uniform { lo, hi } => format!("uniform [{}, {}]", lo.value, hi.value),
        EtpSpec::Point(v) => format!("point {}", v.value),
        EtpSpec::Table(entries) => {
            let parts: Vec<String> = entries
                .iter()
                .map(|(v, p)| {
                    let p = p.value;
                    match p.denominator {
                        Some(d) => format!("{}: {}/{}", v.value, p.numerator, d),
                        None => format!("{}: {}", v.value, p.numerator),
                    }
                })
                .collect();
            format!("table [{}]", parts.join(", "))
        }
        EtpSpec::File(path) => format!("file \"{}\"", path.value),
    }
}

/// A probability as an exact fraction `(numerator, denominator)`.
fn fraction(p: &Probability) -> Option<(BigUint, BigUint)> {
    let n = BigUint::from(p.numerator.mantissa);
    let (dm, ds) = match p.denominator {
        Some(d) => (d.mantissa, d.scale),
        None => (1, 0),
    };
    if dm == 0 {
        return None;
    }
    let ten = BigUint::from(10u32);
    // (n / 10^sn) / (dm / 10^ds) = n·10^ds / (dm·10^sn)
    let num = n * ten.pow(ds);
    let den = BigUint::from(dm) * ten.pow(p.numerator.scale);
    Some((num, den))
}

/// Exact weights of fractions over their common denominator.
fn common(fracs: &[(BigUint, BigUint)]) -> (Vec<BigUint>, BigUint) {
    let l = fracs.iter().fold(BigUint::one(), |acc, (_, d)| acc.lcm(d));
    let w = fracs.iter().map(|(n, d)| n * (&l / d)).collect();
    (w, l)
}

fn raw_etp(c: &ComponentSpec, base: &Path, errors: &mut Vec<Diagnostic>) -> Option<RawEtp> {
    match &c.etp {
        EtpSpec::Uniform { lo, hi } => {
            if lo.value.to_f64() > hi.value.to_f64()
                || compare(lo.value, hi.value) == std::cmp::Ordering::Greater
            {
                errors.push(
                    Diagnostic::error("E403", "an empty `uniform` interval")
                        .label(lo.span, "the lower end")
                        .label(hi.span, "is above the upper end")
                        .hint("write `uniform [LOW, HIGH]` with LOW ≤ HIGH"),
                );
                return None;
            }
            Some(RawEtp {
                values: Vec::new(),
                uniform: Some((lo.value, hi.value)),
                unit: None,
            })
        }
        EtpSpec::Point(v) => Some(RawEtp {
            values: vec![(v.value, BigUint::one())],
            uniform: None,
            unit: None,
        }),
        EtpSpec::Table(entries) => {
            let mut fracs = Vec::new();
            let mut ok = true;
            let mut seen: Vec<(Decimal, Span)> = Vec::new();
            for (v, p) in entries {
                if let Some((_, first)) = seen
                    .iter()
                    .find(|(d, _)| compare(*d, v.value) == std::cmp::Ordering::Equal)
                {
                    errors.push(
                        Diagnostic::error("E405", format!("the value {} is given twice", v.value))
                            .label(v.span, "again here")
                            .label(*first, "first here")
                            .hint("give each execution time once, with its whole probability"),
                    );
                    ok = false;
                }
                seen.push((v.value, v.span));
                match fraction(&p.value) {
                    Some((n, d)) if !n.is_zero() && n <= d => fracs.push((n, d)),
                    _ => {
                        errors.push(
                            Diagnostic::error(
                                "E404",
                                "a probability must be above 0 and at most 1",
                            )
                            .label(p.span, "not a probability")
                            .hint("write a decimal such as `0.25` or a fraction such as `1/3`"),
                        );
                        ok = false;
                    }
                }
            }
            if !ok {
                return None;
            }
            let (weights, den) = common(&fracs);
            let sum: BigUint = weights.iter().sum();
            if sum != den {
                let s = super::num::ratio(&sum, &den);
                errors.push(
                    Diagnostic::error(
                        "E404",
                        format!(
                            "the probabilities of a table sum to {} (exactly {}), not 1",
                            s,
                            super::num::fraction(&sum, &den)
                        ),
                    )
                    .label(c.etp_span, "this table")
                    .hint("probabilities are exact: they must add up to exactly 1 (write `1/3` for a third)"),
                );
                return None;
            }
            Some(RawEtp {
                values: entries.iter().map(|(v, _)| v.value).zip(weights).collect(),
                uniform: None,
                unit: None,
            })
        }
        EtpSpec::File(path) => file_etp(&path.value, path.span, base, errors),
    }
}

fn compare(a: Decimal, b: Decimal) -> std::cmp::Ordering {
    let s = a.scale.max(b.scale);
    let ten = BigUint::from(10u32);
    let x = BigUint::from(a.mantissa) * ten.pow(s - a.scale);
    let y = BigUint::from(b.mantissa) * ten.pow(s - b.scale);
    x.cmp(&y)
}

fn file_etp(name: &str, span: Span, base: &Path, errors: &mut Vec<Diagnostic>) -> Option<RawEtp> {
    let path = base.join(name);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            errors.push(
                Diagnostic::error("E406", "cannot read the ETP file")
                    .label(span, format!("{}: {e}", path.display()))
                    .hint("the name is relative to the folder of the `.ptts` file"),
            );
            return None;
        }
    };
    let bad = |msg: String| {
        Diagnostic::error("E407", "not an ETP file")
            .label(span, msg)
            .hint(r#"an ETP file reads {"function": "NAME", "unit": "us", "pmf": [[VALUE, PROBABILITY], …]} (docs/ptts.md)"#)
    };
    let json: EtpJson = match serde_json::from_str(&text) {
        Ok(j) => j,
        Err(e) => {
            errors.push(bad(e.to_string()));
            return None;
        }
    };
    if json.pmf.is_empty() {
        errors.push(bad("`pmf` is empty".into()));
        return None;
    }
    let mut values = Vec::new();
    let mut fracs = Vec::new();
    let mut total = 0.0;
    for (i, (v, p)) in json.pmf.iter().enumerate() {
        let (Some(vd), Some(pd)) = (float_decimal(*v), float_decimal(*p)) else {
            errors.push(bad(format!(
                "entry {i} `[{v}, {p}]` needs a value ≥ 0 and a probability ≥ 0 with at most {MAX_SCALE} decimals"
            )));
            return None;
        };
        if values
            .iter()
            .any(|x| compare(*x, vd) == std::cmp::Ordering::Equal)
        {
            errors.push(bad(format!("the value {v} is given twice")));
            return None;
        }
        total += p;
        values.push(vd);
        fracs.push(fraction(&Probability {
            numerator: pd,
            denominator: None,
        })?);
    }
    if (total - 1.0).abs() > FILE_TOLERANCE {
        errors.push(
            Diagnostic::error(
                "E408",
                format!("the probabilities of an ETP file sum to {total}, not 1"),
            )
            .label(span, format!("{}", path.display()))
            .hint(format!(
                "a measured profile may be rounded, but its sum must be within {FILE_TOLERANCE} of 1"
            )),
        );
        return None;
    }
    let (weights, _) = common(&fracs);
    let kept: Vec<(Decimal, BigUint)> = values
        .into_iter()
        .zip(weights)
        .filter(|(_, w)| !w.is_zero())
        .collect();
    if kept.is_empty() {
        errors.push(bad("every probability is 0".into()));
        return None;
    }
    Some(RawEtp {
        values: kept,
        uniform: None,
        unit: json.unit.clone(),
    })
}

fn etp_on_grid(c: &ComponentSpec, raw: RawEtp, scale: u32) -> Result<Etp, Diagnostic> {
    let too_big = || {
        Diagnostic::error("E412", "an ETP too large for the analysis")
            .label(c.etp_span, "here")
            .hint("ETP values are whole numbers of grid steps below 2^96, weights below 2^127")
    };
    let limit = 1u128 << 96;
    if let Some((lo, hi)) = raw.uniform {
        let (Some(l), Some(h)) = (lo.on_grid(scale), hi.on_grid(scale)) else {
            return Err(too_big());
        };
        if h >= limit {
            return Err(too_big());
        }
        let n = h - l + 1;
        if n > MAX_UNIFORM_POINTS {
            return Err(Diagnostic::error(
                "E413",
                format!("`uniform` spreads over {n} grid points, more than {MAX_UNIFORM_POINTS}"),
            )
            .label(c.etp_span, "here")
            .hint(
                "the grid is the finest decimal step of the file: fewer decimals make it coarser",
            ));
        }
        return Ok(Etp::new((l..=h).map(|v| (v as i128, 1)).collect(), n));
    }
    let mut points = Vec::new();
    for (v, w) in &raw.values {
        let Some(g) = v.on_grid(scale).filter(|g| *g < limit) else {
            return Err(too_big());
        };
        points.push((g as i128, w.clone()));
    }
    let g = points
        .iter()
        .fold(BigUint::zero(), |acc, (_, w)| acc.gcd(w));
    let total: BigUint = points.iter().map(|(_, w)| w / &g).sum();
    let Some(total) = total.to_u128().filter(|t| *t < (1u128 << 127)) else {
        return Err(too_big());
    };
    let mut points: Vec<(i128, u128)> = points
        .into_iter()
        .map(|(v, w)| (v, (w / &g).to_u128().unwrap_or(0)))
        .collect();
    points.sort();
    Ok(Etp::new(points, total))
}
