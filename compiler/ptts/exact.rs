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
//! phase) and shared by all trees; a transition groups the ETP's values by
//! the triggering each reaches (eq. 5.7) in one pass over them, so its cost
//! follows the number of distinct values, not their magnitude or spread.
//!
//! Triggerings of components 1… are `o_i + k·d_i` for every whole k (the
//! periodic steady state), so a chain has no start-up transient and
//! shifting an offset by its period changes nothing.

use super::loss::{LossAcc, LossResult};
use super::model::Model;
use super::num::{add_to, mul, Overflow, Weight};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

/// What the analysis will cost, known before it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// `lcm` of the periods, in grid steps.
    pub hyper_period: u128,
    /// Latency trees: triggerings of the first component in a hyper-period.
    pub trees: u128,
    /// The operation count of eq. 5.15 (saturating).
    pub estimate: u128,
}

/// Why the analysis cannot start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// The hyper-period does not fit 128 bits.
    HyperPeriodOverflow,
}

/// The plan of a model: hyper-period, trees, eq. 5.15.
pub fn plan(model: &Model) -> Result<Plan, PlanError> {
    let mut h: u128 = 1;
    for c in &model.components {
        h = super::num::lcm_u128(h, c.period as u128).ok_or(PlanError::HyperPeriodOverflow)?;
    }
    let first = &model.components[0];
    let trees = h / first.period as u128;
    let mut estimate = trees;
    for w in model.components.windows(2) {
        let width = (w[0].etp.max() - w[0].etp.min() + 1) as u128;
        let d = w[1].period as u128;
        estimate = estimate.saturating_mul(width.div_ceil(d));
    }
    Ok(Plan {
        hyper_period: h,
        trees,
        estimate,
    })
}

/// Options of one analysis.
#[derive(Clone, Debug)]
pub struct Options {
    /// How many latency trees (the first ones) to keep in full.
    pub keep_trees: usize,
    /// Do the loss analysis.
    pub loss: bool,
    /// How the loss analysis finds each tree's partners.
    pub partners: Partners,
}

/// How the loss analysis finds the later trees a tree may meet (the same
/// pairs either way; `tests/ptts_props.rs` checks that they agree).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Partners {
    /// [`Partners::LookUp`] when the partners outnumber the hyper-period's
    /// trees and those are at most [`LOOK_UP_TREES`], else the window.
    #[default]
    Auto,
    /// Every tree up to the lookahead, in a sliding window.
    Window,
    /// Only the trees that share a time, looked up.
    LookUp,
}

/// The most trees of a hyper-period kept for [`Partners::LookUp`].
pub const LOOK_UP_TREES: u128 = 1 << 16;

impl Default for Options {
    fn default() -> Self {
        Options {
            keep_trees: 0,
            loss: true,
            partners: Partners::Auto,
        }
    }
}

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
}

/// The children of a node: (time relative to the node, weight).
pub type Step = Rc<[(i128, u128)]>;

/// One-step transitions, memoised per (component, phase).
pub struct Transitions<'m> {
    model: &'m Model,
    memo: Vec<HashMap<i128, Step>>,
}

/// Memo entries per component before the memo stops growing.
const MEMO_CAP: usize = 1 << 20;

impl<'m> Transitions<'m> {
    pub fn new(model: &'m Model) -> Self {
        Transitions {
            model,
            memo: vec![HashMap::new(); model.components.len()],
        }
    }

    /// The children of node (i, t), i < N − 1, as (time − t, weight over the
    /// total of ETP i): eqs. 5.7 and 5.8.
    pub fn children(&mut self, i: usize, t: i128) -> Step {
        let next = &self.model.components[i + 1];
        let (d, o) = (next.period, next.offset);
        let phase = (t - o).rem_euclid(d);
        if let Some(r) = self.memo[i].get(&phase) {
            return r.clone();
        }
        // With t at phase `phase`, the triggerings of i+1 are at
        // t − phase + k·d; relative to t: k·d − phase. An execution time v
        // reaches the first of them at or after t + v (production precedes
        // consumption): k = ⌈(v + phase) / d⌉. One pass over the ETP's
        // values (sorted, so the triggerings come in order): the cost
        // follows the number of distinct values, not their magnitude.
        let mut out: Vec<(i128, u128)> = Vec::new();
        for &(v, w) in &self.model.components[i].etp.points {
            let k = (v + phase).div_euclid(d) + i128::from((v + phase).rem_euclid(d) != 0);
            let tau = k * d - phase; // relative to t
            match out.last_mut() {
                Some(last) if last.0 == tau => last.1 += w,
                _ => out.push((tau, w)),
            }
        }
        let r: Step = out.into();
        if self.memo[i].len() < MEMO_CAP {
            self.memo[i].insert(phase, r.clone());
        }
        r
    }

    pub fn model(&self) -> &Model {
        self.model
    }
}

/// The reach probabilities of one tree: per level 1…N−1 the triggerings of
/// that component with their weights (sorted by time), and the root time.
#[derive(Clone, Debug)]
pub struct Reach<T> {
    pub root: i128,
    pub levels: Vec<Vec<(i128, T)>>,
}

/// Merges equal times of a list of (time, weight).
fn merge<T: Weight>(mut v: Vec<(i128, T)>) -> Result<Vec<(i128, T)>, Overflow> {
    v.sort_by_key(|x| x.0);
    let mut out: Vec<(i128, T)> = Vec::with_capacity(v.len());
    for (t, w) in v {
        match out.last_mut() {
            Some(last) if last.0 == t => add_to(&mut last.1, &w)?,
            _ => out.push((t, w)),
        }
    }
    Ok(out)
}

/// Reach probabilities of the tree rooted at the first component's
/// triggering `a`; level i's weights are over Π_{j<i} total_j.
pub fn reach<T: Weight>(tr: &mut Transitions, a: i128) -> Result<Reach<T>, Overflow> {
    let n = tr.model.components.len();
    let mut levels: Vec<Vec<(i128, T)>> = Vec::with_capacity(n.saturating_sub(1));
    if n < 2 {
        return Ok(Reach { root: a, levels });
    }
    let first: Vec<(i128, T)> = tr
        .children(0, a)
        .iter()
        .map(|(dt, w)| (a + dt, T::from_u128(*w)))
        .collect();
    levels.push(first);
    for i in 1..n - 1 {
        let mut next = Vec::new();
        for (t, r) in &levels[i - 1] {
            for (dt, w) in tr.children(i, *t).iter() {
                next.push((t + dt, mul(r, &T::from_u128(*w))?));
            }
        }
        levels.push(merge(next)?);
    }
    Ok(Reach { root: a, levels })
}

/// The distribution being summed: dense when the latency range is small.
enum Acc<T> {
    Dense { lo: i128, v: Vec<T> },
    Sparse(BTreeMap<i128, T>),
}

impl<T: Weight> Acc<T> {
    fn add(&mut self, latency: i128, w: &T) -> Result<(), Overflow> {
        match self {
            Acc::Dense { lo, v } => {
                let k = (latency - *lo) as usize;
                add_to(&mut v[k], w)
            }
            Acc::Sparse(m) => add_to(m.entry(latency).or_insert_with(T::zero), w),
        }
    }
    fn into_pmf(self) -> Vec<(i128, T)> {
        match self {
            Acc::Dense { lo, v } => v
                .into_iter()
                .enumerate()
                .filter(|(_, w)| !w.is_zero())
                .map(|(k, w)| (lo + k as i128, w))
                .collect(),
            Acc::Sparse(m) => m.into_iter().filter(|(_, w)| !w.is_zero()).collect(),
        }
    }
}

/// The latency range [lo, hi] any tree can reach.
pub fn latency_bounds(model: &Model) -> (i128, i128) {
    let c = &model.components;
    let lo = c.iter().map(|x| x.etp.min()).sum();
    let hi = c.iter().map(|x| x.etp.max()).sum::<i128>()
        + c.iter().skip(1).map(|x| x.period - 1).sum::<i128>();
    (lo, hi)
}

/// The exact analysis with weights of type `T`.
pub fn analyse<T: Weight>(model: &Model, opts: &Options) -> Result<Analysis<T>, Overflow> {
    let plan = plan(model).map_err(|_| Overflow)?;
    let n = model.components.len();
    let mut tr = Transitions::new(model);
    let first = &model.components[0];
    let last = &model.components[n - 1];
    let (lo, hi) = latency_bounds(model);
    let mut acc: Acc<T> = if hi - lo < 4_000_000 {
        Acc::Dense {
            lo,
            v: vec![T::zero(); (hi - lo + 1) as usize],
        }
    } else {
        Acc::Sparse(BTreeMap::new())
    };
    let mut loss = if opts.loss && n >= 2 {
        Some(LossAcc::<T>::new(model, plan.trees))
    } else {
        None
    };
    let trees = plan.trees;
    let extra = loss.as_ref().map(|l| l.lookahead()).unwrap_or(0);
    // Partners beyond the hyper-period: walked tree by tree when they are
    // few, looked up by shared times when they are many (large execution
    // times) and the hyper-period's trees can be kept.
    let look_up = match opts.partners {
        Partners::Window => false,
        Partners::LookUp => true,
        Partners::Auto => extra > trees && trees <= LOOK_UP_TREES,
    };
    let mut kept_reaches: Vec<Reach<T>> = Vec::new();
    let extra = if look_up { 0 } else { extra };
    let last_points: Vec<(i128, T)> = last
        .etp
        .points
        .iter()
        .map(|(v, w)| (*v, T::from_u128(*w)))
        .collect();
    for k in 0..trees + extra {
        let a = first.offset + k as i128 * first.period;
        let r: Reach<T> = reach(&mut tr, a)?;
        if k < trees {
            if n == 1 {
                for (v, w) in &last_points {
                    acc.add(*v, w)?;
                }
            } else {
                for (t, rw) in r.levels.last().into_iter().flatten() {
                    for (v, w) in &last_points {
                        acc.add(t + v - a, &mul(rw, w)?)?;
                    }
                }
            }
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
    let mut den = T::from_u128(trees);
    for c in &model.components {
        den = mul(&den, &T::from_u128(c.etp.total))?;
    }
    let mut budget = 20_000usize;
    let mut truncated = false;
    let kept = (0..opts.keep_trees.min(trees as usize))
        .map(|k| {
            let a = first.offset + k as i128 * first.period;
            tree(
                &mut tr,
                0,
                a,
                u128::MAX,
                u128::MAX,
                &mut budget,
                &mut truncated,
            )
        })
        .collect();
    Ok(Analysis {
        plan,
        pmf: acc.into_pmf(),
        den,
        trees: kept,
        trees_truncated: truncated,
        loss: match loss {
            Some(l) => Some(l.finish()?),
            None => None,
        },
    })
}

/// The latency tree of node (i, t) in full (eqs. 5.8–5.10), at most
/// `budget` nodes in all.
fn tree(
    tr: &mut Transitions,
    i: usize,
    t: i128,
    weight: u128,
    total: u128,
    budget: &mut usize,
    truncated: &mut bool,
) -> TreeNode {
    let n = tr.model.components.len();
    let mut node = TreeNode {
        component: i,
        time: t,
        weight,
        total,
        children: Vec::new(),
    };
    if i == n {
        return node;
    }
    let etp_total = tr.model.components[i].etp.total;
    let kids: Vec<(i128, u128)> = if i + 1 == n {
        tr.model.components[i].etp.points.clone()
    } else {
        tr.children(i, t).to_vec()
    };
    for (dt, w) in kids {
        if *budget == 0 {
            *truncated = true;
            break;
        }
        *budget -= 1;
        node.children
            .push(tree(tr, i + 1, t + dt, w, etp_total, budget, truncated));
    }
    node
}
