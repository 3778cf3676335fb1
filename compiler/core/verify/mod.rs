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
//!
//! # Files
//!
//! This file is the entry ([`verify`], [`verify_with`],
//! [`placements_from_runtime`]), the driver ((a) first, then (c) and (b),
//! every failure of both reported), (c) itself, and the ids the other
//! files share ([`OpId`], [`Exec`], [`Node`]). `counterexample.rs` holds
//! what fails and its text, `graph.rs` builds the operation graph
//! (programs, signals, barriers), finds (a) and gives the order it proves,
//! and `races.rs` checks (b).

mod counterexample;
mod graph;
mod races;

pub use counterexample::{op_ref, CounterExample, Deadlock, Malformed};

use crate::ir::hsdfg::{ActorId, EdgeKind, Hsdfg};
use crate::ir::Runtime;
use crate::memory::Placement;
use crate::sync::Extras;
use graph::Order;
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
    let g = graph::build(h, r, extras)?;
    // (a) deadlock; then what the graph orders.
    let order = Order::of(&g).map_err(|ce| vec![ce])?;
    let mut errors = Vec::new();
    let dependencies = dependencies(h, extras, &order, &mut errors);
    let access_pairs = races::races(h, r, placements, &order, &mut errors);
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

/// The rings of the folded buffers (see [`crate::memory::sections::rings`],
/// which the back ends call too).
pub use crate::memory::sections::rings;
