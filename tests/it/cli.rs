//! The command line: exit codes (docs/commands.md), the thesis' spellings, `check`
//! and `fmt`. What `ssc check` says of each wrong runtime of
//! `tests/bad_runtime/NAME.ssc` is `tests/out/check/NAME.txt`
//! (`support::golden`).

use crate::support::golden;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn ssc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssc"))
        .args(args)
        .output()
        .unwrap()
}

fn ssc_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ssc"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn check_accepts_the_appendix() {
    let out = ssc(&["check", "examples/appendix.ssc"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn fmt_is_idempotent_through_stdin() {
    let once = ssc(&["fmt", "examples/appendix.ssc"]);
    assert_eq!(once.status.code(), Some(0));
    let twice = ssc_stdin(&["fmt", "-"], &once.stdout);
    assert_eq!(twice.status.code(), Some(0), "{}", text(&twice.stderr));
    assert_eq!(text(&once.stdout), text(&twice.stdout));
}

#[test]
fn thesis_listing_with_dangling_comma_is_rejected_at_container_composition() {
    let good = std::fs::read_to_string("examples/appendix.ssc").unwrap();
    let bad = good
        .replace("gain func_gain FULL ,\n", "")
        .replace("conv func_conv FULL ;", "conv func_conv FULL ,");
    let line = bad
        .lines()
        .position(|l| l.starts_with("container_composition"))
        .unwrap()
        + 1;
    let out = ssc_stdin(&["check", "-"], bad.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains(&format!("<stdin>:{line}:1")), "{err}");
    assert!(err.contains("error[E001]"), "{err}");
    assert!(
        err.contains("container_composition app{"),
        "the source line is shown: {err}"
    );
    assert!(err.contains("help:"), "{err}");
}

#[test]
fn bad_input_exits_1_not_101() {
    for input in [
        &b""[..],
        b"\x00\xff\xfe",
        b"composition {",
        b"/* never closed",
        b"{{{{{{{{",
    ] {
        let out = ssc_stdin(&["check", "-"], input);
        assert_eq!(
            out.status.code(),
            Some(1),
            "{:?}: {}",
            input,
            text(&out.stderr)
        );
        assert!(!text(&out.stderr).contains("panicked"));
    }
}

#[test]
fn thesis_spellings_are_accepted() {
    // Every option parses; the command then reports what is not built yet
    // or succeeds, but never a usage error about the spelling.
    let cases: &[&[&str]] = &[
        &["-ts", "reduced", "4", "-ms", "reuse"],
        &["-ts", "simple"],
        &["-ts", "barrier", "-ab", "-ai"],
        &["-ts", "fixed", "2", "-cm", "0,1", "-ca"],
        &["--threadschedule", "predictable", "2"],
        &[
            "-cr", "512,512", "-dp", "some", "-mdp", "3", "-gpp", "-wt", "false", "-cd",
        ],
        &[
            "-ks", "-ki", "10", "-kd", "2", "-dm", "reduced", "-ss", "-st",
        ],
        &[
            "-td",
            "csv",
            "-dt",
            "/tmp/ssc-t.csv",
            "-ta",
            "-tt",
            "-ht",
            "-vo",
            "-ic",
            "5",
        ],
        &[
            "-te",
            "-v",
            "-pr",
            "-sl",
            "/tmp/ssc-log.txt",
            "-xr",
            "-t",
            "info",
        ],
    ];
    for case in cases {
        let mut args = vec!["build"];
        args.extend_from_slice(case);
        args.push("examples/appendix.ssc");
        let out = ssc(&args);
        let err = text(&out.stderr);
        assert!(
            !err.contains("unexpected argument") && !err.contains("invalid value"),
            "{case:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{case:?}: {err}");
    }
}

#[test]
fn bad_command_lines_exit_2() {
    let cases: &[&[&str]] = &[
        &["build", "examples/appendix.ssc", "-ts", "bogus"],
        &["build", "examples/appendix.ssc", "-ts", "fixed", "0"],
        &["build", "examples/appendix.ssc", "-ts", "simple", "4"],
        &["build", "examples/appendix.ssc", "-cm", "0,x"],
        &["build", "examples/appendix.ssc", "-cm", "0,0"],
        &["build", "examples/appendix.ssc", "-cr", "512"],
        &["build", "examples/appendix.ssc", "-ms", "best"],
        &["build", "examples/appendix.ssc", "-t", "cuda"],
        &["build", "examples/appendix.ssc", "-mdp", "0"],
        &["build", "examples/appendix.ssc", "--no-such-option"],
        &["check", "does/not/exist.ssc"],
        &["frobnicate"],
    ];
    for case in cases {
        let out = ssc(case);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{case:?}: {}",
            text(&out.stderr)
        );
        assert!(!text(&out.stderr).is_empty());
    }
}

/// `-t library -dm dynamic` is a usage error like `-t library -o foo`, not
/// E300 against the file. Options that contradict each other
/// are a usage error, exit 2, and the message says they contradict and
/// names both, whatever the description.
#[test]
fn contradictory_options_exit_2_and_say_so() {
    let cases: &[(&[&str], &str)] = &[
        (&["-t", "library", "-dm", "dynamic"], "-dm dynamic"),
        (&["-t", "library", "-dm", "reduced"], "-dm reduced"),
        (&["-dm", "dynamic", "-t", "library"], "-dm dynamic"),
        (&["-t", "library", "-o", "foo"], "-o"),
    ];
    for (file, (args, other)) in ["examples/xray.ssc", "examples/appendix.ssc"]
        .iter()
        .flat_map(|f| cases.iter().map(move |c| (f, c)))
    {
        let mut argv = vec!["build", file, "-od", "/nonexistent/never-written"];
        argv.extend(args.iter());
        let out = ssc(&argv);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{argv:?}: {err}");
        assert!(
            err.contains("contradictory options: -t library and ") && err.contains(other),
            "{argv:?}: {err}"
        );
        assert!(!err.contains("E300"), "{argv:?}: {err}");
    }
}

#[test]
fn help_lists_the_thesis_groups() {
    let out = ssc(&["build", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    for group in [
        "Composition:",
        "Declaration:",
        "Instantiation:",
        "Runtime:",
        "Export:",
        "Code generation:",
        "Performance measurements:",
        "Misc:",
        "Analysis:",
    ] {
        assert!(help.contains(group), "{group} missing from --help");
    }
    assert!(help.contains("[-ts]") && help.contains("[-mdp]"));
}

#[test]
fn check_proves_the_appendix_runtime() {
    let out = ssc(&["check", "examples/appendix.ssc"]);
    let text = text(&out.stdout);
    assert!(text.contains("runtime proved"), "{text}");
    assert!(text.contains("deadlock-free"), "{text}");
}

/// `tests/bad_runtime/*`, sorted, relative to the package (the tests' working
/// directory: the reports name them so).
fn bad_runtimes() -> Vec<std::path::PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir("tests/bad_runtime")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
}

/// The files [`wrong_runtimes_are_refused_with_a_counter_example`] writes,
/// under `tests/out/`: `check/NAME.txt`, what `ssc check` says of
/// `tests/bad_runtime/NAME.ssc`.
pub(crate) fn outputs() -> Vec<String> {
    bad_runtimes()
        .iter()
        .map(|p| format!("check/{}.txt", p.file_stem().unwrap().to_string_lossy()))
        .collect()
}

#[test]
fn wrong_runtimes_are_refused_with_a_counter_example() {
    let paths = bad_runtimes();
    assert!(paths.len() >= 3);
    for path in paths {
        let p = path.display().to_string();
        let out = ssc(&["check", &p]);
        assert_eq!(out.status.code(), Some(1), "{p}");
        let err = text(&out.stderr);
        assert!(err.contains("error[E211]"), "{p}: {err}");
        // The counter-example points at the operations in the source.
        assert!(
            err.contains(&format!("{p}:")) && err.contains("╰── thread"),
            "{p}: {err}"
        );
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        golden::check(&format!("check/{name}.txt"), &err);
        // The build refuses it too, before any C is written.
        let out = ssc(&["build", &p, "-od", "target/never-built"]);
        assert_eq!(out.status.code(), Some(1), "{p}");
    }
}

/// `-t info --json`: every field, bytes against the lower bound for each
/// memory schedule, the predicted makespan against its lower bound.
#[test]
fn info_json_fields() {
    let out = ssc(&[
        "build",
        "examples/xray.ssc",
        "-ts",
        "fixed",
        "2",
        "-cm",
        "0,1",
        "-ab",
        "-t",
        "info",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let o = v.as_object().unwrap();
    for key in [
        "functions",
        "actors",
        "dependencies",
        "buffers",
        "buffer_bytes",
        "threads",
        "signals",
        "waits_per_iteration",
        "barriers",
        "scheduler",
        "makespan_us",
        "makespan_lower_bound_us",
        "memory",
        "kernels",
        "proof",
    ] {
        assert!(o.contains_key(key), "no `{key}` in {v}");
    }
    assert_eq!(o.len(), 15, "{v}");
    // xray is written with definitions: every function that computes is
    // generated, the sources and sinks are the runtime's, no C call.
    assert_eq!(v["kernels"]["io"].as_array().unwrap().len(), 4, "{v}");
    assert!(v["kernels"]["c"].as_array().unwrap().is_empty(), "{v}");
    assert_eq!(v["scheduler"], "fixed(2)");
    assert_eq!(v["threads"], 2);
    assert_eq!(v["barriers"], 1, "-ab");
    assert!(v["actors"].as_u64().unwrap() >= v["functions"].as_u64().unwrap());
    assert!(v["waits_per_iteration"].as_u64().unwrap() >= v["signals"].as_u64().unwrap());
    let m = v["makespan_us"].as_f64().unwrap();
    let lb = v["makespan_lower_bound_us"].as_f64().unwrap();
    assert!(lb > 0.0 && m >= lb, "makespan {m} against {lb}");
    let mem = v["memory"].as_array().unwrap();
    let kinds: Vec<&str> = mem
        .iter()
        .map(|l| l["memory_schedule"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["none", "naive", "reuse", "interference", "mesif", "fold"]
    );
    let bytes = |k: usize| mem[k]["bytes"].as_u64().unwrap();
    for l in mem {
        let (b, lb) = (
            l["bytes"].as_u64().unwrap(),
            l["lower_bound"].as_u64().unwrap(),
        );
        assert!(lb > 0 && b >= lb, "{l}");
        let ratio = l["ratio"].as_f64().unwrap();
        assert!((ratio - b as f64 / lb as f64).abs() < 1e-9, "{l}");
        assert_eq!(l.as_object().unwrap().len(), 4, "{l}");
    }
    // One thread schedule, one lower bound for whole buffers (fold's is
    // that of rings); interference ≤ reuse ≤ naive.
    assert!(mem[..5]
        .iter()
        .all(|l| l["lower_bound"] == mem[0]["lower_bound"]));
    assert!(bytes(3) <= bytes(2) && bytes(2) <= bytes(1));
    assert_eq!(bytes(0), bytes(1));
    assert!(v["proof"].as_str().unwrap().starts_with("runtime proved"));
    // The text form says the same.
    let out = ssc(&[
        "build",
        "examples/xray.ssc",
        "-ts",
        "fixed",
        "2",
        "-cm",
        "0,1",
        "-ab",
        "-t",
        "info",
    ]);
    let t = text(&out.stdout);
    assert!(t.contains("makespan ") && t.contains("lower bound"), "{t}");
    assert!(
        t.contains(&format!("  interference       {}", bytes(3))),
        "{t}"
    );
}

#[test]
fn a_resolution_override_that_breaks_explicit_resolutions_is_an_input_error() {
    // xray.ssc gives some boxes explicit resolutions ([256, 256] under a
    // [512, 512] top): -cr 128,128 makes those grids disagree. That is the
    // input's fault (exit 1, E010), not an unprovable runtime (E299).
    let dir = std::env::temp_dir().join(format!("ssc-cli-cr-{}", std::process::id()));
    let out = ssc(&[
        "build",
        "examples/xray.ssc",
        "-cr",
        "128,128",
        "-od",
        dir.to_str().unwrap(),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("error[E010]"), "{err}");
    assert!(!err.contains("E299"), "{err}");
    assert!(!dir.join("xray.c").exists(), "no code is generated");
}

#[test]
fn options_ignored_by_a_hand_written_runtime_are_warned_about() {
    let out = ssc(&[
        "build",
        "examples/appendix.ssc",
        "-ts",
        "simple",
        "-t",
        "info",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(
        err.contains("honoured as written") && err.contains("-ts simple is ignored"),
        "{err}"
    );
    let out = ssc(&["build", "examples/appendix.ssc", "-t", "info"]);
    assert!(!text(&out.stderr).contains("ignored"));
}

/// A runtime section with memory sections but no programs (what
/// `--no-threadexecution` prints, or a hand placement): the placements are
/// honoured as written whatever `-ms` says (with a warning), and a placement
/// that shares bytes between unordered buffers is an input error, E210.
#[test]
fn written_memory_sections_are_honoured() {
    let naive = ssc(&[
        "build",
        "examples/diamond.ssc",
        "-t",
        "interpreter",
        "--no-threadexecution",
        // The functions as composed (-ts auto may choose --inline).
        "-ts",
        "reduced",
        "2",
        "-ms",
        "naive",
    ]);
    assert_eq!(naive.status.code(), Some(0));
    let naive = text(&naive.stdout);
    let mappings = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| l.trim_start().starts_with('m') && l.contains(" shared "))
            .map(str::to_string)
            .collect()
    };
    assert!(mappings(&naive).len() >= 7, "{naive}");
    // Read back with another -ms: the written placements stay.
    let back = ssc_stdin(
        &["build", "-", "-t", "interpreter", "-ms", "interference"],
        naive.as_bytes(),
    );
    assert_eq!(back.status.code(), Some(0), "{}", text(&back.stderr));
    assert!(
        text(&back.stderr).contains("-ms interference is ignored"),
        "{}",
        text(&back.stderr)
    );
    assert_eq!(mappings(&text(&back.stdout)), mappings(&naive));
    // Without the written sections interference shares bytes.
    let fresh = ssc(&[
        "build",
        "examples/diamond.ssc",
        "-t",
        "interpreter",
        "-ms",
        "interference",
    ]);
    assert_ne!(mappings(&text(&fresh.stdout)), mappings(&naive));
    // split.out1 and split.out2 on the same bytes: both written by split.
    let clash = naive.replace("m2 shared 524288 786432", "m2 shared 262144 524288");
    assert_ne!(clash, naive);
    let out = ssc_stdin(&["build", "-", "-t", "interpreter"], clash.as_bytes());
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("error[E210]"), "{err}");
    assert!(
        err.contains("split.out1") || err.contains("split.out2"),
        "{err}"
    );
    assert!(
        err.contains("placed here"),
        "labelled at the bindings: {err}"
    );
    assert!(!err.contains("E299"), "{err}");
}
