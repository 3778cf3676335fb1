//! Lower bounds on the bytes of a plan.
//!
//! * [`peak_live`]: the peak, over the positions of the global order (see
//!   [`super::lifetime`]), of the bytes of the buffers live there — a buffer
//!   is live from its first write to its last access, inclusive. Buffers
//!   live at one position pairwise interfere, so no plan that obeys the
//!   sharing rule uses fewer bytes.
//! * [`antichain`]: the heaviest set of pairwise interfering buffers (a
//!   maximum-weight antichain of the "before" order, by weighted Dilworth /
//!   a max flow, below). Every safe placement keeps such a set disjoint in
//!   bytes, so it is a lower bound too.
//!
//! The plan's `lower_bound` is [`lower_bound`], the larger of the two. On
//! one thread they coincide. With concurrent threads the peak over one
//! global order underestimates: buffers that are never live at one
//! position of that order may still be unordered across threads (so they
//! must not share bytes), and the antichain counts them. The antichain is
//! in theory never below the peak (the buffers live at one position form
//! such a set); the max keeps the bound valid whatever the order's
//! bookkeeping.
//!
//! # The antichain as a max flow
//!
//! Buffers without accessors are left out; each other buffer `A` weighs
//! `w_A` (its bytes). By weighted Dilworth (König's theorem on the
//! bipartite split), the heaviest antichain weighs the total weight minus
//! the max flow of the *closure network*: nodes `L_A`, `R_A` per buffer, a
//! source `T` and a sink `S`, edges `T → L_A` (capacity `w_A`), `L_A → R_B`
//! (∞) for every pair with `A` before `B`, and `R_B → S` (`w_B`). That is
//! one edge per ordered pair, O(m²): some 50 M edges at 10 000 buffers.
//! [`antichain`] computes the same max flow on the *cover network*, whose
//! size is the number of covers (pairs `A` before `B` with no buffer
//! between):
//!
//! * the buffers are sorted by their number of predecessors, then by id: a
//!   linear extension, since `A` before `B` makes `A`'s predecessors a
//!   strict subset of `B`'s (transitivity; `A` is in `B`'s only);
//! * "before" is relabelled into bit rows in that order, and the covers are
//!   found row by row: walking the successors `B` of `A` in increasing
//!   order, `B` is a cover unless it is in the row of an earlier cover (any
//!   `C` between `A` and `B` comes earlier, and is a cover or is after
//!   one);
//! * the network keeps `T → L_A` and `R_B → S`, has `L_A → R_B` (∞) for
//!   the covers only, and adds a pass-through `R_B → L_B` (∞) per buffer.
//!
//! The two max flows are equal. A flow of the closure network routes each
//! unit on `L_A → R_C` along a chain of covers `A → B₁ → … → C` instead, as
//! `L_A → R_B₁ → L_B₁ → … → R_C`, through ∞ edges only, keeping the flow on
//! every `T` and `S` edge. Conversely, the cover network is acyclic (covers
//! go up the linear extension), so a flow of it is a sum of paths
//! `T → L_A → R_B₁ → L_B₁ → … → R_C → S`, each of which is the closure edge
//! `A → C` (`A` before `C` by transitivity) with the same load on `T → L_A`
//! and `R_C → S`. For instance, a chain `A` before `B` flows
//! `min(w_A, w_B)` and leaves `max(w_A, w_B)`; `A` before `B` before `C`
//! also flows along `T → L_A → R_B → L_B → R_C → S`, with no `A → C` edge.
//!
//! The max flow is Dinic's, with an iterative augmenting search (paths can
//! be about `2m` long) and current arcs.

use super::lifetime::Lifetimes;

/// The plan's lower bound: `max(peak_live, antichain)` (module
/// documentation).
pub fn lower_bound(lt: &Lifetimes) -> u64 {
    peak_live(lt).max(antichain(lt))
}

/// Peak of simultaneously live bytes over the global order.
pub fn peak_live(lt: &Lifetimes) -> u64 {
    let n = lt.pos.len();
    let mut delta = vec![0i128; n + 1];
    for b in 0..lt.buffers() {
        if lt.accessors[b].is_empty() {
            continue;
        }
        let (s, e) = lt.live[b];
        delta[s] += lt.bytes[b] as i128;
        delta[e + 1] -= lt.bytes[b] as i128;
    }
    let mut cur = 0i128;
    let mut peak = 0i128;
    for d in delta {
        cur += d;
        peak = peak.max(cur);
    }
    peak as u64
}

/// Weight of a maximum-weight antichain of buffers under "before": total
/// weight − max flow of the cover network (module documentation).
pub fn antichain(lt: &Lifetimes) -> u64 {
    let kept: Vec<usize> = (0..lt.buffers())
        .filter(|&b| !lt.accessors[b].is_empty())
        .collect();
    let m = kept.len();
    // A linear extension: A before B makes A's predecessors a strict subset
    // of B's (A is in B's only), so sorting by their number, then by id,
    // puts A first.
    let mut preds = vec![0usize; m];
    for &a in &kept {
        for (p, &b) in preds.iter_mut().zip(&kept) {
            *p += lt.before(a, b) as usize;
        }
    }
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by_key(|&i| (preds[i], kept[i]));
    let order: Vec<usize> = idx.iter().map(|&i| kept[i]).collect();
    // "before" relabelled by rank in `order`, as bit rows: row r holds the
    // ranks above r that order[r] is before (all of them, "before" being a
    // strict partial order; a cyclic 0-token graph, which no valid schedule
    // has, might give others, which are ignored).
    let words = m.div_ceil(64).max(1);
    let mut rows = vec![0u64; m * words];
    for (r, &a) in order.iter().enumerate() {
        let row = &mut rows[r * words..(r + 1) * words];
        for (k, word) in row.iter_mut().enumerate().skip((r + 1) / 64) {
            let lo = (64 * k).max(r + 1);
            for (c, &b) in order.iter().enumerate().take(64 * k + 64).skip(lo) {
                *word |= (lt.before(a, b) as u64) << (c % 64);
            }
        }
    }

    // Cover edges: the successors B of A in increasing order; B is covered
    // (A before C before B for some C) iff an earlier successor, hence an
    // earlier cover, reaches it. Bits of row(B) are all above B.
    let mut covers: Vec<(usize, usize)> = Vec::new();
    let mut covered = vec![0u64; words];
    for a in 0..m {
        let first = a / 64;
        covered[first..].fill(0);
        for k in first..words {
            let mut x = rows[a * words + k] & !covered[k];
            while x != 0 {
                let b = k * 64 + x.trailing_zeros() as usize;
                covers.push((a, b));
                let rb = &rows[b * words + k..(b + 1) * words];
                for (c, r) in covered[k..].iter_mut().zip(rb) {
                    *c |= *r;
                }
                x &= x - 1;
                x &= !covered[k];
            }
        }
    }

    // The network, by rank: Lᵣ = r, Rᵣ = m + r, T = 2m, S = 2m + 1.
    let (t, s) = (2 * m, 2 * m + 1);
    let mut edges = Vec::with_capacity(covers.len() + 3 * m);
    for (r, &b) in order.iter().enumerate() {
        let w = lt.bytes[b];
        edges.push((t, r, w));
        edges.push((m + r, r, INF));
        edges.push((m + r, s, w));
    }
    edges.extend(covers.iter().map(|&(a, b)| (a, m + b, INF)));
    let total: u64 = order.iter().map(|&b| lt.bytes[b]).sum();
    total - Dinic::new(2 * m + 2, &edges).max_flow(t, s)
}

/// An infinite capacity.
const INF: u64 = u64::MAX / 4;

/// Dinic's max flow on a fixed graph (adjacency in one array).
struct Dinic {
    /// Edges of node v: `adj[start[v]..start[v + 1]]`.
    start: Vec<usize>,
    adj: Vec<usize>,
    /// Edge 2k is the k-th given edge, 2k + 1 its residual reverse.
    to: Vec<usize>,
    cap: Vec<u64>,
    level: Vec<u32>,
    /// Current arc of each node (an index into `adj`).
    it: Vec<usize>,
}

/// Level of a node the last BFS did not reach.
const UNREACHED: u32 = u32::MAX;

impl Dinic {
    fn new(n: usize, edges: &[(usize, usize, u64)]) -> Dinic {
        let mut to = Vec::with_capacity(2 * edges.len());
        let mut cap = Vec::with_capacity(2 * edges.len());
        let mut start = vec![0usize; n + 1];
        for &(a, b, c) in edges {
            to.extend([b, a]);
            cap.extend([c, 0]);
            start[a + 1] += 1;
            start[b + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut adj = vec![0usize; 2 * edges.len()];
        for (k, &(a, b, _)) in edges.iter().enumerate() {
            adj[fill[a]] = 2 * k;
            fill[a] += 1;
            adj[fill[b]] = 2 * k + 1;
            fill[b] += 1;
        }
        Dinic {
            start,
            adj,
            to,
            cap,
            level: vec![UNREACHED; n],
            it: vec![0; n],
        }
    }

    /// Levels from `s` in the residual graph; whether `t` is reached.
    fn bfs(&mut self, s: usize, t: usize) -> bool {
        self.level.fill(UNREACHED);
        self.level[s] = 0;
        let mut queue = vec![s];
        let mut head = 0;
        while head < queue.len() {
            let v = queue[head];
            head += 1;
            // Nodes as deep as t lead only deeper: no use to the search.
            if self.level[t] <= self.level[v] {
                break;
            }
            for &e in &self.adj[self.start[v]..self.start[v + 1]] {
                let u = self.to[e];
                if self.cap[e] > 0 && self.level[u] == UNREACHED {
                    self.level[u] = self.level[v] + 1;
                    queue.push(u);
                }
            }
        }
        self.level[t] != UNREACHED
    }

    fn max_flow(&mut self, s: usize, t: usize) -> u64 {
        let mut flow = 0;
        // The augmenting path being built, as edges from `s`; iterative
        // (paths may be as long as the graph).
        let mut path: Vec<usize> = Vec::new();
        while self.bfs(s, t) {
            let n = self.it.len();
            self.it.copy_from_slice(&self.start[..n]);
            path.clear();
            loop {
                let v = path.last().map_or(s, |&e| self.to[e]);
                if v == t {
                    let d = path.iter().map(|&e| self.cap[e]).min().unwrap_or(0);
                    for &e in &path {
                        self.cap[e] -= d;
                        self.cap[e ^ 1] += d;
                    }
                    flow += d;
                    // Back to the tail of the first saturated edge, whose
                    // current arc moves past it on the next advance.
                    let k = path.iter().position(|&e| self.cap[e] == 0).unwrap_or(0);
                    path.truncate(k);
                    continue;
                }
                // Advance along the current arc, or retreat from a dead end.
                let end = self.start[v + 1];
                while self.it[v] < end {
                    let e = self.adj[self.it[v]];
                    if self.cap[e] > 0 && self.level[self.to[e]] == self.level[v] + 1 {
                        break;
                    }
                    self.it[v] += 1;
                }
                if self.it[v] < end {
                    path.push(self.adj[self.it[v]]);
                } else if path.pop().is_some() {
                    let u = path.last().map_or(s, |&e| self.to[e]);
                    self.it[u] += 1;
                } else {
                    break;
                }
            }
        }
        flow
    }
}
