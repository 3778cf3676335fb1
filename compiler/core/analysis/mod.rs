//! Dataflow analysis of a runtime (`-pr`, `-sl F`; docs/commands.md, "Analysis").
//!
//! Takes a compiled description (its HSDFG for the sub-boxes' predicted
//! times and the `timing_system` costs, its runtime for the thread programs,
//! signals and barriers, and the `-kd` token counts); gives the *runtime
//! HSDFG* ([`RuntimeGraph`]) and its [`Analysis`]: the period (maximum cycle
//! mean, by Howard's policy iteration in [`mcm`]), the throughput and the
//! latency of one iteration.
//!
//! The runtime HSDFG itself is an IR: [`crate::ir::runtime_graph`] says
//! what its actors and channels are.
//!
//! What the graph leaves out: the `-ks -ki N` barrier that runs only every
//! N iterations (not homogeneous; it can only lengthen a period), and the
//! operating system: for `simple` and `barrier` (one unpinned thread per
//! sub-box) the period assumes as many cores as threads.
//!
//! Guarantees: the graph has one actor per `E` of the programs, barrier and
//! idle thread, and one channel per ordering the runtime enforces, so its
//! period is what the programs sustain under the timing model and the two
//! simplifications above; every time is a whole number of ns, so the
//! period is an exact ratio (`W ns / T tokens`) and SDF3's MCM of the
//! `-xr` export equals it; deterministic.

pub mod mcm;

pub use crate::ir::runtime_graph::{ns, ActorKind, ChannelKind, RtActor, RtChannel, RuntimeGraph};

use crate::ir::hsdfg::SystemTiming;
use crate::ir::{Op, ThreadExecution};
use crate::pipeline::Compiled;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The channels as MCM edges: weight = the source actor's time.
pub fn mcm_edges(g: &RuntimeGraph) -> Vec<mcm::Edge> {
    g.channels
        .iter()
        .map(|c| (c.from, c.to, g.actors[c.from].time_ns, c.tokens))
        .collect()
}

/// Where an op's cost and ordering go: its host actor, and the host's
/// iteration minus the op's (`+1`: the next iteration's first actor; `-1`:
/// the previous iteration's last one).
#[derive(Clone, Copy)]
struct Host {
    actor: usize,
    shift: i64,
}

/// Builds the runtime HSDFG of a compiled description.
pub fn runtime_graph(c: &Compiled) -> RuntimeGraph {
    let h = &c.hsdfg;
    let finder = h.finder();
    let mut thread_of = vec![usize::MAX; h.graph.node_count()];
    for (i, t) in c.runtime.thread_executions.iter().enumerate() {
        for op in &t.ops {
            if let Op::Exec(sb) = &op.value {
                if let Some(a) = finder.find(sb) {
                    thread_of[a.index()] = i;
                }
            }
        }
    }
    let mut b = Builder {
        c,
        finder,
        thread_of,
        wt: ns(h.system.wait),
        sg: ns(h.system.signal),
        g: RuntimeGraph::default(),
        names: BTreeMap::new(),
        posts: BTreeMap::new(),
        waits: BTreeMap::new(),
        meets: Vec::new(),
    };
    for t in &c.runtime.thread_executions {
        b.thread(t);
    }
    b.signals();
    b.barriers();
    b.self_loops();
    b.g
}

/// The runtime HSDFG under construction, with the signal ends and barrier
/// meetings collected per thread.
struct Builder<'a> {
    c: &'a Compiled,
    finder: crate::ir::hsdfg::Finder<'a>,
    /// The thread (index in the runtime) of every HSDFG actor an `E` runs.
    thread_of: Vec<usize>,
    /// The costs of one `W` and one `S`, in ns.
    wt: u64,
    sg: u64,
    g: RuntimeGraph,
    names: BTreeMap<String, usize>,
    posts: BTreeMap<String, Host>,
    waits: BTreeMap<String, Host>,
    meets: Vec<(String, Host, Host)>,
}

impl Builder<'_> {
    /// `base`, or `base_xK` with the first K that no actor has yet.
    fn unique(&mut self, base: String) -> String {
        let mut name = base.clone();
        let mut k = 1;
        while self.names.contains_key(&name) {
            name = format!("{base}_x{k}");
            k += 1;
        }
        self.names.insert(name.clone(), 0);
        name
    }

    /// One thread program: its actors, the costs and ends of its ops, and
    /// its program-order channels.
    fn thread(&mut self, t: &ThreadExecution) {
        let hosts = self.exec_actors(t);
        self.fold_ops(t, &hosts);
        let (first, last) = (hosts[0], *hosts.last().unwrap_or(&hosts[0]));
        for w in hosts.windows(2) {
            self.g.channels.push(RtChannel {
                from: w[0],
                to: w[1],
                tokens: 0,
                kind: ChannelKind::Order,
            });
        }
        if hosts.len() > 1 {
            self.g.channels.push(RtChannel {
                from: last,
                to: first,
                tokens: 1,
                kind: ChannelKind::Order,
            });
        }
    }

    /// One actor per E, in program order; one for the thread when it
    /// executes nothing.
    fn exec_actors(&mut self, t: &ThreadExecution) -> Vec<usize> {
        let h = &self.c.hsdfg;
        let thread = t.thread.name.clone();
        let mut hosts: Vec<usize> = Vec::new();
        for op in &t.ops {
            if let Op::Exec(sb) = &op.value {
                let (time, function, source, sink) = match self.finder.find(sb) {
                    Some(a) => {
                        let thread = self.thread_of[a.index()];
                        let transfer: f64 = h
                            .predecessors(a)
                            .into_iter()
                            .filter(|p| self.thread_of[p.index()] != thread)
                            .map(|p| h.transfer_cost(p, a))
                            .sum();
                        let f = h.function_of(a);
                        let ins = f
                            .ports
                            .iter()
                            .filter(|p| p.direction == crate::ir::Direction::In)
                            .count();
                        (
                            ns(h.actor(a).time) + ns(transfer),
                            f.function.clone(),
                            ins == 0,
                            ins == f.ports.len(),
                        )
                    }
                    None => (0, "unknown".to_string(), false, false),
                };
                let name = self.unique(format!("{}_{}", sb.function.name, sb.index));
                hosts.push(self.g.actors.len());
                self.g.actors.push(RtActor {
                    name,
                    label: sb.to_string(),
                    kind_name: function,
                    kind: ActorKind::SubBox,
                    time_ns: time,
                    thread: Some(thread.clone()),
                    source,
                    sink,
                });
            }
        }
        if hosts.is_empty() {
            hosts.push(self.g.actors.len());
            let name = self.unique(format!("thread_{thread}"));
            self.g.actors.push(RtActor {
                name,
                label: thread.clone(),
                kind_name: "thread".into(),
                kind: ActorKind::Thread,
                time_ns: 0,
                thread: Some(thread.clone()),
                source: false,
                sink: false,
            });
        }
        hosts
    }

    /// Every W, S and B of the program folded into its host actor: the
    /// costs added, the signal ends and barrier meetings recorded.
    fn fold_ops(&mut self, t: &ThreadExecution, hosts: &[usize]) {
        let first = hosts[0];
        let last = *hosts.last().unwrap_or(&first);
        let mut done = 0usize; // E ops seen so far
        let exec_count = t
            .ops
            .iter()
            .filter(|op| matches!(op.value, Op::Exec(_)))
            .count();
        let before = |done: usize| -> Host {
            if done == 0 {
                Host {
                    actor: last,
                    shift: if exec_count == 0 { 0 } else { -1 },
                }
            } else {
                Host {
                    actor: hosts[done - 1],
                    shift: 0,
                }
            }
        };
        let after = |done: usize| -> Host {
            if done < exec_count {
                Host {
                    actor: hosts[done],
                    shift: 0,
                }
            } else {
                Host {
                    actor: first,
                    shift: if exec_count == 0 { 0 } else { 1 },
                }
            }
        };
        for op in &t.ops {
            match &op.value {
                Op::Exec(_) => done += 1,
                Op::Wait(s) => {
                    let host = after(done);
                    self.g.actors[host.actor].time_ns += self.wt;
                    self.waits.insert(s.name.clone(), host);
                }
                Op::Signal(s) => {
                    let host = before(done);
                    self.g.actors[host.actor].time_ns += self.sg;
                    self.posts.insert(s.name.clone(), host);
                }
                Op::Barrier(b) => self.meets.push((b.name.clone(), before(done), after(done))),
            }
        }
    }

    /// Signals: S(i) → W(i + t0); host iterations shift the count.
    fn signals(&mut self) {
        for s in &self.c.runtime.signals {
            let name = &s.name.name;
            let (Some(p), Some(w)) = (self.posts.get(name), self.waits.get(name)) else {
                continue;
            };
            let t0 = self
                .c
                .signal_tokens
                .get(name)
                .copied()
                .unwrap_or(u32::from(s.initial_token)) as i64;
            self.g.channels.push(RtChannel {
                from: p.actor,
                to: w.actor,
                tokens: (t0 + w.shift - p.shift).max(0) as u64,
                kind: ChannelKind::Signal(name.clone()),
            });
        }
    }

    /// Barriers: every participant's actor before → the barrier → every
    /// participant's actor after.
    fn barriers(&mut self) {
        let mut barrier_actor: BTreeMap<String, usize> = BTreeMap::new();
        for (b, before, after) in std::mem::take(&mut self.meets) {
            let id = match barrier_actor.get(&b) {
                Some(&id) => id,
                None => {
                    let name = self.unique(format!("barrier_{b}"));
                    self.g.actors.push(RtActor {
                        name,
                        label: b.clone(),
                        kind_name: "barrier".into(),
                        kind: ActorKind::Barrier,
                        time_ns: 0,
                        thread: None,
                        source: false,
                        sink: false,
                    });
                    barrier_actor.insert(b.clone(), self.g.actors.len() - 1);
                    self.g.actors.len() - 1
                }
            };
            self.g.channels.push(RtChannel {
                from: before.actor,
                to: id,
                tokens: (-before.shift).max(0) as u64,
                kind: ChannelKind::Barrier(b.clone()),
            });
            self.g.channels.push(RtChannel {
                from: id,
                to: after.actor,
                tokens: after.shift.max(0) as u64,
                kind: ChannelKind::Barrier(b.clone()),
            });
        }
    }

    /// A 1-token self-loop on every actor.
    fn self_loops(&mut self) {
        for a in 0..self.g.actors.len() {
            self.g.channels.push(RtChannel {
                from: a,
                to: a,
                tokens: 1,
                kind: ChannelKind::SelfLoop,
            });
        }
    }
}

/// The analysis of a runtime HSDFG.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Analysis {
    pub actors: usize,
    pub channels: usize,
    /// Maximum cycle mean, µs per iteration.
    pub period_us: f64,
    /// The exact period: `period_weight_ns / period_tokens` ns.
    pub period_weight_ns: u64,
    pub period_tokens: u64,
    /// Iterations per second, `1e6 / period_us`.
    pub throughput_per_s: f64,
    /// One iteration alone (everything before it done): first source start
    /// to last sink end, µs.
    pub latency_us: f64,
    /// The actors of the critical cycle, as the description names them.
    pub critical_cycle: Vec<String>,
    /// `timing_system` costs used, µs (the transfer per KiB).
    pub wait_us: f64,
    pub signal_us: f64,
    pub transfer_us: f64,
}

/// Why a runtime cannot be analysed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlock(pub Vec<String>);

impl std::fmt::Display for Deadlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the runtime HSDFG has a cycle without tokens (it deadlocks): {}",
            self.0.join(" -> ")
        )
    }
}

/// The latency of one iteration alone: longest path over the 0-token
/// channels from the earliest source start to the latest sink end, ns.
fn latency_ns(g: &RuntimeGraph) -> u64 {
    let n = g.actors.len();
    let mut indeg = vec![0usize; n];
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for c in g.channels.iter().filter(|c| c.tokens == 0) {
        indeg[c.to] += 1;
        out[c.from].push(c.to);
    }
    let mut start = vec![0u64; n];
    let mut queue: std::collections::VecDeque<usize> = (0..n).filter(|&a| indeg[a] == 0).collect();
    while let Some(u) = queue.pop_front() {
        let end = start[u] + g.actors[u].time_ns;
        for &v in &out[u] {
            start[v] = start[v].max(end);
            indeg[v] -= 1;
            if indeg[v] == 0 {
                queue.push_back(v);
            }
        }
    }
    let first = (0..n)
        .filter(|&a| g.actors[a].source)
        .map(|a| start[a])
        .min()
        .unwrap_or(0);
    let last = (0..n)
        .filter(|&a| g.actors[a].sink)
        .map(|a| start[a] + g.actors[a].time_ns)
        .max()
        .unwrap_or_else(|| {
            (0..n)
                .map(|a| start[a] + g.actors[a].time_ns)
                .max()
                .unwrap_or(0)
        });
    last.saturating_sub(first)
}

/// Analyses a runtime HSDFG.
pub fn analyse_graph(g: &RuntimeGraph, system: &SystemTiming) -> Result<Analysis, Deadlock> {
    let edges = mcm_edges(g);
    let cr = mcm::max_cycle_ratio(g.actors.len(), &edges).map_err(|e| match e {
        mcm::McmError::ZeroTokenCycle(c) => Deadlock(
            c.iter()
                .map(|&e| g.actors[g.channels[e].from].label.clone())
                .collect(),
        ),
    })?;
    let (w, t, cycle) = match cr {
        Some(c) => (
            c.weight,
            c.tokens,
            c.edges
                .iter()
                .map(|&e| g.actors[g.channels[e].from].label.clone())
                .collect(),
        ),
        None => (0, 1, Vec::new()),
    };
    let period_us = w as f64 / t as f64 / 1000.0;
    Ok(Analysis {
        actors: g.actors.len(),
        channels: g.channels.len(),
        period_us,
        period_weight_ns: w,
        period_tokens: t,
        throughput_per_s: if period_us > 0.0 {
            1e6 / period_us
        } else {
            f64::INFINITY
        },
        latency_us: latency_ns(g) as f64 / 1000.0,
        critical_cycle: cycle,
        wait_us: system.wait,
        signal_us: system.signal,
        transfer_us: system.transfer,
    })
}

/// Builds and analyses the runtime HSDFG of a compiled description.
pub fn analyse(c: &Compiled) -> Result<Analysis, Deadlock> {
    analyse_graph(&runtime_graph(c), &c.hsdfg.system)
}

/// The analysis as text (what `-pr` prints and `-sl` writes).
pub fn text(a: &Analysis) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "runtime HSDFG      {} actors, {} channels (wait {} µs, signal {} µs, transfer {} µs a KiB folded in)",
        a.actors, a.channels, a.wait_us, a.signal_us, a.transfer_us
    );
    let _ = writeln!(
        s,
        "period             {:.3} µs (maximum cycle mean = {} ns / {} tokens)",
        a.period_us, a.period_weight_ns, a.period_tokens
    );
    let _ = writeln!(
        s,
        "throughput         {:.3} iterations/s",
        a.throughput_per_s
    );
    let _ = writeln!(
        s,
        "latency            {:.3} µs (one iteration, first source start to last sink end)",
        a.latency_us
    );
    let _ = writeln!(s, "critical cycle     {}", a.critical_cycle.join(" -> "));
    s
}
