//! Golden snapshots of the generated C (runtime-c/README.md): `NAME.c` of every
//! `examples/*.ssc` built with `-ts reduced 2 -cm 0,1 -ms interference`, and
//! Appendix A with `-vo`; two builds give byte-identical files.
//!
//! Each build runs in a fresh directory with relative paths (the header
//! comment names the description and the options as typed), and with
//! `CC=true`: these tests are about the text; tests/it/e2e.rs compiles and runs.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

const OPTIONS: &str = "-ts reduced 2 -cm 0,1 -ms interference";

fn examples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ssc"))
            .collect();
    v.sort();
    v
}

/// Builds `example` in a new directory `tag` and returns `NAME.c`.
fn generated_c(example: &Path, options: &str, tag: &str) -> String {
    let stem = example.file_stem().unwrap().to_string_lossy().into_owned();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("c-snapshots-{}", std::process::id()))
        .join(format!("{stem}-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = format!("{stem}.ssc");
    std::fs::copy(example, dir.join(&file)).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ssc"));
    cmd.current_dir(&dir)
        .args(["build", &file])
        .args(options.split_whitespace())
        .args(["-od", "out"])
        .env("CC", "true")
        // No calibration cache: the cost model's shipped defaults, the
        // same on every machine.
        .env(
            "XDG_CACHE_HOME",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-calibration"),
        );
    // Kernels of one's own, copied beside it and named relatively (the
    // header comment quotes the command line).
    for kernels in support::own_kernels(&std::fs::read_to_string(example).unwrap()) {
        let name = kernels.file_name().unwrap().to_string_lossy().into_owned();
        std::fs::copy(&kernels, dir.join(&name)).unwrap();
        cmd.args(["--kernels", &name]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "ssc build {file} {options}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c = std::fs::read_to_string(dir.join("out").join(format!("{stem}.c"))).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir(dir.parent().unwrap()); // once empty
    c
}

#[test]
fn generated_c_of_every_example() {
    for example in examples() {
        let stem = example.file_stem().unwrap().to_string_lossy().into_owned();
        let first = generated_c(&example, OPTIONS, "a");
        let second = generated_c(&example, OPTIONS, "b");
        assert!(first == second, "{stem}.c differs between two builds");
        insta::assert_snapshot!(format!("{stem}.c"), first);
    }
}

#[test]
fn generated_c_with_comments_on_every_op() {
    let appendix = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/appendix.ssc");
    let options = format!("{OPTIONS} -vo");
    let first = generated_c(&appendix, &options, "vo-a");
    let second = generated_c(&appendix, &options, "vo-b");
    assert!(
        first == second,
        "appendix.c (-vo) differs between two builds"
    );
    // -vo: every op of the thread code carries a comment.
    for line in first.lines().map(str::trim) {
        if line.starts_with("ssc_W(") || line.starts_with("ssc_S(") || line.starts_with("ssc_E(") {
            assert!(line.contains("/* "), "no comment: {line}");
        }
    }
    insta::assert_snapshot!("appendix.vo.c", first);
}

#[test]
fn a_core_mask_without_pinning_confines_every_thread() {
    let diamond = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/diamond.ssc");
    // -cm alone on an OS-scheduled program: ssc_init_mask (runtime-c/README.md).
    let masked = generated_c(&diamond, "-ts simple -cm 1", "mask");
    assert!(
        masked.contains("static const int mask[] = { 1 };")
            && masked.contains("ssc_init_mask(&opt, N_THREADS, mask, 1)"),
        "{masked}"
    );
    // With -ca: thread i on core i of the mask.
    let pinned = generated_c(&diamond, "-ts simple -cm 1,0 -ca", "pinned");
    assert!(
        pinned.contains("ssc_init(&opt, N_THREADS, cores)"),
        "{pinned}"
    );
    assert!(!pinned.contains("ssc_init_mask"));
    // Neither: the OS decides.
    let free = generated_c(&diamond, "-ts simple", "free");
    assert!(free.contains("ssc_init(&opt, N_THREADS, NULL)"), "{free}");
}
