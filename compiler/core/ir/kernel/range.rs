//! Value ranges of kernel nodes: closed intervals of reals, the checker's
//! proof that integer arithmetic stays inside its type.
//!
//! Takes the ranges of operands; gives a range that holds every value the
//! operation can take (exact for integers, a superset for floats, whose
//! infinities and NaN are not tracked: a float bound may be infinite, and
//! an undefined corner such as ∞ − ∞ widens to everything).

use crate::ir::ElemType;

/// `[lo, hi]`, lo ≤ hi; bounds may be infinite.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub lo: f64,
    pub hi: f64,
}

const ALL: Range = Range {
    lo: f64::NEG_INFINITY,
    hi: f64::INFINITY,
};

impl Range {
    pub fn new(lo: f64, hi: f64) -> Range {
        if lo.is_nan() || hi.is_nan() {
            return ALL;
        }
        Range {
            lo: lo.min(hi),
            hi: lo.max(hi),
        }
    }

    pub fn point(v: f64) -> Range {
        Range::new(v, v)
    }

    /// Every value of a type: the integers' bounds, every real for floats.
    pub fn of_type(t: ElemType) -> Range {
        match bounds(t) {
            Some((lo, hi)) => Range::new(lo, hi),
            None => ALL,
        }
    }

    pub fn lo_hi(self) -> (f64, f64) {
        (self.lo, self.hi)
    }

    pub fn contains(&self, v: f64) -> bool {
        self.lo <= v && v <= self.hi
    }

    /// Whether every value is inside `other`.
    pub fn within(&self, other: Range) -> bool {
        other.lo <= self.lo && self.hi <= other.hi
    }

    pub fn union(self, o: Range) -> Range {
        Range::new(self.lo.min(o.lo), self.hi.max(o.hi))
    }

    /// Division by a range without 0 (else everything); `integer`: C's
    /// truncation toward zero, which keeps the quotient inside the real
    /// quotient's range rounded toward zero.
    pub fn div(self, o: Range, integer: bool) -> Range {
        if o.contains(0.0) {
            return ALL;
        }
        // The corners' quotients, each rounded once: a product with the
        // rounded reciprocal can fall below a whole quotient (49 · (1/49)
        // is 0.999…), which truncation would make one less.
        let q = |a: f64, b: f64| {
            if a.is_infinite() && b.is_infinite() {
                return f64::NAN;
            }
            let v = a / b;
            if integer {
                v.trunc()
            } else {
                v
            }
        };
        let c = [
            q(self.lo, o.lo),
            q(self.lo, o.hi),
            q(self.hi, o.lo),
            q(self.hi, o.hi),
        ];
        if c.iter().any(|v| v.is_nan()) {
            return ALL;
        }
        Range::new(
            c.iter().copied().fold(f64::INFINITY, f64::min),
            c.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    }

    pub fn min(self, o: Range) -> Range {
        Range::new(self.lo.min(o.lo), self.hi.min(o.hi))
    }

    pub fn max(self, o: Range) -> Range {
        Range::new(self.lo.max(o.lo), self.hi.max(o.hi))
    }

    pub fn abs(self) -> Range {
        if self.lo >= 0.0 {
            self
        } else if self.hi <= 0.0 {
            -self
        } else {
            Range::new(0.0, self.hi.max(-self.lo))
        }
    }

    pub fn floor(self) -> Range {
        Range::new(self.lo.floor(), self.hi.floor())
    }

    /// After truncation toward zero (a floating value converted to an
    /// integer type).
    pub fn trunc(self) -> Range {
        Range::new(self.lo.trunc(), self.hi.trunc())
    }

    /// Clamped to `to` (a saturating conversion).
    pub fn clamp_to(self, to: Range) -> Range {
        Range::new(self.lo.clamp(to.lo, to.hi), self.hi.clamp(to.lo, to.hi))
    }
}

impl Range {
    /// The range of the values of type `t` that an operation whose exact
    /// (real) results lie in `self` gives: for float, each bound float
    /// does not hold, outward to the next float (a float result is the
    /// real one rounded to nearest, which is monotone, and the bound
    /// computed in double is within half a double's step of the real
    /// one); unchanged for double (the bounds are computed in double, as
    /// the values are) and the integer types (exact).
    pub fn rounded(self, t: ElemType) -> Range {
        if t != ElemType::Float {
            return self;
        }
        let out = |v: f64, up: bool| {
            let f = v as f32;
            if !v.is_finite() || f as f64 == v {
                return f as f64;
            }
            // `as` rounds to nearest: step to the float on the outer side.
            let f = if up && (f as f64) < v || !up && (f as f64) > v {
                next_float(f, up)
            } else {
                f
            };
            f as f64
        };
        Range::new(out(self.lo, false), out(self.hi, true))
    }
}

/// The float after (`up`) or before `f` (f finite).
fn next_float(f: f32, up: bool) -> f32 {
    if f == 0.0 {
        let tiny = f32::from_bits(1);
        return if up { tiny } else { -tiny };
    }
    let bits = f.to_bits();
    let away = (f > 0.0) == up;
    f32::from_bits(if away { bits + 1 } else { bits - 1 })
}

impl std::ops::Neg for Range {
    type Output = Range;
    fn neg(self) -> Range {
        Range::new(-self.hi, -self.lo)
    }
}

impl std::ops::Add for Range {
    type Output = Range;
    fn add(self, o: Range) -> Range {
        Range::new(self.lo + o.lo, self.hi + o.hi)
    }
}

impl std::ops::Sub for Range {
    type Output = Range;
    fn sub(self, o: Range) -> Range {
        self + -o
    }
}

/// The corners' extremes; 0 · ∞ is 0 (a real bound times 0).
impl std::ops::Mul for Range {
    type Output = Range;
    fn mul(self, o: Range) -> Range {
        let m = |a: f64, b: f64| if a == 0.0 || b == 0.0 { 0.0 } else { a * b };
        let c = [
            m(self.lo, o.lo),
            m(self.lo, o.hi),
            m(self.hi, o.lo),
            m(self.hi, o.hi),
        ];
        Range::new(
            c.iter().copied().fold(f64::INFINITY, f64::min),
            c.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    }
}

/// The smallest and largest value of an integer type; `None` for floats.
pub fn bounds(t: ElemType) -> Option<(f64, f64)> {
    Some(match t {
        ElemType::Char => (-128.0, 127.0),
        ElemType::Uchar => (0.0, 255.0),
        ElemType::Short => (-32768.0, 32767.0),
        ElemType::Ushort => (0.0, 65535.0),
        ElemType::Int => (-2147483648.0, 2147483647.0),
        ElemType::Uint => (0.0, 4294967295.0),
        ElemType::Float | ElemType::Double => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_bounds_are_the_floats_outside_them() {
        let f = ElemType::Float;
        // 2147483647 is 2147483648 as float.
        assert_eq!(
            Range::new(-2147483648.0, 2147483647.0).rounded(f),
            Range::new(-2147483648.0, 2147483648.0)
        );
        // A bound float holds stays; one between two floats goes outward.
        assert_eq!(Range::new(0.0, 255.5).rounded(f), Range::new(0.0, 255.5));
        let r = Range::new(-0.1, 0.1).rounded(f);
        assert!(r.lo <= -0.1 && (r.lo as f32) as f64 == r.lo);
        assert!(r.hi >= 0.1 && (r.hi as f32) as f64 == r.hi);
        assert_eq!(r.hi, 0.1_f32 as f64); // 0.1f is above 0.1
        assert_eq!(r.lo, -(0.1_f32 as f64));
        assert_eq!(
            Range::new(16777217.0, 16777217.0).rounded(f),
            Range::new(16777216.0, 16777218.0)
        );
        assert_eq!(ALL.rounded(f), ALL);
        assert_eq!(
            Range::new(0.0, 2147483647.0).rounded(ElemType::Double),
            Range::new(0.0, 2147483647.0)
        );
    }

    #[test]
    fn arithmetic_bounds_hold() {
        let a = Range::new(0.0, 255.0);
        assert_eq!(a - Range::point(100.0), Range::new(-100.0, 155.0));
        assert_eq!(a * Range::new(-2.0, 3.0), Range::new(-510.0, 765.0));
        assert_eq!(
            Range::new(-7.0, 7.0).div(Range::point(2.0), true),
            Range::new(-3.0, 3.0)
        );
        assert_eq!(a.div(Range::new(-1.0, 1.0), false), ALL);
        assert_eq!(Range::new(-3.0, 2.0).abs(), Range::new(0.0, 3.0));
        assert_eq!(ALL * Range::point(0.0), Range::point(0.0));
        // 49 / 49 is 1, though 49 · (1/49) is below 1 in double.
        assert_eq!(
            Range::point(49.0).div(Range::point(49.0), true),
            Range::point(1.0)
        );
        assert_eq!(
            ALL.clamp_to(Range::of_type(ElemType::Uchar)),
            Range::new(0.0, 255.0)
        );
    }
}
