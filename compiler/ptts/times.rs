//! Sets of times as a few intervals, for the bounds of [`super::cost`].
//!
//! The times a tree can reach on a level, relative to its root, lie in the
//! sums of one value of each ETP before it and one wait (less than the
//! next period) per hop. An ETP with few, far-apart values (11 or 2^31
//! grid steps) keeps those sums in a few narrow intervals, where the
//! bounding window of the whole range would count every triggering
//! between them. A [`Times`] holds at most [`CAP`] intervals: beyond that,
//! the closest ones are joined, so it always contains every reachable
//! time (a bound, never a miss).

/// The most intervals a set keeps.
pub const CAP: usize = 32;

/// Sorted, disjoint intervals [lo, hi] of grid steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Times(Vec<(i128, i128)>);

impl Times {
    /// The intervals, sorted and disjoint.
    pub fn intervals(&self) -> &[(i128, i128)] {
        &self.0
    }

    /// The set {0}: the node a walk starts from.
    pub fn start() -> Times {
        Times(vec![(0, 0)])
    }

    /// The intervals, sorted and joined where they overlap or touch, and
    /// across the smallest gaps down to [`CAP`].
    pub fn new(mut v: Vec<(i128, i128)>) -> Times {
        v.sort_unstable();
        let mut out: Vec<(i128, i128)> = Vec::with_capacity(v.len());
        for (lo, hi) in v {
            match out.last_mut() {
                Some(last) if lo <= last.1.saturating_add(1) => last.1 = last.1.max(hi),
                _ => out.push((lo, hi)),
            }
        }
        if out.len() > CAP {
            // Join across the len − CAP smallest gaps (the first of equal
            // gaps first, so the result is deterministic).
            let mut gaps: Vec<(i128, usize)> = out
                .windows(2)
                .enumerate()
                .map(|(k, w)| (w[1].0 - w[0].1, k))
                .collect();
            gaps.sort_unstable();
            let mut join = vec![false; out.len()];
            for &(_, k) in &gaps[..out.len() - CAP] {
                join[k] = true;
            }
            let mut joined: Vec<(i128, i128)> = Vec::with_capacity(CAP);
            for (k, iv) in out.iter().enumerate() {
                match joined.last_mut() {
                    Some(last) if k > 0 && join[k - 1] => last.1 = iv.1,
                    _ => joined.push(*iv),
                }
            }
            out = joined;
        }
        Times(out)
    }

    /// The values of an ETP as intervals: a run of step 1 is one, a run
    /// of a larger step its values (or its span when it has more than
    /// [`CAP`]).
    pub fn of_etp(etp: &super::model::Etp) -> Times {
        let mut v = Vec::new();
        for r in &etp.runs {
            if r.step == 1 || r.count > CAP as i128 {
                v.push((r.start, r.last()));
            } else {
                v.extend((0..r.count).map(|j| (r.start + j * r.step, r.start + j * r.step)));
            }
            if v.len() > 4 * CAP {
                v = Times::new(v).0;
            }
        }
        Times::new(v)
    }

    /// One hop: a value of `etp` (as [`Times::of_etp`]) and a wait of less
    /// than `d` added to every time of the set.
    pub fn hop(&self, etp: &Times, d: i128) -> Times {
        let mut v = Vec::with_capacity(self.0.len() * etp.0.len());
        for a in &self.0 {
            for e in &etp.0 {
                v.push((a.0 + e.0, a.1 + e.1 + d - 1));
            }
        }
        Times::new(v)
    }

    /// At most this many triggerings of period `d` (of any phase) lie in
    /// the set.
    pub fn count(&self, d: i128) -> u128 {
        self.0.iter().fold(0u128, |n, (lo, hi)| {
            n.saturating_add(((hi - lo) / d) as u128 + 1)
        })
    }

    /// The smallest and the largest time.
    pub fn span(&self) -> (i128, i128) {
        (
            self.0.first().map(|x| x.0).unwrap_or(0),
            self.0.last().map(|x| x.1).unwrap_or(0),
        )
    }
}
