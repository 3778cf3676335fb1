//! Exact numbers of the PTTS analysis.
//!
//! Probabilities are kept as whole numbers (weights) over a known common
//! denominator: an ETP is weights over their total, a path's probability is
//! a product of weights over the product of the ETP totals, a distribution
//! over the hyper-period is a sum of those over `triggerings · Π totals`.
//! The analysis is generic over the weight type [`Weight`]: it first runs in
//! `u128` with every operation checked, and if anything overflows it runs
//! again with `num_bigint::BigUint` (same result, slower). So it is always
//! exact, and fast when the denominators are small (all thesis examples).

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{CheckedAdd, CheckedMul, CheckedSub, One, ToPrimitive, Zero};
use std::fmt::{Debug, Display};

/// An overflow of the weight type: the caller retries with a larger one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overflow;

/// A non-negative whole number with checked arithmetic.
pub trait Weight:
    Clone + Debug + Display + Ord + Zero + One + CheckedAdd + CheckedMul + CheckedSub + Integer
{
    fn from_u128(v: u128) -> Self;
    fn to_f64_lossy(&self) -> f64;
    /// Bits needed to write the number.
    fn bits(&self) -> u64;
    /// `self >> n`.
    fn shr(&self, n: u64) -> Self;
}

impl Weight for u128 {
    fn from_u128(v: u128) -> Self {
        v
    }
    fn to_f64_lossy(&self) -> f64 {
        *self as f64
    }
    fn bits(&self) -> u64 {
        128 - self.leading_zeros() as u64
    }
    fn shr(&self, n: u64) -> Self {
        if n >= 128 {
            0
        } else {
            self >> n
        }
    }
}

impl Weight for BigUint {
    fn from_u128(v: u128) -> Self {
        BigUint::from(v)
    }
    fn to_f64_lossy(&self) -> f64 {
        self.to_f64().unwrap_or(f64::INFINITY)
    }
    fn bits(&self) -> u64 {
        BigUint::bits(self)
    }
    fn shr(&self, n: u64) -> Self {
        self >> n
    }
}

pub fn add<T: Weight>(a: &T, b: &T) -> Result<T, Overflow> {
    a.checked_add(b).ok_or(Overflow)
}

pub fn mul<T: Weight>(a: &T, b: &T) -> Result<T, Overflow> {
    a.checked_mul(b).ok_or(Overflow)
}

/// `a += b`.
pub fn add_to<T: Weight>(a: &mut T, b: &T) -> Result<(), Overflow> {
    *a = add(a, b)?;
    Ok(())
}

/// `num / den` as a float, also when both are beyond f64's range.
pub fn ratio<T: Weight>(num: &T, den: &T) -> f64 {
    let bits = num.bits().max(den.bits());
    if bits > 1000 {
        let s = bits - 1000;
        return num.shr(s).to_f64_lossy() / den.shr(s).to_f64_lossy();
    }
    num.to_f64_lossy() / den.to_f64_lossy()
}

/// `num/den` reduced, as text (`1/3`, `0`, `1`).
pub fn fraction<T: Weight>(num: &T, den: &T) -> String {
    if num.is_zero() {
        return "0".into();
    }
    let g = num.gcd(den);
    let (n, d) = (num.div_floor(&g), den.div_floor(&g));
    if d.is_one() {
        format!("{n}")
    } else {
        format!("{n}/{d}")
    }
}

/// A value on a grid of `10^-scale` as the shortest decimal (`1.5`, `200`).
pub fn grid_text(v: i128, scale: u32) -> String {
    let neg = v < 0;
    let a = v.unsigned_abs();
    let p = 10u128.pow(scale);
    let (int, frac) = (a / p, a % p);
    let mut s = format!("{}{int}", if neg { "-" } else { "" });
    if frac != 0 {
        let f = format!("{frac:0width$}", width = scale as usize);
        s.push('.');
        s.push_str(f.trim_end_matches('0'));
    }
    s
}

/// A probability for people: six decimals, or three significant digits
/// in scientific notation below 0.001.
pub fn prob_text(p: f64) -> String {
    if p == 0.0 {
        "0".into()
    } else if p >= 1e-3 {
        let s = format!("{p:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        s.to_string()
    } else {
        format!("{p:.3e}")
    }
}

/// Greatest common divisor and least common multiple of u128s (checked).
pub fn gcd_u128(a: u128, b: u128) -> u128 {
    a.gcd(&b)
}

pub fn lcm_u128(a: u128, b: u128) -> Option<u128> {
    if a == 0 || b == 0 {
        return Some(0);
    }
    (a / a.gcd(&b)).checked_mul(b)
}
