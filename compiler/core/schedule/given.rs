//! A schedule written by hand: the `thread_schedule` of a runtime section
//! that has no `thread_execution` programs (what `--no-threadexecution`
//! prints). Its threads and orders are honoured as written; start times are
//! simulated from the timing with the list schedulers' model (communication
//! costs included).
//!
//! This is what makes `-te` (on by default) optional to print: reading a
//! runtime back without its programs gives the same memory schedule and
//! programs again, and a `barrier` statement in it asks for the iteration
//! barrier, as `-ts barrier`/`-ab` printed it.

use super::{list, Schedule, SchedulerKind, ThreadPlan};
use crate::diagnostics::Diagnostic;
use crate::ir::hsdfg::Hsdfg;
use crate::ir::ThreadSchedule;

/// The schedule of hand-written thread lists, or why they cannot be run
/// (a sub-box missing or repeated, an order against the dependencies).
pub fn from_lists(h: &Hsdfg, lists: &[ThreadSchedule]) -> Result<Schedule, Vec<Diagnostic>> {
    let finder = h.finder();
    let n = h.graph.node_count();
    let mut seen = vec![false; n];
    let mut threads = Vec::new();
    for t in lists {
        let mut actors = Vec::new();
        for sb in &t.subboxes {
            let a = finder.find(sb).ok_or_else(|| {
                vec![Diagnostic::error(
                    "E200",
                    format!("`{sb}` is not a sub-box of the instantiation"),
                )
                .label(sb.span, "unknown sub-box")]
            })?;
            if std::mem::replace(&mut seen[a.index()], true) {
                return Err(vec![Diagnostic::error(
                    "E200",
                    format!("`{sb}` is scheduled twice"),
                )
                .label(sb.span, "again here")]);
            }
            actors.push(a);
        }
        threads.push((t.thread.name.clone(), actors));
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        let sb = &h.graph[crate::ir::hsdfg::ActorId::new(i)].subbox;
        return Err(vec![Diagnostic::error(
            "E200",
            format!("`{sb}` is on no thread of the thread_schedule"),
        )]);
    }
    // Simulate with the list schedulers' model (`list`): an actor starts
    // when its thread is free and its predecessors have finished, plus the
    // cost of a signal, a wait and the transfer for each predecessor on
    // another thread;
    // repeat until every actor is placed. The same model, so the thread
    // lists a list scheduler printed read back with the same start times
    // (and so the same memory schedule and programs).
    let mut thread_of = vec![usize::MAX; n];
    for (ti, (_, actors)) in threads.iter().enumerate() {
        for a in actors {
            thread_of[a.index()] = ti;
        }
    }
    let mut finish = vec![f64::NAN; n];
    let mut next = vec![0usize; threads.len()];
    let mut free = vec![0.0f64; threads.len()];
    let mut starts: Vec<Vec<f64>> = threads.iter().map(|_| Vec::new()).collect();
    let mut placed = 0;
    while placed < n {
        let mut progress = false;
        for (ti, (_, actors)) in threads.iter().enumerate() {
            while let Some(&a) = actors.get(next[ti]) {
                let preds = h.predecessors(a);
                if preds.iter().any(|p| finish[p.index()].is_nan()) {
                    break;
                }
                let ready = list::ready_on(h, a, ti, free[ti], &thread_of, &finish);
                starts[ti].push(ready);
                finish[a.index()] = ready + h.actor(a).time;
                free[ti] = finish[a.index()];
                next[ti] += 1;
                placed += 1;
                progress = true;
            }
        }
        if !progress {
            return Err(vec![Diagnostic::error(
                "E201",
                "the thread_schedule orders a sub-box before one it depends on, on the same thread or across threads in a cycle",
            )
            .hint("each thread's list must follow the dependencies of the instantiation")]);
        }
    }
    let makespan = finish.iter().copied().fold(0.0, f64::max);
    let count = threads.len().max(1);
    Ok(Schedule {
        kind: SchedulerKind::Fixed(count),
        threads: threads
            .into_iter()
            .zip(starts)
            .map(|((name, actors), start)| ThreadPlan {
                name,
                core: None,
                actors,
                start,
            })
            .collect(),
        iteration_barrier: false,
        makespan,
        lower_bound: list::lower_bound(h, count),
        notes: vec![format!(
            "thread schedule as written: makespan {makespan:.1} µs"
        )],
    })
}
