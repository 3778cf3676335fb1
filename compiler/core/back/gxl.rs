//! GROOVE GXL of an HSDFG (`-gg`, docs/commands.md, "Export").
//!
//! Takes the HSDFG; gives a GROOVE graph (`.gst`):
//! `<gxl><graph role="graph" edgeids="false" edgemode="directed">`, one
//! node per actor and per channel (`<node id="n0"/>`), edges with a `label`
//! attribute. Node types and data values are self-edges: an actor has
//! `type:Actor`; its attributes are edges to value nodes (`name` →
//! `string:"f6.0"`, `function` → `string:"func_gain"`, `time` → `int:280`,
//! whole µs rounded up, at least 1). A channel node has `type:Channel`,
//! edges `src`/`dst` to its actors, `tokens` → `int:0|1`, `buffer` →
//! `string:"f6.out"`, and `kind` → `string:"dependency"`,
//! `"write_after_read"` or `"self"` (the 1-token self-loop of every actor,
//! as in the SDF3 export). Deterministic: actors, then channels, in HSDFG
//! order; value nodes follow their owner.
//!
//! [`gxl_runtime`] writes the runtime HSDFG of `-pr` (`--gg-graph
//! runtime`) the same way: an actor per sub-box, barrier and idle thread
//! (`name`, `function` — the C function, `barrier` or `thread` —, `time` in
//! whole ns with its waits and signals folded in, `thread`), a channel per
//! program-order step, signal, barrier edge and self-loop (`tokens`,
//! `kind` `order`/`signal`/`barrier`/`self`, and `signal` or `barrier`
//! naming it).
//!
//! `-gg`'s default stays the instantiation graph; `--gg-graph runtime`
//! chooses the runtime HSDFG.

use crate::ir::hsdfg::{EdgeKind, Hsdfg};
use crate::ir::runtime_graph::{ChannelKind, RuntimeGraph};
use std::fmt::Write as _;

struct Out {
    s: String,
    next: usize,
}

impl Out {
    fn node(&mut self) -> usize {
        let n = self.next;
        self.next += 1;
        let _ = writeln!(self.s, "    <node id=\"n{n}\"/>");
        n
    }
    fn edge(&mut self, from: usize, to: usize, label: &str) {
        let _ = writeln!(
            self.s,
            "    <edge from=\"n{from}\" to=\"n{to}\"><attr name=\"label\"><string>{}</string></attr></edge>",
            crate::back::sdf3::escape(label)
        );
    }
    /// A value node `type:value` reached from `owner` through `attr`.
    fn value(&mut self, owner: usize, attr: &str, value: &str) {
        let v = self.node();
        self.edge(v, v, value);
        self.edge(owner, v, attr);
    }
}

fn string(s: &str) -> String {
    format!(
        "string:\"{}\"",
        s.replace('\\', "\\\\").replace('"', "\\\"")
    )
}

impl Out {
    /// A GXL document with one graph named `name`, open for nodes and edges.
    fn start(name: &str) -> Out {
        let mut o = Out {
            s: String::new(),
            next: 0,
        };
        o.s.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n");
        o.s.push_str("<gxl xmlns=\"http://www.gupro.de/GXL/gxl-1.0.dtd\">\n");
        let _ = writeln!(
            o.s,
            "  <graph role=\"graph\" edgeids=\"false\" edgemode=\"directed\" id=\"{}\">",
            crate::back::sdf3::escape(name)
        );
        o
    }
}

/// The HSDFG as GROOVE GXL.
pub fn gxl(g: &Hsdfg, name: &str) -> String {
    let mut o = Out::start(name);
    let mut node_of = Vec::new();
    for a in g.actors() {
        let actor = g.actor(a);
        let n = o.node();
        node_of.push(n);
        o.edge(n, n, "type:Actor");
        o.value(n, "name", &string(&actor.subbox.to_string()));
        o.value(n, "function", &string(&g.function_of(a).function));
        o.value(
            n,
            "time",
            &format!("int:{}", crate::back::sdf3::whole_us(actor.time)),
        );
    }
    let channels = g
        .edges()
        .map(|(_, a, b, e)| {
            let kind = match e.kind {
                EdgeKind::Dependency => "dependency",
                EdgeKind::WriteAfterRead => "write_after_read",
            };
            (
                a.index(),
                b.index(),
                e.tokens,
                g.buffer(e.buffer).name.clone(),
                kind,
            )
        })
        .chain(g.actors().map(|a| {
            let bufs = &g.actor(a).accesses;
            let buf = bufs
                .iter()
                .find(|x| x.write)
                .or(bufs.first())
                .map(|x| g.buffer(x.buffer).name.clone())
                .unwrap_or_default();
            (a.index(), a.index(), 1, buf, "self")
        }))
        .collect::<Vec<_>>();
    for (a, b, tokens, buf, kind) in channels {
        let n = o.node();
        o.edge(n, n, "type:Channel");
        o.edge(n, node_of[a], "src");
        o.edge(n, node_of[b], "dst");
        o.value(n, "tokens", &format!("int:{tokens}"));
        o.value(n, "buffer", &string(&buf));
        o.value(n, "kind", &string(kind));
    }
    o.s.push_str("  </graph>\n</gxl>\n");
    o.s
}

/// The runtime HSDFG (`-pr`'s graph) as GROOVE GXL.
pub fn gxl_runtime(g: &RuntimeGraph, name: &str) -> String {
    let mut o = Out::start(name);
    let mut node_of = Vec::new();
    for a in &g.actors {
        let n = o.node();
        node_of.push(n);
        o.edge(n, n, "type:Actor");
        o.value(n, "name", &string(&a.label));
        o.value(n, "function", &string(&a.kind_name));
        o.value(n, "time", &format!("int:{}", a.time_ns));
        if let Some(t) = &a.thread {
            o.value(n, "thread", &string(t));
        }
    }
    for c in &g.channels {
        let n = o.node();
        o.edge(n, n, "type:Channel");
        o.edge(n, node_of[c.from], "src");
        o.edge(n, node_of[c.to], "dst");
        o.value(n, "tokens", &format!("int:{}", c.tokens));
        let kind = match &c.kind {
            ChannelKind::Order => "order",
            ChannelKind::Signal(s) => {
                o.value(n, "signal", &string(s));
                "signal"
            }
            ChannelKind::Barrier(b) => {
                o.value(n, "barrier", &string(b));
                "barrier"
            }
            ChannelKind::SelfLoop => "self",
        };
        o.value(n, "kind", &string(kind));
    }
    o.s.push_str("  </graph>\n</gxl>\n");
    o.s
}
