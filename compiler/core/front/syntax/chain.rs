//! Builds a [`Chain`] from pest's tree of `chain NAME { … }`
//! (grammar/ssc.pest, "chain"): the statements as written, in order.

use super::grammar::Rule;
use super::parse::{ident, kids, span, Builder, Node};
use crate::ir::{
    Chain, ChainFn, ChainInput, ChainKernel, ChainStmt, ChainValue, ElemType, Expr, KernelParam,
    Param,
};

impl Builder {
    pub(super) fn chain_section(&mut self, n: Node) -> Chain {
        let s = span(&n);
        let mut it = kids(n);
        let name = ident(it.next().expect("a chain has a name"));
        let statements = it.map(|stmt| self.chain_stmt(stmt)).collect();
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
                let mut parts: Vec<Node> = kids(n).collect();
                let body = parts.pop().expect("a fn has a body");
                let mut parts = parts.into_iter();
                let name = ident(parts.next().expect("a fn has a name"));
                let params = parts.map(ident).collect();
                let body = self.chain_expr(body);
                ChainStmt::Fn(ChainFn {
                    name,
                    params,
                    body,
                    span: s,
                })
            }
            Rule::chain_kernel => {
                let mut it = kids(n).peekable();
                let name = ident(it.next().expect("a kernel has a name"));
                let mut params = Vec::new();
                while let Some(p) = it.next_if(|p| p.as_rule() == Rule::kernel_param) {
                    let mut parts = kids(p);
                    let pname = ident(parts.next().expect("a parameter has a name"));
                    let ty = ElemType::from_keyword(parts.next().expect("a type").as_str())
                        .expect("grammar lists types");
                    let window = parts.next().map(|w| self.pair(w, "a window"));
                    params.push(KernelParam {
                        name: pname,
                        ty,
                        window,
                    });
                }
                let output = ElemType::from_keyword(it.next().expect("a type").as_str())
                    .expect("grammar lists types");
                ChainStmt::Kernel(ChainKernel {
                    name,
                    params,
                    output,
                    rows: it.next().is_some(),
                    span: s,
                })
            }
            rule => {
                let mut it = kids(n);
                let name = ident(it.next().expect("a value has a name"));
                let value = self.chain_expr(it.next().expect("a value has an expression"));
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
        let mut it = kids(n);
        let name = ident(it.next().expect("a parameter has a name"));
        let v = it.next().expect("a parameter has a value");
        Param {
            name,
            value: self.number(&v),
            value_span: span(&v),
            span: s,
        }
    }

    fn chain_input(&mut self, n: Node) -> ChainInput {
        let s = span(&n);
        let mut it = kids(n);
        let name = ident(it.next().expect("an input has a name"));
        let ty = ElemType::from_keyword(it.next().expect("a type").as_str())
            .expect("grammar lists types");
        let width = self.chain_expr(it.next().expect("a width"));
        let height = self.chain_expr(it.next().expect("a height"));
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
