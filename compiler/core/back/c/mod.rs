//! The C back end (the program: `docs/commands.md`, "The generated
//! program"; its runtime: `runtime-c/README.md`): HSDFG + runtime section
//! → a pthread C program.
//!
//! Takes the HSDFG (functions, ports, buffers, sub-boxes) and a runtime
//! section with explicit `thread_execution` programs (emitted by the sync
//! stage or written by hand and proven by the checker); gives the files of a
//! program directory: `NAME.c` from the askama template
//! `runtime-c/templates/program.c`, the runtime and kernels embedded in this
//! binary, and a Makefile. Guarantees: the same inputs give byte-identical
//! files; every C identifier is derived from a description name with a
//! prefix (`sig_`, `bar_`, `thread_`, `BOX_`), so no name of the description
//! can clash with C or the runtime.

mod cache;
mod compile;
mod error;
mod expr;
pub(crate) mod kernels;
mod library;
mod median;
mod options;
mod parts;
mod plan;
mod runtime;
mod threads;
mod view;

pub use compile::{compile, compile_library, write_files};
pub use error::CompileError;
pub use kernels::FloatRules;
pub use library::pkg_config;
pub use options::{COptions, DynamicMemory};
pub use view::{emit, unimplemented, Program};

pub use runtime::{
    runtime_headers, runtime_objects, runtime_sources, KernelTypes, Role, RuntimeFile,
    RuntimeObject, RUNTIME_FILES,
};

pub use crate::ir::builtins::BUILTINS;
