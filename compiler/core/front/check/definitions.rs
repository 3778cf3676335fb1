//! `function_definition`s: each is typed against the ports its function is
//! bound to (docs/language.md, "Defined functions").
//!
//! Takes the definitions of a section and a way to find a function's ports
//! (the first container bound to it, or its `function_declaration`); gives
//! E004 for a function defined twice, E050 for a definition of a built-in's
//! name or of a function nothing binds, and every misuse the kernel typer
//! finds (E040–E052, [`crate::ir::kernel`]) as a diagnostic with its hint
//! and, for a misspelt name, "did you mean". Guarantees: a definition that
//! passes types into a kernel the back ends generate loops from.

use super::names;
use crate::diagnostics::Diagnostic;
use crate::ir::kernel::{type_definition, KernelError};
use crate::ir::{Definition, Port};
use std::path::Path;

/// Checks `defs`; `ports_of(f)` gives the ports function `f` is bound to
/// (`None`: nothing binds it); `binder` says what binds in this section.
pub(super) fn check<'a>(
    defs: &'a [Definition],
    ports_of: impl Fn(&str) -> Option<&'a [Port]>,
    binder: &str,
    dir: Option<&Path>,
    out: &mut Vec<Diagnostic>,
) {
    names::duplicates("definition of function", defs.iter().map(|d| &d.name), out);
    let mut seen = std::collections::HashSet::new();
    for def in defs {
        if !seen.insert(def.name.name.as_str()) {
            continue;
        }
        if let Some(b) = crate::ir::builtins::builtin_of(&def.name.name) {
            out.push(
                Diagnostic::error(
                    "E050",
                    format!(
                        "`{}` is a built-in's name: a definition needs its own",
                        def.name
                    ),
                )
                .label(def.name.span, format!("{b} is built in"))
                .hint(format!(
                    "name the function otherwise, e.g. `my_{}`, and bind that",
                    def.name
                )),
            );
            continue;
        }
        let Some(ports) = ports_of(&def.name.name) else {
            out.push(
                Diagnostic::error(
                    "E050",
                    format!("nothing binds `{}`, so its ports are unknown", def.name),
                )
                .label(def.name.span, "defined here")
                .hint(format!("{binder} `{}`", def.name)),
            );
            continue;
        };
        if let Err(errors) = type_definition(def, ports, dir) {
            out.extend(errors.into_iter().map(diagnostic));
        }
    }
}

/// A typer's error as a diagnostic, with "did you mean" for a misspelt name.
pub(crate) fn diagnostic(e: KernelError) -> Diagnostic {
    let mut d = Diagnostic::error(e.code, e.message).label(e.span, e.label);
    let suggestion = e
        .did_you_mean
        .as_ref()
        .and_then(|(name, candidates)| names::suggest(name, candidates.iter().map(String::as_str)));
    d = match (suggestion, e.hint) {
        (Some(s), Some(h)) => d.hint(format!("did you mean `{s}`? ({h})")),
        (Some(s), None) => d.hint(format!("did you mean `{s}`?")),
        (None, Some(h)) => d.hint(h),
        (None, None) => d,
    };
    d
}
