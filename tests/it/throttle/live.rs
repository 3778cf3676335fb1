//! `ssc throttle`'s live monitor on real child processes (busy loops)
//! with the replay sensor: SIGSTOP/SIGCONT, the duty cycle, cgroup v2
//! freeze, the watchdog after SIGKILL, SIGTERM, a vanished task, the
//! no-sensor error, bad arguments, the log and the SVG, a live replay of a
//! late trace; and the bandwidth bench. Every live test is bounded
//! (< 10 s) and kills what it spawned.

use super::HOT;
use ssc_throttle::bench::{buffer, pass, Cell, Kind};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Live tests share the two CPUs of the machine: one at a time.
static LIVE: Mutex<()> = Mutex::new(());

fn live() -> std::sync::MutexGuard<'static, ()> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

fn ncpus() -> usize {
    ssc_throttle::cpu::online().len()
}

/// A busy loop pinned to `cpu`; killed on drop.
struct Hog(Child);

impl Hog {
    fn on(cpu: usize) -> Hog {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "while :; do :; done"]);
        // SAFETY: only sched_setaffinity between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu, &mut set);
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
                Ok(())
            });
        }
        Hog(cmd.spawn().unwrap())
    }
    fn pid(&self) -> i32 {
        self.0.id() as i32
    }
    /// Makes the hog SCHED_FIFO priority 1 (below the monitor's 50): it then
    /// runs whenever it is not suspended, and a SIGSTOP takes effect at
    /// once, whatever else loads the machine. False when not permitted.
    fn realtime(&self) -> bool {
        let p = libc::sched_param { sched_priority: 1 };
        // SAFETY: our own child; p is a valid sched_param.
        unsafe { libc::sched_setscheduler(self.pid(), libc::SCHED_FIFO, &p) == 0 }
    }
    fn state(&self) -> char {
        state(self.pid())
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        // SAFETY: continue then kill our own child.
        unsafe { libc::kill(self.pid(), libc::SIGCONT) };
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The state letter of /proc/PID/stat.
fn state(pid: i32) -> char {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    s.rfind(')')
        .and_then(|i| s[i + 1..].trim_start().chars().next())
        .unwrap_or('?')
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ssc-throttle-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn trace_file(name: &str, text: &str) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, text).unwrap();
    p
}

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

/// Samples `f` every ~0.5 ms while `child` runs (at most `limit`).
fn watch<T>(child: &mut Child, limit: Duration, mut f: impl FnMut() -> T) -> (Vec<T>, bool) {
    let t0 = Instant::now();
    let mut seen = Vec::new();
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            return (seen, true);
        }
        if t0.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return (seen, false);
        }
        seen.push(f());
        std::thread::sleep(Duration::from_micros(500));
    }
}

/// (CPU seconds, runnable seconds) of a process, from /proc/PID/schedstat.
fn runnable(pid: i32) -> (f64, f64) {
    let (r, w) = ssc_throttle::monitor::sched_seconds(pid).unwrap();
    (r, r + w)
}

/// CPU seconds (utime + stime) of a process, from /proc/PID/stat.
fn cpu_seconds(pid: i32) -> f64 {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let f: Vec<&str> = s[s.rfind(')').unwrap() + 2..].split(' ').collect();
    // Fields 14 and 15 of stat(5); f[0] is field 3 (the state).
    let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
    // SAFETY: sysconf has no preconditions.
    ticks / unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64
}

#[test]
fn signal_actuator_stops_and_continues_a_busy_process() {
    let _g = live();
    let cpu = ncpus() - 1;
    let hog = Hog::on(cpu);
    let trace = trace_file("sig.csv", &HOT.replace(",1,", &format!(",{cpu},")));
    let mut mon = ssc()
        .args(["throttle", "--sensor"])
        .arg(format!("replay:{}", trace.display()))
        .args([
            "--be-cores",
            &cpu.to_string(),
            "--be-pid",
            &hog.pid().to_string(),
        ])
        .args([
            "--threshold",
            "1G",
            "--interval-us",
            "1000",
            "--suspend-us",
            "100000",
        ])
        .args(["--duration", "1s"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (states, exited) = watch(&mut mon, Duration::from_secs(5), || hog.state());
    assert!(exited, "the monitor did not stop after --duration");
    assert_eq!(mon.wait().unwrap().code(), Some(0));
    assert!(states.contains(&'T'), "never stopped: {states:?}");
    assert!(states.contains(&'R'), "never ran: {states:?}");
    std::thread::sleep(Duration::from_millis(50));
    assert!(matches!(hog.state(), 'R' | 'S'), "left {}", hog.state());
}

/// The duty cycle: a core above the threshold is suspended for
/// `suspend/(interval+suspend)` of the time within 10 %, measured from the
/// children's CPU time (/proc/PID/stat utime + stime); a core below it
/// never is.
#[test]
fn a_hot_core_is_duty_cycled_and_a_cold_core_never_is() {
    // A measurement of time shares on a shared 2-core machine: up to three
    // tries, each a complete check.
    for attempt in 1..=3 {
        match std::panic::catch_unwind(duty_cycle_once) {
            Ok(()) => return,
            Err(_) if attempt < 3 => eprintln!("note: try {attempt} failed; trying again"),
            Err(e) => std::panic::resume_unwind(e),
        }
    }
}

fn duty_cycle_once() {
    let _g = live();
    if ncpus() < 2 {
        eprintln!("note: needs 2 CPUs; skipped");
        return;
    }
    let (hot, cold) = (Hog::on(1), Hog::on(0));
    let fifo = hot.realtime();
    let trace = trace_file("duty.csv", HOT);
    let log = tmp("duty.json");
    let (interval, suspend) = (10_000u64, 30_000u64);
    let t0 = Instant::now();
    let mut mon = ssc()
        .args(["throttle", "--sensor"])
        .arg(format!("replay:{}", trace.display()))
        .args(["--be-cores", "0,1", "--be-pid"])
        .arg(format!("{},{}", hot.pid(), cold.pid()))
        .args(["--threshold", "1G", "--interval-us", &interval.to_string()])
        .args([
            "--suspend-us",
            &suspend.to_string(),
            "--duration",
            "3s",
            "--log",
        ])
        .arg(&log)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // (time, cold state, hot CPU seconds, hot and cold schedstat, hot
    // state) while the monitor runs; the shares are taken over 2 s from
    // 0.3 s after the hot process was first seen stopped, clear of the
    // monitor's start and of its end (2 s: 200 clock ticks of CPU time).
    // The start is not at the spawn: a monitor process born on the hot
    // hog's core waits behind that SCHED_FIFO busy loop until the kernel's
    // RT throttling (5 % of each second) lets it run and move, so its
    // first suspension came up to 0.97 s late, and a window fixed from the
    // spawn counted that time as unsuspended (CI saw 0.61 for 0.75).
    let (seen, exited) = watch(&mut mon, Duration::from_secs(10), || {
        (
            t0.elapsed().as_secs_f64(),
            cold.state(),
            cpu_seconds(hot.pid()),
            runnable(hot.pid()),
            runnable(cold.pid()),
            hot.state(),
        )
    });
    assert!(exited);
    let out = mon.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let first_stop = seen
        .iter()
        .find(|s| s.5 == 'T')
        .expect("the hot process was never seen stopped")
        .0;
    let at = |t: f64| {
        seen.iter().find(|s| s.0 >= t).unwrap_or_else(|| {
            panic!("the monitor ended before {t:.2} s (first stop at {first_stop:.2} s)")
        })
    };
    let (a, b) = (at(first_stop + 0.3), at(first_stop + 2.3));
    let wall = b.0 - a.0;
    let cold_states: Vec<char> = seen.iter().map(|s| s.1).collect();
    // The suspended fraction from the child's CPU time: a SCHED_FIFO hog
    // runs whenever it is not suspended, so 1 - its CPU share is the time
    // it was held. A normal hog also waits for other load on the machine
    // (and a SIGSTOP takes effect only when it next runs), so then only a
    // lower bound holds. Runnable (schedstat) is reported beside it.
    let suspended = 1.0 - (b.2 - a.2) / wall;
    let hot_runnable = (b.3 .1 - a.3 .1) / wall;
    let cold_share = (b.4 .1 - a.4 .1) / wall;
    let expect = suspend as f64 / (interval + suspend) as f64;
    eprintln!(
        "first stop at {first_stop:.3} s; hot (SCHED_FIFO {fifo}): suspended {suspended:.3} (from CPU time), runnable {hot_runnable:.3}, expected suspended {expect:.3}; cold: runnable {cold_share:.3}, CPU {:.3}",
        (b.4 .0 - a.4 .0) / wall
    );
    if fifo {
        assert!(
            (suspended - expect).abs() <= 0.1 * expect,
            "hot core suspended {suspended:.3} of the time (from its CPU time), expected {expect:.3} ± 10 %"
        );
    } else {
        eprintln!("note: SCHED_FIFO not permitted; checking only that the hog was suspended at least the expected time");
        assert!(
            suspended >= 0.9 * expect,
            "hot core suspended {suspended:.3}"
        );
    }
    assert!(cold_share > 0.9, "cold core runnable {cold_share:.3}");
    assert!(!cold_states.contains(&'T'), "the cold process was stopped");
    let j: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    let cores = j["cores"].as_array().unwrap();
    let by = |c: u64| cores.iter().find(|x| x["core"] == c).unwrap().clone();
    assert_eq!(by(0)["suspensions"], 0);
    assert!(by(1)["suspensions"].as_u64().unwrap() > 50);
    assert!((by(1)["duty"].as_f64().unwrap() - (1.0 - expect)).abs() < 0.05);
}

/// The cgroup v2 mount point, if any.
fn cgroup2() -> Option<PathBuf> {
    let m = std::fs::read_to_string("/proc/mounts").ok()?;
    m.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|f| f.len() > 2 && f[2] == "cgroup2")
        .map(|f| PathBuf::from(f[1]))
}

/// A fresh child cgroup, removed on drop.
struct Cgroup(PathBuf);

impl Drop for Cgroup {
    fn drop(&mut self) {
        let _ = std::fs::write(self.0.join("cgroup.freeze"), "0");
        let _ = std::fs::write(self.0.join("cgroup.kill"), "1");
        for _ in 0..100 {
            if std::fs::remove_dir(&self.0).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn frozen(cg: &Path) -> bool {
    std::fs::read_to_string(cg.join("cgroup.events"))
        .unwrap_or_default()
        .lines()
        .any(|l| l == "frozen 1")
}

#[test]
fn freeze_actuator_freezes_and_thaws_a_cgroup() {
    let _g = live();
    let Some(root) = cgroup2() else {
        eprintln!("note: no cgroup v2 mounted; skipped");
        return;
    };
    let dir = root.join(format!("ssc-throttle-test-{}", std::process::id()));
    if std::fs::create_dir(&dir).is_err() || !dir.join("cgroup.freeze").exists() {
        eprintln!(
            "note: cgroup v2 at {} is not writable or has no freezer; skipped",
            root.display()
        );
        let _ = std::fs::remove_dir(&dir);
        return;
    }
    let cg = Cgroup(dir);
    let cpu = ncpus() - 1;
    let hog = Hog::on(cpu);
    std::fs::write(cg.0.join("cgroup.procs"), hog.pid().to_string()).unwrap();
    let trace = trace_file("freeze.csv", &HOT.replace(",1,", &format!(",{cpu},")));
    let mut mon = ssc()
        .args(["throttle", "--sensor"])
        .arg(format!("replay:{}", trace.display()))
        .args(["--be-cores", &cpu.to_string(), "--be-cgroup"])
        .arg(&cg.0)
        .args([
            "--threshold",
            "1G",
            "--interval-us",
            "1000",
            "--suspend-us",
            "100000",
        ])
        .args(["--duration", "1s"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let (seen, exited) = watch(&mut mon, Duration::from_secs(5), || frozen(&cg.0));
    assert!(exited);
    assert_eq!(mon.wait().unwrap().code(), Some(0));
    assert!(seen.contains(&true), "never frozen");
    assert!(seen.contains(&false), "never thawed");
    assert!(!frozen(&cg.0), "left frozen");
    let c0 = runnable(hog.pid()).0;
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        runnable(hog.pid()).0 > c0,
        "the process does not run after the monitor"
    );
}

#[test]
fn the_watchdog_resumes_a_stopped_process_after_sigkill_of_the_monitor() {
    let _g = live();
    let cpu = ncpus() - 1;
    let hog = Hog::on(cpu);
    let trace = trace_file("dog.csv", &HOT.replace(",1,", &format!(",{cpu},")));
    let mut mon = ssc()
        .args(["throttle", "--sensor"])
        .arg(format!("replay:{}", trace.display()))
        .args([
            "--be-cores",
            &cpu.to_string(),
            "--be-pid",
            &hog.pid().to_string(),
        ])
        .args([
            "--threshold",
            "1G",
            "--interval-us",
            "1000",
            "--suspend-us",
            "5000000",
        ])
        .args(["--duration", "20s"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while hog.state() != 'T' {
        assert!(t0.elapsed() < Duration::from_secs(3), "never stopped");
        std::thread::sleep(Duration::from_millis(2));
    }
    mon.kill().unwrap(); // SIGKILL
    mon.wait().unwrap();
    let t1 = Instant::now();
    while hog.state() == 'T' {
        assert!(
            t1.elapsed() < Duration::from_secs(2),
            "still stopped after the monitor died"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
    let mut err = String::new();
    std::io::Read::read_to_string(mon.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(err.contains("watchdog"), "{err}");
}

#[test]
fn sigterm_resumes_everything() {
    let _g = live();
    let cpu = ncpus() - 1;
    let hog = Hog::on(cpu);
    let trace = trace_file("term.csv", &HOT.replace(",1,", &format!(",{cpu},")));
    let mon = ssc()
        .args(["throttle", "--sensor"])
        .arg(format!("replay:{}", trace.display()))
        .args([
            "--be-cores",
            &cpu.to_string(),
            "--be-pid",
            &hog.pid().to_string(),
        ])
        .args([
            "--threshold",
            "1G",
            "--interval-us",
            "1000",
            "--suspend-us",
            "5000000",
        ])
        .args(["--duration", "20s"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while hog.state() != 'T' {
        assert!(t0.elapsed() < Duration::from_secs(3), "never stopped");
        std::thread::sleep(Duration::from_millis(2));
    }
    // SAFETY: our own child.
    unsafe { libc::kill(mon.id() as i32, libc::SIGTERM) };
    let out = mon.wait_with_output().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(4));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("stopped by a signal"), "{}", text(&out));
    assert_ne!(hog.state(), 'T');
}

#[test]
fn a_vanished_process_ends_the_monitor_cleanly() {
    let _g = live();
    let cpu = ncpus() - 1;
    let mut hog = Hog::on(cpu);
    let trace = trace_file("gone.csv", &HOT.replace(",1,", &format!(",{cpu},")));
    let mut mon = ssc()
        .args(["throttle", "--sensor"])
        .arg(format!("replay:{}", trace.display()))
        .args([
            "--be-cores",
            &cpu.to_string(),
            "--be-pid",
            &hog.pid().to_string(),
        ])
        .args([
            "--threshold",
            "1G",
            "--interval-us",
            "1000",
            "--suspend-us",
            "2000",
        ])
        .args(["--duration", "20s"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(200));
    hog.0.kill().unwrap();
    hog.0.wait().unwrap();
    let (_, exited) = watch(&mut mon, Duration::from_secs(5), || ());
    assert!(exited, "the monitor kept running without its process");
    let out = mon.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("exited"), "{}", text(&out));
}

#[test]
fn no_usable_sensor_is_a_clear_error_listing_the_attempts() {
    // A sleeping child, so that a machine with counters throttles nothing that matters.
    let mut sleeper = Command::new("sleep").arg("5").spawn().unwrap();
    let pid = sleeper.id().to_string();
    let out = ssc()
        .args(["throttle", "--be-pid", &pid, "--duration", "100ms"])
        .output()
        .unwrap();
    if out.status.code() == Some(0) {
        eprintln!("note: this machine has a usable hardware sensor; nothing to check");
        let _ = sleeper.kill();
        let _ = sleeper.wait();
        return;
    }
    let t = text(&out);
    assert_eq!(out.status.code(), Some(3), "{t}");
    assert!(t.contains("no usable bandwidth sensor"), "{t}");
    assert!(t.contains("perf hardware events:"), "{t}");
    assert!(t.contains("resctrl memory-bandwidth monitoring:"), "{t}");
    assert!(t.contains("replay:FILE"), "{t}");
    let out = ssc()
        .args([
            "throttle",
            "--be-pid",
            &pid,
            "--sensor",
            "replay:/nonexistent.csv",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out).contains("/nonexistent.csv"), "{}", text(&out));
    let _ = sleeper.kill();
    let _ = sleeper.wait();
}

#[test]
fn bad_arguments_are_clear_errors() {
    let trace = trace_file("args.csv", HOT);
    let replay = format!("replay:{}", trace.display());
    let pid = std::process::id().to_string();
    for (args, needle) in [
        (vec!["--sensor", &replay], "--be-cgroup PATH or --be-pid"),
        (
            vec!["--sensor", &replay, "--be-pid", &pid, "--mode", "memguard"],
            "--budget",
        ),
        (
            vec!["--sensor", &replay, "--be-pid", &pid, "--threshold", "150%"],
            "(0, 100]",
        ),
        (
            vec![
                "--sensor",
                &replay,
                "--be-pid",
                &pid,
                "--rt-cores",
                "0",
                "--be-cores",
                "0",
            ],
            "both",
        ),
        (
            vec!["--sensor", &replay, "--be-pid", &pid, "--be-cores", "4096"],
            "not online",
        ),
        (
            vec!["--sensor", &replay, "--be-pid", &pid, "--be-cores", "2-1"],
            "range",
        ),
        (
            vec!["--sensor", "magic", "--be-pid", &pid],
            "unknown sensor",
        ),
        (
            vec![
                "--sensor",
                &replay,
                "--be-cgroup",
                "/nonexistent",
                "--be-pid",
                &pid,
            ],
            "cannot be used",
        ),
        (
            vec!["--sensor", &replay, "--be-pid", "0"],
            "not a process id",
        ),
    ] {
        let out = ssc().arg("throttle").args(&args).output().unwrap();
        let t = text(&out);
        assert!(
            matches!(out.status.code(), Some(2) | Some(3)),
            "{args:?}: {t}"
        );
        assert!(t.contains(needle), "{args:?}: {t}");
    }
    // A cgroup that is not a cgroup: an actuator error, exit 3.
    let out = ssc()
        .args(["throttle", "--sensor", &replay, "--be-cgroup", "/tmp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(text(&out).contains("cgroup.freeze"), "{}", text(&out));
    // MSR: a clear error where /dev/cpu/N/msr is not there.
    if !Path::new("/dev/cpu/0/msr").exists() {
        let out = ssc()
            .args([
                "throttle",
                "--sensor",
                &replay,
                "--actuator",
                "msr",
                "--duration",
                "100ms",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3), "{}", text(&out));
        assert!(text(&out).contains("/msr"), "{}", text(&out));
    }
}

#[test]
fn log_and_svg_are_written() {
    let _g = live();
    let cpu = ncpus() - 1;
    let hog = Hog::on(cpu);
    let trace = trace_file("log.csv", &HOT.replace(",1,", &format!(",{cpu},")));
    let (csv, svg) = (tmp("run.csv"), tmp("run.svg"));
    let out = ssc()
        .args(["throttle", "--sensor"])
        .arg(format!("replay:{}", trace.display()))
        .args([
            "--be-cores",
            &cpu.to_string(),
            "--be-pid",
            &hog.pid().to_string(),
        ])
        .args([
            "--threshold",
            "50%",
            "--interval-us",
            "2000",
            "--suspend-us",
            "3000",
        ])
        .args(["--mode", "proportional", "--duration", "300ms", "--log"])
        .arg(&csv)
        .arg("--svg")
        .arg(&svg)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("pid {}: CPU share", hog.pid())),
        "{}",
        text(&out)
    );
    let c = std::fs::read_to_string(&csv).unwrap();
    let mut lines = c.lines();
    assert_eq!(
        lines.next(),
        Some("t_us,core,read_Bps,write_Bps,suspend_us,duty")
    );
    let rows: Vec<&str> = lines.collect();
    assert!(rows.len() > 10, "{c}");
    assert!(rows.iter().all(|r| r.split(',').count() == 6));
    let s = std::fs::read_to_string(&svg).unwrap();
    assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
    // Drawn with plotters: bandwidth lines, suspension bands, a time axis.
    assert!(s.contains("<polyline") && s.contains("time (ms)") && s.contains("suspended"));
    assert!(s.contains(&format!("core {cpu}:")));
}

#[test]
fn the_bandwidth_bench_runs_and_says_what_needs_counters() {
    let _g = live();
    if ncpus() < 2 {
        eprintln!("note: needs 2 CPUs; skipped");
        return;
    }
    let out = ssc()
        .args(["throttle", "bench", "--seconds", "0.05", "--reps", "1"])
        .args(["--kinds", "write", "--columns", "a", "--nofit", "4Mi"])
        .args(["--interval-us", "1000", "--suspend-us", "9000"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(t.contains("| write | a |"), "{t}");
    assert!(t.contains("Needs counters: the throttle decision"), "{t}");
    // The monitor really suspended the hammer (~90 % at 1000/9000 µs).
    let row = t.lines().find(|l| l.starts_with("| write | a |")).unwrap();
    let sus: f64 = row
        .trim_end_matches(" |")
        .rsplit("| ")
        .next()
        .unwrap()
        .trim_end_matches(" %")
        .parse()
        .unwrap();
    assert!(sus > 50.0, "{row}");
    // Partitioned columns are a clear error.
    let out = ssc()
        .args(["throttle", "bench", "--columns", "b"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("partitioned cache"), "{}", text(&out));
}

#[test]
fn a_live_replay_of_a_late_trace_throttles_and_prints_the_mode_keyword() {
    let _g = live();
    if ncpus() < 2 {
        return;
    }
    let hog = Hog::on(1);
    let trace = trace_file(
        "late.csv",
        "t_us,core,read_bytes,write_bytes\n5000000,1,1000000,0\n5000100,1,1000000,0\n",
    );
    let out = ssc()
        .args([
            "throttle",
            "--be-pid",
            &hog.pid().to_string(),
            "--be-cores",
            "1",
        ])
        .arg("--sensor")
        .arg(format!("replay:{}", trace.display()))
        .args(["--duration", "200ms"])
        .output()
        .unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(t.contains("; mode fixed;"), "{t}");
    assert!(!t.contains(" 0 suspensions"), "{t}");
}

// ---- the bandwidth benchmark (`ssc throttle bench`) -------------------------

#[test]
fn passes_move_the_whole_buffer() {
    let mut b = buffer(4096);
    assert_eq!(b.len(), 512);
    assert_eq!(pass(Kind::Read, &mut b, 0), 4096);
    assert_eq!(pass(Kind::Write, &mut b, 7), 4096);
    assert!(b.iter().all(|&x| x == 7));
    assert_eq!(pass(Kind::Mixed, &mut b, 1), 4096);
    assert!(b[256..].iter().all(|&x| x == 8));
}

#[test]
fn reduction_is_the_thesis_table_4_3() {
    // The thesis' write/e example: 15.1 → 4.2 unthrottled, 14.0 throttled.
    let c = Cell {
        alone: 15.1,
        hammered: 4.2,
        throttled: 14.0,
        ..Cell::default()
    };
    assert!((c.degradation(c.hammered) - 0.722).abs() < 0.001);
    assert!((c.reduction().unwrap() - 0.899).abs() < 0.001);
    // No degradation to reduce: no reduction.
    let c = Cell {
        alone: 10.0,
        hammered: 9.9,
        throttled: 10.0,
        ..Cell::default()
    };
    assert_eq!(c.reduction(), None);
}
