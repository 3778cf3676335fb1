//! Dependencies point down the pipeline (ARCHITECTURE.md, "Stages"): a
//! stage's module may use the modules before it in [`ORDER`], never one
//! after it. Read from the sources: every `crate::MODULE` outside comments
//! in `compiler/MODULE/**.rs` or `compiler/MODULE.rs`. `cargo test --test it architecture::
//! -- --nocapture` prints the graph.

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

/// The longest a function may be, from its `fn` line to its closing brace.
const MAX_FN_LINES: usize = 150;

/// The source with the insides of comments, string literals and character
/// literals replaced by spaces (newlines kept), so that braces and `fn`
/// are only found in code.
fn code_only(text: &str) -> String {
    let s: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(s[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (i == 0 || !ident(s[i - 1]) || (s[i - 1] == 'b' && (i < 2 || !ident(s[i - 2]))))
            && matches!(next, Some('"' | '#'))
            && {
                let hashes = s[i + 1..].iter().take_while(|&&h| h == '#').count();
                s.get(i + 1 + hashes) == Some(&'"')
            }
        {
            // A raw string: r"…", r#"…"#, br#"…"#.
            let hashes = s[i + 1..].iter().take_while(|&&h| h == '#').count();
            out.push('"');
            i += 2 + hashes;
            while i < s.len() {
                if s[i] == '"'
                    && s[i + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&h| h == '#')
                        .count()
                        == hashes
                {
                    i += 1 + hashes;
                    break;
                }
                out.push(blank(s[i]));
                i += 1;
            }
            out.push('"');
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < s.len() && s[i] != '"' {
                if s[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < s.len() {
                    out.push(blank(s[i]));
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\'' && (next == Some('\\') || s.get(i + 2) == Some(&'\'')) {
            // A character literal ('x', '\n', '\'', '\u{..}'), not a lifetime.
            out.push('\'');
            i += 1;
            while i < s.len() && s[i] != '\'' {
                if s[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                out.push(' ');
                i += 1;
            }
            out.push('\'');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Every function with a body in the source: (line of `fn`, name, lines
/// from the `fn` line to the closing brace).
fn functions(text: &str) -> Vec<(usize, String, usize)> {
    let code: Vec<char> = code_only(text).chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let line_at = |i: usize| 1 + code[..i].iter().filter(|&&c| c == '\n').count();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 2 < code.len() {
        let is_fn = code[i] == 'f'
            && code[i + 1] == 'n'
            && (i == 0 || !ident(code[i - 1]))
            && code[i + 2].is_whitespace();
        if !is_fn {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        while j < code.len() && code[j].is_whitespace() {
            j += 1;
        }
        let name: String = code[j..].iter().take_while(|&&c| ident(c)).collect();
        if name.is_empty() {
            i += 2;
            continue;
        }
        // The body opens at the first `{` outside brackets of the signature;
        // a `;` there first means a declaration without a body.
        let mut depth = 0i32;
        let mut open = None;
        while j < code.len() {
            match code[j] {
                '(' | '[' | '<' => depth += 1,
                ')' | ']' => depth -= 1,
                '>' if code[j - 1] != '-' => depth -= 1,
                '{' if depth <= 0 => {
                    open = Some(j);
                    break;
                }
                ';' if depth <= 0 => break,
                _ => {}
            }
            j += 1;
        }
        let Some(open) = open else {
            i = j;
            continue;
        };
        let mut braces = 0;
        let mut close = open;
        for (k, &c) in code.iter().enumerate().skip(open) {
            match c {
                '{' => braces += 1,
                '}' => {
                    braces -= 1;
                    if braces == 0 {
                        close = k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let (first, last) = (line_at(i), line_at(close));
        found.push((first, name, last - first + 1));
        // Functions nested in this one are measured on their own too.
        i += 2;
    }
    found
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

#[test]
fn the_scanner_measures_functions_through_strings_and_comments() {
    let text = "fn a() {\n    let s = \"}\"; // }\n    let c = '}';\n    let r = r#\"}\"#;\n    /* } /* } */ */\n    let l: &'static str = s;\n}\n\ntrait T {\n    fn d(&self) -> Vec<u8>;\n    fn e(&self) -> impl Fn(u8) -> u8 {\n        |x| x\n    }\n}\n";
    let found = functions(text);
    let expected = vec![(1, "a".to_string(), 7), (11, "e".to_string(), 3)];
    assert_eq!(found, expected);
}

#[test]
fn no_function_in_the_compiler_is_over_150_lines() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&manifest.join("compiler"), &mut files);
    let mut long = Vec::new();
    for file in files {
        let relative = file
            .strip_prefix(manifest)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&file).unwrap();
        for (line, name, length) in functions(&text) {
            if length > MAX_FN_LINES {
                long.push(format!("{relative}:{line} {name} ({length} lines)"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines; split them into functions with one job each:\n{}",
        long.join("\n")
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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("compiler");
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
    assert!(cycles.is_empty(), "files that use each other: {cycles:#?}");
    // The scanner sees what it must: a use through `super::`, one through
    // `crate::`, and a child module's path.
    let c = root.join("back/c");
    let threads = file_uses(&root, &c.join("threads.rs"));
    assert!(threads.contains(&c.join("options.rs")), "{threads:?}");
    assert!(
        threads.contains(&root.join("back/layout.rs")),
        "{threads:?}"
    );
    let ptts = root.join("ptts");
    assert!(file_uses(&root, &ptts.join("mod.rs")).contains(&ptts.join("exact.rs")));
}
