//! Golden files: every snapshot of the tests is a plain file under
//! `tests/out/` (naga-style: `tests/out/<stage or back end>/<input>.<ext>`).
//!
//! Takes a path relative to `tests/out/` and the text a test produced.
//! [`check`] passes when the file holds exactly that text, ended by a
//! newline (a file under `tests/out/` ends with one: a text that does not,
//! such as the generated C or a pretty-printed JSON, is compared and
//! written with one added; nothing else is normalised, a trailing space or
//! blank line counts), and fails on a missing file or with a unified diff
//! (file → produced) and the command that blesses it. With `SSC_BLESS=1` it writes the file instead, and
//! [`no_stale`] removes the files no test writes, so `tests/out/` ends up
//! exactly what the tests produce; otherwise [`no_stale`] fails naming
//! them (a renamed or removed input must not leave an orphan behind).

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The folder of the golden files, relative to the repository.
pub const OUT: &str = "tests/out";

/// Whether `SSC_BLESS` (set, not empty, not `0`) asks to write the golden
/// files instead of comparing them.
pub fn blessing() -> bool {
    std::env::var("SSC_BLESS").is_ok_and(|v| !v.is_empty() && v != "0")
}

fn out() -> PathBuf {
    super::root(OUT)
}

/// The command that blesses the test that is running (the harness names
/// its thread after the test; a helper thread has no name).
fn bless_command() -> String {
    let test = std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .map(|n| format!(" {n}"))
        .unwrap_or_default();
    format!("SSC_BLESS=1 cargo test --test it{test}")
}

/// Compares `actual` (with a final newline added when it has none) with
/// `tests/out/REL` byte for byte; under [`blessing`] writes it (when it
/// differs or is missing) instead.
pub fn check(rel: &str, actual: &str) {
    let actual = if actual.ends_with('\n') {
        actual.to_string()
    } else {
        format!("{actual}\n")
    };
    let actual = actual.as_str();
    let path = out().join(rel);
    let old = std::fs::read(&path).ok();
    if old.as_deref() == Some(actual.as_bytes()) {
        return;
    }
    if blessing() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        let _ = writeln!(std::io::stderr(), "blessed {OUT}/{rel}");
        return;
    }
    let Some(old) = old else {
        panic!("{OUT}/{rel} is missing; `{}` writes it", bless_command());
    };
    let old = String::from_utf8_lossy(&old);
    let diff = similar::TextDiff::from_lines(old.as_ref(), actual)
        .unified_diff()
        .context_radius(3)
        .header(&format!("{OUT}/{rel}"), "produced by the test")
        .to_string();
    panic!(
        "{OUT}/{rel} differs from what the test produced:\n{diff}\n\
         if the change is intended, `{}` writes it",
        bless_command()
    );
}

/// Every file under `tests/out/`, relative to it (`c/xray.c`).
pub fn files() -> BTreeSet<String> {
    fn walk(dir: &Path, base: &Path, into: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, base, into);
            } else {
                let rel = p.strip_prefix(base).unwrap();
                into.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut v = BTreeSet::new();
    walk(&out(), &out(), &mut v);
    v
}

/// Fails naming every file of `tests/out/` not in `expected` (paths
/// relative to it); under [`blessing`] removes them instead.
pub fn no_stale(expected: &BTreeSet<String>) {
    let stale: Vec<String> = files().difference(expected).cloned().collect();
    if stale.is_empty() {
        return;
    }
    if blessing() {
        for rel in &stale {
            std::fs::remove_file(out().join(rel)).unwrap();
            let _ = writeln!(std::io::stderr(), "removed stale {OUT}/{rel}");
        }
        return;
    }
    panic!(
        "{} file(s) of {OUT}/ no test writes (stale snapshots of a renamed or \
         removed input or test):\n  {}\ndelete them, or SSC_BLESS=1 cargo test \
         --test it snapshots:: removes them",
        stale.len(),
        stale.join("\n  ")
    );
}
