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
use super::model::{Model, Run};
use super::num::{add_to, mul, Overflow, Weight};
use super::pmf::Latencies;
use std::rc::Rc;

/// What the analysis will cost, known before it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// `lcm` of the periods, in grid steps.
    pub hyper_period: u128,
    /// Latency trees: triggerings of the first component in a hyper-period.
    pub trees: u128,
    /// The thesis' operation count of eq. 5.15 (saturating), for
    /// comparison with its Table 5.2; not a bound on this analysis.
    pub estimate: u128,
    /// An upper bound of the operations the analysis counts
    /// ([`Analysis::operations`]) plus those of the report's statistics,
    /// saturating ([`super::cost`]).
    pub operations: u128,
    /// Of which the loss analysis.
    pub loss_operations: u128,
    /// An upper bound of the bytes the analysis and its statistics hold.
    pub memory: u128,
    /// Whether the weights may outgrow `u128`: the analysis then runs in
    /// big integers from the start (and costs more per operation).
    pub big: bool,
    /// How the loss analysis finds the partners of a tree (never `Auto`).
    pub partners: Partners,
    /// At most this many values in the distribution.
    pub values: u128,
    /// Bits of the distribution's denominator.
    pub den_bits: u128,
}

/// Why the analysis cannot start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// The hyper-period does not fit 128 bits.
    HyperPeriodOverflow,
}

/// The hyper-period and the number of latency trees.
pub fn hyper_period(model: &Model) -> Result<(u128, u128), PlanError> {
    let mut h: u128 = 1;
    for c in &model.components {
        h = super::num::lcm_u128(h, c.period as u128).ok_or(PlanError::HyperPeriodOverflow)?;
    }
    Ok((h, h / model.components[0].period as u128))
}

/// The plan of a model analysed with `opts`: hyper-period, trees, eq.
/// 5.15, and the bounds of [`super::cost`].
pub fn plan(model: &Model, opts: &Options) -> Result<Plan, PlanError> {
    let (h, trees) = hyper_period(model)?;
    let mut estimate = trees;
    for w in model.components.windows(2) {
        let width = (w[0].etp.max() - w[0].etp.min() + 1) as u128;
        let d = w[1].period as u128;
        estimate = estimate.saturating_mul(width.div_ceil(d));
    }
    let cost = super::cost::cost(model, opts, trees, h);
    Ok(Plan {
        hyper_period: h,
        trees,
        estimate,
        operations: cost.operations,
        loss_operations: cost.loss_operations,
        memory: cost.memory,
        big: cost.big,
        partners: cost.partners,
        values: cost.values,
        den_bits: cost.den_bits,
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
    /// The one of the two with the smaller bound of operations
    /// ([`super::cost`]), [`Partners::Window`] when the look-up would hold
    /// more than [`LOOK_UP_MEMORY`] bytes.
    #[default]
    Auto,
    /// Every tree up to the lookahead, in a sliding window.
    Window,
    /// Only the trees that share a time, looked up.
    LookUp,
}

/// The most bytes [`Partners::Auto`] lets the look-up hold.
pub const LOOK_UP_MEMORY: u128 = 1 << 29;

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
    /// The operations counted while it ran (in the units of
    /// [`Plan::operations`], which bounds them).
    pub operations: u128,
}

/// The children of a node: (time relative to the node, weight).
pub type Step = Rc<[(i128, u128)]>;

/// One-step transitions, memoised per (component, phase) where
/// [`super::cost::memoised`] says so, and the operation counter of the
/// analysis (every part of it counts on `ops`).
pub struct Transitions<'m> {
    model: &'m Model,
    /// Per component: the table by phase when memoised (filled lazily).
    memo: Vec<Option<Vec<Option<Step>>>>,
    memoised: Vec<bool>,
    /// Operations so far ([`super::cost`] bounds them).
    pub ops: u128,
}

impl<'m> Transitions<'m> {
    pub fn new(model: &'m Model) -> Self {
        Transitions {
            model,
            memo: vec![None; model.components.len()],
            memoised: super::cost::memoised(model),
            ops: 0,
        }
    }

    /// The children of node (i, t), i < N − 1, as (time − t, weight over the
    /// total of ETP i): eqs. 5.7 and 5.8.
    pub fn children(&mut self, i: usize, t: i128) -> Step {
        self.ops += CALL;
        let next = &self.model.components[i + 1];
        let (d, o) = (next.period, next.offset);
        let phase = (t - o).rem_euclid(d);
        if self.memoised[i] {
            let table = self.memo[i].get_or_insert_with(|| {
                self.ops += d as u128;
                vec![None; d as usize]
            });
            if let Some(r) = &table[phase as usize] {
                return r.clone();
            }
        }
        let r = step(&self.model.components[i].etp.runs, d, phase, &mut self.ops);
        if let Some(table) = self.memo[i].as_mut() {
            table[phase as usize] = Some(r.clone());
        }
        r
    }

    pub fn model(&self) -> &Model {
        self.model
    }
}

/// The one-step transition of an ETP's runs from a node at phase `phase`
/// of the next component's period `d`. With t at phase `phase`, the
/// triggerings of the next component are at t − phase + k·d; relative to
/// t: k·d − phase. An execution time v reaches the first of them at or
/// after t + v (production precedes consumption): k = ⌈(v + phase) / d⌉.
/// The values of a run that reach one triggering are counted at once, so
/// the cost is one operation per run and per triggering reached, whatever
/// the number of values (a `uniform` over 10^6 grid steps is one run).
pub fn step(runs: &[Run], d: i128, phase: i128, ops: &mut u128) -> Step {
    *ops += 2 * ALLOC;
    let mut out: Vec<(i128, u128)> = Vec::new();
    for r in runs {
        *ops += 1;
        let mut j = 0;
        while j < r.count {
            *ops += CALL;
            let v = r.start + j * r.step;
            let k = (v + phase).div_euclid(d) + i128::from((v + phase).rem_euclid(d) != 0);
            // The last j with v + phase ≤ k·d.
            let last = ((k * d - phase - r.start).div_euclid(r.step)).min(r.count - 1);
            let w = (last - j + 1) as u128 * r.weight;
            let tau = k * d - phase;
            match out.last_mut() {
                Some(l) if l.0 == tau => l.1 += w,
                _ => out.push((tau, w)),
            }
            j = last + 1;
        }
    }
    out.into()
}

/// The reach probabilities of one tree: per level 1…N−1 the triggerings of
/// that component with their weights (sorted by time), and the root time.
#[derive(Clone, Debug)]
pub struct Reach<T> {
    pub root: i128,
    pub levels: Vec<Vec<(i128, T)>>,
}

impl<T: Weight> Reach<T> {
    /// The tree `shift` grid steps later.
    pub fn shifted(&self, shift: i128, ops: &mut u128) -> Reach<T> {
        Reach {
            root: self.root + shift,
            levels: self
                .levels
                .iter()
                .map(|l| {
                    *ops += l.len() as u128 + ALLOC;
                    l.iter().map(|(t, w)| (t + shift, w.clone())).collect()
                })
                .collect(),
        }
    }
}

/// The operations of sorting `n` items (n · (⌊log2 n⌋ + 1)) and one pass.
pub fn sort_ops(n: usize) -> u128 {
    let n = n as u128;
    n * (u128::BITS - n.leading_zeros()) as u128 + n
}

/// What an allocation counts (a few tens of nanoseconds, with its free).
pub const ALLOC: u128 = 16;

/// What a call of the transitions counts (a 128-bit remainder, a look-up),
/// and each triggering a run reaches when they are computed (128-bit
/// divisions).
pub const CALL: u128 = 4;

/// Merges equal times of a list of (time, weight) whose times are
/// triggerings of one component, of period `d`: in buckets, one per
/// triggering between the first and the last, when that costs less than
/// sorting (it does when the list is dense in its window, as levels of
/// wide ETPs are), else sorted.
pub fn merge<T: Weight>(
    mut v: Vec<(i128, T)>,
    d: i128,
    ops: &mut u128,
) -> Result<Vec<(i128, T)>, Overflow> {
    let n = v.len();
    *ops += n as u128 + ALLOC;
    let (Some(lo), Some(hi)) = (v.iter().map(|x| x.0).min(), v.iter().map(|x| x.0).max()) else {
        return Ok(v);
    };
    let cells = ((hi - lo) / d) as u128 + 1;
    if cells + n as u128 <= sort_ops(n) {
        *ops += cells + n as u128;
        let mut acc: Vec<T> = vec![T::zero(); cells as usize];
        for (t, w) in v {
            add_to(&mut acc[((t - lo) / d) as usize], &w)?;
        }
        return Ok(acc
            .into_iter()
            .enumerate()
            .filter(|(_, w)| !w.is_zero())
            .map(|(k, w)| (lo + k as i128 * d, w))
            .collect());
    }
    *ops += sort_ops(n);
    v.sort_by_key(|x| x.0);
    let mut out: Vec<(i128, T)> = Vec::with_capacity(n);
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
    tr.ops += 1 + ALLOC;
    if n < 2 {
        return Ok(Reach { root: a, levels });
    }
    let kids = tr.children(0, a);
    tr.ops += kids.len() as u128 + ALLOC;
    levels.push(
        kids.iter()
            .map(|(dt, w)| (a + dt, T::from_u128(*w)))
            .collect(),
    );
    for i in 1..n - 1 {
        let mut next = Vec::new();
        tr.ops += ALLOC;
        for (t, r) in &levels[i - 1] {
            let kids = tr.children(i, *t);
            tr.ops += kids.len() as u128;
            for (dt, w) in kids.iter() {
                next.push((t + dt, mul(r, &T::from_u128(*w))?));
            }
        }
        let d = tr.model.components[i + 1].period;
        levels.push(merge(next, d, &mut tr.ops)?);
    }
    Ok(Reach { root: a, levels })
}

/// The latency range [lo, hi] any tree can reach.
pub fn latency_bounds(model: &Model) -> (i128, i128) {
    let c = &model.components;
    let lo = c.iter().map(|x| x.etp.min()).sum();
    let hi = c.iter().map(|x| x.etp.max()).sum::<i128>()
        + c.iter().skip(1).map(|x| x.period - 1).sum::<i128>();
    (lo, hi)
}

/// The most nodes of the kept trees, in all.
pub const TREE_NODES: usize = 20_000;

/// The exact analysis with weights of type `T`.
pub fn analyse<T: Weight>(model: &Model, opts: &Options) -> Result<Analysis<T>, Overflow> {
    let plan = plan(model, opts).map_err(|_| Overflow)?;
    let n = model.components.len();
    let mut tr = Transitions::new(model);
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
    let n = tr.model.components.len();
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
    let total = tr.model.components[i].etp.total;
    let kids: Step = if i + 1 == n {
        // Leaves: only as many values as the budget takes.
        let points = &tr.model.components[i].etp.points;
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
