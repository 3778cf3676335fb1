//! `--no-threadexecution` round trips for every input of the snapshot
//! driver (`snapshots::inputs`, built with its options through
//! `snapshots::build`): the runtime printed without programs keeps its
//! thread schedule and memory; read back, the derived programs are proven
//! and the same as `-te` prints, through the binary and through the
//! library (`ssc::pipeline::compile`). The stages' snapshots are the
//! driver's (`tests/it/snapshots/`).

use crate::snapshots::{build, inputs, parses_and_checks_clean, written_runtime};

/// `--no-threadexecution`: the runtime keeps its thread schedule and memory
/// but no programs; read back, the programs derived from the thread
/// schedule (`schedule::given::from_lists`) are proven and the same as
/// those printed with `-te`.
#[test]
fn no_thread_execution_round_trips() {
    for path in inputs() {
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let file = path.to_str().unwrap();
        for extra in [&[][..], &["-ab"], &["-ts", "barrier"], &["-ms", "mesif"]] {
            let what = format!("{stem} {extra:?}");
            let mut with = vec!["-t", "interpreter"];
            with.extend_from_slice(extra);
            let full = build(file, &with, None);
            let mut without = with.clone();
            without.push("--no-threadexecution");
            let bare = build(file, &without, None);
            let desc = parses_and_checks_clean(&bare, &what);
            let r = desc.runtime.as_ref().unwrap();
            assert!(!r.thread_schedule.is_empty(), "{what}: no thread_schedule");
            assert!(!r.memory_mappings.is_empty(), "{what}: no memory");
            assert!(
                r.thread_executions.is_empty() && r.signals.is_empty(),
                "{what}: programs printed"
            );
            // Read back: programs derived, proven (compile succeeds only on
            // a proof), and what `-te` printed in the first place.
            let back = build("-", &with, Some(&bare));
            if written_runtime(&path) {
                // Hand-written programs were dropped: the derived ones
                // differ, but follow the same thread schedule.
                let b = parses_and_checks_clean(&back, &what);
                let rb = b.runtime.as_ref().unwrap();
                assert_eq!(rb.thread_schedule, r.thread_schedule, "{what}");
                assert!(!rb.thread_executions.is_empty(), "{what}");
            } else {
                assert_eq!(back, full, "{what}: read back");
            }
            // The library route: from_lists then the pipeline.
            let c = ssc::pipeline::compile(&desc, &library_options(extra))
                .unwrap_or_else(|e| panic!("{what}: {e:?}"));
            assert!(!c.runtime.thread_executions.is_empty());
            assert!(
                c.proof.to_string().contains("thread"),
                "{what}: {}",
                c.proof
            );
        }
    }
}

/// The driver's options (`snapshots::OPTS`) plus `extra`, as `cli::build`
/// maps them.
fn library_options(extra: &[&str]) -> ssc::pipeline::Options {
    use ssc::lower::split::SplitOptions;
    use ssc::memory::MemoryKind;
    use ssc::schedule::{ScheduleOptions, SchedulerKind};
    ssc::pipeline::Options {
        lower: ssc::lower::LowerOptions {
            resolution_override: None,
            cost: None,
            split: SplitOptions {
                max_parts: 2,
                ..SplitOptions::default()
            },
            inline: false,
            contract: false,
            own_kernels: Vec::new(),
        },
        scheduler: if extra.contains(&"barrier") {
            SchedulerKind::Barrier
        } else {
            SchedulerKind::Reduced(2)
        },
        schedule: ScheduleOptions {
            cores: Some(vec![0, 1]),
            ..ScheduleOptions::default()
        },
        memory: if extra.contains(&"mesif") {
            MemoryKind::Mesif
        } else {
            MemoryKind::Interference
        },
        sync: ssc::sync::SyncOptions {
            iteration_barrier: extra.contains(&"-ab"),
            ..Default::default()
        },
        thread_execution: true,
        dynamic_memory: false,
        asked: Default::default(),
    }
}
