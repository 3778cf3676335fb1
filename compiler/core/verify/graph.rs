//! The operation graph (the module's model): one node per operation of
//! every thread's program and one per barrier met every iteration, with
//! the token-carrying edges of program order, signals and barriers.
//! Takes the HSDFG, the runtime and its [`Extras`]; gives the graph, or
//! every reason it cannot be built (an unknown or twice-executed sub-box, a
//! signal or barrier used but not declared or used the wrong number of
//! times, a barrier some listed thread never meets, a wait nobody signals),
//! and for a graph with no zero-token cycle (a), the [`Order`] it proves:
//! whether `a` of iteration i happens before `b` of iteration i + t.
//! Every name is resolved through the HSDFG or the runtime's declarations,
//! and one that is not is reported, never a panic; the reasons come in the
//! order of the runtime (threads, then signals by name, then barriers as
//! declared), so a diagnostic lists them the same way every time.

use super::counterexample::{CounterExample, Deadlock, Malformed};
use super::{Exec, Node, OpId};
use crate::ir::hsdfg::{ActorId, Hsdfg};
use crate::ir::{Op, Runtime};
use crate::reach::{Reach, TokenGraph};
use crate::sync::Extras;
use std::collections::{BTreeMap, HashMap, HashSet};

/// The operation graph (see the module documentation).
pub(super) struct OpGraph {
    /// What each node is.
    nodes: Vec<Node>,
    /// `(to, tokens)` per node.
    adj: Vec<Vec<(usize, u32)>>,
    /// The node of each actor's `E`.
    pub(super) exec: Vec<usize>,
    /// The next op of the same thread (program order), by node.
    program_next: Vec<usize>,
    /// The node of each thread's first op (its ops follow in order).
    first: Vec<usize>,
}

impl OpGraph {
    /// No node yet, and none of the `actors` executed.
    fn new(actors: usize) -> Self {
        OpGraph {
            nodes: Vec::new(),
            adj: Vec::new(),
            exec: vec![usize::MAX; actors],
            program_next: Vec::new(),
            first: Vec::new(),
        }
    }

    fn add(&mut self, from: usize, to: usize, tokens: u32) {
        self.adj[from].push((to, tokens));
    }

    fn push(&mut self, n: Node) -> usize {
        self.nodes.push(n);
        self.adj.push(Vec::new());
        self.nodes.len() - 1
    }

    /// The program order of one thread, its nodes `ids` (the last pushed):
    /// each to the next with 0 tokens, the last to the first with 1.
    fn program_order(&mut self, ids: &[usize]) {
        self.program_next.resize(self.nodes.len(), usize::MAX);
        for w in ids.windows(2) {
            self.add(w[0], w[1], 0);
            self.program_next[w[0]] = w[1];
        }
        if let (Some(&f), Some(&l)) = (ids.first(), ids.last()) {
            self.add(l, f, 1);
        }
    }

    /// The node of an operation.
    fn node(&self, o: OpId) -> usize {
        self.first[o.thread] + o.index
    }

    /// The op after `o` in its thread's program, and the tokens of that
    /// order: 1 when `o` is the last op (the first, of the next iteration).
    fn after(&self, o: OpId) -> (usize, u32) {
        match self.program_next[self.node(o)] {
            usize::MAX => (self.first[o.thread], 1),
            next => (next, 0),
        }
    }

    /// The operation of a node (barriers have none).
    fn op(&self, x: usize) -> Option<OpId> {
        match self.nodes[x] {
            Node::Op(o) => Some(o),
            Node::Barrier(_) => None,
        }
    }

    /// An actor and its `E` (after [`build`] found every actor executed).
    pub(super) fn exec_of(&self, a: ActorId) -> Exec {
        let op = self.op(self.exec[a.index()]).unwrap_or(OpId {
            thread: usize::MAX,
            index: usize::MAX,
        });
        Exec { actor: a, op }
    }

    /// Random programs: `n` actors, one `E` each, on up to 3 threads, with
    /// random 0-token edges forward in one order (signals) and 1-token
    /// edges anywhere.
    #[cfg(test)]
    pub(super) fn random(s: &mut u64, n: usize) -> OpGraph {
        use crate::reach::random::lcg;
        let threads = 1 + (lcg(s) % 3) as usize;
        let mut g = OpGraph::new(n);
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
            g.program_order(&ids);
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

    /// Least tokens of a path from `src` to every node (u32::MAX: none).
    pub(super) fn distances(&self, src: usize) -> Vec<u32> {
        crate::reach::least_tokens(self.adj.len(), src, u32::MAX, None, |x| {
            self.adj[x].iter().copied()
        })
    }

    /// Reachability within 0 and 1 token over the operations, program order
    /// marking the chains (call after [`OpGraph::zero_cycle`] found none).
    pub(super) fn reach(&self) -> Result<Reach, usize> {
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
pub(super) fn build(
    h: &Hsdfg,
    r: &Runtime,
    extras: &Extras,
) -> Result<OpGraph, Vec<CounterExample>> {
    let mut errors = Vec::new();
    let mut g = programs(h, r, &mut errors);
    for a in h.actors() {
        if g.exec[a.index()] == usize::MAX {
            errors.push(CounterExample::Program(Malformed::NeverExecuted {
                actor: a,
            }));
        }
    }
    let uses = Uses::of(r, extras);
    uses.add_signals(&mut g, &mut errors);
    uses.add_barriers(&mut g, &mut errors);
    uses.never_signalled(&mut errors);
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
    let mut g = OpGraph::new(h.graph.node_count());
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
        g.program_order(&ids);
    }
    g
}

/// The operations that use each signal and barrier, by name, with the
/// runtime that declares them and what the IR cannot say of them.
struct Uses<'r> {
    r: &'r Runtime,
    extras: &'r Extras,
    sends: BTreeMap<&'r str, Vec<OpId>>,
    waits: BTreeMap<&'r str, Vec<OpId>>,
    meets: BTreeMap<&'r str, Vec<OpId>>,
}

impl<'r> Uses<'r> {
    fn of(r: &'r Runtime, extras: &'r Extras) -> Self {
        let mut u = Uses {
            r,
            extras,
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

    /// An edge from each signal's `S` to its `W`, with its initial tokens.
    fn add_signals(&self, g: &mut OpGraph, errors: &mut Vec<CounterExample>) {
        let declared: HashMap<&str, bool> = self
            .r
            .signals
            .iter()
            .map(|s| (s.name.as_str(), s.initial_token))
            .collect();
        let mut used: BTreeMap<&str, Vec<OpId>> = BTreeMap::new();
        for (&s, ops) in self.sends.iter().chain(&self.waits) {
            used.entry(s).or_default().extend(ops);
        }
        let declaration = |s: &str| declared.get(s).copied();
        let undeclared = |uses| Malformed::UndeclaredSignal { uses };
        each_declared(used, declaration, undeclared, errors, |s, init, errors| {
            let (ss, ws) = (named(&self.sends, s), named(&self.waits, s));
            let tokens = self
                .extras
                .signal_tokens
                .get(s)
                .copied()
                .unwrap_or(u32::from(init));
            match (ss, ws) {
                ([x], [y]) => g.add(g.node(*x), g.node(*y), tokens),
                ([], [_]) => {} // never signalled: a deadlock, `never_signalled`
                (_, []) => {}   // never waited for: harmless
                _ => errors.push(CounterExample::Program(Malformed::SignalCount {
                    sends: ss.to_vec(),
                    waits: ws.to_vec(),
                })),
            }
        });
    }

    /// A node per barrier that is met every iteration, after every
    /// participant's `B` and before the op after it.
    fn add_barriers(&self, g: &mut OpGraph, errors: &mut Vec<CounterExample>) {
        let threads: HashMap<&str, usize> = self
            .r
            .thread_executions
            .iter()
            .enumerate()
            .map(|(t, te)| (te.thread.as_str(), t))
            .collect();
        for (barrier, b) in self.r.barriers.iter().enumerate() {
            if self.extras.periodic_barriers.contains(b.name.as_str()) {
                continue;
            }
            let x = g.push(Node::Barrier(barrier));
            let ms = named(&self.meets, b.name.as_str());
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
                        g.add(g.node(*o), x, 0);
                        let (next, tokens) = g.after(*o);
                        g.add(x, next, tokens);
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
                let name = self.r.thread_executions[op.thread].thread.as_str();
                if !b.threads.iter().any(|x| x.as_str() == name) {
                    errors.push(CounterExample::Program(Malformed::UnlistedThread {
                        barrier,
                        op,
                    }));
                }
            }
        }
        let declaration = |name: &str| {
            self.r
                .barriers
                .iter()
                .any(|b| b.name.as_str() == name)
                .then_some(())
        };
        let undeclared = |uses| Malformed::UndeclaredBarrier { uses };
        let used = self.meets.iter().map(|(&name, ops)| (name, ops));
        // A declared barrier's edges are added above, in declaration order.
        each_declared(used, declaration, undeclared, errors, |_, (), _| {});
    }

    /// A wait nobody signals blocks forever once its initial tokens are gone.
    fn never_signalled(&self, errors: &mut Vec<CounterExample>) {
        let declared: HashSet<&str> = self.r.signals.iter().map(|s| s.name.as_str()).collect();
        for (s, ws) in &self.waits {
            if !self.sends.contains_key(s) && declared.contains(s) {
                errors.push(CounterExample::Deadlock(Deadlock::NeverSignalled {
                    wait: ws[0],
                }));
            }
        }
    }
}

/// The operations that use `name` in `map`, in program order.
fn named<'a>(map: &'a BTreeMap<&str, Vec<OpId>>, name: &str) -> &'a [OpId] {
    map.get(name).map_or(&[], Vec::as_slice)
}

/// Each name of a signal or barrier that operations use, with those
/// operations, in name order: one that `declaration` finds is handed to
/// `each` with what it found; one it does not is reported as `undeclared`
/// with its uses, in program order.
fn each_declared<'r, D>(
    used: impl IntoIterator<Item = (&'r str, impl AsRef<[OpId]>)>,
    declaration: impl Fn(&str) -> Option<D>,
    undeclared: fn(Vec<OpId>) -> Malformed,
    errors: &mut Vec<CounterExample>,
    mut each: impl FnMut(&'r str, D, &mut Vec<CounterExample>),
) {
    for (name, ops) in used {
        match declaration(name) {
            Some(d) => each(name, d, errors),
            None => {
                let mut ops = ops.as_ref().to_vec();
                ops.sort();
                errors.push(CounterExample::Program(undeclared(ops)));
            }
        }
    }
}

/// What a deadlock-free operation graph orders.
pub(super) struct Order<'g> {
    pub(super) g: &'g OpGraph,
    pub(super) reach: Reach,
}

impl<'g> Order<'g> {
    /// (a): the order of `g`, or the cycle with no token that deadlocks it.
    pub(super) fn of(g: &'g OpGraph) -> Result<Self, CounterExample> {
        if let Some(cyc) = g.zero_cycle() {
            let cycle = cyc.into_iter().map(|x| g.nodes[x]).collect();
            return Err(CounterExample::Deadlock(Deadlock::Cycle(cycle)));
        }
        // Token distances between the E ops (0, at most 1), see `crate::reach`.
        let reach = g
            .reach()
            .map_err(|x| CounterExample::Deadlock(Deadlock::Cycle(vec![g.nodes[x]])))?;
        Ok(Order { g, reach })
    }

    /// `D(E a, E b) ≤ t`: `a` of iteration i happens before `b` of i + t.
    pub(super) fn le(&self, a: usize, b: usize, t: u32) -> bool {
        let (x, y) = (self.g.exec[a], self.g.exec[b]);
        match t {
            0 => self.reach.reach0(x, y),
            1 => self.reach.within1(x, y),
            _ => self.g.distances(x)[y] <= t,
        }
    }
}
