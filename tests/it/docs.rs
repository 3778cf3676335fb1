//! The docs stand alone: every code block of README.md and
//! docs/*.md tagged `ssc` is a description `ssc check` accepts, no block
//! that is a description hides under another tag, no file cites a
//! specification the repository does not hold, and no text tells how the
//! work went (a tracker's item numbers, the names of work periods and task
//! notes, days of work) instead of what the product does.

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

/// Files that say how the work went by nature, or are not ours: the
/// change log is a journal (dates belong there), and third_party/ holds
/// other projects' sources and licences as they ship them.
const JOURNAL_OR_NOT_OURS: &[&str] = &["CHANGELOG.md", "third_party/"];

/// Data, not prose or code: JSON results, CSV, XML (the GXL exports, the
/// SVG figures), proptest's seed files, the lock file, images and other
/// binary inputs. Binary files that are not UTF-8 are skipped anyway.
const DATA: &[&str] = &[
    ".json",
    ".csv",
    ".xml",
    ".gxl",
    ".svg",
    ".proptest-regressions",
    "Cargo.lock",
    ".pgm",
    ".pfm",
    ".ppm",
    ".raw",
    ".png",
    ".gz",
];

/// The one ISO date that is a product's name, not a day of work: SDF3's
/// release is called by its date (`sdf3-2009-03-07.tar.gz`, the version
/// the exports are tested against, README.md and docs/sdf3.md).
const NAMED_BY_DATE: &[&str] = &["2009-03-07"];

/// The words of the making, lower case: [`TRACKER`] followed by a number
/// (a tracker's item), [`PERIOD`] and [`NOTE`] (a work period and a task's
/// notes). Kept in pieces, so that this file, which the scan reads as it
/// reads every other, holds none of them whole.
const TRACKER: &str = concat!("iss", "ue");
const PERIOD: &str = concat!("sess", "ion");
const NOTE: &str = concat!("bri", "ef");

/// The words of one line that tell how the work went rather than what the
/// product does: [`TRACKER`] and a number (any case, plural, with `#`, or
/// the number opening the next line), [`PERIOD`] and [`NOTE`] (any case,
/// plural, or as one word of an identifier joined by `_`), and ISO dates
/// (`NNNN-NN-NN`).
fn work_words(line: &str, next: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let b = line.as_bytes();
    // Dates: four digits, a dash, two digits, a dash, two digits.
    let digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    for i in 0..b.len().saturating_sub(9) {
        let w = &b[i..i + 10];
        if digits(&w[..4]) && w[4] == b'-' && digits(&w[5..7]) && w[7] == b'-' && digits(&w[8..]) {
            let date = &line[i..i + 10];
            if !NAMED_BY_DATE.contains(&date) {
                out.push(date.to_string());
            }
        }
    }
    // Words: maximal runs of ASCII letters.
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_alphabetic() {
            i += 1;
        }
        let word = line[start..i].to_ascii_lowercase();
        let stem = word.strip_suffix('s').unwrap_or(&word);
        if stem == PERIOD || stem == NOTE {
            out.push(line[start..i].to_string());
        } else if stem == TRACKER {
            {
                let rest = line[i..].trim_start();
                let rest = rest.strip_prefix('#').unwrap_or(rest).trim_start();
                // The number may open the next line, after a comment leader.
                let rest = match (rest.is_empty(), next) {
                    (true, Some(n)) => n
                        .trim_start()
                        .trim_start_matches(['/', '!', '#', '*', '-'])
                        .trim_start(),
                    _ => rest,
                };
                let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
                if !n.is_empty() {
                    out.push(format!("{} {n}", &line[start..i]));
                }
            }
        }
    }
    out
}

/// The repository speaks of the product, not of how it was made: no
/// prose or code names the tracker's item, the work period or the task
/// notes a change came from, or the day it was made. A figure says how to reproduce it (the
/// command, the machine, the commit), a test says what behaviour it
/// guards, a comment why the code is so. Scanned: every tracked text
/// file (and new ones not ignored) — Markdown, Rust, C, Python and its
/// stubs, descriptions, grammars, TOML, shell and the scripts without an
/// extension (`test`, `.ci/run`), templates, and the golden outputs under
/// tests/out, which carry their inputs' text, this file included — except
/// [`DATA`] and [`JOURNAL_OR_NOT_OURS`]. Allowed: [`NAMED_BY_DATE`] only.
#[test]
fn no_text_tells_how_the_work_went() {
    let files = std::process::Command::new("git")
        .args(["ls-files", "--cached", "--others", "--exclude-standard"])
        .output()
        .expect("git");
    assert!(files.status.success(), "git ls-files failed");
    let mut found = Vec::new();
    let mut read = Vec::new();
    for f in String::from_utf8_lossy(&files.stdout).lines() {
        if OUTPUT_DIRS.iter().any(|p| f.starts_with(p))
            || JOURNAL_OR_NOT_OURS.iter().any(|p| f.starts_with(p))
            || DATA.iter().any(|e| f.ends_with(e))
        {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        if text.contains('\0') {
            continue;
        }
        read.push(f.to_string());
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            for word in work_words(line, lines.get(i + 1).copied()) {
                found.push(format!("{f}:{}: {word}", i + 1));
            }
        }
    }
    // Prose, code, scripts and golden outputs are all read.
    for f in [
        "README.md",
        "runtime-c/ssc_rt.h",
        "runtime-c/templates/program.c",
        "test",
        ".ci/run",
        "tests/in/chain.ssc",
        "tests/out/c/chain.c",
    ] {
        assert!(read.iter().any(|r| r == f), "{f} is not scanned");
    }
    assert!(read.len() > 500, "only {} files read", read.len());
    assert!(
        found.is_empty(),
        "{} places tell how the work went, not what the product does:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The matcher of [`no_text_tells_how_the_work_went`] finds what it
/// should and nothing more: a tracker's item number on the same line or
/// the next, the two words as words (not inside longer ones), dates but
/// not SDF3's release name. The cases are built from the pieces, as the
/// words may stand whole nowhere in this file.
#[test]
fn the_work_words_are_found_as_words() {
    let words = |line: &str, next: Option<&str>| work_words(line, next);
    let cap = |w: &str| format!("{}{}", w[..1].to_ascii_uppercase(), &w[1..]);
    let (t, p, n) = (TRACKER, PERIOD, NOTE);
    assert_eq!(
        words(&format!("pinned ({} 16).", cap(t)), None),
        [format!("{} 16", cap(t))]
    );
    assert_eq!(
        words(&format!("see {t} #3 and {t}s 4"), None),
        [format!("{t} 3"), format!("{t}s 4")]
    );
    assert_eq!(
        words(
            &format!("    // its built-ins ({t}"),
            Some("    // 15) and")
        ),
        [format!("{t} 15")]
    );
    assert!(words(&format!("the {t}'s inputs; {t}d 3 micro-ops"), None).is_empty());
    assert_eq!(
        words(&format!("other {}s' runs, {p}_id", cap(p)), None),
        [format!("{}s", cap(p)), p.to_string()]
    );
    assert_eq!(words(&format!("as the {n} says"), None), [n.to_string()]);
    assert!(words(&format!("pos{p}, {n}ly, a {n}ing"), None).is_empty());
    let day = format!("{}-11-24", 2026);
    assert_eq!(words(&format!("run on {day}, 02:18"), None), [day]);
    assert!(words("sdf3-2009-03-07.tar.gz, 1024-768-1", None).is_empty());
}
