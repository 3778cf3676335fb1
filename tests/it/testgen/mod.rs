//! Random HSDFGs for tests (schedulers, allocators, synchronisation, checker):
//! test code, kept out of the library (`mod testgen;` in the tests that use it).
//!
//! [`random_hsdfg`] builds an [`Hsdfg`] directly, without a description: a
//! random DAG of function instances (every function has the same resolution,
//! so connected ports have the same grid), each FULL function split into 1–4
//! row strips, a dependency `P.i => C.j` whenever the rows `C.j` reads
//! (window included, clipped) intersect the rows `P.i` writes, and for each
//! dependency its write-after-read partner in the other direction with one
//! token — exactly the shape the HSDFG builder promises (docs/language.md).
//!
//! The generator is deterministic in its seed and uses its own small PRNG
//! (splitmix64), so a failing proptest case reproduces from the seed alone.
//! [`appendix_hsdfg`] builds the HSDFG of the thesis' Appendix A by hand.

#![allow(dead_code)]

use petgraph::graph::DiGraph;
use ssc::ir::hsdfg::{
    Access, Actor, Buffer, BufferId, Edge, EdgeKind, FunctionId, FunctionInfo, Hsdfg, PortInfo,
    SystemTiming,
};
use ssc::ir::{Direction, ElemType, Pair, Parallelism, Region, SubBoxRef};

/// A small deterministic PRNG (splitmix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }
    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// Shape of the generated graphs.
#[derive(Clone, Debug)]
pub struct GenParams {
    /// Number of function instances, inclusive range.
    pub functions: (usize, usize),
    /// Most inputs of one function.
    pub max_inputs: usize,
    /// Most row strips per FULL function (1–4).
    pub max_strips: u64,
    /// Rows of the common resolution, inclusive range.
    pub rows: (u64, u64),
    /// Function time for the whole iteration space, µs, inclusive range.
    pub time: (u64, u64),
}

impl Default for GenParams {
    fn default() -> Self {
        GenParams {
            functions: (2, 7),
            max_inputs: 2,
            max_strips: 4,
            rows: (8, 32),
            time: (20, 1000),
        }
    }
}

impl GenParams {
    /// Tiny graphs (2–4 functions, ≤ 3 strips) for exhaustive oracles.
    pub fn tiny() -> GenParams {
        GenParams {
            functions: (2, 4),
            max_inputs: 2,
            max_strips: 3,
            rows: (4, 12),
            time: (20, 400),
        }
    }
}

/// A random HSDFG with the default shape.
pub fn random_hsdfg(seed: u64) -> Hsdfg {
    random_hsdfg_with(seed, &GenParams::default())
}

/// A random HSDFG: see the module documentation.
pub fn random_hsdfg_with(seed: u64, p: &GenParams) -> Hsdfg {
    let mut rng = Rng::new(seed);
    let n = rng.range(p.functions.0 as u64, p.functions.1 as u64) as usize;
    let width = rng.range(2, 16);
    let rows = rng.range(p.rows.0, p.rows.1);
    let res = Pair::new(width, rows);
    let preds = random_dag(&mut rng, n, p);
    let has_out: Vec<bool> = (0..n)
        .map(|f| preds.iter().any(|p| p.contains(&f)))
        .collect();
    let types = [
        ElemType::Uchar,
        ElemType::Int,
        ElemType::Float,
        ElemType::Short,
    ];

    // Functions, ports and buffers.
    let mut functions = Vec::new();
    let mut buffers: Vec<Buffer> = Vec::new();
    let mut out_buffer = vec![None; n];
    for f in 0..n {
        if has_out[f] {
            let ty = types[rng.range(0, 3) as usize];
            out_buffer[f] = Some(BufferId(buffers.len()));
            buffers.push(Buffer {
                name: format!("f{f}.out"),
                producer: (FunctionId(f), preds[f].len()),
                readers: Vec::new(),
                ty,
                grid: res,
                bytes: res.x * res.y * ty.size(),
                initial: None,
                copies: 1,
            });
        }
    }
    for f in 0..n {
        let mut ports = Vec::new();
        for (k, &q) in preds[f].iter().enumerate() {
            let b = out_buffer[q].expect("a predecessor has an output");
            buffers[b.0].readers.push((FunctionId(f), k));
            let wy = [1, 1, 3, 4][rng.range(0, 3) as usize];
            ports.push(PortInfo {
                name: format!("in{k}"),
                direction: Direction::In,
                ty: buffers[b.0].ty,
                mul: Pair::ONE,
                window: Pair::new(1, wy),
                grid: res,
                buffer: b,
                delayed: false,
            });
        }
        if let Some(b) = out_buffer[f] {
            ports.push(PortInfo {
                name: "out".into(),
                direction: Direction::Out,
                ty: buffers[b.0].ty,
                mul: Pair::ONE,
                window: Pair::ONE,
                grid: res,
                buffer: b,
                delayed: false,
            });
        }
        let full = rng.chance(0.8);
        functions.push(FunctionInfo {
            name: format!("f{f}"),
            function: format!("func_{f}"),
            parallelism: if full {
                Parallelism::Full
            } else {
                Parallelism::None
            },
            rows: false,
            resolution: res,
            id: functions.len() as u32,
            ports,
            subboxes: Vec::new(),
        });
    }

    // Actors: row strips.
    let mut graph = DiGraph::new();
    add_strips(&mut rng, p, &mut graph, &mut functions, width, rows);
    add_row_overlap_edges(&mut graph, &functions, &buffers);
    Hsdfg {
        functions,
        buffers,
        graph,
        system: SystemTiming::default(),
        kernels: Default::default(),
    }
}

/// The DAG of `n` functions: the predecessors of each among the earlier
/// ones, sorted.
fn random_dag(rng: &mut Rng, n: usize, p: &GenParams) -> Vec<Vec<usize>> {
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, pr) in preds.iter_mut().enumerate().skip(1) {
        let lo = u64::from(rng.chance(0.85));
        let k = rng.range(lo, p.max_inputs as u64) as usize;
        for _ in 0..k {
            let j = rng.range(0, i as u64 - 1) as usize;
            if !pr.contains(&j) {
                pr.push(j);
            }
        }
        pr.sort();
    }
    preds
}

/// Each function's actors: a FULL function's rows cut into a random number
/// of strips, every strip reading the rows its input windows cover.
fn add_strips(
    rng: &mut Rng,
    p: &GenParams,
    graph: &mut DiGraph<Actor, Edge, u32>,
    functions: &mut [FunctionInfo],
    width: u64,
    rows: u64,
) {
    for (f, func) in functions.iter_mut().enumerate() {
        let parts = if func.parallelism == Parallelism::Full {
            rng.range(1, p.max_strips.min(rows))
        } else {
            1
        };
        let time = rng.range(p.time.0, p.time.1) as f64;
        for k in 0..parts {
            let y0 = rows * k / parts;
            let y1 = rows * (k + 1) / parts;
            let region = Region::new(0, y0, width, y1);
            let accesses = func
                .ports
                .iter()
                .enumerate()
                .map(|(pi, port)| Access {
                    buffer: port.buffer,
                    port: pi,
                    write: port.direction == Direction::Out,
                    elements: window_rows(region, port.window, rows),
                })
                .collect();
            let a = graph.add_node(Actor {
                subbox: SubBoxRef::new(&func.name, k),
                function: FunctionId(f),
                region,
                time: time * (y1 - y0) as f64 / rows as f64,
                accesses,
            });
            func.subboxes.push(a);
        }
    }
}

/// A dependency from each producing strip to each consuming strip whose
/// rows overlap, each followed by its WAR partner.
fn add_row_overlap_edges(
    graph: &mut DiGraph<Actor, Edge, u32>,
    functions: &[FunctionInfo],
    buffers: &[Buffer],
) {
    for c in 0..functions.len() {
        for port in functions[c]
            .ports
            .iter()
            .filter(|p| p.direction == Direction::In)
        {
            let b = port.buffer;
            let pf = buffers[b.0].producer.0 .0;
            for &pa in &functions[pf].subboxes {
                for &ca in &functions[c].subboxes {
                    let w = graph[pa].accesses.iter().find(|x| x.write && x.buffer == b);
                    let r = graph[ca]
                        .accesses
                        .iter()
                        .find(|x| !x.write && x.buffer == b);
                    if let (Some(w), Some(r)) = (w, r) {
                        if w.elements.intersects(&r.elements) {
                            graph.add_edge(pa, ca, dep(EdgeKind::Dependency, b));
                            graph.add_edge(ca, pa, dep(EdgeKind::WriteAfterRead, b));
                        }
                    }
                }
            }
        }
    }
}

fn dep(kind: EdgeKind, buffer: BufferId) -> Edge {
    Edge {
        kind,
        tokens: if kind == EdgeKind::Dependency { 0 } else { 1 },
        buffer,
    }
}

/// The rows a region reads through a window (docs/language.md), clipped to the grid.
fn window_rows(r: Region, window: Pair, rows: u64) -> Region {
    let before = (window.y - 1) / 2;
    let after = window.y - 1 - before;
    Region::new(
        r.x0,
        r.y0.saturating_sub(before),
        r.x1,
        (r.y1 + after).min(rows),
    )
}

/// The appendix example's functions (f6 gain, f7 a 4 × 4 convolution,
/// f8 the source, f9 the sink), each `id` its index.
fn appendix_functions(res: Pair, ty: ElemType) -> Vec<FunctionInfo> {
    let port = |name: &str, dir: Direction, window: Pair, b: usize| PortInfo {
        name: name.into(),
        direction: dir,
        ty,
        mul: Pair::ONE,
        window,
        grid: res,
        buffer: BufferId(b),
        delayed: false,
    };
    let func = |name: &str, c: &str, par, ports| FunctionInfo {
        name: name.into(),
        function: c.into(),
        parallelism: par,
        rows: false,
        resolution: res,
        id: 0, // set below: the index
        ports,
        subboxes: Vec::new(),
    };
    let mut functions = vec![
        func(
            "f6",
            "func_gain",
            Parallelism::Full,
            vec![
                port("in", Direction::In, Pair::ONE, 0),
                port("out", Direction::Out, Pair::ONE, 1),
            ],
        ),
        func(
            "f7",
            "func_conv",
            Parallelism::Full,
            vec![
                port("in", Direction::In, Pair::new(4, 4), 1),
                port("out", Direction::Out, Pair::ONE, 2),
            ],
        ),
        func(
            "f8",
            "func_source",
            Parallelism::None,
            vec![port("out", Direction::Out, Pair::ONE, 0)],
        ),
        func(
            "f9",
            "func_sink",
            Parallelism::None,
            vec![port("in", Direction::In, Pair::ONE, 2)],
        ),
    ];
    for (i, f) in functions.iter_mut().enumerate() {
        f.id = i as u32;
    }
    functions
}

/// The HSDFG of the thesis' Appendix A (`examples/appendix.ssc`), built by
/// hand: f8 (source) → f6 (gain, 2 strips) → f7 (4×4 conv, 2 strips) → f9
/// (sink), 256×256 ints, timings of its runtime section, weighted by share.
/// Buffers: `f8.out` (0), `f6.out` (1), `f7.out` (2).
pub fn appendix_hsdfg() -> Hsdfg {
    let res = Pair::new(256, 256);
    let ty = ElemType::Int;
    let bytes = 256 * 256 * 4;
    let mut functions = appendix_functions(res, ty);
    let buffer = |name: &str, producer: usize, readers: Vec<(FunctionId, usize)>| Buffer {
        name: name.into(),
        producer: (FunctionId(producer), if producer == 2 { 0 } else { 1 }),
        readers,
        ty,
        grid: res,
        bytes,
        initial: None,
        copies: 1,
    };
    let buffers = vec![
        buffer("f8.out", 2, vec![(FunctionId(0), 0)]),
        buffer("f6.out", 0, vec![(FunctionId(1), 0)]),
        buffer("f7.out", 1, vec![(FunctionId(3), 0)]),
    ];
    let times = [560.0, 100.0, 1300.0, 1.0];
    let mut graph = DiGraph::new();
    // Instantiation order: f6.0, f6.1, f7.0, f7.1, f8.0, f9.0.
    let strips: [(usize, u64, u64, u64); 6] = [
        (0, 0, 0, 128),
        (0, 1, 128, 256),
        (1, 0, 0, 128),
        (1, 1, 128, 256),
        (2, 0, 0, 256),
        (3, 0, 0, 256),
    ];
    for (f, k, y0, y1) in strips {
        let region = Region::new(0, y0, 256, y1);
        let accesses = functions[f]
            .ports
            .iter()
            .enumerate()
            .map(|(pi, p)| Access {
                buffer: p.buffer,
                port: pi,
                write: p.direction == Direction::Out,
                elements: window_rows(region, p.window, 256),
            })
            .collect();
        let a = graph.add_node(Actor {
            subbox: SubBoxRef::new(&functions[f].name, k),
            function: FunctionId(f),
            region,
            time: times[f] * (y1 - y0) as f64 / 256.0,
            accesses,
        });
        functions[f].subboxes.push(a);
    }
    let n = |i: u32| petgraph::graph::NodeIndex::new(i as usize);
    // (producer, consumer, buffer), as in the instantiation section.
    let deps = [
        (4, 0, 0),
        (4, 1, 0),
        (0, 2, 1),
        (0, 3, 1),
        (1, 2, 1),
        (1, 3, 1),
        (2, 5, 2),
        (3, 5, 2),
    ];
    for (p, c, b) in deps {
        graph.add_edge(n(p), n(c), dep(EdgeKind::Dependency, BufferId(b)));
        graph.add_edge(n(c), n(p), dep(EdgeKind::WriteAfterRead, BufferId(b)));
    }
    Hsdfg {
        functions,
        buffers,
        graph,
        system: SystemTiming::default(),
        kernels: Default::default(),
    }
}

/// The trivial memory plan: every buffer at its own offset of the shared
/// arena, one after the other, no extra orderings.
pub fn trivial_plan(h: &Hsdfg) -> ssc::memory::MemoryPlan {
    use ssc::memory::{MemoryKind, MemoryPlan};
    // A runtime without memory sections: the reader places every buffer
    // after the one before.
    let placements = ssc::memory::sections::placements(h, &ssc::ir::Runtime::default())
        .expect("no memory section to misread");
    let offset = h.buffers.iter().map(|b| b.bytes).sum();
    MemoryPlan {
        kind: Some(MemoryKind::Naive),
        placements,
        shared_bytes: offset,
        local_bytes: Vec::new(),
        extra_edges: Vec::new(),
        lower_bound: 0,
        notes: Vec::new(),
    }
}
