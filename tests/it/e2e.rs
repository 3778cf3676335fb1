//! End to end (runtime-c/README.md): descriptions → `ssc build` → C compiled
//! with warnings as errors → programs run; every configuration must print
//! the checksum of a one-thread reference. Also ThreadSanitizer, SIGINT,
//! the JSON report, a user kernel, `ssc run`.
//!
//! Two builds or runs at a time (`support::slot`); the runtime objects are
//! compiled once per toolchain (see `support`). `SSC_E2E_ITERATIONS`
//! overrides the iteration counts of the checksum matrices.

use crate::support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::*;

/// Every scheduler (`support::schedulers`), fused within a 1 MB cache
/// budget so that these small chains stream strips.
fn all_schedulers() -> Vec<String> {
    schedulers()
        .into_iter()
        .map(|s| match s.starts_with("fused") {
            true => format!("{s} --cache-bytes 1M"),
            false => s,
        })
        .collect()
}
/// The synchronisation options, each on a pinned and an OS-scheduled program.
const SYNC: [&str; 9] = [
    "-ab",
    "-ai",
    "-ss",
    "-st",
    "-ks -ki 3",
    "-kd 2",
    "-ks -ki 2 -kd 1 -ab",
    "-cd",
    "-ai -st -vo",
];
/// One configuration per scheduler, each with another memory schedule and
/// sync option: the diagonal for the other inputs.
const DIAGONAL: [&str; 8] = [
    "-ts simple -ms none",
    "-ts barrier -ms naive -ab",
    "-ts fixed 2 -ms reuse -st",
    "-ts predictable 2 -ms interference -ss -kd 2",
    "-ts reduced 2 -ms mesif -cm 0,1 -ca -vo",
    "-ts fused 2 --strip-rows 4 -vo",
    "-ts fused 3 -ms fold --strip-rows 8 -ab",
    "-ts reduced 2 -ms fold",
];

fn iterations(default: u64) -> u64 {
    std::env::var("SSC_E2E_ITERATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root(rel)).unwrap()
}

/// Appendix A in the forms the pipeline accepts. `timed` keeps the
/// composition, declaration, instantiation and the runtime's timing table
/// but not its schedule, so every scheduler runs on the thesis' two strips
/// with the thesis' times (without times the schedulers put this small
/// chain on one thread).
struct Appendix {
    composition: std::path::PathBuf,
    declaration: std::path::PathBuf,
    timed: std::path::PathBuf,
}

fn appendix_forms(tag: &str) -> Appendix {
    let dir = scratch(&format!("inputs-{tag}"));
    let text = read("examples/appendix.ssc");
    let mut timed = sections_before(&text, "thread_schedule");
    timed.push_str("}\n");
    Appendix {
        composition: write_input(
            &dir,
            "appendix_c.ssc",
            &sections_before(&text, "declaration"),
        ),
        declaration: write_input(
            &dir,
            "appendix_cd.ssc",
            &sections_before(&text, "instantiation"),
        ),
        timed: write_input(&dir, "appendix_timed.ssc", &timed),
    }
}

fn matrix(file: &std::path::Path) -> Vec<Case> {
    let mut v = Vec::new();
    for ts in all_schedulers() {
        for ms in memory_schedules() {
            v.push(Case::new(file, &format!("-ts {ts} -ms {ms}")));
        }
    }
    v
}

fn sync_cases(file: &std::path::Path) -> Vec<Case> {
    SYNC.iter()
        .flat_map(|s| {
            [
                Case::new(file, &format!("-ts reduced 2 {s}")),
                Case::new(file, &format!("-ts simple -ms naive {s}")),
            ]
        })
        .collect()
}

/// Each synchronisation option once, on a pinned and an OS-scheduled
/// program in turn (xray: its programs take seconds to compile; the
/// appendix has every pair).
fn sync_cases_once(file: &std::path::Path) -> Vec<Case> {
    SYNC.iter()
        .enumerate()
        .map(|(i, s)| match i % 2 {
            0 => Case::new(file, &format!("-ts reduced 2 {s}")),
            _ => Case::new(file, &format!("-ts simple -ms naive {s}")),
        })
        .collect()
}

fn threads_of(cases: &[Case], threads: &[usize], args: &str) -> usize {
    let i = cases
        .iter()
        .position(|c| c.args.join(" ") == args)
        .unwrap_or_else(|| panic!("no case `{args}`"));
    threads[i]
}

#[test]
fn appendix_every_scheduler_memory_schedule_and_sync_option() {
    let a = appendix_forms("appendix");
    let mut cases = vec![
        Case::new(&a.composition, "-dp none -ts fixed 1"),
        Case::new(&a.composition, "-ts fixed 1"),
        Case::new(&a.composition, "-ts reduced 2"),
        Case::new(&a.declaration, "-ts predictable 2 -ms naive"),
        // As written: the hand-made runtime section is proven and honoured.
        Case::new(root("examples/appendix.ssc"), ""),
        Case::new(root("examples/appendix.ssc"), "-vo"),
        Case::new(&a.timed, "-ts fixed 1"),
        Case::new(&a.timed, "--no-threadexecution"),
        Case::new(&a.timed, "-ts reduced 2 -cm 0,1 -ca"),
        Case::new(&a.timed, "-ts fixed 2 -cm 1,0"),
        Case::new(&a.timed, "-ts barrier -ms reuse -cm 1"),
    ];
    cases.extend(matrix(&a.timed));
    cases.extend(sync_cases(&a.timed));
    let threads = same_checksums(gcc(), "appendix", &cases, iterations(100));
    // The premise of the matrix: the schedulers really use two threads here.
    for ts in ["fixed 2", "predictable 2", "reduced 2"] {
        let n = threads_of(&cases, &threads, &format!("-ts {ts} -ms interference"));
        assert_eq!(n, 2, "appendix_timed -ts {ts}: {n} threads");
    }
}

#[test]
fn xray_every_scheduler_memory_schedule_and_sync_option() {
    let xray = root("examples/xray.ssc");
    let mut cases = vec![
        Case::new(&xray, "-dp none -ts fixed 1"),
        Case::new(&xray, "-ts fixed 1"),
        Case::new(&xray, "-ts reduced 2 --no-threadexecution"),
        Case::new(&xray, "-ts reduced 2 -dp some -mdp 3"),
        Case::new(&xray, "-ts predictable 2 -gpp"),
        Case::new(&xray, "-ts fixed 2 -wt false"),
        Case::new(&xray, "-ts fused 2 --strip-rows 3"),
        Case::new(&xray, "-ts fused 3 --cache-bytes 64K"),
        Case::new(&xray, "-ts fused 2 -ms fold --no-threadexecution"),
    ];
    cases.extend(matrix(&xray));
    cases.extend(sync_cases_once(&xray));
    let threads = same_checksums(gcc(), "xray", &cases, iterations(25));
    for ts in [
        "fixed 2",
        "predictable 2",
        "reduced 2",
        "fused 2 --cache-bytes 1M",
    ] {
        let n = threads_of(&cases, &threads, &format!("-ts {ts} -ms mesif"));
        assert_eq!(n, 2, "xray -ts {ts}: {n} threads");
    }
}

/// The inputs with a scheduler × memory matrix of their own, with the
/// diagonal's synchronisation and affinity options (appendix and xray
/// here, fluoro in vocabulary.rs, fluoro_temporal in delays.rs).
const OWN_MATRIX: [&str; 4] = [
    "appendix.ssc",
    "xray.ssc",
    "fluoro.ssc",
    "fluoro_temporal.ssc",
];

/// Every other `examples/*.ssc` and every `tests/in/*.ssc` that lowers:
/// a reference and the diagonal.
#[test]
fn other_examples_and_inputs_on_the_diagonal() {
    for f in inputs() {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if OWN_MATRIX.contains(&name.as_str()) {
            continue;
        }
        // A kernel of one's own is known only with its --kernels file (E038).
        let own = kernel_args(&std::fs::read_to_string(&f).unwrap());
        let lowers = Command::new(SSC)
            .arg("build")
            .arg(&f)
            .args(["-t", "interpreter"])
            .args(&own)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap();
        if lowers.code() == Some(1) {
            eprintln!("note: {name} does not lower (an input error): not built");
            continue;
        }
        let mut cases = vec![Case::new(&f, "-dp none -ts fixed 1")];
        cases.extend(DIAGONAL.iter().map(|d| Case::new(&f, d)));
        for c in &mut cases {
            c.args.extend(own.iter().cloned());
        }
        same_checksums(gcc(), &name, &cases, iterations(50));
    }
}

/// `ssc generate` chains of 12 to 25 boxes at 32×32, a handful of seeds.
#[test]
fn generated_chains_give_the_reference_checksum() {
    let dir = scratch("inputs-generated");
    for seed in 1..=5u64 {
        let file = generated_chain(&dir, seed);
        let cases = [
            "-dp none -ts fixed 1",
            "-ts simple -ms naive",
            "-ts reduced 2 -ms interference",
            "-ts predictable 2 -ms mesif -ab",
            "-ts fixed 2 -ms reuse -st -kd 1",
            "-ts fused 2 --strip-rows 2",
            "-ts fused 3 --strip-rows 5 -ms fold -st",
        ]
        .map(|a| Case::new(&file, a));
        same_checksums(
            gcc(),
            &format!("generated seed {seed}"),
            &cases,
            iterations(50),
        );
    }
}

/// A chain long enough that the generated functions come in parts (more
/// than 500 signals, ports, sub-boxes or operations of one thread: see
/// `back/c/view.rs`): builds warning-free and agrees with the one-thread
/// reference, whose single thread has every operation.
#[test]
fn long_programs_in_parts_agree() {
    let dir = scratch("inputs-long");
    let file = write_input(&dir, "long.ssc", &generate(300, 3, "16,16"));
    let cases = [
        "-ts fixed 1 -mdp 4 -ms naive",
        "-ts reduced 2 -ms interference",
        "-ts predictable 2 -ms reuse -ss",
    ]
    .map(|a| Case::new(&file, a));
    let (out_dir, exe) = (dir.join("parts"), dir.join("parts/long"));
    let (out_dir, exe) = (out_dir.to_str().unwrap(), exe.to_str().unwrap());
    let input = file.to_str().unwrap();
    ssc_ok([
        "build", input, "-ts", "fixed", "1", "-mdp", "4", "-od", out_dir, "-o", exe,
    ]);
    let c = std::fs::read_to_string(dir.join("parts/long.c")).unwrap();
    // The parts compile without optimisation (gcc's optimisers took most
    // of a large chain's build on them; docs/fused.md).
    assert!(c.contains("#define SSC_PART __attribute__((noinline, optimize(\"O0\")))"));
    for part in [
        "init_ports_part1",
        "init_boxes_part1",
        "thread_thread0_part1",
    ] {
        assert!(
            c.contains(&format!("SSC_PART static void {part}(")),
            "no {part}"
        );
        let called =
            c.contains(&format!("    {part}(chain);")) || c.contains(&format!("    {part}(t);"));
        assert!(called, "{part} never called");
    }
    same_checksums(gcc(), "300 boxes in parts", &cases, iterations(20));
}

#[test]
fn clang_builds_warning_free_and_agrees() {
    if !on_path("clang") {
        support::skip(
            "clang_builds_warning_free_and_agrees",
            "clang is not on PATH (`./test` installs it)",
        );
        return;
    }
    let tc = Toolchain::new("clang", "clang", "-O2 -Werror").unwrap_or_else(|e| panic!("{e}"));
    let a = appendix_forms("clang");
    let xray = root("examples/xray.ssc");
    let mut cases = vec![Case::new(&a.composition, "-dp none -ts fixed 1")];
    cases.extend(
        [
            "-ts simple -ms none -ab",
            "-ts reduced 2 -ms interference -vo",
            "-ts predictable 2 -ms mesif -ks -ki 3",
        ]
        .map(|o| Case::new(&a.timed, o)),
    );
    same_checksums(&tc, "appendix (clang)", &cases, iterations(100));
    let mut cases = vec![Case::new(&xray, "-dp none -ts fixed 1")];
    cases.extend(DIAGONAL.iter().map(|d| Case::new(&xray, d)));
    same_checksums(&tc, "xray (clang)", &cases, iterations(30));
    // And the bits gcc's program computes: xray's defined functions have
    // `a * b + c`, which clang contracts into one rounding unless told
    // not to (`-ffp-contract=off`, always given).
    let dir = scratch("clang-gcc");
    let case = Case::new(&xray, "-ts fused 2 --inline");
    let (by_clang, _) = build_and_run(&tc, &case, 5, &dir.join("clang")).unwrap();
    let (by_gcc, _) = build_and_run(gcc(), &case, 5, &dir.join("gcc")).unwrap();
    assert_eq!(by_clang, by_gcc, "xray: clang's checksum, then gcc's");
}

#[test]
fn thread_sanitizer_finds_nothing() {
    let dir = scratch("tsan");
    let a = appendix_forms("tsan");
    let xray = small_xray("tsan");
    let generated = write_input(&dir, "gen3.ssc", &generate(20, 3, "32,32"));
    let cases = [
        Case::new(&a.timed, "-ts reduced 2 -ms interference"),
        Case::new(&xray, "-ts simple -ms naive"),
        Case::new(&xray, "-ts predictable 2 -ms mesif -ab"),
        Case::new(&generated, "-ts reduced 2 -ms interference -st -kd 1"),
        Case::new(&xray, "-ts fused 2 --strip-rows 4"),
        // Stage fusion: the contrast inside nr0, which reads up1 as well.
        Case::new(&xray, "-ts fused 2 --strip-rows 4 --inline"),
        Case::new(&generated, "-ts fused 2 --strip-rows 3"),
    ];
    under_tsan("tsan", &dir, &cases);
}

/// `iterations: N of M (stopped by signal)` → N.
fn stopped_at(stdout: &str, requested: u64) -> u64 {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("iterations: "))
        .unwrap_or_else(|| panic!("no iterations line:\n{stdout}"));
    let suffix = format!(" of {requested} (stopped by signal)");
    let n = line
        .strip_prefix("iterations: ")
        .and_then(|l| l.strip_suffix(&suffix))
        .unwrap_or_else(|| panic!("not stopped by the signal: `{line}`"));
    n.parse().unwrap()
}

/// Starts `exe args`, sends SIGINT after `after`, waits (with a deadline);
/// (exit code, stdout).
fn interrupt(
    exe: &std::path::Path,
    args: &[&str],
    dir: &std::path::Path,
    after: Duration,
) -> (Option<i32>, String) {
    let _s = slot();
    let mut child = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    let pid = child.id().to_string();
    let killed = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(killed.success(), "kill -INT {pid}");
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("{} did not stop within 30 s of SIGINT", exe.display());
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (status.code(), reader.join().unwrap())
}

#[test]
fn sigint_stops_at_an_iteration_boundary_with_a_complete_report_and_dump() {
    let a = appendix_forms("sigint");
    let dir = scratch("sigint");
    let case = Case::new(&a.timed, "-ts fixed 2 -td csv");
    let exe = build(gcc(), &case, &dir).unwrap_or_else(|e| panic!("{e}"));
    let dump = dir.join("timings.csv");
    let dump_arg = dump.to_string_lossy().into_owned();
    let (code, out) = interrupt(
        &exe,
        &["--iterations", "1000000", "--dump", &dump_arg],
        &dir,
        Duration::from_millis(500),
    );
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("program: appendix_timed, 2 threads"), "{out}");
    let n = stopped_at(&out, 1_000_000);
    assert!((1..1_000_000).contains(&n), "{out}");
    assert!(
        out.contains(&format!("latency (us): count {n} ")),
        "the latency line counts the {n} iterations:\n{out}"
    );
    let csv = std::fs::read_to_string(&dump).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("record,index,name,iteration,a_ns,b_ns"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(
        rows.len() as u64,
        n,
        "one latency row per completed iteration"
    );
    for (i, row) in rows.iter().enumerate() {
        let f: Vec<&str> = row.split(',').collect();
        assert_eq!(f.len(), 6, "{row}");
        assert_eq!((f[0], f[3]), ("latency", i.to_string().as_str()), "{row}");
        let (a, b): (u64, u64) = (f[4].parse().unwrap(), f[5].parse().unwrap());
        assert!(a <= b, "{row}");
    }
    // The checksum of the stopped run is that of a normal run of N.
    let sum = out
        .lines()
        .find_map(|l| l.strip_prefix("checksum: "))
        .unwrap();
    let ran = run_in(
        &[],
        &exe,
        &["--iterations", &n.to_string()],
        &[],
        &dir,
        RUN_DEADLINE,
    )
    .unwrap();
    assert_eq!(ran.checksum(), Some(sum), "{}", ran.stdout);

    // The same stop with the JSON report and a JSON dump.
    let dump = dir.join("timings.json");
    let dump_arg = dump.to_string_lossy().into_owned();
    let (code, out) = interrupt(
        &exe,
        &[
            "--iterations",
            "1000000",
            "--json",
            "--dump",
            &dump_arg,
            "--dump-format",
            "json",
        ],
        &dir,
        Duration::from_millis(300),
    );
    assert_eq!(code, Some(0), "{out}");
    let report: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(report["stopped_by_signal"], true, "{out}");
    assert_eq!(report["requested"], 1_000_000, "{out}");
    let n = report["iterations"].as_u64().unwrap();
    assert_eq!(report["latency_us"]["count"].as_u64(), Some(n), "{out}");
    let dumped: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&dump).unwrap()).unwrap();
    assert_eq!(dumped["iterations"].as_u64(), Some(n));
    assert_eq!(
        dumped["latency"]["end_ns"].as_array().map(Vec::len),
        Some(n as usize)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_json_report_parses_and_agrees_with_the_text_report() {
    let dir = scratch("json");
    let xray = small_xray("json");
    let exe = build(gcc(), &Case::new(&xray, "-ts reduced 2 -ta -tt"), &dir)
        .unwrap_or_else(|e| panic!("{e}"));
    let text = run_in(&[], &exe, &["--iterations", "20"], &[], &dir, RUN_DEADLINE).unwrap();
    let json = run_in(
        &[],
        &exe,
        &["--iterations", "20", "--json"],
        &[],
        &dir,
        RUN_DEADLINE,
    )
    .unwrap();
    assert!(json.status.success(), "{}", json.stderr);
    let v: serde_json::Value =
        serde_json::from_str(&json.stdout).unwrap_or_else(|e| panic!("{e}: {}", json.stdout));
    assert_eq!(v["program"], "xray_small");
    assert_eq!(v["threads"], 2);
    assert_eq!(v["iterations"], 20);
    assert_eq!(v["requested"], 20);
    assert_eq!(v["stopped_by_signal"], false);
    let lat = &v["latency_us"];
    assert_eq!(lat["count"], 20);
    for k in ["mean", "stddev", "min", "p50", "p99", "p99_9", "max"] {
        assert!(lat[k].as_f64().is_some(), "latency_us.{k}: {}", json.stdout);
    }
    assert!(lat["min"].as_f64() <= lat["max"].as_f64());
    assert_eq!(v["checksum"].as_str(), text.checksum(), "{}", text.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_user_kernel_is_compiled_in_and_runs() {
    let dir = scratch("user-kernel");
    let kernels = root("examples/kernels/invert.c");
    let mut case = Case::new(root("examples/user_kernel.ssc"), "-ts simple -ms naive");
    case.args.push("--kernels".into());
    case.args.push(kernels.to_string_lossy().into_owned());
    let (sum, threads) = build_and_run(gcc(), &case, 20, &dir).unwrap_or_else(|e| panic!("{e}"));
    assert!(threads >= 2, "{threads} threads");
    let d = dir.join(
        std::fs::read_dir(&dir)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .file_name(),
    );
    let c = std::fs::read_to_string(d.join("user_kernel.c")).unwrap();
    assert!(
        c.contains("void func_invert(const ssc_call *call);  /* --kernels */"),
        "the generated C declares the user kernel"
    );
    assert!(c.contains(", func_invert, "), "a box runs it");
    assert!(d.join("user_invert.c").exists());
    eprintln!("user_kernel.ssc with invert.c: {sum}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_function_without_an_implementation_is_e038_before_cc_runs() {
    let dir = scratch("e301");
    let out = Command::new(SSC)
        .arg("build")
        .arg(root("examples/user_kernel.ssc"))
        .arg("-od")
        .arg(&dir)
        // If cc ran, this would fail with exit 3, not 1.
        .env("CC", dir.join("no-such-cc"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("error[E038]"), "{err}");
    assert!(err.contains("func_invert"), "{err}");
    // Labelled where the description binds it.
    assert!(err.contains("examples/user_kernel.ssc:"), "{err}");
    assert!(err.contains("bound here"), "{err}");
    assert!(
        err.contains("--kernels"),
        "the hint names the option: {err}"
    );
    assert!(!dir.join("user_kernel.c").exists(), "nothing is written");
    assert!(!dir.join("user_kernel").exists());
}

#[test]
fn ssc_run_builds_runs_and_prints_the_report() {
    let dir = scratch("run");
    let out = {
        let _s = slot();
        Command::new(SSC)
            .args(["run", &root("examples/appendix.ssc").to_string_lossy()])
            .arg("-od")
            .arg(&dir)
            .args(["--", "--iterations", "20"])
            .env("CC", "cc")
            .output()
            .unwrap()
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("program: appendix, 2 threads"), "{stdout}");
    assert!(stdout.contains("iterations: 20 of 20"), "{stdout}");
    assert!(stdout.contains("latency (us): count 20 "), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("checksum: 0x") && l.len() == "checksum: 0x".len() + 16),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_threadexecution_leaves_the_programs_out_of_the_printed_runtime_only() {
    let a = appendix_forms("te");
    let print = |extra: &[&str]| {
        let out = run_ok(
            Command::new(SSC)
                .arg("build")
                .arg(&a.timed)
                .args(["-ts", "reduced", "2", "-t", "interpreter"])
                .args(extra),
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let with = print(&[]);
    let without = print(&["--no-threadexecution"]);
    assert!(with.contains("thread_execution") && with.contains("signal"));
    assert!(!without.contains("thread_execution"), "{without}");
    assert!(!without.contains("signal "), "{without}");
    assert!(without.contains("thread_schedule") && without.contains("memory_mapping"));
    // The program still runs its programs: covered by the matrices
    // (`--no-threadexecution` cases give the reference checksum).
}
