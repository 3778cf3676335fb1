//! The walk of pest's parse tree that every builder of the syntax uses.
//!
//! Takes a node of the tree [`SscParser`](super::grammar::SscParser)
//! built; gives its children, keyword tokens left out, one at a time
//! ([`Walk::next`], [`Walk::expect`], [`Walk::optional`]), and the span and
//! name of a node ([`span`], [`ident`]). Guarantees: a child that the
//! grammar promises and the tree lacks (the grammar and a builder
//! disagree) stops with an internal error that names the rule of the
//! parent and the rule wanted, never with a bare `unwrap`; on a tree the
//! grammar built, that cannot happen.

use super::grammar::Rule;
use crate::ir::{Ident, Span};
use pest::iterators::{Pair as PPair, Pairs};

/// A node of pest's parse tree.
pub(super) type Node<'a> = PPair<'a, Rule>;

/// Keyword tokens carry no information; the builders skip them.
fn not_keyword(n: &Node) -> bool {
    !matches!(
        n.as_rule(),
        Rule::mul_kw
            | Rule::container_kw
            | Rule::function_kw
            | Rule::op_w
            | Rule::op_s
            | Rule::op_e
            | Rule::op_b
            | Rule::chain_kw
            | Rule::param_kw
            | Rule::input_kw
            | Rule::fn_kw
            | Rule::kernel_kw
            | Rule::output_kw
    )
}

/// A node's children, keyword tokens filtered out, with a look ahead.
type Children<'a> = std::iter::Peekable<std::iter::Filter<Pairs<'a, Rule>, fn(&Node) -> bool>>;

/// The children of a node, keyword tokens left out, read in order.
pub(super) struct Walk<'a> {
    /// The rule of the node whose children these are (for the message).
    parent: Rule,
    it: Children<'a>,
}

impl<'a> Walk<'a> {
    /// The walk of the children of `n`.
    pub(super) fn of(n: Node<'a>) -> Self {
        let keep: fn(&Node) -> bool = not_keyword;
        Walk {
            parent: n.as_rule(),
            it: n.into_inner().filter(keep).peekable(),
        }
    }

    /// The next child, whatever its rule (where the grammar allows
    /// several there).
    pub(super) fn next(&mut self) -> Node<'a> {
        match self.it.next() {
            Some(n) => n,
            None => self.missing("another child"),
        }
    }

    /// The next child, which the grammar makes a `rule`.
    pub(super) fn expect(&mut self, rule: Rule) -> Node<'a> {
        match self.it.next() {
            Some(n) if n.as_rule() == rule => n,
            Some(n) => panic!(
                "internal error: the parse tree of `{:?}` has a `{:?}` where the grammar puts a `{rule:?}`",
                self.parent,
                n.as_rule()
            ),
            None => self.missing(&format!("a `{rule:?}`")),
        }
    }

    /// The next child if it is a `rule` (an optional part of the grammar).
    pub(super) fn optional(&mut self, rule: Rule) -> Option<Node<'a>> {
        self.it.next_if(|n| n.as_rule() == rule)
    }

    /// The next child if there is one, whatever its rule.
    pub(super) fn maybe(&mut self) -> Option<Node<'a>> {
        self.it.next()
    }

    /// The children not read yet.
    pub(super) fn rest(self) -> impl Iterator<Item = Node<'a>> {
        self.it
    }

    fn missing(&self, what: &str) -> ! {
        panic!(
            "internal error: the parse tree of `{:?}` ends where the grammar puts {what}",
            self.parent
        )
    }
}

/// The children of a node, keyword tokens left out.
pub(super) fn kids(n: Node) -> impl Iterator<Item = Node> {
    Walk::of(n).rest()
}

/// The only child of a node that the grammar gives exactly one (an
/// alternative such as `direction`, `arena`, `op`), keyword tokens left out.
pub(super) fn only(n: Node) -> Node {
    Walk::of(n).next()
}

pub(super) fn span(n: &Node) -> Span {
    Span::new(n.as_span().start(), n.as_span().end())
}

pub(super) fn ident(n: Node) -> Ident {
    Ident::spanned(n.as_str(), span(&n))
}
