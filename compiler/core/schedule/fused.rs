//! The fused streaming scheduler (`-ts fused N`): strips of rows, depth
//! first through the chain, each of N pinned threads streaming its own
//! band of rows.
//!
//! Takes an HSDFG whose functions are split into row strips (the pipeline
//! splits every `FULL` function into the same number of strips under
//! `-ts fused`, so strip k of every function covers the same share of the
//! frame at every scale; see `pipeline::fused_parts`). Gives a [`Schedule`].
//!
//! * **Bands**: the S strips of every function are cut into N bands of
//!   consecutive strips, band t (strips `[t·S/N, (t+1)·S/N)`) on thread t,
//!   so a thread's consumer strips find their producer strips in its own
//!   core's cache and nothing but the halo rows at a band border crosses
//!   cores. Even bands run top down, odd bands bottom up: two neighbouring
//!   bands either both start or both end at their common border, so the
//!   only waits between threads are there, one per stage, while both
//!   threads are busy with the same stage. A function that is not split
//!   (`NONE`, or fewer rows than strips) goes to the thread where it can
//!   start first.
//! * **Global order**: a list order of all sub-boxes in which a consumer
//!   strip runs as soon as every producer strip it reads (halo included)
//!   has run: among the ready sub-boxes, the one nearest the start of its
//!   band goes first, and among those the one furthest down the chain
//!   (deepest function). Each thread runs its sub-boxes in this order, so
//!   the rows in flight of every buffer are a few strips per band, which
//!   keeps them in cache and lets [`crate::memory::fold`] fold each buffer
//!   into one ring of rows per band.
//! * **Times**: start times simulated with the list schedulers' model
//!   ([`super::list`]).
//!
//! Guarantees: every actor once; each thread's order is a subsequence of
//! one topological order of the dependencies, so the threads' programs
//! cannot deadlock on each other; deterministic.
//!
//! Why bands: round-robin strips lock the threads into step, one wait per
//! sub-box, and measured 2–3× slower than contiguous bands.

use super::{finish, list, Schedule, ScheduleOptions, SchedulerKind};
use crate::ir::hsdfg::{ActorId, Hsdfg};
use std::collections::BTreeSet;

/// Depth of every function in the function graph (sources 0).
fn function_depths(h: &Hsdfg) -> Vec<usize> {
    let mut depth = vec![0usize; h.functions.len()];
    for a in list::topo_order(h) {
        let f = h.actor(a).function.0;
        for p in h.predecessors(a) {
            let pf = h.actor(p).function.0;
            if pf != f {
                depth[f] = depth[f].max(depth[pf] + 1);
            }
        }
    }
    depth
}

/// The strip index of an actor: which of `strips` equal shares of its
/// function's rows its middle row falls in.
fn strip_of(h: &Hsdfg, a: ActorId, strips: u64) -> u64 {
    let f = h.function_of(a);
    let r = &h.actor(a).region;
    let rows = f.resolution.y.max(1) as u128;
    let mid2 = (r.y0 + r.y1) as u128; // twice the middle row
    ((mid2 * strips as u128) / (2 * rows)).min(strips as u128 - 1) as u64
}

/// A strip's band (its thread) and its distance from its band's start.
fn band_of(strip: u64, strips: u64, n: usize) -> (usize, u64) {
    let n = n as u64;
    let t = (strip * n / strips).min(n - 1);
    let (lo, hi) = ((t * strips).div_ceil(n), ((t + 1) * strips).div_ceil(n));
    let dist = if t.is_multiple_of(2) {
        strip - lo
    } else {
        (hi - 1).saturating_sub(strip)
    };
    (t as usize, dist)
}

fn strip_count(h: &Hsdfg) -> u64 {
    h.functions
        .iter()
        .map(|f| f.subboxes.len() as u64)
        .max()
        .unwrap_or(1)
        .max(1)
}

/// The depth-first global order (see the module documentation).
pub fn global_order(h: &Hsdfg, n: usize) -> Vec<ActorId> {
    let strips = strip_count(h);
    let depth = function_depths(h);
    let count = h.graph.node_count();
    let mut indeg: Vec<usize> = h.actors().map(|a| h.predecessors(a).len()).collect();
    let key = |a: ActorId| {
        let (_, dist) = band_of(strip_of(h, a, strips), strips, n);
        (dist, std::cmp::Reverse(depth[h.actor(a).function.0]), a)
    };
    let mut ready: BTreeSet<_> = h
        .actors()
        .filter(|a| indeg[a.index()] == 0)
        .map(key)
        .collect();
    let mut order = Vec::with_capacity(count);
    while let Some((_, _, a)) = ready.pop_first() {
        order.push(a);
        for s in h.successors(a) {
            indeg[s.index()] -= 1;
            if indeg[s.index()] == 0 {
                ready.insert(key(s));
            }
        }
    }
    assert_eq!(
        order.len(),
        count,
        "the dependencies of an HSDFG form a DAG"
    );
    order
}

pub fn schedule(h: &Hsdfg, n: usize, opts: &ScheduleOptions) -> Schedule {
    let n = n.max(1);
    let strips = strip_count(h);
    let order = global_order(h, n);
    let mut thread_of = vec![usize::MAX; h.graph.node_count()];
    let mut fin = vec![0.0f64; h.graph.node_count()];
    let mut free = vec![0.0f64; n];
    let mut threads: Vec<(Vec<ActorId>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); n];
    for &a in &order {
        let ready: Vec<f64> = (0..n)
            .map(|t| list::ready_on(h, a, t, free[t], &thread_of, &fin))
            .collect();
        let split = h.function_of(a).subboxes.len() > 1;
        let t = if split {
            band_of(strip_of(h, a, strips), strips, n).0
        } else {
            (0..n)
                .min_by(|&x, &y| ready[x].total_cmp(&ready[y]).then(x.cmp(&y)))
                .unwrap_or(0)
        };
        let start = ready[t];
        thread_of[a.index()] = t;
        fin[a.index()] = start + h.actor(a).time;
        free[t] = fin[a.index()];
        threads[t].0.push(a);
        threads[t].1.push(start);
    }
    let makespan = fin.iter().cloned().fold(0.0, f64::max);
    let notes = vec![format!(
        "fused: {strips} strips per split function in {n} bands, depth first (odd bands bottom up)"
    )];
    finish(
        SchedulerKind::Fused(n),
        list::ListResult { threads, makespan },
        list::lower_bound(h, n),
        true,
        opts,
        notes,
    )
}
