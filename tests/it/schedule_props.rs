//! Properties of the thread schedulers on random HSDFGs.

use crate::testgen;
use proptest::prelude::*;
use ssc::ir::hsdfg::{EdgeKind, Hsdfg};
use ssc::schedule::{schedule, Schedule, ScheduleOptions, SchedulerKind};
use testgen::random_hsdfg;

/// Every scheduler of `SchedulerKind::ALL`, those that take a thread count
/// with 1, 3 and 4 threads: a scheduler added there is tested here.
fn kinds() -> Vec<SchedulerKind> {
    let mut v = Vec::new();
    for k in SchedulerKind::ALL {
        match k {
            SchedulerKind::Fixed(_) => v.extend([1, 3].map(SchedulerKind::Fixed)),
            SchedulerKind::Predictable(_) => v.extend([2, 4].map(SchedulerKind::Predictable)),
            SchedulerKind::Reduced(_) => v.extend([2, 4].map(SchedulerKind::Reduced)),
            SchedulerKind::Fused(_) => v.extend([2, 3].map(SchedulerKind::Fused)),
            k => v.push(k),
        }
    }
    v
}

fn check_valid(h: &Hsdfg, s: &Schedule) {
    let th = s.thread_of(h.graph.node_count());
    assert!(th.iter().all(|&t| t != usize::MAX), "every actor scheduled");
    let count: usize = s.threads.iter().map(|t| t.actors.len()).sum();
    assert_eq!(count, h.graph.node_count(), "each actor exactly once");
    // Per-thread order respects dependencies, start times too.
    let mut pos = vec![0; h.graph.node_count()];
    let mut start = vec![0.0; h.graph.node_count()];
    for t in &s.threads {
        assert_eq!(t.actors.len(), t.start.len());
        for (i, &a) in t.actors.iter().enumerate() {
            pos[a.index()] = i;
            start[a.index()] = t.start[i];
        }
    }
    for (p, c, _) in h.dependencies() {
        if th[p.index()] == th[c.index()] {
            assert!(pos[p.index()] < pos[c.index()]);
        }
        assert!(start[p.index()] + h.actor(p).time <= start[c.index()] + 1e-9);
    }
    assert!(s.makespan + 1e-9 >= s.lower_bound);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn schedules_are_valid_and_deterministic(seed in any::<u64>()) {
        let h = random_hsdfg(seed);
        for k in kinds() {
            let o = ScheduleOptions::default();
            let s = schedule(&h, k, &o);
            check_valid(&h, &s);
            prop_assert_eq!(&s, &schedule(&h, k, &o));
            let pinned = !matches!(k, SchedulerKind::Simple | SchedulerKind::Barrier);
            prop_assert!(s.threads.iter().all(|t| t.core.is_some() == pinned));
        }
    }
}

#[test]
fn makespan_close_to_lower_bound_on_average() {
    let o = ScheduleOptions::default();
    for k in [
        SchedulerKind::Fixed(2),
        SchedulerKind::Fixed(4),
        SchedulerKind::Predictable(2),
        SchedulerKind::Predictable(4),
        SchedulerKind::Reduced(2),
        SchedulerKind::Reduced(4),
    ] {
        let n = 300;
        let mut sum = 0.0;
        let mut worst: f64 = 0.0;
        for seed in 0..n {
            let h = random_hsdfg(seed);
            let s = schedule(&h, k, &o);
            let r = s.makespan / s.lower_bound;
            sum += r;
            worst = worst.max(r);
        }
        let avg = sum / n as f64;
        println!(
            "{k:?}: average makespan / lower bound = {avg:.3} (worst {worst:.3}) over {n} graphs"
        );
        assert!(avg <= 1.25, "{k:?}: average ratio {avg}");
    }
}

#[test]
fn reduced_reports_its_search() {
    let h = random_hsdfg(7);
    let s = schedule(&h, SchedulerKind::Reduced(2), &ScheduleOptions::default());
    assert!(s.notes.iter().any(|n| n.contains("states explored")));
    // A tiny budget is reported as not optimal (unless one state sufficed).
    let o = ScheduleOptions {
        reduced_budget: (2, std::time::Duration::from_secs(1)),
        ..Default::default()
    };
    let s = schedule(&h, SchedulerKind::Reduced(2), &o);
    assert!(s.notes.iter().any(|n| n.contains("budget reached")));
}

// ---- the generator itself -------------------------------------------------------

#[test]
fn generated_graphs_are_well_formed() {
    for seed in 0..200 {
        let h = random_hsdfg(seed);
        // Dependencies form a DAG and each has its WAR partner.
        assert!(!petgraph::algo::is_cyclic_directed(
            &petgraph::visit::EdgeFiltered::from_fn(&h.graph, |e| e.weight().kind
                == EdgeKind::Dependency)
        ));
        let deps = h.dependencies().count();
        let wars = h
            .edges()
            .filter(|e| e.3.kind == EdgeKind::WriteAfterRead)
            .count();
        assert_eq!(deps, wars);
        for f in &h.functions {
            let rows: u64 = f
                .subboxes
                .iter()
                .map(|&a| h.actor(a).region.y1 - h.actor(a).region.y0)
                .sum();
            assert_eq!(rows, f.resolution.y);
        }
    }
}

#[test]
fn deterministic_in_seed() {
    let a = random_hsdfg(42);
    let b = random_hsdfg(42);
    assert_eq!(a.graph.node_count(), b.graph.node_count());
    assert_eq!(a.graph.edge_count(), b.graph.edge_count());
    assert_eq!(a.buffers, b.buffers);
}
