//! The guard of `ssc ptts`: the plan's bound of operations
//! holds (the analysis never counts more, on the examples, random chains
//! and mutated examples), the refined bound too, and `ssc ptts` refuses
//! before it starts what the limits do not allow (E414, exit 1, with the
//! bound and a way out) or honours a larger `--max-operations`. Four inputs
//! at the edge of the limits are pinned: two finish (a uniform over
//! 100 000 values, a table of 1 000 values), two are refused at once (a
//! uniform over 10^6 values, an execution time of 2^31).
//!
//! The fuzz test mutates the example `.ptts` files (numbers blown up,
//! tables extended, ETPs widened, periods changed, components duplicated
//! or dropped) and runs the guard and the analysis in-process: its check
//! is the deterministic operation counter against the limit, with a
//! wall-clock budget per input far above what the limit takes (a few tens
//! of milliseconds), so a noisy machine does not fail it.

use proptest::prelude::*;
use ssc::diagnostics::SourceFile;
use ssc_ptts::cost::Limits;
use ssc_ptts::exact::Partners;
use ssc_ptts::{Model, Options, Plan};
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn load(name: &str, src: &str) -> Result<Model, String> {
    ssc_ptts::load(&SourceFile::new(name, src), Path::new("examples"), None)
        .map_err(|d| format!("{d:?}"))
}

fn example(name: &str) -> String {
    std::fs::read_to_string(format!("examples/{name}.ptts")).unwrap()
}

/// The analysis of `m`, checked against its plan and its refined plan.
fn counted_within_bound(m: &Model, opts: &Options) -> Plan {
    let plan = ssc_ptts::exact::plan(m, opts).unwrap();
    let a = ssc_ptts::analyse(m, opts).unwrap();
    assert!(
        a.operations <= plan.operations,
        "counted {} > bound {}",
        a.operations,
        plan.operations
    );
    if let Some(closer) = ssc_ptts::refine::refine(m, opts, &plan, u128::MAX) {
        assert!(
            a.operations <= closer.operations,
            "counted {} > refined bound {}",
            a.operations,
            closer.operations
        );
    }
    plan
}

#[test]
fn counted_within_the_bound_on_the_examples() {
    let mut names: Vec<String> = std::fs::read_dir("examples")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ptts"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 8);
    for name in names {
        let m = load(&name, &example(&name)).unwrap();
        let small = ssc_ptts::exact::plan(&m, &Options::default())
            .unwrap()
            .trees
            < 100_000;
        let mut variants = vec![
            Options::default(),
            Options {
                keep_trees: 100,
                ..Options::default()
            },
            Options {
                loss: false,
                ..Options::default()
            },
        ];
        if small {
            for partners in [Partners::Window, Partners::LookUp] {
                variants.push(Options {
                    partners,
                    ..Options::default()
                });
            }
        }
        for opts in &variants {
            counted_within_bound(&m, opts);
        }
    }
}

#[derive(Clone, Debug)]
enum Etp {
    Point(u64),
    Uniform(u64, u64),
    Table(Vec<(u64, u32)>),
}

#[derive(Clone, Debug)]
struct Comp {
    period: u64,
    offset: u64,
    etp: Etp,
}

fn etp() -> impl Strategy<Value = Etp> {
    let value = prop_oneof![0u64..400, (1u64 << 20)..(1u64 << 31)];
    prop_oneof![
        value.clone().prop_map(Etp::Point),
        (0u64..300, 0u64..400).prop_map(|(a, w)| Etp::Uniform(a, a + w)),
        prop::collection::btree_map(value, 1u32..5, 1..6)
            .prop_map(|m| Etp::Table(m.into_iter().collect())),
    ]
}

fn chain() -> impl Strategy<Value = Vec<Comp>> {
    let comp = (1u64..90, 0u64..100, etp()).prop_map(|(period, offset, etp)| Comp {
        period,
        offset,
        etp,
    });
    prop::collection::vec(comp, 1..5)
}

fn text(chain: &[Comp]) -> String {
    let mut s = String::from("ptts {\n");
    for (i, c) in chain.iter().enumerate() {
        let etp = match &c.etp {
            Etp::Point(v) => format!("point {v}"),
            Etp::Uniform(a, b) => format!("uniform [{a}, {b}]"),
            Etp::Table(t) => {
                let total: u32 = t.iter().map(|e| e.1).sum();
                let e: Vec<String> = t.iter().map(|(v, w)| format!("{v}: {w}/{total}")).collect();
                format!("table [{}]", e.join(", "))
            }
        };
        s += &format!(
            "  component c{i} period {} offset {} etp {etp};\n",
            c.period, c.offset
        );
    }
    s + "}\n"
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Wide, narrow, sparse and dense ETPs: what the analysis counts never
    /// exceeds the plan's bound, in either partner mode.
    #[test]
    fn counted_within_the_bound_on_random_chains(chain in chain(), mode in 0usize..3) {
        let m = load("r.ptts", &text(&chain)).unwrap();
        let partners = [Partners::Auto, Partners::Window, Partners::LookUp][mode];
        let opts = Options { partners, keep_trees: 2, ..Options::default() };
        let plan = ssc_ptts::exact::plan(&m, &opts).unwrap();
        // Within the fuzz test's limit, as refined by the guard.
        let limits = Limits { operations: LIMIT, memory: 1 << 28 };
        // (About a third are refused: those are the fuzz test's business.)
        if ssc_ptts::refine::guard(&m, &opts, plan, (0, 0), &limits).exceeded.is_none() {
            counted_within_bound(&m, &opts);
        }
    }
}

/// The operations the fuzz test lets an input take: a few tens of
/// milliseconds.
const LIMIT: u128 = 20_000_000;

/// The wall-clock budget of one mutated input: the limit takes far less.
const BUDGET: Duration = Duration::from_secs(10);

#[derive(Clone, Debug)]
enum Mutation {
    /// A number times 10^k.
    BlowUp(usize, u32),
    /// A number replaced.
    Number(usize, u64, u32),
    /// A component's ETP replaced by a table of n equally likely values.
    Table(usize, u64, u64, u32),
    /// A component's ETP replaced by a uniform.
    Uniform(usize, u64, u64),
    /// A component's line written twice (another name).
    Duplicate(usize),
    /// A component's line dropped.
    Drop(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1u32..13).prop_map(|(i, k)| Mutation::BlowUp(i, k)),
        (any::<usize>(), 1u64..1_000_000, 0u32..4).prop_map(|(i, v, s)| Mutation::Number(i, v, s)),
        (any::<usize>(), 0u64..1000, 1u64..1_000_000, 1u32..2000)
            .prop_map(|(i, a, step, n)| Mutation::Table(i, a, step, n)),
        (any::<usize>(), 0u64..1000, 0u64..2_000_000)
            .prop_map(|(i, a, w)| Mutation::Uniform(i, a, w)),
        any::<usize>().prop_map(Mutation::Duplicate),
        any::<usize>().prop_map(Mutation::Drop),
    ]
}

/// The byte ranges of the numbers of a text (digits and one point).
fn numbers(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let word = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if b[i].is_ascii_digit() && !word {
            let start = i;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

fn apply(src: &str, m: &Mutation) -> String {
    let lines: Vec<&str> = src.lines().collect();
    let comps: Vec<usize> = (0..lines.len())
        .filter(|&k| lines[k].trim_start().starts_with("component"))
        .collect();
    let nums = numbers(src);
    let number = |i: usize, new: String| {
        let (a, b) = nums[i % nums.len()];
        format!("{}{new}{}", &src[..a], &src[b..])
    };
    // A component's line with its ETP (to the `;`) replaced.
    let etp = |i: usize, new: String| {
        let k = comps[i % comps.len()];
        let line = lines[k];
        let at = line.find("etp").unwrap_or(line.len());
        let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        out[k] = format!("{}etp {new};", &line[..at]);
        out.join("\n")
    };
    match *m {
        Mutation::BlowUp(i, k) => {
            let (a, b) = nums[i % nums.len()];
            number(i, format!("{}{}", &src[a..b], "0".repeat(k as usize)))
        }
        Mutation::Number(i, v, s) => {
            let d = 10u64.pow(s);
            number(i, format!("{}.{:0w$}", v / d, v % d, w = s as usize))
        }
        Mutation::Table(i, a, step, n) => {
            let e: Vec<String> = (0..n as u64)
                .map(|j| format!("{}: 1/{n}", a + j * step))
                .collect();
            etp(i, format!("table [{}]", e.join(", ")))
        }
        Mutation::Uniform(i, a, w) => etp(i, format!("uniform [{a}, {}]", a + w)),
        Mutation::Duplicate(i) => {
            let k = comps[i % comps.len()];
            let copy = lines[k].replacen("component ", "component again_", 1);
            let mut out: Vec<&str> = lines.clone();
            out.insert(k + 1, &copy);
            out.join("\n")
        }
        Mutation::Drop(i) => {
            let k = comps[i % comps.len()];
            let out: Vec<&str> = (0..lines.len())
                .filter(|&j| j != k)
                .map(|j| lines[j])
                .collect();
            out.join("\n")
        }
    }
}

const EXAMPLES: &[&str] = &[
    "ptts_section54",
    "ptts_section54_f0prime",
    "ptts_case_d",
    "ptts_case_e",
    "ptts_config_a",
    "ptts_config_b",
    "ptts_config_c",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Mutated examples: the plan comes at once, the guard either refuses
    /// or lets through an analysis that counts at most the limit and ends
    /// well within its budget.
    #[test]
    fn mutated_examples_hold_the_guard(which in 0..EXAMPLES.len(), muts in prop::collection::vec(mutation(), 1..4)) {
        let mut src = example(EXAMPLES[which]);
        for m in &muts {
            src = apply(&src, m);
        }
        let start = Instant::now();
        let Ok(model) = load("fuzz.ptts", &src) else { return Ok(()); };
        let opts = Options { keep_trees: 3, ..Options::default() };
        let Ok(plan) = ssc_ptts::exact::plan(&model, &opts) else { return Ok(()); };
        let limits = Limits { operations: LIMIT, memory: 1 << 28 };
        let guarded = ssc_ptts::refine::guard(&model, &opts, plan, (0, 0), &limits);
        prop_assert!(start.elapsed() < BUDGET, "planning took {:?}\n{src}", start.elapsed());
        if guarded.exceeded.is_some() {
            return Ok(());
        }
        let plan = guarded.plan;
        let a = ssc_ptts::analyse(&model, &opts).unwrap();
        prop_assert!(a.operations <= plan.operations, "counted {} > bound {}\n{src}", a.operations, plan.operations);
        prop_assert!(plan.operations <= LIMIT);
        prop_assert!(start.elapsed() < BUDGET, "took {:?}\n{src}", start.elapsed());
    }
}

fn ssc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssc"))
        .args(args)
        .output()
        .unwrap()
}

/// A `.ptts` at the edge of the limits in a temporary folder (with the
/// f0 profile).
fn edge_case(name: &str, src: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ssc-ptts-guard-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy("examples/ptts_f0_xray.json", dir.join("ptts_f0_xray.json")).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, src).unwrap();
    path
}

fn run(path: &Path, extra: &[&str]) -> (Option<i32>, String, String) {
    let mut args = vec!["ptts", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    let out = ssc(&args);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// A uniform over 100 000 values finishes in seconds, not minutes: its
/// transitions and distribution follow its runs, and its loss the
/// shared times: it finishes.
#[test]
fn uniform_over_100_000_values_finishes() {
    let p = edge_case(
        "uniform_1e5.ptts",
        "ptts {\n  component a period 200 offset 0 etp uniform [50, 100049];\n  component b period 58 offset 30 etp point 5;\n}\n",
    );
    let (code, out, err) = run(&p, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("support  [55, 100111], 50029 values"), "{out}");
    assert!(out.contains("mean     50083.0000"), "{out}");
    assert!(out.contains("loss probability"), "{out}");
}

/// A uniform over 10^6 values: its loss pairs every tree with the next
/// 5 000, each sharing thousands of triggerings: refused at once with the
/// bound, and `--no-loss` gives the distribution.
#[test]
fn uniform_over_a_million_values_is_refused() {
    let p = edge_case(
        "uniform_1e6.ptts",
        "ptts {\n  component a period 200 offset 0 etp uniform [50, 1000001];\n  component b period 58 offset 30 etp point 5;\n}\n",
    );
    let start = Instant::now();
    let (code, out, err) = run(&p, &[]);
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(err.contains("E414"), "{err}");
    let bound = out
        .split("at most ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .unwrap();
    assert!(
        err.contains(&format!("up to {bound} operations")),
        "{out}{err}"
    );
    assert!(
        err.contains("--no-loss") && err.contains("--max-operations"),
        "{err}"
    );
    let (code, out, err) = run(&p, &["--no-loss"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("support  [55, 1000063], 500005 values"),
        "{out}"
    );
    assert!(!out.contains("loss probability"), "{out}");
}

/// Configuration c with an execution time of 2^31 ms: 1 388 611 trees,
/// each meeting the next 32 million: refused at once, with `--round 0.1`.
#[test]
fn config_c_with_a_huge_execution_time_is_refused() {
    let src = example("ptts_config_c").replace("[11: 0.9, 12: 0.1]", "[2147483648: 0.9, 12: 0.1]");
    let p = edge_case("config_c_2e31.ptts", &src);
    let start = Instant::now();
    let (code, out, err) = run(&p, &[]);
    assert!(start.elapsed() < Duration::from_secs(20));
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains("357770775120388"),
        "eq. 5.15 still printed: {out}"
    );
    assert!(
        err.contains("E414") && err.contains("more than --max-operations 2000000000"),
        "{err}"
    );
    assert!(err.contains("`--round 0.1`"), "{err}");
}

/// Configuration d with a table of 1 000 values finishes: the loss looks
/// up each tree's partners instead of following every pair of trees
/// jointly (48.7 s that way).
#[test]
fn case_d_with_a_1000_entry_table_finishes() {
    let entries: Vec<String> = (0..1000).map(|k| format!("{}: 1/1000", 11 + k)).collect();
    let src =
        example("ptts_case_d").replace("[11: 0.9, 12: 0.1]", &format!("[{}]", entries.join(", ")));
    let p = edge_case("case_d_1000.ptts", &src);
    let (code, out, err) = run(&p, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("support  [114, 1176], 10621 values"), "{out}");
    assert!(out.contains("exactly 640307/1000"), "{out}");
}

/// `--max-operations` is honoured both ways, `--max-memory` too; the
/// refusal names the limit, and the number it suggests lets it through.
#[test]
fn limits_are_honoured() {
    let p = Path::new("examples/ptts_section54.ptts");
    let (code, _, err) = run(p, &["--max-operations", "1000"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("E414") && err.contains("more than --max-operations 1000"),
        "{err}"
    );
    let n = err
        .split("--max-operations ")
        .last()
        .and_then(|s| s.split('`').next())
        .unwrap()
        .to_string();
    let (code, out, err) = run(p, &["--max-operations", &n]);
    assert_eq!(code, Some(0), "{n}: {err}");
    assert!(out.contains("loss probability"), "{out}");
    let (code, _, err) = run(p, &["--max-memory", "0"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("E414") && err.contains("more than --max-memory 0"),
        "{err}"
    );
    assert!(err.contains("`--max-memory 1`"), "{err}");
    // The JSON report of every value counts too.
    let (code, _, err) = run(p, &["--json", "--max-operations", &n]);
    assert_eq!(code, Some(1), "{err}");
}

/// The bound is printed before the analysis, the count after it (`-v`).
#[test]
fn the_plan_and_the_count_are_printed() {
    let (code, out, _) = run(Path::new("examples/ptts_section54.ptts"), &["-v"]);
    assert_eq!(code, Some(0));
    let bound = out
        .split("at most ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .unwrap();
    let counted = out
        .split("the analysis counted ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .unwrap();
    let (b, c): (u128, u128) = (bound.parse().unwrap(), counted.parse().unwrap());
    assert!(0 < c && c <= b, "{c} {b}");
}
