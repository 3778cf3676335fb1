//! Random integer expressions, each with the range of its value.
//!
//! Takes a [`Gen`] (the function's ports, the choices) and an integer
//! type; gives an expression of that type and its range, tracked by
//! interval arithmetic as docs/language.md says the compiler tracks it
//! (a port holds its type's range, a clamp narrows to its bounds).
//! Guarantees every operation's result fits its type: operands that could
//! overflow are clamped first, divisors are numbers or clamps that exclude
//! 0, negations and `abs` never see the type's minimum.

use super::ast::*;
use super::expr::{b, clamp_to, fits, num, Gen, Range};
use super::gen::pick_ty;
use super::known_open;

impl Gen<'_, '_> {
    pub fn int(&mut self, ty: Ty, depth: u32) -> (Expr, (i64, i64)) {
        let (lo, hi) = ty.range();
        let signed = lo < 0;
        let full = |(e, r): (Expr, Range)| (e, r.unwrap_or((lo, hi)));
        if depth == 0 {
            return full(self.leaf(ty));
        }
        let d = depth - 1;
        match self.c.pick(16) {
            0..=2 => full(self.leaf(ty)),
            3..=5 => self.int_arith(ty, d),
            6 => self.int_division(ty, d),
            7 if signed => self.int_sign(ty, d),
            8 => {
                let (a, ra) = self.int(ty, d);
                let (bb, rb) = if self.c.chance(2) {
                    self.inum(ty)
                } else {
                    self.int(ty, d)
                };
                if self.c.chance(2) {
                    (Expr::Min(b(a), b(bb)), (ra.0.min(rb.0), ra.1.min(rb.1)))
                } else {
                    (Expr::Max(b(a), b(bb)), (ra.0.max(rb.0), ra.1.max(rb.1)))
                }
            }
            9 => {
                let (a, ra) = self.int(ty, d);
                let (l, h) =
                    [(lo, hi), (0, 7.min(hi)), (lo.max(-100), 100.min(hi))][self.c.pick(3)];
                clamp_to(a, ty, ra, l, h)
            }
            10 => self.int_select(ty, d),
            11 => {
                // A whole table: int.
                let (i, len) = self.index(d);
                let vals: Vec<i64> = (0..len)
                    .map(|_| [0, 1, -3, 9, 100, 255, 65535, i32::MAX as i64][self.c.pick(8)])
                    .collect();
                let r = (*vals.iter().min().unwrap(), *vals.iter().max().unwrap());
                let t = vals.iter().map(|v| v.to_string()).collect();
                let (e, r) = self.convert(ty, Ty::Int, Expr::Lut(b(i), t), Some(r));
                (e, r.unwrap())
            }
            12 | 13 if self.inner.is_none() => {
                let ports: Vec<usize> = (0..self.ports.len())
                    .filter(|&p| {
                        let port = &self.ports[p];
                        port.mul == (1, 1) && port.win.is_some() && port.ty == ty
                    })
                    .collect();
                if ports.is_empty() {
                    return full(self.leaf(ty));
                }
                let p = *self.c.one(&ports);
                if self.ports[p].win == Some((1, 1)) && known_open("unit-window") {
                    return full(self.leaf(ty));
                }
                (Expr::Median(b(Expr::Read(p, 0, 0))), (lo, hi))
            }
            14 => {
                let from = pick_ty(self.c);
                let (e, r) = self.expr(from, d);
                full(self.convert(ty, from, e, r))
            }
            _ => full(self.leaf(ty)),
        }
    }

    /// An integer `+`, `-` or `*`, its operands clamped first where the result could overflow.
    fn int_arith(&mut self, ty: Ty, d: u32) -> (Expr, (i64, i64)) {
        let (lo, hi) = ty.range();
        let signed = lo < 0;
        let op = *self.c.one(&[Bin::Add, Bin::Sub, Bin::Mul]);
        let (mut a, mut ra) = self.int(ty, d);
        let (mut bb, mut rb) = if self.c.chance(2) {
            self.inum(ty)
        } else {
            self.int(ty, d)
        };
        let r = ops(op, ra, rb);
        if !fits(ty, r) {
            let s = isqrt(hi);
            let (al, ah, bl, bh) = match (op, signed) {
                (Bin::Mul, true) => (-s, s, -s, s),
                (Bin::Mul, false) => (0, s, 0, s),
                (Bin::Sub, false) => (hi / 2, hi, 0, hi / 2),
                (_, true) => (-(hi / 2), hi / 2, -(hi / 2), hi / 2),
                (_, false) => (0, hi / 2, 0, hi / 2),
            };
            (a, ra) = clamp_to(a, ty, ra, al, ah);
            (bb, rb) = clamp_to(bb, ty, rb, bl, bh);
        }
        let r = ops(op, ra, rb);
        (Expr::Bin(op, b(a), b(bb)), r)
    }

    /// An integer division by a constant or by a clamp that excludes 0, never the type's minimum by a negative number (or, now and then, a constant quotient added).
    fn int_division(&mut self, ty: Ty, d: u32) -> (Expr, (i64, i64)) {
        let (lo, hi) = ty.range();
        let signed = lo < 0;
        let (a, ra) = self.int(ty, d);
        let (bb, rb) = if self.c.chance(2) || known_open("integer-constant-division") {
            let k = *self.c.one(&[2, 3, 7, 100]);
            let k = k.min(hi);
            if signed && self.c.chance(3) {
                (num(-k, ty), (-k, -k))
            } else {
                (num(k, ty), (k, k))
            }
        } else {
            let (e, r) = self.int(ty, d);
            clamp_to(e, ty, r, 1, 9.min(hi))
        };
        let (a, ra) = if signed && ra.0 == lo && rb.0 < 0 {
            clamp_to(a, ty, ra, lo + 1, hi)
        } else {
            (a, ra)
        };
        if !known_open("integer-constant-division") && self.c.chance(4) {
            let k = Expr::Bin(Bin::Div, b(num(7, ty)), b(num(2, ty)));
            let (a, ra) = clamp_to(a, ty, ra, 0, 100.min(hi));
            return (Expr::Bin(Bin::Add, b(a), b(k)), (ra.0 + 3, ra.1 + 3));
        }
        (Expr::Bin(Bin::Div, b(a), b(bb)), divs(ra, rb))
    }

    /// A negation or `abs` of a signed value, which never sees the type's minimum.
    fn int_sign(&mut self, ty: Ty, d: u32) -> (Expr, (i64, i64)) {
        let (lo, hi) = ty.range();
        let (a, ra) = self.int(ty, d);
        let (a, ra) = if ra.0 == lo {
            clamp_to(a, ty, ra, lo + 1, hi)
        } else {
            (a, ra)
        };
        if self.c.chance(2) {
            (Expr::Neg(b(a)), (-ra.1, -ra.0))
        } else {
            let r = if ra.0 >= 0 {
                ra
            } else if ra.1 <= 0 {
                (-ra.1, -ra.0)
            } else {
                (0, (-ra.0).max(ra.1))
            };
            (Expr::Abs(b(a)), r)
        }
    }

    /// A select on a comparison of two expressions of any type, between two integers of `ty`.
    fn int_select(&mut self, ty: Ty, d: u32) -> (Expr, (i64, i64)) {
        let ct = pick_ty(self.c);
        let cmp = *self.c.one(&CMPS);
        let (l, _) = self.expr(ct, d);
        let r = if self.c.chance(2) {
            if ct.is_float() {
                self.fnum(ct)
            } else {
                self.inum(ct).0
            }
        } else {
            self.expr(ct, d).0
        };
        let (t, rt) = self.int(ty, d);
        let (e, re) = if self.c.chance(2) {
            self.inum(ty)
        } else {
            self.int(ty, d)
        };
        (
            Expr::Select(cmp, Box::new([l, r, t, e])),
            (rt.0.min(re.0), rt.1.max(re.1)),
        )
    }
}

/// The range of a op b, saturated to i64 (a range past it fits no type).
fn ops(op: Bin, a: (i64, i64), b: (i64, i64)) -> (i64, i64) {
    let (a, b) = ((a.0 as i128, a.1 as i128), (b.0 as i128, b.1 as i128));
    let c = match op {
        Bin::Add => [a.0 + b.0, a.1 + b.1],
        Bin::Sub => [a.0 - b.1, a.1 - b.0],
        _ => {
            let p = [a.0 * b.0, a.0 * b.1, a.1 * b.0, a.1 * b.1];
            [*p.iter().min().unwrap(), *p.iter().max().unwrap()]
        }
    };
    let sat = |v: i128| v.clamp(i64::MIN as i128, i64::MAX as i128) as i64;
    (sat(c[0].min(c[1])), sat(c[0].max(c[1])))
}

/// The range of a / b, b of one sign.
fn divs(a: (i64, i64), b: (i64, i64)) -> (i64, i64) {
    let c = [a.0 / b.0, a.0 / b.1, a.1 / b.0, a.1 / b.1];
    (*c.iter().min().unwrap(), *c.iter().max().unwrap())
}

fn isqrt(v: i64) -> i64 {
    (v as f64).sqrt() as i64
}
