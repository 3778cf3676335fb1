//! The `runtime` section: timings, thread schedules, memory mappings,
//! bindings and schedules, thread programs, signals and barriers.
//!
//! Takes the section's node; gives its [`Runtime`] with spans, the entries
//! of each kind in the order written. Guarantees: a time that is not a
//! finite number is an E002 diagnostic (the time is then 0); nothing else
//! is checked here.

use super::grammar::Rule;
use super::parse::Builder;
use super::walk::{ident, kids, only, span, Node, Walk};
use crate::diagnostics::Diagnostic;
use crate::ir::{
    Arena, Barrier, Ident, MemoryBinding, MemoryMapping, MemorySchedule, Op, Runtime, Signal,
    Spanned, ThreadExecution, ThreadSchedule, TimingEntry, TimingScope,
};

impl Builder {
    pub(super) fn runtime(&mut self, n: Node) -> Runtime {
        let mut r = Runtime {
            span: span(&n),
            ..Default::default()
        };
        for stmt in kids(n) {
            match stmt.as_rule() {
                Rule::timing => {
                    let e = self.timing_entries(stmt);
                    r.timing.extend(e);
                }
                Rule::timing_system => {
                    let e = self.timing_entries(stmt);
                    r.timing_system.extend(e);
                }
                Rule::thread_schedule => {
                    for t in kids(stmt) {
                        let t = self.thread_schedule(t);
                        r.thread_schedule.push(t);
                    }
                }
                Rule::memory_mapping => {
                    for m in kids(stmt) {
                        let m = self.memory_mapping(m);
                        r.memory_mappings.push(m);
                    }
                }
                Rule::memory_binding => r.memory_bindings.extend(kids(stmt).map(memory_binding)),
                Rule::memory_schedule => r.memory_schedules.extend(kids(stmt).map(memory_schedule)),
                Rule::thread_execution => {
                    for p in kids(stmt) {
                        let p = self.thread_execution(p);
                        r.thread_executions.push(p);
                    }
                }
                Rule::signals => r.signals.extend(kids(stmt).map(signal)),
                Rule::barriers => r.barriers.extend(kids(stmt).map(barrier)),
                _ => {}
            }
        }
        r
    }

    /// The entries of `timing` or `timing_system`.
    fn timing_entries(&mut self, n: Node) -> Vec<TimingEntry> {
        kids(n).map(|e| self.timing_entry(e)).collect()
    }

    /// `FUNC T`, `INSTANCE FUNC T` or `FUNC [w, h] T` (the last two in
    /// `timing` only).
    fn timing_entry(&mut self, e: Node) -> TimingEntry {
        let s = span(&e);
        let mut it = Walk::of(e);
        let first = ident(it.expect(Rule::ident));
        let mut t = it.next();
        let (name, scope) = match t.as_rule() {
            Rule::ident => {
                let function = ident(t);
                t = it.next();
                (function, TimingScope::Instance(first))
            }
            Rule::pair => {
                let res = self.pair(t, "a resolution");
                t = it.next();
                (first, TimingScope::Resolution(res))
            }
            _ => (first, TimingScope::Function),
        };
        let ts = span(&t);
        let time = match t.as_str().parse::<f64>() {
            Ok(v) if v.is_finite() => v,
            _ => {
                self.errors.push(
                    Diagnostic::error("E002", "time out of range").label(ts, "not a finite number"),
                );
                0.0
            }
        };
        TimingEntry {
            name,
            scope,
            time: Spanned::new(time, ts),
            span: s,
        }
    }

    /// `THREAD [F.k, …]`.
    fn thread_schedule(&mut self, t: Node) -> ThreadSchedule {
        let s = span(&t);
        let mut it = Walk::of(t);
        let thread = ident(it.expect(Rule::ident));
        let subboxes = it.rest().map(|sb| self.subbox_ref(sb)).collect();
        ThreadSchedule {
            thread,
            subboxes,
            span: s,
        }
    }

    /// `NAME shared|local START END`.
    fn memory_mapping(&mut self, m: Node) -> MemoryMapping {
        let s = span(&m);
        let mut it = Walk::of(m);
        let name = ident(it.expect(Rule::ident));
        let arena = match only(it.expect(Rule::arena)).as_rule() {
            Rule::shared_kw => Arena::Shared,
            _ => Arena::Local,
        };
        let a = it.expect(Rule::uint);
        let start = Spanned::new(self.uint(a.clone()), span(&a));
        let b = it.expect(Rule::uint);
        let end = Spanned::new(self.uint(b.clone()), span(&b));
        MemoryMapping {
            name,
            arena,
            start,
            end,
            span: s,
        }
    }

    /// `THREAD OP …`.
    fn thread_execution(&mut self, p: Node) -> ThreadExecution {
        let s = span(&p);
        let mut it = Walk::of(p);
        let thread = ident(it.expect(Rule::ident));
        let ops = it.rest().map(|op| self.op(op)).collect();
        ThreadExecution {
            thread,
            ops,
            span: s,
        }
    }

    /// `W s`, `S s`, `E F.k` or `B b`.
    fn op(&mut self, n: Node) -> Spanned<Op> {
        let s = span(&n);
        let inner = only(n);
        let arg = only(inner.clone());
        let op = match inner.as_rule() {
            Rule::op_wait => Op::Wait(ident(arg)),
            Rule::op_signal => Op::Signal(ident(arg)),
            Rule::op_exec => Op::Exec(self.subbox_ref(arg)),
            _ => Op::Barrier(ident(arg)),
        };
        Spanned::new(op, s)
    }
}

/// A name and the names that follow it: `NAME [a, b, …]` and the like.
fn named_list(n: Node) -> (Ident, impl Iterator<Item = Node>) {
    let mut it = Walk::of(n);
    let name = ident(it.expect(Rule::ident));
    (name, it.rest())
}

/// `MAPPING [A.p, …]`.
fn memory_binding(m: Node) -> MemoryBinding {
    let s = span(&m);
    let (mapping, rest) = named_list(m);
    MemoryBinding {
        mapping,
        ports: rest.map(Builder::port_ref).collect(),
        span: s,
    }
}

/// `NAME [MAPPING, …]`.
fn memory_schedule(m: Node) -> MemorySchedule {
    let s = span(&m);
    let (name, rest) = named_list(m);
    MemorySchedule {
        name,
        mappings: rest.map(ident).collect(),
        span: s,
    }
}

/// `NAME [THREAD, …]`.
fn barrier(b: Node) -> Barrier {
    let s = span(&b);
    let (name, rest) = named_list(b);
    Barrier {
        name,
        threads: rest.map(ident).collect(),
        span: s,
    }
}

/// `[!] NAME`: `!` gives the signal its initial token.
fn signal(sig: Node) -> Signal {
    let s = span(&sig);
    let mut initial_token = false;
    let mut name = Ident::new("");
    for part in kids(sig) {
        match part.as_rule() {
            Rule::initial_token => initial_token = true,
            _ => name = ident(part),
        }
    }
    Signal {
        name,
        initial_token,
        span: s,
    }
}
