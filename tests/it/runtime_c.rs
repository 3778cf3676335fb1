//! `runtime-c/test.sh --quick` from cargo test: the runtime, the built-in
//! kernels, Appendix A by hand against its one-thread reference, TSan of
//! the hand-written program, SIGINT, dumps, with gcc. `--quick` leaves out
//! the unit tests under TSan and the clang pass (~40 s together; clang is
//! `e2e::clang_builds_warning_free_and_agrees`); run `runtime-c/test.sh`
//! for everything.

use std::process::Command;

#[test]
fn runtime_c_test_sh_passes() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/runtime-c/test.sh");
    let t0 = std::time::Instant::now();
    let out = Command::new("sh")
        .args([script, "--quick"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!(
        "runtime-c/test.sh: {:?} in {:.1?}",
        out.status,
        t0.elapsed()
    );
    assert!(
        out.status.success(),
        "runtime-c/test.sh failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(stdout.contains("runtime-c: all tests passed"), "{stdout}");
}
