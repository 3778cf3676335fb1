//! The cost model of the built-ins (`lower::cost`) and its calibration
//! (`ssc calibrate`): a bigger instance costs more, whatever valid
//! coefficients; the model gives functions without a timing entry their
//! time; the cache is used when it can be trusted and ignored with a
//! warning (E504) when it is corrupt or foreign; kernels of one's own
//! without a timing entry are a warning (E503).

use crate::support::cache::calibration_file;
use proptest::prelude::*;
use ssc::ir::builtins::BUILTINS;
use ssc::ir::{ElemType, Operations, Pair};
use ssc::lower::cost::{Coefficients, Traffic, Work, SOURCE_PERIOD, TYPES};
use ssc::lower::{lower_to_hsdfg, LowerOptions};
use ssc_cli::calibrate::{cache_file_under, cpu_model};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn coefficients() -> impl Strategy<Value = Coefficients> {
    (
        0.01f64..1e4,
        proptest::array::uniform11(1e-3f64..10.0),
        1e-3f64..10.0,
        proptest::array::uniform8(0.05f64..10.0),
        (1u32..10_000, 1u32..10_000, 0u32..1000),
        proptest::array::uniform7(1e-4f64..10.0),
        (
            1e-4f64..10.0,
            proptest::array::uniform8(0.05f64..10.0),
            proptest::array::uniform8(0.05f64..10.0),
            (1e-4f64..1.0, 1024.0f64..1e9, 1.0f64..4.0, 1.0f64..4.0),
        ),
    )
        .prop_map(
            |(
                call,
                point,
                tap,
                types,
                (wait, signal, transfer),
                defined,
                (source_copy, source_types, sink_types, (stream, cache, program, strip_program)),
            )| Coefficients {
                call,
                point,
                tap,
                types,
                source_copy,
                source_types,
                sink_types,
                stream,
                cache,
                program,
                strip_program,
                write: defined[0],
                arith: defined[1],
                convert: defined[2],
                stencil_tap: defined[3],
                exchange: defined[4],
                block: defined[5],
                linear: defined[6],
                wait: wait as f64,
                signal: signal as f64,
                transfer: transfer as f64 / 10.0,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// More points, or (for a convolution) a wider window: more µs, for
    /// every built-in and element type.
    #[test]
    fn a_bigger_instance_costs_more(
        c in coefficients(),
        k in 0usize..11,
        t in 0usize..8,
        (w, h) in (1u64..4096, 1u64..4096),
        (dw, dh) in (0u64..4096, 0u64..4096),
        (wx, wy, dwin) in (1u64..9, 1u64..9, 1u64..9),
    ) {
        prop_assume!(dw + dh > 0);
        c.validate().unwrap();
        let (f, ty) = (BUILTINS[k], ElemType::ALL[t]);
        let window = Pair::new(wx, wy);
        let small = c.cost(f, ty, Pair::new(w, h), window).unwrap();
        let big = c.cost(f, ty, Pair::new(w + dw, h + dh), window).unwrap();
        prop_assert!(big > small, "{f} {ty:?}: {big} ≤ {small}");
        prop_assert!(small > 0.0);
        let wider = c.cost(f, ty, Pair::new(w, h), Pair::new(wx + dwin, wy)).unwrap();
        if f == "func_conv" {
            prop_assert!(wider > small, "a wider window: {wider} ≤ {small}");
        } else {
            prop_assert_eq!(wider, small);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// A defined function that writes or computes more per point, or runs
    /// at more points, costs more.
    #[test]
    fn a_defined_function_doing_more_costs_more(
        c in coefficients(),
        (writes, elements) in (0.25f64..16.0, 1u64..16),
        counts in proptest::array::uniform6(0u64..100),
        more in 0usize..8,
        (w, h) in (1u64..4096, 1u64..4096),
    ) {
        let ops = Operations {
            arith: counts[0],
            convert: counts[1],
            taps: counts[2],
            exchanges: counts[3],
            block: counts[4],
            linear: counts[5],
        };
        let work = Work { writes, elements: elements as f64, ops };
        let mut bigger = work;
        match more {
            0 => bigger.writes += 1.0,
            1 => bigger.ops.arith += 1,
            2 => bigger.ops.convert += 1,
            3 => bigger.ops.taps += 1,
            4 => bigger.ops.exchanges += 1,
            5 => bigger.ops.block += 1,
            6 => bigger.ops.linear += 1,
            _ => {}
        }
        let res = Pair::new(w, h);
        let (small, big) = if more == 7 {
            (c.defined_cost(work, res), c.defined_cost(work, Pair::new(w + 1, h)))
        } else {
            (c.defined_cost(work, res), c.defined_cost(bigger, res))
        };
        prop_assert!(small > 0.0);
        prop_assert!(big > small, "{bigger:?}: {big} ≤ {small}");
    }
}

/// µs of one whole run of each function instance in the HSDFG.
fn instance_times(desc: &ssc::ir::Description, opts: &LowerOptions) -> BTreeMap<String, f64> {
    let (_, h) = lower_to_hsdfg(desc, opts).unwrap();
    let mut t: BTreeMap<String, f64> = BTreeMap::new();
    for a in h.actors() {
        *t.entry(h.function_of(a).name.clone()).or_default() += h.actor(a).time;
    }
    t
}

#[test]
fn the_model_times_the_functions_without_an_entry_by_their_size() {
    let desc = ssc::front::read(include_str!("../in/xray_levels.ssc"), &[])
        .map(|x| x.description)
        .unwrap();
    let opts = LowerOptions {
        cost: Some(Coefficients::shipped()),
        ..LowerOptions::default()
    };
    let t = instance_times(&desc, &opts);
    // The noise reduction at 512², 256², 128²; the down-scalers at 256², 128².
    assert!(t["nr0"] > t["nr1"] && t["nr1"] > t["nr2"], "{t:?}");
    assert!(t["down1"] > t["down2"], "{t:?}");
    // A 3×3 Gaussian costs more than a window/level of the same size.
    assert!(t["nr0"] > t["contrast"], "{t:?}");
    // Without the model (the library's default) every function costs 1 µs.
    let unit = instance_times(&desc, &LowerOptions::default());
    assert!(unit.values().all(|&v| (v - 1.0).abs() < 1e-9), "{unit:?}");
    // An entry still wins over the model.
    let mut timed = desc.clone();
    timed.runtime = Some(ssc::ir::Runtime {
        timing: vec![ssc::ir::TimingEntry::function("gauss3x3", 7.0)],
        ..Default::default()
    });
    let t = instance_times(&timed, &opts);
    assert_eq!((t["nr0"], t["nr2"]), (7.0, 7.0));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Beyond the cache an instance costs at least its bytes at the
    /// streaming cost and never less than in the cache; within it, what
    /// it computes.
    #[test]
    fn beyond_the_cache_an_instance_costs_at_least_its_bytes(
        c in coefficients(),
        compute in 0.0f64..1e5,
        (bytes, side) in (1.0f64..64.0, 1u64..8192),
        more in 0.0f64..16.0,
    ) {
        let res = Pair::new(side, side);
        let frame = (side * side) as f64 * bytes;
        let traffic = Traffic { bytes, frame };
        let t = c.streamed(compute, traffic, res);
        prop_assert!(t >= compute);
        let floor = (c.call + frame * c.stream) / 1000.0;
        if frame > c.cache / 2.0 {
            prop_assert!(t >= floor, "{t} < {floor}");
            let heavier = Traffic { bytes: bytes + more, frame: frame * (bytes + more) / bytes };
            prop_assert!(c.streamed(compute, heavier, res) >= t);
        } else {
            prop_assert_eq!(t, compute);
        }
    }
}

#[test]
fn a_cheap_stage_beyond_the_cache_costs_its_bytes_a_filter_its_arithmetic() {
    // fluoro: `detail` (a subtraction) and `gauss5` (a separable 5×5) at
    // 1024² (`e0`, `g0`: 4 MiB frames, beyond the shipped 2 MiB cache's
    // half) and at 512² (`e1`, `g1`: 1 MiB, within it).
    let desc = ssc::front::read(include_str!("../../examples/fluoro.ssc"), &[])
        .map(|x| x.description)
        .unwrap();
    let times = |c: Coefficients| {
        instance_times(
            &desc,
            &LowerOptions {
                cost: Some(c),
                ..LowerOptions::default()
            },
        )
    };
    let shipped = Coefficients::shipped();
    let t = times(shipped);
    // Four times the points; the subtraction waits for its 12 bytes a
    // point, the filter's arithmetic hides them.
    let (e, g) = (t["e0"] / t["e1"], t["g0"] / t["g1"]);
    assert!(
        e > 6.0,
        "the subtraction at 1024² is {e}× the one at 512²: {t:?}"
    );
    assert!(
        (3.9..4.1).contains(&g),
        "the 5×5 at 1024² is {g}× the one at 512²: {t:?}"
    );
    let bytes = 1024.0 * 1024.0 * 12.0 * shipped.stream / 1000.0 * shipped.program;
    assert!(t["e0"] >= bytes, "{} < {bytes}", t["e0"]);
    // With a cache that holds every frame, both are four times as dear.
    let mut big_cache = shipped;
    big_cache.cache = 64.0 * 1024.0 * 1024.0;
    let t = times(big_cache);
    let e = t["e0"] / t["e1"];
    assert!((3.9..4.1).contains(&e), "{e}: {t:?}");
    // The program factor multiplies every modelled time.
    let mut slower = shipped;
    slower.program *= 2.0;
    let (t1, t2) = (times(shipped), times(slower));
    for (name, v) in &t1 {
        assert!(
            (t2[name] / v - 2.0).abs() < 1e-9,
            "{name}: {} against {v}",
            t2[name]
        );
    }
}

#[test]
fn strips_are_priced_by_the_strip_factor_and_whole_frames_by_the_other() {
    let desc = ssc::front::read(include_str!("../../examples/fluoro.ssc"), &[])
        .map(|x| x.description)
        .unwrap();
    let times = |c: Coefficients, strips: bool| {
        let mut opts = LowerOptions {
            cost: Some(c),
            ..LowerOptions::default()
        };
        if strips {
            let mut s = ssc::lower::split::Strips::new(1 << 20);
            s.rows = Some(32);
            s.forced = true;
            opts.split.strips = Some(s);
        }
        instance_times(&desc, &opts)
    };
    let with = |program: f64, strip_program: f64| {
        let mut c = Coefficients::shipped();
        (c.program, c.strip_program) = (program, strip_program);
        c
    };
    for strips in [true, false] {
        let base = times(with(1.5, 1.5), strips);
        // The other regime's factor moves nothing.
        let other = times(
            if strips {
                with(3.0, 1.5)
            } else {
                with(1.5, 3.0)
            },
            strips,
        );
        assert_eq!(base, other, "strips: {strips}");
        // Its own factor makes every instance dearer, in proportion (in
        // strips a sub-box's fixed cost comes on top).
        let (f2, f3) = if strips {
            (times(with(1.5, 2.0), true), times(with(1.5, 2.5), true))
        } else {
            (times(with(2.0, 1.5), false), times(with(2.5, 1.5), false))
        };
        for (name, b) in &base {
            let (d1, d2) = (f2[name] - b, f3[name] - f2[name]);
            assert!(d1 > 0.0, "{name} (strips: {strips}): {b} -> {}", f2[name]);
            assert!(
                (d2 / d1 - 1.0).abs() < 1e-9,
                "{name} (strips: {strips}): {d1} then {d2}"
            );
        }
    }
}

#[test]
fn the_source_and_the_sink_are_priced_by_their_own_type_factors() {
    let c = Coefficients::shipped();
    let cost =
        |f: &str, ty: ElemType, w: u64, h: u64| c.cost(f, ty, Pair::new(w, h), Pair::ONE).unwrap();
    let points = |w: u64, h: u64| (w * h) as f64;
    for ty in ElemType::ALL {
        let t = TYPES.iter().position(|x| *x == ty).unwrap();
        let sink = (cost("func_sink", ty, 512, 512) * 1000.0 - c.call) / points(512, 512);
        assert!((sink - c.point[1] * c.sink_types[t]).abs() < 1e-9, "{ty:?}");
        let gain = (cost("func_gain", ty, 512, 512) * 1000.0 - c.call) / points(512, 512);
        assert!((gain - c.point[2] * c.types[t]).abs() < 1e-9, "{ty:?}");
    }
    // The source computes 251 elements a row and copies the rest: a row
    // of 251 costs what its points compute; a wider one adds its copies.
    let f = ElemType::Float;
    let narrow = cost("func_source", f, SOURCE_PERIOD, 100) * 1000.0 - c.call;
    assert!(
        (narrow - points(251, 100) * c.point[0]).abs() < 1e-6,
        "{narrow}"
    );
    let wide = cost("func_source", f, 1024, 100) * 1000.0 - c.call;
    let expected = points(251, 100) * c.point[0] + points(1024 - 251, 100) * c.source_copy;
    assert!((wide - expected).abs() < 1e-6, "{wide} against {expected}");
}

#[test]
fn a_buffer_beyond_the_cache_pays_no_transfer() {
    // A source in one sub-box feeding a gain split in two: the gain's
    // half on the other thread reads rows the source wrote. At 512² the
    // frame (1 MiB) fits half the shipped 2 MiB cache and that costs a
    // transfer; at 1024² it streams from the shared cache whoever wrote
    // it, which the streaming term prices, so no transfer.
    let shipped = Coefficients::shipped();
    let transfer = |side: u64| {
        let text = format!(
            "declaration {{
              function_declaration func_source NONE {{ out OUT float mul [1, 1]; }};
              function_declaration func_gain FULL {{ in IN float mul [1, 1]; out OUT float mul [1, 1]; }};
              function_declaration func_sink NONE {{ in IN float mul [1, 1]; }};
              function src func_source [{side}, {side}], g func_gain [{side}, {side}], snk func_sink [{side}, {side}];
              src.out -> g.in;
              g.out -> snk.in;
            }}"
        );
        let desc = ssc::front::read(&text, &[]).map(|x| x.description).unwrap();
        let opts = LowerOptions {
            cost: Some(shipped),
            ..LowerOptions::default()
        };
        let (_, h) = lower_to_hsdfg(&desc, &opts).unwrap();
        let gain: Vec<_> = h
            .actors()
            .filter(|a| h.function_of(*a).name == "g")
            .collect();
        assert_eq!(gain.len(), 2);
        gain.iter()
            .flat_map(|a| h.predecessors(*a).into_iter().map(move |p| (p, *a)))
            .map(|(p, a)| h.transfer_cost(p, a))
            .fold(0.0, f64::max)
    };
    let small = transfer(512);
    assert!(small > 0.0, "{small}");
    // Half the frame, 512 KiB, at the transfer cost.
    assert!(
        (small - 512.0 * shipped.system().transfer).abs() < 1e-9,
        "{small}"
    );
    assert_eq!(transfer(1024), 0.0);
}

fn ssc_in(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssc"))
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cost")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The predicted makespan of `-t info`, and standard error.
fn build_info(cache: &Path) -> (String, String) {
    let out = ssc_in(
        cache,
        &[
            "build",
            "examples/xray.ssc",
            "-ts",
            "reduced",
            "2",
            "-t",
            "info",
            "-v",
        ],
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let makespan = text(&out.stdout)
        .lines()
        .find(|l| l.starts_with("makespan"))
        .unwrap()
        .to_string();
    (makespan, err)
}

/// Cache files of `doubled` for this CPU in the formats before this
/// one (versions 1 to 5), each without the costs its version lacked.
fn old_versions(doubled: &Coefficients) -> [String; 5] {
    // The format before the synchronisation costs were measured, and the
    // one before the transfer was.
    let version_1 = calibration_file(&cpu_model(), doubled)
        .replace(
            &format!("\"version\":{}", ssc_cli::calibrate::VERSION),
            "\"version\":1",
        )
        .replace(
            &format!(
                ",\"wait_ns\":{:?},\"signal_ns\":{:?},\"transfer_ns_per_kib\":{:?}",
                doubled.wait, doubled.signal, doubled.transfer
            ),
            "",
        );
    assert!(!version_1.contains("wait_ns"), "{version_1}");
    let version_2 = calibration_file(&cpu_model(), doubled)
        .replace(
            &format!("\"version\":{}", ssc_cli::calibrate::VERSION),
            "\"version\":2",
        )
        .replace(
            &format!(",\"transfer_ns_per_kib\":{:?}", doubled.transfer),
            "",
        );
    assert!(!version_2.contains("transfer"), "{version_2}");
    let mut version_3: serde_json::Value =
        serde_json::from_str(&calibration_file(&cpu_model(), doubled)).unwrap();
    version_3["version"] = 3.into();
    for k in [
        "write_ns",
        "arith_ns",
        "convert_ns",
        "stencil_tap_ns",
        "exchange_ns",
        "block_ns",
        "linear_ns",
    ] {
        version_3["coefficients"]
            .as_object_mut()
            .unwrap()
            .remove(k)
            .unwrap();
    }
    let version_3 = version_3.to_string();
    // The format before the costs beyond the cache, of the source and the
    // sink, and the program factor.
    let mut version_4: serde_json::Value =
        serde_json::from_str(&calibration_file(&cpu_model(), doubled)).unwrap();
    version_4["version"] = 4.into();
    for k in [
        "source_copy_ns",
        "source_type_factor",
        "sink_type_factor",
        "stream_ns_per_byte",
        "cache_bytes",
        "program_factor",
    ] {
        version_4["coefficients"]
            .as_object_mut()
            .unwrap()
            .remove(k)
            .unwrap();
    }
    let version_4 = version_4.to_string();
    // The format before the factor in strips and the spread.
    let mut version_5: serde_json::Value =
        serde_json::from_str(&calibration_file(&cpu_model(), doubled)).unwrap();
    version_5["version"] = 5.into();
    version_5.as_object_mut().unwrap().remove("spread").unwrap();
    version_5["coefficients"]
        .as_object_mut()
        .unwrap()
        .remove("strip_program_factor")
        .unwrap();
    let version_5 = version_5.to_string();
    [version_1, version_2, version_3, version_4, version_5]
}

#[test]
fn a_corrupt_or_foreign_cache_is_ignored_with_a_warning() {
    let cache = scratch("cache");
    let file = cache_file_under(&cache, &cpu_model());
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    // No file: the shipped defaults, said under -v, no warning.
    let (shipped, err) = build_info(&cache);
    assert!(
        err.contains("cost model: shipped defaults (no calibration for"),
        "{err}"
    );
    assert!(!err.contains("E504"), "{err}");

    let mut doubled = Coefficients::shipped();
    doubled.point.iter_mut().for_each(|p| *p *= 2.0);
    let mut negative = Coefficients::shipped();
    negative.tap = -1.0;
    let mut below_one = Coefficients::shipped();
    below_one.strip_program = 0.8;
    let [version_1, version_2, version_3, version_4, version_5] = old_versions(&doubled);
    let bad: [(&str, String, &str); 11] = [
        (
            "version 1",
            version_1,
            "version 1, not `ssc-calibration` version 6",
        ),
        (
            "version 2",
            version_2,
            "version 2, not `ssc-calibration` version 6",
        ),
        (
            "version 3",
            version_3,
            "version 3, not `ssc-calibration` version 6",
        ),
        (
            "version 4",
            version_4,
            "version 4, not `ssc-calibration` version 6",
        ),
        (
            "version 5",
            version_5,
            "version 5, not `ssc-calibration` version 6",
        ),
        (
            "garbage",
            "{\"format\": \"ssc-calib".into(),
            "it is not a calibration file",
        ),
        (
            "binary",
            "\u{0}\u{1}".into(),
            "it is not a calibration file",
        ),
        (
            "foreign",
            calibration_file("Some Other CPU 9000", &doubled),
            "measured on another CPU (Some Other CPU 9000)",
        ),
        (
            "another version",
            calibration_file(&cpu_model(), &doubled).replace(
                &format!("\"version\":{}", ssc_cli::calibrate::VERSION),
                "\"version\":99",
            ),
            "version 99",
        ),
        (
            "a negative coefficient",
            calibration_file(&cpu_model(), &negative),
            "tap_ns -1 is not a positive time",
        ),
        (
            "a program factor below 1",
            calibration_file(&cpu_model(), &below_one),
            "strip_program_factor 0.8 is not a factor from 1 to 4",
        ),
    ];
    for (what, content, why) in bad {
        std::fs::write(&file, content).unwrap();
        let (makespan, err) = build_info(&cache);
        assert!(err.contains("warning[E504]"), "{what}: {err}");
        assert!(
            err.contains("is ignored") && err.contains(why),
            "{what}: {err}"
        );
        assert!(
            err.contains("cost model: shipped defaults (the cache file was ignored"),
            "{what}: {err}"
        );
        assert_eq!(makespan, shipped, "{what}: never trusted");
    }
    // A good file for this CPU is used.
    std::fs::write(&file, calibration_file(&cpu_model(), &doubled)).unwrap();
    let (makespan, err) = build_info(&cache);
    assert!(!err.contains("E504"), "{err}");
    assert!(
        err.contains("cost model: calibrated coefficients for"),
        "{err}"
    );
    assert_ne!(makespan, shipped, "the calibrated coefficients are used");
}

/// `-pr`'s first line, which names the wait and signal costs.
fn predicted_sync(cache: &Path, file: &str) -> String {
    let out = ssc_in(
        cache,
        &["build", file, "-ts", "reduced", "2", "-t", "info", "-pr"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    text(&out.stdout)
        .lines()
        .find(|l| l.starts_with("runtime HSDFG"))
        .unwrap()
        .to_string()
}

#[test]
fn the_calibrated_wait_and_signal_price_what_timing_system_does_not() {
    let cache = scratch("sync");
    // The shipped defaults.
    let shipped = Coefficients::shipped().system();
    let line = predicted_sync(&cache, "examples/xray.ssc");
    assert!(
        line.contains(&format!(
            "(wait {} µs, signal {} µs",
            shipped.wait, shipped.signal
        )),
        "{line}"
    );
    let mut slow = Coefficients::shipped();
    (slow.wait, slow.signal) = (700.0, 300.0);
    let file = cache_file_under(&cache, &cpu_model());
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, calibration_file(&cpu_model(), &slow)).unwrap();
    let line = predicted_sync(&cache, "examples/xray.ssc");
    assert!(line.contains("(wait 0.7 µs, signal 0.3 µs"), "{line}");
    // A description's own `timing_system wt 1, sg 1` wins.
    let line = predicted_sync(&cache, "examples/appendix.ssc");
    assert!(line.contains("(wait 1 µs, signal 1 µs"), "{line}");
}

#[test]
fn calibrate_measures_caches_and_is_used() {
    let cache = scratch("calibrate");
    let started = std::time::Instant::now();
    let out = ssc_in(&cache, &["calibrate"]);
    let seconds = started.elapsed().as_secs_f64();
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    eprintln!("ssc calibrate took {seconds:.1} s");
    let file = cache_file_under(&cache, &cpu_model());
    let c = ssc_cli::calibrate::read(&file, &cpu_model()).unwrap();
    c.validate().unwrap();
    // A wait/signal pair between two cores is measured, not assumed:
    // under a µs on any machine with shared caches.
    assert!(c.wait >= 1.0 && c.wait + c.signal < 1000.0, "{c:?}");
    assert!(
        text(&out.stdout).contains("wait (wt)"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stdout).contains("func_conv"),
        "{}",
        text(&out.stdout)
    );
    // Both program factors, within their bounds, and every coefficient's
    // spread over the passes, stored and summarised.
    assert!(
        text(&out.stdout).contains("in strips"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        text(&out.stdout).contains("spread over 5 passes"),
        "{}",
        text(&out.stdout)
    );
    let stored: ssc_cli::calibrate::CacheFile =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    // Five passes of timings never agree to the last digit on every
    // coefficient: a spread of all zeros would be one not computed.
    assert!(
        stored.spread.values().any(|v| *v > 0.0),
        "{:?}",
        stored.spread
    );
    for k in [
        "program_factor",
        "strip_program_factor",
        "point_ns.func_conv",
        "wait_ns",
    ] {
        let v = stored.spread.get(k).copied();
        assert!(
            v.is_some_and(|v| v >= 0.0 && v.is_finite()),
            "{k}: {:?}",
            stored.spread
        );
    }
    let show = ssc_in(&cache, &["calibrate", "--show"]);
    assert!(
        text(&show.stderr).contains("cost model: calibrated coefficients"),
        "{}",
        text(&show.stderr)
    );
    let (_, err) = build_info(&cache);
    assert!(err.contains("cost model: calibrated coefficients"), "{err}");
}

#[test]
fn a_kernel_of_ones_own_without_a_timing_entry_is_a_warning() {
    let cache = scratch("kernels");
    let build = |extra: &[&str]| {
        let mut args = vec![
            "build",
            "examples/user_kernel.ssc",
            "--kernels",
            "examples/kernels/invert.c",
            "-t",
            "info",
        ];
        args.extend(extra);
        let out = ssc_in(&cache, &args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stderr)
    };
    let err = build(&[]);
    // The line that binds it.
    let binding = std::fs::read_to_string("examples/user_kernel.ssc")
        .unwrap()
        .lines()
        .position(|l| l.contains("invert func_invert FULL"))
        .unwrap()
        + 1;
    assert!(
        err.contains("warning[E503]: kernel `func_invert` has no timing entry"),
        "{err}"
    );
    assert!(err.contains("-gw"), "{err}");
    assert!(
        err.contains(&format!("examples/user_kernel.ssc:{binding}:")),
        "labelled at the binding: {err}"
    );
    // Measured: no warning.
    let err = build(&[
        "-gw",
        "--wcet-runs",
        "3",
        "-od",
        cache.join("gw").to_str().unwrap(),
    ]);
    assert!(!err.contains("E503"), "{err}");
}

#[test]
fn a_build_that_predicts_without_a_calibration_says_so_and_how_long_one_takes() {
    let cache = scratch("uncalibrated");
    let build = |extra: &[&str]| {
        let mut args = vec!["build", "examples/xray.ssc", "-t", "info"];
        args.extend(extra);
        let out = ssc_in(&cache, &args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stderr)
    };
    let note = "note: cost model: shipped defaults (no calibration for";
    // -ts auto chooses by the model, -pr prints its prediction: both say it.
    for extra in [&[][..], &["-ts", "reduced", "2", "-pr"][..]] {
        let err = build(extra);
        assert!(err.contains(note), "{extra:?}: {err}");
        assert!(
            err.contains("`ssc calibrate` measures this one in 4–25 s"),
            "{err}"
        );
        assert_eq!(err.matches(note).count(), 1, "{err}");
    }
    // An exact schedule without -pr predicts nothing: no note; nor does a
    // description whose runtime section schedules it (built as written).
    let err = build(&["-ts", "reduced", "2"]);
    assert!(!err.contains(note), "{err}");
    let out = ssc_in(&cache, &["build", "examples/appendix.ssc", "-t", "info"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(!text(&out.stderr).contains(note), "{}", text(&out.stderr));
    // With a calibration of this CPU, none either.
    let file = cache_file_under(&cache, &cpu_model());
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        calibration_file(&cpu_model(), &Coefficients::shipped()),
    )
    .unwrap();
    let err = build(&[]);
    assert!(!err.contains("note: cost model"), "{err}");
}
