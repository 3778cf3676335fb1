//! Random legal chains over the whole vocabulary, as a proptest
//! `Strategy`.
//!
//! Takes a stream of choices (proptest draws a vector of `u32`s per
//! chain and shrinks it toward zeros and shorter vectors); gives a
//! [`Chain`]. Choice 0 is always the simplest option (a port read, the
//! first type, no window), so a failure shrinks toward a small chain.
//! Guarantees the chain is legal by docs/language.md's rules: one type per
//! operation (numbers take their operands' type and are written so that
//! type holds them), every integer value's range tracked here by interval
//! arithmetic and kept inside its type (clamped or converted with `_sat`
//! where it would leave it), every conversion to an integer type proven
//! in range by a clamp, divisors that cannot be 0, windows and blocks only
//! where the ports have them. Constructs on [`super::KNOWN_OPEN`] are
//! left out.

use super::ast::*;
use super::known_open;
use proptest::prelude::*;

/// The choices one chain is drawn from.
pub struct Choices {
    v: Vec<u32>,
    i: usize,
}

impl Choices {
    pub fn new(v: Vec<u32>) -> Choices {
        Choices { v, i: 0 }
    }
    /// A number below `n`; 0 once the stream is spent.
    pub fn pick(&mut self, n: usize) -> usize {
        let x = self.v.get(self.i).copied().unwrap_or(0);
        self.i += 1;
        x as usize % n.max(1)
    }
    fn one<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.pick(xs.len())]
    }
    fn chance(&mut self, k: usize) -> bool {
        self.pick(k) == 1
    }
}

/// A bundle of up to `max` chains.
pub fn bundle(max: usize) -> impl Strategy<Value = Vec<Chain>> {
    prop::collection::vec(prop::collection::vec(any::<u32>(), 0..300), 1..=max).prop_map(|vs| {
        vs.into_iter()
            .map(|v| chain(&mut Choices::new(v)))
            .collect()
    })
}

/// A type, the floats as likely as the six integer types together.
fn pick_ty(c: &mut Choices) -> Ty {
    const BIASED: [Ty; 12] = [
        Ty::Char,
        Ty::UChar,
        Ty::Short,
        Ty::UShort,
        Ty::Int,
        Ty::UInt,
        Ty::Float,
        Ty::Double,
        Ty::Float,
        Ty::Double,
        Ty::Float,
        Ty::Float,
    ];
    *c.one(&BIASED)
}

const SIZES: [(u32, u32); 8] = [
    (7, 3),
    (33, 17),
    (1, 1),
    (5, 9),
    (2, 2),
    (16, 4),
    (3, 1),
    (1, 6),
];
const WINDOWS: [Option<(u32, u32)>; 8] = [
    None,
    Some((3, 3)),
    Some((1, 1)),
    Some((3, 1)),
    Some((1, 3)),
    Some((5, 5)),
    Some((5, 3)),
    Some((7, 7)),
];

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Plain,
    /// Outputs of `mul [2, 2]`.
    Up,
    /// Its first input has a `mul [2, 2]` block per point.
    Down,
}

pub fn chain(c: &mut Choices) -> Chain {
    let seed = c.pick(1 << 30) as u64;
    let (w, h) = *c.one(&SIZES);
    let mut sources: Vec<Source> = (0..1 + c.pick(3))
        .map(|_| Source {
            ty: pick_ty(c),
            big: c.chance(4),
        })
        .collect();
    let n = 1 + c.pick(4);
    let mut kinds = Vec::new();
    let mut outs = Vec::new();
    let mut inits = Vec::new();
    for _ in 0..n {
        let kind = match c.pick(8) {
            5 => Kind::Up,
            6 | 7 => Kind::Down,
            _ => Kind::Plain,
        };
        let ty = pick_ty(c);
        kinds.push(kind);
        outs.push(ty);
        inits.push(delay_value(c, ty));
    }
    let mut funcs: Vec<Func> = Vec::new();
    for i in 0..n {
        let mut inputs = Vec::new();
        if kinds[i] == Kind::Down {
            // A block per point: a big source, an up function's output.
            let mut big: Vec<Src> = (0..sources.len())
                .filter(|&s| sources[s].big)
                .map(Src::Source)
                .collect();
            big.extend((0..i).filter(|&j| kinds[j] == Kind::Up).map(Src::Func));
            if big.is_empty() {
                sources.push(Source {
                    ty: pick_ty(c),
                    big: true,
                });
                big.push(Src::Source(sources.len() - 1));
            }
            let src = c.one(&big).clone();
            let ty = match src {
                Src::Source(s) => sources[s].ty,
                Src::Func(j) => outs[j],
                Src::Delayed(_) => unreachable!(),
            };
            inputs.push(Port {
                ty,
                mul: (2, 2),
                win: None,
                src,
            });
        }
        let mut small: Vec<Src> = (0..sources.len())
            .filter(|&s| !sources[s].big)
            .map(Src::Source)
            .collect();
        small.extend((0..i).filter(|&j| kinds[j] != Kind::Up).map(Src::Func));
        let delayed: Vec<Src> = (0..n)
            .filter(|&j| kinds[j] != Kind::Up)
            .map(Src::Delayed)
            .collect();
        let want = 1 + c.pick(3);
        while inputs.len() < want {
            let src = if !delayed.is_empty() && (small.is_empty() || c.chance(4)) {
                c.one(&delayed).clone()
            } else if small.is_empty() {
                sources.push(Source {
                    ty: pick_ty(c),
                    big: false,
                });
                small.push(Src::Source(sources.len() - 1));
                Src::Source(sources.len() - 1)
            } else {
                c.one(&small).clone()
            };
            let ty = match src {
                Src::Source(s) => sources[s].ty,
                Src::Func(j) | Src::Delayed(j) => outs[j],
            };
            inputs.push(Port {
                ty,
                mul: (1, 1),
                win: *c.one(&WINDOWS),
                src,
            });
        }
        let out_mul = if kinds[i] == Kind::Up { (2, 2) } else { (1, 1) };
        let mut g = Gen {
            c,
            ports: &inputs,
            up: kinds[i] == Kind::Up,
            inner: None,
            x_offsets: true,
            sep_expr: true,
        };
        if known_open("separable-of-expression") {
            // Separable or gauss of an expression, or reads at x offsets
            // and outputs of mul [2, 2]: one or the other per function.
            if g.up || g.c.chance(2) {
                g.sep_expr = false;
            } else {
                g.x_offsets = false;
            }
        }
        let (expr, _) = g.expr(outs[i], 3);
        funcs.push(Func {
            inputs,
            out_ty: outs[i],
            out_mul,
            init: inits[i].clone(),
            expr,
        });
    }
    Chain {
        w,
        h,
        sources,
        funcs,
        seed,
    }
}

fn delay_value(c: &mut Choices, ty: Ty) -> String {
    if ty.is_float() {
        c.one(&["0", "-0.0", "1.5", "-2.5", "100"]).to_string()
    } else {
        let (lo, hi) = ty.range();
        [0, hi, lo, 1].map(|v| v.to_string())[c.pick(4)].clone()
    }
}

/// An integer range (floats have none).
type Range = Option<(i64, i64)>;

struct Gen<'a, 'c> {
    c: &'c mut Choices,
    ports: &'a [Port],
    up: bool,
    /// Inside a window operator's expression: the window every port it
    /// reads has (read at no offset, no window operator of its own).
    inner: Option<(u32, u32)>,
    x_offsets: bool,
    sep_expr: bool,
}

/// An integer type's range; none for a float.
fn range_of(ty: Ty) -> Range {
    (!ty.is_float()).then(|| ty.range())
}

fn fits(ty: Ty, r: (i64, i64)) -> bool {
    let (lo, hi) = ty.range();
    lo <= r.0 && r.1 <= hi
}

fn num(v: i64, ty: Ty) -> Expr {
    if v < 0 {
        Expr::Neg(Box::new(Expr::Num((-(v as i128)).to_string(), ty)))
    } else {
        Expr::Num(v.to_string(), ty)
    }
}

fn clamp_to(e: Expr, ty: Ty, r: (i64, i64), lo: i64, hi: i64) -> (Expr, (i64, i64)) {
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

fn is_number(e: &Expr) -> bool {
    match e {
        Expr::Num(..) => true,
        Expr::Neg(a) => is_number(a),
        _ => false,
    }
}

fn b(e: Expr) -> Box<Expr> {
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

    fn fnum(&mut self, ty: Ty) -> Expr {
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

    fn inum(&mut self, ty: Ty) -> (Expr, (i64, i64)) {
        let (lo, hi) = ty.range();
        let v = [0, 1, 2, 3, 7, 100, hi, lo, -1, -7][self.c.pick(10)].clamp(lo, hi);
        (num(v, ty), (v, v))
    }

    /// An expression of type `ty` and its range.
    fn expr(&mut self, ty: Ty, depth: u32) -> (Expr, Range) {
        if ty.is_float() {
            (self.float(ty, depth), None)
        } else {
            let (e, r) = self.int(ty, depth);
            (e, Some(r))
        }
    }

    /// A read of a port of type `ty`, or a conversion from another one.
    fn leaf(&mut self, ty: Ty) -> (Expr, Range) {
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

    fn read(&mut self, p: usize) -> Expr {
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
    fn convert(&mut self, to: Ty, from: Ty, e: Expr, r: Range) -> (Expr, Range) {
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
        let wide = hi > (1 << 24);
        if wide && from == Ty::Float && known_open("float-int-bounds") {
            // Bounds a float holds exactly.
            let m = 1 << 24;
            return [(lo.max(-m), m), (0, 1000), (lo.max(-100), 100)][self.c.pick(3)];
        }
        [(lo, hi), (lo.clamp(-100, 0), 100.min(hi)), (0, 7.min(hi))][self.c.pick(3)]
    }

    /// `round(x)`, unless a known open bug makes it `floor(x)`.
    fn round(&self, x: Expr) -> Expr {
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
                if self.c.chance(3) {
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
            9 => {
                let x = self.float(ty, d);
                self.round(x)
            }
            10 => {
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
            12..=15 if self.inner.is_none() => self.window_op(ty, d),
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

    /// An integer index into a table and the table's length.
    fn index(&mut self, d: u32) -> (Expr, usize) {
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
    fn window_op(&mut self, ty: Ty, d: u32) -> Expr {
        let ports: Vec<usize> = (0..self.ports.len())
            .filter(|&p| self.ports[p].mul == (1, 1) && self.ports[p].win.is_some())
            .collect();
        if ports.is_empty() {
            return self.leaf(ty).0;
        }
        let p = *self.c.one(&ports);
        let (wx, wy) = self.ports[p].win.unwrap();
        let op = self.c.pick(7);
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

    fn int(&mut self, ty: Ty, depth: u32) -> (Expr, (i64, i64)) {
        let (lo, hi) = ty.range();
        let signed = lo < 0;
        let full = |(e, r): (Expr, Range)| (e, r.unwrap_or((lo, hi)));
        if depth == 0 {
            return full(self.leaf(ty));
        }
        let d = depth - 1;
        match self.c.pick(16) {
            0..=2 => full(self.leaf(ty)),
            3..=5 => {
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
            6 => {
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
            7 if signed => {
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
            10 => {
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
