//! The `declaration` section: function declarations, function instances,
//! definitions and connections.
//!
//! Takes the section's node; gives its [`Declaration`] with spans, the
//! statements in the order written. Guarantees: the IR holds what the text
//! says (function ids are left at their default, for lowering to fill).

use super::grammar::Rule;
use super::parse::Builder;
use super::walk::{ident, kids, span, Node, Walk};
use crate::ir::{Declaration, Function, FunctionDecl};

impl Builder {
    pub(super) fn declaration(&mut self, n: Node) -> Declaration {
        let mut d = Declaration {
            span: span(&n),
            ..Default::default()
        };
        for stmt in kids(n) {
            let s = span(&stmt);
            match stmt.as_rule() {
                Rule::function_declaration => {
                    let mut it = Walk::of(stmt);
                    let name = ident(it.expect(Rule::ident));
                    let parallelism = Self::parallelism(it.expect(Rule::parallelism));
                    let rows = it.optional(Rule::kw_rows).is_some();
                    let ports = it.rest().map(|p| self.port(p)).collect();
                    d.function_decls.push(FunctionDecl {
                        name,
                        parallelism,
                        rows,
                        ports,
                        span: s,
                    });
                }
                Rule::functions => {
                    for f in kids(stmt) {
                        let fs = span(&f);
                        let mut it = Walk::of(f);
                        let name = ident(it.expect(Rule::ident));
                        let function = ident(it.expect(Rule::ident));
                        let resolution = self.pair(it.expect(Rule::pair), "a resolution");
                        d.functions.push(Function {
                            name,
                            function,
                            resolution,
                            span: fs,
                            id: Default::default(),
                        });
                    }
                }
                Rule::function_definition => d.definitions.push(self.definition(stmt)),
                Rule::connection => d.connections.push(self.connection(stmt)),
                _ => {}
            }
        }
        d
    }
}
