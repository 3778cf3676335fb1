//! Memory scheduling: (HSDFG, Schedule) → [`MemoryPlan`] (`-ms` in
//! `docs/commands.md`, "`ssc build` options"; thesis §3.4.3).
//!
//! Takes the HSDFG and the thread schedule; gives the placement of every
//! buffer (one per OUT port, one iteration each) in the shared arena or a
//! thread's local arena, plus the ordering edges the placement relies on.
//! Guarantees: two buffers overlap in bytes only when every access of one is
//! ordered before every access of the other in every execution, by
//! dependencies, program order, or the `extra_edges` returned here (which
//! the synchronisation stage must enforce).
//!
//! One module per allocator ([`none`], [`naive`], [`reuse`],
//! [`interference`], [`mesif`]); [`lifetime`] holds the orderings, the
//! interference relation, the global order and the cross-iteration edges
//! (with the argument why sharing is safe); [`bound`] the lower bound;
//! [`sections`] reads the placements a runtime section writes.
//! [`allocate`] runs one allocator, adds the edges and the notes;
//! [`check_plan`] re-checks a plan against the rule above, saying what
//! breaks it as a [`PlanError`] (ids into the HSDFG, named on display).
//!
//! **`-dm dynamic|reduced`** allocates each buffer per iteration at run
//! time (`ssc_dynbuf` in `runtime-c/ssc_memory.h`: the first writer sub-box
//! of an iteration allocates — `malloc`, or under `reduced` a block of the
//! pool of its size — and fills in every port that points at the buffer;
//! the last of its writers and readers frees it); it overrides `-ms` (memory
//! as `-ms none`, no memory section in the printed runtime). With
//! fine-grained dependencies no single point exists where an instance is
//! dead (a writer of iteration i + 1 may start while a reader of i reads
//! other rows), so [`dynamic_edges`] adds coarse orderings to
//! `MemoryPlan::extra_edges`: every reader and every other writer of a
//! buffer before every writer of the next iteration (1 token), and a writer
//! before each reader that depends on none (0 tokens). Sync enforces them
//! like any extra edge, so they show in the printed runtime as the signals
//! they add, and verify proves them (`sync::Extras::orderings`); at most one
//! instance of each buffer is then live. A hand-written runtime under `-dm`
//! is honoured only when it already orders these uses (else E211 with the
//! counter-example), and its memory section is then ignored by the program.
//! Writers call `ssc_dyn_done` too: a writer's rows need not be read by any
//! reader, so only counting every user makes the free safe.

pub mod bound;
pub mod fold;
pub mod interference;
pub mod lifetime;
pub mod mesif;
pub mod naive;
pub mod none;
pub mod reuse;
pub mod ring;
pub mod sections;

use crate::ir::hsdfg::{ActorId, BufferId, Hsdfg};
use crate::schedule::Schedule;
use lifetime::Lifetimes;
use std::fmt;

/// Which allocator (`-ms`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryKind {
    /// Each buffer allocated on its own by the runtime.
    None,
    /// One range per buffer in one arena.
    Naive,
    /// Ranges freed within an iteration are reused first-fit by an equal size.
    Reuse,
    /// Interference graph from the schedule, first-fit at any offset.
    Interference,
    /// Interference plus cache-coherence awareness.
    Mesif,
    /// Each buffer a ring of the rows live at once ([`fold`]).
    Fold,
}

/// Where a buffer lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArenaId {
    Shared,
    /// The local arena of thread `n` (producer and all readers run there).
    Local(usize),
}

/// The placement of one buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub arena: ArenaId,
    /// Byte offset within the arena.
    pub offset: u64,
    pub bytes: u64,
}

impl Placement {
    /// The rows of `b` this placement holds when it is a ring (storage
    /// folding: row `y` at row `y mod R`), or `None` when it holds the
    /// whole grid. A placement smaller than its buffer is a ring of as many
    /// whole rows as fit; this is the one reading of it, for the checker and
    /// every back end.
    pub fn fold(&self, b: &crate::ir::hsdfg::Buffer) -> Option<u64> {
        let row = b.grid.x * b.ty.size();
        (self.bytes < b.bytes && row > 0).then(|| self.bytes / row)
    }
}

/// An ordering the placement relies on: `from` (of iteration i) happens
/// before `to` (of iteration i + tokens).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OrderEdge {
    pub from: ActorId,
    pub to: ActorId,
    pub tokens: u32,
    /// The buffer whose bytes are reused: `from` is its last access, `to` writes the next buffer placed there.
    pub buffer: BufferId,
}

/// The result of memory scheduling.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryPlan {
    /// The allocator; `None` when the placements were written in the
    /// description's runtime section ([`as_written`]).
    pub kind: Option<MemoryKind>,
    /// Indexed by `BufferId.0`.
    pub placements: Vec<Placement>,
    /// Size in bytes of the shared arena and of each thread's local arena.
    pub shared_bytes: u64,
    pub local_bytes: Vec<u64>,
    /// Orderings the synchronisation stage must enforce.
    pub extra_edges: Vec<OrderEdge>,
    /// No plan obeying the sharing rule uses fewer bytes: the larger of the
    /// peak of live bytes over the global order and the heaviest set of
    /// pairwise unordered buffers (see [`bound`]).
    pub lower_bound: u64,
    /// Lines for `-v`.
    pub notes: Vec<String>,
}

impl MemoryPlan {
    /// Bytes used in all arenas together.
    pub fn used_bytes(&self) -> u64 {
        self.shared_bytes + self.local_bytes.iter().sum::<u64>()
    }
}

impl MemoryKind {
    /// The `-ms` keyword.
    pub const fn keyword(self) -> &'static str {
        match self {
            MemoryKind::None => "none",
            MemoryKind::Naive => "naive",
            MemoryKind::Reuse => "reuse",
            MemoryKind::Interference => "interference",
            MemoryKind::Mesif => "mesif",
            MemoryKind::Fold => "fold",
        }
    }

    pub const ALL: [MemoryKind; 6] = [
        MemoryKind::None,
        MemoryKind::Naive,
        MemoryKind::Reuse,
        MemoryKind::Interference,
        MemoryKind::Mesif,
        MemoryKind::Fold,
    ];

    /// Every `-ms` keyword, in the order of [`MemoryKind::ALL`].
    pub fn keywords() -> [&'static str; 6] {
        MemoryKind::ALL.map(MemoryKind::keyword)
    }
}

impl std::str::FromStr for MemoryKind {
    type Err = String;

    /// The `-ms` keyword.
    fn from_str(s: &str) -> Result<MemoryKind, String> {
        MemoryKind::ALL
            .into_iter()
            .find(|k| k.keyword() == s)
            .ok_or_else(|| {
                format!(
                    "unknown memory schedule `{s}`: expected {}",
                    MemoryKind::keywords().join(", ")
                )
            })
    }
}

/// Place every buffer of `h` under schedule `s` with allocator `kind`.
/// Deterministic: depends only on the inputs.
pub fn allocate(h: &Hsdfg, s: &Schedule, kind: MemoryKind) -> MemoryPlan {
    let lt = Lifetimes::new(h, s);
    allocate_with(h, s, &lt, kind)
}

/// [`allocate`] with the orderings already computed (to run several
/// allocators on one schedule).
pub fn allocate_with(h: &Hsdfg, s: &Schedule, lt: &Lifetimes, kind: MemoryKind) -> MemoryPlan {
    if kind == MemoryKind::Fold {
        let f = fold::place(h, s);
        let mut plan = plan_of(h, s, lt, Some(kind), f.placements, f.edges, f.notes);
        // The whole-buffer bound does not hold for rings: the least a ring
        // placement of these bands can use instead.
        plan.lower_bound = f.least;
        let used = plan.used_bytes();
        if let Some(head) = plan.notes.first_mut() {
            *head = format!(
                "memory fold: {} buffers, {} bytes used, lower bound {} bytes (every ring holds its widest access)",
                h.buffers.len(),
                used,
                f.least
            );
        }
        return plan;
    }
    let (placements, notes) = match kind {
        MemoryKind::Fold => unreachable!("handled above"),
        MemoryKind::None => (none::place(lt), Vec::new()),
        MemoryKind::Naive => (naive::place(lt), Vec::new()),
        MemoryKind::Reuse => (reuse::place(lt), Vec::new()),
        MemoryKind::Interference => interference::place(lt),
        MemoryKind::Mesif => mesif::place(h, lt),
    };
    let extra_edges = match kind {
        MemoryKind::None | MemoryKind::Naive => Vec::new(),
        _ => lt.order_edges(&placements),
    };
    plan_of(h, s, lt, Some(kind), placements, extra_edges, notes)
}

/// The plan of placements written in a runtime section (`memory_mapping`,
/// `memory_binding`, read by [`sections::placements`]):
/// honoured as they are, with the cross-iteration edges their byte sharing
/// needs. Whether they are safe at all is [`check_plan`]'s to say.
pub fn as_written(h: &Hsdfg, s: &Schedule, placements: Vec<Placement>) -> MemoryPlan {
    let lt = Lifetimes::new(h, s);
    let mut extra_edges = lt.order_edges(&placements);
    extra_edges.extend(fold::ring_orderings(h, s, &placements));
    plan_of(h, s, &lt, None, placements, extra_edges, Vec::new())
}

/// Sizes, bound and notes of a placement.
fn plan_of(
    h: &Hsdfg,
    s: &Schedule,
    lt: &Lifetimes,
    kind: Option<MemoryKind>,
    placements: Vec<Placement>,
    extra_edges: Vec<OrderEdge>,
    mut notes: Vec<String>,
) -> MemoryPlan {
    let name = kind.map_or("as written", MemoryKind::keyword);
    let (shared_bytes, local_bytes) = lifetime::arena_sizes(&placements, s.threads.len());
    let (peak, ac) = (bound::peak_live(lt), bound::antichain(lt));
    let lower_bound = peak.max(ac);
    let plan = MemoryPlan {
        kind,
        placements,
        shared_bytes,
        local_bytes,
        extra_edges,
        lower_bound,
        notes: Vec::new(),
    };
    let used = plan.used_bytes();
    let mut head = vec![format!(
        "memory {}: {} buffers, {} bytes used, lower bound {} bytes (max of the peak live over the global order, {}, and the heaviest set of pairwise unordered buffers, {}){}",
        name,
        h.buffers.len(),
        used,
        lower_bound,
        peak,
        ac,
        if lower_bound > 0 {
            format!(", {:+.1}%", (used as f64 / lower_bound as f64 - 1.0) * 100.0)
        } else {
            String::new()
        }
    )];
    if kind == Some(MemoryKind::None) {
        head.push(format!(
            "memory none: each of the {} buffers is allocated on its own by the runtime",
            h.buffers.len()
        ));
    }
    let locals = plan
        .placements
        .iter()
        .filter(|p| matches!(p.arena, ArenaId::Local(_)))
        .count();
    if locals > 0 {
        head.push(format!(
            "memory {}: {} buffers in thread-local arenas",
            name, locals
        ));
    }
    if !plan.extra_edges.is_empty() {
        head.push(format!(
            "memory {}: {} cross-iteration ordering edges for reused bytes",
            name,
            plan.extra_edges.len()
        ));
    }
    if ac > peak {
        head.push(format!(
            "memory {}: the unordered buffers outweigh the peak live by {} bytes (threads run concurrently)",
            name,
            ac - peak
        ));
    }
    head.append(&mut notes);
    MemoryPlan {
        notes: head,
        ..plan
    }
}

/// Why [`check_plan`] refuses a plan: ids into the HSDFG it was checked
/// against, named by [`PlanError::display`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// Not one placement per buffer.
    PlacementCount { placements: usize, buffers: usize },
    /// A folded buffer whose ring holds no row.
    EmptyRing { buffer: BufferId },
    /// Fewer bytes than the buffer, and fewer than one of its rows.
    TooSmall { buffer: BufferId, placed: u64 },
    /// In the local arena of `thread`, but some accessor runs elsewhere.
    NotLocal { buffer: BufferId, thread: usize },
    /// `[start, end)` reaches past the end of its arena.
    PastArena {
        buffer: BufferId,
        start: u64,
        end: u64,
        arena_bytes: u64,
    },
    /// An ordering edge without a token outside a ring (may deadlock).
    TokenlessEdge(OrderEdge),
    /// Overlapping buffers whose accesses are not ordered within an iteration.
    Unordered { first: BufferId, second: BufferId },
    /// `first` is placed before `second`, but its accessor `x` does not
    /// happen before `second`'s accessor `y`.
    AccessNotBefore {
        first: BufferId,
        second: BufferId,
        x: ActorId,
        y: ActorId,
    },
    /// `later` reuses the bytes of `earlier`, but `later`'s accessor `y` of
    /// iteration i is not ordered before `earlier`'s accessor `x` of i + 1.
    ReuseUnordered {
        earlier: BufferId,
        later: BufferId,
        x: ActorId,
        y: ActorId,
    },
}

impl PlanError {
    /// The buffers the error is about, in the order the message names them.
    pub fn buffers(&self) -> Vec<BufferId> {
        match *self {
            PlanError::PlacementCount { .. } => Vec::new(),
            PlanError::EmptyRing { buffer }
            | PlanError::TooSmall { buffer, .. }
            | PlanError::NotLocal { buffer, .. }
            | PlanError::PastArena { buffer, .. } => vec![buffer],
            PlanError::TokenlessEdge(e) => vec![e.buffer],
            PlanError::Unordered { first, second }
            | PlanError::AccessNotBefore { first, second, .. } => vec![first, second],
            PlanError::ReuseUnordered { earlier, later, .. } => vec![later, earlier],
        }
    }

    /// The message, with the names of `h` (the HSDFG the plan was checked
    /// against).
    pub fn display<'a>(&'a self, h: &'a Hsdfg) -> impl fmt::Display + 'a {
        PlanErrorText { e: self, h }
    }
}

struct PlanErrorText<'a> {
    e: &'a PlanError,
    h: &'a Hsdfg,
}

impl fmt::Display for PlanErrorText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = self.h;
        let buf = |b: BufferId| &h.buffer(b).name;
        let actor = |a: ActorId| &h.actor(a).subbox;
        match *self.e {
            PlanError::PlacementCount {
                placements,
                buffers,
            } => write!(f, "{placements} placements for {buffers} buffers"),
            PlanError::EmptyRing { buffer } => write!(f, "{}: a ring of 0 rows", buf(buffer)),
            PlanError::TooSmall { buffer, placed } => write!(
                f,
                "{}: {placed} bytes placed for {}",
                buf(buffer),
                h.buffer(buffer).bytes
            ),
            PlanError::NotLocal { buffer, thread } => write!(
                f,
                "{} in the local arena of thread {thread}, but not all its accessors run there",
                buf(buffer)
            ),
            PlanError::PastArena {
                buffer,
                start,
                end,
                arena_bytes,
            } => write!(
                f,
                "{}: [{start}, {end}) past its arena ({arena_bytes} bytes)",
                buf(buffer)
            ),
            PlanError::TokenlessEdge(e) => write!(
                f,
                "extra edge {} → {} (reusing the bytes of {}) has no token (may deadlock)",
                actor(e.from),
                actor(e.to),
                buf(e.buffer)
            ),
            PlanError::Unordered { first, second } => write!(
                f,
                "{} and {} overlap in bytes but their accesses are not ordered within an iteration",
                buf(first),
                buf(second)
            ),
            PlanError::AccessNotBefore {
                first,
                second,
                x,
                y,
            } => write!(
                f,
                "{} (before {}) accessed by {} not before {}",
                buf(first),
                buf(second),
                actor(x),
                actor(y)
            ),
            PlanError::ReuseUnordered {
                earlier,
                later,
                x,
                y,
            } => write!(
                f,
                "{} reuses the bytes of {}, but {} (iteration i) is not ordered before {} (iteration i+1)",
                buf(later),
                buf(earlier),
                actor(y),
                actor(x)
            ),
        }
    }
}

/// Internal consistency check of a plan (the real proof is the runtime
/// checker): one placement per buffer, covering its bytes and inside its
/// arena; local arenas only for buffers whose accessors all run on that
/// thread; and any two buffers whose ranges overlap in one arena are
/// ordered — every access of one before every access of the other within
/// an iteration (dependencies + program order), and every access of the
/// later one before every access of the earlier one in the next iteration
/// (a path of at most one token through the HSDFG, program order with its
/// wrap-around and the plan's extra edges, or an iteration barrier).
pub fn check_plan(h: &Hsdfg, s: &Schedule, plan: &MemoryPlan) -> Result<(), PlanError> {
    let lt = Lifetimes::new(h, s);
    check_placements(h, &lt, plan)?;
    // A ring's 0-token orderings were checked acyclic by `fold`, and the
    // runtime checker proves them; every other plan orders across iterations only.
    for e in &plan.extra_edges {
        let ring = plan.placements[e.buffer.0]
            .fold(h.buffer(e.buffer))
            .is_some();
        if e.tokens == 0 && !ring && plan.kind != Some(MemoryKind::None) {
            return Err(PlanError::TokenlessEdge(*e));
        }
    }
    check_overlaps(&lt, plan)
}

/// Each placement against its buffer and its arena.
fn check_placements(h: &Hsdfg, lt: &Lifetimes, plan: &MemoryPlan) -> Result<(), PlanError> {
    let nb = h.buffers.len();
    if plan.placements.len() != nb {
        return Err(PlanError::PlacementCount {
            placements: plan.placements.len(),
            buffers: nb,
        });
    }
    for (b, p) in plan.placements.iter().enumerate() {
        let buffer = BufferId(b);
        let buf = &h.buffers[b];
        if p.fold(buf) == Some(0) {
            return Err(PlanError::EmptyRing { buffer });
        }
        if p.bytes < buf.bytes && p.bytes < buf.grid.x * buf.ty.size() {
            return Err(PlanError::TooSmall {
                buffer,
                placed: p.bytes,
            });
        }
        let size = match p.arena {
            ArenaId::Shared => plan.shared_bytes,
            ArenaId::Local(t) => {
                if lt.single_thread(b) != Some(t) {
                    return Err(PlanError::NotLocal { buffer, thread: t });
                }
                plan.local_bytes.get(t).copied().unwrap_or(0)
            }
        };
        if p.offset + p.bytes > size {
            return Err(PlanError::PastArena {
                buffer,
                start: p.offset,
                end: p.offset + p.bytes,
                arena_bytes: size,
            });
        }
    }
    Ok(())
}

/// Every two overlapping buffers ordered, within an iteration and across.
fn check_overlaps(lt: &Lifetimes, plan: &MemoryPlan) -> Result<(), PlanError> {
    let (pairs, bad) = lt.overlaps(&plan.placements);
    if let Some(&(a, b)) = bad.first() {
        return Err(PlanError::Unordered {
            first: BufferId(a),
            second: BufferId(b),
        });
    }
    // Independent of `before`: every pair of accesses, one by one.
    for &(a, b) in &pairs {
        for &x in &lt.accessors[a] {
            for &y in &lt.accessors[b] {
                if !lt.reaches(x, y) {
                    return Err(PlanError::AccessNotBefore {
                        first: BufferId(a),
                        second: BufferId(b),
                        x: ActorId::new(x),
                        y: ActorId::new(y),
                    });
                }
            }
        }
    }
    if lt.barrier {
        return Ok(());
    }
    let mut extra = lt.extra_edges();
    for e in plan.extra_edges.iter().filter(|e| e.tokens == 1) {
        extra.insert(e.from.index(), e.to.index());
    }
    for &(a, b) in &pairs {
        for &x in &lt.accessors[a] {
            for &y in &lt.accessors[b] {
                if !lt.within1(y, x, &extra) {
                    return Err(PlanError::ReuseUnordered {
                        earlier: BufferId(a),
                        later: BufferId(b),
                        x: ActorId::new(x),
                        y: ActorId::new(y),
                    });
                }
            }
        }
    }
    Ok(())
}

/// The writer and reader sub-boxes of a buffer, for `-dm`: every sub-box
/// of its producer, and every sub-box of each function reading it (a
/// kernel sees all its ports, so a sub-box that reads no row of the buffer
/// still reads the port that points at it). Sorted, without repeats.
pub fn buffer_users(h: &Hsdfg, b: BufferId) -> (Vec<ActorId>, Vec<ActorId>) {
    let buf = h.buffer(b);
    let writers = h.function(buf.producer.0).subboxes.clone();
    let mut readers: Vec<ActorId> = buf
        .readers
        .iter()
        .flat_map(|(f, _)| h.function(*f).subboxes.iter().copied())
        .filter(|a| !writers.contains(a))
        .collect();
    readers.sort();
    readers.dedup();
    (writers, readers)
}

/// `-dm dynamic|reduced`: the orderings that let a buffer be allocated by
/// its first writer of an iteration and freed by its last user (see
/// `runtime-c/ssc_memory.h`, `ssc_dynbuf`). With fine-grained dependencies a
/// writer of iteration i + 1 may start while readers of iteration i still
/// read other rows, so there is no single point where an instance is dead;
/// these coarse edges make one:
/// * every reader and every other writer of iteration i before every writer
///   of iteration i + 1 (1 token): all users of i finish (and the last one
///   frees) before the allocation of i + 1, so one instance is live;
/// * a writer before each reader that depends on none (0 tokens): every use
///   of an iteration comes after its allocation (the readers that depend on
///   a writer already do).
pub fn dynamic_edges(h: &Hsdfg) -> Vec<OrderEdge> {
    let mut out = Vec::new();
    for bi in 0..h.buffers.len() {
        let b = BufferId(bi);
        if h.buffer(b).initial.is_some() {
            // A state buffer (a delay) is allocated once, for the whole
            // run: its delay edges order its uses.
            continue;
        }
        let (writers, readers) = buffer_users(h, b);
        for &w in &writers {
            for &u in readers.iter().chain(&writers) {
                if u != w {
                    out.push(OrderEdge {
                        from: u,
                        to: w,
                        tokens: 1,
                        buffer: b,
                    });
                }
            }
        }
        for &r in &readers {
            let fed = h.predecessors(r).iter().any(|p| writers.contains(p));
            if !fed {
                if let Some(&w) = writers.first() {
                    out.push(OrderEdge {
                        from: w,
                        to: r,
                        tokens: 0,
                        buffer: b,
                    });
                }
            }
        }
    }
    out
}
