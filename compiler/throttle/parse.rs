//! Parsers of the option values: byte sizes and rates (`2G`, `500MB/s`,
//! `64Ki`), thresholds (a rate or `N%`) and durations (`2s`, `500ms`,
//! `100us`; a bare number is seconds).

use super::monitor::Threshold;

/// Bytes (or bytes per second): a number with an optional SI (`K M G T`,
/// ×1000) or binary (`Ki Mi Gi Ti`, ×1024) multiplier, an optional `B` and
/// an optional `/s`.
pub fn bytes(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let t = t.strip_suffix("/s").unwrap_or(t);
    let t = t.strip_suffix('B').unwrap_or(t);
    let (num, mult) = [
        ("Ki", 1024f64),
        ("Mi", 1024f64.powi(2)),
        ("Gi", 1024f64.powi(3)),
        ("Ti", 1024f64.powi(4)),
        ("K", 1e3),
        ("k", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("T", 1e12),
    ]
    .iter()
    .find_map(|(suf, m)| t.strip_suffix(suf).map(|n| (n, *m)))
    .unwrap_or((t, 1.0));
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v * mult),
        _ => Err(format!(
            "`{s}` is not a byte count (examples: 1500000, 2G, 500MB/s, 64Ki)"
        )),
    }
}

/// A threshold: `N%` of the measured maximum, or a rate in bytes/s.
pub fn threshold(s: &str) -> Result<Threshold, String> {
    if let Some(p) = s.trim().strip_suffix('%') {
        return match p.trim().parse::<f64>() {
            Ok(v) if v > 0.0 && v <= 100.0 => Ok(Threshold::Percent(v)),
            _ => Err(format!("`{s}`: a percentage must be in (0, 100]")),
        };
    }
    match bytes(s)? {
        v if v > 0.0 => Ok(Threshold::Rate(v)),
        _ => Err(format!("`{s}`: the threshold must be positive")),
    }
}

/// A duration in µs.
pub fn duration_us(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mult) = if let Some(n) = t.strip_suffix("us") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix("ms") {
        (n, 1e3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1e6)
    } else {
        (t, 1e6)
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok((v * mult).round() as u64),
        _ => Err(format!(
            "`{s}` is not a duration (examples: 2s, 500ms, 100us)"
        )),
    }
}
