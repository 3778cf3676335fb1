//! What the end-to-end tests share: building with `ssc build`, running the
//! program with a deadline, comparing checksums, two jobs at a time.
//!
//! Speed: compiling the built-in kernels takes ~5 s and is the same for every
//! program; ssc keeps the runtime's objects in its cache (the suite's own,
//! [`cache::dir`]`/ssc/objects`, keyed by compiler, flags and runtime
//! source), so a [`Toolchain`] builds one real program first
//! (all files compiled by ssc, warnings are errors), which fills the cache
//! for every later build with the same compiler and flags. The generated
//! `NAME.c` is compiled by the command ssc runs, with the same flags.

#![allow(dead_code)]

pub mod cache;
pub mod golden;
pub mod hsdf_xml;

use ssc::memory::MemoryKind;
use ssc::schedule::SchedulerKind;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

pub const ROOT: &str = env!("CARGO_MANIFEST_DIR");
pub const SSC: &str = env!("CARGO_BIN_EXE_ssc");
/// A program that has not finished by then is deadlocked (or far too slow).
pub const RUN_DEADLINE: Duration = Duration::from_secs(90);

pub fn root(rel: &str) -> PathBuf {
    Path::new(ROOT).join(rel)
}

// ---- two jobs at a time, across the whole test binary ---------------------

static BUSY: Mutex<usize> = Mutex::new(0);
static FREED: Condvar = Condvar::new();
const SLOTS: usize = 2;

pub struct Slot;

/// Waits until fewer than two builds or runs are under way in this binary.
pub fn slot() -> Slot {
    let mut busy = BUSY.lock().unwrap_or_else(|e| e.into_inner());
    while *busy >= SLOTS {
        busy = FREED.wait(busy).unwrap_or_else(|e| e.into_inner());
    }
    *busy += 1;
    Slot
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut busy = BUSY.lock().unwrap_or_else(|e| e.into_inner());
        *busy -= 1;
        FREED.notify_one();
    }
}

/// Runs `f` on every item, two at a time, keeping the order of the results.
pub fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let queue = Mutex::new((0..items.len()).collect::<VecDeque<_>>());
    let results = Mutex::new((0..items.len()).map(|_| None).collect::<Vec<Option<R>>>());
    std::thread::scope(|s| {
        for _ in 0..SLOTS {
            s.spawn(|| loop {
                let Some(i) = queue.lock().unwrap().pop_front() else {
                    break;
                };
                let r = f(&items[i]);
                results.lock().unwrap()[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

// ---- scratch directories ----------------------------------------------------

/// This process's directory under cargo's `target/tmp`; directories of
/// earlier runs more than an hour old are removed the first time.
fn scratch_root() -> &'static Path {
    static ROOT_DIR: OnceLock<PathBuf> = OnceLock::new();
    ROOT_DIR.get_or_init(|| {
        let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
        if let Ok(entries) = std::fs::read_dir(tmp) {
            for e in entries.flatten() {
                let old = e
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age > Duration::from_secs(3600));
                if old && e.file_name().to_string_lossy().starts_with("e2e-") {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        tmp.join(format!("e2e-{}", std::process::id()))
    })
}

/// A fresh, empty directory unique to this process and `name`.
pub fn scratch(name: &str) -> PathBuf {
    let d = scratch_root().join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

// ---- tools --------------------------------------------------------------------

/// Whether `name` runs (`name --version` exits 0).
pub fn on_path(name: &str) -> bool {
    Command::new(name)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `setarch ARCH -R`: older TSan runtimes fail under high-entropy ASLR.
pub fn no_aslr_prefix() -> Vec<String> {
    let arch = std::env::consts::ARCH.to_string();
    let ok = Command::new("setarch")
        .args([arch.as_str(), "-R", "true"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        vec!["setarch".into(), arch, "-R".into()]
    } else {
        Vec::new()
    }
}

/// A C compiler and flags; ssc's object cache keeps the runtime's objects.
pub struct Toolchain {
    pub cc: String,
    pub cflags: String,
}

impl Toolchain {
    /// Builds `tests/in/chain.ssc` for real with `cc` and `cflags`, which
    /// checks the runtime files compile cleanly with them and leaves their
    /// objects in ssc's cache for every later build. Err: why this
    /// toolchain cannot be used.
    pub fn new(tag: &str, cc: &str, cflags: &str) -> Result<Toolchain, String> {
        let dir = scratch(&format!("toolchain-{tag}"));
        let out = Command::new(SSC)
            .args(["build", &root("tests/in/chain.ssc").to_string_lossy()])
            .args(["-ts", "fixed", "1", "-od"])
            .arg(&dir)
            .env("CC", cc)
            .env("CFLAGS", cflags)
            .output()
            .map_err(|e| format!("cannot run ssc: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "`CC={cc} CFLAGS='{cflags}' ssc build tests/in/chain.ssc` failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(Toolchain {
            cc: cc.to_string(),
            cflags: cflags.to_string(),
        })
    }
}

static GCC: OnceLock<Toolchain> = OnceLock::new();

/// `cc` with `-O2 -Werror`: the suite's main toolchain.
pub fn gcc() -> &'static Toolchain {
    GCC.get_or_init(|| {
        let _s = slot();
        Toolchain::new("cc", "cc", "-O2 -Werror").unwrap_or_else(|e| panic!("{e}"))
    })
}

// ---- building and running -----------------------------------------------------

/// One program: a description, the `ssc build` options, extra files.
#[derive(Clone, Debug)]
pub struct Case {
    pub label: String,
    pub file: PathBuf,
    pub args: Vec<String>,
}

impl Case {
    pub fn new(file: impl AsRef<Path>, args: &str) -> Case {
        let file = file.as_ref().to_path_buf();
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Case {
            label: format!("{name} {args}").trim().to_string(),
            file,
            args: args.split_whitespace().map(String::from).collect(),
        }
    }
}

/// A sanitised directory name for a case.
fn dir_name(label: &str) -> String {
    label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// `ssc build` the case into `dir` (program `dir/prog`); Err: ssc's output.
pub fn build(tc: &Toolchain, case: &Case, dir: &Path) -> Result<PathBuf, String> {
    let exe = dir.join("prog");
    let out = {
        let _s = slot();
        Command::new(SSC)
            .arg("build")
            .arg(&case.file)
            .args(&case.args)
            .arg("-od")
            .arg(dir)
            .arg("-o")
            .arg(&exe)
            .env("CC", &tc.cc)
            .env("CFLAGS", &tc.cflags)
            .output()
            .map_err(|e| format!("cannot run ssc: {e}"))?
    };
    if !out.status.success() {
        return Err(format!(
            "ssc build {} exited {:?}:\n{}{}",
            case.label,
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(exe)
}

/// What a program printed.
#[derive(Debug)]
pub struct Ran {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Ran {
    pub fn checksum(&self) -> Option<&str> {
        self.stdout
            .lines()
            .find_map(|l| l.strip_prefix("checksum: "))
            .map(str::trim)
    }
    /// `program: NAME, N threads`.
    pub fn threads(&self) -> Option<usize> {
        let l = self.stdout.lines().find(|l| l.starts_with("program: "))?;
        l.rsplit(", ").next()?.split(' ').next()?.parse().ok()
    }
}

/// Runs `prefix... exe args...` in `dir` with stdout/stderr to files, kills
/// it after `deadline`.
pub fn run_in(
    prefix: &[String],
    exe: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    dir: &Path,
    deadline: Duration,
) -> Result<Ran, String> {
    let _s = slot();
    let out_path = dir.join("stdout.txt");
    let err_path = dir.join("stderr.txt");
    let mut cmd = match prefix.split_first() {
        Some((p, rest)) => {
            let mut c = Command::new(p);
            c.args(rest).arg(exe);
            c
        }
        None => Command::new(exe),
    };
    cmd.args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let t0 = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t0.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "{} did not finish within {deadline:?} (deadlock?); stdout so far:\n{}",
                exe.display(),
                std::fs::read_to_string(&out_path).unwrap_or_default()
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Ok(Ran {
        status,
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
        elapsed: t0.elapsed(),
    })
}

/// Whether process `pid` has started threads of its own (more than one
/// task): a generated program has then begun its iterations.
pub fn has_threads(pid: u32) -> bool {
    std::fs::read_dir(format!("/proc/{pid}/task")).is_ok_and(|d| d.count() > 1)
}

/// Runs `exe args…` in `dir` until it has started its threads, lets it run
/// `after` more, then sends it SIGINT and waits for it (killing it after
/// [`RUN_DEADLINE`]: a deadlock, never a timing assertion).
pub fn run_until_sigint(exe: &Path, args: &[&str], dir: &Path, after: Duration) -> Ran {
    run_until_signal(exe, args, dir, after, libc::SIGINT)
}

/// [`run_until_sigint`] with another signal.
pub fn run_until_signal(
    exe: &Path,
    args: &[&str],
    dir: &Path,
    after: Duration,
    signal: i32,
) -> Ran {
    let _s = slot();
    let out_path = dir.join("stdout.txt");
    let err_path = dir.join("stderr.txt");
    let t0 = Instant::now();
    let mut child = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let pid = child.id();
    let mut ended = None;
    while ended.is_none() && !has_threads(pid) {
        assert!(
            t0.elapsed() < RUN_DEADLINE,
            "{} never started its threads",
            exe.display()
        );
        std::thread::sleep(Duration::from_millis(10));
        ended = child.try_wait().unwrap();
    }
    if ended.is_none() {
        std::thread::sleep(after);
        // SAFETY: a signal to our own child, not yet waited for.
        unsafe { libc::kill(pid as i32, signal) };
    }
    let status = loop {
        if let Some(s) = ended {
            break s;
        }
        if t0.elapsed() > RUN_DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "{} did not stop after signal {signal} (deadlock?)",
                exe.display()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
        ended = child.try_wait().unwrap();
    };
    Ran {
        status,
        stdout: std::fs::read_to_string(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
        elapsed: t0.elapsed(),
    }
}

/// Builds and runs `iterations`; Ok((checksum, threads)) when it exits 0
/// with a complete report.
pub fn build_and_run(
    tc: &Toolchain,
    case: &Case,
    iterations: u64,
    parent: &Path,
) -> Result<(String, usize), String> {
    let dir = parent.join(dir_name(&case.label));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = build(tc, case, &dir)?;
    let n = iterations.to_string();
    let ran = run_in(&[], &exe, &["--iterations", &n], &[], &dir, RUN_DEADLINE)?;
    if !ran.status.success() {
        return Err(format!(
            "{} exited with {}:\n{}{}",
            case.label, ran.status, ran.stdout, ran.stderr
        ));
    }
    let complete = format!("iterations: {iterations} of {iterations}");
    if !ran.stdout.lines().any(|l| l == complete) {
        return Err(format!(
            "{}: no `{complete}` line:\n{}",
            case.label, ran.stdout
        ));
    }
    let checksum = ran
        .checksum()
        .ok_or_else(|| format!("{}: no checksum:\n{}", case.label, ran.stdout))?;
    Ok((checksum.to_string(), ran.threads().unwrap_or(0)))
}

/// Builds and runs every case, two at a time; asserts each prints the same
/// checksum as the first (the reference). Prints a table. Returns the
/// thread count of each case.
pub fn same_checksums(tc: &Toolchain, what: &str, cases: &[Case], iterations: u64) -> Vec<usize> {
    let dir = scratch(&format!("{}-{what}", dir_name(&tc.cc)));
    let t0 = Instant::now();
    let results = parallel(cases, |c| build_and_run(tc, c, iterations, &dir));
    let reference = match &results[0] {
        Ok((sum, _)) => sum.clone(),
        Err(e) => panic!("{what}: the reference {} failed: {e}", cases[0].label),
    };
    let mut failures = Vec::new();
    eprintln!(
        "{what}: {} programs, {iterations} iterations, CC={} CFLAGS='{}' ({:.1?})",
        cases.len(),
        tc.cc,
        tc.cflags,
        t0.elapsed()
    );
    for (c, r) in cases.iter().zip(&results) {
        match r {
            Ok((sum, threads)) => {
                eprintln!("  {sum}  {threads:>2} threads  {}", c.label);
                if *sum != reference {
                    failures.push(format!(
                        "{}: checksum {sum}, the reference {} gives {reference}",
                        c.label, cases[0].label
                    ));
                }
            }
            Err(e) => failures.push(e.clone()),
        }
    }
    assert!(
        failures.is_empty(),
        "{what}: {} of {} configurations wrong:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    let _ = std::fs::remove_dir_all(&dir);
    results
        .into_iter()
        .map(|r| r.map(|x| x.1).unwrap_or(0))
        .collect()
}

// ---- inputs ---------------------------------------------------------------------

/// The sections of `text` before the line that starts with `keyword`
/// (section keywords start a line in the examples).
pub fn sections_before(text: &str, keyword: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with(keyword) {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write_input(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs `cmd`, asserts it succeeds (the message shows its command line
/// and standard error), and returns its output.
pub fn run_ok(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs `ssc ARGS…`, asserts it succeeds, and returns its standard output.
pub fn ssc_ok<S: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = S>) -> String {
    String::from_utf8(run_ok(Command::new(SSC).args(args)).stdout).unwrap()
}

/// Builds `desc` as a library (`-t library -ts fused 2`) into `lib`,
/// compiled with `cflags`; asserts the build succeeds.
pub fn fused_library(desc: &Path, lib: &Path, cflags: &str) {
    run_ok(
        Command::new(SSC)
            .arg("build")
            .arg(desc)
            .args(["-t", "library", "-ts", "fused", "2", "-od"])
            .arg(lib)
            .env("CFLAGS", cflags),
    );
}

/// `examples/*.ssc` and `tests/in/*.ssc`, sorted: the descriptions every
/// stage and back end is run on (the snapshot driver, the pipeline's
/// properties).
pub fn inputs() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["examples", "tests/in"] {
        for e in std::fs::read_dir(root(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "ssc") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

/// xray.ssc at a quarter of its resolution (same graph, same splits): for
/// ThreadSanitizer, which makes every memory access ~10× slower.
pub fn small_xray(tag: &str) -> PathBuf {
    let full = std::fs::read_to_string(root("examples/xray.ssc")).unwrap();
    let text = full.replace("param W = 512, H = 512;", "param W = 128, H = 128;");
    assert_ne!(text, full, "examples/xray.ssc's size is its parameters");
    write_input(
        &scratch(&format!("inputs-xray-{tag}")),
        "xray_small.ssc",
        &text,
    )
}

/// `tests/in/xray_levels.ssc` (xray's four levels, written by hand) at a
/// quarter of its resolution: for the tests that read its names.
pub fn small_xray_levels(tag: &str) -> PathBuf {
    let text = std::fs::read_to_string(root("tests/in/xray_levels.ssc"))
        .unwrap()
        .replace("[128, 128]", "[32, 32]")
        .replace("[256, 256]", "[64, 64]")
        .replace("[512, 512]", "[128, 128]");
    write_input(
        &scratch(&format!("inputs-xray-levels-{tag}")),
        "xray_small.ssc",
        &text,
    )
}

/// The entries of e2e.rs' diagonal that carry synchronisation or
/// affinity options, for the matrices that replace the diagonal of their
/// input (fluoro, fluoro_temporal).
pub const SYNC_DIAGONAL: [&str; 3] = [
    "-ts barrier -ms naive -ab",
    "-ts predictable 2 -ms interference -ss -kd 2",
    "-ts reduced 2 -ms mesif -cm 0,1 -ca -vo",
];

/// Every scheduler of `SchedulerKind::ALL` as its `-ts` words, on 2
/// threads where it takes a count: the scheduler × memory matrices follow
/// the enum, so a new scheduler is in them at once.
pub fn schedulers() -> Vec<String> {
    SchedulerKind::ALL
        .iter()
        .map(|k| match k.threads() {
            Some(_) => format!("{} 2", k.keyword()),
            None => k.keyword().to_string(),
        })
        .collect()
}

/// Every memory schedule of `MemoryKind::ALL`, as its `-ms` keyword.
pub fn memory_schedules() -> Vec<&'static str> {
    MemoryKind::keywords().to_vec()
}

/// A fluoro example (`examples/NAME.ssc`, 1024² with 512² and 256² levels)
/// at a quarter of its resolution (same graph, every level): for the
/// matrices and ThreadSanitizer, which would take minutes at 1024².
pub fn quarter_fluoro(name: &str, tag: &str) -> PathBuf {
    let full = std::fs::read_to_string(root(&format!("examples/{name}.ssc"))).unwrap();
    let text = full.replace("param W = 1024, H = 1024;", "param W = 256, H = 256;");
    assert_ne!(text, full, "examples/{name}.ssc's size is its parameters");
    write_input(
        &scratch(&format!("inputs-{name}-{tag}")),
        &format!("{name}_small.ssc"),
        &text,
    )
}

/// `tests/fluoro/reference.py ARGS` with the Python that has numpy; its
/// output (the test fails when the script does).
pub fn fluoro_reference(python: &str, args: &[&str]) -> String {
    python_script(python, "tests/fluoro/reference.py", args)
}

/// The script `rel` (relative to the repository) run by `python` with
/// `args`; its output (the test fails when the script does).
pub fn python_script(python: &str, rel: &str, args: &[&str]) -> String {
    let out = Command::new(python)
        .arg(root(rel))
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{rel} {args:?}:\n{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The `--input` options of a fluoro program for the frames
/// `reference.py make` wrote in `frames`.
pub fn fluoro_inputs(frames: &Path) -> Vec<String> {
    vec![
        "--input".into(),
        format!("raw={}", frames.join("raw").display()),
        "--input".into(),
        format!("dark={}", frames.join("dark.pgm").display()),
        "--input".into(),
        format!("gain={}", frames.join("gain.pfm").display()),
    ]
}

/// `ssc generate` with these options, as text.
pub fn generate(boxes: u32, seed: u64, resolution: &str) -> String {
    let (boxes, seed) = (boxes.to_string(), seed.to_string());
    ssc_ok([
        "generate",
        "--boxes",
        &boxes,
        "--seed",
        &seed,
        "--resolution",
        resolution,
    ])
}

/// `ssc generate`'s chain of seed `seed` at 32×32 (12 to 25 boxes: splits,
/// windows, fan-out), written to `dir/genSEED.ssc`.
pub fn generated_chain(dir: &Path, seed: u64) -> PathBuf {
    let boxes = 12 + (seed as u32 * 5) % 14;
    write_input(
        dir,
        &format!("gen{seed}.ssc"),
        &generate(boxes, seed, "32,32"),
    )
}

// ---- ThreadSanitizer -----------------------------------------------------------

/// Whether `cc -fsanitize=thread` links and runs a program here.
pub fn tsan_works(dir: &Path) -> bool {
    let src = write_input(dir, "t.c", "int main(void) { return 0; }\n");
    let exe = dir.join("t");
    let built = Command::new("cc")
        .args(["-fsanitize=thread", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .is_ok_and(|o| o.status.success());
    built && {
        let mut c = Command::new(&exe);
        if let Some((p, rest)) = no_aslr_prefix().split_first() {
            c = Command::new(p);
            c.args(rest).arg(&exe);
        }
        c.output().is_ok_and(|o| o.status.success())
    }
}

/// Builds every case with `-fsanitize=thread` (toolchain `tag`) and runs 50
/// iterations: no report, a complete run, and the checksum of the same
/// program built without TSan. Skips with a note when TSan does not work
/// here; asserts otherwise, and removes `dir`.
pub fn under_tsan(tag: &str, dir: &Path, cases: &[Case]) {
    if !tsan_works(dir) {
        eprintln!("note: cc -fsanitize=thread does not work here (no TSan runtime?): skipped");
        return;
    }
    let tsan =
        Toolchain::new(tag, "cc", "-O1 -g -fsanitize=thread").unwrap_or_else(|e| panic!("{e}"));
    let prefix = no_aslr_prefix();
    let t0 = Instant::now();
    let results = parallel(cases, |c| -> Result<String, String> {
        let d = dir.join(c.label.replace(|ch: char| !ch.is_ascii_alphanumeric(), "_"));
        std::fs::create_dir_all(&d).unwrap();
        // The same program without TSan: its checksum is the reference.
        let (plain, _) = build_and_run(gcc(), c, 50, &d.join("plain"))?;
        let exe = build(&tsan, c, &d)?;
        let ran = run_in(
            &prefix,
            &exe,
            &["--iterations", "50"],
            &[("TSAN_OPTIONS", "halt_on_error=1 exitcode=66")],
            &d,
            RUN_DEADLINE,
        )?;
        if !ran.status.success() || ran.stderr.contains("ThreadSanitizer") {
            return Err(format!(
                "{} under TSan: {}\n{}",
                c.label, ran.status, ran.stderr
            ));
        }
        if !ran.stdout.contains("iterations: 50 of 50") {
            return Err(format!("{}: incomplete run:\n{}", c.label, ran.stdout));
        }
        match ran.checksum() {
            Some(sum) if sum == plain => Ok(format!("{sum}  {}", c.label)),
            other => Err(format!(
                "{}: checksum {other:?} under TSan, {plain} without",
                c.label
            )),
        }
    });
    eprintln!("ThreadSanitizer, 50 iterations ({:.1?}):", t0.elapsed());
    let mut failures = Vec::new();
    for r in results {
        match r {
            Ok(line) => eprintln!("  {line}"),
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let _ = std::fs::remove_dir_all(dir);
}

/// Whether a test that cannot run what it needs must fail instead of
/// skipping: under CI (`CI=true`) and README's test command, `./test`
/// (`SSC_NO_SKIP=1`).
pub fn no_skip() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
        || std::env::var("SSC_NO_SKIP").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Says that `test` skips and why, past the harness' capture; under
/// [`no_skip`] fails the test instead.
pub fn skip(test: &str, why: &str) {
    if no_skip() {
        panic!(
            "{test} cannot run: {why}. Nothing may be skipped under CI or ./test \
             (CI=true or SSC_NO_SKIP=1); ./test installs what the tests need"
        );
    }
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// A Python with numpy: `SSC_PYTHON` (`./test` makes one), else `python3`
/// when it has numpy; `None` after saying why the test is skipped (under
/// CI and `./test` the test fails instead: [`skip`]).
pub fn python_with_numpy(test: &str) -> Option<String> {
    let candidate = std::env::var("SSC_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&candidate)
        .args(["-c", "import numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(candidate);
    }
    assert!(
        std::env::var("SSC_PYTHON").is_err(),
        "SSC_PYTHON={candidate} cannot import numpy"
    );
    let why = std::env::var("SSC_PYTHON_SKIP").unwrap_or_else(|_| "python3 has no numpy".into());
    skip(
        test,
        &format!("{why}; `./test` provides a Python with numpy (SSC_PYTHON)"),
    );
    None
}

// ---- kernels of one's own --------------------------------------------------------

/// The files of `examples/kernels/` that define a function `text` (a
/// description) binds: what `--kernels` must give for it to be known
/// (E038 otherwise). A function is found by its `void NAME(const
/// ssc_call` definition, a binding by NAME between word boundaries.
pub fn own_kernels(text: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root("examples/kernels"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    let words: Vec<&str> = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    files
        .into_iter()
        .filter(|f| {
            let c = std::fs::read_to_string(f).unwrap();
            c.lines().any(|l| {
                l.strip_prefix("void ")
                    .and_then(|r| r.split_once("(const ssc_call"))
                    .is_some_and(|(name, _)| words.contains(&name.trim()))
            })
        })
        .collect()
}

/// `--kernels FILE` for each of [`own_kernels`] of `text`.
pub fn kernel_args(text: &str) -> Vec<String> {
    own_kernels(text)
        .into_iter()
        .flat_map(|f| ["--kernels".to_string(), f.display().to_string()])
        .collect()
}
