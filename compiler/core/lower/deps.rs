//! Fine-grained dependencies between sub-boxes (docs/language.md).
//!
//! Takes a declaration and the sub-boxes of an instantiation; gives the
//! dependencies `P.i => C.j`. For a consumer sub-box with region
//! `[x0,y0]:[x1,y1]` and an IN port with `mul [mx, my]` and window
//! `[wx, wy]`, the elements read on the port's grid are
//! `[x0·mx − bx, x1·mx + ax) × [y0·my − by, y1·my + ay)` with
//! `bx = floor((wx−1)/2)`, `ax = wx−1−bx` (same in y), clipped to the grid;
//! a producer sub-box writes `[x0·mx', x1·mx') × [y0·my', y1·my')` of its
//! OUT port's grid. `P.i => C.j` iff the two sets intersect for some
//! connection from P to C (a fan-out buffer gives dependencies to every
//! reader). With `coarse` (`-cd`), every sub-box of C depends on every
//! sub-box of P when P feeds C.
//!
//! Guarantees: no duplicates; producer-major order (by the producer's
//! position among the sub-boxes, then the consumer's), as in the thesis'
//! Appendix A. Unknown names are skipped (the checker reports them).

use crate::ir::{
    Declaration, Dependency, Direction, Function, FunctionDecl, Pair, Port, Region, SubBox,
    SubBoxRef,
};
use std::collections::{BTreeMap, BTreeSet};

/// `floor((w−1)/2)` before and `w−1−before` after.
pub fn window_margins(w: u64) -> (u64, u64) {
    let w = w.max(1);
    let before = (w - 1) / 2;
    (before, w - 1 - before)
}

/// The elements of a port's grid that a region of the iteration space reads
/// through that port (window included, clipped to `grid`).
pub fn read_elements(region: Region, mul: Pair, window: Pair, grid: Pair) -> Region {
    let (bx, ax) = window_margins(window.x);
    let (by, ay) = window_margins(window.y);
    Region::new(
        region
            .x0
            .saturating_mul(mul.x)
            .saturating_sub(bx)
            .min(grid.x),
        region
            .y0
            .saturating_mul(mul.y)
            .saturating_sub(by)
            .min(grid.y),
        region
            .x1
            .saturating_mul(mul.x)
            .saturating_add(ax)
            .min(grid.x),
        region
            .y1
            .saturating_mul(mul.y)
            .saturating_add(ay)
            .min(grid.y),
    )
}

/// The elements of a port's grid that a region of the iteration space writes.
pub fn written_elements(region: Region, mul: Pair) -> Region {
    Region::new(
        region.x0.saturating_mul(mul.x),
        region.y0.saturating_mul(mul.y),
        region.x1.saturating_mul(mul.x),
        region.y1.saturating_mul(mul.y),
    )
}

/// The elements a region touches through a port: read (IN) or written (OUT).
pub fn port_elements(region: Region, port: &Port, resolution: Pair) -> Region {
    let mul = port.mul.value;
    match port.direction {
        Direction::In => {
            let grid = Pair::new(
                resolution.x.saturating_mul(mul.x),
                resolution.y.saturating_mul(mul.y),
            );
            read_elements(region, mul, port.window_or_one(), grid)
        }
        Direction::Out => written_elements(region, mul),
    }
}

/// Name lookups over a declaration.
pub(crate) struct DeclIndex<'a> {
    pub functions: BTreeMap<&'a str, (&'a Function, Option<&'a FunctionDecl>)>,
}

impl<'a> DeclIndex<'a> {
    pub fn new(d: &'a Declaration) -> DeclIndex<'a> {
        DeclIndex {
            functions: d
                .functions
                .iter()
                .map(|f| (f.name.as_str(), (f, d.function_decl(f.function.as_str()))))
                .collect(),
        }
    }

    pub fn port(&self, function: &str, port: &str) -> Option<(&'a Function, &'a Port)> {
        let (f, fd) = self.functions.get(function)?;
        let p = (*fd)?.ports.iter().find(|p| p.name.as_str() == port)?;
        Some((f, p))
    }
}

/// The dependencies between `subboxes` implied by the connections of `d`.
pub fn dependencies(d: &Declaration, subboxes: &[SubBox], coarse: bool) -> Vec<Dependency> {
    let idx = DeclIndex::new(d);
    // Sub-boxes of each function, with their position in `subboxes`.
    let mut of: BTreeMap<&str, Vec<(usize, &SubBox)>> = BTreeMap::new();
    for (i, sb) in subboxes.iter().enumerate() {
        of.entry(sb.id.function.as_str()).or_default().push((i, sb));
    }
    let mut pairs: BTreeSet<(usize, usize, bool)> = BTreeSet::new();
    let delayed = |c: &crate::ir::Connection| c.delay.is_some();
    for conn in &d.connections {
        let (Some(po), Some(co)) = (&conn.from.owner, &conn.to.owner) else {
            continue;
        };
        let (Some((pf, pp)), Some((cf, cp))) = (
            idx.port(po.as_str(), conn.from.port.as_str()),
            idx.port(co.as_str(), conn.to.port.as_str()),
        ) else {
            continue;
        };
        let (Some(ps), Some(cs)) = (of.get(po.as_str()), of.get(co.as_str())) else {
            continue;
        };
        if coarse {
            for &(ci, _) in cs {
                pairs.extend(ps.iter().map(|&(pi, _)| (pi, ci, delayed(conn))));
            }
            continue;
        }
        let written = Written::new(
            ps.iter()
                .map(|&(pi, p)| (pi, port_elements(p.region.value, pp, pf.resolution.value))),
        );
        for &(ci, c) in cs {
            let read = port_elements(c.region.value, cp, cf.resolution.value);
            pairs.extend(written.meeting(&read).map(|pi| (pi, ci, delayed(conn))));
        }
    }
    pairs
        .into_iter()
        .map(|(p, c, delay)| Dependency {
            from: plain(&subboxes[p].id),
            to: plain(&subboxes[c].id),
            delay,
            span: crate::ir::Span::NONE,
        })
        .collect()
}

/// The regions a producer's sub-boxes write, sorted by first row, with
/// the tallest's height: the regions meeting rows `[y0, y1)` start in
/// `(y0 − tallest, y1)`, so finding them is a binary search and a scan of
/// the regions starting there — O(S log S) for S strips of producer and
/// consumer, not O(S²).
struct Written {
    /// (first row, sub-box position, region), sorted.
    regions: Vec<(u64, usize, Region)>,
    tallest: u64,
}

impl Written {
    fn new(regions: impl Iterator<Item = (usize, Region)>) -> Written {
        let mut regions: Vec<(u64, usize, Region)> = regions.map(|(i, r)| (r.y0, i, r)).collect();
        regions.sort_by_key(|&(y0, i, _)| (y0, i));
        let tallest = regions
            .iter()
            .map(|(_, _, r)| r.y1.saturating_sub(r.y0))
            .max()
            .unwrap_or(0);
        Written { regions, tallest }
    }

    /// The positions of the sub-boxes whose region intersects `read`.
    fn meeting<'w>(&'w self, read: &'w Region) -> impl Iterator<Item = usize> + 'w {
        let from = read.y0.saturating_sub(self.tallest);
        let start = self.regions.partition_point(|&(y0, _, _)| y0 < from);
        self.regions[start..]
            .iter()
            .take_while(move |&&(y0, _, _)| y0 < read.y1)
            .filter(move |(_, _, w)| read.intersects(w))
            .map(|&(_, i, _)| i)
    }
}

fn plain(r: &SubBoxRef) -> SubBoxRef {
    SubBoxRef::new(r.function.as_str(), r.index)
}
