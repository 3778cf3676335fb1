//! The HSDFG: the IR that the schedulers, the allocators and the back ends
//! consume (docs/language.md). Its types live here, beside the other IRs,
//! so every stage after lowering depends on `ir`, not on `lower`;
//! `lower::hsdfg::build` makes it.
//!
//! Built from a checked declaration and instantiation (and the `timing`
//! table): one actor per sub-box and one edge per dependency (0 tokens), each
//! paired with its write-after-read partner in the other direction (1 token:
//! each buffer holds one iteration). It also carries what later stages need
//! of the declaration, so no stage after this one reads the description:
//! the function instances with their ports, and the buffers (one per OUT
//! port) with their readers, element type, grid and size.
//!
//! Guarantees: actors are in the order of the instantiation's sub-boxes,
//! edges in a deterministic order; every actor's `accesses` lists exactly
//! the grid elements it reads (window included, clipped) and writes.

use crate::ir::kernel::Kernel;
use crate::ir::{Direction, ElemType, Pair, Parallelism, Region, SubBoxRef};
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction as Dir;
use std::collections::BTreeMap;

/// An actor of the HSDFG (a sub-box).
pub type ActorId = NodeIndex<u32>;
/// An edge of the HSDFG.
pub type EdgeId = EdgeIndex<u32>;

/// Index into [`Hsdfg::buffers`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BufferId(pub usize);

/// Index into [`Hsdfg::functions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionId(pub usize);

/// A function instance of the declaration (`f6 func_gain [256, 256]`).
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionInfo {
    /// The instance name, `f6` or `tgain`.
    pub name: String,
    /// The C function it runs, `func_gain`.
    pub function: String,
    pub parallelism: Parallelism,
    /// The kernel addresses every row through `SSC_ROW` (`ROWS` on a
    /// kernel of one's own): its buffers may be folded. Built-ins and
    /// defined functions always do; see [`Hsdfg::streams`].
    pub rows: bool,
    /// Its iteration space `[w, h]`.
    pub resolution: Pair,
    /// The checksum's key ([`crate::ir::StableId`]; its index when the
    /// declaration gives none).
    pub id: u32,
    pub ports: Vec<PortInfo>,
    /// Its sub-boxes, in the order of their index `k`.
    pub subboxes: Vec<ActorId>,
}

/// A port of a function instance, with its geometry resolved.
#[derive(Clone, Debug, PartialEq)]
pub struct PortInfo {
    pub name: String,
    pub direction: Direction,
    pub ty: ElemType,
    pub mul: Pair,
    /// `[1, 1]` when the description gives none.
    pub window: Pair,
    /// `resolution × mul`, in elements.
    pub grid: Pair,
    /// The buffer this port writes (OUT) or reads (IN).
    pub buffer: BufferId,
    /// An IN port whose connection has a `delay`: it reads the buffer's
    /// value of the previous iteration.
    pub delayed: bool,
}

/// One buffer per OUT port: one iteration's worth of its grid.
#[derive(Clone, Debug, PartialEq)]
pub struct Buffer {
    /// `producer.port`, e.g. `f6.out`: what the description calls it.
    pub name: String,
    pub producer: (FunctionId, usize),
    /// `(function, port index)` of every IN port it feeds, in declaration order.
    pub readers: Vec<(FunctionId, usize)>,
    pub ty: ElemType,
    pub grid: Pair,
    /// `grid.x · grid.y · size(ty) · copies`: what it occupies.
    pub bytes: u64,
    /// A *state* buffer, read through a delay: its value before the first
    /// iteration (every element). It lives across iterations, so it is
    /// never folded and shares its memory with no other buffer.
    pub initial: Option<f64>,
    /// 1, or 2 for a state buffer that holds two iterations' values
    /// (double buffering, [`crate::lower::delay`]): copy `(i + phase) mod 2`
    /// of iteration i is the one a port reads or writes, its phase 1 for a
    /// delayed reader ([`Hsdfg::phase`]) and 0 for the writer and every
    /// other reader, so a delayed reader reads what the writer wrote in
    /// the iteration before while the writer fills the other copy. Copy 1
    /// lies `frame_bytes()` after copy 0.
    pub copies: u32,
}

impl Buffer {
    /// The bytes of one copy: one iteration's value.
    pub fn frame_bytes(&self) -> u64 {
        self.bytes / u64::from(self.copies.max(1))
    }
}

/// What an actor touches of one buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    pub buffer: BufferId,
    /// The port index within the actor's function.
    pub port: usize,
    pub write: bool,
    /// The elements of the buffer's grid it touches (half-open; window
    /// included and clipped to the grid for reads).
    pub elements: Region,
}

impl Access {
    /// The byte range `[start, end)` within the buffer that covers the
    /// touched rows (rows are contiguous; a row range is what a sub-box
    /// touches when splitting is by rows).
    pub fn byte_range(&self, buffer: &Buffer) -> (u64, u64) {
        let row = buffer.grid.x * buffer.ty.size();
        (self.elements.y0 * row, self.elements.y1 * row)
    }
}

/// A sub-box as an actor.
#[derive(Clone, Debug, PartialEq)]
pub struct Actor {
    /// `F.k`.
    pub subbox: SubBoxRef,
    pub function: FunctionId,
    /// Its region of the function's iteration space.
    pub region: Region,
    /// Estimated execution time, µs (docs/language.md).
    pub time: f64,
    /// Reads and writes, one per port of its function.
    pub accesses: Vec<Access>,
}

/// Why an edge exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    /// Read after write: the consumer reads what the producer wrote (0
    /// tokens; 1 through a delay: what the producer wrote in the previous
    /// iteration).
    Dependency,
    /// Write after read: the producer of the next iteration must not
    /// overwrite what the consumer still reads (1 token; 0 through a
    /// delay: the producer of this iteration waits for the reader of the
    /// previous value; 1 again when the state is double-buffered, the
    /// producer of the next iteration waits).
    WriteAfterRead,
}

/// An edge of the HSDFG.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    pub kind: EdgeKind,
    /// Initial tokens: 0 for a dependency, 1 for its write-after-read
    /// partner; the other way round through a delay. A dependency and its
    /// partner hold as many tokens between them as the buffer has copies:
    /// through a delay into a double-buffered state both have 1 (the
    /// reader of iteration i reads what the writer of i − 1 wrote, before
    /// the writer of i + 1 overwrites that copy).
    pub tokens: u32,
    /// The buffer the edge stands for.
    pub buffer: BufferId,
}

/// Costs of the run-time synchronisation and communication
/// (`timing_system wt T, sg T, tr T`), µs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SystemTiming {
    /// One wait (`W`).
    pub wait: f64,
    /// One signal (`S`).
    pub signal: f64,
    /// Per KiB a sub-box reads of what a sub-box of another thread wrote:
    /// the cache lines come from the other core's cache.
    pub transfer: f64,
    /// The largest buffer, bytes, whose rows a transfer prices: a bigger
    /// one does not stay in the writer's cache, so it comes from the
    /// shared cache or memory whoever wrote it (the cost model's streaming
    /// term prices that). Infinite without a cost model.
    pub transfer_limit: f64,
}

impl Default for SystemTiming {
    /// Without a cost model: 1 µs a wait and a signal, transfers free.
    fn default() -> Self {
        SystemTiming {
            wait: 1.0,
            signal: 1.0,
            transfer: 0.0,
            transfer_limit: f64::INFINITY,
        }
    }
}

/// The homogeneous SDF graph of one description.
#[derive(Clone, Debug)]
pub struct Hsdfg {
    pub functions: Vec<FunctionInfo>,
    pub buffers: Vec<Buffer>,
    pub graph: DiGraph<Actor, Edge, u32>,
    pub system: SystemTiming,
    /// The typed loop bodies of the defined functions
    /// (`function_definition`), by function name.
    pub kernels: BTreeMap<String, Kernel>,
}

impl Hsdfg {
    /// Every actor, in instantiation order.
    pub fn actors(&self) -> impl Iterator<Item = ActorId> + '_ {
        self.graph.node_indices()
    }

    pub fn actor(&self, a: ActorId) -> &Actor {
        &self.graph[a]
    }

    pub fn function(&self, f: FunctionId) -> &FunctionInfo {
        &self.functions[f.0]
    }

    pub fn buffer(&self, b: BufferId) -> &Buffer {
        &self.buffers[b.0]
    }

    /// Which copy of its buffer port `port` of function `f` touches in
    /// iteration i: `(i + phase) mod 2` ([`Buffer::copies`]); 0 for a
    /// buffer with one copy.
    pub fn phase(&self, f: FunctionId, port: usize) -> u32 {
        let p = &self.function(f).ports[port];
        u32::from(p.delayed && self.buffer(p.buffer).copies == 2)
    }

    /// Whether function instance `f`'s kernel addresses every row through
    /// `SSC_ROW`, so its buffers may be folded into rings: a built-in, a
    /// defined function, or a kernel of one's own that says `ROWS`.
    pub fn streams(&self, f: FunctionId) -> bool {
        let info = self.function(f);
        info.rows
            || crate::ir::builtins::builtin_of(&info.function).is_some()
            || self.kernels.contains_key(&info.function)
    }

    /// The function instance an actor belongs to.
    pub fn function_of(&self, a: ActorId) -> &FunctionInfo {
        self.function(self.graph[a].function)
    }

    /// Every edge as `(id, from, to, edge)`, in a deterministic order.
    pub fn edges(&self) -> impl Iterator<Item = (EdgeId, ActorId, ActorId, &Edge)> + '_ {
        self.graph
            .edge_references()
            .map(|e| (e.id(), e.source(), e.target(), e.weight()))
    }

    /// The 0-token edges only (the DAG of one iteration): every dependency,
    /// and through a delay the write-after-read edge from the reader of
    /// the previous value to this iteration's writer.
    pub fn dependencies(&self) -> impl Iterator<Item = (ActorId, ActorId, BufferId)> + '_ {
        self.edges()
            .filter(|(_, _, _, e)| e.tokens == 0)
            .map(|(_, a, b, e)| (a, b, e.buffer))
    }

    /// The other ends of `a`'s dependency edges in direction `dir`, sorted,
    /// each once.
    fn dependency_neighbours(&self, a: ActorId, dir: Dir) -> Vec<ActorId> {
        let mut v: Vec<ActorId> = self
            .graph
            .edges_directed(a, dir)
            .filter(|e| e.weight().tokens == 0)
            .map(|e| {
                if dir == Dir::Incoming {
                    e.source()
                } else {
                    e.target()
                }
            })
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Actors this one waits for within an iteration (0-token in-edges).
    pub fn predecessors(&self, a: ActorId) -> Vec<ActorId> {
        self.dependency_neighbours(a, Dir::Incoming)
    }

    /// Bytes of `a`'s inputs that `p` writes (the rows both touch of each
    /// buffer, whole rows of the buffer's grid), in buffers no bigger than
    /// `system.transfer_limit`: what moves from `p`'s core to `a`'s.
    pub fn shared_bytes(&self, p: ActorId, a: ActorId) -> u64 {
        let mut total = 0;
        for w in
            self.actor(p).accesses.iter().filter(|x| {
                x.write && self.buffer(x.buffer).bytes as f64 <= self.system.transfer_limit
            })
        {
            for r in self
                .actor(a)
                .accesses
                .iter()
                .filter(|x| !x.write && x.buffer == w.buffer)
            {
                let i = w.elements.intersect(&r.elements);
                if !i.is_empty() {
                    let b = self.buffer(w.buffer);
                    total += (i.y1 - i.y0) * b.grid.x * b.ty.size();
                }
            }
        }
        total
    }

    /// µs `a` spends reading what `p` wrote when `p` ran on another thread:
    /// `system.transfer` per KiB of [`Hsdfg::shared_bytes`].
    pub fn transfer_cost(&self, p: ActorId, a: ActorId) -> f64 {
        if self.system.transfer == 0.0 {
            return 0.0;
        }
        self.system.transfer * self.shared_bytes(p, a) as f64 / 1024.0
    }

    /// The cost of an edge `p → a` between two threads: a signal, a wait
    /// and the transfer of the bytes (the list schedulers' `c(p, t)`).
    pub fn cross_thread_cost(&self, p: ActorId, a: ActorId) -> f64 {
        self.system.signal + self.system.wait + self.transfer_cost(p, a)
    }

    /// Actors that depend on this one within an iteration (0-token out-edges).
    pub fn successors(&self, a: ActorId) -> Vec<ActorId> {
        self.dependency_neighbours(a, Dir::Outgoing)
    }

    /// Total estimated work of one iteration, µs.
    pub fn total_work(&self) -> f64 {
        self.graph.node_weights().map(|a| a.time).sum()
    }

    /// The actor of a sub-box reference, if it exists (a linear search:
    /// for many lookups, [`Hsdfg::finder`]).
    pub fn find(&self, sb: &SubBoxRef) -> Option<ActorId> {
        let f = self.functions.iter().find(|f| f.name == sb.function.name)?;
        self.subbox_of(f, sb.index)
    }

    /// An index of the functions by name, for many [`Finder::find`]s.
    pub fn finder(&self) -> Finder<'_> {
        Finder {
            h: self,
            by_name: self
                .functions
                .iter()
                .enumerate()
                .map(|(i, f)| (f.name.as_str(), i))
                .collect(),
        }
    }

    /// Sub-box `index` of `f`: at position `index` when the sub-boxes are
    /// listed in index order, as a split lists them (O(1), so resolving
    /// every `E` of a runtime stays linear in its strips), else searched.
    fn subbox_of(&self, f: &FunctionInfo, index: u64) -> Option<ActorId> {
        let at = usize::try_from(index).ok().and_then(|i| f.subboxes.get(i));
        match at {
            Some(&a) if self.graph[a].subbox.index == index => Some(a),
            _ => f
                .subboxes
                .iter()
                .copied()
                .find(|&a| self.graph[a].subbox.index == index),
        }
    }
}

/// Sub-box references resolved through a name index (see [`Hsdfg::finder`]).
pub struct Finder<'a> {
    h: &'a Hsdfg,
    by_name: std::collections::HashMap<&'a str, usize>,
}

impl Finder<'_> {
    /// The actor of a sub-box reference, if it exists.
    pub fn find(&self, sb: &SubBoxRef) -> Option<ActorId> {
        let f = &self.h.functions[*self.by_name.get(sb.function.name.as_str())?];
        self.h.subbox_of(f, sb.index)
    }
}

// ---------------------------------------------------------------------------
// The builder.
