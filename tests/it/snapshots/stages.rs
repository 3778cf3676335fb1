//! The `ssc` binary's route of the snapshot driver: every input built with
//! the driver's options gives the fully lowered description
//! (`interpreter/NAME.ssc`: `-t interpreter`, all four sections), `-t info`
//! as text and JSON (`info/NAME.txt`, `info/NAME.json`) and the runtime DOT
//! (`dot/NAME.runtime.dot`: `-rg`); an input whose runtime is not written
//! by hand also the fused runtime with rings (`interpreter/NAME.fused.ssc`:
//! `-ts fused 2 -ms fold --strip-rows 8`). Besides the text it checks that
//! every stage's output is a program: the printed description parses,
//! checks clean, and compiled again — its runtime now hand-written —
//! proves and prints byte-identically (the fused one too); the runtime DOT
//! of the output read back is the same and renders (Graphviz; under
//! `SSC_NO_SKIP=1` it must be installed).

use super::{golden_files, pipe, stem, tool, written_runtime, OPTS};
use crate::support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The files this route writes for `input`, under `tests/out/`.
pub(super) fn outputs(input: &Path) -> Vec<String> {
    let s = stem(input);
    let mut v = vec![
        format!("interpreter/{s}.ssc"),
        format!("info/{s}.txt"),
        format!("info/{s}.json"),
        format!("dot/{s}.runtime.dot"),
    ];
    if !written_runtime(input) {
        v.push(format!("interpreter/{s}.fused.ssc"));
    }
    v
}

/// Runs `ssc build FILE OPTS EXTRA` (FILE `-`: `stdin`; an option of OPTS
/// given in EXTRA is replaced); stdout on success.
pub(crate) fn build(file: &str, extra: &[&str], stdin: Option<&str>) -> String {
    let base: Vec<&str> = OPTS
        .iter()
        .filter(|o| !extra.contains(&o[0]))
        .flat_map(|o| o.iter().copied())
        .collect();
    // A kernel of one's own (examples/user_kernel.ssc,
    // streaming_kernels.ssc) is known only with its --kernels file (E038),
    // printed back or not.
    let text = match stdin {
        Some(s) => s.to_string(),
        None => std::fs::read_to_string(file).unwrap(),
    };
    let kernels = support::kernel_args(&text);
    let mut child = Command::new(env!("CARGO_BIN_EXE_ssc"))
        .arg("build")
        .arg(file)
        .args(&base)
        .args(extra)
        .args(&kernels)
        // No calibration cache: the cost model's shipped defaults, the
        // same on every machine.
        .env(
            "XDG_CACHE_HOME",
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-calibration"),
        )
        // A description on stdin reads its table files (`lut("F")`) from the
        // working directory: the inputs' tables are in tests/in.
        .current_dir(tables())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    input
        .write_all(stdin.unwrap_or_default().as_bytes())
        .unwrap();
    drop(input);
    let out: Output = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "ssc build {file} {extra:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Where the inputs' table files are (every `lut("F")` of them is in
/// tests/in).
fn tables() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/in")
}

pub(crate) fn parses_and_checks_clean(text: &str, what: &str) -> ssc::ir::Description {
    let mut desc = ssc::front::read(text, &[])
        .map(|x| x.description)
        .unwrap_or_else(|e| panic!("{what}: {e:?}"));
    desc.dir = Some(tables());
    let diags = ssc::front::check(&desc);
    assert!(diags.is_empty(), "{what}: {diags:?}");
    desc
}

#[test]
fn interpreter_info_runtime_dot_and_normal_form() {
    let dot = tool("dot");
    if !dot {
        support::skip(
            "interpreter_info_runtime_dot_and_normal_form (rendering the runtime DOT)",
            "graphviz `dot` not installed",
        );
    }
    let tmp = std::env::temp_dir().join(format!("ssc-stages-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for path in super::inputs() {
        let stem = stem(&path);
        let file = path.to_str().unwrap();

        // The fully lowered description: all four sections, a program.
        let lowered = build(file, &["-t", "interpreter"], None);
        let desc = parses_and_checks_clean(&lowered, &stem);
        let source = parses_and_checks_clean(&std::fs::read_to_string(&path).unwrap(), &stem);
        assert!(
            desc.composition.is_some() == source.composition.is_some()
                && desc.declaration.is_some()
                && desc.instantiation.is_some(),
            "{stem}: a section is missing"
        );
        let r = desc.runtime.as_ref().expect("a runtime section");
        assert!(
            !r.thread_schedule.is_empty() && !r.thread_executions.is_empty(),
            "{stem}: the runtime has no programs"
        );
        // Compiled again, its runtime now written by hand: proven, printed
        // byte-identically (the normal form is a fixed point).
        let again = build("-", &["-t", "interpreter"], Some(&lowered));
        assert_eq!(again, lowered, "{stem}: compiling the output again");
        let proof = build("-", &["-t", "info"], Some(&lowered));
        assert!(proof.contains("proof "), "{stem}: {proof}");

        // -t info, text and JSON.
        let info = build(file, &["-t", "info"], None);
        let json = build(file, &["-t", "info", "--json"], None);
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let written = written_runtime(&path);
        if !written {
            assert_eq!(v["scheduler"], "reduced(2)", "{stem}");
        }

        // The runtime DOT: renders, and is the same for the runtime read back.
        let rg = tmp.join(format!("{stem}.runtime.dot"));
        let rg_again = tmp.join(format!("{stem}.again.runtime.dot"));
        build(
            file,
            &["-t", "interpreter", "-rg", rg.to_str().unwrap()],
            None,
        );
        build(
            "-",
            &["-t", "interpreter", "-rg", rg_again.to_str().unwrap()],
            Some(&lowered),
        );
        let runtime_dot = std::fs::read_to_string(&rg).unwrap();
        assert_eq!(
            runtime_dot,
            std::fs::read_to_string(&rg_again).unwrap(),
            "{stem}: runtime DOT of the output read back"
        );
        if dot {
            assert!(
                pipe("dot", &["-Tsvg"], &runtime_dot),
                "{stem}: runtime DOT does not render"
            );
        }
        let mut texts = vec![lowered, info, json, runtime_dot];

        // Fused with rings: the printed runtime (rings are memory mappings
        // smaller than their buffers, bands follow the programs) read back
        // is proven and prints the same.
        if !written {
            let fused_args = [
                "-ts",
                "fused",
                "2",
                "-ms",
                "fold",
                "--strip-rows",
                "8",
                "-t",
                "interpreter",
            ];
            let fused = build(file, &fused_args, None);
            parses_and_checks_clean(&fused, &format!("{stem} fused"));
            let again = build("-", &["-t", "interpreter"], Some(&fused));
            assert_eq!(again, fused, "{stem}: the fused runtime read back");
            texts.push(fused);
        }
        golden_files(&path, outputs(&path), texts);
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
