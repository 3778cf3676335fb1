//! Frame-to-frame state (issue 27): delays.
//!
//! `examples/fluoro_temporal.ssc` (fluoro with the recursive filter
//! t = 0.25·c + 0.75·t[previous], 0 before the first frame) against the
//! numpy reference (`tests/fluoro/reference.py check-temporal`) over eight
//! X-ray-like frames, through the program under several schedules and
//! through the library's Python module (which keeps t across calls and
//! starts again from 0 when opened again); one checksum under every
//! scheduler × memory schedule; ThreadSanitizer-clean; the checker rejects
//! the two mutants of a delayed runtime (a missing signal between
//! iterations, a state overwritten before its last read) with a
//! counter-example; a hand-written declaration that needs a state copy is
//! refused (E135); the SDF3 export carries the delay as initial tokens;
//! `-dm` allocates every buffer per iteration but the state.

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
/// the same with a signal left out is refused with the counter-example:
/// the signal between iterations that carries the state to the next
/// frame's reader, and the signal that keeps the state copy from
/// overwriting rows a reader of the previous value still needs.
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
    let runtime = &full[full.find("runtime {").expect("a runtime")..];
    // The signals of the runtime: which carries what is read from the
    // thread programs (`S s` after the sub-box it follows, `W s` before
    // the one it guards).
    let programs: Vec<&str> = runtime
        .lines()
        .filter(|l| l.trim_start().starts_with("thread") && l.contains("[E "))
        .collect();
    assert_eq!(programs.len(), 2, "{runtime}");
    let guarded = |sig: &str| -> (String, String) {
        let after = |l: &str, needle: &str| -> Option<String> {
            let ops: Vec<&str> = l[l.find('[')? + 1..l.rfind(']')?].split(", ").collect();
            let i = ops.iter().position(|o| *o == needle)?;
            Some(ops.to_vec().join(",") + "@" + &i.to_string())
        };
        let post = programs
            .iter()
            .find_map(|l| after(l, &format!("S {sig}")))
            .unwrap();
        let wait = programs
            .iter()
            .find_map(|l| after(l, &format!("W {sig}")))
            .unwrap();
        let op = |s: &str, delta: isize| {
            let (ops, i) = s.split_once('@').unwrap();
            let ops: Vec<&str> = ops.split(',').collect();
            ops[(i.parse::<isize>().unwrap() + delta) as usize].to_string()
        };
        (op(&post, -1), op(&wait, 1))
    };
    let signals: Vec<String> = runtime
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("signal"))
        .skip(1)
        .map(|l| l.trim().trim_end_matches([',', ';']).to_string())
        .filter(|l| !l.is_empty() && l != "}")
        .collect();
    // The state copy of a strip → the next frame's reader on the other
    // thread (an initial token), and a reader of the previous value → the
    // state copy that overwrites its rows (none).
    let carry = signals
        .iter()
        .find(|s| {
            let (from, to) = guarded(s.trim_start_matches('!'));
            s.starts_with('!') && from.starts_with("E t_out_state.") && to.starts_with("E t.")
        })
        .expect("a signal between iterations")
        .trim_start_matches('!')
        .to_string();
    let keep = signals
        .iter()
        .find(|s| {
            let (from, to) = guarded(s);
            !s.starts_with('!') && from.starts_with("E t.") && to.starts_with("E t_out_state.")
        })
        .expect("a signal before the state copy")
        .clone();
    let honoured = write_input(&dir, "honoured.ssc", &full);
    let (code, _, err) = ssc(&[
        "build",
        &honoured.display().to_string(),
        "-o",
        &dir.join("honoured").display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty() || !err.contains("error"), "{err}");
    for (sig, wanted) in [
        (carry.as_str(), "dependency through a delay not enforced"),
        (
            keep.as_str(),
            "write-after-read through a delay not enforced",
        ),
    ] {
        let mutant = full
            .replace(&format!(" W {sig},"), "")
            .replace(&format!(", W {sig}"), "")
            .replace(&format!(" S {sig},"), "")
            .replace(&format!(", S {sig}]"), "]")
            .replace(&format!("    !{sig},\n"), "")
            .replace(&format!("    {sig},\n"), "")
            .replace(&format!("    !{sig};\n"), "")
            .replace(&format!("    {sig};\n"), "");
        assert!(!mutant.contains(&format!("S {sig}")), "{sig}:\n{mutant}");
        let path = write_input(&dir, &format!("without_{sig}.ssc"), &mutant);
        let (code, _, err) = ssc(&[
            "build",
            &path.display().to_string(),
            "-o",
            &dir.join(sig).display().to_string(),
        ]);
        assert_eq!(code, 1, "without {sig}: {err}");
        assert!(err.contains("error[E211]"), "without {sig}: {err}");
        assert!(err.contains(wanted), "without {sig}: {err}");
    }
}

/// A declaration written by hand whose function reads its own output
/// through a delay is refused with E135 and the copy to write; the same
/// chain composed gets the copy, and `-t interpreter`'s output (which
/// shows it) lowers to itself.
#[test]
fn a_state_copy_is_inserted_when_composed_and_asked_for_when_declared() {
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
    let (code, _, err) = ssc(&[
        "build",
        &declared.display().to_string(),
        "-t",
        "interpreter",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[E135]"), "{err}");
    assert!(err.contains("reads its own output"), "{err}");
    assert!(err.contains("declared.ssc:7:"), "{err}");

    let (code, once, err) = ssc(&[
        "build",
        &root("tests/in/delay_halo.ssc").display().to_string(),
        "-t",
        "interpreter",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        once.contains("t_out_state func_copy_state_float [32, 32]"),
        "{once}"
    );
    assert!(
        once.contains("t_out_state.out -> t.previous delay 3;"),
        "{once}"
    );
    assert!(once.contains("t_out_state.0 => t.0 delay;"), "{once}");
    let again = write_input(&dir, "again.ssc", &once);
    let (code, twice, err) = ssc(&["build", &again.display().to_string(), "-t", "interpreter"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(once, twice, "-t interpreter's output lowers to itself");
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
        .filter(|l| l.contains("<channel") && l.contains("srcActor=\"t_out_state_"))
        .filter(|l| l.contains("dstActor=\"t_"))
        .collect::<Vec<_>>();
    assert!(!delayed.is_empty(), "{text}");
    assert!(
        delayed.iter().all(|l| l.contains("initialTokens=\"1\"")),
        "{delayed:?}"
    );
}

/// Two functions reading each other's previous output through delays:
/// each must read the other's old value before the other overwrites it,
/// which no order does with one buffer each, so composition inserts a
/// copy for the second connection (and `-t interpreter`'s output lowers
/// to itself), every scheduler prints one checksum, and the declaration
/// written by hand without the copy is refused with E135, not a panic.
#[test]
fn two_functions_reading_each_others_previous_output_get_a_copy() {
    let exchange = root("tests/in/delay_exchange.ssc");
    let (code, once, err) = ssc(&[
        "build",
        &exchange.display().to_string(),
        "-t",
        "interpreter",
    ]);
    assert_eq!(code, 0, "{err}");
    // One of the two connections keeps its previous value in a copy.
    let copies = [
        ("x_out_state.out -> y.q delay 0;", "x.out -> y.q delay 0;"),
        ("y_out_state.out -> x.q delay 0;", "y.out -> x.q delay 0;"),
    ];
    let copied: Vec<_> = copies.iter().filter(|(c, _)| once.contains(c)).collect();
    assert_eq!(copied.len(), 1, "{once}");
    let (copy, plain) = copied[0];
    let dir = scratch("delays-exchange");
    let again = write_input(&dir, "again.ssc", &once);
    let (code, twice, err) = ssc(&["build", &again.display().to_string(), "-t", "interpreter"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(once, twice, "-t interpreter's output lowers to itself");
    let cases: Vec<Case> = schedulers()
        .iter()
        .map(|ts| Case::new(&exchange, &format!("-ts {ts}")))
        .collect();
    same_checksums(gcc(), "delay exchange", &cases, 3);

    // The declaration without the copy.
    let decl = sections_before(&once, "instantiation");
    let decl = decl[decl.find("\ndeclaration").expect("a declaration") + 1..].replace(copy, plain);
    let decl = write_input(&dir, "declared.ssc", &decl);
    let (code, _, err) = ssc(&["check", &decl.display().to_string()]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("error[E135]"), "{err}");
    assert!(err.contains("other delayed reads"), "{err}");
}
