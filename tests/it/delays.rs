//! Frame-to-frame state: delays.
//!
//! `examples/fluoro_temporal.ssc` (fluoro with the recursive filter
//! t = 0.25·c + 0.75·t[previous], 0 before the first frame) against the
//! numpy reference (`tests/fluoro/reference.py check-temporal`) over eight
//! X-ray-like frames, through the program under several schedules and
//! through the library's Python module (which keeps t across calls and
//! starts again from 0 when opened again); one checksum under every
//! scheduler × memory schedule; ThreadSanitizer-clean; the checker rejects
//! the mutants of a delayed runtime (a missing signal between iterations,
//! a double-buffered state cut to one copy or shared with another buffer)
//! with a counter-example; a function reading its own previous output,
//! composed or declared by hand, gets two copies of its state and no copy
//! function; the SDF3 export carries the delay as initial tokens; `-dm`
//! allocates every buffer per iteration but the state.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::*;

const FRAMES: usize = 8;

fn temporal() -> PathBuf {
    root("examples/fluoro_temporal.ssc")
}

fn small_temporal(tag: &str) -> PathBuf {
    quarter_fluoro("fluoro_temporal", tag)
}

fn reference(python: &str, args: &[&str]) -> String {
    fluoro_reference(python, args)
}

fn input_args(frames: &Path) -> Vec<String> {
    fluoro_inputs(frames)
}

/// `ssc ARGS`: (exit code, stdout, stderr).
fn ssc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(SSC).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every scheduler with every memory schedule prints one checksum over
/// frames whose state carries from one to the next, for the temporal
/// chain and for a delay read through a window (`tests/in/delay_halo.ssc`,
/// with the options that change synchronisation: `-kd`, `-ss`, `-ab`),
/// and under `-dm`, which keeps the state in one allocation.
#[test]
fn every_scheduler_and_memory_schedule_prints_one_checksum() {
    let small = small_temporal("matrix");
    let mut cases = Vec::new();
    for ts in schedulers() {
        for ms in memory_schedules() {
            cases.push(Case::new(&small, &format!("-ts {ts} -ms {ms}")));
        }
    }
    cases.push(Case::new(&small, "-ts fused 2 --strip-rows 4"));
    // The synchronisation and affinity options of e2e.rs' diagonal.
    for o in SYNC_DIAGONAL {
        cases.push(Case::new(&small, o));
    }
    // -dm: every buffer allocated per iteration but the state, once.
    cases.push(Case::new(&small, "-ts reduced 2 -dm dynamic"));
    cases.push(Case::new(&small, "-ts fused 2 -dm reduced"));
    same_checksums(gcc(), "fluoro_temporal", &cases, 5);
    let halo = root("tests/in/delay_halo.ssc");
    let cases: Vec<Case> = [
        "-dp none -ts fixed 1",
        "-ts predictable 2 -ms interference -ss -kd 2",
        "-ts barrier -ms naive -ab",
        "-ts fixed 2 -ms reuse -st",
        "-ts fused 2 --strip-rows 2",
        "-ts fused 2 --strip-rows 4 -ks -ki 3",
        "-ts fixed 2 -dm dynamic",
        "-ts fused 2 --strip-rows 4 -dm reduced",
    ]
    .iter()
    .map(|a| Case::new(&halo, a))
    .collect();
    same_checksums(gcc(), "delay_halo", &cases, 7);
}

/// The program on eight frames agrees with the numpy reference, fused and
/// box-at-a-time, and prints the checksum the library's Python module
/// prints on the same frames; the library keeps the state across calls
/// and starts from 0 again when opened again.
#[test]
fn fluoro_temporal_agrees_with_numpy_through_the_program_and_the_library() {
    let Some(python) =
        python_with_numpy("fluoro_temporal_agrees_with_numpy_through_the_program_and_the_library")
    else {
        return;
    };
    let dir = scratch("delays-temporal");
    let input = dir.join("frames");
    reference(
        &python,
        &["make", &input.display().to_string(), &FRAMES.to_string()],
    );
    let frames = FRAMES.to_string();
    let mut sums = Vec::new();
    for flags in [
        "-ts fused 2",
        "-ts reduced 2 -ms reuse",
        "-ts simple -ms none",
    ] {
        let d = dir.join(flags.replace(' ', "_"));
        std::fs::create_dir_all(&d).unwrap();
        let exe = build(gcc(), &Case::new(temporal(), flags), &d).unwrap_or_else(|e| panic!("{e}"));
        let out = d.join("out");
        let mut args = input_args(&input);
        args.extend(["--output".to_string(), out.display().to_string()]);
        args.extend(["--iterations".to_string(), frames.clone()]);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = run_in(&[], &exe, &a, &[], &d, RUN_DEADLINE).unwrap_or_else(|e| panic!("{e}"));
        assert!(ran.status.success(), "{flags}: {}", ran.stderr);
        sums.push(ran.checksum().expect("a checksum").to_string());
        let report = reference(
            &python,
            &[
                "check-temporal",
                &input.display().to_string(),
                &out.display().to_string(),
            ],
        );
        eprintln!("{flags}:\n{report}");
        assert_eq!(report.matches(" ok").count(), 3 * FRAMES, "{report}");
    }
    assert!(
        sums.iter().all(|s| *s == sums[0]),
        "three schedules, one checksum on the same frames: {sums:?}"
    );

    let lib = dir.join("lib");
    support::fused_library(&temporal(), &lib, "-O2");
    let report = reference(
        &python,
        &[
            "library-temporal",
            &input.display().to_string(),
            &lib.display().to_string(),
            "fluoro_temporal",
        ],
    );
    eprintln!("library:\n{report}");
    assert_eq!(report.matches(" ok").count(), 3 * FRAMES + 3, "{report}");
    assert!(
        report.contains(&format!("checksum: {}", sums[0])),
        "{report}\nprogram: {}",
        sums[0]
    );
}

/// The temporal chain (a quarter of its resolution) and the windowed delay
/// under ThreadSanitizer, fused and box-at-a-time: no report.
#[test]
fn delays_are_race_free_under_thread_sanitizer() {
    let dir = scratch("delays-tsan");
    let small = small_temporal("tsan");
    let halo = root("tests/in/delay_halo.ssc");
    let cases = [
        Case::new(&small, "-ts fused 2 --strip-rows 4"),
        Case::new(&small, "-ts reduced 2 -ms interference"),
        Case::new(&halo, "-ts fixed 2 -ms reuse"),
        Case::new(&halo, "-ts fused 2 --strip-rows 2 -ms fold"),
    ];
    under_tsan("delays-tsan", &dir, &cases);
}

/// The runtime ssc derives for the windowed delay on two threads, written
/// out as a whole description (`-t interpreter`), is honoured and proven;
/// its state is double-buffered (`t.out` mapped to two frames). Each
/// signal between the threads carries the state both ways across an
/// iteration: the rows a strip wrote to the other thread's reader of the
/// next frame, and that reader's last read before the strip overwrites the
/// copy. Without either signal, with the state's mapping cut to one copy,
/// or with another buffer moved onto its second copy, the build is refused
/// with the counter-example.
#[test]
fn the_checker_rejects_the_delay_mutants() {
    let dir = scratch("delays-mutants");
    let halo = root("tests/in/delay_halo.ssc");
    let (code, full, err) = ssc(&[
        "build",
        &halo.display().to_string(),
        "-ts",
        "fixed",
        "2",
        "-ms",
        "naive",
        "-t",
        "interpreter",
    ]);
    assert_eq!(code, 0, "{err}");
    // 32 × 32 floats: the source's 4096 bytes, then the state's two copies.
    assert!(full.contains("m0 shared 0 4096,"), "{full}");
    assert!(full.contains("m1 shared 4096 12288;"), "{full}");
    assert!(full.contains("m1 [t.out, t.previous, k.in];"), "{full}");
    assert!(
        full.contains("thread0 [E s.0, W s1, E t.0, S s0, E k.0],"),
        "{full}"
    );
    assert!(
        full.contains("thread1 [E s.1, W s0, E t.1, S s1, E k.1];"),
        "{full}"
    );
    assert!(full.contains("!s0,\n    !s1;"), "{full}");
    let honoured = write_input(&dir, "honoured.ssc", &full);
    let (code, _, err) = ssc(&[
        "build",
        &honoured.display().to_string(),
        "-o",
        &dir.join("honoured").display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("error"), "{err}");
    let build = |name: &str, text: &str| -> (i32, String) {
        let path = write_input(&dir, &format!("{name}.ssc"), text);
        let (code, _, err) = ssc(&[
            "build",
            &path.display().to_string(),
            "-o",
            &dir.join(name).display().to_string(),
        ]);
        (code, err)
    };
    for (sig, wait, post, decl) in [
        ("s0", " W s0,", ", S s0", "    !s0,\n"),
        ("s1", " W s1,", ", S s1", "    !s1;\n"),
    ] {
        let mutant = full.replace(wait, "").replace(post, "").replace(decl, "");
        let mutant = if sig == "s1" {
            mutant.replace("!s0,\n", "!s0;\n")
        } else {
            mutant
        };
        assert!(!mutant.contains(&format!("S {sig}")), "{sig}:\n{mutant}");
        let (code, err) = build(&format!("without_{sig}"), &mutant);
        assert_eq!(code, 1, "without {sig}: {err}");
        assert!(err.contains("error[E211]"), "without {sig}: {err}");
        assert!(
            err.contains("dependency through a delay not enforced"),
            "without {sig}: {err}"
        );
        assert!(
            err.contains("write-after-read not enforced"),
            "without {sig}: {err}"
        );
    }
    let (code, err) = build(
        "one_copy",
        &full.replace("m1 shared 4096 12288;", "m1 shared 4096 8192;"),
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[E210]"), "{err}");
    assert!(
        err.contains("buffer t.out is read through a delay and keeps two copies (8192 bytes), but its memory_mapping holds 4096"),
        "{err}"
    );
    let (code, err) = build(
        "on_the_copy",
        &full.replace("m0 shared 0 4096,", "m0 shared 8192 12288,"),
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[E211]"), "{err}");
    assert!(
        err.contains("race: thread0[2] E t.0 of iteration i and thread1[0] E s.1 of iteration i"),
        "{err}"
    );
}

/// A declaration written by hand whose function reads its own output
/// through a delay builds as written: its state is double-buffered (two
/// copies, no copy function), as when composed, and `-t interpreter`'s
/// output lowers to itself; the windowed delay composed likewise.
#[test]
fn a_function_reading_its_own_previous_output_is_double_buffered() {
    let dir = scratch("delays-declared");
    let declared = write_input(
        &dir,
        "declared.ssc",
        "declaration {
  function_declaration func_source FULL { out OUT float mul [1, 1]; };
  function_declaration func_sink FULL { in IN float mul [1, 1]; };
  function_declaration func_avg FULL { a IN float mul [1, 1]; b IN float mul [1, 1]; out OUT float mul [1, 1]; };
  function s func_source [32, 32], t func_avg [32, 32], k func_sink [32, 32];
  s.out -> t.a;
  t.out -> t.b delay 0;
  t.out -> k.in;
}
",
    );
    for input in [declared, root("tests/in/delay_halo.ssc")] {
        let (code, once, err) = ssc(&[
            "build",
            &input.display().to_string(),
            "-ts",
            "fixed",
            "2",
            "-ms",
            "naive",
            "-t",
            "interpreter",
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(!once.contains("state"), "no copy function: {once}");
        assert!(once.contains("t.0 => t.0 delay;"), "{once}");
        // t.out: 32 × 32 floats, twice, after the source's 4096 bytes.
        assert!(once.contains("m1 shared 4096 12288;"), "{once}");
        let again = write_input(&dir, "again.ssc", &once);
        let (code, twice, err) = ssc(&["build", &again.display().to_string(), "-t", "interpreter"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(once, twice, "-t interpreter's output lowers to itself");
        let (code, _, err) = ssc(&[
            "run",
            &input.display().to_string(),
            "-ts",
            "fused",
            "2",
            "--strip-rows",
            "4",
            "-o",
            &dir.join("run").display().to_string(),
            "--",
            "--iterations",
            "3",
        ]);
        assert_eq!(code, 0, "{err}");
    }
}

/// `-xr` writes the delayed dependencies as initial tokens.
#[test]
fn exports_carry_the_delay() {
    let dir = scratch("delays-exports");
    let halo = root("tests/in/delay_halo.ssc").display().to_string();
    let xml = dir.join("halo.xml");
    let (code, _, err) = ssc(&[
        "build",
        &halo,
        "-ts",
        "fixed",
        "2",
        "-xr",
        "--xr-graph",
        "instantiation",
        "--xr-output",
        &xml.display().to_string(),
        "-t",
        "interpreter",
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&xml).unwrap();
    let delayed = text
        .lines()
        .filter(|l| l.contains("<channel name=\"c") && l.contains("srcActor=\"t_"))
        .filter(|l| l.contains("dstActor=\"t_"))
        .collect::<Vec<_>>();
    // The double-buffered state: each strip's dependency on both strips of
    // the previous frame and its write-after-read partner, 1 token each.
    assert_eq!(delayed.len(), 8, "{text}");
    for (from, to) in [("t_0", "t_1"), ("t_1", "t_0")] {
        assert!(
            delayed
                .iter()
                .any(|l| l.contains(&format!("srcActor=\"{from}\""))
                    && l.contains(&format!("dstActor=\"{to}\""))),
            "{delayed:?}"
        );
    }
    assert!(
        delayed.iter().all(|l| l.contains("initialTokens=\"1\"")),
        "{delayed:?}"
    );
}

/// Two functions reading each other's previous output through delays:
/// each must read the other's old value before the other overwrites it,
/// which no order does with one buffer each, so the second connection's
/// state is double-buffered (and `-t interpreter`'s output lowers to
/// itself), every scheduler prints one checksum, and the declaration
/// alone, written by hand, checks and builds the same way.
#[test]
fn two_functions_reading_each_others_previous_output_double_buffer_one() {
    let exchange = root("tests/in/delay_exchange.ssc");
    let (code, once, err) = ssc(&[
        "build",
        &exchange.display().to_string(),
        "-t",
        "interpreter",
    ]);
    assert_eq!(code, 0, "{err}");
    // 16 × 8 floats: 512 bytes a copy. One of the two outputs has two.
    let runtime = &once[once.find("runtime {").expect("a runtime")..];
    let mapping = |port: &str| -> u64 {
        let binding = runtime
            .lines()
            .find(|l| l.contains(&format!("[{port},")))
            .unwrap_or_else(|| panic!("{port} bound: {runtime}"));
        let m = binding.trim().split(' ').next().unwrap();
        let line = runtime
            .lines()
            .find(|l| l.trim().starts_with(&format!("{m} shared ")))
            .unwrap();
        let n: Vec<u64> = line
            .trim()
            .trim_end_matches([',', ';'])
            .split(' ')
            .skip(2)
            .map(|v| v.parse().unwrap())
            .collect();
        n[1] - n[0]
    };
    let mut sizes = [mapping("x.out"), mapping("y.out")];
    sizes.sort();
    assert_eq!(sizes, [512, 1024], "{runtime}");
    assert!(!once.contains("state"), "no copy function: {once}");
    let dir = scratch("delays-exchange");
    let again = write_input(&dir, "again.ssc", &once);
    let (code, twice, err) = ssc(&["build", &again.display().to_string(), "-t", "interpreter"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(once, twice, "-t interpreter's output lowers to itself");
    let decl = sections_before(&once, "instantiation");
    let decl = &decl[decl.find("\ndeclaration").expect("a declaration") + 1..];
    let decl = write_input(&dir, "declared.ssc", decl);
    let mut cases: Vec<Case> = schedulers()
        .iter()
        .map(|ts| Case::new(&exchange, &format!("-ts {ts}")))
        .collect();
    cases.push(Case::new(&decl, "-ts fused 2 --strip-rows 2"));
    same_checksums(gcc(), "delay exchange", &cases, 3);
}
