//! The text report of `ssc ptts`: the plan (printed before the analysis
//! starts), then the statistics, PMF, CDF, loss and, with `-v`, the first
//! latency trees. [`Summary`] holds the statistics that the JSON and SVG
//! reports share.

use super::exact::{Analysis, TreeNode};
use super::model::Model;
use super::num::{fraction, grid_text, prob_text, ratio};
use super::plan::Plan;
use super::simulate::Simulation;
use num_bigint::BigUint;
use num_traits::Zero;
use std::fmt::Write as _;

/// One point of the distribution (the exact fractions are the JSON's,
/// from the analysis' weights: [`super::json`]).
#[derive(Clone, Debug)]
pub struct Point {
    pub latency: i128,
    /// The probability as a float.
    pub p: f64,
    /// P(latency ≤ this), as a float.
    pub cdf: f64,
}

/// Statistics of the exact distribution.
#[derive(Clone, Debug)]
pub struct Summary {
    pub points: Vec<Point>,
    pub min: i128,
    pub max: i128,
    pub mean: f64,
    pub mean_exact: String,
    pub sigma: f64,
    pub variance_exact: String,
    /// (name, latency): the smallest latency whose CDF reaches the level.
    pub percentiles: Vec<(&'static str, i128)>,
    pub loss: Option<f64>,
    pub loss_exact: Option<String>,
}

const LEVELS: &[(&str, u32, u32)] = &[
    ("p50", 1, 2),
    ("p90", 9, 10),
    ("p95", 19, 20),
    ("p99", 99, 100),
    ("p99.9", 999, 1000),
    ("p99.99", 9999, 10000),
];

impl Summary {
    /// The statistics of an analysis of a model on a grid of `10^-scale`.
    pub fn new(a: &Analysis<BigUint>, scale: u32) -> Summary {
        let den = &a.den;
        let unit = BigUint::from(10u32).pow(scale);
        let mut cum = BigUint::zero();
        let mut s1 = BigUint::zero();
        let mut s2 = BigUint::zero();
        let mut points = Vec::new();
        let mut percentiles = Vec::new();
        let mut level = 0;
        for (l, w) in &a.pmf {
            cum += w;
            let lb = BigUint::from(*l as u128);
            s1 += &lb * w;
            s2 += &lb * &lb * w;
            while level < LEVELS.len() {
                let (name, n, d) = LEVELS[level];
                if &cum * BigUint::from(d) >= den * BigUint::from(n) {
                    percentiles.push((name, *l));
                    level += 1;
                } else {
                    break;
                }
            }
            points.push(Point {
                latency: *l,
                p: ratio(w, den),
                cdf: ratio(&cum, den),
            });
        }
        // variance = (den·Σl²w − (Σlw)²) / den²
        let num_var = den * &s2 - &s1 * &s1;
        let den2 = den * den;
        let loss = a.loss.as_ref().map(|l| ratio(&l.total, &l.den));
        let loss_exact = a.loss.as_ref().map(|l| fraction(&l.total, &l.den));
        Summary {
            min: a.pmf.first().map(|p| p.0).unwrap_or(0),
            max: a.pmf.last().map(|p| p.0).unwrap_or(0),
            mean: ratio(&s1, den),
            mean_exact: fraction(&s1, &(den * &unit)),
            sigma: ratio(&num_var, &den2).max(0.0).sqrt(),
            variance_exact: fraction(&num_var, &(&den2 * &unit * &unit)),
            points,
            percentiles,
            loss,
            loss_exact,
        }
    }
}

/// A grid value scaled to the file's unit as a float.
fn unit(model: &Model, v: f64) -> f64 {
    v / 10f64.powi(model.scale as i32)
}

/// The lines printed before the analysis: the chain and its plan.
pub fn header(model: &Model, name: &str, plan: &Plan) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ptts {name}: {} component{}, grid {}, times in {}",
        model.components.len(),
        if model.components.len() == 1 { "" } else { "s" },
        grid_text(1, model.scale),
        model
            .unit
            .as_deref()
            .unwrap_or("the file's unit (--unit names it)")
    );
    let width = model
        .components
        .iter()
        .map(|c| c.name.len())
        .max()
        .unwrap_or(0);
    for (i, c) in model.components.iter().enumerate() {
        let rounded = match &c.rounded_from {
            Some(d) => format!(" (rounded from {d})"),
            None => String::new(),
        };
        // Padded by hand: a `{:width$}` width must stay below 65 536, and
        // a name may be longer.
        let pad = " ".repeat(width - c.name.len());
        let _ = writeln!(
            out,
            "  C{i} {}{pad}  period {}{rounded}  offset {}  etp {}",
            c.name,
            model.time(c.period),
            model.time(c.offset),
            c.etp_text,
        );
    }
    if let Some(step) = model.round {
        let _ = writeln!(
            out,
            "periods rounded to multiples of {step} (--round, Sec. 5.7): the result approximates the file's chain"
        );
    }
    let _ = writeln!(
        out,
        "hyper-period {}: {} latency trees (eq. 5.15: {}); at most {} operations, {} MiB{}",
        grid_text(plan.hyper_period as i128, model.scale),
        plan.trees,
        plan.estimate,
        plan.operations,
        plan.memory.div_ceil(1 << 20),
        if plan.big { ", big integers" } else { "" }
    );
    out
}

/// The latency's support, mean, σ and percentiles.
fn write_summary(out: &mut String, model: &Model, s: &Summary) {
    let t = |v: i128| model.time(v);
    let _ = writeln!(out, "\n{}", model.with_unit("end-to-end latency"));
    let _ = writeln!(
        out,
        "  support  [{}, {}], {} values",
        t(s.min),
        t(s.max),
        s.points.len()
    );
    let _ = writeln!(
        out,
        "  mean     {:.4}  (exactly {})",
        unit(model, s.mean),
        s.mean_exact
    );
    let _ = writeln!(out, "  σ        {:.4}", unit(model, s.sigma));
    let ps: Vec<String> = s
        .percentiles
        .iter()
        .map(|(n, l)| format!("{n} {}", t(*l)))
        .collect();
    let _ = writeln!(out, "  {}", ps.join("  "));
}

/// The report after the analysis.
pub fn body(
    model: &Model,
    a: &Analysis<BigUint>,
    s: &Summary,
    sim: Option<&Simulation>,
    verbose: bool,
) -> String {
    let mut out = String::new();
    write_summary(&mut out, model, s);
    let t = |v: i128| model.time(v);

    let _ = writeln!(out, "\nPMF and CDF");
    let rows = bins(model, s);
    let maxp = rows.iter().map(|r| r.1).fold(0.0, f64::max);
    for (label, p, cdf) in &rows {
        let bar = if maxp > 0.0 {
            "#".repeat((p / maxp * 40.0).round() as usize)
        } else {
            String::new()
        };
        let row = format!(
            "  {label:>17}  {:>10}  {:>8}  {bar}",
            prob_text(*p),
            prob_text(*cdf)
        );
        let _ = writeln!(out, "{}", row.trim_end());
    }
    if rows.len() < s.points.len() {
        let _ = writeln!(
            out,
            "  ({} values in {} bins; --json gives every value exactly)",
            s.points.len(),
            rows.len()
        );
    }

    if let (Some(loss), Some(l)) = (&a.loss, s.loss) {
        let _ = writeln!(
            out,
            "\nloss probability {}  (exactly {}; {} pairs of trees can meet)",
            prob_text(l),
            s.loss_exact.clone().unwrap_or_default(),
            loss.pairs
        );
        let shown = if verbose {
            loss.top.len()
        } else {
            loss.top.len().min(10)
        };
        for c in &loss.top[..shown] {
            let _ = writeln!(
                out,
                "  triggerings {} and {} meet at C{} {} at {}: {}",
                t(c.a),
                t(c.b),
                c.component,
                model.components[c.component].name,
                t(c.time),
                prob_text(ratio(&c.weight, &loss.den))
            );
        }
    }

    if let Some(loss) = &a.loss {
        if loss.top.len() > 10 && !verbose {
            let _ = writeln!(
                out,
                "  ({} contributions in all: -v or --json lists them)",
                loss.top.len()
            );
        }
    }
    if let Some(sim) = sim {
        let _ = writeln!(
            out,
            "\nsimulation of {} containers: total-variation distance to the exact PMF {:.6}",
            sim.containers, sim.tv
        );
    }

    if verbose {
        let _ = writeln!(
            out,
            "\nlatency trees (the first {} of {})",
            a.trees.len(),
            a.plan.trees
        );
        for tree in &a.trees {
            write_tree(&mut out, model, tree, 1);
        }
        if a.trees_truncated {
            let _ = writeln!(out, "  (trees cut short: too many nodes to show)");
        }
        let _ = writeln!(
            out,
            "\nthe analysis counted {} operations (the plan's bound: {})",
            a.operations, a.plan.operations
        );
    }
    out
}

fn write_tree(out: &mut String, model: &Model, n: &TreeNode, depth: usize) {
    let who = if n.component < model.components.len() {
        format!("C{} {}", n.component, model.components[n.component].name)
    } else {
        "output".to_string()
    };
    let p = if n.total == u128::MAX {
        String::new()
    } else {
        format!(
            "  p {} ({})",
            prob_text(n.weight as f64 / n.total as f64),
            fraction(&n.weight, &n.total)
        )
    };
    let _ = writeln!(
        out,
        "{}{who} at {}{p}",
        "  ".repeat(depth),
        model.time(n.time)
    );
    for c in &n.children {
        write_tree(out, model, c, depth + 1);
    }
}

/// Rows of the text PMF: every value when there are at most 60, else 40
/// bins of equal width (label `[lo, hi]`).
fn bins(model: &Model, s: &Summary) -> Vec<(String, f64, f64)> {
    if s.points.len() <= 60 {
        return s
            .points
            .iter()
            .map(|p| (model.time(p.latency), p.p, p.cdf))
            .collect();
    }
    let n = 40i128;
    let span = s.max - s.min + 1;
    let width = (span + n - 1) / n;
    let mut rows = Vec::new();
    let mut it = s.points.iter().peekable();
    let mut lo = s.min;
    while lo <= s.max {
        let hi = lo + width - 1;
        let mut p = 0.0;
        let mut cdf = None;
        while let Some(pt) = it.peek() {
            if pt.latency > hi {
                break;
            }
            p += pt.p;
            cdf = Some(pt.cdf);
            it.next();
        }
        let cdf =
            cdf.unwrap_or_else(|| rows.last().map(|r: &(String, f64, f64)| r.2).unwrap_or(0.0));
        rows.push((
            format!("[{}, {}]", model.time(lo), model.time(hi.min(s.max))),
            p,
            cdf,
        ));
        lo = hi + 1;
    }
    rows
}
