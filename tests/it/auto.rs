//! `-ts auto`, the default without `-ts` (docs/fused.md, "What -ts auto
//! chooses"): every candidate priced by `-pr`'s latency, strips where the
//! frames exceed the cache, box-at-a-time where they fit, never more
//! threads than asked or usable, the choice and the next candidates on the
//! build's last line and every candidate under `-v`, the same bits as any
//! other schedule, the same choice every time; an explicit `-ts` is kept.

use crate::support::*;
use std::process::Command;

fn ssc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(SSC)
        .args(args)
        .args(["--color", "never"])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `-v`'s candidate lines: `(latency µs, flags)`, best first.
fn candidates(err: &str) -> Vec<(f64, String)> {
    err.lines()
        .skip_while(|l| !l.starts_with("-ts auto: predicted latency"))
        .skip(1)
        .map_while(|l| {
            let (us, flags) = l.trim().split_once(" µs  ")?;
            Some((us.trim().parse().ok()?, flags.to_string()))
        })
        .collect()
}

#[test]
fn auto_streams_large_frames_and_says_why() {
    let f = root("examples/fluoro.ssc");
    let f = f.to_str().unwrap();
    let dir = scratch("auto-large");
    let exe = dir.join("fluoro");
    let (code, _, err) = {
        let _s = slot();
        ssc(&[
            "build",
            f,
            "-D",
            "W=1024",
            "-D",
            "H=1024",
            "-v",
            "-o",
            exe.to_str().unwrap(),
        ])
    };
    assert_eq!(code, 0, "{err}");
    let all = candidates(&err);
    // Every scheduler and both --inline values were priced, best first.
    for kind in ["-ts reduced", "-ts predictable", "-ts fused"] {
        assert!(all.iter().any(|(_, c)| c.starts_with(kind)), "{err}");
    }
    assert!(all.iter().any(|(_, c)| c.contains("--inline")), "{err}");
    assert!(all.iter().any(|(_, c)| !c.contains("--inline")), "{err}");
    assert!(all.windows(2).all(|w| w[0].0 <= w[1].0), "{all:?}");
    // 4 MiB frames: strips are predicted faster than whole frames.
    let (best, chosen) = &all[0];
    assert!(chosen.starts_with("-ts fused"), "{all:?}");
    let whole = all
        .iter()
        .find(|(_, c)| c.starts_with("-ts reduced"))
        .unwrap();
    assert!(*best < whole.0, "{all:?}");
    // The last line names the choice, its prediction and the next two.
    let last = err.lines().last().unwrap();
    assert!(
        last.contains(&format!(
            "({chosen}, chosen by -ts auto: predicted {best:.0} µs; next "
        )),
        "{last}"
    );
    // No more threads than this process may use.
    let cores = std::thread::available_parallelism().unwrap().get();
    for (_, c) in &all {
        let n: usize = c.split_whitespace().nth(2).unwrap().parse().unwrap();
        assert!(n >= 1 && n <= cores, "{c}");
    }
    // The same choice every time.
    let (_, _, again) = ssc(&[
        "build", f, "-D", "W=1024", "-D", "H=1024", "-v", "-t", "info",
    ]);
    assert_eq!(candidates(&again), all);
}

#[test]
fn auto_runs_small_frames_box_at_a_time_with_the_same_checksum() {
    let dir = scratch("auto-small");
    let file = write_input(&dir, "small.ssc", &generate(13, 3, "64,64"));
    let f = file.to_str().unwrap();
    let auto = dir.join("auto");
    let (code, _, err) = {
        let _s = slot();
        ssc(&["build", f, "-v", "-o", auto.to_str().unwrap()])
    };
    assert_eq!(code, 0, "{err}");
    // Frames of 16 KiB fit the cache: no fused candidate streams, so none
    // is priced, and nothing warns that fused ran box-at-a-time.
    let all = candidates(&err);
    assert!(!all.is_empty(), "{err}");
    assert!(
        all.iter().all(|(_, c)| !c.starts_with("-ts fused")),
        "{all:?}"
    );
    assert!(!err.contains("E140"), "{err}");
    let reduced = dir.join("reduced");
    let (code, _, err) = {
        let _s = slot();
        ssc(&[
            "build",
            f,
            "-ts",
            "reduced",
            "2",
            "-o",
            reduced.to_str().unwrap(),
        ])
    };
    assert_eq!(code, 0, "{err}");
    assert!(
        !err.contains("chosen by -ts auto"),
        "an explicit -ts is kept: {err}"
    );
    let sum = |exe: &std::path::Path| {
        let out = run_ok(Command::new(exe).args(["--iterations", "20", "--json"]));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["checksum"].as_str().unwrap().to_string()
    };
    assert_eq!(sum(&auto), sum(&reduced));
}

#[test]
fn auto_n_bounds_the_threads_and_a_bad_count_is_a_usage_error() {
    let f = root("examples/xray.ssc");
    let f = f.to_str().unwrap();
    let (code, _, err) = ssc(&["build", f, "-ts", "auto", "1", "-v", "-t", "info"]);
    assert_eq!(code, 0, "{err}");
    let all = candidates(&err);
    assert!(!all.is_empty(), "{err}");
    assert!(
        all.iter()
            .all(|(_, c)| c.split_whitespace().nth(2) == Some("1")),
        "{all:?}"
    );
    // --inline given: every candidate keeps it.
    let (code, _, err) = ssc(&["build", f, "--inline", "-v", "-t", "info"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        candidates(&err).iter().all(|(_, c)| c.contains("--inline")),
        "{err}"
    );
    for bad in ["0", "x"] {
        let (code, _, err) = ssc(&["build", f, "-ts", "auto", bad, "-t", "info"]);
        assert_eq!(code, 2, "-ts auto {bad}: {err}");
    }
}

#[test]
fn on_whole_frames_inlining_is_tried_except_where_it_fuses_int_or_uint() {
    // Whole-frame candidates (predictable, reduced) with --inline, as -v
    // lists them.
    let whole_inlined = |seed: u64, ty: &str| {
        let dir = scratch(&format!("auto-integer-{seed}"));
        let text = generate(20, seed, "256,256");
        assert!(text.contains(&format!("out OUT {ty} ")), "{text}");
        let file = write_input(&dir, "g.ssc", &text);
        let f = file.to_str().unwrap();
        // Both chains fuse something under --inline.
        let (code, gd, err) = ssc(&["build", f, "-ts", "reduced", "2", "--inline", "-gd"]);
        assert_eq!(code, 0, "{err}");
        assert!(gd.contains("function_definition fused_"), "{gd}");
        let (code, _, err) = ssc(&["build", f, "-v", "-t", "info"]);
        assert_eq!(code, 0, "{err}");
        let all = candidates(&err);
        assert!(!all.is_empty(), "{err}");
        all.into_iter()
            .filter(|(_, c)| !c.starts_with("-ts fused") && c.contains("--inline"))
            .count()
    };
    // Seed 1 is a ushort chain (its fused functions compute in int): its
    // inlined whole-frame candidates are priced. Seed 3 is an int chain
    // (they compute in double): none is.
    assert!(whole_inlined(1, "ushort") > 0);
    assert_eq!(whole_inlined(3, "int"), 0);
}

#[test]
fn a_strip_height_whose_strip_outgrows_a_quarter_of_the_cache_is_not_tried() {
    use crate::support::cache::calibration_file;
    use ssc::lower::cost::Coefficients;
    use ssc_cli::calibrate::{cache_file_under, cpu_model};
    // fluoro at 1024²: its widest buffers hold 4 KiB rows, so 64 rows are
    // 256 KiB, a quarter of 1 MiB and half of 512 KiB.
    let heights = |cache_bytes: f64| {
        let dir = scratch(&format!("auto-cache-{cache_bytes}"));
        let mut c = Coefficients::shipped();
        c.cache = cache_bytes;
        let file = cache_file_under(&dir, &cpu_model());
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, calibration_file(&cpu_model(), &c)).unwrap();
        let out = Command::new(SSC)
            .args(["build", "examples/fluoro.ssc", "-v", "-t", "info"])
            .env("XDG_CACHE_HOME", &dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{err}");
        assert!(err.contains("calibrated coefficients"), "{err}");
        let mut rows: Vec<String> = candidates(&err)
            .into_iter()
            .filter_map(|(_, c)| {
                Some(
                    c.split("--strip-rows ")
                        .nth(1)?
                        .split(' ')
                        .next()?
                        .to_string(),
                )
            })
            .collect();
        rows.sort();
        rows.dedup();
        rows
    };
    assert_eq!(heights(1024.0 * 1024.0), ["16", "32", "64"]);
    assert_eq!(heights(512.0 * 1024.0), ["16", "32"]);
    // The first height is tried whatever the cache.
    assert_eq!(heights(64.0 * 1024.0), ["16"]);
}
