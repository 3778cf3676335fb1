//! Kernels of one's own that stream (`ROWS`, runtime-c/README.md "Storage
//! folding"): their buffers are folded under `-ts fused` like a built-in's
//! and give the built-ins' checksum; without `ROWS` they stay whole; a
//! kernel that says `ROWS` but addresses `data + y * stride` is caught by
//! `ssc build --check-kernels`, naming its sub-box.

use crate::support;
use std::process::Command;
use support::*;

/// examples/streaming_kernels.ssc at `res` (the example is 1024²).
fn chain(tag: &str, res: u32, edit: impl Fn(String) -> String) -> std::path::PathBuf {
    let text = std::fs::read_to_string(root("examples/streaming_kernels.ssc"))
        .unwrap()
        .replace(
            "compose app [1024, 1024];",
            &format!("compose app [{res}, {res}];"),
        );
    let dir = scratch(&format!("streaming-kernels-{tag}"));
    write_input(&dir, "chain.ssc", &edit(text))
}

/// The same chain with the built-in source and sink.
fn builtins(text: String) -> String {
    text.replace("rows_source FULL ROWS", "func_source FULL")
        .replace("rows_sink FULL ROWS", "func_sink FULL")
}

fn kernels() -> String {
    root("examples/kernels/rows.c").display().to_string()
}

fn info(file: &std::path::Path) -> String {
    ssc_ok([
        "build",
        file.to_str().unwrap(),
        "--kernels",
        &kernels(),
        "-ts",
        "fused",
        "2",
        "-t",
        "info",
    ])
}

/// The `-t info` line of buffer `name` under "folded buffers".
fn fold_line(info: &str, name: &str) -> String {
    info.lines()
        .skip_while(|l| !l.starts_with("folded buffers"))
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no folded-buffers line for {name}:\n{info}"))
        .to_string()
}

#[test]
fn kernels_that_say_rows_get_folded_buffers_and_the_others_stay_whole() {
    let rows = info(&chain("info-rows", 1024, |t| t));
    for b in ["src.out", "d.out", "g.out"] {
        let line = fold_line(&rows, b);
        assert!(line.contains("rows ×"), "{b} not folded: {line}\n{rows}");
    }
    let plain = info(&chain("info-plain", 1024, |t| t.replace(" ROWS", "")));
    let src = fold_line(&plain, "src.out");
    assert!(
        src.contains("whole: `src` runs `rows_source`, a kernel of one's own without ROWS"),
        "{src}"
    );
    let d = fold_line(&plain, "d.out");
    assert!(d.contains("whole") && d.contains("rows_sink"), "{d}");
    // The buffer between two defined functions is folded either way.
    assert!(fold_line(&plain, "g.out").contains("rows ×"), "{plain}");
}

#[test]
fn kernels_that_say_rows_give_the_checksum_of_the_builtins_under_every_schedule() {
    let tc = gcc();
    let rows = chain("sum-rows", 256, |t| t);
    let reference = chain("sum-builtins", 256, builtins);
    let k = kernels();
    // 256² fits the cache: fused streams strips only when told to.
    let cases = vec![
        Case::new(&reference, "-ts fused 2 --strip-rows 8"),
        Case::new(&rows, &format!("--kernels {k} -ts fused 2 --strip-rows 8")),
        Case::new(
            &rows,
            &format!("--kernels {k} -ts fused 2 --strip-rows 8 --check-kernels"),
        ),
        Case::new(&rows, &format!("--kernels {k} -ts fused 2 --strip-rows 4")),
        Case::new(&rows, &format!("--kernels {k} -ts reduced 2 -ms reuse")),
        Case::new(&rows, &format!("--kernels {k} -ts fixed 1")),
    ];
    same_checksums(tc, "streaming-kernels", &cases, 20);
}

#[test]
fn kernels_that_say_rows_are_race_free_under_thread_sanitizer() {
    let rows = chain("tsan", 128, |t| t);
    let k = kernels();
    under_tsan(
        "tsan-streaming-kernels",
        &scratch("streaming-kernels-tsan-runs"),
        &[Case::new(
            &rows,
            &format!("--kernels {k} -ts fused 2 --strip-rows 4"),
        )],
    );
}

#[test]
fn a_kernel_that_says_rows_but_addresses_rows_itself_is_caught_by_check_kernels() {
    let file = chain("liar", 256, |t| {
        t.replace("rows_sink FULL ROWS", "func_sink FULL")
    });
    let dir = scratch("streaming-kernels-liar-build");
    let case = Case::new(
        &file,
        &format!(
            "--kernels {} -ts fused 2 --strip-rows 8 --check-kernels",
            root("tests/streaming/liar.c").display()
        ),
    );
    let exe = build(gcc(), &case, &dir).unwrap_or_else(|e| panic!("{e}"));
    let ran = run_in(
        &[],
        &exe,
        &["--iterations", "3"],
        &[],
        &dir,
        std::time::Duration::from_secs(60),
    )
    .unwrap();
    assert_eq!(ran.status.code(), Some(70), "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stderr.contains("--check-kernels: sub-box src.")
            && ran.stderr.contains(" of iteration 0 touched row ")
            && ran.stderr.contains("of src.out outside its rings")
            && ran.stderr.contains("through SSC_ROW"),
        "{}",
        ran.stderr
    );
}

#[test]
fn check_kernels_is_for_programs_and_rows_on_a_builtin_is_a_warning() {
    let file = chain("usage", 64, |t| t);
    let out = Command::new(env!("CARGO_BIN_EXE_ssc"))
        .arg("build")
        .arg(&file)
        .args(["--kernels", &kernels(), "-t", "library", "--check-kernels"])
        .arg("-od")
        .arg(scratch("streaming-kernels-usage-build"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--check-kernels guards"));

    let file = chain("builtin-rows", 64, |t| {
        t.replace("smooth gauss5 FULL", "smooth gauss5 FULL ROWS")
    });
    let out = run_ok(
        Command::new(env!("CARGO_BIN_EXE_ssc"))
            .arg("build")
            .arg(&file)
            .args(["--kernels", &kernels(), "-t", "interpreter"]),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning[E053]: `ROWS` on `gauss5`, a defined function"),
        "{err}"
    );
}
