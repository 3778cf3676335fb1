//! The static schedule's plan of each sub-box: when, within an iteration,
//! the schedule expects it to start. A program run with a deadline
//! (`--deadline-us`, the library's `deadline_ns`) measures each sub-box's
//! start against it and reports, per thread, the sub-box that started
//! latest (`runtime-c/README.md`, "Deadlines and overload").
//!
//! Takes the HSDFG, the runtime section's `thread_execution` programs and
//! the layout's box table; gives one start per box, in ns, in the table's
//! order. The starts are those the schedulers predict: the programs' order
//! of sub-boxes per thread simulated with the list schedulers' model
//! (`schedule::given`: execution times from the timing table, the cost of
//! the signals, waits and transfers between threads). A runtime whose
//! orders cannot be simulated (never the case for what ssc proved) plans
//! every sub-box at 0, so lateness is then the start after the iteration's
//! begin.
//!
//! It also gives each thread's budget of an iteration for
//! `--sched-deadline` (`runtime-c/README.md`, "SCHED_DEADLINE"): the sum of
//! its sub-boxes' times (the timing table's, or the cost model's) and the
//! number of its waits, from which the program derives the runtime it
//! reserves.

use crate::back::layout::Layout;
use crate::ir::hsdfg::Hsdfg;
use crate::ir::runtime_graph::ns;
use crate::ir::{Op, Runtime, ThreadSchedule};
use crate::schedule::given;

/// The planned start of every box of `layout`, ns from the iteration's begin.
pub(super) fn plan_ns(h: &Hsdfg, r: &Runtime, layout: &Layout) -> Vec<u64> {
    let lists: Vec<ThreadSchedule> = r
        .thread_executions
        .iter()
        .map(|te| ThreadSchedule {
            thread: te.thread.clone(),
            subboxes: te
                .ops
                .iter()
                .filter_map(|op| match &op.value {
                    Op::Exec(sb) => Some(sb.clone()),
                    _ => None,
                })
                .collect(),
            span: te.span,
        })
        .collect();
    let mut start = vec![0.0f64; h.graph.node_count()];
    if let Ok(s) = given::from_lists(h, &lists) {
        for t in &s.threads {
            for (a, us) in t.actors.iter().zip(&t.start) {
                start[a.index()] = *us;
            }
        }
    }
    layout
        .boxes
        .iter()
        .map(|b| ns(start[b.actor.index()]))
        .collect()
}

/// Each thread's (busy ns, waits) in one iteration: the times of the
/// sub-boxes it executes, summed, and the signals and barriers it waits at.
pub(super) fn thread_budgets(h: &Hsdfg, r: &Runtime) -> Vec<(u64, u64)> {
    let finder = h.finder();
    r.thread_executions
        .iter()
        .map(|te| {
            let mut busy = 0.0;
            let mut waits = 0;
            for op in &te.ops {
                match &op.value {
                    Op::Exec(sb) => busy += finder.find(sb).map_or(0.0, |a| h.actor(a).time),
                    Op::Wait(_) | Op::Barrier(_) => waits += 1,
                    Op::Signal(_) => {}
                }
            }
            (ns(busy), waits)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::ns;

    #[test]
    fn microseconds_become_whole_nanoseconds() {
        assert_eq!(ns(1.2345), 1235);
        assert_eq!(ns(0.0), 0);
        assert_eq!(ns(-3.0), 0);
        assert_eq!(ns(f64::NAN), 0);
    }
}
