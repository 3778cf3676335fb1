//! Writes the composition of a planned chain.
//!
//! Takes the chain, its scope and the plans of its boxes and sinks; gives
//! the `composition` section: the containers (a source per input type, a
//! container per box, boxes with the same ports and expression sharing
//! one, a sink per output type, and the chain's own), their bindings, the
//! definitions, one `container_composition` with every instance and
//! connection in the order the chain was written (sources, boxes, sinks),
//! and `compose` at the first input's size. Guarantees: every name is
//! unique in its scope; the same plans give the same section.

use super::reads::map_ports;
use super::scope::Scope;
use super::{BoxPlan, SinkPlan, Val};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn composition(
    chain: &Chain,
    scope: &Scope,
    values: &BTreeMap<String, Val>,
    boxes: &[BoxPlan],
    sinks: &[SinkPlan],
) -> Composition {
    let mut c = Composition::default();
    let mut names: BTreeSet<String> = BTreeSet::from([chain.name.name.clone()]);
    let mut unique = |base: &str| {
        let mut n = base.to_string();
        let mut k = 2;
        while names.contains(&n) || builtins::builtin_of(&n).is_some() {
            n = format!("{base}_{k}");
            k += 1;
        }
        names.insert(n.clone());
        n
    };
    let inputs: Vec<&(&ChainInput, Pair)> = scope
        .inputs
        .iter()
        .filter(|(i, _)| values.contains_key(&i.name.name))
        .collect();
    let composed = inputs.first().map_or(Pair::ONE, |(_, s)| *s);
    let resolution = |r: Pair| {
        if r == composed {
            InstanceResolution::Index
        } else {
            InstanceResolution::Explicit(Spanned::bare(r))
        }
    };
    let mut instances = Vec::new();
    let mut connections = Vec::new();
    // Sources and sinks: one container a type.
    let mut ends: BTreeMap<(bool, ElemType), String> = BTreeMap::new();
    let mut end =
        |c: &mut Composition, sink: bool, ty: ElemType, unique: &mut dyn FnMut(&str) -> String| {
            if let Some(n) = ends.get(&(sink, ty)) {
                return n.clone();
            }
            let (kind, port, dir) = if sink {
                ("sink", "in", Direction::In)
            } else {
                ("source", "out", Direction::Out)
            };
            let name = unique(&format!("{kind}_{}", ty.keyword()));
            c.containers.push(ContainerDecl {
                name: Ident::new(&name),
                ports: vec![port_of(port, dir, ty, Pair::ONE, None)],
                span: Span::NONE,
            });
            c.binds
                .push(bind(&name, &format!("func_{kind}_{}", ty.keyword())));
            ends.insert((sink, ty), name.clone());
            name
        };
    for (i, size) in &inputs {
        let container = end(&mut c, false, i.ty, &mut unique);
        instances.push(instance(
            &i.name.name,
            &container,
            resolution(*size),
            i.name.span,
        ));
    }
    // Boxes: one container for the boxes of one signature.
    let mut shared: Vec<(Signature, String, Vec<String>)> = Vec::new();
    for b in boxes {
        let sig = signature(b);
        let (container, port_names) = match shared.iter().find(|(s, _, _)| *s == sig) {
            Some((_, n, ports)) => (n.clone(), ports.clone()),
            None => {
                let n = unique(&b.container);
                let mut ports: Vec<Port> = b
                    .ports
                    .iter()
                    .map(|p| port_of(&p.name, Direction::In, p.ty, p.mul, p.window))
                    .collect();
                ports.push(port_of("out", Direction::Out, b.out_ty, b.out_mul, None));
                c.containers.push(ContainerDecl {
                    name: Ident::new(&n),
                    ports,
                    span: Span::NONE,
                });
                c.binds.push(bind(&n, &n));
                c.definitions.push(Definition {
                    name: Ident::new(&n),
                    assignments: vec![Assignment {
                        port: Ident::new("out"),
                        value: b.body.clone(),
                        span: b.body.span,
                    }],
                    span: Span::NONE,
                });
                let port_names: Vec<String> = b.ports.iter().map(|p| p.name.clone()).collect();
                shared.push((sig, n.clone(), port_names.clone()));
                (n, port_names)
            }
        };
        let at = b.written.as_ref().map_or(Span::NONE, |w| w.span);
        instances.push(instance(
            &b.instance,
            &container,
            resolution(b.resolution),
            at,
        ));
        for (p, name) in b.ports.iter().zip(&port_names) {
            connections.push(Connection {
                from: PortRef::new(&values[&p.value].instance, "out"),
                to: PortRef::new(&b.instance, name),
                delay: p.delay.map(Spanned::bare),
                span: Span::NONE,
            });
        }
    }
    for s in sinks {
        let v = &values[&s.value];
        let container = end(&mut c, true, v.ty, &mut unique);
        let r = Pair::new(v.size.x, v.size.y);
        instances.push(instance(
            &s.name.name,
            &container,
            resolution(r),
            s.name.span,
        ));
        connections.push(Connection {
            from: PortRef::new(&v.instance, "out"),
            to: PortRef::new(&s.name.name, "in"),
            delay: None,
            span: Span::NONE,
        });
    }
    c.containers.push(ContainerDecl {
        name: chain.name.clone(),
        ports: Vec::new(),
        span: Span::NONE,
    });
    c.compositions.push(ContainerComposition {
        name: chain.name.clone(),
        instances,
        connections,
        span: Span::NONE,
    });
    c.compose = Some(Compose {
        container: chain.name.clone(),
        resolution: Spanned::bare(composed),
        span: Span::NONE,
    });
    c
}

/// What two boxes must share to share a container: their ports' types,
/// `mul`s and windows, their output's, and their expression with the
/// ports numbered in order.
#[derive(PartialEq)]
struct Signature {
    ports: Vec<(ElemType, Pair, Option<Pair>)>,
    out: (ElemType, Pair),
    body: Expr,
}

fn signature(b: &BoxPlan) -> Signature {
    let index: BTreeMap<&str, usize> = b
        .ports
        .iter()
        .enumerate()
        .map(|(k, p)| (p.name.as_str(), k))
        .collect();
    Signature {
        ports: b.ports.iter().map(|p| (p.ty, p.mul, p.window)).collect(),
        out: (b.out_ty, b.out_mul),
        body: map_ports(&b.body, &|p| {
            index.get(p).map_or(p.to_string(), |k| format!("\u{0}{k}"))
        }),
    }
}

fn port_of(
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

fn bind(container: &str, function: &str) -> Bind {
    Bind {
        container: Ident::new(container),
        function: Ident::new(function),
        parallelism: Parallelism::Full,
        rows: false,
        span: Span::NONE,
    }
}

fn instance(name: &str, container: &str, resolution: InstanceResolution, span: Span) -> Instance {
    Instance {
        name: Ident::spanned(name, span),
        container: Ident::new(container),
        resolution,
        span,
    }
}
