//! Expressions of numbers only (`0.1 + 0.2 - 0.3`, `7 / 2`, `-128`): untyped
//! while they are typed, then computed in the type they meet, in the order
//! written (docs/language.md, "Types").
//!
//! Takes the tree the typer builds while an expression reads no port; gives
//! its value in an element type, computed as the generated code would
//! compute it in that type: `float` in float arithmetic (each number
//! rounded to float first), `double` in double, the integer types exactly
//! with division truncating toward zero and every step inside the type. Or
//! why the type cannot: a number it does not hold, a step that leaves it, a
//! division by zero, an infinite or NaN result. Where numbers meet no type
//! (the argument of a conversion, a σ, `window_level`'s window and level)
//! they compute in double ([`Num::double`]).
//!
//! Guarantees: the value a kernel's constant holds is the value its type
//! computes, so a constant is never more precise than the loop around it,
//! and its range is exact.

use super::range::bounds;
use crate::ir::{BinOp, ElemType};

/// An expression of numbers, as written.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Num {
    Lit(f64),
    Neg(Box<Num>),
    Bin(BinOp, Box<Num>, Box<Num>),
    Min(Box<Num>, Box<Num>),
    Max(Box<Num>, Box<Num>),
    Abs(Box<Num>),
    Floor(Box<Num>),
    /// ⌊x + 0.5⌋, the addition rounded to the type.
    Round(Box<Num>),
}

/// Why a type cannot compute an expression of numbers.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum FoldError {
    /// A number the type does not hold (E042).
    NotHeld(f64),
    /// An integer step whose result leaves the type: its operator and
    /// value (E047).
    Overflow(&'static str, f64),
    /// A division by zero (E043).
    DivZero,
    /// A floating result that is infinite or NaN (E042).
    NotFinite(f64),
}

impl Num {
    /// A number, or a negated one, as one literal (`-2147483648` is an int
    /// though 2147483648 is not).
    fn literal(&self) -> Option<f64> {
        match self {
            Num::Lit(v) => Some(*v),
            Num::Neg(x) => x.literal().map(|v| -v),
            _ => None,
        }
    }

    /// Its value computed in double (where numbers meet no type).
    pub(super) fn double(&self) -> Result<f64, FoldError> {
        self.fold(ElemType::Double)
    }

    /// Its value computed in type `t`.
    pub(super) fn fold(&self, t: ElemType) -> Result<f64, FoldError> {
        match bounds(t) {
            Some((lo, hi)) => self.integer(lo, hi),
            None => {
                let v = self.floating(t == ElemType::Float)?;
                if v.is_finite() {
                    Ok(v)
                } else {
                    Err(FoldError::NotFinite(v))
                }
            }
        }
    }

    /// In float (`single`, every step rounded to float) or double.
    fn floating(&self, single: bool) -> Result<f64, FoldError> {
        let r = |v: f64| if single { v as f32 as f64 } else { v };
        if let Some(v) = self.literal() {
            if single && v.abs() > f32::MAX as f64 {
                return Err(FoldError::NotHeld(v));
            }
            return Ok(r(v));
        }
        let f = |x: &Num| x.floating(single);
        Ok(match self {
            Num::Lit(_) => unreachable!("a literal"),
            Num::Neg(x) => -f(x)?,
            Num::Bin(op, a, b) => {
                let (a, b) = (f(a)?, f(b)?);
                // In double, then rounded to float: for two floats the
                // double result rounded once is float arithmetic's.
                r(match op {
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div if b == 0.0 => return Err(FoldError::DivZero),
                    BinOp::Div => a / b,
                })
            }
            // min and max as the operators define them (NaN in a gives b).
            Num::Min(a, b) => {
                let (a, b) = (f(a)?, f(b)?);
                if a < b {
                    a
                } else {
                    b
                }
            }
            Num::Max(a, b) => {
                let (a, b) = (f(a)?, f(b)?);
                if a > b {
                    a
                } else {
                    b
                }
            }
            Num::Abs(x) => f(x)?.abs(),
            Num::Floor(x) => f(x)?.floor(),
            Num::Round(x) => r(f(x)? + 0.5).floor(),
        })
    }

    /// Exactly, every step inside `[lo, hi]`; division truncates toward
    /// zero. `floor` and `round` compute their argument in double (they
    /// are floating operations) and must give a whole number the type
    /// holds.
    fn integer(&self, lo: f64, hi: f64) -> Result<f64, FoldError> {
        let held = |v: f64| {
            if v.fract() == 0.0 && lo <= v && v <= hi {
                Ok(v)
            } else {
                Err(FoldError::NotHeld(v))
            }
        };
        let step = |what: &'static str, v: f64| {
            if lo <= v && v <= hi {
                Ok(v)
            } else {
                Err(FoldError::Overflow(what, v))
            }
        };
        if let Some(v) = self.literal() {
            return held(v);
        }
        let f = |x: &Num| x.integer(lo, hi);
        // Values of at most 32 bits: sums and products of two are exact in
        // f64 (below 2⁶⁴ in magnitude, checked against the type at once).
        match self {
            Num::Lit(_) => unreachable!("a literal"),
            Num::Neg(x) => step("-", -f(x)?),
            Num::Bin(op, a, b) => {
                let (a, b) = (f(a)? as i64, f(b)? as i64);
                let v = match op {
                    BinOp::Add => a + b,
                    BinOp::Sub => a - b,
                    BinOp::Mul => a * b,
                    BinOp::Div if b == 0 => return Err(FoldError::DivZero),
                    BinOp::Div => a / b,
                };
                step(op.symbol(), v as f64)
            }
            Num::Min(a, b) => Ok(f(a)?.min(f(b)?)),
            Num::Max(a, b) => Ok(f(a)?.max(f(b)?)),
            Num::Abs(x) => step("abs", f(x)?.abs()),
            Num::Floor(_) | Num::Round(_) => held(self.floating(false)?),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(v: f64) -> Box<Num> {
        Box::new(Num::Lit(v))
    }

    fn bin(op: BinOp, a: Box<Num>, b: Box<Num>) -> Box<Num> {
        Box::new(Num::Bin(op, a, b))
    }

    #[test]
    fn numbers_compute_in_the_type_they_meet() {
        // 0.1 + 0.2 - 0.3: 0 in float, 5.55e-17 in double.
        let e = bin(BinOp::Sub, bin(BinOp::Add, lit(0.1), lit(0.2)), lit(0.3));
        assert_eq!(e.fold(ElemType::Float), Ok(0.0));
        assert_eq!(e.fold(ElemType::Double), Ok(0.1 + 0.2 - 0.3));
        // 16777216 + 1 + 1: the ones are lost in float, not in int.
        let e = bin(
            BinOp::Add,
            bin(BinOp::Add, lit(16777216.0), lit(1.0)),
            lit(1.0),
        );
        assert_eq!(e.fold(ElemType::Float), Ok(16777216.0));
        assert_eq!(e.fold(ElemType::Int), Ok(16777218.0));
        // 1e30 * 1e30 / 1e30 is inf in float.
        let e = bin(BinOp::Div, bin(BinOp::Mul, lit(1e30), lit(1e30)), lit(1e30));
        assert!(matches!(e.fold(ElemType::Float), Err(FoldError::NotFinite(v)) if v.is_infinite()));
        assert_eq!(e.fold(ElemType::Double), Ok(1e30 * 1e30 / 1e30));
    }

    #[test]
    fn integer_numbers_truncate_and_stay_inside_their_type() {
        assert_eq!(
            bin(BinOp::Div, lit(7.0), lit(2.0)).fold(ElemType::Int),
            Ok(3.0)
        );
        assert_eq!(
            bin(BinOp::Div, lit(-7.0), lit(2.0)).fold(ElemType::Int),
            Ok(-3.0)
        );
        assert_eq!(
            bin(BinOp::Div, lit(1.0), bin(BinOp::Div, lit(1.0), lit(2.0))).fold(ElemType::Int),
            Err(FoldError::DivZero)
        );
        assert_eq!(
            bin(BinOp::Add, lit(200.0), lit(100.0)).fold(ElemType::Uchar),
            Err(FoldError::Overflow("+", 300.0))
        );
        assert_eq!(
            Num::Neg(lit(2147483648.0)).fold(ElemType::Int),
            Ok(-2147483648.0)
        );
        assert_eq!(
            Num::Lit(2147483648.0).fold(ElemType::Int),
            Err(FoldError::NotHeld(2147483648.0))
        );
        assert_eq!(
            Num::Lit(3.5).fold(ElemType::Int),
            Err(FoldError::NotHeld(3.5))
        );
        assert_eq!(Num::Round(lit(2.5)).fold(ElemType::Uchar), Ok(3.0));
        assert_eq!(Num::Round(lit(-2.5)).fold(ElemType::Int), Ok(-2.0));
    }

    #[test]
    fn round_adds_its_half_in_the_type() {
        // 0.49999997f + 0.5f rounds to 1 in float; in double it is below 1.
        let x = 0.49999997_f32 as f64;
        assert_eq!(Num::Round(lit(x)).fold(ElemType::Float), Ok(1.0));
        assert_eq!(Num::Round(lit(x)).fold(ElemType::Double), Ok(0.0));
    }
}
