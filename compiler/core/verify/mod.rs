//! The runtime checker: proves a `runtime` section correct, or gives a
//! counter-example (docs/language.md).
//!
//! Takes the HSDFG, a [`Runtime`] (emitted by [`crate::sync`] or written by
//! hand and parsed) and the placement of every buffer; gives a [`Proof`] or
//! the list of what fails, each a [`CounterExample`] of ids into the HSDFG
//! and the runtime (operations, actors, buffers, barriers), named only by
//! [`CounterExample::display`] and labelled through
//! [`CounterExample::ops`]. Sub-boxes are resolved through the HSDFG, and a
//! name it cannot resolve is reported, never a panic.
//!
//! # The model
//!
//! The *operation graph* has one node per operation of every thread's
//! program and one virtual node per barrier. Its edges carry tokens:
//!
//! * program order: each op → the next op of its thread (0 tokens), and the
//!   last op → the first (1 token: the next iteration);
//! * signals: the `S s` op → the `W s` op, with the signal's initial tokens
//!   (a `W` of iteration j consumes the token of the `S` of iteration
//!   j − tokens);
//! * barriers: every participant's `B b` → the virtual node of `b` (0) →
//!   the op after every participant's `B b` (0, or 1 when `B b` is its last
//!   op).
//!
//! A path from op x to op y with `k` tokens in total proves that x of every
//! iteration i happens before y of iteration i + k, hence of every iteration
//! i + d with d ≥ k (y's own thread orders its iterations). Let `D(x, y)` be
//! the least token count of a path. Only `D ≤ 0` and `D ≤ 1` are ever
//! asked (below), and [`crate::reach`] answers both in O(1) after one pass
//! over the graph with the threads' program order as its chains; a bound of
//! 2 tokens or more (none today) falls back to Dijkstra (tokens are
//! non-negative).
//!
//! (a) **Deadlock freedom**: the programs deadlock iff some cycle has zero
//! tokens (an HSDF graph is live iff every cycle carries a token; barriers
//! are zero-time actors here). Found as a strongly connected component of
//! the zero-token edges; the cycle is printed.
//!
//! (b) **Races**: every pair of accesses (an `E` op × a buffer's bytes at its
//! placement, in one arena), overlapping, at least one a write, of different
//! buffers or of different iterations, must be ordered. For x in iteration i
//! and y in iteration i + d (d ≥ 0; the other order is the pair swapped):
//! ordered iff `D(x, y) ≤ d`, or `d = 0` and `D(y, x) = 0` (a path from
//! y(i + d) to x(i) would need −d tokens). Checking d ∈ {0, 1} suffices:
//! `D(x, y) ≤ 1` implies `D(x, y) ≤ d` for every d ≥ 1, and if `D(x, y) > 1`
//! the pair is already unordered at d = 1. (Since each buffer holds one
//! iteration, the same bytes are rewritten every iteration, so accesses of
//! *all* iteration distances conflict; monotonicity in d is what makes two
//! distances enough.) The pair is checked in both orders, so x(i) against
//! y(i + 1) and y(i) against x(i + 1). Same buffer and same iteration is a
//! dependency, checked by (c). A buffer whose placement is smaller than it
//! is a ring (storage folding, [`Placement::fold`]): row y lives at row
//! y mod R, so an access covers one byte range per run of slots, each
//! tagged with the rows it holds; two ranges of one buffer at the same
//! bytes but with different rows (a turn of the ring apart) are checked at
//! d = 0 like different buffers, and an access wider than its ring races
//! with itself.
//!
//! A double-buffered state (`Buffer::copies`, a delay's two copies) is
//! the exception to "each buffer holds one iteration": an access of
//! iteration i touches copy (i + phase) mod 2, so two of its accesses
//! conflict only at distances of one parity, checked at the smallest two
//! (d ∈ {0, 2} for equal phases, d = 1 otherwise), and no other buffer's
//! access may touch either copy.
//!
//! (c) **Dependencies**: for every HSDFG edge u → v with t tokens (the
//! dependency with 0, its write-after-read partner with 1; through a delay
//! the dependency with 1 and the partner with 0, so a delayed reader of
//! iteration i + 1 reads what the writer of i wrote, before the writer of
//! i + 1 overwrites it), `D(E u, E v) ≤ t`; every actor is executed
//! exactly once per iteration.
//!
//! Signals with more than one initial token (`-kd`) and barriers that run
//! only every N iterations (`-ks -ki N`) are not expressible in the IR; the
//! synchronisation stage records them in its `SyncPlan`, and
//! [`verify_with`] takes them as [`Extras`]: token counts override the `!`,
//! and periodic barriers are left out of the ordering (sound: they only add
//! order; and they cannot add a deadlock when every participant meets them
//! as its last op, which is how they are emitted).

use crate::ir::hsdfg::{ActorId, BufferId, EdgeKind, Hsdfg};
use crate::ir::{Op, Runtime};
use crate::memory::ring::Ring;
use crate::memory::{ArenaId, Placement};
use crate::reach::{Reach, TokenGraph};
use crate::sync::Extras;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet};
use std::fmt;

/// What the checker proved, with the sizes of what it checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    pub threads: usize,
    pub operations: usize,
    pub signals: usize,
    pub barriers: usize,
    /// Conflicting access pairs found ordered (each at d = 0 and d = 1).
    pub access_pairs: usize,
    /// HSDFG edges found enforced.
    pub dependencies: usize,
}

impl fmt::Display for Proof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        write!(
            f,
            "runtime proved: {}, {}, {}, {}; deadlock-free; {} ordered; {} enforced",
            n(self.threads, "thread", "threads"),
            n(self.operations, "operation", "operations"),
            n(self.signals, "signal", "signals"),
            n(self.barriers, "barrier", "barriers"),
            n(
                self.access_pairs,
                "conflicting access pair",
                "conflicting access pairs"
            ),
            n(self.dependencies, "dependency", "dependencies")
        )
    }
}

/// One operation of a runtime: `thread_executions[thread].ops[index]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpId {
    pub thread: usize,
    pub index: usize,
}

/// An actor, and the `E` operation that executes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exec {
    pub actor: ActorId,
    pub op: OpId,
}

/// A node of the operation graph: an operation, or a barrier (an index
/// into `Runtime::barriers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    Op(OpId),
    Barrier(usize),
}

/// Why a runtime is wrong. Ids index the HSDFG and the runtime the checker
/// was given; [`CounterExample::display`] names them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CounterExample {
    /// Memory sections the checker cannot read ([`placements_from_runtime`]).
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
    /// An HSDFG edge (or an ordering of [`Extras`]) that nothing enforces.
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

/// Placements of a hand-written runtime, from its `memory_mapping` and
/// `memory_binding`: [`crate::memory::sections::placements`] (the one
/// reader the back ends call too), its errors as malformed runtimes.
pub fn placements_from_runtime(
    h: &Hsdfg,
    r: &Runtime,
) -> Result<Vec<Placement>, Vec<CounterExample>> {
    crate::memory::sections::placements(h, r)
        .map_err(|es| es.into_iter().map(CounterExample::Malformed).collect())
}

/// Proves `r` correct for `h` with these placements (indexed by buffer).
pub fn verify(
    h: &Hsdfg,
    r: &Runtime,
    placements: &[Placement],
) -> Result<Proof, Vec<CounterExample>> {
    verify_with(h, r, placements, &Extras::default())
}

/// The operation graph (see the module documentation).
struct OpGraph {
    /// What each node is.
    nodes: Vec<Node>,
    /// `(to, tokens)` per node.
    adj: Vec<Vec<(usize, u32)>>,
    /// The node of each actor's `E`.
    exec: Vec<usize>,
    /// The next op of the same thread (program order), by node.
    program_next: Vec<usize>,
    /// The node of each thread's first op (its ops follow in order).
    first: Vec<usize>,
}

impl OpGraph {
    fn add(&mut self, from: usize, to: usize, tokens: u32) {
        self.adj[from].push((to, tokens));
    }

    fn push(&mut self, n: Node) -> usize {
        self.nodes.push(n);
        self.adj.push(Vec::new());
        self.nodes.len() - 1
    }

    /// The node of an operation.
    fn node(&self, o: OpId) -> usize {
        self.first[o.thread] + o.index
    }

    /// The operation of a node (barriers have none).
    fn op(&self, x: usize) -> Option<OpId> {
        match self.nodes[x] {
            Node::Op(o) => Some(o),
            Node::Barrier(_) => None,
        }
    }

    /// An actor and its `E` (after [`build`] found every actor executed).
    fn exec_of(&self, a: ActorId) -> Exec {
        let op = self.op(self.exec[a.index()]).unwrap_or(OpId {
            thread: usize::MAX,
            index: usize::MAX,
        });
        Exec { actor: a, op }
    }

    /// Least tokens of a path from `src` to every node (u32::MAX: none).
    fn distances(&self, src: usize) -> Vec<u32> {
        crate::reach::least_tokens(self.adj.len(), src, u32::MAX, None, |x| {
            self.adj[x].iter().copied()
        })
    }

    /// Reachability within 0 and 1 token over the operations, program order
    /// marking the chains (call after [`OpGraph::zero_cycle`] found none).
    fn reach(&self) -> Result<Reach, usize> {
        let mut tg = TokenGraph::new(self.adj.len());
        for (x, out) in self.adj.iter().enumerate() {
            for &(y, t) in out {
                if t == 0 && self.program_next.get(x) == Some(&y) {
                    tg.add_program_order(x, y);
                } else {
                    tg.add(x, y, t);
                }
            }
        }
        Reach::new(&tg)
    }

    /// A cycle of zero-token edges, if any.
    fn zero_cycle(&self) -> Option<Vec<usize>> {
        // Iterative DFS with colours over zero-token edges.
        let n = self.adj.len();
        let mut colour = vec![0u8; n];
        let mut parent = vec![usize::MAX; n];
        for root in 0..n {
            if colour[root] != 0 {
                continue;
            }
            let mut stack = vec![(root, 0usize)];
            colour[root] = 1;
            while let Some(&mut (x, ref mut i)) = stack.last_mut() {
                let zero: Vec<usize> = self.adj[x]
                    .iter()
                    .filter(|e| e.1 == 0)
                    .map(|e| e.0)
                    .collect();
                if *i < zero.len() {
                    let y = zero[*i];
                    *i += 1;
                    if colour[y] == 0 {
                        colour[y] = 1;
                        parent[y] = x;
                        stack.push((y, 0));
                    } else if colour[y] == 1 {
                        let mut cyc = vec![x];
                        let mut z = x;
                        while z != y {
                            z = parent[z];
                            cyc.push(z);
                        }
                        cyc.reverse();
                        return Some(cyc);
                    }
                } else {
                    colour[x] = 2;
                    stack.pop();
                }
            }
        }
        None
    }
}

/// The operation graph of `r`, or every reason it cannot be built.
fn build(h: &Hsdfg, r: &Runtime, extras: &Extras) -> Result<OpGraph, Vec<CounterExample>> {
    let mut errors = Vec::new();
    let mut g = programs(h, r, &mut errors);
    for a in h.actors() {
        if g.exec[a.index()] == usize::MAX {
            errors.push(CounterExample::Program(Malformed::NeverExecuted {
                actor: a,
            }));
        }
    }
    let uses = Uses::of(r);
    add_signals(&mut g, r, extras, &uses, &mut errors);
    add_barriers(&mut g, r, extras, &uses, &mut errors);
    // A wait nobody signals blocks forever once its initial tokens are gone.
    let declared: HashSet<&str> = r.signals.iter().map(|s| s.name.as_str()).collect();
    for (s, ws) in &uses.waits {
        if !uses.sends.contains_key(s) && declared.contains(s) {
            errors.push(CounterExample::Deadlock(Deadlock::NeverSignalled {
                wait: ws[0],
            }));
        }
    }
    if errors.is_empty() {
        Ok(g)
    } else {
        Err(errors)
    }
}

/// One node per operation, in program order (with the wrap-around's
/// token), and the `E` of each actor.
fn programs(h: &Hsdfg, r: &Runtime, errors: &mut Vec<CounterExample>) -> OpGraph {
    let finder = h.finder();
    let mut g = OpGraph {
        nodes: Vec::new(),
        adj: Vec::new(),
        exec: vec![usize::MAX; h.graph.node_count()],
        program_next: Vec::new(),
        first: Vec::new(),
    };
    for (thread, te) in r.thread_executions.iter().enumerate() {
        g.first.push(g.nodes.len());
        let mut ids = Vec::new();
        for (index, op) in te.ops.iter().enumerate() {
            let o = OpId { thread, index };
            let id = g.push(Node::Op(o));
            ids.push(id);
            if let Op::Exec(sb) = &op.value {
                match finder.find(sb) {
                    None => {
                        errors.push(CounterExample::Program(Malformed::UnknownSubbox { op: o }))
                    }
                    Some(a) if g.exec[a.index()] != usize::MAX => {
                        let first = g.op(g.exec[a.index()]).unwrap_or(o);
                        errors.push(CounterExample::Program(Malformed::ExecutedTwice {
                            first,
                            second: o,
                        }))
                    }
                    Some(a) => g.exec[a.index()] = id,
                }
            }
        }
        g.program_next.resize(g.nodes.len(), usize::MAX);
        for w in ids.windows(2) {
            g.add(w[0], w[1], 0);
            g.program_next[w[0]] = w[1];
        }
        if let (Some(&f), Some(&l)) = (ids.first(), ids.last()) {
            g.add(l, f, 1);
        }
    }
    g
}

/// The operations that use each signal and barrier, by name.
struct Uses<'r> {
    sends: BTreeMap<&'r str, Vec<OpId>>,
    waits: BTreeMap<&'r str, Vec<OpId>>,
    meets: BTreeMap<&'r str, Vec<OpId>>,
}

impl<'r> Uses<'r> {
    fn of(r: &'r Runtime) -> Self {
        let mut u = Uses {
            sends: BTreeMap::new(),
            waits: BTreeMap::new(),
            meets: BTreeMap::new(),
        };
        for (thread, te) in r.thread_executions.iter().enumerate() {
            for (index, op) in te.ops.iter().enumerate() {
                let o = OpId { thread, index };
                let (map, name) = match &op.value {
                    Op::Signal(s) => (&mut u.sends, s.as_str()),
                    Op::Wait(s) => (&mut u.waits, s.as_str()),
                    Op::Barrier(b) => (&mut u.meets, b.as_str()),
                    Op::Exec(_) => continue,
                };
                map.entry(name).or_default().push(o);
            }
        }
        u
    }
}

/// An edge from each signal's `S` to its `W`, with its initial tokens.
fn add_signals(
    g: &mut OpGraph,
    r: &Runtime,
    extras: &Extras,
    uses: &Uses,
    errors: &mut Vec<CounterExample>,
) {
    let declared: HashMap<&str, bool> = r
        .signals
        .iter()
        .map(|s| (s.name.as_str(), s.initial_token))
        .collect();
    let used: BTreeSet<&str> = uses
        .sends
        .keys()
        .chain(uses.waits.keys())
        .copied()
        .collect();
    for s in used {
        let ss = uses.sends.get(s).map(|v| v.as_slice()).unwrap_or(&[]);
        let ws = uses.waits.get(s).map(|v| v.as_slice()).unwrap_or(&[]);
        let Some(&init) = declared.get(s) else {
            let mut all: Vec<OpId> = ss.iter().chain(ws).copied().collect();
            all.sort();
            errors.push(CounterExample::Program(Malformed::UndeclaredSignal {
                uses: all,
            }));
            continue;
        };
        let tokens = extras
            .signal_tokens
            .get(s)
            .copied()
            .unwrap_or(u32::from(init));
        match (ss, ws) {
            ([x], [y]) => g.add(g.node(*x), g.node(*y), tokens),
            ([], [_]) => {} // never signalled: deadlock found by `build`
            (_, []) => {}   // never waited for: harmless
            _ => errors.push(CounterExample::Program(Malformed::SignalCount {
                sends: ss.to_vec(),
                waits: ws.to_vec(),
            })),
        }
    }
}

/// A node per barrier that is met every iteration, after every
/// participant's `B` and before the op after it.
fn add_barriers(
    g: &mut OpGraph,
    r: &Runtime,
    extras: &Extras,
    uses: &Uses,
    errors: &mut Vec<CounterExample>,
) {
    let threads: HashMap<&str, usize> = r
        .thread_executions
        .iter()
        .enumerate()
        .map(|(t, te)| (te.thread.as_str(), t))
        .collect();
    for (barrier, b) in r.barriers.iter().enumerate() {
        if extras.periodic_barriers.contains(b.name.as_str()) {
            continue;
        }
        let x = g.push(Node::Barrier(barrier));
        let ms = uses
            .meets
            .get(b.name.as_str())
            .map(|v| v.as_slice())
            .unwrap_or(&[]);
        for (listed, th) in b.threads.iter().enumerate() {
            let Some(&t) = threads.get(th.as_str()) else {
                errors.push(CounterExample::Program(Malformed::UnknownThread {
                    barrier,
                    listed,
                }));
                continue;
            };
            let mine: Vec<OpId> = ms.iter().filter(|m| m.thread == t).copied().collect();
            match mine.as_slice() {
                [o] => {
                    let len = r.thread_executions[t].ops.len();
                    g.add(g.node(*o), x, 0);
                    let (next, tok) = if o.index + 1 < len {
                        (o.index + 1, 0)
                    } else {
                        (0, 1)
                    };
                    g.add(
                        x,
                        g.node(OpId {
                            thread: t,
                            index: next,
                        }),
                        tok,
                    );
                }
                // Never met by a participant: the barrier never opens.
                [] => errors.push(CounterExample::Deadlock(Deadlock::NeverMet {
                    barrier,
                    thread: t,
                })),
                _ => errors.push(CounterExample::Program(Malformed::BarrierMetTwice {
                    barrier,
                    meets: mine,
                })),
            }
        }
        for &op in ms {
            let name = r.thread_executions[op.thread].thread.as_str();
            if !b.threads.iter().any(|x| x.as_str() == name) {
                errors.push(CounterExample::Program(Malformed::UnlistedThread {
                    barrier,
                    op,
                }));
            }
        }
    }
    for (name, ops) in &uses.meets {
        if !r.barriers.iter().any(|b| b.name.as_str() == *name) {
            errors.push(CounterExample::Program(Malformed::UndeclaredBarrier {
                uses: ops.clone(),
            }));
        }
    }
}

/// One access of one actor, placed.
struct Placed {
    actor: ActorId,
    arena: ArenaId,
    lo: u64,
    hi: u64,
    write: bool,
    buffer: usize,
    /// Which rows of the buffer these bytes hold ((0, 0) when not folded):
    /// two byte ranges of one buffer with the same epoch hold the same rows.
    epoch: (usize, u64),
    /// A double-buffered state (`Buffer::copies`): the access's phase, its
    /// bytes those of copy 0 (copy 1 lies `frame` bytes after), touched in
    /// iteration i at copy (i + phase) mod 2.
    copies: Option<Copies>,
}

/// The phase of an access to a double-buffered state, and its copy's size.
#[derive(Clone, Copy)]
struct Copies {
    phase: u32,
    frame: u64,
}

/// The rings of the folded buffers (see [`crate::memory::sections::rings`],
/// which the back ends call too).
pub use crate::memory::sections::rings;

/// The byte ranges (start, end, which rows) an access covers: one range,
/// or for a ring one range per run of ring rows.
fn placed_ranges(
    x: &crate::ir::hsdfg::Access,
    buf: &crate::ir::hsdfg::Buffer,
    p: &Placement,
    ring: Option<&Ring>,
) -> Vec<(u64, u64, (usize, u64))> {
    let row = buf.grid.x * buf.ty.size();
    match ring {
        None => {
            let (lo, hi) = x.byte_range(buf);
            vec![(p.offset + lo, p.offset + hi, (0, 0))]
        }
        Some(ring) => ring
            .runs(x.elements.y0, x.elements.y1)
            .into_iter()
            .map(|run| {
                (
                    p.offset + run.slot * row,
                    p.offset + (run.slot + run.len) * row,
                    run.tag,
                )
            })
            .collect(),
    }
}

fn arena_name(a: ArenaId) -> String {
    match a {
        ArenaId::Shared => "shared".into(),
        ArenaId::Local(t) => format!("local (thread {t})"),
    }
}

/// [`verify`], with what the IR cannot express.
pub fn verify_with(
    h: &Hsdfg,
    r: &Runtime,
    placements: &[Placement],
    extras: &Extras,
) -> Result<Proof, Vec<CounterExample>> {
    if placements.len() != h.buffers.len() {
        return Err(vec![CounterExample::Program(Malformed::PlacementCount {
            placements: placements.len(),
            buffers: h.buffers.len(),
        })]);
    }
    let g = build(h, r, extras)?;
    // (a) deadlock.
    if let Some(cyc) = g.zero_cycle() {
        let cycle = cyc.into_iter().map(|x| g.nodes[x]).collect();
        return Err(vec![CounterExample::Deadlock(Deadlock::Cycle(cycle))]);
    }
    // Token distances between the E ops (0, at most 1), see `crate::reach`.
    let reach = g
        .reach()
        .map_err(|x| vec![CounterExample::Deadlock(Deadlock::Cycle(vec![g.nodes[x]]))])?;
    let order = Order { g: &g, reach };
    let mut errors = Vec::new();
    let dependencies = dependencies(h, extras, &order, &mut errors);
    let access_pairs = races(h, r, placements, &order, &mut errors);
    if errors.is_empty() {
        Ok(Proof {
            threads: r.thread_executions.len(),
            operations: r.thread_executions.iter().map(|t| t.ops.len()).sum(),
            signals: r.signals.len(),
            barriers: r.barriers.len(),
            access_pairs,
            dependencies,
        })
    } else {
        Err(errors)
    }
}

/// What a deadlock-free operation graph orders.
struct Order<'g> {
    g: &'g OpGraph,
    reach: Reach,
}

impl Order<'_> {
    /// `D(E a, E b) ≤ t`: `a` of iteration i happens before `b` of i + t.
    fn le(&self, a: usize, b: usize, t: u32) -> bool {
        let (x, y) = (self.g.exec[a], self.g.exec[b]);
        match t {
            0 => self.reach.reach0(x, y),
            1 => self.reach.within1(x, y),
            _ => self.g.distances(x)[y] <= t,
        }
    }
}

/// (c): every HSDFG edge and every extra ordering enforced; gives how many.
fn dependencies(
    h: &Hsdfg,
    extras: &Extras,
    order: &Order,
    errors: &mut Vec<CounterExample>,
) -> usize {
    let edges = h
        .edges()
        .map(|(_, u, v, e)| (u, v, e.tokens, e.buffer, e.kind));
    let extra = extras
        .orderings
        .iter()
        .map(|e| (e.from, e.to, e.tokens, e.buffer, EdgeKind::WriteAfterRead));
    let mut deps = 0;
    for (u, v, tokens, buffer, kind) in edges.chain(extra) {
        if order.le(u.index(), v.index(), tokens) {
            deps += 1;
        } else {
            errors.push(CounterExample::Unenforced {
                from: order.g.exec_of(u),
                to: order.g.exec_of(v),
                tokens,
                buffer,
                kind,
            });
        }
    }
    deps
}

/// Every access of every actor, placed, sorted by arena and bytes.
fn placed_accesses(h: &Hsdfg, r: &Runtime, placements: &[Placement]) -> Vec<Placed> {
    let rings = rings(h, r, placements);
    let mut acc: Vec<Placed> = Vec::new();
    for a in h.actors() {
        for x in &h.actor(a).accesses {
            let buf = h.buffer(x.buffer);
            let p = placements[x.buffer.0];
            for (lo, hi, epoch) in placed_ranges(x, buf, &p, rings[x.buffer.0].as_ref()) {
                if lo >= hi {
                    continue;
                }
                acc.push(Placed {
                    actor: a,
                    arena: p.arena,
                    lo,
                    hi,
                    write: x.write,
                    buffer: x.buffer.0,
                    epoch,
                    copies: (buf.copies == 2).then(|| Copies {
                        phase: h.phase(h.actor(a).function, x.port),
                        frame: buf.frame_bytes(),
                    }),
                });
            }
        }
    }
    acc.sort_by_key(|p| (p.arena, p.lo, p.hi));
    acc
}

/// (b): every two conflicting accesses ordered at d = 0 and d = 1; gives
/// how many pairs are. Proven segment by segment ([`chained`]) in time
/// linear in the accesses; only when that proof fails are the pairs
/// enumerated ([`every_pair`]), to name each race exactly as before.
fn races(
    h: &Hsdfg,
    r: &Runtime,
    placements: &[Placement],
    order: &Order,
    errors: &mut Vec<CounterExample>,
) -> usize {
    let (double, acc): (Vec<Placed>, Vec<Placed>) = placed_accesses(h, r, placements)
        .into_iter()
        .partition(|p| p.copies.is_some());
    let pairs = double_buffered(&double, &acc, order, errors);
    if chained(&acc, order) {
        return pairs + conflicting_pairs(&acc);
    }
    pairs + every_pair(&acc, order, errors)
}

/// (b) for the double-buffered states: access x of iteration i touches copy
/// (i + phase) mod 2, so two accesses of one state share bytes at the
/// iteration distances d ≡ phase_x + phase_y (mod 2). With equal phases
/// they conflict at d = 0 (the same rows: a dependency, for (c)) and at
/// d = 2, 4, …, checked at d = 2 in both orders; with different phases at
/// d = 1, 3, …, checked at d = 1 in both orders (monotonicity, as above).
/// An access of another buffer at either copy's bytes (none, where ssc
/// placed the buffers: a state shares its memory with nothing) must be
/// ordered with it at d = 0 and d = 1 like two accesses of different
/// buffers. Gives how many pairs of the state's own accesses are ordered.
fn double_buffered(
    double: &[Placed],
    others: &[Placed],
    order: &Order,
    errors: &mut Vec<CounterExample>,
) -> usize {
    let mut far: HashMap<usize, Vec<u32>> = HashMap::new();
    let mut le2 = |a: usize, b: usize| {
        order.le(a, b, 1) || {
            let x = order.g.exec[a];
            far.entry(x).or_insert_with(|| order.g.distances(x))[order.g.exec[b]] <= 2
        }
    };
    let race = |first: &Placed, second: &Placed, bytes: (u64, u64), d: u32| CounterExample::Race {
        first: order.g.exec_of(first.actor),
        second: order.g.exec_of(second.actor),
        buffers: (BufferId(first.buffer), BufferId(second.buffer)),
        arena: first.arena,
        bytes,
        iterations: (0, d),
    };
    let mut pairs = 0;
    for (i, x) in double.iter().enumerate() {
        let Some(cx) = x.copies else { continue };
        // Another buffer's access at either copy: ordered as if the copy
        // were touched every iteration (sound, as it is one in two).
        for (lo, hi) in [(x.lo, x.hi), (x.lo + cx.frame, x.hi + cx.frame)] {
            let clashing = others
                .iter()
                .filter(|y| y.arena == x.arena && y.lo < hi && lo < y.hi && (x.write || y.write));
            for y in clashing {
                let (a, b) = (x.actor.index(), y.actor.index());
                let bytes = (lo.max(y.lo), hi.min(y.hi));
                if a == b || (!order.le(a, b, 0) && !order.le(b, a, 0)) {
                    errors.push(race(x, y, bytes, 0));
                } else if !order.le(a, b, 1) {
                    errors.push(race(x, y, bytes, 1));
                } else if !order.le(b, a, 1) {
                    errors.push(race(y, x, bytes, 1));
                }
            }
        }
        for y in &double[i + 1..] {
            let Some(cy) = y.copies else { continue };
            if y.buffer != x.buffer || y.lo >= x.hi || x.lo >= y.hi || !(x.write || y.write) {
                continue;
            }
            let (a, b) = (x.actor.index(), y.actor.index());
            let bytes = (x.lo.max(y.lo), x.hi.min(y.hi));
            let before = errors.len();
            if cx.phase == cy.phase {
                if !le2(a, b) {
                    errors.push(race(x, y, bytes, 2));
                }
                if !le2(b, a) {
                    errors.push(race(y, x, bytes, 2));
                }
            } else {
                if !order.le(a, b, 1) {
                    errors.push(race(x, y, bytes, 1));
                }
                if !order.le(b, a, 1) {
                    errors.push(race(y, x, bytes, 1));
                }
            }
            if errors.len() == before {
                pairs += 1;
            }
        }
    }
    pairs
}

/// Every conflicting pair ordered, proven by transitivity: the byte
/// ranges of an arena cut it into segments (between consecutive range
/// ends); two accesses conflict iff they share a segment and one writes.
/// In one segment, with its accesses in a topological order of the
/// operation graph (`Reach::rank`), the writes `w1 … wk` must form a chain
/// (each reaches the next with 0 tokens) and every read between `wj` and
/// `wj+1` must follow `wj` and precede `wj+1`: then every conflicting
/// pair is ordered within an iteration, and these orderings are
/// themselves pairs that must be. Across iterations, every later access
/// `b` of a pair reaches `wk` or is a read after it, every earlier `a`
/// follows `w1` or is a read before it, so `wk` before `w1`, each read
/// after `wk` before `w1`, and `wk` before each read before `w1` — all
/// with at most 1 token, each itself a pair that must be ordered — give
/// every pair at d = 1. Sufficient, and necessary but for the pairs of the
/// same rows, which (b) leaves to the dependencies and this asks in
/// program order too (or an actor with two overlapping ranges): `false`
/// then sends the caller to [`every_pair`]. O(Σ accesses per segment).
fn chained(acc: &[Placed], order: &Order) -> bool {
    let rank = |p: &Placed| order.reach.rank(order.g.exec[p.actor.index()]);
    let mut start = 0;
    while start < acc.len() {
        let arena = acc[start].arena;
        let end = start + acc[start..].partition_point(|p| p.arena == arena);
        let slice = &acc[start..end];
        start = end;
        let mut bounds: Vec<u64> = slice.iter().flat_map(|p| [p.lo, p.hi]).collect();
        bounds.sort_unstable();
        bounds.dedup();
        let mut active: BTreeSet<(usize, usize)> = BTreeSet::new();
        let mut ends: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
        let (mut next, mut writes) = (0, 0usize);
        for &b in &bounds {
            while let Some(&Reverse((hi, i))) = ends.peek() {
                if hi > b {
                    break;
                }
                ends.pop();
                active.remove(&(rank(&slice[i]), i));
                writes -= usize::from(slice[i].write);
            }
            while next < slice.len() && slice[next].lo <= b {
                active.insert((rank(&slice[next]), next));
                ends.push(Reverse((slice[next].hi, next)));
                writes += usize::from(slice[next].write);
                next += 1;
            }
            if writes > 0 && !segment_ordered(slice, &active, order) {
                return false;
            }
        }
    }
    true
}

/// The accesses of one segment (indices into `slice`, in topological
/// order) ordered as [`chained`] requires.
fn segment_ordered(slice: &[Placed], active: &BTreeSet<(usize, usize)>, order: &Order) -> bool {
    let (mut first, mut last) = (None, None);
    let (mut before_first, mut since_last): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    let mut prev: Option<(usize, bool)> = None;
    for &(_, i) in active {
        let (a, write) = (slice[i].actor.index(), slice[i].write);
        // One actor's ranges are neighbours in the order: two of them
        // overlapping, one a write, is for `every_pair` to judge.
        if prev.is_some_and(|(pa, pw)| pa == a && (pw || write)) {
            return false;
        }
        prev = Some((a, write));
        if last.is_some_and(|w| !order.le(w, a, 0)) {
            return false;
        }
        if write {
            if since_last.iter().any(|&r| !order.le(r, a, 0)) {
                return false;
            }
            if first.is_none() {
                first = Some(a);
                before_first = std::mem::take(&mut since_last);
            }
            since_last.clear();
            last = Some(a);
        } else {
            since_last.push(a);
        }
    }
    let (Some(f), Some(l)) = (first, last) else {
        return true;
    };
    order.le(l, f, 1)
        && since_last.iter().all(|&r| order.le(r, f, 1))
        && before_first.iter().all(|&r| order.le(l, r, 1))
}

/// How many pairs of accesses [`every_pair`] finds conflicting (sharing
/// bytes of an arena, one a write), counted without enumerating them:
/// all overlapping pairs less those of two reads.
fn conflicting_pairs(acc: &[Placed]) -> usize {
    let overlapping = |reads_only: bool| {
        let mut n = 0;
        let mut open: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
        let mut arena = None;
        for p in acc.iter().filter(|p| !(reads_only && p.write)) {
            if arena != Some(p.arena) {
                open.clear();
                arena = Some(p.arena);
            }
            while open.peek().is_some_and(|&Reverse(hi)| hi <= p.lo) {
                open.pop();
            }
            n += open.len();
            open.push(Reverse(p.hi));
        }
        n
    };
    overlapping(false) - overlapping(true)
}

/// (b) pair by pair: every two conflicting accesses, each race reported.
fn every_pair(acc: &[Placed], order: &Order, errors: &mut Vec<CounterExample>) -> usize {
    let mut pairs = 0;
    let mut reported: HashSet<(usize, usize, u32)> = HashSet::new();
    for i in 0..acc.len() {
        for j in i..acc.len() {
            let (x, y) = (&acc[i], &acc[j]);
            if y.arena != x.arena || y.lo >= x.hi {
                break;
            }
            if !(x.write || y.write) || (i == j) {
                continue;
            }
            // The same rows of one buffer: a dependency within an iteration,
            // checked by (c); other rows at the same bytes (a ring's rows
            // one turn apart) must be ordered like different buffers.
            let same_rows = x.buffer == y.buffer && x.epoch == y.epoch;
            let (a, b) = (x.actor.index(), y.actor.index());
            let bytes = (x.lo.max(y.lo), x.hi.min(y.hi));
            let mut ok = true;
            let mut race = |first: &Placed, second: &Placed, d: u32| {
                ok = false;
                let (f, s) = (first.actor.index(), second.actor.index());
                if reported.insert((f.min(s), f.max(s), d)) {
                    errors.push(CounterExample::Race {
                        first: order.g.exec_of(first.actor),
                        second: order.g.exec_of(second.actor),
                        buffers: (BufferId(first.buffer), BufferId(second.buffer)),
                        arena: x.arena,
                        bytes,
                        iterations: (0, d),
                    });
                }
            };
            // d = 0: different rows only (same rows: a dependency).
            if !same_rows && (a == b || (!order.le(a, b, 0) && !order.le(b, a, 0))) {
                race(x, y, 0);
            }
            // d = 1, both orders.
            if !order.le(a, b, 1) {
                race(x, y, 1);
            }
            if !order.le(b, a, 1) {
                race(y, x, 1);
            }
            if ok {
                pairs += 1;
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::reach::random::lcg;

    /// Random programs: `n` actors, one `E` each, on up to 3 threads, with
    /// random 0-token edges forward in one order (signals) and 1-token
    /// edges anywhere.
    fn random_graph(s: &mut u64, n: usize) -> OpGraph {
        let threads = 1 + (lcg(s) % 3) as usize;
        let mut g = OpGraph {
            nodes: Vec::new(),
            adj: Vec::new(),
            exec: vec![usize::MAX; n],
            program_next: Vec::new(),
            first: Vec::new(),
        };
        let mut on: Vec<Vec<usize>> = vec![Vec::new(); threads];
        for a in 0..n {
            on[(lcg(s) % threads as u64) as usize].push(a);
        }
        for (thread, actors) in on.iter().enumerate() {
            g.first.push(g.nodes.len());
            for (index, &a) in actors.iter().enumerate() {
                g.exec[a] = g.push(Node::Op(OpId { thread, index }));
            }
            let ids: Vec<usize> = actors.iter().map(|&a| g.exec[a]).collect();
            g.program_next.resize(g.nodes.len(), usize::MAX);
            for w in ids.windows(2) {
                g.add(w[0], w[1], 0);
                g.program_next[w[0]] = w[1];
            }
            if let (Some(&f), Some(&l)) = (ids.first(), ids.last()) {
                g.add(l, f, 1);
            }
        }
        // Actors are numbered in thread order within each thread, so edges
        // from a lower to a higher actor never close a 0-token cycle.
        for _ in 0..lcg(s) % (2 * n as u64 + 1) {
            let (a, b) = ((lcg(s) % n as u64) as usize, (lcg(s) % n as u64) as usize);
            if a < b {
                g.add(g.exec[a], g.exec[b], 0);
            } else if a != b {
                g.add(g.exec[a], g.exec[b], 1);
            }
        }
        g
    }

    fn random_accesses(s: &mut u64, n: usize, same_rows: bool) -> Vec<Placed> {
        let mut acc: Vec<Placed> = (0..1 + lcg(s) % 10)
            .map(|i| {
                let lo = lcg(s) % 12;
                Placed {
                    actor: ActorId::new((lcg(s) % n as u64) as usize),
                    arena: if lcg(s).is_multiple_of(4) {
                        ArenaId::Local(0)
                    } else {
                        ArenaId::Shared
                    },
                    lo,
                    hi: lo + 1 + lcg(s) % 5,
                    write: lcg(s).is_multiple_of(2),
                    buffer: (lcg(s) % 2) as usize,
                    epoch: if same_rows { (0, lcg(s) % 2) } else { (0, i) },
                    copies: None,
                }
            })
            .collect();
        acc.sort_by_key(|p| (p.arena, p.lo, p.hi));
        acc
    }

    #[test]
    fn the_segment_proof_agrees_with_every_pair() {
        let mut seed = 11u64;
        let (mut proven, mut refused) = (0, 0);
        for round in 0..3000 {
            let n = 2 + (lcg(&mut seed) % 7) as usize;
            let g = random_graph(&mut seed, n);
            let Ok(reach) = g.reach() else {
                continue;
            };
            let order = Order { g: &g, reach };
            // With pairs of the same rows, the segment proof may only
            // refuse more; without, it decides exactly as every pair.
            let same_rows = round % 2 == 0;
            let acc = random_accesses(&mut seed, n, same_rows);
            let mut errors = Vec::new();
            let pairs = every_pair(&acc, &order, &mut errors);
            if chained(&acc, &order) {
                proven += 1;
                assert!(errors.is_empty(), "{errors:?}");
                assert_eq!(conflicting_pairs(&acc), pairs);
            } else {
                refused += 1;
                assert!(same_rows || !errors.is_empty());
            }
        }
        assert!(
            proven > 300 && refused > 300,
            "{proven} proven, {refused} refused"
        );
    }

    /// The double-buffered check against iterations unrolled: accesses of
    /// one state at random phases, two of them a race exactly when some
    /// distance 1 ≤ d ≤ 3 puts them on the same copy and no path with at
    /// most d tokens orders them (at d = 0 the same rows of one buffer
    /// are a dependency, for (c)).
    #[test]
    fn the_double_buffered_check_agrees_with_unrolled_iterations() {
        let mut seed = 23u64;
        let (mut proven, mut refused) = (0, 0);
        for _ in 0..3000 {
            let n = 2 + (lcg(&mut seed) % 6) as usize;
            let g = random_graph(&mut seed, n);
            let Ok(reach) = g.reach() else {
                continue;
            };
            let order = Order { g: &g, reach };
            let frame = 16;
            let acc: Vec<Placed> = (0..2 + lcg(&mut seed) % 5)
                .map(|_| {
                    let lo = lcg(&mut seed) % 12;
                    Placed {
                        actor: ActorId::new((lcg(&mut seed) % n as u64) as usize),
                        arena: ArenaId::Shared,
                        lo,
                        hi: lo + 1 + lcg(&mut seed) % 4,
                        write: lcg(&mut seed).is_multiple_of(2),
                        buffer: 0,
                        epoch: (0, 0),
                        copies: Some(Copies {
                            phase: (lcg(&mut seed) % 2) as u32,
                            frame,
                        }),
                    }
                })
                .collect();
            let dist = |a: usize, b: usize| g.distances(g.exec[a])[g.exec[b]];
            let mut race = false;
            for (i, x) in acc.iter().enumerate() {
                for y in &acc[i + 1..] {
                    if y.lo >= x.hi || x.lo >= y.hi || !(x.write || y.write) {
                        continue;
                    }
                    let (a, b) = (x.actor.index(), y.actor.index());
                    let (px, py) = (x.copies.unwrap().phase, y.copies.unwrap().phase);
                    for d in 0..=3u32 {
                        if (px + py + d) % 2 != 0 {
                            continue;
                        }
                        if d > 0 {
                            race |= dist(a, b) > d || dist(b, a) > d;
                        }
                    }
                }
            }
            let mut errors = Vec::new();
            double_buffered(&acc, &[], &order, &mut errors);
            assert_eq!(race, !errors.is_empty(), "{errors:?}");
            if race {
                refused += 1;
            } else {
                proven += 1;
            }
        }
        assert!(
            proven > 300 && refused > 300,
            "{proven} proven, {refused} refused"
        );
    }
}
