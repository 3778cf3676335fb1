//! `-dm dynamic|reduced` (run-time buffer allocation, docs/commands.md): the
//! pipeline proves the coarse orderings it adds for every input, scheduler
//! and runtime option; Appendix A and xray under both modes × every
//! scheduler print the one-thread reference checksum; ThreadSanitizer finds
//! nothing in a `-dm reduced` and a `-dm dynamic` program; generated chains
//! agree too; a hand-written runtime is checked against the orderings.

use crate::support;

use crate::common::sync_sets;
use ssc::ir::Description;
use ssc::lower::split::SplitOptions;
use ssc::lower::LowerOptions;
use ssc::memory::{dynamic_edges, MemoryKind};
use ssc::pipeline::{compile, Options};
use ssc::schedule::{ScheduleOptions, SchedulerKind};
use ssc::sync::Extras;
use ssc::sync::SyncOptions;
use ssc::verify::verify_with;
use std::process::Command;
use support::*;
use sync_sets::sync_sets;

const SCHEDULERS: [SchedulerKind; 7] = [
    SchedulerKind::Simple,
    SchedulerKind::Barrier,
    SchedulerKind::Fixed(2),
    SchedulerKind::Predictable(2),
    SchedulerKind::Predictable(3),
    SchedulerKind::Reduced(2),
    SchedulerKind::Reduced(3),
];

fn options(k: SchedulerKind, sync: SyncOptions, dynamic_memory: bool) -> Options {
    Options {
        lower: LowerOptions {
            resolution_override: None,
            cost: None,
            split: SplitOptions::default(),
            inline: false,
            contract: false,
            own_kernels: Vec::new(),
        },
        scheduler: k,
        schedule: ScheduleOptions::default(),
        memory: MemoryKind::Interference,
        sync,
        thread_execution: true,
        dynamic_memory,
        asked: Default::default(),
    }
}

fn named_sync_sets() -> Vec<(&'static str, SyncOptions)> {
    sync_sets(&["", "-ab", "-st", "-kd 2"])
}

fn parsed(path: &std::path::Path) -> Option<Description> {
    let text = std::fs::read_to_string(path).unwrap();
    let desc = ssc::front::read(&text, &[]).map(|x| x.description).ok()?;
    ssc::front::check(&desc)
        .iter()
        .all(|d| !d.is_error())
        .then_some(desc)
}

/// Every input with a runtime to make (no hand-written programs), every
/// scheduler, a few runtime options: `-dm` compiles, prints no memory
/// section, and its runtime proves every coarse ordering (checked again
/// here, apart from the pipeline).
#[test]
fn every_dm_runtime_is_proven() {
    let files = inputs();
    let mut proven = 0;
    for f in &files {
        let Some(desc) = parsed(f) else { continue };
        for k in SCHEDULERS {
            for (name, sync) in named_sync_sets() {
                let what = format!("{} {k:?} {name} -dm", f.display());
                let plain = compile(&desc, &options(k, sync.clone(), false));
                let Ok(plain) = plain else { continue };
                if plain.schedule.is_none() {
                    continue; // a hand-written runtime is honoured as written
                }
                let c = compile(&desc, &options(k, sync, true)).unwrap_or_else(|e| {
                    panic!(
                        "{what}: {}",
                        e.iter()
                            .map(|d| format!("{}: {}", d.code, d.message))
                            .collect::<Vec<_>>()
                            .join("\n")
                    )
                });
                let printed = c.description.runtime.as_ref().unwrap();
                assert!(
                    printed.memory_mappings.is_empty() && printed.memory_bindings.is_empty(),
                    "{what}: a memory section"
                );
                let edges = dynamic_edges(&c.hsdfg);
                let m = c.memory.as_ref().unwrap();
                assert_eq!(m.kind, Some(MemoryKind::None), "{what}");
                assert!(edges.iter().all(|e| m.extra_edges.contains(e)), "{what}");
                let extras = Extras {
                    signal_tokens: c
                        .signal_tokens
                        .iter()
                        .map(|(k, v)| (k.clone(), *v))
                        .collect(),
                    periodic_barriers: Default::default(),
                    orderings: edges,
                };
                verify_with(&c.hsdfg, &c.runtime, &m.placements, &extras)
                    .unwrap_or_else(|e| panic!("{what}: {e:?}"));
                proven += 1;
            }
        }
    }
    assert!(proven > 50, "only {proven} runtimes proven");
}

/// The orderings matter: for some input and scheduler, the runtime made
/// without `-dm` (`-ms none`: buffers apart, only the fine-grained
/// dependencies) does not enforce them, and the checker says so.
#[test]
fn without_the_coarse_orderings_the_checker_refuses_dm() {
    let mut refused = Vec::new();
    for f in [
        "examples/xray.ssc",
        "examples/appendix.ssc",
        "examples/pyramid.ssc",
    ] {
        let mut desc = parsed(&root(f)).unwrap();
        if let Some(r) = desc.runtime.as_mut() {
            r.thread_executions.clear();
            r.thread_schedule.clear();
            r.signals.clear();
            r.barriers.clear();
            r.memory_mappings.clear();
            r.memory_bindings.clear();
            r.memory_schedules.clear();
        }
        for k in SCHEDULERS {
            let mut o = options(k, SyncOptions::default(), false);
            o.memory = MemoryKind::None;
            let Ok(c) = compile(&desc, &o) else { continue };
            let m = c.memory.as_ref().unwrap();
            let extras = Extras {
                orderings: dynamic_edges(&c.hsdfg),
                ..Extras::default()
            };
            if verify_with(&c.hsdfg, &c.runtime, &m.placements, &extras).is_err() {
                refused.push(format!("{f} {k:?}"));
            }
        }
    }
    eprintln!("refused without -dm: {refused:?}");
    assert!(!refused.is_empty());
}

/// A hand-written runtime under `-dm` is honoured only when it orders what
/// run-time allocation needs: the pipeline's own `-ts simple -ms none`
/// runtime of xray, read back, does not (see the test above), and `-dm`
/// refuses it with the counter-example; Appendix A as written does.
#[test]
fn dm_checks_a_hand_written_runtime() {
    let dir = scratch("dm-hand");
    let out = run_ok(
        Command::new(SSC)
            .arg("build")
            .arg(root("examples/xray.ssc"))
            .args(["-ts", "simple", "-ms", "none", "-t", "interpreter"]),
    );
    let written = write_input(
        &dir,
        "xray_simple.ssc",
        &String::from_utf8_lossy(&out.stdout),
    );
    let run = |file: &std::path::Path, dm: bool| {
        let mut c = Command::new(SSC);
        c.arg("build").arg(file).args(["-t", "interpreter"]);
        if dm {
            c.args(["-dm", "dynamic"]);
        }
        c.output().unwrap()
    };
    assert!(run(&written, false).status.success());
    let refused = run(&written, true);
    assert_eq!(refused.status.code(), Some(1));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("E211") && err.contains("-dm needs"), "{err}");
    assert!(run(&root("examples/appendix.ssc"), true).status.success());
}

/// `-t interpreter` under `-dm`: no memory section, and the coarse
/// orderings are in the signals.
#[test]
fn dm_prints_no_memory_section() {
    let xray = root("examples/xray.ssc");
    let xray = xray.to_str().unwrap();
    let text = ssc_ok([
        "build",
        xray,
        "-ts",
        "reduced",
        "2",
        "-dm",
        "reduced",
        "-t",
        "interpreter",
    ]);
    assert!(text.contains("thread_execution"), "{text}");
    assert!(!text.contains("memory_mapping"), "{text}");
    assert!(!text.contains("memory_binding"), "{text}");
}

/// Appendix A without its hand-written schedule (with its timing table, so
/// the schedulers use two threads).
fn appendix_timed(tag: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(root("examples/appendix.ssc")).unwrap();
    let mut timed = sections_before(&text, "thread_schedule");
    timed.push_str("}\n");
    write_input(
        &scratch(&format!("dm-inputs-{tag}")),
        "appendix_timed.ssc",
        &timed,
    )
}

const DM_SCHEDULERS: [&str; 5] = ["simple", "barrier", "fixed 2", "predictable 2", "reduced 2"];

fn dm_cases(file: &std::path::Path, extra: &[&str]) -> Vec<Case> {
    let mut v = vec![Case::new(file, "-dp none -ts fixed 1")];
    for dm in ["dynamic", "reduced"] {
        for ts in DM_SCHEDULERS {
            v.push(Case::new(file, &format!("-ts {ts} -dm {dm}")));
        }
    }
    for e in extra {
        v.push(Case::new(file, e));
    }
    v
}

#[test]
fn appendix_under_dm_gives_the_reference_checksum() {
    let f = appendix_timed("appendix");
    let mut cases = dm_cases(
        &f,
        &[
            "-ts reduced 2 -dm reduced -st -kd 2",
            "-ts fixed 2 -dm dynamic -ab -vo",
        ],
    );
    // As written: the hand-made runtime orders the uses as -dm needs.
    cases.push(Case::new(root("examples/appendix.ssc"), "-dm reduced"));
    cases.push(Case::new(root("examples/appendix.ssc"), "-dm dynamic"));
    same_checksums(gcc(), "appendix -dm", &cases, 100);
}

#[test]
fn xray_under_dm_gives_the_reference_checksum() {
    let f = root("examples/xray.ssc");
    let cases = dm_cases(
        &f,
        &[
            "-ts reduced 2 -dm reduced -ss -cm 0,1 -ca",
            "-ts predictable 2 -dm dynamic -ks -ki 3",
        ],
    );
    same_checksums(gcc(), "xray -dm", &cases, 25);
}

#[test]
fn thread_sanitizer_finds_nothing_under_dm() {
    let dir = scratch("dm-tsan");
    let xray = small_xray("dm-tsan");
    let appendix = appendix_timed("tsan");
    let cases = [
        Case::new(&xray, "-ts reduced 2 -dm reduced"),
        Case::new(&appendix, "-ts predictable 2 -dm dynamic"),
    ];
    under_tsan("dm-tsan", &dir, &cases);
}

/// `ssc generate` chains (splits, windows, fan-out) under both modes.
#[test]
fn generated_chains_under_dm_give_the_reference_checksum() {
    let dir = scratch("dm-generated");
    for seed in 1..=3u64 {
        let file = generated_chain(&dir, seed);
        let cases = [
            "-dp none -ts fixed 1",
            "-ts reduced 2 -dm reduced",
            "-ts predictable 2 -dm dynamic -st",
            "-ts simple -dm reduced",
        ]
        .map(|a| Case::new(&file, a));
        same_checksums(gcc(), &format!("generated seed {seed} -dm"), &cases, 50);
    }
}
