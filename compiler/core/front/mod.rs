//! The front end: text → checked IR.
//!
//! [`syntax`] parses a description into the IR (and prints it back), and
//! [`check`](mod@check) validates every section present against the sections above it
//! (the defined functions typed by `ir::kernel`); what is wrong is a
//! [`crate::diagnostics::Diagnostic`] with a code, a labelled span and a
//! hint, rendered with file:line:col and the source line.

pub mod check;
pub mod syntax;

pub mod chain;
pub use check::check;

/// Parses a description and expands its chain, if it has one, with
/// `defines` (`-D NAME=VALUE`) applied: the description every later stage
/// reads, and the expansion's warnings.
pub fn read(
    text: &str,
    defines: &[chain::Define],
) -> Result<chain::Expanded, Vec<crate::diagnostics::Diagnostic>> {
    chain::expand(&syntax::parse(text)?, defines)
}
