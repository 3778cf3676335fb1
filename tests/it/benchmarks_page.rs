//! BENCHMARKS.md stays a page of today's results, not a journal: at most
//! 600 lines; no heading carries a date, the word "issue" or a word of
//! rounds ("again", "later", "a third time", "second round"); every table
//! has, in its section before it, the command that reproduces it (a code
//! span or block naming `ssc `, `cargo `, `benches/` or `python`); and its
//! tables are what `benches/report` writes from `benches/results/`
//! (`python3 benches/report --check`).

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

const MAX_LINES: usize = 600;

/// Words that make a heading a round of a journal instead of a benchmark.
const ROUND_WORDS: &str = "again later earlier anew round rounds rerun second third fourth \
    fifth sixth seventh eighth ninth tenth before after previous latest yesterday";

fn is_round_word(w: &str) -> bool {
    ROUND_WORDS.split_whitespace().any(|r| r == w)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn page() -> String {
    std::fs::read_to_string(root().join("BENCHMARKS.md")).expect("BENCHMARKS.md")
}

/// Each line with whether it lies inside a fenced code block (the fences
/// themselves count as inside).
fn lines_with_fences(text: &str) -> Vec<(&str, bool)> {
    let mut inside = false;
    text.lines()
        .map(|l| {
            let fence = l.trim_start().starts_with("```");
            let was = inside;
            if fence {
                inside = !inside;
            }
            (l, was || fence)
        })
        .collect()
}

fn is_heading(line: &str, in_code: bool) -> bool {
    !in_code && line.starts_with('#')
}

fn has_iso_date(s: &str) -> bool {
    let b = s.as_bytes();
    let d = |i: usize| b.get(i).is_some_and(|c| c.is_ascii_digit());
    (0..b.len()).any(|i| {
        (0..4).all(|k| d(i + k))
            && b.get(i + 4) == Some(&b'-')
            && d(i + 5)
            && d(i + 6)
            && b.get(i + 7) == Some(&b'-')
            && d(i + 8)
            && d(i + 9)
    })
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The code of a stretch of the page: fenced blocks and inline code spans.
fn code_of(lines: &[(&str, bool)]) -> Vec<String> {
    let mut code = Vec::new();
    let mut block = String::new();
    let mut prose = String::new();
    for (l, in_code) in lines {
        if *in_code {
            if l.trim_start().starts_with("```") {
                if !block.is_empty() {
                    code.push(std::mem::take(&mut block));
                }
            } else {
                block.push_str(l);
                block.push('\n');
            }
        } else {
            prose.push_str(l);
            prose.push('\n');
        }
    }
    // Code spans may wrap a line but never a paragraph.
    for para in prose.split("\n\n") {
        let mut parts = para.split('`');
        parts.next();
        while let Some(span) = parts.next() {
            code.push(span.replace('\n', " "));
            parts.next();
        }
    }
    code
}

fn reproduces(code: &str) -> bool {
    ["ssc ", "cargo ", "benches/", "python"]
        .iter()
        .any(|w| code.contains(w))
}

#[test]
fn the_page_is_at_most_600_lines() {
    let n = page().lines().count();
    assert!(
        n <= MAX_LINES,
        "BENCHMARKS.md has {n} lines, more than {MAX_LINES}: keep only today's figures (older ones live in git)"
    );
}

#[test]
fn no_heading_names_a_date_an_issue_or_a_round() {
    let text = page();
    let mut bad = Vec::new();
    for (i, (l, in_code)) in lines_with_fences(&text).into_iter().enumerate() {
        if !is_heading(l, in_code) {
            continue;
        }
        let ws = words(l);
        let mut why = Vec::new();
        if has_iso_date(l) {
            why.push("a date".to_string());
        }
        if ws.iter().any(|w| w.starts_with("issue")) {
            why.push("the word issue".to_string());
        }
        why.extend(
            ws.iter()
                .filter(|w| is_round_word(w))
                .map(|w| format!("the round word {w:?}")),
        );
        if !why.is_empty() {
            bad.push(format!("line {}: {l}: {}", i + 1, why.join(", ")));
        }
    }
    assert!(
        bad.is_empty(),
        "BENCHMARKS.md headings:\n{}",
        bad.join("\n")
    );
}

#[test]
fn every_table_follows_the_command_that_reproduces_it() {
    let text = page();
    let lines = lines_with_fences(&text);
    let mut section = 0;
    let mut tables = 0;
    let mut bad = Vec::new();
    for i in 0..lines.len() {
        let (l, in_code) = lines[i];
        if is_heading(l, in_code) {
            section = i;
            continue;
        }
        let separator = lines
            .get(i + 1)
            .is_some_and(|(n, c)| !c && n.trim_start().starts_with("|---"));
        if in_code || !l.trim_start().starts_with('|') || !separator {
            continue;
        }
        tables += 1;
        if !code_of(&lines[section..i]).iter().any(|c| reproduces(c)) {
            bad.push(format!(
                "line {}: {} (section: {})",
                i + 1,
                l,
                lines[section].0
            ));
        }
    }
    assert!(tables > 0, "BENCHMARKS.md has no table");
    assert!(
        bad.is_empty(),
        "tables of BENCHMARKS.md with no command before them in their section \
         (a code span or block with `ssc `, `cargo `, `benches/` or `python`):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_tables_are_what_the_results_files_give() {
    let report = root().join("benches/report");
    let out = match Command::new("python3")
        .arg(&report)
        .arg("--check")
        .current_dir(root())
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            support::skip(
                "the_tables_are_what_the_results_files_give",
                &format!("python3 cannot run: {e}"),
            );
            return;
        }
    };
    assert!(
        out.status.success(),
        "python3 {} --check: {}\n{}{}\n(run `benches/report` to rewrite the tables from benches/results/)",
        Path::new("benches/report").display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_checks_see_what_they_guard() {
    // A date, an issue and a round in a heading; a table with no command.
    // (The date is built, so that this file holds none itself.)
    assert!(has_iso_date(&format!("## Runs ({}-11-24)", 2026)));
    assert!(!has_iso_date("## 1024² frames, 2 threads"));
    assert!(words("## Against Halide, a sixth time")
        .iter()
        .any(|w| is_round_word(w)));
    let text = "## A\n\nprose `ssc bench x.ssc`\n\n| a |\n|---|\n| 1 |\n\n## B\n\n| b |\n|---|\n";
    let lines = lines_with_fences(text);
    assert!(code_of(&lines[0..4]).iter().any(|c| reproduces(c)));
    assert!(!code_of(&lines[8..10]).iter().any(|c| reproduces(c)));
    let fenced = "## C\n\n```sh\ncargo bench --bench ptts\n```\n";
    assert!(code_of(&lines_with_fences(fenced))
        .iter()
        .any(|c| reproduces(c)));
}
