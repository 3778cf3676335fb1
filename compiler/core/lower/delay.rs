//! Which state buffers are double-buffered (docs/language.md, "Delays").
//!
//! Takes a declaration (composed or written by hand); gives the OUT ports
//! `P.o` whose buffer holds two iterations' values: those with a delayed
//! connection `P.o -> C.i delay V` where one buffer cannot hold both
//! iterations — `C == P`, or `P` reaches `C` through connections without
//! a delay, or through the orders that other delayed connections with one
//! buffer impose (each delayed reader before its writer: two functions
//! reading each other's previous output). There iteration k's `P` would
//! overwrite what iteration k's `C` still has to read. With two copies
//! (`Buffer::copies`) the writer of iteration k fills copy k mod 2 while
//! the delayed readers read copy (k + 1) mod 2, which the writer filled in
//! iteration k − 1: no copy of the frame, no order between the two within
//! an iteration, and windows on the delayed port read the previous value
//! whole. A delayed connection whose reader may run first keeps one
//! buffer (half the memory): its reader reads the previous value before
//! this iteration's writer overwrites it.
//!
//! Guarantees: the declaration is not changed (its four levels print and
//! lower to themselves); the set depends on the connections' order only
//! through the rule above, applied in that order, so it is deterministic.

use crate::ir::Declaration;
use std::collections::BTreeSet;

/// Whether `to` is reachable from `from` through connections without a
/// delay and the write-after-read edges `war` (a delayed reader before
/// the writer it reads; `from == to` counts).
fn reaches(d: &Declaration, war: &[(String, String)], from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::from([from.to_string()]);
    let mut stack = vec![from.to_string()];
    while let Some(f) = stack.pop() {
        if f == to {
            return true;
        }
        let next = d
            .connections
            .iter()
            .filter(|c| c.delay.is_none() && c.from.owner_name() == f)
            .map(|c| c.to.owner_name())
            .chain(war.iter().filter(|(r, _)| *r == f).map(|(_, w)| w.as_str()));
        for g in next {
            if seen.insert(g.to_string()) {
                stack.push(g.to_string());
            }
        }
    }
    false
}

/// The OUT ports (`P.o`, as written) whose buffer is double-buffered
/// (module doc). A delayed connection `P.o -> C.i` with one buffer
/// orders `C` before `P` within an iteration (`C` reads the previous
/// value before `P` overwrites it); it needs two copies when that order
/// is impossible: `P` reaches `C` through connections without a delay,
/// or through the orders of the delayed connections before it that keep
/// one buffer. In the order of the connections.
pub fn double_buffered(d: &Declaration) -> BTreeSet<String> {
    let mut war: Vec<(String, String)> = Vec::new();
    let mut two: BTreeSet<String> = BTreeSet::new();
    for c in &d.connections {
        if c.delay.is_none() {
            continue;
        }
        let (p, r) = (c.from.owner_name(), c.to.owner_name());
        if two.contains(&c.from.to_string()) {
            continue;
        }
        if p == r || reaches(d, &war, p, r) {
            two.insert(c.from.to_string());
        } else {
            war.push((r.to_string(), p.to_string()));
        }
    }
    two
}
