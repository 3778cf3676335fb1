//! Snapshots of every stage's output (naga-style) for `examples/*.ssc` and
//! `tests/in/*.ssc`, through the `ssc` binary with fixed options (so nothing
//! depends on this machine's CPU count): the fully lowered description
//! (`-t interpreter`, all four sections), `-t info` as text and JSON, the
//! runtime DOT (`-rg`). Every stage's output is a program: the printed
//! description parses, checks clean, and compiled again — its runtime now
//! hand-written — proves and prints byte-identically. `--no-threadexecution`
//! output read back derives the same programs.

use crate::support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const OPTS: &[&[&str]] = &[
    &["-ts", "reduced", "2"],
    &["-cm", "0,1"],
    &["-ms", "interference"],
];

fn inputs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v = Vec::new();
    for dir in ["examples", "tests/in"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "ssc") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

/// Runs `ssc build FILE OPTS EXTRA` (FILE `-`: `stdin`; an option of OPTS
/// given in EXTRA is replaced); stdout on success.
fn build(file: &str, extra: &[&str], stdin: Option<&str>) -> String {
    let base: Vec<&str> = OPTS
        .iter()
        .filter(|o| !extra.contains(&o[0]))
        .flat_map(|o| o.iter().copied())
        .collect();
    // A kernel of one's own (examples/user_kernel.ssc,
    // streaming_kernels.ssc) is known only with its --kernels file (E038),
    // printed back or not.
    let text = match stdin {
        Some(s) => s.to_string(),
        None => std::fs::read_to_string(file).unwrap(),
    };
    let kernels = support::kernel_args(&text);
    let mut child = Command::new(env!("CARGO_BIN_EXE_ssc"))
        .arg("build")
        .arg(file)
        .args(&base)
        .args(extra)
        .args(&kernels)
        // No calibration cache: the cost model's shipped defaults, the
        // same on every machine.
        .env(
            "XDG_CACHE_HOME",
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-calibration"),
        )
        // A description on stdin reads its table files (`lut("F")`) from the
        // working directory: the inputs' tables are in tests/in.
        .current_dir(tables())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input
        .write_all(stdin.unwrap_or_default().as_bytes())
        .unwrap();
    drop(input);
    let out: Output = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "ssc build {file} {extra:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Where the inputs' table files are (every `lut("F")` of them is in
/// tests/in).
fn tables() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/in")
}

fn parses_and_checks_clean(text: &str, what: &str) -> ssc::ir::Description {
    let mut desc = ssc::front::syntax::parse(text).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    desc.dir = Some(tables());
    let diags = ssc::front::check(&desc);
    assert!(diags.is_empty(), "{what}: {diags:?}");
    desc
}

fn have_dot() -> bool {
    Command::new("dot")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

fn renders(dot: &str) -> bool {
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(dot.as_bytes())
        .unwrap();
    child.wait().unwrap().success()
}

#[test]
fn every_stage_snapshot_and_normal_form() {
    let dot = have_dot();
    if !dot {
        support::skip(
            "every_stage_snapshot_and_normal_form (rendering the runtime DOT)",
            "graphviz `dot` not installed",
        );
    }
    let tmp = std::env::temp_dir().join(format!("ssc-stages-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for path in inputs() {
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let file = path.to_str().unwrap();

        // The fully lowered description: all four sections, a program.
        let lowered = build(file, &["-t", "interpreter"], None);
        let desc = parses_and_checks_clean(&lowered, &stem);
        let source = parses_and_checks_clean(&std::fs::read_to_string(&path).unwrap(), &stem);
        assert!(
            desc.composition.is_some() == source.composition.is_some()
                && desc.declaration.is_some()
                && desc.instantiation.is_some(),
            "{stem}: a section is missing"
        );
        let r = desc.runtime.as_ref().expect("a runtime section");
        assert!(
            !r.thread_schedule.is_empty() && !r.thread_executions.is_empty(),
            "{stem}: the runtime has no programs"
        );
        // Compiled again, its runtime now written by hand: proven, printed
        // byte-identically (the normal form is a fixed point).
        let again = build("-", &["-t", "interpreter"], Some(&lowered));
        assert_eq!(again, lowered, "{stem}: compiling the output again");
        let proof = build("-", &["-t", "info"], Some(&lowered));
        assert!(proof.contains("proof "), "{stem}: {proof}");

        // -t info, text and JSON.
        let info = build(file, &["-t", "info"], None);
        let json = build(file, &["-t", "info", "--json"], None);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let written = std::fs::read_to_string(&path)
            .unwrap()
            .contains("thread_execution");
        if !written {
            assert_eq!(v["scheduler"], "reduced(2)", "{stem}");
        }

        // The runtime DOT: renders, and is the same for the runtime read back.
        let rg = tmp.join(format!("{stem}.runtime.dot"));
        let rg_again = tmp.join(format!("{stem}.again.runtime.dot"));
        build(
            file,
            &["-t", "interpreter", "-rg", rg.to_str().unwrap()],
            None,
        );
        build(
            "-",
            &["-t", "interpreter", "-rg", rg_again.to_str().unwrap()],
            Some(&lowered),
        );
        let runtime_dot = std::fs::read_to_string(&rg).unwrap();
        assert_eq!(
            runtime_dot,
            std::fs::read_to_string(&rg_again).unwrap(),
            "{stem}: runtime DOT of the output read back"
        );
        if dot {
            assert!(renders(&runtime_dot), "{stem}: runtime DOT does not render");
        }

        // Fused with rings: the printed runtime (rings are memory mappings
        // smaller than their buffers, bands follow the programs) read back
        // is proven and prints the same.
        if !written {
            let fused_args = [
                "-ts",
                "fused",
                "2",
                "-ms",
                "fold",
                "--strip-rows",
                "8",
                "-t",
                "interpreter",
            ];
            let fused = build(file, &fused_args, None);
            parses_and_checks_clean(&fused, &format!("{stem} fused"));
            let again = build("-", &["-t", "interpreter"], Some(&fused));
            assert_eq!(again, fused, "{stem}: the fused runtime read back");
            insta::assert_snapshot!(format!("{stem}.fused.interpreter"), fused);
        }

        insta::assert_snapshot!(format!("{stem}.interpreter"), lowered);
        insta::assert_snapshot!(format!("{stem}.info"), info);
        insta::assert_snapshot!(format!("{stem}.info.json"), json);
        insta::assert_snapshot!(format!("{stem}.runtime.dot"), runtime_dot);
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

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
            let written = std::fs::read_to_string(&path)
                .unwrap()
                .contains("thread_execution");
            if written {
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

/// The options of [`OPTS`] plus `extra`, as `cli::build` maps them.
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
