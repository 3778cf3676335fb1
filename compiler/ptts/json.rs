//! The `--json` report of `ssc ptts`: the chain, the plan, the exact PMF
//! and CDF (every value, as a float and as a reduced fraction), the
//! statistics, the loss with its largest contributions, the first latency
//! trees and the simulation. Times are in the file's unit.

use super::exact::{Analysis, TreeNode};
use super::model::Model;
use super::num::{fraction, ratio};
use super::report::Summary;
use super::simulate::Simulation;
use num_bigint::BigUint;
use serde_json::{json, Value};

fn num(model: &Model, v: i128) -> Value {
    let unit = 10i128.pow(model.scale);
    if v % unit == 0 {
        if let Ok(x) = i64::try_from(v / unit) {
            return json!(x);
        }
    }
    let x: f64 = model.time(v).parse().unwrap_or(f64::NAN);
    serde_json::Number::from_f64(x)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

fn tree(model: &Model, n: &TreeNode) -> Value {
    let mut v = json!({
        "component": n.component,
        "time": num(model, n.time),
    });
    if n.total != u128::MAX {
        v["probability"] = json!(n.weight as f64 / n.total as f64);
        v["exact"] = json!(fraction(&n.weight, &n.total));
    }
    if !n.children.is_empty() {
        v["children"] = Value::Array(n.children.iter().map(|c| tree(model, c)).collect());
    }
    v
}

/// The whole report as JSON.
pub fn report(
    model: &Model,
    file: &str,
    a: &Analysis<BigUint>,
    s: &Summary,
    sim: Option<(&Simulation, u64)>,
) -> Value {
    let components: Vec<Value> = model
        .components
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "period": num(model, c.period),
                "offset": num(model, c.offset),
                "etp": c.etp_text,
                "rounded_from": c.rounded_from.map(|d| d.to_string()),
            })
        })
        .collect();
    let pmf: Vec<Value> = s
        .points
        .iter()
        .zip(&a.pmf)
        .map(|(p, (_, w))| json!({"latency": num(model, p.latency), "probability": p.p, "exact": fraction(w, &a.den)}))
        .collect();
    let mut cum = BigUint::default();
    let cdf: Vec<Value> = s
        .points
        .iter()
        .zip(&a.pmf)
        .map(|(p, (_, w))| {
            cum += w;
            json!({"latency": num(model, p.latency), "probability": p.cdf, "exact": fraction(&cum, &a.den)})
        })
        .collect();
    let mut percentiles = serde_json::Map::new();
    for (name, l) in &s.percentiles {
        percentiles.insert(name.to_string(), num(model, *l));
    }
    let scale = 10f64.powi(model.scale as i32);
    let loss = a.loss.as_ref().map(|l| {
        json!({
            "probability": ratio(&l.total, &l.den),
            "exact": fraction(&l.total, &l.den),
            "pairs": l.pairs,
            "top": l.top.iter().map(|c| json!({
                "a": num(model, c.a),
                "b": num(model, c.b),
                "component": c.component,
                "name": model.components[c.component].name,
                "time": num(model, c.time),
                "probability": ratio(&c.weight, &l.den),
                "exact": fraction(&c.weight, &l.den),
            })).collect::<Vec<_>>(),
        })
    });
    let mut v = json!({
        "file": file,
        "grid": num(model, 1),
        "unit": model.unit,
        "round": model.round.map(|d| d.to_string()),
        "components": components,
        "hyper_period": num(model, a.plan.hyper_period as i128),
        "latency_trees": a.plan.trees.to_string(),
        "estimate_eq_5_15": a.plan.estimate.to_string(),
        "operations": {
            "bound": a.plan.operations.to_string(),
            "counted": a.operations.to_string(),
            "loss_bound": a.plan.loss_operations.to_string(),
            "memory_bound_bytes": a.plan.memory.to_string(),
            "big_integers": a.plan.big,
        },
        "statistics": {
            "min": num(model, s.min),
            "max": num(model, s.max),
            "values": s.points.len(),
            "mean": s.mean / scale,
            "mean_exact": s.mean_exact,
            "sigma": s.sigma / scale,
            "variance_exact": s.variance_exact,
            "percentiles": percentiles,
        },
        "pmf": pmf,
        "cdf": cdf,
        "loss": loss,
        "trees": a.trees.iter().map(|t| tree(model, t)).collect::<Vec<_>>(),
        "trees_truncated": a.trees_truncated,
    });
    if let Some((sim, seed)) = sim {
        v["simulation"] = json!({
            "containers": sim.containers,
            "seed": seed,
            "total_variation": sim.tv,
            "counts": sim.counts.iter().map(|(l, c)| json!([num(model, *l), c])).collect::<Vec<_>>(),
        });
    }
    v
}
