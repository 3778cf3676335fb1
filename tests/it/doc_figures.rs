//! The figures the docs quote, checked against what the tool prints
//! (a figure that no longer matches goes stale silently). Each quoted number is read from
//! the document, the command it describes is run, and the two must agree:
//! the SDF3 section's MCM against `-pr`, the timing example's makespan
//! and warning against `ssc build`, the percentile accuracy everywhere it
//! is stated (the generated library's header and module included)
//! against the histogram's bound, the wait and signal costs against `ssc
//! calibrate --show`, `--max-subboxes`' default against `--help`. Every
//! command runs with an empty `XDG_CACHE_HOME`: the shipped cost model,
//! whatever this machine measured.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("doc-figures")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `ssc ARGS` in `dir` without a calibration cache.
fn ssc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssc"))
        .args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", dir.join("no-calibration"))
        .env("CC", "true")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The number right after `before` in `text` (digits, `.`, thin spaces).
fn number_after(text: &str, before: &str) -> f64 {
    let at = text
        .find(before)
        .unwrap_or_else(|| panic!("no {before:?} in {text}"))
        + before.len();
    let digits: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == ' ')
        .filter(|c| *c != ' ')
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {before:?}: {:?}", &text[at..]))
}

#[test]
fn the_sdf3_sections_mcm_is_the_period_pr_prints() {
    let readme = read("README.md");
    let quoted = number_after(&readme, "# MCM(xray) = ");
    // The README's command, as written there.
    let line = readme
        .lines()
        .find(|l| l.starts_with("ssc build examples/xray.ssc") && l.contains("-pr -xr"))
        .expect("the SDF3 section's build line");
    let dir = scratch("sdf3");
    let root = env!("CARGO_MANIFEST_DIR");
    let args: Vec<String> = line
        .split_whitespace()
        .skip(1)
        .map(|a| {
            if a.ends_with(".ssc") {
                format!("{root}/{a}")
            } else {
                a.to_string()
            }
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = ssc(&dir, &args);
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    let printed = number_after(&t, "maximum cycle mean = ");
    assert_eq!(quoted, printed, "README quotes {quoted}, -pr prints:\n{t}");
    assert!(readme.contains(&format!("\"maximum cycle mean = {printed} ns\"")));
    assert!(dir.join("xray.xml").is_file());
}

#[test]
fn the_timing_examples_comment_is_what_ssc_build_predicts() {
    let doc = read("docs/language.md");
    let at = doc.find("// A convolution at two scales").unwrap();
    let block = &doc[at..at + doc[at..].find("```").unwrap()];
    let dir = scratch("timing");
    std::fs::write(dir.join("timing.ssc"), block).unwrap();
    let quoted = number_after(block, "a predicted makespan of ");
    // As the comment says: one thread, no warning.
    let one = ssc(
        &dir,
        &["build", "timing.ssc", "-ts", "reduced", "1", "-t", "info"],
    );
    let t = text(&one);
    assert!(one.status.success(), "{t}");
    assert!(!t.contains("warning"), "{t}");
    let makespan = number_after(&t, "makespan");
    assert_eq!(quoted, makespan, "{t}");
    // And with more threads E500 drops them, as it says too.
    assert!(block.contains("E500"));
    let two = ssc(
        &dir,
        &["build", "timing.ssc", "-ts", "reduced", "2", "-t", "info"],
    );
    assert!(text(&two).contains("warning[E500]"), "{}", text(&two));
    // The entries the comment names.
    for (name, us) in [("big", "160"), ("small", "12"), ("the sink", "2")] {
        assert!(block.contains(&format!("{name} {us} µs")), "{name}");
    }
    assert!(block.contains("func_conv 160,") && block.contains("small func_conv 12,"));
    assert!(block.contains("func_sink 2;"));
    // What the model gives the other two: the makespan less the table's.
    let model = number_after(block, "cost model gives them (");
    assert!(
        (makespan - (160.0 + 12.0 + 2.0) - model).abs() < 0.5,
        "{model}"
    );
}

/// Every accuracy said of the percentiles in `text` ("percentiles within
/// 0.78 %", "within 1/128 (0.78 %)"), as a percentage: each "within"
/// with "percentile" in the 160 characters before it, lines joined.
fn percentile_claims(text: &str) -> Vec<String> {
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    for (i, _) in t.match_indices("within ") {
        let mut from = i.saturating_sub(160);
        while !t.is_char_boundary(from) {
            from -= 1;
        }
        if !t[from..i].to_lowercase().contains("percentile") {
            continue;
        }
        let rest = &t[i + "within ".len()..];
        let figure: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == '/')
            .collect();
        let after = rest[figure.len()..].trim_start();
        if let Some(d) = figure.strip_prefix("1/") {
            let d: f64 = d.parse().unwrap();
            out.push(format!("{:.2}", 100.0 / d));
        } else if !figure.is_empty() && after.starts_with('%') {
            out.push(figure);
        }
    }
    out
}

#[test]
fn every_statement_of_the_percentile_accuracy_is_the_histograms_bound() {
    // ssc_stats.h: 64 buckets per power of two, a percentile the middle of
    // its bucket: within 1/128 (tests/it/streaming.rs measures it).
    let header = read("runtime-c/ssc_stats.h");
    assert!(header.contains("#define SSC_HIST_BUCKETS (128 + 58 * 64)"));
    let bound = format!("{:.2}", 100.0 / 128.0);
    assert_eq!(bound, "0.78");
    // The generated library's header and Python module.
    let dir = scratch("percentiles");
    let root = env!("CARGO_MANIFEST_DIR");
    let xray = format!("{root}/examples/xray.ssc");
    // The files are written before the compiler runs (`CC=true`: the
    // archive step then fails, which does not matter here).
    let out = ssc(&dir, &["build", &xray, "-t", "library", "-od", "lib"]);
    assert!(dir.join("lib/xray.py").is_file(), "{}", text(&out));
    let program = ssc(&dir, &["build", &xray, "-od", "program"]);
    assert!(program.status.success(), "{}", text(&program));
    let mut sources: Vec<(String, String)> = vec![
        ("xray.h".into(), read_path(&dir.join("lib/xray.h"))),
        ("xray.py".into(), read_path(&dir.join("lib/xray.py"))),
        (
            "program's ssc_program.c".into(),
            read_path(&dir.join("program/ssc_program.c")),
        ),
    ];
    for f in [
        "README.md",
        "ARCHITECTURE.md",
        "runtime-c/README.md",
        "runtime-c/ssc_stats.h",
    ] {
        sources.push((f.into(), read(f)));
    }
    for e in std::fs::read_dir("docs").unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            sources.push((p.display().to_string(), read_path(&p)));
        }
    }
    let mut stated = 0;
    for (name, text) in &sources {
        for figure in percentile_claims(text) {
            assert_eq!(
                figure, bound,
                "{name} says the percentiles are within {figure} %"
            );
            stated += 1;
        }
    }
    // README, docs/commands.md, docs/library.md, the header, the module
    // and the program's --help say it at least.
    assert!(stated >= 6, "{stated}");
    for (name, text) in &sources[..3] {
        assert!(
            !percentile_claims(text).is_empty(),
            "{name} states no accuracy"
        );
    }
}

fn read_path(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_wait_and_signal_costs_are_those_calibrate_shows() {
    let dir = scratch("calibrate");
    let out = ssc(&dir, &["calibrate", "--show"]);
    let shown = text(&out);
    assert!(out.status.success(), "{shown}");
    let wait = number_after(&shown, "wait (wt)");
    let signal = number_after(&shown, "signal (sg)");
    let transfer = number_after(&shown, "transfer(tr)");
    let commands = read("docs/commands.md").replace('\n', " ");
    let commands = commands.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(
        number_after(&commands, "that is about "),
        wait,
        "docs/commands.md"
    );
    assert!(
        commands.contains(&format!("about {wait} ns a wait and {signal} ns a signal")),
        "docs/commands.md: the wait and the signal"
    );
    assert!(commands.contains(&format!("`wait (wt) {wait} ns`, `signal (sg) {signal} ns`")));
    assert!(
        commands.contains(&format!("about {transfer} ns a KiB")),
        "transfer"
    );
    let language = read("docs/language.md").replace('\n', " ");
    let language = language.split_whitespace().collect::<Vec<_>>().join(" ");
    // In µs from tenths of ns, as `-pr` prints them (`Coefficients::system`).
    let us = |ns: f64| format!("{}", (ns * 10.0).round() / 10_000.0);
    assert!(
        language.contains(&format!(
            "shipped defaults {} µs, {} µs and {} µs",
            us(wait),
            us(signal),
            us(transfer)
        )),
        "docs/language.md"
    );
    let arch = read("ARCHITECTURE.md").replace('\n', " ");
    let arch = arch.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(arch.contains(&format!(
        "shipped defaults (a wait {wait} ns, a signal {signal} ns)"
    )));
}

#[test]
fn the_max_subboxes_default_is_the_one_help_gives() {
    let dir = scratch("help");
    let help = text(&ssc(&dir, &["build", "--help"]));
    let at = help.find("--max-subboxes").unwrap();
    let default = number_after(&help[at..], "[default: ");
    let spaced = {
        let d = format!("{default}");
        let mut out = String::new();
        for (i, c) in d.chars().enumerate() {
            if i > 0 && (d.len() - i) % 3 == 0 {
                out.push(' ');
            }
            out.push(c);
        }
        out
    };
    for f in ["README.md", "docs/commands.md", "docs/diagnostics.md"] {
        let t = read(f).replace('\n', " ");
        assert!(
            t.contains(&format!("default {spaced}")),
            "{f} does not give the default {spaced}"
        );
    }
}

#[test]
fn docs_sdf3_quotes_the_period_mcm_and_throughput_of_its_command() {
    let doc = read("docs/sdf3.md");
    let dir = scratch("sdf3-doc");
    let root = env!("CARGO_MANIFEST_DIR");
    let xray = format!("{root}/examples/xray.ssc");
    let out = ssc(
        &dir,
        &[
            "build",
            &xray,
            "-ts",
            "reduced",
            "2",
            "-pr",
            "-xr",
            "--xr-output",
            "xray.xml",
            "-t",
            "info",
        ],
    );
    let t = text(&out);
    assert!(out.status.success(), "{t}");
    let line = t.lines().find(|l| l.starts_with("period ")).unwrap();
    let period = line.trim_start_matches("period").trim();
    assert!(
        doc.contains(&format!("#   period {period}")),
        "docs/sdf3.md: {line}"
    );
    let mcm = number_after(&t, "maximum cycle mean = ");
    assert_eq!(number_after(&doc, "# MCM(xray) = "), mcm);
    // SDF3's throughput: 1 / MCM per ns, 6 significant digits.
    let quoted = number_after(&doc, "# thr(xray) = ");
    let exponent: i32 = doc[doc.find("# thr(xray) = ").unwrap()..]
        .split('e')
        .nth(1)
        .and_then(|e| e.split_whitespace().next())
        .and_then(|e| e.parse().ok())
        .expect("thr in e notation");
    let thr = quoted * 10f64.powi(exponent);
    assert!((thr * mcm - 1.0).abs() < 1e-5, "thr {thr} for MCM {mcm}");
}
