//! Syntax: text → [`Description`](crate::ir::Description).
//!
//! Takes the text of a description file; gives its typed IR with spans, or
//! the diagnostics of what is wrong (a syntax error, a number out of range).
//! Guarantees: never panics, on any input; the IR it returns holds exactly
//! what the text says (no defaults filled in, no lowering).
//!
//! The entry is [`parse`] (`parse.rs`); each section has its builder, in
//! the order the sections come (`chain`, `composition`, `declaration`,
//! `instantiation`, `runtime`), over the pieces they share (`ports`,
//! `numbers`, `definitions`) and one walk of pest's tree (`walk`).

mod chain;
pub mod comments;
mod composition;
mod declaration;
mod definitions;
mod errors;
pub(crate) mod grammar;
mod instantiation;
mod numbers;
mod parse;
pub mod pest_errors;
mod ports;
mod runtime;
mod walk;

pub use errors::KEYWORDS;
pub use parse::parse;
