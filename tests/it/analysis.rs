//! `-pr`, `-sl`, `-xr` (runtime), `-t wcet` and `-gw`: the runtime HSDFG's
//! period equals the maximum cycle mean of the SDF3 file `-xr` writes, read
//! back; the analysis on hand-built runtimes; the timing harness and a
//! measured table changing a schedule.

use crate::support;

use ssc::analysis::{self, mcm};
use ssc::back::sdf3;
use ssc::lower::LowerOptions;
use ssc::memory::MemoryKind;
use ssc::pipeline::{self, Compiled};
use ssc::schedule::{ScheduleOptions, SchedulerKind};
use ssc::sync::SyncOptions;
use std::process::Command;

fn options(kind: SchedulerKind, sync: SyncOptions) -> pipeline::Options {
    let mut lower = LowerOptions::default();
    lower.split.max_parts = match kind {
        SchedulerKind::Fixed(n) | SchedulerKind::Predictable(n) | SchedulerKind::Reduced(n) => {
            n as u64
        }
        _ => 2,
    };
    pipeline::Options {
        lower,
        scheduler: kind,
        schedule: ScheduleOptions {
            cores: Some(vec![0, 1]),
            ..ScheduleOptions::default()
        },
        memory: MemoryKind::Interference,
        sync,
        thread_execution: true,
        dynamic_memory: false,
        asked: Default::default(),
    }
}

fn compile(path: &str, kind: SchedulerKind, sync: SyncOptions) -> Compiled {
    let text = std::fs::read_to_string(path).unwrap();
    let desc = ssc::front::read(&text, &[]).map(|x| x.description).unwrap();
    pipeline::compile(&desc, &options(kind, sync)).unwrap()
}

/// The MCM of an SDF3 file read back, as an exact (weight, tokens) ratio.
fn mcm_of_xml(xml: &str) -> (u64, u64) {
    let g = support::hsdf_xml::read_hsdf(xml).unwrap();
    let edges: Vec<mcm::Edge> = g
        .channels
        .iter()
        .map(|&(a, b, t)| (a, b, g.actors[a].1, t))
        .collect();
    let c = mcm::max_cycle_ratio(g.actors.len(), &edges)
        .unwrap()
        .unwrap();
    (c.weight, c.tokens)
}

#[test]
fn the_exported_runtime_graph_has_the_period_of_the_analysis() {
    let kinds = [
        SchedulerKind::Simple,
        SchedulerKind::Barrier,
        SchedulerKind::Fixed(2),
        SchedulerKind::Predictable(3),
        SchedulerKind::Reduced(2),
    ];
    for path in [
        "examples/appendix.ssc",
        "examples/xray.ssc",
        "examples/diamond.ssc",
        "examples/pyramid.ssc",
    ] {
        for kind in kinds {
            for sync in [
                SyncOptions::default(),
                SyncOptions {
                    iteration_barrier: true,
                    keep_distance: Some(3),
                    ..SyncOptions::default()
                },
            ] {
                let c = compile(path, kind, sync.clone());
                let a = analysis::analyse(&c).unwrap();
                let xml = sdf3::sdf3_runtime(&analysis::runtime_graph(&c), "g");
                let (w, t) = mcm_of_xml(&xml);
                // Equal as exact ratios: w / t == weight / tokens.
                assert_eq!(
                    w as u128 * a.period_tokens as u128,
                    a.period_weight_ns as u128 * t as u128,
                    "{path} {kind:?}: {w}/{t} vs {}",
                    analysis::text(&a)
                );
                assert!(a.period_us > 0.0 && a.latency_us > 0.0, "{path} {kind:?}");
                // A pipelined period never exceeds one iteration's latency
                // plus the folded costs, and is at least the busiest thread.
                assert!(
                    a.period_us <= a.latency_us + 1e-9
                        || kind == SchedulerKind::Barrier
                        || sync.iteration_barrier,
                    "{path} {kind:?}: {}",
                    analysis::text(&a)
                );
            }
        }
    }
}

#[test]
fn one_thread_has_the_sum_of_its_work_as_period() {
    // One thread: the period is the whole program (times + waits + signals).
    let c = compile(
        "examples/xray.ssc",
        SchedulerKind::Fixed(1),
        SyncOptions::default(),
    );
    assert_eq!(c.runtime.thread_executions.len(), 1);
    let work: f64 = c.hsdfg.actors().map(|a| c.hsdfg.actor(a).time).sum();
    let a = analysis::analyse(&c).unwrap();
    assert!(
        (a.period_us - work).abs() < 1e-6,
        "{} vs {work}",
        a.period_us
    );
    assert!((a.latency_us - work).abs() < 1e-6);
}

#[test]
fn a_sub_box_pays_the_transfer_of_what_other_threads_wrote_for_it() {
    // The same runtime priced with and without `tr`: an actor grows by `tr`
    // per KiB of its inputs that a sub-box of another thread wrote, and by
    // nothing when every producer ran on its own thread; one thread pays
    // none.
    let c = compile(
        "examples/xray.ssc",
        SchedulerKind::Reduced(2),
        SyncOptions::default(),
    );
    assert_eq!(c.hsdfg.system.transfer, 0.0, "no model: free transfers");
    let before = analysis::runtime_graph(&c);
    let mut priced = c.clone();
    priced.hsdfg.system.transfer = 0.5; // µs a KiB
    let after = analysis::runtime_graph(&priced);
    let h = &c.hsdfg;
    let thread_of = |a: ssc::ir::hsdfg::ActorId| {
        c.runtime
            .thread_executions
            .iter()
            .position(|t| {
                t.ops
                    .iter()
                    .any(|op| matches!(&op.value, ssc::ir::Op::Exec(sb) if h.find(sb) == Some(a)))
            })
            .unwrap()
    };
    let (mut crossing, mut local) = (0, 0);
    for (x, y) in before.actors.iter().zip(&after.actors) {
        let Some(a) = c
            .runtime
            .thread_executions
            .iter()
            .flat_map(|t| &t.ops)
            .find_map(|op| match &op.value {
                ssc::ir::Op::Exec(sb) if sb.to_string() == x.label => h.find(sb),
                _ => None,
            })
        else {
            continue;
        };
        let kib: f64 = h
            .predecessors(a)
            .into_iter()
            .filter(|&p| thread_of(p) != thread_of(a))
            .map(|p| h.shared_bytes(p, a) as f64 / 1024.0)
            .sum();
        assert_eq!(
            y.time_ns - x.time_ns,
            analysis::ns(0.5 * kib),
            "{}",
            x.label
        );
        if kib > 0.0 {
            crossing += 1;
        } else {
            local += 1;
        }
    }
    assert!(
        crossing > 0 && local > 0,
        "{crossing} crossing, {local} local"
    );
    let p0 = analysis::analyse(&c).unwrap().period_us;
    let p1 = analysis::analyse(&priced).unwrap();
    assert!(p1.period_us > p0, "{} vs {p0}", p1.period_us);
    assert_eq!(p1.transfer_us, 0.5);

    let one = compile(
        "examples/xray.ssc",
        SchedulerKind::Fixed(1),
        SyncOptions::default(),
    );
    let mut one_priced = one.clone();
    one_priced.hsdfg.system.transfer = 0.5;
    assert_eq!(
        analysis::runtime_graph(&one),
        analysis::runtime_graph(&one_priced)
    );
}

#[test]
fn a_hand_written_runtime_is_analysed_as_written() {
    // The printed runtime read back: the same graph, the same period.
    let generated = compile(
        "examples/appendix.ssc",
        SchedulerKind::Fixed(2),
        SyncOptions::default(),
    );
    let text = ssc::back::description::print(&generated.description);
    let desc = ssc::front::read(&text, &[]).map(|x| x.description).unwrap();
    let c = pipeline::compile(
        &desc,
        &options(SchedulerKind::Fixed(2), SyncOptions::default()),
    )
    .unwrap();
    assert!(c.schedule.is_none(), "the runtime is honoured as written");
    let g = analysis::runtime_graph(&c);
    assert!(g.actors.len() >= c.hsdfg.actors().count());
    let a = analysis::analyse(&c).unwrap();
    let xml = sdf3::sdf3_runtime(&g, "g");
    let (w, t) = mcm_of_xml(&xml);
    assert_eq!(
        w as u128 * a.period_tokens as u128,
        a.period_weight_ns as u128 * t as u128
    );
    assert_eq!(a, analysis::analyse(&generated).unwrap());
}

fn ssc(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ssc"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn pr_prints_and_sl_writes_the_analysis() {
    let dir = std::env::temp_dir().join(format!("ssc-pr-{}", std::process::id()));
    let log = dir.join("analysis.txt");
    let xml = dir.join("a.xml");
    let out = ssc(&[
        "build",
        "examples/appendix.ssc",
        "-ts",
        "reduced",
        "2",
        "-pr",
        "-sl",
        log.to_str().unwrap(),
        "-xr",
        "--xr-output",
        xml.to_str().unwrap(),
        "-t",
        "info",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("period "), "{stdout}");
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(stdout.contains(&logged));
    // The printed period is the exported file's MCM (ns → µs).
    let (w, t) = mcm_of_xml(&std::fs::read_to_string(&xml).unwrap());
    let period = format!("period             {:.3} µs", w as f64 / t as f64 / 1000.0);
    assert!(logged.contains(&period), "{logged} vs {period}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn thread_schedule(interpreted: &str) -> String {
    let start = interpreted
        .find("thread_schedule")
        .expect("a thread schedule");
    let end = interpreted[start..].find(';').unwrap() + start;
    interpreted[start..end].to_string()
}

#[test]
fn wcet_harness_prints_a_timing_section_and_profiles() {
    let dir = std::env::temp_dir().join(format!("ssc-wcet-{}", std::process::id()));
    let out = ssc(&[
        "build",
        "examples/appendix.ssc",
        "-t",
        "wcet",
        "-od",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let exe = dir.join("appendix_wcet");
    let run = Command::new(&exe).args(["--runs", "7"]).output().unwrap();
    assert!(run.status.success());
    let text = String::from_utf8_lossy(&run.stdout);
    // The timing section is a valid runtime section naming every C function
    // and, after each, its instances.
    let section = &text[text.find("runtime {").expect("a runtime section")..];
    for f in ["func_source", "func_gain", "func_conv", "func_sink"] {
        assert!(section.contains(f), "{section}");
    }
    for e in [
        "f6 func_gain ",
        "f7 func_conv ",
        "f8 func_source ",
        "f9 func_sink ",
    ] {
        assert!(section.contains(e), "{section}");
    }
    // It replaces the appendix's own runtime section, and the result checks.
    let appendix = std::fs::read_to_string("examples/appendix.ssc").unwrap();
    let with_table = format!(
        "{}{section}",
        &appendix[..appendix.find("\nruntime").unwrap() + 1]
    );
    let desc = ssc::front::read(&with_table, &[])
        .map(|x| x.description)
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!(ssc::front::check::check(&desc).is_empty(), "{with_table}");
    let t = ssc::lower::timing::Timing::from_runtime(desc.runtime.as_ref());
    assert_eq!(t.instances.len(), 4, "{section}");
    assert_eq!(t.functions.len(), 4, "{section}");
    let etp = dir.join("etp");
    let run = Command::new(&exe)
        .args(["--runs", "9", "--percentile", "50", "--json", "--etp-dir"])
        .arg(&etp)
        .output()
        .unwrap();
    assert!(run.status.success());
    let report = ssc::back::wcet::parse_report(&String::from_utf8_lossy(&run.stdout)).unwrap();
    assert_eq!(report.runs, 9);
    assert_eq!(report.percentile, 50.0);
    assert_eq!(report.profiles.len(), 4);
    for p in &report.profiles {
        let total: f64 = p.pmf.iter().map(|v| v[1]).sum();
        assert!((total - 1.0).abs() < 1e-4, "{p:?}");
        assert!(p.min <= p.percentile && p.percentile <= p.max);
        assert!(p.pmf.windows(2).all(|w| w[0][0] < w[1][0]));
        // One file per function, in the format PTTS reads.
        let file = std::fs::read_to_string(etp.join(format!("{}.json", p.function))).unwrap();
        let v: serde_json::Value = serde_json::from_str(&file).unwrap();
        assert_eq!(v["function"], p.function.as_str());
        assert_eq!(v["unit"], "us");
        assert_eq!(v["pmf"].as_array().unwrap().len(), p.pmf.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_measured_table_is_written_into_the_runtime_and_used() {
    // xray has no timing table: the cost model times its built-ins
    // (compiler/core/lower/cost.rs) and its defined functions, well enough that the measured table often gives the same
    // schedule. What -gw must do: measure, and write the table into the
    // runtime section, per C function and per instance
    // (tests/it/timing.rs checks that a following build schedules by it).
    let dir = std::env::temp_dir().join(format!("ssc-gw-{}", std::process::id()));
    let args = |gw: bool| {
        let mut v = vec![
            "build",
            "tests/in/xray_levels.ssc",
            "-ts",
            "fixed",
            "2",
            "-t",
            "interpreter",
            "-od",
            dir.to_str().unwrap(),
            "--wcet-runs",
            "5",
        ];
        if gw {
            v.push("-gw");
        }
        v
    };
    let default = ssc(&args(false));
    let measured = ssc(&args(true));
    assert!(
        measured.status.success(),
        "{}",
        String::from_utf8_lossy(&measured.stderr)
    );
    let default = String::from_utf8_lossy(&default.stdout).into_owned();
    let measured = String::from_utf8_lossy(&measured.stdout).into_owned();
    assert!(
        measured.contains("gauss3x3 "),
        "the measured table is printed"
    );
    assert!(!default.contains("timing "), "{default}");
    // Per-instance entries (`INSTANCE FUNC T`), e.g. the Gaussian nr0.
    assert!(
        measured.lines().any(|l| l
            .trim_start()
            .strip_prefix("nr0 gauss3x3 ")
            .is_some_and(|t| t.starts_with(|c: char| c.is_ascii_digit()))),
        "{measured}"
    );
    assert!(!thread_schedule(&measured).is_empty());
    assert!(dir.join("etp/nr0.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_runs_interleaved_and_writes_its_table_json_and_figures() {
    let dir = std::env::temp_dir().join(format!("ssc-bench-{}", std::process::id()));
    let out = ssc(&[
        "bench",
        "examples/diamond.ssc",
        "--configs",
        "simple,reduced1",
        "--memory",
        "naive",
        "--iterations",
        "5",
        "--repeat",
        "2",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("simple") && table.contains("reduced1"),
        "{table}"
    );
    assert!(
        table.contains("(every configuration)"),
        "one checksum: {table}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("bench.json")).unwrap()).unwrap();
    let jobs = json["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 2);
    for j in jobs {
        assert_eq!(j["latency"]["count"], 10, "5 iterations × 2 rounds");
        assert!(j["predicted"]["period_us"].as_f64().unwrap() > 0.0);
    }
    let svg = std::fs::read_to_string(dir.join("boxplot.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("diamond"));
    assert!(dir.join("diamond/gantt.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--configs reduced2,fused2,simple --memory interference,fold` says the
/// E140 block once, not for each of the two fused builds, and the box
/// plot draws every configuration, not `reduced2 + interference` alone.
#[test]
fn bench_says_a_warning_once_and_plots_every_configuration() {
    let dir = std::env::temp_dir().join(format!("ssc-bench-once-{}", std::process::id()));
    let out = ssc(&[
        "bench",
        "tests/in/chain.ssc",
        "--configs",
        "reduced2,fused2,simple",
        "--memory",
        "interference,fold",
        "--iterations",
        "3",
        "--repeat",
        "1",
        "--color",
        "never",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // Each warning once, whatever the builds that raise it: E140 for the
    // two fused ones, and E500 for the two reduced ones when the cost
    // model finds no work for a second thread in this tiny chain.
    assert_eq!(err.matches("warning[E140]").count(), 1, "{err}");
    assert!(err.matches("warning[E500]").count() <= 1, "{err}");
    assert_eq!(
        err.matches("0 errors, 1 warning").count(),
        err.matches("warning[E").count(),
        "{err}"
    );
    let svg = std::fs::read_to_string(dir.join("boxplot.svg")).unwrap();
    for s in ["reduced2", "fused2", "simple"] {
        for m in ["interference", "fold"] {
            assert!(svg.contains(&format!("{s} + {m}")), "{s} + {m} missing");
        }
    }
    assert!(svg.contains("log scale"));
    let _ = std::fs::remove_dir_all(&dir);
}
