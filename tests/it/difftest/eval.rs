//! An independent model of what a chain of defined functions computes,
//! written from docs/language.md ("Defined functions", "Delays",
//! "Ports") alone.
//!
//! Takes a [`Chain`] and its sources' frames per iteration; gives every
//! function's output per iteration, each element with what the docs allow
//! it to be. Guarantees, reading the docs literally:
//! * floats compute in their own width (`f32` arithmetic for `float`), in
//!   the order written, numbers parsed once into the type they meet, and
//!   numbers only (`0.1 + 0.2 - 0.3` on float) folded in that type in
//!   that order; integers compute exactly and integer division truncates
//!   toward zero (the generator proves no overflow; an overflow here is a
//!   generator bug and panics);
//! * `min(a, b)` is `a < b ? a : b`, `max` `a > b ? a : b`, `clamp` their
//!   composition, `abs` clears the sign, `round(x)` is `floor(x + 0.5)`
//!   with the addition rounded in the type, `T(x)` truncates, `T_sat(x)`
//!   clamps to T's range and takes NaN to 0;
//! * window reads clamp rows and columns at the border; a port of
//!   `mul [1, 1]` read by outputs of `mul [2, 2]` is read at the point;
//! * weighted operators compute in the port's type when it is a float,
//!   else in float, leave weights of 0 out and sum left to right starting
//!   from the first term (row by row for `stencil`, x then y for
//!   `separable`). Readings where the docs leave a choice: `box` is the
//!   sum over the window row by row divided by its element count, `mean`
//!   the sum of the block row by row divided by its count, `gauss` the
//!   separable sum with each direction's weights e^(−d²/2σ²) computed in
//!   double, divided by their double sum and rounded once to the type;
//!   `linear` is `0.75 * a + 0.25 * b` in x, then the same in y;
//! * `median` of a window without NaN is the middle element (either zero
//!   where the middle is a zero and both signs are there); with a NaN it
//!   may be any element. Such an element, and everything computed from
//!   it, is marked as not exactly known.
//! * a delayed input reads the writer's output of the previous
//!   iteration, its delay's number everywhere before the first.

use super::ast::*;

/// What one output element may be.
#[derive(Clone, Debug)]
pub enum Cell {
    Exact(Val),
    /// Any of these (a median's ties and NaN windows).
    OneOf(Vec<Val>),
    /// Computed from a median that could take several values.
    Unknown,
}

impl Cell {
    pub fn admits(&self, got: Val) -> bool {
        match self {
            Cell::Exact(v) => v.same(got),
            Cell::OneOf(vs) => vs.iter().any(|v| v.same(got)),
            Cell::Unknown => true,
        }
    }
}

/// One value and whether a median's choice went into it.
#[derive(Clone, Copy)]
struct V {
    v: Val,
    loose: bool,
}

/// A grid of known values (sources, outputs used as inputs).
#[derive(Clone)]
pub struct Grid {
    pub w: u32,
    pub h: u32,
    pub v: Vec<Val>,
    pub loose: Vec<bool>,
}

impl Grid {
    fn at(&self, x: i64, y: i64) -> V {
        let x = x.clamp(0, self.w as i64 - 1) as usize;
        let y = y.clamp(0, self.h as i64 - 1) as usize;
        let i = y * self.w as usize + x;
        V {
            v: self.v[i],
            loose: self.loose[i],
        }
    }
}

/// Parses a number as the type it meets.
pub fn parse(text: &str, ty: Ty) -> Val {
    match ty {
        Ty::Float => Val::F(text.parse().expect("a float number")),
        Ty::Double => Val::D(text.parse().expect("a double number")),
        _ => Val::I(text.parse().expect("a whole number")),
    }
}

/// The type of an expression's value.
pub fn ty_of(f: &Func, e: &Expr) -> Ty {
    match e {
        Expr::Read(p, ..) => f.inputs[*p].ty,
        Expr::Num(_, t) => *t,
        Expr::Neg(a)
        | Expr::Bin(_, a, _)
        | Expr::Min(a, _)
        | Expr::Max(a, _)
        | Expr::Clamp(a, ..)
        | Expr::Abs(a)
        | Expr::Floor(a)
        | Expr::Round(a)
        | Expr::WindowLevel(a, ..)
        | Expr::Median(a) => ty_of(f, a),
        Expr::Select(_, v) => ty_of(f, &v[2]),
        Expr::Conv(t, _) | Expr::Sat(t, _) => *t,
        Expr::Stencil(a, _)
        | Expr::Separable(a, ..)
        | Expr::Gauss(a, _)
        | Expr::BoxMean(a)
        | Expr::Linear(a) => ty_of(f, a).weighted(),
        Expr::Mean(p) => f.inputs[*p].ty.weighted(),
        Expr::Lut(_, t) => {
            if t.iter().all(|v| !v.contains('.') && !v.contains('e')) {
                Ty::Int
            } else {
                Ty::Float
            }
        }
    }
}

fn check(ty: Ty, v: i64, what: &str) -> Val {
    let (lo, hi) = ty.range();
    assert!(
        lo <= v && v <= hi,
        "generator bug: {what} gives {v}, outside {}",
        ty.name()
    );
    Val::I(v)
}

fn arith(op: Bin, a: Val, b: Val, ty: Ty) -> Val {
    match (a, b) {
        (Val::F(x), Val::F(y)) => Val::F(match op {
            Bin::Add => x + y,
            Bin::Sub => x - y,
            Bin::Mul => x * y,
            Bin::Div => x / y,
        }),
        (Val::D(x), Val::D(y)) => Val::D(match op {
            Bin::Add => x + y,
            Bin::Sub => x - y,
            Bin::Mul => x * y,
            Bin::Div => x / y,
        }),
        (Val::I(x), Val::I(y)) => {
            let v = match op {
                Bin::Add => x + y,
                Bin::Sub => x - y,
                Bin::Mul => x * y,
                Bin::Div => {
                    assert!(y != 0, "generator bug: an integer division by 0");
                    x / y
                }
            };
            check(ty, v, "an integer operation")
        }
        _ => panic!("generator bug: two types in one operation"),
    }
}

fn less(a: Val, b: Val) -> bool {
    compare(Cmp::Lt, a, b)
}

fn compare(c: Cmp, a: Val, b: Val) -> bool {
    macro_rules! cmp {
        ($x:expr, $y:expr) => {
            match c {
                Cmp::Lt => $x < $y,
                Cmp::Le => $x <= $y,
                Cmp::Gt => $x > $y,
                Cmp::Ge => $x >= $y,
                Cmp::Eq => $x == $y,
                Cmp::Ne => $x != $y,
            }
        };
    }
    match (a, b) {
        (Val::F(x), Val::F(y)) => cmp!(x, y),
        (Val::D(x), Val::D(y)) => cmp!(x, y),
        (Val::I(x), Val::I(y)) => cmp!(x, y),
        _ => panic!("generator bug: a comparison of two types"),
    }
}

fn min(a: Val, b: Val) -> Val {
    if less(a, b) {
        a
    } else {
        b
    }
}

fn max(a: Val, b: Val) -> Val {
    if less(b, a) {
        a
    } else {
        b
    }
}

/// `T(x)`: integers by value, floats rounded to nearest, to an integer
/// truncated (and proven in range).
fn convert(to: Ty, v: Val) -> Val {
    match (to, v) {
        (Ty::Float, Val::I(x)) => Val::F(x as f32),
        (Ty::Float, Val::F(x)) => Val::F(x),
        (Ty::Float, Val::D(x)) => Val::F(x as f32),
        (Ty::Double, Val::I(x)) => Val::D(x as f64),
        (Ty::Double, Val::F(x)) => Val::D(x as f64),
        (Ty::Double, Val::D(x)) => Val::D(x),
        (t, Val::I(x)) => check(t, x, "a conversion"),
        (t, Val::F(x)) => float_to_int(t, x as f64),
        (t, Val::D(x)) => float_to_int(t, x),
    }
}

fn float_to_int(t: Ty, x: f64) -> Val {
    let (lo, hi) = t.range();
    let v = x.trunc();
    assert!(
        !x.is_nan() && v >= lo as f64 && v <= hi as f64,
        "generator bug: {x} converted to {}",
        t.name()
    );
    Val::I(v as i64)
}

fn saturate(to: Ty, v: Val) -> Val {
    let (lo, hi) = to.range();
    let x = match v {
        Val::I(x) => return Val::I(x.clamp(lo, hi)),
        Val::F(x) => x as f64,
        Val::D(x) => x,
    };
    Val::I(if x.is_nan() {
        0
    } else if x >= hi as f64 {
        hi
    } else if x <= lo as f64 {
        lo
    } else {
        x.trunc() as i64
    })
}

fn unary_float(v: Val, f32op: fn(f32) -> f32, f64op: fn(f64) -> f64) -> Val {
    match v {
        Val::F(x) => Val::F(f32op(x)),
        Val::D(x) => Val::D(f64op(x)),
        Val::I(_) => panic!("generator bug: a float operator on an integer"),
    }
}

/// The normalised Gaussian weights of a window of `n` elements.
fn gauss_weights(n: u32, sigma: f64) -> Vec<f64> {
    let r = (n / 2) as i64;
    let e: Vec<f64> = (-r..=r)
        .map(|d| (-((d * d) as f64) / (2.0 * sigma * sigma)).exp())
        .collect();
    let sum: f64 = e.iter().sum();
    e.iter().map(|x| x / sum).collect()
}

fn round_to(ct: Ty, w: f64) -> Val {
    if ct == Ty::Float {
        Val::F(w as f32)
    } else {
        Val::D(w)
    }
}

/// Evaluation of one function at one output element.
struct At<'a> {
    f: &'a Func,
    grids: Vec<&'a Grid>,
    up: bool,
    ox: i64,
    oy: i64,
    /// The window element a window operator's expression is read at.
    sx: i64,
    sy: i64,
    loose: bool,
}

impl At<'_> {
    fn read(&mut self, p: usize, dx: i32, dy: i32) -> Val {
        let (px, py) = if self.up {
            (self.ox / 2, self.oy / 2)
        } else {
            (self.ox, self.oy)
        };
        let v = self.grids[p].at(px + dx as i64 + self.sx, py + dy as i64 + self.sy);
        self.loose |= v.loose;
        v.v
    }

    /// `e` at window element (sx, sy), converted to `ct`.
    fn at_shift(&mut self, e: &Expr, sx: i64, sy: i64, ct: Ty) -> Val {
        let (ax, ay) = (self.sx, self.sy);
        self.sx = sx;
        self.sy = sy;
        let v = self.eval(e);
        self.sx = ax;
        self.sy = ay;
        convert(ct, v)
    }

    /// Σ w·t over the non-zero weights, left to right from the first term.
    fn weighted(ct: Ty, terms: impl Iterator<Item = (Val, Val)>) -> Val {
        let mut acc: Option<Val> = None;
        for (w, t) in terms {
            if match w {
                Val::F(x) => x == 0.0,
                Val::D(x) => x == 0.0,
                Val::I(x) => x == 0,
            } {
                continue;
            }
            let p = arith(Bin::Mul, w, t, ct);
            acc = Some(match acc {
                None => p,
                Some(a) => arith(Bin::Add, a, p, ct),
            });
        }
        acc.expect("generator bug: all weights are 0")
    }

    fn window(&self, e: &Expr) -> (i64, i64) {
        let mut port = None;
        find_port(e, &mut port);
        let (wx, wy) = self.f.inputs[port.expect("a window operator reads a port")]
            .win
            .unwrap_or((1, 1));
        ((wx / 2) as i64, (wy / 2) as i64)
    }

    fn separable(&mut self, e: &Expr, ct: Ty, wx: &[Val], wy: &[Val]) -> Val {
        let (rx, ry) = self.window(e);
        let rows: Vec<Val> = (-ry..=ry)
            .map(|dy| {
                let t: Vec<Val> = (-rx..=rx).map(|dx| self.at_shift(e, dx, dy, ct)).collect();
                Self::weighted(ct, wx.iter().copied().zip(t))
            })
            .collect();
        Self::weighted(ct, wy.iter().copied().zip(rows))
    }

    fn eval(&mut self, e: &Expr) -> Val {
        let ty = ty_of(self.f, e);
        match e {
            Expr::Read(p, dx, dy) => self.read(*p, *dx, *dy),
            Expr::Num(t, ty) => parse(t, *ty),
            Expr::Neg(a) => match self.eval(a) {
                Val::I(x) => check(ty, -x, "a negation"),
                Val::F(x) => Val::F(-x),
                Val::D(x) => Val::D(-x),
            },
            Expr::Bin(op, a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                arith(*op, x, y, ty)
            }
            Expr::Min(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                min(x, y)
            }
            Expr::Max(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                max(x, y)
            }
            Expr::Clamp(x, l, h) => {
                let (x, l, h) = (self.eval(x), self.eval(l), self.eval(h));
                min(max(x, l), h)
            }
            Expr::Abs(a) => match self.eval(a) {
                Val::I(x) => check(ty, x.abs(), "abs"),
                v => unary_float(v, f32::abs, f64::abs),
            },
            Expr::Floor(a) => unary_float(self.eval(a), f32::floor, f64::floor),
            Expr::Round(a) => {
                unary_float(self.eval(a), |x| (x + 0.5).floor(), |x| (x + 0.5).floor())
            }
            Expr::Select(c, v) => {
                let (l, r) = (self.eval(&v[0]), self.eval(&v[1]));
                if compare(*c, l, r) {
                    self.eval(&v[2])
                } else {
                    self.eval(&v[3])
                }
            }
            Expr::Conv(t, a) => convert(*t, self.eval(a)),
            Expr::Sat(t, a) => saturate(*t, self.eval(a)),
            Expr::WindowLevel(x, w, l) => {
                let x = self.eval(x);
                let (w, l) = (parse(w, ty), parse(l, ty));
                let two = parse("2", ty);
                let base = arith(Bin::Sub, l, arith(Bin::Div, w, two, ty), ty);
                let q = arith(Bin::Div, arith(Bin::Sub, x, base, ty), w, ty);
                min(max(q, parse("0", ty)), parse("1", ty))
            }
            Expr::Stencil(a, ws) => self.stencil(a, ws, ty),
            Expr::Separable(a, wx, wy) => {
                let wx: Vec<Val> = wx.iter().map(|w| parse(w, ty)).collect();
                let wy: Vec<Val> = wy.iter().map(|w| parse(w, ty)).collect();
                self.separable(a, ty, &wx, &wy)
            }
            Expr::Gauss(a, s) => self.gauss(a, s, ty),
            Expr::BoxMean(a) => self.box_mean(a, ty),
            Expr::Median(a) => self.median(a).0,
            Expr::Mean(p) => self.mean(*p, ty),
            Expr::Linear(a) => self.linear(a, ty),
            Expr::Lut(i, t) => {
                let Val::I(k) = self.eval(i) else {
                    panic!("generator bug: a float index")
                };
                assert!(
                    k >= 0 && (k as usize) < t.len(),
                    "generator bug: index {k} outside its table"
                );
                parse(&t[k as usize], ty)
            }
        }
    }

    /// `stencil(a, ws)`: the window's points weighted, row by row.
    fn stencil(&mut self, a: &Expr, ws: &[String], ty: Ty) -> Val {
        let (rx, ry) = self.window(a);
        let mut terms = Vec::new();
        for dy in -ry..=ry {
            for dx in -rx..=rx {
                terms.push(self.at_shift(a, dx, dy, ty));
            }
        }
        let ws: Vec<Val> = ws.iter().map(|w| parse(w, ty)).collect();
        Self::weighted(ty, ws.into_iter().zip(terms))
    }

    /// `gauss(a, s)`: a separable sum with the Gaussian's weights rounded to `ty`.
    fn gauss(&mut self, a: &Expr, s: &str, ty: Ty) -> Val {
        let (rx, ry) = self.window(a);
        let s: f64 = s.parse().unwrap();
        let wx: Vec<Val> = gauss_weights(2 * rx as u32 + 1, s)
            .into_iter()
            .map(|w| round_to(ty, w))
            .collect();
        let wy: Vec<Val> = gauss_weights(2 * ry as u32 + 1, s)
            .into_iter()
            .map(|w| round_to(ty, w))
            .collect();
        self.separable(a, ty, &wx, &wy)
    }

    /// `box(a)`: the window's sum, then divided by its size.
    fn box_mean(&mut self, a: &Expr, ty: Ty) -> Val {
        let (rx, ry) = self.window(a);
        let mut acc: Option<Val> = None;
        for dy in -ry..=ry {
            for dx in -rx..=rx {
                let t = self.at_shift(a, dx, dy, ty);
                acc = Some(acc.map_or(t, |s| arith(Bin::Add, s, t, ty)));
            }
        }
        let n = ((2 * rx + 1) * (2 * ry + 1)).to_string();
        arith(Bin::Div, acc.unwrap(), parse(&n, ty), ty)
    }

    /// `mean` of port `p`'s block per point: its sum, then divided by its size.
    fn mean(&mut self, p: usize, ty: Ty) -> Val {
        let port = &self.f.inputs[p];
        let (mx, my) = (port.mul.0 as i64, port.mul.1 as i64);
        let mut acc: Option<Val> = None;
        for j in 0..my {
            for i in 0..mx {
                let v = self.grids[p].at(self.ox * mx + i, self.oy * my + j);
                self.loose |= v.loose;
                let t = convert(ty, v.v);
                acc = Some(acc.map_or(t, |s| arith(Bin::Add, s, t, ty)));
            }
        }
        arith(
            Bin::Div,
            acc.unwrap(),
            parse(&(mx * my).to_string(), ty),
            ty,
        )
    }

    /// `linear(a)` of a `mul [2, 2]` output: 3/4 of the nearest point and 1/4 of the next, in x, then in y.
    fn linear(&mut self, a: &Expr, ty: Ty) -> Val {
        let sx = if self.ox % 2 == 0 { -1 } else { 1 };
        let sy = if self.oy % 2 == 0 { -1 } else { 1 };
        let (q3, q1) = (parse("0.75", ty), parse("0.25", ty));
        let blend = |a: Val, b: Val| {
            arith(
                Bin::Add,
                arith(Bin::Mul, q3, a, ty),
                arith(Bin::Mul, q1, b, ty),
                ty,
            )
        };
        let row = |g: &mut Self, dy: i64| {
            let here = g.at_shift(a, 0, dy, ty);
            let side = g.at_shift(a, sx, dy, ty);
            blend(here, side)
        };
        let h0 = row(self, 0);
        let h1 = row(self, sy);
        blend(h0, h1)
    }

    /// A median's value and, where the docs allow several, all of them.
    fn median(&mut self, a: &Expr) -> (Val, Option<Vec<Val>>) {
        let (rx, ry) = self.window(a);
        let ty = ty_of(self.f, a);
        let mut vals = Vec::new();
        for dy in -ry..=ry {
            for dx in -rx..=rx {
                vals.push(self.at_shift(a, dx, dy, ty));
            }
        }
        let nan = |v: &Val| match v {
            Val::F(x) => x.is_nan(),
            Val::D(x) => x.is_nan(),
            Val::I(_) => false,
        };
        // Several results are allowed only of known elements.
        let known = !self.loose;
        if vals.iter().any(nan) {
            self.loose = true;
            return (vals[0], known.then_some(vals));
        }
        let mut sorted = vals.clone();
        sorted.sort_by(|a, b| {
            if less(*a, *b) {
                std::cmp::Ordering::Less
            } else if less(*b, *a) {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        });
        let m = sorted[sorted.len() / 2];
        let ties: Vec<Val> = vals
            .iter()
            .copied()
            .filter(|v| !less(*v, m) && !less(m, *v))
            .collect();
        if ties.iter().any(|t| !t.same(m)) {
            self.loose = true;
            return (m, known.then_some(ties));
        }
        (m, None)
    }
}

fn find_port(e: &Expr, out: &mut Option<usize>) {
    match e {
        Expr::Read(p, ..) => *out = out.or(Some(*p)),
        Expr::Num(..) | Expr::Mean(_) => {}
        Expr::Neg(a)
        | Expr::Abs(a)
        | Expr::Floor(a)
        | Expr::Round(a)
        | Expr::Conv(_, a)
        | Expr::Sat(_, a)
        | Expr::WindowLevel(a, ..)
        | Expr::Stencil(a, _)
        | Expr::Separable(a, ..)
        | Expr::Gauss(a, _)
        | Expr::BoxMean(a)
        | Expr::Median(a)
        | Expr::Linear(a)
        | Expr::Lut(a, _) => find_port(a, out),
        Expr::Bin(_, a, b) | Expr::Min(a, b) | Expr::Max(a, b) => {
            find_port(a, out);
            find_port(b, out);
        }
        Expr::Clamp(a, b, c) => {
            find_port(a, out);
            find_port(b, out);
            find_port(c, out);
        }
        Expr::Select(_, v) => v.iter().for_each(|x| find_port(x, out)),
    }
}

/// `frames[source][iteration]` as `[iteration][source]`.
fn frames_by_iteration(frames: &[Vec<Grid>], iterations: usize) -> Vec<Vec<&Grid>> {
    (0..iterations)
        .map(|i| frames.iter().map(|f| &f[i]).collect())
        .collect()
}

/// Every function's outputs for each iteration: `[iteration][function]`,
/// `frames[source][iteration]` the sources' frames.
pub fn evaluate(ch: &Chain, frames: &[Vec<Grid>], iterations: usize) -> Vec<Vec<Vec<Cell>>> {
    let mut prev: Vec<Grid> = ch
        .funcs
        .iter()
        .enumerate()
        .map(|(f, func)| {
            let (w, h) = ch.out_grid(f);
            let n = (w * h) as usize;
            Grid {
                w,
                h,
                v: vec![parse(&func.init, func.out_ty); n],
                loose: vec![false; n],
            }
        })
        .collect();
    let mut all = Vec::new();
    for frames_now in frames_by_iteration(frames, iterations) {
        let mut now: Vec<Grid> = Vec::new();
        let mut cells_now = Vec::new();
        for (f, func) in ch.funcs.iter().enumerate() {
            let grids: Vec<&Grid> = func
                .inputs
                .iter()
                .map(|p| match p.src {
                    Src::Source(s) => frames_now[s],
                    Src::Func(j) => &now[j],
                    Src::Delayed(j) => &prev[j],
                })
                .collect();
            let (w, h) = ch.out_grid(f);
            let mut grid = Grid {
                w,
                h,
                v: Vec::new(),
                loose: Vec::new(),
            };
            let mut cells = Vec::new();
            for oy in 0..h as i64 {
                for ox in 0..w as i64 {
                    let mut at = At {
                        f: func,
                        grids: grids.clone(),
                        up: func.out_mul == (2, 2),
                        ox,
                        oy,
                        sx: 0,
                        sy: 0,
                        loose: false,
                    };
                    let (v, alts) = match &func.expr {
                        Expr::Median(a) => at.median(a),
                        e => (at.eval(e), None),
                    };
                    let cell = match alts {
                        Some(vs) => Cell::OneOf(vs),
                        None if at.loose => Cell::Unknown,
                        None => Cell::Exact(v),
                    };
                    grid.v.push(v);
                    grid.loose.push(at.loose);
                    cells.push(cell);
                }
            }
            now.push(grid);
            cells_now.push(cells);
        }
        all.push(cells_now);
        prev = now;
    }
    all
}
