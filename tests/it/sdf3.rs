//! The `-xr` exports checked by the real SDF3.
//!
//! Every `examples/*.ssc` and a few generated chains (`ssc generate`) are
//! exported with `-xr` — the runtime HSDFG (`-ts reduced 2` and `-ts fixed
//! 2`) and the instantiation HSDFG (`--xr-graph instantiation`) — and each
//! file is given to SDF3's `sdf3analysis-sdf` (release of 7 March 2009,
//! vendored in `third_party/sdf3/`) with `--algo consistency`, `deadlock`,
//! `throughput` and `mcm`. [`check`] wants: SDF3 exits 0 every time, the
//! graph is consistent and deadlock-free, SDF3's maximum cycle mean equals the
//! expected one exactly (for a runtime export, the period `-pr` prints, in
//! whole ns; for an instantiation export, ssc's own MCM of the file read
//! back, in whole µs), and its throughput is 1 / that MCM to the 6 digits it
//! prints.
//!
//! SDF3's exact MCM (`--algo mcm`, the cycle-based algorithm: it prints a
//! fraction) enumerates cycles by depth-first search, exponential in the
//! worst case: instantiation graphs of 70 actors already take 15 s. Graphs
//! that large are checked with `mcm(howard)` instead, which SDF3 computes in
//! doubles and prints to 6 significant digits, so there the comparison is to
//! 6 digits (said so in the summary).
//!
//! SDF3 is found through `SSC_SDF3` (the path of `sdf3analysis-sdf`), which
//! `./test` (README's test command, which `.ci/run` runs) sets after
//! building SDF3 from `third_party/sdf3/` once per machine. Without it the tests that need SDF3
//! print that they are skipped and why (`SSC_SDF3_SKIP`, set by `./test`
//! when it could not build SDF3) straight to the terminal, past the test
//! harness' capture — and under CI or `./test` they fail instead: never a
//! silent pass.

use crate::support;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Longest a single SDF3 run may take before the check fails.
const SDF3_TIMEOUT: Duration = Duration::from_secs(120);

/// Says something on the terminal even when the harness captures output.
fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// `sdf3analysis-sdf`, or `None` after saying why the test is skipped.
fn sdf3(test: &str) -> Option<PathBuf> {
    match std::env::var_os("SSC_SDF3") {
        Some(p) if !p.is_empty() => {
            let p = PathBuf::from(p);
            assert!(
                p.is_file(),
                "SSC_SDF3={} is not a file: unset it to skip the SDF3 tests",
                p.display()
            );
            Some(p)
        }
        _ => {
            let why = std::env::var("SSC_SDF3_SKIP")
                .unwrap_or_else(|_| "SSC_SDF3 is not set".to_string());
            support::skip(
                test,
                &format!(
                    "no SDF3 ({why}). `./test` builds it; by hand: \
                     third_party/sdf3/build.sh DIR, then SSC_SDF3=DIR/sdf3analysis-sdf cargo test --test it sdf3::"
                ),
            );
            None
        }
    }
}

fn ssc(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ssc"))
        .args(args)
        .output()
        .unwrap()
}

/// A whole-number ratio `num / den` (an MCM: weight over tokens).
#[derive(Clone, Copy, Debug)]
struct Ratio {
    num: u64,
    den: u64,
}

impl Ratio {
    fn same(self, other: Ratio) -> bool {
        self.num as u128 * other.den as u128 == other.num as u128 * self.den as u128
    }
    fn value(self) -> f64 {
        self.num as f64 / self.den as f64
    }
}

impl std::fmt::Display for Ratio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.num, self.den)
    }
}

/// Which of SDF3's MCM algorithms [`check`] asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mcm {
    /// `mcm`: the cycle-based algorithm, an exact fraction.
    Exact,
    /// `mcm(howard)`: doubles, 6 significant digits printed.
    Howard,
}

/// What SDF3 said about a file that passed.
#[derive(Debug)]
struct Verdict {
    /// Whether the MCM was compared exactly.
    exact: bool,
}

/// Runs a program, killing it after `timeout`; its stdout, stderr and
/// whether it exited 0.
fn run_with_timeout(
    cmd: &mut Command,
    timeout: Duration,
) -> Result<(String, String, bool), String> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run: {e}"))?;
    let start = Instant::now();
    loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(_) => break,
            None if start.elapsed() > timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {} s", timeout.as_secs()));
            }
            None => std::thread::sleep(Duration::from_millis(5)),
        }
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    Ok((
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    ))
}

/// The value after `PREFIX(name) = ` on a line of SDF3's output.
fn value_after<'a>(stdout: &'a str, prefix: &str) -> Option<&'a str> {
    stdout
        .lines()
        .find(|l| l.starts_with(prefix))
        .and_then(|l| l.split_once(") = "))
        .map(|(_, v)| v.trim())
}

/// SDF3's exact MCM as printed: `N` or `N/D`.
fn parse_fraction(v: &str) -> Option<Ratio> {
    let (n, d) = v.split_once('/').unwrap_or((v, "1"));
    let r = Ratio {
        num: n.trim().parse().ok()?,
        den: d.trim().parse().ok()?,
    };
    (r.den > 0).then_some(r)
}

/// Checks one SDF3 file with the real SDF3: it must exit 0 for
/// `consistency`, `deadlock`, `throughput` and `mcm`, say the graph is
/// consistent and deadlock-free, give `expected` as its MCM (exactly with
/// [`Mcm::Exact`], to SDF3's 6 printed digits with [`Mcm::Howard`]) and
/// 1 / `expected` as its throughput (6 digits). An `Err` says what failed.
fn check(sdf3: &Path, xml: &Path, expected: Ratio, mcm: Mcm) -> Result<Verdict, String> {
    let run = |algo: &str| -> Result<String, String> {
        let (stdout, stderr, ok) = run_with_timeout(
            Command::new(sdf3)
                .arg("--graph")
                .arg(xml)
                .arg("--algo")
                .arg(algo),
            SDF3_TIMEOUT,
        )
        .map_err(|e| format!("{}: --algo {algo}: {e}", xml.display()))?;
        if !ok {
            return Err(format!(
                "{}: --algo {algo}: SDF3 failed: {}{}",
                xml.display(),
                stderr.trim(),
                stdout.trim()
            ));
        }
        Ok(stdout)
    };
    let fail = |what: String| format!("{}: {what}", xml.display());

    let out = run("consistency")?;
    if !out.lines().any(|l| l.trim() == "Graph is consistent.") {
        return Err(fail(format!("not consistent: {}", out.trim())));
    }
    let out = run("deadlock")?;
    if !out.lines().any(|l| l.trim() == "Graph is deadlock free.") {
        return Err(fail(format!("not deadlock-free: {}", out.trim())));
    }
    let out = run("throughput")?;
    let thr: f64 = value_after(&out, "thr(")
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| fail(format!("no throughput in `{}`", out.trim())))?;
    if (thr * expected.value() - 1.0).abs() > 1e-5 {
        return Err(fail(format!(
            "SDF3's throughput {thr} is not 1 / {expected} = {}",
            1.0 / expected.value()
        )));
    }
    let algo = match mcm {
        Mcm::Exact => "mcm",
        Mcm::Howard => "mcm(howard)",
    };
    let out = run(algo)?;
    let v = value_after(&out, "MCM(")
        .ok_or_else(|| fail(format!("no MCM in `{}`", out.trim())))?
        .to_string();
    match mcm {
        Mcm::Exact => {
            let got = parse_fraction(&v)
                .ok_or_else(|| fail(format!("SDF3's MCM `{v}` is not a fraction")))?;
            if !got.same(expected) {
                return Err(fail(format!("SDF3's MCM {v} is not {expected}")));
            }
        }
        Mcm::Howard => {
            let got: f64 = v
                .parse()
                .map_err(|_| fail(format!("SDF3's MCM `{v}` is not a number")))?;
            if (got / expected.value() - 1.0).abs() > 1e-5 {
                return Err(fail(format!("SDF3's MCM {v} is not {expected}")));
            }
        }
    }
    Ok(Verdict {
        exact: mcm == Mcm::Exact,
    })
}

/// `-pr`'s period as printed: `(maximum cycle mean = W ns / T tokens)`.
fn pr_period(stdout: &str) -> Option<Ratio> {
    let rest = stdout.split("maximum cycle mean = ").nth(1)?;
    let (w, rest) = rest.split_once(" ns / ")?;
    let (t, _) = rest.split_once(" tokens")?;
    Some(Ratio {
        num: w.trim().parse().ok()?,
        den: t.trim().parse().ok()?,
    })
}

/// ssc's own MCM of an SDF3 file read back (the instantiation export).
fn own_mcm(xml: &str) -> Ratio {
    let g = support::hsdf_xml::read_hsdf(xml).unwrap();
    let edges: Vec<ssc::analysis::mcm::Edge> = g
        .channels
        .iter()
        .map(|&(a, b, t)| (a, b, g.actors[a].1, t))
        .collect();
    let c = ssc::analysis::mcm::max_cycle_ratio(g.actors.len(), &edges)
        .unwrap()
        .expect("a cycle (every actor has a self-loop)");
    Ratio {
        num: c.weight,
        den: c.tokens,
    }
}

/// One file for SDF3 and what it must say.
struct Job {
    label: String,
    xml: PathBuf,
    expected: Ratio,
    mcm: Mcm,
    /// Whether `expected` is `-pr`'s period (a runtime export).
    period: bool,
}

/// Exports `file` with `-xr`: the runtime graph under each schedule (with
/// `-pr`'s period) and the instantiation graph (the same under both
/// schedules: checked, then given once).
fn exports(file: &Path, dir: &Path, mcm: Mcm) -> Vec<Job> {
    let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
    let mut jobs = Vec::new();
    let mut instantiation: Option<String> = None;
    // Fused splits into strips of its own: its runtime graph only (the
    // instantiation export is the one shared by the other two).
    for ts in ["reduced", "fixed", "fused"] {
        let graphs: &[&str] = if ts == "fused" {
            &["runtime"]
        } else {
            &["runtime", "instantiation"]
        };
        for &graph in graphs {
            let xml = dir.join(format!("{stem}-{ts}2-{graph}.xml"));
            let strips: &[&str] = if ts == "fused" {
                &["--strip-rows", "64"]
            } else {
                &[]
            };
            // A kernel of one's own is known with its --kernels file (E038).
            let kernels = support::kernel_args(&std::fs::read_to_string(file).unwrap());
            let kernels: Vec<&str> = kernels.iter().map(String::as_str).collect();
            let out = ssc(&[
                &["build", file.to_str().unwrap(), "-ts", ts, "2"][..],
                &kernels,
                strips,
                &[
                    "-pr",
                    "-xr",
                    "--xr-graph",
                    graph,
                    "--xr-output",
                    xml.to_str().unwrap(),
                    "-t",
                    "info",
                ][..],
            ]
            .concat());
            assert!(
                out.status.success(),
                "{stem} -ts {ts} 2 --xr-graph {graph}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = std::fs::read_to_string(&xml).unwrap();
            let label = format!("{stem} -ts {ts} 2 --xr-graph {graph}");
            if graph == "runtime" {
                let stdout = String::from_utf8_lossy(&out.stdout);
                let period = pr_period(&stdout)
                    .unwrap_or_else(|| panic!("{label}: no period in -pr's output:\n{stdout}"));
                jobs.push(Job {
                    label,
                    xml,
                    expected: period,
                    mcm,
                    period: true,
                });
            } else if let Some(first) = &instantiation {
                assert_eq!(
                    first, &text,
                    "{stem}: the instantiation export depends on -ts"
                );
            } else {
                jobs.push(Job {
                    label: format!("{stem} --xr-graph instantiation"),
                    xml,
                    expected: own_mcm(&text),
                    mcm,
                    period: false,
                });
                instantiation = Some(text);
            }
        }
    }
    jobs
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssc-sdf3-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Generated chains: (seed, boxes, MCM algorithm). The small ones are
/// within reach of SDF3's exact (cycle-enumerating) MCM; the default-sized
/// one is not, and is compared to Howard's 6 digits.
const GENERATED: &[(u64, u64, Mcm)] = &[
    (2, 30, Mcm::Exact),
    (3, 20, Mcm::Exact),
    (9, 25, Mcm::Exact),
    (1, 100, Mcm::Howard),
];

#[test]
fn sdf3_agrees_with_every_export() {
    let Some(sdf3) = sdf3("sdf3_agrees_with_every_export") else {
        return;
    };
    let dir = scratch("all");
    let mut jobs = Vec::new();
    let mut examples: Vec<PathBuf> = std::fs::read_dir("examples")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ssc"))
        .collect();
    examples.sort();
    assert!(examples.len() >= 6, "{examples:?}");
    for file in &examples {
        jobs.extend(exports(file, &dir, Mcm::Exact));
    }
    for &(seed, boxes, mcm) in GENERATED {
        let out = ssc(&[
            "generate",
            "--seed",
            &seed.to_string(),
            "--boxes",
            &boxes.to_string(),
        ]);
        assert!(out.status.success());
        let file = dir.join(format!("gen{seed}x{boxes}.ssc"));
        std::fs::write(&file, &out.stdout).unwrap();
        jobs.extend(exports(&file, &dir, mcm));
    }

    // Two at a time (the machine has 2 cores).
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Result<Verdict, String>)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(job) = jobs.get(i) else { break };
                let r = check(&sdf3, &job.xml, job.expected, job.mcm);
                results.lock().unwrap().push((i, r));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);

    let mut failures = Vec::new();
    let (mut periods, mut own, mut approx) = (0, 0, 0);
    for (i, r) in &results {
        let job = &jobs[*i];
        match r {
            Ok(v) => match (v.exact, job.period) {
                (true, true) => periods += 1,
                (true, false) => own += 1,
                (false, _) => approx += 1,
            },
            Err(e) => failures.push(format!("{}: {e}", job.label)),
        }
    }
    say(&format!(
        "SDF3 checked {} -xr exports ({} files): consistent, deadlock-free, exit 0; \
         MCM = -pr's period exactly on {periods} runtime exports, = ssc's own MCM exactly on \
         {own} instantiation exports, to 6 digits (mcm(howard)) on {approx}",
        results.len(),
        examples.len() + GENERATED.len()
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(results.len(), jobs.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_broken_export_fails_the_check() {
    let Some(sdf3) = sdf3("a_broken_export_fails_the_check") else {
        return;
    };
    let dir = scratch("broken");
    let jobs = exports(Path::new("examples/appendix.ssc"), &dir, Mcm::Exact);
    let job = &jobs[0];
    assert!(job.period);
    check(&sdf3, &job.xml, job.expected, Mcm::Exact).expect("the intact export passes");

    // A wrong expected period fails it.
    let wrong = Ratio {
        num: job.expected.num + 1,
        den: job.expected.den,
    };
    let e = check(&sdf3, &job.xml, wrong, Mcm::Exact).unwrap_err();
    assert!(e.contains("throughput") || e.contains("MCM"), "{e}");

    // One channel's input port dropped from its actor: SDF3 refuses the file.
    let xml = std::fs::read_to_string(&job.xml).unwrap();
    let port = "<port name=\"i0\" type=\"in\" rate=\"1\"/>";
    assert_eq!(xml.matches(port).count(), 1);
    let broken = dir.join("broken.xml");
    std::fs::write(&broken, xml.replacen(port, "", 1)).unwrap();
    let e = check(&sdf3, &broken, job.expected, Mcm::Exact).unwrap_err();
    assert!(e.contains("SDF3 failed") && e.contains("i0"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn xr_graph_chooses_the_exported_graph() {
    // Needs no SDF3: the default is the runtime graph (times in ns, -pr's
    // graph), `--xr-graph instantiation` the sub-boxes' HSDFG (self-loop
    // ports), and `--xr-graph` without -xr is a usage error.
    let dir = scratch("choose");
    let read = |extra: &[&str]| {
        let xml = dir.join("g.xml");
        let mut args = vec![
            "build",
            "examples/diamond.ssc",
            "-ts",
            "reduced",
            "2",
            "-xr",
            "--xr-output",
            xml.to_str().unwrap(),
            "-t",
            "info",
        ];
        args.extend_from_slice(extra);
        let out = ssc(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read_to_string(&xml).unwrap()
    };
    let default = read(&[]);
    assert!(default.contains("runtime HSDFG of ssc"), "{default}");
    assert_eq!(default, read(&["--xr-graph", "runtime"]));
    let inst = read(&["--xr-graph", "instantiation"]);
    assert!(!inst.contains("runtime HSDFG"), "{inst}");
    assert!(inst.contains("<port name=\"so\""), "{inst}");
    let out = ssc(&["build", "examples/diamond.ssc", "--xr-graph", "runtime"]);
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
