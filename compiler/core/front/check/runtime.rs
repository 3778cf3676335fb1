//! The `runtime` section, against the declaration and the instantiation.
//!
//! Takes the [`Declaration`], the [`Instantiation`] and the [`Runtime`];
//! gives E037 (a timing entry for an unknown function instance, or one
//! given a C function it does not run), E004 (duplicate timing entries, threads, programs, mappings,
//! bindings, schedules, signals, barriers, a port bound twice), E005 (unknown
//! sub-boxes, threads, signals, barriers, mappings, ports, system costs),
//! E022/E023 (a sub-box that the thread schedule or the programs miss or
//! repeat), E024 (a sub-box executed on another thread than the one that
//! schedules it), E025/E026 (a signal not waited and signalled exactly once,
//! or not used at all; only when `thread_execution` is given), E027 (an empty
//! or reversed byte range), E028 (an OUT port without a binding, when
//! `memory_binding` is given), E029 (one mapping for several buffers, or one
//! buffer in several mappings), E030 (a mapping smaller than its buffer) and
//! E034 (barrier membership). Guarantees: what is reported is about names
//! and counts only; deadlock and race freedom are proved by a later stage.

use super::{codes, names, ports};
use crate::diagnostics::Diagnostic;
use crate::ir::{
    Declaration, Direction, Function, Ident, Instantiation, MemoryBinding, MemoryMapping, Op, Port,
    PortRef, Runtime, Signal, Span, SubBox, SubBoxRef, TimingScope,
};
use std::collections::{HashMap, HashSet};

type Key<'a> = (&'a str, u64);

fn key(r: &SubBoxRef) -> Key<'_> {
    (r.function.name.as_str(), r.index)
}

pub(super) fn check(d: &Declaration, inst: &Instantiation, r: &Runtime, out: &mut Vec<Diagnostic>) {
    let boxes = Boxes::new(inst);
    timing(d, r, out);
    timing_system(r, out);
    let sched = thread_schedule(&boxes, r, out);
    let programs = programs(&boxes, r, &sched, out);
    check_signals(r, &programs.waits, &programs.sigs, out);
    check_barriers(r, &programs.meets, out);
    check_memory(d, r, out);
}

/// The sub-boxes of the instantiation by reference (the first of
/// duplicates).
struct Boxes<'a> {
    inst: &'a Instantiation,
    by_key: HashMap<Key<'a>, &'a SubBox>,
    names: Vec<String>,
}

impl<'a> Boxes<'a> {
    fn new(inst: &'a Instantiation) -> Self {
        let mut by_key: HashMap<Key, &SubBox> = HashMap::new();
        for sb in &inst.subboxes {
            by_key.entry(key(&sb.id)).or_insert(sb);
        }
        let names = inst.subboxes.iter().map(|s| s.id.to_string()).collect();
        Boxes {
            inst,
            by_key,
            names,
        }
    }

    fn contains(&self, r: &SubBoxRef) -> bool {
        self.by_key.contains_key(&key(r))
    }

    /// E005 for a reference to no sub-box.
    fn unknown(&self, r: &SubBoxRef, out: &mut Vec<Diagnostic>) {
        let name = r.to_string();
        out.push(names::undefined(
            format!("unknown sub-box `{name}`"),
            &name,
            r.span,
            self.names.iter().map(|s| s.as_str()),
        ));
    }

    /// The instantiation's sub-boxes (the first of duplicates) that `done`
    /// does not hold.
    fn missing<V>(&self, done: &HashMap<Key, V>) -> Vec<&'a SubBox> {
        self.inst
            .subboxes
            .iter()
            .filter(|sb| {
                !done.contains_key(&key(&sb.id)) && std::ptr::eq(self.by_key[&key(&sb.id)], *sb)
            })
            .collect()
    }
}

/// `timing_system`: E004 for duplicates, E005 for a cost other than `wt`,
/// `sg` and `tr`.
fn timing_system(r: &Runtime, out: &mut Vec<Diagnostic>) {
    names::duplicates("system cost", r.timing_system.iter().map(|t| &t.name), out);
    for t in &r.timing_system {
        if !["wt", "sg", "tr"].contains(&t.name.name.as_str()) {
            out.push(
                names::undefined(
                    format!("unknown system cost `{}`", t.name),
                    &t.name.name,
                    t.name.span,
                    ["wt", "sg", "tr"],
                )
                .hint("`timing_system` knows `wt` (one wait), `sg` (one signal) and `tr` (a KiB read of another thread's output)"),
            );
        }
    }
}

/// Where `thread_schedule` puts each sub-box: its thread and reference.
type Scheduled<'a> = HashMap<Key<'a>, (&'a Ident, &'a SubBoxRef)>;

/// `thread_schedule`: E004 for duplicate threads, E005 for unknown
/// sub-boxes, E022/E023 for sub-boxes scheduled twice or not at all.
fn thread_schedule<'a>(boxes: &Boxes, r: &'a Runtime, out: &mut Vec<Diagnostic>) -> Scheduled<'a> {
    names::duplicates("thread", r.thread_schedule.iter().map(|t| &t.thread), out);
    let mut sched: Scheduled = HashMap::new();
    for ts in &r.thread_schedule {
        for sb in &ts.subboxes {
            if !boxes.contains(sb) {
                boxes.unknown(sb, out);
            } else if let Some((th, first)) = sched.get(&key(sb)) {
                out.push(
                    Diagnostic::error(
                        codes::REPEATED_SUBBOX,
                        format!("sub-box `{sb}` is scheduled twice"),
                    )
                    .label(sb.span, format!("scheduled again on `{}`", ts.thread))
                    .label(first.span, format!("first scheduled on `{th}`"))
                    .hint("each sub-box runs on exactly one thread, once per iteration"),
                );
            } else {
                sched.insert(key(sb), (&ts.thread, sb));
            }
        }
    }
    if !r.thread_schedule.is_empty() {
        for sb in boxes.missing(&sched) {
            out.push(
                Diagnostic::error(
                    codes::MISSING_SUBBOX,
                    format!("sub-box `{}` is not in the thread schedule", sb.id),
                )
                .label(sb.id.span, "defined here, scheduled on no thread")
                .hint(format!(
                    "add `{}` to one thread of `thread_schedule`",
                    sb.id
                )),
            );
        }
    }
    sched
}

/// What the thread programs do besides executing: the waits and signals
/// of every signal name, and the barriers each thread meets.
#[derive(Default)]
struct Programs<'a> {
    waits: HashMap<&'a str, Vec<Span>>,
    sigs: HashMap<&'a str, Vec<Span>>,
    meets: Vec<(&'a Ident, &'a Ident, Span)>,
}

/// `thread_execution`: E004 for duplicate programs, E005 for threads not
/// in the schedule and unknown sub-boxes, E022/E023 for sub-boxes executed
/// twice or never, E024 for one executed on another thread than its own.
fn programs<'a>(
    boxes: &Boxes,
    r: &'a Runtime,
    sched: &Scheduled,
    out: &mut Vec<Diagnostic>,
) -> Programs<'a> {
    names::duplicates(
        "thread program",
        r.thread_executions.iter().map(|t| &t.thread),
        out,
    );
    let sched_threads: HashSet<&str> = r
        .thread_schedule
        .iter()
        .map(|t| t.thread.name.as_str())
        .collect();
    let mut execd: HashMap<Key, &SubBoxRef> = HashMap::new();
    let mut p = Programs::default();
    for te in &r.thread_executions {
        if !sched_threads.is_empty() && !sched_threads.contains(te.thread.name.as_str()) {
            out.push(names::undefined(
                format!(
                    "thread `{}` has a program but is not in `thread_schedule`",
                    te.thread
                ),
                &te.thread.name,
                te.thread.span,
                r.thread_schedule.iter().map(|t| t.thread.name.as_str()),
            ));
        }
        for op in &te.ops {
            match &op.value {
                Op::Exec(sb) => {
                    if !boxes.contains(sb) {
                        boxes.unknown(sb, out);
                        continue;
                    }
                    if let Some(first) = execd.get(&key(sb)) {
                        out.push(
                            Diagnostic::error(
                                codes::REPEATED_SUBBOX,
                                format!("sub-box `{sb}` is executed twice"),
                            )
                            .label(sb.span, "executed again here")
                            .label(first.span, "first executed here")
                            .hint("each sub-box is executed once per iteration, by one thread"),
                        );
                        continue;
                    }
                    execd.insert(key(sb), sb);
                    if let Some((th, at)) = sched.get(&key(sb)) {
                        if th.name != te.thread.name
                            && sched_threads.contains(te.thread.name.as_str())
                        {
                            out.push(
                                Diagnostic::error(
                                    codes::WRONG_THREAD,
                                    format!("thread `{}` executes `{sb}`, which is scheduled on `{th}`", te.thread),
                                )
                                .label(sb.span, format!("executed on `{}`", te.thread))
                                .label(at.span, format!("scheduled on `{th}` here"))
                                .hint("a thread executes exactly the sub-boxes `thread_schedule` gives it"),
                            );
                        }
                    }
                }
                Op::Wait(s) => p.waits.entry(&s.name).or_default().push(s.span),
                Op::Signal(s) => p.sigs.entry(&s.name).or_default().push(s.span),
                Op::Barrier(b) => p.meets.push((&te.thread, b, op.span)),
            }
        }
    }
    if !r.thread_executions.is_empty() {
        for sb in boxes.missing(&execd) {
            out.push(
                Diagnostic::error(
                    codes::MISSING_SUBBOX,
                    format!("sub-box `{}` is executed by no thread", sb.id),
                )
                .label(sb.id.span, "defined here, never executed")
                .hint(format!(
                    "add `E {}` to the program of the thread that schedules it",
                    sb.id
                )),
            );
        }
    }
    p
}

fn check_signals(
    r: &Runtime,
    waits: &HashMap<&str, Vec<Span>>,
    sigs: &HashMap<&str, Vec<Span>>,
    out: &mut Vec<Diagnostic>,
) {
    names::duplicates("signal", r.signals.iter().map(|s| &s.name), out);
    let declared: HashMap<&str, &Signal> = r
        .signals
        .iter()
        .map(|s| (s.name.name.as_str(), s))
        .collect();
    let declared_names = || r.signals.iter().map(|s| s.name.name.as_str());
    for te in &r.thread_executions {
        for op in &te.ops {
            if let Op::Wait(s) | Op::Signal(s) = &op.value {
                if !declared.contains_key(s.name.as_str()) {
                    out.push(
                        names::undefined(
                            format!("undeclared signal `{s}`"),
                            &s.name,
                            s.span,
                            declared_names(),
                        )
                        .hint(
                            match names::suggest(&s.name, declared_names()) {
                                Some(x) => format!(
                                    "did you mean `{x}`? otherwise declare it: `signal {s};`"
                                ),
                                None => format!("declare it: `signal {s};`"),
                            },
                        ),
                    );
                }
            }
        }
    }
    if r.thread_executions.is_empty() {
        return;
    }
    let mut done: HashSet<&str> = HashSet::new();
    for s in &r.signals {
        let name = s.name.name.as_str();
        if !done.insert(name) {
            continue;
        }
        let w = waits.get(name).map(|v| v.as_slice()).unwrap_or(&[]);
        let g = sigs.get(name).map(|v| v.as_slice()).unwrap_or(&[]);
        if w.is_empty() && g.is_empty() {
            out.push(
                Diagnostic::error(codes::UNUSED_SIGNAL, format!("signal `{name}` is declared but never used"))
                    .label(s.name.span, "declared here")
                    .hint("every signal is waited once and signalled once per iteration: use it or remove it"),
            );
            continue;
        }
        for (uses, verb, other, op) in [(w, "waited", g, "W"), (g, "signalled", w, "S")] {
            if uses.len() == 1 {
                continue;
            }
            let mut diag = Diagnostic::error(
                codes::SIGNAL_USE,
                format!(
                    "signal `{name}` is {verb} {} times; it must be {verb} exactly once",
                    uses.len()
                ),
            );
            if uses.is_empty() {
                diag = diag.label(s.name.span, format!("declared here, never {verb}"));
                for u in other {
                    diag = diag.label(*u, "used here");
                }
            } else {
                for (i, u) in uses.iter().enumerate() {
                    diag = diag.label(
                        *u,
                        if i == 0 {
                            format!("{verb} here")
                        } else {
                            "and here".to_string()
                        },
                    );
                }
            }
            out.push(diag.hint(format!(
                "one thread waits (`W {name}`) and one thread signals (`S {name}`), each once per iteration; add or remove `{op} {name}`"
            )));
        }
    }
}

fn check_barriers(r: &Runtime, meets: &[(&Ident, &Ident, Span)], out: &mut Vec<Diagnostic>) {
    names::duplicates("barrier", r.barriers.iter().map(|b| &b.name), out);
    let mut threads: Vec<&str> = r
        .thread_schedule
        .iter()
        .map(|t| t.thread.name.as_str())
        .collect();
    threads.extend(r.thread_executions.iter().map(|t| t.thread.name.as_str()));
    let known: HashSet<&str> = threads.iter().copied().collect();
    for b in &r.barriers {
        names::duplicates(
            &format!("thread of barrier `{}`", b.name),
            b.threads.iter(),
            out,
        );
        for t in &b.threads {
            if !known.is_empty() && !known.contains(t.name.as_str()) {
                out.push(names::undefined(
                    format!("barrier `{}` lists unknown thread `{t}`", b.name),
                    &t.name,
                    t.span,
                    threads.iter().copied(),
                ));
            }
        }
    }
    let declared: HashMap<&str, &crate::ir::Barrier> = r
        .barriers
        .iter()
        .rev()
        .map(|b| (b.name.name.as_str(), b))
        .collect();
    for (th, b, at) in meets {
        match declared.get(b.name.as_str()) {
            None => out.push(names::undefined(
                format!("undeclared barrier `{b}`"),
                &b.name,
                b.span,
                r.barriers.iter().map(|b| b.name.name.as_str()),
            )),
            Some(decl) if !decl.threads.iter().any(|t| t.name == th.name) => out.push(
                Diagnostic::error(
                    codes::BARRIER_MEMBERS,
                    format!("thread `{th}` meets barrier `{b}` but is not one of its threads"),
                )
                .label(*at, format!("`{th}` meets `{b}` here"))
                .label(decl.span, format!("`{b}` lists its threads here"))
                .hint(format!(
                    "add `{th}` to `barrier {b} [...]`, or remove `B {b}`"
                )),
            ),
            Some(_) => {}
        }
    }
    for b in &r.barriers {
        if !std::ptr::eq(declared[b.name.name.as_str()], b) || r.thread_executions.is_empty() {
            continue;
        }
        for t in &b.threads {
            if known.contains(t.name.as_str())
                && !meets
                    .iter()
                    .any(|(th, mb, _)| th.name == t.name && mb.name == b.name.name)
            {
                out.push(
                    Diagnostic::error(
                        codes::BARRIER_MEMBERS,
                        format!(
                            "barrier `{}` waits for thread `{t}`, whose program never meets it",
                            b.name
                        ),
                    )
                    .label(t.span, "listed here")
                    .hint(format!(
                        "add `B {}` to the program of `{t}`, or remove it from the list",
                        b.name
                    )),
                );
            }
        }
    }
}

fn check_memory(d: &Declaration, r: &Runtime, out: &mut Vec<Diagnostic>) {
    let mappings = memory_mappings(r, out);
    names::duplicates(
        "memory binding of",
        r.memory_bindings.iter().map(|b| &b.mapping),
        out,
    );
    let mut m = Memory::new(d);
    for b in &r.memory_bindings {
        let mapping = mappings.get(b.mapping.name.as_str());
        if mapping.is_none() {
            out.push(names::undefined(
                format!("memory binding of undeclared mapping `{}`", b.mapping),
                &b.mapping.name,
                b.mapping.span,
                r.memory_mappings.iter().map(|m| m.name.name.as_str()),
            ));
        }
        let buffer = m.bind_ports(b, out);
        if let Some(mapping) = mapping {
            m.check_size(b, mapping, buffer, out);
        }
    }
    if !r.memory_bindings.is_empty() {
        m.check_every_buffer_bound(out);
    }
    memory_schedules(r, &mappings, out);
}

/// `memory_mapping`: E004 for duplicates, E027 for an empty range; the
/// mappings by name (the first of duplicates).
fn memory_mappings<'a>(
    r: &'a Runtime,
    out: &mut Vec<Diagnostic>,
) -> HashMap<&'a str, &'a MemoryMapping> {
    names::duplicates(
        "memory mapping",
        r.memory_mappings.iter().map(|m| &m.name),
        out,
    );
    let mut mappings: HashMap<&str, &MemoryMapping> = HashMap::new();
    for m in &r.memory_mappings {
        if m.start.value >= m.end.value {
            out.push(
                Diagnostic::error(
                    codes::EMPTY_RANGE,
                    format!(
                        "memory mapping `{}` has an empty byte range [{}, {})",
                        m.name, m.start.value, m.end.value
                    ),
                )
                .label(m.end.span, "END must be greater than START")
                .label(m.start.span, "START")
                .hint("a mapping is the half-open byte range `START END` with START < END"),
            );
        }
        mappings.entry(&m.name.name).or_insert(m);
    }
    mappings
}

/// `memory_schedule`: E004 for duplicates, E005 for undeclared mappings.
fn memory_schedules(
    r: &Runtime,
    mappings: &HashMap<&str, &MemoryMapping>,
    out: &mut Vec<Diagnostic>,
) {
    names::duplicates(
        "memory schedule",
        r.memory_schedules.iter().map(|m| &m.name),
        out,
    );
    for ms in &r.memory_schedules {
        for m in &ms.mappings {
            if !mappings.contains_key(m.name.as_str()) {
                out.push(names::undefined(
                    format!(
                        "memory schedule `{}` names undeclared mapping `{m}`",
                        ms.name
                    ),
                    &m.name,
                    m.span,
                    r.memory_mappings.iter().map(|m| m.name.name.as_str()),
                ));
            }
        }
    }
}

/// A buffer, named by its producer's (function, OUT port).
type BufferKey<'a> = (&'a str, &'a str);

/// The `memory_binding` checks: the declaration's functions and
/// connections, and what the bindings so far have bound.
struct Memory<'a> {
    d: &'a Declaration,
    funcs: HashMap<&'a str, &'a Function>,
    /// Reader (function, port) -> its producer (function, port).
    driver: HashMap<(&'a str, &'a str), BufferKey<'a>>,
    bound_port: HashMap<(&'a str, &'a str), Span>,
    buffer_mapping: HashMap<BufferKey<'a>, (&'a str, Span)>,
}

impl<'a> Memory<'a> {
    fn new(d: &'a Declaration) -> Self {
        let mut funcs: HashMap<&str, &Function> = HashMap::new();
        for f in &d.functions {
            funcs.entry(&f.name.name).or_insert(f);
        }
        let mut driver: HashMap<(&str, &str), (&str, &str)> = HashMap::new();
        for c in &d.connections {
            if let (Some(a), Some(b)) = (&c.from.owner, &c.to.owner) {
                driver
                    .entry((&b.name, &c.to.port.name))
                    .or_insert((&a.name, &c.from.port.name));
            }
        }
        Memory {
            d,
            funcs,
            driver,
            bound_port: HashMap::new(),
            buffer_mapping: HashMap::new(),
        }
    }

    fn port_of(&self, f: &Function, name: &str) -> Option<&'a Port> {
        self.d
            .function_decl(&f.function.name)?
            .ports
            .iter()
            .find(|p| p.name.name == name)
    }

    /// One binding's ports: E005 for what they do not name, E004 for a
    /// port bound twice, E029 for two buffers in the mapping or a buffer in
    /// two mappings. Gives the mapping's buffer (its first), if any.
    fn bind_ports(
        &mut self,
        b: &'a MemoryBinding,
        out: &mut Vec<Diagnostic>,
    ) -> Option<(BufferKey<'a>, &'a PortRef)> {
        let mut buffer: Option<(BufferKey, &PortRef)> = None;
        for pr in &b.ports {
            let Some((f, port)) = resolve(self.d, &self.funcs, pr, out) else {
                continue;
            };
            let k = (f.name.name.as_str(), port.name.name.as_str());
            if let Some(first) = self.bound_port.get(&k) {
                out.push(names::duplicate(
                    "memory binding of port",
                    &pr.to_string(),
                    pr.span,
                    *first,
                ));
                continue;
            }
            self.bound_port.insert(k, pr.span);
            let buf = match port.direction {
                Direction::Out => k,
                Direction::In => match self.driver.get(&k) {
                    Some(&p) => p,
                    None => continue,
                },
            };
            match buffer {
                None => buffer = Some((buf, pr)),
                Some((first, fpr)) if first != buf => {
                    out.push(
                        Diagnostic::error(
                            codes::MAPPING_BUFFERS,
                            format!(
                                "mapping `{}` is bound to two buffers: `{}.{}` and `{}.{}`",
                                b.mapping, first.0, first.1, buf.0, buf.1
                            ),
                        )
                        .label(pr.span, format!("uses the buffer of `{}.{}`", buf.0, buf.1))
                        .label(fpr.span, format!("uses the buffer of `{}.{}`", first.0, first.1))
                        .hint("a mapping holds one buffer: the producer's OUT port and the IN ports that read it"),
                    );
                    continue;
                }
                Some(_) => {}
            }
            match self.buffer_mapping.get(&buf) {
                Some(&(m, at)) if m != b.mapping.name => out.push(
                    Diagnostic::error(
                        codes::MAPPING_BUFFERS,
                        format!(
                            "the buffer of `{}.{}` is bound to both `{m}` and `{}`",
                            buf.0, buf.1, b.mapping
                        ),
                    )
                    .label(pr.span, format!("bound to `{}` here", b.mapping))
                    .label(at, format!("bound to `{m}` here"))
                    .hint("bind the producer and all its readers to one mapping"),
                ),
                Some(_) => {}
                None => {
                    self.buffer_mapping.insert(buf, (&b.mapping.name, pr.span));
                }
            }
        }
        buffer
    }

    /// Size (E030): the mapping holds its buffer, or a ring of its whole
    /// rows.
    fn check_size(
        &self,
        b: &MemoryBinding,
        m: &MemoryMapping,
        buffer: Option<(BufferKey, &PortRef)>,
        out: &mut Vec<Diagnostic>,
    ) {
        // The buffer's producer may be unknown (a connection from an
        // undefined function, reported elsewhere): then there is no size.
        let producer = buffer.and_then(|(buf, _)| Some((buf, *self.funcs.get(buf.0)?)));
        let Some((buf, f)) = producer else {
            return;
        };
        let Some(p) = self.port_of(f, buf.1) else {
            return;
        };
        let Some((grid, bytes)) = ports::buffer(p, f.resolution.value) else {
            return;
        };
        let have = m.end.value.saturating_sub(m.start.value) as u128;
        // Smaller than the buffer: a ring of whole rows (storage
        // folding, row y at row y mod R); at least one row.
        let row = grid.x as u128 * p.ty.size() as u128;
        let ring_ok = row > 0 && have >= row && have.is_multiple_of(row);
        if m.start.value < m.end.value && have < bytes && !ring_ok {
            out.push(
                Diagnostic::error(
                    codes::MAPPING_TOO_SMALL,
                    format!(
                        "mapping `{}` has {have} bytes but the buffer of `{}.{}` needs {bytes} (grid {grid} × {} bytes), or whole rows of {row} bytes for a ring",
                        b.mapping, buf.0, buf.1, p.ty.size()
                    ),
                )
                .label(b.mapping.span, format!("bound to `{}.{}`", buf.0, buf.1))
                .label(m.span, format!("{have} bytes"))
                .hint(format!("make the range {bytes} bytes long, or a multiple of {row} bytes to hold a ring of rows")),
            );
        }
    }

    /// E028 for every OUT port's buffer without a binding.
    fn check_every_buffer_bound(&self, out: &mut Vec<Diagnostic>) {
        let d = self.d;
        for f in &d.functions {
            if !std::ptr::eq(self.funcs[f.name.name.as_str()], f) {
                continue;
            }
            let Some(decl) = d.function_decl(&f.function.name) else {
                continue;
            };
            for p in decl.ports.iter().filter(|p| p.direction == Direction::Out) {
                if !self
                    .buffer_mapping
                    .contains_key(&(f.name.name.as_str(), p.name.name.as_str()))
                {
                    out.push(
                        Diagnostic::error(
                            codes::UNBOUND_BUFFER,
                            format!(
                                "the buffer of `{}.{}` has no memory binding",
                                f.name, p.name
                            ),
                        )
                        .label(f.name.span, format!("`{}` declared here", f.name))
                        .hint(format!(
                            "bind it: `memory_binding M [{}.{}, …]`",
                            f.name, p.name
                        )),
                    );
                }
            }
        }
    }
}

/// The function and port a `F.PORT` of a memory binding names.
fn resolve<'a>(
    d: &'a Declaration,
    funcs: &HashMap<&str, &'a Function>,
    pr: &PortRef,
    out: &mut Vec<Diagnostic>,
) -> Option<(&'a Function, &'a Port)> {
    let Some(owner) = &pr.owner else {
        out.push(
            Diagnostic::error(
                codes::UNDEFINED,
                format!("`{pr}` has no meaning in a memory binding"),
            )
            .label(pr.span, "`self` is only defined in a container composition")
            .hint("name a function's port: `F.PORT`"),
        );
        return None;
    };
    let Some(f) = funcs.get(owner.name.as_str()) else {
        out.push(names::undefined(
            format!("memory binding names unknown function `{owner}`"),
            &owner.name,
            owner.span,
            d.functions.iter().map(|f| f.name.name.as_str()),
        ));
        return None;
    };
    let decl = d.function_decl(&f.function.name)?;
    match decl.ports.iter().find(|p| p.name.name == pr.port.name) {
        Some(p) => Some((f, p)),
        None => {
            out.push(names::undefined(
                format!("function `{owner}` has no port `{}`", pr.port),
                &pr.port.name,
                pr.port.span,
                decl.ports.iter().map(|p| p.name.name.as_str()),
            ));
            None
        }
    }
}

/// The `timing` entries: E004 for two entries with one key (`FUNC`,
/// `FUNC [w, h]`, `INSTANCE`), E037 for an instance the declaration does
/// not have ("did you mean") or one given a C function it does not run.
/// C functions and resolutions no instance uses are fine: a table may be
/// shared between descriptions.
fn timing(d: &Declaration, r: &Runtime, out: &mut Vec<Diagnostic>) {
    // Keys of the three kinds never clash (an instance may be named like
    // a C function).
    let mut first: HashMap<(u8, String), Span> = HashMap::new();
    for e in &r.timing {
        let (key, span) = match &e.scope {
            TimingScope::Function => ((0, e.name.name.clone()), e.name.span),
            TimingScope::Resolution(res) => (
                (1, format!("{} {}", e.name, res.value)),
                e.name.span.join(res.span),
            ),
            TimingScope::Instance(i) => ((2, i.name.clone()), i.span),
        };
        match first.get(&key) {
            Some(&prev) => out.push(names::duplicate("timing entry for", &key.1, span, prev)),
            None => {
                first.insert(key, span);
            }
        }
        let TimingScope::Instance(i) = &e.scope else {
            continue;
        };
        match d.functions.iter().find(|f| f.name.name == i.name) {
            None => {
                let mut diag = Diagnostic::error(
                    codes::UNKNOWN_TIMED_INSTANCE,
                    format!("timing entry for an unknown function instance `{i}`"),
                )
                .label(i.span, "no function instance of the declaration");
                let same: Vec<&str> = d
                    .functions
                    .iter()
                    .filter(|f| f.function.name == e.name.name)
                    .map(|f| f.name.as_str())
                    .collect();
                diag = match names::suggest(&i.name, d.functions.iter().map(|f| f.name.as_str())) {
                    Some(s) => diag.hint(format!("did you mean `{s}`?")),
                    None if !same.is_empty() => diag.hint(format!(
                        "the instances of `{}` are {}",
                        e.name,
                        same.iter()
                            .map(|s| format!("`{s}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                    None => diag.hint(format!(
                        "`INSTANCE FUNC T` names a function instance of the declaration; for every instance of `{}` write `{} T`",
                        e.name, e.name
                    )),
                };
                out.push(diag);
            }
            Some(f) if f.function.name != e.name.name => out.push(
                Diagnostic::error(
                    codes::UNKNOWN_TIMED_INSTANCE,
                    format!(
                        "timing entry for `{i}` says it runs `{}`, but it runs `{}`",
                        e.name, f.function
                    ),
                )
                .label(e.name.span, format!("`{i}` runs `{}`", f.function))
                .hint(format!(
                    "the declaration has `function {i} {} {}`: write `{i} {} {}`",
                    f.function, f.resolution.value, f.function, e.time.value
                )),
            ),
            Some(_) => {}
        }
    }
}
