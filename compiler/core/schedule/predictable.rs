//! `-ts predictable N`: as fixed, but cache-aware (the thesis' Many-to-One
//! cache aware). Among threads whose start time is within
//! [`list::CACHE_TOLERANCE`] (10 %) of the actor's time from the earliest,
//! it takes the one that produced most of the actor's input bytes; among
//! ready actors whose priority is within 10 % of the top actor's time of the
//! top priority, it prefers one whose input was just produced (one of its
//! predecessors is the last actor placed on its thread).

use super::{finish, list, Schedule, ScheduleOptions, SchedulerKind};
use crate::ir::hsdfg::Hsdfg;

pub fn schedule(h: &Hsdfg, n: usize, opts: &ScheduleOptions) -> Schedule {
    let n = n.max(1);
    let prio = list::bottom_levels(h);
    let r = list::list_schedule(h, n, &prio, true);
    finish(
        SchedulerKind::Predictable(n),
        r,
        list::lower_bound(h, n),
        true,
        opts,
        Vec::new(),
    )
}
