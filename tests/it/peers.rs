//! The OpenMP peer of the X-ray chain (`benches/peers/xray_omp.c`) computes
//! exactly what ssc generates from the chain's definitions, and ssc's
//! checksum: it must print the checksum of ssc's own xray program for the
//! same frames (3 at 512×512). Both are compiled with `-std=c11` (ISO C: gcc
//! contracts no `a * b + c` into a fused multiply-add, which would round
//! differently). Skipped, with the reason, where gcc has no OpenMP. Halide
//! is benchmarks only.

use crate::support;

use std::process::Command;
use support::*;

/// Why `gcc -fopenmp` cannot build and run an OpenMP program here, if so.
fn openmp_missing(dir: &std::path::Path) -> Option<String> {
    let src = write_input(
        dir,
        "probe.c",
        "#include <omp.h>\nint main(void) { return omp_get_max_threads() > 0 ? 0 : 1; }\n",
    );
    let exe = dir.join("probe");
    match Command::new("gcc")
        .args(["-fopenmp", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
    {
        Err(e) => return Some(format!("cannot run gcc: {e}")),
        Ok(o) if !o.status.success() => {
            return Some(format!(
                "gcc -fopenmp fails: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            ))
        }
        Ok(_) => {}
    }
    match Command::new(&exe).status() {
        Ok(s) if s.success() => None,
        other => Some(format!("an OpenMP program does not run: {other:?}")),
    }
}

#[test]
fn openmp_peer_prints_the_checksum_of_ssc_xray() {
    let dir = scratch("peers-omp");
    if let Some(why) = openmp_missing(&dir) {
        support::skip("openmp_peer_prints_the_checksum_of_ssc_xray", &why);
        return;
    }
    let exe = dir.join("xray_omp");
    let out = {
        let _s = slot();
        Command::new("gcc")
            .args([
                "-std=c11",
                "-O2",
                "-march=native",
                "-fopenmp",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-o",
            ])
            .arg(&exe)
            .arg(root("benches/peers/xray_omp.c"))
            .arg("-lm")
            .output()
            .unwrap()
    };
    assert!(
        out.status.success(),
        "gcc -std=c11 -fopenmp xray_omp.c:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let case = Case::new(root("examples/xray.ssc"), "-ts reduced 2 -ms interference");
    let (ssc_sum, _) = build_and_run(gcc(), &case, 3, &dir).unwrap_or_else(|e| panic!("{e}"));

    let ran = run_in(
        &[],
        &exe,
        &["--iterations", "3", "--resolution", "512"],
        &[("OMP_NUM_THREADS", "2")],
        &dir,
        RUN_DEADLINE,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        ran.status.success(),
        "xray_omp: {}\n{}",
        ran.status,
        ran.stderr
    );
    assert!(
        ran.stdout.lines().any(|l| l == "iterations: 3 of 3")
            && ran
                .stdout
                .lines()
                .any(|l| l.starts_with("latency (us): count 3  mean ")),
        "xray_omp's report:\n{}",
        ran.stdout
    );
    let omp_sum = ran.checksum().expect("xray_omp prints a checksum");
    eprintln!("ssc {}: {ssc_sum}, xray_omp: {omp_sum}", case.label);
    assert_eq!(omp_sum, ssc_sum, "xray_omp and ssc's xray disagree");
    let _ = std::fs::remove_dir_all(&dir);
}
