//! Emitted runtimes verify, for every scheduler and runtime option.

use crate::common::sync_sets;
use crate::testgen;
use proptest::prelude::*;
use ssc::ir::hsdfg::Hsdfg;
use ssc::schedule::{schedule, ScheduleOptions, SchedulerKind};
use ssc::sync::{synchronise_plan, SyncOptions};
use ssc::verify::verify_with;
use sync_sets::sync_sets;
use testgen::{appendix_hsdfg, random_hsdfg, trivial_plan};

fn kinds() -> Vec<SchedulerKind> {
    vec![
        SchedulerKind::Simple,
        SchedulerKind::Barrier,
        SchedulerKind::Fixed(3),
        SchedulerKind::Predictable(2),
        SchedulerKind::Reduced(4),
    ]
}

fn option_sets() -> Vec<(&'static str, SyncOptions)> {
    sync_sets(&["", "-ab", "-ai", "-ss", "-st", "-ks -ki 4 -kd 2", "-kd 1"])
}

fn check(h: &Hsdfg) {
    let m = trivial_plan(h);
    for k in kinds() {
        let s = schedule(h, k, &ScheduleOptions::default());
        for (name, o) in option_sets() {
            let plan = synchronise_plan(h, &s, &m, &o);
            let r = &plan.runtime;
            if let Err(e) = verify_with(h, r, &m.placements, &plan.extras()) {
                panic!(
                    "{k:?} {name}: {}",
                    e.iter()
                        .map(|x| x.display(h, r).to_string())
                        .collect::<Vec<_>>()
                        .join("\n")
                );
            }
            // Deterministic.
            assert_eq!(plan, synchronise_plan(h, &s, &m, &o));
            // Each actor executed exactly once.
            let execs = r
                .thread_executions
                .iter()
                .flat_map(|t| &t.ops)
                .filter(|o| matches!(o.value, ssc::ir::Op::Exec(_)))
                .count();
            assert_eq!(execs, h.graph.node_count());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn emitted_runtimes_verify(seed in any::<u64>()) {
        check(&random_hsdfg(seed));
    }
}

#[test]
fn appendix_like_schedule() {
    let h = appendix_hsdfg();
    check(&h);
    let s = schedule(
        &h,
        SchedulerKind::Predictable(2),
        &ScheduleOptions::default(),
    );
    let plan = synchronise_plan(&h, &s, &trivial_plan(&h), &SyncOptions::default());
    let d = ssc::ir::Description {
        runtime: Some(plan.runtime.clone()),
        ..Default::default()
    };
    println!("{}", ssc::back::description::print(&d));
    println!("{:?}", plan.notes);
}
