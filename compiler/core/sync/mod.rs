//! Synchronisation: (HSDFG, Schedule, MemoryPlan) → the `runtime` section
//! (docs/language.md, "runtime"; docs/commands.md, the runtime group; thesis Appendix A).
//!
//! Takes the HSDFG, the thread schedule and the memory plan; gives a
//! [`Runtime`]: `thread_schedule`, one `thread_execution` program per thread
//! (for each actor in order: `W` for each incoming cross-thread ordering,
//! `E F.k`, `S` for each outgoing one; `B` at the end with `-ab`), the
//! `signal`s, the `barrier`, and the memory sections from the plan.
//! Guarantees: the runtime passes [`crate::verify`] (deadlock-free, race-free,
//! every dependency enforced) whenever the schedule orders each thread
//! topologically and the plan's `extra_edges` are satisfiable; deterministic.
//!
//! # What must be ordered
//!
//! Every HSDFG edge (dependencies, 0 tokens; write-after-read partners, 1),
//! every `extra_edges` ordering of the memory plan, with `-ai` an edge from
//! every sink to every source with 1 token, and with `-kd N` an edge from the
//! last actor of every thread to the first actor of every other thread with
//! N tokens. An edge `u → v` with `t` tokens means: `E u` of iteration i
//! happens before `E v` of iteration i + t.
//!
//! # Transitive reduction (sound with tokens)
//!
//! Orderings that hold without a signal: program order (consecutive actors of
//! a thread, 0 tokens; last → first, 1 token), the iteration barrier (last
//! actor of every thread → first actor of every thread, 1 token) and the
//! signals kept. A path `u → … → v` whose tokens sum to `k` proves u(i)
//! before v(i + k), hence before v(i + t) for any `t ≥ k` (v's thread runs
//! its iterations in order). So a cross-thread edge with `t` tokens is
//! *redundant* when the graph without it has a path from u to v with at
//! most `t` tokens. Candidates are removed one at a time, each checked
//! against the graph with all edges still present at that moment: by
//! induction every removed edge stays implied by a path of kept edges (a
//! path through a later-removed edge is replaced by that edge's own path,
//! and tokens only add up along paths, so the bound `≤ t` still holds).
//! Note that a path through a 1-token edge orders iteration i with i + 1,
//! never i with i: it can make a write-after-read signal redundant, never a
//! dependency. Same-thread edges need no signal: program order gives them
//! when `u` precedes `v`, or when `t ≥ 1` (the thread finishes iteration i
//! before it starts i + 1).
//!
//! Things the IR cannot express go into [`SyncPlan`]: the periodic barrier
//! of `-ks -ki N` and the token counts of `-kd N` signals above one.

use crate::ir::hsdfg::{ActorId, Hsdfg};
use crate::ir::{
    Arena, Barrier, Ident, MemoryBinding, MemoryMapping, MemorySchedule, Op, PortRef, Runtime,
    Signal, Span, Spanned, ThreadExecution, ThreadSchedule, TimingEntry,
};
use crate::memory::{ArenaId, MemoryPlan};
use crate::reach::{OneEdges, Reach, TokenGraph};
use crate::schedule::Schedule;
use std::collections::{BTreeMap, HashMap, HashSet};

/// What the IR cannot say, for the checker (`verify::verify_with`): the
/// synchronisation this stage adds beyond the runtime section's text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extras {
    /// Initial tokens of signals, overriding `!` / nothing.
    pub signal_tokens: HashMap<String, u32>,
    /// Barriers that do not run every iteration: left out of the ordering.
    pub periodic_barriers: HashSet<String>,
    /// Orderings the runtime must enforce besides the dependencies (`-dm`:
    /// the coarse orderings of run-time allocation, `memory::dynamic_edges`),
    /// checked and counted like the dependencies.
    pub orderings: Vec<crate::memory::OrderEdge>,
}

/// Options of the synchronisation stage (docs/commands.md, runtime group).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SyncOptions {
    /// `-ab`: a barrier at the end of every iteration (also on when the
    /// schedule asks for one, as the barrier scheduler does).
    pub iteration_barrier: bool,
    /// `-ai`: each source of iteration i + 1 waits for every sink of i.
    pub iteration_sync: bool,
    /// `-ks -ki N`: a barrier every N iterations.
    pub keep_barrier_every: Option<u32>,
    /// `-kd N`: no thread more than N iterations ahead of any other.
    pub keep_distance: Option<u32>,
    /// `-ss`: order each thread's `S` ops by their receiver's predicted start.
    pub sort_signals: bool,
    /// `-st`: also order the `W` ops by their sender's predicted finish.
    pub sort_waits: bool,
    /// Copied into the runtime's `timing` / `timing_system`.
    pub timing: Vec<TimingEntry>,
    pub timing_system: Vec<TimingEntry>,
}

/// A barrier that runs only every `every` iterations (`-ks -ki N`): each
/// listed thread meets it after its last op of iterations N−1, 2N−1, …
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeriodicBarrier {
    pub name: String,
    pub threads: Vec<String>,
    pub every: u32,
}

/// The runtime plus what the IR cannot say.
#[derive(Clone, Debug, PartialEq)]
pub struct SyncPlan {
    pub runtime: Runtime,
    /// `-ks -ki N`; not in `runtime.barriers`.
    pub periodic_barrier: Option<PeriodicBarrier>,
    /// Initial tokens of signals with more than one (`-kd N`, N > 1); the
    /// runtime marks them `!`.
    pub signal_tokens: BTreeMap<String, u32>,
    /// Orderings needed, kept as signals, and implied (for `-v`).
    pub notes: Vec<String>,
}

impl SyncPlan {
    /// What [`crate::verify::verify_with`] needs beyond the runtime.
    pub fn extras(&self) -> Extras {
        Extras {
            signal_tokens: self
                .signal_tokens
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect(),
            periodic_barriers: Default::default(),
            orderings: Vec::new(),
        }
    }
}

/// The runtime section (see the module documentation).
pub fn synchronise(h: &Hsdfg, s: &Schedule, m: &MemoryPlan, opts: &SyncOptions) -> Runtime {
    synchronise_plan(h, s, m, opts).runtime
}

#[derive(Clone, Copy, Debug)]
struct Need {
    from: ActorId,
    to: ActorId,
    tokens: u32,
}

/// The ordering graph of the reduction: actors plus one barrier node.
struct Order {
    adj: Vec<Vec<(usize, u32, Option<usize>)>>,
}

impl Order {
    /// Is there a path from `a` to `b` with at most `t` tokens, not using
    /// candidate `skip`, nor any candidate not `alive`?
    fn implied(&self, a: usize, b: usize, t: u32, skip: usize, alive: &[bool]) -> bool {
        debug_assert_ne!(a, b, "candidates join two threads");
        let d = crate::reach::least_tokens(self.adj.len(), a, t, Some(b), |x| {
            self.adj[x]
                .iter()
                .filter(|(_, _, cand)| !cand.is_some_and(|c| c == skip || !alive[c]))
                .map(|&(y, w, _)| (y, w))
        });
        d[b] <= t
    }
}

/// The sequential transitive reduction of the module documentation:
/// candidates in order, each removed (`alive[i] = false`) when the graph
/// still has a path with at most its tokens without it.
///
/// The candidates come sorted by tokens, most first. Those with 2 tokens or
/// more (`-kd`) are few: a shortest-path search each. Those with 1 token are
/// answered by [`crate::reach`]: the fixed graph (program order, its
/// wrap-around, the barrier, every 0-token candidate — all still there
/// when the 1-token ones are checked) gives `within1`, and the 1-token
/// candidates still alive other than the one checked form a [`OneEdges`]
/// set. The 0-token candidates come last; in a DAG, removing the edges one
/// at a time that have another path leaves the unique transitive reduction
/// whatever the order, so each is redundant iff another 0-token successor
/// of its source reaches its target in the full graph (there are no
/// parallel edges: candidates join two threads, program order one). When
/// the 0-token graph has a cycle (a schedule against the dependencies; the
/// proof reports it) every candidate takes the search.
fn reduce(g: &Order, cands: &[Need], alive: &mut [bool], bnode: usize) {
    let mut tg = TokenGraph::new(g.adj.len());
    for (x, out) in g.adj.iter().enumerate() {
        for &(y, t, cand) in out {
            match cand {
                None if t == 0 && x != bnode && y != bnode => tg.add_program_order(x, y),
                None => tg.add(x, y, t),
                Some(_) if t == 0 => tg.add(x, y, 0),
                Some(_) => {}
            }
        }
    }
    let Ok(reach) = Reach::new(&tg) else {
        for (i, c) in cands.iter().enumerate() {
            if g.implied(c.from.index(), c.to.index(), c.tokens, i, alive) {
                alive[i] = false;
            }
        }
        return;
    };
    let mut ones = OneEdges::new(&reach);
    for c in cands.iter().filter(|c| c.tokens == 1) {
        ones.insert(c.from.index(), c.to.index());
    }
    let mut firsts: HashMap<usize, Vec<TwoFirsts>> = HashMap::new();
    for (i, c) in cands.iter().enumerate() {
        let (u, v) = (c.from.index(), c.to.index());
        alive[i] = match c.tokens {
            0 => {
                let f = firsts
                    .entry(u)
                    .or_insert_with(|| two_firsts(&tg, &reach, u));
                let (cv, pv) = reach.place(v);
                f[cv].other_than(v).is_none_or(|p| p > pv)
            }
            1 => {
                ones.remove(u, v);
                let implied = reach.within1(u, v) || ones.gives(u, v);
                if !implied {
                    ones.insert(u, v);
                }
                !implied
            }
            _ => !g.implied(u, v, c.tokens, i, alive),
        };
    }
}

/// Of the 0-token successors of a node, on one chain: the first position
/// any of them reaches, which one reaches it, and the first position the
/// others reach.
#[derive(Clone, Copy)]
struct TwoFirsts {
    best: Option<(usize, usize)>,
    second: Option<usize>,
}

impl TwoFirsts {
    /// The first position a successor other than `v` reaches.
    fn other_than(&self, v: usize) -> Option<usize> {
        match self.best {
            Some((p, w)) if w != v => Some(p),
            _ => self.second,
        }
    }
}

/// [`TwoFirsts`] of `u`'s 0-token successors on every chain: whether
/// another successor of `u` reaches `v` is then one comparison, so a node
/// with many successors (a source feeding every strip) costs O(successors ·
/// chains), not O(successors²).
fn two_firsts(tg: &TokenGraph, reach: &Reach, u: usize) -> Vec<TwoFirsts> {
    let mut out = vec![
        TwoFirsts {
            best: None,
            second: None,
        };
        reach.chains()
    ];
    for w in tg.successors0(u) {
        for (c, f) in out.iter_mut().enumerate() {
            let Some(p) = reach.first0(w, c) else {
                continue;
            };
            match f.best {
                Some((_, bw)) if bw == w => f.best = f.best.map(|(bp, _)| (bp.min(p), w)),
                Some((bp, _)) if p < bp => {
                    f.second = Some(bp);
                    f.best = Some((p, w));
                }
                Some(_) => f.second = Some(f.second.map_or(p, |s| s.min(p))),
                None => f.best = Some((p, w)),
            }
        }
    }
    out
}

/// [`synchronise`], with the [`SyncPlan`] extras.
pub fn synchronise_plan(h: &Hsdfg, s: &Schedule, m: &MemoryPlan, opts: &SyncOptions) -> SyncPlan {
    let times = Times::new(h, s);
    let barrier = s.iteration_barrier || opts.iteration_barrier;
    let mut notes = Vec::new();

    let (needs, kd) = orderings_needed(h, s, m, opts);
    let cands = candidates(h, &times, &needs, &mut notes);
    let kept = kept_signals(s, &cands, barrier, times.start.len());
    notes.push(format!(
        "{} orderings needed, {} across threads, {} kept as signals, {} implied",
        needs.len(),
        cands.len(),
        kept.len(),
        cands.len() - kept.len()
    ));

    let (outs, ins) = ops_in_order(&times, &kept, opts);
    let (names, signals, signal_tokens) = name_signals(s, &outs);
    let bname = "b0";
    let execs = thread_executions(h, s, &ins, &outs, &names, barrier.then_some(bname));
    let all_threads: Vec<Ident> = s.threads.iter().map(|t| Ident::new(&t.name)).collect();
    let barriers = if barrier {
        vec![Barrier {
            name: Ident::new(bname),
            threads: all_threads.clone(),
            span: Span::NONE,
        }]
    } else {
        Vec::new()
    };
    let periodic_barrier = opts.keep_barrier_every.map(|n| PeriodicBarrier {
        name: "k0".into(),
        threads: s.threads.iter().map(|t| t.name.clone()).collect(),
        every: n.max(1),
    });
    if let Some(n) = kd {
        notes.push(format!("-kd {n}: threads at most {n} iterations apart"));
    }

    let (memory_mappings, memory_bindings, memory_schedules) = memory_sections(h, m, &times.start);
    SyncPlan {
        runtime: Runtime {
            timing: opts.timing.clone(),
            timing_system: opts.timing_system.clone(),
            thread_schedule: thread_schedule(h, s),
            memory_mappings,
            memory_bindings,
            memory_schedules,
            thread_executions: execs,
            signals,
            barriers,
            span: Span::NONE,
        },
        periodic_barrier,
        signal_tokens,
        notes,
    }
}

/// Where the schedule puts every actor: its thread, its position on it and
/// its predicted start.
struct Times<'a> {
    h: &'a Hsdfg,
    thread: Vec<usize>,
    pos: Vec<usize>,
    start: Vec<f64>,
}

impl<'a> Times<'a> {
    fn new(h: &'a Hsdfg, s: &Schedule) -> Self {
        let na = h.graph.node_count();
        let thread = s.thread_of(na);
        let mut pos = vec![0usize; na];
        let mut start = vec![0.0f64; na];
        for t in &s.threads {
            for (i, &a) in t.actors.iter().enumerate() {
                pos[a.index()] = i;
                start[a.index()] = t.start.get(i).copied().unwrap_or(0.0);
            }
        }
        Times {
            h,
            thread,
            pos,
            start,
        }
    }

    /// The actor's predicted start.
    fn start(&self, a: ActorId) -> f64 {
        self.start[a.index()]
    }

    /// The actor's predicted finish.
    fn fin(&self, a: ActorId) -> f64 {
        self.start[a.index()] + self.h.actor(a).time
    }
}

/// Everything that must be ordered, deduplicated by (from, to) with the
/// fewest tokens (module documentation, "What must be ordered"); and the
/// `-kd` distance when one was asked for.
fn orderings_needed(
    h: &Hsdfg,
    s: &Schedule,
    m: &MemoryPlan,
    opts: &SyncOptions,
) -> (BTreeMap<(ActorId, ActorId), u32>, Option<u32>) {
    let mut needs: BTreeMap<(ActorId, ActorId), u32> = BTreeMap::new();
    let mut need = |from: ActorId, to: ActorId, tokens: u32| {
        let e = needs.entry((from, to)).or_insert(tokens);
        *e = (*e).min(tokens);
    };
    for (_, u, v, e) in h.edges() {
        need(u, v, e.tokens);
    }
    for e in &m.extra_edges {
        need(e.from, e.to, e.tokens);
    }
    if opts.iteration_sync {
        let sinks: Vec<ActorId> = h.actors().filter(|&a| h.successors(a).is_empty()).collect();
        let sources: Vec<ActorId> = h
            .actors()
            .filter(|&a| h.predecessors(a).is_empty())
            .collect();
        for &k in &sinks {
            for &o in &sources {
                need(k, o, 1);
            }
        }
    }
    let mut kd = None;
    if let Some(n) = opts.keep_distance {
        let n = n.max(1);
        kd = Some(n);
        for a in &s.threads {
            for b in &s.threads {
                if a.name != b.name {
                    need(*a.actors.last().unwrap(), b.actors[0], n);
                }
            }
        }
    }
    (needs, kd)
}

/// Same-thread needs are program order (a note for one the schedule runs
/// the other way round); the rest are candidates, the most likely
/// redundant first: more tokens, then more slack.
fn candidates(
    h: &Hsdfg,
    times: &Times,
    needs: &BTreeMap<(ActorId, ActorId), u32>,
    notes: &mut Vec<String>,
) -> Vec<Need> {
    let mut cands: Vec<Need> = Vec::new();
    for (&(from, to), &tokens) in needs {
        if times.thread[from.index()] == times.thread[to.index()] {
            if tokens == 0 && times.pos[from.index()] >= times.pos[to.index()] {
                notes.push(format!(
                    "cannot enforce {} → {} (0 tokens): the schedule runs them the other way \
                     round on one thread",
                    h.actor(from).subbox,
                    h.actor(to).subbox
                ));
            }
        } else {
            cands.push(Need { from, to, tokens });
        }
    }
    cands.sort_by(|x, y| {
        let sx = times.start(x.to) - times.fin(x.from);
        let sy = times.start(y.to) - times.fin(y.from);
        y.tokens
            .cmp(&x.tokens)
            .then(sy.total_cmp(&sx))
            .then(x.from.cmp(&y.from))
            .then(x.to.cmp(&y.to))
    });
    cands
}

/// The candidates the transitive reduction keeps as signals, over the
/// ordering graph of program order, the iteration barrier and the
/// candidates (module documentation, "Transitive reduction").
fn kept_signals(s: &Schedule, cands: &[Need], barrier: bool, na: usize) -> Vec<Need> {
    let bnode = na;
    let mut g = Order {
        adj: vec![Vec::new(); na + 1],
    };
    for t in &s.threads {
        for w in t.actors.windows(2) {
            g.adj[w[0].index()].push((w[1].index(), 0, None));
        }
        let (f, l) = (t.actors[0].index(), t.actors.last().unwrap().index());
        g.adj[l].push((f, 1, None));
        if barrier {
            g.adj[l].push((bnode, 0, None));
            g.adj[bnode].push((f, 1, None));
        }
    }
    for (i, c) in cands.iter().enumerate() {
        g.adj[c.from.index()].push((c.to.index(), c.tokens, Some(i)));
    }
    let mut alive = vec![true; cands.len()];
    reduce(&g, cands, &mut alive, bnode);
    cands
        .iter()
        .zip(&alive)
        .filter(|(_, &a)| a)
        .map(|(c, _)| *c)
        .collect()
}

/// Per actor, its outgoing signals (`S` after `E`) and incoming waits (`W`
/// before `E`), each in the requested order (`-ss`, `-st`).
#[allow(clippy::type_complexity)]
fn ops_in_order(
    times: &Times,
    kept: &[Need],
    opts: &SyncOptions,
) -> (Vec<Vec<Need>>, Vec<Vec<Need>>) {
    let na = times.start.len();
    let mut outs: Vec<Vec<Need>> = vec![Vec::new(); na];
    let mut ins: Vec<Vec<Need>> = vec![Vec::new(); na];
    for c in kept {
        outs[c.from.index()].push(*c);
        ins[c.to.index()].push(*c);
    }
    for o in &mut outs {
        if opts.sort_signals || opts.sort_waits {
            o.sort_by(|x, y| {
                times
                    .start(x.to)
                    .total_cmp(&times.start(y.to))
                    .then(x.to.cmp(&y.to))
            });
        } else {
            o.sort_by_key(|x| x.to);
        }
    }
    for i in &mut ins {
        if opts.sort_waits {
            i.sort_by(|x, y| {
                times
                    .fin(x.from)
                    .total_cmp(&times.fin(y.from))
                    .then(x.from.cmp(&y.from))
            });
        } else {
            i.sort_by_key(|x| x.from);
        }
    }
    (outs, ins)
}

/// Signal names: s0, s1, … in program order of the S ops; the signals, and
/// the initial tokens of those with more than one.
#[allow(clippy::type_complexity)]
fn name_signals(
    s: &Schedule,
    outs: &[Vec<Need>],
) -> (
    HashMap<(ActorId, ActorId), String>,
    Vec<Signal>,
    BTreeMap<String, u32>,
) {
    let mut names: HashMap<(ActorId, ActorId), String> = HashMap::new();
    let mut signals = Vec::new();
    let mut signal_tokens = BTreeMap::new();
    for t in &s.threads {
        for &a in &t.actors {
            for c in &outs[a.index()] {
                let n = format!("s{}", names.len());
                names.insert((c.from, c.to), n.clone());
                if c.tokens > 1 {
                    signal_tokens.insert(n.clone(), c.tokens);
                }
                signals.push(Signal {
                    name: Ident::new(&n),
                    initial_token: c.tokens >= 1,
                    span: Span::NONE,
                });
            }
        }
    }
    (names, signals, signal_tokens)
}

/// One program per thread: for each actor `W`s, `E`, `S`s; the barrier at
/// the end when there is one.
fn thread_executions(
    h: &Hsdfg,
    s: &Schedule,
    ins: &[Vec<Need>],
    outs: &[Vec<Need>],
    names: &HashMap<(ActorId, ActorId), String>,
    barrier: Option<&str>,
) -> Vec<ThreadExecution> {
    let mut execs = Vec::new();
    for t in &s.threads {
        let mut ops = Vec::new();
        for &a in &t.actors {
            for c in &ins[a.index()] {
                ops.push(Spanned::bare(Op::Wait(Ident::new(&names[&(c.from, c.to)]))));
            }
            ops.push(Spanned::bare(Op::Exec(h.actor(a).subbox.clone())));
            for c in &outs[a.index()] {
                ops.push(Spanned::bare(Op::Signal(Ident::new(
                    &names[&(c.from, c.to)],
                ))));
            }
        }
        if let Some(bname) = barrier {
            ops.push(Spanned::bare(Op::Barrier(Ident::new(bname))));
        }
        execs.push(ThreadExecution {
            thread: Ident::new(&t.name),
            ops,
            span: Span::NONE,
        });
    }
    execs
}

/// The `thread_schedule` section: every thread's sub-boxes in order.
fn thread_schedule(h: &Hsdfg, s: &Schedule) -> Vec<ThreadSchedule> {
    s.threads
        .iter()
        .map(|t| ThreadSchedule {
            thread: Ident::new(&t.name),
            subboxes: t
                .actors
                .iter()
                .map(|&a| h.actor(a).subbox.clone())
                .collect(),
            span: Span::NONE,
        })
        .collect()
}

/// `memory_mapping` (`mB` per buffer B), `memory_binding` (`mB [producer
/// port, reader ports…]`) and `memory_schedule` (mappings sharing bytes,
/// grouped, each group in order of first use; groups in order of first use).
fn memory_sections(
    h: &Hsdfg,
    m: &MemoryPlan,
    start: &[f64],
) -> (Vec<MemoryMapping>, Vec<MemoryBinding>, Vec<MemorySchedule>) {
    let mut maps = Vec::new();
    let mut binds = Vec::new();
    for (b, buf) in h.buffers.iter().enumerate() {
        let Some(p) = m.placements.get(b) else {
            continue;
        };
        let name = format!("m{b}");
        maps.push(MemoryMapping {
            name: Ident::new(&name),
            arena: match p.arena {
                ArenaId::Shared => Arena::Shared,
                ArenaId::Local(_) => Arena::Local,
            },
            start: Spanned::bare(p.offset),
            end: Spanned::bare(p.offset + p.bytes),
            span: Span::NONE,
        });
        let port = |(f, k): (crate::ir::hsdfg::FunctionId, usize)| {
            let fi = h.function(f);
            PortRef::new(&fi.name, &fi.ports[k].name)
        };
        let mut ports = vec![port(buf.producer)];
        ports.extend(buf.readers.iter().map(|&r| port(r)));
        binds.push(MemoryBinding {
            mapping: Ident::new(&name),
            ports,
            span: Span::NONE,
        });
    }
    // Groups of overlapping placements (union-find).
    let nb = maps.len();
    let mut parent: Vec<usize> = (0..nb).collect();
    fn root(p: &mut [usize], x: usize) -> usize {
        let mut x = x;
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for a in 0..nb {
        for b in a + 1..nb {
            let (pa, pb) = (m.placements[a], m.placements[b]);
            if pa.arena == pb.arena
                && pa.offset < pb.offset + pb.bytes
                && pb.offset < pa.offset + pa.bytes
            {
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let first_use = |b: usize| {
        h.function(h.buffers[b].producer.0)
            .subboxes
            .iter()
            .map(|a| start[a.index()])
            .fold(f64::INFINITY, f64::min)
    };
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for b in 0..nb {
        let r = root(&mut parent, b);
        groups.entry(r).or_default().push(b);
    }
    let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
    for g in &mut groups {
        g.sort_by(|&x, &y| first_use(x).total_cmp(&first_use(y)).then(x.cmp(&y)));
    }
    groups.sort_by(|x, y| {
        first_use(x[0])
            .total_cmp(&first_use(y[0]))
            .then(x[0].cmp(&y[0]))
    });
    let scheds = groups
        .into_iter()
        .map(|g| MemorySchedule {
            name: Ident::new(format!("ms{}", g[0])),
            mappings: g.iter().map(|b| Ident::new(format!("m{b}"))).collect(),
            span: Span::NONE,
        })
        .collect();
    (maps, binds, scheds)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::reach::random::{lcg, zero_token_graph};

    /// Whether another 0-token successor of `u` reaches `v`: one lookup in
    /// [`two_firsts`] against asking every successor.
    #[test]
    fn two_firsts_agree_with_every_successor() {
        let mut seed = 5u64;
        for _ in 0..500 {
            let n = 2 + (lcg(&mut seed) % 14) as usize;
            let g = zero_token_graph(&mut seed, n, 3);
            let reach = Reach::new(&g).unwrap();
            for u in 0..n {
                let f = two_firsts(&g, &reach, u);
                for v in g.successors0(u) {
                    let (cv, pv) = reach.place(v);
                    let fast = f[cv].other_than(v).is_some_and(|p| p <= pv);
                    let brute = g.successors0(u).any(|w| w != v && reach.reach0(w, v));
                    assert_eq!(fast, brute, "{u} → {v}");
                }
            }
        }
    }
}
