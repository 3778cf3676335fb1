//! `-ms mesif`: interference ([`super::interference`]) plus cache-coherence
//! awareness, for 64-byte cache lines.
//!
//! What it guarantees:
//!
//! * every offset and every reserved size (`Placement::bytes`, the buffer's
//!   bytes rounded up to 64) is a multiple of 64, and arenas are 64-aligned
//!   by the runtime, so no cache line holds bytes of two buffers: two
//!   buffers written at the same time by different threads never share a
//!   line (buffers that share lines are ordered, one after the other);
//! * a buffer whose producer and all readers run on one thread `t` lives in
//!   `ArenaId::Local(t)` (no other thread ever touches those lines);
//! * within one buffer, the split is given: when two adjacent row strips of
//!   a buffer are written by different threads and their boundary is not a
//!   multiple of 64 bytes from the buffer's start, the line across the
//!   boundary is written by both threads (false sharing). Those buffers are
//!   not changed (the row layout is fixed by the kernels) but named in the
//!   notes with the byte of each such boundary. When the boundaries are
//!   multiples of 64 (rows of 64·k bytes, or strips of such rows) they fall
//!   on line boundaries, since the offset is 64-aligned.
//!
//! Placement is first fit by size descending then id, within each arena,
//! with one preference: among the feasible 64-aligned offsets that do not
//! grow the arena, prefer the one whose range covers the most bytes of
//! buffers placed there before it in the order (before it, and written
//! only by the thread that writes the new buffer) — bytes likely still in
//! that core's cache in Modified/Exclusive state. Ties go to the lowest
//! offset. When no such offset fits, it is plain first fit (which then
//! grows the arena).

use super::interference::{align_up, conflicts, lowest_fit};
use super::lifetime::Lifetimes;
use super::{ArenaId, Placement};
use crate::ir::hsdfg::{BufferId, Hsdfg};

pub(crate) const LINE: u64 = 64;

pub(crate) fn place(h: &Hsdfg, lt: &Lifetimes) -> (Vec<Placement>, Vec<String>) {
    let nb = lt.buffers();
    let size: Vec<u64> = lt.bytes.iter().map(|&b| align_up(b, LINE)).collect();
    let arena: Vec<ArenaId> = (0..nb)
        .map(|b| lt.single_thread(b).map_or(ArenaId::Shared, ArenaId::Local))
        .collect();
    let wthreads: Vec<Vec<usize>> = (0..nb).map(|b| lt.writer_threads(b)).collect();
    let mut order: Vec<usize> = (0..nb).collect();
    order.sort_by_key(|&b| (std::cmp::Reverse(size[b]), b));
    let mut placed: Vec<Option<Placement>> = vec![None; nb];
    let mut high = std::collections::BTreeMap::<ArenaId, u64>::new();
    for b in order {
        let ar = arena[b];
        let busy = conflicts(lt, &placed, b, ar);
        let first = lowest_fit(&busy, size[b], LINE);
        let hw = high.get(&ar).copied().unwrap_or(0);
        let mut offset = first;
        if first + size[b] <= hw && wthreads[b].len() == 1 {
            let t = wthreads[b][0];
            let mut cands: Vec<u64> = std::iter::once(0)
                .chain(busy.iter().map(|&(_, e)| align_up(e, LINE)))
                .filter(|&o| {
                    o + size[b] <= hw && busy.iter().all(|&(s, e)| o + size[b] <= s || e <= o)
                })
                .collect();
            cands.sort_unstable();
            cands.dedup();
            let score = |o: u64| -> u64 {
                placed
                    .iter()
                    .enumerate()
                    .filter_map(|(p, pl)| {
                        let pl = (*pl)?;
                        (pl.arena == ar && lt.before(p, b) && wthreads[p] == [t]).then(|| {
                            let lo = o.max(pl.offset);
                            let hi = (o + size[b]).min(pl.offset + pl.bytes);
                            hi.saturating_sub(lo)
                        })
                    })
                    .sum()
            };
            let mut best = (0u64, first);
            for o in cands {
                let sc = score(o);
                if sc > best.0 {
                    best = (sc, o);
                }
            }
            offset = best.1;
        }
        high.insert(ar, hw.max(offset + size[b]));
        placed[b] = Some(Placement {
            arena: ar,
            offset,
            bytes: size[b],
        });
    }
    let placements: Vec<Placement> = placed.into_iter().map(|p| p.expect("placed")).collect();
    (placements, false_sharing(h, lt))
}

/// Notes naming the strip boundaries of buffers written by several threads
/// that do not fall on a cache line.
pub(crate) fn false_sharing(h: &Hsdfg, lt: &Lifetimes) -> Vec<String> {
    let mut notes = Vec::new();
    for (b, buf) in h.buffers.iter().enumerate() {
        if lt.writer_threads(b).len() < 2 {
            continue;
        }
        let mut strips: Vec<(u64, u64, usize)> = lt.writers[b]
            .iter()
            .flat_map(|&a| {
                h.graph[crate::ir::hsdfg::ActorId::new(a)]
                    .accesses
                    .iter()
                    .filter(|x| x.write && x.buffer == BufferId(b))
                    .map(move |x| {
                        let (s, e) = x.byte_range(buf);
                        (s, e, lt.thread[a])
                    })
            })
            .collect();
        strips.sort_unstable();
        let bad: Vec<String> = strips
            .windows(2)
            .filter(|w| w[0].2 != w[1].2 && w[1].0 % LINE != 0)
            .map(|w| w[1].0.to_string())
            .collect();
        if !bad.is_empty() {
            notes.push(format!(
                "mesif: {} is written by several threads and its strip boundaries at bytes {} are not on 64-byte lines (false sharing on those lines)",
                buf.name,
                bad.join(", ")
            ));
        }
    }
    notes
}
