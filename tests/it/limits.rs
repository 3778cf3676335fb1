//! Hostile inputs end in a diagnostic, never a signal or a hang: deep
//! nesting, huge expressions, windows and tables past their limits,
//! non-finite constants, files that are no regular files
//! (docs/language.md, "Limits"). The big inputs are generated here; each
//! goes through `ssc check` and `ssc fmt`, which must exit 1 with the code.

use crate::support::{scratch, write_input, SSC};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A description with one defined function `k` whose output is `expr`,
/// its input `raw` of type `input` with window `win`, its output of type
/// `output`.
pub(crate) fn description(expr: &str, win: (u64, u64), input: &str, output: &str) -> String {
    format!(
        "declaration {{
  function_declaration func_source_in NONE {{ out OUT {input} mul [1, 1]; }};
  function_declaration func_sink_out NONE {{ in IN {output} mul [1, 1]; }};
  function_declaration corr FULL {{ raw IN {input} mul [1, 1] [{}, {}]; out OUT {output} mul [1, 1]; }};
  function_definition corr {{
    out = {expr};
  }};
  function src func_source_in [64, 64], k corr [64, 64], snk func_sink_out [64, 64];
  src.out -> k.raw;
  k.out -> snk.in;
}}
",
        win.0, win.1
    )
}

/// Runs `ssc CMD file` with a deadline; its exit code and standard error.
fn ssc(cmd: &str, file: &Path) -> (Option<i32>, String) {
    let start = Instant::now();
    let out = Command::new(SSC)
        .arg(cmd)
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("ssc {cmd}: {e}"));
    let took = start.elapsed();
    assert!(
        took < Duration::from_secs(10),
        "ssc {cmd} {} took {took:?}",
        file.display()
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `ssc check` and `ssc fmt` of `text` exit 1 with `code` (a signal has
/// no exit code and fails here too).
fn refused(name: &str, text: &str, code: &str) {
    refused_by(name, text, code, true);
}

/// `ssc check` of `text` exits 1 with `code`; `ssc fmt`, which parses but
/// does not type definitions, exits 1 with it too when `by_fmt`, else
/// formats the text (exit 0).
fn refused_by(name: &str, text: &str, code: &str, by_fmt: bool) {
    let dir = scratch(&format!("limits-{name}"));
    let file = write_input(&dir, &format!("{name}.ssc"), text);
    for cmd in ["check", "fmt"] {
        let (rc, err) = ssc(cmd, &file);
        if cmd == "fmt" && !by_fmt {
            assert_eq!(rc, Some(0), "ssc fmt {name}: {err}");
            continue;
        }
        assert_eq!(rc, Some(1), "ssc {cmd} {name}: {err}");
        assert!(
            err.contains(&format!("error[{code}]")),
            "ssc {cmd} {name}: no {code}\n{err}"
        );
    }
}

/// What the typer refuses: `ssc check` exits 1 with `code`, `ssc fmt`
/// formats it.
fn ill_typed(name: &str, text: &str, code: &str) {
    refused_by(name, text, code, false);
}

fn float(expr: &str) -> String {
    description(expr, (3, 3), "float", "float")
}

#[test]
fn deep_nesting_is_e057() {
    refused(
        "parens",
        &float(&format!("{}raw{}", "(".repeat(3000), ")".repeat(3000))),
        "E057",
    );
    refused(
        "selects",
        &float(&format!(
            "{}raw{}",
            "select(raw > 0, ".repeat(3000),
            ", raw)".repeat(3000)
        )),
        "E057",
    );
    refused(
        "abs",
        &float(&format!(
            "{}raw{}",
            "abs(".repeat(10_000),
            ")".repeat(10_000)
        )),
        "E057",
    );
    refused(
        "minus",
        &float(&format!("{}raw", "-".repeat(100_000))),
        "E057",
    );
    refused("sum", &float(&vec!["raw"; 100_000].join(" + ")), "E057");
}

#[test]
fn a_huge_shallow_expression_is_e058() {
    // 128 × 128 terms, 128 deep: within the depth, past the nodes.
    let part = format!("({})", vec!["raw"; 128].join(" + "));
    refused(
        "nodes",
        &float(&vec![part.as_str(); 128].join(" * ")),
        "E058",
    );
}

#[test]
fn the_limits_themselves_are_accepted() {
    let dir = scratch("limits-at");
    for (name, expr) in [
        (
            "parens",
            format!("{}raw{}", "(".repeat(256), ")".repeat(256)),
        ),
        (
            "calls",
            format!("{}raw{}", "abs(".repeat(255), ")".repeat(255)),
        ),
        ("sum", vec!["raw"; 256].join(" + ")),
        ("minus", format!("{}raw", "-".repeat(255))),
    ] {
        let file = write_input(&dir, &format!("{name}.ssc"), &float(&expr));
        for cmd in ["check", "fmt"] {
            let (rc, err) = ssc(cmd, &file);
            assert_eq!(rc, Some(0), "ssc {cmd} {name}: {err}");
        }
    }
}

#[test]
fn windows_and_blocks_past_63_are_e059() {
    ill_typed(
        "window",
        &description("box(raw)", (100_001, 100_001), "float", "float"),
        "E059",
    );
    ill_typed(
        "window-read",
        &description("raw", (3, 64), "float", "float"),
        "E059",
    );
    let block = description("mean(raw)", (1, 1), "float", "float")
        .replace("mul [1, 1] [1, 1]", "mul [64, 64]")
        .replace("[64, 64], snk", "[1, 1], snk")
        .replace("src func_source_in [64, 64]", "src func_source_in [1, 1]");
    ill_typed("block", &block, "E059");
}

#[test]
fn constants_a_type_cannot_hold_are_refused() {
    let index = "ushort(clamp(round(raw), 0, 2))";
    for (name, expr, code) in [
        ("gauss", "gauss(raw, 1e-300)".to_string(), "E043"),
        (
            "stencil",
            "stencil(raw, [1, 1, 1, 1, 1e39, 1, 1, 1, 1])".into(),
            "E042",
        ),
        (
            "separable",
            "separable(raw, [1, 1e39, 1], [1, 2, 1])".into(),
            "E042",
        ),
        ("lut-float", format!("lut({index}, [0, 1.5, 1e39])"), "E042"),
        (
            "lut-int",
            format!("float(lut({index}, [0, 1, 99999999999]))"),
            "E042",
        ),
        (
            "lut-long",
            format!("float(lut({index}, [{}]))", vec!["1"; 65_537].join(", ")),
            "E045",
        ),
    ] {
        ill_typed(name, &float(&expr), code);
    }
    // A whole entry int holds keeps the table int.
    let dir = scratch("limits-lut-int");
    let file = write_input(
        &dir,
        "ok.ssc",
        &float(&format!("float(lut({index}, [0, 1, 2147483647]))")),
    );
    assert_eq!(ssc("check", &file).0, Some(0));
}

#[test]
fn a_table_file_must_be_a_regular_file_of_bounded_size() {
    let dir = scratch("limits-lut-files");
    let fifo = dir.join("fifo.txt");
    crate::support::run_ok(Command::new("mkfifo").arg(&fifo));
    std::fs::write(dir.join("big.txt"), "1 ".repeat(600_000)).unwrap();
    let index = "ushort(clamp(round(raw), 0, 2))";
    for (name, path) in [
        ("zero", "/dev/zero".to_string()),
        ("urandom", "/dev/urandom".into()),
        ("fifo", fifo.display().to_string()),
        ("folder", dir.display().to_string()),
        ("big", dir.join("big.txt").display().to_string()),
    ] {
        ill_typed(
            &format!("lut-{name}"),
            &float(&format!("float(lut({index}, \"{path}\"))")),
            "E045",
        );
    }
}

/// A 7 × 7 median over double: the C sorts with loops above 5 × 5 (the
/// unrolled sort took gcc 56 s, the loops build in about a second), the
/// generated C stays small, and the program prints the checksum the
/// unrolled sort printed (the same compare-exchanges in the same order).
#[test]
fn the_largest_median_builds_as_loops_with_the_unrolled_checksum() {
    let dir = scratch("limits-median");
    let file = write_input(
        &dir,
        "median7d.ssc",
        &description("median(raw)", (7, 7), "double", "double"),
    );
    let exe = dir.join("p");
    crate::support::run_ok(
        Command::new(SSC)
            .arg("build")
            .arg(&file)
            .arg("-od")
            .arg(&dir)
            .arg("-o")
            .arg(&exe),
    );
    let c = std::fs::read_to_string(dir.join("median7d.c")).unwrap();
    assert!(c.contains("ssc_median_loop_double(("), "no loop form");
    assert!(c.len() < 64 * 1024, "{} bytes of C", c.len());
    let out = crate::support::run_ok(&mut Command::new(&exe));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("checksum: 0xf831a7016779791a"), "{stdout}");
}

/// The largest windows of every weighted operator build in seconds: a
/// sum of more than 49 terms is a loop in the C (`ssc_wsum_U_T`, in the
/// order of the written-out sum: `semantics::a_large_window_sums_in_the_order_of_a_small_one`),
/// so the C of a 63 × 63 window stays a few hundred KB where the
/// written-out sums were 370 KB for one operator and took gcc minutes.
#[test]
fn the_largest_windows_build_as_loops() {
    let weights = |n: usize| {
        (0..n)
            .map(|k| format!("{}", (k % 7) as f64 * 0.25 - 0.5))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let cases = [
        ("box63f", "box(raw)".to_string(), "float"),
        (
            "stencil63d",
            format!("stencil(raw, [{}])", weights(63 * 63)),
            "double",
        ),
        (
            "separable63f",
            format!(
                "separable(raw, [{}], [{}]) + raw[1, 0]",
                weights(63),
                weights(63)
            ),
            "float",
        ),
        ("gauss63d", "gauss(raw, 20.0)".to_string(), "double"),
    ];
    for (name, expr, ty) in cases {
        let dir = scratch(&format!("limits-{name}"));
        let file = write_input(
            &dir,
            &format!("{name}.ssc"),
            &description(&expr, (63, 63), ty, ty),
        );
        let exe = dir.join("p");
        crate::support::run_ok(
            Command::new(SSC)
                .arg("build")
                .arg(&file)
                .arg("-od")
                .arg(&dir)
                .arg("-o")
                .arg(&exe),
        );
        let c = std::fs::read_to_string(dir.join(format!("{name}.c"))).unwrap();
        assert!(
            c.contains(&format!("ssc_wsum_{ty}_{ty}(")),
            "{name}: no loop form"
        );
        assert!(c.len() < 512 * 1024, "{name}: {} bytes of C", c.len());
        let out = crate::support::run_ok(Command::new(&exe).args(["--iterations", "2"]));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("checksum: 0x"), "{name}: {stdout}");
    }
}

/// Stage fusion makes no expression past the limits of a written one: a
/// chain of pointwise functions, each a sum of 150 terms (depth 150),
/// builds under `--inline` as written (two fused would be 300 deep),
/// with the checksum of the chain without `--inline`.
#[test]
fn stage_fusion_stays_within_the_expression_limits() {
    let sum = (0..150)
        .map(|k| format!("in * {}", 1 + k % 3))
        .collect::<Vec<_>>()
        .join(" + ");
    let stage = |name: &str| {
        format!(
            "  function_declaration {name} FULL {{ in IN float mul [1, 1]; out OUT float mul [1, 1]; }};
  function_definition {name} {{ out = {sum}; }};
"
        )
    };
    let text = format!(
        "declaration {{
  function_declaration func_source_f NONE {{ out OUT float mul [1, 1]; }};
  function_declaration func_sink_f NONE {{ in IN float mul [1, 1]; }};
{}{}{}  function src func_source_f [32, 16], a s1 [32, 16], b s2 [32, 16], c s3 [32, 16], snk func_sink_f [32, 16];
  src.out -> a.in;
  a.out -> b.in;
  b.out -> c.in;
  c.out -> snk.in;
}}
",
        stage("s1"),
        stage("s2"),
        stage("s3")
    );
    let dir = scratch("limits-inline");
    let file = write_input(&dir, "deep_chain.ssc", &text);
    let mut sums = Vec::new();
    for flags in [
        &["-ts", "fused", "2"][..],
        &["-ts", "fused", "2", "--inline"],
    ] {
        let sub = dir.join(flags.len().to_string());
        let exe = sub.join("p");
        crate::support::run_ok(
            Command::new(SSC)
                .arg("build")
                .arg(&file)
                .args(flags)
                .arg("-od")
                .arg(&sub)
                .arg("-o")
                .arg(&exe),
        );
        let out = crate::support::run_ok(Command::new(&exe).args(["--iterations", "2"]));
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        sums.push(
            stdout
                .lines()
                .find(|l| l.starts_with("checksum: "))
                .unwrap_or_else(|| panic!("{stdout}"))
                .to_string(),
        );
    }
    assert_eq!(sums[0], sums[1]);
}
