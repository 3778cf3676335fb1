//! The runtime HSDFG (`-pr`, `-sl`, `-xr`, `--gg-graph runtime`): the
//! graph of what a compiled program runs, one actor per sub-box, barrier or
//! idle thread, one channel per ordering the runtime enforces.
//!
//! Built by `analysis::runtime_graph` from a compiled description, analysed
//! there (period, throughput, latency), and exported by `back::sdf3` and
//! `back::gxl`. Every time is a whole number of ns ([`ns`]).
//!
//! * **Actors**: one per sub-box `E F.k`, taking its predicted time plus the
//!   cost of the operations folded into it: every `W` before it (back to the
//!   previous `E` of its thread) adds `wt`, every `S` after it (up to the
//!   next `E`) adds `sg`; and the transfer of what it reads of other
//!   threads' sub-boxes: `tr` per KiB of its inputs that a sub-box run by
//!   another thread wrote (`Hsdfg::transfer_cost`). A `W` after a thread's last `E` belongs to its
//!   first `E` of the next iteration, an `S` before its first `E` to its last
//!   `E` of the previous one (the channel's tokens say so). One actor per
//!   barrier (time 0), and one per thread that executes nothing (time 0).
//! * **Channels**: thread program order (consecutive actors, 0 tokens; the
//!   last → the first, 1 token); one per signal, from the actor that posts
//!   it to the actor that waits for it, with the signal's initial tokens
//!   (`!s` = 1, `-kd N` = N) adjusted by the iteration shift of the folding;
//!   participant → barrier → participant for every `B`; and a self-loop with
//!   1 token on every actor (it runs on one thread, never overlapping itself).
//!
//! All times are whole nanoseconds (the µs of the timing table × 1000,
//! rounded), so the period is an exact ratio of whole numbers, and the
//! SDF3 export (`back::sdf3::sdf3_runtime`) writes exactly these
//! numbers: SDF3's throughput of that file is 1 / the period in ns.
//!

use serde::Serialize;

/// What an actor of the runtime HSDFG stands for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ActorKind {
    /// A sub-box `F.k`.
    SubBox,
    /// A barrier, met once per iteration by every participant.
    Barrier,
    /// A thread whose program executes no sub-box.
    Thread,
}

/// An actor of the runtime HSDFG.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RtActor {
    /// Unique; `F_k` for sub-box `F.k` (SDF3's actor name).
    pub name: String,
    /// What the description calls it: `F.k`, the barrier or the thread.
    pub label: String,
    /// The C function of a sub-box, else `barrier` / `thread` (SDF3's type).
    pub kind_name: String,
    pub kind: ActorKind,
    /// Predicted time with the folded waits and signals, whole ns.
    pub time_ns: u64,
    /// The thread that runs it (none for a barrier).
    pub thread: Option<String>,
    /// A sub-box of a function with no input (starts the latency).
    pub source: bool,
    /// A sub-box of a function with no output (ends the latency).
    pub sink: bool,
}

/// Why a channel exists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub enum ChannelKind {
    /// Consecutive actors of a thread (the wrap included).
    Order,
    /// A signal of the runtime.
    Signal(String),
    /// To or from a barrier actor.
    Barrier(String),
    /// An actor never overlaps itself.
    SelfLoop,
}

/// A channel of the runtime HSDFG (rates 1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RtChannel {
    pub from: usize,
    pub to: usize,
    pub tokens: u64,
    pub kind: ChannelKind,
}

/// The runtime HSDFG of a compiled description.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RuntimeGraph {
    pub actors: Vec<RtActor>,
    pub channels: Vec<RtChannel>,
}

/// Whole ns of a time in µs (≥ 0).
pub fn ns(us: f64) -> u64 {
    if us.is_finite() && us > 0.0 {
        (us * 1000.0).round() as u64
    } else {
        0
    }
}
