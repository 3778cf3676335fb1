//! The runtime checker: proves a `runtime` section correct, or gives a
//! counter-example (docs/language.md).
//!
//! Takes the HSDFG, a [`Runtime`] (emitted by [`crate::sync`] or written by
//! hand and parsed) and the placement of every buffer; gives a [`Proof`] or
//! the list of what fails. Works on names: sub-boxes are resolved through
//! the HSDFG, and a name it cannot resolve is reported, never a panic.
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
//! (c) **Dependencies**: for every HSDFG edge u → v with t tokens (the
//! dependency with 0, its write-after-read partner with 1),
//! `D(E u, E v) ≤ t`; every actor is executed exactly once per iteration.
//!
//! Signals with more than one initial token (`-kd`) and barriers that run
//! only every N iterations (`-ks -ki N`) are not expressible in the IR; the
//! synchronisation stage records them in its `SyncPlan`, and
//! [`verify_with`] takes them as [`Extras`](crate::sync::Extras): token counts override the `!`,
//! and periodic barriers are left out of the ordering (sound: they only add
//! order; and they cannot add a deadlock when every participant meets them
//! as its last op, which is how they are emitted).

use crate::ir::{Op, Runtime};
use crate::lower::hsdfg::{ActorId, Hsdfg};
use crate::memory::ring::Ring;
use crate::memory::{ArenaId, Placement};
use crate::reach::{Reach, TokenGraph};
use crate::sync::Extras;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap, HashSet};
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

/// Why a runtime is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CounterExample {
    /// Something the checker cannot model (unknown name, a signal used
    /// twice per iteration, an actor never executed, …).
    Malformed(String),
    /// A cycle of operations with no token.
    Deadlock { cycle: Vec<String> },
    /// Two unordered accesses to the same bytes.
    Race {
        first: String,
        second: String,
        arena: String,
        bytes: (u64, u64),
        /// Iteration offsets of `first` and `second` (`(0, 0)` or `(0, 1)`).
        iterations: (u32, u32),
    },
    /// An HSDFG edge that nothing enforces.
    Unenforced {
        from: String,
        to: String,
        tokens: u32,
        buffer: String,
    },
}

impl fmt::Display for CounterExample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CounterExample::Malformed(m) => write!(f, "malformed runtime: {m}"),
            CounterExample::Deadlock { cycle } => {
                write!(f, "deadlock: a cycle with no token: {}", cycle.join(" → "))?;
                if let Some(first) = cycle.first() {
                    write!(f, " → {first}")?;
                }
                Ok(())
            }
            CounterExample::Race {
                first,
                second,
                arena,
                bytes,
                iterations,
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
                    "race: {first} of iteration {} and {second} of iteration {} both touch bytes \
                     [{}, {}) of the {arena} arena, at least one writing, and nothing orders them",
                    it(iterations.0),
                    it(iterations.1),
                    bytes.0,
                    bytes.1
                )
            }
            CounterExample::Unenforced {
                from,
                to,
                tokens,
                buffer,
            } => {
                if *tokens == 0 {
                    write!(
                        f,
                        "dependency not enforced: {to} may read {buffer} before {from} of the \
                         same iteration wrote it"
                    )
                } else {
                    write!(
                        f,
                        "write-after-read not enforced: {to} of iteration i+{tokens} may \
                         overwrite {buffer} before {from} of iteration i read it"
                    )
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
    /// Printable name of each node.
    names: Vec<String>,
    /// `(to, tokens)` per node.
    adj: Vec<Vec<(usize, u32)>>,
    /// The node of each actor's `E`.
    exec: Vec<usize>,
    /// The next op of the same thread (program order), by node.
    program_next: Vec<usize>,
}

impl OpGraph {
    fn add(&mut self, from: usize, to: usize, tokens: u32) {
        self.adj[from].push((to, tokens));
    }

    /// Least tokens of a path from `src` to every node (u32::MAX: none).
    fn distances(&self, src: usize) -> Vec<u32> {
        let mut d = vec![u32::MAX; self.adj.len()];
        let mut heap = BinaryHeap::new();
        d[src] = 0;
        heap.push(Reverse((0u32, src)));
        while let Some(Reverse((k, x))) = heap.pop() {
            if k > d[x] {
                continue;
            }
            for &(y, t) in &self.adj[x] {
                let nk = k.saturating_add(t);
                if nk < d[y] {
                    d[y] = nk;
                    heap.push(Reverse((nk, y)));
                }
            }
        }
        d
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

fn op_text(op: &Op) -> String {
    match op {
        Op::Wait(s) => format!("W {s}"),
        Op::Signal(s) => format!("S {s}"),
        Op::Exec(sb) => format!("E {sb}"),
        Op::Barrier(b) => format!("B {b}"),
    }
}

fn build(h: &Hsdfg, r: &Runtime, extras: &Extras) -> Result<OpGraph, Vec<CounterExample>> {
    let finder = h.finder();
    let mut errors = Vec::new();
    let mut g = OpGraph {
        names: Vec::new(),
        adj: Vec::new(),
        exec: vec![usize::MAX; h.graph.node_count()],
        program_next: Vec::new(),
    };
    // Nodes, program order.
    let mut nodes: Vec<Vec<usize>> = Vec::new();
    for te in &r.thread_executions {
        let mut ids = Vec::new();
        for (k, op) in te.ops.iter().enumerate() {
            let id = g.names.len();
            g.names
                .push(format!("{}[{}] {}", te.thread, k, op_text(&op.value)));
            g.adj.push(Vec::new());
            ids.push(id);
            if let Op::Exec(sb) = &op.value {
                match finder.find(sb) {
                    None => errors.push(CounterExample::Malformed(format!(
                        "thread {} executes {sb}, which is no sub-box of the instantiation",
                        te.thread
                    ))),
                    Some(a) if g.exec[a.index()] != usize::MAX => {
                        let first = &g.names[g.exec[a.index()]];
                        let first = first.split(' ').next().unwrap_or(first);
                        errors.push(CounterExample::Malformed(format!(
                            "{sb} is executed twice per iteration ({first}, {}[{k}])",
                            te.thread
                        )))
                    }
                    Some(a) => g.exec[a.index()] = id,
                }
            }
        }
        g.program_next.resize(g.names.len(), usize::MAX);
        for w in ids.windows(2) {
            g.add(w[0], w[1], 0);
            g.program_next[w[0]] = w[1];
        }
        if let (Some(&f), Some(&l)) = (ids.first(), ids.last()) {
            g.add(l, f, 1);
        }
        nodes.push(ids);
    }
    for a in h.actors() {
        if g.exec[a.index()] == usize::MAX {
            errors.push(CounterExample::Malformed(format!(
                "{} is never executed",
                h.actor(a).subbox
            )));
        }
    }
    // Signals.
    let mut sends: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut waits: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut meets: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for (t, te) in r.thread_executions.iter().enumerate() {
        for (k, op) in te.ops.iter().enumerate() {
            match &op.value {
                Op::Signal(s) => sends.entry(s.as_str()).or_default().push(nodes[t][k]),
                Op::Wait(s) => waits.entry(s.as_str()).or_default().push(nodes[t][k]),
                Op::Barrier(b) => meets.entry(b.as_str()).or_default().push((t, k)),
                Op::Exec(_) => {}
            }
        }
    }
    let declared: HashMap<&str, bool> = r
        .signals
        .iter()
        .map(|s| (s.name.as_str(), s.initial_token))
        .collect();
    let used: BTreeSet<&str> = sends.keys().chain(waits.keys()).copied().collect();
    for s in used {
        let Some(&init) = declared.get(s) else {
            errors.push(CounterExample::Malformed(format!(
                "signal {s} is used but not declared"
            )));
            continue;
        };
        let tokens = extras
            .signal_tokens
            .get(s)
            .copied()
            .unwrap_or(u32::from(init));
        let ss = sends.get(s).map(|v| v.as_slice()).unwrap_or(&[]);
        let ws = waits.get(s).map(|v| v.as_slice()).unwrap_or(&[]);
        match (ss, ws) {
            ([x], [y]) => g.add(*x, *y, tokens),
            ([], [_]) => {} // never signalled: deadlock found below
            (_, []) => {}   // never waited for: harmless
            _ => errors.push(CounterExample::Malformed(format!(
                "signal {s} has {} S and {} W per iteration; exactly one of each is expected ({})",
                ss.len(),
                ws.len(),
                ss.iter()
                    .chain(ws)
                    .map(|&n| g.names[n].split(' ').next().unwrap_or("").to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        }
    }
    // Barriers.
    let threads: HashMap<&str, usize> = r
        .thread_executions
        .iter()
        .enumerate()
        .map(|(t, te)| (te.thread.as_str(), t))
        .collect();
    for b in &r.barriers {
        if extras.periodic_barriers.contains(b.name.as_str()) {
            continue;
        }
        let x = g.names.len();
        g.names.push(format!("barrier {}", b.name));
        g.adj.push(Vec::new());
        let ms = meets.get(b.name.as_str()).cloned().unwrap_or_default();
        for th in &b.threads {
            let Some(&t) = threads.get(th.as_str()) else {
                errors.push(CounterExample::Malformed(format!(
                    "barrier {} lists thread {th}, which has no thread_execution",
                    b.name
                )));
                continue;
            };
            let mine: Vec<usize> = ms.iter().filter(|m| m.0 == t).map(|m| m.1).collect();
            match mine.as_slice() {
                [k] => {
                    let len = nodes[t].len();
                    g.add(nodes[t][*k], x, 0);
                    let (next, tok) = if k + 1 < len { (k + 1, 0) } else { (0, 1) };
                    g.add(x, nodes[t][next], tok);
                }
                // Never met by a participant: the barrier never opens.
                [] => {
                    let cyc = vec![
                        format!("barrier {}", b.name),
                        format!("{th} (never meets it)"),
                    ];
                    errors.push(CounterExample::Deadlock { cycle: cyc });
                }
                _ => errors.push(CounterExample::Malformed(format!(
                    "thread {th} meets barrier {} {} times per iteration ({})",
                    b.name,
                    mine.len(),
                    mine.iter()
                        .map(|k| format!("{th}[{k}]"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))),
            }
        }
        for &(t, _) in &ms {
            let name = r.thread_executions[t].thread.as_str();
            if !b.threads.iter().any(|x| x.as_str() == name) {
                errors.push(CounterExample::Malformed(format!(
                    "thread {name} meets barrier {}, which does not list it",
                    b.name
                )));
            }
        }
    }
    for name in meets.keys() {
        if !r.barriers.iter().any(|b| b.name.as_str() == *name) {
            errors.push(CounterExample::Malformed(format!(
                "barrier {name} is used but not declared"
            )));
        }
    }
    // A wait nobody signals blocks forever once its initial tokens are gone.
    for (s, ws) in &waits {
        if !sends.contains_key(s) && declared.contains_key(s) {
            errors.push(CounterExample::Deadlock {
                cycle: vec![g.names[ws[0]].clone(), format!("(nobody signals {s})")],
            });
        }
    }
    if errors.is_empty() {
        Ok(g)
    } else {
        Err(errors)
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
}

/// The rings of the folded buffers (see [`crate::memory::sections::rings`],
/// which the back ends call too).
pub use crate::memory::sections::rings;

/// The byte ranges (start, end, which rows) an access covers: one range,
/// or for a ring one range per run of ring rows.
fn placed_ranges(
    x: &crate::lower::hsdfg::Access,
    buf: &crate::lower::hsdfg::Buffer,
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
        return Err(vec![CounterExample::Malformed(format!(
            "{} placements for {} buffers",
            placements.len(),
            h.buffers.len()
        ))]);
    }
    let g = build(h, r, extras)?;
    let mut errors = Vec::new();
    // (a) deadlock.
    if let Some(cyc) = g.zero_cycle() {
        errors.push(CounterExample::Deadlock {
            cycle: cyc.into_iter().map(|x| g.names[x].clone()).collect(),
        });
        return Err(errors);
    }
    // Token distances between the E ops (0, at most 1), see `crate::reach`.
    let reach = match g.reach() {
        Ok(r) => r,
        Err(x) => {
            return Err(vec![CounterExample::Deadlock {
                cycle: vec![g.names[x].clone()],
            }])
        }
    };
    let ex = |a: usize| g.exec[a];
    let le = |a: usize, b: usize, t: u32| match t {
        0 => reach.reach0(ex(a), ex(b)),
        1 => reach.within1(ex(a), ex(b)),
        _ => g.distances(ex(a))[ex(b)] <= t,
    };
    let name = |a: ActorId| g.names[g.exec[a.index()]].clone();
    // (c) dependencies.
    let mut deps = 0;
    for (_, u, v, e) in h.edges() {
        if le(u.index(), v.index(), e.tokens) {
            deps += 1;
        } else {
            errors.push(CounterExample::Unenforced {
                from: name(u),
                to: name(v),
                tokens: e.tokens,
                buffer: h.buffer(e.buffer).name.clone(),
            });
        }
    }
    for e in &extras.orderings {
        if le(e.from.index(), e.to.index(), e.tokens) {
            deps += 1;
        } else {
            errors.push(CounterExample::Unenforced {
                from: name(e.from),
                to: name(e.to),
                tokens: e.tokens,
                buffer: h.buffer(e.buffer).name.clone(),
            });
        }
    }
    // (b) races.
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
                });
            }
        }
    }
    acc.sort_by_key(|p| (p.arena, p.lo, p.hi));
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
            let mut race = |first: usize, second: usize, d: u32, ok: &mut bool| {
                *ok = false;
                let key = (first.min(second), first.max(second), d);
                if reported.insert(key) {
                    errors.push(CounterExample::Race {
                        first: g.names[g.exec[first]].clone(),
                        second: g.names[g.exec[second]].clone(),
                        arena: arena_name(x.arena),
                        bytes,
                        iterations: (0, d),
                    });
                }
            };
            // d = 0: different rows only (same rows: a dependency).
            if !same_rows && (a == b || (!le(a, b, 0) && !le(b, a, 0))) {
                race(a, b, 0, &mut ok);
            }
            // d = 1, both orders.
            if !le(a, b, 1) {
                race(a, b, 1, &mut ok);
            }
            if !le(b, a, 1) {
                race(b, a, 1, &mut ok);
            }
            if ok {
                pairs += 1;
            }
        }
    }
    if errors.is_empty() {
        Ok(Proof {
            threads: r.thread_executions.len(),
            operations: r.thread_executions.iter().map(|t| t.ops.len()).sum(),
            signals: r.signals.len(),
            barriers: r.barriers.len(),
            access_pairs: pairs,
            dependencies: deps,
        })
    } else {
        Err(errors)
    }
}
