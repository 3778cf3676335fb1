//! `ssc doctor` (docs/commands.md, "ssc doctor"): every check of the table
//! is reported with a level, a warning with its fix; the timer probe gives
//! ordered percentiles for each core of the process's affinity (one core
//! under `taskset -c 0`); `--json` says the same as one object.

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
        out.status.success(),
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
    assert!(json.status.success());
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
