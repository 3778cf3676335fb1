//! The HSDFG: the IR that the schedulers, the allocators and the back ends
//! consume (docs/language.md).
//!
//! Takes a checked declaration and instantiation (and the `timing` table);
//! gives one actor per sub-box and one edge per dependency (0 tokens), each
//! paired with its write-after-read partner in the other direction (1 token:
//! each buffer holds one iteration). It also carries what later stages need
//! of the declaration, so no stage after this one reads the description:
//! the function instances with their ports, and the buffers (one per OUT
//! port) with their readers, element type, grid and size.
//!
//! Guarantees: actors are in the order of the instantiation's sub-boxes,
//! edges in a deterministic order; every actor's `accesses` lists exactly
//! the grid elements it reads (window included, clipped) and writes.

use crate::ir::{Direction, ElemType, Pair, Parallelism, Region, SubBoxRef};
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction as Dir;

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
    /// Its iteration space `[w, h]`.
    pub resolution: Pair,
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
    /// `grid.x · grid.y · size(ty)`.
    pub bytes: u64,
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
    /// Read after write: the consumer reads what the producer wrote (0 tokens).
    Dependency,
    /// Write after read: the producer of the next iteration must not
    /// overwrite what the consumer still reads (1 token).
    WriteAfterRead,
}

/// An edge of the HSDFG.
#[derive(Clone, Debug, PartialEq)]
pub struct Edge {
    pub kind: EdgeKind,
    /// Initial tokens: 0 for a dependency, 1 for its write-after-read partner.
    pub tokens: u32,
    /// The buffer the edge stands for.
    pub buffer: BufferId,
}

/// Costs of the run-time synchronisation (`timing_system wt T, sg T`), µs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SystemTiming {
    pub wait: f64,
    pub signal: f64,
}

impl Default for SystemTiming {
    fn default() -> Self {
        SystemTiming {
            wait: 1.0,
            signal: 1.0,
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

    /// The 0-token dependency edges only (the DAG of one iteration).
    pub fn dependencies(&self) -> impl Iterator<Item = (ActorId, ActorId, BufferId)> + '_ {
        self.edges()
            .filter(|(_, _, _, e)| e.kind == EdgeKind::Dependency)
            .map(|(_, a, b, e)| (a, b, e.buffer))
    }

    /// Actors this one depends on within an iteration (0-token in-edges).
    pub fn predecessors(&self, a: ActorId) -> Vec<ActorId> {
        let mut v: Vec<ActorId> = self
            .graph
            .edges_directed(a, Dir::Incoming)
            .filter(|e| e.weight().kind == EdgeKind::Dependency)
            .map(|e| e.source())
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// Actors that depend on this one within an iteration (0-token out-edges).
    pub fn successors(&self, a: ActorId) -> Vec<ActorId> {
        let mut v: Vec<ActorId> = self
            .graph
            .edges_directed(a, Dir::Outgoing)
            .filter(|e| e.weight().kind == EdgeKind::Dependency)
            .map(|e| e.target())
            .collect();
        v.sort();
        v.dedup();
        v
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

    fn subbox_of(&self, f: &FunctionInfo, index: u64) -> Option<ActorId> {
        f.subboxes
            .iter()
            .copied()
            .find(|&a| self.graph[a].subbox.index == index)
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

use super::deps::port_elements;
use super::timing::{Instance, Timing};
use crate::diagnostics::Diagnostic;
use crate::ir::{Declaration, FunctionDecl, Instantiation};
use std::collections::BTreeMap;

/// Builds the HSDFG of a checked declaration and instantiation.
///
/// One actor per sub-box (instantiation order); one [`Access`] per port;
/// per dependency `P.i => C.j`, one 0-token [`EdgeKind::Dependency`] edge
/// `P.i → C.j` for every buffer from P to C through which `C.j` reads what
/// `P.i` writes (every buffer from P to C when none does, as for a
/// hand-written or coarse dependency), each followed by its 1-token
/// [`EdgeKind::WriteAfterRead`] partner `C.j → P.i`. Times: the instance's
/// time ([`Timing::cost`]: its most specific `timing` entry, else the cost
/// model) × (sub-box area /
/// function area) when `weighted`, else the whole figure. Errors (E110–E114) for names the declaration does not know, an IN
/// port without a driver, or a dependency between functions that share no
/// buffer.
pub fn build(
    d: &Declaration,
    i: &Instantiation,
    timing: &Timing,
    weighted: bool,
) -> Result<Hsdfg, Vec<Diagnostic>> {
    let mut b = Builder::default();
    b.declare_functions(d);
    b.connect_inputs(d);
    b.attach_readers();
    if !b.errors.is_empty() {
        return Err(b.errors);
    }
    b.add_actors(i, timing, weighted);
    b.list_subboxes();
    b.add_edges(i);
    if !b.errors.is_empty() {
        return Err(b.errors);
    }
    Ok(Hsdfg {
        functions: b.functions,
        buffers: b.buffers,
        graph: b.graph,
        system: timing.system,
    })
}

/// What [`build`] has made so far, step by step: the function instances and
/// their buffers, then the actors, then the edges, and the errors found.
#[derive(Default)]
struct Builder<'a> {
    errors: Vec<Diagnostic>,
    functions: Vec<FunctionInfo>,
    by_name: BTreeMap<&'a str, FunctionId>,
    buffers: Vec<Buffer>,
    out_buffer: BTreeMap<(&'a str, &'a str), BufferId>,
    decl_of: Vec<&'a FunctionDecl>,
    graph: DiGraph<Actor, Edge, u32>,
    actor_of: BTreeMap<(&'a str, u64), ActorId>,
}

impl<'a> Builder<'a> {
    /// Function instances and their OUT buffers (E110 for an undeclared
    /// function).
    fn declare_functions(&mut self, d: &'a Declaration) {
        for f in &d.functions {
            let Some(fd) = d.function_decl(f.function.as_str()) else {
                self.errors.push(
                    Diagnostic::error(
                        "E110",
                        format!("function `{}` of `{}` is not declared", f.function, f.name),
                    )
                    .label(f.function.span, "no function_declaration"),
                );
                continue;
            };
            let id = FunctionId(self.functions.len());
            self.decl_of.push(fd);
            self.by_name.insert(f.name.as_str(), id);
            let res = f.resolution.value;
            let mut ports = Vec::new();
            for (pi, p) in fd.ports.iter().enumerate() {
                let grid = Pair::new(
                    res.x.saturating_mul(p.mul.value.x),
                    res.y.saturating_mul(p.mul.value.y),
                );
                let mut buffer = BufferId(usize::MAX);
                if p.direction == Direction::Out {
                    buffer = BufferId(self.buffers.len());
                    self.out_buffer
                        .insert((f.name.as_str(), p.name.as_str()), buffer);
                    self.buffers.push(Buffer {
                        name: format!("{}.{}", f.name, p.name),
                        producer: (id, pi),
                        readers: Vec::new(),
                        ty: p.ty,
                        grid,
                        bytes: grid.x.saturating_mul(grid.y).saturating_mul(p.ty.size()),
                    });
                }
                ports.push(PortInfo {
                    name: p.name.name.clone(),
                    direction: p.direction,
                    ty: p.ty,
                    mul: p.mul.value,
                    window: p.window_or_one(),
                    grid,
                    buffer,
                });
            }
            self.functions.push(FunctionInfo {
                name: f.name.name.clone(),
                function: f.function.name.clone(),
                parallelism: fd.parallelism,
                resolution: res,
                ports,
                subboxes: Vec::new(),
            });
        }
    }

    /// Connect IN ports to their driver's buffer (E111 for a connection
    /// end that names no such port).
    fn connect_inputs(&mut self, d: &Declaration) {
        for c in &d.connections {
            let (Some(po), Some(co)) = (&c.from.owner, &c.to.owner) else {
                continue;
            };
            let Some(&b) = self.out_buffer.get(&(po.as_str(), c.from.port.as_str())) else {
                self.errors.push(
                    Diagnostic::error("E111", format!("`{}` is not an output port", c.from))
                        .label(c.from.span, "unknown output"),
                );
                continue;
            };
            let Some(&cf) = self.by_name.get(co.as_str()) else {
                self.errors.push(
                    Diagnostic::error("E111", format!("`{}` names no function instance", c.to))
                        .label(c.to.span, "unknown function"),
                );
                continue;
            };
            let Some(pi) = self.functions[cf.0]
                .ports
                .iter()
                .position(|p| p.name == c.to.port.name && p.direction == Direction::In)
            else {
                self.errors.push(
                    Diagnostic::error("E111", format!("`{}` is not an input port", c.to))
                        .label(c.to.span, "unknown input"),
                );
                continue;
            };
            self.functions[cf.0].ports[pi].buffer = b;
        }
    }

    /// Every buffer's readers, from the IN ports connected to it (E112 for
    /// an IN port without a driver).
    fn attach_readers(&mut self) {
        for (fi, f) in self.functions.iter().enumerate() {
            for (pi, p) in f.ports.iter().enumerate() {
                if p.direction == Direction::In {
                    if p.buffer.0 == usize::MAX {
                        self.errors.push(Diagnostic::error(
                            "E112",
                            format!("input port `{}.{}` has no driver", f.name, p.name),
                        ));
                    } else {
                        self.buffers[p.buffer.0].readers.push((FunctionId(fi), pi));
                    }
                }
            }
        }
    }

    /// One actor per sub-box, with its accesses and time (E113 for a
    /// sub-box of no function instance).
    fn add_actors(&mut self, i: &'a Instantiation, timing: &Timing, weighted: bool) {
        for sb in &i.subboxes {
            let Some(&fid) = self.by_name.get(sb.id.function.as_str()) else {
                self.errors.push(
                    Diagnostic::error(
                        "E113",
                        format!("sub-box `{}` names no function instance", sb.id),
                    )
                    .label(sb.id.span, "unknown function"),
                );
                continue;
            };
            let fd = self.decl_of[fid.0];
            let info = &self.functions[fid.0];
            let region = sb.region.value;
            let accesses = info
                .ports
                .iter()
                .enumerate()
                .map(|(pi, p)| Access {
                    buffer: p.buffer,
                    port: pi,
                    write: p.direction == Direction::Out,
                    elements: port_elements(region, &fd.ports[pi], info.resolution),
                })
                .collect();
            let whole = Region::whole(info.resolution).area();
            let t = timing
                .cost(&Instance::new(&info.name, fd, info.resolution))
                .0;
            let time = if weighted && whole > 0 {
                t * region.area() as f64 / whole as f64
            } else {
                t
            };
            let a = self.graph.add_node(Actor {
                subbox: SubBoxRef::new(&info.name, sb.id.index),
                function: fid,
                region,
                time,
                accesses,
            });
            self.actor_of
                .insert((sb.id.function.as_str(), sb.id.index), a);
        }
    }

    /// Every function's actors, by sub-box index.
    fn list_subboxes(&mut self) {
        let graph = &self.graph;
        for (fi, f) in self.functions.iter_mut().enumerate() {
            let mut v: Vec<(u64, ActorId)> = graph
                .node_indices()
                .filter(|&a| graph[a].function == FunctionId(fi))
                .map(|a| (graph[a].subbox.index, a))
                .collect();
            v.sort();
            f.subboxes = v.into_iter().map(|(_, a)| a).collect();
        }
    }

    /// Per dependency, its edges and their write-after-read partners
    /// (E113 for an unknown sub-box, E114 for functions that share no
    /// buffer).
    fn add_edges(&mut self, i: &Instantiation) {
        for dep in &i.dependencies {
            let (Some(&p), Some(&c)) = (
                self.actor_of
                    .get(&(dep.from.function.as_str(), dep.from.index)),
                self.actor_of.get(&(dep.to.function.as_str(), dep.to.index)),
            ) else {
                self.errors.push(
                    Diagnostic::error(
                        "E113",
                        format!(
                            "dependency `{} => {}` names an unknown sub-box",
                            dep.from, dep.to
                        ),
                    )
                    .label(dep.span, "here"),
                );
                continue;
            };
            let bufs = self.dependency_buffers(p, c);
            if bufs.is_empty() {
                self.errors.push(
                    Diagnostic::error(
                        "E114",
                        format!(
                            "dependency `{} => {}` joins functions that share no buffer",
                            dep.from, dep.to
                        ),
                    )
                    .label(dep.span, "no connection from producer to consumer")
                    .hint("remove it, or connect the two functions in the declaration"),
                );
                continue;
            }
            for b in bufs {
                self.graph.add_edge(
                    p,
                    c,
                    Edge {
                        kind: EdgeKind::Dependency,
                        tokens: 0,
                        buffer: b,
                    },
                );
                self.graph.add_edge(
                    c,
                    p,
                    Edge {
                        kind: EdgeKind::WriteAfterRead,
                        tokens: 1,
                        buffer: b,
                    },
                );
            }
        }
    }

    /// The buffers from `p` to `c` through which `c` reads what `p` writes;
    /// every buffer from P to C when none does; sorted, without repeats.
    fn dependency_buffers(&self, p: ActorId, c: ActorId) -> Vec<BufferId> {
        let (pa, ca) = (&self.graph[p], &self.graph[c]);
        let shared: Vec<(BufferId, bool)> = ca
            .accesses
            .iter()
            .filter(|r| !r.write && self.buffers[r.buffer.0].producer.0 == pa.function)
            .map(|r| {
                let w = pa
                    .accesses
                    .iter()
                    .find(|w| w.write && w.buffer == r.buffer)
                    .map(|w| w.elements.intersects(&r.elements))
                    .unwrap_or(false);
                (r.buffer, w)
            })
            .collect();
        let mut bufs: Vec<BufferId> = shared.iter().filter(|s| s.1).map(|s| s.0).collect();
        if bufs.is_empty() {
            bufs = shared.iter().map(|s| s.0).collect();
        }
        bufs.sort();
        bufs.dedup();
        bufs
    }
}
