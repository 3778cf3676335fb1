//! State copies for delayed connections (docs/language.md, "Delays").
//!
//! Takes a composed declaration; gives it with a copy function inserted
//! wherever a delayed connection `P.o -> C.i delay V` reads a buffer that
//! `C` itself, or something `C` depends on within an iteration, writes
//! first: `C == P`, or `P` reaches `C` through connections without a
//! delay, or through the orders that other delayed connections without a
//! copy impose (each delayed reader before its writer: two functions
//! reading each other's previous output). There the one buffer of `P.o` cannot hold both iterations —
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
/// delay and the write-after-read edges `war` (a delayed reader before
/// the writer it reads; `from == to` counts).
fn reaches(d: &Declaration, war: &[(String, String)], from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::from([from.to_string()]);
    let mut stack = vec![from.to_string()];
    while let Some(f) = stack.pop() {
        if f == to {
            return true;
        }
        let next = d
            .connections
            .iter()
            .filter(|c| c.delay.is_none() && c.from.owner_name() == f)
            .map(|c| c.to.owner_name())
            .chain(war.iter().filter(|(r, _)| *r == f).map(|(_, w)| w.as_str()));
        for g in next {
            if seen.insert(g.to_string()) {
                stack.push(g.to_string());
            }
        }
    }
    false
}

/// The delayed connections of `d` whose buffer needs a copy, by index,
/// with why. A delayed connection `P.o -> C.i` without a copy orders `C`
/// before `P` within an iteration (`C` reads the previous value before
/// `P` overwrites it); it needs a copy when that order is impossible:
/// `P` reaches `C` through connections without a delay, or through the
/// orders of the delayed connections before it that keep no copy (two
/// functions reading each other's previous output). In the order of the
/// connections, so the pass is idempotent.
fn needing_copy(d: &Declaration) -> Vec<(usize, Why)> {
    let mut war: Vec<(String, String)> = Vec::new();
    let mut out = Vec::new();
    for (i, c) in d.connections.iter().enumerate() {
        if c.delay.is_none() {
            continue;
        }
        let (p, r) = (c.from.owner_name(), c.to.owner_name());
        if p == r {
            out.push((i, Why::Own));
        } else if reaches(d, &[], p, r) {
            out.push((i, Why::Depends));
        } else if reaches(d, &war, p, r) {
            out.push((i, Why::Cycle));
        } else {
            war.push((r.to_string(), p.to_string()));
        }
    }
    out
}

/// Why a delayed connection needs a copy ([`needing_copy`]).
enum Why {
    /// Its reader is its writer.
    Own,
    /// Its reader depends on its writer within an iteration.
    Depends,
    /// Its reader must run first, and other delayed reads order it after.
    Cycle,
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
    for (i, _) in needing_copy(d) {
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
/// would need a copy: its reader is its writer, depends on it within an
/// iteration, or must run before it while other delayed reads order it
/// after, so one buffer cannot hold both iterations.
pub fn check(d: &Declaration) -> Vec<Diagnostic> {
    needing_copy(d)
        .into_iter()
        .map(|(i, why)| {
            let c = &d.connections[i];
            let (r, w) = (c.to.owner_name(), c.from.owner_name());
            let why = match why {
                Why::Own => format!("`{r}` reads its own output of the previous iteration"),
                Why::Depends => format!("`{r}` also depends on `{w}` within an iteration"),
                Why::Cycle => format!(
                    "`{r}` must read `{w}`'s previous output before `{w}` runs, but other delayed reads (each before the writer it reads) order `{w}` first"
                ),
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
