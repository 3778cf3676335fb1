//! Golden diagnostics: every `tests/bad/*.ssc` gives at least one error, and
//! its rendered diagnostics are snapshotted; every `examples/*.ssc` checks
//! clean.

use ssc::front::check::check;
use ssc::front::diagnostics::{render, Diagnostic, SourceFile};
use ssc::front::syntax::parse;
use std::path::{Path, PathBuf};

fn diagnose(name: &str, text: &str) -> (Vec<Diagnostic>, String) {
    let diags = match parse(text) {
        Ok(desc) => check(&desc),
        Err(d) => d,
    };
    let rendered = render(&diags, &SourceFile::new(name, text));
    (diags, rendered)
}

fn files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ssc"))
        .collect();
    v.sort();
    v
}

#[test]
fn bad_inputs() {
    let files = files("tests/bad");
    assert!(files.len() >= 45, "only {} bad inputs", files.len());
    for path in files {
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let (diags, rendered) = diagnose(&format!("tests/bad/{stem}.ssc"), &text);
        assert!(
            diags.iter().any(|d| d.is_error()),
            "{stem}: no error\n{rendered}"
        );
        insta::assert_snapshot!(stem, rendered);
    }
}

/// A built-in misspelt is reported by the checker (not only by `build`'s
/// E301), with the built-in it probably means.
#[test]
fn a_misspelt_builtin_is_a_warning_with_did_you_mean() {
    let text = "composition {\n  container_declaration a { out OUT int mul [1, 1]; };\n  container_declaration b { in IN int mul [1, 1]; };\n  container_declaration app { };\n  container_bind a func_source NONE, b func_snik NONE;\n  container_composition app { container x a index, y b index; x.out -> y.in; };\n  compose app [4, 4];\n}\n";
    let (diags, rendered) = diagnose("typo.ssc", text);
    assert!(diags.iter().all(|d| !d.is_error()), "{rendered}");
    assert!(
        rendered.contains("warning[E036]") && rendered.contains("did you mean `func_sink`?"),
        "{rendered}"
    );
    assert!(
        rendered.contains("typo.ssc:5:"),
        "labelled at the bind: {rendered}"
    );
}

#[test]
fn examples_check_clean() {
    for path in files("examples") {
        let text = std::fs::read_to_string(&path).unwrap();
        let (diags, rendered) = diagnose(&path.display().to_string(), &text);
        assert!(diags.is_empty(), "{}:\n{rendered}", path.display());
    }
}

#[test]
fn ten_megabytes() {
    // Many unconnected functions: every input undriven, so the report is
    // cut after MAX_SHOWN diagnostics.
    let mut text = String::from(
        "declaration {\nfunction_declaration func_gain FULL { in IN int mul [1, 1]; out OUT int mul [1, 1]; };\nfunction f0 func_gain [256, 256]",
    );
    let mut i = 1;
    while text.len() < 10 * 1024 * 1024 {
        text.push_str(&format!(",\nf{i} func_gain [256, 256]"));
        i += 1;
    }
    text.push_str(";\n}\n");
    let dir = std::env::temp_dir().join(format!("ssc-10mb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.ssc");
    std::fs::write(&path, &text).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let start = std::time::Instant::now();
    let (diags, rendered) = diagnose("big.ssc", &text);
    std::fs::remove_dir_all(&dir).ok();
    assert!(diags.iter().any(|d| d.is_error()), "{rendered}");
    assert!(rendered.contains("more not shown"));
    eprintln!("10 MB checked in {:?}", start.elapsed());
}
