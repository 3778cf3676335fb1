//! The pieces that several sections share: ports, port references,
//! connections, parallelism and sub-box references.
//!
//! Takes the node of one such piece; gives its IR with spans. Guarantees:
//! the IR holds what the text says; numbers out of range are diagnostics
//! of the builder ([`numbers`](super::numbers)).

use super::grammar::Rule;
use super::parse::Builder;
use super::walk::{ident, only, span, Node, Walk};
use crate::ir::{Connection, Direction, ElemType, Parallelism, Port, PortRef, Spanned, SubBoxRef};

/// The element type a type keyword names.
pub(super) fn elem_type(n: Node) -> ElemType {
    ElemType::from_keyword(n.as_str()).expect("grammar lists types")
}

impl Builder {
    /// A port of a container or a function declaration.
    pub(super) fn port(&mut self, n: Node) -> Port {
        let s = span(&n);
        let mut it = Walk::of(n);
        let name = ident(it.expect(Rule::ident));
        let direction = match only(it.expect(Rule::direction)).as_rule() {
            Rule::kw_in => Direction::In,
            _ => Direction::Out,
        };
        let ty = elem_type(it.expect(Rule::elem_type));
        let mul = self.pair(it.expect(Rule::pair), "a `mul` factor");
        let window = it.optional(Rule::pair).map(|w| self.pair(w, "a window"));
        Port {
            name,
            direction,
            ty,
            mul,
            window,
            span: s,
        }
    }

    /// `NONE` or `FULL`.
    pub(super) fn parallelism(n: Node) -> Parallelism {
        match only(n).as_rule() {
            Rule::kw_none => Parallelism::None,
            _ => Parallelism::Full,
        }
    }

    /// `NAME.PORT` or `self.PORT`.
    pub(super) fn port_ref(n: Node) -> PortRef {
        let s = span(&n);
        let mut it = Walk::of(n);
        let owner = it.next();
        let owner = if owner.as_rule() == Rule::self_kw {
            None
        } else {
            Some(ident(owner))
        };
        PortRef {
            owner,
            port: ident(it.expect(Rule::ident)),
            span: s,
        }
    }

    /// `A.p -> B.q;`, with its `delay` if it has one.
    pub(super) fn connection(&mut self, n: Node) -> Connection {
        let s = span(&n);
        let mut it = Walk::of(n);
        let from = Self::port_ref(it.expect(Rule::port_ref));
        let to = Self::port_ref(it.expect(Rule::port_ref));
        let delay = it.maybe().map(|d| {
            let v = d.into_inner().find(|x| x.as_rule() == Rule::signed_literal);
            let v = v.expect("the grammar gives `delay` a number");
            Spanned::new(self.number(&v), span(&v))
        });
        Connection {
            from,
            to,
            delay,
            span: s,
        }
    }

    /// `F.k`.
    pub(super) fn subbox_ref(&mut self, n: Node) -> SubBoxRef {
        let s = span(&n);
        let mut it = Walk::of(n);
        let function = ident(it.expect(Rule::ident));
        let index = self.uint(it.expect(Rule::uint));
        SubBoxRef {
            function,
            index,
            span: s,
        }
    }
}
