//! Whether `-ts fused N` streams strips, or runs the chain box-at-a-time.
//!
//! Takes the description and the pipeline's options; gives the lowering
//! options to use and, for a chain that gains nothing from strips, the
//! decision to schedule it box-at-a-time instead, with the warning that
//! says so (E140).
//!
//! Strips pay when a frame does not fit the per-core cache
//! ([`split::streams`]): box-at-a-time, such frames go through DRAM or the
//! last-level cache, streamed they stay in the core's cache. When every
//! output frame fits the cache budget, a box-at-a-time schedule already
//! finds each frame in the cache, and strips only add sub-boxes (a call
//! and its timing each) and waits at the band borders: measured 5–41 %
//! slower on the ten generated 256² chains (`ssc generate`). Unless the
//! user forced strips (`--strip-rows`, `--cache-bytes`), such a chain is
//! scheduled with `predictable N` — the list schedule by critical path
//! that keeps a consumer on its producer's thread — and, unless `-ms` was
//! given, placed with `-ms naive` when every buffer, each in bytes of its
//! own, fits the caches of the threads' cores together (threads × the
//! budget), else with `-ms interference` (`fold` folds little without
//! strips and uses more bytes). Naive then keeps each buffer in the caches
//! from one iteration to the next, written by the same core every time,
//! where interference packs the buffers into fewer bytes that one
//! iteration hands from buffer to buffer and so from core to core:
//! predictable's program on gen10 (3.7 MB naive, 0.7 MB interference, 2 ×
//! 2 MiB of level-2 cache) measured 0.94–0.95× with naive and 1.03–1.05×
//! with interference against `reduced 2 -ms interference`. Where the naive
//! layout overflows the caches it is slower (gen2, 14.7 MB: 1.03×), so
//! the rule stops at their size. `reduced N`, whose
//! order keeps the least data live, was the choice before: when every
//! frame fits the cache that buys nothing, and its order lets iterations
//! overlap more, so its mean latency was up to 1.06× predictable's (gen5,
//! gen6, gen8) where
//! predictable stayed within 1.014× of reduced, measured interleaved on
//! the ten chains. Choosing by `-pr`'s predicted
//! makespan was tried and measured worse: the predictions of reduced,
//! predictable and fixed differ by a few percent, less than the model's
//! error; it ran up to 1.20× the best of the three.
//!
//! Guarantees: with strips forced, with a frame as large as the budget, or
//! for a description whose runtime section already schedules it, the
//! options are returned unchanged and nothing falls back.
//!
//! Under `-ts fused` a caller that gives no strip options (a library user)
//! gets the default budget here (`Strips::default_cache_bytes`: the
//! per-core level-2 cache sysfs shows, else 1 MiB).

use super::Options;
use crate::diagnostics::Diagnostic;
use crate::ir::hsdfg::Hsdfg;
use crate::ir::Description;
use crate::lower::split::{self, Strips};
use crate::lower::LowerOptions;
use crate::memory::MemoryKind;
use crate::schedule::{Schedule, ScheduleOptions, SchedulerKind};

/// `-ts fused N` on a chain whose frames all fit the cache budget.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fallback {
    pub threads: usize,
    /// The largest output frame, bytes.
    pub largest: u128,
    /// The cache budget it fits, bytes.
    pub budget: u64,
}

/// The lowering options for `desc` under `opts` (strips sized to the
/// default cache budget when `-ts fused` gave none), and the fallback
/// when fused would not stream.
pub(super) fn decide(
    desc: &Description,
    opts: &Options,
) -> Result<(LowerOptions, Option<Fallback>), Vec<Diagnostic>> {
    let mut lower = opts.lower.clone();
    let SchedulerKind::Fused(threads) = opts.scheduler else {
        return Ok((lower, None));
    };
    let strips = *lower
        .split
        .strips
        .get_or_insert(Strips::new(Strips::default_cache_bytes()));
    let scheduled = desc
        .runtime
        .as_ref()
        .is_some_and(|r| !r.thread_executions.is_empty() || !r.thread_schedule.is_empty());
    if strips.forced || strips.rows.is_some() || scheduled || desc.instantiation.is_some() {
        return Ok((lower, None));
    }
    let declared = crate::lower::lower_to_declaration(desc, &lower)?;
    let Some(decl) = &declared.declaration else {
        return Ok((lower, None));
    };
    if split::streams(decl, strips.cache_bytes) {
        return Ok((lower, None));
    }
    lower.split.strips = None;
    Ok((
        lower,
        Some(Fallback {
            threads,
            largest: split::largest_output_frame(decl),
            budget: strips.cache_bytes,
        }),
    ))
}

/// The memory schedule under the fallback: the one `-ms` gave; else
/// `naive` when every buffer, each in bytes of its own, fits the caches of
/// the fallback's cores together (threads × the budget); else
/// `interference`.
pub(super) fn memory(opts: &Options, h: &Hsdfg, fallback: &Fallback) -> MemoryKind {
    if opts.asked.memory {
        opts.memory
    } else if naive_fits(h, fallback) {
        MemoryKind::Naive
    } else {
        MemoryKind::Interference
    }
}

/// Whether `-ms naive`'s layout (every buffer in bytes of its own, the sum
/// of their sizes) fits `threads × budget`.
fn naive_fits(h: &Hsdfg, fallback: &Fallback) -> bool {
    let all: u128 = h.buffers.iter().map(|b| u128::from(b.bytes)).sum();
    all <= fallback.threads as u128 * u128::from(fallback.budget)
}

/// The box-at-a-time schedule: `predictable N` on the fallback's threads.
pub(super) fn schedule(h: &Hsdfg, fallback: &Fallback, opts: &ScheduleOptions) -> Schedule {
    crate::schedule::schedule(h, SchedulerKind::Predictable(fallback.threads), opts)
}

/// E140: what ran instead of `-ts fused N`, why, and how to stream anyway.
pub(super) fn warning(
    desc: &Description,
    fallback: &Fallback,
    chosen: &Schedule,
    memory: MemoryKind,
) -> Diagnostic {
    let mut d = Diagnostic::warning(
        "E140",
        format!(
            "`-ts fused {}` runs this chain box-at-a-time, as `-ts {} -ms {}`: every frame fits the cache budget (the largest is {}, the budget {})",
            fallback.threads,
            chosen.kind,
            memory.keyword(),
            bytes(fallback.largest),
            bytes(fallback.budget as u128),
        ),
    );
    if let Some(c) = desc.composition.as_ref().and_then(|c| c.compose.as_ref()) {
        d = d.label(c.span, "the frames of this chain fit the per-core cache");
    }
    d.hint("strips pay when frames overflow the per-core cache (docs/fused.md); to stream strips anyway give --strip-rows N or --cache-bytes B")
}

/// `128 KiB`, `1 MiB`, `1.5 MiB`, `1000 bytes`.
fn bytes(n: u128) -> String {
    const KIB: u128 = 1 << 10;
    const MIB: u128 = 1 << 20;
    if n >= MIB {
        if n.is_multiple_of(MIB) {
            format!("{} MiB", n / MIB)
        } else {
            format!("{:.1} MiB", n as f64 / MIB as f64)
        }
    } else if n >= KIB && n.is_multiple_of(KIB) {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::bytes;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(bytes(131072), "128 KiB");
        assert_eq!(bytes(1 << 20), "1 MiB");
        assert_eq!(bytes(3 << 19), "1.5 MiB");
        assert_eq!(bytes(1000), "1000 bytes");
    }
}
