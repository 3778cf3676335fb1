//! Names: duplicates in one scope, undefined names, "did you mean".
//!
//! Takes lists of identifiers or a name and the names in scope; gives E004
//! (labelling the duplicate and the first definition) and E005 (with a hint
//! naming the closest defined name, when one is within a small edit
//! distance). Guarantees: for a name defined n times, n-1 diagnostics, each
//! pointing back at the first definition.

use super::codes;
use crate::diagnostics::Diagnostic;
use crate::ir::{Ident, Span};
use std::collections::HashMap;

/// Edit distance over characters: insertions, deletions, substitutions
/// and transpositions of neighbours (optimal string alignment), so `snik`
/// is one edit from `sink`.
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 0..a.len() {
        cur[0] = i + 1;
        for j in 0..b.len() {
            let sub = prev[j] + usize::from(a[i] != b[j]);
            let mut d = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
            if i > 0 && j > 0 && a[i] == b[j - 1] && a[i - 1] == b[j] {
                d = d.min(before[j - 1] + 1);
            }
            cur[j + 1] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The closest candidate within `max(1, len/3)` edits, the first on a tie.
pub(crate) fn suggest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    if name.len() > 200 {
        return None;
    }
    let limit = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name || c.len() > 200 {
            continue;
        }
        let d = edit_distance(name, c);
        if d <= limit && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// E005 for `name`, with a "did you mean" hint drawn from `candidates`.
pub(super) fn undefined<'a>(
    message: String,
    name: &str,
    span: Span,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Diagnostic {
    let d = Diagnostic::error(codes::UNDEFINED, message).label(span, "not defined");
    match suggest(name, candidates) {
        Some(s) => d.hint(format!("did you mean `{s}`?")),
        None => d,
    }
}

/// E004 for every identifier whose name came before in `idents`.
pub(super) fn duplicates<'a>(
    what: &str,
    idents: impl IntoIterator<Item = &'a Ident>,
    out: &mut Vec<Diagnostic>,
) {
    let mut first: HashMap<&str, &Ident> = HashMap::new();
    for id in idents {
        if let Some(prev) = first.get(id.name.as_str()) {
            out.push(duplicate(what, &id.name, id.span, prev.span));
        } else {
            first.insert(&id.name, id);
        }
    }
}

/// E004 for one duplicate.
pub(super) fn duplicate(what: &str, name: &str, again: Span, first: Span) -> Diagnostic {
    Diagnostic::error(
        codes::DUPLICATE,
        format!("{what} `{name}` is defined more than once"),
    )
    .label(again, "defined again here")
    .label(first, "first defined here")
    .hint("names must be unique in their scope: rename or remove one of them")
}
