//! Random token graphs for the unit tests of the stages that use
//! [`Reach`](super::Reach) (reach, memory, sync, verify): takes a seed,
//! gives deterministic graphs whose 0-token edges stay a DAG. Test-only.

use super::TokenGraph;

/// The next number of a small deterministic generator (no dependency on
/// proptest in the library's unit tests).
pub(crate) fn lcg(s: &mut u64) -> u64 {
    *s = s
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *s >> 33
}

/// `n` nodes and up to 39 0-token edges, each forward (a < b), one in
/// `program_order_one_in` of them marked as program order.
pub(crate) fn zero_token_graph(s: &mut u64, n: usize, program_order_one_in: u64) -> TokenGraph {
    let mut g = TokenGraph::new(n);
    for _ in 0..lcg(s) % 40 {
        let (a, b) = ((lcg(s) % n as u64) as usize, (lcg(s) % n as u64) as usize);
        if a < b && lcg(s).is_multiple_of(program_order_one_in) {
            g.add_program_order(a, b);
        } else if a < b {
            g.add(a, b, 0);
        }
    }
    g
}
