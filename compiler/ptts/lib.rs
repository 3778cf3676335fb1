//! PTTS: exact end-to-end latency distributions of chains of time-triggered
//! components (thesis Chapter 5, `docs/ptts.md`).
//!
//! Independent of the compiler pipeline: it takes from the `ssc` crate only
//! its diagnostics, spans and the description language's lexical rules.
//! Data flows one way:
//!
//! ```text
//! text ──syntax──▶ PttsFile ──model──▶ Model ──exact::plan (cost)──▶ Plan
//!      ──refine::guard──▶ go / E414 ──exact (pmf, loss)──▶ Analysis
//!      ──report / json / svg──▶ output;  Model ──simulate──▶ Simulation
//! ```
//!
//! The plan bounds the operations the analysis counts (`Analysis::
//! operations`) before it starts, so `ssc ptts` refuses what would take
//! too long (docs/ptts.md, "Plan first, and the guard").

pub mod cost;
pub mod exact;
pub mod grammar;
pub mod json;
pub mod loss;
pub mod model;
pub mod num;
pub mod plan;
pub mod pmf;
pub mod refine;
pub mod report;
pub mod simulate;
pub mod steps;
pub mod svg;
pub mod syntax;
pub mod times;

use num_bigint::BigUint;
use ssc::diagnostics::{Diagnostic, SourceFile};
use std::path::Path;

pub use exact::Analysis;
pub use model::Model;
pub use plan::{Options, Plan};
pub use syntax::Decimal;

/// Parses and resolves a `.ptts` file; `base` is the folder of ETP files.
pub fn load(
    file: &SourceFile,
    base: &Path,
    round: Option<Decimal>,
) -> Result<Model, Vec<Diagnostic>> {
    let parsed = syntax::parse(&file.text)?;
    model::resolve(&parsed, base, round)
}

/// The exact analysis: in `u128` when the plan shows that every number
/// fits, else in big integers (see [`num`]). Fails only when the
/// hyper-period overflows 128 bits, which [`exact::plan`] reports first.
/// It does not refuse a costly plan: [`cost::check`] does, before.
pub fn analyse(model: &Model, opts: &Options) -> Result<Analysis<BigUint>, exact::PlanError> {
    let plan = exact::plan(model, opts)?;
    let big = || {
        exact::analyse::<BigUint>(model, opts).map_err(|_| exact::PlanError::HyperPeriodOverflow)
    };
    if plan.big {
        return big();
    }
    match exact::analyse::<u128>(model, opts) {
        Ok(a) => Ok(widen(a)),
        // Not when the plan's bound holds; kept so that a wrong bound
        // costs time, never a wrong result.
        Err(_) => big(),
    }
}

fn widen(a: Analysis<u128>) -> Analysis<BigUint> {
    Analysis {
        plan: a.plan,
        pmf: a
            .pmf
            .into_iter()
            .map(|(l, w)| (l, BigUint::from(w)))
            .collect(),
        den: BigUint::from(a.den),
        trees: a.trees,
        trees_truncated: a.trees_truncated,
        loss: a.loss.map(|l| loss::LossResult {
            total: BigUint::from(l.total),
            den: BigUint::from(l.den),
            top: l
                .top
                .into_iter()
                .map(|c| loss::Contribution {
                    a: c.a,
                    b: c.b,
                    component: c.component,
                    time: c.time,
                    weight: BigUint::from(c.weight),
                })
                .collect(),
            pairs: l.pairs,
        }),
        operations: a.operations,
    }
}

/// The exact PMF as (latency in grid steps, probability).
pub fn pmf_f64(a: &Analysis<BigUint>) -> Vec<(i128, f64)> {
    a.pmf
        .iter()
        .map(|(l, w)| (*l, num::ratio(w, &a.den)))
        .collect()
}
