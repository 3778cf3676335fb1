//! The imaging vocabulary: `examples/fluoro.ssc`, written
//! without C, against an independent numpy reference of its definition
//! (`tests/fluoro/reference.py`) on X-ray-like frames with Poisson noise,
//! read as 16-bit PGM, PGM and PFM files and written back as PGM; one
//! checksum under every scheduler × memory schedule; the same outputs and
//! checksum through the library's Python module; ThreadSanitizer-clean.

use crate::support;

use std::path::{Path, PathBuf};
use support::*;

fn fluoro() -> PathBuf {
    root("examples/fluoro.ssc")
}

fn small_fluoro(tag: &str) -> PathBuf {
    quarter_fluoro("fluoro", tag)
}

fn reference(python: &str, args: &[&str]) -> String {
    fluoro_reference(python, args)
}

/// Three phantom frames, a dark frame and a gain map in `dir`.
fn frames(python: &str, dir: &Path) {
    reference(python, &["make", &dir.display().to_string(), "3"]);
}

fn input_args(frames: &Path) -> Vec<String> {
    fluoro_inputs(frames)
}

/// Every scheduler with every memory schedule prints one checksum (the
/// sources' pattern: the same computation whatever the frames), on the
/// fluoro chain at a quarter of its resolution; and `examples/fluoro.ssc`
/// itself builds with no `--kernels`, fused and box-at-a-time.
#[test]
fn every_scheduler_and_memory_schedule_prints_one_checksum() {
    let small = small_fluoro("matrix");
    let mut cases = Vec::new();
    for ts in schedulers() {
        for ms in memory_schedules() {
            cases.push(Case::new(&small, &format!("-ts {ts} -ms {ms}")));
        }
    }
    cases.push(Case::new(&small, "-ts fused 2"));
    cases.push(Case::new(&small, "-ts fused 2 --strip-rows 4"));
    // The synchronisation and affinity options of e2e.rs' diagonal.
    for o in SYNC_DIAGONAL {
        cases.push(Case::new(&small, o));
    }
    same_checksums(gcc(), "fluoro", &cases, 3);
    let full = [
        Case::new(fluoro(), "-ts fused 2"),
        Case::new(fluoro(), "-ts reduced 2"),
    ];
    same_checksums(gcc(), "fluoro 1024", &full, 2);
}

/// The program on real files agrees with the reference within the
/// tolerance, under fused (folded rings) and box-at-a-time schedules, and
/// prints the checksum the library's Python module prints on the same
/// frames, whose outputs agree too.
#[test]
fn fluoro_agrees_with_numpy_through_the_program_and_the_library() {
    let Some(python) =
        python_with_numpy("fluoro_agrees_with_numpy_through_the_program_and_the_library")
    else {
        return;
    };
    let dir = scratch("vocabulary-fluoro");
    let input = dir.join("frames");
    frames(&python, &input);
    let mut sums = Vec::new();
    for flags in ["-ts fused 2", "-ts reduced 2 -ms reuse"] {
        let d = dir.join(flags.replace(' ', "_"));
        std::fs::create_dir_all(&d).unwrap();
        let exe = build(gcc(), &Case::new(fluoro(), flags), &d).unwrap_or_else(|e| panic!("{e}"));
        let out = d.join("out");
        let mut args = input_args(&input);
        args.extend(["--output".to_string(), out.display().to_string()]);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = run_in(&[], &exe, &a, &[], &d, RUN_DEADLINE).unwrap_or_else(|e| panic!("{e}"));
        assert!(ran.status.success(), "{flags}: {}", ran.stderr);
        sums.push(ran.checksum().expect("a checksum").to_string());
        let report = reference(
            &python,
            &[
                "check",
                &input.display().to_string(),
                &out.display().to_string(),
            ],
        );
        eprintln!("{flags}:\n{report}");
        assert_eq!(report.matches(" ok").count(), 9, "{report}");
    }
    assert_eq!(
        sums[0], sums[1],
        "two schedules, one checksum on the same files"
    );

    let lib = dir.join("lib");
    support::fused_library(&fluoro(), &lib, "-O2");
    let report = reference(
        &python,
        &[
            "library",
            &input.display().to_string(),
            &lib.display().to_string(),
            "fluoro",
        ],
    );
    eprintln!("library:\n{report}");
    assert_eq!(report.matches(" ok").count(), 9, "{report}");
    assert!(
        report.contains(&format!("checksum: {}", sums[0])),
        "{report}\nprogram: {}",
        sums[0]
    );
}

/// Stage fusion (`--inline`) changes where stages run, never what they
/// compute: fluoro, fluoro_temporal (its delay untouched) and xray print
/// the checksum of their unfused programs under fused and box-at-a-time
/// schedules; the fused declaration `-t interpreter` prints has the fused
/// functions, and built as written it prints the same checksum again.
#[test]
fn inlined_stages_compute_the_same_outputs() {
    let small = small_fluoro("inline");
    let path = small.to_string_lossy().to_string();
    let interp = ssc_ok([
        "build",
        &path,
        "-ts",
        "fused",
        "2",
        "--strip-rows",
        "4",
        "--inline",
        "-t",
        "interpreter",
    ]);
    let declaration = interp
        .split("\ndeclaration {")
        .nth(1)
        .expect("-t interpreter prints the declaration");
    // e0 = c - g0 and e1 = l1 - g1 are inlined into the boosts that read
    // them, p3 (to_display) merged into p2 (down2): 21 instances become 18.
    for fused in [
        "function_definition fused_r0",
        "function_definition fused_r1",
        "function_definition fused_p2",
    ] {
        assert!(
            declaration.contains(fused),
            "no `{fused}` in:\n{declaration}"
        );
    }
    for gone in ["e0 subtract", "e1 subtract", "p3 to_display"] {
        assert!(
            !declaration.contains(gone),
            "`{gone}` still in:\n{declaration}"
        );
    }
    let written = write_input(&scratch("inline-printed"), "fluoro_fused.ssc", &interp);
    let cases = [
        Case::new(&small, "-ts fused 2 --strip-rows 4"),
        Case::new(&small, "-ts fused 2 --strip-rows 4 --inline"),
        Case::new(&small, "-ts reduced 2 -ms reuse --inline"),
        Case::new(&small, "-ts simple -ms none --inline"),
        Case::new(&written, ""),
    ];
    same_checksums(gcc(), "fluoro inline", &cases, 3);
    let temporal = quarter_fluoro("fluoro_temporal", "inline");
    let cases = [
        Case::new(&temporal, "-ts fused 2 --strip-rows 4"),
        Case::new(&temporal, "-ts fused 2 --strip-rows 4 --inline"),
        Case::new(&temporal, "-ts reduced 2 -ms fold --inline"),
    ];
    same_checksums(gcc(), "fluoro_temporal inline", &cases, 4);
    let xray = small_xray_levels("inline");
    // In xray's fused nr0 the contrast is computed once: the archive's
    // conversion reads the contrast back from its row (the same bits,
    // without a second division), and the constant bounds of min and max
    // are variables hidden from the optimiser.
    let dir = scratch("inline-c");
    let xray_path = xray.to_string_lossy().to_string();
    let dir_path = dir.to_string_lossy().to_string();
    ssc_ok([
        "build", &xray_path, "-ts", "fused", "2", "--inline", "-od", &dir_path,
    ]);
    let c = std::fs::read_to_string(dir.join("xray_small.c")).unwrap();
    let fused = &c[c.find("static void def_fused_nr0").expect("def_fused_nr0")..];
    let fused = &fused[..fused.find("\n}\n").unwrap()];
    assert!(
        fused.contains("archive_out_row[x] = (unsigned short)ssc_min_float(ssc_max_float(floorf(65535.0f * contrast_out_row[x] + 0.5f), lim"),
        "{fused}"
    );
    assert!(fused.contains("SSC_OPAQUE(lim0);"), "{fused}");
    let cases = [
        Case::new(&xray, "-ts fused 2 --strip-rows 4"),
        Case::new(&xray, "-ts fused 2 --strip-rows 4 --inline"),
        Case::new(&xray, "-ts predictable 2 -ms interference --inline"),
    ];
    same_checksums(gcc(), "xray inline", &cases, 3);
}

/// Fused and box-at-a-time fluoro (a quarter of its resolution) under
/// ThreadSanitizer: no report, the checksum of the same program without it.
#[test]
fn fluoro_is_race_free_under_thread_sanitizer() {
    let dir = scratch("vocabulary-tsan");
    let small = small_fluoro("tsan");
    let cases = [
        Case::new(&small, "-ts fused 2 --strip-rows 4"),
        Case::new(&small, "-ts reduced 2 -ms interference"),
        Case::new(&small, "-ts fused 2 --strip-rows 4 --inline"),
    ];
    under_tsan("vocabulary-tsan", &dir, &cases);
}

/// Every operator (`tests/in/operators.ssc`, one function each, a table
/// read from a file beside it) against numpy on random frames, fused and
/// box-at-a-time: floats within float32's rounding, integer arithmetic
/// exact (`tests/fluoro/operators.py`).
#[test]
fn every_operator_agrees_with_numpy() {
    let Some(python) = python_with_numpy("every_operator_agrees_with_numpy") else {
        return;
    };
    let dir = scratch("vocabulary-operators");
    let input = dir.join("frames");
    let run_py = |args: &[&str]| python_script(&python, "tests/fluoro/operators.py", args);
    run_py(&["make", &input.display().to_string()]);
    for flags in [
        "-ts fused 2 --strip-rows 4",
        "-ts reduced 2 -ms reuse",
        "-ts fused 2 --strip-rows 4 --contract",
        "-ts reduced 2 -ms reuse --reciprocal",
        "-ts fused 2 --strip-rows 4 --contract --reciprocal",
    ] {
        let d = dir.join(flags.replace(' ', "_"));
        std::fs::create_dir_all(&d).unwrap();
        let exe = build(gcc(), &Case::new(root("tests/in/operators.ssc"), flags), &d)
            .unwrap_or_else(|e| panic!("{e}"));
        let out = d.join("out");
        let mut args = Vec::new();
        for (name, file) in [
            ("a", "a.pfm"),
            ("b", "b.pfm"),
            ("u", "u.pgm"),
            ("k", "k.pgm"),
            ("h", "h.pfm"),
        ] {
            args.push("--input".to_string());
            args.push(format!("{name}={}", input.join(file).display()));
        }
        args.extend(["--output".to_string(), out.display().to_string()]);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = run_in(&[], &exe, &a, &[], &d, RUN_DEADLINE).unwrap_or_else(|e| panic!("{e}"));
        assert!(ran.status.success(), "{flags}: {}", ran.stderr);
        let report = run_py(&[
            "check",
            &input.display().to_string(),
            &out.display().to_string(),
        ]);
        eprintln!("{flags}:\n{report}");
        assert_eq!(report.matches(" ok").count(), 25, "{report}");
    }
}

/// A window operator over an expression of ports gives, to the bit, what
/// it gives over a function that computes the expression first (a
/// detector's offset-and-gain correction before a median, a Gaussian and
/// a sharpening stencil): in rows computed once per strip (the median and
/// the Gaussian, fused and box-at-a-time) and at every window element
/// (the stencil).
#[test]
fn a_window_of_an_expression_is_the_window_of_a_function_computing_it() {
    let flat = "max(float(u) - a, 0) * 0.5";
    let ops = [
        ("fm", "[3, 3]", "median(X)"),
        (
            "fs",
            "[5, 5]",
            "separable(X, [1, 4, 6, 4, 1], [1, 4, 6, 4, 1]) / 256",
        ),
        (
            "ft",
            "[3, 3]",
            "stencil(X, [0, -1, 0, -1, 5, -1, 0, -1, 0])",
        ),
    ];
    let head = "declaration {
  function_declaration func_source_f NONE { out OUT float mul [1, 1]; };
  function_declaration func_source_16 NONE { out OUT ushort mul [1, 1]; };
  function_declaration func_sink_f NONE { in IN float mul [1, 1]; };
";
    let (mut inline, mut apart) = (head.to_string(), head.to_string());
    apart += "  function_declaration flat FULL { u IN ushort mul [1, 1]; a IN float mul [1, 1]; out OUT float mul [1, 1]; };\n";
    apart += &format!("  function_definition flat {{ out = {flat}; }};\n");
    let (mut instances, mut inline_conns, mut apart_conns) =
        (String::new(), String::new(), String::new());
    for (f, w, e) in ops {
        inline += &format!("  function_declaration d_{f} FULL {{ u IN ushort mul [1, 1] {w}; a IN float mul [1, 1] {w}; out OUT float mul [1, 1]; }};\n");
        inline += &format!(
            "  function_definition d_{f} {{ out = {}; }};\n",
            e.replace('X', flat)
        );
        apart += &format!("  function_declaration d_{f} FULL {{ in IN float mul [1, 1] {w}; out OUT float mul [1, 1]; }};\n");
        apart += &format!(
            "  function_definition d_{f} {{ out = {}; }};\n",
            e.replace('X', "in")
        );
        instances += &format!(", {f} d_{f} [96, 80], {f}_out func_sink_f [96, 80]");
        inline_conns +=
            &format!("  u.out -> {f}.u;\n  a.out -> {f}.a;\n  {f}.out -> {f}_out.in;\n");
        apart_conns += &format!("  f.out -> {f}.in;\n  {f}.out -> {f}_out.in;\n");
    }
    inline += &format!("  function u func_source_16 [96, 80], a func_source_f [96, 80]{instances};\n{inline_conns}}}\n");
    apart += &format!("  function u func_source_16 [96, 80], a func_source_f [96, 80], f flat [96, 80]{instances};\n  u.out -> f.u;\n  a.out -> f.a;\n{apart_conns}}}\n");
    let dir = scratch("window-of-expression");
    // A 16-bit frame of detector counts and a float offset map that is
    // sometimes above it (the correction clamps those at 0).
    let (w, h) = (96usize, 80usize);
    let mut pgm = format!("P5\n{w} {h}\n65535\n").into_bytes();
    let mut pfm = format!("Pf\n{w} {h}\n-1.0\n").into_bytes();
    for i in 0..w * h {
        let u = ((i % w) * 997 + (i / w) * 131) % 4001;
        pgm.extend_from_slice(&(u as u16).to_be_bytes());
    }
    for y in (0..h).rev() {
        for x in 0..w {
            let a = 100.0 + ((x * 37 + y * 53) % 900) as f32 * 1.25;
            pfm.extend_from_slice(&a.to_le_bytes());
        }
    }
    let (u_file, a_file) = (dir.join("u.pgm"), dir.join("a.pfm"));
    std::fs::write(&u_file, pgm).unwrap();
    std::fs::write(&a_file, pfm).unwrap();
    let inputs = [
        format!("u={}", u_file.display()),
        format!("a={}", a_file.display()),
    ];
    let outputs = |text: &str, tag: &str, flags: &str| {
        let d = dir.join(format!("{tag}_{}", flags.replace(' ', "_")));
        std::fs::create_dir_all(&d).unwrap();
        let file = write_input(&d, &format!("{tag}.ssc"), text);
        let exe = build(gcc(), &Case::new(&file, flags), &d).unwrap_or_else(|e| panic!("{e}"));
        let out = d.join("out");
        let out_s = out.display().to_string();
        let args = [
            "--input", &inputs[0], "--input", &inputs[1], "--output", &out_s,
        ];
        let ran = run_in(&[], &exe, &args, &[], &d, RUN_DEADLINE).unwrap_or_else(|e| panic!("{e}"));
        assert!(ran.status.success(), "{tag} {flags}: {}", ran.stderr);
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                let name = p.file_name().unwrap().to_string_lossy().to_string();
                (name, std::fs::read(&p).unwrap())
            })
            .collect();
        files.sort();
        files
    };
    for flags in ["-ts fused 2 --strip-rows 8", "-ts simple -ms none"] {
        let a = outputs(&inline, "inline", flags);
        let b = outputs(&apart, "apart", flags);
        assert_eq!(
            a.len(),
            3,
            "{flags}: {:?}",
            a.iter().map(|f| &f.0).collect::<Vec<_>>()
        );
        for ((na, da), (nb, db)) in a.iter().zip(&b) {
            assert_eq!(na, nb, "{flags}");
            assert!(da == db, "{flags}: {na} differs");
        }
    }
}

/// `--contract` (docs/language.md, "Contraction"): the generated C writes
/// each `a * b ± c` and weighted sum as `fmaf`, so every scheduler and
/// memory schedule, the fused and inlined programs and one compiled for any
/// machine (`--portable`: no FMA instruction, libm's `fmaf`) print one
/// checksum, which is not the strict one; the operators stay within
/// numpy's tolerance (`every_operator_agrees_with_numpy`).
#[test]
fn contraction_prints_one_checksum_in_every_schedule() {
    let small = small_fluoro("contract");
    let xray = small_xray("contract");
    let mut cases = Vec::new();
    for ts in schedulers() {
        cases.push(Case::new(&small, &format!("-ts {ts} --contract")));
    }
    for ms in memory_schedules() {
        cases.push(Case::new(
            &small,
            &format!("-ts fused 2 -ms {ms} --contract"),
        ));
    }
    cases.push(Case::new(
        &small,
        "-ts fused 2 --strip-rows 4 --inline --contract",
    ));
    cases.push(Case::new(
        &small,
        "-ts reduced 2 -ms reuse --inline --contract",
    ));
    cases.push(Case::new(&small, "-ts fused 2 --contract --portable"));
    // What `-t interpreter` prints under `--inline --contract` (each
    // substituted value kept apart in its conversion) builds to the same.
    let path = small.to_string_lossy().to_string();
    let printed = ssc_ok([
        "build",
        &path,
        "-ts",
        "fused",
        "2",
        "--inline",
        "--contract",
        "-t",
        "interpreter",
    ]);
    let plain = ssc_ok([
        "build",
        &path,
        "-ts",
        "fused",
        "2",
        "--inline",
        "-t",
        "interpreter",
    ]);
    assert!(
        printed.matches("float(").count() > plain.matches("float(").count(),
        "no value kept apart:\n{printed}"
    );
    let written = write_input(&scratch("contract-printed"), "fluoro_fused.ssc", &printed);
    cases.push(Case::new(&written, "--contract"));
    same_checksums(gcc(), "fluoro contract", &cases, 3);
    let xcases = [
        Case::new(&xray, "-ts fused 2 --strip-rows 4 --contract"),
        Case::new(&xray, "-ts fused 2 --strip-rows 4 --inline --contract"),
        Case::new(
            &xray,
            "-ts predictable 2 -ms interference --inline --contract",
        ),
        Case::new(&xray, "-ts simple -ms none --contract --portable"),
    ];
    same_checksums(gcc(), "xray contract", &xcases, 3);
    // Every operator, windows of expressions included, in chunked rows and
    // element by element.
    let ops = root("tests/in/operators.ssc");
    let ocases = [
        Case::new(&ops, "-ts fused 2 --strip-rows 4 --contract"),
        Case::new(&ops, "-ts reduced 2 -ms reuse --contract"),
        Case::new(&ops, "-ts simple -ms none --contract"),
        Case::new(&ops, "-ts fused 2 --strip-rows 4 --inline --contract"),
        Case::new(&ops, "-ts predictable 2 --contract --portable"),
    ];
    same_checksums(gcc(), "operators contract", &ocases, 3);
    // Not the strict program's checksum: the flag is not ignored.
    let dir = scratch("contract-strict");
    let strict = build_and_run(
        gcc(),
        &Case::new(&xray, "-ts fused 2 --strip-rows 4"),
        3,
        &dir,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let contracted = build_and_run(gcc(), &xcases[0], 3, &dir).unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(
        strict.0, contracted.0,
        "--contract printed the strict checksum"
    );
    // The C says so: a fused multiply-add in the Gaussian's x pass and in
    // the bilinear blend, none under the default.
    let c_of = |flags: &[&str], tag: &str| small_xray_c(&xray, &dir.join(tag), flags);
    let c = c_of(&["--contract"], "c");
    assert!(
        c.contains("sum[x - c0] = fmaf(2.0f, src[x], src[x - 1]) + src[x + 1];"),
        "{c}"
    );
    assert!(
        c.contains("even[e] = fmaf(0.25f, above[e], 0.75f * centre[e]);"),
        "{c}"
    );
    assert!(!c_of(&[], "strict").contains("fmaf("));
}

/// Under `--contract`, a product another output stored is multiplied again
/// inside the fma, as the border's loop (which reads nothing back)
/// computes it.
#[test]
fn contraction_multiplies_a_stored_product_again_inside_the_fma() {
    let dir = scratch("contract-two");
    let two = write_input(
        &dir,
        "two.ssc",
        "declaration {
  function_declaration func_source_f NONE { out OUT float mul [1, 1]; };
  function_declaration func_sink_f NONE { in IN float mul [1, 1]; };
  function_declaration two FULL { a IN float mul [1, 1]; b IN float mul [1, 1]; p OUT float mul [1, 1]; q OUT float mul [1, 1]; };
  function_definition two { p = a * b; q = a * b + 1.5; };
  function a func_source_f [64, 48], b func_source_f [64, 48], t two [64, 48], p func_sink_f [64, 48], q func_sink_f [64, 48];
  a.out -> t.a;
  b.out -> t.b;
  t.p -> p.in;
  t.q -> q.in;
}
",
    );
    let od = dir.join("two").to_string_lossy().to_string();
    ssc_ok([
        "build",
        two.to_str().unwrap(),
        "-ts",
        "simple",
        "--contract",
        "-od",
        &od,
    ]);
    let c = std::fs::read_to_string(dir.join("two").join("two.c")).unwrap();
    assert!(c.contains("q_row[ex] = fmaf(a_0[x], b_0[x], 1.5f);"), "{c}");
}

/// `--reciprocal` (docs/language.md, "Reciprocals"): a floating division
/// by a constant multiplies by the constant's rounded reciprocal, as
/// Halide without `strict_float` does, so every scheduler, the fused, the
/// inlined and the `--portable` program print one checksum of their own,
/// and so does each with `--contract` as well; a division by a power of
/// two stays (it multiplies exactly already); the operators stay within
/// numpy's tolerance (`every_operator_agrees_with_numpy`).
#[test]
fn reciprocals_print_one_checksum_in_every_schedule() {
    let xray = small_xray("reciprocal");
    let ops = root("tests/in/operators.ssc");
    let dir = scratch("reciprocal");
    let mut sums = Vec::new();
    for extra in ["--reciprocal", "--contract --reciprocal"] {
        let cases: Vec<Case> = [
            "-ts fused 2 --strip-rows 4",
            "-ts fused 2 --strip-rows 4 --inline",
            "-ts predictable 2 -ms interference --inline",
            "-ts simple -ms none --portable",
        ]
        .iter()
        .map(|f| Case::new(&xray, &format!("{f} {extra}")))
        .collect();
        same_checksums(gcc(), &format!("xray {extra}"), &cases, 3);
        let ocases: Vec<Case> = [
            "-ts fused 2 --strip-rows 4",
            "-ts reduced 2 -ms reuse",
            "-ts predictable 2 --portable",
        ]
        .iter()
        .map(|f| Case::new(&ops, &format!("{f} {extra}")))
        .collect();
        same_checksums(gcc(), &format!("operators {extra}"), &ocases, 3);
        let (sum, _) = build_and_run(gcc(), &cases[0], 3, &dir).unwrap_or_else(|e| panic!("{e}"));
        sums.push(sum);
    }
    let (strict, _) = build_and_run(
        gcc(),
        &Case::new(&xray, "-ts fused 2 --strip-rows 4"),
        3,
        &dir,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (contracted, _) = build_and_run(
        gcc(),
        &Case::new(&xray, "-ts fused 2 --strip-rows 4 --contract"),
        3,
        &dir,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(sums[0], strict, "--reciprocal printed the strict checksum");
    assert_ne!(
        sums[1], contracted,
        "--reciprocal changed nothing under --contract"
    );
    assert_ne!(sums[0], sums[1]);
    // The C: window_level's division by 16 000 multiplies by 1/16 000
    // rounded to float (6.25e-5 is exact in decimal, not in binary); the
    // Gaussian's / 16 stays.
    let c_of = |flags: &[&str], tag: &str| small_xray_c(&xray, &dir.join(tag), flags);
    let c = c_of(&["--reciprocal"], "c");
    assert!(
        c.contains(" * 6.25e-5f") && !c.contains("/ 16000.0f"),
        "{c}"
    );
    assert!(c.contains("/ 16.0f"), "{c}");
    let strict_c = c_of(&[], "strict");
    assert!(strict_c.contains("/ 16000.0f") && !strict_c.contains("6.25e-5f"));
    assert_eq!(6.25e-5f32, (1.0f64 / 16000.0) as f32);
}

/// The C of the small xray (`small_xray`) built `-ts fused 2` with
/// `flags` into `out`.
fn small_xray_c(xray: &Path, out: &Path, flags: &[&str]) -> String {
    let mut args = vec!["build", xray.to_str().unwrap(), "-ts", "fused", "2"];
    args.extend_from_slice(flags);
    let od = out.to_string_lossy().to_string();
    args.extend(["-od", &od]);
    ssc_ok(args);
    std::fs::read_to_string(out.join("xray_small.c")).unwrap()
}

/// A float frame of `w` × `h` as PFM (little endian, bottom row first).
fn pfm_frame(w: usize, h: usize, v: &[f32]) -> Vec<u8> {
    let mut b = format!("Pf\n{w} {h}\n-1.0\n").into_bytes();
    for y in (0..h).rev() {
        for x in &v[y * w..(y + 1) * w] {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    b
}

/// A `w` × `h` chain whose two sinks get the 3 × 3 median of the frame
/// (`plain`) and the median inside an expression with the value it
/// filters (`bright`).
fn median_chain(dir: &Path, w: usize, h: usize) -> PathBuf {
    write_input(
        dir,
        "median.ssc",
        &format!(
            "composition {{
  container_declaration source {{ out OUT float mul [1, 1]; }};
  container_declaration sink {{ in IN float mul [1, 1]; }};
  container_declaration med {{ in IN float mul [1, 1] [3, 3]; out OUT float mul [1, 1]; }};
  container_declaration top {{ }};
  container_bind source func_source FULL, sink func_sink FULL, med median3x3 FULL;
  function_definition median3x3 {{
    out = median(in);
  }};
  function_definition brighter {{
    out = max(median(in), in) * 2;
  }};
  container_composition top {{
    container frame source index, filtered med index, lifted med index,
      plain sink index, bright sink index;
    frame.out -> filtered.in;
    frame.out -> lifted.in;
    filtered.out -> plain.in;
    lifted.out -> bright.in;
  }};
  compose top [{w}, {h}];
}}
"
        )
        .replace("lifted med index", "lifted brighter_med index")
        .replace(
            "container_declaration top",
            "container_declaration brighter_med { in IN float mul [1, 1] [3, 3]; out OUT float mul [1, 1]; };\n  container_declaration top",
        )
        .replace("med median3x3 FULL", "med median3x3 FULL, brighter_med brighter FULL"),
    )
}

/// A frame full of what a min/max network can get wrong: NaN, −0 beside
/// +0, ±∞, ties.
fn median_frame(w: usize, h: usize) -> Vec<f32> {
    let special = [f32::NAN, -0.0, 0.0, f32::INFINITY, f32::NEG_INFINITY];
    (0..w * h)
        .map(|i| {
            let k = (i * 7919 + i / w * 31) % 11;
            if k < special.len() {
                special[k]
            } else {
                (k % 5) as f32 - 2.0
            }
        })
        .collect()
}

/// The 3 × 3 median's vector paths (`ssc_median9_row_float`, docs/fused.md,
/// "The median in registers"): AVX-512, AVX2 and plain C write the same
/// bits. A 1100-wide frame (chunks of 512 columns and a tail that is not
/// a whole vector) full of what a min/max network can get wrong: NaN, −0
/// beside +0, ±∞, ties; split into strips of 2 rows on 2 threads; the
/// median alone, and inside an expression with the value it filters.
/// Each toolchain with `-Werror` (the paths compile without a warning
/// under `-Wall -Wextra`); a path the machine lacks is plain C again.
#[test]
fn the_median_writes_the_same_bits_on_every_vector_path() {
    let dir = scratch("median-paths");
    let (w, h) = (1100usize, 8usize);
    let desc = median_chain(&dir, w, h);
    let frame = median_frame(w, h);
    let input = dir.join("frame.pfm");
    std::fs::write(&input, pfm_frame(w, h, &frame)).unwrap();
    let toolchains = [
        ("avx512", "-O3 -march=native -Werror"),
        ("avx2", "-O3 -march=native -mno-avx512f -Werror"),
        ("plain", "-O2 -Werror"),
    ];
    let mut outputs: Vec<(String, Vec<Vec<u8>>)> = Vec::new();
    for (tag, cflags) in toolchains {
        let tc = Toolchain::new(&format!("median-{tag}"), "cc", cflags)
            .unwrap_or_else(|e| panic!("{e}"));
        let sub = dir.join(tag);
        std::fs::create_dir_all(&sub).unwrap();
        let exe = build(&tc, &Case::new(&desc, "-ts fused 2 --strip-rows 2"), &sub)
            .unwrap_or_else(|e| panic!("{e}"));
        let c = sub.join("out");
        let text = std::fs::read_to_string(sub.join("median.c")).unwrap();
        assert!(
            text.contains("#if defined(__AVX512F__)") && text.contains("ssc_median9_row_float("),
            "no vector path in the generated C"
        );
        let args = [
            "--iterations",
            "1",
            "--input",
            &format!("frame={}", input.display()),
            "--output",
            &c.display().to_string(),
        ];
        let ran = run_in(
            &[],
            &exe,
            &args,
            &[],
            &sub,
            std::time::Duration::from_secs(60),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert!(ran.status.success(), "{tag}: {}{}", ran.stdout, ran.stderr);
        let files = ["plain", "bright"].map(|o| {
            std::fs::read(c.join(format!("{o}_0000.pfm")))
                .unwrap_or_else(|e| panic!("{tag} {o}: {e}"))
        });
        outputs.push((
            format!("{tag} {}", ran.checksum().unwrap_or("?")),
            files.to_vec(),
        ));
    }
    for (label, files) in &outputs[1..] {
        assert!(
            files == &outputs[0].1,
            "{label} wrote other bits than {}",
            outputs[0].0
        );
    }
    // The medians themselves: NaN and both zeros reach the output, so
    // the comparison covers them.
    let body = &outputs[0].1[0][outputs[0].1[0].len() - 4 * w * h..];
    let values: Vec<f32> = body
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let zeros = |negative: bool| {
        values
            .iter()
            .any(|v| *v == 0.0 && v.is_sign_negative() == negative)
    };
    assert!(values.iter().any(|v| v.is_nan()) && zeros(true) && zeros(false));
    eprintln!(
        "median paths: {} bytes alike in {}",
        outputs[0].1.iter().map(Vec::len).sum::<usize>(),
        outputs
            .iter()
            .map(|o| o.0.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
}
