//! `-t library`: the chain as a C library and a Python module.
//!
//! The X-ray chain (at a quarter of its resolution, same graph) is built as
//! a library under every thread schedule and driven by `tests/library/
//! harness.c` the way an application does (open, frames in, outputs out,
//! close), synchronously and with frames in flight; its checksum must be
//! the executable's for the same frames. The library also runs under
//! ThreadSanitizer, 1 000 open/run/close cycles under AddressSanitizer's
//! leak checker, the misuse of its API gets its error codes and messages,
//! and the Python module (when numpy is there: `.ci/run` provides it)
//! gives the same checksum and clear exceptions. What the caller reads of
//! the fused build, its header and Python module, are
//! `tests/out/library/xray_small.h` and `.py` (`support::golden`).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::*;

/// `ssc build FILE -t library -od DIR` with these flags and `CFLAGS`.
fn build_library(file: &Path, dir: &Path, flags: &[&str], cc: &str, cflags: &str) {
    run_ok(
        Command::new(SSC)
            .arg("build")
            .arg(file)
            .args(["-t", "library", "-od"])
            .arg(dir)
            .args(flags)
            .env("CC", cc)
            .env("CFLAGS", cflags),
    );
    for f in [
        "xray_small.h",
        "libxray_small.a",
        "libxray_small.so",
        "xray_small.py",
        "xray_small.pyi",
        "xray_small.pc",
    ] {
        assert!(dir.join(f).is_file(), "{f} missing in {}", dir.display());
    }
}

/// The harness linked against the static library in `dir`.
fn harness(dir: &Path, cc_flags: &[&str]) -> PathBuf {
    driver("harness", "xray_small", dir, cc_flags)
}

/// `tests/library/DRIVER.c` linked against the static library of `chain`
/// in `dir`.
fn driver(driver: &str, chain: &str, dir: &Path, cc_flags: &[&str]) -> PathBuf {
    let exe = dir.join(driver);
    run_ok(
        Command::new("cc")
            .args(["-std=c11", "-O1", "-g", "-Wall", "-Wextra", "-Werror"])
            .args(cc_flags)
            .arg(format!("-DCHAIN={chain}"))
            .arg(format!("-DCHAIN_UPPER={}", chain.to_uppercase()))
            .args(["-include", &format!("{chain}.h"), "-I."])
            .arg(root(&format!("tests/library/{driver}.c")))
            .args([&format!("lib{chain}.a"), "-pthread", "-lm", "-o"])
            .arg(&exe)
            .current_dir(dir),
    );
    exe
}

fn checksum_of(text: &str) -> Option<String> {
    text.lines()
        .find_map(|l| l.strip_prefix("checksum: "))
        .map(str::to_string)
}

/// The executable's checksum over `frames` iterations under `flags`.
fn executable_checksum(file: &Path, dir: &Path, flags: &[&str], frames: u64) -> String {
    let exe = build_executable(file, dir, flags);
    let ran = Command::new(&exe)
        .args(["--iterations", &frames.to_string()])
        .output()
        .unwrap();
    assert!(ran.status.success());
    checksum_of(&String::from_utf8_lossy(&ran.stdout)).expect("a checksum")
}

/// The chain built as an executable (`-O1`) in `dir`: its path.
fn build_executable(file: &Path, dir: &Path, flags: &[&str]) -> PathBuf {
    let exe = dir.join("program");
    run_ok(
        Command::new(SSC)
            .arg("build")
            .arg(file)
            .args(["-od"])
            .arg(dir.join("program.d"))
            .arg("-o")
            .arg(&exe)
            .args(flags)
            .env("CFLAGS", "-O1"),
    );
    exe
}

/// The files [`the_library_prints_the_executables_checksum_under_every_scheduler`]
/// writes, under `tests/out/`.
pub(crate) fn outputs() -> Vec<String> {
    vec![
        "library/xray_small.h".into(),
        "library/xray_small.py".into(),
        "library/xray_small.pyi".into(),
    ]
}

#[test]
fn the_library_prints_the_executables_checksum_under_every_scheduler() {
    let file = small_xray("library");
    let configs: &[&[&str]] = &[
        &["-ts", "simple"],
        &["-ts", "barrier"],
        &["-ts", "fixed", "2"],
        &["-ts", "predictable", "2"],
        &["-ts", "reduced", "2", "-ms", "reuse"],
        &["-ts", "fused", "2"],
    ];
    let results = parallel(configs, |flags| {
        let _slot = slot();
        let dir = scratch(&format!("library-{}", flags.join("_")));
        build_library(&file, &dir, flags, "cc", "-O1");
        let h = harness(&dir, &[]);
        let want = executable_checksum(&file, &dir, flags, 30);
        let mut got = Vec::new();
        for mode in [&["30"][..], &["30", "async"][..]] {
            let ran = Command::new(&h)
                .args(mode)
                .current_dir(&dir)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&ran.stdout).into_owned();
            assert!(
                ran.status.success(),
                "{flags:?} {mode:?}: {}",
                String::from_utf8_lossy(&ran.stderr)
            );
            assert!(text.contains("latency (us): count 30 "), "{text}");
            got.push(checksum_of(&text).expect("a checksum"));
        }
        // What the caller reads: the header, the Python module, its stub.
        let api: Vec<String> = ["xray_small.h", "xray_small.py", "xray_small.pyi"]
            .iter()
            .map(|f| {
                std::fs::read_to_string(dir.join(f))
                    .unwrap()
                    .replace(&file.display().to_string(), "xray_small.ssc")
            })
            .collect();
        (flags.join(" "), want, got, api)
    });
    for (flags, want, got, api) in &results {
        assert_eq!(got, &vec![want.clone(), want.clone()], "{flags}");
        if flags == "-ts fused 2" {
            golden::check("library/xray_small.h", &api[0]);
            golden::check("library/xray_small.py", &api[1]);
            golden::check("library/xray_small.pyi", &api[2]);
        }
    }
}

/// The runtime's `program` files (runtime-c/FILES: argv, --help, the
/// report, dumps, SIGINT/SIGTERM handlers, image files) are a program's:
/// the library neither has nor links them, and every symbol it needs is in
/// it (`nm`); a program's executable has them.
#[test]
fn the_library_links_none_of_the_programs_main_side() {
    let file = small_xray("library-nm");
    let dir = scratch("library-nm");
    build_library(&file, &dir, &["-ts", "reduced", "2"], "cc", "-O1");
    let nm = |args: &[&str], path: &Path| {
        let out = run_ok(Command::new("nm").args(args).arg(path));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let program_only = [
        "ssc_parse_args",
        "ssc_options_free",
        "ssc_init",
        "ssc_init_mask",
        "ssc_run",
        "ssc_finish",
        "ssc_images_load",
        "ssc_images_save",
    ];
    let defined = |text: &str, name: &str| {
        text.lines().any(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            w.len() == 3 && w[2] == name && w[1] != "U"
        })
    };
    let archive = nm(&[], &dir.join("libxray_small.a"));
    let shared = nm(&["-D"], &dir.join("libxray_small.so"));
    for name in program_only {
        assert!(!defined(&archive, name), "libxray_small.a defines {name}");
        assert!(
            !archive.contains(&format!(" U {name}\n")),
            "libxray_small.a needs {name}"
        );
    }
    assert!(
        !shared.lines().any(|l| l.contains(" U ssc_")),
        "the shared library needs runtime symbols it lacks:\n{shared}"
    );
    for f in ssc::back::c::RUNTIME_FILES {
        let here = dir.join(f.name).is_file();
        assert_eq!(
            here,
            f.role != ssc::back::c::Role::Program,
            "{} in the library's directory: {here}",
            f.name
        );
    }
    // The executable of the same chain has them.
    let exe = build_executable(&file, &dir, &["-ts", "reduced", "2"]);
    let program = nm(&[], &exe);
    for name in program_only {
        assert!(defined(&program, name), "the program lacks {name}");
    }
}

#[test]
fn the_library_is_race_free_under_thread_sanitizer() {
    let dir = scratch("library-tsan");
    if !tsan_works(&dir) {
        eprintln!("note: cc -fsanitize=thread does not work here: skipped");
        return;
    }
    let file = small_xray("library-tsan");
    build_library(
        &file,
        &dir,
        &["-ts", "fused", "2"],
        "cc",
        "-O1 -g -fsanitize=thread",
    );
    let h = harness(&dir, &["-fsanitize=thread"]);
    let ran = run_in(
        &no_aslr_prefix(),
        &h,
        &["20", "async"],
        &[("TSAN_OPTIONS", "halt_on_error=1 exitcode=66")],
        &dir,
        RUN_DEADLINE,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let err = &ran.stderr;
    assert!(
        ran.status.success() && !err.contains("ThreadSanitizer"),
        "{err}"
    );
}

#[test]
fn a_thousand_open_run_close_cycles_leak_nothing() {
    let dir = scratch("library-asan");
    let file = small_xray("library-asan");
    build_library(
        &file,
        &dir,
        &["-ts", "reduced", "2"],
        "cc",
        "-O1 -g -fsanitize=address",
    );
    let h = harness(&dir, &["-fsanitize=address"]);
    let ran = Command::new(&h)
        .args(["1", "reopen", "1000"])
        .env("ASAN_OPTIONS", "detect_leaks=1 exitcode=66")
        .current_dir(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&ran.stderr);
    assert!(ran.status.success(), "{}: {err}", ran.status);
    assert!(!err.contains("LeakSanitizer"), "{err}");
}

#[test]
fn the_python_module_gives_the_same_checksum_and_clear_errors() {
    let Some(python) =
        python_with_numpy("the_python_module_gives_the_same_checksum_and_clear_errors")
    else {
        return;
    };
    let file = small_xray("library-python");
    let dir = scratch("library-python");
    let flags = ["-ts", "fused", "2"];
    build_library(&file, &dir, &flags, "cc", "-O1");
    let want = executable_checksum(&file, &dir, &flags, 12);
    let ran = Command::new(&python)
        .arg(root("tests/library/check.py"))
        .arg(&dir)
        .args(["xray_small", "12"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success() && out.ends_with("ok\n"),
        "{out}{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    assert_eq!(checksum_of(&out), Some(want), "{out}");
    // The messages name the port and both shapes.
    assert!(out.contains("input `raw` of xray_small: expected uint16 of shape (128, 128), got uint16 of shape (3, 5)"), "{out}");
    assert!(out.contains("second instance: same outputs"), "{out}");
}

/// The text of a fenced block of README.md that starts with `first_line`.
fn readme_block(first_line: &str) -> String {
    let readme = std::fs::read_to_string(root("README.md")).unwrap();
    let start = readme
        .find(&format!("\n{first_line}\n"))
        .unwrap_or_else(|| panic!("README.md has no block starting `{first_line}`"));
    let body = &readme[start + 1..];
    body[..body.find("```").expect("a closed block")].to_string()
}

#[test]
fn the_readme_examples_are_the_example_files_and_run() {
    let c = std::fs::read_to_string(root("examples/app/xray_app.c")).unwrap();
    let py = std::fs::read_to_string(root("examples/app/xray_app.py")).unwrap();
    assert_eq!(readme_block(c.lines().next().unwrap()), c);
    assert_eq!(readme_block(py.lines().next().unwrap()), py);

    // As the comments say: the library, then the program.
    let dir = scratch("library-readme");
    let lib = dir.join("xray-lib");
    run_ok(
        Command::new(SSC)
            .args([
                "build",
                "examples/xray.ssc",
                "-t",
                "library",
                "-ts",
                "fused",
                "2",
                "-od",
            ])
            .arg(&lib)
            .env("CFLAGS", "-O1")
            .current_dir(ROOT),
    );
    let app = dir.join("xray_app");
    run_ok(
        Command::new("cc")
            .args(["-O2", "-Wall", "-Wextra", "-Werror"])
            .arg(format!("-I{}", lib.display()))
            .arg(root("examples/app/xray_app.c"))
            .arg(lib.join("libxray.a"))
            .args(["-pthread", "-lm", "-o"])
            .arg(&app),
    );
    let ran = Command::new(&app).output().unwrap();
    let c_out = String::from_utf8_lossy(&ran.stdout).into_owned();
    assert!(
        ran.status.success() && c_out.starts_with("100 frames, latency mean "),
        "{c_out}"
    );
    // Linked as `pkg-config --cflags --libs xray` says (the
    // comment of xray_app.c, docs/library.md), the program runs without
    // LD_LIBRARY_PATH: the .pc file gives an rpath.
    let pc = Command::new("pkg-config")
        .args(["--cflags", "--libs", "xray"])
        .env("PKG_CONFIG_PATH", &lib)
        .output()
        .expect("pkg-config (`./test` and .ci/run install it)");
    let flags = String::from_utf8_lossy(&pc.stdout).into_owned();
    assert!(pc.status.success() && flags.contains("-rpath"), "{flags}");
    let shared_app = dir.join("xray_app_shared");
    run_ok(
        Command::new("cc")
            .args(["-O2", "-Wall", "-Wextra", "-Werror"])
            .arg(root("examples/app/xray_app.c"))
            .args(flags.split_whitespace())
            .arg("-o")
            .arg(&shared_app),
    );
    let ran = Command::new(&shared_app)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let shared_out = String::from_utf8_lossy(&ran.stdout).into_owned();
    assert!(
        ran.status.success() && shared_out.starts_with("100 frames, latency mean "),
        "{shared_out}{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let centre = |s: &str| {
        s.rsplit("display centre ")
            .next()
            .unwrap()
            .trim()
            .to_string()
    };
    assert_eq!(centre(&c_out), centre(&shared_out));
    let Some(python) =
        python_with_numpy("the_readme_examples_are_the_example_files_and_run (Python)")
    else {
        return;
    };
    let ran = Command::new(python)
        .arg(root("examples/app/xray_app.py"))
        .env("PYTHONPATH", &lib)
        .output()
        .unwrap();
    let py_out = String::from_utf8_lossy(&ran.stdout).into_owned();
    assert!(
        ran.status.success() && py_out.starts_with("100 frames, latency mean "),
        "{py_out}{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    // The same frames through the same chain: the same output.
    assert_eq!(centre(&c_out), centre(&py_out));
}

/// The shell blocks of README's "A folder of frames", run as written (from
/// the repository root, `ssc` on the path): the phantom, the library, the
/// C folder application, the picture, and the program reading the same
/// files — which must print the application's checksum; the Python
/// application (with numpy) writes the same files byte for byte.
#[test]
fn the_folder_of_frames_example_runs_as_the_readme_says() {
    let readme = std::fs::read_to_string(root("README.md")).unwrap();
    let section = &readme[readme.find("### A folder of frames").expect("the section")..];
    let blocks: Vec<&str> = section
        .split("```sh\n")
        .skip(1)
        .take(2)
        .map(|b| &b[..b.find("```").unwrap()])
        .collect();
    assert_eq!(blocks.len(), 2);
    let _ = std::fs::remove_dir_all(root("build/phantom"));
    let bin = Path::new(SSC).parent().unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let sh = |script: &str| {
        let _s = slot();
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", script])
            .env("PATH", &path)
            .env("CFLAGS", "-O2")
            .current_dir(ROOT)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{script}\n{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    };
    let app = sh(blocks[0]);
    assert!(app.contains("8 frames of 512x512"), "{app}");
    let app_sum = app.rsplit("checksum ").next().unwrap().trim().to_string();
    assert!(root("build/phantom/out/frame_0007.pgm").is_file());
    assert!(std::fs::read(root("build/picture.png"))
        .unwrap()
        .starts_with(b"\x89PNG"));
    let program = sh(blocks[1]);
    assert_eq!(checksum_of(&program), Some(app_sum), "{program}");
    assert!(root("build/phantom/out-program/display_0007.pfm").is_file());

    let Some(python) = python_with_numpy("the_folder_of_frames_example (Python)") else {
        return;
    };
    let ran = Command::new(python)
        .arg(root("examples/app/xray_folder.py"))
        .args(["build/phantom", "build/phantom/out-py"])
        .env("PYTHONPATH", root("build/xray-lib"))
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    for k in 0..8 {
        let name = format!("frame_{k:04}.pgm");
        assert_eq!(
            std::fs::read(root("build/phantom/out-py").join(&name)).unwrap(),
            std::fs::read(root("build/phantom/out").join(&name)).unwrap(),
            "{name}"
        );
    }
}

// ---- several callers, close under them, a stuck kernel ------------------------

/// `exe args` in `dir` under `env` (a sanitizer's options), within the
/// deadline; fails with its output unless it exits 0 with no sanitizer
/// report. Returns its standard output.
fn must_pass(
    exe: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    dir: &Path,
    prefix: &[String],
) -> String {
    let ran = run_in(prefix, exe, args, env, dir, RUN_DEADLINE).unwrap_or_else(|e| panic!("{e}"));
    let err = &ran.stderr;
    assert!(
        ran.status.success() && !err.contains("Sanitizer") && !err.contains("WARNING"),
        "{} {args:?}: {}\n{}{err}",
        exe.display(),
        ran.status,
        ran.stdout
    );
    ran.stdout
}

/// Four application threads call `process` (and `submit` + `wait_frame`)
/// 200 times each with frames of their own: every output is bit for bit
/// what the same inputs gave alone. `close` from another thread while they
/// run returns within a second, 50 times out of 50, and every caller gets
/// its frame or an error. Plain, under AddressSanitizer with the leak
/// checker, and under ThreadSanitizer: no report.
#[test]
fn every_caller_of_several_threads_gets_its_own_frame_and_close_returns() {
    let file = small_xray("library-threads");
    let sanitizers: &[(&str, &str, &str)] = &[
        ("plain", "", ""),
        ("asan", "-fsanitize=address", "ASAN_OPTIONS"),
        ("tsan", "-fsanitize=thread", "TSAN_OPTIONS"),
    ];
    let dir0 = scratch("library-threads");
    let tsan = tsan_works(&dir0);
    let runs = parallel(sanitizers, |&(tag, flag, env_name)| {
        if tag == "tsan" && !tsan {
            return format!("{tag}: cc -fsanitize=thread does not work here: skipped");
        }
        // No slot held here: run_in takes one for each run.
        let dir = scratch(&format!("library-threads-{tag}"));
        build_library(
            &file,
            &dir,
            &["-ts", "fused", "2"],
            "cc",
            &format!("-O1 -g {flag}"),
        );
        let cc_flags: Vec<&str> = flag.split_whitespace().collect();
        let exe = driver("stress", "xray_small", &dir, &cc_flags);
        let options = match tag {
            "asan" => "detect_leaks=1 exitcode=66",
            _ => "halt_on_error=1 exitcode=66",
        };
        let env: Vec<(&str, &str)> = if env_name.is_empty() {
            vec![]
        } else {
            vec![(env_name, options)]
        };
        let prefix = if tag == "tsan" {
            no_aslr_prefix()
        } else {
            vec![]
        };
        let mut out = String::new();
        for args in [
            &["process", "4", "200"][..],
            &["process", "4", "200", "submit"][..],
        ] {
            let text = must_pass(&exe, args, &env, &dir, &prefix);
            assert!(
                text.starts_with("wrong outputs 0 of ")
                    && text.contains("(800 frames, ")
                    && text.contains("failed calls 0"),
                "{tag} {args:?}: {text}"
            );
            out += &text;
        }
        let tries = if tag == "plain" { "50" } else { "10" };
        let text = must_pass(&exe, &["close", "4", "50", tries], &env, &dir, &prefix);
        assert!(
            text.contains(&format!("tries {tries}, ")) && text.contains("wrong 0, failed 0"),
            "{tag}: {text}"
        );
        format!("{tag}: {out}{text}")
    });
    for r in runs {
        eprintln!("{r}");
    }
}

/// A kernel of the user's that blocks forever in iteration 5: with
/// `watchdog_ms` the frame's call returns ETIMEDOUT naming the stuck
/// sub-box, without one close (from another thread) ends it; close returns
/// ERUNTIME and leaves the stuck instance behind, and a new instance of
/// the chain opens beside it and runs its frames.
#[test]
fn a_stuck_kernel_times_out_and_close_returns() {
    let dir = scratch("library-hang");
    run_ok(
        Command::new(SSC)
            .args([
                "build",
                "tests/library/hang.ssc",
                "--kernels",
                "tests/library/hang.c",
            ])
            .args(["-t", "library", "-ts", "reduced", "2", "-od"])
            .arg(&dir)
            .env("CFLAGS", "-O1 -g")
            .current_dir(ROOT),
    );
    let exe = driver("stress", "hang", &dir, &[]);
    for watchdog in ["200", "0"] {
        let text = must_pass(&exe, &["hang", watchdog], &[], &dir, &[]);
        let patience = if watchdog == "0" { "1000" } else { watchdog };
        assert!(
            text.contains("frame 5: status 4 after ")
                && text.contains(&format!("no sub-box finished for {patience} ms while frame 5 was in flight; thread 0 runs sub-box st.0 of frame 5"))
                && text.contains("close: status 3 ")
                && text.contains("open again: status 0: ")
                && text.contains("new instance: 5 frames ok, close: status 0"),
            "watchdog {watchdog}:\n{text}"
        );
    }
    let Some(python) = python_with_numpy("a_stuck_kernel_times_out_and_close_returns (Python)")
    else {
        return;
    };
    let ran = Command::new(python)
        .arg(root("tests/library/stress.py"))
        .arg(&dir)
        .args(["hang", "hang"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success() && out.ends_with("ok\n"),
        "{out}{}",
        String::from_utf8_lossy(&ran.stderr)
    );
}

/// The Python module: four threads × 200 `run` calls with frames of their
/// own, bit-exact; `close` under two running threads, 50 times; read-only
/// outputs, negative strides and bad `open` options.
#[test]
fn the_python_module_under_threads_close_and_misuse() {
    let Some(python) = python_with_numpy("the_python_module_under_threads_close_and_misuse") else {
        return;
    };
    let file = small_xray("library-python-threads");
    let dir = scratch("library-python-threads");
    build_library(&file, &dir, &["-ts", "fused", "2"], "cc", "-O1");
    for args in [
        &["threads", "4", "200"][..],
        &["close", "50"][..],
        &["misuse"][..],
    ] {
        let ran = Command::new(&python)
            .arg(root("tests/library/stress.py"))
            .arg(&dir)
            .arg("xray_small")
            .args(args)
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&ran.stdout);
        assert!(
            ran.status.success() && out.ends_with("ok\n"),
            "{args:?}: {out}{}",
            String::from_utf8_lossy(&ran.stderr)
        );
        eprint!("{out}");
    }
}

/// An allocation that fails in `open` (the address space limited to what
/// the process holds, plus a little) is an error code in C and
/// `MODULE.Error` in Python, with ssc's message, and the same process then
/// opens the chain: with its buffers in arenas, and with each buffer its
/// own allocation (`-ms none`, which once exited on out-of-memory).
#[test]
fn an_allocation_that_fails_in_open_is_an_error_and_the_process_lives_on() {
    let python =
        python_with_numpy("an_allocation_that_fails_in_open_is_an_error_and_the_process_lives_on");
    let file = small_xray("library-oom");
    for (tag, flags) in [
        ("arenas", &["-ts", "reduced", "2"][..]),
        ("own", &["-ts", "reduced", "2", "-ms", "none"][..]),
    ] {
        let dir = scratch(&format!("library-oom-{tag}"));
        build_library(&file, &dir, flags, "cc", "-O1");
        let exe = driver("oom", "xray_small", &dir, &[]);
        let ran = Command::new(&exe).current_dir(&dir).output().unwrap();
        let out = String::from_utf8_lossy(&ran.stdout);
        eprintln!("{tag} (C):\n{out}");
        assert!(
            ran.status.success(),
            "{tag}: {out}{}",
            String::from_utf8_lossy(&ran.stderr)
        );
        assert_eq!(out.matches("open failed").count(), 3, "{out}");
        if tag == "own" {
            assert!(out.contains("out of memory allocating"), "{out}");
        }
        let Some(python) = &python else { continue };
        let ran = Command::new(python)
            .arg(root("tests/python/oom.py"))
            .args([dir.to_str().unwrap(), "xray_small"])
            .output()
            .unwrap();
        let out = String::from_utf8_lossy(&ran.stdout);
        eprintln!("{tag} (Python):\n{out}");
        assert!(
            ran.status.success(),
            "{tag}: {out}{}",
            String::from_utf8_lossy(&ran.stderr)
        );
        assert_eq!(out.matches("open raised Error").count(), 3, "{out}");
        assert!(out.contains("the process lives on"), "{out}");
    }
}
