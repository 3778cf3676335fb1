//! Self-contained generator of HSDFGs and schedules for the memory tests and
//! bench: random DAGs of functions, each split into row strips, dependencies
//! by row overlap (window included), write-after-read partners reversed
//! with 1 token; random thread assignment with a random topological order
//! per thread. Also the thesis' Appendix A chain.
#![allow(dead_code)]

use petgraph::graph::DiGraph;
use ssc::ir::hsdfg::{
    Access, Actor, ActorId, Buffer, BufferId, Edge, EdgeKind, FunctionId, FunctionInfo, Hsdfg,
    PortInfo, SystemTiming,
};
use ssc::ir::{Direction, ElemType, Pair, Parallelism, Region, SubBoxRef};
use ssc::schedule::{Schedule, SchedulerKind, ThreadPlan};

/// xorshift64*: small, deterministic.
pub struct GenRng(u64);
impl GenRng {
    pub fn new(seed: u64) -> GenRng {
        GenRng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
    pub fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[(self.next() % v.len() as u64) as usize]
    }
}

/// One function of a chain to build.
pub struct FnSpec {
    pub name: String,
    pub parallelism: Parallelism,
    /// `(producer function index, window height)` per input port.
    pub inputs: Vec<(usize, u64)>,
    /// Element type of its output, `None` for a sink.
    pub out: Option<ElemType>,
    pub strips: u64,
    /// Time of the whole function, µs.
    pub time: f64,
}

/// Build the HSDFG of `specs` (all functions iterate over `res`).
pub fn build(specs: &[FnSpec], res: Pair) -> Hsdfg {
    // Buffers: one per function with an output, in function order.
    let mut buf_of = vec![None; specs.len()];
    let mut buffers = Vec::new();
    for (f, s) in specs.iter().enumerate() {
        if let Some(ty) = s.out {
            buf_of[f] = Some(BufferId(buffers.len()));
            buffers.push(Buffer {
                name: format!("{}.out", s.name),
                producer: (FunctionId(f), s.inputs.len()),
                readers: Vec::new(),
                ty,
                grid: res,
                bytes: res.x * res.y * ty.size(),
                initial: None,
                copies: 1,
            });
        }
    }
    let mut functions = Vec::new();
    let mut graph: DiGraph<Actor, Edge, u32> = DiGraph::default();
    for (f, s) in specs.iter().enumerate() {
        let mut ports = Vec::new();
        for (k, &(p, wy)) in s.inputs.iter().enumerate() {
            let b = buf_of[p].expect("input from a function with an output");
            buffers[b.0].readers.push((FunctionId(f), k));
            ports.push(PortInfo {
                name: if s.inputs.len() == 1 {
                    "in".into()
                } else {
                    format!("in{k}")
                },
                direction: Direction::In,
                ty: buffers[b.0].ty,
                mul: Pair::ONE,
                window: Pair::new(1, wy),
                grid: res,
                buffer: b,
                delayed: false,
            });
        }
        if let Some(ty) = s.out {
            ports.push(PortInfo {
                name: "out".into(),
                direction: Direction::Out,
                ty,
                mul: Pair::ONE,
                window: Pair::ONE,
                grid: res,
                buffer: buf_of[f].unwrap(),
                delayed: false,
            });
        }
        let subboxes = add_strips(&mut graph, s, f, &ports, res);
        functions.push(FunctionInfo {
            name: s.name.clone(),
            function: format!("func_{}", s.name),
            parallelism: s.parallelism,
            rows: false,
            resolution: res,
            id: functions.len() as u32,
            ports,
            subboxes,
        });
    }
    add_row_overlap_edges(&mut graph, &functions, &buffers);
    Hsdfg {
        functions,
        buffers,
        graph,
        system: SystemTiming::default(),
        kernels: Default::default(),
    }
}

/// The actors of function `f` (`s`, its ports `ports`): `s.strips` row
/// strips, each reading the rows its input windows cover.
fn add_strips(
    graph: &mut DiGraph<Actor, Edge, u32>,
    s: &FnSpec,
    f: usize,
    ports: &[PortInfo],
    res: Pair,
) -> Vec<petgraph::graph::NodeIndex> {
    let mut subboxes = Vec::new();
    for k in 0..s.strips {
        let (y0, y1) = (k * res.y / s.strips, (k + 1) * res.y / s.strips);
        let accesses = ports
            .iter()
            .enumerate()
            .map(|(pi, p)| {
                let (r0, r1) = if p.direction == Direction::In {
                    let before = (p.window.y - 1) / 2;
                    let after = p.window.y - 1 - before;
                    (y0.saturating_sub(before), (y1 + after).min(res.y))
                } else {
                    (y0, y1)
                };
                Access {
                    buffer: p.buffer,
                    port: pi,
                    write: p.direction == Direction::Out,
                    elements: Region::new(0, r0, res.x, r1),
                }
            })
            .collect();
        let a = graph.add_node(Actor {
            subbox: SubBoxRef::new(&s.name, k),
            function: FunctionId(f),
            region: Region::new(0, y0, res.x, y1),
            time: s.time * (y1 - y0) as f64 / res.y as f64,
            accesses,
        });
        subboxes.push(a);
    }
    subboxes
}

/// A dependency from each producing strip to each consuming strip whose
/// rows overlap, each with its WAR partner.
fn add_row_overlap_edges(
    graph: &mut DiGraph<Actor, Edge, u32>,
    functions: &[FunctionInfo],
    buffers: &[Buffer],
) {
    for f in 0..functions.len() {
        for &c in &functions[f].subboxes.clone() {
            let reads: Vec<Access> = graph[c]
                .accesses
                .iter()
                .filter(|a| !a.write)
                .cloned()
                .collect();
            for r in reads {
                let pf = buffers[r.buffer.0].producer.0;
                for &p in &functions[pf.0].subboxes {
                    let w = graph[p]
                        .accesses
                        .iter()
                        .find(|a| a.write && a.buffer == r.buffer)
                        .unwrap();
                    if w.elements.y0 < r.elements.y1 && r.elements.y0 < w.elements.y1 {
                        graph.add_edge(
                            p,
                            c,
                            Edge {
                                kind: EdgeKind::Dependency,
                                tokens: 0,
                                buffer: r.buffer,
                            },
                        );
                        graph.add_edge(
                            c,
                            p,
                            Edge {
                                kind: EdgeKind::WriteAfterRead,
                                tokens: 1,
                                buffer: r.buffer,
                            },
                        );
                    }
                }
            }
        }
    }
}

/// A random chain of `n ≥ 2` functions, FULL ones split into 1..=max_strips.
pub fn random_graph(rng: &mut GenRng, n: usize, max_strips: u64) -> Hsdfg {
    let res = Pair::new(rng.pick(&[16, 24, 32, 64, 100]), rng.range(8, 64));
    random_graph_with(rng, n, res, |rng| rng.range(1, max_strips))
}

/// A random chain of `n ≥ 2` functions of `res`, every FULL one split into
/// exactly `parts` strips.
pub fn split_graph(rng: &mut GenRng, n: usize, res: Pair, parts: u64) -> Hsdfg {
    random_graph_with(rng, n, res, |_| parts)
}

fn random_graph_with(
    rng: &mut GenRng,
    n: usize,
    res: Pair,
    strips: impl Fn(&mut GenRng) -> u64,
) -> Hsdfg {
    let mut specs: Vec<FnSpec> = Vec::new();
    let mut consumed = vec![false; n];
    for f in 0..n {
        let sink = f == n - 1;
        let source = f == 0;
        let mut inputs = Vec::new();
        if !source {
            let k = rng.range(1, 2.min(f as u64)) as usize;
            for _ in 0..k {
                let p = match (0..f).find(|&p| !consumed[p]) {
                    Some(p) if !rng.next().is_multiple_of(3) => p,
                    _ => rng.range(0, f as u64 - 1) as usize,
                };
                if inputs.iter().all(|&(q, _)| q != p) {
                    consumed[p] = true;
                    inputs.push((p, rng.pick(&[1, 1, 3, 5])));
                }
            }
        }
        let full = !source && !sink && !rng.next().is_multiple_of(8);
        specs.push(FnSpec {
            name: format!("f{f}"),
            parallelism: if full {
                Parallelism::Full
            } else {
                Parallelism::None
            },
            inputs,
            out: (!sink).then(|| {
                rng.pick(&[
                    ElemType::Int,
                    ElemType::Int,
                    ElemType::Float,
                    ElemType::Uchar,
                    ElemType::Double,
                ])
            }),
            strips: if full { strips(rng) } else { 1 },
            time: rng.range(1, 100) as f64,
        });
    }
    build(&specs, res)
}

/// Predicted start times by simulating per-thread lists in a global
/// topological order.
fn simulate(h: &Hsdfg, lists: &[Vec<ActorId>], order: &[ActorId]) -> (Vec<Vec<f64>>, f64) {
    let n = h.graph.node_count();
    let mut thread = vec![0; n];
    for (t, l) in lists.iter().enumerate() {
        for a in l {
            thread[a.index()] = t;
        }
    }
    let mut finish = vec![0.0f64; n];
    let mut free = vec![0.0f64; lists.len()];
    let mut start = vec![0.0f64; n];
    for &a in order {
        let t = thread[a.index()];
        let ready = h
            .predecessors(a)
            .iter()
            .map(|p| finish[p.index()])
            .fold(free[t], f64::max);
        start[a.index()] = ready;
        finish[a.index()] = ready + h.actor(a).time;
        free[t] = finish[a.index()];
    }
    let makespan = finish.iter().copied().fold(0.0, f64::max);
    (
        lists
            .iter()
            .map(|l| l.iter().map(|a| start[a.index()]).collect())
            .collect(),
        makespan,
    )
}

/// A random topological order of the dependencies.
pub fn random_topo(h: &Hsdfg, rng: &mut GenRng) -> Vec<ActorId> {
    let n = h.graph.node_count();
    let mut indeg: Vec<usize> = h.actors().map(|a| h.predecessors(a).len()).collect();
    let mut ready: Vec<ActorId> = h.actors().filter(|a| indeg[a.index()] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        let k = (rng.next() % ready.len() as u64) as usize;
        let a = ready.swap_remove(k);
        order.push(a);
        for b in h.successors(a) {
            indeg[b.index()] -= 1;
            if indeg[b.index()] == 0 {
                ready.push(b);
            }
        }
    }
    order
}

/// Build a schedule from per-thread lists (each a topological order
/// restricted to the thread, consistent with `order`).
pub fn schedule_of(
    h: &Hsdfg,
    kind: SchedulerKind,
    lists: Vec<Vec<ActorId>>,
    order: &[ActorId],
) -> Schedule {
    let (starts, makespan) = simulate(h, &lists, order);
    Schedule {
        kind,
        threads: lists
            .into_iter()
            .zip(starts)
            .enumerate()
            .map(|(i, (actors, start))| ThreadPlan {
                name: format!("thread{i}"),
                core: None,
                actors,
                start,
            })
            .collect(),
        iteration_barrier: matches!(kind, SchedulerKind::Barrier),
        makespan,
        lower_bound: 0.0,
        notes: Vec::new(),
    }
}

/// A random schedule: `threads` = 0 gives one thread per actor (simple),
/// else a random thread per actor in a random topological order.
pub fn random_schedule(h: &Hsdfg, rng: &mut GenRng, threads: usize) -> Schedule {
    let order = random_topo(h, rng);
    if threads == 0 {
        let lists = order.iter().map(|&a| vec![a]).collect();
        return schedule_of(h, SchedulerKind::Simple, lists, &order);
    }
    let mut lists = vec![Vec::new(); threads];
    for &a in &order {
        lists[(rng.next() % threads as u64) as usize].push(a);
    }
    schedule_of(h, SchedulerKind::Fixed(threads), lists, &order)
}

/// The thesis' Appendix A: f8 source → f6 gain (2 strips) → f7 conv (2
/// strips, window 4×4) → f9 sink, 256×256 int, on two threads:
/// thread0 [f8.0, f6.0, f7.0, f9.0], thread1 [f6.1, f7.1].
pub fn appendix_a() -> (Hsdfg, Schedule) {
    let spec = |name: &str, par, inputs: Vec<(usize, u64)>, out, strips, time| FnSpec {
        name: name.into(),
        parallelism: par,
        inputs,
        out,
        strips,
        time,
    };
    let specs = vec![
        spec(
            "f6",
            Parallelism::Full,
            vec![(2, 1)],
            Some(ElemType::Int),
            2,
            560.0,
        ),
        spec(
            "f7",
            Parallelism::Full,
            vec![(0, 4)],
            Some(ElemType::Int),
            2,
            100.0,
        ),
        spec(
            "f8",
            Parallelism::None,
            vec![],
            Some(ElemType::Int),
            1,
            1300.0,
        ),
        spec("f9", Parallelism::None, vec![(1, 1)], None, 1, 1.0),
    ];
    let h = build(&specs, Pair::new(256, 256));
    let a = |f: &str, k| h.find(&SubBoxRef::new(f, k)).unwrap();
    let t0 = vec![a("f8", 0), a("f6", 0), a("f7", 0), a("f9", 0)];
    let t1 = vec![a("f6", 1), a("f7", 1)];
    let order = vec![
        a("f8", 0),
        a("f6", 0),
        a("f6", 1),
        a("f7", 0),
        a("f7", 1),
        a("f9", 0),
    ];
    let s = schedule_of(&h, SchedulerKind::Fixed(2), vec![t0, t1], &order);
    (h, s)
}
