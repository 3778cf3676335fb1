//! The numbers of a description: whole numbers, pairs, coordinates,
//! window offsets and the numbers of expressions.
//!
//! Takes a node of a number (`uint`, `pair`, `literal`, `offset`); gives
//! its value. Guarantees: a number out of range is an E002 diagnostic of
//! the builder at the number's span, and the value is then 0, so the
//! build goes on and reports every such number.

use super::grammar::Rule;
use super::parse::Builder;
use super::walk::{span, Node, Walk};
use crate::diagnostics::Diagnostic;
use crate::ir::{Pair, Spanned};

impl Builder {
    /// A whole number ≥ 1 (resolutions, `mul`, windows).
    fn positive(&mut self, n: Node, what: &str) -> u64 {
        let v = self.uint(n.clone());
        if v == 0 {
            self.errors.push(
                Diagnostic::error(
                    "E002",
                    format!("{what} must be a whole number of at least 1"),
                )
                .label(span(&n), "zero is not allowed here"),
            );
        }
        v
    }

    /// Any whole number that fits in 64 bits.
    pub(super) fn uint(&mut self, n: Node) -> u64 {
        match n.as_str().parse::<u64>() {
            Ok(v) => v,
            Err(_) => {
                self.errors.push(
                    Diagnostic::error("E002", "number too large")
                        .label(span(&n), "does not fit in 64 bits")
                        .hint(format!("the largest whole number is {}", u64::MAX)),
                );
                0
            }
        }
    }

    /// A `pair` of whole numbers ≥ 1; `what` names it in a diagnostic.
    pub(super) fn pair(&mut self, n: Node, what: &str) -> Spanned<Pair> {
        let s = span(&n);
        let mut it = Walk::of(n);
        let x = self.positive(it.expect(Rule::uint), what);
        let y = self.positive(it.expect(Rule::uint), what);
        Spanned::new(Pair::new(x, y), s)
    }

    /// A pair of coordinates, where 0 is fine.
    pub(super) fn coords(&mut self, n: Node) -> Pair {
        let mut it = Walk::of(n);
        let x = self.uint(it.expect(Rule::uint));
        let y = self.uint(it.expect(Rule::uint));
        Pair::new(x, y)
    }

    /// A number of an expression or a list: any finite value.
    pub(super) fn number(&mut self, n: &Node) -> f64 {
        match n.as_str().parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => {
                self.errors.push(
                    Diagnostic::error("E002", "number too large")
                        .label(span(n), "not a finite number")
                        .hint(format!(
                            "numbers of an expression are at most {:e}",
                            f64::MAX
                        )),
                );
                0.0
            }
        }
    }

    /// A window offset `dx` or `dy`.
    pub(super) fn offset(&mut self, n: &Node) -> i64 {
        n.as_str().parse::<i64>().unwrap_or_else(|_| {
            self.errors.push(
                Diagnostic::error("E002", "number too large")
                    .label(span(n), "not an offset a window can have"),
            );
            0
        })
    }
}
