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
//! shares the nodes after it; it lost one container, not several). Paths
//! are followed jointly only for pairs whose reach sets intersect somewhere;
//! every other pair contributes 0. The loss probability is the sum over
//! pairs divided by the triggerings in a hyper-period. Leaves (the chain's
//! output) are not nodes of a buffer and never count.

use super::exact::{Reach, Transitions};
use super::model::Model;
use super::num::{add_to, mul, Overflow, Weight};
use std::collections::{BTreeSet, HashMap, VecDeque};

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
    window: VecDeque<(u128, Reach<T>)>,
    lookahead: u128,
    /// Per level i (1…N−1): Π_{i≤j≤N−2} total_j squared, to bring a meeting
    /// at level i onto the common denominator.
    scale: Vec<T>,
    den_pairs: T,
    trees: u128,
    total: T,
    top: Vec<Contribution<T>>,
    pairs: u64,
    next: u128,
}

impl<T: Weight> LossAcc<T> {
    pub fn new(model: &Model, trees: u128) -> Self {
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
        let lookahead = (spread / d0).max(0) as u128;
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
            lookahead,
            scale,
            den_pairs,
            trees,
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
    /// in the hyper-period (else it is only a partner).
    pub fn push(&mut self, tr: &mut Transitions, r: Reach<T>, own: bool) -> Result<(), Overflow> {
        let _ = own;
        let k = self.next;
        self.next += 1;
        while let Some((j, _)) = self.window.front() {
            if k - j > self.lookahead {
                self.window.pop_front();
            } else {
                break;
            }
        }
        let window = std::mem::take(&mut self.window);
        let mut result = Ok(());
        for (j, ra) in &window {
            if *j < self.trees {
                result = self.pair(tr, ra, &r);
                if result.is_err() {
                    break;
                }
            }
        }
        self.window = window;
        result?;
        if self.lookahead > 0 {
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
        let mut index: HashMap<(usize, i128), Vec<(i128, i128)>> = HashMap::new();
        for (b, r) in reaches.iter().enumerate() {
            for (l, level) in r.levels.iter().enumerate() {
                for (t, _) in level {
                    index
                        .entry((l, t.rem_euclid(hyper)))
                        .or_default()
                        .push((b as i128, *t));
                }
            }
        }
        // (k, j) in the order `push` meets them: by partner, then by tree.
        let mut partners: BTreeSet<(i128, i128)> = BTreeSet::new();
        for (j, r) in reaches.iter().enumerate() {
            let j = j as i128;
            for (l, level) in r.levels.iter().enumerate() {
                for (t, _) in level {
                    for &(b, tb) in index.get(&(l, t.rem_euclid(hyper))).into_iter().flatten() {
                        let k = (t - tb) / hyper * trees + b;
                        if k > j && ((k - j) as u128) <= self.lookahead {
                            partners.insert((k, j));
                        }
                    }
                }
            }
        }
        for (k, j) in partners {
            let shift = k.div_euclid(trees) * hyper;
            let base = &reaches[k.rem_euclid(trees) as usize];
            let b = Reach {
                root: base.root + shift,
                levels: base
                    .levels
                    .iter()
                    .map(|l| l.iter().map(|(t, w)| (t + shift, w.clone())).collect())
                    .collect(),
            };
            self.pair(tr, &reaches[j as usize], &b)?;
        }
        self.next = (trees as u128).saturating_add(self.lookahead);
        Ok(())
    }

    fn pair(&mut self, tr: &mut Transitions, a: &Reach<T>, b: &Reach<T>) -> Result<(), Overflow> {
        let intersect = a.levels.iter().zip(&b.levels).any(|(x, y)| shares(x, y));
        if !intersect {
            return Ok(());
        }
        self.pairs += 1;
        let levels = a.levels.len();
        // Level 1: independent reach; meet where both are, else go on jointly.
        let mut joint: Vec<((i128, i128), T)> = Vec::new();
        let mut meets: Vec<(usize, i128, T)> = Vec::new();
        for (ta, wa) in &a.levels[0] {
            for (tb, wb) in &b.levels[0] {
                let w = mul(wa, wb)?;
                if ta == tb {
                    meets.push((1, *ta, w));
                } else {
                    joint.push(((*ta, *tb), w));
                }
            }
        }
        for level in 1..levels {
            if joint.is_empty() {
                break;
            }
            let mut next: Vec<((i128, i128), T)> = Vec::new();
            for ((x, y), w) in &joint {
                let cx = tr.children(level, *x);
                let cy = tr.children(level, *y);
                for (dx, wx) in cx.iter() {
                    let wxy = mul(w, &T::from_u128(*wx))?;
                    for (dy, wy) in cy.iter() {
                        let v = mul(&wxy, &T::from_u128(*wy))?;
                        let (tx, ty) = (x + dx, y + dy);
                        if tx == ty {
                            meets.push((level + 1, tx, v));
                        } else {
                            next.push(((tx, ty), v));
                        }
                    }
                }
            }
            next.sort_by_key(|e| e.0);
            let mut merged: Vec<((i128, i128), T)> = Vec::with_capacity(next.len());
            for (k, v) in next {
                match merged.last_mut() {
                    Some(last) if last.0 == k => add_to(&mut last.1, &v)?,
                    _ => merged.push((k, v)),
                }
            }
            joint = merged;
        }
        // Same node reached through several parent pairs: one contribution.
        meets.sort_by_key(|m| (m.0, m.1));
        let mut merged: Vec<(usize, i128, T)> = Vec::new();
        for (l, t, v) in meets {
            match merged.last_mut() {
                Some(last) if last.0 == l && last.1 == t => add_to(&mut last.2, &v)?,
                _ => merged.push((l, t, v)),
            }
        }
        for (level, time, v) in merged {
            if self.scale[level].is_zero() || self.den_pairs.is_zero() {
                return Err(Overflow);
            }
            let w = mul(&v, &self.scale[level])?;
            add_to(&mut self.total, &w)?;
            self.top.push(Contribution {
                a: a.root,
                b: b.root,
                component: level,
                time,
                weight: w,
            });
            if self.top.len() > 2 * TOP {
                self.trim();
            }
        }
        Ok(())
    }

    fn trim(&mut self) {
        self.top.sort_by(|x, y| {
            y.weight
                .cmp(&x.weight)
                .then(x.a.cmp(&y.a))
                .then(x.b.cmp(&y.b))
                .then(x.component.cmp(&y.component))
        });
        self.top.truncate(TOP);
    }

    pub fn finish(mut self) -> Result<LossResult<T>, Overflow> {
        if self.den_pairs.is_zero() {
            return Err(Overflow);
        }
        self.trim();
        Ok(LossResult {
            total: self.total,
            den: self.den_pairs,
            top: self.top,
            pairs: self.pairs,
        })
    }
}

/// Whether two sorted lists of (time, weight) share a time.
fn shares<T>(x: &[(i128, T)], y: &[(i128, T)]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        match x[i].0.cmp(&y[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}
