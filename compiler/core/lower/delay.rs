//! State copies for delayed connections (docs/language.md, "Delays").
//!
//! Takes a composed declaration; gives it with a copy function inserted
//! wherever a delayed connection `P.o -> C.i delay V` reads a buffer that
//! `C` itself, or something `C` depends on within an iteration, writes
//! first: `C == P`, or `P` reaches `C` through connections without a
//! delay. There the one buffer of `P.o` cannot hold both iterations —
//! iteration k's `P` would overwrite what iteration k's `C` still has to
//! read — so the connection becomes `P.o -> S.in; S.out -> C.i delay V`,
//! where `S` (named `P_o_state`) is a `func_copy_state_TYPE` at the
//! resolution of `P.o`'s grid. `S` writes its buffer only after every
//! delayed reader has read it (the 0-token write-after-read edges of the
//! HSDFG), which is then no cycle.
//!
//! Guarantees: a declaration this gives back needs no further copy (the
//! pass is idempotent, so `-t interpreter`'s output lowers to itself);
//! several delayed readers of one port share one copy; names are unique
//! among the declaration's instances. Only composed declarations pass
//! here: a declaration written by hand is honoured as written, and a
//! delayed connection in it that needs a copy is refused (E135) by
//! [`check`].

use crate::diagnostics::Diagnostic;
use crate::ir::{
    Connection, Declaration, Direction, ElemType, Function, FunctionDecl, Ident, Pair, Parallelism,
    Port, PortRef, Span, Spanned,
};
use std::collections::{BTreeMap, BTreeSet};

/// The built-in variant that copies a delayed buffer of type `ty`.
pub fn state_function(ty: ElemType) -> String {
    format!("func_copy_state_{}", ty.keyword())
}

/// Whether `to` is reachable from `from` through connections without a
/// delay (`from == to` counts).
fn reaches(d: &Declaration, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::from([from.to_string()]);
    let mut stack = vec![from.to_string()];
    while let Some(f) = stack.pop() {
        if f == to {
            return true;
        }
        for c in d.connections.iter().filter(|c| c.delay.is_none()) {
            if c.from.owner_name() == f && seen.insert(c.to.owner_name().to_string()) {
                stack.push(c.to.owner_name().to_string());
            }
        }
    }
    false
}

/// The delayed connections of `d` whose buffer needs a copy, by index.
fn needing_copy(d: &Declaration) -> Vec<usize> {
    d.connections
        .iter()
        .enumerate()
        .filter(|(_, c)| c.delay.is_some())
        .filter(|(_, c)| reaches(d, c.from.owner_name(), c.to.owner_name()))
        .map(|(i, _)| i)
        .collect()
}

/// The type and grid of an OUT port `f.p`, when the declaration knows it.
fn out_port(d: &Declaration, r: &PortRef) -> Option<(ElemType, Pair)> {
    let f = d.function(r.owner_name())?;
    let p = d
        .function_decl(f.function.as_str())?
        .ports
        .iter()
        .find(|p| p.name.name == r.port.name && p.direction == Direction::Out)?;
    Some((p.ty, p.grid(f.resolution.value)?))
}

fn plain_port(name: &str, direction: Direction, ty: ElemType) -> Port {
    Port {
        name: Ident::new(name),
        direction,
        ty,
        mul: Spanned::bare(Pair::new(1, 1)),
        window: None,
        span: Span::NONE,
    }
}

/// Inserts the state copies a composed declaration needs (module doc).
pub fn insert_states(d: &mut Declaration) {
    let mut copies: BTreeMap<String, String> = BTreeMap::new();
    for i in needing_copy(d) {
        let from = d.connections[i].from.clone();
        let Some((ty, grid)) = out_port(d, &from) else {
            continue; // the checker has reported the unknown port
        };
        let key = from.to_string();
        let name = match copies.get(&key) {
            Some(n) => n.clone(),
            None => {
                let n = unique_name(d, &format!("{}_{}_state", from.owner_name(), from.port));
                let func = state_function(ty);
                if d.function_decl(&func).is_none() {
                    d.function_decls.push(FunctionDecl {
                        name: Ident::new(&func),
                        parallelism: Parallelism::Full,
                        rows: false,
                        ports: vec![
                            plain_port("in", Direction::In, ty),
                            plain_port("out", Direction::Out, ty),
                        ],
                        span: Span::NONE,
                    });
                }
                let id = crate::ir::StableId(Some(d.functions.len() as u32));
                d.functions.push(Function {
                    name: Ident::new(&n),
                    function: Ident::new(&func),
                    resolution: Spanned::bare(grid),
                    span: Span::NONE,
                    id,
                });
                d.connections.push(Connection {
                    from: from.clone(),
                    to: PortRef::new(&n, "in"),
                    delay: None,
                    span: Span::NONE,
                });
                copies.insert(key, n.clone());
                n
            }
        };
        d.connections[i].from = PortRef::new(&name, "out");
    }
}

fn unique_name(d: &Declaration, base: &str) -> String {
    let mut n = base.to_string();
    let mut k = 1;
    while d.function(&n).is_some() {
        n = format!("{base}{k}");
        k += 1;
    }
    n
}

/// E135 for each delayed connection of a declaration written by hand that
/// would need a copy: its reader is its writer, or depends on it within an
/// iteration, so one buffer cannot hold both iterations.
pub fn check(d: &Declaration) -> Vec<Diagnostic> {
    needing_copy(d)
        .into_iter()
        .map(|i| {
            let c = &d.connections[i];
            let why = if c.from.owner_name() == c.to.owner_name() {
                format!("`{}` reads its own output of the previous iteration", c.to.owner_name())
            } else {
                format!(
                    "`{}` also depends on `{}` within an iteration",
                    c.to.owner_name(),
                    c.from.owner_name()
                )
            };
            Diagnostic::error(
                "E135",
                format!("the delayed connection `{} -> {}` needs a state copy", c.from, c.to),
            )
            .label(c.span, why)
            .hint(format!(
                "keep the previous value in a copy: `{f} -> S.in; S.out -> {t} delay V;` with S a func_copy (a composition inserts it itself)",
                f = c.from,
                t = c.to
            ))
        })
        .collect()
}
