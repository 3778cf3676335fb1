//! Rings (storage folding) written in a runtime section: the checker and
//! the C back end read them through the same functions
//! (`verify::placements_from_runtime`, `verify::rings`), so a change to a
//! `memory_mapping` is seen by both — a ring too small is a race the proof
//! reports, a larger ring is what the program allocates and runs with the
//! same checksum.

use crate::support;
use std::process::Command;
use support::*;

/// The fused, folded runtime of the small X-ray chain, printed.
fn printed(xray: &std::path::Path) -> String {
    ssc_ok([
        "build",
        xray.to_str().unwrap(),
        "-ts",
        "fused",
        "2",
        "-ms",
        "fold",
        "--strip-rows",
        "4",
        "-t",
        "interpreter",
    ])
}

/// `m0 shared A B` of the printed runtime.
fn mapping(text: &str, name: &str) -> (u64, u64) {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(&format!("{name} shared ")))
        .unwrap_or_else(|| panic!("no mapping {name}"));
    let w: Vec<&str> = line
        .trim_end_matches([',', ';'])
        .split_whitespace()
        .collect();
    (w[2].parse().unwrap(), w[3].parse().unwrap())
}

fn with_mapping(text: &str, name: &str, start: u64, end: u64) -> String {
    let (a, b) = mapping(text, name);
    text.replace(
        &format!("{name} shared {a} {b}"),
        &format!("{name} shared {start} {end}"),
    )
}

#[test]
fn a_ring_changed_in_the_runtime_is_seen_by_the_proof_and_the_program() {
    let dir = scratch("rings");
    let xray = small_xray("rings");
    let text = printed(&xray);
    // m0 holds raw.out: two bands (two threads), rings of R rows of 128
    // ushorts (256 bytes).
    let (a, b) = mapping(&text, "m0");
    let row = 128 * 2;
    assert_eq!((b - a) % (2 * row), 0, "m0: [{a}, {b})");
    let rows = (b - a) / (2 * row);
    assert!(rows >= 4, "a ring holds at least a strip: {rows} rows");

    // One row less per band than a strip: the proof finds the race.
    let small = write_input(
        &dir,
        "small.ssc",
        &with_mapping(&text, "m0", a, a + 2 * 3 * row),
    );
    let out = Command::new(SSC).arg("check").arg(&small).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("E211") && err.contains("race"), "{err}");

    // Twice the rows, moved past every other mapping: proven, emitted as a
    // ring of twice the rows, and the same checksum as the one-thread
    // reference.
    let top = text
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('m') && l.contains(" shared "))
        .map(|l| {
            l.trim_end_matches([',', ';'])
                .split_whitespace()
                .nth(3)
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .max()
        .unwrap();
    let start = top.div_ceil(64) * 64;
    let big_text = with_mapping(&text, "m0", start, start + 2 * 2 * rows * row);
    let big = write_input(&dir, "big.ssc", &big_text);
    let checked = Command::new(SSC).arg("check").arg(&big).output().unwrap();
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    let od = dir.join("big-out");
    ssc_ok([
        "build",
        big.to_str().unwrap(),
        "-vo",
        "-od",
        od.to_str().unwrap(),
        "-o",
        od.join("big").to_str().unwrap(),
    ]);
    let c = std::fs::read_to_string(od.join("big.c")).unwrap();
    assert!(
        c.contains(&format!("out_raw[0].fold = {};", 2 * rows)),
        "the program's ring of raw.out is not {} rows",
        2 * rows
    );
    assert!(c.contains(&format!("shared_arena.base + {start}")), "moved");
    same_checksums(
        gcc(),
        "rings",
        &[
            Case::new(&xray, "-dp none -ts fixed 1"),
            Case::new(&big, ""),
        ],
        20,
    );
}
