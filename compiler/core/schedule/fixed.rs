//! `-ts fixed N`: list scheduling on N pinned threads by timing and
//! dependencies only (the thesis' Many-to-One). Priority: the longest path
//! (by time) to a sink; each ready actor, highest priority first, goes to the
//! thread where it can start earliest (see [`super::list`] for the model).

use super::{finish, list, Schedule, ScheduleOptions, SchedulerKind};
use crate::ir::hsdfg::Hsdfg;

pub fn schedule(h: &Hsdfg, n: usize, opts: &ScheduleOptions) -> Schedule {
    let n = n.max(1);
    let prio = list::bottom_levels(h);
    let r = list::list_schedule(h, n, &prio, false);
    finish(
        SchedulerKind::Fixed(n),
        r,
        list::lower_bound(h, n),
        true,
        opts,
        Vec::new(),
    )
}
