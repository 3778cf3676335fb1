//! ssc, the Simple Streaming Compiler.
//!
//! The pipeline reads like the module list: [`front`] (syntax, checker) →
//! [`lower`] (compose, delays, stage fusion, split, HSDFG) → [`schedule`] →
//! [`memory`] → [`sync`] → [`verify`] (the deadlock and race proof, on
//! [`reach`]) → [`back`] (C, description printer, exports) → [`analysis`]
//! (`-pr`'s runtime graph and its maximum cycle mean). Each stage takes the
//! IR of the stage before it ([`ir`]) and returns its own; [`pipeline`]
//! chains them and [`diagnostics`] is what every stage reports. Beside the
//! compiler: [`ptts`] (`ssc ptts`), [`throttle`] (`ssc throttle`),
//! [`bench`](mod@bench), [`calibrate`] and [`generate`] (their commands), [`cli`]. See
//! `ARCHITECTURE.md`.
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
