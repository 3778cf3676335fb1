//! `ssc tune` (docs/commands.md, "ssc tune"): every candidate built and
//! measured in turns within its budget, the fastest first in `FILE.tune`
//! (the source's hash, the base flags, the machine), which `ssc build FILE`
//! without `-ts` then uses and says so; an edited source or other `-D`
//! values are said and the file left alone; tune's own choices among the
//! build flags are a bad command line.

use crate::support::*;
use std::process::Command;

fn ssc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(SSC).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn tune_measures_every_candidate_and_build_uses_the_fastest() {
    let dir = scratch("tune");
    let text = std::fs::read_to_string(root("examples/fluoro.ssc")).unwrap();
    let file = write_input(&dir, "fluoro.ssc", &text);
    let f = file.to_str().unwrap();
    let t0 = std::time::Instant::now();
    let (code, out, err) = {
        let _s = slot();
        ssc(&[
            "tune",
            f,
            "--budget",
            "2s",
            "--iterations",
            "20",
            "--",
            "-D",
            "W=64",
            "-D",
            "H=64",
        ])
    };
    assert_eq!(code, 0, "{out}{err}");
    // Twelve builds (a few seconds each at most) and the rounds' budget.
    assert!(t0.elapsed().as_secs() < 120, "{:?}", t0.elapsed());
    let tune = std::fs::read_to_string(dir.join("fluoro.ssc.tune")).unwrap();
    let candidates: Vec<&str> = tune
        .lines()
        .filter(|l| l.starts_with("candidate "))
        .collect();
    assert_eq!(candidates.len(), 12, "{tune}");
    let means: Vec<f64> = candidates
        .iter()
        .map(|l| l.split(' ').nth(1).unwrap().parse().unwrap())
        .collect();
    assert!(
        means.windows(2).all(|w| w[0] <= w[1]),
        "fastest first: {tune}"
    );
    let best = tune.lines().find_map(|l| l.strip_prefix("best ")).unwrap();
    assert!(candidates[0].ends_with(best), "{tune}");
    assert!(
        tune.contains("\nbase -D W=64 -D H=64\ndefines H=64 W=64\n"),
        "{tune}"
    );
    assert!(
        tune.contains("\nmachine ") && tune.contains(" cores\n"),
        "{tune}"
    );
    let rounds: usize = tune
        .lines()
        .find_map(|l| l.strip_prefix("measured "))
        .and_then(|l| l.split(' ').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=5).contains(&rounds), "{tune}");
    assert!(
        out.contains(&format!("wrote {}", dir.join("fluoro.ssc.tune").display())),
        "{out}"
    );

    // The build with the same -D uses it; with others it says why not.
    let exe = dir.join("tuned");
    let (code, out, err) = ssc(&[
        "build",
        f,
        "-D",
        "W=64",
        "-D",
        "H=64",
        "-o",
        exe.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!("ssc build: using {f}.tune ({best}:")),
        "{err}"
    );
    // The summary line names the scheduler it was built with: the best's.
    let ts = best.split(" --").next().unwrap().trim_start_matches("-ts ");
    let said = format!("{out}{err}");
    // (`… on 2 threads (-ts reduced 2)`, or `(…, box-at-a-time for -ts
    // fused 2)` where fused does not stream frames this small.)
    assert!(said.contains(&format!("-ts {ts})")), "{said}");
    let (code, _, err) = ssc(&["build", f, "-D", "W=128", "-D", "H=64", "-t", "info"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("is not used: it was measured with other -D values"),
        "{err}"
    );
    // An explicit -ts wins, and nothing is said.
    let (code, _, err) = ssc(&[
        "build", f, "-D", "W=64", "-D", "H=64", "-ts", "simple", "-t", "info",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains(".tune"), "{err}");
    std::fs::write(&file, format!("{text}// edited\n")).unwrap();
    let (code, _, err) = ssc(&["build", f, "-D", "W=64", "-D", "H=64", "-t", "info"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("is not used: the source changed since it was measured"),
        "{err}"
    );

    // tune's choices are not build flags.
    let (code, _, err) = ssc(&["tune", f, "--", "-ts", "reduced", "2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("`-ts` is what ssc tune chooses"), "{err}");
}
