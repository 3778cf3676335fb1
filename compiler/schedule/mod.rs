//! Thread scheduling: HSDFG → [`Schedule`] (SPEC §3 `-ts`; thesis §3.4.2).
//!
//! Takes the HSDFG; gives, for each thread, the static order of the sub-boxes
//! it runs, whether threads are pinned, and the predicted makespan of one
//! iteration with its lower bound. Guarantees: every actor is scheduled
//! exactly once; each thread's order is a topological order of the
//! dependencies restricted to that thread; the result depends only on the
//! inputs (deterministic).

use crate::lower::hsdfg::ActorId;

/// Which scheduler (`-ts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchedulerKind {
    /// One thread per sub-box, no pinning, no iteration sync.
    Simple,
    /// As simple, plus a barrier between iterations.
    Barrier,
    /// List scheduling on N pinned threads by timing and dependencies.
    Fixed(usize),
    /// As fixed, preferring the thread that produced a sub-box's inputs.
    Predictable(usize),
    /// A static order minimising peak live bytes, mapped as predictable.
    Reduced(usize),
}

/// One thread of a schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadPlan {
    /// `thread0`, `thread1`, …
    pub name: String,
    /// The core it is pinned to (`-ca`), if any.
    pub core: Option<usize>,
    /// The sub-boxes it runs, in order, each iteration.
    pub actors: Vec<ActorId>,
    /// Predicted start time of each of `actors` within an iteration, µs.
    pub start: Vec<f64>,
}

/// The result of thread scheduling.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    pub kind: SchedulerKind,
    pub threads: Vec<ThreadPlan>,
    /// A barrier between iterations (the barrier scheduler, or `-ab`).
    pub iteration_barrier: bool,
    /// Predicted makespan of one iteration, µs.
    pub makespan: f64,
    /// max(critical path, total work / threads), µs.
    pub lower_bound: f64,
    /// Lines for `-v` (search budget used by reduced, …).
    pub notes: Vec<String>,
}

impl Schedule {
    /// The thread each actor runs on, indexed by `ActorId::index()`.
    pub fn thread_of(&self, actors: usize) -> Vec<usize> {
        let mut t = vec![usize::MAX; actors];
        for (i, th) in self.threads.iter().enumerate() {
            for a in &th.actors {
                t[a.index()] = i;
            }
        }
        t
    }
}
