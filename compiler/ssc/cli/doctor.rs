//! `ssc doctor [--samples N] [--period-us P] [--json]`: is this machine
//! ready for a real-time chain? (docs/commands.md, "ssc doctor").
//!
//! Reads what Linux says in /proc and /sys and asks the kernel what this
//! process may do; gives one finding a check, each `ok`, `warn` or
//! `info`, with what was seen and, for a warning, the fix: isolated cores
//! (`isolcpus`, `nohz_full`, the cpuset), SMT siblings among the cores,
//! the cpufreq governor and frequency limits, C-states, RT throttling
//! (`sched_rt_runtime_us`), permission for SCHED_FIFO (tried on a thread of
//! its own) and SCHED_DEADLINE (root or CAP_SYS_NICE), the mlock limit,
//! transparent huge pages, the IRQs that may land on the cores, the
//! clock source; then a timer-latency probe on each core this process
//! may use (cyclictest's idea: sleep to an absolute time, measure how late
//! the thread wakes), with its percentiles. Guarantees: changes nothing on
//! the machine (the FIFO try is undone, on a thread that then ends);
//! a file it cannot read is said as unknown, never an error; exit 0.

use super::args::DoctorArgs;
use super::exit;
use std::path::Path;

/// One finding.
struct Finding {
    check: &'static str,
    level: &'static str,
    seen: String,
    fix: Option<String>,
}

fn read(path: impl AsRef<Path>) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

/// `doctor`.
pub(crate) fn doctor(a: &DoctorArgs) -> i32 {
    let cores = allowed_cores();
    let mut f = Vec::new();
    isolation(&cores, &mut f);
    smt(&cores, &mut f);
    frequency(&mut f);
    rt_limits(&mut f);
    memory(&mut f);
    irqs(&cores, &mut f);
    clock(&mut f);
    let probes: Vec<(usize, Vec<f64>)> = cores
        .iter()
        .filter_map(|&c| probe(c, a.samples as usize, a.period_us).map(|p| (c, p)))
        .collect();
    if a.json {
        let v = serde_json::json!({
            "cores": cores,
            "findings": f.iter().map(|x| serde_json::json!({
                "check": x.check, "level": x.level, "seen": x.seen, "fix": x.fix,
            })).collect::<Vec<_>>(),
            "timer_latency_us": probes.iter().map(|(c, l)| serde_json::json!({
                "core": c, "samples": l.len(), "p50": pct(l, 50.0), "p99": pct(l, 99.0),
                "p99_9": pct(l, 99.9), "max": pct(l, 100.0),
            })).collect::<Vec<_>>(),
        });
        println!("{v}");
        return exit::OK;
    }
    println!("ssc doctor: this process may use cores {}", list(&cores));
    for x in &f {
        println!("{:<5} {:<22} {}", x.level, x.check, x.seen);
        if let Some(fix) = &x.fix {
            println!("{:<28} fix: {fix}", "");
        }
    }
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
    let warns = f.iter().filter(|x| x.level == "warn").count();
    println!("{warns} warning(s): each costs latency or jitter a chain would see (docs/commands.md, \"ssc doctor\")");
    exit::OK
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

/// The cores of this process's affinity mask.
fn allowed_cores() -> Vec<usize> {
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

fn isolation(cores: &[usize], f: &mut Vec<Finding>) {
    let isolated = read("/sys/devices/system/cpu/isolated").unwrap_or_default();
    let nohz = read("/sys/devices/system/cpu/nohz_full").unwrap_or_default();
    let iso = parse_list(&isolated);
    let on_isolated = cores.iter().filter(|c| iso.contains(c)).count();
    push(
        f,
        "isolated cores",
        on_isolated == 0,
        format!(
            "isolated: {}; nohz_full: {}; of this process's cores {on_isolated} isolated",
            if isolated.is_empty() { "none" } else { &isolated },
            if nohz.is_empty() || nohz == "(null)" { "none" } else { &nohz }
        ),
        "boot with isolcpus=2-3 nohz_full=2-3 (the chain's cores) and run it there (taskset, or -cm): no other task, timer tick or kernel thread then shares them",
    );
    if let Some(cg) = read("/proc/self/cgroup").and_then(|c| {
        c.lines()
            .last()
            .map(|l| l.rsplit(':').next().unwrap_or("").to_string())
    }) {
        let cpus = read(format!("/sys/fs/cgroup{cg}/cpuset.cpus.effective"));
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

fn smt(cores: &[usize], f: &mut Vec<Finding>) {
    let mut shared = Vec::new();
    for &c in cores {
        let sib = read(format!(
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
            "no core of this process shares its physical core".into()
        } else {
            format!("siblings among the cores: {}", shared.join("; "))
        },
        "pin the chain's threads to one logical core per physical core (-cm), or turn SMT off (echo off > /sys/devices/system/cpu/smt/control)",
    );
}

fn frequency(f: &mut Vec<Finding>) {
    match read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") {
        Some(g) => {
            let lo =
                read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq").unwrap_or_default();
            let hi =
                read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq").unwrap_or_default();
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
        let Some(name) = read(format!("{d}/name")) else {
            break;
        };
        let lat = read(format!("{d}/latency")).unwrap_or_default();
        let off = read(format!("{d}/disable")).is_some_and(|v| v == "1");
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

fn rt_limits(f: &mut Vec<Finding>) {
    let runtime = read("/proc/sys/kernel/sched_rt_runtime_us").unwrap_or_else(|| "unknown".into());
    push(
        f,
        "RT throttling",
        runtime != "-1",
        format!("sched_rt_runtime_us = {runtime} (of sched_rt_period_us {})", read("/proc/sys/kernel/sched_rt_period_us").unwrap_or_default()),
        "a SCHED_FIFO thread is stopped for the rest of each period once RT tasks used that much of it: echo -1 > /proc/sys/kernel/sched_rt_runtime_us, or keep the chain's duty below it",
    );
    // SCHED_FIFO, tried on a thread of its own (undone as it ends).
    let fifo = std::thread::spawn(|| {
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
    .unwrap_or(false);
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills the struct it is given.
    let rtprio =
        unsafe { libc::getrlimit(libc::RLIMIT_RTPRIO, &mut rl) == 0 }.then_some(rl.rlim_cur);
    push(
        f,
        "SCHED_FIFO",
        !fifo,
        format!(
            "{} (RLIMIT_RTPRIO {})",
            if fifo { "permitted" } else { "refused" },
            rtprio.map_or("unknown".into(), |v| if v == libc::RLIM_INFINITY { "unlimited".into() } else { v.to_string() })
        ),
        "run as root, give the binary CAP_SYS_NICE (setcap cap_sys_nice+ep PROGRAM), or raise rtprio in /etc/security/limits.conf: the program's --fifo PRIO needs it",
    );
    let caps = read("/proc/self/status")
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("CapEff:").map(|v| v.trim().to_string()))
        })
        .and_then(|v| u64::from_str_radix(&v, 16).ok());
    let nice = caps.is_some_and(|c| c & (1 << 23) != 0);
    push(
        f,
        "SCHED_DEADLINE",
        !nice,
        format!("CAP_SYS_NICE {}", if nice { "held" } else { "not held" }),
        "SCHED_DEADLINE needs root or CAP_SYS_NICE (RLIMIT_RTPRIO does not give it)",
    );
}

fn memory(f: &mut Vec<Finding>) {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit fills the struct it is given.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_MEMLOCK, &mut rl) == 0 };
    let unlimited = ok && rl.rlim_cur == libc::RLIM_INFINITY;
    push(
        f,
        "mlock limit",
        !unlimited && rl.rlim_cur < (1 << 30),
        if !ok {
            "unknown".into()
        } else if unlimited {
            "RLIMIT_MEMLOCK unlimited".into()
        } else {
            format!("RLIMIT_MEMLOCK {} KiB", rl.rlim_cur / 1024)
        },
        "the program's --mlock keeps its buffers resident only within this limit: ulimit -l unlimited, or memlock in /etc/security/limits.conf",
    );
    let thp =
        read("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_else(|| "unknown".into());
    let defrag =
        read("/sys/kernel/mm/transparent_hugepage/defrag").unwrap_or_else(|| "unknown".into());
    push(
        f,
        "transparent huge pages",
        defrag.contains("[always]"),
        format!("enabled {thp}; defrag {defrag}"),
        "with defrag [always] a page fault may stop to compact memory: echo madvise > /sys/kernel/mm/transparent_hugepage/defrag",
    );
}

fn irqs(cores: &[usize], f: &mut Vec<Finding>) {
    let Ok(dir) = std::fs::read_dir("/proc/irq") else {
        info(f, "IRQs", "/proc/irq not readable".into());
        return;
    };
    let (mut total, mut on) = (0, 0);
    for e in dir.flatten() {
        if let Some(aff) = read(e.path().join("smp_affinity_list")) {
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
        format!("{on} of {total} IRQs may be served on this process's cores"),
        "steer them away: echo 0-1 > /proc/irq/N/smp_affinity_list for each (or irqbalance --banirq / IRQBALANCE_BANNED_CPUS), keeping the chain's cores free",
    );
}

fn clock(f: &mut Vec<Finding>) {
    let src = read("/sys/devices/system/clocksource/clocksource0/current_clocksource")
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
