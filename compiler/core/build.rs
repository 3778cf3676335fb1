//! Embeds the C runtime: reads `runtime-c/FILES` (the one list of the
//! runtime's files and their roles) and writes `runtime_files.rs` into
//! `OUT_DIR`, an array of `RuntimeFile`s whose texts are `include_str!`s
//! of the files, so an installed ssc needs no source tree.
//! `compiler/core/back/c/runtime.rs` includes it. A line of FILES that is not
//! `NAME ROLE` with a known role, or a file that does not exist, fails the
//! build with the line.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // This crate is compiler/core; the runtime sits at the workspace root.
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&root)
        .join("../../runtime-c")
        .canonicalize()
        .expect("runtime-c/ beside compiler/");
    let list = dir.join("FILES");
    println!("cargo:rerun-if-changed={}", list.display());
    let text = std::fs::read_to_string(&list)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", list.display()));
    let mut out = String::from("&[\n");
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let role = match words.as_slice() {
            [_, "header"] => "Header",
            [_, "shared"] => "Shared",
            [_, "program"] => "Program",
            _ => panic!(
                "{}:{}: expected `NAME header|shared|program`, found `{line}`",
                list.display(),
                n + 1
            ),
        };
        let path = dir.join(words[0]);
        assert!(
            path.is_file(),
            "{}:{}: no file {}",
            list.display(),
            n + 1,
            path.display()
        );
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            out,
            "    RuntimeFile {{ name: {:?}, role: Role::{role}, text: include_str!({:?}) }},",
            words[0],
            path.display().to_string()
        )
        .expect("writing to a String");
    }
    out.push_str("]\n");
    let dest =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("runtime_files.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("cannot write {}: {e}", dest.display()));
}
