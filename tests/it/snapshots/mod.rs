//! The snapshot driver (naga-style): every input — [`inputs`]:
//! `examples/*.ssc` and `tests/in/*.ssc` — through every stage and back
//! end, each output a plain file `tests/out/<stage or back end>/NAME.<ext>`
//! that `support::golden` compares byte for byte (`SSC_BLESS=1` writes it):
//!
//! | file under `tests/out/` | what | route |
//! |---|---|---|
//! | `lowered/NAME.ssc` | the description lowered to its instantiation by the library, printed | [`lowered`] |
//! | `dot/NAME.declaration.dot`, `dot/NAME.instantiation.dot` | DOT of the declaration and of the instantiation HSDFG | [`lowered`] |
//! | `sdf3/NAME.xml`, `gxl/NAME.gxl` | SDF3 XML and GXL of the instantiation HSDFG | [`lowered`] |
//! | `interpreter/NAME.ssc` | `ssc build -t interpreter`: all four sections, a program | [`stages`] |
//! | `interpreter/NAME.fused.ssc` | the same with `-ts fused 2 -ms fold --strip-rows 8` | [`stages`] |
//! | `info/NAME.txt`, `info/NAME.json` | `-t info`, text and `--json` | [`stages`] |
//! | `dot/NAME.runtime.dot` | the runtime DOT (`-rg`) | [`stages`] |
//! | `c/NAME.c`, `c/appendix.vo.c` | the generated C (`-t c`), Appendix A also with `-vo` | [`c`] |
//!
//! Every build takes [`OPTS`] (so nothing depends on this machine's CPU
//! count) and no calibration cache (the cost model's shipped defaults); an
//! input's kernels of its own (`--kernels`) follow from its text
//! (`support::kernel_args`), its table files (`lut("F")`) are beside it.
//! The variants are the routes': the fused runtime for every input whose
//! runtime is not written by hand ([`written_runtime`]), `-vo` for the
//! inputs of `c::COMMENTED`.
//!
//! Each route is one test (two run at a time) and checks what its outputs
//! promise besides their text (round trips, rendering, determinism: its
//! module doc); the files it writes are exactly its `outputs`. Guarantees:
//! [`tests_out_holds_only_what_the_tests_write`] fails on a file of
//! `tests/out/` that neither this driver nor the modules with snapshots of
//! their own (diagnostics, cli, ptts_snapshots, library) write.

mod c;
mod lowered;
mod stages;

pub(crate) use stages::{build, parses_and_checks_clean};

use crate::support::{self, golden};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The options of every build, each flag with its values (an option of
/// the same flag given for one build replaces it).
pub(crate) const OPTS: &[&[&str]] = &[
    &["-ts", "reduced", "2"],
    &["-cm", "0,1"],
    &["-ms", "interference"],
];

/// `examples/*.ssc` and `tests/in/*.ssc`, sorted; their names (what every
/// output is named after) are distinct.
pub(crate) fn inputs() -> Vec<PathBuf> {
    let v = support::inputs();
    let names: BTreeSet<String> = v.iter().map(|p| stem(p)).collect();
    assert_eq!(names.len(), v.len(), "two inputs share a name: {v:?}");
    v
}

/// The input's name: `xray` for `examples/xray.ssc`.
pub(crate) fn stem(input: &Path) -> String {
    input.file_stem().unwrap().to_str().unwrap().to_string()
}

/// Whether the input's runtime has programs written by hand (which the
/// compiler honours as written: no scheduler is asked).
pub(crate) fn written_runtime(input: &Path) -> bool {
    std::fs::read_to_string(input)
        .unwrap()
        .contains("thread_execution")
}

/// Checks the texts a route produced for `input` against `tests/out/`,
/// one for each of its `outputs` (the same order).
fn golden_files(input: &Path, outputs: Vec<String>, texts: Vec<String>) {
    assert_eq!(
        outputs.len(),
        texts.len(),
        "{}: {outputs:?}",
        input.display()
    );
    for (rel, text) in outputs.iter().zip(&texts) {
        golden::check(rel, text);
    }
}

/// Whether `name -V` runs (Graphviz' `dot` has no `--version`).
fn tool(name: &str) -> bool {
    Command::new(name)
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// Whether `cmd args` succeeds on `input` as stdin (its stderr shown).
fn pipe(cmd: &str, args: &[&str], input: &str) -> bool {
    let mut child = Command::new(cmd)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait().unwrap().success()
}

/// The files of `tests/out/` some test writes: every route's outputs of
/// every input, and those of the modules with snapshots of their own.
fn expected() -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    for input in inputs() {
        all.extend(lowered::outputs(&input));
        all.extend(stages::outputs(&input));
        all.extend(c::outputs(&input));
    }
    all.extend(crate::diagnostics::outputs());
    all.extend(crate::cli::outputs());
    all.extend(crate::ptts_snapshots::outputs());
    all.extend(crate::library::outputs());
    all
}

#[test]
fn tests_out_holds_only_what_the_tests_write() {
    golden::no_stale(&expected());
}
