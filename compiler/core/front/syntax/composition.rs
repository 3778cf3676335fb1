//! The `composition` section: containers, their binds to functions, their
//! compositions of instances and connections, definitions, `compose`.
//!
//! Takes the section's node; gives its [`Composition`] with spans, the
//! statements in the order written. Guarantees: a second `compose` is an
//! E003 diagnostic (the last one is kept); nothing else is checked here.

use super::grammar::Rule;
use super::parse::Builder;
use super::walk::{ident, kids, span, Node, Walk};
use crate::diagnostics::Diagnostic;
use crate::ir::{
    Bind, Compose, Composition, ContainerComposition, ContainerDecl, Instance, InstanceResolution,
    Span,
};

impl Builder {
    pub(super) fn composition(&mut self, n: Node) -> Composition {
        let mut c = Composition {
            span: span(&n),
            ..Default::default()
        };
        for stmt in kids(n) {
            let s = span(&stmt);
            match stmt.as_rule() {
                Rule::container_declaration => {
                    let mut it = Walk::of(stmt);
                    let name = ident(it.expect(Rule::ident));
                    let ports = it.rest().map(|p| self.port(p)).collect();
                    c.containers.push(ContainerDecl {
                        name,
                        ports,
                        span: s,
                    });
                }
                Rule::container_bind => c.binds.extend(kids(stmt).map(bind)),
                Rule::function_definition => c.definitions.push(self.definition(stmt)),
                Rule::container_composition => {
                    let cc = self.container_composition(stmt);
                    c.compositions.push(cc);
                }
                Rule::compose => {
                    let mut it = Walk::of(stmt);
                    let container = ident(it.expect(Rule::ident));
                    let resolution = self.pair(it.expect(Rule::pair), "a resolution");
                    if c.compose.is_some() {
                        self.errors.push(
                            Diagnostic::error("E003", "`compose` is given twice")
                                .label(s, "second `compose`")
                                .hint("a description composes exactly one top-level container"),
                        );
                    }
                    c.compose = Some(Compose {
                        container,
                        resolution,
                        span: s,
                    });
                }
                _ => {}
            }
        }
        c
    }

    fn container_composition(&mut self, n: Node) -> ContainerComposition {
        let s = span(&n);
        let mut it = Walk::of(n);
        let name = ident(it.expect(Rule::ident));
        let mut cc = ContainerComposition {
            name,
            instances: Vec::new(),
            connections: Vec::new(),
            span: s,
        };
        for item in it.rest() {
            match item.as_rule() {
                Rule::instances => {
                    for inst in kids(item) {
                        cc.instances.push(self.instance(inst));
                    }
                }
                _ => cc.connections.push(self.connection(item)),
            }
        }
        cc
    }

    fn instance(&mut self, n: Node) -> Instance {
        let s = span(&n);
        let mut it = Walk::of(n);
        let name = ident(it.expect(Rule::ident));
        let container = ident(it.expect(Rule::ident));
        let res = it.next();
        let resolution = match res.as_rule() {
            Rule::index_kw => InstanceResolution::Index,
            _ => InstanceResolution::Explicit(self.pair(res, "a resolution")),
        };
        Instance {
            name,
            container,
            resolution,
            span: s,
        }
    }
}

/// `CONTAINER FUNCTION PARALLELISM [ROWS]`.
fn bind(b: Node) -> Bind {
    // From the container to the last word: pest keeps the blank before an
    // absent `ROWS` in the pair.
    let bs = Span::new(
        b.as_span().start(),
        kids(b.clone())
            .last()
            .map_or(b.as_span().end(), |k| k.as_span().end()),
    );
    let mut it = Walk::of(b);
    Bind {
        container: ident(it.expect(Rule::ident)),
        function: ident(it.expect(Rule::ident)),
        parallelism: Builder::parallelism(it.expect(Rule::parallelism)),
        rows: it.maybe().is_some(),
        span: bs,
    }
}
