//! The `composition` section.
//!
//! Takes a [`Composition`]; gives E004 (duplicate containers, ports,
//! bindings, compositions, instances), E005 (a bind, composition, instance
//! or `compose` naming an undeclared container), E006 (a leaf container
//! instantiated but not bound), E007 (compositions containing themselves),
//! E031/E032 (a built-in bound to the wrong ports), E035 (a container both
//! bound and composed), and, per composition, the connection checks of
//! [`connections`](super::connections) with grids computed from the
//! resolution the composition gets on its first path from `compose`
//! (`index` inherits it, `[w, h]` sets it). A composition that `compose`
//! does not reach has an unknown resolution: only instances with `[w, h]`
//! have grids then. Guarantees: when nothing is reported, the composition
//! can be flattened into a declaration.

use super::connections::{self, Node, Scope};
use super::{builtins, codes, graph, names, ports};
use crate::diagnostics::Diagnostic;
use crate::ir::{
    Bind, Composition, ContainerComposition, ContainerDecl, InstanceResolution, Pair, Span,
};
use std::collections::{HashMap, HashSet};

pub(super) fn check(c: &Composition, dir: Option<&std::path::Path>, out: &mut Vec<Diagnostic>) {
    let t = Tables::new(c, out);
    let ports_of = |f: &str| {
        let b = c.binds.iter().find(|b| b.function.name == f)?;
        Some(
            t.containers
                .get(b.container.name.as_str())?
                .ports
                .as_slice(),
        )
    };
    super::definitions::check(
        &c.definitions,
        ports_of,
        "bind a container to it: container_bind CONTAINER",
        dir,
        out,
    );
    super::rows::check(
        c.binds.iter().map(|b| (&b.function, b.rows, b.span)),
        &c.definitions,
        out,
    );
    t.check_compositions(out);
    let comps = t.check_recursion(out);
    let res = t.resolutions();
    for cc in comps {
        t.check_connections(cc, res.get(cc.name.name.as_str()).copied(), out);
    }
}

/// The section and its containers, bindings and compositions by name
/// (the first of duplicates).
struct Tables<'a> {
    c: &'a Composition,
    containers: HashMap<&'a str, &'a ContainerDecl>,
    bound: HashMap<&'a str, &'a Bind>,
    composed: HashMap<&'a str, &'a ContainerComposition>,
}

impl<'a> Tables<'a> {
    /// The tables, with the checks of the declarations themselves: E004
    /// for duplicates, the ports of each container, E005 for a binding of
    /// an undeclared container, E031/E032 for a built-in's ports.
    fn new(c: &'a Composition, out: &mut Vec<Diagnostic>) -> Self {
        names::duplicates("container", c.containers.iter().map(|d| &d.name), out);
        let mut containers: HashMap<&str, &ContainerDecl> = HashMap::new();
        for d in &c.containers {
            ports::check_ports(&d.name.name, &d.ports, out);
            containers.entry(&d.name.name).or_insert(d);
        }
        let mut t = Tables {
            c,
            containers,
            bound: HashMap::new(),
            composed: HashMap::new(),
        };

        names::duplicates(
            "binding of container",
            c.binds.iter().map(|b| &b.container),
            out,
        );
        for b in &c.binds {
            match t.containers.get(b.container.name.as_str()) {
                None => out.push(names::undefined(
                    format!("container `{}` is bound but not declared", b.container),
                    &b.container.name,
                    b.container.span,
                    t.container_names(),
                )),
                Some(_) if c.definitions.iter().any(|x| x.name == b.function) => {}
                Some(d) => builtins::check(
                    &b.function.name,
                    &d.name.name,
                    &d.ports,
                    b.span,
                    d.name.span,
                    out,
                ),
            }
            t.bound.entry(&b.container.name).or_insert(b);
        }

        names::duplicates(
            "composition of container",
            c.compositions.iter().map(|cc| &cc.name),
            out,
        );
        for cc in &c.compositions {
            t.composed.entry(&cc.name.name).or_insert(cc);
        }
        t
    }

    fn container_names(&self) -> impl Iterator<Item = &'a str> {
        self.c.containers.iter().map(|d| d.name.name.as_str())
    }

    /// Each composition and `compose`: E005 for undeclared containers,
    /// E035 for a container both bound and composed, E004 for duplicate
    /// instances, then E006 for every leaf container used without a
    /// binding.
    fn check_compositions(&self, out: &mut Vec<Diagnostic>) {
        let c = self.c;
        // Containers, in the order they are first instantiated, that are
        // leaves without a binding.
        let mut unbound: Vec<(&str, Span)> = Vec::new();
        let mut seen_unbound: HashSet<&str> = HashSet::new();
        for cc in &c.compositions {
            if !self.containers.contains_key(cc.name.name.as_str()) {
                out.push(names::undefined(
                    format!("composition of undeclared container `{}`", cc.name),
                    &cc.name.name,
                    cc.name.span,
                    self.container_names(),
                ));
            }
            if let Some(b) = self.bound.get(cc.name.name.as_str()) {
                out.push(
                    Diagnostic::error(
                        codes::BOUND_AND_COMPOSED,
                        format!("container `{}` is both composed and bound to `{}`", cc.name, b.function),
                    )
                    .label(cc.name.span, "composed here")
                    .label(b.span, "bound here")
                    .hint("a container is either a leaf bound to a function or a composition of others, not both"),
                );
            }
            names::duplicates(
                &format!("instance in composition `{}`", cc.name),
                cc.instances.iter().map(|i| &i.name),
                out,
            );
            for inst in &cc.instances {
                let ty = inst.container.name.as_str();
                if !self.containers.contains_key(ty) {
                    out.push(names::undefined(
                        format!(
                            "instance `{}` has undeclared container type `{ty}`",
                            inst.name
                        ),
                        ty,
                        inst.container.span,
                        self.container_names(),
                    ));
                } else if self.is_leaf_unbound(ty) && seen_unbound.insert(ty) {
                    unbound.push((ty, inst.container.span));
                }
            }
        }
        if let Some(cp) = &c.compose {
            let ty = cp.container.name.as_str();
            if !self.containers.contains_key(ty) {
                out.push(names::undefined(
                    format!("`compose` names undeclared container `{ty}`"),
                    ty,
                    cp.container.span,
                    self.container_names(),
                ));
            } else if self.is_leaf_unbound(ty) && seen_unbound.insert(ty) {
                unbound.push((ty, cp.container.span));
            }
        }
        for (ty, at) in unbound {
            out.push(
                Diagnostic::error(
                    codes::UNBOUND,
                    format!("container `{ty}` is used but neither bound to a function nor composed"),
                )
                .label(at, "used here")
                .label(self.containers[ty].name.span, "declared here")
                .hint(format!(
                    "bind it to a function: `container_bind {ty} FUNC FULL;`, or give it a `container_composition {ty} {{ ... }};`"
                )),
            );
        }
    }

    /// Neither composed nor bound.
    fn is_leaf_unbound(&self, ty: &str) -> bool {
        !self.composed.contains_key(ty) && !self.bound.contains_key(ty)
    }

    /// Recursion (E007): composition -> compositions it instantiates. Gives
    /// the compositions that count (the first of duplicates), in order.
    fn check_recursion(&self, out: &mut Vec<Diagnostic>) -> Vec<&'a ContainerComposition> {
        let comps: Vec<&ContainerComposition> = self
            .c
            .compositions
            .iter()
            .filter(|cc| std::ptr::eq(self.composed[cc.name.name.as_str()], *cc))
            .collect();
        let comp_index: HashMap<&str, usize> = comps
            .iter()
            .enumerate()
            .map(|(i, cc)| (cc.name.name.as_str(), i))
            .collect();
        let mut edges = Vec::new();
        let mut edge_span = Vec::new();
        for (i, cc) in comps.iter().enumerate() {
            for inst in &cc.instances {
                if let Some(&j) = comp_index.get(inst.container.name.as_str()) {
                    edges.push((i, j));
                    edge_span.push(inst.span);
                }
            }
        }
        for cycle in graph::cycles(comps.len(), &edges) {
            let mut path: Vec<&str> = cycle
                .iter()
                .map(|&e| comps[edges[e].0].name.name.as_str())
                .collect();
            path.push(path[0]);
            let mut d = Diagnostic::error(
                codes::RECURSIVE,
                format!("compositions contain themselves: {}", path.join(" -> ")),
            );
            for &e in &cycle {
                let (a, b) = edges[e];
                d = d.label(
                    edge_span[e],
                    format!("`{}` contains a `{}` here", comps[a].name, comps[b].name),
                );
            }
            out.push(d.hint("a container cannot contain itself, directly or not"));
        }
        comps
    }

    /// Resolutions, from `compose` down (first path wins).
    fn resolutions(&self) -> HashMap<&'a str, Pair> {
        let mut res: HashMap<&str, Pair> = HashMap::new();
        if let Some(cp) = &self.c.compose {
            let mut stack = vec![(cp.container.name.as_str(), cp.resolution.value)];
            while let Some((name, r)) = stack.pop() {
                if res.contains_key(name) {
                    continue;
                }
                res.insert(name, r);
                if let Some(cc) = self.composed.get(name) {
                    for inst in cc.instances.iter().rev() {
                        let child = match inst.resolution {
                            InstanceResolution::Index => r,
                            InstanceResolution::Explicit(p) => p.value,
                        };
                        stack.push((inst.container.name.as_str(), child));
                    }
                }
            }
        }
        res
    }

    /// One composition's port sizes and connections, with grids from its
    /// resolution `r` when known.
    fn check_connections(
        &self,
        cc: &ContainerComposition,
        r: Option<Pair>,
        out: &mut Vec<Diagnostic>,
    ) {
        let containers = &self.containers;
        let nodes: Vec<Node> = cc
            .instances
            .iter()
            .map(|i| Node {
                name: &i.name.name,
                span: i.name.span,
                ports: containers
                    .get(i.container.name.as_str())
                    .map(|d| d.ports.as_slice()),
                res: match i.resolution {
                    InstanceResolution::Index => r,
                    InstanceResolution::Explicit(p) => Some(p.value),
                },
            })
            .collect();
        let own = Node {
            name: &cc.name.name,
            span: cc.name.span,
            ports: containers
                .get(cc.name.name.as_str())
                .map(|d| d.ports.as_slice()),
            res: r,
        };
        for n in nodes.iter().chain(std::iter::once(&own)) {
            if let (Some(ps), Some(r)) = (n.ports, n.res) {
                for p in ps {
                    let name = format!("{}.{}", n.name, p.name);
                    if !ports::check_size(&name, p, r, n.span, out) {
                        break;
                    }
                }
            }
        }
        let scope = Scope {
            kind: "instance",
            place: format!("composition `{}`", cc.name),
            nodes,
            own: Some(own),
        };
        connections::check(&scope, &cc.connections, out);
    }
}
