//! Shared list-scheduling machinery: topological order, bottom levels, and
//! the list scheduler used by `fixed`, `predictable` and `reduced`.
//!
//! The simulation model (also used for `makespan`): an actor starts on
//! thread `t` at `max(free[t], max over predecessors p of fin[p] + c(p, t))`
//! where `c(p, t)` is `system.signal + system.wait` plus `system.transfer`
//! per KiB of `a`'s inputs that `p` wrote ([`Hsdfg::cross_thread_cost`])
//! when `p` ran on another thread and 0 otherwise; it then runs for its `time`. Threads never insert
//! an actor into an earlier idle gap (the programs are static lists).

use crate::ir::hsdfg::{ActorId, Hsdfg};
use crate::reach::{kahn, Pick};

/// The relative tolerance of the cache-aware (predictable) choices: a thread
/// whose start time is within `CACHE_TOLERANCE × time(actor)` of the earliest
/// start counts as "as early", and a ready actor whose priority is within
/// `CACHE_TOLERANCE × time(top)` of the top priority counts as "as urgent".
pub const CACHE_TOLERANCE: f64 = 0.10;

/// A topological order of the dependencies (Kahn, smallest index first).
pub fn topo_order(h: &Hsdfg) -> Vec<ActorId> {
    let succ = |a: usize| h.successors(ActorId::new(a)).into_iter().map(|s| s.index());
    kahn(h.graph.node_count(), succ, Pick::Smallest)
        .expect("the dependencies of an HSDFG form a DAG")
        .into_iter()
        .map(ActorId::new)
        .collect()
}

/// Longest path (by time, own time included) from each actor to a sink.
pub fn bottom_levels(h: &Hsdfg) -> Vec<f64> {
    let mut bl = vec![0.0; h.graph.node_count()];
    for a in topo_order(h).into_iter().rev() {
        let tail = h
            .successors(a)
            .iter()
            .map(|s| bl[s.index()])
            .fold(0.0, f64::max);
        bl[a.index()] = h.actor(a).time + tail;
    }
    bl
}

/// Critical path of one iteration (no communication costs), µs.
pub fn critical_path(h: &Hsdfg) -> f64 {
    bottom_levels(h).into_iter().fold(0.0, f64::max)
}

/// `max(critical path, total work / threads)`.
pub fn lower_bound(h: &Hsdfg, threads: usize) -> f64 {
    critical_path(h).max(h.total_work() / threads.max(1) as f64)
}

/// When actor `a` can start on thread `t` that is free at `free`: after
/// each predecessor has finished (`fin`), plus its cross-thread cost when
/// it ran on another thread (`thread_of`) — the model of the module docs.
pub fn ready_on(
    h: &Hsdfg,
    a: ActorId,
    t: usize,
    free: f64,
    thread_of: &[usize],
    fin: &[f64],
) -> f64 {
    h.predecessors(a).into_iter().fold(free, |s, p| {
        let c = if thread_of[p.index()] == t {
            0.0
        } else {
            h.cross_thread_cost(p, a)
        };
        s.max(fin[p.index()] + c)
    })
}

/// The result of a list schedule: per thread, its actors and start times.
#[derive(Clone, Debug)]
pub struct ListResult {
    pub threads: Vec<(Vec<ActorId>, Vec<f64>)>,
    pub makespan: f64,
}

/// List scheduling on `n` threads. `priority`: higher goes first (ties by
/// actor index). `cache`: the predictable refinements (see
/// [`CACHE_TOLERANCE`]): among as-urgent ready actors prefer one whose input
/// was just produced (a predecessor is the last actor of its thread), and
/// among as-early threads prefer the one that produced most input bytes.
pub fn list_schedule(h: &Hsdfg, n: usize, priority: &[f64], cache: bool) -> ListResult {
    let na = h.graph.node_count();
    let mut remaining: Vec<usize> = h.actors().map(|a| h.predecessors(a).len()).collect();
    let mut ready: Vec<ActorId> = h.actors().filter(|a| remaining[a.index()] == 0).collect();
    let mut free = vec![0.0f64; n];
    let mut last: Vec<Option<ActorId>> = vec![None; n];
    let mut thread = vec![usize::MAX; na];
    let mut fin = vec![0.0f64; na];
    let mut out: Vec<(Vec<ActorId>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); n];
    let better = |a: ActorId, b: ActorId| {
        let (pa, pb) = (priority[a.index()], priority[b.index()]);
        pa > pb || (pa == pb && a < b)
    };
    while !ready.is_empty() {
        let mut top = ready[0];
        for &a in &ready[1..] {
            if better(a, top) {
                top = a;
            }
        }
        let mut pick = top;
        if cache {
            let tol = CACHE_TOLERANCE * h.actor(top).time;
            let just = |a: ActorId| {
                h.predecessors(a)
                    .iter()
                    .any(|p| last[thread[p.index()]] == Some(*p))
            };
            let mut alt: Option<ActorId> = None;
            for &a in &ready {
                if priority[a.index()] >= priority[top.index()] - tol
                    && just(a)
                    && alt.is_none_or(|b| better(a, b))
                {
                    alt = Some(a);
                }
            }
            if let Some(a) = alt {
                pick = a;
            }
        }
        let a = pick;
        ready.retain(|&x| x != a);
        let preds = h.predecessors(a);
        let starts: Vec<f64> = (0..n)
            .map(|t| ready_on(h, a, t, free[t], &thread, &fin))
            .collect();
        let smin = starts.iter().cloned().fold(f64::INFINITY, f64::min);
        let mut best = starts.iter().position(|&s| s == smin).unwrap();
        if cache {
            let tol = CACHE_TOLERANCE * h.actor(a).time;
            let affinity = |t: usize| -> u64 {
                preds
                    .iter()
                    .filter(|p| thread[p.index()] == t)
                    .map(|&p| h.shared_bytes(p, a))
                    .sum()
            };
            let mut best_aff = affinity(best);
            for t in 0..n {
                if starts[t] <= smin + tol {
                    let af = affinity(t);
                    if af > best_aff || (af == best_aff && starts[t] < starts[best]) {
                        best = t;
                        best_aff = af;
                    }
                }
            }
        }
        let s = starts[best];
        thread[a.index()] = best;
        fin[a.index()] = s + h.actor(a).time;
        free[best] = fin[a.index()];
        last[best] = Some(a);
        out[best].0.push(a);
        out[best].1.push(s);
        for su in h.successors(a) {
            remaining[su.index()] -= 1;
            if remaining[su.index()] == 0 {
                ready.push(su);
            }
        }
    }
    let makespan = fin.iter().cloned().fold(0.0, f64::max);
    ListResult {
        threads: out,
        makespan,
    }
}

/// The simulation of a given assignment (one actor per thread, as simple):
/// every edge crosses threads.
pub fn one_thread_per_actor(h: &Hsdfg) -> ListResult {
    let mut fin = vec![0.0f64; h.graph.node_count()];
    let mut start = vec![0.0f64; h.graph.node_count()];
    for a in topo_order(h) {
        let s = h
            .predecessors(a)
            .iter()
            .map(|&p| fin[p.index()] + h.cross_thread_cost(p, a))
            .fold(0.0, f64::max);
        start[a.index()] = s;
        fin[a.index()] = s + h.actor(a).time;
    }
    ListResult {
        threads: h
            .actors()
            .map(|a| (vec![a], vec![start[a.index()]]))
            .collect(),
        makespan: fin.iter().cloned().fold(0.0, f64::max),
    }
}
