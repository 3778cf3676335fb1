//! Memory scheduling: (HSDFG, Schedule) → [`MemoryPlan`] (SPEC §3 `-ms`;
//! thesis §3.4.3).
//!
//! Takes the HSDFG and the thread schedule; gives the placement of every
//! buffer (one per OUT port, one iteration each) in the shared arena or a
//! thread's local arena, plus the ordering edges the placement relies on.
//! Guarantees: two buffers overlap in bytes only when every access of one is
//! ordered before every access of the other in every execution, by
//! dependencies, program order, or the `extra_edges` returned here (which
//! the synchronisation stage must enforce).

use crate::lower::hsdfg::{ActorId, BufferId};

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
    pub kind: MemoryKind,
    /// Indexed by `BufferId.0`.
    pub placements: Vec<Placement>,
    /// Size in bytes of the shared arena and of each thread's local arena.
    pub shared_bytes: u64,
    pub local_bytes: Vec<u64>,
    /// Orderings the synchronisation stage must enforce.
    pub extra_edges: Vec<OrderEdge>,
    /// Peak of live bytes under the schedule (the lower bound).
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
