//! Embeds the bad inputs that `ssc explain` shows as its examples: writes
//! `bad_inputs.rs` into `OUT_DIR`, an array of `(NAME, TEXT)` with TEXT an
//! `include_str!` of `tests/bad/NAME.ssc`, `tests/bad_runtime/NAME.ssc` or
//! `tests/bad_ptts/NAME.ptts` (NAME as `docs/diagnostics.md` names it: the
//! stem for `tests/bad`, the path from `tests/` for the others), so an
//! installed ssc prints a whole description without its source tree.
//! Files that are not UTF-8 (`tests/bad/binary.ssc`) are left out.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let mut out = String::from("&[\n");
    for (dir, ext, by_path) in [
        ("tests/bad", "ssc", false),
        ("tests/bad_runtime", "ssc", true),
        ("tests/bad_ptts", "ptts", true),
    ] {
        let abs = Path::new(&root).join(dir);
        println!("cargo:rerun-if-changed={}", abs.display());
        let mut files: Vec<_> = std::fs::read_dir(&abs)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", abs.display()))
            .map(|e| e.expect("a directory entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == ext))
            .collect();
        files.sort();
        for f in files {
            if std::fs::read_to_string(&f).is_err() {
                continue;
            }
            let file = f.file_name().unwrap().to_string_lossy().into_owned();
            let name = if by_path {
                format!("{dir}/{file}")
            } else {
                f.file_stem().unwrap().to_string_lossy().into_owned()
            };
            println!("cargo:rerun-if-changed={}", f.display());
            writeln!(
                out,
                "    ({name:?}, include_str!({:?})),",
                f.display().to_string()
            )
            .unwrap();
        }
    }
    out.push_str("]\n");
    let dest =
        Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("bad_inputs.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("cannot write {}: {e}", dest.display()));
}
