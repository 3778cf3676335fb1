//! Syntax: text → [`Description`](crate::ir::Description).
//!
//! Takes the text of a description file; gives its typed IR with spans, or
//! the diagnostics of what is wrong (a syntax error, a number out of range).
//! Guarantees: never panics, on any input; the IR it returns holds exactly
//! what the text says (no defaults filled in, no lowering).

mod chain;
pub mod comments;
pub(crate) mod grammar;
mod parse;
pub mod pest_errors;

pub use parse::{parse, KEYWORDS};
