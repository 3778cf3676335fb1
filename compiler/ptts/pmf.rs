//! The end-to-end latency distribution, summed over the trees.
//!
//! Takes each tree's reach probabilities of the last component (time
//! relative to the root, weight) and gives the PMF of the latency as whole
//! weights over `trees · Π totals`. The trees are summed first (the
//! distribution of the last component's triggering relative to the root),
//! then convolved once with the last ETP. The convolution goes run by run
//! ([`super::model::Run`]): a long run adds the same weight over a window
//! of triggerings, so it is a sliding sum, one operation per input and per
//! output, whatever the number of values (a `uniform` over 10^6 grid steps
//! costs as much as its output). Every operation counts on the counter the
//! caller passes ([`super::cost`] bounds them).

use super::model::{Etp, Model, Run};
use super::num::{add_to, mul, Overflow, Weight};
use super::steps::{sort_ops, Reach, ALLOC};

/// Latency ranges up to this many values are summed in a dense vector.
pub const DENSE: i128 = 1 << 22;

/// Runs up to this many values are convolved value by value.
pub const SLIDE_MIN: i128 = 8;

/// A distribution being summed: dense when its range is small, else
/// additions gathered and, now and then, sorted and merged into the sum
/// (sequential work, where a search tree of millions of values waits on
/// memory at every addition).
pub enum Acc<T> {
    Dense {
        lo: i128,
        v: Vec<T>,
    },
    Sparse {
        merged: Vec<(i128, T)>,
        added: Vec<(i128, T)>,
    },
}

/// Additions gathered before the first merge of a sparse sum.
const GATHER: usize = 1 << 16;

impl<T: Weight> Acc<T> {
    /// An accumulator for values in [lo, hi].
    pub fn new(lo: i128, hi: i128, ops: &mut u128) -> Acc<T> {
        if hi - lo < DENSE {
            *ops += (hi - lo + 1) as u128;
            Acc::Dense {
                lo,
                v: vec![T::zero(); (hi - lo + 1) as usize],
            }
        } else {
            Acc::Sparse {
                merged: Vec::new(),
                added: Vec::new(),
            }
        }
    }

    pub fn add(&mut self, x: i128, w: &T, ops: &mut u128) -> Result<(), Overflow> {
        *ops += 1;
        match self {
            Acc::Dense { lo, v } => add_to(&mut v[(x - *lo) as usize], w),
            Acc::Sparse { merged, added } => {
                added.push((x, w.clone()));
                if added.len() >= GATHER.max(merged.len()) {
                    gather(merged, added, ops)?;
                }
                Ok(())
            }
        }
    }

    /// The non-zero values, sorted.
    pub fn into_pmf(self, ops: &mut u128) -> Result<Vec<(i128, T)>, Overflow> {
        match self {
            Acc::Dense { lo, v } => {
                *ops += v.len() as u128;
                Ok(v.into_iter()
                    .enumerate()
                    .filter(|(_, w)| !w.is_zero())
                    .map(|(k, w)| (lo + k as i128, w))
                    .collect())
            }
            Acc::Sparse {
                mut merged,
                mut added,
            } => {
                gather(&mut merged, &mut added, ops)?;
                Ok(merged)
            }
        }
    }
}

/// Sorts the additions, sums equal values and merges them into the sum.
fn gather<T: Weight>(
    merged: &mut Vec<(i128, T)>,
    added: &mut Vec<(i128, T)>,
    ops: &mut u128,
) -> Result<(), Overflow> {
    *ops += sort_ops(added.len()) + (merged.len() + added.len()) as u128 + 2 * ALLOC;
    added.sort_by_key(|e| e.0);
    let old = std::mem::take(merged);
    let mut out: Vec<(i128, T)> = Vec::with_capacity(old.len() + added.len());
    let mut a = old.into_iter().peekable();
    let mut b = added.drain(..).peekable();
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x.0 <= y.0 => a.next(),
            (Some(_), Some(_)) => b.next(),
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        let Some((t, w)) = next else { break };
        match out.last_mut() {
            Some(last) if last.0 == t => add_to(&mut last.1, &w)?,
            _ => out.push((t, w)),
        }
    }
    *merged = out;
    Ok(())
}

/// The range [lo, hi] of the last component's triggerings relative to the
/// root (0 for a chain of one component).
pub fn relative_range(model: &Model) -> (i128, i128) {
    let c = &model.components;
    let n = c.len();
    let lo = c[..n - 1].iter().map(|x| x.etp.min()).sum();
    let hi = c[..n - 1].iter().map(|x| x.etp.max()).sum::<i128>()
        + c[1..].iter().map(|x| x.period - 1).sum::<i128>();
    (lo, hi)
}

/// The latency distribution being summed over the trees.
pub struct Latencies<T> {
    /// The last component's triggering relative to the root.
    relative: Acc<T>,
    components: usize,
    bounds: (i128, i128),
}

impl<T: Weight> Latencies<T> {
    pub fn new(model: &Model, ops: &mut u128) -> Self {
        let (lo, hi) = relative_range(model);
        Latencies {
            relative: Acc::new(lo, hi, ops),
            components: model.components.len(),
            bounds: super::steps::latency_bounds(model),
        }
    }

    /// Adds one tree.
    pub fn add(&mut self, r: &Reach<T>, ops: &mut u128) -> Result<(), Overflow> {
        if self.components == 1 {
            return self.relative.add(0, &T::one(), ops);
        }
        for (t, w) in r.levels.last().into_iter().flatten() {
            self.relative.add(t - r.root, w, ops)?;
        }
        Ok(())
    }

    /// The PMF: the sum convolved with the last component's ETP.
    pub fn finish(self, last: &Etp, ops: &mut u128) -> Result<Vec<(i128, T)>, Overflow> {
        let q = self.relative.into_pmf(ops)?;
        let (lo, hi) = self.bounds;
        let mut out = Acc::<T>::new(lo, hi, ops);
        for run in &last.runs {
            *ops += 1;
            let w = T::from_u128(run.weight);
            if run.count <= SLIDE_MIN {
                for j in 0..run.count {
                    let v = run.start + j * run.step;
                    for (x, qx) in &q {
                        out.add(x + v, &mul(qx, &w)?, ops)?;
                    }
                }
            } else {
                slide(&q, run, &w, &mut out, ops)?;
            }
        }
        out.into_pmf(ops)
    }
}

/// Adds `q` convolved with a run to `out`: the weight at y is `w` times
/// the sum of q(x) over x = y − start − j·step, 0 ≤ j < count, a window
/// that slides along each residue class of x modulo the step.
fn slide<T: Weight>(
    q: &[(i128, T)],
    run: &Run,
    w: &T,
    out: &mut Acc<T>,
    ops: &mut u128,
) -> Result<(), Overflow> {
    let g = run.step;
    let mut order: Vec<usize> = (0..q.len()).collect();
    if g > 1 {
        *ops += sort_ops(q.len());
        order.sort_by_key(|&i| (q[i].0.rem_euclid(g), q[i].0));
    }
    let mut from = 0;
    while from < order.len() {
        let class = q[order[from]].0.rem_euclid(g);
        let mut to = from;
        while to < order.len() && q[order[to]].0.rem_euclid(g) == class {
            to += 1;
        }
        // In the class, x = class + m·g; the output y = x + start + j·g has
        // index m_y = m + j, and takes the inputs with m in (m_y − count, m_y].
        let m = |k: usize| (q[order[k]].0 - class) / g;
        let (mut first, mut next) = (from, from);
        let mut sum = T::zero();
        let mut my = m(from);
        loop {
            *ops += 1;
            while next < to && m(next) <= my {
                *ops += 1;
                add_to(&mut sum, &q[order[next]].1)?;
                next += 1;
            }
            while first < next && m(first) <= my - run.count {
                *ops += 1;
                sum = sum.checked_sub(&q[order[first]].1).ok_or(Overflow)?;
                first += 1;
            }
            if first < next {
                out.add(class + my * g + run.start, &mul(&sum, w)?, ops)?;
                my += 1;
            } else if next < to {
                my = m(next);
            } else {
                break;
            }
        }
        from = to;
    }
    Ok(())
}
