//! The suite's own cache directory. ssc keeps its calibration
//! (`ssc/calibration/`) and the runtime's compiled objects (`ssc/objects/`)
//! under `$XDG_CACHE_HOME`, else `$HOME/.cache`: a test that ran ssc with
//! the user's cache would see their `ssc calibrate` (another cost model,
//! other thread counts) and fill their object cache. So before `main`,
//! before any test thread starts, this test binary points `XDG_CACHE_HOME`
//! at [`dir`] (under cargo's `target/tmp`): every process the tests start
//! (ssc directly, or through `sh`, `script`, Python) inherits it, and so
//! does ssc's library code that a test calls in-process. A test that wants
//! a cache of its own (a calibration it writes, no cache at all) sets
//! `XDG_CACHE_HOME` (or removes it and `HOME`) on its command.
//!
//! The directory is shared by every test of every run: it holds no
//! calibration (no test runs `ssc calibrate` against it; `setup.rs` checks
//! that it has none), and the object cache is keyed by compiler, flags and
//! runtime source, safe for concurrent builds and worth keeping between
//! runs. `cargo clean` removes it.

use ssc::lower::cost::Coefficients;
use std::path::PathBuf;

/// The text of a calibration cache file of `coefficients` for `cpu`, as
/// `ssc calibrate` writes one (the current format, no spreads).
pub fn calibration_file(cpu: &str, coefficients: &Coefficients) -> String {
    serde_json::to_string(&ssc_cli::calibrate::CacheFile {
        format: "ssc-calibration".into(),
        version: ssc_cli::calibrate::VERSION,
        cpu: cpu.into(),
        seconds: 1.0,
        coefficients: coefficients.to_named(),
        spread: Default::default(),
    })
    .unwrap()
}

/// `target/tmp/cache`: what `XDG_CACHE_HOME` is in this test binary.
pub fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cache")
}

/// Runs before `main` (the loader calls the functions of `.init_array`),
/// while the process has one thread: `set_var` races with nothing.
extern "C" fn use_the_suites_cache() {
    std::env::set_var("XDG_CACHE_HOME", dir());
}

#[used]
#[cfg_attr(target_os = "linux", link_section = ".init_array")]
#[cfg_attr(target_os = "macos", link_section = "__DATA,__mod_init_func")]
static USE_THE_SUITES_CACHE: extern "C" fn() = use_the_suites_cache;
