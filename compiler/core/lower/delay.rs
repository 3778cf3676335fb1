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
//!
//! Why edges with a token: `-> … delay V` is a property of a connection
//! (`Connection::delay`), carried through compose, split
//! (`Dependency::delay`) and the HSDFG, where a delayed dependency is a
//! `Dependency` edge with 1 token and its write-after-read partner has 0 —
//! the pair of any dependency with its tokens swapped, so each pair still
//! holds one token (one buffer, one value) and every stage that reasons
//! with tokens (sync, `reach`, the checker, the memory orderings, `-pr`,
//! `-xr`) needs nothing new. "Within an iteration" means `tokens == 0`
//! (`Hsdfg::dependencies`, `predecessors`): the schedulers order a delayed
//! reader before this iteration's writer. The one place a token count is
//! not enough is a reader that is, or depends on, the writer: its 0-token
//! partner would close a cycle. There the partner gets 1 token too, and the
//! two copies make it sound: port `p` of iteration i addresses copy
//! `(i + phase) mod 2` (phase 1 for a delayed reader, `Hsdfg::phase`), the
//! runtime hands each call of such a sub-box a copy of its ports moved to
//! the iteration's copy (`SSC_BOX_COPIES`, `ssc_port.alt`), and the checker
//! proves the copies apart (accesses of one state conflict only at
//! distances of one parity). The iteration, not the frame, picks the copy:
//! every thread agrees on it, `--overload skip` renumbers frames but not
//! iterations, and only the run's last iterations are void.
//!
//! Double buffering costs a frame of memory and saves a pass: the
//! alternatives were writing in place (aliasing, no windows) and a copy
//! function run after the last reader of the old rows, which reads and
//! writes a frame every iteration (`BENCHMARKS.md`, "Delays": box at a
//! time up to a fifth of the frame's time at 1760², fused about nothing,
//! since there the copy reads the writer's ring). A state buffer (`Buffer::initial`) is
//! isolated in `memory::lifetime` (live over the whole order), so every
//! allocator gives it bytes of its own, fold never folds it, and under `-dm`
//! it keeps its own allocation for the whole run (`Storage::Own`: its delay
//! edges order its uses). The C fills it, both copies, with V in
//! `init_all`, which the library runs at every open: reopening is the reset,
//! there is no reset call. The initial value is a constant, not "the first
//! frame": a chain that wants that writes it in its definition
//! (`prev(x, c)`, `front::chain`).

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
