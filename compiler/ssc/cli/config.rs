//! Resolves `ssc build`'s options into one configuration, applying docs/commands.md's
//! defaults so that `ssc build chain.ssc` alone gives the best program, and
//! recording every default applied (printed by `-v`).

use super::args::{BuildArgs, Target};
use super::defaults::{DEFAULT_MEMORY, DEFAULT_SCHEDULER, FUSED_MEMORY};
use ssc::lower::split::DataParallelism;
use ssc::memory::MemoryKind;
use ssc::schedule::SchedulerKind;

/// The options of one build, with every default filled in.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Config {
    pub threads: SchedulerKind,
    /// Threads of the schedule (for simple/barrier: the online CPUs, for -mdp).
    pub thread_count: usize,
    pub memory: MemoryKind,
    pub data_parallelism: DataParallelism,
    pub max_parts: u64,
    pub weighted: bool,
    pub pinned: bool,
    pub cores: Vec<usize>,
    pub iterations: u64,
    pub target: Target,
    /// One line per default applied: "-ts reduced 2 (default: the online CPUs)".
    pub defaults: Vec<String>,
}

/// The number of CPUs online on the machine running ssc.
pub(crate) fn online_cpus() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

impl Config {
    pub(crate) fn resolve(a: &BuildArgs) -> Config {
        let cpus = online_cpus();
        let mut defaults = Vec::new();
        let threads = match a.scheduler() {
            None => {
                let t = DEFAULT_SCHEDULER.with_threads(cpus);
                defaults.push(format!("-ts {t} (the online CPUs)"));
                t
            }
            Some(t) if t.threads() == Some(0) => {
                defaults.push(format!("-ts {} {cpus} (the online CPUs)", t.keyword()));
                t.with_threads(cpus)
            }
            Some(t) => t,
        };
        let (thread_count, mapped) = match threads.threads() {
            None => (cpus, false),
            Some(n) => (n, true),
        };
        let memory = a.memory_schedule.unwrap_or_else(|| {
            if matches!(threads, SchedulerKind::Fused(_)) {
                defaults.push(format!(
                    "-ms {} (the default of -ts {})",
                    FUSED_MEMORY.keyword(),
                    threads.keyword()
                ));
                FUSED_MEMORY
            } else {
                defaults.push(format!("-ms {}", DEFAULT_MEMORY.keyword()));
                DEFAULT_MEMORY
            }
        });
        let data_parallelism = a.data_parallelism.unwrap_or_else(|| {
            let dp = DataParallelism::default();
            defaults.push(format!("-dp {}", dp.keyword()));
            dp
        });
        let max_parts = a.max_data_parallelism.unwrap_or_else(|| {
            defaults.push(format!("-mdp {thread_count} (the thread count)"));
            thread_count as u64
        });
        let weighted = a.weighted_tokens.unwrap_or_else(|| {
            defaults.push("-wt true".into());
            true
        });
        let pinned = if a.core_affinity {
            true
        } else {
            if mapped {
                defaults.push(
                    "-ca (threads pinned: fixed, predictable and reduced pin by default)".into(),
                );
            }
            mapped
        };
        let cores = match &a.core_mask {
            Some(m) => m.0.clone(),
            None => {
                let all: Vec<usize> = (0..cpus).collect();
                defaults.push(format!(
                    "-cm {} (every online CPU)",
                    all.iter()
                        .map(|c| c.to_string())
                        .collect::<Vec<_>>()
                        .join(",")
                ));
                all
            }
        };
        let iterations = a.iteration_count.unwrap_or_else(|| {
            defaults.push("-ic 1000".into());
            1000
        });
        let target = a.target.unwrap_or_else(|| {
            defaults.push("-t linux".into());
            Target::Linux
        });
        if !a.no_thread_execution && !a.thread_execution {
            defaults.push("-te (explicit thread_execution programs)".into());
        }
        Config {
            threads,
            thread_count,
            memory,
            data_parallelism,
            max_parts,
            weighted,
            pinned,
            cores,
            iterations,
            target,
            defaults,
        }
    }
}
