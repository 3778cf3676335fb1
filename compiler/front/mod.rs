//! The front end: text → checked IR.
//!
//! `syntax` parses a description into the typed IR, `check` validates every
//! section present against the sections above it, and `diagnostics` renders
//! what is wrong with file:line:col, the source line and a hint.

pub mod check;
pub mod syntax;

pub use check::check;
