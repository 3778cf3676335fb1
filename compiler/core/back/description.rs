//! The description printer: any [`Description`] back to text, in one normal
//! form (docs/language.md: "every stage's output is a program").
//!
//! Normal form: two-space indentation; statements of a section in the order
//! of grammar/ssc.pest; every list statement (`container_bind`,
//! `container`, `function`, `function_instantiation`, the runtime lists)
//! written once, one entry per line; numbers in decimal. Printing what the
//! parser read from a printed description gives the same bytes.
//!
//! Within that form, `!s1` is a signal with an initial token, times are
//! Rust's shortest round-trip decimal, and several statements of one kind in
//! the input merge into one list. `ssc fmt` keeps comments
//! ([`print_with_comments`], comments found by `front::syntax::comments`):
//! one at the end of a line follows the item that starts before it on that
//! line; any other goes on its own line before the next item of the source
//! (port, list entry, connection, `};`, `}`), so it moves with that item
//! when statements are reordered or merged; one before a list's first entry
//! goes before the list's keyword.

use crate::ir::*;
use std::fmt::Write as _;

/// The normal form of a description.
pub fn print(d: &Description) -> String {
    printer(d).render(None)
}

/// The normal form of a description parsed from `source`, with the
/// comments of `source` kept (`ssc fmt`).
///
/// Each comment stays with the item it belongs to, however the normal form
/// reorders or merges statements: a comment at the end of a line follows the
/// item that starts on that line before it; any other comment comes on its
/// own line(s) before the next item of the source (a port, a list entry, a
/// connection, the `};` of a block, the `}` of a section), indented like
/// that item; one before the first entry of a list comes before the list's
/// keyword; one after the last section ends the file.
pub fn print_with_comments(d: &Description, source: &str) -> String {
    printer(d).render(Some(source))
}

fn printer(d: &Description) -> Printer {
    let mut p = Printer::default();
    if let Some(c) = &d.chain {
        p.chain(c);
    }
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
    p
}

/// One printed line.
struct Line {
    depth: usize,
    text: String,
    /// Where the item printed on this line starts in the source.
    anchor: Option<usize>,
    /// The line before which comments that precede this item go.
    lead_at: usize,
    /// The indentation of comments that precede this line's item.
    lead_depth: usize,
}

#[derive(Default)]
struct Printer {
    lines: Vec<Line>,
}

const IND: &str = "  ";

impl Printer {
    fn push(&mut self, depth: usize, text: String, anchor: Option<usize>) -> usize {
        let at = self.lines.len();
        self.lines.push(Line {
            depth,
            text,
            anchor,
            lead_at: at,
            lead_depth: depth,
        });
        at
    }

    /// A line that prints the item of the source starting at `span`.
    fn line(&mut self, depth: usize, text: &str, span: Span) {
        self.push(depth, text.to_string(), Some(span.start));
    }

    /// The `};` or `}` that ends the block spanning `span`: comments before
    /// it are indented as the block's content.
    fn close(&mut self, depth: usize, text: &str, span: Span) {
        let at = self.push(depth, text.to_string(), Some(span.end.saturating_sub(1)));
        self.lines[at].lead_depth = depth + 1;
    }

    /// `keyword` followed by entries, one per line, comma-separated, `;`.
    fn list(&mut self, depth: usize, keyword: &str, entries: Vec<(String, Span)>) {
        if entries.is_empty() {
            return;
        }
        let header = self.push(depth, keyword.to_string(), None);
        let n = entries.len();
        for (i, (e, span)) in entries.into_iter().enumerate() {
            let end = if i + 1 == n { ";" } else { "," };
            let at = self.push(depth + 1, format!("{e}{end}"), Some(span.start));
            if i == 0 {
                self.lines[at].lead_at = header;
            }
        }
    }

    fn open(&mut self, name: &str, span: Span) {
        if !self.lines.is_empty() {
            self.push(0, String::new(), None);
        }
        self.line(0, &format!("{name} {{"), span);
    }

    fn ports(&mut self, depth: usize, ports: &[Port]) {
        for port in ports {
            self.line(depth, &port_text(port), port.span);
        }
    }

    /// The text, with the comments of `source` (when given) in place.
    fn render(self, source: Option<&str>) -> String {
        let n = self.lines.len();
        let mut before: Vec<Vec<(usize, String)>> = vec![Vec::new(); n];
        let mut after: Vec<Vec<String>> = vec![Vec::new(); n];
        let mut tail: Vec<String> = Vec::new();
        if let Some(source) = source {
            let mut anchors: Vec<(usize, usize)> = self
                .lines
                .iter()
                .enumerate()
                .filter_map(|(i, l)| l.anchor.map(|a| (a, i)))
                .collect();
            anchors.sort();
            let breaks: Vec<usize> = source.match_indices('\n').map(|(i, _)| i).collect();
            let line_of = |pos: usize| breaks.partition_point(|&b| b < pos);
            for c in crate::front::syntax::comments::comments(source) {
                if c.trailing {
                    let k = anchors.partition_point(|&(a, _)| a < c.start);
                    if k > 0 && line_of(anchors[k - 1].0) == line_of(c.start) {
                        after[anchors[k - 1].1].push(c.text);
                        continue;
                    }
                }
                let k = anchors.partition_point(|&(a, _)| a < c.end);
                match anchors.get(k) {
                    Some(&(_, i)) => {
                        let line = &self.lines[i];
                        before[line.lead_at].push((line.lead_depth, c.text));
                    }
                    None => tail.push(c.text),
                }
            }
        }
        let mut out = String::new();
        let indent = |out: &mut String, depth: usize| {
            for _ in 0..depth {
                out.push_str(IND);
            }
        };
        for (i, line) in self.lines.into_iter().enumerate() {
            for (depth, text) in &before[i] {
                indent(&mut out, *depth);
                out.push_str(text);
                out.push('\n');
            }
            if !line.text.is_empty() {
                indent(&mut out, line.depth);
                out.push_str(&line.text);
            }
            for text in &after[i] {
                out.push(' ');
                out.push_str(text);
            }
            out.push('\n');
        }
        for text in tail {
            out.push_str(&text);
            out.push('\n');
        }
        out
    }

    fn composition(&mut self, c: &Composition) {
        self.open("composition", c.span);
        for decl in &c.containers {
            if decl.ports.is_empty() {
                self.line(
                    1,
                    &format!("container_declaration {} {{ }};", decl.name),
                    decl.span,
                );
            } else {
                self.line(
                    1,
                    &format!("container_declaration {} {{", decl.name),
                    decl.span,
                );
                self.ports(2, &decl.ports);
                self.close(1, "};", decl.span);
            }
        }
        let binds = c
            .binds
            .iter()
            .map(|b| {
                (
                    format!(
                        "{} {} {}{}",
                        b.container,
                        b.function,
                        b.parallelism.keyword(),
                        if b.rows { " ROWS" } else { "" }
                    ),
                    b.span,
                )
            })
            .collect();
        self.list(1, "container_bind", binds);
        self.definitions(1, &c.definitions);
        for cc in &c.compositions {
            if cc.instances.is_empty() && cc.connections.is_empty() {
                self.line(
                    1,
                    &format!("container_composition {} {{ }};", cc.name),
                    cc.span,
                );
                continue;
            }
            self.line(1, &format!("container_composition {} {{", cc.name), cc.span);
            let instances = cc
                .instances
                .iter()
                .map(|i| {
                    let res = match &i.resolution {
                        InstanceResolution::Index => "index".to_string(),
                        InstanceResolution::Explicit(p) => p.value.to_string(),
                    };
                    (format!("{} {} {}", i.name, i.container, res), i.span)
                })
                .collect();
            self.list(2, "container", instances);
            for conn in &cc.connections {
                self.line(2, &connection_text(conn), conn.span);
            }
            self.close(1, "};", cc.span);
        }
        if let Some(compose) = &c.compose {
            self.line(
                1,
                &format!(
                    "compose {} {};",
                    compose.container, compose.resolution.value
                ),
                compose.span,
            );
        }
        self.close(0, "}", c.span);
    }

    fn declaration(&mut self, d: &Declaration) {
        self.open("declaration", d.span);
        for fd in &d.function_decls {
            let head = format!(
                "function_declaration {} {}{}",
                fd.name,
                fd.parallelism.keyword(),
                if fd.rows { " ROWS" } else { "" }
            );
            if fd.ports.is_empty() {
                self.line(1, &format!("{head} {{ }};"), fd.span);
            } else {
                self.line(1, &format!("{head} {{"), fd.span);
                self.ports(2, &fd.ports);
                self.close(1, "};", fd.span);
            }
        }
        self.definitions(1, &d.definitions);
        let functions = d
            .functions
            .iter()
            .map(|f| {
                (
                    format!("{} {} {}", f.name, f.function, f.resolution.value),
                    f.span,
                )
            })
            .collect();
        self.list(1, "function", functions);
        for conn in &d.connections {
            self.line(1, &connection_text(conn), conn.span);
        }
        self.close(0, "}", d.span);
    }

    /// A chain: one statement a line, in the order written; a blank line
    /// between the declarations (`param`, `input`), the `fn`s and the
    /// values where one kind follows another.
    fn chain(&mut self, c: &Chain) {
        self.open(&format!("chain {}", c.name), c.span);
        let kind = |s: &ChainStmt| match s {
            ChainStmt::Params(..) | ChainStmt::Inputs(..) => 0,
            ChainStmt::Fn(_) | ChainStmt::Kernel(_) => 1,
            ChainStmt::Value(_) => 2,
        };
        let mut last = None;
        for stmt in &c.statements {
            if last.is_some_and(|k| k != kind(stmt)) {
                self.push(0, String::new(), None);
            }
            last = Some(kind(stmt));
            let text = match stmt {
                ChainStmt::Params(ps, _) => format!(
                    "param {};",
                    join(ps.iter().map(|p| format!("{} = {}", p.name, p.value)))
                ),
                ChainStmt::Inputs(is, _) => format!(
                    "input {};",
                    join(is.iter().map(|i| format!(
                        "{}: {}[{}, {}]",
                        i.name,
                        i.ty.keyword(),
                        i.width,
                        i.height
                    )))
                ),
                ChainStmt::Fn(f) => format!(
                    "fn {}({}) = {};",
                    f.name,
                    join(f.params.iter()),
                    expr_text(&f.body)
                ),
                ChainStmt::Kernel(k) => format!(
                    "kernel {}({}) -> {}{};",
                    k.name,
                    join(k.params.iter().map(|p| match &p.window {
                        Some(w) => format!("{}: {} {}", p.name, p.ty.keyword(), w.value),
                        None => format!("{}: {}", p.name, p.ty.keyword()),
                    })),
                    k.output.keyword(),
                    if k.rows { " ROWS" } else { "" }
                ),
                ChainStmt::Value(v) => format!(
                    "{}{} = {};",
                    if v.output { "output " } else { "" },
                    v.name,
                    expr_text(&v.value)
                ),
            };
            self.line(1, &text, stmt.span());
        }
        self.close(0, "}", c.span);
    }

    fn definitions(&mut self, depth: usize, defs: &[Definition]) {
        for def in defs {
            if def.assignments.is_empty() {
                self.line(
                    depth,
                    &format!("function_definition {} {{ }};", def.name),
                    def.span,
                );
                continue;
            }
            self.line(
                depth,
                &format!("function_definition {} {{", def.name),
                def.span,
            );
            for a in &def.assignments {
                self.line(
                    depth + 1,
                    &format!("{} = {};", a.port, expr_text(&a.value)),
                    a.span,
                );
            }
            self.close(depth, "};", def.span);
        }
    }

    fn instantiation(&mut self, i: &Instantiation) {
        self.open("instantiation", i.span);
        let subboxes = i
            .subboxes
            .iter()
            .map(|s| (format!("{} {}", s.id, s.region.value), s.span))
            .collect();
        self.list(1, "function_instantiation", subboxes);
        for dep in &i.dependencies {
            let delay = if dep.delay { " delay" } else { "" };
            self.line(1, &format!("{} => {}{delay};", dep.from, dep.to), dep.span);
        }
        self.close(0, "}", i.span);
    }

    fn runtime(&mut self, r: &Runtime) {
        self.open("runtime", r.span);
        let timing = |entries: &[TimingEntry]| -> Vec<(String, Span)> {
            entries
                .iter()
                .map(|e| (format!("{} {}", e.key_text(), e.time.value), e.span))
                .collect()
        };
        self.list(1, "timing", timing(&r.timing));
        self.list(1, "timing_system", timing(&r.timing_system));
        let threads = r
            .thread_schedule
            .iter()
            .map(|t| {
                (
                    format!("{} [{}]", t.thread, join(t.subboxes.iter())),
                    t.span,
                )
            })
            .collect();
        self.list(1, "thread_schedule", threads);
        let mappings = r
            .memory_mappings
            .iter()
            .map(|m| {
                (
                    format!(
                        "{} {} {} {}",
                        m.name,
                        m.arena.keyword(),
                        m.start.value,
                        m.end.value
                    ),
                    m.span,
                )
            })
            .collect();
        self.list(1, "memory_mapping", mappings);
        let bindings = r
            .memory_bindings
            .iter()
            .map(|b| (format!("{} [{}]", b.mapping, join(b.ports.iter())), b.span))
            .collect();
        self.list(1, "memory_binding", bindings);
        let schedules = r
            .memory_schedules
            .iter()
            .map(|s| (format!("{} [{}]", s.name, join(s.mappings.iter())), s.span))
            .collect();
        self.list(1, "memory_schedule", schedules);
        let programs = r
            .thread_executions
            .iter()
            .map(|t| {
                let ops: Vec<String> = t.ops.iter().map(|o| o.value.to_string()).collect();
                (format!("{} [{}]", t.thread, ops.join(", ")), t.span)
            })
            .collect();
        self.list(1, "thread_execution", programs);
        let signals = r
            .signals
            .iter()
            .map(|s| {
                (
                    format!("{}{}", if s.initial_token { "!" } else { "" }, s.name),
                    s.span,
                )
            })
            .collect();
        self.list(1, "signal", signals);
        let barriers = r
            .barriers
            .iter()
            .map(|b| (format!("{} [{}]", b.name, join(b.threads.iter())), b.span))
            .collect();
        self.list(1, "barrier", barriers);
        self.close(0, "}", r.span);
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
    match &c.delay {
        Some(v) => format!("{} -> {} delay {};", c.from, c.to, v.value),
        None => format!("{} -> {};", c.from, c.to),
    }
}

/// An expression of a `function_definition` in normal form (its
/// `Display`: operators spaced, parentheses only where precedence needs
/// them).
pub fn expr_text(e: &Expr) -> String {
    e.to_string()
}
