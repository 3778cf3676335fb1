//! A differential tester of the defined functions' vocabulary: random
//! legal chains (`gen.rs`) built by `ssc build` under every exact
//! configuration (`run.rs`) and compared bit for bit with an independent
//! evaluator of docs/language.md (`eval.rs`), on frames full of edge
//! values (`frames.rs`).
//!
//! Takes `SSC_DIFFTEST_SEED` (a u64: the proptest seed; the quick run's
//! default is fixed, the long run's drawn and printed) and
//! `SSC_DIFFTEST_CASES` (the long run's chain count, default 2000) and
//! `SSC_DIFFTEST_OPEN` (overrides [`KNOWN_OPEN`]); gives
//! two tests: [`quick`] in the suite, [`long`] ignored
//! (`cargo test --test it difftest:: -- --ignored`), and `examples.rs`'
//! checks of the evaluator against the docs' own examples. A failure shrinks
//! (proptest) to a small description, prints it with the first differing
//! elements and their inputs, and the seed that reproduces it.

mod ast;
mod eval;
mod examples;
mod expr;
mod frames;
mod gen;
mod int;
mod run;

use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestError, TestRng, TestRunner};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Constructs left out of the generated chains while the compiler gets
/// them wrong, each by a key (`known_open`'s): empty when the compiler
/// computes every construct as the docs say. The keys:
/// * `separable-of-expression`: `separable`/`gauss` of an expression in a
///   function that also reads a port at an x offset or has outputs of
///   `mul [2, 2]`;
/// * `round-of-select`, `round-of-linear`: `round(select(…))` and
///   `round(linear(…))` directly;
/// * `constant-folding`: numbers only (`x + (0.1 + 0.2 - 0.3)`);
/// * `integer-constant-division`: `7 / 2` on an integer;
/// * `unit-window`: `median`, `box`, `gauss` of a `[1, 1]` window;
/// * `unread-port-warning`: compiles the programs without `-Werror`, for
///   C that warns on a function that does not read one of its ports.
pub const KNOWN_OPEN: &[&str] = &[];

const GATES: [&str; 7] = [
    "separable-of-expression",
    "round-of-select",
    "round-of-linear",
    "constant-folding",
    "integer-constant-division",
    "unit-window",
    "unread-port-warning",
];

/// Whether the generator leaves construct `key` out: on [`KNOWN_OPEN`],
/// or on `SSC_DIFFTEST_OPEN` (names separated by commas; empty: none)
/// when that is set, to try a fix before its entry goes.
pub fn known_open(key: &str) -> bool {
    assert!(GATES.contains(&key), "no construct {key}");
    match std::env::var("SSC_DIFFTEST_OPEN") {
        Ok(list) => list.split(',').any(|k| k.trim() == key),
        Err(_) => KNOWN_OPEN.contains(&key),
    }
}

/// The most chains one description holds (one build per configuration).
const BUNDLE: usize = 8;

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a number")),
    )
}

/// Checks `cases` bundles from `seed`; panics with the shrunk failure.
fn differential(tag: &str, cases: u32, seed: u64, shrink: u32) {
    eprintln!("difftest {tag}: seed {seed} (SSC_DIFFTEST_SEED={seed} reproduces), {cases} bundles");
    let t0 = std::time::Instant::now();
    let config = Config {
        cases,
        max_shrink_iters: shrink,
        failure_persistence: None,
        ..Config::default()
    };
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let chains = AtomicUsize::new(0);
    let n = AtomicUsize::new(0);
    let result = runner.run(&gen::bundle(BUNDLE), |bundle| {
        let t = std::time::Instant::now();
        let dir = crate::support::scratch(&format!(
            "difftest-{tag}-{}",
            n.fetch_add(1, Ordering::Relaxed)
        ));
        chains.fetch_add(bundle.len(), Ordering::Relaxed);
        let r = run::check(&bundle, &dir);
        eprintln!(
            "difftest {tag}: {} chains, {:.1?}{}",
            bundle.len(),
            t.elapsed(),
            if r.is_ok() { "" } else { ", failed" }
        );
        r.map_err(TestCaseError::fail)
    });
    let c = |k: usize| run::COMPARED[k].load(Ordering::Relaxed);
    eprintln!(
        "difftest {tag}: {} chains in {:.0?}; elements compared exactly {}, against a median's allowed values {}, not (from such a median) {}",
        chains.load(Ordering::Relaxed),
        t0.elapsed(),
        c(0),
        c(1),
        c(2)
    );
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, _)) => {
            panic!(
                "difftest {tag} (seed {seed}: SSC_DIFFTEST_SEED={seed} reproduces), shrunk:\n{why}"
            )
        }
        Err(e) => panic!("difftest {tag} (seed {seed}): {e}"),
    }
}

/// A few dozen chains from a fixed seed: every configuration agrees with
/// the evaluator.
#[test]
fn quick() {
    differential("quick", 10, env_u64("SSC_DIFFTEST_SEED").unwrap_or(1), 24);
}

/// `SSC_DIFFTEST_CASES` chains (default 2000) from a drawn seed, a
/// failure shrunk by at most `SSC_DIFFTEST_SHRINK` steps (default 48).
#[test]
#[ignore]
fn long() {
    let chains = env_u64("SSC_DIFFTEST_CASES").unwrap_or(2000);
    let seed = env_u64("SSC_DIFFTEST_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
    });
    let bundles = chains.div_ceil((BUNDLE as u64).div_ceil(2)).max(1);
    let shrink = env_u64("SSC_DIFFTEST_SHRINK").unwrap_or(48);
    differential("long", bundles as u32, seed, shrink as u32);
}
