//! Monte-Carlo simulation of a PTTS chain (`--simulate N`, thesis Sec. 5.8).
//!
//! Follows N containers: each starts at a triggering of the first
//! component drawn uniformly from one hyper-period, draws every
//! component's execution time from its ETP, and is taken by the first
//! triggering of the next component at or after it is produced. The RNG is
//! SplitMix64 with a fixed seed, so a run is reproducible. The result is
//! compared with the exact PMF by the total-variation distance
//! `½ Σ |p̂(l) − p(l)|`.

use super::model::Model;
use std::collections::BTreeMap;

/// SplitMix64: small, fast, reproducible.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `[0, n)`, n > 0, without bias (rejection).
    pub fn below(&mut self, n: u128) -> u128 {
        let r = |s: &mut Rng| ((s.next_u64() as u128) << 64) | s.next_u64() as u128;
        let zone = u128::MAX - (u128::MAX % n);
        loop {
            let x = r(self);
            if x < zone {
                return x % n;
            }
        }
    }
}

/// The outcome of a simulation.
#[derive(Clone, Debug)]
pub struct Simulation {
    pub containers: u64,
    /// Latency → containers.
    pub counts: BTreeMap<i128, u64>,
    /// Total-variation distance to the exact PMF.
    pub tv: f64,
}

/// The first triggering of a component at or after `p`.
pub fn next_trigger(period: i128, offset: i128, p: i128) -> i128 {
    offset + (p - offset + period - 1).div_euclid(period) * period
}

/// An upper bound of the operations and bytes of [`simulate`] with `n`
/// containers (per container and component a draw, a binary search and a
/// hand-over; a count per latency), for the guard of `ssc ptts`.
pub fn cost(model: &Model, n: u64) -> (u128, u128) {
    let bits = |x: u128| (u128::BITS - x.leading_zeros()) as u128;
    let (lo, hi) = super::steps::latency_bounds(model);
    let range = (hi - lo) as u128 + 1;
    let per: u128 = model
        .components
        .iter()
        .map(|c| bits(c.etp.points.len() as u128) + 4)
        .sum::<u128>()
        + bits(range)
        + 1;
    let n = n as u128;
    let cums: u128 = model
        .components
        .iter()
        .map(|c| c.etp.points.len() as u128)
        .sum();
    (
        n.saturating_mul(per).saturating_add(cums),
        range.min(n).saturating_mul(80).saturating_add(cums * 16),
    )
}

/// Simulates `n` containers with this seed; `exact` is the exact PMF as
/// (latency, probability) to compare with.
pub fn simulate(
    model: &Model,
    trees: u128,
    n: u64,
    seed: u64,
    exact: &[(i128, f64)],
) -> Simulation {
    let mut rng = Rng::new(seed);
    let cums: Vec<Vec<u128>> = model
        .components
        .iter()
        .map(|c| {
            let mut acc = 0;
            c.etp
                .points
                .iter()
                .map(|p| {
                    acc += p.1;
                    acc
                })
                .collect()
        })
        .collect();
    let first = &model.components[0];
    let mut counts = BTreeMap::new();
    for _ in 0..n {
        let a = first.offset + rng.below(trees.max(1)) as i128 * first.period;
        let mut t = a;
        for (i, c) in model.components.iter().enumerate() {
            let x = rng.below(c.etp.total);
            let k = cums[i].partition_point(|s| *s <= x);
            let produced = t + c.etp.points[k].0;
            t = match model.components.get(i + 1) {
                Some(next) => next_trigger(next.period, next.offset, produced),
                None => produced,
            };
        }
        *counts.entry(t - a).or_insert(0u64) += 1;
    }
    let tv = tv_distance(&counts, n, exact);
    Simulation {
        containers: n,
        counts,
        tv,
    }
}

/// `½ Σ |counts/n − exact|` over the union of both supports.
pub fn tv_distance(counts: &BTreeMap<i128, u64>, n: u64, exact: &[(i128, f64)]) -> f64 {
    let mut sum = 0.0;
    let mut seen = 0u64;
    for (l, p) in exact {
        let c = counts.get(l).copied().unwrap_or(0);
        seen += c;
        let q = if n == 0 { 0.0 } else { c as f64 / n as f64 };
        sum += (q - p).abs();
    }
    // Mass the simulation put outside the exact support (never, if both are right).
    if n > 0 {
        sum += (n - seen) as f64 / n as f64;
    }
    sum / 2.0
}
