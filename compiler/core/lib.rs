//! ssc, the Simple Streaming Compiler.
//!
//! The pipeline reads like the module list: [`front`] (syntax, checker) →
//! [`lower`] (compose, delays, stage fusion, split, HSDFG) → [`schedule`] →
//! [`memory`] → [`sync`] → [`verify`] (the deadlock and race proof, on
//! [`reach`]) → [`back`] (C, description printer, exports) → [`analysis`]
//! (`-pr`'s runtime graph and its maximum cycle mean). Each stage takes the
//! IR of the stage before it ([`ir`]) and returns its own; [`pipeline`]
//! chains them and [`diagnostics`] is what every stage reports.
//!
//! This crate is the compiler alone (`compiler/core`): it depends on no
//! command-line, plotting or libc crate. Beside it in the workspace:
//! `ssc-ptts` (`ssc ptts`), `ssc-throttle` (`ssc throttle`) and `ssc-cli`,
//! the `ssc` binary with `bench`, `calibrate` and `generate`. See
//! `ARCHITECTURE.md`, "Crates".
//!
//! The entry point is [`compile`] (text → proven runtime, with an example);
//! [`back`] turns its result into files.

pub mod analysis;
pub mod back;
pub mod diagnostics;
pub mod front;
pub mod ir;
pub mod lower;
pub mod memory;
pub mod pipeline;
pub mod reach;
pub mod schedule;
pub mod sync;
pub mod verify;

pub use pipeline::compile_text as compile;
