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
//! signal handlers).

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
