//! `-ts fused N` streams strips only where they pay (docs/fused.md, "When
//! fused streams"): on a chain whose every frame fits the cache budget it
//! runs box-at-a-time, says so (warning E140) and says how to stream
//! anyway; forced strips (`--strip-rows`, `--cache-bytes`) and frames as
//! large as the budget stream as before.

use crate::support;
use ssc::lower::split::Strips;
use ssc::memory::MemoryKind;
use ssc::pipeline;
use ssc::schedule::{ScheduleOptions, SchedulerKind};
use std::process::Command;
use support::*;

/// A generated chain of 64 × 64 frames (at most 16 KiB each).
fn small_chain(tag: &str) -> std::path::PathBuf {
    write_input(
        &scratch(&format!("fused-choice-{tag}")),
        "small.ssc",
        &generate(13, 3, "64,64"),
    )
}

fn build(file: &std::path::Path, flags: &str) -> (String, String) {
    let out = run_ok(
        Command::new(env!("CARGO_BIN_EXE_ssc"))
            .arg("build")
            .arg(file)
            .args(flags.split_whitespace())
            .args(["-t", "info", "--color", "never"]),
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The scheduler `-t info` names in its makespan line (`fused(2)`).
fn scheduled_as(info: &str) -> String {
    let line = info
        .lines()
        .find(|l| l.starts_with("makespan"))
        .expect("a makespan line");
    // `makespan 18.2 µs predicted (fused(2)), lower bound …`
    let rest = &line[line.find("predicted (").unwrap() + "predicted (".len()..];
    rest[..rest.find("), ").unwrap()].to_string()
}

#[test]
fn a_chain_whose_frames_fit_the_cache_runs_box_at_a_time_and_says_so() {
    let file = small_chain("boxed");
    let (info, err) = build(&file, "-ts fused 2");
    assert!(err.contains("warning[E140]"), "{err}");
    assert!(
        err.contains("every frame fits the cache budget (the largest is 16 KiB"),
        "{err}"
    );
    assert!(err.contains("--strip-rows N or --cache-bytes B"), "{err}");
    // Labelled at `compose`; run as predictable.
    assert!(err.contains("compose chain [64, 64]"), "{err}");
    let kind = scheduled_as(&info);
    assert_eq!(kind, "predictable(2)");
    // The warning names what ran: the same scheduler, and naive or
    // interference memory (which one follows this machine's cache: the
    // library test below pins both).
    let named = kind.replace('(', " ").replace(')', "");
    let ms = ["naive", "interference"]
        .into_iter()
        .find(|m| err.contains(&format!("as `-ts {named} -ms {m}`")))
        .unwrap_or_else(|| panic!("no memory schedule named: {err}"));
    // The same program as asking for that schedule directly.
    let (direct, _) = build(&file, &format!("-ts {named} -ms {ms}"));
    let memory = |t: &str| {
        t.lines()
            .find(|l| l.trim_start().starts_with(ms))
            .map(str::to_string)
    };
    assert!(memory(&info).is_some(), "{info}");
    assert_eq!(memory(&info), memory(&direct));
    // The summary line of a real build says what ran.
    let dir = scratch("fused-choice-summary");
    let out = run_ok(
        Command::new(env!("CARGO_BIN_EXE_ssc"))
            .arg("build")
            .arg(&file)
            .args(["-ts", "fused", "2", "-od"])
            .arg(&dir),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("(-ts {named}, box-at-a-time for -ts fused 2)")),
        "{err}"
    );
}

#[test]
fn forced_strips_and_an_explicit_memory_schedule_are_honoured() {
    let file = small_chain("forced");
    for flags in ["-ts fused 2 --strip-rows 8", "-ts fused 2 --cache-bytes 4K"] {
        let (info, err) = build(&file, flags);
        assert!(!err.contains("E140"), "{flags}: {err}");
        assert_eq!(scheduled_as(&info), "fused(2)", "{flags}");
    }
    let (_, err) = build(&file, "-ts fused 2 -ms fold");
    assert!(err.contains("-ms fold`"), "{err}");
}

/// `desc` compiled by the library with `-ts fused 2` on cores 0 and 1, a
/// cache budget of `budget` bytes, and `-ms memory` when given (fused's
/// default, fold, otherwise).
fn compile_fused(
    desc: &ssc::ir::Description,
    budget: u64,
    memory: Option<MemoryKind>,
) -> pipeline::Compiled {
    let mut opts = pipeline::Options {
        lower: Default::default(),
        scheduler: SchedulerKind::Fused(2),
        schedule: ScheduleOptions {
            cores: Some(vec![0, 1]),
            ..ScheduleOptions::default()
        },
        memory: memory.unwrap_or(MemoryKind::Fold),
        sync: Default::default(),
        thread_execution: true,
        dynamic_memory: false,
        asked: Default::default(),
    };
    opts.asked.memory = memory.is_some();
    opts.lower.split.strips = Some(Strips::new(budget));
    pipeline::compile(desc, &opts).unwrap()
}

/// Through the library: the same decision from the frames and the budget,
/// whatever this machine's cache.
#[test]
fn the_decision_follows_the_largest_frame_against_the_budget() {
    let file = small_chain("library");
    let desc = ssc::front::read(&std::fs::read_to_string(&file).unwrap(), &[])
        .map(|x| x.description)
        .unwrap();
    let compile = |budget: u64| compile_fused(&desc, budget, None);
    // 16 KiB frames: a budget of 16 KiB streams, one of 16 KiB + 1 does not.
    let streamed = compile(16 << 10);
    assert_eq!(
        streamed.schedule.as_ref().unwrap().kind,
        SchedulerKind::Fused(2)
    );
    assert!(streamed.warnings.iter().all(|w| w.code != "E140"));
    assert_eq!(
        streamed.memory.as_ref().unwrap().kind,
        Some(MemoryKind::Fold)
    );
    let boxed = compile((16 << 10) + 1);
    assert_ne!(
        boxed.schedule.as_ref().unwrap().kind,
        SchedulerKind::Fused(2)
    );
    assert!(boxed.warnings.iter().any(|w| w.code == "E140"));
    // Its buffers, each in bytes of its own, do not fit two such budgets:
    // they share memory.
    assert_eq!(
        boxed.memory.as_ref().unwrap().kind,
        Some(MemoryKind::Interference)
    );
}

/// Box-at-a-time, the buffers get bytes of their own (`naive`) exactly when
/// all of them fit the cores' caches together (threads × the budget), and
/// share memory (`interference`) otherwise; an `-ms` given wins.
#[test]
fn box_at_a_time_gives_each_buffer_its_own_bytes_when_all_fit_the_caches() {
    let file = small_chain("own-bytes");
    let desc = ssc::front::read(&std::fs::read_to_string(&file).unwrap(), &[])
        .map(|x| x.description)
        .unwrap();
    let compile = |budget: u64, memory| compile_fused(&desc, budget, memory);
    // What the naive layout needs: every buffer's bytes.
    let all: u64 = compile(1 << 30, None)
        .hsdfg
        .buffers
        .iter()
        .map(|b| b.bytes)
        .sum();
    // Half of it, less a byte, still exceeds the largest frame (16 KiB), so
    // both budgets below run box-at-a-time.
    assert!(all / 2 - 1 > (16 << 10), "buffers of 16 KiB frames: {all}");
    let kind = |c: &pipeline::Compiled| c.memory.as_ref().unwrap().kind;
    // Two threads: the budget is half of it, or a byte less.
    let fits = compile(all.div_ceil(2), None);
    assert!(fits.warnings.iter().any(|w| w.code == "E140"));
    assert_eq!(kind(&fits), Some(MemoryKind::Naive));
    let w = fits.warnings.iter().find(|w| w.code == "E140").unwrap();
    assert!(w.message.contains("-ms naive`"), "{}", w.message);
    assert_eq!(
        fits.memory.as_ref().unwrap().shared_bytes,
        all,
        "naive: nothing shared"
    );
    let over = compile(all / 2 - 1, None);
    assert!(over.warnings.iter().any(|w| w.code == "E140"));
    assert_eq!(kind(&over), Some(MemoryKind::Interference));
    // An -ms given is what runs, whatever fits.
    let asked = compile(all, Some(MemoryKind::Mesif));
    assert_eq!(kind(&asked), Some(MemoryKind::Mesif));
}
