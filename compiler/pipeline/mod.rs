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

use crate::diagnostics::Diagnostic;
use crate::ir::{Description, Runtime};
use crate::lower::hsdfg::Hsdfg;
use crate::lower::timing::Timing;
use crate::lower::LowerOptions;
use crate::memory::{MemoryKind, MemoryPlan};
use crate::schedule::{Schedule, ScheduleOptions, SchedulerKind};
use crate::sync::{Extras, PeriodicBarrier, SyncOptions};
use crate::verify::{CounterExample, Proof};
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
    /// when `-ts fused` runs a chain box-at-a-time (see [`streaming`]),
    /// which otherwise uses interference.
    pub asked: Asked,
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

fn counter_examples(code: &'static str, what: &str, ces: Vec<CounterExample>) -> Vec<Diagnostic> {
    located(code, what, ces, None)
}

/// Counter-examples as diagnostics; with the runtime they came from, each
/// operation they name (`thread0[9] E f9.0`) is labelled in the source.
fn located(
    code: &'static str,
    what: &str,
    ces: Vec<CounterExample>,
    runtime: Option<&Runtime>,
) -> Vec<Diagnostic> {
    ces.into_iter()
        .map(|ce| {
            let text = ce.to_string();
            let mut d = Diagnostic::error(code, format!("{what}: {text}"));
            if let Some(r) = runtime {
                for (thread, index) in op_mentions(&text) {
                    let op = r
                        .thread_executions
                        .iter()
                        .find(|t| t.thread.name == thread)
                        .and_then(|t| t.ops.get(index));
                    if let Some(op) = op {
                        let label = format!("{thread}[{index}]");
                        d = d.label(op.span, label);
                    }
                }
            }
            d.hint("a runtime must be free of deadlocks and races (docs/language.md); add the missing signal or move the buffer")
        })
        .collect()
}

/// The `NAME[INDEX]` operation references in a counter-example's text.
fn op_mentions(text: &str) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(open) = text[i..].find('[').map(|o| o + i) {
        let start = text[..open]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map(|p| p + 1)
            .unwrap_or(0);
        let close = text[open..].find(']').map(|c| c + open);
        if let Some(close) = close {
            if let Ok(index) = text[open + 1..close].parse::<usize>() {
                let name = &text[start..open];
                if !name.is_empty() && !out.iter().any(|(n, k)| n == name && *k == index) {
                    out.push((name.to_string(), index));
                }
            }
        }
        i = open + 1;
        if i >= bytes.len() {
            break;
        }
    }
    out
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
        return Err(vec![Diagnostic::error(
            "E299",
            "internal error: lowering left a section out",
        )]);
    };
    let hsdfg = crate::lower::hsdfg::build(decl, inst, &timing, true)?;
    let placements = crate::verify::placements_from_runtime(&hsdfg, &runtime)
        .map_err(|ces| counter_examples("E210", "the runtime section's memory is wrong", ces))?;
    let proof = crate::verify::verify(&hsdfg, &runtime, &placements).map_err(|ces| {
        located(
            "E211",
            "the runtime section is not correct",
            ces,
            Some(&runtime),
        )
    })?;
    proven.push(proof.to_string());
    Ok((proven, lowered.warnings))
}

/// Runs every stage after the front end.
pub fn compile(desc: &Description, opts: &Options) -> Result<Compiled, Vec<Diagnostic>> {
    // `-ts fused` streams strips sized to the cache, when they pay.
    let (lower_opts, fallback) = streaming::decide(desc, opts)?;
    let lowered = crate::lower::lower(desc, &lower_opts)?;
    let mut warnings = lowered.warnings;
    let description = lowered.description;
    let timing = Timing::from_runtime(description.runtime.as_ref()).with_model(opts.lower.cost);
    let (Some(decl), Some(inst)) = (&description.declaration, &description.instantiation) else {
        return Err(vec![Diagnostic::error(
            "E299",
            "internal error: lowering left a section out",
        )]);
    };
    let hsdfg = crate::lower::hsdfg::build(decl, inst, &timing, opts.lower.split.weighted)?;
    warnings.extend(decisions::untimed_kernels(&hsdfg, &timing, &description));
    let given = description.runtime.clone().unwrap_or_default();
    let mut notes = Vec::new();
    warnings.extend(decisions::ignored_options(&given, opts));

    if !given.thread_executions.is_empty() {
        // A hand-written runtime: checked, then honoured as written.
        let placements = crate::verify::placements_from_runtime(&hsdfg, &given).map_err(|ces| {
            counter_examples("E210", "the runtime section's memory is wrong", ces)
        })?;
        let proof = crate::verify::verify(&hsdfg, &given, &placements).map_err(|ces| {
            located(
                "E211",
                "the runtime section is not correct",
                ces,
                Some(&given),
            )
        })?;
        if opts.dynamic_memory {
            // -dm on a hand-written runtime: honoured only when its
            // programs already order what run-time allocation needs.
            let extras = Extras {
                orderings: crate::memory::dynamic_edges(&hsdfg),
                ..Extras::default()
            };
            crate::verify::verify_with(&hsdfg, &given, &placements, &extras).map_err(|ces| {
                let mut d = located(
                    "E211",
                    "the runtime section does not order its buffers' uses as -dm needs (every use of iteration i before every writer of i+1)",
                    ces,
                    Some(&given),
                );
                d.truncate(5);
                d
            })?;
        }
        notes.push(format!("runtime as written: {proof}"));
        let mut printed = given.clone();
        if !opts.thread_execution {
            printed.thread_executions.clear();
            printed.signals.clear();
        }
        return Ok(Compiled {
            description: Description {
                runtime: Some(printed),
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
        });
    }

    // Schedule (or take the hand-written thread lists), allocate, synchronise.
    let mut memory_kind = opts.memory;
    let schedule = if let Some(fb) = &fallback {
        let s = streaming::schedule(&hsdfg, fb, &opts.schedule);
        memory_kind = streaming::memory(opts);
        warnings.push(streaming::warning(desc, fb, &s, memory_kind));
        s
    } else if given.thread_schedule.is_empty() {
        crate::schedule::schedule(&hsdfg, opts.scheduler, &opts.schedule)
    } else {
        let mut s = crate::schedule::given::from_lists(&hsdfg, &given.thread_schedule)?;
        // A `barrier` in a runtime without programs (what `-ts barrier` or
        // `-ab` print with `--no-threadexecution`) is the iteration barrier:
        // every thread meets it at the end of each iteration.
        s.iteration_barrier = !given.barriers.is_empty();
        s
    };
    notes.extend(schedule.notes.iter().map(|n| format!("schedule: {n}")));
    if given.thread_schedule.is_empty() {
        // Judged by what ran: box-at-a-time when fused fell back (E140).
        let ran = fallback.map(|_| Options {
            scheduler: schedule.kind,
            ..opts.clone()
        });
        let ran = ran.as_ref().unwrap_or(opts);
        warnings.extend(decisions::unused_threads(&hsdfg, &schedule, &timing, ran));
    }
    if opts.dynamic_memory {
        memory_kind = MemoryKind::None;
    }
    // Memory sections written in the runtime (what `--no-threadexecution`
    // prints, or a hand placement): honoured as written, whatever `-ms`.
    let written = given.places_buffers() && !opts.dynamic_memory;
    let mut memory = if written {
        let placements = crate::verify::placements_from_runtime(&hsdfg, &given).map_err(|ces| {
            counter_examples("E210", "the runtime section's memory is wrong", ces)
        })?;
        crate::memory::as_written(&hsdfg, &schedule, placements)
    } else {
        crate::memory::allocate(&hsdfg, &schedule, memory_kind)
    };
    if opts.dynamic_memory {
        let edges = crate::memory::dynamic_edges(&hsdfg);
        notes.push(format!(
            "memory: -dm: {} coarse orderings so that one instance of each buffer is live",
            edges.len()
        ));
        memory.extra_edges.extend(edges);
    }
    notes.extend(memory.notes.iter().map(|n| format!("memory: {n}")));
    if let Err(e) = crate::memory::check_plan(&hsdfg, &schedule, &memory) {
        return Err(vec![if written {
            let mut d = Diagnostic::error(
                "E210",
                format!("the runtime section's memory is wrong: {e}"),
            );
            // Label the bindings of the buffers the message names.
            for b in &given.memory_bindings {
                let named = b.ports.iter().any(|p| {
                    let name = format!("{}.{}", p.owner_name(), p.port.name);
                    e.split(|c: char| c.is_whitespace() || c == ',')
                        .any(|w| w == name)
                });
                if named {
                    d = d.label(b.span, format!("{} placed here", b.mapping));
                }
            }
            d.hint("buffers may share bytes only when every use of one is ordered before every use of the other; move one of them, or let ssc place them (remove memory_mapping and memory_binding)")
        } else {
            Diagnostic::error(
                "E299",
                format!("internal error: the memory plan is inconsistent: {e}"),
            )
        }]);
    }
    let mut sync_opts = opts.sync.clone();
    sync_opts.timing = given.timing.clone();
    sync_opts.timing_system = given.timing_system.clone();
    let plan = crate::sync::synchronise_plan(&hsdfg, &schedule, &memory, &sync_opts);
    notes.extend(plan.notes.iter().map(|n| format!("sync: {n}")));
    let mut extras: Extras = plan.extras();
    if opts.dynamic_memory {
        extras.orderings = crate::memory::dynamic_edges(&hsdfg);
    }
    if let Some(p) = &plan.periodic_barrier {
        extras.periodic_barriers.insert(p.name.clone());
    }
    let proof = crate::verify::verify_with(&hsdfg, &plan.runtime, &memory.placements, &extras)
        .map_err(|ces| {
            let mut d = counter_examples(
                "E299",
                "internal error: ssc emitted a runtime it cannot prove",
                ces,
            );
            d.truncate(5);
            d
        })?;
    notes.push(format!("proof: {proof}"));
    let cores = if schedule.threads.iter().all(|t| t.core.is_some()) && !schedule.threads.is_empty()
    {
        Some(
            schedule
                .threads
                .iter()
                .map(|t| t.core.unwrap_or(0))
                .collect(),
        )
    } else {
        None
    };
    let mut runtime = plan.runtime;
    if memory.kind == Some(MemoryKind::None) {
        // Every buffer allocated on its own by the runtime: no memory section.
        runtime.memory_mappings.clear();
        runtime.memory_bindings.clear();
        runtime.memory_schedules.clear();
    }
    let mut printed = runtime.clone();
    if !opts.thread_execution {
        // The barrier stays: reading the output back, it asks for the
        // iteration barrier again (see above).
        printed.thread_executions.clear();
        printed.signals.clear();
    }
    warnings.retain(|w| !w.is_error());
    Ok(Compiled {
        description: Description {
            runtime: Some(printed),
            ..description
        },
        hsdfg,
        runtime,
        schedule: Some(schedule),
        memory: Some(memory),
        periodic_barrier: plan.periodic_barrier,
        signal_tokens: plan.signal_tokens,
        cores,
        proof,
        warnings,
        notes,
    })
}
