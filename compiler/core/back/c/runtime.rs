//! The C runtime every program and library is built with, embedded so an
//! installed ssc needs no source tree.
//!
//! Takes `runtime-c/FILES`, the one list of the runtime's files and their
//! roles (`build.rs` turns it into [`RUNTIME_FILES`]). Gives the files and
//! which of them a program or a library compiles; the program directory
//! writer, the Makefiles, the object cache, the timing harness, the
//! calibration and the tests all read them from here.
//! Guarantees: the order is FILES' order; a library never compiles a
//! [`Role::Program`] file (a program's main side: argv, report, dumps,
//! signal handlers); a program's kernel families are compiled for every
//! element type its built-ins use ([`KernelTypes`]).

use crate::ir::builtins::builtin_of;
use crate::ir::hsdfg::Hsdfg;
use crate::ir::ElemType;
use std::collections::BTreeMap;

/// Where a runtime file goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Copied beside every program and library.
    Header,
    /// Compiled into programs and libraries.
    Shared,
    /// Compiled into programs only.
    Program,
}

/// One file of the runtime.
#[derive(Clone, Copy, Debug)]
pub struct RuntimeFile {
    pub name: &'static str,
    pub role: Role,
    pub text: &'static str,
}

/// Every runtime file, in `runtime-c/FILES`' order.
pub const RUNTIME_FILES: &[RuntimeFile] = include!(concat!(env!("OUT_DIR"), "/runtime_files.rs"));

impl RuntimeFile {
    /// Whether a program (`library` false) or a library has this file in
    /// its directory: every header, every source it compiles.
    pub fn belongs(&self, library: bool) -> bool {
        !(library && self.role == Role::Program)
    }
}

/// The runtime's C sources a program (`library` false) or a library
/// compiles, in order.
pub fn runtime_sources(library: bool) -> impl Iterator<Item = &'static str> {
    RUNTIME_FILES
        .iter()
        .filter(move |f| f.role != Role::Header && f.belongs(library))
        .map(|f| f.name)
}

/// The runtime's headers, in order.
pub fn runtime_headers() -> impl Iterator<Item = &'static str> {
    RUNTIME_FILES
        .iter()
        .filter(|f| f.role == Role::Header)
        .map(|f| f.name)
}

/// The element types a program's built-ins use, by C function
/// (`func_conv`): `ssc build` compiles each kernel family (a runtime file
/// of `DISPATCH(func_…` lines) for those types alone, with
/// `-DSSC_KERNEL_TYPES=MASK` (bit t: `ssc_type` t, the order of
/// [`ElemType::ALL`]); a type left out would reach the dispatch's "unknown
/// element type". The Makefile compiles every type.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelTypes(Option<BTreeMap<String, u8>>);

impl KernelTypes {
    /// Every type of every built-in (a program of unknown needs).
    pub fn all() -> KernelTypes {
        KernelTypes(None)
    }

    /// No built-in at all (a program that calls none).
    pub fn none() -> KernelTypes {
        KernelTypes(Some(BTreeMap::new()))
    }

    /// The types of the function instances of `h` that run a built-in
    /// (`func_source`, or a name of it such as `func_source_16`): a
    /// built-in's ports all have one type, its first port's.
    pub fn of(h: &Hsdfg) -> KernelTypes {
        let mut m = BTreeMap::new();
        for f in &h.functions {
            if let (Some(b), Some(p)) = (builtin_of(&f.function), f.ports.first()) {
                *m.entry(b.to_string()).or_insert(0) |= type_bit(p.ty);
            }
        }
        KernelTypes(Some(m))
    }

    /// The mask a runtime file is compiled with: `None` for a file that is
    /// not a kernel family, `Some(0xff)` for every type.
    pub fn mask(&self, file: &RuntimeFile) -> Option<u8> {
        let mut entries = family_entries(file.text).peekable();
        entries.peek()?;
        Some(match &self.0 {
            None => 0xff,
            Some(m) => entries.fold(0, |acc, e| acc | m.get(e).copied().unwrap_or(0)),
        })
    }
}

/// Bit of `t` in `SSC_KERNEL_TYPES`.
fn type_bit(t: ElemType) -> u8 {
    let i = ElemType::ALL.iter().position(|x| *x == t).unwrap_or(0);
    1 << i
}

/// The built-ins a kernel family's file defines: its `DISPATCH(func_x, …)`
/// lines, read from the C itself, so no second list exists.
fn family_entries(text: &'static str) -> impl Iterator<Item = &'static str> {
    text.lines().filter_map(|l| {
        l.strip_prefix("DISPATCH(")
            .and_then(|rest| rest.split(',').next())
            .map(str::trim)
    })
}

/// One object of the runtime: its source, its file name and the types it
/// is compiled for (`None`: not a kernel family, or every type).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeObject {
    pub source: &'static str,
    pub object: String,
    pub types: Option<u8>,
}

impl RuntimeObject {
    /// What the compile adds: the type mask of a kernel family.
    pub fn flags(&self) -> Vec<String> {
        self.types
            .map(|m| vec![format!("-DSSC_KERNEL_TYPES={m:#04x}")])
            .unwrap_or_default()
    }
}

/// The objects a program (`library` false) or a library with built-ins of
/// `types` is linked from, in the sources' order: a kernel family for
/// fewer than every type is `NAME.tMASK.o`.
pub fn runtime_objects(library: bool, types: &KernelTypes) -> Vec<RuntimeObject> {
    RUNTIME_FILES
        .iter()
        .filter(|f| f.role != Role::Header && f.belongs(library))
        .map(|f| {
            let stem = f.name.trim_end_matches(".c");
            match types.mask(f).filter(|m| *m != 0xff) {
                Some(m) => RuntimeObject {
                    source: f.name,
                    object: format!("{stem}.t{m:02x}.o"),
                    types: Some(m),
                },
                None => RuntimeObject {
                    source: f.name,
                    object: format!("{stem}.o"),
                    types: None,
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_family_is_compiled_for_the_types_its_entries_use() {
        let io = RUNTIME_FILES
            .iter()
            .find(|f| f.name == "ssc_kernels_io.c")
            .expect("the I/O family");
        assert_eq!(
            family_entries(io.text).collect::<Vec<_>>(),
            ["func_source", "func_sink"]
        );
        let mut m = BTreeMap::new();
        m.insert("func_source".to_string(), type_bit(ElemType::Ushort));
        m.insert("func_sink".to_string(), type_bit(ElemType::Float));
        // A generated built-in has no family: its type reaches no file.
        m.insert("func_gain".to_string(), type_bit(ElemType::Int));
        let types = KernelTypes(Some(m));
        assert_eq!(types.mask(io), Some(0x48));
        assert_eq!(KernelTypes::all().mask(io), Some(0xff));
        assert_eq!(KernelTypes::none().mask(io), Some(0));
        let rt = RUNTIME_FILES.iter().find(|f| f.name == "ssc_rt.c").unwrap();
        assert_eq!(types.mask(rt), None);
        let objects = runtime_objects(false, &types);
        let o = objects
            .iter()
            .find(|o| o.source == "ssc_kernels_io.c")
            .unwrap();
        assert_eq!(o.object, "ssc_kernels_io.t48.o");
        assert_eq!(o.flags(), ["-DSSC_KERNEL_TYPES=0x48"]);
        assert!(runtime_objects(false, &KernelTypes::all())
            .iter()
            .all(|o| o.types.is_none()));
    }
}
