//! Builds the HSDFG (`crate::ir::hsdfg`, docs/language.md) of a checked
//! declaration and instantiation.
//!
//! Takes the declaration, the instantiation and the `timing` table; gives
//! the [`Hsdfg`]: one actor per sub-box in the instantiation's order, one
//! 0-token edge per dependency paired with its 1-token write-after-read
//! partner (through a delay, 1 and 0, or 1 and 1 into a double-buffered
//! state), the function instances with their ports and the buffers with
//! their readers and copies. Guarantees those of `crate::ir::hsdfg`.

use super::deps::port_elements;
use super::timing::{Instance, Timing};
use crate::diagnostics::Diagnostic;
use crate::ir::hsdfg::*;
use crate::ir::kernel::{builtin_kernel, type_definition, Kernel};
use crate::ir::{Declaration, FunctionDecl, Instantiation};
use crate::ir::{Direction, Pair, Region, SubBoxRef};
use petgraph::graph::DiGraph;
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
    dir: Option<&std::path::Path>,
) -> Result<Hsdfg, Vec<Diagnostic>> {
    let kernels = kernels(d, dir)?;
    let mut b = Builder::default();
    b.declare_functions(d);
    b.connect_inputs(d);
    b.double_states(d);
    b.attach_readers();
    if !b.errors.is_empty() {
        return Err(b.errors);
    }
    b.add_actors(d, i, timing, weighted);
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
        kernels,
    })
}

/// The typed kernel of every defined function the declaration declares,
/// and of every built-in it declares that computes (`builtin_kernel`: all
/// but the sources and sinks); the checker reported any misuse, here it is
/// an error all the same.
fn kernels(
    d: &Declaration,
    dir: Option<&std::path::Path>,
) -> Result<BTreeMap<String, Kernel>, Vec<Diagnostic>> {
    let mut out = BTreeMap::new();
    let mut errors = Vec::new();
    let defined = d.definitions.iter().filter_map(|def| {
        let fd = d.function_decl(def.name.as_str())?;
        Some(type_definition(def, &fd.ports, dir))
    });
    let built_in = d
        .function_decls
        .iter()
        .filter(|fd| d.definition(fd.name.as_str()).is_none())
        .filter_map(|fd| builtin_kernel(fd.name.as_str(), &fd.ports));
    for typed in defined.chain(built_in) {
        match typed {
            Ok(k) => {
                out.insert(k.name.clone(), k);
            }
            Err(es) => errors.extend(es.into_iter().map(|e| {
                let d = Diagnostic::error(e.code, e.message).label(e.span, e.label);
                match e.hint {
                    Some(h) => d.hint(h),
                    None => d,
                }
            })),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
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
                        initial: None,
                        copies: 1,
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
                    delayed: false,
                });
            }
            self.functions.push(FunctionInfo {
                name: f.name.name.clone(),
                function: f.function.name.clone(),
                parallelism: fd.parallelism,
                rows: fd.rows,
                resolution: res,
                id: f.id.0.unwrap_or(id.0 as u32),
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
            if let Some(v) = &c.delay {
                self.functions[cf.0].ports[pi].delayed = true;
                let buf = &mut self.buffers[b.0];
                match buf.initial {
                    Some(w) if w != v.value => self.errors.push(
                        Diagnostic::error(
                            "E136",
                            format!(
                                "the delayed readers of `{}` start from different values ({w} and {})",
                                buf.name, v.value
                            ),
                        )
                        .label(c.span, "this delay")
                        .hint("one buffer keeps the previous value: give every delay of this output the same initial value"),
                    ),
                    _ => buf.initial = Some(v.value),
                }
            }
        }
    }

    /// Two copies of each state buffer that one cannot hold
    /// ([`super::delay::double_buffered`]).
    fn double_states(&mut self, d: &Declaration) {
        let two = super::delay::double_buffered(d);
        for buf in &mut self.buffers {
            if buf.initial.is_some() && two.contains(&buf.name) {
                buf.copies = 2;
                buf.bytes = buf.bytes.saturating_mul(2);
            }
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
    fn add_actors(
        &mut self,
        d: &Declaration,
        i: &'a Instantiation,
        timing: &Timing,
        weighted: bool,
    ) {
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
            let (t, source) = timing.cost(
                &Instance::new(&info.name, fd, info.resolution)
                    .defined_by(d.definition(fd.name.as_str()), &fd.ports),
            );
            let time = if weighted && whole > 0 {
                t * region.area() as f64 / whole as f64
            } else {
                t
            } + timing.subbox_overhead(source);
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
            let bufs = self.dependency_buffers(p, c, dep.delay);
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
                // Through a delay the reader takes the previous iteration's
                // value (1 token), and this iteration's writer waits for it;
                // or, double-buffered, the next iteration's writer.
                let (raw, war) = match (dep.delay, self.buffers[b.0].copies) {
                    (true, 2) => (1, 1),
                    (true, _) => (1, 0),
                    (false, _) => (0, 1),
                };
                self.graph.add_edge(
                    p,
                    c,
                    Edge {
                        kind: EdgeKind::Dependency,
                        tokens: raw,
                        buffer: b,
                    },
                );
                self.graph.add_edge(
                    c,
                    p,
                    Edge {
                        kind: EdgeKind::WriteAfterRead,
                        tokens: war,
                        buffer: b,
                    },
                );
            }
        }
    }

    /// The buffers from `p` to `c` through which `c` reads what `p` writes,
    /// through ports with a delay or without as `delay` says; every such
    /// buffer from P to C when none does; sorted, without repeats.
    fn dependency_buffers(&self, p: ActorId, c: ActorId, delay: bool) -> Vec<BufferId> {
        let (pa, ca) = (&self.graph[p], &self.graph[c]);
        let ports = &self.functions[ca.function.0].ports;
        let shared: Vec<(BufferId, bool)> = ca
            .accesses
            .iter()
            .filter(|r| !r.write && self.buffers[r.buffer.0].producer.0 == pa.function)
            .filter(|r| ports[r.port].delayed == delay)
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
