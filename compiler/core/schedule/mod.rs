//! Thread scheduling: HSDFG → [`Schedule`] (`-ts` in `docs/commands.md`,
//! "`ssc build` options"; thesis §3.4.2).
//!
//! Takes the HSDFG; gives, for each thread, the static order of the sub-boxes
//! it runs, whether threads are pinned, and the predicted makespan of one
//! iteration with its lower bound. Guarantees: every actor is scheduled
//! exactly once; each thread's order is a topological order of the
//! dependencies restricted to that thread; the result depends only on the
//! inputs (deterministic).

use crate::ir::hsdfg::{ActorId, Hsdfg};
use std::time::Duration;

pub mod barrier;
pub mod fixed;
pub mod fused;
pub mod given;
pub mod list;
pub mod predictable;
pub mod reduced;
pub mod simple;

/// Options of thread scheduling.
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduleOptions {
    /// The cores to use (`-cm c,c,…`); `None`: `0, 1, …, N−1`.
    pub cores: Option<Vec<usize>>,
    /// Pin thread i to core `cores[i % len]` (`-ca`). Fixed, predictable and
    /// reduced pin their threads whatever this says (ARCHITECTURE.md,
    /// "Pinning"); it makes simple and barrier pin too.
    pub affinity: bool,
    /// Budget of the reduced order search: (max states, max time). The state
    /// budget is deterministic; the time budget is a safety net only.
    pub reduced_budget: (usize, Duration),
}

impl Default for ScheduleOptions {
    fn default() -> Self {
        ScheduleOptions {
            cores: None,
            affinity: false,
            reduced_budget: (200_000, Duration::from_secs(5)),
        }
    }
}

/// Thread scheduling (`-ts`): see the module documentation.
pub fn schedule(h: &Hsdfg, kind: SchedulerKind, opts: &ScheduleOptions) -> Schedule {
    match kind {
        SchedulerKind::Simple => simple::schedule(h, opts),
        SchedulerKind::Barrier => barrier::schedule(h, opts),
        SchedulerKind::Fixed(n) => fixed::schedule(h, n, opts),
        SchedulerKind::Predictable(n) => predictable::schedule(h, n, opts),
        SchedulerKind::Reduced(n) => reduced::schedule(h, n, opts),
        SchedulerKind::Fused(n) => fused::schedule(h, n, opts),
    }
}

/// Turns a list schedule into a [`Schedule`]: drops threads that got no
/// actor, names the rest `thread0…`, pins them when asked. (The pipeline
/// warns about dropped threads, E500/E501: it knows the threads asked.)
fn finish(
    kind: SchedulerKind,
    r: list::ListResult,
    lower_bound: f64,
    pinned: bool,
    opts: &ScheduleOptions,
    mut notes: Vec<String>,
) -> Schedule {
    let pinned = pinned || opts.affinity;
    let threads: Vec<ThreadPlan> = r
        .threads
        .into_iter()
        .filter(|t| !t.0.is_empty())
        .enumerate()
        .map(|(i, (actors, start))| ThreadPlan {
            name: format!("thread{i}"),
            core: pinned.then(|| match &opts.cores {
                Some(c) if !c.is_empty() => c[i % c.len()],
                _ => i,
            }),
            actors,
            start,
        })
        .collect();
    notes.push(format!(
        "makespan {:.1} µs, lower bound {:.1} µs",
        r.makespan, lower_bound
    ));
    Schedule {
        kind,
        threads,
        iteration_barrier: matches!(kind, SchedulerKind::Barrier),
        makespan: r.makespan,
        lower_bound,
        notes,
    }
}

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
    /// Strips of rows depth first through the chain, strip k on thread
    /// k mod N (cache-resident streaming, see [`fused`]).
    Fused(usize),
}

impl SchedulerKind {
    /// Every kind, in the order `--help` lists them; a counted kind with 0
    /// threads (not yet resolved to the online CPUs). This stage owns the
    /// `-ts` vocabulary: the command line lists and parses from here.
    pub const ALL: [SchedulerKind; 6] = [
        SchedulerKind::Simple,
        SchedulerKind::Barrier,
        SchedulerKind::Fixed(0),
        SchedulerKind::Predictable(0),
        SchedulerKind::Reduced(0),
        SchedulerKind::Fused(0),
    ];

    /// The `-ts` keyword.
    pub const fn keyword(self) -> &'static str {
        match self {
            SchedulerKind::Simple => "simple",
            SchedulerKind::Barrier => "barrier",
            SchedulerKind::Fixed(_) => "fixed",
            SchedulerKind::Predictable(_) => "predictable",
            SchedulerKind::Reduced(_) => "reduced",
            SchedulerKind::Fused(_) => "fused",
        }
    }

    /// Every `-ts` keyword, in the order of [`SchedulerKind::ALL`].
    pub fn keywords() -> [&'static str; 6] {
        SchedulerKind::ALL.map(SchedulerKind::keyword)
    }

    /// The kind of a keyword, with 0 threads if counted.
    fn of_keyword(keyword: &str) -> Option<SchedulerKind> {
        SchedulerKind::ALL
            .into_iter()
            .find(|k| k.keyword() == keyword)
    }

    /// `-ts`'s kinds as `--help` spells them, `simple`, `fixed N`, … in the
    /// order of [`SchedulerKind::ALL`], with `count` after a counted one
    /// (`" N"`, `"[N]"`).
    pub fn synopsis(count: &str) -> Vec<String> {
        SchedulerKind::ALL
            .iter()
            .map(|k| match k.threads() {
                Some(_) => format!("{}{count}", k.keyword()),
                None => k.keyword().to_string(),
            })
            .collect()
    }

    /// Whether the keyword takes a thread count (`fixed N`).
    pub fn counted(keyword: &str) -> bool {
        SchedulerKind::of_keyword(keyword).is_some_and(|k| k.threads().is_some())
    }

    /// The thread count of a counted kind (0: not yet resolved to the
    /// online CPUs); `None` for simple and barrier (a thread per sub-box).
    pub fn threads(self) -> Option<usize> {
        match self {
            SchedulerKind::Simple | SchedulerKind::Barrier => None,
            SchedulerKind::Fixed(n)
            | SchedulerKind::Predictable(n)
            | SchedulerKind::Reduced(n)
            | SchedulerKind::Fused(n) => Some(n),
        }
    }

    /// The same kind with `n` threads (simple and barrier unchanged).
    pub fn with_threads(self, n: usize) -> SchedulerKind {
        match self {
            SchedulerKind::Simple | SchedulerKind::Barrier => self,
            SchedulerKind::Fixed(_) => SchedulerKind::Fixed(n),
            SchedulerKind::Predictable(_) => SchedulerKind::Predictable(n),
            SchedulerKind::Reduced(_) => SchedulerKind::Reduced(n),
            SchedulerKind::Fused(_) => SchedulerKind::Fused(n),
        }
    }

    /// `KIND [N]` as the command line spells it; a counted kind without N
    /// gets 0 (resolved to the online CPUs by the caller).
    pub fn parse(kind: &str, count: Option<&str>) -> Result<SchedulerKind, String> {
        let threads = match count {
            None => 0,
            Some(n) => match n.parse::<usize>() {
                Ok(0) => return Err(format!("`{kind}` needs at least 1 thread, found 0")),
                Ok(v) if v <= 4096 => v,
                _ => {
                    return Err(format!(
                        "expected a thread count from 1 to 4096, found `{n}`"
                    ))
                }
            },
        };
        match SchedulerKind::of_keyword(kind) {
            Some(k) if k.threads().is_none() && count.is_some() => Err(format!(
                "`{kind}` takes no thread count: it runs one thread per sub-box"
            )),
            Some(k) => Ok(k.with_threads(threads)),
            None => {
                let mut expected = SchedulerKind::synopsis(" N");
                let last = expected.pop().unwrap_or_default();
                Err(format!(
                    "unknown thread schedule `{kind}`: expected {} or {last}",
                    expected.join(", ")
                ))
            }
        }
    }

    /// `KIND [N]` as one value (`reduced 4`, `simple`), as `-ts` takes it
    /// once the command line has joined its words.
    pub fn parse_words(s: &str) -> Result<SchedulerKind, String> {
        let mut words = s.split_whitespace();
        let kind = words.next().unwrap_or("");
        let count = words.next();
        if words.next().is_some() {
            return Err(format!("expected `KIND [N]`, found `{s}`"));
        }
        SchedulerKind::parse(kind, count)
    }
}

impl std::fmt::Display for SchedulerKind {
    /// `reduced 2`, `simple`: as `-ts` takes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.threads() {
            Some(n) => write!(f, "{} {n}", self.keyword()),
            None => f.write_str(self.keyword()),
        }
    }
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
