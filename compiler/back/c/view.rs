//! The view of a program that the template renders.

use crate::back::description::op_text;
use crate::diagnostics::Diagnostic;
use crate::ir::builtins::builtin_of;
use crate::ir::{Direction, ElemType, Op, Runtime};
use crate::lower::hsdfg::{BufferId, Hsdfg};
use crate::memory::ArenaId;
use askama::Template;
use std::collections::BTreeMap;

/// What the generated program is built with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct COptions {
    /// The program's name (the description's file stem).
    pub name: String,
    /// The description's path, for the header comment.
    pub source: String,
    /// The options line, for the header comment.
    pub options: String,
    /// `-ic`.
    pub iterations: u64,
    /// `-cm` with `-ca`: the cores, thread i on `cores[i % len]`; `None` = not pinned.
    pub cores: Option<Vec<usize>>,
    /// `-cm` without pinning: every thread may run on any core of the mask
    /// (`ssc_init_mask`); used when `cores` is `None`.
    pub core_mask: Option<Vec<usize>>,
    /// `-ht`.
    pub huge_pages: bool,
    /// `-vo`.
    pub verbose: bool,
    /// `-ta`, `-tt`.
    pub time_boxes: bool,
    pub time_threads: bool,
    /// `-td` as the runtime's enum name, `-dt`.
    pub dump_format: Option<&'static str>,
    pub dump_path: Option<String>,
    /// Functions implemented by `--kernels` files.
    pub user_kernels: Vec<String>,
    /// `-ks -ki N`: a barrier (name, every N iterations, threads) that the
    /// runtime section cannot express.
    pub periodic_barrier: Option<(String, u32, Vec<String>)>,
    /// Initial tokens of signals with more than one (`-kd N`).
    pub signal_tokens: BTreeMap<String, u32>,
    /// `-dm`: every buffer allocated per iteration at run time (the runtime
    /// section has no memory section and the pipeline added the coarse
    /// orderings of `memory::dynamic_edges`).
    pub dynamic_memory: Option<DynamicMemory>,
    /// `-t library`: the chain as a library (`NAME.h`, the API in `NAME.c`,
    /// `NAME.py`) instead of a program with `main`.
    pub library: bool,
}

/// `-dm dynamic` (malloc / free) or `-dm reduced` (a pool of blocks per
/// buffer size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DynamicMemory {
    Dynamic,
    Reduced,
}

/// The generated files: `(file name, contents)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub name: String,
    pub files: Vec<(String, String)>,
}

#[derive(Template)]
#[template(path = "program.c", escape = "none")]
struct ProgramView {
    name: String,
    version: &'static str,
    source: String,
    summary: String,
    options: String,
    user_kernels: Vec<String>,
    verbose: bool,
    shared_bytes: u64,
    locals: Vec<LocalView>,
    own_buffers: Vec<OwnBufferView>,
    band_tables: Vec<BandTableView>,
    dynbufs: Vec<DynBufView>,
    pools: Vec<PoolView>,
    signals: Vec<SignalView>,
    barriers: Vec<BarrierView>,
    functions: Vec<FunctionView>,
    ports: Vec<PortView>,
    boxes: Vec<BoxView>,
    /// Empty unless a list is longer than [`PART`] (see [`parts`]).
    signal_parts: Vec<Part<SignalView>>,
    port_parts: Vec<Part<PortView>>,
    box_parts: Vec<Part<BoxView>>,
    threads: Vec<ThreadView>,
    iterations: u64,
    option_lines: Vec<String>,
    cores: Option<String>,
    mask: Option<String>,
    n_mask: usize,
    /// `-t library`: the API instead of `main`. The external ports: the
    /// library's arguments, or a program's `--input`/`--output` files.
    library: bool,
    upper: String,
    externals: Vec<super::library::ExternalView>,
}

struct LocalView {
    name: String,
    thread: String,
    bytes: u64,
}

struct OwnBufferView {
    name: String,
    label: String,
    bytes: u64,
}

/// `-dm`: a buffer allocated per iteration, and the ports it fills in.
struct DynBufView {
    name: String,
    label: String,
    bytes: u64,
    users: usize,
    pool: String,
    ports: String,
    n_ports: usize,
}

/// `-dm reduced`: the pool of one block size.
struct PoolView {
    name: String,
    bytes: u64,
    blocks: usize,
}

#[derive(Clone)]
struct SignalView {
    name: String,
    tokens: u32,
    comment: String,
}

struct BarrierView {
    name: String,
    count: usize,
    threads: String,
}

struct FunctionView {
    name: String,
    n_in: usize,
    n_out: usize,
}

#[derive(Clone)]
struct PortView {
    name: String,
    data: String,
    ty: &'static str,
    width: u64,
    height: u64,
    mul_x: u64,
    mul_y: u64,
    win_x: u64,
    win_y: u64,
    /// Rows of each ring when the buffer is folded.
    fold: Option<u64>,
    /// Its band table and band count, when it has several rings.
    bands: Option<(String, usize)>,
    comment: String,
}

/// The bands of a buffer folded into one ring per band.
#[derive(Clone)]
struct BandTableView {
    name: String,
    label: String,
    bands: String,
    n: usize,
}

#[derive(Clone)]
struct BoxView {
    id: String,
    label: String,
    region: String,
    kernel: String,
    flags: &'static str,
    function_id: usize,
    x0: u64,
    y0: u64,
    x1: u64,
    y1: u64,
    width: u64,
    height: u64,
    inputs: String,
    n_in: usize,
    outputs: String,
    n_out: usize,
}

struct ThreadView {
    name: String,
    ops: Vec<OpView>,
    /// Empty unless the program is longer than [`PART`].
    parts: Vec<Part<OpView>>,
}

impl ThreadView {
    fn new(name: String, ops: Vec<OpView>) -> ThreadView {
        ThreadView {
            parts: parts(&ops, &name),
            name,
            ops,
        }
    }
}

/// Statements of one generated function split into parts of at most
/// [`PART`]: C compilers take time superlinear in a function's length
/// (gcc -O2 needed over 10 minutes for the 17 000-op threads and 20 000-box
/// initialisation of a 10 000-box chain), so long lists become `noinline`
/// functions the original one calls in order.
struct Part<T> {
    name: String,
    /// `first–last` (1-based) of the whole list.
    range: String,
    items: Vec<T>,
}

/// Statements per generated function part.
const PART: usize = 500;

/// `items` in parts named `base_part0`, … — none when they fit in one.
fn parts<T: Clone>(items: &[T], base: &str) -> Vec<Part<T>> {
    if items.len() <= PART {
        return Vec::new();
    }
    items
        .chunks(PART)
        .enumerate()
        .map(|(i, c)| Part {
            name: format!("{base}_part{i}"),
            range: format!("{}–{} of {}", i * PART + 1, i * PART + c.len(), items.len()),
            items: c.to_vec(),
        })
        .collect()
}

#[derive(Clone)]
struct OpView {
    code: String,
    comment: String,
}

/// The runtime's `ssc_type` constant of an element type.
pub(crate) fn c_type(t: ElemType) -> &'static str {
    match t {
        ElemType::Char => "SSC_CHAR",
        ElemType::Uchar => "SSC_UCHAR",
        ElemType::Short => "SSC_SHORT",
        ElemType::Ushort => "SSC_USHORT",
        ElemType::Int => "SSC_INT",
        ElemType::Uint => "SSC_UINT",
        ElemType::Float => "SSC_FLOAT",
        ElemType::Double => "SSC_DOUBLE",
    }
}

/// The first C function of `h` that is neither a built-in nor among
/// `user_kernels`, with its E301 (no position: the caller, who has the
/// description, labels where the function is bound).
pub fn unimplemented<'h>(h: &'h Hsdfg, user_kernels: &[String]) -> Option<(&'h str, Diagnostic)> {
    let f = h
        .functions
        .iter()
        .find(|f| builtin_of(&f.function).is_none() && !user_kernels.contains(&f.function))?;
    let d = Diagnostic::error(
        "E301",
        format!("function `{}` (used by `{}`) has no implementation", f.function, f.name),
    )
    .hint(format!(
        "it is not a built-in (docs/language.md, \"Built-in functions\"); write `void {}(const ssc_call *call)` in a C file and pass it with `--kernels FILE.c`",
        f.function
    ));
    Some((&f.function, d))
}

fn box_id(function: &str, k: u64) -> String {
    format!("BOX_{function}_{k}")
}

fn error(msg: String) -> Vec<Diagnostic> {
    vec![Diagnostic::error("E300", msg)]
}

/// Renders the program for an HSDFG and its runtime section.
pub fn emit(h: &Hsdfg, r: &Runtime, o: &COptions) -> Result<Program, Vec<Diagnostic>> {
    let finder = h.finder();
    if r.thread_executions.is_empty() {
        return Err(error(
            "the runtime section has no thread_execution programs to generate code from".into(),
        ));
    }
    if let Some((_, d)) = unimplemented(h, &o.user_kernels) {
        return Err(vec![d]);
    }
    if o.library && o.dynamic_memory.is_some() {
        return Err(error(
            "-t library does not support -dm (buffers allocated per iteration): place the buffers with -ms".into(),
        ));
    }

    // The thread that runs each sub-box, and each thread's name.
    let mut thread_of_actor = BTreeMap::new();
    for (ti, t) in r.thread_executions.iter().enumerate() {
        for op in &t.ops {
            if let Op::Exec(sb) = &op.value {
                let a = finder.find(sb).ok_or_else(|| {
                    error(format!("`E {sb}` names no sub-box of the instantiation"))
                })?;
                thread_of_actor.insert(a, ti);
            }
        }
    }

    // Memory: where each buffer lives, as the checker reads it
    // (`verify::placements_from_runtime`: one reading of the memory sections
    // for the proof and the program, rings included).
    let placements = if r.places_buffers() && o.dynamic_memory.is_none() {
        Some(crate::verify::placements_from_runtime(h, r).map_err(|ces| {
            error(
                ces.iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?)
    } else {
        None
    };
    let mut shared_bytes = 0u64;
    let mut local_bytes: BTreeMap<usize, u64> = BTreeMap::new();
    let mut own_buffers = Vec::new();
    let mut data_of_buffer: BTreeMap<BufferId, String> = BTreeMap::new();
    let rings = placements
        .as_ref()
        .map(|ps| crate::verify::rings(h, r, ps))
        .unwrap_or_default();
    // Folded buffers: their rings, and a band table when there are several.
    let mut fold_of_buffer: BTreeMap<BufferId, (u64, Option<(String, usize)>)> = BTreeMap::new();
    let mut band_tables = Vec::new();
    for (bi, ring) in rings.iter().enumerate() {
        let Some(ring) = ring else { continue };
        let table = (ring.bands.len() > 1).then(|| {
            let name = format!("bands_{}", h.buffers[bi].name.replace('.', "_"));
            band_tables.push(BandTableView {
                name: name.clone(),
                label: h.buffers[bi].name.clone(),
                bands: ring
                    .bands
                    .iter()
                    .map(|b| format!("{{ {}, {}, {} }}", b.lo, b.hi, u8::from(b.up)))
                    .collect::<Vec<_>>()
                    .join(", "),
                n: ring.bands.len(),
            });
            (name, ring.bands.len())
        });
        fold_of_buffer.insert(BufferId(bi), (ring.rows, table));
    }
    for (bi, buf) in h.buffers.iter().enumerate() {
        let id = BufferId(bi);
        if o.dynamic_memory.is_some() {
            // Set by the allocating writer each iteration (ssc_dyn_write).
            data_of_buffer.insert(id, "NULL".into());
            continue;
        }
        let Some(p) = placements.as_ref().map(|ps| ps[bi]) else {
            let name = format!("buffer_{}", buf.name.replace('.', "_"));
            data_of_buffer.insert(id, name.clone());
            own_buffers.push(OwnBufferView {
                name,
                label: buf.name.clone(),
                bytes: buf.bytes,
            });
            continue;
        };
        let (start, end) = (p.offset, p.offset + p.bytes);
        match p.arena {
            ArenaId::Shared => {
                shared_bytes = shared_bytes.max(end);
                data_of_buffer.insert(id, format!("shared_arena.base + {start}"));
            }
            ArenaId::Local(thread) => {
                let e = local_bytes.entry(thread).or_insert(0);
                *e = (*e).max(end);
                data_of_buffer.insert(id, format!("local_arena_{thread}.base + {start}"));
            }
        }
    }
    // A user kernel may address rows without `ssc_port.fold`: never give
    // it a ring (runtime-c/README.md, "Storage folding").
    if let Some(f) = h.functions.iter().find(|f| {
        o.user_kernels.contains(&f.function)
            && f.ports
                .iter()
                .any(|p| fold_of_buffer.contains_key(&p.buffer))
    }) {
        return Err(error(format!(
            "`{}` runs the user kernel `{}` on a buffer folded into a ring of rows, which user kernels do not support: build with another memory schedule (`-ms interference`) or give the buffer a whole frame",
            f.name, f.function
        )));
    }
    let locals = local_bytes
        .iter()
        .map(|(&t, &bytes)| LocalView {
            name: format!("local_arena_{t}"),
            thread: r.thread_executions[t].thread.name.clone(),
            bytes,
        })
        .collect();

    // Ports and sub-boxes.
    let mut functions = Vec::new();
    let mut ports = Vec::new();
    let mut ports_of_buffer: BTreeMap<BufferId, Vec<String>> = BTreeMap::new();
    for f in &h.functions {
        let (mut n_in, mut n_out) = (0, 0);
        for p in &f.ports {
            let (array, index) = match p.direction {
                Direction::In => {
                    n_in += 1;
                    ("in", n_in - 1)
                }
                Direction::Out => {
                    n_out += 1;
                    ("out", n_out - 1)
                }
            };
            ports_of_buffer
                .entry(p.buffer)
                .or_default()
                .push(format!("&{array}_{}[{index}]", f.name));
            ports.push(PortView {
                name: format!("{array}_{}[{index}]", f.name),
                data: data_of_buffer[&p.buffer].clone(),
                ty: c_type(p.ty),
                width: p.grid.x,
                height: p.grid.y,
                mul_x: p.mul.x,
                mul_y: p.mul.y,
                win_x: p.window.x,
                win_y: p.window.y,
                fold: fold_of_buffer.get(&p.buffer).map(|(rows, _)| *rows),
                bands: fold_of_buffer.get(&p.buffer).and_then(|(_, t)| t.clone()),
                comment: match fold_of_buffer.get(&p.buffer) {
                    Some((rows, t)) => format!(
                        "{}.{}: buffer {}, {} of {rows} rows",
                        f.name,
                        p.name,
                        h.buffer(p.buffer).name,
                        match t {
                            Some((_, n)) => format!("{n} rings"),
                            None => "a ring".into(),
                        }
                    ),
                    None => format!("{}.{}: buffer {}", f.name, p.name, h.buffer(p.buffer).name),
                },
            });
        }
        functions.push(FunctionView {
            name: f.name.clone(),
            n_in,
            n_out,
        });
    }
    let mut boxes = Vec::new();
    for a in h.actors() {
        let actor = h.actor(a);
        let f = h.function(actor.function);
        let view = &functions[actor.function.0];
        let flags = match (view.n_in, view.n_out) {
            (0, _) => "SSC_BOX_SOURCE",
            (_, 0) => "SSC_BOX_SINK",
            _ => "0",
        };
        boxes.push(BoxView {
            id: box_id(&f.name, actor.subbox.index),
            label: actor.subbox.to_string(),
            region: actor.region.to_string(),
            // A user kernel of this name wins; else the built-in it is a variant of.
            kernel: if o.user_kernels.contains(&f.function) {
                f.function.clone()
            } else {
                builtin_of(&f.function).unwrap_or(&f.function).to_string()
            },
            flags,
            function_id: actor.function.0,
            x0: actor.region.x0,
            y0: actor.region.y0,
            x1: actor.region.x1,
            y1: actor.region.y1,
            width: f.resolution.x,
            height: f.resolution.y,
            inputs: if view.n_in > 0 {
                format!("in_{}", f.name)
            } else {
                "NULL".into()
            },
            n_in: view.n_in,
            outputs: if view.n_out > 0 {
                format!("out_{}", f.name)
            } else {
                "NULL".into()
            },
            n_out: view.n_out,
        });
    }

    // Signals: who posts after what, who waits before what (for -vo).
    let mut posted_after: BTreeMap<&str, String> = BTreeMap::new();
    let mut waited_before: BTreeMap<&str, String> = BTreeMap::new();
    for t in &r.thread_executions {
        let mut last_exec: Option<String> = None;
        let mut pending_waits: Vec<&str> = Vec::new();
        for op in &t.ops {
            match &op.value {
                Op::Exec(sb) => {
                    for w in pending_waits.drain(..) {
                        waited_before.insert(w, format!("{sb} on {}", t.thread));
                    }
                    last_exec = Some(format!("{sb} on {}", t.thread));
                }
                Op::Signal(s) => {
                    let after = last_exec
                        .clone()
                        .unwrap_or_else(|| format!("the start of {}", t.thread));
                    posted_after.insert(s.name.as_str(), after);
                }
                Op::Wait(s) => pending_waits.push(s.name.as_str()),
                Op::Barrier(_) => {}
            }
        }
    }
    let signals: Vec<SignalView> = r
        .signals
        .iter()
        .map(|s| SignalView {
            name: format!("sig_{}", s.name),
            tokens: o
                .signal_tokens
                .get(&s.name.name)
                .copied()
                .unwrap_or(u32::from(s.initial_token)),
            comment: format!(
                "{}{}: {} -> {}",
                if s.initial_token { "!" } else { "" },
                s.name,
                posted_after
                    .get(s.name.name.as_str())
                    .map(String::as_str)
                    .unwrap_or("?"),
                waited_before
                    .get(s.name.name.as_str())
                    .map(String::as_str)
                    .unwrap_or("the end of the iteration"),
            ),
        })
        .collect();
    let mut barriers: Vec<BarrierView> = r
        .barriers
        .iter()
        .map(|b| BarrierView {
            name: format!("bar_{}", b.name),
            count: b.threads.len(),
            threads: b
                .threads
                .iter()
                .map(|t| t.name.clone())
                .collect::<Vec<_>>()
                .join(", "),
        })
        .collect();
    // `-ks -ki N`: the runtime section cannot say "every N iterations", so
    // this barrier is not among its barriers; it is declared here.
    if let Some((name, every, threads)) = &o.periodic_barrier {
        barriers.push(BarrierView {
            name: format!("bar_{name}"),
            count: threads.len(),
            threads: format!("{}; -ks -ki {every}", threads.join(", ")),
        });
    }

    // -dm: one ssc_dynbuf per buffer; what each sub-box allocates and ends.
    let mut dynbufs = Vec::new();
    let mut pools: Vec<PoolView> = Vec::new();
    let mut writes_of: BTreeMap<crate::lower::hsdfg::ActorId, Vec<String>> = BTreeMap::new();
    let mut uses_of: BTreeMap<crate::lower::hsdfg::ActorId, Vec<String>> = BTreeMap::new();
    if let Some(mode) = o.dynamic_memory {
        for (bi, buf) in h.buffers.iter().enumerate() {
            let id = BufferId(bi);
            let name = format!("dyn_{}", buf.name.replace('.', "_"));
            let (writers, readers) = crate::memory::buffer_users(h, id);
            for &w in &writers {
                writes_of.entry(w).or_default().push(name.clone());
            }
            for &a in writers.iter().chain(&readers) {
                uses_of.entry(a).or_default().push(name.clone());
            }
            let pool = match mode {
                DynamicMemory::Dynamic => "NULL".to_string(),
                DynamicMemory::Reduced => {
                    let pname = format!("pool_{}", buf.bytes);
                    match pools.iter_mut().find(|p| p.bytes == buf.bytes) {
                        Some(p) => p.blocks += 1,
                        None => pools.push(PoolView {
                            name: pname.clone(),
                            bytes: buf.bytes,
                            blocks: 1,
                        }),
                    }
                    pname
                }
            };
            let list = ports_of_buffer.get(&id).cloned().unwrap_or_default();
            dynbufs.push(DynBufView {
                name,
                label: buf.name.clone(),
                bytes: buf.bytes,
                users: writers.len() + readers.len(),
                pool,
                n_ports: list.len(),
                ports: list.join(", "),
            });
        }
    }
    let dyn_op = |code: String, comment: String| OpView { code, comment };

    let threads: Vec<ThreadView> = r
        .thread_executions
        .iter()
        .map(|t| {
            ThreadView::new(
                format!("thread_{}", t.thread),
                t.ops
                    .iter()
                    .flat_map(|op| {
                        let code = match &op.value {
                            Op::Wait(s) => format!("ssc_W(t, &sig_{s});"),
                            Op::Signal(s) => format!("ssc_S(t, &sig_{s});"),
                            Op::Exec(sb) => {
                                format!(
                                    "ssc_E(t, &boxes[{}]);",
                                    box_id(&sb.function.name, sb.index)
                                )
                            }
                            Op::Barrier(b) => format!("ssc_B(t, &bar_{b});"),
                        };
                        let comment = match &op.value {
                            Op::Exec(sb) => {
                                let a = finder.find(sb).expect("checked above");
                                let f = h.function_of(a);
                                format!(
                                    "{}: {} over {} of {}",
                                    op_text(&op.value),
                                    f.function,
                                    h.actor(a).region,
                                    f.name
                                )
                            }
                            Op::Wait(s) => format!(
                                "W {s}: after {}",
                                posted_after
                                    .get(s.name.as_str())
                                    .map(String::as_str)
                                    .unwrap_or("?")
                            ),
                            Op::Signal(s) => format!(
                                "S {s}: before {}",
                                waited_before
                                    .get(s.name.as_str())
                                    .map(String::as_str)
                                    .unwrap_or("?")
                            ),
                            Op::Barrier(b) => format!("B {b}"),
                        };
                        let actor = match &op.value {
                            Op::Exec(sb) => finder.find(sb),
                            _ => None,
                        };
                        let mut v = Vec::new();
                        if let Some(a) = actor {
                            for d in writes_of.get(&a).into_iter().flatten() {
                                v.push(dyn_op(
                                    format!("ssc_dyn_write(&{d});"),
                                    format!("-dm: {d} allocated by the first writer"),
                                ));
                            }
                        }
                        v.push(OpView { code, comment });
                        if let Some(a) = actor {
                            for d in uses_of.get(&a).into_iter().flatten() {
                                v.push(dyn_op(
                                    format!("ssc_dyn_done(&{d});"),
                                    format!("-dm: {d} freed after its last use"),
                                ));
                            }
                        }
                        v
                    })
                    .chain(periodic_op(o, &t.thread.name))
                    .collect(),
            )
        })
        .collect();

    let mut option_lines = Vec::new();
    if o.time_boxes {
        option_lines.push("opt.time_boxes = 1;  /* -ta */".to_string());
    }
    if o.time_threads {
        option_lines.push("opt.time_threads = 1;  /* -tt */".to_string());
    }
    if o.huge_pages {
        option_lines.push("opt.huge_pages = 1;  /* -ht */".to_string());
    }
    if let Some(f) = o.dump_format {
        option_lines.push(format!("opt.dump_format = {f};  /* -td */"));
    }
    if let Some(p) = &o.dump_path {
        option_lines.push(format!("opt.dump_path = \"{}\";  /* -dt */", c_string(p)));
    }
    let n_threads = r.thread_executions.len();
    let cores = o.cores.as_ref().filter(|c| !c.is_empty()).map(|c| {
        (0..n_threads)
            .map(|i| c[i % c.len()].to_string())
            .collect::<Vec<_>>()
            .join(", ")
    });
    let mask_list = o
        .core_mask
        .as_ref()
        .filter(|m| cores.is_none() && !m.is_empty());
    let mask = mask_list.map(|m| {
        m.iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    });
    let n_mask = mask_list.map_or(0, Vec::len);
    let summary = format!(
        "{} function instances, {} sub-boxes, {} threads, {} signals, {} bytes of buffers.",
        h.functions.len(),
        h.graph.node_count(),
        n_threads,
        r.signals.len(),
        h.buffers.iter().map(|b| b.bytes).sum::<u64>()
    );
    let view = ProgramView {
        signal_parts: parts(&signals, "init_signals"),
        port_parts: parts(&ports, "init_ports"),
        box_parts: parts(&boxes, "init_boxes"),
        name: o.name.clone(),
        version: env!("CARGO_PKG_VERSION"),
        source: comment(&o.source),
        summary,
        options: comment(&o.options),
        user_kernels: o.user_kernels.clone(),
        verbose: o.verbose,
        shared_bytes,
        locals,
        own_buffers,
        band_tables,
        dynbufs,
        pools,
        signals,
        barriers,
        functions,
        ports,
        boxes,
        threads,
        iterations: o.iterations,
        option_lines,
        cores,
        mask,
        n_mask,
        library: o.library,
        upper: o.name.to_ascii_uppercase(),
        externals: super::library::externals(h, &o.user_kernels),
    };
    let main = view
        .render()
        .map_err(|e| error(format!("template error: {e}")))?;
    let mut files = vec![(format!("{}.c", o.name), main)];
    if o.library {
        files.extend(
            super::library::files(&o.name, &view.source, n_threads, &view.externals)
                .map_err(|e| error(format!("template error: {e}")))?,
        );
    }
    for (name, text) in super::RUNTIME_FILES {
        files.push((name.to_string(), text.to_string()));
    }
    Ok(Program {
        name: o.name.clone(),
        files,
    })
}

/// The meeting of the periodic barrier (`-ks -ki N`) at the end of a
/// participant's iteration.
fn periodic_op(o: &COptions, thread: &str) -> Option<OpView> {
    let (name, every, threads) = o.periodic_barrier.as_ref()?;
    threads.iter().any(|t| t == thread).then(|| OpView {
        code: format!("if ((t->iter + 1) % {every} == 0) ssc_B(t, &bar_{name});"),
        comment: format!("-ks -ki {every}: keep the threads synced"),
    })
}

/// Free text (a path, the command line) made safe inside a `/* */`
/// comment on one line.
fn comment(s: &str) -> String {
    s.replace("*/", "* /")
        .replace("??", "? ?")
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A string as a C string literal's contents.
fn c_string(s: &str) -> String {
    s.chars()
        .flat_map(|c| match c {
            '"' => "\\\"".chars().collect::<Vec<_>>(),
            '\\' => "\\\\".chars().collect(),
            // `??/` and friends are trigraphs under -std=c11.
            '?' => "\\?".chars().collect(),
            // Octal, not `\x`: a hex escape would swallow following hex digits.
            c if c.is_ascii_control() => format!("\\{:03o}", c as u32).chars().collect(),
            c => vec![c],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{c_string, comment};

    #[test]
    fn c_strings_escape_quotes_backslashes_trigraphs_and_controls() {
        assert_eq!(c_string(r#"a"b\c"#), r#"a\"b\\c"#);
        assert_eq!(c_string("t??/x"), r"t\?\?/x");
        // Octal escapes have at most three digits: `\012` then `a`, where
        // `\x0a` would have read `\x0aa`.
        assert_eq!(c_string("x\nab"), r"x\012ab");
    }

    #[test]
    fn comments_cannot_be_closed_by_free_text() {
        assert_eq!(
            comment("build a*/b.ssc\n-o x??/"),
            "build a* /b.ssc -o x? ?/"
        );
    }
}
