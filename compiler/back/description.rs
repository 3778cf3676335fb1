//! The description printer: any [`Description`] back to text, in one normal
//! form (SPEC §2: "every stage's output is a program").
//!
//! Normal form: two-space indentation; statements of a section in the order
//! of SPEC §2.1's grammar; every list statement (`container_bind`,
//! `container`, `function`, `function_instantiation`, the runtime lists)
//! written once, one entry per line; numbers in decimal. Printing what the
//! parser read from a printed description gives the same bytes.

use crate::ir::*;
use std::fmt::Write as _;

/// The normal form of a description.
pub fn print(d: &Description) -> String {
    let mut p = Printer::default();
    if let Some(c) = &d.composition {
        p.composition(c);
    }
    if let Some(c) = &d.declaration {
        p.declaration(c);
    }
    if let Some(c) = &d.instantiation {
        p.instantiation(c);
    }
    if let Some(c) = &d.runtime {
        p.runtime(c);
    }
    p.out
}

#[derive(Default)]
struct Printer {
    out: String,
}

const IND: &str = "  ";

impl Printer {
    fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth {
            self.out.push_str(IND);
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    /// `keyword` followed by entries, one per line, comma-separated, `;`.
    fn list(&mut self, depth: usize, keyword: &str, entries: Vec<String>) {
        if entries.is_empty() {
            return;
        }
        self.line(depth, keyword);
        let n = entries.len();
        for (i, e) in entries.into_iter().enumerate() {
            let end = if i + 1 == n { ";" } else { "," };
            self.line(depth + 1, &format!("{e}{end}"));
        }
    }

    fn open(&mut self, name: &str) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
        self.line(0, &format!("{name} {{"));
    }

    fn ports(&mut self, depth: usize, ports: &[Port]) {
        for port in ports {
            self.line(depth, &port_text(port));
        }
    }

    fn composition(&mut self, c: &Composition) {
        self.open("composition");
        for decl in &c.containers {
            if decl.ports.is_empty() {
                self.line(1, &format!("container_declaration {} {{ }};", decl.name));
            } else {
                self.line(1, &format!("container_declaration {} {{", decl.name));
                self.ports(2, &decl.ports);
                self.line(1, "};");
            }
        }
        let binds = c
            .binds
            .iter()
            .map(|b| format!("{} {} {}", b.container, b.function, b.parallelism.keyword()))
            .collect();
        self.list(1, "container_bind", binds);
        for cc in &c.compositions {
            if cc.instances.is_empty() && cc.connections.is_empty() {
                self.line(1, &format!("container_composition {} {{ }};", cc.name));
                continue;
            }
            self.line(1, &format!("container_composition {} {{", cc.name));
            let instances = cc
                .instances
                .iter()
                .map(|i| {
                    let res = match &i.resolution {
                        InstanceResolution::Index => "index".to_string(),
                        InstanceResolution::Explicit(p) => p.value.to_string(),
                    };
                    format!("{} {} {}", i.name, i.container, res)
                })
                .collect();
            self.list(2, "container", instances);
            for conn in &cc.connections {
                self.line(2, &connection_text(conn));
            }
            self.line(1, "};");
        }
        if let Some(compose) = &c.compose {
            self.line(
                1,
                &format!(
                    "compose {} {};",
                    compose.container, compose.resolution.value
                ),
            );
        }
        self.line(0, "}");
    }

    fn declaration(&mut self, d: &Declaration) {
        self.open("declaration");
        for fd in &d.function_decls {
            let head = format!(
                "function_declaration {} {}",
                fd.name,
                fd.parallelism.keyword()
            );
            if fd.ports.is_empty() {
                self.line(1, &format!("{head} {{ }};"));
            } else {
                self.line(1, &format!("{head} {{"));
                self.ports(2, &fd.ports);
                self.line(1, "};");
            }
        }
        let functions = d
            .functions
            .iter()
            .map(|f| format!("{} {} {}", f.name, f.function, f.resolution.value))
            .collect();
        self.list(1, "function", functions);
        for conn in &d.connections {
            self.line(1, &connection_text(conn));
        }
        self.line(0, "}");
    }

    fn instantiation(&mut self, i: &Instantiation) {
        self.open("instantiation");
        let subboxes = i
            .subboxes
            .iter()
            .map(|s| format!("{} {}", s.id, s.region.value))
            .collect();
        self.list(1, "function_instantiation", subboxes);
        for dep in &i.dependencies {
            self.line(1, &format!("{} => {};", dep.from, dep.to));
        }
        self.line(0, "}");
    }

    fn runtime(&mut self, r: &Runtime) {
        self.open("runtime");
        let timing = |entries: &[TimingEntry]| -> Vec<String> {
            entries
                .iter()
                .map(|e| format!("{} {}", e.name, e.time.value))
                .collect()
        };
        self.list(1, "timing", timing(&r.timing));
        self.list(1, "timing_system", timing(&r.timing_system));
        let threads = r
            .thread_schedule
            .iter()
            .map(|t| format!("{} [{}]", t.thread, join(t.subboxes.iter())))
            .collect();
        self.list(1, "thread_schedule", threads);
        let mappings = r
            .memory_mappings
            .iter()
            .map(|m| {
                format!(
                    "{} {} {} {}",
                    m.name,
                    m.arena.keyword(),
                    m.start.value,
                    m.end.value
                )
            })
            .collect();
        self.list(1, "memory_mapping", mappings);
        let bindings = r
            .memory_bindings
            .iter()
            .map(|b| format!("{} [{}]", b.mapping, join(b.ports.iter())))
            .collect();
        self.list(1, "memory_binding", bindings);
        let schedules = r
            .memory_schedules
            .iter()
            .map(|s| format!("{} [{}]", s.name, join(s.mappings.iter())))
            .collect();
        self.list(1, "memory_schedule", schedules);
        let programs = r
            .thread_executions
            .iter()
            .map(|t| {
                let ops: Vec<String> = t.ops.iter().map(|o| op_text(&o.value)).collect();
                format!("{} [{}]", t.thread, ops.join(", "))
            })
            .collect();
        self.list(1, "thread_execution", programs);
        let signals = r
            .signals
            .iter()
            .map(|s| format!("{}{}", if s.initial_token { "!" } else { "" }, s.name))
            .collect();
        self.list(1, "signal", signals);
        let barriers = r
            .barriers
            .iter()
            .map(|b| format!("{} [{}]", b.name, join(b.threads.iter())))
            .collect();
        self.list(1, "barrier", barriers);
        self.line(0, "}");
    }
}

fn join<T: std::fmt::Display>(items: impl Iterator<Item = T>) -> String {
    let mut s = String::new();
    for (i, item) in items.enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{item}");
    }
    s
}

/// `in IN int mul [1, 1] [4, 4];`
pub fn port_text(p: &Port) -> String {
    let mut s = format!(
        "{} {} {} mul {}",
        p.name,
        p.direction.keyword(),
        p.ty.keyword(),
        p.mul.value
    );
    if let Some(w) = &p.window {
        let _ = write!(s, " {}", w.value);
    }
    s.push(';');
    s
}

/// `a.out -> b.in;`
pub fn connection_text(c: &Connection) -> String {
    format!("{} -> {};", c.from, c.to)
}

/// `W s1`, `S s1`, `E f6.0`, `B b0`.
pub fn op_text(op: &Op) -> String {
    match op {
        Op::Wait(s) => format!("W {s}"),
        Op::Signal(s) => format!("S {s}"),
        Op::Exec(sb) => format!("E {sb}"),
        Op::Barrier(b) => format!("B {b}"),
    }
}
