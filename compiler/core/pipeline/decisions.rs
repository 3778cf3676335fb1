//! What the pipeline decided against the command line, said as warnings
//! (docs/diagnostics.md, E500–E503): threads the scheduler left without a
//! sub-box (E500), fewer sub-boxes than threads asked (E501), `-ts` or
//! `-ms` ignored because the runtime section already says what they would
//! (E502), and user kernels that cost 1 µs for want of a timing entry
//! (E503). Each gives the reason and the fix; the CLI prints them like any
//! other warning (text or `--message-format json`).

use super::Options;
use crate::diagnostics::Diagnostic;
use crate::ir::hsdfg::Hsdfg;
use crate::ir::{Runtime, Span};
use crate::lower::timing::{Instance, Source, Timing};
use crate::schedule::{Schedule, SchedulerKind};

/// Threads the scheduler dropped.
pub const THREADS_DROPPED: &str = "E500";
/// Fewer sub-boxes than threads asked.
pub const FEWER_SUBBOXES: &str = "E501";
/// `-ts` / `-ms` ignored for a runtime section that says it itself.
pub const OPTION_IGNORED: &str = "E502";
/// User kernels without a timing entry.
pub const UNTIMED_KERNELS: &str = "E503";

/// Which choices the command line made itself (not defaults): a stage that
/// cannot honour one says so (E502). Defaults are never "ignored".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Asked {
    /// `-ts` was given.
    pub scheduler: bool,
    /// `-ms` was given.
    pub memory: bool,
}

/// The first source position of a list of statements' entries.
fn first_span(spans: impl IntoIterator<Item = Span>) -> Span {
    spans
        .into_iter()
        .find(|s| !s.is_none())
        .unwrap_or(Span::NONE)
}

/// E502: `-ts` / `-ms` given, but the runtime section decides instead —
/// its programs (both), its `thread_schedule` (`-ts`), or its memory
/// sections (`-ms`, unless `-dm` allocates at run time anyway).
pub(super) fn ignored_options(given: &Runtime, opts: &Options) -> Vec<Diagnostic> {
    let asked = opts.asked;
    let mut out = Vec::new();
    if !given.thread_executions.is_empty() {
        let named: Vec<String> = [
            asked
                .scheduler
                .then(|| format!("-ts {}", opts.scheduler.to_string().trim())),
            asked
                .memory
                .then(|| format!("-ms {}", opts.memory.keyword())),
        ]
        .into_iter()
        .flatten()
        .collect();
        if named.is_empty() {
            return out;
        }
        let what = named.join(" and ");
        let verb = if named.len() == 1 { "is" } else { "are" };
        out.push(
            Diagnostic::warning(
                OPTION_IGNORED,
                format!(
                    "{what} {verb} ignored: the runtime section has thread programs, which are proven and honoured as written"
                ),
            )
            .label(
                first_span(given.thread_executions.iter().map(|t| t.thread.span)),
                "its programs, as written",
            )
            .hint(format!(
                "remove the runtime section (at least its thread_execution, signal and barrier statements) to let ssc schedule, or leave {what} out"
            )),
        );
        return out;
    }
    if asked.scheduler && !given.thread_schedule.is_empty() {
        out.push(
            Diagnostic::warning(
                OPTION_IGNORED,
                format!(
                    "-ts {} is ignored: the runtime section's thread_schedule says which thread runs which sub-box, and it is honoured as written",
                    opts.scheduler.to_string().trim()
                ),
            )
            .label(
                first_span(given.thread_schedule.iter().map(|t| t.thread.span)),
                "its threads, as written",
            )
            .hint("remove the thread_schedule statement to let -ts schedule, or leave -ts out"),
        );
    }
    if asked.memory && given.places_buffers() && !opts.dynamic_memory {
        out.push(
            Diagnostic::warning(
                OPTION_IGNORED,
                format!(
                    "-ms {} is ignored: the runtime section places the buffers itself (memory_mapping, memory_binding), and its placement is honoured as written",
                    opts.memory.keyword()
                ),
            )
            .label(
                first_span(
                    given
                        .memory_mappings
                        .iter()
                        .map(|m| m.name.span)
                        .chain(given.memory_bindings.iter().map(|b| b.mapping.span)),
                ),
                "the placement, as written",
            )
            .hint("remove memory_mapping and memory_binding (and memory_schedule) to let -ms place the buffers, or leave -ms out"),
        );
    }
    out
}

/// E500 or E501 when a scheduler that was asked for N threads uses fewer:
/// E501 when the instantiation has fewer than N sub-boxes (no schedule
/// could use N threads), E500 when the scheduler, by the timing table,
/// found no sub-box that would start earlier on the threads it dropped.
pub(super) fn unused_threads(
    h: &Hsdfg,
    schedule: &Schedule,
    timing: &Timing,
    opts: &Options,
) -> Option<Diagnostic> {
    let asked = opts.scheduler.threads()?;
    let used = schedule.threads.len();
    if used >= asked {
        return None;
    }
    let ts = opts.scheduler.to_string();
    let subboxes = h.actors().count();
    if subboxes < asked {
        let split = &opts.lower.split;
        let why = if split.dp == crate::lower::split::DataParallelism::None {
            "-dp none splits no function".to_string()
        } else if (split.max_parts as usize) < asked {
            format!(
                "-mdp {} splits a function into at most {} sub-boxes",
                split.max_parts, split.max_parts
            )
        } else {
            "its functions are NONE, have few rows, or the instantiation section says so"
                .to_string()
        };
        return Some(
            Diagnostic::warning(
                FEWER_SUBBOXES,
                format!(
                    "-ts {ts} asks for {asked} threads, but the instantiation has {subboxes} sub-box{}: the program runs {used} thread{}",
                    if subboxes == 1 { "" } else { "es" },
                    if used == 1 { "" } else { "s" }
                ),
            )
            .hint(format!(
                "{why}: split the functions (-dp full -mdp {asked}, FULL in container_bind) to use {asked} threads, or ask for -ts {} {used}",
                opts.scheduler.keyword()
            )),
        );
    }
    let dropped = asked - used;
    let mut why = match opts.scheduler {
        SchedulerKind::Fused(_) => format!(
            "the split functions have {} strips, so {dropped} of the {asked} bands hold none",
            h.functions
                .iter()
                .map(|f| f.subboxes.len())
                .max()
                .unwrap_or(1)
        ),
        _ => format!(
            "by the timing table{}, no sub-box would start earlier on them: reading another thread's output costs a signal, a wait and its transfer more (sg {} µs + wt {} µs + tr {} µs a KiB, {})",
            if timing.model.is_some() {
                " and the cost model of the built-ins"
            } else {
                ""
            },
            h.system.signal,
            h.system.wait,
            h.system.transfer,
            match (timing.system_given, timing.model.is_some()) {
                ((true, true, true), _) => "timing_system",
                ((false, false, false), true) => "the cost model's, `ssc calibrate`",
                (_, true) => "timing_system and the cost model's",
                (_, false) => "timing_system, else 1 µs a wait and a signal and free transfers",
            }
        ),
    };
    let untimed: Vec<&str> = {
        let mut v: Vec<&str> = h
            .functions
            .iter()
            .filter(|f| !h.kernels.contains_key(&f.function))
            .filter(|f| timing.cost(&Instance::of_info(f)).1 == Source::Default)
            .map(|f| f.function.as_str())
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let mut fix = Vec::new();
    if !untimed.is_empty() && !matches!(opts.scheduler, SchedulerKind::Fused(_)) {
        why.push_str(&format!(
            "; without a timing entry{}, {} cost{} 1 µs",
            if timing.model.is_some() {
                " and not built-ins (which the cost model knows)"
            } else {
                ""
            },
            untimed.join(", "),
            if untimed.len() == 1 { "s" } else { " each" }
        ));
        fix.push(
            "measure the functions with -gw (or give a timing table, docs/language.md)".to_string(),
        );
    }
    if matches!(opts.scheduler, SchedulerKind::Fused(_)) {
        fix.push("lower --strip-rows (or --cache-bytes) for more strips".to_string());
    }
    fix.push(format!(
        "ask for the threads used: -ts {} {used}",
        opts.scheduler.keyword()
    ));
    Some(
        Diagnostic::warning(
            THREADS_DROPPED,
            format!(
                "-ts {ts}: {dropped} of {asked} threads got no sub-box and were dropped; the program runs {used} thread{}",
                if used == 1 { "" } else { "s" }
            ),
        )
        .hint(format!("{why}. {}", capitalise(&fix.join(", or ")))),
    )
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// E503: kernels of the user's own (no built-ins, so no cost model) that
/// no `timing` entry gives a time: they cost 1 µs, which the schedule and
/// `-pr` take at its word.
pub(super) fn untimed_kernels(
    h: &Hsdfg,
    timing: &Timing,
    desc: &crate::ir::Description,
) -> Option<Diagnostic> {
    let mut kernels: Vec<&str> = h
        .functions
        .iter()
        .filter(|f| crate::ir::builtins::builtin_of(&f.function).is_none())
        .filter(|f| !h.kernels.contains_key(&f.function))
        .filter(|f| timing.cost(&Instance::of_info(f)).1 == Source::Default)
        .map(|f| f.function.as_str())
        .collect();
    kernels.sort();
    kernels.dedup();
    if kernels.is_empty() {
        return None;
    }
    let list = kernels
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    // Labelled where the description binds each kernel (first binding).
    let binds = desc.composition.iter().flat_map(|c| &c.binds);
    let uses = desc.declaration.iter().flat_map(|d| &d.functions);
    let names: Vec<&crate::ir::Ident> = binds
        .map(|b| &b.function)
        .chain(uses.map(|f| &f.function))
        .collect();
    let mut warning = Diagnostic::warning(
        UNTIMED_KERNELS,
        format!(
            "{} {list} {} no timing entry: the schedule takes {} to cost 1 µs a run",
            if kernels.len() == 1 {
                "kernel"
            } else {
                "kernels"
            },
            if kernels.len() == 1 { "has" } else { "have" },
            if kernels.len() == 1 { "it" } else { "each" },
        ),
    );
    for k in &kernels {
        if let Some(i) = names.iter().find(|i| i.name == *k && !i.span.is_none()) {
            warning = warning.label(i.span, "bound here, without a timing entry");
        }
    }
    Some(warning.hint(format!(
        "the cost model knows only the built-ins: measure {} with `ssc build FILE --kernels KERNELS.c -gw` (or `-t wcet`), or give a `timing` entry (`{} T`, docs/language.md)",
        if kernels.len() == 1 { "it" } else { "them" },
        kernels[0]
    )))
}
