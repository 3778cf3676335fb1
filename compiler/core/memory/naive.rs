//! `-ms naive`: one range per buffer, consecutive in the shared arena, in
//! the order of first write in the global order (ties by buffer id) — the
//! layout of the thesis' Appendix A. Nothing shares bytes.

use super::lifetime::Lifetimes;
use super::{ArenaId, Placement};

pub(crate) fn place(lt: &Lifetimes) -> Vec<Placement> {
    let nb = lt.buffers();
    let mut order: Vec<usize> = (0..nb).collect();
    order.sort_by_key(|&b| (lt.live[b].0, b));
    let mut placements = vec![
        Placement {
            arena: ArenaId::Shared,
            offset: 0,
            bytes: 0,
        };
        nb
    ];
    let mut end = 0;
    for b in order {
        placements[b] = Placement {
            arena: ArenaId::Shared,
            offset: end,
            bytes: lt.bytes[b],
        };
        end += lt.bytes[b];
    }
    placements
}
