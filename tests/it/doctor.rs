//! `ssc doctor` (docs/commands.md, "ssc doctor"): every check of the table
//! is reported with a level, a warning with its fix; the timer probe gives
//! ordered percentiles for each core of the process's affinity (one core
//! under `taskset -c 0`); `--json` says the same as one object; a copy
//! of /proc and /sys (`--root`) gives each verdict its files say, and the
//! exit code says whether the host is ready.

use crate::support::*;
use std::process::Command;

const CHECKS: [&str; 11] = [
    "isolated cores",
    "SMT siblings",
    "cpufreq governor",
    "C-states",
    "RT throttling",
    "SCHED_FIFO",
    "SCHED_DEADLINE",
    "mlock limit",
    "transparent huge pages",
    "IRQs",
    "clock source",
];

#[test]
fn doctor_reports_every_check_and_probes_every_core() {
    let _s = slot();
    let out = Command::new(SSC)
        .args(["doctor", "--samples", "200", "--period-us", "100"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for check in CHECKS {
        let line = text
            .lines()
            .find(|l| l.get(6..).is_some_and(|r| r.starts_with(check)))
            .unwrap_or_else(|| panic!("no `{check}`:\n{text}"));
        assert!(
            ["ok ", "warn", "info"].iter().any(|l| line.starts_with(l)),
            "{line}"
        );
    }
    let warns = text.lines().filter(|l| l.starts_with("warn")).count();
    assert_eq!(
        text.matches(" fix: ").count(),
        warns,
        "a fix for each warning:\n{text}"
    );

    let json = Command::new("taskset")
        .args(["-c", "0", SSC, "doctor", "--samples", "100", "--json"])
        .output();
    let Ok(json) = json else { return };
    assert!(matches!(json.status.code(), Some(0 | 1)));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["cores"], serde_json::json!([0]), "{v}");
    let findings = v["findings"].as_array().unwrap();
    for check in CHECKS {
        assert!(
            findings.iter().any(|f| f["check"] == check),
            "no `{check}`: {v}"
        );
    }
    let probe = &v["timer_latency_us"][0];
    assert_eq!(probe["core"], 0, "{v}");
    assert_eq!(probe["samples"], 100, "{v}");
    let p = |k: &str| probe[k].as_f64().unwrap();
    assert!(
        0.0 <= p("p50") && p("p50") <= p("p99") && p("p99") <= p("p99_9") && p("p99_9") <= p("max"),
        "{v}"
    );
}

/// A copy of /proc and /sys: `ready` sets every file as a real-time host
/// wants it, otherwise each is as a default install has it.
fn fake_root(dir: &std::path::Path, ready: bool) {
    let pick = |good: &str, bad: &str| if ready { good } else { bad }.to_string();
    let files: Vec<(String, String)> = vec![
        ("sys/devices/system/cpu/isolated".into(), pick("0-1", "")),
        ("sys/devices/system/cpu/nohz_full".into(), pick("0-1", "(null)")),
        ("proc/self/cgroup".into(), "0::/chain".into()),
        ("sys/fs/cgroup/chain/cpuset.cpus.effective".into(), "0-1".into()),
        ("sys/devices/system/cpu/cpu0/topology/thread_siblings_list".into(), pick("0", "0,2")),
        ("sys/devices/system/cpu/cpu1/topology/thread_siblings_list".into(), pick("1", "1,3")),
        ("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor".into(), pick("performance", "powersave")),
        ("sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq".into(), "1200000".into()),
        ("sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq".into(), "3500000".into()),
        ("sys/devices/system/cpu/cpu0/cpuidle/state0/name".into(), "POLL".into()),
        ("sys/devices/system/cpu/cpu0/cpuidle/state0/latency".into(), "0".into()),
        ("sys/devices/system/cpu/cpu0/cpuidle/state1/name".into(), "C6".into()),
        ("sys/devices/system/cpu/cpu0/cpuidle/state1/latency".into(), "133".into()),
        ("sys/devices/system/cpu/cpu0/cpuidle/state1/disable".into(), pick("1", "0")),
        ("proc/sys/kernel/sched_rt_runtime_us".into(), pick("-1", "950000")),
        ("proc/sys/kernel/sched_rt_period_us".into(), "1000000".into()),
        (
            "proc/self/status".into(),
            format!(
                "Name:\tssc\nCapEff:\t{}\nCpus_allowed_list:\t0-1\n",
                pick("000001ffffffffff", "0000000000000000")
            ),
        ),
        (
            "proc/self/limits".into(),
            format!(
                "Limit                     Soft Limit           Hard Limit           Units\nMax locked memory         {0}            {0}            bytes\nMax realtime priority     {1}                    {1}\n",
                pick("unlimited", "8388608"),
                pick("99", "0")
            ),
        ),
        ("sys/kernel/mm/transparent_hugepage/enabled".into(), "always [madvise] never".into()),
        ("sys/kernel/mm/transparent_hugepage/defrag".into(), pick("defer [madvise] never", "[always] defer madvise never")),
        ("proc/irq/24/smp_affinity_list".into(), pick("2-3", "0-3")),
        ("proc/irq/25/smp_affinity_list".into(), pick("3", "1")),
        ("sys/devices/system/clocksource/clocksource0/current_clocksource".into(), pick("tsc", "hpet")),
    ];
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, format!("{text}\n")).unwrap();
    }
}

/// `ssc doctor --samples 0 --json --root ROOT EXTRA…`: its exit code and
/// its JSON.
fn json(root: &std::path::Path, extra: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = Command::new(SSC)
        .args(["doctor", "--samples", "0", "--json", "--root"])
        .arg(root)
        .args(extra)
        .current_dir(ROOT)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), v)
}

/// The (level, seen, fix) of `check` in a report.
fn level(v: &serde_json::Value, check: &str) -> (String, String, serde_json::Value) {
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == check)
        .unwrap_or_else(|| panic!("no `{check}`: {v}"))
        .clone();
    (
        f["level"].as_str().unwrap().to_string(),
        f["seen"].as_str().unwrap().to_string(),
        f["fix"].clone(),
    )
}

/// `--root` reads a copy of /proc and /sys: a host where each file is as
/// real-time work wants it is ready (exit 0), every check `ok`.
#[test]
fn doctor_finds_a_copied_real_time_host_ready() {
    let good = scratch("doctor-root-ready").join("ready");
    fake_root(&good, true);
    let (code, v) = json(&good, &[]);
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["ready"], true, "{v}");
    assert_eq!(v["cores"], serde_json::json!([0, 1]), "{v}");
    for check in CHECKS {
        let (l, seen, fix) = level(&v, check);
        assert_eq!(l, "ok", "{check}: {seen}");
        assert!(fix.is_null(), "{check}");
    }
    assert!(level(&v, "C-states").1.contains("C6 133 µs (off)"), "{v}");
    assert!(
        level(&v, "SCHED_FIFO")
            .1
            .contains("from CapEff and the limits"),
        "{v}"
    );
    assert!(
        level(&v, "cpuset").1.contains("cgroup /chain: cpus 0-1"),
        "{v}"
    );
}

/// A copy of a default install warns on every check (exit 1), each with
/// its fix and the values it saw.
#[test]
fn doctor_warns_on_each_check_of_a_copied_default_host() {
    let bad = scratch("doctor-root-default").join("default");
    fake_root(&bad, false);
    let (code, v) = json(&bad, &[]);
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["ready"], false, "{v}");
    for check in CHECKS {
        let (l, seen, fix) = level(&v, check);
        assert_eq!(l, "warn", "{check}: {seen}");
        assert!(fix.as_str().is_some_and(|f| !f.is_empty()), "{check}");
    }
    for (check, seen) in [
        (
            "isolated cores",
            "isolated: none; nohz_full: none; of these cores 0 isolated",
        ),
        ("SMT siblings", "0: 0,2; 1: 1,3"),
        ("cpufreq governor", "powersave, 1200000–3500000 kHz"),
        ("C-states", "C6 133 µs"),
        ("RT throttling", "sched_rt_runtime_us = 950000"),
        ("SCHED_FIFO", "refused"),
        ("SCHED_DEADLINE", "CAP_SYS_NICE not held"),
        ("mlock limit", "RLIMIT_MEMLOCK 8192 KiB"),
        ("transparent huge pages", "defrag [always]"),
        ("IRQs", "2 of 2 IRQs"),
        ("clock source", "hpet"),
    ] {
        assert!(
            level(&v, check).1.contains(seen),
            "{check}: {}",
            level(&v, check).1
        );
    }
    assert!(
        level(&v, "isolated cores")
            .2
            .as_str()
            .unwrap()
            .contains("isolcpus=0,1"),
        "{v}"
    );
}

/// Given a chain, the cores are those its build runs on; a chain that does
/// not build gives its diagnostic and exit code.
#[test]
fn doctor_checks_the_cores_a_chain_runs_on() {
    let dir = scratch("doctor-root-chain");
    let (good, bad) = (dir.join("ready"), dir.join("default"));
    fake_root(&good, true);
    fake_root(&bad, false);
    // A chain of one thread on -cm 1: core 1 alone, so IRQ 24 (0-3) is
    // on it and IRQ 25 (1) too, and the text says whose cores they are.
    let (code, v) = json(
        &bad,
        &[
            "examples/fluoro.ssc",
            "-cm",
            "1,0",
            "--",
            "-ts",
            "fused",
            "1",
        ],
    );
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["cores"], serde_json::json!([1]), "{v}");
    let text = Command::new(SSC)
        .args(["doctor", "examples/fluoro.ssc", "--samples", "0", "--root"])
        .arg(&good)
        .args(["--", "-ts", "fused", "2"])
        .current_dir(ROOT)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&text.stdout);
    assert_eq!(text.status.code(), Some(0), "{said}");
    assert!(
        said.starts_with("ssc doctor: the chain runs on cores 0,1\n")
            && said.ends_with("ready: no check warns\n"),
        "{said}"
    );
    // A chain that does not build: its diagnostic and exit code.
    let broken = dir.join("broken.ssc");
    std::fs::write(&broken, "chain c { output o = nothing; }\n").unwrap();
    let out = Command::new(SSC)
        .args(["doctor", "--samples", "0"])
        .arg(&broken)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("error"),
        "{out:?}"
    );
}
