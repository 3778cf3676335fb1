//! Storage folding (`-ms fold`, the default of `-ts fused`): each buffer a
//! ring of the rows that are live at once, not a whole frame.
//!
//! Takes the HSDFG and the schedule; gives every buffer a placement of
//! `R` rows (row `y` of the grid at row `y mod R` of the ring: a placement
//! smaller than its buffer *is* a ring, see [`super::Placement::fold`]),
//! the rings side by side in the shared arena, and the orderings the
//! reuse of ring rows relies on.
//!
//! For a ring of `R` rows, two accesses (one of them a write) conflict when
//! they touch rows `r ≠ r'` with `r ≡ r' (mod R)`. Each conflict is
//! ordered row-wise, lower rows first, within an iteration and iteration
//! after iteration:
//! * **within an iteration** (0 tokens): every access of rows `r` before
//!   the writer of rows `r + R` (`k = 1`; larger distances follow by
//!   transitivity through the writers of `r + R, r + 2R, …`, and a write
//!   of `r` before a read of `r + R` through the writer of `r + R`, which
//!   the reader depends on);
//! * **across iterations** (1 token): every access of the last `R` rows of
//!   iteration i before the writer of the conflicting rows among the first
//!   `R` of iteration i + 1 (an earlier access of the same slot reaches it
//!   through the in-iteration chain; same rows are the HSDFG's own
//!   write-after-read edges).
//!
//! `R` is the smallest number of rows, from the widest access up, for
//! which the 0-token orderings, with the dependencies, the threads' program
//! order and the orderings of the buffers folded before, stay acyclic —
//! i.e. the smallest ring this schedule can run without deadlock. With a
//! box-at-a-time schedule that is the whole frame (no fold); with
//! [`crate::schedule::fused`] a few strips. A buffer touched by a kernel
//! of one's own that does not say `ROWS` is never folded (it may ignore
//! `ssc_port.fold`, see `runtime-c/README.md`).
//!
//! Guarantees: every access fits its ring (`R` ≥ its rows); the orderings
//! plus dependencies and program order are acyclic (no deadlock); the
//! runtime checker proves the result race-free on the folded addresses.
//!
//! The ring search keeps a topological order of the graph so far:
//! orderings forward in it need no check, a backward one is checked by a
//! search between its ends in that order, and only a cycle through several
//! new orderings takes a pass over the graph (a 1 000-box chain under fused
//! compiles in 1.5 s).

use super::ring::{self, bands, Band};
use super::{ArenaId, OrderEdge, Placement};
use crate::ir::hsdfg::{ActorId, BufferId, Hsdfg};
use crate::reach::{kahn, Pick};
use crate::schedule::Schedule;

/// Rings start at multiples of this (a cache line).
const ALIGN: u64 = 64;

/// One access of a buffer by a sub-box: rows `[y0, y1)`.
#[derive(Clone, Copy, Debug)]
struct Rows {
    actor: ActorId,
    y0: u64,
    y1: u64,
    write: bool,
}

/// Do rows `[a0, a1)` and `[b0, b1)` share a slot of a ring of `r` rows
/// (rows taken mod `r`)? Both shorter than `r`.
fn slots_meet(a0: u64, a1: u64, b0: u64, b1: u64, r: u64) -> bool {
    // [a0, a1) meets [b0 + j·r, b1 + j·r) for some integer j, i.e. some
    // multiple of r lies in [a0 − b1 + 1, a1 − b0 − 1].
    let (lo, hi, r) = (
        a0 as i128 - b1 as i128 + 1,
        a1 as i128 - b0 as i128 - 1,
        r as i128,
    );
    let j = lo.div_euclid(r) + i128::from(lo.rem_euclid(r) != 0);
    j * r <= hi
}

/// Do rows `[a0, a1)` and rows `[b0 + r, b1 + r)` meet (`a` conflicts
/// with `b` one ring above)?
fn one_ring_apart(a0: u64, a1: u64, b0: u64, b1: u64, r: u64) -> bool {
    a0 < b1 + r && b0 + r < a1
}

/// The 0-token graph (dependencies, program order, orderings so far) with
/// an acyclicity test. `pos` is a topological order of the graph so far
/// (at first by predicted start time where free): orderings that point
/// forward in it keep it one, so they need no search.
struct Order {
    succ: Vec<Vec<u32>>,
    pos: Vec<usize>,
    /// Successors through the orderings kept so far.
    kept: Vec<Vec<u32>>,
    /// Visit stamps of [`Order::reaches`].
    seen: Vec<u32>,
    stamp: u32,
}

impl Order {
    fn new(h: &Hsdfg, s: &Schedule) -> Order {
        let n = h.graph.node_count();
        let mut succ = vec![Vec::new(); n];
        let mut start = vec![0.0f64; n];
        for (u, v, _) in h.dependencies() {
            succ[u.index()].push(v.index() as u32);
        }
        for t in &s.threads {
            for w in t.actors.windows(2) {
                succ[w[0].index()].push(w[1].index() as u32);
            }
            for (a, &st) in t.actors.iter().zip(&t.start) {
                start[a.index()] = st;
            }
        }
        // Kahn, earliest predicted start first.
        let mut indeg = vec![0u32; n];
        for v in succ.iter().flatten() {
            indeg[*v as usize] += 1;
        }
        let key = |x: usize| (start[x].max(0.0).to_bits(), x);
        let mut ready: std::collections::BTreeSet<(u64, usize)> =
            (0..n).filter(|&x| indeg[x] == 0).map(key).collect();
        let mut pos = vec![usize::MAX; n];
        let mut k = 0;
        while let Some((_, x)) = ready.pop_first() {
            pos[x] = k;
            k += 1;
            for &v in &succ[x] {
                indeg[v as usize] -= 1;
                if indeg[v as usize] == 0 {
                    ready.insert(key(v as usize));
                }
            }
        }
        Order {
            succ,
            pos,
            kept: vec![Vec::new(); n],
            seen: vec![0; n],
            stamp: 0,
        }
    }

    /// Can `edges` be added to `kept` without a cycle? When they can and
    /// some point backward in `pos`, `pos` becomes a topological order of
    /// the graph with them (so the next check is likely free again).
    fn admits(&mut self, kept: &[(usize, usize)], edges: &[(usize, usize)]) -> bool {
        if edges.iter().all(|&(u, v)| self.pos[u] < self.pos[v]) {
            return true;
        }
        // One new ordering closing a cycle with the graph so far: found
        // by a search between its ends in `pos` (a path v → u of the graph
        // so far only visits positions between pos[v] and pos[u]).
        for &(u, v) in edges {
            if self.pos[u] > self.pos[v] && self.reaches(v, u) {
                return false;
            }
        }
        // Else only a cycle through several new orderings is left to find.
        match self.topological(kept, edges) {
            Some(pos) => {
                self.pos = pos;
                true
            }
            None => false,
        }
    }

    /// Does `from` reach `to` in the graph so far (`pos[from] < pos[to]`)?
    fn reaches(&mut self, from: usize, to: usize) -> bool {
        self.stamp += 1;
        let (stamp, limit) = (self.stamp, self.pos[to]);
        let mut stack = vec![from];
        self.seen[from] = stamp;
        while let Some(x) = stack.pop() {
            if x == to {
                return true;
            }
            let next = self.succ[x].iter().chain(&self.kept[x]);
            for &w in next {
                let w = w as usize;
                if self.seen[w] != stamp && self.pos[w] <= limit {
                    self.seen[w] = stamp;
                    stack.push(w);
                }
            }
        }
        false
    }

    /// Records orderings kept.
    fn keep(&mut self, edges: &[(usize, usize)]) {
        for &(u, v) in edges {
            self.kept[u].push(v as u32);
        }
    }

    /// A topological order (position of each node) of the graph with
    /// `kept` and `extra` added, or `None` when it has a cycle.
    fn topological(&self, kept: &[(usize, usize)], extra: &[(usize, usize)]) -> Option<Vec<usize>> {
        let n = self.succ.len();
        let mut more: Vec<Vec<usize>> = vec![Vec::new(); n];
        for &(u, v) in kept.iter().chain(extra) {
            more[u].push(v);
        }
        let succ = |x: usize| {
            self.succ[x]
                .iter()
                .map(|&v| v as usize)
                .chain(more[x].iter().copied())
        };
        let order = kahn(n, succ, Pick::Last).ok()?;
        let mut pos = vec![usize::MAX; n];
        for (i, x) in order.into_iter().enumerate() {
            pos[x] = i;
        }
        Some(pos)
    }
}

/// The accesses of every buffer, rows only (empty ones left out).
fn accesses(h: &Hsdfg) -> Vec<Vec<Rows>> {
    let mut out = vec![Vec::new(); h.buffers.len()];
    for a in h.actors() {
        for x in &h.actor(a).accesses {
            if x.elements.y0 < x.elements.y1 {
                out[x.buffer.0].push(Rows {
                    actor: a,
                    y0: x.elements.y0,
                    y1: x.elements.y1,
                    write: x.write,
                });
            }
        }
    }
    out
}

/// May this buffer be folded: it is no state buffer (a delayed reader
/// reads the whole previous frame: it lives across iterations), and every
/// function touching it addresses rows through `SSC_ROW`
/// ([`Hsdfg::streams`]: a built-in, a defined function, or a kernel of
/// one's own declared `ROWS`).
pub fn foldable(h: &Hsdfg, b: BufferId) -> bool {
    let buf = h.buffer(b);
    buf.initial.is_none()
        && std::iter::once(buf.producer.0)
            .chain(buf.readers.iter().map(|r| r.0))
            .all(|f| h.streams(f))
}

/// Pairs of actors: `from` before `to`.
type Pairs = Vec<(ActorId, ActorId)>;

/// The accesses of one band of a buffer, on their offsets from the band's
/// start, sorted by first offset, and the widest: computed once per
/// buffer, whatever ring size is tried.
struct Banded {
    len: u64,
    within: Vec<(Rows, u64, u64)>,
    widest: u64,
}

/// [`Banded`] accesses of every band.
fn banded(acc: &[Rows], bands: &[Band]) -> Vec<Banded> {
    bands
        .iter()
        .map(|band| {
            let mut within: Vec<(Rows, u64, u64)> = acc
                .iter()
                .filter_map(|x| {
                    let (o0, o1) = band.offsets(x.y0, x.y1)?;
                    Some((*x, o0, o1))
                })
                .collect();
            within.sort_by_key(|&(x, o0, o1)| (o0, o1, x.actor));
            let widest = within.iter().map(|&(_, o0, o1)| o1 - o0).max().unwrap_or(0);
            Banded {
                len: band.hi - band.lo,
                within,
                widest,
            }
        })
        .collect()
}

/// The 0-token orderings a ring of `r` rows needs (see the module
/// documentation), band by band: every access of offsets `o` before the
/// writer of offsets `o + r`. The accesses one ring below a writer's
/// offsets `[w0, w1)` meet `[w0 − r, w1 − r)`, so they start in
/// `(w0 − r − widest, w1 − r)`: a binary search and a short scan per
/// writer, not a pass over every access (quadratic in the strips).
fn zero_edges(bands: &[Banded], r: u64) -> Pairs {
    let mut zero = Vec::new();
    for b in bands {
        let within = &b.within;
        for &(w, w0, w1) in within.iter().filter(|(w, _, _)| w.write) {
            let from = (w0 + 1).saturating_sub(r + b.widest);
            let start = within.partition_point(|&(_, x0, _)| x0 < from);
            for &(x, x0, x1) in within[start..]
                .iter()
                .take_while(|&&(_, x0, _)| x0 + r < w1)
            {
                if x.actor != w.actor && one_ring_apart(w0, w1, x0, x1, r) {
                    zero.push((x.actor, w.actor));
                }
            }
        }
    }
    zero.sort();
    zero.dedup();
    zero
}

/// The 1-token orderings a ring of `r` rows needs: every access among the
/// last `r` offsets of a band (iteration i) before the writer among the
/// first `r` (iteration i + 1) of its slots.
fn one_edges(bands: &[Banded], r: u64) -> Pairs {
    let mut one = Vec::new();
    for b in bands {
        let tail = b.len.saturating_sub(r);
        let last: Vec<&(Rows, u64, u64)> = b.within.iter().filter(|x| x.2 > tail).collect();
        let first = b.within.iter().filter(|(w, w0, _)| w.write && *w0 < r);
        for &(w, w0, w1) in first {
            for &&(x, x0, x1) in &last {
                let (xa, xb) = (x0.max(tail), x1);
                let (wa, wb) = (w0, w1.min(r));
                if x.actor != w.actor && xa < xb && wa < wb && slots_meet(xa, xb, wa, wb, r) {
                    one.push((x.actor, w.actor));
                }
            }
        }
    }
    one.sort();
    one.dedup();
    one
}

/// The 0- and 1-token pairs of a ring of buffer `b` as ordering edges.
fn order_edges(b: BufferId, zero: Pairs, one: Pairs) -> impl Iterator<Item = OrderEdge> {
    let edge = move |(from, to): (ActorId, ActorId), tokens| OrderEdge {
        from,
        to,
        tokens,
        buffer: b,
    };
    let zero = zero.into_iter().map(move |e| edge(e, 0));
    zero.chain(one.into_iter().map(move |e| edge(e, 1)))
}

/// Each actor's thread and position in its thread's program.
fn threads_of(h: &Hsdfg, s: &Schedule) -> (Vec<usize>, Vec<usize>) {
    let n = h.graph.node_count();
    let (mut thread, mut pos) = (vec![0; n], vec![0; n]);
    for (t, th) in s.threads.iter().enumerate() {
        for (i, a) in th.actors.iter().enumerate() {
            thread[a.index()] = t;
            pos[a.index()] = i;
        }
    }
    (thread, pos)
}

/// Folds every buffer it can; see the module documentation.
pub fn place(h: &Hsdfg, s: &Schedule) -> Folded {
    let acc = accesses(h);
    let mut order = Order::new(h, s);
    let (thread, pos) = threads_of(h, s);
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut edges = Vec::new();
    let mut placements = Vec::new();
    let mut offset = 0u64;
    let (mut folded, mut whole_bytes, mut least) = (0usize, 0u64, 0u64);
    for (bi, buf) in h.buffers.iter().enumerate() {
        let b = BufferId(bi);
        let row_bytes = buf.grid.x * buf.ty.size();
        let bands = bands(h, b, &thread, &pos);
        let tallest = bands.iter().map(|x| x.hi - x.lo).max().unwrap_or(1);
        let per_band = banded(&acc[bi], &bands);
        // The widest access within one band: a ring holds at least that.
        let widest = acc[bi]
            .iter()
            .flat_map(|x| bands.iter().filter_map(|b| b.offsets(x.y0, x.y1)))
            .map(|(o0, o1)| o1 - o0)
            .max()
            .unwrap_or(tallest);
        let mut chosen = None;
        let fits = |r: u64| r * bands.len() as u64 * row_bytes < buf.bytes;
        least += if foldable(h, b) && fits(widest.max(1)) {
            widest.max(1) * bands.len() as u64 * row_bytes
        } else {
            buf.bytes
        };
        if foldable(h, b) {
            for r in widest.max(1)..tallest {
                if !fits(r) {
                    break;
                }
                let zero = zero_edges(&per_band, r);
                let z: Vec<(usize, usize)> =
                    zero.iter().map(|&(u, v)| (u.index(), v.index())).collect();
                if order.admits(&kept, &z) {
                    chosen = Some((r, zero, z));
                    break;
                }
            }
        }
        let bytes = match chosen {
            Some((r, zero, z)) => {
                folded += 1;
                let one = one_edges(&per_band, r);
                kept.extend_from_slice(&z);
                order.keep(&z);
                edges.extend(order_edges(b, zero, one));
                r * bands.len() as u64 * row_bytes
            }
            None => buf.bytes,
        };
        whole_bytes += buf.bytes;
        placements.push(Placement {
            arena: ArenaId::Shared,
            offset,
            bytes,
        });
        offset += bytes.div_ceil(ALIGN) * ALIGN;
    }
    edges.sort();
    edges.dedup();
    let used: u64 = placements.iter().map(|p| p.bytes).sum();
    let notes = vec![format!(
        "memory fold: {folded} of {} buffers folded into rings of rows, {used} bytes instead of {whole_bytes} ({:.1}%)",
        h.buffers.len(),
        100.0 * used as f64 / whole_bytes.max(1) as f64
    )];
    Folded {
        placements,
        edges,
        least,
        notes,
    }
}

/// What [`place`] gives.
pub struct Folded {
    pub placements: Vec<Placement>,
    /// The orderings the rings rely on.
    pub edges: Vec<OrderEdge>,
    /// The least bytes any ring placement of these bands can use: each
    /// ring holds its widest access (a buffer that cannot fold: whole).
    pub least: u64,
    pub notes: Vec<String>,
}

/// The orderings that the rings of `placements` need under schedule `s`
/// (for placements written in a runtime section: `super::as_written`).
pub fn ring_orderings(h: &Hsdfg, s: &Schedule, placements: &[Placement]) -> Vec<OrderEdge> {
    let acc = accesses(h);
    let (thread, pos) = threads_of(h, s);
    let mut out = Vec::new();
    for (bi, buf) in h.buffers.iter().enumerate() {
        let b = BufferId(bi);
        let Some(ring) = ring::ring(buf, placements[bi].bytes, bands(h, b, &thread, &pos)) else {
            continue;
        };
        if ring.rows == 0 {
            continue;
        }
        let per_band = banded(&acc[bi], &ring.bands);
        let (zero, one) = (
            zero_edges(&per_band, ring.rows),
            one_edges(&per_band, ring.rows),
        );
        out.extend(order_edges(b, zero, one));
    }
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: some r in a, r' in b with r ≡ r' (mod ring).
    fn meet_brute(a0: u64, a1: u64, b0: u64, b1: u64, ring: u64) -> bool {
        (a0..a1).any(|r| (b0..b1).any(|q| r % ring == q % ring))
    }

    /// The orderings as every writer against every access gives them.
    fn edges_brute(acc: &[Rows], bands: &[Band], r: u64) -> (Pairs, Pairs) {
        let (mut zero, mut one) = (Vec::new(), Vec::new());
        for band in bands {
            let len = band.hi - band.lo;
            let within: Vec<(Rows, u64, u64)> = acc
                .iter()
                .filter_map(|x| Some((*x, band.offsets(x.y0, x.y1)?)))
                .map(|(x, (o0, o1))| (x, o0, o1))
                .collect();
            for &(w, w0, w1) in within.iter().filter(|(w, _, _)| w.write) {
                for &(x, x0, x1) in &within {
                    if x.actor == w.actor {
                        continue;
                    }
                    if one_ring_apart(w0, w1, x0, x1, r) {
                        zero.push((x.actor, w.actor));
                    }
                    let (xa, xb) = (x0.max(len.saturating_sub(r)), x1);
                    let (wa, wb) = (w0, w1.min(r));
                    if xa < xb && wa < wb && slots_meet(xa, xb, wa, wb, r) {
                        one.push((x.actor, w.actor));
                    }
                }
            }
        }
        for v in [&mut zero, &mut one] {
            v.sort();
            v.dedup();
        }
        (zero, one)
    }

    #[test]
    fn ring_orderings_agree_with_every_pair() {
        let mut seed = 9u64;
        let mut lcg = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        let mut found = 0;
        for _ in 0..2000 {
            // Strips of 1–4 rows written in 1–3 bands, read with halos.
            let rows = 4 + lcg() % 40;
            let (mut acc, mut y, mut a) = (Vec::new(), 0, 0);
            while y < rows {
                let y1 = (y + 1 + lcg() % 4).min(rows);
                let halo = lcg() % 3;
                let write = |actor, y0, y1, write| Rows {
                    actor: ActorId::new(actor),
                    y0,
                    y1,
                    write,
                };
                acc.push(write(a, y, y1, true));
                acc.push(write(
                    a + 1,
                    y.saturating_sub(halo),
                    (y1 + halo).min(rows),
                    false,
                ));
                (y, a) = (y1, a + 2);
            }
            let cut = lcg() % rows;
            let bands = if cut == 0 {
                vec![Band {
                    lo: 0,
                    hi: rows,
                    up: false,
                }]
            } else {
                vec![
                    Band {
                        lo: 0,
                        hi: cut,
                        up: false,
                    },
                    Band {
                        lo: cut,
                        hi: rows,
                        up: lcg().is_multiple_of(2),
                    },
                ]
            };
            let r = 1 + lcg() % 12;
            let per_band = banded(&acc, &bands);
            let (zero, one) = edges_brute(&acc, &bands, r);
            found += zero.len() + one.len();
            assert_eq!(zero_edges(&per_band, r), zero, "{acc:?} {bands:?} {r}");
            assert_eq!(one_edges(&per_band, r), one, "{acc:?} {bands:?} {r}");
        }
        assert!(found > 1000);
    }

    #[test]
    fn slots_meet_agrees_with_brute_force() {
        for ring in 1..9 {
            for a0 in 0..20 {
                for a1 in a0 + 1..(a0 + ring + 1).min(21) {
                    for b0 in 0..20 {
                        for b1 in b0 + 1..(b0 + ring + 1).min(21) {
                            assert_eq!(
                                slots_meet(a0, a1, b0, b1, ring),
                                meet_brute(a0, a1, b0, b1, ring),
                                "[{a0},{a1}) [{b0},{b1}) ring {ring}"
                            );
                        }
                    }
                }
            }
        }
    }
}
