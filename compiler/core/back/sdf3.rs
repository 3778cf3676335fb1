//! SDF3 XML of an HSDFG (`-xr`, docs/commands.md, "Export").
//!
//! [`sdf3`] takes the instantiation's HSDFG (dependencies, their
//! write-after-read partners; `--xr-graph instantiation`) and a graph name,
//! [`sdf3_runtime`] the runtime HSDFG (the default); each gives an
//! SDF3 `applicationGraph` that `sdf3analysis-sdf --algo throughput` reads,
//! shaped like `formats/sdf3-minimal.xml`.
//!
//! Guarantees (SDF3's reader is strict): every actor has a `type` (its C
//! function); every HSDFG edge is its own channel with its own output port
//! (`o<n>`) on the source and input port (`i<n>`) on the destination, so
//! every port is connected to exactly one channel; every actor has a
//! self-loop channel (`self_<actor>`, ports `so`/`si`) with 1 initial token
//! (a sub-box runs on one thread and never overlaps itself); rates are 1,
//! tokens and execution times are whole numbers (times rounded up to whole
//! µs, at least 1); all actors come before all channels; each actor has a
//! `processor` with `default="true"` and an `executionTime`. Actor names
//! are `F_k` (sub-box `F.k`; unique, as `k` has no `_`). Deterministic.
//!
//! `-xr` takes no file, as in the thesis: it writes
//! `<outputdir>/<name>.sdf3.xml`, or `--xr-output FILE` (`-` = stdout). The
//! default graph is the runtime HSDFG whenever the compiled runtime has
//! programs, which is always for `ssc build` (`--no-threadexecution` only
//! leaves them out of the *printed* runtime), with times in whole ns, so
//! SDF3's MCM is exactly `-pr`'s period in ns; `--xr-graph instantiation`
//! exports the instantiation's HSDFG in whole µs, with no programs.

use crate::ir::hsdfg::Hsdfg;
use std::fmt::Write as _;

/// XML-escapes text for an attribute value.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Whole µs, rounded up, at least 1.
pub fn whole_us(t: f64) -> u64 {
    if t.is_finite() && t > 1.0 {
        t.ceil() as u64
    } else {
        1
    }
}

/// The SDF3 name of an actor.
pub fn actor_name(g: &Hsdfg, a: crate::ir::hsdfg::ActorId) -> String {
    let sb = &g.actor(a).subbox;
    format!("{}_{}", sb.function, sb.index)
}

/// The HSDFG as SDF3 XML.
pub fn sdf3(g: &Hsdfg, name: &str) -> String {
    let name = escape(name);
    let edges: Vec<_> = g.edges().collect();
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\"?>\n<sdf3 type=\"sdf\" version=\"1.0\">\n");
    let _ = writeln!(s, "  <applicationGraph name=\"{name}\">");
    let _ = writeln!(s, "    <sdf name=\"{name}\" type=\"{name}\">");
    for a in g.actors() {
        let _ = write!(
            s,
            "      <actor name=\"{}\" type=\"{}\">",
            escape(&actor_name(g, a)),
            escape(&g.function_of(a).function)
        );
        for (n, (_, from, to, _)) in edges.iter().enumerate() {
            if *from == a {
                let _ = write!(s, "<port name=\"o{n}\" type=\"out\" rate=\"1\"/>");
            }
            if *to == a {
                let _ = write!(s, "<port name=\"i{n}\" type=\"in\" rate=\"1\"/>");
            }
        }
        s.push_str(
            "<port name=\"so\" type=\"out\" rate=\"1\"/><port name=\"si\" type=\"in\" rate=\"1\"/>",
        );
        s.push_str("</actor>\n");
    }
    for (n, (_, from, to, e)) in edges.iter().enumerate() {
        let tokens = if e.tokens > 0 {
            format!(" initialTokens=\"{}\"", e.tokens)
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "      <channel name=\"c{n}\" srcActor=\"{}\" srcPort=\"o{n}\" dstActor=\"{}\" dstPort=\"i{n}\"{tokens}/>",
            escape(&actor_name(g, *from)),
            escape(&actor_name(g, *to)),
        );
    }
    for a in g.actors() {
        let an = escape(&actor_name(g, a));
        let _ = writeln!(
            s,
            "      <channel name=\"self_{an}\" srcActor=\"{an}\" srcPort=\"so\" dstActor=\"{an}\" dstPort=\"si\" initialTokens=\"1\"/>"
        );
    }
    s.push_str("    </sdf>\n    <sdfProperties>\n");
    for a in g.actors() {
        let _ = writeln!(
            s,
            "      <actorProperties actor=\"{}\"><processor type=\"p\" default=\"true\"><executionTime time=\"{}\"/></processor></actorProperties>",
            escape(&actor_name(g, a)),
            whole_us(g.actor(a).time)
        );
    }
    s.push_str("    </sdfProperties>\n  </applicationGraph>\n</sdf3>\n");
    s
}

/// The runtime HSDFG (`-xr` once a runtime exists) as SDF3 XML.
///
/// Exactly the graph that `-pr` analyses ([`crate::analysis::runtime_graph`]):
/// every channel of it (program order, signals, barriers, self-loops) is an
/// SDF3 channel with its own ports `o<n>`/`i<n>`, execution times are whole
/// nanoseconds (the analysis' own unit, at least 0), so SDF3's
/// `thr(g)` is 1 / (the period `-pr` reports, in ns). Actor types are the C
/// function (or `barrier`/`thread`). Deterministic.
pub fn sdf3_runtime(g: &crate::ir::runtime_graph::RuntimeGraph, name: &str) -> String {
    let name = escape(name);
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\"?>\n");
    s.push_str("<!-- the runtime HSDFG of ssc: execution times in ns -->\n");
    s.push_str("<sdf3 type=\"sdf\" version=\"1.0\">\n");
    let _ = writeln!(s, "  <applicationGraph name=\"{name}\">");
    let _ = writeln!(s, "    <sdf name=\"{name}\" type=\"{name}\">");
    let mut ports: Vec<String> = vec![String::new(); g.actors.len()];
    for (n, c) in g.channels.iter().enumerate() {
        let _ = write!(
            ports[c.from],
            "<port name=\"o{n}\" type=\"out\" rate=\"1\"/>"
        );
        let _ = write!(ports[c.to], "<port name=\"i{n}\" type=\"in\" rate=\"1\"/>");
    }
    for (a, p) in g.actors.iter().zip(&ports) {
        let _ = writeln!(
            s,
            "      <actor name=\"{}\" type=\"{}\">{p}</actor>",
            escape(&a.name),
            escape(&a.kind_name)
        );
    }
    for (n, c) in g.channels.iter().enumerate() {
        let tokens = if c.tokens > 0 {
            format!(" initialTokens=\"{}\"", c.tokens)
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "      <channel name=\"c{n}\" srcActor=\"{}\" srcPort=\"o{n}\" dstActor=\"{}\" dstPort=\"i{n}\"{tokens}/>",
            escape(&g.actors[c.from].name),
            escape(&g.actors[c.to].name),
        );
    }
    s.push_str("    </sdf>\n    <sdfProperties>\n");
    for a in &g.actors {
        let _ = writeln!(
            s,
            "      <actorProperties actor=\"{}\"><processor type=\"p\" default=\"true\"><executionTime time=\"{}\"/></processor></actorProperties>",
            escape(&a.name),
            a.time_ns
        );
    }
    s.push_str("    </sdfProperties>\n  </applicationGraph>\n</sdf3>\n");
    s
}
