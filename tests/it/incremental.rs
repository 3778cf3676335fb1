//! Incremental builds: `ssc build` of an unchanged file took
//! seconds every time, `cc` compiling the runtime again. The runtime's
//! objects are cached per compiler, flags and runtime source in
//! `${XDG_CACHE_HOME:-~/.cache}/ssc/objects`, and a program whose
//! sources, compiler and flags are unchanged is not compiled at all; the
//! executable stays byte for byte what compiling every source at once
//! gives. A `CC` wrapper logs every compiler call.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;
use support::{root, run_ok, scratch, SSC};

/// A `CC` that logs its arguments, one call a line, then runs `cc`.
fn logging_cc(dir: &Path) -> (PathBuf, PathBuf) {
    let log = dir.join("cc.log");
    let cc = dir.join("logging-cc");
    std::fs::write(
        &cc,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec cc \"$@\"\n",
            log.display()
        ),
    )
    .unwrap();
    let ok = Command::new("chmod").arg("+x").arg(&cc).status().unwrap();
    assert!(ok.success());
    (cc, log)
}

/// The compiler calls logged so far, `--version` (the cache key's
/// question) left out.
fn calls(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| *l != "--version")
        .map(str::to_string)
        .collect()
}

struct Env<'a> {
    cc: &'a Path,
    cache: Option<&'a Path>,
    cflags: &'a str,
}

/// `ssc build FILE ARGS -od DIR` under `env`; the executable.
fn build(env: &Env<'_>, file: &str, args: &[&str], dir: &Path) -> PathBuf {
    let mut cmd = Command::new(SSC);
    cmd.arg("build")
        .arg(root(file))
        .args(args)
        .arg("-od")
        .arg(dir)
        .env("CC", env.cc)
        .env("CFLAGS", env.cflags);
    match env.cache {
        Some(c) => cmd.env("XDG_CACHE_HOME", c),
        // Neither XDG_CACHE_HOME nor HOME: no cache at all.
        None => cmd.env_remove("XDG_CACHE_HOME").env_remove("HOME"),
    };
    run_ok(&mut cmd);
    let stem = Path::new(file)
        .file_stem()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    dir.join(stem)
}

/// The runtime's sources a program compiles (runtime-c/FILES).
fn runtime_sources() -> usize {
    ssc::back::c::runtime_sources(false).count()
}

fn runtime_compiles(calls: &[String]) -> usize {
    calls
        .iter()
        .filter(|c| {
            c.contains(" -c ") && ssc::back::c::runtime_sources(false).any(|s| c.ends_with(s))
        })
        .count()
}

#[test]
fn an_unchanged_build_compiles_nothing_and_the_runtime_once_per_flags() {
    let dir = scratch("incremental");
    let (cc, log) = logging_cc(&dir);
    let cache = dir.join("cache");
    let env = Env {
        cc: &cc,
        cache: Some(&cache),
        cflags: "-O1",
    };
    let file = "tests/in/chain.ssc";
    let a = build(&env, file, &["-ts", "reduced", "2"], &dir.join("a"));
    let first = calls(&log);
    let n = runtime_sources();
    assert_eq!(runtime_compiles(&first), n, "{first:#?}");
    assert_eq!(
        first.len(),
        n + 1,
        "the runtime's objects and the program: {first:#?}"
    );
    let objects: Vec<PathBuf> = std::fs::read_dir(cache.join("ssc/objects"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(objects.len(), 1, "one key: {objects:?}");
    // chain.ssc's built-ins are uchar: the I/O family is compiled for
    // uchar alone (bit 1 of SSC_KERNEL_TYPES), the rest as they are.
    for src in ssc::back::c::runtime_sources(false) {
        let stem = src.trim_end_matches(".c");
        let o = match stem {
            "ssc_kernels_io" => format!("{stem}.t02.o"),
            _ => format!("{stem}.o"),
        };
        assert!(objects[0].join(&o).is_file(), "{o} not cached");
    }
    assert!(
        first
            .iter()
            .any(|c| c.contains("-DSSC_KERNEL_TYPES=0x02") && c.ends_with("ssc_kernels_io.c")),
        "{first:#?}"
    );
    let exe = std::fs::read(&a).unwrap();
    let modified = std::fs::metadata(&a).unwrap().modified().unwrap();

    // The same build again: no compiler call, the executable untouched.
    build(&env, file, &["-ts", "reduced", "2"], &dir.join("a"));
    assert_eq!(calls(&log).len(), n + 1, "{:#?}", calls(&log));
    assert_eq!(std::fs::metadata(&a).unwrap().modified().unwrap(), modified);

    // Another program directory: the program compiled and linked with the
    // cached objects, byte for byte the same executable.
    let b = build(&env, file, &["-ts", "reduced", "2"], &dir.join("b"));
    let now = calls(&log);
    assert_eq!(now.len(), n + 2, "{now:#?}");
    assert_eq!(runtime_compiles(&now), n, "{now:#?}");
    assert_eq!(
        std::fs::read(&b).unwrap(),
        exe,
        "cached objects, another executable"
    );

    // Without any cache (no HOME): every source compiled, the same bytes.
    let (plain_cc, plain_log) = logging_cc(&dir.join("a"));
    let plain = build(
        &Env {
            cc: &plain_cc,
            cache: None,
            cflags: "-O1",
        },
        file,
        &["-ts", "reduced", "2"],
        &dir.join("plain"),
    );
    assert_eq!(runtime_compiles(&calls(&plain_log)), n);
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        exe,
        "cache or not, the same executable"
    );

    // Another schedule: new C, the program compiled again, not the runtime.
    build(&env, file, &["-ts", "simple"], &dir.join("a"));
    let now = calls(&log);
    assert_eq!(now.len(), n + 3, "{now:#?}");
    assert_eq!(runtime_compiles(&now), n, "{now:#?}");

    // An executable replaced since is built again.
    std::fs::write(&a, b"not a program").unwrap();
    build(&env, file, &["-ts", "simple"], &dir.join("a"));
    assert_eq!(calls(&log).len(), n + 4);
    let ran = Command::new(&a)
        .args(["--iterations", "3"])
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );

    // Other flags: another key, the runtime compiled once more for it.
    let o2 = Env {
        cflags: "-O2",
        ..env
    };
    build(&o2, file, &["-ts", "simple"], &dir.join("a"));
    let now = calls(&log);
    assert_eq!(runtime_compiles(&now), 2 * n, "{now:#?}");
    assert_eq!(
        std::fs::read_dir(cache.join("ssc/objects"))
            .unwrap()
            .count(),
        2
    );
    build(&o2, file, &["-ts", "simple"], &dir.join("a"));
    assert_eq!(calls(&log).len(), now.len(), "unchanged under -O2 too");
}

#[test]
fn an_unchanged_library_is_not_built_again() {
    let dir = scratch("incremental-library");
    let (cc, log) = logging_cc(&dir);
    let cache = dir.join("cache");
    let env = Env {
        cc: &cc,
        cache: Some(&cache),
        cflags: "-O1",
    };
    let lib = dir.join("lib");
    let file = "tests/in/images.ssc";
    build(&env, file, &["-t", "library"], &lib);
    let first = calls(&log);
    // The runtime's objects (not the program's main side), the chain's
    // object, the shared library.
    let n = ssc::back::c::runtime_sources(true).count();
    assert!(
        n < runtime_sources(),
        "a library leaves out the program's files"
    );
    assert_eq!(runtime_compiles(&first), n, "{first:#?}");
    assert!(
        !first.iter().any(|c| c.ends_with("ssc_program.c")),
        "{first:#?}"
    );
    assert!(first.iter().any(|c| c.contains("-fPIC")), "{first:#?}");
    let so = lib.join("libimages.so");
    let bytes = std::fs::read(&so).unwrap();
    build(&env, file, &["-t", "library"], &lib);
    assert_eq!(calls(&log), first, "nothing compiled again");
    // Removing the archive builds both again, the same bytes.
    std::fs::remove_file(lib.join("libimages.a")).unwrap();
    build(&env, file, &["-t", "library"], &lib);
    assert!(lib.join("libimages.a").is_file());
    assert_eq!(std::fs::read(&so).unwrap(), bytes);
    assert_eq!(
        runtime_compiles(&calls(&log)),
        n,
        "the runtime from the cache"
    );
}
