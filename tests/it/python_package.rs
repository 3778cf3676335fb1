//! The Python package (`pyproject.toml`, `python/ssc`, docs/python.md):
//! `pip install .` in a fresh venv gives `import ssc` and the `ssc`
//! command; `ssc.compile` of `examples/fluoro.ssc`, run on phantom frames
//! as numpy arrays, gives the program's outputs bit for bit and its
//! checksum; a second compile in a new process runs no C compiler; a
//! refused description is `ssc.CompileError` with its code and position
//! (`tests/python/package.py` checks all of it inside the venv); and
//! `examples/python/radiograph.py` runs a real radiograph (pydicom-data's
//! RG3_UNCR.dcm, 1760²) through `examples/fluoro.ssc` and saves its PNG.
//!
//! The wheel is built with cargo's dev profile (`MATURIN_PEP517_ARGS`) in
//! a target folder of its own, `target/wheel` (about 2 minutes the first
//! time on 2 cores, then nothing to do): building it in `target/` would
//! relink the `ssc` the other tests are running. A user's `pip install .`
//! builds the release profile.

use crate::support;

use std::path::Path;
use std::process::Command;
use support::*;

fn run(what: &str, cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what}:\n{text}");
    text
}

#[test]
fn pip_install_gives_the_module_the_command_and_compile() {
    let dir = scratch("python-package");
    let venv = dir.join("venv");
    let made = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .output()
        .is_ok_and(|o| o.status.success());
    if !made {
        skip(
            "pip_install_gives_the_module_the_command_and_compile",
            "python3 cannot make a venv (apt-get install python3-venv)",
        );
        return;
    }
    let python = venv.join("bin/python");
    run(
        "pip install .",
        Command::new(&python)
            .args(["-m", "pip", "install", "--disable-pip-version-check", "-q"])
            .arg(root("."))
            .env("MATURIN_PEP517_ARGS", "--profile dev")
            .env("CARGO_TARGET_DIR", root("target/wheel"))
            .current_dir(&dir),
    );
    // The frames and the program's outputs on them.
    let frames = dir.join("frames");
    fluoro_reference(
        python.to_str().unwrap(),
        &["make", frames.to_str().unwrap(), "3", "256"],
    );
    let flags = "-ts fused 2 -D W=256 -D H=256";
    let exe = build(gcc(), &Case::new(root("examples/fluoro.ssc"), flags), &dir)
        .unwrap_or_else(|e| panic!("{e}"));
    let out = dir.join("out");
    let mut args = fluoro_inputs(&frames);
    args.extend(["--output".to_string(), out.display().to_string()]);
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let ran = run_in(&[], &exe, &a, &[], &dir, RUN_DEADLINE).unwrap_or_else(|e| panic!("{e}"));
    assert!(ran.status.success(), "{}", ran.stderr);
    let checksum = ran.checksum().expect("a checksum").to_string();
    // A C compiler that logs its calls.
    let calls = dir.join("cc-calls");
    let cc = dir.join("cc-logged");
    std::fs::write(
        &cc,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec cc \"$@\"\n",
            calls.display()
        ),
    )
    .unwrap();
    make_executable(&cc);
    let script = root("tests/python/package.py");
    let check = |second: bool| {
        let mut cmd = Command::new(&python);
        cmd.arg(&script)
            .args([root(".").to_str().unwrap(), frames.to_str().unwrap()])
            .args([out.to_str().unwrap(), &checksum, calls.to_str().unwrap()])
            .env("CC", &cc)
            .env("SSC_PYTHON_CACHE", dir.join("cache"))
            .current_dir(&dir);
        if second {
            cmd.arg("--second");
        }
        run("tests/python/package.py", &mut cmd)
    };
    let first = check(false);
    eprintln!("{first}");
    assert_eq!(first.matches(" ok").count(), 5, "{first}");
    assert!(
        first.contains("two fluoro instances and one xray open at once, own threads, cores, frames and checksum ok"),
        "{first}"
    );
    let second = check(true);
    eprintln!("{second}");
    assert!(second.contains("no C compiler run ok"), "{second}");

    // The example a user copies: a real radiograph at 1760², its PNG.
    run(
        "pip install pydicom pydicom-data matplotlib",
        Command::new(&python)
            .args(["-m", "pip", "install", "--disable-pip-version-check", "-q"])
            .args(["pydicom", "pydicom-data", "matplotlib"]),
    );
    let figures = dir.join("figures");
    let said = run(
        "examples/python/radiograph.py",
        Command::new(&python)
            .arg(root("examples/python/radiograph.py"))
            .args(["--frames", "3", "--out", figures.to_str().unwrap()])
            .env("SSC_PYTHON_CACHE", dir.join("cache")),
    );
    eprintln!("{said}");
    assert!(
        said.contains("RG3_UNCR.dcm: 1760 x 1760, 10 bits, MONOCHROME1"),
        "{said}"
    );
    assert!(said.contains("3 frames: mean"), "{said}");
    let png = std::fs::read(figures.join("radiograph.png")).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{} bytes",
        png.len()
    );
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt as _;
    let mut p = std::fs::metadata(path).unwrap().permissions();
    p.set_mode(0o755);
    std::fs::set_permissions(path, p).unwrap();
}
