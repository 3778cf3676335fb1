//! `ROWS` on a bind or a `function_declaration`: the claim that a kernel of
//! one's own addresses every row through `SSC_ROW`, so its buffers may be
//! folded (docs/language.md, "Kernels that stream").
//!
//! Takes the functions a section binds or declares, with their `ROWS`, and
//! the section's definitions; gives warning E053 for `ROWS` on a built-in
//! or a defined function, whose loops the compiler writes and which always
//! stream (the word changes nothing there). Guarantees: nothing; whether a
//! kernel keeps its claim is checked by `ssc build --check-kernels`.

use super::codes;
use crate::diagnostics::Diagnostic;
use crate::ir::{Definition, Ident, Span};

/// Warns for every `(function, ROWS given, labelled span)` naming a
/// built-in or one of `defs`.
pub(super) fn check<'a>(
    functions: impl Iterator<Item = (&'a Ident, bool, Span)>,
    defs: &[Definition],
    out: &mut Vec<Diagnostic>,
) {
    for (f, rows, span) in functions {
        if !rows {
            continue;
        }
        let what = if crate::ir::builtins::builtin_of(&f.name).is_some() {
            "a built-in"
        } else if defs.iter().any(|d| d.name.name == f.name) {
            "a defined function"
        } else {
            continue;
        };
        out.push(
            Diagnostic::warning(
                codes::ROWS_NOT_OWN,
                format!("`ROWS` on `{f}`, {what}: its loops always address rows through SSC_ROW"),
            )
            .label(span, "ROWS changes nothing here")
            .hint("`ROWS` is for kernels of one's own (`--kernels`); remove it"),
        );
    }
}
