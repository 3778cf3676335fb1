//! The exact analysis of thesis eqs. 5.6–5.12.
//!
//! Takes a [`Model`]; gives the end-to-end latency distribution over one
//! hyper-period (each triggering of the first component equally likely),
//! the first latency trees in full (for `-v` and `--json`), and feeds every
//! tree to the loss analysis ([`super::loss`]).
//!
//! A latency tree (eq. 5.8–5.10) is never built whole: the distribution of
//! its nodes is carried level by level (the *reach* probabilities of the
//! triggerings of component i), which is the flattening of eq. 5.12 with
//! equal nodes merged as soon as they meet. The one-step transitions from a
//! node of component i depend only on its phase relative to component i+1
//! (`(t − o_{i+1}) mod d_{i+1}`), so they are computed once per (component,
//! phase) and shared by all trees (where they fit [`super::cost::memoised`]);
//! a transition counts the values of each run of the ETP that reach one
//! triggering (eq. 5.7) at once, so its cost follows the runs and the
//! triggerings reached, not the number of values, their magnitude or
//! spread. Every step counts on [`Transitions::ops`], which the plan
//! bounds before the analysis starts ([`super::cost`]).
//!
//! Triggerings of components 1… are `o_i + k·d_i` for every whole k (the
//! periodic steady state), so a chain has no start-up transient and
//! shifting an offset by its period changes nothing.

use super::loss::{LossAcc, LossResult};
use super::model::Model;
use super::num::{mul, Overflow, Weight};
use super::plan::{Options, Plan, TREE_NODES};
use super::pmf::Latencies;
use super::steps::{reach, Reach, Step, Transitions};

pub use super::cost::plan;
pub use super::plan::{hyper_period, Partners, PlanError};
pub use super::steps::latency_bounds;

/// A node of a latency tree (eq. 5.8): component `component` triggered at
/// `time`; `component == N` is a leaf (the chain's output at `time`). The
/// probability is that of the edge from its parent, as weight / total.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeNode {
    pub component: usize,
    pub time: i128,
    pub weight: u128,
    pub total: u128,
    pub children: Vec<TreeNode>,
}

/// The result: the distribution of the end-to-end latency as whole weights
/// over `den` (sorted by latency, no zero weight).
#[derive(Clone, Debug)]
pub struct Analysis<T: Weight> {
    pub plan: Plan,
    pub pmf: Vec<(i128, T)>,
    pub den: T,
    pub trees: Vec<TreeNode>,
    /// Nodes in the kept trees beyond this many are left out.
    pub trees_truncated: bool,
    pub loss: Option<LossResult<T>>,
    /// The operations counted while it ran (in the units of
    /// [`Plan::operations`], which bounds them).
    pub operations: u128,
}

/// The exact analysis with weights of type `T`.
pub fn analyse<T: Weight>(model: &Model, opts: &Options) -> Result<Analysis<T>, Overflow> {
    let plan = plan(model, opts).map_err(|_| Overflow)?;
    let n = model.components.len();
    let mut tr = Transitions::new(model, super::cost::memoised(model));
    let first = &model.components[0];
    let mut lat = Latencies::<T>::new(model, &mut tr.ops);
    let mut loss = if opts.loss && n >= 2 {
        Some(LossAcc::<T>::new(model, plan.trees, &mut tr.ops))
    } else {
        None
    };
    let trees = plan.trees;
    // Partners beyond the hyper-period: walked tree by tree in a window,
    // or looked up by shared times among the hyper-period's trees, as the
    // plan chose (the cheaper by its bound).
    let look_up = plan.partners == Partners::LookUp;
    let extra = match (&loss, look_up) {
        (Some(l), false) => l.lookahead(),
        _ => 0,
    };
    let mut kept_reaches: Vec<Reach<T>> = Vec::new();
    for k in 0..trees + extra {
        let a = first.offset + k as i128 * first.period;
        let r: Reach<T> = reach(&mut tr, a)?;
        if k < trees {
            lat.add(&r, &mut tr.ops)?;
        }
        if let Some(l) = loss.as_mut() {
            if look_up {
                kept_reaches.push(r);
            } else {
                l.push(&mut tr, r, k < trees)?;
            }
        }
    }
    if let (true, Some(l)) = (look_up, loss.as_mut()) {
        l.push_looked_up(&mut tr, &kept_reaches, plan.hyper_period as i128)?;
    }
    drop(kept_reaches);
    let mut den = T::from_u128(trees);
    for c in &model.components {
        tr.ops += 1;
        den = mul(&den, &T::from_u128(c.etp.total))?;
    }
    let pmf = lat.finish(&model.components[n - 1].etp, &mut tr.ops)?;
    let mut budget = TREE_NODES;
    let mut truncated = false;
    let kept = (0..opts.keep_trees.min(trees as usize))
        .map(|k| {
            let a = first.offset + k as i128 * first.period;
            let root = Edge {
                weight: u128::MAX,
                total: u128::MAX,
            };
            tree(&mut tr, 0, a, root, &mut budget, &mut truncated)
        })
        .collect();
    let loss = match loss {
        Some(l) => Some(l.finish(&mut tr.ops)?),
        None => None,
    };
    let factor = super::cost::factor(model, opts, &plan);
    Ok(Analysis {
        plan,
        pmf,
        den,
        trees: kept,
        trees_truncated: truncated,
        loss,
        operations: tr.ops.saturating_mul(factor),
    })
}

/// The probability of a tree edge, as weight / total.
#[derive(Clone, Copy)]
struct Edge {
    weight: u128,
    total: u128,
}

/// The latency tree of node (i, t) in full (eqs. 5.8–5.10), at most
/// `budget` nodes in all.
fn tree(
    tr: &mut Transitions,
    i: usize,
    t: i128,
    edge: Edge,
    budget: &mut usize,
    truncated: &mut bool,
) -> TreeNode {
    tr.ops += 1;
    let n = tr.model().components.len();
    let mut node = TreeNode {
        component: i,
        time: t,
        weight: edge.weight,
        total: edge.total,
        children: Vec::new(),
    };
    if i == n {
        return node;
    }
    let total = tr.model().components[i].etp.total;
    let kids: Step = if i + 1 == n {
        // Leaves: only as many values as the budget takes.
        let points = &tr.model().components[i].etp.points;
        let kept = points.len().min(*budget + 1);
        tr.ops += kept as u128;
        points[..kept].into()
    } else {
        tr.children(i, t)
    };
    for &(dt, weight) in kids.iter() {
        tr.ops += 1;
        if *budget == 0 {
            *truncated = true;
            break;
        }
        *budget -= 1;
        let edge = Edge { weight, total };
        node.children
            .push(tree(tr, i + 1, t + dt, edge, budget, truncated));
    }
    node
}
