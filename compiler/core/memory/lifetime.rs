//! Orderings, lifetimes and interference of buffers under a schedule, and the
//! cross-iteration edges that make byte sharing safe.
//!
//! # Orderings
//!
//! Actor `x` of iteration `i` is written `x_i`. The runtime enforces:
//!
//! * every HSDFG edge `u → v` with `k` tokens: `u_i` before `v_{i+k}`
//!   (dependencies have 0 tokens, their write-after-read partners 1);
//! * program order: consecutive actors `a, b` of one thread, `a_i` before
//!   `b_i`, and the wrap-around (the thread loops over iterations) from the
//!   thread's last actor to its first with 1 token; so every actor is also
//!   ordered with itself across iterations (`x_i` before `x_{i+1}`);
//! * the `extra_edges` of a plan (1 token each), which the synchronisation
//!   stage must enforce;
//! * with `iteration_barrier`, everything of iteration `i` before everything
//!   of iteration `i + 1`.
//!
//! Within one iteration, `x` happens before `y` ([`Lifetimes::reaches`]) when
//! a path of 0-token edges (dependencies and program order) leads from `x`
//! to `y`. Buffer `A` is *before* buffer `B` ([`Lifetimes::before`]) when
//! every access of `A` happens before every access of `B` within an
//! iteration. "Before" is a strict partial order on buffers; two buffers
//! *interfere* when neither is before the other.
//!
//! # Why sharing is safe
//!
//! Let `A` be before `B` and the two share bytes. Within an iteration,
//! `A_i < B_i`. If moreover every access of `B_i` happens before every access
//! of `A_{i+1}` (a path with at most 1 token from each access of `B` to each
//! access of `A`), then `A_i < B_i < A_{i+1} < B_{i+1} < …` is a chain, and
//! by transitivity every access of one logical datum is ordered with every
//! access of every other datum placed on those bytes, in every iteration:
//! `A_i` vs `B_j` is `A_i < B_i ≤ B_j` for `j ≥ i`, and `B_j < A_{j+1} ≤ A_i`
//! for `j < i` (a path of `k ≤ 1` tokens from `x` to `y` orders `x_i` before
//! `y_{i+1}`, since `y_{i+k} ≤ y_{i+1}` by `y`'s own program order). Each
//! read of `A` depends on the writes of the rows it reads, so it suffices to
//! order `B` before the *writers* of `A_{i+1}`; and each access of `B` is 0-
//! token before one of `B`'s *maximal* accessors (those that reach no other
//! accessor of `B`), so it suffices to order those: for every maximal
//! accessor `L` of `B` and every writer `W` of `A` the plan needs a path of
//! at most 1 token from `L` to `W`, and [`Lifetimes::order_edges`] adds the
//! edge `L → W` (1 token, `buffer: B`) when the edges already there
//! (dependencies, write-after-read partners, program order with its
//! wrap-around, extra edges added so far) give no such path. The edges are
//! 1-token, so they never close a 0-token cycle (no deadlock).
//!
//! To keep the edges few, for each earlier buffer `A` its writers are taken
//! in the global order, and the later buffers `B` sharing its bytes latest
//! first: an edge from the latest `B` implies the ones from the earlier `B`s
//! (which reach it with 0 tokens).
//!
//! # Lifetimes and the global order
//!
//! The *global order* is a topological order of the 0-token graph
//! (dependencies + program order) that takes, among the ready actors, the
//! one with the earliest predicted start, then the lowest thread, then the
//! lowest index: one execution the schedule predicts. A buffer is *live* in
//! it from the position of its first write to the position of its last
//! access (inclusive). Two buffers live at one position interfere (if `A`
//! were before `B`, every access of `A` would come before every access of
//! `B` in any topological order), so the peak of live bytes over the global
//! order is a lower bound on any plan that obeys the sharing rule.

use crate::ir::hsdfg::{ActorId, BufferId, Hsdfg};
use crate::reach::{OneEdges, Reach, TokenGraph};
use crate::schedule::Schedule;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::{ArenaId, OrderEdge, Placement};

/// A square bit matrix (rows of `u64` words).
#[derive(Clone, Debug)]
pub(crate) struct BitMatrix {
    words: usize,
    bits: Vec<u64>,
}

impl BitMatrix {
    pub(crate) fn new(n: usize) -> BitMatrix {
        let words = n.div_ceil(64).max(1);
        BitMatrix {
            words,
            bits: vec![0; words * n],
        }
    }
    pub(crate) fn get(&self, r: usize, c: usize) -> bool {
        self.bits[r * self.words + c / 64] >> (c % 64) & 1 == 1
    }
    pub(crate) fn set(&mut self, r: usize, c: usize) {
        self.bits[r * self.words + c / 64] |= 1 << (c % 64);
    }
    /// Clears row and column `k`: `k` is ordered with nothing.
    pub(crate) fn isolate(&mut self, k: usize) {
        let n = self.bits.len() / self.words;
        self.bits[k * self.words..][..self.words].fill(0);
        for r in 0..n {
            self.bits[r * self.words + k / 64] &= !(1 << (k % 64));
        }
    }
}

/// Two buffer indices.
pub(crate) type Pair = (usize, usize);

/// Orderings and lifetimes of one (HSDFG, schedule) pair.
#[derive(Clone, Debug)]
pub struct Lifetimes {
    /// Actors in the global order.
    pub order: Vec<ActorId>,
    /// Position of each actor (by index) in `order`.
    pub pos: Vec<usize>,
    /// Thread of each actor (by index); `usize::MAX` when unscheduled.
    pub thread: Vec<usize>,
    /// Accessors (actor indices) of each buffer, in the global order.
    pub accessors: Vec<Vec<usize>>,
    /// Writers (actor indices) of each buffer, in the global order.
    pub writers: Vec<Vec<usize>>,
    /// Maximal accessors of each buffer (reaching no other accessor of it).
    pub last: Vec<Vec<usize>>,
    /// Live interval `[first write, last access]` of each buffer, positions
    /// in the global order.
    pub live: Vec<(usize, usize)>,
    /// Bytes of each buffer.
    pub bytes: Vec<u64>,
    /// `iteration_barrier` of the schedule.
    pub barrier: bool,
    /// Reachability within 0 and 1 token of everything the runtime
    /// enforces (dependencies, write-after-read partners, program order and
    /// its wrap-around), extra edges excluded.
    reach: Reach,
    /// `before` between buffers.
    before: BitMatrix,
}

#[derive(PartialEq)]
struct Ready {
    start: f64,
    thread: usize,
    index: usize,
}
impl Eq for Ready {}
impl Ord for Ready {
    fn cmp(&self, o: &Self) -> Ordering {
        // Min-heap on (start, thread, index).
        o.start
            .total_cmp(&self.start)
            .then(o.thread.cmp(&self.thread))
            .then(o.index.cmp(&self.index))
    }
}
impl PartialOrd for Ready {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}

impl Lifetimes {
    pub fn new(h: &Hsdfg, s: &Schedule) -> Lifetimes {
        let n = h.graph.node_count();
        let thread = s.thread_of(n);
        let mut start = vec![0.0f64; n];
        for th in &s.threads {
            for (k, a) in th.actors.iter().enumerate() {
                start[a.index()] = th.start.get(k).copied().unwrap_or(0.0);
            }
        }
        let (succ0, enforced) = enforced_edges(h, s, n);
        let order_idx = global_order(&succ0, &start, &thread);
        let mut pos = vec![0usize; n];
        for (p, &a) in order_idx.iter().enumerate() {
            pos[a] = p;
        }
        let reach = reach_within_one_token(n, &enforced, &pos);
        let (accessors, writers) = accessors_in_order(h, &pos);
        let last: Vec<Vec<usize>> = accessors.iter().map(|acc| maximal(&reach, acc)).collect();
        let state = |b: usize| h.buffers[b].initial.is_some();
        let live = (0..h.buffers.len())
            .map(|b| {
                if state(b) {
                    // A state buffer keeps its value across iterations.
                    return (0, n.saturating_sub(1));
                }
                let first = writers[b]
                    .first()
                    .or(accessors[b].first())
                    .map_or(0, |&a| pos[a]);
                let end = accessors[b].iter().map(|&a| pos[a]).max().unwrap_or(first);
                (first, end.max(first))
            })
            .collect();
        let mut before = buffer_order(&reach, &accessors, n);
        // A state buffer holds its value from its writer to its delayed
        // reader of the next iteration: no buffer may share its bytes.
        for b in (0..h.buffers.len()).filter(|&b| state(b)) {
            before.isolate(b);
        }

        Lifetimes {
            order: order_idx.iter().map(|&i| ActorId::new(i)).collect(),
            pos,
            thread,
            accessors,
            writers,
            last,
            live,
            bytes: h.buffers.iter().map(|b| b.bytes).collect(),
            barrier: s.iteration_barrier,
            reach,
            before,
        }
    }

    /// Number of buffers.
    pub fn buffers(&self) -> usize {
        self.bytes.len()
    }

    /// Actor `x` happens before actor `y` within an iteration (0-token path).
    pub fn reaches(&self, x: usize, y: usize) -> bool {
        x != y && self.reach.reach0(x, y)
    }

    /// Every access of buffer `a` happens before every access of buffer `b`
    /// within an iteration.
    pub fn before(&self, a: usize, b: usize) -> bool {
        self.before.get(a, b)
    }

    /// Neither buffer is before the other: they may not share bytes.
    pub fn interfere(&self, a: usize, b: usize) -> bool {
        a != b && !self.before(a, b) && !self.before(b, a)
    }

    /// The threads that write buffer `b`.
    pub fn writer_threads(&self, b: usize) -> Vec<usize> {
        let mut t: Vec<usize> = self.writers[b].iter().map(|&a| self.thread[a]).collect();
        t.sort_unstable();
        t.dedup();
        t
    }

    /// The thread every accessor of `b` runs on, if there is exactly one.
    pub fn single_thread(&self, b: usize) -> Option<usize> {
        let t = *self.thread.get(*self.accessors[b].first()?)?;
        (t != usize::MAX && self.accessors[b].iter().all(|&a| self.thread[a] == t)).then_some(t)
    }

    /// A path with at most 1 token from actor `x` to actor `y` through
    /// everything the runtime enforces plus the 1-token edges of `extra`.
    pub(crate) fn within1(&self, x: usize, y: usize, extra: &OneEdges) -> bool {
        self.reach.within1(x, y) || extra.gives(x, y)
    }

    /// An empty set of extra 1-token edges over these orderings.
    pub(crate) fn extra_edges(&self) -> OneEdges<'_> {
        OneEdges::new(&self.reach)
    }

    /// Pairs `(earlier, later)` of buffers whose byte ranges overlap in one
    /// arena, and pairs that overlap without being ordered (errors).
    pub(crate) fn overlaps(&self, placements: &[Placement]) -> (Vec<Pair>, Vec<Pair>) {
        let mut idx: Vec<usize> = (0..placements.len()).collect();
        idx.sort_by_key(|&b| (placements[b].arena, placements[b].offset, b));
        let mut ordered = Vec::new();
        let mut bad = Vec::new();
        for (k, &a) in idx.iter().enumerate() {
            let pa = placements[a];
            for &b in &idx[k + 1..] {
                let pb = placements[b];
                if pb.arena != pa.arena || pb.offset >= pa.offset + pa.bytes {
                    break;
                }
                if pb.bytes == 0 || pa.bytes == 0 {
                    continue;
                }
                if self.before(a, b) {
                    ordered.push((a, b));
                } else if self.before(b, a) {
                    ordered.push((b, a));
                } else {
                    bad.push((a.min(b), a.max(b)));
                }
            }
        }
        (ordered, bad)
    }

    /// The 1-token edges that make the byte sharing of `placements` safe
    /// across iterations (see the module doc), skipping the ones the
    /// runtime already implies. Pairs that overlap without being ordered
    /// within an iteration are left to [`super::check_plan`].
    pub fn order_edges(&self, placements: &[Placement]) -> Vec<OrderEdge> {
        let mut out = Vec::new();
        if self.barrier {
            return out;
        }
        let (pairs, _) = self.overlaps(placements);
        let nb = self.buffers();
        let mut later: Vec<Vec<usize>> = vec![Vec::new(); nb];
        for (a, b) in pairs {
            later[a].push(b);
        }
        let mut extra = self.extra_edges();
        let mut earlier: Vec<usize> = (0..nb).filter(|&a| !later[a].is_empty()).collect();
        earlier.sort_by_key(|&a| (self.live[a].0, a));
        for a in earlier {
            let mut bs = std::mem::take(&mut later[a]);
            bs.sort_by_key(|&b| (std::cmp::Reverse(self.live[b].1), b));
            for &w in &self.writers[a] {
                for &b in &bs {
                    let mut ls = self.last[b].clone();
                    ls.sort_by_key(|&l| std::cmp::Reverse(self.pos[l]));
                    for l in ls {
                        if self.within1(l, w, &extra) {
                            continue;
                        }
                        out.push(OrderEdge {
                            from: ActorId::new(l),
                            to: ActorId::new(w),
                            tokens: 1,
                            buffer: BufferId(b),
                        });
                        extra.insert(l, w);
                    }
                }
            }
        }
        out
    }
}

/// Placements' arena sizes: (shared, local per thread).
pub(crate) fn arena_sizes(placements: &[Placement], threads: usize) -> (u64, Vec<u64>) {
    let mut shared = 0;
    let mut local = vec![0u64; threads];
    for p in placements {
        let end = p.offset + p.bytes;
        match p.arena {
            ArenaId::Shared => shared = shared.max(end),
            ArenaId::Local(t) => {
                if t >= local.len() {
                    local.resize(t + 1, 0);
                }
                local[t] = local[t].max(end);
            }
        }
    }
    (shared, local)
}

/// An ordering the runtime enforces: (from, to, tokens, program order).
type Enforced = (usize, usize, u32, bool);

/// Edges: 0-token successors (sorted, without repeats), and everything the
/// runtime enforces with its tokens (for `crate::reach`).
fn enforced_edges(h: &Hsdfg, s: &Schedule, n: usize) -> (Vec<Vec<usize>>, Vec<Enforced>) {
    let mut succ0: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut enforced: Vec<Enforced> = Vec::new();
    for (_, a, b, e) in h.edges() {
        let (a, b) = (a.index(), b.index());
        if e.tokens == 0 {
            succ0[a].push(b);
        }
        enforced.push((a, b, e.tokens, false));
    }
    for th in &s.threads {
        for w in th.actors.windows(2) {
            succ0[w[0].index()].push(w[1].index());
            enforced.push((w[0].index(), w[1].index(), 0, true));
        }
        if let (Some(f), Some(l)) = (th.actors.first(), th.actors.last()) {
            if f != l {
                enforced.push((l.index(), f.index(), 1, false));
            }
        }
    }
    for v in succ0.iter_mut() {
        v.sort_unstable();
        v.dedup();
    }
    (succ0, enforced)
}

/// Global order: Kahn with priority (start, thread, index).
fn global_order(succ0: &[Vec<usize>], start: &[f64], thread: &[usize]) -> Vec<usize> {
    let n = succ0.len();
    let mut indeg = vec![0usize; n];
    for v in succ0 {
        for &b in v {
            indeg[b] += 1;
        }
    }
    let mut heap = BinaryHeap::new();
    for (i, &d) in indeg.iter().enumerate() {
        if d == 0 {
            heap.push(Ready {
                start: start[i],
                thread: thread[i],
                index: i,
            });
        }
    }
    let mut order_idx = Vec::with_capacity(n);
    let mut done = vec![false; n];
    while let Some(r) = heap.pop() {
        order_idx.push(r.index);
        done[r.index] = true;
        for &b in &succ0[r.index] {
            indeg[b] -= 1;
            if indeg[b] == 0 {
                heap.push(Ready {
                    start: start[b],
                    thread: thread[b],
                    index: b,
                });
            }
        }
    }
    // A cyclic 0-token graph is not a valid schedule; keep going with
    // the rest in index order so that callers can still report.
    order_idx.extend((0..n).filter(|&i| !done[i]));
    order_idx
}

/// Reachability within 0 and 1 token. A cyclic 0-token graph (not a
/// valid schedule) keeps only the edges along the global order.
fn reach_within_one_token(n: usize, enforced: &[Enforced], pos: &[usize]) -> Reach {
    let tg = |keep_all: bool| {
        let mut g = TokenGraph::new(n);
        for &(a, b, t, program) in enforced {
            if t == 0 && !keep_all && pos[a] >= pos[b] {
                continue;
            }
            if program {
                g.add_program_order(a, b);
            } else {
                g.add(a, b, t);
            }
        }
        g
    };
    Reach::new(&tg(true))
        .or_else(|_| Reach::new(&tg(false)))
        .expect("edges along a topological order are acyclic")
}

/// Accessors and writers of every buffer, in the global order.
fn accessors_in_order(h: &Hsdfg, pos: &[usize]) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
    let nb = h.buffers.len();
    let mut accessors: Vec<Vec<usize>> = vec![Vec::new(); nb];
    let mut writers: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for a in h.actors() {
        for acc in &h.actor(a).accesses {
            accessors[acc.buffer.0].push(a.index());
            if acc.write {
                writers[acc.buffer.0].push(a.index());
            }
        }
    }
    for v in accessors.iter_mut().chain(writers.iter_mut()) {
        v.sort_by_key(|&a| pos[a]);
        v.dedup();
    }
    (accessors, writers)
}

/// The accessors of `acc` that reach no other one of them with 0 tokens,
/// in the order of `acc`. What `x` reaches of a chain is a suffix, so `x`
/// reaches another accessor iff some chain's last accessor lies in it
/// (strictly after `x` on its own chain): O(|acc| · chains), not the
/// O(|acc|²) of asking every pair (a fused strip count of 16 384 made that
/// the bulk of the compile).
fn maximal(reach: &Reach, acc: &[usize]) -> Vec<usize> {
    let mut latest: Vec<Option<usize>> = vec![None; reach.chains()];
    for &y in acc {
        let (c, p) = reach.place(y);
        latest[c] = latest[c].max(Some(p));
    }
    acc.iter()
        .copied()
        .filter(|&x| {
            let (own, p) = reach.place(x);
            !latest.iter().enumerate().any(|(c, &l)| match l {
                Some(l) if c == own => l > p,
                Some(l) => reach.first0(x, c).is_some_and(|f| f <= l),
                None => false,
            })
        })
        .collect()
}

/// Buffer order. What an accessor x reaches strictly is, per chain of
/// `reach`, a suffix; what every accessor of A reaches is the suffix from
/// the largest of their thresholds, `after[A][c]`. A is before B iff every
/// accessor of B lies in it.
fn buffer_order(reach: &Reach, accessors: &[Vec<usize>], n: usize) -> BitMatrix {
    let nb = accessors.len();
    let k = reach.chains();
    let place: Vec<(usize, usize)> = (0..n).map(|x| reach.place(x)).collect();
    let mut after = vec![0usize; nb * k];
    for (a, acc) in accessors.iter().enumerate() {
        let row = &mut after[a * k..][..k];
        for &x in acc {
            for (c, t) in row.iter_mut().enumerate() {
                let strict = if c == place[x].0 {
                    place[x].1 + 1
                } else {
                    reach.first0(x, c).unwrap_or(usize::MAX)
                };
                *t = (*t).max(strict);
            }
        }
    }
    // Each B as (chain, first position) of its accessors.
    let firsts: Vec<Vec<(usize, usize)>> = accessors
        .iter()
        .map(|acc| {
            let mut f: Vec<(usize, usize)> = Vec::new();
            for &y in acc {
                let (c, p) = place[y];
                match f.iter_mut().find(|e| e.0 == c) {
                    Some(e) => e.1 = e.1.min(p),
                    None => f.push((c, p)),
                }
            }
            f
        })
        .collect();
    let mut before = BitMatrix::new(nb);
    for a in 0..nb {
        let row = &after[a * k..][..k];
        for (b, f) in firsts.iter().enumerate() {
            if a != b && f.iter().all(|&(c, p)| p >= row[c]) {
                before.set(a, b);
            }
        }
    }
    before
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::reach::random::{lcg, zero_token_graph};

    #[test]
    fn maximal_accessors_agree_with_every_pair() {
        let mut seed = 3u64;
        for _ in 0..500 {
            let n = 1 + (lcg(&mut seed) % 16) as usize;
            let g = zero_token_graph(&mut seed, n, 2);
            let reach = Reach::new(&g).unwrap();
            let mut acc: Vec<usize> = (0..n)
                .filter(|_| !lcg(&mut seed).is_multiple_of(3))
                .collect();
            acc.sort_by_key(|_| lcg(&mut seed));
            let brute: Vec<usize> = acc
                .iter()
                .copied()
                .filter(|&x| !acc.iter().any(|&y| x != y && reach.reach0(x, y)))
                .collect();
            assert_eq!(maximal(&reach, &acc), brute, "{acc:?}");
        }
    }
}
