//! Token-bounded reachability: "does x of iteration i happen before y of
//! iteration i + t?" for t ∈ {0, 1}, on graphs whose edges carry tokens.
//!
//! Used by the stages that reason about orderings — memory (lifetimes, the
//! cross-iteration edges of byte sharing, the plan check), sync (the
//! transitive reduction of the signals) and verify (the proof) — in place of
//! one shortest-path search per node, which is quadratic and took minutes on
//! a 10 000-box chain.
//!
//! Takes a [`TokenGraph`] (nodes, edges with 0, 1 or more tokens; the
//! 0-token edges must form a DAG). Gives a [`Reach`] answering in O(1):
//! [`Reach::reach0`] (a path with 0 tokens, reflexive) and
//! [`Reach::within1`] (a path with at most 1 token), and a [`OneEdges`] set
//! of extra 1-token edges that can grow and shrink, asked in O(k log n)
//! whether one of its edges gives a 1-token path. [`least_tokens`] is the
//! search for the rest (more tokens, a graph that changes). Guarantees:
//! exact, the answers of a least-tokens search on the same graph; time and
//! memory linear in the nodes and edges for a fixed number of chains.
//!
//! # How
//!
//! The nodes are covered by *chains*: paths of 0-token edges (greedy, in a
//! topological order, following the edges marked as program order first, so
//! on a thread-structured graph the chains are the threads). What a node
//! reaches with 0 tokens on a chain is a suffix of it (the chain's own
//! edges lead on), so `f0[x][c]`, the first position of chain `c` that `x`
//! reaches, says it all: `x` reaches `y` iff `pos(y) ≥ f0[x][chain(y)]`. A
//! path with at most 1 token is a 0-token path, or 0-token path, one 1-token
//! edge `u → v`, 0-token path; so what `x` reaches within 1 token is the
//! union of `R0(x)` and `R0(v)` for the 1-token edges `u → v` with `u` in
//! `R0(x)` — again a suffix per chain, `f1[x][c]`. Both are computed in
//! reverse topological order in O((edges) · k) for k chains; memory is
//! 2 · n · k words. Edges with 2 tokens or more never lie on such a path and
//! are ignored.
//!
//! The same linear passes replace the other quadratic steps of the stages
//! that ask: sync reduces its 0-token candidates in one pass (the
//! transitive reduction of a DAG is unique, so the order of removal does
//! not matter there), and the memory bound's max-weight antichain runs its
//! flow on the cover edges of "before" with a pass-through edge per buffer
//! instead of the transitive closure. The outputs are the same as the
//! searches gave. A generated 10 000-box chain (about 20 000 sub-boxes,
//! `-ts reduced 2`) compiles in about 5 s (`BENCHMARKS.md`).

mod least;
#[cfg(test)]
pub(crate) mod random;
mod topo;

pub use least::least_tokens;
pub use topo::{kahn, Cycle, Pick};

use std::collections::{BTreeMap, HashMap};

/// No position: the chain is not reached.
const NONE: u32 = u32::MAX;

/// A graph with tokens on its edges (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct TokenGraph {
    /// 0-token successors, with "program order" (preferred for chains).
    out0: Vec<Vec<(u32, bool)>>,
    /// 1-token edges.
    one: Vec<(u32, u32)>,
}

impl TokenGraph {
    pub fn new(n: usize) -> TokenGraph {
        TokenGraph {
            out0: vec![Vec::new(); n],
            one: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.out0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.out0.is_empty()
    }

    /// An edge `from → to` with `tokens` tokens (2 or more: ignored).
    pub fn add(&mut self, from: usize, to: usize, tokens: u32) {
        match tokens {
            0 => self.out0[from].push((to as u32, false)),
            1 => self.one.push((from as u32, to as u32)),
            _ => {}
        }
    }

    /// A 0-token edge of program order: the chains follow these first.
    pub fn add_program_order(&mut self, from: usize, to: usize) {
        self.out0[from].push((to as u32, true));
    }

    /// The 0-token successors of `x`.
    pub fn successors0(&self, x: usize) -> impl Iterator<Item = usize> + '_ {
        self.out0[x].iter().map(|&(y, _)| y as usize)
    }
}

/// Reachability with at most 0 or 1 token (see the module documentation).
#[derive(Clone, Debug)]
pub struct Reach {
    k: usize,
    chain: Vec<u32>,
    pos: Vec<u32>,
    /// The nodes of each chain, in order.
    chains: Vec<Vec<u32>>,
    /// `n × k`: first position of each chain reached with 0 tokens.
    f0: Vec<u32>,
    /// `n × k`: first position of each chain reached with at most 1 token.
    f1: Vec<u32>,
    /// Position of each node in a topological order of the 0-token edges.
    rank: Vec<u32>,
}

impl Reach {
    /// Fails with a node of a 0-token cycle when there is one.
    pub fn new(g: &TokenGraph) -> Result<Reach, usize> {
        let n = g.len();
        let topo = topological(g)?;
        // Chains: greedy path cover in topological order.
        let mut preds: Vec<Vec<(u32, bool)>> = vec![Vec::new(); n];
        for (x, out) in g.out0.iter().enumerate() {
            for &(y, po) in out {
                preds[y as usize].push((x as u32, po));
            }
        }
        let mut chain = vec![NONE; n];
        let mut pos = vec![0u32; n];
        let mut chains: Vec<Vec<u32>> = Vec::new();
        for &x in &topo {
            let is_tail = |p: u32| {
                let c = chain[p as usize] as usize;
                chains[c].last() == Some(&p)
            };
            let pick = preds[x]
                .iter()
                .filter(|&&(p, po)| po && is_tail(p))
                .map(|&(p, _)| p)
                .min()
                .or_else(|| {
                    preds[x]
                        .iter()
                        .filter(|&&(p, _)| is_tail(p))
                        .map(|&(p, _)| p)
                        .min()
                });
            let c = match pick {
                Some(p) => chain[p as usize] as usize,
                None => {
                    chains.push(Vec::new());
                    chains.len() - 1
                }
            };
            chain[x] = c as u32;
            pos[x] = chains[c].len() as u32;
            chains[c].push(x as u32);
        }
        let k = chains.len().max(1);
        let mut f0 = vec![NONE; n * k];
        let mut row = vec![NONE; k];
        for &x in topo.iter().rev() {
            row.fill(NONE);
            for &(y, _) in &g.out0[x] {
                min_into(&mut row, &f0[y as usize * k..][..k]);
            }
            row[chain[x] as usize] = pos[x];
            f0[x * k..][..k].copy_from_slice(&row);
        }
        // h[x] = min over 1-token edges x → v of f0[v].
        let mut f1 = f0.clone();
        for &(u, v) in &g.one {
            let (u, v) = (u as usize, v as usize);
            row.copy_from_slice(&f0[v * k..][..k]);
            min_into(&mut f1[u * k..][..k], &row);
        }
        for &x in topo.iter().rev() {
            row.copy_from_slice(&f1[x * k..][..k]);
            for &(y, _) in &g.out0[x] {
                min_into(&mut row, &f1[y as usize * k..][..k]);
            }
            f1[x * k..][..k].copy_from_slice(&row);
        }
        let mut rank = vec![0u32; n];
        for (i, &x) in topo.iter().enumerate() {
            rank[x] = i as u32;
        }
        Ok(Reach {
            k,
            chain,
            pos,
            chains,
            f0,
            f1,
            rank,
        })
    }

    /// Number of chains.
    pub fn chains(&self) -> usize {
        self.k
    }

    /// A path from `x` to `y` with 0 tokens (`x` reaches itself).
    pub fn reach0(&self, x: usize, y: usize) -> bool {
        self.pos[y] >= self.f0[x * self.k + self.chain[y] as usize]
    }

    /// A path from `x` to `y` with at most 1 token.
    pub fn within1(&self, x: usize, y: usize) -> bool {
        self.pos[y] >= self.f1[x * self.k + self.chain[y] as usize]
    }

    /// The fewest tokens on a path from `x` to `y`, capped at 2 ("more
    /// than one, or none").
    pub fn tokens(&self, x: usize, y: usize) -> u32 {
        if self.reach0(x, y) {
            0
        } else if self.within1(x, y) {
            1
        } else {
            2
        }
    }

    /// The chain of `x` and its position there.
    pub fn place(&self, x: usize) -> (usize, usize) {
        (self.chain[x] as usize, self.pos[x] as usize)
    }

    /// The position of `x` in a topological order of the 0-token edges:
    /// when `x` reaches `y ≠ x`, `rank(x) < rank(y)`.
    pub fn rank(&self, x: usize) -> usize {
        self.rank[x] as usize
    }

    /// The first position of chain `c` that `x` reaches with 0 tokens.
    pub fn first0(&self, x: usize, c: usize) -> Option<usize> {
        let p = self.f0[x * self.k + c];
        (p != NONE).then_some(p as usize)
    }

    /// The nodes of chain `c`, in order.
    pub fn chain_nodes(&self, c: usize) -> &[u32] {
        &self.chains[c]
    }
}

fn min_into(row: &mut [u32], other: &[u32]) {
    for (a, &b) in row.iter_mut().zip(other) {
        *a = (*a).min(b);
    }
}

/// Kahn's order of the 0-token edges (FIFO, so deterministic), or a node of
/// a cycle.
fn topological(g: &TokenGraph) -> Result<Vec<usize>, usize> {
    kahn(
        g.len(),
        |x| g.out0[x].iter().map(|&(y, _)| y as usize),
        Pick::Fifo,
    )
    .map_err(|c| c.node)
}

/// A set of extra 1-token edges over a [`Reach`], which can grow and shrink:
/// [`OneEdges::gives`] answers whether one of them makes a path from `a` to
/// `b` with one token (`a` reaches `u` with 0, `u → v`, `v` reaches `b`
/// with 0). Per (chain of `u`, chain of `b`) a segment tree over the
/// positions of `u`'s chain holds the least `f0[v][chain of b]` of the edges
/// leaving there; a query takes, for each chain, the minimum over the
/// suffix `a` reaches. O(k log n) per query and per update.
#[derive(Clone, Debug)]
pub struct OneEdges<'r> {
    r: &'r Reach,
    /// Index `cu * k + cb`: a segment tree of `2 · len(cu)` entries.
    trees: Vec<Vec<u32>>,
    /// The edges `u → v` in the set, with their multiplicity.
    edges: HashMap<(u32, u32), u32>,
    /// Per node `u` with edges, per chain `cb`: the multiset of
    /// `f0[v][cb]` over its edges `u → v` (its least is the tree's leaf),
    /// so a node with many edges (a sink's write-after-read partners, one
    /// per strip) updates in O(k log n), not O(k · its edges).
    firsts: Vec<Vec<BTreeMap<u32, u32>>>,
}

impl<'r> OneEdges<'r> {
    pub fn new(r: &'r Reach) -> OneEdges<'r> {
        let k = r.k;
        let mut trees = Vec::with_capacity(k * k);
        for cu in 0..k {
            let len = r.chains.get(cu).map_or(0, |c| c.len());
            for _ in 0..k {
                trees.push(vec![NONE; 2 * len]);
            }
        }
        OneEdges {
            r,
            trees,
            edges: HashMap::new(),
            firsts: vec![Vec::new(); r.pos.len()],
        }
    }

    pub fn insert(&mut self, u: usize, v: usize) {
        *self.edges.entry((u as u32, v as u32)).or_insert(0) += 1;
        let k = self.r.k;
        let firsts = &mut self.firsts[u];
        firsts.resize_with(k, BTreeMap::new);
        for (cb, set) in firsts.iter_mut().enumerate() {
            *set.entry(self.r.f0[v * k + cb]).or_insert(0) += 1;
        }
        self.refresh(u);
    }

    /// Removes one edge `u → v` (nothing when there is none).
    pub fn remove(&mut self, u: usize, v: usize) {
        let std::collections::hash_map::Entry::Occupied(mut e) =
            self.edges.entry((u as u32, v as u32))
        else {
            return;
        };
        *e.get_mut() -= 1;
        if *e.get() == 0 {
            e.remove();
        }
        let k = self.r.k;
        for (cb, set) in self.firsts[u].iter_mut().enumerate() {
            let f = self.r.f0[v * k + cb];
            if let Some(c) = set.get_mut(&f) {
                *c -= 1;
                if *c == 0 {
                    set.remove(&f);
                }
            }
        }
        self.refresh(u);
    }

    fn refresh(&mut self, u: usize) {
        let k = self.r.k;
        let (cu, p) = self.r.place(u);
        let len = self.r.chains[cu].len();
        for cb in 0..k {
            let best = self.firsts[u]
                .get(cb)
                .and_then(|set| set.keys().next().copied())
                .unwrap_or(NONE);
            let t = &mut self.trees[cu * k + cb];
            let mut i = p + len;
            t[i] = best;
            while i > 1 {
                i /= 2;
                t[i] = t[2 * i].min(t[2 * i + 1]);
            }
        }
    }

    /// One of the edges gives a path from `a` to `b` with one token.
    pub fn gives(&self, a: usize, b: usize) -> bool {
        let k = self.r.k;
        let (cb, pb) = self.r.place(b);
        for cu in 0..k {
            let Some(from) = self.r.first0(a, cu) else {
                continue;
            };
            let len = self.r.chains[cu].len();
            if suffix_min(&self.trees[cu * k + cb], len, from) <= pb as u32 {
                return true;
            }
        }
        false
    }
}

/// Minimum of the leaves `from..len` of an iterative segment tree.
fn suffix_min(t: &[u32], len: usize, from: usize) -> u32 {
    let (mut l, mut r) = (from + len, 2 * len);
    let mut m = NONE;
    while l < r {
        if l & 1 == 1 {
            m = m.min(t[l]);
            l += 1;
        }
        if r & 1 == 1 {
            r -= 1;
            m = m.min(t[r]);
        }
        l /= 2;
        r /= 2;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fewest tokens by brute force (Bellman–Ford on tokens 0/1/2+).
    fn brute(n: usize, edges: &[(usize, usize, u32)], x: usize) -> Vec<u32> {
        let mut d = vec![u32::MAX; n];
        d[x] = 0;
        for _ in 0..=n {
            for &(a, b, t) in edges {
                if d[a] != u32::MAX {
                    d[b] = d[b].min(d[a] + t);
                }
            }
        }
        d
    }

    use random::lcg;

    #[test]
    fn agrees_with_brute_force_on_random_dags() {
        let mut seed = 7u64;
        for _ in 0..300 {
            let n = 1 + (lcg(&mut seed) % 14) as usize;
            let mut edges = Vec::new();
            let mut g = TokenGraph::new(n);
            for _ in 0..lcg(&mut seed) % 30 {
                let a = (lcg(&mut seed) % n as u64) as usize;
                let b = (lcg(&mut seed) % n as u64) as usize;
                let t = (lcg(&mut seed) % 3) as u32;
                // 0-token edges only forward, so they stay acyclic.
                if t == 0 && a >= b {
                    continue;
                }
                if t == 0 && lcg(&mut seed).is_multiple_of(2) {
                    g.add_program_order(a, b);
                } else {
                    g.add(a, b, t);
                }
                edges.push((a, b, t));
            }
            let r = Reach::new(&g).unwrap();
            // Some extra edges in a OneEdges set, one removed again.
            let mut extra = OneEdges::new(&r);
            let mut with = edges.clone();
            for i in 0..3 {
                let a = (lcg(&mut seed) % n as u64) as usize;
                let b = (lcg(&mut seed) % n as u64) as usize;
                extra.insert(a, b);
                if i == 1 {
                    extra.remove(a, b);
                } else {
                    with.push((a, b, 1));
                }
            }
            for x in 0..n {
                let d = brute(n, &edges, x);
                let dw = brute(n, &with, x);
                for y in 0..n {
                    assert_eq!(r.reach0(x, y), d[y] == 0, "reach0 {x} {y} {edges:?}");
                    assert_eq!(r.within1(x, y), d[y] <= 1, "within1 {x} {y} {edges:?}");
                    assert_eq!(
                        r.within1(x, y) || extra.gives(x, y),
                        dw[y] <= 1,
                        "extra {x} {y} {with:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn an_edge_inserted_twice_stays_until_removed_twice() {
        // Two threads 0→1 and 2→3; extra 1-token edges from 1 to 2 and 3.
        let mut g = TokenGraph::new(4);
        g.add_program_order(0, 1);
        g.add_program_order(2, 3);
        let r = Reach::new(&g).unwrap();
        let mut extra = OneEdges::new(&r);
        extra.insert(1, 3);
        extra.insert(1, 2);
        extra.insert(1, 2);
        extra.remove(1, 3);
        assert!(extra.gives(0, 2));
        extra.remove(1, 2);
        assert!(extra.gives(0, 2));
        extra.remove(1, 2);
        assert!(!extra.gives(0, 2) && !extra.gives(0, 3));
        extra.remove(1, 2);
        extra.insert(1, 3);
        assert!(extra.gives(0, 3) && !extra.gives(0, 2));
    }

    #[test]
    fn a_zero_token_cycle_is_refused() {
        let mut g = TokenGraph::new(3);
        g.add(0, 1, 0);
        g.add(1, 2, 0);
        g.add(2, 0, 0);
        assert!(Reach::new(&g).is_err());
        g = TokenGraph::new(2);
        g.add(0, 1, 0);
        g.add(1, 0, 1);
        assert!(Reach::new(&g).unwrap().within1(1, 0));
    }

    #[test]
    fn threads_become_the_chains() {
        // Two threads 0→1→2 and 3→4→5 with cross edges 0→4, 1→5.
        let mut g = TokenGraph::new(6);
        for (a, b) in [(0, 1), (1, 2), (3, 4), (4, 5)] {
            g.add_program_order(a, b);
        }
        g.add(0, 4, 0);
        g.add(1, 5, 0);
        let r = Reach::new(&g).unwrap();
        assert_eq!(r.chains(), 2);
        assert!(r.reach0(0, 5) && !r.reach0(3, 2));
    }
}
