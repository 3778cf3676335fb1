//! The front end: text → checked IR.
//!
//! [`syntax`] parses a description into the IR (and prints it back), and
//! [`check`](mod@check) validates every section present against the sections above it
//! (the defined functions typed by `ir::kernel`); what is wrong is a
//! [`crate::diagnostics::Diagnostic`] with a code, a labelled span and a
//! hint, rendered with file:line:col and the source line.
//!
//! Takes the text of a description (and the `-D` overrides of a chain, the
//! names of the `--kernels` functions); gives its
//! [`Description`](crate::ir::Description) with every chain expanded
//! ([`chain`]), or every diagnostic. Guarantees: never panics on any input;
//! when [`check`](mod@check) reports no error, every name resolves, every
//! graph is a well-typed DAG and every defined function types into a
//! kernel; what the checker cannot see (a hand-written section against the
//! sections above it, the runtime's correctness) is reported by
//! [`crate::lower`] and [`crate::verify`].

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
