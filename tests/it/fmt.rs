//! `ssc fmt`: comments kept where they belong, `--check`, `--write`, and
//! formatting a description the checker rejects.

use ssc::back::description::print_with_comments;
use ssc::front::syntax::comments::comments;
use ssc::front::syntax::parse;
use std::path::PathBuf;
use std::process::{Command, Output};

fn ssc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssc"))
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn fmt(source: &str) -> String {
    let desc = parse(source).unwrap_or_else(|e| panic!("{e:?}"));
    print_with_comments(&desc, source)
}

/// A file to write, unique per test.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fmt");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Comments before, inside and after blocks, at the ends of lines and of
/// sections, on statements the normal form reorders (`container_bind`
/// before the declarations) and merges (two `container_bind`, two
/// `container`, two `signal` statements).
const COMMENTED: &str = "// header comment
/* block
   header */
composition { // after composition brace
  container_bind gain func_gain FULL; // bind gain
  // before decl gain
  container_declaration gain {
    in IN int mul [1, 1]; // port in
    /* before out */ out OUT int mul [1, 1];
    // end of gain block
  }; // after gain decl
  container_declaration conv { in IN int mul [1, 1] [4, 4]; out OUT int mul [1, 1]; };
  container_declaration src { out OUT int mul [1, 1]; };
  container_declaration snk { in IN int mul [1, 1]; };
  // second bind statement
  container_bind
    // inside bind
    conv func_conv FULL, src func_source NONE, snk func_sink NONE;
  container_composition app {
    container g gain index, s src index, k snk index; // inst g
    // second container stmt
    container c conv index;
    s.out -> g.in;
    g.out -> c.in; /* conn */
    c.out -> k.in;
    // end of app
  };
  compose app [64, 64]; // compose
  // end of composition
} // closing composition
// between sections
declaration {
  function func_conv_0 func_conv [64, 64]; // a function
}
";

const EXPECTED: &str = "// header comment
/* block
   header */
composition { // after composition brace
  // before decl gain
  container_declaration gain {
    in IN int mul [1, 1]; // port in
    /* before out */
    out OUT int mul [1, 1];
    // end of gain block
  }; // after gain decl
  container_declaration conv {
    in IN int mul [1, 1] [4, 4];
    out OUT int mul [1, 1];
  };
  container_declaration src {
    out OUT int mul [1, 1];
  };
  container_declaration snk {
    in IN int mul [1, 1];
  };
  container_bind
    gain func_gain FULL, // bind gain
    // second bind statement
    // inside bind
    conv func_conv FULL,
    src func_source NONE,
    snk func_sink NONE;
  container_composition app {
    container
      g gain index,
      s src index,
      k snk index, // inst g
      // second container stmt
      c conv index;
    s.out -> g.in;
    g.out -> c.in; /* conn */
    c.out -> k.in;
    // end of app
  };
  compose app [64, 64]; // compose
  // end of composition
} // closing composition

// between sections
declaration {
  function
    func_conv_0 func_conv [64, 64]; // a function
}
";

/// Every property `fmt` promises of one source.
fn assert_formats_well(name: &str, source: &str) {
    let once = fmt(source);
    assert_eq!(fmt(&once), once, "{name}: fmt is not idempotent");
    assert_eq!(
        parse(&once).unwrap(),
        parse(source).unwrap(),
        "{name}: fmt changed the description"
    );
    let mut before: Vec<String> = comments(source).into_iter().map(|c| c.text).collect();
    let mut after: Vec<String> = comments(&once).into_iter().map(|c| c.text).collect();
    before.sort();
    after.sort();
    assert_eq!(before, after, "{name}: comments lost or changed:\n{once}");
}

#[test]
fn comments_stay_where_they_belong() {
    assert_eq!(fmt(COMMENTED), EXPECTED);
    assert_formats_well("COMMENTED", COMMENTED);
}

#[test]
fn comments_in_a_runtime_section_stay() {
    let source = "declaration {
  function f func_source [4, 4]; // one
}
instantiation {
  function_instantiation f.0 [0, 0]:[4, 4]; // sub-box
}
runtime {
  // signals first in the source, last in the normal form
  signal s0; // s0
  timing func_source 1; // time
  thread_schedule t0 [f.0];
  signal s1;
  // end of runtime
}
// end of file
";
    let once = fmt(source);
    assert!(
        once.contains("  // signals first in the source, last in the normal form\n  signal\n    s0, // s0\n    s1;\n  // end of runtime\n}\n// end of file\n"),
        "{once}"
    );
    assert!(once.contains("    func_source 1; // time\n"), "{once}");
    assert_formats_well("runtime", source);
}

#[test]
fn every_example_keeps_its_comments() {
    let mut files = Vec::new();
    for dir in ["examples", "tests/in", "tests/bad", "tests/bad_runtime"] {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "ssc") {
                files.push(p);
            }
        }
    }
    let mut checked = 0;
    for p in files {
        let Ok(source) = std::fs::read_to_string(&p) else {
            continue;
        };
        if parse(&source).is_err() {
            continue;
        }
        assert_formats_well(&p.display().to_string(), &source);
        checked += 1;
    }
    assert!(checked > 20, "only {checked} files parsed");
}

#[test]
fn fmt_of_xray_prints_its_comments() {
    let out = ssc(&["fmt", "examples/xray.ssc"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let source = std::fs::read_to_string("examples/xray.ssc").unwrap();
    let stdout = text(&out.stdout);
    assert_eq!(stdout.matches("//").count(), source.matches("//").count());
    assert!(stdout.starts_with("// An X-ray-like chain"), "{stdout}");
}

#[test]
fn check_prints_a_diff_and_exits_1_when_not_formatted() {
    let path = scratch("unformatted.ssc");
    std::fs::write(&path, COMMENTED).unwrap();
    let out = ssc(&["fmt", "--check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let diff = text(&out.stdout);
    assert!(diff.starts_with("--- "), "{diff}");
    assert!(diff.contains("\n+++ "), "{diff}");
    assert!(diff.contains("\n@@ "), "{diff}");
    assert!(
        diff.contains("\n-  container_bind gain func_gain FULL; // bind gain\n"),
        "{diff}"
    );
    assert!(
        diff.contains("\n+    gain func_gain FULL, // bind gain\n"),
        "{diff}"
    );
    // --check writes nothing.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), COMMENTED);

    std::fs::write(&path, EXPECTED).unwrap();
    let out = ssc(&["fmt", "--check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
}

#[test]
fn write_formats_in_place() {
    let path = scratch("write.ssc");
    std::fs::write(&path, COMMENTED).unwrap();
    let out = ssc(&["fmt", "--write", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), EXPECTED);
    let out = ssc(&["fmt", "--check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn write_refuses_standard_input_and_check_with_write() {
    let out = ssc(&["fmt", "--write", "-"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--write"),
        "{}",
        text(&out.stderr)
    );
    let out = ssc(&["fmt", "--write", "--check", "examples/xray.ssc"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_description_with_checker_errors_is_formatted() {
    // Parses, but binds a container twice (E0xx from the checker).
    let source = std::fs::read_to_string("tests/bad/dup_bind.ssc").unwrap();
    assert!(parse(&source).is_ok());
    let check = ssc(&["check", "tests/bad/dup_bind.ssc"]);
    assert_eq!(check.status.code(), Some(1));
    let out = ssc(&["fmt", "tests/bad/dup_bind.ssc"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), fmt(&source));
    // A syntax error is still an error.
    let out = ssc(&["fmt", "tests/bad/garbage.ssc"]);
    assert_eq!(out.status.code(), Some(1));
}
