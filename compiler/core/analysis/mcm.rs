//! Maximum cycle ratio of a weighted graph by Howard's policy iteration.
//!
//! Takes nodes `0..n` and edges `(from, to, weight, tokens)`; gives the cycle
//! whose `Σ weight / Σ tokens` is the largest — for an HSDFG whose edge
//! weight is the execution time of its source actor, that ratio is the
//! period (the maximum cycle mean, with initial tokens as the transit).
//!
//! Guarantees: a cycle without tokens is reported (it deadlocks), never
//! looped on; the result is *exact*: the policy iteration only chooses the
//! critical cycle, whose ratio is then given as the two whole sums; ties are
//! broken by the lowest edge index, so the result is deterministic.
//! Algorithm: Cochet-Terrasson, Cohen, Gaubert, McGettrick and Quadrat,
//! "Numerical computation of spectral elements in max-plus algebra" (1998),
//! in the form of Dasdan's "Experimental analysis of the fastest optimum
//! cycle ratio and mean algorithms" (2004).

/// An edge: `(from, to, weight, tokens)`.
pub type Edge = (usize, usize, u64, u64);

/// The critical cycle and its ratio `weight / tokens`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CycleRatio {
    /// Σ weight over the cycle.
    pub weight: u64,
    /// Σ tokens over the cycle (≥ 1).
    pub tokens: u64,
    /// The cycle's edges (indices into the input), in order, starting at
    /// the edge that leaves its lowest node.
    pub edges: Vec<usize>,
}

impl CycleRatio {
    /// `weight / tokens`.
    pub fn ratio(&self) -> f64 {
        self.weight as f64 / self.tokens as f64
    }
}

/// Why there is no finite ratio.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum McmError {
    /// A cycle whose edges carry no token (its edges, in order): it deadlocks.
    ZeroTokenCycle(Vec<usize>),
}

/// A cycle of zero-token edges, if there is one (its edges in order).
pub fn zero_token_cycle(n: usize, edges: &[Edge]) -> Option<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, &(u, _, _, t)) in edges.iter().enumerate() {
        if t == 0 {
            out[u].push(i);
        }
    }
    // Iterative DFS with colours; the grey stack is the current path.
    let mut colour = vec![0u8; n];
    for root in 0..n {
        if colour[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        let mut path_edges: Vec<usize> = Vec::new();
        colour[root] = 1;
        while let Some(&mut (u, ref mut next)) = stack.last_mut() {
            if let Some(&e) = out[u].get(*next) {
                *next += 1;
                let v = edges[e].1;
                match colour[v] {
                    0 => {
                        colour[v] = 1;
                        path_edges.push(e);
                        stack.push((v, 0));
                    }
                    1 => {
                        // Back edge: the cycle is the path from v to u plus e.
                        let start = stack.iter().position(|&(w, _)| w == v).unwrap_or(0);
                        let mut cycle: Vec<usize> = path_edges[start..].to_vec();
                        cycle.push(e);
                        return Some(cycle);
                    }
                    _ => {}
                }
            } else {
                colour[u] = 2;
                stack.pop();
                path_edges.pop();
            }
        }
    }
    None
}

/// The maximum of `Σ weight / Σ tokens` over the cycles of the graph;
/// `Ok(None)` when it has no cycle.
pub fn max_cycle_ratio(n: usize, edges: &[Edge]) -> Result<Option<CycleRatio>, McmError> {
    if let Some(c) = zero_token_cycle(n, edges) {
        return Err(McmError::ZeroTokenCycle(c));
    }
    let (out, nodes) = cyclic_part(n, edges);
    if nodes.is_empty() {
        return Ok(None);
    }
    let scale = edges.iter().map(|e| e.2 as f64).sum::<f64>().max(1.0);
    let mut howard = Howard::new(n, edges, nodes, out, scale * 1e-12);
    for _round in 0..100_000 {
        howard.evaluate();
        if !howard.improve() {
            break;
        }
    }
    Ok(critical(howard.cycles))
}

/// Only nodes that lie on or lead to a cycle matter: prune the others
/// (repeatedly drop nodes with no remaining out-edge). Gives the out-edges
/// between the nodes kept, and those nodes.
fn cyclic_part(n: usize, edges: &[Edge]) -> (Vec<Vec<usize>>, Vec<usize>) {
    let mut alive = vec![true; n];
    let mut out_deg = vec![0usize; n];
    let mut ins: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, &(u, v, _, _)) in edges.iter().enumerate() {
        out_deg[u] += 1;
        ins[v].push(i);
    }
    let mut queue: Vec<usize> = (0..n).filter(|&u| out_deg[u] == 0).collect();
    while let Some(v) = queue.pop() {
        if !alive[v] {
            continue;
        }
        alive[v] = false;
        for &e in &ins[v] {
            let u = edges[e].0;
            out_deg[u] -= 1;
            if out_deg[u] == 0 && alive[u] {
                queue.push(u);
            }
        }
    }
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, &(u, v, _, _)) in edges.iter().enumerate() {
        if alive[u] && alive[v] {
            out[u].push(i);
        }
    }
    let nodes: Vec<usize> = (0..n).filter(|&u| alive[u]).collect();
    (out, nodes)
}

/// The critical cycle: the largest exact ratio (compare a/b > c/d as a·d > c·b).
fn critical(cycles: Vec<CycleRatio>) -> Option<CycleRatio> {
    cycles.into_iter().reduce(|a, b| {
        let lhs = b.weight as u128 * a.tokens as u128;
        let rhs = a.weight as u128 * b.tokens as u128;
        if lhs > rhs {
            b
        } else {
            a
        }
    })
}

/// The state of the policy iteration: every node's chosen out-edge, the
/// ratio of the cycle its policy path ends in, its potential, and the
/// cycles of the policy.
struct Howard<'e> {
    edges: &'e [Edge],
    nodes: Vec<usize>,
    out: Vec<Vec<usize>>,
    /// The tolerance of a better potential.
    eps: f64,
    policy: Vec<usize>,
    lambda: Vec<f64>,
    x: Vec<f64>,
    cycle_of: Vec<usize>,
    cycles: Vec<CycleRatio>,
}

impl<'e> Howard<'e> {
    /// Initial policy: the heaviest out-edge of every node.
    fn new(n: usize, edges: &'e [Edge], nodes: Vec<usize>, out: Vec<Vec<usize>>, eps: f64) -> Self {
        let mut policy = vec![usize::MAX; n];
        for &u in &nodes {
            let mut best = out[u][0];
            for &e in &out[u] {
                if edges[e].2 > edges[best].2 {
                    best = e;
                }
            }
            policy[u] = best;
        }
        Howard {
            edges,
            nodes,
            out,
            eps,
            policy,
            lambda: vec![0f64; n],
            x: vec![0f64; n],
            cycle_of: vec![usize::MAX; n],
            cycles: Vec::new(),
        }
    }

    /// Value determination: every node's policy path ends in one cycle.
    fn evaluate(&mut self) {
        let edges = self.edges;
        self.cycles.clear();
        self.cycle_of.iter_mut().for_each(|c| *c = usize::MAX);
        let mut mark = vec![usize::MAX; self.policy.len()];
        for si in 0..self.nodes.len() {
            let s = self.nodes[si];
            if self.cycle_of[s] != usize::MAX {
                continue;
            }
            let mut path = Vec::new();
            let mut u = s;
            while mark[u] == usize::MAX && self.cycle_of[u] == usize::MAX {
                mark[u] = s;
                path.push(u);
                u = edges[self.policy[u]].1;
            }
            if self.cycle_of[u] == usize::MAX && mark[u] == s {
                self.close_cycle(u);
            }
            // The path's nodes, back to front, take their successor's cycle.
            for &p in path.iter().rev() {
                if self.cycle_of[p] == usize::MAX {
                    let (_, b, w, t) = edges[self.policy[p]];
                    self.cycle_of[p] = self.cycle_of[b];
                    self.lambda[p] = self.lambda[b];
                    self.x[p] = w as f64 - self.lambda[p] * t as f64 + self.x[b];
                }
            }
        }
    }

    /// A new cycle of the policy through u: its ratio and the potentials
    /// around it.
    fn close_cycle(&mut self, u: usize) {
        let edges = self.edges;
        let mut cyc = Vec::new();
        let mut w = u;
        loop {
            cyc.push(self.policy[w]);
            w = edges[self.policy[w]].1;
            if w == u {
                break;
            }
        }
        let lowest = cyc
            .iter()
            .enumerate()
            .min_by_key(|(_, &e)| edges[e].0)
            .map(|(i, _)| i)
            .unwrap_or(0);
        cyc.rotate_left(lowest);
        let weight: u64 = cyc.iter().map(|&e| edges[e].2).sum();
        let tokens: u64 = cyc.iter().map(|&e| edges[e].3).sum();
        let id = self.cycles.len();
        let root = edges[cyc[0]].0;
        let l = weight as f64 / tokens as f64;
        for &e in &cyc {
            self.cycle_of[edges[e].0] = id;
            self.lambda[edges[e].0] = l;
        }
        // Potentials around the cycle, from its root backwards.
        self.x[root] = 0.0;
        for &e in cyc.iter().rev() {
            let (a, b, w, t) = edges[e];
            if a != root {
                self.x[a] = w as f64 - l * t as f64 + self.x[b];
            }
        }
        self.cycles.push(CycleRatio {
            weight,
            tokens,
            edges: cyc,
        });
    }

    /// Policy improvement, first on the ratio, then on the potential;
    /// whether the policy changed.
    fn improve(&mut self) -> bool {
        self.improve_ratio() || self.improve_potential()
    }

    fn improve_ratio(&mut self) -> bool {
        let mut changed = false;
        for &u in &self.nodes {
            let mut best = self.lambda[u];
            let mut choice = None;
            for &e in &self.out[u] {
                let v = self.edges[e].1;
                if self.lambda[v] > best + best.abs().max(1.0) * 1e-12 {
                    best = self.lambda[v];
                    choice = Some(e);
                }
            }
            if let Some(e) = choice {
                self.policy[u] = e;
                changed = true;
            }
        }
        changed
    }

    fn improve_potential(&mut self) -> bool {
        let (lambda, x) = (&self.lambda, &self.x);
        let mut changed = false;
        for &u in &self.nodes {
            let mut best = x[u];
            let mut choice = None;
            for &e in &self.out[u] {
                let (_, v, w, t) = self.edges[e];
                if (lambda[v] - lambda[u]).abs() <= lambda[u].abs() * 1e-12 {
                    let val = w as f64 - lambda[u] * t as f64 + x[v];
                    if val > best + self.eps {
                        best = val;
                        choice = Some(e);
                    }
                }
            }
            if let Some(e) = choice {
                self.policy[u] = e;
                changed = true;
            }
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mcr(n: usize, e: &[Edge]) -> f64 {
        max_cycle_ratio(n, e).unwrap().unwrap().ratio()
    }

    #[test]
    fn two_actors_of_the_minimal_sdf3_graph() {
        // a (2) -> b (3) 0 tokens, b -> a 1 token, self-loops: period 5 (thr 0.2).
        let e = [(0, 1, 2, 0), (1, 0, 3, 1), (0, 0, 2, 1), (1, 1, 3, 1)];
        let c = max_cycle_ratio(2, &e).unwrap().unwrap();
        assert_eq!((c.weight, c.tokens), (5, 1));
        assert_eq!(c.edges, vec![0, 1]);
    }

    #[test]
    fn self_loop_dominates_when_heaviest() {
        let e = [(0, 1, 2, 0), (1, 0, 3, 2), (1, 1, 10, 1), (0, 0, 2, 1)];
        assert_eq!(mcr(2, &e), 10.0);
    }

    #[test]
    fn tokens_divide_the_cycle_weight() {
        // A ring of three actors (4, 5, 6) with 2 tokens: 15 / 2.
        let e = [(0, 1, 4, 0), (1, 2, 5, 1), (2, 0, 6, 1)];
        let c = max_cycle_ratio(3, &e).unwrap().unwrap();
        assert_eq!((c.weight, c.tokens), (15, 2));
        assert_eq!(c.ratio(), 7.5);
    }

    #[test]
    fn two_cycles_sharing_a_node() {
        // 0 -> 1 -> 0 (1 + 1, 1 token) and 0 -> 2 -> 3 -> 0 (1 + 7 + 7, 3 tokens) = 5.
        let e = [
            (0, 1, 1, 0),
            (1, 0, 1, 1),
            (0, 2, 1, 0),
            (2, 3, 7, 1),
            (3, 0, 7, 2),
        ];
        assert_eq!(mcr(4, &e), 5.0);
    }

    #[test]
    fn acyclic_and_dangling_nodes() {
        assert_eq!(
            max_cycle_ratio(3, &[(0, 1, 1, 0), (1, 2, 1, 0)]).unwrap(),
            None
        );
        // A cycle reachable from a tail, and a dangling node after it.
        let e = [(0, 1, 100, 0), (1, 2, 3, 0), (2, 1, 4, 1), (2, 3, 50, 0)];
        assert_eq!(mcr(4, &e), 7.0);
    }

    #[test]
    fn a_zero_token_cycle_is_a_deadlock() {
        let e = [(0, 1, 1, 0), (1, 2, 1, 0), (2, 0, 1, 0), (2, 2, 1, 1)];
        match max_cycle_ratio(3, &e) {
            Err(McmError::ZeroTokenCycle(c)) => assert_eq!(c.len(), 3),
            other => panic!("{other:?}"),
        }
    }

    /// Brute force: every simple cycle of a small graph (DFS from each
    /// lowest node).
    fn brute(n: usize, e: &[Edge]) -> Option<f64> {
        let mut best: Option<f64> = None;
        fn dfs(
            start: usize,
            u: usize,
            w: u64,
            t: u64,
            seen: &mut Vec<bool>,
            e: &[Edge],
            best: &mut Option<f64>,
        ) {
            for &(a, b, ew, et) in e {
                if a != u {
                    continue;
                }
                if b == start {
                    let r = (w + ew) as f64 / (t + et) as f64;
                    if best.is_none_or(|x| r > x) {
                        *best = Some(r);
                    }
                } else if b > start && !seen[b] {
                    seen[b] = true;
                    dfs(start, b, w + ew, t + et, seen, e, best);
                    seen[b] = false;
                }
            }
        }
        for s in 0..n {
            let mut seen = vec![false; n];
            seen[s] = true;
            dfs(s, s, 0, 0, &mut seen, e, &mut best);
        }
        best
    }

    #[test]
    fn agrees_with_brute_force_on_random_graphs() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for _ in 0..400 {
            let n = 2 + next(6) as usize;
            let m = n + next(3 * n as u64) as usize;
            let mut e = Vec::new();
            for _ in 0..m {
                let u = next(n as u64) as usize;
                let v = next(n as u64) as usize;
                // Tokens on every backward edge keep zero-token cycles away.
                let t = if v <= u { 1 + next(3) } else { next(2) };
                e.push((u, v, 1 + next(20), t));
            }
            let got = max_cycle_ratio(n, &e).unwrap().map(|c| c.ratio());
            let want = brute(n, &e);
            match (got, want) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-9, "{g} vs {w} on {e:?}"),
                (None, None) => {}
                other => panic!("{other:?} on {e:?}"),
            }
        }
    }
}
