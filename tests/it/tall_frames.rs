//! `-ts fused` on tall frames (docs/fused.md, "How many
//! strips"): compile time is linear in the sub-boxes, and a split makes at
//! most `--max-subboxes` of them (default 131 072). Three tall
//! cases — `tests/in/chain.ssc` at [1, 1000000] with one-row strips, at
//! [65536, 65536] and at [100000, 100000] — are pinned by their structure
//! (strips, sub-boxes) or their refusal; the wall-clock bounds are only
//! there to catch quadratic time (a compile quadratic in the sub-boxes
//! takes over 150 s, 20 s and 13 s on them in a release build) and leave
//! a slow CI machine several times the time these take.

use crate::support;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};
use support::*;

/// `tests/in/chain.ssc` (source → gain → sink, the gain `FULL`) at `[w, h]`.
fn chain(tag: &str, w: u64, h: u64) -> PathBuf {
    let text = std::fs::read_to_string(root("tests/in/chain.ssc"))
        .unwrap()
        .replace("[64, 48]", &format!("[{w}, {h}]"));
    assert!(text.contains(&format!("[{w}, {h}]")));
    write_input(&scratch(&format!("tall-{tag}")), "chain.ssc", &text)
}

/// What one `ssc build FILE FLAGS… --color never` gave, and how long it took.
struct Built {
    code: i32,
    stdout: String,
    stderr: String,
    took: Duration,
}

fn build(file: &std::path::Path, flags: &str) -> Built {
    let start = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_ssc"))
        .arg("build")
        .arg(file)
        .args(flags.split_whitespace())
        .args(["--color", "never"])
        .output()
        .unwrap();
    Built {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        took: start.elapsed(),
    }
}

/// The number after `key` in `-t info`'s text (`actors (sub-boxes)   32770`).
fn info_field(info: &str, key: &str) -> u64 {
    let line = info
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no `{key}` in {info}"));
    line[key.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// A build that succeeded with `-t info -v`: (sub-boxes, strips per split
/// function, as the fused scheduler's note says).
fn compiled(b: &Built) -> (u64, u64) {
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert!(b.stdout.contains("runtime proved"), "{}", b.stdout);
    let note = b
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("schedule: fused: "))
        .unwrap_or_else(|| panic!("no fused note in {}", b.stderr));
    let strips = note.split_whitespace().next().unwrap().parse().unwrap();
    (info_field(&b.stdout, "actors (sub-boxes)"), strips)
}

#[test]
fn a_million_one_row_strips_are_refused_with_the_count_the_limit_and_the_fix() {
    let file = chain("million", 1, 1_000_000);
    let b = build(&file, "-ts fused 2 --strip-rows 1 -t info");
    // A command line that cannot be honoured: exit 2, nothing printed.
    assert_eq!(b.code, 2, "{}", b.stderr);
    assert_eq!(b.stdout, "");
    assert!(
        b.stderr.contains(
            "error[E141]: `--strip-rows 1` cuts 1000000 rows into 1000000 strips: 1000002 sub-boxes, more than the 131072 a `-ts fused` split may make"
        ),
        "{}",
        b.stderr
    );
    // Labelled at the tallest function's resolution.
    assert!(b.stderr.contains("chain.ssc:6:26"), "{}", b.stderr);
    assert!(b.stderr.contains("1000000 rows, in 1000000 strips of 1"));
    // The hint: the least height within the limit, and the limit these
    // strips need (the help text wraps, so compare without line breaks).
    let hint = b.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(hint.contains("`--strip-rows 8` or more"), "{hint}");
    assert!(hint.contains("`--max-subboxes 1000002`"), "{hint}");
    // Refused before the split: at once (the ssc before ran for minutes).
    assert!(b.took < Duration::from_secs(30), "took {:?}", b.took);

    // The same as JSON, for editors.
    let b = build(
        &file,
        "-ts fused 2 --strip-rows 1 -t info --message-format json",
    );
    assert_eq!(b.code, 2);
    let v: serde_json::Value = serde_json::from_str(b.stderr.lines().next().unwrap()).unwrap();
    assert_eq!(v["code"], "E141");
    assert_eq!(v["severity"], "error");
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(6), Some(26))
    );
    assert!(v["hint"].as_str().unwrap().contains("--max-subboxes"));
}

#[test]
fn the_height_the_hint_names_is_the_least_within_the_limit() {
    let file = chain("least", 1, 100_000);
    // 1000 sub-boxes: 998 strips of the gain and the source and sink.
    let b = build(
        &file,
        "-ts fused 2 --max-subboxes 1000 --strip-rows 100 -t info",
    );
    assert_eq!(b.code, 2, "{}", b.stderr);
    assert!(b
        .stderr
        .contains("1000 strips: 1002 sub-boxes, more than the 1000"));
    let hint = b.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(hint.contains("`--strip-rows 101` or more"), "{hint}");
    let b = build(
        &file,
        "-ts fused 2 --max-subboxes 1000 --strip-rows 101 -t info -v",
    );
    assert_eq!(compiled(&b), (993, 991));
    // The limit the hint names takes the refused strips.
    let b = build(
        &file,
        "-ts fused 2 --max-subboxes 1002 --strip-rows 100 -t info -v",
    );
    assert_eq!(compiled(&b), (1002, 1000));
}

#[test]
fn a_65536_square_chain_compiles_in_strips_of_two_rows() {
    // The budget pinned (by default the per-core L2 of the machine): one
    // strip of both 65536-byte-row buffers, twice, in 512 KiB is 2 rows.
    let file = chain("square-65536", 65536, 65536);
    let b = build(&file, "-ts fused 2 --cache-bytes 512K -t info -v");
    assert_eq!(compiled(&b), (32770, 32768));
    assert_eq!(info_field(&b.stdout, "dependencies"), 65536);
    assert!(b.took < Duration::from_secs(120), "took {:?}", b.took);
}

#[test]
fn a_100000_square_chain_without_strip_rows_compiles_within_the_limit() {
    // 512 KiB for two 100 000-byte rows twice: one row a strip, 100 000
    // strips, 100 002 sub-boxes: within the limit, so as the budget says.
    let file = chain("square-100000", 100_000, 100_000);
    let b = build(&file, "-ts fused 2 --cache-bytes 512K -t info -v");
    assert_eq!(compiled(&b), (100_002, 100_000));
    assert!(b.took < Duration::from_secs(240), "took {:?}", b.took);
}

#[test]
fn default_strips_are_made_taller_to_stay_within_the_limit() {
    // A 64-byte budget asks for 16-row strips of [1, 100000]: 6250 strips.
    let file = chain("taller", 1, 100_000);
    let b = build(&file, "-ts fused 2 --cache-bytes 64 -t info -v");
    assert_eq!(compiled(&b), (6252, 6250));
    // Within 1000 sub-boxes they become 101 rows tall: 991 strips, never
    // a refusal.
    let b = build(
        &file,
        "-ts fused 2 --cache-bytes 64 --max-subboxes 1000 -t info -v",
    );
    assert_eq!(compiled(&b), (993, 991));
    // Every function of the X-ray chain counts (21, some at half and
    // quarter resolution): 47 strips make 987 sub-boxes, 48 would be 1008.
    let b = build(
        &root("examples/xray.ssc"),
        "-ts fused 2 --cache-bytes 512K --max-subboxes 1000 -t info -v",
    );
    assert_eq!(compiled(&b), (987, 47));
}

#[test]
fn max_subboxes_without_fused_is_a_usage_error() {
    let b = build(
        &root("tests/in/chain.ssc"),
        "-ts reduced 2 --max-subboxes 10 -t info",
    );
    assert_eq!(b.code, 2);
    assert!(
        b.stderr
            .contains("--max-subboxes bounds the strips of -ts fused; add -ts fused N"),
        "{}",
        b.stderr
    );
}
