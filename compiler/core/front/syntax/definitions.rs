//! Function definitions and their expressions (`function_definition`).
//!
//! Takes a `function_definition` node, or an expression node (`expr`,
//! `sum`, `product` and what they hold); gives the [`Definition`] or the
//! [`Expr`] with spans, operators grouped left to right as the grammar
//! reads them. Guarantees: an expression deeper than [`MAX_EXPR_DEPTH`]
//! (E057) or of more than [`MAX_EXPR_NODES`] nodes (E058) is reported
//! once, and past the limit the rest is built as `0`, so that no walk of
//! the tree, its drop included, goes deeper than the limit.

use super::grammar::Rule;
use super::parse::{too_deep, Builder};
use super::walk::{ident, kids, only, span, Node, Walk};
use crate::diagnostics::Diagnostic;
use crate::ir::{
    Arg, Assignment, BinOp, CmpOp, Definition, Expr, ExprKind, Span, MAX_EXPR_DEPTH, MAX_EXPR_NODES,
};

impl Builder {
    pub(super) fn definition(&mut self, n: Node) -> Definition {
        let s = span(&n);
        let mut it = Walk::of(n);
        let name = ident(it.expect(Rule::ident));
        let assignments = it
            .rest()
            .map(|a| {
                let as_ = span(&a);
                let mut parts = Walk::of(a);
                let port = ident(parts.expect(Rule::ident));
                self.nodes = 0;
                self.limited = false;
                let value = self.expr(parts.expect(Rule::expr));
                Assignment {
                    port,
                    value,
                    span: as_,
                }
            })
            .collect();
        Definition {
            name,
            assignments,
            span: s,
        }
    }

    /// `expr`, `sum`, `product`: a left-to-right chain of operators.
    pub(super) fn expr(&mut self, n: Node) -> Expr {
        self.chain(n).0
    }

    /// An expression and the depth of its tree. Past a limit (E057, E058,
    /// reported once an expression) the rest is built as `0`.
    fn chain(&mut self, n: Node) -> (Expr, usize) {
        let mut it = Walk::of(n);
        let (mut acc, mut depth) = self.operand(it.next());
        while let Some(op) = it.maybe() {
            let (rhs, rd) = self.operand(it.next());
            let s = acc.span.join(rhs.span);
            depth = depth.max(rd) + 1;
            if self.limit(depth, span(&op)) {
                (acc, depth) = (Expr::new(ExprKind::Number(0.0), s), 1);
                continue;
            }
            let (l, r) = (Box::new(acc), Box::new(rhs));
            acc = match op.as_str() {
                "+" => Expr::new(ExprKind::Binary(BinOp::Add, l, r), s),
                "-" => Expr::new(ExprKind::Binary(BinOp::Sub, l, r), s),
                "*" => Expr::new(ExprKind::Binary(BinOp::Mul, l, r), s),
                "/" => Expr::new(ExprKind::Binary(BinOp::Div, l, r), s),
                c => Expr::new(
                    ExprKind::Compare(CmpOp::from_symbol(c).expect("grammar lists them"), l, r),
                    s,
                ),
            };
        }
        (acc, depth)
    }

    /// Counts a node of depth `depth` at `s`; whether it is past a limit
    /// (then the diagnostic, the first time, and the caller builds `0`
    /// instead of the node).
    fn limit(&mut self, depth: usize, s: Span) -> bool {
        self.nodes += 1;
        let err = if depth > MAX_EXPR_DEPTH {
            too_deep(s)
        } else if self.nodes > MAX_EXPR_NODES {
            Diagnostic::error(
                "E058",
                format!("expression of more than {MAX_EXPR_NODES} nodes"),
            )
            .label(s, format!("node {} is here", MAX_EXPR_NODES + 1))
            .hint(
                "split the expression: a function before this one can compute \
                 a part, and a long sum is a `stencil` or `separable`",
            )
        } else {
            return false;
        };
        if !self.limited {
            self.limited = true;
            self.errors.push(err);
        }
        true
    }

    fn operand(&mut self, n: Node) -> (Expr, usize) {
        let s = span(&n);
        let (e, depth) = match n.as_rule() {
            Rule::expr | Rule::sum | Rule::product => return self.chain(n),
            Rule::unary => return self.unary(n),
            Rule::literal => (Expr::new(ExprKind::Number(self.number(&n)), s), 1),
            Rule::access => {
                let mut it = Walk::of(n);
                let port = ident(it.expect(Rule::ident));
                let offset = it.optional(Rule::offset).map(|dx| {
                    let dy = it.expect(Rule::offset);
                    (self.offset(&dx), self.offset(&dy))
                });
                (Expr::new(ExprKind::Port { port, offset }, s), 1)
            }
            Rule::call => {
                let mut it = Walk::of(n);
                let callee = ident(only(it.expect(Rule::callee)));
                let mut depth = 0;
                let args = it
                    .rest()
                    .map(|a| {
                        let (arg, d) = self.argument(a);
                        depth = depth.max(d);
                        arg
                    })
                    .collect();
                (Expr::new(ExprKind::Call { callee, args }, s), depth + 1)
            }
            _ => unreachable!("the grammar's primaries: {:?}", n.as_rule()),
        };
        if self.limit(depth, s) {
            (Expr::new(ExprKind::Number(0.0), s), 1)
        } else {
            (e, depth)
        }
    }

    /// `-…- PRIMARY`: the primary, then each `-` from the inside out.
    fn unary(&mut self, n: Node) -> (Expr, usize) {
        let s = span(&n);
        let mut parts: Vec<Node> = kids(n).collect();
        let primary = parts.pop().expect("a primary");
        let (mut e, mut depth) = self.operand(primary);
        for neg in parts.into_iter().rev() {
            let ns = span(&neg).join(e.span);
            depth += 1;
            if self.limit(depth, span(&neg)) {
                (e, depth) = (Expr::new(ExprKind::Number(0.0), ns), 1);
                continue;
            }
            e = Expr::new(ExprKind::Neg(Box::new(e)), ns);
        }
        (Expr { span: s, ..e }, depth)
    }

    fn argument(&mut self, n: Node) -> (Arg, usize) {
        let inner = only(n);
        let s = span(&inner);
        match inner.as_rule() {
            Rule::list => (
                Arg::List(kids(inner).map(|v| self.number(&v)).collect(), s),
                0,
            ),
            Rule::text => {
                let t = inner.as_str();
                (Arg::Text(t[1..t.len() - 1].to_string(), s), 0)
            }
            _ => {
                let (e, d) = self.chain(inner);
                (Arg::Expr(e), d)
            }
        }
    }
}
