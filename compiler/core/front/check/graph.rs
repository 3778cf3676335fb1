//! Cycles in a directed graph (connections, compositions containing
//! compositions).
//!
//! Takes a node count and a list of edges; gives one cycle per strongly
//! connected component that has one (a self-loop counts), as the list of
//! edge indices along a shortest cycle through the component's first node.
//! Guarantees: iterative (no recursion, any depth), deterministic order
//! (by the first node of each component).

use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::VecDeque;

pub(super) fn cycles(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n, edges.len());
    for _ in 0..n {
        g.add_node(());
    }
    let mut adj: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n];
    for (i, &(a, b)) in edges.iter().enumerate() {
        g.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
        adj[a].push((b, i));
    }
    let mut comp = vec![usize::MAX; n];
    let mut sccs: Vec<Vec<usize>> = petgraph::algo::kosaraju_scc(&g)
        .into_iter()
        .map(|c| {
            let mut c: Vec<usize> = c.into_iter().map(|x| x.index()).collect();
            c.sort_unstable();
            c
        })
        .collect();
    sccs.sort();
    for (ci, c) in sccs.iter().enumerate() {
        for &x in c {
            comp[x] = ci;
        }
    }
    let mut result = Vec::new();
    for (ci, c) in sccs.iter().enumerate() {
        let start = c[0];
        let self_loop = adj[start].iter().find(|(b, _)| *b == start);
        if let Some(&(_, e)) = self_loop {
            result.push(vec![e]);
            continue;
        }
        if c.len() < 2 {
            continue;
        }
        // Shortest path start -> ... -> start inside the component.
        let mut via: Vec<Option<usize>> = vec![None; n];
        let mut queue = VecDeque::from([start]);
        let mut closing = None;
        'bfs: while let Some(x) = queue.pop_front() {
            for &(y, e) in &adj[x] {
                if comp[y] != ci {
                    continue;
                }
                if y == start {
                    closing = Some(e);
                    break 'bfs;
                }
                if via[y].is_none() {
                    via[y] = Some(e);
                    queue.push_back(y);
                }
            }
        }
        if let Some(e) = closing {
            let mut path = vec![e];
            let mut x = edges[e].0;
            while x != start {
                let pe = via[x].expect("reached through an edge");
                path.push(pe);
                x = edges[pe].0;
            }
            path.reverse();
            result.push(path);
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::cycles;

    #[test]
    fn finds_cycles() {
        assert!(cycles(3, &[(0, 1), (1, 2)]).is_empty());
        assert_eq!(cycles(3, &[(0, 1), (1, 2), (2, 0)]), vec![vec![0, 1, 2]]);
        assert_eq!(cycles(2, &[(1, 1)]), vec![vec![0]]);
    }
}
