//! A closer bound for the loss by look-up, from a dry run.
//!
//! The bounds of [`super::cost`] are known before anything runs, and so
//! count every pair of trees whose windows of times overlap. Where the
//! loss looks its partners up ([`Partners::LookUp`]: large execution times,
//! far-apart values), the trees share far fewer times than their windows
//! allow (17 components with times 11 or 2^31: a bound of 10^13
//! operations for 10^7). Takes a plan over the limit; runs, within a
//! budget of operations, what the look-up runs first — the reach *times*
//! of the hyper-period's trees (no weights), their index, the partners of
//! each tree — and gives the bounds again with the level sizes, index,
//! look-ups and pairs found ([`super::cost::Known`]). Both bounds hold; the
//! guard takes the smaller.

use super::cost::{self, Known};
use super::loss::lookahead;
use super::model::Model;
use super::plan::{hyper_period, Options, Partners, Plan};
use super::steps::{sort_ops, Transitions};

/// The plan with the closer bound, when a dry run within `budget`
/// operations finds one (`None`: not a look-up, or over the budget).
pub fn refine(model: &Model, opts: &Options, plan: &Plan, budget: u128) -> Option<Plan> {
    let n = model.components.len();
    if !opts.loss || n < 2 || plan.partners != Partners::LookUp {
        return None;
    }
    let known = dry_run(model, budget)?;
    let c = cost::cost_with(model, opts, plan.trees, Partners::LookUp, Some(&known));
    if c.operations >= plan.operations {
        return None;
    }
    Some(Plan {
        operations: c.operations,
        loss_operations: c.loss_operations,
        memory: c.memory.min(plan.memory),
        ..plan.clone()
    })
}

/// The look-up's sizes: every tree's times per level, their index by
/// (level, time mod hyper-period), the entries each look-up goes through
/// and the partners (later trees within the lookahead sharing a time).
fn dry_run(model: &Model, budget: u128) -> Option<Known> {
    let n = model.components.len();
    let (hyper, trees) = hyper_period(model).ok()?;
    let (hyper, first) = (hyper as i128, &model.components[0]);
    let mut tr = Transitions::new(model, super::cost::memoised(model));
    let over = |tr: &Transitions| tr.ops > budget;
    let mut s = vec![0u128; n - 1];
    let mut all: Vec<Vec<Vec<i128>>> = Vec::new();
    for k in 0..trees {
        let a = first.offset + k as i128 * first.period;
        let mut levels = vec![tr
            .children(0, a)
            .iter()
            .map(|(dt, _)| a + dt)
            .collect::<Vec<i128>>()];
        for i in 1..n - 1 {
            let mut next: Vec<i128> = Vec::new();
            for t in &levels[i - 1] {
                next.extend(tr.children(i, *t).iter().map(|(dt, _)| t + dt));
            }
            tr.ops += sort_ops(next.len());
            next.sort_unstable();
            next.dedup();
            levels.push(next);
        }
        for (l, level) in levels.iter().enumerate() {
            tr.ops += level.len() as u128;
            s[l] = s[l].max(level.len() as u128);
        }
        all.push(levels);
        if over(&tr) {
            return None;
        }
    }
    // (level, time mod hyper-period, tree, time), sorted: groups of
    // entries a look-up goes through.
    let mut index: Vec<(usize, i128, usize, i128)> = Vec::new();
    for (b, levels) in all.iter().enumerate() {
        for (l, level) in levels.iter().enumerate() {
            index.extend(level.iter().map(|t| (l, t.rem_euclid(hyper), b, *t)));
        }
    }
    tr.ops += sort_ops(index.len());
    index.sort_unstable();
    let mut raw = vec![0u128; all.len()];
    let mut from = 0;
    while from < index.len() {
        let key = (index[from].0, index[from].1);
        let to = from + index[from..].partition_point(|e| (e.0, e.1) == key);
        for e in &index[from..to] {
            raw[e.2] += (to - from) as u128;
        }
        from = to;
    }
    let raw_total: u128 = raw.iter().sum();
    tr.ops += raw_total;
    if over(&tr) {
        return None;
    }
    let pairs = partners(&all, &index, hyper, lookahead(model), &mut tr.ops);
    Some(Known {
        s,
        index: index.len() as u128,
        raw: raw_total,
        raw_max: raw.iter().copied().max().unwrap_or(0),
        pairs,
    })
}

/// The pairs (j, k) the look-up visits: for each tree j, the distinct later
/// trees k within the lookahead that share a time with it.
fn partners(
    all: &[Vec<Vec<i128>>],
    index: &[(usize, i128, usize, i128)],
    hyper: i128,
    lookahead: u128,
    ops: &mut u128,
) -> u128 {
    let trees = all.len() as i128;
    let mut pairs = 0u128;
    for (j, levels) in all.iter().enumerate() {
        let j = j as i128;
        let mut found: Vec<i128> = Vec::new();
        for (l, level) in levels.iter().enumerate() {
            for t in level {
                let key = (l, t.rem_euclid(hyper));
                let from = index.partition_point(|e| (e.0, e.1) < key);
                for &(_, _, b, tb) in index[from..].iter().take_while(|e| (e.0, e.1) == key) {
                    let k = (t - tb) / hyper * trees + b as i128;
                    if k > j && ((k - j) as u128) <= lookahead {
                        found.push(k);
                    }
                }
            }
        }
        *ops += sort_ops(found.len());
        found.sort_unstable();
        found.dedup();
        pairs += found.len() as u128;
    }
    pairs
}

/// What the guard decided: the plan (refined when the first bound was
/// over the limit and a dry run found a closer one) and the limit it
/// exceeds, if any.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub plan: Plan,
    pub exceeded: Option<cost::Exceeded>,
}

/// The guard of `ssc ptts`: whether a plan (with `extra` operations and
/// bytes besides the analysis: a simulation, the JSON report) stays
/// within the limits, refined by a dry run (at most a quarter of the
/// limit) when the first bound is over it.
pub fn guard(
    model: &Model,
    opts: &Options,
    plan: Plan,
    extra: (u128, u128),
    limits: &cost::Limits,
) -> Verdict {
    let exceeded = match cost::check(&plan, extra, limits) {
        Ok(()) => {
            return Verdict {
                plan,
                exceeded: None,
            }
        }
        Err(e) => e,
    };
    if exceeded == cost::Exceeded::Memory {
        return Verdict {
            plan,
            exceeded: Some(exceeded),
        };
    }
    match refine(model, opts, &plan, limits.operations / 4) {
        Some(closer) => {
            let exceeded = cost::check(&closer, extra, limits).err();
            Verdict {
                plan: closer,
                exceeded,
            }
        }
        None => Verdict {
            plan,
            exceeded: Some(exceeded),
        },
    }
}
