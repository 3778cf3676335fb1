//! Kahn's topological order: the one implementation the stages share
//! (the token graph of `reach`, the scheduler's list order, the fold's
//! cycle check, the timing harness's function order).
//!
//! Takes a node count, each node's successors, and which ready node goes
//! next ([`Pick`]: the order decides ties, and callers keep theirs so
//! their results stay what they were). Gives every node once, each after
//! its predecessors, or the [`Cycle`] with the order reached and a node
//! on (or behind) a cycle. Deterministic: the same graph, the same order.

use std::collections::{BTreeSet, VecDeque};

/// Which ready node is taken next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// The smallest index.
    Smallest,
    /// The one that became ready first (a queue).
    Fifo,
    /// The one that became ready last (a stack).
    Last,
}

/// A graph with a cycle: the nodes ordered before it was found, and the
/// smallest node left (on a cycle or behind one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cycle {
    pub partial: Vec<usize>,
    pub node: usize,
}

/// The nodes `0..n` in a topological order of `succ`.
pub fn kahn<I>(n: usize, succ: impl Fn(usize) -> I, pick: Pick) -> Result<Vec<usize>, Cycle>
where
    I: IntoIterator<Item = usize>,
{
    let mut indeg = vec![0u32; n];
    for x in 0..n {
        for y in succ(x) {
            indeg[y] += 1;
        }
    }
    let initial = (0..n).filter(|&x| indeg[x] == 0);
    let mut ready = Ready::new(pick, initial);
    let mut order = Vec::with_capacity(n);
    while let Some(x) = ready.take() {
        order.push(x);
        for y in succ(x) {
            indeg[y] -= 1;
            if indeg[y] == 0 {
                ready.put(y);
            }
        }
    }
    if order.len() < n {
        let node = (0..n).find(|&x| indeg[x] > 0).unwrap_or(0);
        return Err(Cycle {
            partial: order,
            node,
        });
    }
    Ok(order)
}

/// The ready nodes, kept as [`Pick`] says.
enum Ready {
    Smallest(BTreeSet<usize>),
    Fifo(VecDeque<usize>),
    Last(Vec<usize>),
}

impl Ready {
    fn new(pick: Pick, initial: impl Iterator<Item = usize>) -> Ready {
        match pick {
            Pick::Smallest => Ready::Smallest(initial.collect()),
            Pick::Fifo => Ready::Fifo(initial.collect()),
            Pick::Last => Ready::Last(initial.collect()),
        }
    }
    fn take(&mut self) -> Option<usize> {
        match self {
            Ready::Smallest(s) => s.pop_first(),
            Ready::Fifo(q) => q.pop_front(),
            Ready::Last(v) => v.pop(),
        }
    }
    fn put(&mut self, x: usize) {
        match self {
            Ready::Smallest(s) => {
                s.insert(x);
            }
            Ready::Fifo(q) => q.push_back(x),
            Ready::Last(v) => v.push(x),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_pick_orders_ties_its_way_and_a_cycle_is_named() {
        // 0 → 2, 1 → 2, 2 → 3; 0 and 1 ready at once, then 4 alone.
        let succ = |x: usize| match x {
            0 | 1 => vec![2],
            2 => vec![3],
            _ => vec![],
        };
        assert_eq!(kahn(5, succ, Pick::Smallest).unwrap(), [0, 1, 2, 3, 4]);
        assert_eq!(kahn(5, succ, Pick::Fifo).unwrap(), [0, 1, 4, 2, 3]);
        assert_eq!(kahn(5, succ, Pick::Last).unwrap(), [4, 1, 0, 2, 3]);
        let cyclic = |x: usize| if x < 2 { vec![1 - x] } else { vec![0] };
        let c = kahn(3, cyclic, Pick::Fifo).unwrap_err();
        assert_eq!(
            c,
            Cycle {
                partial: vec![2],
                node: 0
            }
        );
    }
}
