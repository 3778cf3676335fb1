//! ARCHITECTURE.md stays an essay that tells the truth about the tree: at
//! most [`MAX_LINES`] lines, and every repository path it names in
//! backticks exists.
//!
//! What counts as a path: a backtick span outside code blocks, without
//! spaces, and without the characters of code or placeholders (`:`, `<`,
//! `>`, `$`, `~`, `{`, `=`, …), that contains a `/` or ends in one of
//! [`EXTENSIONS`] (`lower/inline.rs`, `runtime-c/ssc_rt.c`, `ssc_rt.c`,
//! `compiler/ssc/calibrate/`); an extension alone (`.ptts`) is a file type.
//! Placeholders are written in angle brackets (`schedule/<name>.rs`), so
//! they are not checked.
//!
//! How a path resolves: against the repository root, or against one of
//! [`BASES`], the folders whose paths the text shortens — `compiler/core/`
//! for the compiler's modules (`lower/mod.rs`), `compiler/ssc/` for the
//! command's (`cli/args.rs`), `runtime-c/` and `runtime-c/templates/` for
//! the runtime's files and templates (`ssc_rt.c`, `kernels.c`), `tests/it/`
//! for the test areas (`tests/it/architecture/`). A bare file name must lie
//! directly in one of them, so a file that moved into a folder of its own
//! fails. A path that ends in `/` must be a folder; a `*` in the last
//! segment is a glob that must match something (`tests/bad*/`).

use std::path::{Path, PathBuf};

/// The most lines ARCHITECTURE.md may have.
const MAX_LINES: usize = 450;

/// The endings that make a span without a `/` a file name.
const EXTENSIONS: &[&str] = &[
    ".rs", ".c", ".h", ".md", ".pest", ".toml", ".py", ".pyi", ".sh", ".ssc", ".ptts",
];

/// The folders a shortened path is resolved against, after the root.
const BASES: &[&str] = &[
    "compiler/core",
    "compiler/ssc",
    "runtime-c",
    "runtime-c/templates",
    "tests/it",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// (line, span) of every backtick span outside fenced code blocks.
fn spans(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.next()) {
            out.push((i + 1, inside.to_string()));
        }
        // An odd last span (a span that goes on on the next line) is
        // never a path: paths are not broken across lines.
    }
    out
}

/// Whether a span names a repository path.
fn is_path(span: &str) -> bool {
    let plain = !span.is_empty()
        && span
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./-*".contains(c))
        && span
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '.' || c == '_');
    // `.ptts` alone is a file type, not a file.
    let extension_alone = span.starts_with('.') && !span[1..].contains(['.', '/']);
    plain
        && !extension_alone
        && (span.contains('/') || EXTENSIONS.iter().any(|e| span.ends_with(e)))
}

/// Whether `path` (a span) exists below `base`.
fn exists_below(base: &Path, path: &str) -> bool {
    let folder = path.ends_with('/');
    let path = path.trim_end_matches('/');
    let (parent, last) = match path.rsplit_once('/') {
        Some((p, l)) => (base.join(p), l),
        None => (base.to_path_buf(), path),
    };
    if let Some((prefix, suffix)) = last.split_once('*') {
        let Ok(entries) = std::fs::read_dir(&parent) else {
            return false;
        };
        return entries.flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(prefix) && name.ends_with(suffix) && (!folder || e.path().is_dir())
        });
    }
    let full = parent.join(last);
    if folder {
        full.is_dir()
    } else {
        full.exists()
    }
}

fn resolves(path: &str) -> bool {
    let root = repo();
    exists_below(&root, path) || BASES.iter().any(|b| exists_below(&root.join(b), path))
}

fn architecture() -> String {
    std::fs::read_to_string(repo().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

#[test]
fn architecture_md_is_at_most_450_lines() {
    let lines = architecture().lines().count();
    assert!(
        lines <= MAX_LINES,
        "ARCHITECTURE.md has {lines} lines, more than {MAX_LINES}: move detail into the module docs"
    );
}

#[test]
fn every_path_architecture_md_names_exists() {
    let text = architecture();
    let paths: Vec<(usize, String)> = spans(&text)
        .into_iter()
        .filter(|(_, s)| is_path(s))
        .collect();
    // The rule must keep finding the paths, or the test guards nothing.
    assert!(paths.len() >= 50, "only {} paths found", paths.len());
    let missing: Vec<String> = paths
        .iter()
        .filter(|(_, p)| !resolves(p))
        .map(|(line, p)| format!("ARCHITECTURE.md:{line}: `{p}`"))
        .collect();
    assert!(
        missing.is_empty(),
        "paths that exist neither below the root nor below {BASES:?}:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_path_rule_reads_spans_as_documented() {
    for p in [
        "lower/inline.rs",
        "runtime-c/ssc_rt.c",
        "ssc_rt.c",
        "compiler/ssc/calibrate/",
        "tests/bad*/",
        ".ci/run",
    ] {
        assert!(is_path(p), "{p}");
    }
    for s in [
        "back::c::Program",
        "schedule/<name>.rs",
        "${XDG_CACHE_HOME:-~/.cache}/ssc",
        "a / c",
        "-O3",
        "1/128",
        "ssc_port.fold",
        "-ffp-contract=off",
        ".ptts",
    ] {
        assert!(!is_path(s), "{s}");
    }
    assert!(resolves("lower/mod.rs"));
    assert!(resolves("cli/args.rs"));
    assert!(resolves("kernels.c"));
    assert!(resolves("tests/bad*/"));
    assert!(
        !resolves("calibrate.rs"),
        "a bare name resolves only in a base"
    );
    assert!(!resolves("lower/mod.rs/"), "a folder must be a folder");
    let spans = spans("a `x.rs` and `y/` then\n```\n`z.rs`\n```\n`w.c`");
    let names: Vec<&str> = spans.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(names, ["x.rs", "y/", "w.c"]);
}
