//! Graphviz DOT of the declaration (`-dg`) and the instantiation (`-ig`).
//!
//! Takes a declaration, or the HSDFG of an instantiation; gives DOT text.
//! Declaration: one box per function instance labelled with its name,
//! function and resolution; one edge per connection labelled with its
//! buffer (`f6.out`), a delayed one dashed blue with its initial value
//! (`t.out delay 0`). Instantiation: one box per sub-box labelled `F.k` and
//! its region, clustered per function instance; dependencies solid, a
//! delayed dependency dashed blue (`t.out delay (1)`), write-after-read
//! partners dashed with the token count, `f6.out (1)`.
//! Guarantees: deterministic (declaration/actor/edge order), every name
//! quoted and escaped, so the output always parses.

use crate::ir::hsdfg::{EdgeKind, Hsdfg};
use crate::ir::Declaration;
use std::fmt::Write as _;

/// A DOT string literal.
pub fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The declaration's flat graph.
pub fn declaration_dot(d: &Declaration) -> String {
    let mut s = String::from(
        "digraph declaration {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n",
    );
    for f in &d.functions {
        let _ = writeln!(
            s,
            "  {} [label={}];",
            quote(f.name.as_str()),
            quote(&format!(
                "{}\n{} {}",
                f.name, f.function, f.resolution.value
            ))
        );
    }
    for c in &d.connections {
        let (label, style) = match &c.delay {
            Some(v) => (
                format!("{} delay {}", c.from, v.value),
                ", style=dashed, color=blue, constraint=false",
            ),
            None => (c.from.to_string(), ""),
        };
        let _ = writeln!(
            s,
            "  {} -> {} [label={}{style}];",
            quote(c.from.owner_name()),
            quote(c.to.owner_name()),
            quote(&label)
        );
    }
    s.push_str("}\n");
    s
}

/// The instantiation's HSDFG: sub-boxes clustered per function.
pub fn instantiation_dot(g: &Hsdfg) -> String {
    let mut s = String::from("digraph instantiation {\n  rankdir=TB;\n  compound=true;\n  node [shape=box, fontname=\"monospace\"];\n");
    for (fi, f) in g.functions.iter().enumerate() {
        let _ = writeln!(s, "  subgraph cluster_{fi} {{");
        let _ = writeln!(
            s,
            "    label={};",
            quote(&format!("{} {} {}", f.name, f.function, f.resolution))
        );
        for &a in &f.subboxes {
            let actor = g.actor(a);
            let _ = writeln!(
                s,
                "    {} [label={}];",
                quote(&actor.subbox.to_string()),
                quote(&format!("{}\n{}", actor.subbox, actor.region))
            );
        }
        s.push_str("  }\n");
    }
    for (_, a, b, e) in g.edges() {
        let buf = &g.buffer(e.buffer).name;
        let from = quote(&g.actor(a).subbox.to_string());
        let to = quote(&g.actor(b).subbox.to_string());
        match e.kind {
            EdgeKind::Dependency if e.tokens == 0 => {
                let _ = writeln!(s, "  {from} -> {to} [label={}];", quote(buf));
            }
            EdgeKind::Dependency => {
                let _ = writeln!(
                    s,
                    "  {from} -> {to} [label={}, style=dashed, color=blue, constraint=false];",
                    quote(&format!("{buf} delay ({})", e.tokens))
                );
            }
            _ => {
                let _ = writeln!(
                    s,
                    "  {from} -> {to} [label={}, style=dashed, constraint=false];",
                    quote(&format!("{buf} ({})", e.tokens))
                );
            }
        }
    }
    s.push_str("}\n");
    s
}

/// The runtime as Graphviz DOT (`-rg`): one cluster per thread holding its
/// operations in program order, signals as edges from `S` to `W` labelled
/// with the signal and its initial tokens (`s1 (1)`), barriers as a node
/// every participant meets.
pub fn runtime_dot(r: &crate::ir::Runtime) -> String {
    use crate::ir::Op;
    use std::collections::BTreeMap;
    use std::fmt::Write as _;
    let mut out = String::from(
        "digraph runtime {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n",
    );
    let mut posts: BTreeMap<&str, String> = BTreeMap::new();
    let mut waits: BTreeMap<&str, String> = BTreeMap::new();
    let mut meets: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (ti, t) in r.thread_executions.iter().enumerate() {
        let _ = writeln!(
            out,
            "  subgraph cluster_{ti} {{\n    label={};",
            quote(&t.thread.name)
        );
        let mut prev: Option<String> = None;
        for (oi, op) in t.ops.iter().enumerate() {
            let id = format!("t{ti}_{oi}");
            let _ = writeln!(out, "    {id} [label={}];", quote(&op.value.to_string()));
            if let Some(p) = &prev {
                let _ = writeln!(out, "    {p} -> {id};");
            }
            match &op.value {
                Op::Signal(s) => {
                    posts.insert(s.name.as_str(), id.clone());
                }
                Op::Wait(s) => {
                    waits.insert(s.name.as_str(), id.clone());
                }
                Op::Barrier(b) => meets.entry(b.name.as_str()).or_default().push(id.clone()),
                Op::Exec(_) => {}
            }
            prev = Some(id);
        }
        if let (Some(last), false) = (&prev, t.ops.is_empty()) {
            let _ = writeln!(
                out,
                "    {last} -> t{ti}_0 [style=dotted, label=\"next iteration (1)\"];"
            );
        }
        out.push_str("  }\n");
    }
    for s in &r.signals {
        if let (Some(from), Some(to)) = (
            posts.get(s.name.name.as_str()),
            waits.get(s.name.name.as_str()),
        ) {
            let label = format!("{} ({})", s.name, u32::from(s.initial_token));
            let _ = writeln!(
                out,
                "  {from} -> {to} [color=blue, label={}];",
                quote(&label)
            );
        }
    }
    for (b, ops) in &meets {
        let _ = writeln!(out, "  bar_{b} [shape=diamond, label={}];", quote(b));
        for op in ops {
            let _ = writeln!(out, "  {op} -> bar_{b} [style=dashed];");
        }
    }
    out.push_str("}\n");
    out
}
