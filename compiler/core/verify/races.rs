//! (b), the races: every two accesses to the same bytes of an arena, at
//! least one a write, ordered by the operation graph at the iteration
//! distances the module's model names (d = 0 and d = 1; for the copies of
//! a double-buffered state the parity they meet at). Takes the HSDFG, the
//! runtime (for the rings of folded buffers), the placements and the
//! [`Order`] of a deadlock-free graph; gives how many conflicting pairs
//! are ordered, and a [`CounterExample::Race`] for each that is not.
//! Ordered pairs are proven segment by segment in time linear in the
//! accesses ([`chained`]), a proof that holds only when every pair is
//! ordered; the pairs are enumerated ([`every_pair`]) only when it does
//! not, to name each race once.

use super::counterexample::CounterExample;
use super::graph::Order;
use crate::ir::hsdfg::{ActorId, BufferId, Hsdfg};
use crate::ir::Runtime;
use crate::memory::ring::Ring;
use crate::memory::sections::rings;
use crate::memory::{ArenaId, Placement};
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap, HashSet};

/// One access of one actor, placed.
struct Placed {
    actor: ActorId,
    arena: ArenaId,
    lo: u64,
    hi: u64,
    write: bool,
    buffer: usize,
    /// Which rows of the buffer these bytes hold ((0, 0) when not folded):
    /// two byte ranges of one buffer with the same epoch hold the same rows.
    epoch: (usize, u64),
    /// A double-buffered state (`Buffer::copies`): the access's phase, its
    /// bytes those of copy 0 (copy 1 lies `frame` bytes after), touched in
    /// iteration i at copy (i + phase) mod 2.
    copies: Option<Copies>,
}

/// The phase of an access to a double-buffered state, and its copy's size.
#[derive(Clone, Copy)]
struct Copies {
    phase: u32,
    frame: u64,
}

/// The byte ranges (start, end, which rows) an access covers: one range,
/// or for a ring one range per run of ring rows.
fn placed_ranges(
    x: &crate::ir::hsdfg::Access,
    buf: &crate::ir::hsdfg::Buffer,
    p: &Placement,
    ring: Option<&Ring>,
) -> Vec<(u64, u64, (usize, u64))> {
    let row = buf.grid.x * buf.ty.size();
    match ring {
        None => {
            let (lo, hi) = x.byte_range(buf);
            vec![(p.offset + lo, p.offset + hi, (0, 0))]
        }
        Some(ring) => ring
            .runs(x.elements.y0, x.elements.y1)
            .into_iter()
            .map(|run| {
                (
                    p.offset + run.slot * row,
                    p.offset + (run.slot + run.len) * row,
                    run.tag,
                )
            })
            .collect(),
    }
}

/// Every access of every actor, placed, sorted by arena and bytes.
fn placed_accesses(h: &Hsdfg, r: &Runtime, placements: &[Placement]) -> Vec<Placed> {
    let rings = rings(h, r, placements);
    let mut acc: Vec<Placed> = Vec::new();
    for a in h.actors() {
        for x in &h.actor(a).accesses {
            let buf = h.buffer(x.buffer);
            let p = placements[x.buffer.0];
            for (lo, hi, epoch) in placed_ranges(x, buf, &p, rings[x.buffer.0].as_ref()) {
                if lo >= hi {
                    continue;
                }
                acc.push(Placed {
                    actor: a,
                    arena: p.arena,
                    lo,
                    hi,
                    write: x.write,
                    buffer: x.buffer.0,
                    epoch,
                    copies: (buf.copies == 2).then(|| Copies {
                        phase: h.phase(h.actor(a).function, x.port),
                        frame: buf.frame_bytes(),
                    }),
                });
            }
        }
    }
    acc.sort_by_key(|p| (p.arena, p.lo, p.hi));
    acc
}

/// (b): every two conflicting accesses ordered at d = 0 and d = 1; gives
/// how many pairs are. Proven segment by segment ([`chained`]) in time
/// linear in the accesses; only when that proof fails are the pairs
/// enumerated ([`every_pair`]), to name each race.
pub(super) fn races(
    h: &Hsdfg,
    r: &Runtime,
    placements: &[Placement],
    order: &Order,
    errors: &mut Vec<CounterExample>,
) -> usize {
    let (double, acc): (Vec<Placed>, Vec<Placed>) = placed_accesses(h, r, placements)
        .into_iter()
        .partition(|p| p.copies.is_some());
    let pairs = double_buffered(&double, &acc, order, errors);
    if chained(&acc, order) {
        return pairs + conflicting_pairs(&acc);
    }
    pairs + every_pair(&acc, order, errors)
}

/// (b) for the double-buffered states: access x of iteration i touches copy
/// (i + phase) mod 2, so two accesses of one state share bytes at the
/// iteration distances d ≡ phase_x + phase_y (mod 2). With equal phases
/// they conflict at d = 0 (the same rows: a dependency, for (c)) and at
/// d = 2, 4, …, checked at d = 2 in both orders; with different phases at
/// d = 1, 3, …, checked at d = 1 in both orders (monotonicity, as above).
/// An access of another buffer at either copy's bytes (none, where ssc
/// placed the buffers: a state shares its memory with nothing) must be
/// ordered with it at d = 0 and d = 1 like two accesses of different
/// buffers. Gives how many pairs of the state's own accesses are ordered.
fn double_buffered(
    double: &[Placed],
    others: &[Placed],
    order: &Order,
    errors: &mut Vec<CounterExample>,
) -> usize {
    let mut far: HashMap<usize, Vec<u32>> = HashMap::new();
    let mut le2 = |a: usize, b: usize| {
        order.le(a, b, 1) || {
            let x = order.g.exec[a];
            far.entry(x).or_insert_with(|| order.g.distances(x))[order.g.exec[b]] <= 2
        }
    };
    let mut pairs = 0;
    for (i, x) in double.iter().enumerate() {
        let Some(cx) = x.copies else { continue };
        // Another buffer's access at either copy: ordered as if the copy
        // were touched every iteration (sound, as it is one in two).
        for (lo, hi) in [(x.lo, x.hi), (x.lo + cx.frame, x.hi + cx.frame)] {
            let clashing = others
                .iter()
                .filter(|y| y.arena == x.arena && y.lo < hi && lo < y.hi && (x.write || y.write));
            for y in clashing {
                let (a, b) = (x.actor.index(), y.actor.index());
                let bytes = (lo.max(y.lo), hi.min(y.hi));
                if a == b || (!order.le(a, b, 0) && !order.le(b, a, 0)) {
                    errors.push(race(order, x, y, bytes, 0));
                } else if !order.le(a, b, 1) {
                    errors.push(race(order, x, y, bytes, 1));
                } else if !order.le(b, a, 1) {
                    errors.push(race(order, y, x, bytes, 1));
                }
            }
        }
        for y in &double[i + 1..] {
            let Some(cy) = y.copies else { continue };
            if y.buffer != x.buffer || y.lo >= x.hi || x.lo >= y.hi || !(x.write || y.write) {
                continue;
            }
            let (a, b) = (x.actor.index(), y.actor.index());
            let bytes = (x.lo.max(y.lo), x.hi.min(y.hi));
            let before = errors.len();
            if cx.phase == cy.phase {
                if !le2(a, b) {
                    errors.push(race(order, x, y, bytes, 2));
                }
                if !le2(b, a) {
                    errors.push(race(order, y, x, bytes, 2));
                }
            } else {
                if !order.le(a, b, 1) {
                    errors.push(race(order, x, y, bytes, 1));
                }
                if !order.le(b, a, 1) {
                    errors.push(race(order, y, x, bytes, 1));
                }
            }
            if errors.len() == before {
                pairs += 1;
            }
        }
    }
    pairs
}

/// Every conflicting pair ordered, proven by transitivity: the byte
/// ranges of an arena cut it into segments (between consecutive range
/// ends); two accesses conflict iff they share a segment and one writes.
/// In one segment, with its accesses in a topological order of the
/// operation graph (`Reach::rank`), the writes `w1 … wk` must form a chain
/// (each reaches the next with 0 tokens) and every read between `wj` and
/// `wj+1` must follow `wj` and precede `wj+1`: then every conflicting
/// pair is ordered within an iteration, and these orderings are
/// themselves pairs that must be. Across iterations, every later access
/// `b` of a pair reaches `wk` or is a read after it, every earlier `a`
/// follows `w1` or is a read before it, so `wk` before `w1`, each read
/// after `wk` before `w1`, and `wk` before each read before `w1` — all
/// with at most 1 token, each itself a pair that must be ordered — give
/// every pair at d = 1. Sufficient, and necessary but for the pairs of the
/// same rows, which (b) leaves to the dependencies and this asks in
/// program order too (or an actor with two overlapping ranges): `false`
/// then sends the caller to [`every_pair`]. O(Σ accesses per segment).
fn chained(acc: &[Placed], order: &Order) -> bool {
    let rank = |p: &Placed| order.reach.rank(order.g.exec[p.actor.index()]);
    let mut start = 0;
    while start < acc.len() {
        let arena = acc[start].arena;
        let end = start + acc[start..].partition_point(|p| p.arena == arena);
        let slice = &acc[start..end];
        start = end;
        let mut bounds: Vec<u64> = slice.iter().flat_map(|p| [p.lo, p.hi]).collect();
        bounds.sort_unstable();
        bounds.dedup();
        let mut active: BTreeSet<(usize, usize)> = BTreeSet::new();
        let mut ends: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
        let (mut next, mut writes) = (0, 0usize);
        for &b in &bounds {
            while let Some(&Reverse((hi, i))) = ends.peek() {
                if hi > b {
                    break;
                }
                ends.pop();
                active.remove(&(rank(&slice[i]), i));
                writes -= usize::from(slice[i].write);
            }
            while next < slice.len() && slice[next].lo <= b {
                active.insert((rank(&slice[next]), next));
                ends.push(Reverse((slice[next].hi, next)));
                writes += usize::from(slice[next].write);
                next += 1;
            }
            if writes > 0 && !segment_ordered(slice, &active, order) {
                return false;
            }
        }
    }
    true
}

/// The accesses of one segment (indices into `slice`, in topological
/// order) ordered as [`chained`] requires.
fn segment_ordered(slice: &[Placed], active: &BTreeSet<(usize, usize)>, order: &Order) -> bool {
    let (mut first, mut last) = (None, None);
    let (mut before_first, mut since_last): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
    let mut prev: Option<(usize, bool)> = None;
    for &(_, i) in active {
        let (a, write) = (slice[i].actor.index(), slice[i].write);
        // One actor's ranges are neighbours in the order: two of them
        // overlapping, one a write, is for `every_pair` to judge.
        if prev.is_some_and(|(pa, pw)| pa == a && (pw || write)) {
            return false;
        }
        prev = Some((a, write));
        if last.is_some_and(|w| !order.le(w, a, 0)) {
            return false;
        }
        if write {
            if since_last.iter().any(|&r| !order.le(r, a, 0)) {
                return false;
            }
            if first.is_none() {
                first = Some(a);
                before_first = std::mem::take(&mut since_last);
            }
            since_last.clear();
            last = Some(a);
        } else {
            since_last.push(a);
        }
    }
    let (Some(f), Some(l)) = (first, last) else {
        return true;
    };
    order.le(l, f, 1)
        && since_last.iter().all(|&r| order.le(r, f, 1))
        && before_first.iter().all(|&r| order.le(l, r, 1))
}

/// How many pairs of accesses [`every_pair`] finds conflicting (sharing
/// bytes of an arena, one a write), counted without enumerating them:
/// all overlapping pairs less those of two reads.
fn conflicting_pairs(acc: &[Placed]) -> usize {
    let overlapping = |reads_only: bool| {
        let mut n = 0;
        let mut open: BinaryHeap<Reverse<u64>> = BinaryHeap::new();
        let mut arena = None;
        for p in acc.iter().filter(|p| !(reads_only && p.write)) {
            if arena != Some(p.arena) {
                open.clear();
                arena = Some(p.arena);
            }
            while open.peek().is_some_and(|&Reverse(hi)| hi <= p.lo) {
                open.pop();
            }
            n += open.len();
            open.push(Reverse(p.hi));
        }
        n
    };
    overlapping(false) - overlapping(true)
}

/// The race of `first` of iteration i and `second` of iteration i + `d`
/// at `bytes` of their arena.
fn race(
    order: &Order,
    first: &Placed,
    second: &Placed,
    bytes: (u64, u64),
    d: u32,
) -> CounterExample {
    CounterExample::Race {
        first: order.g.exec_of(first.actor),
        second: order.g.exec_of(second.actor),
        buffers: (BufferId(first.buffer), BufferId(second.buffer)),
        arena: first.arena,
        bytes,
        iterations: (0, d),
    }
}

/// (b) pair by pair: every two conflicting accesses, each race reported.
fn every_pair(acc: &[Placed], order: &Order, errors: &mut Vec<CounterExample>) -> usize {
    let mut pairs = 0;
    let mut reported: HashSet<(usize, usize, u32)> = HashSet::new();
    for i in 0..acc.len() {
        for j in i..acc.len() {
            let (x, y) = (&acc[i], &acc[j]);
            if y.arena != x.arena || y.lo >= x.hi {
                break;
            }
            if !(x.write || y.write) || (i == j) {
                continue;
            }
            // The same rows of one buffer: a dependency within an iteration,
            // checked by (c); other rows at the same bytes (a ring's rows
            // one turn apart) must be ordered like different buffers.
            let same_rows = x.buffer == y.buffer && x.epoch == y.epoch;
            let (a, b) = (x.actor.index(), y.actor.index());
            let bytes = (x.lo.max(y.lo), x.hi.min(y.hi));
            let mut ok = true;
            let mut race = |first: &Placed, second: &Placed, d: u32| {
                ok = false;
                let (f, s) = (first.actor.index(), second.actor.index());
                if reported.insert((f.min(s), f.max(s), d)) {
                    errors.push(race(order, first, second, bytes, d));
                }
            };
            // d = 0: different rows only (same rows: a dependency).
            if !same_rows && (a == b || (!order.le(a, b, 0) && !order.le(b, a, 0))) {
                race(x, y, 0);
            }
            // d = 1, both orders.
            if !order.le(a, b, 1) {
                race(x, y, 1);
            }
            if !order.le(b, a, 1) {
                race(y, x, 1);
            }
            if ok {
                pairs += 1;
            }
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::graph::OpGraph;

    use crate::reach::random::lcg;

    /// A random access of one of `n` actors to 1 to `len` bytes from below
    /// 12, in the arena `arena` draws: of buffer 0, its rows those of epoch
    /// (0, 0), no state's copies.
    fn random_access(s: &mut u64, n: usize, arena: fn(&mut u64) -> ArenaId, len: u64) -> Placed {
        let lo = lcg(s) % 12;
        Placed {
            actor: ActorId::new((lcg(s) % n as u64) as usize),
            arena: arena(s),
            lo,
            hi: lo + 1 + lcg(s) % len,
            write: lcg(s).is_multiple_of(2),
            buffer: 0,
            epoch: (0, 0),
            copies: None,
        }
    }

    fn random_accesses(s: &mut u64, n: usize, same_rows: bool) -> Vec<Placed> {
        let arena = |s: &mut u64| {
            if lcg(s).is_multiple_of(4) {
                ArenaId::Local(0)
            } else {
                ArenaId::Shared
            }
        };
        let mut acc: Vec<Placed> = (0..1 + lcg(s) % 10)
            .map(|i| {
                let p = random_access(s, n, arena, 5);
                let buffer = (lcg(s) % 2) as usize;
                let epoch = if same_rows { (0, lcg(s) % 2) } else { (0, i) };
                Placed { buffer, epoch, ..p }
            })
            .collect();
        acc.sort_by_key(|p| (p.arena, p.lo, p.hi));
        acc
    }

    /// `check` on 3000 random operation graphs of 2 to `spread` + 1 actors
    /// (those with a zero-token cycle left out), given the round, the seed,
    /// the number of actors and the graph's order: each verdict, proven
    /// (`true`) or refused, must come more than 300 times.
    fn on_random_orders(
        mut seed: u64,
        spread: u64,
        mut check: impl FnMut(usize, &mut u64, usize, &Order) -> bool,
    ) {
        let (mut proven, mut refused) = (0, 0);
        for round in 0..3000 {
            let n = 2 + (lcg(&mut seed) % spread) as usize;
            let g = OpGraph::random(&mut seed, n);
            let Ok(reach) = g.reach() else {
                continue;
            };
            let order = Order { g: &g, reach };
            if check(round, &mut seed, n, &order) {
                proven += 1;
            } else {
                refused += 1;
            }
        }
        assert!(
            proven > 300 && refused > 300,
            "{proven} proven, {refused} refused"
        );
    }

    #[test]
    fn the_segment_proof_agrees_with_every_pair() {
        on_random_orders(11, 7, |round, seed, n, order| {
            // With pairs of the same rows, the segment proof may only
            // refuse more; without, it decides exactly as every pair.
            let same_rows = round % 2 == 0;
            let acc = random_accesses(seed, n, same_rows);
            let mut errors = Vec::new();
            let pairs = every_pair(&acc, order, &mut errors);
            if chained(&acc, order) {
                assert!(errors.is_empty(), "{errors:?}");
                assert_eq!(conflicting_pairs(&acc), pairs);
                true
            } else {
                assert!(same_rows || !errors.is_empty());
                false
            }
        });
    }

    /// The double-buffered check against iterations unrolled: accesses of
    /// one state at random phases, two of them a race exactly when some
    /// distance 1 ≤ d ≤ 3 puts them on the same copy and no path with at
    /// most d tokens orders them (at d = 0 the same rows of one buffer
    /// are a dependency, for (c)).
    #[test]
    fn the_double_buffered_check_agrees_with_unrolled_iterations() {
        on_random_orders(23, 6, |_, seed, n, order| {
            let frame = 16;
            let acc: Vec<Placed> = (0..2 + lcg(seed) % 5)
                .map(|_| {
                    let p = random_access(seed, n, |_| ArenaId::Shared, 4);
                    let phase = (lcg(seed) % 2) as u32;
                    Placed {
                        copies: Some(Copies { phase, frame }),
                        ..p
                    }
                })
                .collect();
            let g = order.g;
            let dist = |a: usize, b: usize| g.distances(g.exec[a])[g.exec[b]];
            let mut race = false;
            for (i, x) in acc.iter().enumerate() {
                for y in &acc[i + 1..] {
                    if y.lo >= x.hi || x.lo >= y.hi || !(x.write || y.write) {
                        continue;
                    }
                    let (a, b) = (x.actor.index(), y.actor.index());
                    let (px, py) = (x.copies.unwrap().phase, y.copies.unwrap().phase);
                    for d in 0..=3u32 {
                        if (px + py + d) % 2 != 0 {
                            continue;
                        }
                        if d > 0 {
                            race |= dist(a, b) > d || dist(b, a) > d;
                        }
                    }
                }
            }
            let mut errors = Vec::new();
            double_buffered(&acc, &[], order, &mut errors);
            assert_eq!(race, !errors.is_empty(), "{errors:?}");
            !race
        });
    }
}
