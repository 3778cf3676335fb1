//! Golden diagnostics: every `tests/bad/NAME.ssc` gives at least one
//! error (a `NAME_warning.ssc` a warning), and its rendered diagnostics are `tests/out/diagnostics/NAME.txt`
//! (`support::golden`); every `examples/*.ssc` checks clean.

use crate::support::golden;
use ssc::diagnostics::{render, Diagnostic, SourceFile};
use ssc::front::chain::{expand, Define};
use ssc::front::check::check;
use ssc::front::syntax::parse;
use std::path::{Path, PathBuf};

/// The diagnostics of `text`: its syntax, its chain's expansion (with
/// the `-D NAME=VALUE` of each line `// -D NAME=VALUE`), the checker.
fn diagnose(name: &str, text: &str) -> (Vec<Diagnostic>, String) {
    let defines: Vec<Define> = text
        .lines()
        .filter_map(|l| l.strip_prefix("// -D "))
        .map(|d| {
            let (name, value) = d.trim().split_once('=').unwrap();
            Define {
                name: name.into(),
                value: value.into(),
            }
        })
        .collect();
    let diags = match parse(text).and_then(|desc| expand(&desc, &defines)) {
        Ok(x) => {
            let mut d = x.warnings;
            d.extend(check(&x.description));
            d
        }
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

/// The files [`bad_inputs`] writes, under `tests/out/`.
pub(crate) fn outputs() -> Vec<String> {
    files("tests/bad")
        .iter()
        .map(|p| {
            format!(
                "diagnostics/{}.txt",
                p.file_stem().unwrap().to_str().unwrap()
            )
        })
        .collect()
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
        // A file named `…_warning` pins warnings; every other an error.
        let pinned = if stem.ends_with("_warning") {
            !diags.is_empty()
        } else {
            diags.iter().any(|d| d.is_error())
        };
        assert!(pinned, "{stem}: no error\n{rendered}");
        golden::check(&format!("diagnostics/{stem}.txt"), &rendered);
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

/// The rendered text of a description's diagnostics.
fn rendered(text: &str) -> String {
    diagnose("t.ssc", text).1
}

#[test]
fn expected_tokens_are_named_once_and_directions_are_upper_case() {
    let r = rendered(&std::fs::read_to_string("tests/bad/direction_lowercase.ssc").unwrap());
    assert!(r.contains("expected `IN` or `OUT`, found `in`"), "{r}");
    assert!(!r.contains("`IN`, `IN`"), "{r}");
    assert!(
        r.contains("help: keywords `IN`, `OUT`, `NONE` and `FULL` are upper case: write `IN`"),
        "{r}"
    );
}

#[test]
fn a_missing_semicolon_is_reported_after_the_token_that_needs_it() {
    let r = rendered(&std::fs::read_to_string("tests/bad/missing_semicolon.ssc").unwrap());
    // `    in IN int mul [1, 1]` ends at column 25 of line 4.
    assert!(r.contains("expected `;`, found `out`"), "{r}");
    assert!(r.contains("--> t.ssc:4:25"), "{r}");
    assert!(r.contains("add `;` here"), "{r}");
}

#[test]
fn a_misspelt_port_is_reported_once_without_cascades() {
    let (diags, r) = diagnose(
        "t.ssc",
        &std::fs::read_to_string("tests/bad/port_typo.ssc").unwrap(),
    );
    let codes: Vec<&str> = diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["E005", "E005"], "{r}");
    assert!(
        r.contains("did you mean `in`?") && r.contains("did you mean `out`?"),
        "{r}"
    );
    // A misspelt instance: no E012 for the port it meant either.
    let text = std::fs::read_to_string("tests/bad/port_typo.ssc")
        .unwrap()
        .replace("b.inn", "bb.in")
        .replace("b.ot", "b.out");
    let (diags, r) = diagnose("t.ssc", &text);
    assert_eq!(diags.len(), 1, "{r}");
    assert!(r.contains("did you mean `b`?"), "{r}");
}

#[test]
fn a_misspelt_container_gets_did_you_mean() {
    let r = rendered(&std::fs::read_to_string("tests/bad/container_typo.ssc").unwrap());
    assert!(r.contains("undeclared container type `snik`"), "{r}");
    assert!(r.contains("did you mean `sink`?"), "{r}");
}

#[test]
fn an_empty_file_is_reported_at_1_1() {
    for text in ["", "\n\n", "  \t\n"] {
        let r = rendered(text);
        assert!(r.contains("error[E001]: empty description"), "{r}");
        assert!(r.contains("--> t.ssc:1:1"), "{text:?}: {r}");
    }
}

#[test]
fn a_long_line_excerpt_stays_on_its_line() {
    let text = format!(
        "declaration {{\n  function_declaration func_gain FULL {{ in IN int mul [1, 1]; out OUT int mul [1, 1]; }};\n  function a func_gain [8, 8];{}a.out -> zz.in;\n// NEXTLINE\n}}\n",
        " ".repeat(300)
    );
    let r = rendered(&text);
    assert!(r.contains("too long to show"), "{r}");
    assert!(r.contains("a.out -> zz.in;"), "{r}");
    assert!(!r.contains("NEXTLINE"), "{r}");
}

#[test]
fn many_identical_connections_are_linear_and_capped() {
    let one = "    a.out -> b.in;\n";
    let text = format!(
        "composition {{\n  container_declaration source {{ out OUT int mul [1, 1]; }};\n  container_declaration sink {{ in IN int mul [1, 1]; }};\n  container_declaration app {{ }};\n  container_bind source func_source NONE, sink func_sink NONE;\n  container_composition app {{\n    container a source index, b sink index;\n{}  }};\n  compose app [8, 8];\n}}\n",
        one.repeat(20_000)
    );
    let start = std::time::Instant::now();
    let (diags, r) = diagnose("t.ssc", &text);
    let took = start.elapsed();
    assert_eq!(diags.len(), 1, "{}", &r[..r.len().min(2000)]);
    assert!(r.contains("input `b.in` is driven 20000 times"), "{r}");
    assert!(r.contains("note: 19992 more places not shown"), "{r}");
    assert!(r.lines().count() < 60, "{r}");
    // Over 10 s before (miette laid out all 20 000 labels).
    assert!(took < std::time::Duration::from_secs(3), "{took:?}");
    // `ssc fmt`'s work on the same file (parse, print with comments) is
    // linear too, and keeps every copy.
    let start = std::time::Instant::now();
    let desc = ssc::front::syntax::parse(&text).unwrap();
    let formatted = ssc::back::description::print_with_comments(&desc, &text);
    let took = start.elapsed();
    assert_eq!(formatted.matches("a.out -> b.in;").count(), 20_000);
    assert!(took < std::time::Duration::from_secs(3), "{took:?}");
}

#[test]
fn json_diagnostics_carry_every_field() {
    let text = std::fs::read_to_string("tests/bad/port_typo.ssc").unwrap();
    let (diags, _) = diagnose("t.ssc", &text);
    let file = SourceFile::new("t.ssc", text);
    let v = ssc::diagnostics::to_json(&diags[0], &file);
    assert_eq!(v["code"], "E005");
    assert_eq!(v["severity"], "error");
    assert_eq!(v["file"], "t.ssc");
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(10), Some(16))
    );
    assert_eq!(v["labels"][0]["end_column"], 19);
    assert_eq!(v["labels"][0]["primary"], true);
    assert_eq!(v["hint"], "did you mean `in`?");
    assert!(v["rendered"].as_str().unwrap().starts_with("error[E005]"));
}

/// Every code a source file of the compiler can emit has an entry in
/// docs/diagnostics.md (and so `ssc explain`).
#[test]
fn every_code_is_documented() {
    let doc = std::fs::read_to_string("docs/diagnostics.md").unwrap();
    let mut missing = Vec::new();
    let mut stack = vec![PathBuf::from("compiler")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let mut rest = text.as_str();
            while let Some(i) = rest.find("\"E") {
                let code = &rest[i + 1..];
                if code.len() > 5
                    && code[1..4].chars().all(|c| c.is_ascii_digit())
                    && &code[4..5] == "\""
                {
                    let code = &code[..4];
                    if !doc.contains(&format!("| {code} |")) {
                        missing.push(format!("{code} ({})", p.display()));
                    }
                }
                rest = &rest[i + 2..];
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not in docs/diagnostics.md: {missing:?}"
    );
}
