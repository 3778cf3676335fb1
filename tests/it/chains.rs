//! Chains written as their math (docs/language.md, "Chains"):
//! `examples/fluoro.ssc`, `fluoro_temporal.ssc` and `xray.ssc` are chains
//! a fraction of the length of their four-level forms
//! (`tests/in/*_levels.ssc`), and each prints its four-level form's
//! checksum; what `-t interpreter` prints of a chain builds to the chain's
//! checksum; one file builds at other sizes through `-D` and matches the
//! numpy reference there (square and not); a recursive filter started from
//! its first input (`prev(t, c)`) matches the reference; `-D` misuse is
//! reported; `ssc fmt` keeps a chain in its normal form.
//!
//! Every scheduler × memory schedule of the chains themselves is in the
//! matrices of vocabulary.rs (fluoro), delays.rs (fluoro_temporal) and
//! e2e.rs (xray), which read the examples.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::*;

/// `ssc ARGS`: (exit code, stdout, stderr).
fn ssc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(SSC).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Lines that are neither blank nor comments.
fn code_lines(rel: &str) -> usize {
    std::fs::read_to_string(root(rel))
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count()
}

#[test]
fn the_examples_are_a_fraction_of_their_four_levels() {
    let fluoro = code_lines("examples/fluoro.ssc");
    assert!(fluoro <= 30, "examples/fluoro.ssc: {fluoro} lines of code");
    for name in ["fluoro", "fluoro_temporal", "xray"] {
        let chain = code_lines(&format!("examples/{name}.ssc"));
        let levels = code_lines(&format!("tests/in/{name}_levels.ssc"));
        assert!(
            chain * 10 <= levels * 4,
            "{name}: {chain} lines against {levels} in four levels"
        );
    }
}

/// A chain at a smaller size (its `param` line rewritten) and its four
/// levels at the same size (every resolution divided by `by`).
fn small_pair(name: &str, params: (&str, &str), by: u64, dir: &Path) -> (PathBuf, PathBuf) {
    let chain = std::fs::read_to_string(root(&format!("examples/{name}.ssc"))).unwrap();
    let small = chain.replace(params.0, params.1);
    assert_ne!(small, chain, "{name}: its size is its parameters");
    let levels = std::fs::read_to_string(root(&format!("tests/in/{name}_levels.ssc"))).unwrap();
    let sizes = [128u64, 256, 512, 1024];
    let mut smaller = levels.clone();
    for n in sizes {
        smaller = smaller.replace(&format!("[{n}, {n}]"), &format!("@{n}@"));
    }
    for n in sizes {
        let m = n / by;
        smaller = smaller.replace(&format!("@{n}@"), &format!("[{m}, {m}]"));
    }
    assert_ne!(smaller, levels);
    (
        write_input(dir, &format!("{name}_chain.ssc"), &small),
        write_input(dir, &format!("{name}_levels.ssc"), &smaller),
    )
}

/// Each example chain prints the checksum of its four levels written by
/// hand, box-at-a-time and fused.
#[test]
fn each_chain_prints_the_checksum_of_its_four_levels() {
    let dir = scratch("chains-levels");
    let mut cases = Vec::new();
    for (name, params, by) in [
        (
            "fluoro",
            ("param W = 1024, H = 1024;", "param W = 256, H = 256;"),
            4,
        ),
        (
            "fluoro_temporal",
            ("param W = 1024, H = 1024;", "param W = 256, H = 256;"),
            4,
        ),
        (
            "xray",
            ("param W = 512, H = 512;", "param W = 128, H = 128;"),
            4,
        ),
    ] {
        let (chain, levels) = small_pair(name, params, by, &dir);
        let pair = [
            Case::new(&chain, "-ts reduced 2"),
            Case::new(&chain, "-ts fused 2 -ms fold"),
            Case::new(&levels, "-ts reduced 2"),
        ];
        same_checksums(gcc(), &format!("chain-{name}"), &pair, 3);
        cases.extend(pair);
    }
    assert_eq!(cases.len(), 9);
}

/// What `-t interpreter` prints of a chain, all four sections, is a
/// description that builds to the chain's checksum.
#[test]
fn the_printed_expansion_builds_to_the_chains_checksum() {
    let dir = scratch("chains-expansion");
    let chain = quarter_fluoro("fluoro_temporal", "expansion");
    let (code, printed, err) = ssc(&[
        "build",
        chain.to_str().unwrap(),
        "-t",
        "interpreter",
        "-ts",
        "fused",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(printed.starts_with("composition {"), "{printed}");
    assert!(printed.contains("t.out -> t.t_prev delay 0;"), "{printed}");
    let expanded = write_input(&dir, "expanded.ssc", &printed);
    let cases = [
        Case::new(&chain, "-ts fused 2"),
        Case::new(&expanded, ""),
        Case::new(&expanded, "-ts reduced 2 --no-threadexecution"),
    ];
    same_checksums(gcc(), "chain-expansion", &cases, 4);
}

/// `examples/fluoro.ssc`, unedited, at a radiograph's 1760² and a chest
/// detector's 1840 × 1952, on frames of that size through `--input`,
/// against the numpy reference.
#[test]
fn one_file_builds_at_other_sizes_and_matches_numpy() {
    let Some(python) = python_with_numpy("one_file_builds_at_other_sizes_and_matches_numpy") else {
        return;
    };
    for (w, h) in [(1760, 1760), (1840, 1952)] {
        let dir = scratch(&format!("chains-size-{w}x{h}"));
        let frames = dir.join("frames");
        fluoro_reference(
            &python,
            &[
                "make",
                &frames.display().to_string(),
                "2",
                &format!("{w}x{h}"),
            ],
        );
        let flags = format!("-D W={w} -D H={h} -ts fused 2");
        let exe = build(gcc(), &Case::new(root("examples/fluoro.ssc"), &flags), &dir)
            .unwrap_or_else(|e| panic!("{e}"));
        let out = dir.join("out");
        let mut args = fluoro_inputs(&frames);
        args.extend(["--output".to_string(), out.display().to_string()]);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = run_in(&[], &exe, &a, &[], &dir, RUN_DEADLINE).unwrap_or_else(|e| panic!("{e}"));
        assert!(ran.status.success(), "{w}x{h}: {}", ran.stderr);
        let report = fluoro_reference(
            &python,
            &[
                "check",
                &frames.display().to_string(),
                &out.display().to_string(),
            ],
        );
        eprintln!("{w}x{h}:\n{report}");
        assert_eq!(report.matches(" ok").count(), 6, "{report}");
    }
}

/// `t = 0.25 c + 0.75 prev(t, c)`: the filter starts from its first
/// input (t = c on the first frame, not a dark frame), through the
/// program, box-at-a-time and fused.
#[test]
fn a_filter_started_from_its_first_input_matches_numpy() {
    let Some(python) = python_with_numpy("a_filter_started_from_its_first_input_matches_numpy")
    else {
        return;
    };
    let dir = scratch("chains-prev-input");
    let text = std::fs::read_to_string(root("examples/fluoro_temporal.ssc"))
        .unwrap()
        .replace("param W = 1024, H = 1024;", "param W = 256, H = 256;")
        .replace("prev(t, 0)", "prev(t, c)");
    let chain = write_input(&dir, "from_input.ssc", &text);
    let frames = dir.join("frames");
    fluoro_reference(
        &python,
        &["make", &frames.display().to_string(), "3", "256"],
    );
    for flags in ["-ts fused 2", "-ts reduced 2 -ms reuse"] {
        let d = dir.join(flags.replace(' ', "_"));
        std::fs::create_dir_all(&d).unwrap();
        let exe = build(gcc(), &Case::new(&chain, flags), &d).unwrap_or_else(|e| panic!("{e}"));
        let out = d.join("out");
        let mut args = fluoro_inputs(&frames);
        args.extend(["--output".to_string(), out.display().to_string()]);
        args.extend(["--iterations".to_string(), "3".to_string()]);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = run_in(&[], &exe, &a, &[], &d, RUN_DEADLINE).unwrap_or_else(|e| panic!("{e}"));
        assert!(ran.status.success(), "{flags}: {}", ran.stderr);
        let report = fluoro_reference(
            &python,
            &[
                "check-temporal-input",
                &frames.display().to_string(),
                &out.display().to_string(),
            ],
        );
        eprintln!("{flags}:\n{report}");
        assert_eq!(report.matches(" ok").count(), 9, "{report}");
        // Started from 0 instead, the first frame is darker: the reference
        // of the constant start does not hold.
        let zero = fluoro_reference_status(
            &python,
            &[
                "check-temporal",
                &frames.display().to_string(),
                &out.display().to_string(),
            ],
        );
        assert!(
            !zero,
            "the first frame must not be that of a filter started from 0"
        );
    }
}

/// Whether `reference.py ARGS` succeeds.
fn fluoro_reference_status(python: &str, args: &[&str]) -> bool {
    Command::new(python)
        .arg(root("tests/fluoro/reference.py"))
        .args(args)
        .output()
        .unwrap()
        .status
        .success()
}

#[test]
fn defines_are_checked() {
    let fluoro = root("examples/fluoro.ssc");
    let f = fluoro.to_str().unwrap();
    // A size every level halves, and one the second level cannot.
    let (code, out, err) = ssc(&["check", f, "-D", "W=640", "-D", "H=480"]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, _, err) = ssc(&["check", f, "-D", "W=1022"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("E068") && err.contains("511"), "{err}");
    let (code, _, err) = ssc(&["build", f, "-D", "w=640", "-t", "info"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("E067") && err.contains("did you mean `-D W=640`"),
        "{err}"
    );
    let (code, _, err) = ssc(&["check", f, "-D", "W=64.5"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("E066"), "{err}");
    // Not NAME=VALUE: a bad command line.
    let (code, _, err) = ssc(&["check", f, "-D", "W"]);
    assert_eq!(code, 2, "{err}");
    // A four-level description has no parameter.
    let levels = root("tests/in/fluoro_levels.ssc");
    let (code, _, err) = ssc(&["check", levels.to_str().unwrap(), "-D", "W=640"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("E067") && err.contains("no chain"), "{err}");
}

#[test]
fn fmt_keeps_a_chain_and_its_comments() {
    for name in ["fluoro", "fluoro_temporal", "xray"] {
        let rel = format!("examples/{name}.ssc");
        let path = root(&rel);
        let (code, diff, err) = ssc(&["fmt", "--check", path.to_str().unwrap()]);
        assert_eq!(code, 0, "{rel} is not in normal form:\n{diff}{err}");
        let text = std::fs::read_to_string(&path).unwrap();
        let desc = ssc::front::syntax::parse(&text).unwrap();
        let printed = ssc::back::description::print(&desc);
        assert_eq!(ssc::front::syntax::parse(&printed).unwrap(), desc, "{rel}");
    }
    // One line a statement; the comment stays with its value.
    let mut child = Command::new(SSC)
        .args(["fmt", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"chain c { input raw: float[8, 8]; a = raw * 2; b = a + 1; // one more\n output o = b; }")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "chain c {\n  input raw: float[8, 8];\n\n  a = raw * 2;\n  b = a + 1; // one more\n  output o = b;\n}\n"
    );
}

/// A kernel of one's own in a chain (`kernel NAME(P: TYPE) -> TYPE;`,
/// implemented in `--kernels`) prints the checksum of the same chain
/// written in four levels, and a call inside an expression is a box of
/// its own.
#[test]
fn a_kernel_of_ones_own_is_a_box_of_the_chain() {
    let dir = scratch("chains-kernel");
    let chain = write_input(
        &dir,
        "chain.ssc",
        "chain app {\n  input src: uchar[256, 256];\n  kernel func_invert(in: uchar) -> uchar;\n  \
         output out = func_invert(src) / 2;\n}\n",
    );
    let levels = write_input(
        &dir,
        "levels.ssc",
        "composition {\n  container_declaration source { out OUT uchar mul [1, 1]; };\n  \
         container_declaration sink { in IN uchar mul [1, 1]; };\n  \
         container_declaration invert { in IN uchar mul [1, 1]; out OUT uchar mul [1, 1]; };\n  \
         container_declaration half { inv IN uchar mul [1, 1]; out OUT uchar mul [1, 1]; };\n  \
         container_declaration app { };\n  \
         container_bind source func_source FULL, sink func_sink FULL, invert func_invert FULL, half half FULL;\n  \
         function_definition half { out = inv / 2; };\n  \
         container_composition app {\n    container src source index, inv invert index, h half index, out sink index;\n    \
         src.out -> inv.in;\n    inv.out -> h.inv;\n    h.out -> out.in;\n  };\n  compose app [256, 256];\n}\n",
    );
    let (code, printed, err) = ssc(&[
        "build",
        chain.to_str().unwrap(),
        "-t",
        "interpreter",
        "--kernels",
        root("examples/kernels/invert.c").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(printed.contains("to_out_1 func_invert index"), "{printed}");
    assert!(
        printed.contains("func_invert func_invert FULL"),
        "{printed}"
    );
    let kernels = format!("--kernels {}", root("examples/kernels/invert.c").display());
    let cases = [
        Case::new(&chain, &format!("-ts reduced 2 {kernels}")),
        Case::new(&chain, &format!("-ts fused 2 {kernels}")),
        Case::new(&levels, &format!("-ts reduced 2 {kernels}")),
    ];
    same_checksums(gcc(), "chain-kernel", &cases, 3);
    // Its ports' types are the kernel's: a float is refused, with the
    // conversion to write.
    let wrong = write_input(
        &dir,
        "wrong.ssc",
        "chain app {\n  input src: float[64, 64];\n  kernel func_invert(in: uchar) -> uchar;\n  \
         output out = func_invert(src);\n}\n",
    );
    let (code, _, err) = ssc(&["check", wrong.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("E041") && err.contains("uchar(src)"), "{err}");
}
