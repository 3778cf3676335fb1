//! Unknown functions (E038): what `ssc check` and `ssc build` ask of every
//! function a description binds.
//!
//! Takes a description and the kernels the command line says are the
//! user's (the functions its `--kernels` files define); gives one E038
//! error per function that is none of: a built-in, a variant of one
//! (`func_conv_5x5`), a function the description defines
//! (`function_definition`), or one of those kernels — labelled at the
//! `container_bind` entry or `function_declaration` that names it, with
//! "did you mean" when it is a few edits from a built-in or a defined
//! function. Guarantees: the E036 warnings of [`super::check`] about the
//! same functions are dropped (the error says it all), so a misspelt
//! built-in is reported once, as an error.

use super::names;
use crate::diagnostics::Diagnostic;
use crate::ir::builtins::{builtin_of, BUILTINS};
use crate::ir::{Description, Ident};

/// Every function `desc` binds or declares, with where: composition binds
/// first, then declared functions, in the order written.
fn bound(desc: &Description) -> Vec<(&Ident, crate::ir::Span, Vec<&str>)> {
    let mut out = Vec::new();
    if let Some(c) = &desc.composition {
        let defined: Vec<&str> = c.definitions.iter().map(|d| d.name.name.as_str()).collect();
        for b in &c.binds {
            out.push((&b.function, b.span, defined.clone()));
        }
    }
    if let Some(d) = &desc.declaration {
        let defined: Vec<&str> = d.definitions.iter().map(|d| d.name.name.as_str()).collect();
        for f in &d.function_decls {
            out.push((&f.name, f.name.span, defined.clone()));
        }
    }
    out
}

/// E038 for every function of `desc` that is neither a built-in, a
/// variant, defined in the description, nor among `kernels`; `diags` (the
/// checker's) loses its E036 warnings about those functions.
pub(super) fn unknown(desc: &Description, kernels: &[String], diags: &mut Vec<Diagnostic>) {
    let mut reported: Vec<&str> = Vec::new();
    for (f, at, defined) in bound(desc) {
        let name = f.name.as_str();
        if builtin_of(name).is_some()
            || defined.contains(&name)
            || kernels.iter().any(|k| k == name)
            || reported.contains(&name)
        {
            continue;
        }
        reported.push(name);
        let candidates = BUILTINS.iter().copied().chain(defined.iter().copied());
        let (message, hint) = match names::suggest(name, candidates) {
            Some(b) => (
                format!("unknown function `{name}`: did you mean `{b}`?"),
                format!(
                    "write `{b}`; if `{name}` is a kernel of your own, give the C file that defines it with `--kernels FILE.c` (ssc check and ssc build alike)"
                ),
            ),
            None => (
                format!("unknown function `{name}`: not a built-in, a variant of one, nor defined in the description"),
                format!(
                    "a kernel of your own: give the C file that defines `void {name}(const ssc_call *call)` with `--kernels FILE.c` (ssc check and ssc build alike); a function of expressions: define it with `function_definition` (docs/language.md)"
                ),
            ),
        };
        diags.push(
            Diagnostic::error(super::codes::UNKNOWN, message)
                .label(at, format!("`{name}` bound here"))
                .hint(hint),
        );
    }
    diags.retain(|d| {
        d.code != super::codes::UNKNOWN_FUNCTION
            || !reported
                .iter()
                .any(|n| d.message.starts_with(&format!("`{n}`")))
    });
}
