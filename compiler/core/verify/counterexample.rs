//! What fails, and its text: a [`CounterExample`] ([`Malformed`]
//! programs, a [`Deadlock`], a race, an unenforced dependency) holds only
//! ids into the HSDFG and the runtime the checker was given, and
//! [`CounterExample::display`] names them with both (`thread0[3] W s5`,
//! `barrier b1`, the buffer's name). Takes the ids the checker found; gives
//! the operations a diagnostic labels ([`CounterExample::ops`]) and the
//! message. An id out of range reads `?`: the text never panics.

use super::{Exec, Node, OpId};
use crate::ir::hsdfg::{ActorId, BufferId, EdgeKind, Hsdfg};
use crate::ir::{Op, Runtime};
use crate::memory::ArenaId;
use std::fmt;

/// Why a runtime is wrong. Ids index the HSDFG and the runtime the checker
/// was given; [`CounterExample::display`] names them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CounterExample {
    /// Memory sections the checker cannot read
    /// ([`placements_from_runtime`](super::placements_from_runtime)).
    Malformed(crate::memory::sections::SectionError),
    /// Programs the checker cannot model.
    Program(Malformed),
    /// The programs block for ever.
    Deadlock(Deadlock),
    /// Two unordered accesses to the same bytes.
    Race {
        first: Exec,
        second: Exec,
        /// The buffers `first` and `second` access there.
        buffers: (BufferId, BufferId),
        arena: ArenaId,
        bytes: (u64, u64),
        /// Iteration offsets of `first` and `second` (`(0, 0)` or `(0, 1)`;
        /// `(0, 2)` for the copies of a double-buffered state).
        iterations: (u32, u32),
    },
    /// An HSDFG edge (or an ordering of [`Extras`](crate::sync::Extras))
    /// that nothing enforces.
    Unenforced {
        from: Exec,
        to: Exec,
        tokens: u32,
        buffer: BufferId,
        /// What the edge orders: a read after the write it needs
        /// ([`EdgeKind::Dependency`]) or a write after the reads it must
        /// wait for (write-after-read partners and the memory orderings).
        kind: EdgeKind,
    },
}

/// Programs the checker cannot model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Malformed {
    /// An `E` of no sub-box of the instantiation.
    UnknownSubbox {
        op: OpId,
    },
    /// A sub-box executed by two operations.
    ExecutedTwice {
        first: OpId,
        second: OpId,
    },
    NeverExecuted {
        actor: ActorId,
    },
    /// A signal without declaration, at each of its uses.
    UndeclaredSignal {
        uses: Vec<OpId>,
    },
    /// A signal with other than one `S` and one `W` per iteration.
    SignalCount {
        sends: Vec<OpId>,
        waits: Vec<OpId>,
    },
    /// `barriers[barrier].threads[listed]` has no program.
    UnknownThread {
        barrier: usize,
        listed: usize,
    },
    /// One thread meets a barrier at each of `meets`.
    BarrierMetTwice {
        barrier: usize,
        meets: Vec<OpId>,
    },
    /// `op` meets a barrier that does not list its thread.
    UnlistedThread {
        barrier: usize,
        op: OpId,
    },
    /// A barrier without declaration, at each of its uses.
    UndeclaredBarrier {
        uses: Vec<OpId>,
    },
    /// Not one placement per buffer.
    PlacementCount {
        placements: usize,
        buffers: usize,
    },
}

/// How the programs block for ever.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Deadlock {
    /// A cycle of the operation graph with no token.
    Cycle(Vec<Node>),
    /// A thread listed by a barrier never meets it: it never opens.
    NeverMet { barrier: usize, thread: usize },
    /// A wait whose signal no operation sends.
    NeverSignalled { wait: OpId },
}

impl CounterExample {
    /// The operations the counter-example names, in the order its message
    /// names them, each once: what a diagnostic labels.
    pub fn ops(&self) -> Vec<OpId> {
        let ops = match self {
            CounterExample::Malformed(_) => Vec::new(),
            CounterExample::Program(m) => match m {
                Malformed::UnknownSubbox { op } | Malformed::UnlistedThread { op, .. } => {
                    vec![*op]
                }
                Malformed::ExecutedTwice { first, second } => vec![*first, *second],
                Malformed::UndeclaredSignal { uses }
                | Malformed::UndeclaredBarrier { uses }
                | Malformed::BarrierMetTwice { meets: uses, .. } => uses.clone(),
                Malformed::SignalCount { sends, waits } => {
                    sends.iter().chain(waits).copied().collect()
                }
                Malformed::NeverExecuted { .. }
                | Malformed::UnknownThread { .. }
                | Malformed::PlacementCount { .. } => Vec::new(),
            },
            CounterExample::Deadlock(Deadlock::Cycle(cycle)) => cycle
                .iter()
                .filter_map(|n| match n {
                    Node::Op(o) => Some(*o),
                    Node::Barrier(_) => None,
                })
                .collect(),
            CounterExample::Deadlock(Deadlock::NeverMet { .. }) => Vec::new(),
            CounterExample::Deadlock(Deadlock::NeverSignalled { wait }) => vec![*wait],
            CounterExample::Race { first, second, .. } => vec![first.op, second.op],
            CounterExample::Unenforced { from, to, .. } => vec![to.op, from.op],
        };
        let mut out: Vec<OpId> = Vec::new();
        for o in ops {
            if !out.contains(&o) {
                out.push(o);
            }
        }
        out
    }

    /// The message, with the names of `h` and `r` (the HSDFG and the
    /// runtime the checker was given; an id out of their range reads `?`).
    pub fn display<'a>(&'a self, h: &'a Hsdfg, r: &'a Runtime) -> impl fmt::Display + 'a {
        Text { ce: self, h, r }
    }
}

/// `thread0[3]`, the label of an operation.
pub fn op_ref(r: &Runtime, o: OpId) -> String {
    match r.thread_executions.get(o.thread) {
        Some(te) => format!("{}[{}]", te.thread, o.index),
        None => format!("?[{}]", o.index),
    }
}

/// A counter-example with what names its ids.
struct Text<'a> {
    ce: &'a CounterExample,
    h: &'a Hsdfg,
    r: &'a Runtime,
}

impl Text<'_> {
    fn op(&self, o: OpId) -> Option<&Op> {
        let te = self.r.thread_executions.get(o.thread)?;
        Some(&te.ops.get(o.index)?.value)
    }

    /// `thread0[3] W s5`.
    fn op_name(&self, o: OpId) -> String {
        let text = self.op(o).map(Op::to_string).unwrap_or_else(|| "?".into());
        format!("{} {text}", op_ref(self.r, o))
    }

    /// What the operation names: the signal, sub-box or barrier.
    fn operand(&self, o: Option<&OpId>) -> String {
        match o.and_then(|&o| self.op(o)) {
            Some(Op::Wait(s) | Op::Signal(s) | Op::Barrier(s)) => s.to_string(),
            Some(Op::Exec(sb)) => sb.to_string(),
            None => "?".into(),
        }
    }

    fn thread(&self, t: usize) -> String {
        self.r
            .thread_executions
            .get(t)
            .map_or_else(|| "?".into(), |te| te.thread.to_string())
    }

    fn barrier(&self, b: usize) -> String {
        self.r
            .barriers
            .get(b)
            .map_or_else(|| "?".into(), |b| b.name.to_string())
    }

    fn node(&self, n: Node) -> String {
        match n {
            Node::Op(o) => self.op_name(o),
            Node::Barrier(b) => format!("barrier {}", self.barrier(b)),
        }
    }

    fn refs(&self, ops: &[OpId]) -> String {
        let refs: Vec<String> = ops.iter().map(|&o| op_ref(self.r, o)).collect();
        refs.join(", ")
    }

    fn buffer(&self, b: BufferId) -> &str {
        self.h.buffers.get(b.0).map_or("?", |b| b.name.as_str())
    }

    fn malformed(&self, f: &mut fmt::Formatter<'_>, m: &Malformed) -> fmt::Result {
        write!(f, "malformed runtime: ")?;
        match m {
            Malformed::UnknownSubbox { op } => write!(
                f,
                "thread {} executes {}, which is no sub-box of the instantiation",
                self.thread(op.thread),
                self.operand(Some(op))
            ),
            Malformed::ExecutedTwice { first, second } => write!(
                f,
                "{} is executed twice per iteration ({})",
                self.operand(Some(second)),
                self.refs(&[*first, *second])
            ),
            Malformed::NeverExecuted { actor } => match self.h.graph.node_weight(*actor) {
                Some(a) => write!(f, "{} is never executed", a.subbox),
                None => write!(f, "? is never executed"),
            },
            Malformed::UndeclaredSignal { uses } => write!(
                f,
                "signal {} is used but not declared",
                self.operand(uses.first())
            ),
            Malformed::SignalCount { sends, waits } => {
                let all: Vec<OpId> = sends.iter().chain(waits).copied().collect();
                write!(
                    f,
                    "signal {} has {} S and {} W per iteration; exactly one of each is expected ({})",
                    self.operand(all.first()),
                    sends.len(),
                    waits.len(),
                    self.refs(&all)
                )
            }
            Malformed::UnknownThread { barrier, listed } => {
                let th = self
                    .r
                    .barriers
                    .get(*barrier)
                    .and_then(|b| b.threads.get(*listed));
                write!(
                    f,
                    "barrier {} lists thread {}, which has no thread_execution",
                    self.barrier(*barrier),
                    th.map_or_else(|| "?".into(), |t| t.to_string())
                )
            }
            Malformed::BarrierMetTwice { barrier, meets } => write!(
                f,
                "thread {} meets barrier {} {} times per iteration ({})",
                meets
                    .first()
                    .map_or_else(|| "?".into(), |o| self.thread(o.thread)),
                self.barrier(*barrier),
                meets.len(),
                self.refs(meets)
            ),
            Malformed::UnlistedThread { barrier, op } => write!(
                f,
                "thread {} meets barrier {}, which does not list it",
                self.thread(op.thread),
                self.barrier(*barrier)
            ),
            Malformed::UndeclaredBarrier { uses } => write!(
                f,
                "barrier {} is used but not declared",
                self.operand(uses.first())
            ),
            Malformed::PlacementCount {
                placements,
                buffers,
            } => write!(f, "{placements} placements for {buffers} buffers"),
        }
    }

    fn deadlock(&self, f: &mut fmt::Formatter<'_>, d: &Deadlock) -> fmt::Result {
        let cycle: Vec<String> = match d {
            Deadlock::Cycle(nodes) => nodes.iter().map(|&n| self.node(n)).collect(),
            Deadlock::NeverMet { barrier, thread } => vec![
                self.node(Node::Barrier(*barrier)),
                format!("{} (never meets it)", self.thread(*thread)),
            ],
            Deadlock::NeverSignalled { wait } => vec![
                self.op_name(*wait),
                format!("(nobody signals {})", self.operand(Some(wait))),
            ],
        };
        write!(f, "deadlock: a cycle with no token: {}", cycle.join(" → "))?;
        if let Some(first) = cycle.first() {
            write!(f, " → {first}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ce {
            CounterExample::Malformed(m) => {
                write!(f, "malformed runtime: {}", m.display(self.h, self.r))
            }
            CounterExample::Program(m) => self.malformed(f, m),
            CounterExample::Deadlock(d) => self.deadlock(f, d),
            CounterExample::Race {
                first,
                second,
                arena,
                bytes,
                iterations,
                ..
            } => {
                let it = |d: u32| {
                    if d == 0 {
                        "i".to_string()
                    } else {
                        format!("i+{d}")
                    }
                };
                write!(
                    f,
                    "race: {} of iteration {} and {} of iteration {} both touch bytes \
                     [{}, {}) of the {} arena, at least one writing, and nothing orders them",
                    self.op_name(first.op),
                    it(iterations.0),
                    self.op_name(second.op),
                    it(iterations.1),
                    bytes.0,
                    bytes.1,
                    arena_name(*arena)
                )
            }
            CounterExample::Unenforced {
                from,
                to,
                tokens,
                buffer,
                kind,
            } => {
                let (from, to, buffer) = (
                    self.op_name(from.op),
                    self.op_name(to.op),
                    self.buffer(*buffer),
                );
                match (kind, *tokens) {
                    (EdgeKind::Dependency, 0) => write!(
                        f,
                        "dependency not enforced: {to} may read {buffer} before {from} of the \
                         same iteration wrote it"
                    ),
                    (EdgeKind::Dependency, t) => write!(
                        f,
                        "dependency through a delay not enforced: {to} of iteration i+{t} may \
                         read {buffer} before {from} of iteration i wrote it"
                    ),
                    (EdgeKind::WriteAfterRead, 0) => write!(
                        f,
                        "write-after-read through a delay not enforced: {to} may overwrite \
                         {buffer} before {from} of the same iteration read its previous value"
                    ),
                    (EdgeKind::WriteAfterRead, t) => write!(
                        f,
                        "write-after-read not enforced: {to} of iteration i+{t} may \
                         overwrite {buffer} before {from} of iteration i read it"
                    ),
                }
            }
        }
    }
}

fn arena_name(a: ArenaId) -> String {
    match a {
        ArenaId::Shared => "shared".into(),
        ArenaId::Local(t) => format!("local (thread {t})"),
    }
}
