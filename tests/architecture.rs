//! Dependencies point down the pipeline (ARCHITECTURE.md, "Stages"): a
//! stage's module may use the modules before it in [`ORDER`], never one
//! after it. Read from the sources: every `crate::MODULE` outside comments
//! in `compiler/MODULE/**.rs` or `compiler/MODULE.rs`. `cargo test --test architecture --
//! --nocapture` prints the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The library's top-level modules, from the bottom of the pipeline up:
/// the IR and the reachability utility, the stages in pipeline order, the
/// pipeline that runs them, what reads its result (analysis, back ends),
/// the command line; then the tools beside the pipeline.
const ORDER: &[&str] = &[
    "ir",
    "diagnostics",
    "reach",
    "front",
    "lower",
    "schedule",
    "memory",
    "sync",
    "verify",
    "pipeline",
    "analysis",
    "back",
    "bench",
    "calibrate",
    "generate",
    "ptts",
    "throttle",
    "cli",
];

/// Every `crate::NAME` of the module's files (a folder, or one file),
/// outside comments.
fn uses(path: &Path, out: &mut BTreeSet<String>) {
    if path.is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            uses(&entry.unwrap().path(), out);
        }
        return;
    }
    if path.extension().is_none_or(|e| e != "rs") {
        return;
    }
    let text = std::fs::read_to_string(path).unwrap();
    for line in text.lines() {
        let code = line.trim_start();
        if code.starts_with("//") {
            continue;
        }
        let code = code.split(" //").next().unwrap_or(code);
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            rest = &rest[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
}

#[test]
fn every_module_uses_only_the_modules_before_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("compiler");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "lib" || name == "main" {
            continue;
        }
        let mut deps = BTreeSet::new();
        uses(&path, &mut deps);
        deps.remove(&name);
        graph.insert(name, deps);
    }
    let rank = |m: &str| {
        ORDER
            .iter()
            .position(|o| *o == m)
            .unwrap_or_else(|| panic!("module `{m}` is not in ORDER: place it in the pipeline"))
    };
    let mut wrong = Vec::new();
    for m in ORDER {
        let deps = graph.get(*m).cloned().unwrap_or_default();
        let listed: Vec<&str> = deps.iter().map(String::as_str).collect();
        println!("{m:>9} -> {}", listed.join(", "));
        for d in &deps {
            if rank(d) > rank(m) {
                wrong.push(format!("{m} -> {d}"));
            }
        }
    }
    for m in graph.keys() {
        rank(m);
    }
    assert!(wrong.is_empty(), "dependencies up the pipeline: {wrong:?}");
}
