//! The ports of a box: reads grouped into ports and named, the body's
//! placeholders named after them, and the IR ports the expansion writes.

use super::reads::{self, Kind, Read};
use super::{PortPlan, Val};
use crate::ir::{Arg, Direction, ElemType, Expr, ExprKind, Ident, Pair, Port, Span, Spanned};
use std::collections::{BTreeMap, BTreeSet};

/// The names `e` reads in this frame (not through `prev`).
pub(super) fn frame_names(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Number(_) => {}
        ExprKind::Port { port, .. } => out.push(port.name.clone()),
        ExprKind::Neg(a) => frame_names(a, out),
        ExprKind::Binary(_, a, b) | ExprKind::Compare(_, a, b) => {
            frame_names(a, out);
            frame_names(b, out);
        }
        ExprKind::Call { callee, args } => {
            if callee.name == "prev" {
                return;
            }
            for a in args {
                if let Arg::Expr(x) = a {
                    frame_names(x, out);
                }
            }
        }
    }
}

/// The reads grouped into ports, and each read's port. Reads of one value
/// with one delay and one way of reading share a port: an operator's
/// window is a port of its own, a plain or offset read joins a port whose
/// window holds its offsets.
pub(super) fn group(
    reads: &[Read],
    known: &[Option<Val>],
    out_mul: Pair,
    guess: ElemType,
    names: &BTreeMap<String, String>,
) -> (Vec<PortPlan>, Vec<usize>) {
    let mut ports: Vec<(PortPlan, Kind, bool)> = Vec::new();
    let mut of = vec![usize::MAX; reads.len()];
    let key = |p: &(PortPlan, Kind, bool), r: &Read| {
        p.0.value == r.value.name
            && p.1 == r.kind
            && p.0.delay.map(f64::to_bits) == r.delay.map(f64::to_bits)
    };
    let mul = |k: Kind| match k {
        Kind::Same => out_mul,
        Kind::Down(m) => m,
        Kind::Up(_) => Pair::ONE,
    };
    let new_port = |r: &Read, v: &Option<Val>, window: Option<Pair>, free: bool| {
        (
            PortPlan {
                name: String::new(),
                value: r.value.name.clone(),
                ty: v.as_ref().map_or(guess, |v| v.ty),
                mul: mul(r.kind),
                window,
                delay: r.delay,
            },
            r.kind,
            free,
        )
    };
    for (k, r) in reads.iter().enumerate() {
        if let Some(w) = r.window {
            of[k] = match ports
                .iter()
                .position(|p| key(p, r) && p.0.window == Some(w))
            {
                Some(p) => p,
                None => {
                    ports.push(new_port(r, &known[k], Some(w), false));
                    ports.len() - 1
                }
            };
        }
    }
    for (k, r) in reads.iter().enumerate() {
        if r.window.is_some() {
            continue;
        }
        let need = Pair::new(2 * r.reach.0 + 1, 2 * r.reach.1 + 1);
        let holds = |w: Option<Pair>| {
            let w = w.unwrap_or(Pair::ONE);
            w.x >= need.x && w.y >= need.y
        };
        of[k] = if let Some(p) = ports.iter().position(|p| key(p, r) && holds(p.0.window)) {
            p
        } else if let Some(p) = ports.iter().position(|p| key(p, r) && p.2) {
            let w = ports[p].0.window.unwrap_or(Pair::ONE);
            ports[p].0.window = Some(Pair::new(w.x.max(need.x), w.y.max(need.y)));
            p
        } else {
            let w = (need != Pair::ONE).then_some(need);
            ports.push(new_port(r, &known[k], w, true));
            ports.len() - 1
        };
    }
    let mut taken = BTreeSet::new();
    let mut out: Vec<PortPlan> = Vec::new();
    for (mut p, _, _) in ports {
        let v = names.get(&p.value).unwrap_or(&p.value);
        let base = match (p.delay.is_some(), v.as_str()) {
            (true, v) => format!("{v}_prev"),
            (false, "out") => "out_in".to_string(),
            (false, v) => v.to_string(),
        };
        let mut name = base.clone();
        let mut k = 2;
        while !taken.insert(name.clone()) {
            name = format!("{base}_{k}");
            k += 1;
        }
        p.name = name;
        out.push(p);
    }
    (out, of)
}

/// `e` with placeholder port `k` (reads::placeholder) named `names[k]`.
pub(super) fn rename(e: &Expr, names: &[String]) -> Expr {
    reads::map_ports(e, &|p| {
        p.strip_prefix('\u{0}')
            .and_then(|k| k.parse::<usize>().ok())
            .map_or(p.to_string(), |k| names[k].clone())
    })
}

/// A port the expansion writes (no span).
pub(super) fn ir_port(
    name: &str,
    direction: Direction,
    ty: ElemType,
    mul: Pair,
    window: Option<Pair>,
) -> Port {
    Port {
        name: Ident::new(name),
        direction,
        ty,
        mul: Spanned::bare(mul),
        window: window.map(Spanned::bare),
        span: Span::NONE,
    }
}
