//! The `chain` section: `chain NAME { … }` (grammar/ssc.pest, "chain").
//!
//! Takes the section's node; gives its [`Chain`] with spans, the
//! statements as written, in order. Guarantees: each expression counts its
//! limits (E057, E058) on its own; nothing else is checked here.

use super::grammar::Rule;
use super::parse::Builder;
use super::ports::elem_type;
use super::walk::{ident, kids, span, Node, Walk};
use crate::ir::{
    Chain, ChainFn, ChainInput, ChainKernel, ChainStmt, ChainValue, Expr, KernelParam, Param,
};

impl Builder {
    pub(super) fn chain_section(&mut self, n: Node) -> Chain {
        let s = span(&n);
        let mut it = Walk::of(n);
        let name = ident(it.expect(Rule::ident));
        let statements = it.rest().map(|stmt| self.chain_stmt(stmt)).collect();
        Chain {
            name,
            statements,
            span: s,
        }
    }

    fn chain_stmt(&mut self, n: Node) -> ChainStmt {
        let s = span(&n);
        match n.as_rule() {
            Rule::chain_params => ChainStmt::Params(kids(n).map(|p| self.param(p)).collect(), s),
            Rule::chain_inputs => {
                ChainStmt::Inputs(kids(n).map(|i| self.chain_input(i)).collect(), s)
            }
            Rule::chain_fn => {
                let mut it = Walk::of(n);
                let name = ident(it.expect(Rule::ident));
                let mut params = Vec::new();
                while let Some(p) = it.optional(Rule::ident) {
                    params.push(ident(p));
                }
                let body = self.chain_expr(it.expect(Rule::expr));
                ChainStmt::Fn(ChainFn {
                    name,
                    params,
                    body,
                    span: s,
                })
            }
            Rule::chain_kernel => {
                let mut it = Walk::of(n);
                let name = ident(it.expect(Rule::ident));
                let mut params = Vec::new();
                while let Some(p) = it.optional(Rule::kernel_param) {
                    let mut parts = Walk::of(p);
                    let pname = ident(parts.expect(Rule::ident));
                    let ty = elem_type(parts.expect(Rule::elem_type));
                    let window = parts.optional(Rule::pair).map(|w| self.pair(w, "a window"));
                    params.push(KernelParam {
                        name: pname,
                        ty,
                        window,
                    });
                }
                let output = elem_type(it.expect(Rule::elem_type));
                ChainStmt::Kernel(ChainKernel {
                    name,
                    params,
                    output,
                    rows: it.maybe().is_some(),
                    span: s,
                })
            }
            rule => {
                let mut it = Walk::of(n);
                let name = ident(it.expect(Rule::ident));
                let value = self.chain_expr(it.expect(Rule::expr));
                ChainStmt::Value(ChainValue {
                    name,
                    output: rule == Rule::chain_output,
                    value,
                    span: s,
                })
            }
        }
    }

    fn param(&mut self, n: Node) -> Param {
        let s = span(&n);
        let mut it = Walk::of(n);
        let name = ident(it.expect(Rule::ident));
        let v = it.next();
        Param {
            name,
            value: self.number(&v),
            value_span: span(&v),
            span: s,
        }
    }

    fn chain_input(&mut self, n: Node) -> ChainInput {
        let s = span(&n);
        let mut it = Walk::of(n);
        let name = ident(it.expect(Rule::ident));
        let ty = elem_type(it.expect(Rule::elem_type));
        let width = self.chain_expr(it.expect(Rule::expr));
        let height = self.chain_expr(it.expect(Rule::expr));
        ChainInput {
            name,
            ty,
            width,
            height,
            span: s,
        }
    }

    /// One expression, its limits (E057, E058) counted on their own.
    fn chain_expr(&mut self, n: Node) -> Expr {
        self.nodes = 0;
        self.limited = false;
        self.expr(n)
    }
}
