//! Per-instance timing (docs/language.md, "runtime"): `FUNC T`,
//! `FUNC [w, h] T` and `INSTANCE FUNC T` entries round-trip through `ssc
//! fmt` and the normal form, the most specific entry gives each instance its
//! time, and `-gw` writes per-instance entries that a following build uses.

use ssc::back::description::{print, print_with_comments};
use ssc::front::syntax::parse;
use ssc::ir::hsdfg::Hsdfg;
use ssc::ir::{Pair, TimingScope};
use ssc::lower::timing::{Source, Timing};
use ssc::lower::{lower_to_hsdfg, LowerOptions};
use std::collections::BTreeMap;
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

/// A convolution at two scales (the example of docs/language.md), its
/// table in no particular order, with comments.
const TWO_SCALES: &str = "declaration {
  function_declaration func_source NONE { out OUT float mul [1, 1]; };
  function_declaration func_conv FULL { in IN float mul [1, 1] [3, 3]; out OUT float mul [1, 1]; };
  function_declaration func_down FULL { in IN float mul [2, 2]; out OUT float mul [1, 1]; };
  function_declaration func_sink NONE { in IN float mul [1, 1]; };
  function src func_source [256, 256], big func_conv [256, 256], down func_down [128, 128],
    small func_conv [128, 128], sink func_sink [128, 128];
  src.out -> big.in;
  big.out -> down.in;
  down.out -> small.in;
  small.out -> sink.in;
}

instantiation {
  function_instantiation src.0 [0, 0]:[256, 256], big.0 [0, 0]:[256, 128], big.1 [0, 128]:[256, 256],
    down.0 [0, 0]:[128, 128], small.0 [0, 0]:[128, 128], sink.0 [0, 0]:[128, 128];
  src.0 => big.0;
  src.0 => big.1;
  big.0 => down.0;
  big.1 => down.0;
  down.0 => small.0;
  small.0 => sink.0;
}

runtime {
  timing small func_conv 12, // the instance
    func_conv [128, 128] 14, /* its resolution */ func_sink 2.5;
  // the C function
  timing func_conv 160, func_down [64, 64] 3;
  timing_system wt 0.5, sg 0.25;
}
";

/// µs of one whole run of each function instance in the HSDFG (the sum of
/// its sub-boxes' shares).
fn instance_times(h: &Hsdfg) -> BTreeMap<String, f64> {
    let mut t: BTreeMap<String, f64> = BTreeMap::new();
    for a in h.actors() {
        *t.entry(h.function_of(a).name.clone()).or_default() += h.actor(a).time;
    }
    t
}

#[test]
fn per_instance_tables_round_trip_through_fmt_and_the_normal_form() {
    let desc = parse(TWO_SCALES).unwrap();
    let scopes: Vec<String> = desc
        .runtime
        .as_ref()
        .unwrap()
        .timing
        .iter()
        .map(|e| e.key_text())
        .collect();
    assert_eq!(
        scopes,
        [
            "small func_conv",
            "func_conv [128, 128]",
            "func_sink",
            "func_conv",
            "func_down [64, 64]"
        ]
    );
    let table = Timing::from_runtime(desc.runtime.as_ref());
    // fmt (comments kept), then parse: the same entries, the same table.
    let formatted = print_with_comments(&desc, TWO_SCALES);
    let again = parse(&formatted).unwrap_or_else(|e| panic!("{e:?}\n{formatted}"));
    assert_eq!(again, desc, "{formatted}");
    assert_eq!(Timing::from_runtime(again.runtime.as_ref()), table);
    for c in [
        "// the instance",
        "/* its resolution */",
        "// the C function",
    ] {
        assert!(formatted.contains(c), "{c} kept:\n{formatted}");
    }
    assert!(
        formatted.contains("    small func_conv 12, // the instance\n"),
        "{formatted}"
    );
    // The normal form is a fixed point, and `ssc fmt --check` agrees.
    assert_eq!(print_with_comments(&again, &formatted), formatted);
    let normal = print(&desc);
    assert_eq!(parse(&normal).unwrap(), desc);
    assert_eq!(print(&parse(&normal).unwrap()), normal);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("timing");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("two_scales.ssc");
    std::fs::write(&file, &formatted).unwrap();
    let check = ssc(&["fmt", "--check", file.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));
    let checked = ssc(&["check", file.to_str().unwrap()]);
    assert_eq!(checked.status.code(), Some(0), "{}", text(&checked.stderr));
}

#[test]
fn the_most_specific_entry_gives_each_instance_its_time() {
    let desc = parse(TWO_SCALES).unwrap();
    let t = Timing::from_runtime(desc.runtime.as_ref());
    let (half, full) = (Pair::new(128, 128), Pair::new(256, 256));
    assert_eq!(
        t.lookup("small", "func_conv", half),
        (12.0, Source::Instance)
    );
    assert_eq!(
        t.lookup("other", "func_conv", half),
        (14.0, Source::Resolution)
    );
    assert_eq!(
        t.lookup("big", "func_conv", full),
        (160.0, Source::Function)
    );
    assert_eq!(t.lookup("down", "func_down", half), (1.0, Source::Default));
    assert_eq!((t.system.wait, t.system.signal), (0.5, 0.25));

    // Through lowering: every sub-box gets its share of its instance's time.
    let (_, h) = lower_to_hsdfg(&desc, &LowerOptions::default()).unwrap();
    let times = instance_times(&h);
    let expect = [
        ("src", 1.0),
        ("big", 160.0),
        ("down", 1.0), // `func_down [64, 64]` is for another resolution
        ("small", 12.0),
        ("sink", 2.5),
    ];
    for (f, v) in expect {
        assert!((times[f] - v).abs() < 1e-9, "{f}: {} ≠ {v}", times[f]);
    }
    let big0 = h
        .actors()
        .find(|&a| h.actor(a).subbox.to_string() == "big.0")
        .unwrap();
    assert_eq!(h.actor(big0).time, 80.0, "half of big's rows");

    // The old form alone: one time per C function, as before.
    let mut old = desc.clone();
    old.runtime
        .as_mut()
        .unwrap()
        .timing
        .retain(|e| e.scope == TimingScope::Function);
    let (_, h) = lower_to_hsdfg(&old, &LowerOptions::default()).unwrap();
    let times = instance_times(&h);
    assert_eq!(
        (times["big"], times["small"], times["sink"]),
        (160.0, 160.0, 2.5)
    );
}

/// `-gw`: the measured table has a `FUNC T` entry per C function and an
/// `INSTANCE FUNC T` entry per instance; printed with the description
/// (`-t interpreter`), a following build of that file gives every instance
/// its own measured time.
#[test]
fn gw_writes_per_instance_entries_that_a_following_build_uses() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("timing-gw");
    let _ = std::fs::remove_dir_all(&dir);
    let out = ssc(&[
        "build",
        "tests/in/xray_levels.ssc",
        // The instances as composed (-ts auto may choose --inline, which
        // fuses some of them).
        "-ts",
        "reduced",
        "2",
        "-gw",
        // The median of 15 runs: a preemption in one run moves the 99th
        // percentile (the default) of a 10 µs instance, not its median.
        "--wcet-runs",
        "15",
        "--wcet-percentile",
        "50",
        "-t",
        "interpreter",
        "-od",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let printed = text(&out.stdout);
    let desc = parse(&printed).unwrap_or_else(|e| panic!("{e:?}"));
    let decl = desc.declaration.as_ref().unwrap();
    let rt = desc.runtime.as_ref().unwrap();
    let instances: BTreeMap<&str, f64> = rt
        .timing
        .iter()
        .filter_map(|e| match &e.scope {
            TimingScope::Instance(i) => Some((i.name.as_str(), e.time.value)),
            _ => None,
        })
        .collect();
    assert_eq!(instances.len(), decl.functions.len(), "{printed}");
    for f in &decl.functions {
        let e = rt
            .timing
            .iter()
            .find(|e| e.scope == TimingScope::Instance(f.name.clone()))
            .unwrap_or_else(|| panic!("no entry for {}", f.name));
        assert_eq!(
            e.name, f.function,
            "the entry names the instance's C function"
        );
    }
    // One entry per C function too, first in its group.
    let gauss = rt
        .timing
        .iter()
        .position(|e| e.name.name == "gauss3x3" && e.scope == TimingScope::Function)
        .expect("a gauss3x3 entry");
    assert!(matches!(
        &rt.timing[gauss + 1].scope,
        TimingScope::Instance(i) if i.name == "nr0"
    ));
    // The quarter-resolution Gaussian is measured on its own: well under
    // the full-resolution one the C function's entry holds.
    let gauss_t = rt.timing[gauss].time.value;
    assert!(
        instances["nr2"] < gauss_t / 2.0,
        "nr2 {} vs gauss3x3 {gauss_t}",
        instances["nr2"]
    );

    // A following build reads the file back and checks it clean…
    let file = dir.join("measured.ssc");
    std::fs::write(&file, &printed).unwrap();
    let check = ssc(&["check", file.to_str().unwrap()]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    // …and gives every instance its own entry.
    let (_, h) = lower_to_hsdfg(&desc, &LowerOptions::default()).unwrap();
    for (f, t) in instance_times(&h) {
        let want = instances[f.as_str()];
        assert!(
            (t - want).abs() <= 1e-6 * want.max(1.0),
            "{f}: {t} vs {want}"
        );
    }
    let info = ssc(&["build", file.to_str().unwrap(), "-t", "info", "--json"]);
    assert_eq!(info.status.code(), Some(0), "{}", text(&info.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
