//! What an analysis will cost, bounded before it starts (the guard of
//! `ssc ptts`, docs/ptts.md "Plan first").
//!
//! Takes a [`Model`] and the [`Options`]; gives an upper bound of the
//! operations the analysis counts ([`super::steps::Transitions::ops`]:
//! every transition computed, node reached, sort, look-up, addition to the
//! distribution, pair of trees looked at and path followed from a meeting)
//! plus those of the report's statistics, and of the bytes it holds. Each
//! bound follows the code it bounds, part by part, with the sizes bounded
//! by what the model allows:
//!
//! * a node of component i has at most `c_i = min(values, ⌈width/d_{i+1}⌉ + 1)`
//!   children, and computing them costs one operation per run of the ETP
//!   and per triggering a run reaches;
//! * level l of a tree holds at most `S_l` nodes: `S_{l−1}·c_l`, and at most
//!   the triggerings of its component among the times a tree can reach
//!   (a few intervals: [`super::times`]);
//! * the paths from one node (a meeting of the loss analysis) likewise;
//! * a time of a tree is a time of at most as many trees as there are
//!   roots in those intervals moved back from it.
//!
//! Tests check that the counted operations never exceed the bound (the
//! examples, random chains and the fuzz test of `tests/it/ptts_guard.rs`).
//! An operation is 1–6 ns of a release build on the project's machine
//! (allocations and 128-bit divisions count several); in big integers
//! (weights beyond 128 bits) each counts [`factor`] times. Where the
//! analysis meets fewer pairs than the intervals allow,
//! [`super::refine`] tightens the bound with a dry run.

use super::loss::{lookahead, TOP};
use super::model::Model;
use super::plan::{hyper_period, Options, Partners, Plan, PlanError, LOOK_UP_MEMORY, TREE_NODES};
use super::pmf::{relative_range, DENSE, SLIDE_MIN};
use super::steps::{ALLOC, CALL};
use super::times::Times;
use num_bigint::BigUint;
use num_traits::One;

/// Entries of memoised transitions, in all (about 48 bytes each).
pub const MEMO_ENTRIES: u128 = 1 << 21;

/// Operations and bytes per value of the distribution and per 64 bits of
/// its denominator, for the report's statistics (`report::Summary`: sums
/// in big integers, a float per value and per cumulative value).
pub const SUMMARY_OPS: u128 = 64;
pub const SUMMARY_BYTES: u128 = 120;

/// The same for the `--json` report (exact fractions: a gcd per value and
/// per cumulative value; a JSON object each, then the text).
pub const JSON_OPS: u128 = 1100;
pub const JSON_BYTES: u128 = 3400;

/// The bounds of a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cost {
    pub operations: u128,
    pub loss_operations: u128,
    pub memory: u128,
    pub big: bool,
    pub partners: Partners,
    pub values: u128,
    pub den_bits: u128,
}

/// The plan of a model analysed with `opts`: hyper-period, trees, eq.
/// 5.15, and the bounds of [`cost`].
pub fn plan(model: &Model, opts: &Options) -> Result<Plan, PlanError> {
    let (h, trees) = hyper_period(model)?;
    let mut estimate = trees;
    for w in model.components.windows(2) {
        let width = (w[0].etp.max() - w[0].etp.min() + 1) as u128;
        let d = w[1].period as u128;
        estimate = estimate.saturating_mul(width.div_ceil(d));
    }
    let cost = cost(model, opts, trees, h);
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

/// Which components' transitions are memoised: all phases of component i
/// (`d_{i+1}` of them, at most `c_i` children each) while they fit in
/// [`MEMO_ENTRIES`], in component order.
pub fn memoised(model: &Model) -> Vec<bool> {
    let c = &model.components;
    let mut left = MEMO_ENTRIES;
    let mut out = vec![false; c.len()];
    for i in 0..c.len().saturating_sub(1) {
        let need = (c[i + 1].period as u128).saturating_mul(children(model, i) + 1);
        if need <= left {
            out[i] = true;
            left -= need;
        }
    }
    out
}

/// `c_i`: the most children of a node of component i < N − 1.
fn children(model: &Model, i: usize) -> u128 {
    let e = &model.components[i].etp;
    let d = model.components[i + 1].period as u128;
    let w = (e.max() - e.min()) as u128;
    (e.points.len() as u128).min(w.div_ceil(d) + 1)
}

/// The cost of computing the children of a node of component i once.
fn step_ops(model: &Model, i: usize) -> u128 {
    let d = model.components[i + 1].period as u128;
    let runs = &model.components[i].etp.runs;
    let reached: u128 = runs
        .iter()
        .map(|r| {
            let w = (r.last() - r.start) as u128;
            (r.count as u128).min(w.div_ceil(d) + 1)
        })
        .sum();
    runs.len() as u128 + CALL * reached + 2 * ALLOC
}

/// Levels after a meeting whose nodes are bounded by [`Times`] (beyond,
/// by the tree's levels: planning stays quick for long chains).
const SINGLE_LEVELS: usize = 24;

fn bits(n: u128) -> u128 {
    (u128::BITS - n.leading_zeros()) as u128
}

/// Saturating sum and product: a bound at u128::MAX is refused anyway.
fn add(xs: &[u128]) -> u128 {
    xs.iter().fold(0u128, |a, b| a.saturating_add(*b))
}

fn mul(a: u128, b: u128) -> u128 {
    a.saturating_mul(b)
}

fn sort_bound(n: u128) -> u128 {
    mul(n, bits(n) + 1)
}

fn log_bound(n: u128) -> u128 {
    bits(n) + 2
}

/// steps::merge of at most `pushed` entries into at most `cells`
/// triggerings: buckets or a sort, whichever costs less.
fn merge_bound(pushed: u128, cells: u128) -> u128 {
    add(&[
        pushed,
        ALLOC,
        pushed.saturating_add(cells).min(sort_bound(pushed)),
    ])
}

/// The sizes that bound every part, and the calls of the transitions they
/// add up to.
struct Sizes {
    /// Components.
    n: usize,
    trees: u128,
    lookahead: u128,
    /// Periods.
    d: Vec<u128>,
    /// `c_i` per component i < N − 1.
    c: Vec<u128>,
    /// Per level l (component l + 1): nodes of a tree, and the times they
    /// may have relative to the root.
    s: Vec<u128>,
    u: Vec<Times>,
    /// Triggerings between the first and the last time a level may have
    /// (the buckets of steps::merge).
    cells: Vec<u128>,
    /// `single[m][l − m]`: nodes of level l reachable from one node of
    /// level m.
    single: Vec<Vec<u128>>,
    /// Calls of each component's transitions.
    calls: Vec<u128>,
    /// Bytes of a (time, weight) entry.
    entry: u128,
}

impl Sizes {
    fn new(model: &Model, trees: u128, weight_bytes: u128) -> Sizes {
        let comps = &model.components;
        let n = comps.len();
        let d: Vec<u128> = comps.iter().map(|c| c.period as u128).collect();
        let c: Vec<u128> = (0..n - 1).map(|i| children(model, i)).collect();
        let etps: Vec<Times> = comps.iter().map(|c| Times::of_etp(&c.etp)).collect();
        // Level l's times relative to the root, and what they bound.
        let (mut s, mut u, mut cells) = (Vec::new(), Vec::new(), Vec::new());
        let mut times = Times::start();
        for l in 0..n - 1 {
            times = times.hop(&etps[l], comps[l + 1].period);
            let before = if l == 0 { 1 } else { s[l - 1] };
            s.push(mul(before, c[l]).min(times.count(comps[l + 1].period)));
            let (lo, hi) = times.span();
            cells.push(((hi - lo) / comps[l + 1].period) as u128 + 1);
            u.push(times.clone());
        }
        // From a node of level m, the nodes of level l ≥ m.
        let single = (0..n - 1)
            .map(|m| {
                let mut times = Times::start();
                let mut r = 1u128;
                let mut out = vec![1u128];
                for l in m + 1..n.saturating_sub(1).min(m + SINGLE_LEVELS) {
                    times = times.hop(&etps[l], comps[l + 1].period);
                    r = mul(r, c[l]).min(times.count(comps[l + 1].period)).min(s[l]);
                    out.push(r);
                }
                for l in (m + SINGLE_LEVELS).max(m + 1)..n - 1 {
                    r = mul(r, c[l]).min(s[l]);
                    out.push(r);
                }
                out
            })
            .collect();
        Sizes {
            n,
            trees,
            lookahead: lookahead(model),
            d,
            c,
            s,
            u,
            cells,
            single,
            calls: vec![0; n],
            entry: 16 + weight_bytes,
        }
    }

    fn levels(&self) -> usize {
        self.n - 1
    }

    /// Σ_l S_l: the nodes of a tree.
    fn nodes(&self) -> u128 {
        add(&self.s)
    }

    /// Bytes of one tree's reach.
    fn reach_bytes(&self) -> u128 {
        add(&[
            mul(self.nodes(), self.entry),
            24 * self.levels() as u128,
            48,
        ])
    }

    /// The most entries a level is built from before its merge.
    fn pushed(&self) -> u128 {
        (1..self.levels())
            .map(|l| mul(self.s[l - 1], self.c[l]))
            .max()
            .unwrap_or(0)
            .max(self.c.first().copied().unwrap_or(0))
    }

    /// `times` trees reached (steps::reach).
    fn reach(&mut self, times: u128) -> u128 {
        let mut one = 1 + ALLOC;
        if self.n >= 2 {
            self.calls[0] = self.calls[0].saturating_add(times);
            one = add(&[one, ALLOC, self.c[0]]);
        }
        for l in 1..self.levels() {
            let pushed = mul(self.s[l - 1], self.c[l]);
            self.calls[l] = self.calls[l].saturating_add(mul(times, self.s[l - 1]));
            one = add(&[one, ALLOC, pushed, merge_bound(pushed, self.cells[l])]);
        }
        mul(one, times)
    }

    /// The paths from `times` meetings at level m (loss::from_meeting),
    /// and the most entries they hold at once.
    fn after_meeting(&mut self, m: usize, times: u128) -> (u128, u128) {
        let (mut one, mut most) = (ALLOC, 0u128);
        for l in m + 1..self.levels() {
            let r = self.single[m][l - 1 - m];
            self.calls[l] = self.calls[l].saturating_add(mul(times, r));
            let pushed = mul(r, self.c[l]);
            let next = self.single[m][l - m];
            let merged = merge_bound(pushed, self.cells[l]);
            one = add(&[one, ALLOC, pushed, merged, mul(next, log_bound(self.s[l]))]);
            most = most.max(pushed);
        }
        (mul(one, times), most)
    }

    /// `candidates` pairs of trees looked at, of which at most `meeting`
    /// meet (loss::LossAcc::pair); the operations and the bytes of one
    /// pair's lists.
    fn pairs(&mut self, candidates: u128, meeting: u128) -> (u128, u128) {
        let levels = self.levels() as u128;
        let nodes = self.nodes();
        let check = levels + 2 * nodes;
        // Shared lists, what the meetings take, one pass, contributions
        // (each with its share of the trims of the top list).
        let trim = sort_bound(2 * TOP as u128 + 1) / (TOP as u128 + 1) + 1;
        let lists = levels * (1 + 2 * ALLOC);
        let rest = add(&[lists, 2 * nodes, nodes, nodes, mul(nodes, trim + 1)]);
        let mut ops = add(&[mul(candidates, 1 + check), mul(meeting, rest)]);
        let mut most = 0;
        for m in 0..self.levels().saturating_sub(1) {
            let (o, held) = self.after_meeting(m, mul(meeting, self.s[m]));
            ops = ops.saturating_add(o);
            most = most.max(held);
        }
        let bytes = add(&[mul(nodes, 2 * self.entry), mul(most, 2 * self.entry)]);
        (ops, bytes)
    }

    /// The loss over a sliding window: every tree up to the lookahead.
    fn window(&mut self) -> (u128, u128) {
        let candidates = mul(self.trees, self.lookahead);
        let (pairs, bytes) = self.pairs(candidates, candidates);
        let ops = add(&[pairs, mul(self.trees, 2)]);
        let held = mul(self.trees.min(self.lookahead + 1), self.reach_bytes());
        (ops, add(&[held, bytes]))
    }

    /// The loss by look-up: the hyper-period's trees, an index of their
    /// times, the partners that share one.
    fn look_up(&mut self, d0: u128, known: Option<&Known>) -> (u128, u128) {
        let trees = self.trees;
        let mut index = mul(trees, self.nodes());
        let (mut raw, mut find) = (0u128, 0u128);
        for l in 0..self.levels() {
            // Trees whose level-l times include a given time.
            let bucket = self.u[l].count(d0 as i128).min(mul(trees, self.s[l]));
            raw = raw.saturating_add(mul(self.s[l], bucket));
            find = find.saturating_add(mul(self.s[l], log_bound(index) + bucket));
        }
        let shift = self.nodes() + ALLOC * self.levels() as u128;
        let partners = raw.min(self.lookahead);
        let (mut found, mut sorted, mut pairs, mut raw_max) = (
            mul(trees, find),
            mul(trees, sort_bound(raw)),
            mul(trees, partners),
            raw,
        );
        if let Some(k) = known {
            index = k.index;
            found = add(&[mul(index, log_bound(index)), k.raw]);
            sorted = sort_bound(k.raw);
            pairs = k.pairs;
            raw_max = k.raw_max;
        }
        let (pair_ops, bytes) = self.pairs(pairs, pairs);
        let ops = add(&[
            index,
            sort_bound(index),
            found,
            sorted,
            mul(pairs, shift),
            pair_ops,
        ]);
        let held = add(&[
            mul(trees, self.reach_bytes()),
            mul(index, 64),
            mul(raw_max, 16),
            self.reach_bytes(),
            bytes,
        ]);
        (ops, held)
    }

    /// The sizes a dry run found in place of the bounds.
    fn know(&mut self, k: &Known) {
        for (s, ks) in self.s.iter_mut().zip(&k.s) {
            *s = (*s).min(*ks);
        }
        for (m, row) in self.single.iter_mut().enumerate() {
            for (j, r) in row.iter_mut().enumerate() {
                *r = (*r).min(self.s[m + j]);
            }
        }
    }
}

/// What a dry run over the reach times of the hyper-period's trees found
/// ([`super::refine`]), for a closer bound of the loss by look-up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Known {
    /// Per level, the most nodes a tree has.
    pub s: Vec<u128>,
    /// Entries of the look-up's index: the nodes of all the trees.
    pub index: u128,
    /// Entries the look-ups go through, in all and for one tree at most.
    pub raw: u128,
    pub raw_max: u128,
    /// Pairs of trees that share a time, in all.
    pub pairs: u128,
}

/// A sum (pmf::Acc) over [lo, hi] of `adds` additions into at most
/// `values` values: dense, or gathered, sorted and merged (a merge takes
/// at most twice the additions since the last one, the last one at most
/// all; at most the sum, the additions and the merged list are held, each
/// at most `values` long besides 2^16 additions); operations and bytes.
fn acc(lo: i128, hi: i128, adds: u128, values: u128, entry: u128, weight: u128) -> (u128, u128) {
    if hi - lo < DENSE {
        let range = (hi - lo) as u128 + 1;
        (add(&[2 * range, adds]), mul(range, weight))
    } else {
        let gathers = adds / (1 << 16) + 1;
        let ops = add(&[
            mul(adds, 4),
            sort_bound(adds),
            values,
            mul(gathers, 2 * ALLOC),
        ]);
        (ops, mul(add(&[mul(values, 4), 1 << 17]), entry))
    }
}

/// The distribution (pmf::Latencies): the trees' sum, the convolution with
/// the last ETP; operations, bytes, and the most values of the PMF.
fn latencies(model: &Model, sz: &Sizes, weight: u128) -> (u128, u128, u128) {
    let n = sz.n;
    let (qlo, qhi) = relative_range(model);
    let q_range = (qhi - qlo) as u128 + 1;
    let per_tree = if n == 1 { 1 } else { sz.s[n - 2] };
    let q_adds = mul(sz.trees, per_tree);
    let q_values = q_range.min(q_adds);
    let (mut ops, bytes) = acc(qlo, qhi, q_adds, q_values, sz.entry, weight);
    let last = &model.components[n - 1].etp;
    let (lo, hi) = super::steps::latency_bounds(model);
    let range = (hi - lo) as u128 + 1;
    let outs: Vec<u128> = last
        .runs
        .iter()
        .map(|r| {
            let w = (r.last() - r.start) as u128;
            mul(q_values, r.count as u128).min(q_range.saturating_add(w))
        })
        .collect();
    let values = range.min(add(&outs));
    let mut adds = 0u128;
    for (r, out) in last.runs.iter().zip(&outs) {
        ops = ops.saturating_add(1);
        if r.count <= SLIDE_MIN {
            adds = adds.saturating_add(mul(q_values, r.count as u128));
        } else {
            let sort = if r.step > 1 { sort_bound(q_values) } else { 0 };
            ops = add(&[ops, sort, mul(q_values, 3), mul(*out, 2)]);
            adds = adds.saturating_add(*out);
        }
    }
    let (o, b) = acc(lo, hi, adds, values, sz.entry, weight);
    // The sum as a list, the order of a slide, the PMF.
    let lists = add(&[mul(q_values, sz.entry + 8), mul(values, sz.entry)]);
    (add(&[ops, o]), add(&[bytes, b, lists]), values)
}

/// Limbs of the largest weight when it may not fit `u128` (`None` when it
/// fits): the PMF's denominator `trees · Π totals`, and the loss's sum,
/// at most `F² · trees · lookahead` with `F = Π_{i<N−1} total_i`.
fn limbs(model: &Model, opts: &Options, trees: u128) -> (Option<u128>, u128) {
    let comps = &model.components;
    let n = comps.len();
    let mut den = BigUint::from(trees);
    let mut f = BigUint::one();
    for (i, c) in comps.iter().enumerate() {
        den *= BigUint::from(c.etp.total);
        if i + 1 < n {
            f *= BigUint::from(c.etp.total);
        }
    }
    let mut most = den.clone();
    if opts.loss && n >= 2 {
        let loss = &f * &f * BigUint::from(trees) * BigUint::from(lookahead(model).max(1));
        most = most.max(loss);
    }
    let den_bits = den.bits() as u128;
    if most.bits() > 127 {
        (Some(most.bits().div_ceil(64) as u128), den_bits)
    } else {
        (None, den_bits)
    }
}

/// The bounds of the analysis of `model` with `opts` (`trees` latency
/// trees in a hyper-period of `hyper` grid steps), with `partners`
/// resolved: [`Partners::Auto`] takes the look-up when it costs fewer
/// operations and holds at most [`LOOK_UP_MEMORY`] bytes.
pub fn cost(model: &Model, opts: &Options, trees: u128, hyper: u128) -> Cost {
    let _ = hyper;
    match opts.partners {
        Partners::Auto => {
            let w = cost_with(model, opts, trees, Partners::Window, None);
            let l = cost_with(model, opts, trees, Partners::LookUp, None);
            if l.operations < w.operations && l.memory <= LOOK_UP_MEMORY.max(w.memory) {
                l
            } else {
                w
            }
        }
        p => cost_with(model, opts, trees, p, None),
    }
}

/// The bounds with `partners` resolved and, for the look-up, what a dry
/// run found.
pub fn cost_with(
    model: &Model,
    opts: &Options,
    trees: u128,
    partners: Partners,
    known: Option<&Known>,
) -> Cost {
    let (limbs, den_bits) = limbs(model, opts, trees);
    let weight = match limbs {
        None => 16,
        Some(l) => 40 + 8 * l,
    };
    let mut sz = Sizes::new(model, trees, weight);
    if let Some(k) = known {
        sz.know(k);
    }
    let n = sz.n;
    let loss = opts.loss && n >= 2;
    let reached = match (loss, partners) {
        (true, Partners::Window) => trees.saturating_add(sz.lookahead),
        _ => trees,
    };
    let mut ops = sz.reach(reached);
    let mut bytes = add(&[sz.reach_bytes(), mul(sz.pushed(), 2 * sz.entry)]);
    let (lat_ops, lat_bytes, values) = latencies(model, &sz, weight);
    ops = ops.saturating_add(lat_ops);
    bytes = bytes.saturating_add(lat_bytes);
    let mut loss_ops = 0;
    if loss {
        let (o, b) = match partners {
            Partners::LookUp => sz.look_up(sz.d[0], known),
            _ => sz.window(),
        };
        // LossAcc::new, and the last trim of the top list.
        loss_ops = add(&[o, (n * n) as u128 + 1, sort_bound(2 * TOP as u128)]);
        bytes = add(&[bytes, b, (2 * TOP as u128 + 1) * (sz.entry + 48)]);
    }
    let kept = (opts.keep_trees as u128).min(trees);
    if kept > 0 {
        let nodes = kept + TREE_NODES as u128;
        ops = add(&[ops, mul(5, nodes)]);
        for c in sz.calls.iter_mut() {
            *c = c.saturating_add(nodes);
        }
        bytes = add(&[bytes, mul(nodes, 96)]);
    }
    // Computing the transitions: once per phase where memoised.
    for (i, memo) in memoised(model).into_iter().enumerate().take(n - 1) {
        let calls = sz.calls[i];
        let step = step_ops(model, i);
        let d = sz.d[i + 1];
        let computed = if memo { calls.min(d) } else { calls };
        let table = if memo && calls > 0 { d } else { 0 };
        ops = add(&[ops, mul(calls, CALL), table, mul(computed, step)]);
        if memo {
            bytes = add(&[bytes, mul(d, 16), mul(computed, mul(sz.c[i], 32) + 48)]);
        }
    }
    // The denominator; the statistics of the report (exact fractions).
    ops = add(&[ops, n as u128, loss_ops]);
    let factor = big_factor(limbs);
    let limbs_den = den_bits.div_ceil(64) + 1;
    let summary = mul(values, SUMMARY_OPS * limbs_den);
    Cost {
        operations: mul(ops, factor).saturating_add(summary),
        loss_operations: mul(loss_ops, factor),
        memory: add(&[bytes, mul(values, SUMMARY_BYTES + 8 * limbs_den)]),
        big: limbs.is_some(),
        partners,
        values,
        den_bits,
    }
}

/// The operations and bytes of the `--json` report of a plan, besides
/// [`Plan::operations`] and [`Plan::memory`].
pub fn json(plan: &Plan) -> (u128, u128) {
    let limbs = plan.den_bits.div_ceil(64) + 1;
    (
        mul(plan.values, JSON_OPS * limbs),
        mul(plan.values, JSON_BYTES + 32 * limbs),
    )
}

/// Operations in big integers of `limbs` 64-bit words, per counted one.
fn big_factor(limbs: Option<u128>) -> u128 {
    match limbs {
        None => 1,
        Some(l) => 8 + 2 * l,
    }
}

/// How many operations one counted by the analysis stands for: 1 in
/// `u128`, more in big integers (the units of [`Plan::operations`]).
pub fn factor(model: &Model, opts: &Options, plan: &Plan) -> u128 {
    big_factor(limbs(model, opts, plan.trees).0)
}

/// The default of `--max-operations`: a few seconds on the project's
/// machine (1–3 ns of CPU per bounded operation measured on the examples,
/// the edge cases of `tests/it/ptts_guard.rs` and shapes made to stress
/// each part; the bound is 1.3–30 times the count), at most about 12 s
/// where the bound is tight and the operations the slowest (6 ns).
pub const DEFAULT_MAX_OPERATIONS: u128 = 2_000_000_000;

/// The default of `--max-memory`, in MiB.
pub const DEFAULT_MAX_MEMORY_MIB: u128 = 2048;

/// What the guard lets an analysis cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub operations: u128,
    /// Bytes.
    pub memory: u128,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            operations: DEFAULT_MAX_OPERATIONS,
            memory: DEFAULT_MAX_MEMORY_MIB << 20,
        }
    }
}

/// Which limit a plan exceeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exceeded {
    Operations,
    Memory,
}

/// The guard: whether a plan (with `extra` operations and bytes besides
/// the analysis, such as a simulation) stays within the limits.
pub fn check(plan: &Plan, extra: (u128, u128), limits: &Limits) -> Result<(), Exceeded> {
    if plan.operations.saturating_add(extra.0) > limits.operations {
        Err(Exceeded::Operations)
    } else if plan.memory.saturating_add(extra.1) > limits.memory {
        Err(Exceeded::Memory)
    } else {
        Ok(())
    }
}
