//! Typed random expressions of one defined function.
//!
//! Takes the function's input ports and a stream of choices; gives an
//! expression of a wanted element type (`Gen::expr`) with, for an
//! integer type, the range of its value. Guarantees legality by
//! docs/language.md: operands of one type, numbers its type holds, floats
//! converted to an integer type only through `T_sat` or a clamp whose
//! bounds the target holds, windows read only inside the port's window,
//! a window operator's expression reading only ports of that window at no
//! offset, blocks read only through `mean`. The integer operators are in
//! `int.rs`.

use super::ast::*;
use super::gen::{pick_ty, Choices};
use super::known_open;

/// An integer range (floats have none).
pub type Range = Option<(i64, i64)>;

pub struct Gen<'a, 'c> {
    pub c: &'c mut Choices,
    pub ports: &'a [Port],
    pub up: bool,
    /// Inside a window operator's expression: the window every port it
    /// reads has (read at no offset, no window operator of its own).
    pub inner: Option<(u32, u32)>,
    pub x_offsets: bool,
    pub sep_expr: bool,
    /// Window operators left to this function (`None`: any number).
    pub windows_left: Option<u32>,
}

/// An integer type's range; none for a float.
pub fn range_of(ty: Ty) -> Range {
    (!ty.is_float()).then(|| ty.range())
}

pub fn fits(ty: Ty, r: (i64, i64)) -> bool {
    let (lo, hi) = ty.range();
    lo <= r.0 && r.1 <= hi
}

pub fn num(v: i64, ty: Ty) -> Expr {
    if v < 0 {
        Expr::Neg(Box::new(Expr::Num((-(v as i128)).to_string(), ty)))
    } else {
        Expr::Num(v.to_string(), ty)
    }
}

pub fn clamp_to(e: Expr, ty: Ty, r: (i64, i64), lo: i64, hi: i64) -> (Expr, (i64, i64)) {
    let nr = (r.0.clamp(lo, hi), r.1.clamp(lo, hi));
    if r.0 == r.1 && is_number(&e) {
        // A number is narrowed by writing another: no operation of numbers only.
        return (num(nr.0, ty), nr);
    }
    (
        Expr::Clamp(Box::new(e), Box::new(num(lo, ty)), Box::new(num(hi, ty))),
        nr,
    )
}

pub fn is_number(e: &Expr) -> bool {
    match e {
        Expr::Num(..) => true,
        Expr::Neg(a) => is_number(a),
        _ => false,
    }
}

/// Whether `e` is a number 0 (`0`, `-0.0`).
fn is_zero(e: &Expr) -> bool {
    match e {
        Expr::Num(t, _) => t.parse::<f64>() == Ok(0.0),
        Expr::Neg(a) => is_zero(a),
        _ => false,
    }
}

pub fn b(e: Expr) -> Box<Expr> {
    Box::new(e)
}

/// Float constants of every kind (zeros, halves, extremes, denormals).
const FLOAT_NUMS: [&str; 12] = [
    "0",
    "0.5",
    "2.5",
    "-2.5",
    "-0.0",
    "1.5",
    "100",
    "0.1",
    "1e30",
    "3.4028234e38",
    "1e-40",
    "65535",
];
const DOUBLE_NUMS: [&str; 12] = [
    "0",
    "0.5",
    "2.5",
    "-2.5",
    "-0.0",
    "1.5",
    "100",
    "0.1",
    "1e300",
    "1.7976931348623157e308",
    "5e-324",
    "4294967295",
];
const WEIGHTS: [&str; 9] = ["1", "0", "2", "-1", "0.5", "0.25", "-0.125", "3", "0.1"];
const SIGMAS: [&str; 4] = ["1.0", "0.5", "1.5", "2.0"];

impl Gen<'_, '_> {
    /// Ports this context may read.
    fn readable(&self) -> Vec<usize> {
        (0..self.ports.len())
            .filter(|&p| {
                let port = &self.ports[p];
                port.mul == (1, 1) && self.inner.is_none_or(|w| port.win == Some(w))
            })
            .collect()
    }

    pub fn fnum(&mut self, ty: Ty) -> Expr {
        let t = if ty == Ty::Float {
            *self.c.one(&FLOAT_NUMS)
        } else {
            *self.c.one(&DOUBLE_NUMS)
        };
        match t.strip_prefix('-') {
            Some(pos) => Expr::Neg(b(Expr::Num(pos.to_string(), ty))),
            None => Expr::Num(t.to_string(), ty),
        }
    }

    pub fn inum(&mut self, ty: Ty) -> (Expr, (i64, i64)) {
        let (lo, hi) = ty.range();
        let v = [0, 1, 2, 3, 7, 100, hi, lo, -1, -7][self.c.pick(10)].clamp(lo, hi);
        (num(v, ty), (v, v))
    }

    /// An expression of type `ty` and its range.
    pub fn expr(&mut self, ty: Ty, depth: u32) -> (Expr, Range) {
        if ty.is_float() {
            (self.float(ty, depth), None)
        } else {
            let (e, r) = self.int(ty, depth);
            (e, Some(r))
        }
    }

    /// A read of a port of type `ty`, or a conversion from another one.
    pub fn leaf(&mut self, ty: Ty) -> (Expr, Range) {
        let ports = self.readable();
        let block = (0..self.ports.len()).find(|&p| self.ports[p].mul != (1, 1));
        if let Some(p) =
            block.filter(|_| self.inner.is_none() && (ports.is_empty() || self.c.chance(3)))
        {
            let from = self.ports[p].ty.weighted();
            return self.convert(ty, from, Expr::Mean(p), None);
        }
        let same: Vec<usize> = ports
            .iter()
            .copied()
            .filter(|&p| self.ports[p].ty == ty)
            .collect();
        if !same.is_empty() && (ports.len() == same.len() || !self.c.chance(3)) {
            let p = *self.c.one(&same);
            return (self.read(p), range_of(ty));
        }
        if let Some(&p) = ports.get(self.c.pick(ports.len().max(1))) {
            let from = self.ports[p].ty;
            if from != ty {
                let e = self.read(p);
                return self.convert(ty, from, e, range_of(from));
            }
        }
        // Every port has this type (or, inside a window operator, the one
        // port of its window): read it and convert.
        let p = ports[0];
        let from = self.ports[p].ty;
        let e = self.read(p);
        self.convert(ty, from, e, range_of(from))
    }

    pub fn read(&mut self, p: usize) -> Expr {
        match (self.inner, self.ports[p].win) {
            (None, Some((wx, wy))) if self.c.chance(2) => {
                let rx = (wx / 2) as i32;
                let ry = (wy / 2) as i32;
                let dx = if self.x_offsets {
                    self.c.pick(2 * rx as usize + 1) as i32 - rx
                } else {
                    0
                };
                let dy = self.c.pick(2 * ry as usize + 1) as i32 - ry;
                Expr::Read(p, dx, dy)
            }
            _ => Expr::Read(p, 0, 0),
        }
    }

    /// `e` (of type `from`, range `r`) as a `to`, proven in range.
    pub fn convert(&mut self, to: Ty, from: Ty, e: Expr, r: Range) -> (Expr, Range) {
        if to == from {
            return (e, r);
        }
        let (lo, hi) = to.range();
        if to.is_float() {
            return (Expr::Conv(to, b(e)), None);
        }
        if let Some(r) = r {
            if fits(to, r) {
                return (Expr::Conv(to, b(e)), Some(r));
            }
            if self.c.chance(2) {
                return (Expr::Sat(to, b(e)), Some((r.0.max(lo), r.1.min(hi))));
            }
            // Bounds both types hold.
            let (flo, fhi) = from.range();
            let (e, nr) = clamp_to(e, from, r, lo.max(flo), hi.min(fhi));
            return (Expr::Conv(to, b(e)), Some(nr));
        }
        // From a float: saturate, or clamp (after a round or floor) first.
        match self.c.pick(4) {
            1 => (Expr::Sat(to, b(e)), Some((lo, hi))),
            k => {
                let e = match k {
                    2 => self.round(e),
                    3 => Expr::Floor(b(e)),
                    _ => e,
                };
                let (clo, chi) = self.float_bounds(to, from);
                let clamped = Expr::Clamp(b(e), b(num(clo, from)), b(num(chi, from)));
                (Expr::Conv(to, b(clamped)), Some((clo, chi)))
            }
        }
    }

    /// Clamp bounds for a conversion from a float type to `to`.
    fn float_bounds(&mut self, to: Ty, from: Ty) -> (i64, i64) {
        let (lo, hi) = to.range();
        // A float does not hold 2147483647 or 4294967295 (they round up
        // past the type, so the conversion of the bound itself would
        // overflow): the largest floats below them are the widest legal
        // bounds.
        let hi = match (from, to) {
            (Ty::Float, Ty::Int) => 2147483520,
            (Ty::Float, Ty::UInt) => 4294967040,
            _ => hi,
        };
        [(lo, hi), (lo.clamp(-100, 0), 100.min(hi)), (0, 7.min(hi))][self.c.pick(3)]
    }

    /// `round(x)`, unless a known open bug makes it `floor(x)`.
    pub fn round(&self, x: Expr) -> Expr {
        let bad = match &x {
            Expr::Select(..) => known_open("round-of-select"),
            Expr::Linear(..) => known_open("round-of-linear"),
            _ => false,
        };
        if bad {
            Expr::Floor(b(x))
        } else {
            Expr::Round(b(x))
        }
    }

    fn float(&mut self, ty: Ty, depth: u32) -> Expr {
        if depth == 0 {
            return self.leaf(ty).0;
        }
        let d = depth - 1;
        match self.c.pick(20) {
            0..=2 => self.leaf(ty).0,
            3 => {
                let op = *self.c.one(&[Bin::Add, Bin::Sub, Bin::Mul, Bin::Div]);
                let a = self.float(ty, d);
                let bb = if self.c.chance(2) {
                    self.fnum(ty)
                } else {
                    self.float(ty, d)
                };
                if self.c.chance(3) || (op == Bin::Div && is_zero(&bb)) {
                    // A division by a number 0 is refused (E043): divide it.
                    Expr::Bin(op, b(bb), b(a))
                } else {
                    Expr::Bin(op, b(a), b(bb))
                }
            }
            4 => Expr::Neg(b(self.float(ty, d))),
            5 => {
                let a = self.float(ty, d);
                let bb = if self.c.chance(2) {
                    self.fnum(ty)
                } else {
                    self.float(ty, d)
                };
                if self.c.chance(2) {
                    Expr::Min(b(a), b(bb))
                } else {
                    Expr::Max(b(a), b(bb))
                }
            }
            6 => {
                let x = self.float(ty, d);
                let bounds = [("0", "1"), ("-2.5", "2.5"), ("-0.0", "0"), ("0.5", "1e30")];
                let (lo, hi) = *self.c.one(&bounds);
                let n = |t: &str| match t.strip_prefix('-') {
                    Some(p) => Expr::Neg(b(Expr::Num(p.into(), ty))),
                    None => Expr::Num(t.into(), ty),
                };
                Expr::Clamp(b(x), b(n(lo)), b(n(hi)))
            }
            7 => Expr::Abs(b(self.float(ty, d))),
            8 => Expr::Floor(b(self.float(ty, d))),
            9 | 19 => {
                // Often of a select or (in an up function) a linear.
                let x = match self.c.pick(3) {
                    1 => self.select(ty, d),
                    2 if self.up && self.inner.is_none() => self.window_op(ty, d, Some(6)),
                    _ => self.float(ty, d),
                };
                self.round(x)
            }
            10 => self.select(ty, d),
            11 => {
                let (w, l) =
                    *self
                        .c
                        .one(&[("400", "40"), ("1", "0.5"), ("4000", "2000"), ("2", "-1")]);
                let x = self.float(ty, d);
                let l = match l.strip_prefix('-') {
                    Some(p) => format!("-{p}"),
                    None => l.to_string(),
                };
                Expr::WindowLevel(b(x), w.to_string(), l)
            }
            12..=15 if self.inner.is_none() => self.window_op(ty, d, None),
            16 => {
                // A table of fractions: float.
                let (i, len) = self.index(d);
                let mut t: Vec<String> = (0..len)
                    .map(|_| {
                        self.c
                            .one(&["0.5", "-1.25", "3", "0.1", "2.5", "-7"])
                            .to_string()
                    })
                    .collect();
                if t.iter().all(|v| !v.contains('.')) {
                    t[0] = "0.5".into();
                }
                let e = Expr::Lut(b(i), t);
                self.convert(ty, Ty::Float, e, None).0
            }
            17 if !known_open("constant-folding") => {
                // Numbers only, folded in the operands' type in order.
                let x = self.float(ty, d);
                let k = Expr::Bin(
                    Bin::Sub,
                    b(Expr::Bin(
                        Bin::Add,
                        b(Expr::Num("0.1".into(), ty)),
                        b(Expr::Num("0.2".into(), ty)),
                    )),
                    b(Expr::Num("0.3".into(), ty)),
                );
                Expr::Bin(Bin::Add, b(x), b(k))
            }
            18 => {
                let from = pick_ty(self.c);
                let (e, r) = self.expr(from, d);
                self.convert(ty, from, e, r).0
            }
            _ => self.leaf(ty).0,
        }
    }

    /// `select(l CMP r, t, e)` of a float type.
    fn select(&mut self, ty: Ty, d: u32) -> Expr {
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
        let t = self.float(ty, d);
        let e = if self.c.chance(2) {
            self.fnum(ty)
        } else {
            self.float(ty, d)
        };
        Expr::Select(cmp, Box::new([l, r, t, e]))
    }

    /// An integer index into a table and the table's length.
    pub fn index(&mut self, d: u32) -> (Expr, usize) {
        let ty = *self.c.one(&TYPES[..6]);
        let (e, r) = self.int(ty, d);
        let len = 1 + self.c.pick(6) as i64;
        let e = if r.0 >= 0 && r.1 < len {
            e
        } else {
            clamp_to(e, ty, r, 0, len - 1).0
        };
        (e, len as usize)
    }

    /// A window operator (or, in an up function, `linear`), as a `ty`.
    /// `op`: which operator (6: `linear` where it can be), else drawn.
    fn window_op(&mut self, ty: Ty, d: u32, op: Option<usize>) -> Expr {
        match self.windows_left {
            Some(0) => return self.leaf(ty).0,
            Some(k) => self.windows_left = Some(k - 1),
            None => {}
        }
        let ports: Vec<usize> = (0..self.ports.len())
            .filter(|&p| self.ports[p].mul == (1, 1) && self.ports[p].win.is_some())
            .collect();
        if ports.is_empty() {
            return self.leaf(ty).0;
        }
        // In an up function, linear half of the time, of a port it can read.
        let op = op.unwrap_or_else(|| {
            if self.up && self.c.chance(2) {
                6
            } else {
                self.c.pick(7)
            }
        });
        let wide: Vec<usize> = ports
            .iter()
            .copied()
            .filter(|&p| self.ports[p].win.is_some_and(|(x, y)| x >= 3 && y >= 3))
            .collect();
        let p = if op == 6 && self.up && !wide.is_empty() {
            *self.c.one(&wide)
        } else {
            *self.c.one(&ports)
        };
        let (wx, wy) = self.ports[p].win.unwrap();
        let linear = op == 6 && self.up && wx >= 3 && wy >= 3;
        let unit = (wx, wy) == (1, 1) && known_open("unit-window");
        if unit && matches!(op, 2..=5) {
            return self.leaf(ty).0;
        }
        // The operand: the port, or an expression of the ports with its window.
        let of_expr = self.c.chance(3) && (self.sep_expr || !matches!(op, 1 | 2));
        let (arg, at) = if of_expr {
            let at = pick_ty(self.c);
            self.inner = Some((wx, wy));
            let (e, _) = self.expr(at, d.min(2));
            self.inner = None;
            (e, at)
        } else {
            (Expr::Read(p, 0, 0), self.ports[p].ty)
        };
        let ct = at.weighted();
        let ws = |g: &mut Self, n: u32| -> Vec<String> {
            let mut v: Vec<String> = (0..n).map(|_| g.c.one(&WEIGHTS).to_string()).collect();
            if v.iter().all(|w| w == "0") {
                v[0] = "1".into();
            }
            v
        };
        let (e, et) = match op {
            0 => (Expr::Stencil(b(arg), ws(self, wx * wy)), ct),
            1 => (Expr::Separable(b(arg), ws(self, wx), ws(self, wy)), ct),
            2 => (Expr::Gauss(b(arg), self.c.one(&SIGMAS).to_string()), ct),
            3 => (Expr::BoxMean(b(arg)), ct),
            4 | 5 => (Expr::Median(b(arg)), at),
            _ if linear => (Expr::Linear(b(arg)), ct),
            _ => (Expr::BoxMean(b(arg)), ct),
        };
        if unit && matches!(e, Expr::BoxMean(_)) {
            return self.leaf(ty).0;
        }
        self.convert(ty, et, e, range_of(et)).0
    }
}
