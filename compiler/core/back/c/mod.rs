//! The C back end (the program: `docs/commands.md`, "The generated
//! program"; the library: `docs/library.md`; the runtime:
//! `runtime-c/README.md`): HSDFG + runtime section → a pthread C program,
//! or a library.
//!
//! Takes the HSDFG (functions, ports, buffers, sub-boxes), a runtime
//! section with explicit `thread_execution` programs (emitted by the sync
//! stage or written by hand and proven by the checker) and [`COptions`];
//! gives the files of a program directory: `NAME.c` from the askama
//! template `runtime-c/templates/program.c` (its `struct ssc_chain` holds
//! one instance's state; under `-t library` the API of `library_api.c`,
//! with `NAME.h`, `NAME.py`, `NAME.pyi` and `NAME.pc`), the runtime files
//! embedded in this binary, and a Makefile; and compiles them
//! (`compile.rs`, through the object cache of `cache.rs`). The files:
//! `view` (what the template renders), `threads` and `parts` (the thread
//! programs, long lists in parts), `plan` (each sub-box's planned start,
//! each thread's budget for `--sched-deadline`), `kernels/` and `expr`,
//! `median` (the generated kernels of defined functions and built-ins,
//! their floating-point rules, `--contract`, `--reciprocal`), `library`
//! (the external ports), `options`, `runtime` (the runtime's files and
//! objects). Guarantees: the same inputs give byte-identical files; every
//! C identifier is derived from a description name with a prefix (`sig_`,
//! `bar_`, `thread_`, `BOX_`), so no name of the description can clash
//! with C or the runtime; frames are read and written in place only where
//! the proof of their buffer covers them (`view::frames_read_in_place`,
//! `view::frames_written_in_place`).

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
