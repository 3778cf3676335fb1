//! The view of a program that the template `runtime-c/templates/program.c`
//! renders, and [`emit`], which checks the inputs, takes the
//! [`Layout`](crate::back::layout::Layout) of the program, the thread code
//! ([`super::threads`]) and the views of the declarations below, and renders.
//!
//! Takes the HSDFG, its runtime section and [`COptions`]; gives the files
//! of the program directory ([`Program`]). Writes no C statement itself:
//! every line of C is in the templates; the views hold names, numbers,
//! address expressions of the layout and comments.

use super::options::{COptions, DynamicMemory};
use super::parts::{parts, Part};
use super::runtime::KernelTypes;
use super::threads::{thread_views, Code, DynUses, SignalFlow, ThreadView};
use crate::back::layout::{c_string, comment, Layout, Memory, PortMake, Storage};
use crate::diagnostics::Diagnostic;
use crate::ir::builtins::builtin_of;
use crate::ir::hsdfg::{BufferId, Hsdfg};
use crate::ir::Runtime;
use askama::Template;
use std::collections::BTreeMap;

/// The generated files: `(file name, contents)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub name: String,
    pub files: Vec<(String, String)>,
    /// The element types its built-ins use: what `ssc build` compiles the
    /// kernel families for.
    pub kernel_types: KernelTypes,
}

#[derive(Template)]
#[template(path = "program.c", escape = "none")]
struct ProgramView {
    name: String,
    /// The name as a C string literal's contents.
    name_literal: String,
    version: &'static str,
    source: String,
    summary: String,
    options: String,
    user_kernels: Vec<String>,
    verbose: bool,
    shared_bytes: u64,
    locals: Vec<LocalView>,
    own_buffers: Vec<OwnBufferView>,
    states: Vec<StateView>,
    guards: Vec<GuardView>,
    band_tables: Vec<BandTableView>,
    dynbufs: Vec<DynBufView>,
    pools: Vec<PoolView>,
    signals: Vec<SignalView>,
    barriers: Vec<BarrierView>,
    functions: Vec<FunctionView>,
    ports: Vec<PortView>,
    boxes: Vec<BoxView>,
    /// The static schedule's planned start of each box, ns ([`super::plan`]).
    plans: String,
    /// `--sched-deadline`: each thread's busy ns and waits in an iteration.
    busy: String,
    waits: String,
    /// Empty unless a list is longer than [`PART`] (see [`parts`]).
    signal_parts: Vec<Part<SignalView>>,
    port_parts: Vec<Part<PortView>>,
    box_parts: Vec<Part<BoxView>>,
    /// Some list came in parts: the program defines `SSC_PART`.
    has_parts: bool,
    threads: Vec<ThreadView>,
    iterations: u64,
    /// `-ta`, `-tt`, `-ht`, `-td`, `-dt` (the path as a C string literal's
    /// contents): the options `main` sets before the command line.
    time_boxes: bool,
    time_threads: bool,
    huge_pages: bool,
    dump_format: Option<&'static str>,
    dump_path: Option<String>,
    cores: Option<String>,
    mask: Option<String>,
    n_mask: usize,
    /// `-t library`: the API instead of `main`. The external ports: the
    /// library's arguments, or a program's `--input`/`--output` files.
    library: bool,
    upper: String,
    externals: Vec<super::library::ExternalView>,
    /// The defined functions' loops (`templates/kernels.c`).
    defs: super::kernels::KernelsView,
}

struct LocalView {
    name: String,
    thread: String,
    bytes: u64,
}

/// A state buffer (read through a delay) and its value before the first
/// iteration.
struct StateView {
    label: String,
    data: String,
    ctype: &'static str,
    elements: u64,
    value: String,
}

struct OwnBufferView {
    name: String,
    label: String,
    bytes: u64,
}

/// `--check-kernels`: a folded buffer's rings behind a guard of its grid.
struct GuardView {
    name: String,
    /// Its name as a C string literal's contents.
    label: String,
    row_bytes: u64,
    height: u64,
    /// Rows of all its rings.
    rows: u64,
}

/// `-dm`: a buffer allocated per iteration, and the ports it fills in.
struct DynBufView {
    name: String,
    label: String,
    bytes: u64,
    users: usize,
    pool: String,
    /// The port variables (`in_F[0]`).
    ports: Vec<String>,
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
    /// The runtime section's name (what a stuck program's report names).
    label: String,
    tokens: u32,
    comment: String,
}

struct BarrierView {
    name: String,
    label: String,
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
    /// What `ssc_port_make` takes (shared with the timing harness).
    make: PortMake,
    /// Rows of each ring when the buffer is folded.
    fold: Option<u64>,
    /// Its band table and band count, when it has several rings.
    bands: Option<(String, usize)>,
    /// `--check-kernels`: the guard its rings live behind.
    guard: Option<String>,
    /// The function id of the source whose external frame the port's rows
    /// are, read in place ([`frames_read_in_place`]).
    frame_of: Option<u32>,
    /// A double-buffered state: the elements between its copies.
    alt: Option<u64>,
    /// Its phase is 1: a delayed reader of a double-buffered state.
    phase: bool,
    comment: String,
}

/// The bands of a buffer folded into one ring per band.
struct BandTableView {
    name: String,
    label: String,
    bands: Vec<BandView>,
}

/// Rows `lo..hi` of a buffer, counted from `hi − 1` when `up` is 1.
struct BandView {
    lo: u64,
    hi: u64,
    up: u8,
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

/// The first C function of `h` that is neither a built-in nor among
/// `user_kernels`, with its E301 (no position: the caller, who has the
/// description, labels where the function is bound).
pub fn unimplemented<'h>(h: &'h Hsdfg, user_kernels: &[String]) -> Option<(&'h str, Diagnostic)> {
    let f = h.functions.iter().find(|f| {
        builtin_of(&f.function).is_none()
            && !user_kernels.contains(&f.function)
            && !h.kernels.contains_key(&f.function)
    })?;
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

fn error(msg: String) -> Vec<Diagnostic> {
    vec![Diagnostic::error("E300", msg)]
}

/// Renders the program for an HSDFG and its runtime section.
pub fn emit(h: &Hsdfg, r: &Runtime, o: &COptions) -> Result<Program, Vec<Diagnostic>> {
    check(h, r, o)?;
    // Memory: where each buffer lives, as the checker reads it
    // (`memory::sections`: one reading of the memory sections for the
    // proof and the program, rings included).
    let memory = match o.dynamic_memory {
        Some(_) => Memory::Dynamic,
        None => Memory::Runtime(r),
    };
    let layout = Layout::new(h, memory, &o.user_kernels).map_err(|es| {
        error(
            es.iter()
                .map(|m| format!("malformed runtime: {m}"))
                .collect::<Vec<_>>()
                .join("; "),
        )
    })?;
    check_user_kernels(h, &layout, o)?;
    let view = program_view(h, r, o, &layout);
    let main = view
        .render()
        .map_err(|e| error(format!("template error: {e}")))?;
    let mut files = vec![(format!("{}.c", o.name), main)];
    if o.library {
        files.extend(
            super::library::files(&o.name, &view.source, view.threads.len(), &view.externals)
                .map_err(|e| error(format!("template error: {e}")))?,
        );
    }
    for f in super::RUNTIME_FILES.iter().filter(|f| f.belongs(o.library)) {
        files.push((f.name.to_string(), f.text.to_string()));
    }
    Ok(Program {
        name: o.name.clone(),
        files,
        kernel_types: KernelTypes::of(h),
    })
}

/// What the program cannot be generated from: no programs, a function
/// without an implementation, `-t library` with `-dm`, an `E` of no
/// sub-box.
fn check(h: &Hsdfg, r: &Runtime, o: &COptions) -> Result<(), Vec<Diagnostic>> {
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
    let finder = h.finder();
    for t in &r.thread_executions {
        for op in &t.ops {
            if let crate::ir::Op::Exec(sb) = &op.value {
                if finder.find(sb).is_none() {
                    return Err(error(format!(
                        "`E {sb}` names no sub-box of the instantiation"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// A user kernel that does not say `ROWS` may address rows without
/// `ssc_port.fold`: never give it a ring (runtime-c/README.md, "Storage
/// folding").
fn check_user_kernels(h: &Hsdfg, layout: &Layout, o: &COptions) -> Result<(), Vec<Diagnostic>> {
    match h.functions.iter().find(|f| {
        o.user_kernels.contains(&f.function)
            && !f.rows
            && f.ports
                .iter()
                .any(|p| layout.buffers[p.buffer.0].ring.is_some())
    }) {
        Some(f) => Err(error(format!(
            "`{}` runs the user kernel `{}` on a buffer folded into a ring of rows, which a user kernel supports only when it addresses rows through `SSC_ROW` and says `ROWS` in its bind or declaration: say so, build with another memory schedule (`-ms interference`), or give the buffer a whole frame",
            f.name, f.function
        ))),
        None => Ok(()),
    }
}

/// Everything the template renders.
fn program_view(h: &Hsdfg, r: &Runtime, o: &COptions, layout: &Layout) -> ProgramView {
    let flow = SignalFlow::new(r);
    let (ports, ports_of_buffer) = port_views(h, layout, o);
    let (dynbufs, pools, dyn_uses) = dynamic_views(h, layout, o.dynamic_memory, &ports_of_buffer);
    let signals = signal_views(r, o, &flow);
    let boxes = box_views(h, layout);
    let plans = super::plan::plan_ns(h, r, layout)
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let budgets = super::plan::thread_budgets(h, r);
    let join = |v: Vec<u64>| v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    let busy = join(budgets.iter().map(|b| b.0).collect());
    let waits = join(budgets.iter().map(|b| b.1).collect());
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
    let (signal_parts, port_parts, box_parts) = (
        parts(&signals, "init_signals"),
        parts(&ports, "init_ports"),
        parts(&boxes, "init_boxes"),
    );
    let threads = thread_views(h, r, o, &flow, &dyn_uses);
    let has_parts = !(signal_parts.is_empty() && port_parts.is_empty() && box_parts.is_empty())
        || threads.iter().any(|t| !t.parts.is_empty());
    ProgramView {
        signal_parts,
        port_parts,
        box_parts,
        has_parts,
        name: o.name.clone(),
        name_literal: c_string(&o.name),
        version: env!("CARGO_PKG_VERSION"),
        source: comment(&o.source),
        summary: format!(
            "{}, {}, {}, {}, {} bytes of buffers.",
            counted(h.functions.len(), "function instance"),
            counted(h.graph.node_count(), "sub-box"),
            counted(n_threads, "thread"),
            counted(r.signals.len(), "signal"),
            h.buffers.iter().map(|b| b.bytes).sum::<u64>()
        ),
        options: comment(&o.options),
        user_kernels: o.user_kernels.clone(),
        verbose: o.verbose,
        shared_bytes: layout.shared_bytes,
        locals: local_views(r, layout),
        own_buffers: own_buffer_views(layout),
        states: state_views(h, layout),
        guards: if o.check_kernels {
            guard_views(h, layout)
        } else {
            Vec::new()
        },
        band_tables: band_table_views(layout),
        dynbufs,
        pools,
        signals,
        barriers: barrier_views(r, o),
        functions: layout
            .functions
            .iter()
            .map(|f| FunctionView {
                name: f.name.clone(),
                n_in: f.n_in,
                n_out: f.n_out,
            })
            .collect(),
        ports,
        boxes,
        plans,
        busy,
        waits,
        threads,
        iterations: o.iterations,
        time_boxes: o.time_boxes,
        time_threads: o.time_threads,
        huge_pages: o.huge_pages,
        dump_format: o.dump_format,
        dump_path: o.dump_path.as_deref().map(c_string),
        cores,
        mask: mask_list.map(|m| {
            m.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        }),
        n_mask: mask_list.map_or(0, Vec::len),
        library: o.library,
        upper: o.name.to_ascii_uppercase(),
        externals: super::library::externals(h, &o.user_kernels),
        defs: super::kernels::view(h, o.float, &o.user_kernels),
    }
}

/// The local arenas, named after their threads.
fn local_views(r: &Runtime, layout: &Layout) -> Vec<LocalView> {
    layout
        .local_bytes
        .iter()
        .map(|(&t, &bytes)| LocalView {
            name: format!("local_arena_{t}"),
            thread: r.thread_executions[t].thread.name.clone(),
            bytes,
        })
        .collect()
}

/// The buffers allocated on their own (a runtime without memory sections).
/// The state buffers, in buffer order.
fn state_views(h: &Hsdfg, layout: &Layout) -> Vec<StateView> {
    h.buffers
        .iter()
        .zip(&layout.buffers)
        .filter_map(|(b, l)| {
            let v = b.initial?;
            Some(StateView {
                label: crate::back::layout::comment(&l.label),
                data: in_chain(&l.data()),
                ctype: super::expr::c_name(b.ty),
                elements: b.grid.x * b.grid.y * u64::from(b.copies.max(1)),
                // `{:?}` writes a float with a point or an exponent, a
                // literal C reads back exactly.
                value: format!("{v:?}"),
            })
        })
        .collect()
}

fn own_buffer_views(layout: &Layout) -> Vec<OwnBufferView> {
    layout
        .buffers
        .iter()
        .filter(|b| b.storage == Storage::Own)
        .map(|b| OwnBufferView {
            name: b.own_name(),
            label: b.label.clone(),
            bytes: b.bytes,
        })
        .collect()
}

/// `--check-kernels`: every folded buffer behind a guard.
fn guard_views(h: &Hsdfg, layout: &Layout) -> Vec<GuardView> {
    layout
        .buffers
        .iter()
        .zip(&h.buffers)
        .filter_map(|(b, hb)| {
            let ring = b.ring.as_ref()?;
            Some(GuardView {
                name: guard_name(b),
                label: c_string(&b.label),
                row_bytes: hb.grid.x * hb.ty.size(),
                height: hb.grid.y,
                rows: ring.rows * ring.bands.len().max(1) as u64,
            })
        })
        .collect()
}

fn guard_name(b: &crate::back::layout::BufferLayout) -> String {
    format!("guard_{}", b.ident)
}

/// The band tables of the buffers folded into several rings.
fn band_table_views(layout: &Layout) -> Vec<BandTableView> {
    layout
        .buffers
        .iter()
        .filter_map(|b| {
            let (name, _) = b.band_table()?;
            let ring = b.ring.as_ref()?;
            Some(BandTableView {
                name,
                label: b.label.clone(),
                bands: ring
                    .bands
                    .iter()
                    .map(|band| BandView {
                        lo: band.lo,
                        hi: band.hi,
                        up: u8::from(band.up),
                    })
                    .collect(),
            })
        })
        .collect()
}

/// Every port, in function order, and the port variables of each buffer.
fn port_views(
    h: &Hsdfg,
    layout: &Layout,
    o: &COptions,
) -> (Vec<PortView>, BTreeMap<BufferId, Vec<String>>) {
    let check_kernels = o.check_kernels;
    let mut in_place = frames_read_in_place(h, &o.user_kernels);
    in_place.extend(frames_written_in_place(h, &o.user_kernels));
    let mut ports = Vec::new();
    let mut of_buffer: BTreeMap<BufferId, Vec<String>> = BTreeMap::new();
    for f in &layout.functions {
        for p in &f.ports {
            let mut make = layout.port_make(f, p);
            make.name = in_chain(&make.name);
            make.data = in_chain(&make.data);
            let buffer = &layout.buffers[p.buffer.0];
            let guard = (check_kernels && buffer.ring.is_some()).then(|| guard_name(buffer));
            if let Some(g) = &guard {
                make.data = format!("chain->{g}.data");
            }
            of_buffer
                .entry(p.buffer)
                .or_default()
                .push(make.name.clone());
            let bands = buffer.band_table();
            let label = format!("{}.{}: buffer {}", f.name, p.name, h.buffer(p.buffer).name);
            ports.push(PortView {
                make,
                fold: buffer.ring.as_ref().map(|r| r.rows),
                comment: match (&buffer.ring, &bands, p.copies) {
                    (Some(r), Some((_, n)), _) => format!("{label}, {n} rings of {} rows", r.rows),
                    (Some(r), None, _) => format!("{label}, a ring of {} rows", r.rows),
                    (None, _, Some((_, 1))) => {
                        format!("{label}, two copies: the previous iteration's")
                    }
                    (None, _, Some(_)) => format!("{label}, two copies: this iteration's"),
                    (None, _, None) => label,
                },
                alt: p.copies.map(|c| c.0),
                phase: p.copies.is_some_and(|c| c.1 == 1),
                bands,
                guard,
                frame_of: in_place.get(&p.buffer).copied(),
            });
        }
    }
    (ports, of_buffer)
}

/// The buffers whose readers read the source's external frame in place,
/// with the source's function id: every buffer a built-in source writes,
/// unless it is state (read through a delay, so across iterations) or a
/// user kernel writes or reads it. When the iteration has an external
/// frame (a program's `--input`, the library's caller), the runtime hands
/// each reader the frame itself and the source copies nothing
/// (`runtime-c/README.md`, "Sources read in place"); without one the
/// source fills the buffer as before. The frame lives, unchanged, until
/// the iteration ends (the library's contract), so reading it later than
/// the source would have copied it reads the same values, and nothing
/// writes it: the proof of the buffer covers the frame.
pub fn frames_read_in_place(h: &Hsdfg, user_kernels: &[String]) -> BTreeMap<BufferId, u32> {
    let builtin = |f: &crate::ir::hsdfg::FunctionInfo| !user_kernels.contains(&f.function);
    h.buffers
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            let source = &h.functions[b.producer.0 .0];
            let readable = crate::ir::builtins::builtin_of(&source.function) == Some("func_source")
                && builtin(source)
                && b.initial.is_none()
                && b.readers.iter().all(|(r, _)| builtin(&h.functions[r.0]));
            readable.then_some((BufferId(i), source.id))
        })
        .collect()
}

/// The buffers whose producer writes the sink's external frame in place,
/// with the sink's function id: a buffer that one built-in sink reads,
/// written by a generated kernel (not a source, not a user kernel: those
/// may address rows their own way) and read by generated kernels only,
/// unless it is state. When the iteration has an output frame (the
/// library's caller, a program's `--output`), the runtime hands the
/// producer and every reader the frame itself, so the last stage writes
/// its rows straight into the caller's array and the sink copies nothing
/// (`runtime-c/README.md`, "Sinks written in place"); without one the
/// producer fills the buffer as before. Nothing else writes the frame
/// during the iteration, and the frame holds every row, so the proof of
/// the buffer (a ring of rows, or the whole grid) covers it.
pub fn frames_written_in_place(h: &Hsdfg, user_kernels: &[String]) -> BTreeMap<BufferId, u32> {
    let builtin = |f: &crate::ir::hsdfg::FunctionInfo| !user_kernels.contains(&f.function);
    let is = |f: &crate::ir::hsdfg::FunctionInfo, name| {
        crate::ir::builtins::builtin_of(&f.function) == Some(name) && builtin(f)
    };
    h.buffers
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            let producer = &h.functions[b.producer.0 .0];
            let sinks: Vec<_> = b
                .readers
                .iter()
                .map(|(r, _)| &h.functions[r.0])
                .filter(|f| is(f, "func_sink"))
                .collect();
            let writable = sinks.len() == 1
                && builtin(producer)
                && !is(producer, "func_source")
                && b.initial.is_none()
                && b.copies <= 1
                && b.readers.iter().all(|(r, _)| builtin(&h.functions[r.0]));
            writable.then(|| (BufferId(i), sinks[0].id))
        })
        .collect()
}

/// Every sub-box, in the HSDFG's actor order.
fn box_views(h: &Hsdfg, layout: &Layout) -> Vec<BoxView> {
    layout
        .boxes
        .iter()
        .map(|b| {
            let actor = h.actor(b.actor);
            let f = &layout.functions[b.function.0];
            BoxView {
                id: b.id.clone(),
                label: actor.subbox.to_string(),
                region: actor.region.to_string(),
                kernel: f.kernel.clone(),
                flags: match (f.n_in, f.n_out) {
                    (0, _) => "SSC_BOX_SOURCE",
                    (_, 0) => "SSC_BOX_SINK",
                    _ => "0",
                },
                function_id: h.function(b.function).id as usize,
                x0: actor.region.x0,
                y0: actor.region.y0,
                x1: actor.region.x1,
                y1: actor.region.y1,
                width: f.resolution.x,
                height: f.resolution.y,
                inputs: in_chain(&f.inputs()),
                n_in: f.n_in,
                outputs: in_chain(&f.outputs()),
                n_out: f.n_out,
            }
        })
        .collect()
}

/// The signals, with their initial tokens (`-kd`) and, for `-vo`, who
/// posts them after what and who waits before what.
fn signal_views(r: &Runtime, o: &COptions, flow: &SignalFlow) -> Vec<SignalView> {
    r.signals
        .iter()
        .map(|s| SignalView {
            name: format!("sig_{}", s.name),
            label: s.name.name.clone(),
            tokens: o
                .signal_tokens
                .get(&s.name.name)
                .copied()
                .unwrap_or(u32::from(s.initial_token)),
            comment: format!(
                "{}{}: {} -> {}",
                if s.initial_token { "!" } else { "" },
                s.name,
                flow.after(s.name.name.as_str(), "?"),
                flow.before(s.name.name.as_str(), "the end of the iteration"),
            ),
        })
        .collect()
}

/// The barriers of the runtime section, and `-ks -ki N`'s, which it cannot
/// express ("every N iterations").
fn barrier_views(r: &Runtime, o: &COptions) -> Vec<BarrierView> {
    let mut barriers: Vec<BarrierView> = r
        .barriers
        .iter()
        .map(|b| BarrierView {
            name: format!("bar_{}", b.name),
            label: b.name.name.clone(),
            count: b.threads.len(),
            threads: b
                .threads
                .iter()
                .map(|t| t.name.clone())
                .collect::<Vec<_>>()
                .join(", "),
        })
        .collect();
    if let Some((name, every, threads)) = &o.periodic_barrier {
        barriers.push(BarrierView {
            name: format!("bar_{name}"),
            label: name.clone(),
            count: threads.len(),
            threads: format!("{}; -ks -ki {every}", threads.join(", ")),
        });
    }
    barriers
}

/// `-dm`: one `ssc_dynbuf` per buffer (`-dm reduced`: from a pool per
/// block size), and what each sub-box allocates and ends.
fn dynamic_views(
    h: &Hsdfg,
    layout: &Layout,
    mode: Option<DynamicMemory>,
    ports_of_buffer: &BTreeMap<BufferId, Vec<String>>,
) -> (Vec<DynBufView>, Vec<PoolView>, DynUses) {
    let (mut dynbufs, mut pools, mut uses) =
        (Vec::new(), Vec::<PoolView>::new(), DynUses::default());
    let Some(mode) = mode else {
        return (dynbufs, pools, uses);
    };
    for (bi, buf) in layout.buffers.iter().enumerate() {
        if buf.storage != Storage::Dynamic {
            continue; // a state buffer: allocated once (`own_buffers`)
        }
        let id = BufferId(bi);
        let name = format!("dyn_{}", buf.ident);
        let (writers, readers) = crate::memory::buffer_users(h, id);
        for &w in &writers {
            uses.writes_of.entry(w).or_default().push(name.clone());
        }
        for &a in writers.iter().chain(&readers) {
            uses.uses_of.entry(a).or_default().push(name.clone());
        }
        let pool = match mode {
            DynamicMemory::Dynamic => "NULL".to_string(),
            DynamicMemory::Reduced => {
                match pools.iter_mut().find(|p| p.bytes == buf.bytes) {
                    Some(p) => p.blocks += 1,
                    None => pools.push(PoolView {
                        name: format!("pool_{}", buf.bytes),
                        bytes: buf.bytes,
                        blocks: 1,
                    }),
                }
                format!("chain->pool_{}", buf.bytes)
            }
        };
        dynbufs.push(DynBufView {
            name,
            label: buf.label.clone(),
            bytes: buf.bytes,
            users: writers.len() + readers.len(),
            pool,
            ports: ports_of_buffer.get(&id).cloned().unwrap_or_default(),
        });
    }
    (dynbufs, pools, uses)
}

/// A variable of the chain's state as the generated code names it: a
/// member of `struct ssc_chain`, reached through the `chain` pointer
/// every function of the program's parts 1 to 3 has (`NULL` stays
/// `NULL`). One instance of the chain is one such struct, so a library
/// holds one per open instance.
fn in_chain(name: &str) -> String {
    if name == "NULL" {
        name.to_string()
    } else {
        format!("chain->{name}")
    }
}

/// `n` and `noun`, plural unless `n` is 1 (`1 thread`, `2 sub-boxes`).
fn counted(n: usize, noun: &str) -> String {
    match (n, noun.ends_with('x')) {
        (1, _) => format!("1 {noun}"),
        (_, true) => format!("{n} {noun}es"),
        _ => format!("{n} {noun}s"),
    }
}
