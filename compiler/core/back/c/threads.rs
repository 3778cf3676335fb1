//! The thread code of the pthread program: each thread's W/E/S/B program
//! as the statements the template `program.c` writes (`op_line`), with
//! `-dm`'s allocations and frees around each `E` and `-ks -ki`'s periodic
//! barrier at the end of an iteration.
//!
//! Takes the HSDFG, the runtime section (its `thread_execution` programs,
//! every `E` resolved: `view::emit` checks that first), the layout's
//! sub-box identifiers and the options; gives one [`ThreadView`] per
//! thread and, for `-vo`, who posts each signal after what
//! ([`SignalFlow`]). Writes no C: each statement is a [`Code`] the
//! template renders.

use super::options::COptions;
use super::parts::{parts, Part};
use crate::back::layout::box_id;
use crate::ir::hsdfg::{ActorId, Finder, Hsdfg};
use crate::ir::{Op, Runtime};
use std::collections::BTreeMap;

/// One statement of a thread's loop, rendered by the template.
#[derive(Clone, Debug)]
pub(super) enum Code {
    /// `W s`: wait on signal variable `sig_S`.
    Wait(String),
    /// `S s`: post signal variable `sig_S`.
    Signal(String),
    /// `E sb`: execute the sub-box of this enum constant.
    Exec(String),
    /// `B b`: meet barrier variable `bar_B`.
    Barrier(String),
    /// `-dm`: allocate this `ssc_dynbuf` (its first writer).
    DynWrite(String),
    /// `-dm`: one use of this `ssc_dynbuf` done (freed after the last).
    DynDone(String),
    /// `-ks -ki N`: meet barrier variable `bar_B` every N iterations.
    Periodic { every: u32, barrier: String },
}

#[derive(Clone)]
pub(super) struct OpView {
    pub code: Code,
    pub comment: String,
}

pub(super) struct ThreadView {
    pub name: String,
    pub ops: Vec<OpView>,
    /// Empty unless the program is longer than a part.
    pub parts: Vec<Part<OpView>>,
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

/// Who posts each signal after what, who waits on it before what (the
/// comments of `-vo`).
#[derive(Default)]
pub(super) struct SignalFlow<'r> {
    pub posted_after: BTreeMap<&'r str, String>,
    pub waited_before: BTreeMap<&'r str, String>,
}

impl<'r> SignalFlow<'r> {
    pub fn new(r: &'r Runtime) -> SignalFlow<'r> {
        let mut flow = SignalFlow::default();
        for t in &r.thread_executions {
            let mut last_exec: Option<String> = None;
            let mut pending_waits: Vec<&str> = Vec::new();
            for op in &t.ops {
                match &op.value {
                    Op::Exec(sb) => {
                        for w in pending_waits.drain(..) {
                            flow.waited_before
                                .insert(w, format!("{sb} on {}", t.thread));
                        }
                        last_exec = Some(format!("{sb} on {}", t.thread));
                    }
                    Op::Signal(s) => {
                        let after = last_exec
                            .clone()
                            .unwrap_or_else(|| format!("the start of {}", t.thread));
                        flow.posted_after.insert(s.name.as_str(), after);
                    }
                    Op::Wait(s) => pending_waits.push(s.name.as_str()),
                    Op::Barrier(_) => {}
                }
            }
        }
        flow
    }

    pub fn after(&self, signal: &str, otherwise: &'static str) -> String {
        self.posted_after
            .get(signal)
            .map_or(otherwise, String::as_str)
            .to_string()
    }

    pub fn before(&self, signal: &str, otherwise: &'static str) -> String {
        self.waited_before
            .get(signal)
            .map_or(otherwise, String::as_str)
            .to_string()
    }
}

/// `-dm`: the `ssc_dynbuf`s each sub-box allocates (as a writer) and is a
/// user of.
#[derive(Default)]
pub(super) struct DynUses {
    pub writes_of: BTreeMap<ActorId, Vec<String>>,
    pub uses_of: BTreeMap<ActorId, Vec<String>>,
}

/// Every thread's loop body.
pub(super) fn thread_views(
    h: &Hsdfg,
    r: &Runtime,
    o: &COptions,
    flow: &SignalFlow,
    dynamic: &DynUses,
) -> Vec<ThreadView> {
    let finder = h.finder();
    r.thread_executions
        .iter()
        .map(|t| {
            ThreadView::new(
                format!("thread_{}", t.thread),
                t.ops
                    .iter()
                    .flat_map(|op| op_views(h, &finder, &op.value, flow, dynamic))
                    .chain(periodic_op(o, &t.thread.name))
                    .collect(),
            )
        })
        .collect()
}

/// One op of a program, with `-dm`'s statements around an `E`.
fn op_views(
    h: &Hsdfg,
    finder: &Finder,
    op: &Op,
    flow: &SignalFlow,
    dynamic: &DynUses,
) -> Vec<OpView> {
    let actor = match op {
        Op::Exec(sb) => finder.find(sb),
        _ => None,
    };
    let mut v = Vec::new();
    if let Some(a) = actor {
        for d in dynamic.writes_of.get(&a).into_iter().flatten() {
            v.push(OpView {
                code: Code::DynWrite(d.clone()),
                comment: format!("-dm: {d} allocated by the first writer"),
            });
        }
    }
    v.push(op_view(h, op, actor, flow));
    if let Some(a) = actor {
        for d in dynamic.uses_of.get(&a).into_iter().flatten() {
            v.push(OpView {
                code: Code::DynDone(d.clone()),
                comment: format!("-dm: {d} freed after its last use"),
            });
        }
    }
    v
}

fn op_view(h: &Hsdfg, op: &Op, actor: Option<ActorId>, flow: &SignalFlow) -> OpView {
    match op {
        Op::Wait(s) => OpView {
            code: Code::Wait(format!("sig_{s}")),
            comment: format!("W {s}: after {}", flow.after(s.name.as_str(), "?")),
        },
        Op::Signal(s) => OpView {
            code: Code::Signal(format!("sig_{s}")),
            comment: format!("S {s}: before {}", flow.before(s.name.as_str(), "?")),
        },
        Op::Exec(sb) => {
            let a = actor.expect("view::emit resolved every E");
            let f = h.function_of(a);
            OpView {
                code: Code::Exec(box_id(&sb.function.name, sb.index)),
                comment: format!(
                    "{}: {} over {} of {}",
                    op,
                    f.function,
                    h.actor(a).region,
                    f.name
                ),
            }
        }
        Op::Barrier(b) => OpView {
            code: Code::Barrier(format!("bar_{b}")),
            comment: format!("B {b}"),
        },
    }
}

/// The meeting of the periodic barrier (`-ks -ki N`) at the end of a
/// participant's iteration.
fn periodic_op(o: &COptions, thread: &str) -> Option<OpView> {
    let (name, every, threads) = o.periodic_barrier.as_ref()?;
    threads.iter().any(|t| t == thread).then(|| OpView {
        code: Code::Periodic {
            every: *every,
            barrier: format!("bar_{name}"),
        },
        comment: format!("-ks -ki {every}: keep the threads synced"),
    })
}
