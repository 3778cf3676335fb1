//! No source file is over [`MAX_FILE_LINES`] lines and no function over
//! [`MAX_FN_LINES`]: every `.rs`, `.c` and `.h` file git knows of (tracked,
//! or new and not ignored), tests and benches included. Excluded:
//! `tests/out/` (snapshots the compiler writes, not sources) and
//! `third_party/` (code of others, kept as it came). Rust functions are
//! found by [`functions`], C functions by [`c_functions`]; the askama C
//! templates of `runtime-c/templates/` are scanned as C with their tags
//! blanked, so a function there is measured as its template text.

use super::scan::{c_functions, functions};
use std::path::Path;
use std::process::Command;

/// The longest a source file may be.
const MAX_FILE_LINES: usize = 900;

/// The longest a function may be, from its `fn` line (in C, the line of
/// its name) to its closing brace.
const MAX_FN_LINES: usize = 120;

/// The folders whose files are not ours to size.
const EXCLUDED: &[&str] = &["tests/out/", "third_party/"];

/// Every source file to size: its path from the repository (with `/`)
/// and its text.
fn sources() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = crate::support::run_ok(
        Command::new("git")
            .args([
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ])
            .current_dir(root),
    );
    let mut files: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter(|f| [".rs", ".c", ".h"].iter().any(|e| f.ends_with(e)))
        .filter(|f| !EXCLUDED.iter().any(|x| f.starts_with(x)))
        .map(str::to_string)
        .collect();
    files.sort();
    files.dedup();
    // A file deleted but not yet staged is listed and absent: skipped.
    files
        .into_iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(root.join(&f)).ok()?;
            Some((f, text))
        })
        .collect()
}

/// The functions of a source file, Rust or C by its extension.
fn functions_of(path: &str, text: &str) -> Vec<(usize, String, usize)> {
    if path.ends_with(".rs") {
        functions(text)
    } else {
        c_functions(text, path.starts_with("runtime-c/templates/"))
    }
}

#[test]
fn no_source_file_is_over_900_lines() {
    let files = sources();
    assert!(
        files.iter().any(|(f, _)| f == "runtime-c/ssc_image.c"),
        "the scan sees the runtime"
    );
    let long: Vec<String> = files
        .iter()
        .map(|(f, text)| (f, text.lines().count()))
        .filter(|(_, n)| *n > MAX_FILE_LINES)
        .map(|(f, n)| format!("{f}:1 ({n} lines)"))
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} lines; split them into modules with one job each:\n{}",
        long.join("\n")
    );
}

#[test]
fn no_function_is_over_120_lines() {
    let mut long = Vec::new();
    for (path, text) in sources() {
        for (line, name, length) in functions_of(&path, &text) {
            if length > MAX_FN_LINES {
                long.push(format!("{path}:{line} {name} ({length} lines)"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines; split them into functions with one job each:\n{}",
        long.join("\n")
    );
}
