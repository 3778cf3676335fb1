//! Snapshots of `ssc ptts` on the examples (text, `-v` for Section 5.4,
//! and the JSON's statistics and loss): `tests/out/ptts/NAME.txt`,
//! `tests/out/ptts/ptts_section54.json` for `examples/NAME.ptts`; the
//! thesis figures checked by value; and the rendered diagnostics of bad
//! `.ptts` inputs (exit 1, never a panic): `tests/out/ptts/bad_NAME.txt`
//! for `tests/bad_ptts/NAME.ptts` (`support::golden`).

use crate::support::golden;
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

fn report(name: &str, extra: &[&str]) -> String {
    let path = format!("examples/{name}.ptts");
    let mut args = vec!["ptts", path.as_str()];
    args.extend_from_slice(extra);
    let out = ssc(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
}

/// The examples whose text report is a snapshot (`ptts/NAME.txt`).
const TEXT_REPORTS: &[&str] = &[
    "ptts_section54",
    "ptts_section54_f0prime",
    "ptts_case_d",
    "ptts_case_e",
    "ptts_case_f",
];

/// `tests/bad_ptts/*.ptts`, sorted.
fn bad_ptts() -> Vec<std::path::PathBuf> {
    let mut names: Vec<_> = std::fs::read_dir("tests/bad_ptts")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptts"))
        .collect();
    names.sort();
    names
}

/// The files this module's tests write, under `tests/out/`.
pub(crate) fn outputs() -> Vec<String> {
    let mut v: Vec<String> = TEXT_REPORTS
        .iter()
        .map(|name| format!("ptts/{name}.txt"))
        .collect();
    v.push("ptts/ptts_section54.json".into());
    for p in bad_ptts() {
        v.push(format!(
            "ptts/bad_{}.txt",
            p.file_stem().unwrap().to_string_lossy()
        ));
    }
    v
}

/// Checks the text report of `name` (one of [`TEXT_REPORTS`]).
fn text_report(name: &str, extra: &[&str]) {
    assert!(TEXT_REPORTS.contains(&name), "{name}");
    golden::check(&format!("ptts/{name}.txt"), &report(name, extra));
}

#[test]
fn section54_text() {
    text_report("ptts_section54", &["-v"]);
}

#[test]
fn section54_f0prime_text() {
    text_report("ptts_section54_f0prime", &[]);
}

#[test]
fn case_d_text() {
    text_report("ptts_case_d", &[]);
}

#[test]
fn case_e_text() {
    text_report("ptts_case_e", &[]);
}

#[test]
fn case_f_text() {
    text_report("ptts_case_f", &[]);
}

#[test]
fn section54_json_statistics_and_loss() {
    let v: serde_json::Value =
        serde_json::from_str(&report("ptts_section54", &["--json"])).unwrap();
    let json = serde_json::to_string_pretty(&serde_json::json!({
        "statistics": v["statistics"],
        "loss_probability": v["loss"]["probability"],
        "loss_exact": v["loss"]["exact"],
        "trees": v["latency_trees"],
    }))
    .unwrap();
    golden::check("ptts/ptts_section54.json", &json);
}

/// The figures of the thesis' example: C1's triggerings at 88, 146 and 204
/// take the first container with 0.39, 0.58, 0.03; the pair (0, 200)
/// contributes 169/152250000 ≈ 1.11e-6 to the loss.
#[test]
fn section54_thesis_figures() {
    let v: serde_json::Value =
        serde_json::from_str(&report("ptts_section54", &["--json"])).unwrap();
    let first = &v["trees"][0];
    assert_eq!(first["time"], 0);
    let kids: Vec<(i64, String)> = first["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["time"].as_i64().unwrap(),
                c["exact"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        kids,
        vec![
            (88, "39/100".to_string()),
            (146, "29/50".to_string()),
            (204, "3/100".to_string())
        ]
    );
    let pair = v["loss"]["top"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["a"] == 0 && c["b"] == 200)
        .expect("the pair (0, 200) contributes");
    assert_eq!(pair["exact"], "169/152250000");
    assert_eq!(pair["time"], 288);
    assert_eq!(v["latency_trees"], "203");
    assert_eq!(v["estimate_eq_5_15"], "406");
}

#[test]
fn table_5_2_tree_counts() {
    for (name, trees) in [("ptts_config_a", "136"), ("ptts_config_b", "13861")] {
        let v: serde_json::Value = serde_json::from_str(&report(name, &["--json"])).unwrap();
        assert_eq!(v["latency_trees"], trees, "{name}");
    }
}

#[test]
fn simulation_reports_a_small_distance() {
    let out = report("ptts_section54", &["--simulate", "200000", "--seed", "7"]);
    let line = out.lines().find(|l| l.contains("total-variation")).unwrap();
    let tv: f64 = line.rsplit(' ').next().unwrap().parse().unwrap();
    assert!(tv < 0.02, "{line}");
}

#[test]
fn svg_has_both_plots() {
    let dir = std::env::temp_dir().join(format!("ssc-ptts-svg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("out.svg");
    report("ptts_section54", &["--svg", f.to_str().unwrap()]);
    let svg = std::fs::read_to_string(&f).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(100)]);
    assert!(svg.contains("PMF") && svg.contains("CDF"));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn max_trees_refuses_with_a_round_hint() {
    let out = ssc(&["ptts", "examples/ptts_config_b.ptts", "--max-trees", "1000"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("E411") && err.contains("--round 1"), "{err}");
}

#[test]
fn round_shrinks_the_hyper_period_and_says_so() {
    let out = report("ptts_config_b", &["--round", "1"]);
    assert!(out.contains("rounded from 66.6"), "{out}");
    assert!(out.contains("periods rounded to multiples of 1"), "{out}");
}

#[test]
fn bad_inputs() {
    let names = bad_ptts();
    assert!(!names.is_empty());
    for p in names {
        let out = ssc(&["ptts", p.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{}", p.display());
        let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
        golden::check(&format!("ptts/bad_{stem}.txt"), &text(&out.stderr));
    }
}
