//! Random chains through the whole pipeline: proptest writes chains of
//! every chain operator (element-wise arithmetic, conversions, `fn`s,
//! `down2`, `up2`, `linear`, windows, offsets, `prev`, outputs by name and
//! by expression, values no output needs) over two inputs, and each
//! expands, checks clean, and compiles to a proven runtime under a
//! box-at-a-time and a fused schedule (`ssc::pipeline::compile_text`).

use proptest::prelude::*;
use ssc::memory::MemoryKind;
use ssc::pipeline::Options;
use ssc::schedule::SchedulerKind;

/// A chain drawn from `ops` (one choice a value): values at 32² and 16².
fn chain(ops: &[(u8, u8, u8)]) -> String {
    let mut lines = vec![
        "  input a: float[32, 32], b: ushort[32, 32];".to_string(),
        "  fn blur(x) = separable(x, [1, 2, 1], [1, 2, 1]) / 16;".to_string(),
    ];
    // (name, at full size)
    let mut full = vec!["a".to_string(), "float(b)".to_string()];
    let mut half: Vec<String> = Vec::new();
    for (k, &(op, i, j)) in ops.iter().enumerate() {
        let v = format!("v{k}");
        let x = full[i as usize % full.len()].clone();
        let y = full[j as usize % full.len()].clone();
        let (expr, at_full) = match op % 10 {
            0 => (format!("{x} + 0.5 * {y}"), true),
            1 => (format!("max({x}, {y}) - min({x}, 1)"), true),
            2 => (format!("blur({x})"), true),
            3 => (format!("median({x}, [3, 3])"), true),
            4 if !x.contains('(') => (format!("{x}[1, -1] - {x}[-1, 0]"), true),
            5 => (format!("down2({x})"), false),
            6 if !half.is_empty() => (
                format!("up2({}) + {x}", half[i as usize % half.len()]),
                true,
            ),
            7 if !half.is_empty() => (format!("linear({})", half[j as usize % half.len()]), true),
            8 => (format!("0.5 * {x} + 0.5 * prev(v{k}, 0)"), true),
            _ => (format!("select({x} > {y}, {x}, {y})"), true),
        };
        lines.push(format!("  {v} = {expr};"));
        if at_full {
            full.push(v);
        } else {
            half.push(v);
        }
    }
    let last = full.last().unwrap().clone();
    lines.push(format!("  output o = ushort_sat({last} * 4);"));
    if let Some(h) = half.last() {
        lines.push(format!("  output h = {h};"));
    }
    format!("chain random {{\n{}\n}}\n", lines.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_chains_compile_to_proven_runtimes(
        ops in proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 1..10)
    ) {
        let text = chain(&ops);
        for s in [SchedulerKind::Reduced(2), SchedulerKind::Fused(2)] {
            let opts = Options::new(s, MemoryKind::Reuse);
            let compiled = ssc::pipeline::compile_text(&text, &opts)
                .map_err(|e| TestCaseError::fail(format!("{e:?}\n{text}")))?;
            prop_assert!(!compiled.runtime.thread_executions.is_empty(), "{}", text);
        }
    }
}
