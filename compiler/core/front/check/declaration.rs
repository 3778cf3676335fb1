//! The `declaration` section.
//!
//! Takes a [`Declaration`]; gives E004 (duplicate function declarations,
//! functions, ports), E005 (a function of an undeclared kind), E011, E031 and
//! E032 (a built-in declared with the wrong ports), E033 (a buffer past 2^63
//! bytes) and the connection checks of [`connections`](super::connections)
//! with grids from each function's resolution. Guarantees: when nothing is
//! reported, the declaration is a well-typed DAG in which every input has
//! exactly one driver with the same grid.

use super::connections::{self, Node, Scope};
use super::{builtins, names, ports};
use crate::diagnostics::Diagnostic;
use crate::ir::{Declaration, FunctionDecl, Span};
use std::collections::HashMap;

pub(super) fn check(d: &Declaration, dir: Option<&std::path::Path>, out: &mut Vec<Diagnostic>) {
    names::duplicates(
        "function declaration",
        d.function_decls.iter().map(|f| &f.name),
        out,
    );
    let mut decls: HashMap<&str, &FunctionDecl> = HashMap::new();
    for f in &d.function_decls {
        ports::check_ports(&f.name.name, &f.ports, out);
        if d.definition(&f.name.name).is_none() {
            builtins::check(
                &f.name.name,
                &f.name.name,
                &f.ports,
                f.name.span,
                Span::NONE,
                out,
            );
        }
        decls.entry(&f.name.name).or_insert(f);
    }
    let ports_of = |f: &str| decls.get(f).map(|x| x.ports.as_slice());
    super::definitions::check(
        &d.definitions,
        ports_of,
        "declare it: function_declaration",
        dir,
        out,
    );
    super::rows::check(
        d.function_decls
            .iter()
            .map(|f| (&f.name, f.rows, f.name.span)),
        &d.definitions,
        out,
    );
    names::duplicates("function", d.functions.iter().map(|f| &f.name), out);
    let mut nodes = Vec::new();
    for f in &d.functions {
        let decl = decls.get(f.function.name.as_str());
        if decl.is_none() {
            out.push(names::undefined(
                format!(
                    "function `{}` is an instance of undeclared `{}`",
                    f.name, f.function
                ),
                &f.function.name,
                f.function.span,
                d.function_decls.iter().map(|x| x.name.name.as_str()),
            ));
        }
        let ports = decl.map(|x| x.ports.as_slice());
        if let Some(ps) = ports {
            for p in ps {
                let name = format!("{}.{}", f.name, p.name);
                if !ports::check_size(&name, p, f.resolution.value, f.resolution.span, out) {
                    break;
                }
            }
        }
        nodes.push(Node {
            name: &f.name.name,
            span: f.name.span,
            ports,
            res: Some(f.resolution.value),
        });
    }
    let scope = Scope {
        kind: "function",
        place: "the declaration".to_string(),
        nodes,
        own: None,
    };
    connections::check(&scope, &d.connections, out);
}
