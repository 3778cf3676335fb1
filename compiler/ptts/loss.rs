//! Container loss (thesis Sec. 5.5, docs/ptts.md).
//!
//! Two containers whose paths reach the same triggering of a component
//! (a node shared by their latency trees) are read by that one triggering:
//! the earlier one was overwritten. For every pair of triggerings (a, b) of
//! the first component, a in one hyper-period and b after a (also beyond
//! the hyper-period's end, so the pattern wraps around), the probability
//! that their paths meet is the sum, over the shared nodes, of the product
//! of the two reach probabilities — counting a pair once, at the first
//! component where the paths meet (a pair that meets at component 1 also
//! shares the nodes after it; it lost one container, not several). Only
//! pairs whose reach sets intersect somewhere are looked at further (every
//! other pair contributes 0), and then only their shared nodes and the
//! paths from their first meetings (the formula of `LossAcc::pair`). The loss
//! probability is the sum over pairs divided by the triggerings in a
//! hyper-period. Leaves (the chain's output) are not nodes of a buffer and
//! never count. Every step counts on the analysis' operation counter.

use super::model::Model;
use super::num::{add_to, mul, Overflow, Weight};
use super::steps::{merge, sort_ops, Reach, Transitions, ALLOC};
use std::collections::VecDeque;

/// One contribution: triggerings `a` < `b` of the first component, whose
/// paths first meet at the triggering of `component` at `time`, with
/// probability `weight / den` (already divided by the trees).
#[derive(Clone, Debug, PartialEq)]
pub struct Contribution<T> {
    pub a: i128,
    pub b: i128,
    pub component: usize,
    pub time: i128,
    pub weight: T,
}

/// The loss probability `total / den` and its largest contributions.
#[derive(Clone, Debug)]
pub struct LossResult<T> {
    pub total: T,
    pub den: T,
    /// Contributions, largest first (at most [`TOP`]).
    pub top: Vec<Contribution<T>>,
    /// Pairs of trees whose paths can meet.
    pub pairs: u64,
}

/// How many contributions a result keeps.
pub const TOP: usize = 1000;

/// Accumulates the loss over the trees, in the order of their roots.
pub struct LossAcc<T> {
    /// The hyper-period's trees among the last `lookahead`.
    window: VecDeque<(u128, Reach<T>)>,
    lookahead: u128,
    /// Per level i (1…N−1): Π_{i≤j≤N−2} total_j squared, to bring a meeting
    /// at level i onto the common denominator.
    scale: Vec<T>,
    den_pairs: T,
    total: T,
    top: Vec<Contribution<T>>,
    pairs: u64,
    next: u128,
}

/// The lookahead of a model: trees after a tree that its paths may meet.
pub fn lookahead(model: &Model) -> u128 {
    let n = model.components.len();
    // Level-i node times of the tree of a lie in [a + lo_i, a + hi_i].
    let (mut lo, mut hi) = (0i128, 0i128);
    let mut spread = 0i128;
    for i in 0..n - 1 {
        let c = &model.components[i];
        lo += c.etp.min();
        hi += c.etp.max() + model.components[i + 1].period - 1;
        spread = spread.max(hi - lo);
    }
    let d0 = model.components[0].period;
    (spread / d0).max(0) as u128
}

impl<T: Weight> LossAcc<T> {
    pub fn new(model: &Model, trees: u128, ops: &mut u128) -> Self {
        let n = model.components.len();
        *ops += (n * n) as u128 + 1;
        // Overflow here shows as a zero, which `pair` and `finish` report.
        let totals: Vec<T> = model
            .components
            .iter()
            .map(|c| T::from_u128(c.etp.total))
            .collect();
        let product = |from: usize, to: usize| -> T {
            let mut p = T::one();
            for t in &totals[from..to] {
                p = mul(&p, t).unwrap_or_else(|_| T::zero());
            }
            p
        };
        // scale[i] = (Π_{i≤j≤N−2} total_j)²: a meeting at level i is over
        // (Π_{j<i} total_j)², the full denominator over (Π_{j≤N−2} total_j)².
        let scale: Vec<T> = (0..n)
            .map(|i| {
                let p = product(i.min(n - 1), n - 1);
                mul(&p, &p).unwrap_or_else(|_| T::zero())
            })
            .collect();
        let full = product(0, n - 1);
        let den_pairs = mul(&full, &full)
            .and_then(|x| mul(&x, &T::from_u128(trees)))
            .unwrap_or_else(|_| T::zero());
        LossAcc {
            window: VecDeque::new(),
            lookahead: lookahead(model),
            scale,
            den_pairs,
            total: T::zero(),
            top: Vec::new(),
            pairs: 0,
            next: 0,
        }
    }

    /// Trees after the hyper-period needed as partners of its last ones.
    pub fn lookahead(&self) -> u128 {
        self.lookahead
    }

    /// Adds the next tree (root index `self.next`); `own` is whether it is
    /// in the hyper-period (else it is only a partner, and not kept).
    pub fn push(&mut self, tr: &mut Transitions, r: Reach<T>, own: bool) -> Result<(), Overflow> {
        let k = self.next;
        self.next += 1;
        while let Some((j, _)) = self.window.front() {
            if k - j > self.lookahead {
                tr.ops += 1;
                self.window.pop_front();
            } else {
                break;
            }
        }
        let window = std::mem::take(&mut self.window);
        let mut result = Ok(());
        for (_, ra) in &window {
            tr.ops += 1;
            result = self.pair(tr, ra, &r);
            if result.is_err() {
                break;
            }
        }
        self.window = window;
        result?;
        if self.lookahead > 0 && own {
            tr.ops += 1;
            self.window.push_back((k, r));
        }
        Ok(())
    }

    /// The same pairs as [`push`](Self::push) over `trees + lookahead`
    /// trees, from the hyper-period's trees alone (`reaches`, in root
    /// order): tree k is tree k mod trees shifted by ⌊k / trees⌋ hyper-periods
    /// (`hyper`, grid steps), and a partner that shares no time with a tree
    /// contributes nothing, so the partners are looked up by the times
    /// they share (a time t of tree j meets tree b's time t_b exactly when
    /// t − t_b is a multiple of the hyper-period). The cost follows the
    /// reach sets, not the lookahead, which grows with the magnitude of the
    /// execution times (2^31 grid steps: hundreds of millions of trees).
    pub fn push_looked_up(
        &mut self,
        tr: &mut Transitions,
        reaches: &[Reach<T>],
        hyper: i128,
    ) -> Result<(), Overflow> {
        let trees = reaches.len() as i128;
        // (level, time mod hyper, tree, time), sorted: a look-up is a range.
        let mut index: Vec<(usize, i128, i128, i128)> = Vec::new();
        for (b, r) in reaches.iter().enumerate() {
            for (l, level) in r.levels.iter().enumerate() {
                tr.ops += level.len() as u128;
                for (t, _) in level {
                    index.push((l, t.rem_euclid(hyper), b as i128, *t));
                }
            }
        }
        tr.ops += sort_ops(index.len());
        index.sort_unstable();
        let look = log_ops(index.len());
        for (j, r) in reaches.iter().enumerate() {
            let j = j as i128;
            let mut partners: Vec<i128> = Vec::new();
            for (l, level) in r.levels.iter().enumerate() {
                for (t, _) in level {
                    tr.ops += look;
                    let key = (l, t.rem_euclid(hyper));
                    let from = index.partition_point(|e| (e.0, e.1) < key);
                    for &(_, _, b, tb) in index[from..].iter().take_while(|e| (e.0, e.1) == key) {
                        tr.ops += 1;
                        let k = (t - tb) / hyper * trees + b;
                        if k > j && ((k - j) as u128) <= self.lookahead {
                            partners.push(k);
                        }
                    }
                }
            }
            tr.ops += sort_ops(partners.len());
            partners.sort_unstable();
            partners.dedup();
            for k in partners {
                let shift = k.div_euclid(trees) * hyper;
                let b = reaches[k.rem_euclid(trees) as usize].shifted(shift, &mut tr.ops);
                self.pair(tr, r, &b)?;
            }
        }
        self.next = (trees as u128).saturating_add(self.lookahead);
        Ok(())
    }

    /// The pair of trees a < b: where their paths first meet, and with
    /// what probability. With A_l, B_l the reach probabilities of level l
    /// and K_{m→l}(s, t) the probability that a path at node s of level m
    /// is at t on level l, the probability that the paths first meet at
    /// (l, t) is
    ///
    /// M_l(t) = A_l(t)·B_l(t) − Σ_{m<l} Σ_s M_m(s)·K_{m→l}(s, t)²
    ///
    /// (the paths are independent until they meet; of the pairs of paths
    /// at t, those that met before at s went on independently from there).
    /// So the cost follows the shared nodes and the paths from the
    /// meetings, never the product of the two reach sets.
    fn pair(&mut self, tr: &mut Transitions, a: &Reach<T>, b: &Reach<T>) -> Result<(), Overflow> {
        let mut intersect = false;
        for (x, y) in a.levels.iter().zip(&b.levels) {
            if shares(x, y, &mut tr.ops) {
                intersect = true;
                break;
            }
        }
        if !intersect {
            return Ok(());
        }
        self.pairs += 1;
        let levels = a.levels.len();
        // Per level: the shared times with A_l(t)·B_l(t), and what the
        // meetings before take of it.
        let mut shared: Vec<Vec<(i128, T)>> = Vec::with_capacity(levels);
        for (x, y) in a.levels.iter().zip(&b.levels) {
            tr.ops += ALLOC;
            shared.push(both(x, y, &mut tr.ops)?);
        }
        let mut taken: Vec<Vec<T>> = shared
            .iter()
            .map(|s| {
                tr.ops += s.len() as u128 + ALLOC;
                vec![T::zero(); s.len()]
            })
            .collect();
        for level in 0..levels {
            for k in 0..shared[level].len() {
                tr.ops += 1;
                let (time, ab) = &shared[level][k];
                let v = ab.checked_sub(&taken[level][k]).ok_or(Overflow)?;
                if v.is_zero() {
                    continue;
                }
                if level + 1 < levels {
                    from_meeting(tr, level, *time, &v, &shared, &mut taken)?;
                }
                self.contribute(a.root, b.root, level + 1, *time, &v, &mut tr.ops)?;
            }
        }
        Ok(())
    }

    /// One first meeting of the pair (a, b) at component `level`, `time`,
    /// with weight `v` over (Π_{j<level} total_j)².
    fn contribute(
        &mut self,
        a: i128,
        b: i128,
        level: usize,
        time: i128,
        v: &T,
        ops: &mut u128,
    ) -> Result<(), Overflow> {
        if self.scale[level].is_zero() || self.den_pairs.is_zero() {
            return Err(Overflow);
        }
        *ops += 1;
        let w = mul(v, &self.scale[level])?;
        add_to(&mut self.total, &w)?;
        self.top.push(Contribution {
            a,
            b,
            component: level,
            time,
            weight: w,
        });
        if self.top.len() > 2 * TOP {
            self.trim(ops);
        }
        Ok(())
    }

    fn trim(&mut self, ops: &mut u128) {
        *ops += sort_ops(self.top.len());
        self.top.sort_by(|x, y| {
            y.weight
                .cmp(&x.weight)
                .then(x.a.cmp(&y.a))
                .then(x.b.cmp(&y.b))
                .then(x.component.cmp(&y.component))
        });
        self.top.truncate(TOP);
    }

    pub fn finish(mut self, ops: &mut u128) -> Result<LossResult<T>, Overflow> {
        if self.den_pairs.is_zero() {
            return Err(Overflow);
        }
        self.trim(ops);
        Ok(LossResult {
            total: self.total,
            den: self.den_pairs,
            top: self.top,
            pairs: self.pairs,
        })
    }
}

/// The paths from a first meeting at (level, s) with weight `v`: adds
/// v·K(s, t)² to what the meeting takes of every later shared node t (all
/// nodes reachable from s are shared, as s is).
fn from_meeting<T: Weight>(
    tr: &mut Transitions,
    level: usize,
    s: i128,
    v: &T,
    shared: &[Vec<(i128, T)>],
    taken: &mut [Vec<T>],
) -> Result<(), Overflow> {
    let mut dist: Vec<(i128, T)> = vec![(s, T::one())];
    tr.ops += ALLOC;
    for l in level + 1..shared.len() {
        let mut next: Vec<(i128, T)> = Vec::new();
        tr.ops += ALLOC;
        for (x, k) in &dist {
            let kids = tr.children(l, *x);
            tr.ops += kids.len() as u128;
            for (dx, w) in kids.iter() {
                next.push((x + dx, mul(k, &T::from_u128(*w))?));
            }
        }
        let d = tr.model().components[l + 1].period;
        dist = merge(next, d, &mut tr.ops)?;
        let look = log_ops(shared[l].len());
        for (t, k) in &dist {
            tr.ops += look;
            let i = shared[l].partition_point(|e| e.0 < *t);
            if shared[l].get(i).is_some_and(|e| e.0 == *t) {
                let w = mul(&mul(k, k)?, v)?;
                add_to(&mut taken[l][i], &w)?;
            }
        }
    }
    Ok(())
}

/// The operations of a binary search among `n` (⌊log2 n⌋ + 2).
pub fn log_ops(n: usize) -> u128 {
    (usize::BITS - n.leading_zeros()) as u128 + 2
}

/// Whether two sorted lists of (time, weight) share a time.
fn shares<T>(x: &[(i128, T)], y: &[(i128, T)], ops: &mut u128) -> bool {
    let (mut i, mut j) = (0, 0);
    *ops += 1;
    while i < x.len() && j < y.len() {
        *ops += 1;
        match x[i].0.cmp(&y[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

/// The times two sorted lists share, with the product of their weights.
fn both<T: Weight>(
    x: &[(i128, T)],
    y: &[(i128, T)],
    ops: &mut u128,
) -> Result<Vec<(i128, T)>, Overflow> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::new();
    *ops += 1;
    while i < x.len() && j < y.len() {
        *ops += 1;
        match x[i].0.cmp(&y[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push((x[i].0, mul(&x[i].1, &y[j].1)?));
                i += 1;
                j += 1;
            }
        }
    }
    Ok(out)
}
