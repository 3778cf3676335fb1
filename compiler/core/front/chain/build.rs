//! Writes the composition of a planned chain.
//!
//! Takes the chain, its scope and the plans of its boxes and sinks; gives
//! the `composition` section: the containers (a source per input type, a
//! container per box, boxes with the same ports and expression sharing
//! one, a sink per output type, and the chain's own), their bindings, the
//! definitions, one `container_composition` with every instance and
//! connection in the order the chain was written (the sources, then the
//! boxes and sinks as their lines come),
//! and `compose` at the first input's size. Guarantees: every name is
//! unique in its scope; the same plans give the same section.

use super::reads::map_ports;
use super::scope::Scope;
use super::{ir_port, BoxPlan, SinkPlan, Val};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

pub(super) fn composition(
    chain: &Chain,
    scope: &Scope,
    values: &BTreeMap<String, Val>,
    boxes: &[BoxPlan],
    sinks: &[SinkPlan],
) -> Composition {
    let inputs: Vec<&(&ChainInput, Pair)> = scope
        .inputs
        .iter()
        .filter(|(i, _)| values.contains_key(&i.name.name))
        .collect();
    let mut w = Writer {
        c: Composition::default(),
        names: BTreeSet::from([chain.name.name.clone()]),
        ends: BTreeMap::new(),
        shared: Vec::new(),
        instances: Vec::new(),
        connections: Vec::new(),
        composed: inputs.first().map_or(Pair::ONE, |(_, s)| *s),
        values,
    };
    for (i, size) in &inputs {
        let container = w.end(false, i.ty);
        w.instance(&i.name.name, &container, *size, i.name.span);
    }
    let mut sinks_at = sinks.iter().peekable();
    for (k, b) in boxes.iter().enumerate() {
        while let Some(s) = sinks_at.next_if(|s| s.position <= k) {
            w.sink(s);
        }
        w.box_(b);
    }
    for s in sinks_at {
        w.sink(s);
    }
    let mut c = w.c;
    c.containers.push(ContainerDecl {
        name: chain.name.clone(),
        ports: Vec::new(),
        span: Span::NONE,
    });
    c.compositions.push(ContainerComposition {
        name: chain.name.clone(),
        instances: w.instances,
        connections: w.connections,
        span: Span::NONE,
    });
    c.compose = Some(Compose {
        container: chain.name.clone(),
        resolution: Spanned::bare(w.composed),
        span: Span::NONE,
    });
    c
}

struct Writer<'v> {
    c: Composition,
    /// The container names handed out.
    names: BTreeSet<String>,
    /// The source (false) or sink (true) container of each type.
    ends: BTreeMap<(bool, ElemType), String>,
    /// The containers of boxes: signature, name, port names.
    shared: Vec<(Signature, String, Vec<String>)>,
    instances: Vec<Instance>,
    connections: Vec<Connection>,
    composed: Pair,
    values: &'v BTreeMap<String, Val>,
}

impl Writer<'_> {
    /// A container name not given yet (nor a built-in's).
    fn unique(&mut self, base: &str) -> String {
        let mut n = base.to_string();
        let mut k = 2;
        while self.names.contains(&n) || builtins::builtin_of(&n).is_some() {
            n = format!("{base}_{k}");
            k += 1;
        }
        self.names.insert(n.clone());
        n
    }

    /// The source or sink container of type `ty`.
    fn end(&mut self, sink: bool, ty: ElemType) -> String {
        if let Some(n) = self.ends.get(&(sink, ty)) {
            return n.clone();
        }
        let (kind, port, dir) = if sink {
            ("sink", "in", Direction::In)
        } else {
            ("source", "out", Direction::Out)
        };
        let name = self.unique(&format!("{kind}_{}", ty.keyword()));
        self.c.containers.push(ContainerDecl {
            name: Ident::new(&name),
            ports: vec![ir_port(port, dir, ty, Pair::ONE, None)],
            span: Span::NONE,
        });
        self.c
            .binds
            .push(bind(&name, &format!("func_{kind}_{}", ty.keyword())));
        self.ends.insert((sink, ty), name.clone());
        name
    }

    fn instance(&mut self, name: &str, container: &str, res: Pair, span: Span) {
        let resolution = if res == self.composed {
            InstanceResolution::Index
        } else {
            InstanceResolution::Explicit(Spanned::bare(res))
        };
        self.instances.push(Instance {
            name: Ident::spanned(name, span),
            container: Ident::new(container),
            resolution,
            span,
        });
    }

    fn connect(&mut self, value: &str, to: &str, port: &str, delay: Option<f64>) {
        self.connections.push(Connection {
            from: PortRef::new(&self.values[value].instance, "out"),
            to: PortRef::new(to, port),
            delay: delay.map(Spanned::bare),
            span: Span::NONE,
        });
    }

    fn sink(&mut self, s: &SinkPlan) {
        let v = &self.values[&s.value];
        let (ty, size) = (v.ty, v.size);
        let container = self.end(true, ty);
        self.instance(&s.name.name, &container, size, s.name.span);
        self.connect(&s.value, &s.name.name, "in", None);
    }

    /// A box: its container (one for the boxes of one signature), its
    /// instance and the connections to its ports.
    fn box_(&mut self, b: &BoxPlan) {
        let sig = signature(b);
        let (container, port_names) = match self.shared.iter().find(|(s, _, _)| *s == sig) {
            Some((_, n, ports)) => (n.clone(), ports.clone()),
            None => {
                let n = self.unique(&b.container);
                let mut ports: Vec<Port> = b
                    .ports
                    .iter()
                    .map(|p| ir_port(&p.name, Direction::In, p.ty, p.mul, p.window))
                    .collect();
                ports.push(ir_port("out", Direction::Out, b.out_ty, b.out_mul, None));
                self.c.containers.push(ContainerDecl {
                    name: Ident::new(&n),
                    ports,
                    span: Span::NONE,
                });
                match &b.kernel {
                    Some((function, rows)) => {
                        let mut bound = bind(&n, function);
                        bound.rows = *rows;
                        self.c.binds.push(bound);
                    }
                    None => self.c.binds.push(bind(&n, &n)),
                }
                if b.kernel.is_none() {
                    self.c.definitions.push(Definition {
                        name: Ident::new(&n),
                        assignments: vec![Assignment {
                            port: Ident::new("out"),
                            value: b.body.clone(),
                            span: b.body.span,
                        }],
                        span: Span::NONE,
                    });
                }
                let port_names: Vec<String> = b.ports.iter().map(|p| p.name.clone()).collect();
                self.shared.push((sig, n.clone(), port_names.clone()));
                (n, port_names)
            }
        };
        let at = b.written.as_ref().map_or(Span::NONE, |w| w.span);
        self.instance(&b.instance, &container, b.resolution, at);
        for (p, name) in b.ports.iter().zip(&port_names) {
            self.connect(&p.value, &b.instance, name, p.delay);
        }
    }
}

/// What two boxes must share to share a container: their ports' types,
/// `mul`s and windows, their output's, and their expression with the
/// ports numbered in order.
#[derive(PartialEq)]
struct Signature {
    kernel: Option<String>,
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
        kernel: b.kernel.as_ref().map(|(f, _)| f.clone()),
        ports: b.ports.iter().map(|p| (p.ty, p.mul, p.window)).collect(),
        out: (b.out_ty, b.out_mul),
        body: map_ports(&b.body, &|p| {
            index.get(p).map_or(p.to_string(), |k| format!("\u{0}{k}"))
        }),
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
