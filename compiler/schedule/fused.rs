//! The fused streaming scheduler (`-ts fused N`): strips of rows, depth
//! first through the chain, dealt round-robin to N pinned threads.
//!
//! Takes an HSDFG whose functions are split into row strips (the pipeline
//! splits every `FULL` function into the same number of strips under
//! `-ts fused`, so strip k of every function covers the same share of the
//! frame at every scale; see `pipeline::fused_parts`). Gives a [`Schedule`].
//!
//! * **Global order**: a list order of all sub-boxes in which a consumer
//!   strip runs as soon as every producer strip it reads (halo included)
//!   has run: among the ready sub-boxes, the one with the smallest strip
//!   index goes first, and among those the one furthest down the chain
//!   (deepest function). The rows in flight of every buffer are then a few
//!   strips, which is what keeps them in cache and what lets
//!   [`crate::memory::fold`] fold each buffer into a ring of rows.
//! * **Threads**: strip k of every function runs on thread `k mod N`, so
//!   a consumer strip finds the producer strip of the same rows in its own
//!   core's cache and only the halo rows cross cores; a function that is
//!   not split (`NONE`, or fewer rows than strips) goes to the thread where
//!   it can start first. Each thread runs its sub-boxes in the global order.
//! * **Times**: start times simulated with the list schedulers' model
//!   ([`super::list`]).
//!
//! Guarantees: every actor once; each thread's order is a subsequence of
//! one topological order of the dependencies, so the threads' programs
//! cannot deadlock on each other; deterministic.

use super::{finish, list, Schedule, ScheduleOptions, SchedulerKind};
use crate::lower::hsdfg::{ActorId, Hsdfg};
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

/// The depth-first global order (see the module documentation).
pub fn global_order(h: &Hsdfg) -> Vec<ActorId> {
    let strips = h
        .functions
        .iter()
        .map(|f| f.subboxes.len() as u64)
        .max()
        .unwrap_or(1)
        .max(1);
    let depth = function_depths(h);
    let n = h.graph.node_count();
    let mut indeg: Vec<usize> = h.actors().map(|a| h.predecessors(a).len()).collect();
    let key = |a: ActorId| {
        (
            strip_of(h, a, strips),
            std::cmp::Reverse(depth[h.actor(a).function.0]),
            a,
        )
    };
    let mut ready: BTreeSet<_> = h
        .actors()
        .filter(|a| indeg[a.index()] == 0)
        .map(key)
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some((_, _, a)) = ready.pop_first() {
        order.push(a);
        for s in h.successors(a) {
            indeg[s.index()] -= 1;
            if indeg[s.index()] == 0 {
                ready.insert(key(s));
            }
        }
    }
    assert_eq!(order.len(), n, "the dependencies of an HSDFG form a DAG");
    order
}

pub fn schedule(h: &Hsdfg, n: usize, opts: &ScheduleOptions) -> Schedule {
    let n = n.max(1);
    let strips = h
        .functions
        .iter()
        .map(|f| f.subboxes.len() as u64)
        .max()
        .unwrap_or(1)
        .max(1);
    let order = global_order(h);
    let comm = list::comm_cost(h);
    let mut thread_of = vec![usize::MAX; h.graph.node_count()];
    let mut fin = vec![0.0f64; h.graph.node_count()];
    let mut free = vec![0.0f64; n];
    let mut threads: Vec<(Vec<ActorId>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); n];
    for &a in &order {
        let preds = h.predecessors(a);
        let ready_on = |t: usize| {
            preds
                .iter()
                .map(|p| fin[p.index()] + if thread_of[p.index()] == t { 0.0 } else { comm })
                .fold(free[t], f64::max)
        };
        let split = h.function_of(a).subboxes.len() > 1;
        let t = if split {
            (strip_of(h, a, strips) % n as u64) as usize
        } else {
            (0..n)
                .min_by(|&x, &y| ready_on(x).total_cmp(&ready_on(y)).then(x.cmp(&y)))
                .unwrap_or(0)
        };
        let start = ready_on(t);
        thread_of[a.index()] = t;
        fin[a.index()] = start + h.actor(a).time;
        free[t] = fin[a.index()];
        threads[t].0.push(a);
        threads[t].1.push(start);
    }
    let makespan = fin.iter().cloned().fold(0.0, f64::max);
    let notes = vec![format!(
        "fused: {} strips per split function, depth-first, strip k on thread k mod {n}",
        strips
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
