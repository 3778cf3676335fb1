//! The generated program's statistics stream and it can run until
//! stopped: its memory does not grow with the iterations (exact count,
//! mean, σ, min and max; percentiles from a log-linear histogram within
//! 1/128 of the exact value; per-iteration records only for a dump, and
//! only its first `--dump-iterations`), and `--forever` runs until
//! SIGINT/SIGTERM, then reports the iterations that ran and exits 0 — run
//! directly, through `ssc run`, and by a ^C on a terminal.
//! runtime-c/README.md, "Timers, report and dumps" and "Stopping".

use crate::support;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::*;

/// How long a stopped program runs after it has started its threads.
const RUN_FOR: Duration = Duration::from_millis(500);

/// `tests/in/chain.ssc` (one thread, a few µs an iteration), built once.
fn chain() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let dir = scratch("streaming-chain");
        build(gcc(), &Case::new(root("tests/in/chain.ssc"), ""), &dir)
            .unwrap_or_else(|e| panic!("{e}"))
    })
}

/// The number after `key` in the report line that starts with `prefix`.
fn field(report: &str, prefix: &str, key: &str) -> Option<u64> {
    let line = report.lines().find(|l| l.starts_with(prefix))?;
    let rest = &line[line.find(key)? + key.len()..];
    rest.split_whitespace().next()?.parse().ok()
}

/// `iterations: N (--forever, stopped by signal)` → N.
fn forever_iterations(report: &str) -> Option<u64> {
    report.lines().find_map(|l| {
        l.strip_prefix("iterations: ")?
            .strip_suffix(" (--forever, stopped by signal)")?
            .parse()
            .ok()
    })
}

// ---- (a) percentiles within the documented bound --------------------------------

#[derive(Debug, PartialEq)]
struct Summary {
    count: u64,
    mean: f64,
    stddev: f64,
    min: u64,
    p: [u64; 3],
    max: u64,
}

fn parse_summary(words: &[&str]) -> Summary {
    let u = |i: usize| words[i].parse::<u64>().unwrap();
    let f = |i: usize| words[i].parse::<f64>().unwrap();
    Summary {
        count: u(0),
        mean: f(1),
        stddev: f(2),
        min: u(3),
        p: [u(4), u(5), u(6)],
        max: u(7),
    }
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()) + 1e-9
}

#[test]
fn histogram_percentiles_are_within_1_128_of_the_exact_ones() {
    let dir = scratch("streaming-percentiles");
    let exe = dir.join("percentiles");
    run_ok(
        Command::new("cc")
            .args([
                "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread", "-I",
            ])
            .arg(root("runtime-c"))
            .arg(root("tests/stats/percentiles.c"))
            .arg(root("runtime-c/ssc_stats.c"))
            .arg("-o")
            .arg(&exe),
    );
    let out = run_ok(&mut Command::new(&exe));
    let text = String::from_utf8(out.stdout).unwrap();

    let mut sets = std::collections::BTreeMap::<String, Vec<(String, Summary)>>::new();
    let mut bytes = None;
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w[0] == "bytes" {
            bytes = w[1].parse::<usize>().ok();
            continue;
        }
        sets.entry(w[0].to_string())
            .or_default()
            .push((w[1].to_string(), parse_summary(&w[2..])));
    }
    assert_eq!(sets.len(), 7, "{text}");
    // Memory of the statistics: fixed, whatever the count.
    assert!(bytes.is_some_and(|b| b <= 32 * 1024), "{text}");

    let mut checked = 0;
    for (set, kinds) in &sets {
        let exact = &kinds.iter().find(|(k, _)| k == "exact").unwrap().1;
        let stream = &kinds.iter().find(|(k, _)| k == "stream").unwrap().1;
        for (kind, s) in kinds.iter().filter(|(k, _)| k != "exact") {
            let what = format!("{set} ({kind}): {s:?}, exactly {exact:?}");
            assert_eq!(s.count, exact.count, "{what}");
            assert_eq!((s.min, s.max), (exact.min, exact.max), "{what}");
            assert!(close(s.mean, exact.mean, 1e-12), "mean of {what}");
            assert!(close(s.stddev, exact.stddev, 1e-9), "σ of {what}");
            for (name, (&got, &want)) in
                ["p50", "p99", "p99.9"].iter().zip(s.p.iter().zip(&exact.p))
            {
                // The bound of ssc_rt.h: exact below 128 ns, else within 1/128.
                let err = (got as i128 - want as i128).unsigned_abs();
                assert!(
                    if want < 128 {
                        err == 0
                    } else {
                        128 * err <= want as u128
                    },
                    "{name} of {what}: {got} is {err} from {want}"
                );
                checked += 1;
            }
            // Merging the threads' statistics loses nothing of the histogram.
            assert_eq!(s.p, stream.p, "{what}");
        }
    }
    assert_eq!(checked, 7 * 2 * 3);
}

// ---- (b) memory does not grow with the iterations -------------------------------

/// Runs `exe args…` to the end; (its maximum resident set in KiB, stdout,
/// stderr). The child's own rusage, from wait4.
#[allow(clippy::zombie_processes)] // reaped by wait4, which gives its rusage
fn max_rss(exe: &Path, args: &[&str], dir: &Path) -> (i64, String, String) {
    let _s = slot();
    let (out_path, err_path) = (dir.join("stdout.txt"), dir.join("stderr.txt"));
    let child = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let t0 = Instant::now();
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    loop {
        // SAFETY: our own child, reaped here and nowhere else.
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
        if r == pid {
            break;
        }
        assert!(r == 0, "wait4: {}", std::io::Error::last_os_error());
        assert!(
            t0.elapsed() < RUN_DEADLINE,
            "{} {args:?} never ended",
            exe.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (stdout, stderr) = (
        std::fs::read_to_string(out_path).unwrap(),
        std::fs::read_to_string(err_path).unwrap(),
    );
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{} {args:?}: status {status}\n{stdout}{stderr}",
        exe.display()
    );
    (usage.ru_maxrss, stdout, stderr)
}

#[test]
fn memory_does_not_grow_with_the_iterations() {
    let exe = chain();
    let dir = scratch("streaming-memory");
    let (small, out, _) = max_rss(exe, &["--iterations", "20000"], &dir);
    assert_eq!(field(&out, "latency (us)", "count "), Some(20_000), "{out}");
    let (large, out, _) = max_rss(exe, &["--iterations", "600000"], &dir);
    assert_eq!(
        field(&out, "latency (us)", "count "),
        Some(600_000),
        "{out}"
    );
    // Keeping every latency took 16 bytes an iteration (and as much again
    // to sort them): 580 000 more iterations would be 9 MB or more, over
    // twice the slack.
    let slack = 4 * 1024;
    eprintln!("max RSS: {small} KiB for 20 000 iterations, {large} KiB for 600 000");
    assert!(
        large <= small + slack,
        "20 000 iterations: {small} KiB, 600 000: {large} KiB"
    );

    // A dump keeps only its first --dump-iterations, and says so.
    let csv = dir.join("dump.csv");
    let (dumped, out, err) = max_rss(
        exe,
        &[
            "--iterations",
            "600000",
            "--dump",
            &csv.to_string_lossy(),
            "--dump-iterations",
            "1000",
        ],
        &dir,
    );
    assert_eq!(
        field(&out, "latency (us)", "count "),
        Some(600_000),
        "{out}"
    );
    assert!(dumped <= small + slack, "with a dump: {dumped} KiB");
    let rows = std::fs::read_to_string(&csv)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("latency,"))
        .count();
    assert_eq!(rows, 1000);
    assert!(
        err.contains("holds the first 1000 of 600000 iterations (--dump-iterations N for more)"),
        "{err}"
    );
}

// ---- (c) run until stopped ------------------------------------------------------

#[test]
fn forever_runs_until_sigint_then_reports_and_exits_0() {
    let exe = chain();
    let dir = scratch("streaming-forever");
    let ran = run_until_sigint(exe, &["--forever"], &dir, RUN_FOR);
    assert_eq!(ran.status.code(), Some(0), "{}{}", ran.stdout, ran.stderr);
    let n = forever_iterations(&ran.stdout).unwrap_or_else(|| panic!("{}", ran.stdout));
    assert!(n > 0, "{}", ran.stdout);
    assert_eq!(field(&ran.stdout, "latency (us)", "count "), Some(n));
    assert!(ran.checksum().is_some(), "{}", ran.stdout);

    // The same as JSON: no count was asked for.
    let ran = run_until_sigint(exe, &["--forever", "--json"], &dir, RUN_FOR);
    assert_eq!(ran.status.code(), Some(0), "{}", ran.stderr);
    let report: serde_json::Value = serde_json::from_str(ran.stdout.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", ran.stdout));
    assert_eq!(report["requested"], serde_json::Value::Null, "{report}");
    assert_eq!(report["stopped_by_signal"], true, "{report}");
    let n = report["iterations"].as_u64().unwrap();
    assert!(n > 0 && report["latency_us"]["count"] == n, "{report}");

    // Periodic: released every 1 ms until the signal.
    let ran = run_until_sigint(exe, &["--forever", "--period-us", "1000"], &dir, RUN_FOR);
    assert_eq!(ran.status.code(), Some(0), "{}", ran.stderr);
    assert!(
        forever_iterations(&ran.stdout).is_some_and(|n| n > 0),
        "{}",
        ran.stdout
    );

    // SIGTERM too.
    let ran = run_until_signal(exe, &["--forever"], &dir, RUN_FOR, libc::SIGTERM);
    assert_eq!(ran.status.code(), Some(0), "{}", ran.stderr);
    assert!(forever_iterations(&ran.stdout).is_some(), "{}", ran.stdout);
}

#[test]
fn forever_on_two_threads_stops_at_an_iteration_both_agree_on() {
    // Appendix A as written by hand: two threads, signals between them; the
    // slots of the latency window are reused many times over.
    let dir = scratch("streaming-forever-appendix");
    let exe = build(gcc(), &Case::new(root("examples/appendix.ssc"), ""), &dir)
        .unwrap_or_else(|e| panic!("{e}"));
    let ran = run_until_sigint(&exe, &["--forever"], &dir, RUN_FOR);
    assert_eq!(ran.status.code(), Some(0), "{}{}", ran.stdout, ran.stderr);
    assert_eq!(ran.threads(), Some(2), "{}", ran.stdout);
    let n = forever_iterations(&ran.stdout).unwrap_or_else(|| panic!("{}", ran.stdout));
    assert!(n > 0);
    assert_eq!(field(&ran.stdout, "latency (us)", "count "), Some(n));
    // Exactly N whole iterations ran: the checksum of a run of N.
    let again = run_in(
        &[],
        &exe,
        &["--iterations", &n.to_string()],
        &[],
        &dir,
        RUN_DEADLINE,
    )
    .unwrap();
    assert!(again.status.success(), "{}", again.stderr);
    assert_eq!(
        ran.checksum(),
        again.checksum(),
        "{}{}",
        ran.stdout,
        again.stdout
    );
}

/// The process whose executable is `exe`, among `candidates`.
fn running(exe: &Path, candidates: impl IntoIterator<Item = i32>) -> Option<u32> {
    candidates
        .into_iter()
        .find(|p| std::fs::read_link(format!("/proc/{p}/exe")).is_ok_and(|e| e == exe))
        .map(|p| p as u32)
}

/// The children of `pid` (Linux: /proc/PID/task/PID/children).
fn children(pid: u32) -> Vec<i32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// Every process.
fn all_pids() -> Vec<i32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect()
}

/// Waits until the program `exe` runs (found by `find`) and has started
/// its threads, then lets it run a while.
fn wait_for_program(exe: &Path, find: impl Fn() -> Vec<i32>) -> u32 {
    let t0 = Instant::now();
    loop {
        if let Some(p) = running(exe, find()).filter(|&p| has_threads(p)) {
            std::thread::sleep(RUN_FOR);
            return p;
        }
        assert!(t0.elapsed() < RUN_DEADLINE, "the program never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn forever_under_ssc_run_stops_on_sigint_to_ssc() {
    let dir = scratch("streaming-run");
    let _s = slot();
    let child = Command::new(SSC)
        .args(["run", "tests/in/chain.ssc", "-od"])
        .arg(&dir)
        .args(["--", "--forever"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let ssc_pid = child.id();
    wait_for_program(&dir.join("chain"), || children(ssc_pid));
    // SAFETY: a signal to our own child, ssc, alone (not its group).
    unsafe { libc::kill(ssc_pid as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        forever_iterations(&stdout).is_some_and(|n| n > 0),
        "{stdout}"
    );
}

/// A ^C typed on the terminal reaches ssc and the program together (one
/// process group); ssc must not send it again, or the program's second
/// SIGINT would end it without its report. util-linux `script` gives ssc a
/// terminal; the ^C is typed into it.
#[test]
fn a_ctrl_c_on_the_terminal_stops_ssc_run_forever_with_its_report() {
    if Command::new("script").arg("--version").output().is_err() {
        support::skip(
            "a_ctrl_c_on_the_terminal_stops_ssc_run_forever_with_its_report",
            "no util-linux `script` to run ssc on a terminal",
        );
        return;
    }
    let dir = scratch("streaming-tty");
    let exe = dir.join("chain");
    let _s = slot();
    let cmd = format!(
        "exec {SSC} run {} -od {} -- --forever",
        root("tests/in/chain.ssc").display(),
        dir.display()
    );
    let mut script = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // What the terminal shows, read as it comes (the build's spinner too).
    let mut screen = script.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut all = Vec::new();
        let _ = std::io::Read::read_to_end(&mut screen, &mut all);
        all
    });
    wait_for_program(&exe, all_pids);
    let mut tty = script.stdin.take().unwrap();
    tty.write_all(b"\x03").unwrap();
    tty.flush().unwrap();
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = script.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > RUN_DEADLINE {
            let _ = script.kill();
            panic!("ssc run did not stop on ^C");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(tty);
    let text = String::from_utf8_lossy(&reader.join().unwrap()).replace('\r', "");
    assert_eq!(status.code(), Some(0), "{text}");
    let n = forever_iterations(&text).unwrap_or_else(|| panic!("no report: {text}"));
    assert!(n > 0, "{text}");
    assert_eq!(field(&text, "latency (us)", "count "), Some(n), "{text}");
}
