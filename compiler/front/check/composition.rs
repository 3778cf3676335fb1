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

pub(super) fn check(c: &Composition, out: &mut Vec<Diagnostic>) {
    names::duplicates("container", c.containers.iter().map(|d| &d.name), out);
    let mut containers: HashMap<&str, &ContainerDecl> = HashMap::new();
    for d in &c.containers {
        ports::check_ports(&d.name.name, &d.ports, out);
        containers.entry(&d.name.name).or_insert(d);
    }
    let container_names = || c.containers.iter().map(|d| d.name.name.as_str());

    names::duplicates(
        "binding of container",
        c.binds.iter().map(|b| &b.container),
        out,
    );
    let mut bound: HashMap<&str, &Bind> = HashMap::new();
    for b in &c.binds {
        match containers.get(b.container.name.as_str()) {
            None => out.push(names::undefined(
                format!("container `{}` is bound but not declared", b.container),
                &b.container.name,
                b.container.span,
                container_names(),
            )),
            Some(d) => builtins::check(
                &b.function.name,
                &d.name.name,
                &d.ports,
                b.span,
                d.name.span,
                out,
            ),
        }
        bound.entry(&b.container.name).or_insert(b);
    }

    names::duplicates(
        "composition of container",
        c.compositions.iter().map(|cc| &cc.name),
        out,
    );
    let mut composed: HashMap<&str, &ContainerComposition> = HashMap::new();
    for cc in &c.compositions {
        composed.entry(&cc.name.name).or_insert(cc);
    }

    // Containers, in the order they are first instantiated, that are leaves
    // without a binding.
    let mut unbound: Vec<(&str, Span)> = Vec::new();
    let mut seen_unbound: HashSet<&str> = HashSet::new();
    for cc in &c.compositions {
        if !containers.contains_key(cc.name.name.as_str()) {
            out.push(names::undefined(
                format!("composition of undeclared container `{}`", cc.name),
                &cc.name.name,
                cc.name.span,
                container_names(),
            ));
        }
        if let Some(b) = bound.get(cc.name.name.as_str()) {
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
            if !containers.contains_key(ty) {
                out.push(names::undefined(
                    format!(
                        "instance `{}` has undeclared container type `{ty}`",
                        inst.name
                    ),
                    ty,
                    inst.container.span,
                    container_names(),
                ));
            } else if !composed.contains_key(ty)
                && !bound.contains_key(ty)
                && seen_unbound.insert(ty)
            {
                unbound.push((ty, inst.container.span));
            }
        }
    }
    if let Some(cp) = &c.compose {
        let ty = cp.container.name.as_str();
        if !containers.contains_key(ty) {
            out.push(names::undefined(
                format!("`compose` names undeclared container `{ty}`"),
                ty,
                cp.container.span,
                container_names(),
            ));
        } else if !composed.contains_key(ty) && !bound.contains_key(ty) && seen_unbound.insert(ty) {
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
            .label(containers[ty].name.span, "declared here")
            .hint(format!(
                "bind it to a function: `container_bind {ty} FUNC FULL;`, or give it a `container_composition {ty} {{ ... }};`"
            )),
        );
    }

    // Recursion: composition -> compositions it instantiates.
    let comps: Vec<&ContainerComposition> = c
        .compositions
        .iter()
        .filter(|cc| std::ptr::eq(composed[cc.name.name.as_str()], *cc))
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

    // Resolutions, from `compose` down (first path wins).
    let mut res: HashMap<&str, Pair> = HashMap::new();
    if let Some(cp) = &c.compose {
        let mut stack = vec![(cp.container.name.as_str(), cp.resolution.value)];
        while let Some((name, r)) = stack.pop() {
            if res.contains_key(name) {
                continue;
            }
            res.insert(name, r);
            if let Some(cc) = composed.get(name) {
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

    for cc in comps {
        let r = res.get(cc.name.name.as_str()).copied();
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
