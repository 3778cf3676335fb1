//! The C back end's route of the snapshot driver (runtime-c/README.md):
//! `c/NAME.c` of every input built with the driver's options, and
//! `c/NAME.vo.c` with `-vo` too for the inputs of [`COMMENTED`] (Appendix
//! A). Besides the text it checks that two builds give byte-identical
//! files and that under `-vo` every op of the thread code carries a
//! comment; and, no snapshot, that a core mask without pinning confines
//! every thread.
//!
//! Each build runs in a fresh directory with relative paths (the header
//! comment names the description and the options as typed; the input's
//! kernels of its own and table files are copied beside it), and with
//! `CC=true`: these tests are about the text; tests/it/e2e.rs compiles and runs.

use super::{golden_files, stem, OPTS};
use crate::support;

use std::path::Path;
use std::process::Command;

/// The inputs also built with `-vo` (a comment on every op).
const COMMENTED: &[&str] = &["appendix"];

/// The files this route writes for `input`, under `tests/out/`.
pub(super) fn outputs(input: &Path) -> Vec<String> {
    let s = stem(input);
    let mut v = vec![format!("c/{s}.c")];
    if COMMENTED.contains(&s.as_str()) {
        v.push(format!("c/{s}.vo.c"));
    }
    v
}

/// The driver's options as typed: `-ts reduced 2 -cm 0,1 -ms interference`.
fn options() -> String {
    OPTS.concat().join(" ")
}

/// Builds `input` in a new directory `tag` and returns `NAME.c`.
fn generated_c(input: &Path, options: &str, tag: &str) -> String {
    let stem = stem(input);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("c-snapshots-{}", std::process::id()))
        .join(format!("{stem}-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = format!("{stem}.ssc");
    std::fs::copy(input, dir.join(&file)).unwrap();
    let text = std::fs::read_to_string(input).unwrap();
    // Its table files (`lut(k, "F")`), beside it.
    for e in std::fs::read_dir(input.parent().unwrap()).unwrap() {
        let table = e.unwrap().path();
        let name = table.file_name().unwrap().to_string_lossy().into_owned();
        if table.is_file() && text.contains(&format!("\"{name}\"")) {
            std::fs::copy(&table, dir.join(&name)).unwrap();
        }
    }
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
    for kernels in support::own_kernels(&text) {
        let name = kernels.file_name().unwrap().to_string_lossy().into_owned();
        std::fs::copy(&kernels, dir.join(&name)).unwrap();
        cmd.args(["--kernels", &name]);
    }
    support::run_ok(&mut cmd);
    let c = std::fs::read_to_string(dir.join("out").join(format!("{stem}.c"))).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir(dir.parent().unwrap()); // once empty
    c
}

#[test]
fn generated_c_of_every_input() {
    let options = options();
    for input in super::inputs() {
        let stem = stem(&input);
        let first = generated_c(&input, &options, "a");
        let second = generated_c(&input, &options, "b");
        assert!(first == second, "{stem}.c differs between two builds");
        let mut texts = vec![first];
        if COMMENTED.contains(&stem.as_str()) {
            let options = format!("{options} -vo");
            let first = generated_c(&input, &options, "vo-a");
            let second = generated_c(&input, &options, "vo-b");
            assert!(first == second, "{stem}.c (-vo) differs between two builds");
            // -vo: every op of the thread code carries a comment.
            for line in first.lines().map(str::trim) {
                if line.starts_with("ssc_W(")
                    || line.starts_with("ssc_S(")
                    || line.starts_with("ssc_E(")
                {
                    assert!(line.contains("/* "), "{stem}: no comment: {line}");
                }
            }
            texts.push(first);
        }
        golden_files(&input, outputs(&input), texts);
    }
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
