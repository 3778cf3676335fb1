//! Where the rows of a folded buffer live (storage folding): bands, rings
//! and slots — the one reading of a ring placement, for the allocator
//! ([`super::fold`]), the runtime checker and every back end.
//!
//! A buffer whose placement is smaller than it ([`super::Placement::fold`])
//! holds its rows in rings. Its **bands** are the maximal runs of its
//! producer's sub-boxes, in row order, that run on one thread; each band
//! has a ring of its own, of `R = placed rows / bands` rows, band `b` at
//! rows `[b·R, (b+1)·R)` of the placement. A band's rows are counted from
//! the end its thread starts at: from its first row when the thread runs
//! the band's first sub-box before its last (top down), from its last row
//! otherwise (bottom up). Row `y` of band `b = [lo, hi)` lives at ring row
//! `b·R + (y − lo) mod R` (top down) or `b·R + (hi − 1 − y) mod R`
//! (bottom up). `ssc_row_slot` in `runtime-c/ssc_kernel.h` computes the same.
//!
//! Since bands follow the threads, two threads that stream their own bands
//! never share a ring row, and a ring needs only the rows one thread keeps
//! live at once.
//!
//! Since the bands are derived from the schedule, a runtime section needs no
//! new syntax: a `memory_mapping` smaller than its buffer, a whole number of
//! rows, *is* a ring (E030 otherwise), and the C kernel ABI carries
//! `ssc_port.fold`, `bands`, `n_bands` and `SSC_ROW`. User kernels never get
//! a folded port unless they say `ROWS`.

use crate::ir::hsdfg::{ActorId, Buffer, BufferId, Hsdfg};

/// Rows `[lo, hi)` of a buffer's grid in one ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    pub lo: u64,
    pub hi: u64,
    /// Counted from row `hi − 1` (its thread runs it bottom up).
    pub up: bool,
}

/// The rings of one folded buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ring {
    /// Rows of each band's ring.
    pub rows: u64,
    pub bands: Vec<Band>,
}

/// A run of consecutive ring rows that rows of the grid occupy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    /// First ring row (band offset included) and count.
    pub slot: u64,
    pub len: u64,
    /// Which rows these are: (band, turn of the ring). Two runs with the
    /// same tag at the same ring rows hold the same grid rows.
    pub tag: (usize, u64),
}

impl Band {
    /// The offsets `[o0, o1)` of grid rows `[y0, y1)` from the band's
    /// start, in its thread's direction, if they meet the band.
    pub fn offsets(&self, y0: u64, y1: u64) -> Option<(u64, u64)> {
        let (a, z) = (y0.max(self.lo), y1.min(self.hi));
        (a < z).then(|| {
            if self.up {
                (self.hi - z, self.hi - a)
            } else {
                (a - self.lo, z - self.lo)
            }
        })
    }
}

impl Ring {
    /// The runs of ring rows that grid rows `[y0, y1)` occupy.
    pub fn runs(&self, y0: u64, y1: u64) -> Vec<Run> {
        let r = self.rows.max(1);
        let mut out = Vec::new();
        for (bi, b) in self.bands.iter().enumerate() {
            let Some((mut o, o1)) = b.offsets(y0, y1) else {
                continue;
            };
            while o < o1 {
                let slot = o % r;
                let end = o1.min(o - slot + r);
                out.push(Run {
                    slot: bi as u64 * r + slot,
                    len: end - o,
                    tag: (bi, o / r),
                });
                o = end;
            }
        }
        out
    }
}

/// The bands of buffer `b` when actor `a` runs on thread `thread[a]` at
/// position `pos[a]` of its program (see the module documentation).
pub fn bands(h: &Hsdfg, b: BufferId, thread: &[usize], pos: &[usize]) -> Vec<Band> {
    let buf = h.buffer(b);
    let f = h.function(buf.producer.0);
    let port = buf.producer.1;
    let mut writes: Vec<(u64, u64, ActorId)> = f
        .subboxes
        .iter()
        .filter_map(|&a| {
            let x = h
                .actor(a)
                .accesses
                .iter()
                .find(|x| x.write && x.port == port)?;
            (x.elements.y0 < x.elements.y1).then_some((x.elements.y0, x.elements.y1, a))
        })
        .collect();
    writes.sort();
    let mut out: Vec<(Band, ActorId, ActorId)> = Vec::new();
    for (y0, y1, a) in writes {
        match out.last_mut() {
            Some((band, _, last)) if thread[last.index()] == thread[a.index()] => {
                band.hi = y1;
                *last = a;
            }
            _ => out.push((
                Band {
                    lo: y0,
                    hi: y1,
                    up: false,
                },
                a,
                a,
            )),
        }
    }
    if out.is_empty() {
        return vec![Band {
            lo: 0,
            hi: buf.grid.y,
            up: false,
        }];
    }
    // The first band starts at row 0 and the last ends at the grid's end
    // (rows no sub-box writes belong to their neighbours).
    out[0].0.lo = 0;
    let n = out.len();
    out[n - 1].0.hi = buf.grid.y;
    out.into_iter()
        .map(|(mut band, first, last)| {
            band.up = pos[last.index()] < pos[first.index()];
            band
        })
        .collect()
}

/// The ring of a buffer placed in `placed_bytes`, or `None` when the
/// placement holds the whole grid.
pub fn ring(buf: &Buffer, placed_bytes: u64, bands: Vec<Band>) -> Option<Ring> {
    let row = buf.grid.x * buf.ty.size();
    if placed_bytes >= buf.bytes || row == 0 {
        return None;
    }
    let rows = placed_bytes / row / bands.len().max(1) as u64;
    Some(Ring { rows, bands })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot_of(r: &Ring, y: u64) -> u64 {
        let runs = r.runs(y, y + 1);
        assert_eq!(runs.len(), 1);
        runs[0].slot
    }

    #[test]
    fn slots_match_the_runtime_formula() {
        let r = Ring {
            rows: 5,
            bands: vec![
                Band {
                    lo: 0,
                    hi: 11,
                    up: false,
                },
                Band {
                    lo: 11,
                    hi: 24,
                    up: true,
                },
            ],
        };
        for y in 0..24 {
            let want = if y < 11 { y % 5 } else { 5 + (23 - y) % 5 };
            assert_eq!(slot_of(&r, y), want, "row {y}");
        }
        // A run across the border and a wrap: every row once, same slots.
        let runs = r.runs(3, 15);
        let total: u64 = runs.iter().map(|x| x.len).sum();
        assert_eq!(total, 12);
        let mut slots: Vec<u64> = runs.iter().flat_map(|x| x.slot..x.slot + x.len).collect();
        let mut want: Vec<u64> = (3..15).map(|y| slot_of(&r, y)).collect();
        slots.sort();
        want.sort();
        assert_eq!(slots, want);
    }
}
