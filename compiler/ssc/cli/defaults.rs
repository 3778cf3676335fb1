//! The defaults of `ssc build`'s schedules: what `--help` shows
//! (`args`) and what a build without the option gets (`config`).

use ssc::memory::MemoryKind;
use ssc::schedule::SchedulerKind;

/// The scheduler of a build that makes no choice: one whose description
/// schedules itself (its runtime section), or whose candidates under
/// `-ts auto` (the default, `build/auto.rs`) all fail; with the online
/// CPUs as its thread count.
pub(crate) const DEFAULT_SCHEDULER: SchedulerKind = SchedulerKind::Reduced(0);
/// `-ms`'s default.
pub(crate) const DEFAULT_MEMORY: MemoryKind = MemoryKind::Interference;
/// `-ms`'s default with `-ts fused`.
pub(crate) const FUSED_MEMORY: MemoryKind = MemoryKind::Fold;
