//! `-ts barrier`: as simple, plus a barrier between iterations (the thesis'
//! One-to-One without pipelining).

use super::{Schedule, ScheduleOptions, SchedulerKind};
use crate::ir::hsdfg::Hsdfg;

pub fn schedule(h: &Hsdfg, opts: &ScheduleOptions) -> Schedule {
    let mut s = super::simple::schedule(h, opts);
    s.kind = SchedulerKind::Barrier;
    s.iteration_barrier = true;
    s
}
