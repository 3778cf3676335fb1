//! What `ssc build` decided against its command line is a warning by
//! default (docs/diagnostics.md, E500–E502), not only a `-v` note: each
//! appears with the plain command line (and as JSON with
//! `--message-format json`), and none appears when the decision was not
//! taken.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn ssc(args: &[&str]) -> Output {
    ssc_stdin(args, b"")
}

fn ssc_stdin(args: &[&str], input: &[u8]) -> Output {
    // No calibration cache: the cost model's shipped defaults.
    let cache = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("decisions-cache");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ssc"))
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// Standard error of a successful command.
fn warnings_of(args: &[&str]) -> String {
    warnings_with(args, b"")
}

fn warnings_with(args: &[&str], input: &[u8]) -> String {
    let out = ssc_stdin(args, input);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
    err
}

/// The JSON diagnostics of a successful command with `--message-format json`.
fn json_of(args: &[&str]) -> Vec<serde_json::Value> {
    let mut v = args.to_vec();
    v.extend(["--message-format", "json"]);
    warnings_of(&v)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// `tests/in/chain.ssc` at 16×12: its gain costs about 0.1 µs by the cost
/// model's shipped defaults, so more than two threads do not pay.
fn small_chain() -> String {
    let path = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("decisions-small.ssc");
    let text = std::fs::read_to_string("tests/in/chain.ssc")
        .unwrap()
        .replace("[64, 48]", "[16, 12]");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn threads_the_scheduler_drops_are_a_warning() {
    // A 16×12 gain costs about 0.1 µs by the cost model, and reading
    // another thread's output a signal, a wait and a transfer more (its
    // shipped defaults, `Coefficients::shipped`): spreading b's four
    // strips over more threads does not pay.
    let small = small_chain();
    let err = warnings_of(&[
        "build", &small, "-ts", "reduced", "4", "-ms", "reuse", "-t", "info",
    ]);
    assert!(err.contains("warning[E500]"), "{err}");
    assert!(
        err.contains("-ts reduced 4: 3 of 4 threads got no sub-box and were dropped; the program runs 1 thread"),
        "{err}"
    );
    // The reason and the fix.
    assert!(
        err.contains("by the timing table and the cost model of the built-ins"),
        "{err}"
    );
    let words = err.split_whitespace().collect::<Vec<_>>().join(" ");
    let s = ssc::lower::cost::Coefficients::shipped().system();
    assert!(
        words.contains(&format!(
            "(sg {} µs + wt {} µs + tr {} µs a KiB, the cost model's, `ssc calibrate`)",
            s.signal, s.wait, s.transfer
        )),
        "{err}"
    );
    assert!(err.contains("-ts reduced 1"), "{err}");
    let json = json_of(&["build", &small, "-ts", "fixed", "4", "-t", "info"]);
    let e500: Vec<_> = json.iter().filter(|d| d["code"] == "E500").collect();
    assert_eq!(e500.len(), 1, "{json:?}");
    assert_eq!(e500[0]["severity"], "warning");
    assert!(e500[0]["hint"].as_str().unwrap().contains("-ts fixed "));

    // Not taken: every thread used (xray has work for 4), or one asked.
    for args in [
        &[
            "build",
            "examples/xray.ssc",
            "-ts",
            "reduced",
            "4",
            "-ms",
            "reuse",
            "-t",
            "info",
        ][..],
        &[
            "build",
            "tests/in/chain.ssc",
            "-ts",
            "reduced",
            "1",
            "-t",
            "info",
        ],
        &["build", "tests/in/chain.ssc", "-ts", "simple", "-t", "info"],
    ] {
        let err = warnings_of(args);
        assert!(
            !err.contains("E500") && !err.contains("E501"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn fewer_sub_boxes_than_threads_is_a_warning() {
    let err = warnings_of(&[
        "build",
        "tests/in/chain.ssc",
        "-dp",
        "none",
        "-ts",
        "reduced",
        "4",
        "-t",
        "info",
    ]);
    assert!(err.contains("warning[E501]"), "{err}");
    assert!(
        err.contains("asks for 4 threads, but the instantiation has 3 sub-boxes"),
        "{err}"
    );
    assert!(
        err.contains("-dp none splits no function") && err.contains("-dp full -mdp 4"),
        "{err}"
    );
    assert!(!err.contains("E500"), "one reason, not two: {err}");
    let err = warnings_of(&[
        "build",
        "tests/in/chain.ssc",
        "-mdp",
        "1",
        "-ts",
        "fixed",
        "4",
        "-t",
        "info",
    ]);
    assert!(
        err.contains("warning[E501]") && err.contains("-mdp 1 splits a function into at most 1"),
        "{err}"
    );
    // Not taken: as many sub-boxes as threads.
    let err = warnings_of(&[
        "build",
        "tests/in/chain.ssc",
        "-dp",
        "none",
        "-ts",
        "reduced",
        "3",
        "-t",
        "info",
    ]);
    assert!(!err.contains("E501"), "{err}");
}

#[test]
fn options_a_runtime_section_overrides_are_a_warning() {
    // Thread programs: -ts and -ms both ignored, labelled at the programs.
    let err = warnings_of(&[
        "build",
        "examples/appendix.ssc",
        "-ts",
        "reduced",
        "2",
        "-ms",
        "naive",
        "-t",
        "info",
    ]);
    assert!(err.contains("warning[E502]"), "{err}");
    assert!(
        err.contains(
            "-ts reduced 2 and -ms naive are ignored: the runtime section has thread programs"
        ),
        "{err}"
    );
    let line = std::fs::read_to_string("examples/appendix.ssc")
        .unwrap()
        .lines()
        .position(|l| l.contains("thread_execution"))
        .unwrap()
        + 1;
    assert!(
        err.contains(&format!("examples/appendix.ssc:{line}:")),
        "labelled at the programs (line {line}): {err}"
    );
    let json = json_of(&[
        "build",
        "examples/appendix.ssc",
        "-ms",
        "naive",
        "-t",
        "info",
    ]);
    assert_eq!(json.len(), 1, "{json:?}");
    assert_eq!(json[0]["code"], "E502");
    assert_eq!(json[0]["severity"], "warning");
    assert!(json[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("-ms naive is ignored"));
    assert!(json[0]["line"].as_u64().is_some());

    // A thread_schedule and memory sections without programs: each option
    // is ignored on its own.
    let printed = ssc(&[
        "build",
        "examples/diamond.ssc",
        "-t",
        "interpreter",
        "--no-threadexecution",
    ]);
    assert_eq!(printed.status.code(), Some(0));
    let err = warnings_with(
        &[
            "build", "-", "-ts", "fixed", "2", "-ms", "naive", "-t", "info",
        ],
        &printed.stdout,
    );
    assert_eq!(err.matches("warning[E502]").count(), 2, "{err}");
    assert!(
        err.contains("-ts fixed 2 is ignored: the runtime section's thread_schedule"),
        "{err}"
    );
    assert!(
        err.contains("-ms naive is ignored: the runtime section places the buffers"),
        "{err}"
    );

    // Not taken: the options left out, or nothing in the way.
    for (args, input) in [
        (
            &["build", "examples/appendix.ssc", "-t", "info"][..],
            &b""[..],
        ),
        (&["build", "-", "-t", "info"], &printed.stdout[..]),
        (
            &[
                "build",
                "examples/diamond.ssc",
                "-ts",
                "fixed",
                "2",
                "-ms",
                "naive",
                "-t",
                "info",
            ],
            b"",
        ),
    ] {
        let err = warnings_with(args, input);
        assert!(
            !err.contains("E502") && !err.contains("ignored"),
            "{args:?}: {err}"
        );
    }
}

/// More pinned threads than the process has cores is E505, naming both;
/// as many as it has is nothing. The cores are the process's (its
/// affinity mask): under `taskset -c 0` one, else this machine's.
#[test]
fn more_threads_than_cores_is_a_warning_naming_both() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("decisions-cores");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let build = |pin: Option<&str>, ts: &str| {
        let exe = dir.join(ts.replace(' ', "_"));
        let args = [
            "build",
            "examples/fluoro.ssc",
            "-D",
            "W=64",
            "-D",
            "H=64",
            "-ts",
            ts.split(' ').next().unwrap(),
            ts.split(' ').nth(1).unwrap(),
            "-o",
            exe.to_str().unwrap(),
        ];
        let mut cmd = match pin {
            Some(core) => {
                let mut c = Command::new("taskset");
                c.args(["-c", core, env!("CARGO_BIN_EXE_ssc")]);
                c
            }
            None => Command::new(env!("CARGO_BIN_EXE_ssc")),
        };
        let out = cmd.args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let cores = std::thread::available_parallelism().unwrap().get();
    let too_many = build(None, &format!("reduced {}", cores + 2));
    assert!(
        too_many.contains(&format!(
            "warning[E505]: the program runs {} pinned threads, and this machine gives the process {cores} cores",
            cores + 2
        )),
        "{too_many}"
    );
    let unwrapped = too_many.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        unwrapped.contains(&format!("`-ts reduced {cores}`")),
        "{too_many}"
    );
    assert!(!build(None, &format!("fused {cores}")).contains("E505"));
    if Command::new("taskset").arg("-V").output().is_ok() {
        let pinned = build(Some("0"), "fused 2");
        assert!(pinned.contains("gives the process 1 cores"), "{pinned}");
    }
}
