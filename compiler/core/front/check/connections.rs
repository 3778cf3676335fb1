//! Connections of one graph: the declaration, or one container composition.
//!
//! Takes the nodes of the graph (instances or functions, with their ports
//! and, when known, their resolution), the graph's own ports (`self`, only in
//! a composition) and the connections; gives E005 for an unknown node or
//! port, E008 for a connection from an input or to an output (for `self` the
//! direction flips: `self.in` drives, `self.out` is driven), E009/E010 for a
//! type or grid mismatch, E012/E013 for an input with zero or several
//! drivers, the warning E014 for an output that drives nothing, and E015 for
//! a cycle. Guarantees: when nothing is reported, every input has exactly
//! one driver of its type and grid, and the graph is a DAG.

use super::{codes, graph, names};
use crate::diagnostics::Diagnostic;
use crate::ir::{Connection, Direction, Pair, Port, PortRef, Span};
use std::collections::{HashMap, HashSet};

/// An instance or function of the graph.
pub(super) struct Node<'a> {
    pub name: &'a str,
    /// Where it is defined (labels point here).
    pub span: Span,
    /// `None` when its type is undefined (already reported).
    pub ports: Option<&'a [Port]>,
    /// Its resolution, when known.
    pub res: Option<Pair>,
}

/// A graph to check.
pub(super) struct Scope<'a> {
    /// "instance" or "function".
    pub kind: &'static str,
    /// "composition `app`" or "the declaration".
    pub place: String,
    pub nodes: Vec<Node<'a>>,
    /// The composed container's own ports (`self`), in a composition.
    pub own: Option<Node<'a>>,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum End {
    Inner(usize, usize),
    Own(usize),
}

impl<'a> Scope<'a> {
    fn node(&self, e: End) -> &Node<'a> {
        match e {
            End::Inner(n, _) => &self.nodes[n],
            End::Own(_) => self.own.as_ref().expect("own ports exist"),
        }
    }

    fn port(&self, e: End) -> &'a Port {
        let p = match e {
            End::Inner(_, p) | End::Own(p) => p,
        };
        &self.node(e).ports.expect("resolved")[p]
    }

    fn name(&self, e: End) -> String {
        match e {
            End::Inner(n, _) => format!("{}.{}", self.nodes[n].name, self.port(e).name),
            End::Own(_) => format!("self.{}", self.port(e).name),
        }
    }

    /// Whether the endpoint can drive others (inner OUT, own IN).
    fn drives(&self, e: End) -> bool {
        let d = self.port(e).direction;
        matches!(
            (e, d),
            (End::Inner(..), Direction::Out) | (End::Own(_), Direction::In)
        )
    }

    /// The node a port reference names (or, misspelt, the one it
    /// probably means) when that node has ports (`Some(None)`: the
    /// composition's own ports), whether or not the port exists.
    fn owner(&self, r: &PortRef, index: &HashMap<&str, usize>) -> Option<Option<usize>> {
        match &r.owner {
            None => self.own.as_ref().and_then(|o| o.ports).map(|_| None),
            Some(owner) => {
                // A misspelt node stands for the one "did you mean" names.
                let name = match index.get(owner.name.as_str()) {
                    Some(_) => owner.name.as_str(),
                    None => names::suggest(&owner.name, self.nodes.iter().map(|n| n.name))?,
                };
                let n = *index.get(name)?;
                self.nodes[n].ports.map(|_| Some(n))
            }
        }
    }

    fn grid(&self, e: End) -> Option<Pair> {
        self.port(e).grid(self.node(e).res?)
    }

    fn resolve(
        &self,
        r: &PortRef,
        index: &HashMap<&str, usize>,
        out: &mut Vec<Diagnostic>,
    ) -> Option<End> {
        let (node, make): (&Node, Box<dyn Fn(usize) -> End>) = match &r.owner {
            None => match &self.own {
                Some(own) => (own, Box::new(End::Own)),
                None => {
                    out.push(
                        Diagnostic::error(
                            codes::UNDEFINED,
                            format!("`self.{}` has no meaning in {}", r.port, self.place),
                        )
                        .label(r.span, "`self` is only defined in a container composition")
                        .hint("name the function whose port this is: `F.PORT`"),
                    );
                    return None;
                }
            },
            Some(owner) => match index.get(owner.name.as_str()) {
                Some(&n) => {
                    let node = &self.nodes[n];
                    (node, Box::new(move |p| End::Inner(n, p)))
                }
                None => {
                    out.push(names::undefined(
                        format!("no {} `{}` in {}", self.kind, owner.name, self.place),
                        &owner.name,
                        owner.span,
                        self.nodes.iter().map(|n| n.name),
                    ));
                    return None;
                }
            },
        };
        let ports = node.ports?;
        match ports.iter().position(|p| p.name.name == r.port.name) {
            Some(p) => Some(make(p)),
            None => {
                let whose = if r.owner.is_none() {
                    format!("`{}` (self)", node.name)
                } else {
                    format!("`{}`", node.name)
                };
                out.push(names::undefined(
                    format!("{whose} has no port `{}`", r.port.name),
                    &r.port.name,
                    r.port.span,
                    ports.iter().map(|p| p.name.name.as_str()),
                ));
                None
            }
        }
    }
}

pub(super) fn check(scope: &Scope, connections: &[Connection], out: &mut Vec<Diagnostic>) {
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, n) in scope.nodes.iter().enumerate() {
        index.entry(n.name).or_insert(i);
    }
    let mut w = Wiring {
        index,
        drivers: HashMap::new(),
        driving: HashMap::new(),
        edges: Vec::new(),
        edge_conn: Vec::new(),
        typo_from: HashSet::new(),
        typo_to: HashSet::new(),
        delays: HashMap::new(),
    };
    for c in connections {
        w.connect(scope, c, out);
    }
    w.check_ends(scope, out);
    w.check_cycles(scope, out);
    w.check_initial_values(scope, out);
}

/// E054 for a delay on a connection to or from the composition's own
/// ports, E055 for an initial value its element type cannot hold.
fn check_delay(
    scope: &Scope,
    c: &Connection,
    v: &crate::ir::Spanned<f64>,
    from: End,
    to: End,
    out: &mut Vec<Diagnostic>,
) {
    if matches!(from, End::Own(_)) || matches!(to, End::Own(_)) {
        out.push(
            Diagnostic::error(
                codes::DELAY_ON_SELF,
                format!(
                    "`{} -> {}` delays a port of the composition itself",
                    c.from, c.to
                ),
            )
            .label(v.span, "this delay")
            .hint("put the delay on a connection between two instances, inside or outside"),
        );
        return;
    }
    let ty = scope.port(from).ty;
    if let Some(why) = unfit(v.value, ty) {
        out.push(
            Diagnostic::error(
                codes::DELAY_VALUE,
                format!(
                    "the initial value {} does not fit `{}`",
                    v.value,
                    ty.keyword()
                ),
            )
            .label(v.span, why)
            .hint(format!(
                "the delayed buffer holds `{}` elements; give a value of that type",
                ty.keyword()
            )),
        );
    }
}

/// Why `v` is no value of `ty`, if it is not.
fn unfit(v: f64, ty: crate::ir::ElemType) -> Option<String> {
    use crate::ir::ElemType::*;
    let (lo, hi) = match ty {
        Float => return (v.abs() > f32::MAX as f64).then(|| "beyond float's range".to_string()),
        Double => return None,
        Char => (i8::MIN as f64, i8::MAX as f64),
        Uchar => (0.0, u8::MAX as f64),
        Short => (i16::MIN as f64, i16::MAX as f64),
        Ushort => (0.0, u16::MAX as f64),
        Int => (i32::MIN as f64, i32::MAX as f64),
        Uint => (0.0, u32::MAX as f64),
    };
    if v.fract() != 0.0 {
        Some("not a whole number".to_string())
    } else if v < lo || v > hi {
        Some(format!("outside [{lo}, {hi}]"))
    } else {
        None
    }
}

/// What the connections of a graph wire, gathered one connection at a
/// time.
struct Wiring<'n, 'c> {
    /// Node names to indices (the first of duplicates).
    index: HashMap<&'n str, usize>,
    /// The connections into every input.
    drivers: HashMap<End, Vec<&'c Connection>>,
    /// How many connections leave every driving end.
    driving: HashMap<End, usize>,
    /// Node to node, with the connection of each edge.
    edges: Vec<(usize, usize)>,
    edge_conn: Vec<&'c Connection>,
    /// The nodes (`None`: own ports) with a misspelt port as source or
    /// destination.
    typo_from: HashSet<Option<usize>>,
    typo_to: HashSet<Option<usize>>,
    /// The delayed connections leaving every driving end.
    delays: HashMap<End, Vec<&'c Connection>>,
}

impl<'c> Wiring<'_, 'c> {
    /// One connection: E005 for an end it does not name, E008 for a wrong
    /// direction, E009/E010 for a type or grid mismatch; records what it
    /// drives.
    fn connect(&mut self, scope: &Scope, c: &'c Connection, out: &mut Vec<Diagnostic>) {
        let from = scope.resolve(&c.from, &self.index, out);
        let to = scope.resolve(&c.to, &self.index, out);
        // A misspelt port (reported with "did you mean") leaves its node's
        // real port unconnected: that is no second problem to report.
        if from.is_none() {
            if let Some(k) = scope.owner(&c.from, &self.index) {
                self.typo_from.insert(k);
            }
        }
        if to.is_none() {
            if let Some(k) = scope.owner(&c.to, &self.index) {
                self.typo_to.insert(k);
            }
        }
        let (from, to) = match (from, to) {
            (Some(f), Some(t)) => (f, t),
            // One end is unknown (already reported): count the other end as
            // connected, so that it is not reported as undriven or unused.
            (Some(f), None) => {
                if scope.drives(f) {
                    *self.driving.entry(f).or_default() += 1;
                }
                return;
            }
            (None, Some(t)) => {
                if !scope.drives(t) {
                    self.drivers.entry(t).or_default().push(c);
                }
                return;
            }
            (None, None) => return,
        };
        let mut ok = true;
        if !scope.drives(from) {
            ok = false;
            out.push(direction_error(scope, &c.from, from, true));
        }
        if scope.drives(to) {
            ok = false;
            out.push(direction_error(scope, &c.to, to, false));
        }
        if !ok {
            return;
        }
        check_type_and_grid(scope, c, from, to, out);
        self.drivers.entry(to).or_default().push(c);
        *self.driving.entry(from).or_default() += 1;
        if let Some(v) = &c.delay {
            check_delay(scope, c, v, from, to, out);
            if let End::Inner(..) = from {
                self.delays.entry(from).or_default().push(c);
            }
            return; // a delayed connection closes no cycle
        }
        if let (End::Inner(a, _), End::Inner(b, _)) = (from, to) {
            self.edges.push((a, b));
            self.edge_conn.push(c);
        }
    }

    /// Drivers of every input (E012/E013), outputs that drive nothing
    /// (E014).
    fn check_ends(&self, scope: &Scope, out: &mut Vec<Diagnostic>) {
        let mut ends: Vec<End> = Vec::new();
        for (n, node) in scope.nodes.iter().enumerate() {
            if self.index.get(node.name) != Some(&n) {
                continue; // a duplicate name, already reported
            }
            ends.extend(first_ports(node).map(|p| End::Inner(n, p)));
        }
        if let Some(own) = &scope.own {
            ends.extend(first_ports(own).map(End::Own));
        }
        for e in ends {
            let node = scope.node(e);
            let port = scope.port(e);
            let name = scope.name(e);
            let key = match e {
                End::Inner(n, _) => Some(n),
                End::Own(_) => None,
            };
            if scope.drives(e) {
                if !self.driving.contains_key(&e) && !self.typo_from.contains(&key) {
                    out.push(
                        Diagnostic::warning(
                            codes::UNUSED_OUTPUT,
                            format!("`{name}` drives nothing"),
                        )
                        .label(
                            node.span,
                            format!("its port `{}` is never connected", port.name),
                        )
                        .hint(format!("connect `{name}` to an input, or remove the port")),
                    );
                }
                continue;
            }
            match self.drivers.get(&e).map(|d| d.as_slice()).unwrap_or(&[]) {
                [] if self.typo_to.contains(&key) => {}
                [] => out.push(
                    Diagnostic::error(codes::NO_DRIVER, format!("input `{name}` is not driven"))
                        .label(
                            node.span,
                            format!("its port `{}` has no incoming connection", port.name),
                        )
                        .hint(format!(
                            "every input has exactly one driver: add `SRC.PORT -> {name};`"
                        )),
                ),
                [_] => {}
                [first, rest @ ..] => {
                    let mut d = Diagnostic::error(
                        codes::MANY_DRIVERS,
                        format!("input `{name}` is driven {} times", rest.len() + 1),
                    )
                    .label(rest[0].span, "driven again here")
                    .label(first.span, "first driven here");
                    for c in &rest[1..] {
                        d = d.label(c.span, "and here");
                    }
                    out.push(d.hint(
                        "every input has exactly one driver; an output may feed many inputs",
                    ));
                }
            }
        }
    }

    /// E056 when the delayed readers of one output disagree on its value
    /// before the first iteration (one buffer holds it).
    fn check_initial_values(&self, scope: &Scope, out: &mut Vec<Diagnostic>) {
        let mut ends: Vec<&End> = self.delays.keys().collect();
        ends.sort_by_key(|e| scope.name(**e));
        for e in ends {
            let cs = &self.delays[e];
            let first = cs[0].delay.as_ref().expect("delayed");
            if let Some(other) = cs[1..]
                .iter()
                .find(|c| c.delay.as_ref().expect("delayed").value != first.value)
            {
                let o = other.delay.as_ref().expect("delayed");
                out.push(
                    Diagnostic::error(
                        codes::DELAY_VALUES_DIFFER,
                        format!(
                            "the delayed readers of `{}` start from different values",
                            scope.name(*e)
                        ),
                    )
                    .label(o.span, format!("{} here", o.value))
                    .label(first.span, format!("{} here", first.value))
                    .hint("one buffer keeps the previous value: give every delay of this output the same initial value"),
                );
            }
        }
    }

    /// E015 for every cycle of the connections between nodes.
    fn check_cycles(&self, scope: &Scope, out: &mut Vec<Diagnostic>) {
        let edges = &self.edges;
        for cycle in graph::cycles(scope.nodes.len(), edges) {
            let mut path: Vec<&str> = cycle
                .iter()
                .map(|&e| scope.nodes[edges[e].0].name)
                .collect();
            path.push(path[0]);
            let mut d = Diagnostic::error(
                codes::CYCLE,
                format!(
                    "the connections in {} form a cycle: {}",
                    scope.place,
                    path.join(" -> ")
                ),
            );
            for (i, &e) in cycle.iter().enumerate() {
                d = d.label(
                    self.edge_conn[e].span,
                    if i == 0 {
                        "this connection closes a cycle"
                    } else {
                        "part of the cycle"
                    },
                );
            }
            out.push(d.hint(
                "a value cannot depend on itself within one iteration: to read the previous iteration's value, end one connection of the cycle with `delay V` (V: the value before the first)",
            ));
        }
    }
}

/// E009 when the two ends' types differ, else E010 when their grids (both
/// known) differ.
fn check_type_and_grid(
    scope: &Scope,
    c: &Connection,
    from: End,
    to: End,
    out: &mut Vec<Diagnostic>,
) {
    let (pf, pt) = (scope.port(from), scope.port(to));
    if pf.ty != pt.ty {
        out.push(
            Diagnostic::error(
                codes::TYPE_MISMATCH,
                format!(
                    "`{}` has type `{}` but `{}` has type `{}`",
                    scope.name(from),
                    pf.ty.keyword(),
                    scope.name(to),
                    pt.ty.keyword()
                ),
            )
            .label(c.span, "connected here")
            .label(pf.span, format!("`{}` declared here", pf.ty.keyword()))
            .label(pt.span, format!("`{}` declared here", pt.ty.keyword()))
            .hint("connected ports must have the same TYPE (docs/language.md)"),
        );
    } else if let (Some(gf), Some(gt)) = (scope.grid(from), scope.grid(to)) {
        if gf != gt {
            out.push(
                Diagnostic::error(
                    codes::GRID_MISMATCH,
                    format!(
                        "`{}` has grid {gf} but `{}` has grid {gt}",
                        scope.name(from),
                        scope.name(to)
                    ),
                )
                .label(c.span, "connected here")
                .label(scope.node(from).span, grid_note(scope, from))
                .label(scope.node(to).span, grid_note(scope, to))
                .hint("a port's grid is resolution × mul; connected ports must have the same grid (docs/language.md)"),
            );
        }
    }
}

/// Indices of the ports of a node, skipping a name used twice (reported).
fn first_ports<'a>(node: &'a Node) -> impl Iterator<Item = usize> + 'a {
    let ports = node.ports.unwrap_or(&[]);
    (0..ports.len()).filter(move |&i| !ports[..i].iter().any(|q| q.name.name == ports[i].name.name))
}

fn grid_note(scope: &Scope, e: End) -> String {
    let port = scope.port(e);
    let res = scope.node(e).res.unwrap_or_default();
    format!(
        "`{}`: resolution {res} × mul {} = {}",
        scope.name(e),
        port.mul.value,
        scope.grid(e).unwrap_or_default()
    )
}

fn direction_error(scope: &Scope, r: &PortRef, e: End, as_source: bool) -> Diagnostic {
    let port = scope.port(e);
    let name = scope.name(e);
    let dir = port.direction.keyword();
    let (msg, hint) = match (e, as_source) {
        (End::Own(_), true) => (
            format!("`{name}` is an OUT port of the composed container: inside, it can only be driven"),
            format!("write `INST.PORT -> {name};` to drive it"),
        ),
        (End::Own(_), false) => (
            format!("`{name}` is an IN port of the composed container: inside, it drives, it cannot be driven"),
            format!("write `{name} -> INST.PORT;` to use it"),
        ),
        (_, true) => (
            format!("connection starts at `{name}`, an IN port"),
            "a connection goes from an OUT port to an IN port: `SRC.out -> DST.in;`".to_string(),
        ),
        (_, false) => (
            format!("connection ends at `{name}`, an OUT port"),
            "a connection goes from an OUT port to an IN port: `SRC.out -> DST.in;`".to_string(),
        ),
    };
    Diagnostic::error(codes::DIRECTION, msg)
        .label(r.span, format!("`{name}` is {dir}"))
        .label(port.span, "declared here")
        .hint(hint)
}
