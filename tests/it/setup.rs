//! Set-up: README says how to get `ssc` on the PATH and how
//! long the first build and the tests take; its test command, `./test`,
//! installs what the tests need and runs every test with nothing skipped,
//! `.ci/run` runs it; and a test that would skip fails under `./test`
//! (`SSC_NO_SKIP=1`) and under CI (`CI=true`) instead of passing.

use crate::support;

use std::process::Command;

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The text of README before its first section (`## `).
fn readme_head() -> String {
    let readme = read("README.md");
    readme[..readme.find("\n## ").unwrap_or(readme.len())].to_string()
}

#[test]
fn readme_says_how_to_install_and_how_long_builds_and_tests_take() {
    let head = readme_head();
    assert!(head.contains("cargo install --path ."), "{head}");
    // The first build's time and the tests' times, in minutes.
    let install = head
        .lines()
        .find(|l| l.starts_with("cargo install --path ."))
        .unwrap_or("");
    assert!(install.contains(" min"), "no first-build time: {install}");
    let line = head
        .lines()
        .find(|l| l.starts_with("./test "))
        .unwrap_or("");
    assert!(line.contains(" min"), "no time for `./test`: {line:?}");
    // `cargo test` is the quick loop, said in prose with its time: the
    // code block holds README's one test command, which .ci/run runs.
    let quick = head
        .split("`cargo test` alone is the everyday\nloop, ")
        .nth(1)
        .unwrap_or("");
    let minutes = quick.split(" min").next().unwrap_or("");
    assert!(
        quick.contains(" min")
            && !minutes.is_empty()
            && minutes.chars().all(|c| c.is_ascii_digit() || c == '–'),
        "no time for `cargo test` in prose: {head}"
    );
    assert!(head.contains("SSC_NO_SKIP=1") && head.contains(".ci/run"));
}

#[test]
fn the_test_command_installs_what_it_needs_and_ci_runs_it() {
    let script = read("test");
    let mode = std::fs::metadata("test").unwrap();
    assert!(
        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o111 != 0,
        "./test is not executable"
    );
    for needed in [
        "graphviz",
        "libxml2-utils",
        "pkg-config",
        "clang",
        "SSC_SDF3",
        "SSC_PYTHON",
        "pip\" install -q numpy",
        "export SSC_NO_SKIP=1",
        "exec cargo test --no-fail-fast \"$@\"",
    ] {
        assert!(script.contains(needed), "./test lacks {needed:?}");
    }
    let ci = read(".ci/run");
    assert!(
        ci.lines().any(|l| l.trim_start().starts_with("./test")),
        ".ci/run does not run ./test:\n{ci}"
    );
}

#[test]
fn the_readme_says_where_xray_app_py_is_shown_that_it_needs_numpy() {
    let readme = read("README.md");
    let at = readme
        .find("(`examples/app/xray_app.py`")
        .expect("README shows xray_app.py");
    let intro = &readme[at..at + 200];
    assert!(
        intro.contains("numpy") && intro.contains("pip install numpy"),
        "{intro}"
    );
    let example = read("examples/app/xray_app.py");
    assert!(example.contains("pip install numpy"), "{example}");
}

/// Run by [`a_skipped_test_fails_under_ci_and_the_test_command`] only:
/// a test whose tool is missing.
#[test]
#[ignore = "a probe: run by a_skipped_test_fails_under_ci_and_the_test_command"]
fn skip_probe() {
    support::skip("skip_probe", "the probe's tool is missing");
}

/// This test binary run again on [`skip_probe`] alone, under `env`.
fn probe(env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["setup::skip_probe", "--exact", "--ignored", "--nocapture"])
        .env_remove("CI")
        .env_remove("SSC_NO_SKIP");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

#[test]
fn a_skipped_test_fails_under_ci_and_the_test_command() {
    // The quick loop (`cargo test`): the test passes and says it skipped.
    let quick = probe(&[]);
    let err = String::from_utf8_lossy(&quick.stderr);
    assert!(quick.status.success(), "{err}");
    assert!(
        err.contains("SKIPPED skip_probe: the probe's tool is missing"),
        "{err}"
    );
    // ./test and CI: the same test fails, and says why.
    for env in [[("SSC_NO_SKIP", "1")], [("CI", "true")]] {
        let out = probe(&env);
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.status.success(), "{env:?}: the skip passed\n{all}");
        assert!(
            all.contains("skip_probe cannot run: the probe's tool is missing"),
            "{env:?}: {all}"
        );
    }
}

/// Every file under `dir`, leaving out the root's `target/`, `build/`
/// (what cargo and ssc write) and `.git/`.
fn repository_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let path = e.path();
        let top = dir == std::path::Path::new(".");
        if top
            && ["target", "build", ".git"]
                .iter()
                .any(|n| e.file_name() == *n)
        {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            repository_files(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn the_suite_needs_nothing_beside_the_clone() {
    // SDF3 is vendored: its source archive, licence, build script and README.
    let sdf3 = std::path::Path::new("third_party/sdf3");
    let archive = sdf3.join("sdf3-2009-03-07.tar.gz");
    for f in ["build.sh", "COPYING", "README.md"] {
        assert!(sdf3.join(f).is_file(), "no third_party/sdf3/{f}");
    }
    assert!(archive.is_file(), "no {}", archive.display());
    let mode = std::fs::metadata(sdf3.join("build.sh")).unwrap();
    assert!(
        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o111 != 0,
        "third_party/sdf3/build.sh is not executable"
    );
    // COPYING is the archive's own licence, unchanged: the GPL version 3.
    let licence = Command::new("tar")
        .args(["xzf", &archive.to_string_lossy(), "-O", "sdf3/LICENSE"])
        .output()
        .unwrap();
    assert!(licence.status.success(), "tar: {licence:?}");
    let copying = std::fs::read(sdf3.join("COPYING")).unwrap();
    assert_eq!(copying, licence.stdout, "COPYING is not sdf3/LICENSE");
    assert!(String::from_utf8_lossy(&copying)
        .contains("GNU GENERAL PUBLIC LICENSE\n                       Version 3"));
    // ./test builds it from there.
    assert!(read("test").contains("sdf3_tools=third_party/sdf3\n"));
    // No file names a folder beside the clone (the string is split so
    // that this file does not name it either).
    let beside = concat!("../", "shared");
    let mut files = Vec::new();
    repository_files(std::path::Path::new("."), &mut files);
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue; // not text: the archive, figures
        };
        assert!(
            !text.contains(beside),
            "{} names {beside}, outside the repository",
            f.display()
        );
    }
}

/// A calibration for this CPU that doubles every point cost, in the
/// `.cache` of a home folder of its own.
fn calibrated_home(name: &str) -> std::path::PathBuf {
    let home = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("setup-{name}"));
    let _ = std::fs::remove_dir_all(&home);
    let file = ssc_cli::calibrate::cache_file_under(
        &home.join(".cache"),
        &ssc_cli::calibrate::cpu_model(),
    );
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let mut doubled = ssc::lower::cost::Coefficients::shipped();
    doubled.point.iter_mut().for_each(|p| *p *= 2.0);
    let text = support::cache::calibration_file(&ssc_cli::calibrate::cpu_model(), &doubled);
    std::fs::write(file, text).unwrap();
    home
}

#[test]
fn the_suite_has_a_cache_of_its_own_that_a_calibrated_home_does_not_reach() {
    let dir = support::cache::dir();
    assert!(dir.is_absolute() && dir.starts_with(env!("CARGO_TARGET_TMPDIR")));
    assert_eq!(std::env::var_os("XDG_CACHE_HOME"), Some(dir.clone().into()));
    assert!(
        !dir.join("ssc/calibration").exists(),
        "the suite's cache {} holds a calibration: no test may run `ssc calibrate` against it",
        dir.display()
    );
    let home = calibrated_home("calibrated-home");
    let model = |cmd: &mut Command| {
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{err}");
        err.lines()
            .find(|l| l.contains("cost model: "))
            .unwrap_or_else(|| panic!("no cost model line: {err}"))
            .to_string()
    };
    let build = ["build", "tests/in/chain.ssc", "-t", "info", "-v"];
    // ssc started by a test, directly or through a shell, with a home
    // whose cache holds a calibration: the suite's cache, no calibration.
    let direct = model(Command::new(support::SSC).args(build).env("HOME", &home));
    assert!(
        direct.contains("shipped defaults (no calibration for"),
        "{direct}"
    );
    let shell = model(
        Command::new("sh")
            .args(["-c", "exec \"$0\" calibrate --show", support::SSC])
            .env("HOME", &home),
    );
    assert!(
        shell.contains("shipped defaults (no calibration for"),
        "{shell}"
    );
    // The same home named as the cache: its calibration is read.
    let named = model(
        Command::new(support::SSC)
            .args(build)
            .env("XDG_CACHE_HOME", home.join(".cache")),
    );
    assert!(named.contains("calibrated coefficients for"), "{named}");
}
