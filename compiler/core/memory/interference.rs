//! `-ms interference`: the interference graph from the schedule (two
//! buffers interfere unless one is before the other, see
//! [`super::lifetime`]), then first fit at any offset: buffers by size
//! descending then id, each at the lowest offset that overlaps no already
//! placed buffer it interferes with.
//!
//! First fit on an interference graph is a heuristic and on rare graphs
//! lays out worse than [`super::reuse`]'s free list; the allocator then
//! keeps reuse's layout (it is as safe: both obey the same rule), so
//! interference ≤ reuse ≤ naive in bytes on every graph. A note says when.

use super::lifetime::Lifetimes;
use super::{ArenaId, Placement};

/// Byte intervals `[start, end)` of the placed buffers in `arena` that
/// interfere with `b`, sorted by start.
pub(crate) fn conflicts(
    lt: &Lifetimes,
    placed: &[Option<Placement>],
    b: usize,
    arena: ArenaId,
) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = placed
        .iter()
        .enumerate()
        .filter_map(|(o, p)| {
            let p = (*p)?;
            (p.arena == arena && p.bytes > 0 && lt.interfere(b, o))
                .then_some((p.offset, p.offset + p.bytes))
        })
        .collect();
    v.sort_unstable();
    v
}

pub(crate) fn align_up(x: u64, align: u64) -> u64 {
    x.div_ceil(align) * align
}

/// Lowest `align`-aligned offset where `size` bytes overlap none of
/// `busy` (sorted by start).
pub(crate) fn lowest_fit(busy: &[(u64, u64)], size: u64, align: u64) -> u64 {
    let mut off = 0;
    for &(s, e) in busy {
        if off + size <= s {
            break;
        }
        off = off.max(align_up(e, align));
    }
    off
}

/// Pure first fit (no comparison with reuse).
pub(crate) fn first_fit(lt: &Lifetimes) -> Vec<Placement> {
    let nb = lt.buffers();
    let mut order: Vec<usize> = (0..nb).collect();
    order.sort_by_key(|&b| (std::cmp::Reverse(lt.bytes[b]), b));
    let mut placed: Vec<Option<Placement>> = vec![None; nb];
    for b in order {
        let busy = conflicts(lt, &placed, b, ArenaId::Shared);
        placed[b] = Some(Placement {
            arena: ArenaId::Shared,
            offset: lowest_fit(&busy, lt.bytes[b], 1),
            bytes: lt.bytes[b],
        });
    }
    placed.into_iter().map(|p| p.expect("placed")).collect()
}

/// First fit, or reuse's layout when that is smaller; with a note then.
pub(crate) fn place(lt: &Lifetimes) -> (Vec<Placement>, Vec<String>) {
    let ff = first_fit(lt);
    let re = super::reuse::place(lt);
    let size = |p: &[Placement]| p.iter().map(|p| p.offset + p.bytes).max().unwrap_or(0);
    if size(&re) < size(&ff) {
        let note = format!(
            "interference: first fit needs {} bytes, reuse's layout {}: keeping reuse's",
            size(&ff),
            size(&re)
        );
        (re, vec![note])
    } else {
        (ff, Vec::new())
    }
}
