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
mod options;
mod parts;
mod plan;
mod threads;
mod view;

pub use compile::{compile, compile_library, write_files};
pub use error::CompileError;
pub use library::pkg_config;
pub use options::{COptions, DynamicMemory};
pub use view::{emit, unimplemented, Program};

/// The C runtime and built-in kernels, embedded so an installed ssc needs no
/// source tree.
pub const RUNTIME_FILES: &[(&str, &str)] = &[
    ("ssc_rt.h", include_str!("../../../runtime-c/ssc_rt.h")),
    ("ssc_rt.c", include_str!("../../../runtime-c/ssc_rt.c")),
    (
        "ssc_image.h",
        include_str!("../../../runtime-c/ssc_image.h"),
    ),
    (
        "ssc_image.c",
        include_str!("../../../runtime-c/ssc_image.c"),
    ),
    (
        "ssc_kernels.h",
        include_str!("../../../runtime-c/ssc_kernels.h"),
    ),
    (
        "ssc_kernels.c",
        include_str!("../../../runtime-c/ssc_kernels.c"),
    ),
];

pub use crate::ir::builtins::BUILTINS;
