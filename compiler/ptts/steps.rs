//! The steps every analysis of a chain takes (thesis eqs. 5.7–5.12): the
//! one-step transitions of a latency tree's nodes ([`Transitions`]), the
//! reach probabilities of a level ([`reach`]), merging equal times
//! ([`merge`]), and the operation counts the plan bounds them by
//! ([`sort_ops`], [`ALLOC`], [`CALL`]). Takes a model; gives weights.

use super::model::{Model, Run};
use super::num::{add_to, mul, Overflow, Weight};
use std::rc::Rc;

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
    /// The transitions of `model`, memoised for the components where
    /// `memoised` says so (`cost::memoised`, whose bounds count on it).
    pub fn new(model: &'m Model, memoised: Vec<bool>) -> Self {
        Transitions {
            model,
            memo: vec![None; model.components.len()],
            memoised,
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

    pub fn model(&self) -> &'m Model {
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
