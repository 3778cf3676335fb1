//! `ssc_ptts::times`, the interval sets of the loss look-ahead: joining
//! overlaps and the smallest gaps down to `CAP`, and far values that stay
//! apart over many hops (moved here from the crate, whose tests all live in
//! this binary: ARCHITECTURE.md, "Tests").

use ssc_ptts::times::{Times, CAP};

#[test]
fn joins_overlaps_and_the_smallest_gaps() {
    let t = Times::new(vec![(5, 9), (0, 3), (4, 4), (20, 21)]);
    assert_eq!(t.intervals(), &[(0, 9), (20, 21)]);
    let many: Vec<(i128, i128)> = (0..100).map(|k| (k * 10 + k % 3, k * 10 + k % 3)).collect();
    let t = Times::new(many.clone());
    assert_eq!(t.intervals().len(), CAP);
    // Every original interval is still inside the set.
    for (lo, hi) in many {
        assert!(t.intervals().iter().any(|(a, b)| *a <= lo && hi <= *b));
    }
}

#[test]
fn far_values_stay_apart_over_hops() {
    let etp = Times::new(vec![(11, 11), (1 << 31, 1 << 31)]);
    let mut t = Times::start();
    for _ in 0..16 {
        t = t.hop(&etp, 100);
    }
    // 17 clusters (how many values were the large one), each of
    // 16 waits of at most 99 steps.
    assert_eq!(t.intervals().len(), 17);
    assert!(t.count(100) <= 17 * 16);
}
