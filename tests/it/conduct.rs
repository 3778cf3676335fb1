//! How `ssc` behaves as a command-line tool: a closed pipe,
//! `ssc run --json`, signals to `ssc run`, throttle's argument checks,
//! `ssc bench --help`, the `-v` report's wording, long `.ptts` names, and
//! the generated program's messages.

use crate::support;

use std::io::Read;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn ssc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ssc"))
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("conduct");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs `ssc args`, reads a few bytes of its output and closes the pipe:
/// ssc must end quietly (no panic, no 101), by SIGPIPE or with 0.
fn assert_quiet_on_closed_pipe(args: &[&str]) {
    let mut child = ssc()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    out.read_exact(&mut first).unwrap();
    drop(out);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    assert!(
        status.code() == Some(0) || status.signal() == Some(libc::SIGPIPE),
        "{args:?}: {status} {err}"
    );
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    // (`ptts --json` writes its summary on stderr; nothing else may come.)
    assert!(!err.contains("Broken pipe"), "{args:?}: {err}");
    assert!(!err.contains("error"), "{args:?}: {err}");
}

#[test]
fn a_closed_pipe_ends_ssc_quietly() {
    assert_quiet_on_closed_pipe(&["generate", "--boxes", "3000"]);
    assert_quiet_on_closed_pipe(&["ptts", "examples/ptts_config_c.ptts", "--json"]);
    assert_quiet_on_closed_pipe(&["ptts", "examples/ptts_config_c.ptts"]);
}

#[test]
fn bench_help_documents_every_option_and_its_default() {
    let out = ssc().args(["bench", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out);
    for (option, default) in [
        (
            "--configs",
            "[default: simple,barrier,fixed,predictable,reduced]",
        ),
        ("--memory", "[default: naive,interference]"),
        ("--iterations", "[default: 1000]"),
        ("--repeat", "[default: 3]"),
    ] {
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with(option))
            .unwrap_or_else(|| panic!("{option} missing: {help}"));
        assert!(line.contains(default), "{option}: {line}");
        let described = line.split('>').nth(1).unwrap_or("").trim();
        assert!(
            described.len() > default.len(),
            "{option} has no text: {line}"
        );
    }
}

#[test]
fn throttle_command_line_errors_exit_2_before_any_sensor_is_probed() {
    let pid = std::process::id().to_string();
    for (args, needle) in [
        (vec!["--duty", "0", "--be-pid", &pid], "--duty"),
        (vec!["--duty", "9", "--actuator", "msr"], "--duty"),
        (
            vec!["--actuator", "freeze", "--be-pid", &pid],
            "--actuator freeze needs --be-cgroup",
        ),
        (
            vec!["--actuator", "signal", "--be-cgroup", "/tmp"],
            "--actuator signal needs --be-pid",
        ),
        (vec!["--be-pid", "0"], "not a process id"),
    ] {
        // The default sensor (auto): probing it first would fail here (exit 3).
        let out = ssc()
            .arg("throttle")
            .args(&args)
            .args(["--duration", "100ms"])
            .output()
            .unwrap();
        let t = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains(needle), "{args:?}: {t}");
        assert!(!t.contains("sensor"), "{args:?}: probed a sensor: {t}");
    }
}

#[test]
fn verbose_report_says_1_thread_and_sync_once() {
    let out = ssc()
        .args([
            "build",
            "tests/in/chain.ssc",
            "-t",
            "interpreter",
            "-v",
            "-ts",
            "reduced",
            "1",
        ])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(t.contains("runtime proved: 1 thread, "), "{t}");
    assert!(!t.contains("1 threads"), "{t}");
    assert!(t.contains("\nsync: "), "{t}");
    assert!(!t.contains("sync: sync:"), "{t}");
}

#[test]
fn ptts_takes_a_component_name_of_any_length() {
    let name = "a".repeat(70_000);
    let path = scratch("long.ptts");
    std::fs::write(
        &path,
        format!("ptts {{\n  component {name} period 10 etp point 1;\n}}\n"),
    )
    .unwrap();
    let out = ssc()
        .args(["ptts", path.to_str().unwrap()])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{}", &t[..t.len().min(500)]);
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("C0 {name}  period 10")));
}

/// Builds `tests/in/chain.ssc` into a directory of its own.
fn built_chain(tag: &str) -> (PathBuf, PathBuf) {
    let dir = scratch(tag);
    let out = ssc()
        .args(["build", "tests/in/chain.ssc", "-od"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    (dir.clone(), dir.join("chain"))
}

#[test]
fn run_passes_json_to_the_program() {
    let dir = scratch("run_json");
    let out = ssc()
        .args(["run", "tests/in/chain.ssc", "--json", "-od"])
        .arg(&dir)
        .args(["--", "--iterations", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: serde_json::Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"));
    assert_eq!(report["iterations"], 3, "{stdout}");
    // `-t info --json` keeps its meaning.
    let out = ssc()
        .args(["run", "tests/in/chain.ssc", "-t", "info", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(info.get("proof").is_some(), "{info}");
}

#[test]
fn a_dump_error_names_the_program_not_ssc() {
    let (_, exe) = built_chain("dump");
    let out = Command::new(&exe)
        .args(["--iterations", "2", "--dump", "/nonexistent/dir/x.csv"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(
        err.starts_with(&format!("{}: cannot write the dump", exe.display())),
        "{err}"
    );
}

/// The children of `pid` (Linux: /proc/PID/task/PID/children).
fn children(pid: u32) -> Vec<i32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// `ssc run` of a long periodic run, its program found among ssc's
/// children: (ssc, the program's pid).
fn long_run(tag: &str) -> (std::process::Child, i32) {
    let dir = scratch(tag);
    let child = ssc()
        .args(["run", "tests/in/chain.ssc", "-od"])
        .arg(&dir)
        .args(["--", "--iterations", "100000000", "--period-us", "1000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let ssc_pid = child.id();
    // Wait for the program (a child of ssc that is not `cc` or `make`).
    let exe = dir.join("chain");
    let t0 = Instant::now();
    let program = loop {
        let found = children(ssc_pid)
            .into_iter()
            .find(|&p| std::fs::read_link(format!("/proc/{p}/exe")).is_ok_and(|e| e == exe));
        if let Some(p) = found {
            break p;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "the program never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    std::thread::sleep(Duration::from_millis(300));
    (child, program)
}

/// A signal to ssc alone (not its group) reaches the program, which stops
/// with its report; ssc ends as the program did.
fn signal_to_ssc_run_alone(signal: i32, tag: &str) {
    let (child, program) = long_run(tag);
    // SAFETY: a signal to our own child, ssc, alone (not its group).
    unsafe { libc::kill(child.id() as i32, signal) };
    let out = child.wait_with_output().unwrap();
    let t = text(&out);
    assert!(
        !std::path::Path::new(&format!("/proc/{program}")).exists()
            || std::fs::read_to_string(format!("/proc/{program}/stat"))
                .is_ok_and(|s| s.contains(") Z")),
        "the program still runs: {t}"
    );
    assert!(t.contains("stopped by signal"), "{t}");
    assert_eq!(out.status.code(), Some(0), "{t}");
}

#[test]
fn sigint_to_ssc_run_alone_stops_the_program_and_ssc_ends_as_it_did() {
    signal_to_ssc_run_alone(libc::SIGINT, "sigint");
}

#[test]
fn sigterm_to_ssc_run_alone_stops_the_program_and_ssc_ends_as_it_did() {
    signal_to_ssc_run_alone(libc::SIGTERM, "sigterm");
}

#[test]
fn ssc_run_ends_with_the_program_s_exit_code_or_signal() {
    // A program option it refuses: the program exits 2, so does ssc run.
    let dir = scratch("run-status");
    let out = ssc()
        .args(["run", "tests/in/chain.ssc", "-od"])
        .arg(&dir)
        .args(["--", "--no-such-option"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // A program killed on its own (not through ssc): ssc says how, exit 3.
    let (child, program) = long_run("run-killed");
    // SAFETY: a signal to the program, a child of our child.
    unsafe { libc::kill(program, libc::SIGKILL) };
    let out = child.wait_with_output().unwrap();
    let t = text(&out);
    assert!(t.contains("exited with signal: 9 (SIGKILL)"), "{t}");
    assert_eq!(out.status.code(), Some(3), "{t}");
}

/// Every message of a generated program starts with the program's name:
/// no message of the runtime or the kernels is written as `ssc: …`.
#[test]
fn runtime_messages_carry_the_program_s_name() {
    for f in ssc::back::c::RUNTIME_FILES {
        let (file, src) = (f.name, f.text);
        for (i, line) in src.lines().enumerate() {
            assert!(
                !line.contains("\"ssc: "),
                "{file}:{}: a message written as `ssc: …`: {line}",
                i + 1
            );
        }
    }
}

/// `ssc check` on a description in a scratch file; (exit code, stderr).
fn check_text(name: &str, text: &str, extra: &[&str]) -> (Option<i32>, String) {
    let path = scratch(name);
    std::fs::write(&path, text).unwrap();
    let out = ssc().args(extra).arg("check").arg(&path).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_missing_compose_labels_the_header_and_names_the_top() {
    let text = std::fs::read_to_string("tests/in/xray_levels.ssc")
        .unwrap()
        .replace("compose xray [512, 512];", "");
    let (code, err) = check_text("nocompose.ssc", &text, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("error[E100]"), "{err}");
    assert!(err.contains("this composition composes nothing"), "{err}");
    assert!(err.contains("add `compose xray [w, h];`"), "{err}");
    // The header only: no line of the body is drawn as part of the label.
    assert!(!err.contains("╭─▶") && err.lines().count() < 15, "{err}");
}

#[test]
fn e108_names_the_variant_to_bind() {
    let text = "composition {\n  container_declaration source { out OUT float mul [1, 1]; };\n  container_declaration sink { in IN float mul [1, 1]; };\n  container_declaration conv { in IN float mul [1, 1] [3, 3]; out OUT float mul [1, 1]; };\n  container_declaration conv5 { in IN float mul [1, 1] [5, 5]; out OUT float mul [1, 1]; };\n  container_declaration app { };\n  container_bind source func_source NONE, sink func_sink NONE, conv func_conv FULL, conv5 func_conv FULL;\n  container_composition app {\n    container s source index, a conv index, b conv5 index, k sink index;\n    s.out -> a.in;\n    a.out -> b.in;\n    b.out -> k.in;\n  };\n  compose app [64, 64];\n}\n";
    let (code, err) = check_text("e108.ssc", text, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("error[E108]"), "{err}");
    assert!(err.contains("`conv5 func_conv_5x5 FULL`"), "{err}");
    // ... and that fix is accepted.
    let fixed = text.replace("conv5 func_conv FULL", "conv5 func_conv_5x5 FULL");
    let (code, err) = check_text("e108_fixed.ssc", &fixed, &[]);
    assert_eq!(code, Some(0), "{err}");
}

#[test]
fn a_kernel_named_like_a_builtin_is_e302_before_cc() {
    let kernels = scratch("sink_kernel.c");
    std::fs::write(
        &kernels,
        "#include \"ssc_kernels.h\"\nvoid func_sink(const ssc_call *call) { (void)call; }\n",
    )
    .unwrap();
    let dir = scratch("e302");
    let out = ssc()
        .args(["build", "tests/in/chain.ssc", "--kernels"])
        .arg(&kernels)
        .arg("-od")
        .arg(&dir)
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("error[E302]: `func_sink` is a built-in"), "{t}");
    assert!(t.contains("sink_kernel.c:2:6"), "{t}");
    assert!(t.contains("`func_sink_mine`"), "{t}");
    assert!(!t.contains("multiple definition"), "{t}");
    assert!(!dir.join("chain.c").exists(), "a file was written");
}

#[test]
fn explain_prints_the_entry_of_a_code() {
    let out = ssc().args(["explain", "E108"]).output().unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(t.starts_with("E108 (Lowering"), "{t}");
    assert!(t.contains("func_conv_5x5"), "{t}");
    for code in ["E000", "e201", "211", "E302", "E413"] {
        let out = ssc().args(["explain", code]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{code}: {}", text(&out));
    }
    let out = ssc().args(["explain", "E999"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

#[test]
fn explain_renders_for_a_terminal_without_markdown_or_relative_paths() {
    // No `*warning*`, backticks or the relative path docs/diagnostics.md
    // in what `ssc explain` prints.
    for code in ["E140", "E108", "E211", "E503"] {
        let out = ssc().args(["explain", code]).output().unwrap();
        let t = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(0), "{t}");
        // The prose; a whole description after it is shown as it is.
        let t = t.split("\nA whole ").next().unwrap().to_string();
        assert!(!t.contains('`') && !t.contains("*warning*"), "{code}:\n{t}");
        assert!(!t.contains("](") && !t.contains("**"), "{code}:\n{t}");
        for (i, _) in t.match_indices("docs/").chain(t.match_indices("tests/")) {
            assert!(
                i > 0 && t[..i].ends_with('/'),
                "{code}: a path relative to the source tree:\n{t}"
            );
        }
        for line in t.lines() {
            assert!(
                line.chars().count() <= 80 || !line.contains(' '),
                "{code}: {line:?}"
            );
        }
    }
    let out = ssc().args(["explain", "E140"]).output().unwrap();
    let t = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        t.starts_with("E140, a warning (Scheduling decisions"),
        "{t}"
    );
    assert!(t.contains("-ts fused N on a chain"), "{t}");
    let fused = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/fused.md");
    assert!(t.contains(&fused.display().to_string()), "{t}");
    let list = ssc().args(["explain", "--list"]).output().unwrap();
    let l = String::from_utf8_lossy(&list.stdout).into_owned();
    assert_eq!(list.status.code(), Some(0));
    assert!(l.lines().any(|x| x.starts_with("E140  warning: ")), "{l}");
    assert!(
        l.lines()
            .all(|x| x.starts_with('E') && x.chars().count() <= 80),
        "{l}"
    );
    let none = ssc().args(["explain"]).output().unwrap();
    assert_eq!(none.status.code(), Some(2));
}

/// Every example that cites a bad input of the tests shows that input
/// whole instead of its name, and the input shown gives the code:
/// `ssc check` (or `ssc ptts`) on exactly the text printed reports it.
#[test]
fn explain_shows_whole_inputs_not_the_names_of_tests() {
    let list = ssc().args(["explain", "--list"]).output().unwrap();
    let codes: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    let stems: Vec<String> = std::fs::read_dir("tests/bad")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ssc"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|s| s.contains('_'))
        .collect();
    let dir = scratch("explain-inputs");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut shown = Vec::new();
    for code in &codes {
        let out = ssc().args(["explain", code]).output().unwrap();
        let t = String::from_utf8_lossy(&out.stdout).into_owned();
        assert_eq!(out.status.code(), Some(0), "{code}: {t}");
        let (prose, input) = match t.split_once("\nA whole ") {
            Some((prose, rest)) => (prose, Some(rest)),
            None => (t.as_str(), None),
        };
        for stem in &stems {
            assert!(!prose.contains(stem.as_str()), "{code} names {stem}:\n{t}");
        }
        assert!(!prose.contains("tests/it/"), "{code} names a test:\n{t}");
        let Some(input) = input else { continue };
        let (header, body) = input.split_once("\n\n").unwrap();
        let body = body
            .strip_suffix("\n\nEvery code, one line each: ssc explain --list\n")
            .unwrap_or_else(|| panic!("{code}: {t}"));
        let text: String = body
            .lines()
            .map(|l| format!("{}\n", l.strip_prefix("    ").unwrap_or(l)))
            .collect();
        let ptts = header.starts_with(".ptts");
        let file = dir.join(format!("{code}.{}", if ptts { "ptts" } else { "ssc" }));
        std::fs::write(&file, &text).unwrap();
        // Its header names the options of the check (`-D NAME=VALUE`).
        let options: Vec<&str> = header
            .split_once("FILE")
            .map_or("", |(_, o)| o.trim_end_matches("):"))
            .split_whitespace()
            .collect();
        let out = ssc()
            .args([if ptts { "ptts" } else { "check" }])
            .arg(&file)
            .args(&options)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("[{code}]")),
            "{code}: {}:\n{err}",
            file.display()
        );
        assert!(!err.contains("panicked"), "{code}: {err}");
        shown.push(code.clone());
    }
    // The codes with a bad input of their own, at least.
    for code in ["E001", "E005", "E037", "E047", "E056", "E211", "E414"] {
        assert!(
            shown.iter().any(|c| c == code),
            "{code} shows no input: {shown:?}"
        );
    }
    assert!(shown.len() >= 50, "{shown:?}");
}

#[test]
fn message_format_json_gives_one_object_a_line() {
    let (code, err) = check_text(
        "json.ssc",
        &std::fs::read_to_string("tests/bad/port_typo.ssc").unwrap(),
        &["--message-format", "json"],
    );
    assert_eq!(code, Some(1), "{err}");
    let lines: Vec<serde_json::Value> = err
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert_eq!(lines[0]["code"], "E005");
    assert_eq!(lines[1]["hint"], "did you mean `out`?");
    assert!(lines[0]["file"].as_str().unwrap().ends_with("json.ssc"));
}

#[test]
fn colour_on_request_and_never_by_default_off_a_terminal() {
    let bad = std::fs::read_to_string("tests/bad/port_typo.ssc").unwrap();
    let (_, plain) = check_text("c1.ssc", &bad, &[]);
    assert!(!plain.contains('\x1b'), "{plain}");
    let (_, coloured) = check_text("c2.ssc", &bad, &["--color", "always"]);
    assert!(coloured.contains("\x1b[1;31merror[E005]"), "{coloured}");
    let (_, never) = check_text("c3.ssc", &bad, &["--color", "never"]);
    assert_eq!(never.replace("c3.ssc", "c1.ssc"), plain);
}

/// On a terminal (util-linux `script` gives ssc one) diagnostics are
/// coloured unless NO_COLOR is set.
#[test]
fn colour_on_a_terminal_honours_no_color() {
    if Command::new("script").arg("--version").output().is_err() {
        support::skip(
            "colour_on_a_terminal_honours_no_color",
            "no util-linux `script` to run ssc on a terminal",
        );
        return;
    }
    let path = scratch("tty.ssc");
    std::fs::copy("tests/bad/port_typo.ssc", &path).unwrap();
    let cmd = format!("{} check {}", env!("CARGO_BIN_EXE_ssc"), path.display());
    let on_tty = |no_color: Option<&str>| {
        let mut c = Command::new("script");
        c.args(["-qec", &cmd, "/dev/null"]).env_remove("NO_COLOR");
        if let Some(v) = no_color {
            c.env("NO_COLOR", v);
        }
        text(&c.output().unwrap())
    };
    let coloured = on_tty(None);
    assert!(coloured.contains("\x1b[1;31merror[E005]"), "{coloured}");
    let plain = on_tty(Some("1"));
    assert!(
        plain.contains("error[E005]") && !plain.contains('\x1b'),
        "{plain}"
    );
}

#[test]
fn build_ends_with_a_summary_line() {
    // The cost model finds too little work in this 64×48 chain for a
    // second thread (E500 drops it), and the line says so.
    let dir = scratch("summary");
    let out = ssc()
        .args(["build", "tests/in/chain.ssc", "-ts", "reduced", "2", "-od"])
        .arg(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let line = err.lines().last().unwrap_or("");
    assert_eq!(
        line,
        format!(
            "built {}: 3 functions, 4 sub-boxes on 1 thread (-ts reduced 2); 6144 bytes of buffers (lower bound 6144); proven deadlock- and race-free",
            dir.join("chain").display()
        ),
        "{err}"
    );
}

/// `-o` into a folder that does not exist yet makes it, and each `-o`
/// (without `-od`) has a C folder of its own, `build/NAME/FILE-HASH/`:
/// two builds of one description keep both programs' C, and both run.
#[test]
fn each_dash_o_makes_its_folder_and_keeps_a_c_folder_of_its_own() {
    let dir = scratch("dash-o");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let chain = support::root("tests/in/chain.ssc");
    let build = |exe: &str, more: &[&str]| {
        let out = ssc()
            .arg("build")
            .arg(&chain)
            .args(["-o", exe])
            .args(more)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "-o {exe}: {}", text(&out));
    };
    assert!(!dir.join("bin").exists());
    build("bin/a", &[]);
    build("bin/b", &["-ts", "fixed", "1"]);
    // Two folders under build/chain/, named after the executables.
    let folders: Vec<String> = std::fs::read_dir(dir.join("build/chain"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(folders.len(), 2, "{folders:?}");
    let c_of = |exe: &str| {
        let folder = folders
            .iter()
            .find(|f| f.starts_with(&format!("{exe}-")))
            .unwrap_or_else(|| panic!("no C folder for {exe}: {folders:?}"));
        assert_eq!(folder.len(), exe.len() + 9, "{folder}: not FILE-HASH");
        std::fs::read_to_string(dir.join("build/chain").join(folder).join("chain.c")).unwrap()
    };
    assert!(c_of("a").contains("Options: build"), "{}", c_of("a"));
    assert!(c_of("a").contains("-o bin/a\n"), "{}", c_of("a"));
    assert!(
        c_of("b").contains("-o bin/b -ts fixed 1\n"),
        "{}",
        c_of("b")
    );
    // Both executables run, with the same checksum.
    let checksum = |exe: &str| {
        let out = Command::new(dir.join(exe))
            .args(["--iterations", "3"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{exe}: {}", text(&out));
        let t = text(&out);
        t.lines()
            .find(|l| l.starts_with("checksum: "))
            .unwrap_or_else(|| panic!("{exe}: no checksum: {t}"))
            .to_string()
    };
    assert_eq!(checksum("bin/a"), checksum("bin/b"));
    // The same file name elsewhere: a third folder.
    build("other/a", &[]);
    assert_eq!(
        std::fs::read_dir(dir.join("build/chain")).unwrap().count(),
        3
    );
    // A folder that cannot be made (a file in its way): exit 3, said.
    std::fs::write(dir.join("file"), "").unwrap();
    let out = ssc()
        .arg("build")
        .arg(&chain)
        .args(["-o", "file/prog"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(3), "{t}");
    assert!(t.contains("cannot write") && t.contains("file`"), "{t}");
    assert!(!t.contains("panicked"), "{t}");
}

#[test]
fn build_shows_its_stages_on_a_terminal_only() {
    if Command::new("script").arg("--version").output().is_err() {
        support::skip(
            "build_shows_its_stages_on_a_terminal_only",
            "no util-linux `script` to run ssc on a terminal",
        );
        return;
    }
    let dir = scratch("progress");
    let cmd = format!(
        "{} build tests/in/chain.ssc -od {}",
        env!("CARGO_BIN_EXE_ssc"),
        dir.display()
    );
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .unwrap();
    let t = text(&out);
    assert!(t.contains("chain: compiling the C (chain.c)"), "{t}");
    assert!(t.contains("built "), "{t}");
    // Not on a pipe.
    let out = ssc()
        .args(["build", "tests/in/chain.ssc", "-od"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!text(&out).contains("compiling the C"), "{}", text(&out));
}

#[test]
fn completions_and_man_pages_come_from_the_clap_definitions() {
    let out = ssc().args(["completions", "bash"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let script = String::from_utf8_lossy(&out.stdout);
    for word in [
        "build",
        "check",
        "explain",
        "--threadschedule",
        "--message-format",
    ] {
        assert!(script.contains(word), "bash completion lacks {word}");
    }
    // bash accepts it and registers ssc.
    let path = scratch("ssc.bash");
    std::fs::write(&path, script.as_bytes()).unwrap();
    let out = Command::new("bash")
        .args([
            "-c",
            &format!("source {} && complete -p ssc", path.display()),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success() && text(&out).contains("ssc"),
        "{}",
        text(&out)
    );
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = ssc().args(["completions", shell]).output().unwrap();
        assert!(out.status.success() && !out.stdout.is_empty(), "{shell}");
    }
    assert_eq!(
        ssc()
            .args(["completions", "tcsh"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );

    let out = ssc().arg("man").output().unwrap();
    let page = String::from_utf8_lossy(&out.stdout);
    assert!(page.contains(".TH ssc 1"), "{page}");
    assert!(
        page.contains("build") && page.contains("throttle"),
        "{page}"
    );
    let dir = scratch("man");
    let out = ssc().args(["man", "--out"]).arg(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let build = std::fs::read_to_string(dir.join("ssc-build.1")).unwrap();
    assert!(build.contains("memoryschedule"), "{build}");
    assert!(dir.join("ssc-ptts.1").exists());
    assert_quiet_on_closed_pipe(&["completions", "zsh"]);
}

#[test]
fn gg_exports_either_hsdfg_and_its_help_says_which() {
    let read = |extra: &[&str], tag: &str| {
        let path = scratch(&format!("{tag}.gst"));
        let out = ssc()
            .args(["build", "examples/appendix.ssc", "-t", "info", "-gg"])
            .arg(&path)
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let gxl = std::fs::read_to_string(&path).unwrap();
        // Well-formed XML.
        let check = Command::new("python3")
            .args([
                "-c",
                "import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])",
            ])
            .arg(&path)
            .status();
        if let Ok(status) = check {
            assert!(status.success(), "{tag}: not XML");
        }
        gxl
    };
    let default = read(&[], "default");
    assert_eq!(default, read(&["--gg-graph", "instantiation"], "inst"));
    let value = |s: &str| format!("string:&quot;{s}&quot;");
    assert!(default.contains(&value("dependency")), "{default}");
    assert!(!default.contains(&value("signal")));
    let runtime = read(&["--gg-graph", "runtime"], "runtime");
    // Appendix A's programs: 8 signals, each a channel of kind signal.
    assert_eq!(runtime.matches(&value("signal")).count(), 8, "{runtime}");
    assert!(runtime.contains(&value("order")), "{runtime}");
    let out = ssc()
        .args(["build", "examples/appendix.ssc", "--gg-graph", "runtime"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let help = text(&ssc().args(["build", "--help"]).output().unwrap());
    let gg = help.lines().find(|l| l.contains("[-gg]")).unwrap_or("");
    assert!(gg.contains("instantiation HSDFG"), "{gg}");
}

/// `ssc check` on a chain binding `func_cnov` fails as `ssc build` does,
/// not with warning E036 and "ok". An unknown function is
/// an error of `check` (E038) unless `--kernels` says it is the user's or
/// the description defines it.
#[test]
fn check_refuses_an_unknown_function_unless_the_user_says_it_is_theirs() {
    let desc = "composition {\n  container_declaration s { out OUT int mul [1, 1]; };\n  container_declaration c { in IN int mul [1, 1] [3, 3]; out OUT int mul [1, 1]; };\n  container_declaration k { in IN int mul [1, 1]; };\n  container_declaration app { };\n  container_bind s func_source NONE, c func_cnov FULL, k func_sink NONE;\n  container_composition app { container x s index, y c index, z k index; x.out -> y.in; y.out -> z.in; };\n  compose app [16, 16];\n}\n";
    let (code, err) = check_text("cnov.ssc", desc, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("error[E038]"), "{err}");
    assert!(err.contains("did you mean `func_conv`?"), "{err}");
    assert!(err.contains("cnov.ssc:6:"), "labelled at the bind: {err}");
    assert!(err.contains("--kernels"), "the hint says how: {err}");
    assert!(!err.contains("E036"), "reported once, as an error: {err}");
    // The same with a --kernels file that defines it: the user's kernel.
    let kernels = scratch("cnov_kernel.c");
    std::fs::write(
        &kernels,
        "#include \"ssc_rt.h\"\nvoid func_cnov(const ssc_call *call)\n{\n    (void)call;\n}\n",
    )
    .unwrap();
    let path = scratch("cnov_ok.ssc");
    std::fs::write(&path, desc).unwrap();
    let out = ssc()
        .args(["check"])
        .arg(&path)
        .arg("--kernels")
        .arg(&kernels)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(": ok"));
    // ssc build fails the same way, before anything is compiled.
    let out = ssc()
        .args(["build"])
        .arg(&path)
        .arg("-od")
        .arg(scratch("cnov_build"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("error[E038]"), "{}", text(&out));
    // Functions defined in the description are known; so is a kernel of
    // examples/kernels given with --kernels.
    let out = ssc()
        .args(["check", "examples/fluoro.ssc"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = ssc()
        .args([
            "check",
            "examples/user_kernel.ssc",
            "--kernels",
            "examples/kernels/invert.c",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = ssc()
        .args(["check", "examples/user_kernel.ssc"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("unknown function `func_invert`"),
        "{}",
        text(&out)
    );
}
