//! The least tokens of a path, for the questions [`super::Reach`] does not
//! answer in O(1): paths with 2 tokens or more (`-kd`), and a graph that
//! changes between questions (sync's reduction).
//!
//! Takes a source, a bound, an optional target and each node's out-edges
//! (node, tokens); gives the least tokens from the source to every node
//! (Dijkstra: tokens are never negative), `u32::MAX` for a node not reached
//! within the bound. Nodes beyond the bound are never expanded, and the
//! search stops when the target's least count is known.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Least tokens from `src` to each of the `n` nodes, over `out(x)`'s
/// edges, counting only paths of at most `bound` tokens; with `target`,
/// the search stops once the target is settled (other nodes may then
/// still show more than their least).
pub fn least_tokens<I>(
    n: usize,
    src: usize,
    bound: u32,
    target: Option<usize>,
    out: impl Fn(usize) -> I,
) -> Vec<u32>
where
    I: IntoIterator<Item = (usize, u32)>,
{
    let mut d = vec![u32::MAX; n];
    let mut heap = BinaryHeap::new();
    d[src] = 0;
    heap.push(Reverse((0u32, src)));
    while let Some(Reverse((k, x))) = heap.pop() {
        if k > d[x] {
            continue;
        }
        if Some(x) == target {
            break;
        }
        for (y, w) in out(x) {
            let nk = k.saturating_add(w);
            if nk <= bound && nk < d[y] {
                d[y] = nk;
                heap.push(Reverse((nk, y)));
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_tokens_takes_the_cheaper_path_within_the_bound() {
        // 0 -1-> 1 -1-> 3, 0 -0-> 2 -0-> 3, 3 -2-> 4
        let adj: Vec<Vec<(usize, u32)>> = vec![
            vec![(1, 1), (2, 0)],
            vec![(3, 1)],
            vec![(3, 0)],
            vec![(4, 2)],
            vec![],
        ];
        let all = least_tokens(5, 0, u32::MAX, None, |x| adj[x].iter().copied());
        assert_eq!(all, vec![0, 1, 0, 0, 2]);
        let within1 = least_tokens(5, 0, 1, None, |x| adj[x].iter().copied());
        assert_eq!(within1, vec![0, 1, 0, 0, u32::MAX]);
        let to3 = least_tokens(5, 0, 1, Some(3), |x| adj[x].iter().copied());
        assert_eq!(to3[3], 0);
    }
}
