//! The whole pipeline: a checked description → every section lowered, a
//! runtime proven correct.
//!
//! Takes a description that passed the front-end checker and the options of
//! the stages; lowers what is missing (compose, split, HSDFG), and then
//! either honours the runtime section as written — proving it deadlock- and
//! race-free with [`crate::verify`], a failure being an input error with the
//! counter-example — or schedules, allocates and synchronises, and proves the
//! result (a failure there is a bug of ssc, reported as such, never a panic).
//! Gives everything the back ends need.
//!
//! Guarantees: every runtime it returns has been proven by [`crate::verify`]
//! (deadlock-free, race-free, every dependency enforced) on the placements
//! the back ends will read; a hand-written runtime that fails the proof is
//! E210/E211 with the counter-example, one of ssc's own is E299 (exit 3);
//! the warnings of what it decided against the command line
//! (`decisions.rs`, E500–E503) are in [`Compiled::warnings`]; deterministic
//! for given options.

use crate::diagnostics::Diagnostic;
use crate::ir::hsdfg::Hsdfg;
use crate::ir::{Description, Runtime};
use crate::lower::timing::Timing;
use crate::lower::LowerOptions;
use crate::memory::{MemoryKind, MemoryPlan, Placement, PlanError};
use crate::schedule::{Schedule, ScheduleOptions, SchedulerKind};
use crate::sync::{Extras, PeriodicBarrier, SyncOptions, SyncPlan};
use crate::verify::{op_ref, CounterExample, Proof};
use std::collections::BTreeMap;

mod decisions;
mod streaming;
pub use decisions::Asked;

/// Options of every stage.
#[derive(Clone, Debug)]
pub struct Options {
    pub lower: LowerOptions,
    pub scheduler: SchedulerKind,
    pub schedule: ScheduleOptions,
    pub memory: MemoryKind,
    /// `timing`/`timing_system` are filled in from the description.
    pub sync: SyncOptions,
    /// `-te`: keep `thread_execution` and `signal` in the printed runtime.
    pub thread_execution: bool,
    /// `-dm dynamic|reduced`: buffers allocated at run time. Implies
    /// `memory: None` (no arena, no memory section) and adds the coarse
    /// orderings of [`crate::memory::dynamic_edges`], which sync enforces
    /// and verify proves.
    pub dynamic_memory: bool,
    /// What the command line gave itself (`-ts`, `-ms`): the pipeline warns
    /// when the description overrides it (E502), and keeps an asked `-ms`
    /// when `-ts fused` runs a chain box-at-a-time (see `streaming`),
    /// which otherwise uses interference.
    pub asked: Asked,
}

impl Options {
    /// The options `ssc build -ts SCHEDULER -ms MEMORY` starts from: the
    /// lowering's defaults with at most as many sub-boxes per function as
    /// the scheduler has threads, explicit thread programs, no cost model
    /// (every function without a `timing` entry costs 1 µs, the waits and
    /// signals 1 µs each: the results do not depend on the machine; set
    /// `lower.cost` to `ssc::calibrate::load().coefficients` for this
    /// machine's).
    pub fn new(scheduler: SchedulerKind, memory: MemoryKind) -> Options {
        let mut lower = LowerOptions::default();
        if let Some(n) = scheduler.threads().filter(|n| *n > 0) {
            lower.split.max_parts = n as u64;
        }
        Options {
            lower,
            scheduler,
            schedule: ScheduleOptions::default(),
            memory,
            sync: SyncOptions::default(),
            thread_execution: true,
            dynamic_memory: false,
            asked: Asked::default(),
        }
    }
}

/// Compiles the text of a description: parses it, checks it and runs the
/// pipeline ([`compile`]). The library's entry point, re-exported as
/// `ssc::compile`; the diagnostics are those `ssc check` and `ssc build`
/// print (render them with [`crate::diagnostics`]).
///
/// ```
/// use ssc::memory::MemoryKind;
/// use ssc::pipeline::Options;
/// use ssc::schedule::SchedulerKind;
///
/// let text = "
///   declaration {
///     function_declaration func_source NONE { out OUT float mul [1, 1]; };
///     function_declaration func_gain FULL { in IN float mul [1, 1]; out OUT float mul [1, 1]; };
///     function_declaration func_sink NONE { in IN float mul [1, 1]; };
///     function src func_source [1024, 1024], g func_gain [1024, 1024], snk func_sink [1024, 1024];
///     src.out -> g.in;
///     g.out -> snk.in;
///   }";
/// let mut opts = Options::new(SchedulerKind::Reduced(2), MemoryKind::Reuse);
/// // Time the built-ins by the cost model (shipped coefficients; this
/// // machine's: `ssc::calibrate::load().coefficients`).
/// opts.lower.cost = Some(ssc::lower::cost::Coefficients::shipped());
/// let compiled = ssc::compile(text, &opts).expect("a valid chain compiles");
/// // The gain was split in two sub-boxes, one per thread, and the runtime
/// // that runs them is proven deadlock- and race-free.
/// assert_eq!(compiled.hsdfg.actors().count(), 4);
/// assert_eq!(compiled.runtime.thread_executions.len(), 2);
///
/// // The pthread C program, as `ssc build` writes it.
/// let c = ssc::back::c::COptions { name: "gain".into(), ..Default::default() };
/// let program = ssc::back::c::emit(&compiled.hsdfg, &compiled.runtime, &c).unwrap();
/// assert!(program.files.iter().any(|(name, _)| name == "gain.c"));
///
/// // An error is a diagnostic with a code and a span, never a panic.
/// let errors = ssc::compile("declaration { function x;", &opts).unwrap_err();
/// assert!(errors[0].code.starts_with('E'));
/// ```
pub fn compile_text(text: &str, opts: &Options) -> Result<Compiled, Vec<Diagnostic>> {
    let parsed = crate::front::syntax::parse(text)?;
    let expanded = crate::front::chain::expand(&parsed, &[])?;
    let desc = expanded.description;
    let mut diagnostics = expanded.warnings;
    diagnostics.extend(crate::front::check(&desc));
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(diagnostics);
    }
    let mut compiled = compile(&desc, opts)?;
    let mut warnings = diagnostics;
    warnings.append(&mut compiled.warnings);
    compiled.warnings = warnings;
    Ok(compiled)
}

/// A description compiled down to a proven runtime.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// All four sections (the runtime without programs when `-te` is off).
    pub description: Description,
    pub hsdfg: Hsdfg,
    /// The runtime the program runs (always with programs).
    pub runtime: Runtime,
    /// `None` when the runtime was written by hand.
    pub schedule: Option<Schedule>,
    pub memory: Option<MemoryPlan>,
    pub periodic_barrier: Option<PeriodicBarrier>,
    pub signal_tokens: BTreeMap<String, u32>,
    /// The core of each thread of `runtime.thread_executions`, when pinned.
    pub cores: Option<Vec<usize>>,
    pub proof: Proof,
    /// Warnings of lowering and of the decisions taken against the command
    /// line (threads dropped, options ignored: E500–E502).
    pub warnings: Vec<Diagnostic>,
    /// Each stage's report, for `-v`.
    pub notes: Vec<String>,
}

/// What [`located`] and the memory errors tell the user to do.
const RUNTIME_HINT: &str = "a runtime must be free of deadlocks and races (docs/language.md); add the missing signal or move the buffer";

/// Counter-examples as diagnostics, named after `h` and `r` (what the
/// checker was given).
fn counter_examples(
    code: &'static str,
    what: &str,
    ces: &[CounterExample],
    h: &Hsdfg,
    r: &Runtime,
) -> Vec<Diagnostic> {
    ces.iter()
        .map(|ce| {
            Diagnostic::error(code, format!("{what}: {}", ce.display(h, r))).hint(RUNTIME_HINT)
        })
        .collect()
}

/// [`counter_examples`] of a runtime read from the source: each operation
/// a counter-example names (`thread0[9]`) is labelled there.
fn located(
    code: &'static str,
    what: &str,
    ces: &[CounterExample],
    h: &Hsdfg,
    r: &Runtime,
) -> Vec<Diagnostic> {
    let ds = counter_examples(code, what, ces, h, r);
    ds.into_iter()
        .zip(ces)
        .map(|(mut d, ce)| {
            for o in ce.ops() {
                let op = r
                    .thread_executions
                    .get(o.thread)
                    .and_then(|t| t.ops.get(o.index));
                if let Some(op) = op {
                    d = d.label(op.span, op_ref(r, o));
                }
            }
            d
        })
        .collect()
}

/// A plan [`crate::memory::check_plan`] refused: the input's fault (E210,
/// labelled at the bindings of the buffers it names) when the runtime
/// section placed the buffers, else a bug of ssc (E299).
fn plan_error(e: &PlanError, h: &Hsdfg, given: &Runtime, written: bool) -> Diagnostic {
    if !written {
        return Diagnostic::error(
            "E299",
            format!(
                "internal error: the memory plan is inconsistent: {}",
                e.display(h)
            ),
        );
    }
    let mut d = Diagnostic::error(
        "E210",
        format!("the runtime section's memory is wrong: {}", e.display(h)),
    );
    // A buffer is bound where its producer's OUT port is.
    let producers: Vec<(&str, &str)> = e
        .buffers()
        .into_iter()
        .map(|b| {
            let (f, port) = h.buffer(b).producer;
            let f = h.function(f);
            (f.name.as_str(), f.ports[port].name.as_str())
        })
        .collect();
    for b in &given.memory_bindings {
        let named = b.ports.iter().any(|p| {
            producers
                .iter()
                .any(|&(f, port)| p.owner_name() == f && p.port.name == port)
        });
        if named {
            d = d.label(b.span, format!("{} placed here", b.mapping));
        }
    }
    d.hint("buffers may share bytes only when every use of one is ordered before every use of the other; move one of them, or let ssc place them (remove memory_mapping and memory_binding)")
}

/// The placements of a runtime section with programs and its proof, or
/// why not (E210 for its memory sections, E211 for its programs).
fn prove_written(h: &Hsdfg, r: &Runtime) -> Result<(Vec<Placement>, Proof), Vec<Diagnostic>> {
    let placements = crate::verify::placements_from_runtime(h, r).map_err(|ces| {
        counter_examples("E210", "the runtime section's memory is wrong", &ces, h, r)
    })?;
    let proof = crate::verify::verify(h, r, &placements)
        .map_err(|ces| located("E211", "the runtime section is not correct", &ces, h, r))?;
    Ok((placements, proof))
}

/// `ssc check`: validates what a checked description holds without adding
/// anything — a given declaration against its composition, a given
/// instantiation (tiling, dependencies), and a runtime section with programs
/// proven deadlock- and race-free. Gives one line per thing proven.
pub fn check(desc: &Description) -> Result<(Vec<String>, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut proven = Vec::new();
    if desc.composition.is_some() && desc.declaration.is_some() {
        proven.push("declaration matches the composition (up to renaming)".to_string());
    }
    if desc.instantiation.is_none() {
        // Nothing below the declaration to validate: compose only.
        crate::lower::lower_to_declaration(desc, &LowerOptions::default())?;
        return Ok((proven, Vec::new()));
    }
    let lowered = crate::lower::lower(desc, &LowerOptions::default())?;
    proven.push("instantiation tiles every function and has every dependency".to_string());
    let runtime = match &lowered.description.runtime {
        Some(r) if !r.thread_executions.is_empty() => r.clone(),
        _ => return Ok((proven, lowered.warnings)),
    };
    let timing = Timing::from_runtime(Some(&runtime));
    let (Some(decl), Some(inst)) = (
        &lowered.description.declaration,
        &lowered.description.instantiation,
    ) else {
        return Err(vec![left_out()]);
    };
    let hsdfg = crate::lower::hsdfg::build(decl, inst, &timing, true, desc.dir.as_deref())?;
    let (_, proof) = prove_written(&hsdfg, &runtime)?;
    proven.push(proof.to_string());
    Ok((proven, lowered.warnings))
}

fn left_out() -> Diagnostic {
    Diagnostic::error("E299", "internal error: lowering left a section out")
}

/// What every build has once lowered: the later stages' common input,
/// and what they report.
struct Lowered {
    description: Description,
    hsdfg: Hsdfg,
    timing: Timing,
    /// The runtime section as written (empty when there is none).
    given: Runtime,
    warnings: Vec<Diagnostic>,
    notes: Vec<String>,
}

/// Runs every stage after the front end.
pub fn compile(desc: &Description, opts: &Options) -> Result<Compiled, Vec<Diagnostic>> {
    // `-ts fused` streams strips sized to the cache, when they pay.
    let (lower_opts, fallback) = streaming::decide(desc, opts)?;
    let mut l = lower(desc, &lower_opts, opts)?;
    if !l.given.thread_executions.is_empty() {
        // A hand-written runtime: checked, then honoured as written.
        return honour_written(l, opts);
    }
    // Schedule (or take the hand-written thread lists), allocate, synchronise.
    let (schedule, memory_kind) = schedule(desc, opts, &mut l, fallback.as_ref())?;
    let memory = allocate(opts, &mut l, &schedule, memory_kind)?;
    let (plan, proof) = synchronise(opts, &mut l, &schedule, &memory)?;
    Ok(finish(opts, l, schedule, memory, plan, proof))
}

/// Lowering to the HSDFG, with the warnings about what the description
/// and the options leave out.
fn lower(
    desc: &Description,
    lower_opts: &LowerOptions,
    opts: &Options,
) -> Result<Lowered, Vec<Diagnostic>> {
    let lowered = crate::lower::lower(desc, lower_opts)?;
    let mut warnings = lowered.warnings;
    let description = lowered.description;
    let timing = Timing::from_runtime(description.runtime.as_ref())
        .with_model(opts.lower.cost)
        .in_strips(lower_opts.split.strips.is_some());
    let (Some(decl), Some(inst)) = (&description.declaration, &description.instantiation) else {
        return Err(vec![left_out()]);
    };
    let hsdfg = crate::lower::hsdfg::build(
        decl,
        inst,
        &timing,
        opts.lower.split.weighted,
        desc.dir.as_deref(),
    )?;
    warnings.extend(decisions::untimed_kernels(&hsdfg, &timing, &description));
    let given = description.runtime.clone().unwrap_or_default();
    warnings.extend(decisions::ignored_options(&given, opts));
    Ok(Lowered {
        description,
        hsdfg,
        timing,
        given,
        warnings,
        notes: Vec::new(),
    })
}

/// A runtime section with programs, proven and kept as written (with `-dm`,
/// only when its programs already order what run-time allocation needs).
fn honour_written(l: Lowered, opts: &Options) -> Result<Compiled, Vec<Diagnostic>> {
    let Lowered {
        description,
        hsdfg,
        given,
        warnings,
        mut notes,
        ..
    } = l;
    let (placements, proof) = prove_written(&hsdfg, &given)?;
    if opts.dynamic_memory {
        let extras = Extras {
            orderings: crate::memory::dynamic_edges(&hsdfg),
            ..Extras::default()
        };
        crate::verify::verify_with(&hsdfg, &given, &placements, &extras).map_err(|ces| {
            let mut d = located(
                "E211",
                "the runtime section does not order its buffers' uses as -dm needs (every use of iteration i before every writer of i+1)",
                &ces,
                &hsdfg,
                &given,
            );
            d.truncate(5);
            d
        })?;
    }
    notes.push(format!("runtime as written: {proof}"));
    Ok(Compiled {
        description: Description {
            runtime: Some(printed(&given, opts)),
            ..description
        },
        hsdfg,
        runtime: given,
        schedule: None,
        memory: None,
        periodic_barrier: None,
        signal_tokens: BTreeMap::new(),
        cores: None,
        proof,
        warnings,
        notes,
    })
}

/// The thread schedule: fused's fallback, the scheduler's, or the
/// hand-written thread lists; and the allocator to run after it.
fn schedule(
    desc: &Description,
    opts: &Options,
    l: &mut Lowered,
    fallback: Option<&streaming::Fallback>,
) -> Result<(Schedule, MemoryKind), Vec<Diagnostic>> {
    let mut memory_kind = opts.memory;
    let schedule = if let Some(fb) = fallback {
        let s = streaming::schedule(&l.hsdfg, fb, &opts.schedule);
        memory_kind = streaming::memory(opts, &l.hsdfg, fb);
        l.warnings
            .push(streaming::warning(desc, fb, &s, memory_kind));
        s
    } else if l.given.thread_schedule.is_empty() {
        crate::schedule::schedule(&l.hsdfg, opts.scheduler, &opts.schedule)
    } else {
        let mut s = crate::schedule::given::from_lists(&l.hsdfg, &l.given.thread_schedule)?;
        // A `barrier` in a runtime without programs (what `-ts barrier` or
        // `-ab` print with `--no-threadexecution`) is the iteration barrier:
        // every thread meets it at the end of each iteration.
        s.iteration_barrier = !l.given.barriers.is_empty();
        s
    };
    l.notes
        .extend(schedule.notes.iter().map(|n| format!("schedule: {n}")));
    if l.given.thread_schedule.is_empty() {
        // Judged by what ran: box-at-a-time when fused fell back (E140).
        let ran = fallback.map(|_| Options {
            scheduler: schedule.kind,
            ..opts.clone()
        });
        let ran = ran.as_ref().unwrap_or(opts);
        let unused = decisions::unused_threads(&l.hsdfg, &schedule, &l.timing, ran);
        l.warnings.extend(unused);
    }
    if opts.dynamic_memory {
        memory_kind = MemoryKind::None;
    }
    Ok((schedule, memory_kind))
}

/// The memory plan, checked: the placements written in the runtime (what
/// `--no-threadexecution` prints, or a hand placement; honoured as written,
/// whatever `-ms`), or the allocator's; with `-dm`'s orderings.
fn allocate(
    opts: &Options,
    l: &mut Lowered,
    schedule: &Schedule,
    memory_kind: MemoryKind,
) -> Result<MemoryPlan, Vec<Diagnostic>> {
    let (h, given) = (&l.hsdfg, &l.given);
    let written = given.places_buffers() && !opts.dynamic_memory;
    let mut memory = if written {
        let placements = crate::verify::placements_from_runtime(h, given).map_err(|ces| {
            counter_examples(
                "E210",
                "the runtime section's memory is wrong",
                &ces,
                h,
                given,
            )
        })?;
        crate::memory::as_written(h, schedule, placements)
    } else {
        crate::memory::allocate(h, schedule, memory_kind)
    };
    if opts.dynamic_memory {
        let edges = crate::memory::dynamic_edges(h);
        l.notes.push(format!(
            "memory: -dm: {} coarse orderings so that one instance of each buffer is live",
            edges.len()
        ));
        memory.extra_edges.extend(edges);
    }
    l.notes
        .extend(memory.notes.iter().map(|n| format!("memory: {n}")));
    crate::memory::check_plan(h, schedule, &memory)
        .map_err(|e| vec![plan_error(&e, h, given, written)])?;
    Ok(memory)
}

/// The synchronised runtime and its proof (a failure is a bug of ssc).
fn synchronise(
    opts: &Options,
    l: &mut Lowered,
    schedule: &Schedule,
    memory: &MemoryPlan,
) -> Result<(SyncPlan, Proof), Vec<Diagnostic>> {
    let h = &l.hsdfg;
    let mut sync_opts = opts.sync.clone();
    sync_opts.timing = l.given.timing.clone();
    sync_opts.timing_system = l.given.timing_system.clone();
    let plan = crate::sync::synchronise_plan(h, schedule, memory, &sync_opts);
    l.notes
        .extend(plan.notes.iter().map(|n| format!("sync: {n}")));
    let mut extras: Extras = plan.extras();
    if opts.dynamic_memory {
        extras.orderings = crate::memory::dynamic_edges(h);
    }
    if let Some(p) = &plan.periodic_barrier {
        extras.periodic_barriers.insert(p.name.clone());
    }
    let proof = crate::verify::verify_with(h, &plan.runtime, &memory.placements, &extras).map_err(
        |ces| {
            let what = "internal error: ssc emitted a runtime it cannot prove";
            let mut d = counter_examples("E299", what, &ces, h, &plan.runtime);
            d.truncate(5);
            d
        },
    )?;
    l.notes.push(format!("proof: {proof}"));
    Ok((plan, proof))
}

/// Everything the back ends need, from the stages' results.
fn finish(
    opts: &Options,
    l: Lowered,
    schedule: Schedule,
    memory: MemoryPlan,
    plan: SyncPlan,
    proof: Proof,
) -> Compiled {
    let pinned = schedule.threads.iter().all(|t| t.core.is_some()) && !schedule.threads.is_empty();
    let cores = pinned.then(|| {
        schedule
            .threads
            .iter()
            .map(|t| t.core.unwrap_or(0))
            .collect()
    });
    let mut runtime = plan.runtime;
    if memory.kind == Some(MemoryKind::None) {
        // Every buffer allocated on its own by the runtime: no memory section.
        runtime.memory_mappings.clear();
        runtime.memory_bindings.clear();
        runtime.memory_schedules.clear();
    }
    let mut warnings = l.warnings;
    warnings.retain(|w| !w.is_error());
    Compiled {
        description: Description {
            runtime: Some(printed(&runtime, opts)),
            ..l.description
        },
        hsdfg: l.hsdfg,
        runtime,
        schedule: Some(schedule),
        memory: Some(memory),
        periodic_barrier: plan.periodic_barrier,
        signal_tokens: plan.signal_tokens,
        cores,
        proof,
        warnings,
        notes: l.notes,
    }
}

/// The runtime as printed: without programs and signals unless `-te`. The
/// barrier stays: reading the output back, it asks for the iteration
/// barrier again (see [`schedule`]).
fn printed(runtime: &Runtime, opts: &Options) -> Runtime {
    let mut printed = runtime.clone();
    if !opts.thread_execution {
        printed.thread_executions.clear();
        printed.signals.clear();
    }
    printed
}
