//! `ssc doctor [FILE] [-cm CORES] [--root DIR] [--samples N] [--period-us
//! P] [--json] [-- BUILD FLAGS]`: is this machine ready for a real-time
//! chain? (docs/commands.md, "ssc doctor").
//!
//! Reads what Linux says in /proc and /sys (under `--root`, a copy of
//! them) and asks the kernel what this process may do; gives one finding a
//! check, each `ok`, `warn` or `info`, with what was seen and, for a
//! warning, the fix: isolated cores (`isolcpus`, `nohz_full`, the cpuset),
//! SMT siblings among the cores, the cpufreq governor and frequency
//! limits, C-states, RT throttling (`sched_rt_runtime_us`), permission for
//! SCHED_FIFO (tried on a thread of its own; from the capabilities and
//! `RLIMIT_RTPRIO` under `--root`) and SCHED_DEADLINE (CAP_SYS_NICE), the
//! mlock limit, transparent huge pages, the IRQs that may land on the
//! cores, the clock source; then a timer-latency probe on each core
//! (cyclictest's idea: sleep to an absolute time, measure how late the
//! thread wakes), with its percentiles. The cores are the chain's when
//! FILE is given (its build's threads on the first cores of `-cm`), else
//! `-cm`, else those of this process's affinity. Guarantees: changes
//! nothing on the machine (the FIFO try is undone, on a thread that then
//! ends); a file it cannot read is said as unknown, never an error; exit 0
//! when no check warns, 1 when one does, the build's code when FILE does
//! not build.

use super::args::DoctorArgs;
use super::exit;
use std::path::{Path, PathBuf};

/// Where /proc and /sys are read: `/`, or a copy under `--root`.
struct Host {
    root: PathBuf,
}

impl Host {
    /// This machine's own files: the kernel may also be asked.
    fn live(&self) -> bool {
        self.root == Path::new("/")
    }

    fn path(&self, path: impl AsRef<Path>) -> PathBuf {
        let p = path.as_ref();
        self.root.join(p.strip_prefix("/").unwrap_or(p))
    }

    fn read(&self, path: impl AsRef<Path>) -> Option<String> {
        std::fs::read_to_string(self.path(path))
            .ok()
            .map(|s| s.trim().to_string())
    }

    /// A field of /proc/self/status (`CapEff`, `Cpus_allowed_list`).
    fn status(&self, field: &str) -> Option<String> {
        self.read("/proc/self/status")?.lines().find_map(|l| {
            l.strip_prefix(field)
                .and_then(|r| r.strip_prefix(':'))
                .map(|v| v.trim().to_string())
        })
    }

    /// The soft limit of a row of /proc/self/limits (`Max locked memory`):
    /// `None` unknown, `Some(None)` unlimited.
    fn limit(&self, row: &str) -> Option<Option<u64>> {
        let text = self.read("/proc/self/limits")?;
        let rest = text.lines().find_map(|l| l.strip_prefix(row))?;
        let soft = rest.split_whitespace().next()?;
        if soft == "unlimited" {
            Some(None)
        } else {
            soft.parse().ok().map(Some)
        }
    }
}

/// One finding.
struct Finding {
    check: &'static str,
    level: &'static str,
    seen: String,
    fix: Option<String>,
}

/// `doctor`.
pub(crate) fn doctor(a: &DoctorArgs) -> i32 {
    let host = Host {
        root: a.root.clone(),
    };
    let cores = match cores(a, &host) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let mut f = Vec::new();
    isolation(&host, &cores, &mut f);
    smt(&host, &cores, &mut f);
    frequency(&host, &mut f);
    rt_limits(&host, &mut f);
    memory(&host, &mut f);
    irqs(&host, &cores, &mut f);
    clock(&host, &mut f);
    let probes: Vec<(usize, Vec<f64>)> = if a.samples == 0 {
        Vec::new()
    } else {
        cores
            .iter()
            .filter_map(|&c| probe(c, a.samples as usize, a.period_us).map(|p| (c, p)))
            .collect()
    };
    let warns = f.iter().filter(|x| x.level == "warn").count();
    let code = if warns == 0 { exit::OK } else { 1 };
    if a.json {
        let v = serde_json::json!({
            "cores": cores,
            "ready": warns == 0,
            "findings": f.iter().map(|x| serde_json::json!({
                "check": x.check, "level": x.level, "seen": x.seen, "fix": x.fix,
            })).collect::<Vec<_>>(),
            "timer_latency_us": probes.iter().map(|(c, l)| serde_json::json!({
                "core": c, "samples": l.len(), "p50": pct(l, 50.0), "p99": pct(l, 99.0),
                "p99_9": pct(l, 99.9), "max": pct(l, 100.0),
            })).collect::<Vec<_>>(),
        });
        println!("{v}");
        return code;
    }
    let whose = if a.file.is_some() {
        "the chain runs on"
    } else if a.core_mask.is_some() {
        "checking"
    } else {
        "this process may use"
    };
    println!("ssc doctor: {whose} cores {}", list(&cores));
    for x in &f {
        println!("{:<5} {:<22} {}", x.level, x.check, x.seen);
        if let Some(fix) = &x.fix {
            println!("{:<28} fix: {fix}", "");
        }
    }
    if !probes.is_empty() {
        println!(
            "timer latency (wake-up after an absolute sleep of {} µs, {} samples a core):",
            a.period_us, a.samples
        );
        println!("  core      p50      p99    p99.9      max  (µs)");
        for (c, l) in &probes {
            println!(
                "  {c:>4} {:>8.1} {:>8.1} {:>8.1} {:>8.1}",
                pct(l, 50.0),
                pct(l, 99.0),
                pct(l, 99.9),
                pct(l, 100.0)
            );
        }
    }
    if warns == 0 {
        println!("ready: no check warns");
    } else {
        println!("{warns} warning(s): each costs latency or jitter a chain would see (docs/commands.md, \"ssc doctor\")");
    }
    code
}

/// The cores to check: the chain's (FILE: its build's threads on the
/// first cores of the mask, as `ssc build` pins them), `-cm`'s, or this
/// process's. Err: the exit code, after the build's message.
fn cores(a: &DoctorArgs, host: &Host) -> Result<Vec<usize>, i32> {
    let mask = a.core_mask.as_ref().map(|m| m.0.clone());
    let Some(file) = &a.file else {
        return Ok(mask.unwrap_or_else(|| allowed_cores(host)));
    };
    let exe = std::env::current_exe().map_err(|e| {
        eprintln!("error: the ssc command's own path: {e}");
        exit::EXTERNAL
    })?;
    let out = std::process::Command::new(exe)
        .arg("build")
        .arg(file)
        .args(&a.build)
        .args(["-t", "info", "--json"])
        .output()
        .map_err(|e| {
            eprintln!("error: running ssc build: {e}");
            exit::EXTERNAL
        })?;
    if !out.status.success() {
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        return Err(out.status.code().unwrap_or(exit::EXTERNAL));
    }
    let threads = serde_json::from_slice::<serde_json::Value>(&out.stdout)
        .ok()
        .and_then(|v| v["threads"].as_u64())
        .ok_or_else(|| {
            eprintln!("error: `ssc build -t info --json` did not say the chain's threads");
            exit::EXTERNAL
        })? as usize;
    let mask = mask.unwrap_or_else(|| (0..super::config::online_cpus()).collect());
    let mut chain: Vec<usize> = mask.iter().copied().cycle().take(threads.max(1)).collect();
    chain.sort_unstable();
    chain.dedup();
    Ok(chain)
}

fn push(f: &mut Vec<Finding>, check: &'static str, warn: bool, seen: String, fix: &str) {
    f.push(Finding {
        check,
        level: if warn { "warn" } else { "ok" },
        seen,
        fix: warn.then(|| fix.to_string()),
    });
}

fn info(f: &mut Vec<Finding>, check: &'static str, seen: String) {
    f.push(Finding {
        check,
        level: "info",
        seen,
        fix: None,
    });
}

/// The cores of this process's affinity mask (`Cpus_allowed_list` of
/// /proc/self/status, or the kernel's answer).
fn allowed_cores(host: &Host) -> Vec<usize> {
    if let Some(l) = host.status("Cpus_allowed_list") {
        return parse_list(&l);
    }
    // SAFETY: a zeroed cpu_set_t is a valid empty set; sched_getaffinity
    // fills at most its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return (0..super::config::online_cpus()).collect();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// `0-3,6` → [0, 1, 2, 3, 6].
fn parse_list(s: &str) -> Vec<usize> {
    s.split(',')
        .filter_map(|r| match r.trim().split_once('-') {
            Some((a, b)) => Some((a.parse().ok()?..=b.parse().ok()?).collect::<Vec<usize>>()),
            None => r.trim().parse().ok().map(|c| vec![c]),
        })
        .flatten()
        .collect()
}

fn list(cores: &[usize]) -> String {
    cores
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn isolation(host: &Host, cores: &[usize], f: &mut Vec<Finding>) {
    let isolated = host
        .read("/sys/devices/system/cpu/isolated")
        .unwrap_or_default();
    let nohz = host
        .read("/sys/devices/system/cpu/nohz_full")
        .unwrap_or_default();
    let iso = parse_list(&isolated);
    let on_isolated = cores.iter().filter(|c| iso.contains(c)).count();
    push(
        f,
        "isolated cores",
        on_isolated == 0,
        format!(
            "isolated: {}; nohz_full: {}; of these cores {on_isolated} isolated",
            if isolated.is_empty() { "none" } else { &isolated },
            if nohz.is_empty() || nohz == "(null)" { "none" } else { &nohz }
        ),
        &format!("boot with isolcpus={0} nohz_full={0} (the chain's cores) and run it there (taskset, or -cm): no other task, timer tick or kernel thread then shares them", list(cores)),
    );
    if let Some(cg) = host.read("/proc/self/cgroup").and_then(|c| {
        c.lines()
            .last()
            .map(|l| l.rsplit(':').next().unwrap_or("").to_string())
    }) {
        let cpus = host.read(format!("/sys/fs/cgroup{cg}/cpuset.cpus.effective"));
        info(
            f,
            "cpuset",
            format!(
                "cgroup {cg}: cpus {}",
                cpus.unwrap_or_else(|| "unknown".into())
            ),
        );
    }
}

fn smt(host: &Host, cores: &[usize], f: &mut Vec<Finding>) {
    let mut shared = Vec::new();
    for &c in cores {
        let sib = host
            .read(format!(
                "/sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list"
            ))
            .unwrap_or_default();
        let s = parse_list(&sib);
        if s.len() > 1 {
            shared.push(format!("{c}: {sib}"));
        }
    }
    push(
        f,
        "SMT siblings",
        !shared.is_empty(),
        if shared.is_empty() {
            "no one of these cores shares its physical core".into()
        } else {
            format!("siblings among the cores: {}", shared.join("; "))
        },
        "pin the chain's threads to one logical core per physical core (-cm), or turn SMT off (echo off > /sys/devices/system/cpu/smt/control)",
    );
}

fn frequency(host: &Host, f: &mut Vec<Finding>) {
    match host.read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") {
        Some(g) => {
            let lo = host
                .read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq")
                .unwrap_or_default();
            let hi = host
                .read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq")
                .unwrap_or_default();
            push(
                f,
                "cpufreq governor",
                g != "performance",
                format!("{g}, {lo}–{hi} kHz"),
                "cpupower frequency-set -g performance (a governor that ramps up costs the first frames of a burst)",
            );
        }
        None => info(
            f,
            "cpufreq governor",
            "none exposed (a VM, or the firmware decides)".into(),
        ),
    }
    let mut states = Vec::new();
    for k in 0..16 {
        let d = format!("/sys/devices/system/cpu/cpu0/cpuidle/state{k}");
        let Some(name) = host.read(format!("{d}/name")) else {
            break;
        };
        let lat = host.read(format!("{d}/latency")).unwrap_or_default();
        let off = host.read(format!("{d}/disable")).is_some_and(|v| v == "1");
        states.push(format!(
            "{name} {lat} µs{}",
            if off { " (off)" } else { "" }
        ));
    }
    if states.is_empty() {
        info(f, "C-states", "none exposed".into());
    } else {
        let deep = states.iter().any(|s| {
            !s.ends_with("(off)")
                && !s.starts_with("POLL")
                && !s.contains(" 0 µs")
                && !s.contains(" 1 µs")
        });
        push(f, "C-states", deep, states.join(", "), "a deep idle state costs its exit latency at every wake-up: cpupower idle-set -D 2, or run the chain with --spin-ns so its threads do not sleep");
    }
}

fn rt_limits(host: &Host, f: &mut Vec<Finding>) {
    let runtime = host
        .read("/proc/sys/kernel/sched_rt_runtime_us")
        .unwrap_or_else(|| "unknown".into());
    push(
        f,
        "RT throttling",
        runtime != "-1",
        format!("sched_rt_runtime_us = {runtime} (of sched_rt_period_us {})", host.read("/proc/sys/kernel/sched_rt_period_us").unwrap_or_default()),
        "a SCHED_FIFO thread is stopped for the rest of each period once RT tasks used that much of it: echo -1 > /proc/sys/kernel/sched_rt_runtime_us, or keep the chain's duty below it",
    );
    let caps = host
        .status("CapEff")
        .and_then(|v| u64::from_str_radix(&v, 16).ok());
    let nice = caps.is_some_and(|c| c & (1 << 23) != 0);
    let rtprio = host.limit("Max realtime priority");
    // SCHED_FIFO: on this machine tried on a thread of its own (undone as
    // it ends); from a copy's files, what the kernel would decide.
    let (fifo, how) = if host.live() {
        (try_fifo(), "tried")
    } else {
        (
            nice || rtprio.is_some_and(|l| l.is_none_or(|v| v > 0)),
            "from CapEff and the limits",
        )
    };
    push(
        f,
        "SCHED_FIFO",
        !fifo,
        format!(
            "{} ({how}; RLIMIT_RTPRIO {})",
            if fifo { "permitted" } else { "refused" },
            shown(rtprio)
        ),
        "run as root, give the binary CAP_SYS_NICE (setcap cap_sys_nice+ep PROGRAM), or raise rtprio in /etc/security/limits.conf: the program's --fifo PRIO needs it",
    );
    push(
        f,
        "SCHED_DEADLINE",
        !nice,
        format!("CAP_SYS_NICE {}", if nice { "held" } else { "not held" }),
        "SCHED_DEADLINE needs root or CAP_SYS_NICE (RLIMIT_RTPRIO does not give it)",
    );
}

/// A limit as read: a number, `unlimited` or `unknown`.
fn shown(limit: Option<Option<u64>>) -> String {
    match limit {
        None => "unknown".into(),
        Some(None) => "unlimited".into(),
        Some(Some(v)) => v.to_string(),
    }
}

/// Whether a thread of this process may take SCHED_FIFO 1: tried on a
/// thread of its own, which goes back to SCHED_OTHER and ends.
fn try_fifo() -> bool {
    std::thread::spawn(|| {
        // SAFETY: sched_param is plain data; the call changes this thread only.
        unsafe {
            let p = libc::sched_param { sched_priority: 1 };
            let ok = libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0;
            let back = libc::sched_param { sched_priority: 0 };
            libc::sched_setscheduler(0, libc::SCHED_OTHER, &back);
            ok
        }
    })
    .join()
    .unwrap_or(false)
}

fn memory(host: &Host, f: &mut Vec<Finding>) {
    let mlock = host.limit("Max locked memory");
    push(
        f,
        "mlock limit",
        mlock.is_none_or(|l| l.is_some_and(|v| v < (1 << 30))),
        match mlock {
            None => "unknown".into(),
            Some(None) => "RLIMIT_MEMLOCK unlimited".into(),
            Some(Some(v)) => format!("RLIMIT_MEMLOCK {} KiB", v / 1024),
        },
        "the program's --mlock keeps its buffers resident only within this limit: ulimit -l unlimited, or memlock in /etc/security/limits.conf",
    );
    let thp = host
        .read("/sys/kernel/mm/transparent_hugepage/enabled")
        .unwrap_or_else(|| "unknown".into());
    let defrag = host
        .read("/sys/kernel/mm/transparent_hugepage/defrag")
        .unwrap_or_else(|| "unknown".into());
    push(
        f,
        "transparent huge pages",
        defrag.contains("[always]"),
        format!("enabled {thp}; defrag {defrag}"),
        "with defrag [always] a page fault may stop to compact memory: echo madvise > /sys/kernel/mm/transparent_hugepage/defrag",
    );
}

fn irqs(host: &Host, cores: &[usize], f: &mut Vec<Finding>) {
    let Ok(dir) = std::fs::read_dir(host.path("/proc/irq")) else {
        info(f, "IRQs", "/proc/irq not readable".into());
        return;
    };
    let (mut total, mut on) = (0, 0);
    for e in dir.flatten() {
        let aff = std::fs::read_to_string(e.path().join("smp_affinity_list"));
        if let Some(aff) = aff.ok().map(|a| a.trim().to_string()) {
            total += 1;
            if parse_list(&aff).iter().any(|c| cores.contains(c)) {
                on += 1;
            }
        }
    }
    push(
        f,
        "IRQs",
        on > 0,
        format!("{on} of {total} IRQs may be served on these cores"),
        "steer them away: echo 0-1 > /proc/irq/N/smp_affinity_list for each (or irqbalance --banirq / IRQBALANCE_BANNED_CPUS), keeping the chain's cores free",
    );
}

fn clock(host: &Host, f: &mut Vec<Finding>) {
    let src = host
        .read("/sys/devices/system/clocksource/clocksource0/current_clocksource")
        .unwrap_or_else(|| "unknown".into());
    push(
        f,
        "clock source",
        src != "tsc",
        src.clone(),
        "a clock source other than tsc makes every timestamp a slow read (hpet, acpi_pm) or a VM exit: boot with clocksource=tsc tsc=reliable where the TSC is invariant",
    );
}

/// How late (µs) a thread pinned to `core` wakes from `samples` absolute
/// sleeps of `period_us`; `None` when it cannot be pinned there.
fn probe(core: usize, samples: usize, period_us: u64) -> Option<Vec<f64>> {
    std::thread::spawn(move || {
        // SAFETY: a zeroed cpu_set_t is empty; CPU_SET adds one core below
        // CPU_SETSIZE; the calls affect this thread only.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(core, &mut set);
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return None;
            }
            // The kernel's wake-up, not the 50 µs of slack a normal
            // thread's timers get (a SCHED_FIFO thread has none).
            libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
            let now = || {
                let mut t = libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t);
                t.tv_sec as i128 * 1_000_000_000 + t.tv_nsec as i128
            };
            let mut late = Vec::with_capacity(samples);
            let mut next = now();
            for _ in 0..samples {
                next += period_us as i128 * 1000;
                let t = libc::timespec {
                    tv_sec: (next / 1_000_000_000) as libc::time_t,
                    tv_nsec: (next % 1_000_000_000) as libc::c_long,
                };
                while libc::clock_nanosleep(
                    libc::CLOCK_MONOTONIC,
                    libc::TIMER_ABSTIME,
                    &t,
                    std::ptr::null_mut(),
                ) == libc::EINTR
                {}
                late.push((now() - next) as f64 / 1000.0);
            }
            Some(late)
        }
    })
    .join()
    .ok()
    .flatten()
}

/// The `p`-th percentile (nearest rank) of `v`.
fn pct(v: &[f64], p: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return 0.0;
    }
    let k = ((p / 100.0) * s.len() as f64).ceil() as usize;
    s[k.clamp(1, s.len()) - 1]
}
