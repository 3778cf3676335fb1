//! `-ts simple`: one thread per sub-box, no pinning, no iteration sync
//! (the thesis' One-to-One, the naive baseline: the OS schedules).

use super::{finish, list, Schedule, ScheduleOptions, SchedulerKind};
use crate::ir::hsdfg::Hsdfg;

pub fn schedule(h: &Hsdfg, opts: &ScheduleOptions) -> Schedule {
    let r = list::one_thread_per_actor(h);
    let lb = list::critical_path(h);
    finish(SchedulerKind::Simple, r, lb, false, opts, Vec::new())
}
