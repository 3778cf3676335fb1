//! The docs stand alone: every code block of README.md and
//! docs/*.md tagged `ssc` is a description `ssc check` accepts, no block
//! that is a description hides under another tag, and no file cites a
//! specification the repository does not hold.

use ssc::diagnostics::{render, SourceFile};
use std::path::{Path, PathBuf};

/// (file, line, tag, text) of every fenced code block.
fn blocks(path: &Path) -> Vec<(String, usize, String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut out = Vec::new();
    let mut open: Option<(usize, String, String)> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(tag)) => open = Some((i + 1, tag.trim().to_string(), String::new())),
            (Some(_), Some(_)) => {
                let (at, tag, body) = open.take().unwrap();
                out.push((path.display().to_string(), at, tag, body));
            }
            (Some((_, _, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(
        open.is_none(),
        "{}: a code block is never closed",
        path.display()
    );
    out
}

fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir("docs")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// What `ssc check` does: parse, check, validate and prove what is given.
fn check(name: &str, text: &str) -> Result<(), String> {
    let file = SourceFile::new(name, text);
    let desc = ssc::front::read(text, &[])
        .map(|x| x.description)
        .map_err(|d| render(&d, &file))?;
    let diags = ssc::front::check(&desc);
    if diags.iter().any(|d| d.is_error()) {
        return Err(render(&diags, &file));
    }
    ssc::pipeline::check(&desc)
        .map(|_| ())
        .map_err(|d| render(&d, &file))
}

#[test]
fn every_description_in_the_docs_passes_check() {
    let mut checked = 0;
    for path in doc_files() {
        for (file, line, tag, body) in blocks(&path) {
            let name = format!("{file}:{line}");
            if tag == "ssc" {
                check(&name, &body).unwrap_or_else(|e| panic!("{name}: `ssc check` fails:\n{e}"));
                checked += 1;
                continue;
            }
            // A description under another tag (or none) would escape the check.
            let first = body
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with("//"))
                .unwrap_or("");
            assert!(
                !(first.starts_with("composition {") || first.starts_with("declaration {")),
                "{name}: a description in a block tagged `{tag}`: tag it `ssc`"
            );
        }
    }
    // README's tour and docs/language.md's examples at least.
    assert!(checked >= 3, "only {checked} `ssc` blocks");
}

/// Directories of build output, never the repository's text.
const OUTPUT_DIRS: &[&str] = &["target/", "build/"];

/// Whether a line cites the specification ssc was first written against,
/// which users of the repository cannot open.
fn cites_outside_spec(line: &str) -> bool {
    ["SPEC §", "SPEC§", "shared/SPEC", "SPEC.md"]
        .iter()
        .any(|p| line.contains(p))
}

#[test]
fn nothing_cites_a_specification_outside_the_repository() {
    // Every file of the repository: tracked, and new ones not ignored.
    let files = std::process::Command::new("git")
        .args(["ls-files", "--cached", "--others", "--exclude-standard"])
        .output()
        .expect("git");
    assert!(files.status.success(), "git ls-files failed");
    let mut found = Vec::new();
    let mut read = 0;
    for f in String::from_utf8_lossy(&files.stdout).lines() {
        if OUTPUT_DIRS.iter().any(|p| f.starts_with(p)) || f == "tests/it/docs.rs" {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        read += 1;
        for (i, line) in text.lines().enumerate() {
            if cites_outside_spec(line) {
                found.push(format!("{f}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    // The runtime, the C back end, the schedulers and the split are read too.
    assert!(read > 100, "only {read} files read");
    assert!(found.is_empty(), "{}", found.join("\n"));
}
