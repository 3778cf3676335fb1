//! `--sched-deadline` (runtime-c/README.md, "SCHED_DEADLINE"): every
//! thread of the program runs under SCHED_DEADLINE (`/proc/PID/task/*/
//! sched` says policy 6 while it runs), with the runtime its sub-boxes'
//! predicted times give, deadline and period the `--period-us`; the
//! report lists each thread's reservation and overruns, and the checksum
//! is the one without it. A reservation the kernel refuses (a runtime
//! longer than the period) names the thread, the parameters and the
//! reason and exits 3 before the first iteration, or runs the thread
//! SCHED_FIFO under `--sched-fallback fifo`. The options' errors exit 2.
//! The library's `sched_deadline_us` (Python) does the same for its
//! threads. SCHED_DEADLINE needs root (or CAP_SYS_NICE): without it the test says
//! so and skips, except under CI and `./test`, which run as root.

use crate::support::*;

use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The X-ray chain at 128², `-ts fused 2`, built into `dir`.
fn program(dir: &std::path::Path) -> std::path::PathBuf {
    run_ok(
        Command::new(SSC)
            .args(["build", "examples/xray.ssc", "-ts", "fused", "2"])
            .args(["-D", "W=128", "-D", "H=128", "-o"])
            .arg(dir.join("xray"))
            .current_dir(ROOT),
    );
    dir.join("xray")
}

/// Whether this process is root; else says that `test` skips (a failure
/// under CI and `./test`, which run as root).
fn as_root(test: &str) -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        skip(test, "SCHED_DEADLINE needs root or CAP_SYS_NICE");
    }
    root
}

fn run(exe: &std::path::Path, args: &[&str]) -> Output {
    Command::new(exe).args(args).output().unwrap()
}

#[test]
fn the_deadline_options_errors_exit_2() {
    let exe = program(&scratch("sched-deadline-usage"));
    for (args, says) in [
        (&["--sched-deadline"][..], "give --period-us"),
        (
            &["--sched-deadline", "--period-us", "2000", "--fifo", "10"][..],
            "two policies",
        ),
        (&["--sched-fallback", "fifo"][..], "give --sched-deadline"),
        (
            &[
                "--sched-deadline",
                "--period-us",
                "2000",
                "--sched-fallback",
                "rr",
            ][..],
            "expects fifo",
        ),
        (
            &[
                "--sched-deadline",
                "--period-us",
                "2000",
                "--deadline-margin",
                "-1",
            ][..],
            "0 to 100",
        ),
    ] {
        let o = run(&exe, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(says), "{args:?}: {}", text(&o));
    }
}

#[test]
fn every_thread_runs_under_sched_deadline_with_its_reservation() {
    if !as_root("every_thread_runs_under_sched_deadline_with_its_reservation") {
        return;
    }
    let exe = program(&scratch("sched-deadline"));
    let sum = |o: &Output| {
        text(o)
            .lines()
            .find(|l| l.starts_with("checksum: "))
            .map(str::to_string)
    };
    let plain = run(&exe, &["--iterations", "40", "--period-us", "2000"]);
    let dl = run(
        &exe,
        &[
            "--iterations",
            "40",
            "--period-us",
            "2000",
            "--sched-deadline",
        ],
    );
    let said = text(&dl);
    assert!(plain.status.success() && dl.status.success(), "{said}");
    assert_eq!(sum(&dl), sum(&plain), "{said}");
    for t in 0..2 {
        assert!(
            said.contains(&format!("thread {t}: SCHED_DEADLINE runtime "))
                && said.contains("deadline 2000.000 us, period 2000.000 us, "),
            "{said}"
        );
    }
    let j = run(
        &exe,
        &[
            "--iterations",
            "20",
            "--period-us",
            "2000",
            "--sched-deadline",
            "--json",
        ],
    );
    let v: serde_json::Value =
        serde_json::from_slice(&j.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&j)));
    let threads = v["sched_deadline"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(threads.len(), 2, "{v}");
    for t in threads {
        let runtime = t["runtime_us"].as_f64().unwrap();
        assert!(
            t["policy"] == "deadline" && runtime > 0.0 && runtime <= 2000.0,
            "{v}"
        );
        assert_eq!(t["period_us"], 2000.0, "{v}");
        assert!(t["overruns"].as_u64().is_some(), "{v}");
    }
    let policies = policies_while_running(&exe);
    assert_eq!(
        policies.iter().filter(|p| *p == "6").count(),
        2,
        "main and two deadline threads: {policies:?}"
    );
}

/// The policy of each task of `exe --forever --sched-deadline` while it
/// runs, as /proc/PID/task/*/sched says; then the run is stopped.
fn policies_while_running(exe: &std::path::Path) -> Vec<String> {
    let child = Command::new(exe)
        .args(["--forever", "--period-us", "2000", "--sched-deadline"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let tasks = std::fs::read_dir(format!("/proc/{}/task", child.id())).unwrap();
    let policies: Vec<String> = tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("sched")).ok())
        .filter_map(|s| {
            s.lines()
                .find(|l| l.starts_with("policy"))
                .and_then(|l| l.split(':').nth(1))
                .map(|p| p.trim().to_string())
        })
        .collect();
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    policies
}

#[test]
fn a_refused_reservation_exits_3_or_falls_back_to_fifo() {
    if !as_root("a_refused_reservation_exits_3_or_falls_back_to_fifo") {
        return;
    }
    let exe = program(&scratch("sched-deadline-refused"));
    // A runtime longer than a 50 µs period.
    let refused = run(
        &exe,
        &["--iterations", "5", "--period-us", "50", "--sched-deadline"],
    );
    let said = text(&refused);
    assert_eq!(refused.status.code(), Some(3), "{said}");
    assert!(
        said.contains("thread 0: SCHED_DEADLINE with runtime ")
            && said.contains("deadline 50000 ns, period 50000 ns refused: EINVAL")
            && !said.contains("checksum"),
        "{said}"
    );
    let fallback = run(
        &exe,
        &[
            "--iterations",
            "5",
            "--period-us",
            "50",
            "--sched-deadline",
            "--sched-fallback",
            "fifo",
        ],
    );
    let said = text(&fallback);
    assert!(fallback.status.success(), "{said}");
    assert!(
        said.contains("thread 1: SCHED_FIFO 50 (SCHED_DEADLINE refused: EINVAL"),
        "{said}"
    );
}

/// The library's `sched_deadline_us` from Python: policy 6 on its two
/// threads, the checksum of an ordinary instance, a refusal as Error, and
/// the fallback.
#[test]
fn the_library_reserves_each_thread_from_python() {
    if !as_root("the_library_reserves_each_thread_from_python") {
        return;
    }
    let dir = scratch("sched-deadline-library");
    let Some(python) = python_with_numpy("the_library_reserves_each_thread_from_python") else {
        return;
    };
    let lib = dir.join("lib");
    run_ok(
        Command::new(SSC)
            .args([
                "build",
                "examples/xray.ssc",
                "-ts",
                "fused",
                "2",
                "-D",
                "W=128",
                "-D",
                "H=128",
            ])
            .args(["-t", "library", "-od"])
            .arg(&lib)
            .current_dir(ROOT),
    );
    let script = r#"
import os, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import xray
x = {n: np.ones(s, d) for n, d, s in xray.INPUTS}
def policies():
    return sorted(open(f"/proc/self/task/{t}/sched").read().split("policy")[1].split()[1]
                  for t in os.listdir("/proc/self/task"))
with xray.open(sched_deadline_us=2000) as c:
    for _ in range(5):
        c.run(**x)
    assert policies().count("6") == 2, policies()
    reserved = c.checksum()
with xray.open() as c:
    for _ in range(5):
        c.run(**x)
    assert c.checksum() == reserved
try:
    xray.open(sched_deadline_us=10)
    raise SystemExit("a runtime over the period was taken")
except xray.Error as e:
    assert "SCHED_DEADLINE" in str(e) and "period 10000 ns refused: EINVAL" in str(e), e
with xray.open(sched_deadline_us=10, sched_fallback="fifo") as c:
    c.run(**x)
print("ok")
"#;
    let out = Command::new(python)
        .args(["-c", script])
        .arg(&lib)
        .output()
        .unwrap();
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).ends_with("ok\n"),
        "{}",
        text(&out)
    );
}
