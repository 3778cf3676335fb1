//! What `ssc build` does not compile twice: the runtime's objects, shared
//! by every program, and a program whose sources and flags are unchanged.
//!
//! Takes the compiler (`$CC` and its leading words), the flags, the mode
//! (flags the command adds, `-fPIC …` for a library) and a program
//! directory holding the runtime's sources. Gives:
//!
//! * [`runtime_objects`]: the objects of the runtime's sources (those of
//!   `runtime-c/FILES` a program or a library compiles) from `${XDG_CACHE_HOME:-~/.cache}/ssc/objects/<key>/`, compiled there
//!   the first time; the key is a FNV-1a hash of the compiler's name and
//!   `--version`, the flags, the mode, this CPU's model (for
//!   `-march=native`) and the text of every runtime file; the missing ones
//!   compile at once, one C compiler each. Without a cache
//!   directory (no `HOME`) they are compiled into the program directory.
//! * [`Stamp`]: a hash of every source the program is compiled from, the
//!   compiler (its `--version` too), flags, mode and output path, kept in the program directory
//!   (`.ssc-stamp`) with the output's size and modification time; when it
//!   matches, the output is the one these sources give and nothing runs.
//!
//! Guarantees: an object is written beside and renamed into the cache, so
//! two builds at once never read half an object; a cache entry is never
//! changed once written (another compiler, flag or runtime source is
//! another key); the files ssc writes are the same with or without the
//! cache, and the output is what compiling them gives.

use super::error::CompileError;
use super::runtime::{runtime_headers, RuntimeObject, RUNTIME_FILES};
use std::path::{Path, PathBuf};
use std::process::Command;

/// FNV-1a, 64 bits: the same value on every Rust version and machine.
#[derive(Clone, Copy)]
pub(super) struct Fnv(u64);

impl Fnv {
    pub(super) fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    /// Adds `bytes` and a separator, so ("ab", "c") and ("a", "bc") differ.
    pub(super) fn add(mut self, bytes: &[u8]) -> Fnv {
        for &b in bytes.iter().chain(&[0xff]) {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        self
    }
    pub(super) fn hex(self) -> String {
        format!("{:016x}", self.0)
    }
}

/// The compiler and its flags as one program sees them.
pub(super) struct Toolchain<'a> {
    pub cc: &'a str,
    pub words: &'a [String],
    pub cflags: &'a str,
    /// What every compile of ssc's C gets (`compile::LANGUAGE_FLAGS`).
    pub language: &'a [&'a str],
    /// What the command adds to every compile (`-fPIC -fvisibility=hidden`).
    pub mode: &'a [&'a str],
}

impl Toolchain<'_> {
    fn hash(&self) -> Fnv {
        let mut h = Fnv::new().add(self.cc.as_bytes());
        for w in self.words {
            h = h.add(w.as_bytes());
        }
        for f in self.language {
            h = h.add(f.as_bytes());
        }
        h = h.add(self.cflags.as_bytes());
        for m in self.mode {
            h = h.add(m.as_bytes());
        }
        h
    }
}

/// `${XDG_CACHE_HOME:-$HOME/.cache}/ssc/objects`, when either is set.
fn cache_root() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| Path::new(&h).join(".cache"))
        })?;
    Some(base.join("ssc").join("objects"))
}

/// The compiler's `--version` (empty when it has none) and this CPU's
/// model: what makes the same flags give other code.
fn identity(t: &Toolchain<'_>) -> Vec<u8> {
    let mut out = Command::new(t.cc)
        .args(t.words)
        .arg("--version")
        .output()
        .map(|o| o.stdout)
        .unwrap_or_default();
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    if let Some(model) = cpu.lines().find(|l| l.starts_with("model name")) {
        out.extend_from_slice(model.as_bytes());
    }
    out
}

/// Partial objects made by this process so far (their names' last part).
static PARTIALS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The runtime's objects for `t`, from the cache or compiled into it from
/// the sources in `dir` (the program directory); `compile` runs the
/// compiler on one source into one object.
pub(super) fn runtime_objects(
    t: &Toolchain<'_>,
    dir: &Path,
    sources: &[RuntimeObject],
    compile: impl Fn(&RuntimeObject, &Path) -> Result<(), CompileError> + Sync,
) -> Result<Vec<PathBuf>, CompileError> {
    // Without a cache directory the objects go beside the sources, and
    // compile every time.
    let root = cache_root();
    let cached = root.is_some();
    let entry = match root {
        Some(root) => {
            let mut key = t.hash().add(&identity(t));
            for f in RUNTIME_FILES {
                key = key.add(f.name.as_bytes()).add(f.text.as_bytes());
            }
            root.join(key.hex())
        }
        None => dir.to_path_buf(),
    };
    std::fs::create_dir_all(&entry).map_err(|source| CompileError::Write {
        path: entry.clone(),
        source,
    })?;
    // The missing objects compile at once, one C compiler each (a first
    // build is mostly the kernels: one file per family, so they share the
    // cores).
    let objects: Vec<PathBuf> = sources.iter().map(|o| entry.join(&o.object)).collect();
    let (compile, entry) = (&compile, &entry);
    std::thread::scope(|scope| {
        let jobs: Vec<_> = sources
            .iter()
            .zip(&objects)
            .filter(|(_, object)| !(cached && object.is_file()))
            .map(|(o, object)| {
                scope.spawn(move || -> Result<(), CompileError> {
                    // Unique per process and per compile: several builds
                    // of one process (`ssc calibrate`'s) may compile the
                    // same object at once, and each renames its own.
                    let partial = entry.join(format!(
                        "{}.{}.{}.partial",
                        o.object,
                        std::process::id(),
                        PARTIALS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                    ));
                    compile(o, &partial)?;
                    // A compiler that succeeds without writing the object
                    // (`CC=true`, which the snapshot tests use) leaves
                    // nothing to cache: the link is its business too.
                    if partial.is_file() {
                        std::fs::rename(&partial, object).map_err(|source| {
                            CompileError::Write {
                                path: object.clone(),
                                source,
                            }
                        })?;
                    }
                    Ok(())
                })
            })
            .collect();
        // Every job is joined; the first error (in the sources' order) wins.
        let results: Vec<Result<(), CompileError>> = jobs
            .into_iter()
            .map(|j| j.join().expect("a runtime compile thread panicked"))
            .collect();
        results.into_iter().collect::<Result<(), CompileError>>()
    })?;
    Ok(objects)
}

/// A program's sources, compiler, flags and output, hashed; the output is
/// current when the stamp in its directory says so.
pub(super) struct Stamp {
    path: PathBuf,
    output: PathBuf,
    key: String,
}

impl Stamp {
    /// The stamp of compiling `sources` (read from `dir`) with `t` into
    /// `output`.
    pub(super) fn new(t: &Toolchain<'_>, dir: &Path, sources: &[String], output: &Path) -> Stamp {
        let mut h = t
            .hash()
            .add(&identity(t))
            .add(output.as_os_str().as_encoded_bytes());
        let headers = runtime_headers().map(String::from);
        let mut files: Vec<String> = sources.iter().cloned().chain(headers).collect();
        files.sort();
        files.dedup();
        for f in files {
            let text = std::fs::read(dir.join(&f)).unwrap_or_default();
            h = h.add(f.as_bytes()).add(&text);
        }
        Stamp {
            path: dir.join(".ssc-stamp"),
            output: output.to_path_buf(),
            key: h.hex(),
        }
    }

    /// The stamp's line: the key, then the output's size and modification
    /// time, so an output replaced or touched since is built again.
    fn line(&self) -> Option<String> {
        let m = std::fs::metadata(&self.output).ok()?;
        let t = m
            .modified()
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?;
        Some(format!("{} {} {}\n", self.key, m.len(), t.as_nanos()))
    }

    /// Whether the output exists and was built from these sources.
    pub(super) fn current(&self) -> bool {
        match (self.line(), std::fs::read_to_string(&self.path)) {
            (Some(line), Ok(old)) => line == old,
            _ => false,
        }
    }

    /// Records that the output was built from these sources (a failure to
    /// write it only means the next build compiles again).
    pub(super) fn record(&self) {
        match self.line() {
            Some(line) => {
                let _ = std::fs::write(&self.path, line);
            }
            None => {
                let _ = std::fs::remove_file(&self.path);
            }
        }
    }

    /// Forgets the stamp, before the output is rebuilt.
    pub(super) fn clear(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_separates_its_parts() {
        let a = Fnv::new().add(b"ab").add(b"c").hex();
        let b = Fnv::new().add(b"a").add(b"bc").hex();
        assert_ne!(a, b);
        assert_eq!(a.len(), 16);
        assert_eq!(a, Fnv::new().add(b"ab").add(b"c").hex());
    }
}
