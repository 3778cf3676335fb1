//! `-ms reuse` (thesis §3.4.3 "Reuse"): walk the actors in the global order
//! (see [`super::lifetime`]); a buffer is allocated at its first write and
//! its range goes to the end of a free list after its last access. A new
//! buffer takes the first free range of *equal size* whose last occupant is
//! before it (every access of the occupant happens before every access of
//! the new buffer within an iteration — being done earlier in the global
//! order is not enough under concurrency), else new space at the end of
//! the shared arena. Ranges are never split or merged.
//!
//! Every occupant of a range is before the next one, so by transitivity all
//! occupants of a range are pairwise ordered; the cross-iteration edges are
//! added afterwards by [`super::lifetime::Lifetimes::order_edges`].

use super::lifetime::Lifetimes;
use super::{ArenaId, Placement};

pub(crate) fn place(lt: &Lifetimes) -> Vec<Placement> {
    let nb = lt.buffers();
    let n = lt.pos.len();
    let mut starts: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    let mut ends: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    for b in 0..nb {
        let (s, e) = lt.live[b];
        starts[s.min(n)].push(b);
        ends[e.min(n)].push(b);
    }
    let mut placements = vec![
        Placement {
            arena: ArenaId::Shared,
            offset: 0,
            bytes: 0,
        };
        nb
    ];
    // Free list: (offset, size, last occupant).
    let mut free: Vec<(u64, u64, usize)> = Vec::new();
    let mut end = 0u64;
    for p in 0..=n {
        for &b in &starts[p] {
            let size = lt.bytes[b];
            let hit = free
                .iter()
                .position(|&(_, sz, occ)| sz == size && lt.before(occ, b));
            let offset = match hit {
                Some(k) => free.remove(k).0,
                None => {
                    end += size;
                    end - size
                }
            };
            placements[b] = Placement {
                arena: ArenaId::Shared,
                offset,
                bytes: size,
            };
        }
        for &b in &ends[p] {
            free.push((placements[b].offset, placements[b].bytes, b));
        }
    }
    placements
}
