//! ssc, the Simple Streaming Compiler.
//!
//! The pipeline reads like the module list: [`front`] (syntax, diagnostics,
//! checker) → lowering → schedule → memory → sync → [`back`] (C, description
//! printer, exports) → analysis. Each stage takes the IR of the stage before
//! it and returns its own; see `ARCHITECTURE.md`.
//!
//! The entry point is [`compile`] (text → proven runtime, with an example);
//! [`back`] turns its result into files.

pub mod analysis;
pub mod back;
pub mod bench;
pub mod calibrate;
pub mod cli;
pub mod diagnostics;
pub mod front;
pub mod generate;
pub mod ir;
pub mod lower;
pub mod memory;
pub mod pipeline;
pub mod ptts;
pub mod reach;
pub mod schedule;
pub mod sync;
pub mod throttle;
pub mod verify;

pub use pipeline::compile_text as compile;
