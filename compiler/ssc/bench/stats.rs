//! Statistics of `ssc bench`'s latencies: mean, sample standard
//! deviation and nearest-rank percentiles, in µs.

use serde::Serialize;

/// Statistics of a set of latencies, µs.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub count: usize,
    pub mean: f64,
    /// Sample standard deviation.
    pub stddev: f64,
    pub min: f64,
    pub p25: f64,
    pub p50: f64,
    pub p75: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub max: f64,
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    // p · n / 100, less a hair so 99.9 % of 1000 is rank 999, not 1000.
    let rank = (p * sorted.len() as f64 / 100.0 - 1e-9).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Stats {
    /// The statistics of some values (µs).
    pub fn of(values: &[f64]) -> Stats {
        let mut v = values.to_vec();
        v.sort_by(|a, b| a.total_cmp(b));
        let n = v.len();
        if n == 0 {
            return Stats::default();
        }
        let mean = v.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Stats {
            count: n,
            mean,
            stddev: var.sqrt(),
            min: v[0],
            p25: percentile(&v, 25.0),
            p50: percentile(&v, 50.0),
            p75: percentile(&v, 75.0),
            p99: percentile(&v, 99.0),
            p99_9: percentile(&v, 99.9),
            max: v[n - 1],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_use_nearest_rank() {
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        let s = Stats::of(&v);
        assert_eq!(s.p50, 500.0);
        assert_eq!(s.p99_9, 999.0);
        assert_eq!(s.max, 1000.0);
        assert_eq!(s.mean, 500.5);
        assert!((s.stddev - 288.8194).abs() < 1e-3);
    }
}
