//! The architecture, checked from the sources and Cargo's metadata
//! (ARCHITECTURE.md, "Crates" and "Stages"):
//! - the crates depend on each other as designed, and the compiler crate
//!   (`compiler/core`) on no command-line, plotting or libc crate: Cargo
//!   enforces the DAG, this test that nobody widens it;
//! - inside the compiler crate, a stage's module uses only the modules before
//!   it in [`ORDER`] (every `crate::MODULE` outside comments in
//!   `compiler/core/MODULE/**.rs` or `compiler/core/MODULE.rs`);
//! - no two files of a crate use each other;
//! - no source file is over 900 lines and no function over 120 ([`size`]);
//! - no function returns `Result<_, String>` but the command-line parsers
//!   of [`STRING_ERRORS`] (ARCHITECTURE.md, "Errors").
//!
//! `cargo test --test it architecture:: -- --nocapture` prints the graphs.

mod scan;
mod size;

use crate::support::run_ok;
use scan::{code_only, functions};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// The compiler crate's top-level modules, from the bottom of the pipeline
/// up: the IR and the reachability utility, the stages in pipeline order,
/// the pipeline that runs them, what reads its result (analysis, back ends).
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
];

/// The workspace's crates: folder under `compiler/`, package name and
/// manifest (the root package's is the workspace's own).
const CRATES: &[(&str, &str, &str)] = &[
    ("core", "ssc", "compiler/core/Cargo.toml"),
    ("ptts", "ssc-ptts", "compiler/ptts/Cargo.toml"),
    ("throttle", "ssc-throttle", "compiler/throttle/Cargo.toml"),
    ("ssc", "ssc-cli", "Cargo.toml"),
];

/// Packages that must not be in a crate's dependency tree (normal
/// dependencies, transitively).
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "ssc",
        &[
            "clap",
            "libc",
            "plotters",
            "ssc-ptts",
            "ssc-throttle",
            "ssc-cli",
            // miette's textwrap stays on 0.16.1 (root Cargo.toml): later
            // releases break lines with ICU, two dozen crates to compile.
            "icu_segmenter",
        ],
    ),
    ("ssc-ptts", &["clap", "libc", "ssc-throttle", "ssc-cli"]),
    ("ssc-throttle", &["ssc", "ssc-ptts", "ssc-cli"]),
];

/// pest's recursion guard (pest → pest_stack_guard → stacker), which
/// grows the stack on deeply nested input and reads its size through
/// libc: the one way libc reaches the compiler crate, and not code of
/// ours. The closure does not follow it (ARCHITECTURE.md, "Crates").
const GUARD: &str = "stacker";

/// Every package a package reaches through normal dependencies (not
/// build- or dev-dependencies) on this host, by name, from `cargo tree`
/// (which evaluates each dependency's `cfg` as the build does);
/// [`GUARD`]'s own dependencies not followed.
fn normal_closure(package: &str) -> BTreeSet<String> {
    let out = run_ok(
        Command::new(env!("CARGO"))
            .args(["tree", "--offline", "--locked", "-e", "normal"])
            .args(["--prefix", "depth", "-f", "{p}", "-p", package])
            .current_dir(env!("CARGO_MANIFEST_DIR")),
    );
    let mut names = BTreeSet::new();
    let mut below_guard: Option<usize> = None;
    // Each line: the depth, then `NAME vVERSION …`.
    for line in String::from_utf8_lossy(&out.stdout).lines().skip(1) {
        let digits = line.chars().take_while(char::is_ascii_digit).count();
        let depth: usize = line[..digits].parse().unwrap();
        let name = line[digits..]
            .split_whitespace()
            .next()
            .unwrap()
            .to_string();
        if below_guard.is_some_and(|d| depth > d) {
            continue;
        }
        below_guard = (name == GUARD).then_some(depth);
        names.insert(name);
    }
    names
}

#[test]
fn the_crates_depend_on_each_other_as_designed() {
    for (folder, name, manifest) in CRATES {
        let manifest =
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(manifest)).unwrap();
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "{name} lives in compiler/{folder}"
        );
    }
    let members: BTreeSet<String> = CRATES.iter().map(|(_, n, _)| n.to_string()).collect();
    let mut wrong = Vec::new();
    for (name, forbidden) in FORBIDDEN {
        let deps = normal_closure(name);
        let ours: Vec<&str> = deps
            .iter()
            .map(String::as_str)
            .filter(|d| members.contains(*d))
            .collect();
        println!(
            "{name:>12} -> {} ({} packages)",
            ours.join(", "),
            deps.len()
        );
        for f in *forbidden {
            if deps.contains(*f) {
                wrong.push(format!("{name} depends on {f}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:?}");
    // The checker sees what it must: the command uses everything.
    let cli = normal_closure("ssc-cli");
    for d in [
        "ssc",
        "ssc-ptts",
        "ssc-throttle",
        "clap",
        "libc",
        "plotters",
    ] {
        assert!(cli.contains(d), "ssc-cli -> {d}: {cli:?}");
    }
}

/// The crates whose tests all live in tests/it: their Cargo.toml says
/// `test = false`, so a `#[test]` left in them would never run.
const TESTS_IN_IT: &[&str] = &["ptts", "throttle"];

#[test]
fn crates_without_a_test_target_hold_no_tests() {
    let compiler = Path::new(env!("CARGO_MANIFEST_DIR")).join("compiler");
    for folder in TESTS_IN_IT {
        let root = compiler.join(folder);
        let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        assert!(
            manifest.contains("test = false"),
            "compiler/{folder}/Cargo.toml"
        );
        let mut files = Vec::new();
        rust_files(&root, &mut files);
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            assert!(
                !text.contains("#[test]") && !text.contains("#[cfg(test)]"),
                "{}: a test in a crate built with `test = false` never runs; move it to tests/it",
                f.display()
            );
        }
    }
}

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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("compiler/core");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let module = path.is_dir() || path.extension().is_some_and(|e| e == "rs");
        if !module || name == "lib" || name == "build" {
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

/// Every `.rs` file under `compiler/`: its path from the repository
/// (with `/`) and its text.
fn compiler_sources() -> Vec<(String, String)> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&manifest.join("compiler"), &mut files);
    files
        .into_iter()
        .map(|file| {
            let relative = file
                .strip_prefix(manifest)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&file).unwrap();
            (relative, text)
        })
        .collect()
}

fn rust_files(path: &Path, out: &mut Vec<std::path::PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for entry in entries {
            rust_files(&entry, out);
        }
    } else if path.extension().is_some_and(|e| e == "rs") {
        out.push(path.to_path_buf());
    }
}

/// The functions that may return `Result<_, String>` (ARCHITECTURE.md,
/// "Errors"): clap value parsers, the keyword parsers behind them and
/// `FromStr` impls of command-line keywords, where clap takes a String
/// message. Everything else returns a typed error. By file and function
/// name (closures count as the function they are in).
const STRING_ERRORS: &[(&str, &[&str])] = &[
    (
        "compiler/ssc/cli/args.rs",
        &[
            "parse",
            "parse_pair",
            "parse_percentile",
            "parse_bytes",
            "parse_positive",
            "parse_cores",
            "parse_budget",
        ],
    ),
    ("compiler/ssc/cli/ptts.rs", &["parse_step"]),
    ("compiler/ssc/cli/throttle.rs", &["cores", "pid"]),
    // `--configs` words, read by bench::Options::parse.
    ("compiler/ssc/bench/runs.rs", &["parse_config"]),
    (
        "compiler/throttle/parse.rs",
        &["bytes", "threshold", "duration_us"],
    ),
    // The core lists of the `cores` value parser.
    ("compiler/throttle/cpu.rs", &["parse_list"]),
    ("compiler/throttle/sensor.rs", &["from_str"]),
    // Kind::parse and Column::parse.
    ("compiler/throttle/bench.rs", &["parse"]),
    ("compiler/core/lower/split.rs", &["from_str"]),
    ("compiler/core/memory/mod.rs", &["from_str"]),
    ("compiler/core/schedule/mod.rs", &["parse", "parse_words"]),
];

/// Every `Result<T, String>` in the source, by line (in code only, any
/// nesting of `T`).
fn string_results(text: &str) -> Vec<usize> {
    let code: Vec<char> = code_only(text).chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let word: Vec<char> = "Result<".chars().collect();
    let mut found = Vec::new();
    for i in 0..code.len() {
        if !code[i..].starts_with(&word) || (i > 0 && ident(code[i - 1])) {
            continue;
        }
        // The arguments up to the matching `>`, split at top-level commas.
        let (mut depth, mut args, mut arg) = (1, Vec::new(), String::new());
        for j in i + word.len()..code.len() {
            match code[j] {
                '<' | '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                '>' if code[j - 1] != '-' => depth -= 1,
                ',' if depth == 1 => {
                    args.push(std::mem::take(&mut arg));
                    continue;
                }
                _ => {}
            }
            if depth == 0 {
                args.push(arg);
                break;
            }
            arg.push(code[j]);
        }
        if args.len() == 2 && args[1].trim() == "String" {
            found.push(1 + code[..i].iter().filter(|&&c| c == '\n').count());
        }
    }
    found
}

#[test]
fn the_scanner_finds_string_errors_at_any_nesting() {
    let text = "fn a() -> Result<Vec<Option<u8>>, String> {\n    let f = |x: u8| -> Result<u8, String> { Ok(x) };\n    // Result<u8, String>\n    let s = \"Result<u8, String>\";\n    Ok(vec![])\n}\nfn b() -> Result<(String, String), Box<dyn Fn() -> String>> {}\nfn c() -> io::Result<String> {}\nfn d() -> MyResult<u8, String> {}\n";
    assert_eq!(string_results(text), vec![1, 2]);
}

#[test]
fn only_command_line_parsers_return_string_errors() {
    let (mut wrong, mut seen) = (Vec::new(), BTreeSet::new());
    for (relative, text) in compiler_sources() {
        let fns = functions(&text);
        let allowed = STRING_ERRORS
            .iter()
            .find(|(f, _)| *f == relative)
            .map_or(&[][..], |(_, names)| *names);
        for line in string_results(&text) {
            // The innermost function whose lines hold it.
            let name = fns
                .iter()
                .filter(|(first, _, length)| (*first..first + length).contains(&line))
                .max_by_key(|(first, _, _)| *first)
                .map_or("(outside a function)", |(_, name, _)| name.as_str());
            if allowed.contains(&name) {
                seen.insert((relative.clone(), name.to_string()));
            } else {
                wrong.push(format!("{relative}:{line} {name}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "`Result<_, String>` outside the command-line parsers; return a typed error \
         (thiserror, ARCHITECTURE.md \"Errors\"):\n{}",
        wrong.join("\n")
    );
    let stale: Vec<String> = STRING_ERRORS
        .iter()
        .flat_map(|(f, names)| names.iter().map(move |n| (f.to_string(), n.to_string())))
        .filter(|k| !seen.contains(k))
        .map(|(f, n)| format!("{f} {n}"))
        .collect();
    assert!(
        stale.is_empty(),
        "STRING_ERRORS names functions that no longer return `Result<_, String>`; remove them:\n{}",
        stale.join("\n")
    );
}

/// The module path of a source file under `compiler/` (`back/c/view.rs`
/// → `[back, c, view]`; a folder's `mod.rs` is the folder; `lib.rs` the
/// crate).
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap().with_extension("");
    let mut m: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(m.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        m.pop();
    }
    m
}

/// The file of a module path, if it has one of its own.
fn file_of(root: &Path, module: &[String]) -> Option<std::path::PathBuf> {
    if module.is_empty() {
        return Some(root.join("lib.rs"));
    }
    let base = module.iter().fold(root.to_path_buf(), |p, s| p.join(s));
    let file = base.with_extension("rs");
    if file.is_file() {
        return Some(file);
    }
    let folder = base.join("mod.rs");
    folder.is_file().then_some(folder)
}

/// The paths written at `code[i..]` (`a::b::C`, `a::{b::C, d}`), each as
/// its segments after `prefix`.
fn paths_at(code: &[char], mut i: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    loop {
        while code.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        if code.get(i) == Some(&'{') {
            let (mut depth, mut start) = (0, i + 1);
            for j in i..code.len() {
                match code[j] {
                    '{' => depth += 1,
                    '}' | ',' if depth == 1 => {
                        paths_at(code, start, path.clone(), out);
                        start = j + 1;
                        if code[j] == '}' {
                            return;
                        }
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            return;
        }
        let word: String = code[i..]
            .iter()
            .take_while(|c| c.is_alphanumeric() || **c == '_')
            .collect();
        if word.is_empty() {
            break;
        }
        i += word.chars().count();
        path.push(word);
        if code.get(i) == Some(&':') && code.get(i + 1) == Some(&':') {
            i += 2;
        } else {
            break;
        }
    }
    out.push(path);
}

/// The files `file` uses: every `crate::…`, `super::…`, `self::…` and
/// `child::…` path of its code (re-exports, `pub use`, are its interface,
/// not a use), resolved to the longest prefix that is a module with a file.
fn file_uses(root: &Path, file: &Path) -> BTreeSet<std::path::PathBuf> {
    let here = module_of(root, file);
    let text = std::fs::read_to_string(file).unwrap();
    let code: String = code_only(&text)
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("pub use")
                || t.starts_with("pub(crate) use")
                || t.starts_with("pub(super) use"))
        })
        .collect::<Vec<_>>()
        .join("\n");
    let code: Vec<char> = code.chars().collect();
    let mut paths = Vec::new();
    for i in 0..code.len() {
        let boundary =
            i == 0 || !(code[i - 1].is_alphanumeric() || code[i - 1] == '_' || code[i - 1] == ':');
        if boundary && (code[i].is_ascii_lowercase() || code[i] == '_') {
            paths_at(&code, i, Vec::new(), &mut paths);
        }
    }
    let mut out = BTreeSet::new();
    for path in paths {
        if path.len() < 2 {
            continue;
        }
        let (mut base, rest): (Vec<String>, &[String]) = match path[0].as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "super" | "self" => (here.clone(), &path[..]),
            _ if file_of(root, &[here.clone(), vec![path[0].clone()]].concat()).is_some() => {
                (here.clone(), &path[..])
            }
            _ => continue,
        };
        let mut rest = rest;
        while let Some(first) = rest.first() {
            match first.as_str() {
                "super" => {
                    base.pop();
                }
                "self" => {}
                _ => break,
            }
            rest = &rest[1..];
        }
        let target = (0..=rest.len())
            .rev()
            .find_map(|k| file_of(root, &[base.clone(), rest[..k].to_vec()].concat()));
        if let Some(t) = target {
            out.insert(t);
        }
    }
    out
}

/// No two source files use each other, directly or through others: each
/// file has one job, and jobs depend one way. A folder's `mod.rs` is its
/// interface (the types its files share) and its dispatcher, so what its
/// files use of it is not counted; any other use is.
#[test]
fn no_cycles_between_files() {
    let compiler = Path::new(env!("CARGO_MANIFEST_DIR")).join("compiler");
    for (folder, _, _) in CRATES {
        let cycles = file_cycles(&compiler.join(folder));
        assert!(cycles.is_empty(), "files that use each other: {cycles:#?}");
    }
    // The scanner sees what it must: a use through `super::`, one through
    // `crate::`, and a child module's path.
    let root = compiler.join("core");
    let c = root.join("back/c");
    let threads = file_uses(&root, &c.join("threads.rs"));
    assert!(threads.contains(&c.join("options.rs")), "{threads:?}");
    assert!(
        threads.contains(&root.join("back/layout.rs")),
        "{threads:?}"
    );
    let ptts = compiler.join("ptts");
    assert!(file_uses(&ptts, &ptts.join("lib.rs")).contains(&ptts.join("exact.rs")));
}

/// The cycles between the files of the crate at `root` (its `lib.rs`
/// there), each as the trail of files.
fn file_cycles(root: &Path) -> Vec<String> {
    let root = root.to_path_buf();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let interface = |p: &Path| {
        matches!(
            p.file_name().and_then(|n| n.to_str()),
            Some("mod.rs" | "lib.rs")
        )
    };
    let graph: BTreeMap<std::path::PathBuf, BTreeSet<std::path::PathBuf>> = files
        .iter()
        .map(|f| {
            let uses = file_uses(&root, f)
                .into_iter()
                .filter(|t| t != f && !interface(t))
                .collect();
            (f.clone(), uses)
        })
        .collect();
    // A cycle is a file that reaches itself: depth-first from each file.
    let name = |p: &Path| p.strip_prefix(&root).unwrap().display().to_string();
    let mut cycles = Vec::new();
    for start in graph.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((f, trail)) = stack.pop() {
            for next in &graph[&f] {
                if next == start {
                    cycles.push(
                        trail
                            .iter()
                            .map(|p| name(p))
                            .collect::<Vec<_>>()
                            .join(" → "),
                    );
                } else if seen.insert(next.clone()) {
                    let mut t = trail.clone();
                    t.push(next.clone());
                    stack.push((next.clone(), t));
                }
            }
        }
    }
    cycles
}
