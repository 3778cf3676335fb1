//! C text of a typed kernel expression (`crate::ir::kernel`): the one place
//! the C back end writes C from Rust, because a template cannot recurse
//! over a tree. The loops around it are the template's
//! (`runtime-c/templates/kernels.c`, view in [`super::kernels`]).
//!
//! Takes a [`Node`] and where it is evaluated: inside the border (window
//! columns read directly) or on it (columns clamped); gives a C expression
//! over the row pointers the template declares (named after the port:
//! `in_0` its row at the point, `in_m2` / `in_p1` two rows above / one
//! below, `in_b1` row 1 of its block, `in_e` the output element's row), the
//! point column `x` and the output element `ex`, `ey`. Parentheses only
//! where C's precedence needs them; casts only where a conversion is
//! written: the kernel's ranges guarantee that integer arithmetic, done in
//! C's promoted types, gives the value of the node's own type.

use crate::ir::kernel::{Kernel, Node, Op};
use crate::ir::{BinOp, ElemType, Pair};

/// The window size whose median has its own helper (`ssc_median9_T`: the
/// nine values as three sorted triples, 30 min/max instead of the sort's
/// 72).
pub const MEDIAN9: u64 = 9;

/// The C type of an element type.
pub fn c_name(t: ElemType) -> &'static str {
    match t {
        ElemType::Char => "signed char",
        ElemType::Uchar => "unsigned char",
        ElemType::Short => "short",
        ElemType::Ushort => "unsigned short",
        ElemType::Int => "int",
        ElemType::Uint => "unsigned",
        ElemType::Float => "float",
        ElemType::Double => "double",
    }
}

/// A constant of type `t` as a C literal of that type.
pub fn literal(v: f64, t: ElemType) -> String {
    match t {
        ElemType::Float => format!("{:?}f", v as f32),
        ElemType::Double => format!("{v:?}"),
        ElemType::Int if v == -2147483648.0 => "(-2147483647 - 1)".to_string(),
        ElemType::Uint => format!("{}u", v as u64),
        _ => format!("{}", v as i64),
    }
}

/// The row pointer of input `port` at row offset `dy` from the point's.
pub fn row_var(port: &str, dy: i64) -> String {
    match dy {
        d if d < 0 => format!("{port}_m{}", -d),
        0 => format!("{port}_0"),
        d => format!("{port}_p{d}"),
    }
}

/// The saturating conversion helper from `from` to `to`.
pub fn sat_name(to: ElemType, from: ElemType) -> String {
    format!("ssc_sat_{}_{}", to.keyword(), from.keyword())
}

/// The most values whose median the generated C sorts unrolled
/// (`ssc_median_T`); a larger window calls `ssc_median_loop_T`, the same
/// compare-exchanges as loops, which the C compiler compiles in a second
/// instead of a minute (7 × 7 over double).
const MEDIAN_UNROLLED: usize = 25;

/// The most terms of a window's or a block's sum written out as C
/// (`w0 * t0 + w1 * t1 + …`); a larger one calls a loop that performs the
/// same operations in the same order (`ssc_wsum_U_T`, `ssc_bsum_U_T`),
/// which the C compiler compiles in a moment where thousands of unrolled
/// terms took it minutes (`box` over 63 × 63). Small sums stay unrolled, so
/// their loops vectorise over x.
pub const UNROLLED_TERMS: usize = 49;

/// The loop helper of a window's weighted sum (`kind` "wsum") or a block's
/// sum ("bsum") computing in `u` over elements of type `t`.
pub fn sum_helper(kind: &str, u: ElemType, t: ElemType) -> String {
    format!("ssc_{kind}_{}_{}", u.keyword(), t.keyword())
}

/// Precedence of what an expression prints as (C's, coarsened): `?:` 1,
/// comparison 2, `+ -` 3, `* /` 4, a cast or negation 5, anything else 6.
type Prec = u8;

/// Emits the expressions of one kernel.
pub struct Emit<'a> {
    pub kernel: &'a Kernel,
    /// On the border: window columns clamped to the grid.
    pub border: bool,
    /// The kernel's tables, in the order of [`tables`]: `table0`, ….
    pub tables: &'a [Vec<f64>],
    /// The parities `(ex & 1, ey & 1)` of the output element when the loop
    /// around the expression fixes them: `linear` then writes only its
    /// branch, with no select per element.
    pub parity: Option<(u64, u64)>,
    /// The x passes of the separable sums kept in rows (see
    /// [`XPass`]): a `separable` over one of them reads its rows' sums
    /// (`h0_m1[x - c0]`) instead of summing the window's columns again.
    pub passes: &'a [XPass],
    /// The inputs whose 3 × 3 median is computed once per output row
    /// (`m0_med`, … of the template), by index here.
    pub medians: &'a [usize],
    /// The floating constants that bound a `min` or `max`, in the order of
    /// [`bounds`]: read from variables `lim0`, … that the kernel hides from
    /// the optimiser, so that each `min`/`max` stays one instruction.
    pub bounds: &'a [(ElemType, f64)],
    /// Values already stored in this loop, and the C that reads them back
    /// (`contrast_out_row[x]`): an output whose expression contains an
    /// earlier output's whole value reads that element instead of
    /// computing it again (gcc does not: on xray the archive's conversion
    /// of the contrast divided again).
    pub stored: &'a [(&'a Node, String)],
    /// Whether the kernel's locals ([`crate::ir::kernel::Local`]) are
    /// computed into rows first (a chunked kernel: `v0_m1[x]` reads one);
    /// else a read of a local computes its expression at that element.
    pub local_rows: bool,
    /// The offset every read of a port is shifted by: a local's expression
    /// computed at element (dx, dy) of a window.
    pub shift: (i64, i64),
    /// `--contract`: in a floating type, `a * b + c`, `c + a * b`,
    /// `a * b - c` and `c - a * b` as one `fma` (a product an earlier
    /// output stored is multiplied again inside it), each weighted sum
    /// left to right as a chain of them (`fmaf(w, t, sum so far)`, a
    /// weight of 1 added), `linear`'s blends as `fmaf(w1, a, w2 * b)` and
    /// `round(a * b)` as `floor(fma(a, b, 0.5))`. The same text in every
    /// loop that computes a value (border, chunks, rows of a pass), so the
    /// same bits in every schedule.
    pub contract: bool,
    /// `--reciprocal`: in a floating type, `a / c` by a constant `c` (finite,
    /// not zero, not a power of two, whose division multiplies exactly
    /// anyway) as `a * r`, r the reciprocal rounded once to the type; a
    /// product of its own, never contracted (the node stays a division).
    /// What Halide does to such a division without `strict_float`.
    pub reciprocal: bool,
}

/// The x pass of a separable sum over input `port` with weights `wx`:
/// computed once per input row into a row of sums (`hK`, K its index),
/// which every output row whose window covers that input row reads (the
/// rows of the sums slide down with the output rows, as in Halide's
/// sliding window). The same operations in the same order: the same
/// bits as summing per output element.
#[derive(Clone, Debug, PartialEq)]
pub struct XPass {
    pub port: usize,
    pub wx: Vec<f64>,
    /// The type the sums are computed and kept in.
    pub ty: ElemType,
}

impl XPass {
    /// The row of sums at input row offset `dy`: `h0_m1`, `h0_0`, `h0_p1`.
    pub fn row(index: usize, dy: i64) -> String {
        row_var(&format!("h{index}"), dy)
    }
}

fn wrap((s, p): (String, Prec), min: Prec) -> String {
    if p < min {
        format!("({s})")
    } else {
        s
    }
}

/// The absolute value of C text `a` of type `t`.
fn abs_call(t: ElemType, a: &str) -> String {
    match t {
        ElemType::Float => format!("fabsf({a})"),
        ElemType::Double => format!("fabs({a})"),
        _ => format!("ssc_abs_{}({a})", t.keyword()),
    }
}

impl Emit<'_> {
    /// C text of `n`.
    pub fn expr(&self, n: &Node) -> String {
        self.prec(n).0
    }

    /// C text of `n` with its precedence (6 binds tightest), from the
    /// stored reads first.
    fn prec(&self, n: &Node) -> (String, Prec) {
        if let Some((_, read)) = self.stored.iter().find(|(v, _)| *v == n) {
            return (read.clone(), 6);
        }
        let t = n.elem();
        let c = c_name(t);
        let arg = |x: &Node| self.expr(x);
        match &n.op {
            // A negative literal (-0.0 too) is a negation: `-(-0.0f)`.
            Op::Const(v) if v.is_sign_negative() => (literal(*v, t), 5),
            Op::Const(v) => (literal(*v, t), 6),
            Op::Read { port, dx, dy } => {
                (self.read(*port, *dx + self.shift.0, *dy + self.shift.1), 6)
            }
            Op::Convert {
                saturate: false,
                arg: a,
            } => (format!("({c}){}", wrap(self.prec(a), 5)), 5),
            Op::Convert {
                saturate: true,
                arg: a,
            } => (format!("{}({})", sat_name(t, a.elem()), arg(a)), 6),
            Op::Neg(a) => (format!("-{}", wrap(self.prec(a), 6)), 5),
            Op::Binary(op, a, b) => self.arithmetic(*op, a, b, t),
            Op::FirstFrame => ("call->iteration == 0".to_string(), 2),
            Op::Compare(op, a, b) => (
                format!(
                    "{} {} {}",
                    wrap(self.prec(a), 3),
                    op.symbol(),
                    wrap(self.prec(b), 3)
                ),
                2,
            ),
            Op::Select(cond, a, b) => (
                format!(
                    "{} ? {} : {}",
                    wrap(self.prec(cond), 2),
                    wrap(self.prec(a), 2),
                    wrap(self.prec(b), 1)
                ),
                1,
            ),
            Op::Min(a, b) => (self.min_max("min", a, b, t), 6),
            Op::Max(a, b) => (self.min_max("max", a, b, t), 6),
            Op::Abs(a) => (abs_call(t, &arg(a)), 6),
            Op::Floor(a) => (format!("{}({})", floor_of(t), arg(a)), 6),
            Op::Round(a) => (self.round(a, t), 6),
            Op::Stencil { port, weights } => self.stencil(*port, weights, t),
            Op::Separable { port, wx, wy } => self.separable(*port, wx, wy, t),
            Op::Median { port } => (self.median(*port, t), 6),
            Op::BlockSum { port } => self.block_sum(*port, t),
            Op::Linear { port } => (
                self.linear(*port, t),
                if self.parity.is_some() { 3 } else { 1 },
            ),
            Op::Lut { table, arg: a } => (self.lut(table, a), 6),
        }
    }

    /// `a op b`: a division by a constant as a multiplication by its
    /// reciprocal, a contractible product-sum fused, else [`Self::binary`].
    fn arithmetic(&self, op: BinOp, a: &Node, b: &Node, t: ElemType) -> (String, Prec) {
        let reciprocal = match op {
            BinOp::Div => self.reciprocal_of(b, t),
            _ => None,
        };
        if let Some(r) = reciprocal {
            (format!("{} * {}", wrap(self.prec(a), 4), literal(r, t)), 4)
        } else if let Some(f) = self.contracts(t).then(|| self.fused(op, a, b, t)).flatten() {
            (f, 6)
        } else {
            self.binary(op, a, b)
        }
    }

    /// `ssc_min_T(a, b)` or `ssc_max_T(a, b)` (`which` is `min` or `max`).
    fn min_max(&self, which: &str, a: &Node, b: &Node, t: ElemType) -> String {
        format!(
            "ssc_{which}_{}({}, {})",
            t.keyword(),
            self.bound(a),
            self.bound(b)
        )
    }

    /// `floor(a + 0.5)`, with a contractible product `x * y` as
    /// `floor(fma(x, y, 0.5))`.
    fn round(&self, a: &Node, t: ElemType) -> String {
        match product(a).filter(|_| self.contracts(t)) {
            Some((x, y)) => format!(
                "{}({}({}, {}, {}))",
                floor_of(t),
                fma_of(t),
                self.expr(x),
                self.expr(y),
                literal(0.5, t)
            ),
            // The whole argument, then + 0.5: a select or linear's
            // choice prints below `+` and is parenthesised.
            None => format!(
                "{}({} + {})",
                floor_of(t),
                wrap(self.prec(a), 3),
                literal(0.5, t)
            ),
        }
    }

    /// `tableI[a]`, `I` the index of `table` among the chain's tables.
    fn lut(&self, table: &[f64], a: &Node) -> String {
        let i = self
            .tables
            .iter()
            .position(|x| x == table)
            .expect("tables collected");
        format!("table{i}[{}]", self.expr(a))
    }

    /// `a op b` as written; a floating zero added ([`added_zero`]) by its
    /// variable, which the C compiler cannot fold away.
    fn binary(&self, op: BinOp, a: &Node, b: &Node) -> (String, Prec) {
        let p: Prec = if matches!(op, BinOp::Add | BinOp::Sub) {
            3
        } else {
            4
        };
        let operand = |n: &Node, min: Prec| match added_zero(op, a, b) {
            Some(z) if std::ptr::eq(z, n) => self.bound(n),
            _ => wrap(self.prec(n), min),
        };
        (
            format!("{} {} {}", operand(a, p), op.symbol(), operand(b, p + 1)),
            p,
        )
    }

    /// Under [`Emit::reciprocal`], the reciprocal that `/ b` multiplies by
    /// instead in type `t`: `b` a floating constant, finite, not zero, not
    /// a power of two, taken as its C literal has it (a `float` literal is
    /// rounded to float). In `float`, 1/c rounded to double and then to
    /// float is 1/c rounded once (1/c is never within 2⁻⁴⁹ of a float's
    /// midpoint for a float c, and the double is within 2⁻⁵³).
    fn reciprocal_of(&self, b: &Node, t: ElemType) -> Option<f64> {
        if !self.reciprocal || !t.is_float() {
            return None;
        }
        let Op::Const(c) = b.op else { return None };
        // The constant as the C literal has it: a float literal is rounded.
        let c = match t {
            ElemType::Float => c as f32 as f64,
            _ => c,
        };
        if !c.is_finite() || c == 0.0 || power_of_two(c) {
            return None;
        }
        Some(match t {
            ElemType::Float => (1.0 / c) as f32 as f64,
            _ => 1.0 / c,
        })
    }

    /// Whether values of type `t` are contracted ([`Emit::contract`]).
    fn contracts(&self, t: ElemType) -> bool {
        self.contract && t.is_float()
    }

    /// `a ± b` with a product among them as one `fma`: the first operand's
    /// product if it has one, else the second's (a product an earlier
    /// output stored is multiplied again inside it, as the border's loop,
    /// which reads nothing back, computes it: contraction is a matter of
    /// the expression alone).
    fn fused(&self, op: BinOp, a: &Node, b: &Node, t: ElemType) -> Option<String> {
        let neg = |n: &Node| format!("-{}", wrap(self.prec(n), 6));
        let (x, y, c) = match (op, product(a), product(b)) {
            (BinOp::Add, Some((x, y)), _) => (self.expr(x), self.expr(y), self.expr(b)),
            (BinOp::Add, None, Some((x, y))) => (self.expr(x), self.expr(y), self.expr(a)),
            (BinOp::Sub, Some((x, y)), _) => (self.expr(x), self.expr(y), neg(b)),
            (BinOp::Sub, None, Some((x, y))) => (neg(x), self.expr(y), self.expr(a)),
            _ => return None,
        };
        Some(format!("{}({x}, {y}, {c})", fma_of(t)))
    }

    /// Σ wᵢ · tᵢ left to right in type `t` (terms of weight 0 left out by
    /// the caller): `w0 * t0 + w1 * t1 + …`, or contracted
    /// `fmaf(w1, t1, w0 * t0) + …` (a weight of 1 is added).
    fn weighted_sum(&self, terms: Vec<(f64, String)>, t: ElemType) -> (String, Prec) {
        if !self.contracts(t) {
            let terms = terms
                .into_iter()
                .map(|(w, tap)| Self::weighted(w, tap, t))
                .collect();
            return Self::sum(terms, t);
        }
        let mut it = terms.into_iter();
        let Some((w0, t0)) = it.next() else {
            return (literal(0.0, t), 6);
        };
        let mut acc = (Self::weighted(w0, t0, t), 4);
        for (w, tap) in it {
            acc = if w == 1.0 {
                (format!("{} + {tap}", acc.0), 3)
            } else {
                (
                    format!("{}({}, {tap}, {})", fma_of(t), literal(w, t), acc.0),
                    6,
                )
            };
        }
        acc
    }

    /// `linear`'s blend `w1 * a + w2 * b` ([`blend`]).
    fn blend(&self, w1: &str, a: &str, w2: &str, b: &str, t: ElemType) -> String {
        blend(self.contracts(t), t, (w1, a), (w2, b))
    }

    /// An operand of `min` or `max`, or a zero added: a floating constant
    /// by its variable (`lim0`; found by its bits, so 0 and -0 are two),
    /// anything else as itself.
    fn bound(&self, n: &Node) -> String {
        let same =
            |(t, v): (ElemType, f64), (u, w): (ElemType, f64)| t == u && v.to_bits() == w.to_bits();
        self.bounds
            .iter()
            .position(|&b| bound_of(n).is_some_and(|c| same(c, b)))
            .map(|i| format!("lim{i}"))
            .unwrap_or_else(|| self.expr(n))
    }

    /// Element (dx, dy) of input `port` from the output element's own.
    fn read(&self, port: usize, dx: i64, dy: i64) -> String {
        let p = self.kernel.source(port);
        if let Some(l) = self.kernel.local(port).filter(|_| !self.local_rows) {
            let at = Emit {
                stored: &[],
                shift: (dx, dy),
                parity: None,
                ..*self
            };
            return format!("({})", at.expr(&l.value));
        }
        if p.mul == Pair::ONE {
            format!("{}[{}]", row_var(&p.name, dy), self.column(dx))
        } else {
            format!("{}_e[ex]", p.name)
        }
    }

    /// The point column x + dx, clamped on the border.
    fn column(&self, dx: i64) -> String {
        let at = match dx {
            0 => "x".to_string(),
            d if d < 0 => format!("x - {}", -d),
            d => format!("x + {d}"),
        };
        if self.border && dx != 0 {
            format!("ssc_clamp_col({at}, width)")
        } else {
            at
        }
    }

    /// A read converted to the computing type `t` of a weighted sum.
    fn tap(&self, port: usize, dx: i64, dy: i64, t: ElemType) -> String {
        let r = self.read(port, dx, dy);
        if self.kernel.source(port).ty == t {
            r
        } else {
            format!("({}){r}", c_name(t))
        }
    }

    /// `w * tap`, or the tap alone for a weight of 1.
    fn weighted(w: f64, tap: String, t: ElemType) -> String {
        if w == 1.0 {
            tap
        } else {
            format!("{} * {tap}", literal(w, t))
        }
    }

    fn sum(terms: Vec<String>, t: ElemType) -> (String, Prec) {
        match terms.len() {
            0 => (literal(0.0, t), 6),
            1 => (terms.into_iter().next().unwrap(), 4),
            _ => (terms.join(" + "), 3),
        }
    }

    /// Whether source `port`'s elements are read from rows (a port, or a
    /// local kept in rows), so a loop can index them.
    fn in_rows(&self, port: usize) -> bool {
        self.kernel.local(port).is_none() || self.local_rows
    }

    /// Σ w · element over `taps` (row offset, column offset, weight: the
    /// terms of weight 0 left out by the caller) of source `port` in type
    /// `t`, as one call of its loop helper ([`UNROLLED_TERMS`]).
    fn sum_loop(&self, port: usize, taps: &[(i64, i64, f64)], t: ElemType) -> (String, Prec) {
        let p = self.kernel.source(port);
        let mut dys: Vec<i64> = taps.iter().map(|(dy, _, _)| *dy).collect();
        dys.sort_unstable();
        dys.dedup();
        let rows: Vec<String> = dys.iter().map(|dy| row_var(&p.name, *dy)).collect();
        let list = |v: Vec<String>| v.join(", ");
        let r = list(
            taps.iter()
                .map(|(dy, _, _)| dys.binary_search(dy).unwrap().to_string())
                .collect(),
        );
        let dx = list(taps.iter().map(|(_, dx, _)| dx.to_string()).collect());
        let w = list(taps.iter().map(|(_, _, w)| literal(*w, t)).collect());
        let one = list(
            taps.iter()
                .map(|(_, _, w)| u8::from(*w == 1.0).to_string())
                .collect(),
        );
        (
            format!(
                "{}((const {src} *const[]){{ {} }}, (const short[]){{ {r} }}, (const short[]){{ {dx} }}, (const {u}[]){{ {w} }}, (const unsigned char[]){{ {one} }}, {}, x, call->width, {})",
                sum_helper("wsum", t, p.ty),
                rows.join(", "),
                taps.len(),
                u8::from(self.contracts(t)),
                src = c_name(p.ty),
                u = c_name(t),
            ),
            6,
        )
    }

    fn stencil(&self, port: usize, weights: &[f64], t: ElemType) -> (String, Prec) {
        let p = self.kernel.source(port);
        let ((bx, _), (by, _)) = p.margins();
        let w = p.window.x as usize;
        let taps: Vec<(i64, i64, f64)> = weights
            .iter()
            .enumerate()
            .filter(|(_, v)| **v != 0.0)
            .map(|(k, v)| ((k / w) as i64 - by, (k % w) as i64 - bx, *v))
            .collect();
        if taps.len() > UNROLLED_TERMS && self.in_rows(port) {
            return self.sum_loop(port, &taps, t);
        }
        let terms = weights
            .iter()
            .enumerate()
            .filter(|(_, v)| **v != 0.0)
            .map(|(k, v)| {
                (
                    *v,
                    self.tap(port, (k % w) as i64 - bx, (k / w) as i64 - by, t),
                )
            })
            .collect();
        self.weighted_sum(terms, t)
    }

    fn separable(&self, port: usize, wx: &[f64], wy: &[f64], t: ElemType) -> (String, Prec) {
        let ((bx, _), (by, _)) = self.kernel.source(port).margins();
        let nonzero = |v: &[f64]| v.iter().filter(|w| **w != 0.0).count();
        // Each row's x sum a loop when the sum has many terms.
        let looped = nonzero(wx) * nonzero(wy) > UNROLLED_TERMS && self.in_rows(port);
        let pass = self
            .passes
            .iter()
            .position(|p| p.port == port && p.wx == wx);
        let rows = wy
            .iter()
            .enumerate()
            .filter(|(_, v)| **v != 0.0)
            .map(|(j, vy)| {
                let dy = j as i64 - by;
                let sum = match pass {
                    Some(k) => (format!("{}[x - c0]", XPass::row(k, dy)), 6),
                    None if looped => {
                        let taps: Vec<(i64, i64, f64)> = wx
                            .iter()
                            .enumerate()
                            .filter(|(_, v)| **v != 0.0)
                            .map(|(i, v)| (dy, i as i64 - bx, *v))
                            .collect();
                        self.sum_loop(port, &taps, t)
                    }
                    None => self.taps_sum(port, wx, dy, t),
                };
                (*vy, wrap(sum, 4))
            })
            .collect();
        self.weighted_sum(rows, t)
    }

    /// Σ_i wx_i · element (i − bx, dy) of source `port` in type `t`, left
    /// to right: a separable sum's x sum read element by element (a local
    /// that is not kept in rows is computed at each of them, as
    /// [`Emit::read`] does).
    fn taps_sum(&self, port: usize, wx: &[f64], dy: i64, t: ElemType) -> (String, Prec) {
        let ((bx, _), _) = self.kernel.source(port).margins();
        let cols = wx
            .iter()
            .enumerate()
            .filter(|(_, v)| **v != 0.0)
            .map(|(i, vx)| (*vx, self.tap(port, i as i64 - bx, dy, t)))
            .collect();
        self.weighted_sum(cols, t)
    }

    /// Σ_i wx_i · `row`[x + i − bx] of input `port` in type `t`, left to
    /// right (weights of 0 left out): the x pass of a separable sum over
    /// the row pointer `row`, its columns clamped on the border.
    pub fn row_sum(&self, port: usize, wx: &[f64], row: &str, t: ElemType) -> (String, Prec) {
        let p = self.kernel.source(port);
        let ((bx, _), _) = p.margins();
        let cols = wx
            .iter()
            .enumerate()
            .filter(|(_, v)| **v != 0.0)
            .map(|(i, vx)| {
                let r = format!("{row}[{}]", self.column(i as i64 - bx));
                let tap = if p.ty == t {
                    r
                } else {
                    format!("({}){r}", c_name(t))
                };
                (*vx, tap)
            })
            .collect();
        self.weighted_sum(cols, t)
    }

    fn median(&self, port: usize, t: ElemType) -> String {
        if let Some(m) = self.medians.iter().position(|p| *p == port) {
            return format!("m{m}_med[x - c0]");
        }
        let ((bx, ax), (by, ay)) = self.kernel.source(port).margins();
        let mut reads = Vec::new();
        for dy in -by..=ay {
            for dx in -bx..=ax {
                reads.push(self.read(port, dx, dy));
            }
        }
        if reads.len() as u64 == MEDIAN9 {
            return format!("ssc_median9_{}({})", t.keyword(), reads.join(", "));
        }
        // Above 5 × 5 the sort's loops stay loops (MEDIAN_UNROLLED).
        let form = if reads.len() > MEDIAN_UNROLLED {
            "loop_"
        } else {
            ""
        };
        format!(
            "ssc_median_{form}{}(({}[]){{ {} }}, {})",
            t.keyword(),
            c_name(t),
            reads.join(", "),
            reads.len()
        )
    }

    fn block_sum(&self, port: usize, t: ElemType) -> (String, Prec) {
        let p = self.kernel.source(port);
        if (p.mul.x * p.mul.y) as usize > UNROLLED_TERMS {
            let rows: Vec<String> = (0..p.mul.y).map(|j| format!("{}_b{j}", p.name)).collect();
            return (
                format!(
                    "{}((const {} *const[]){{ {} }}, {}, {}, x)",
                    sum_helper("bsum", t, p.ty),
                    c_name(p.ty),
                    rows.join(", "),
                    p.mul.x,
                    p.mul.y
                ),
                6,
            );
        }
        let mut terms = Vec::new();
        for j in 0..p.mul.y {
            for i in 0..p.mul.x {
                let at = if i == 0 {
                    format!("{} * x", p.mul.x)
                } else {
                    format!("{} * x + {i}", p.mul.x)
                };
                let r = format!("{}_b{j}[{at}]", p.name);
                terms.push(if p.ty == t {
                    r
                } else {
                    format!("({}){r}", c_name(t))
                });
            }
        }
        Self::sum(terms, t)
    }

    /// x first: the two nearest columns of each of the two nearest rows,
    /// weights 3/4 and 1/4 by the output element's parity; then y. A
    /// known parity (see [`Emit::parity`]) writes its branch alone.
    fn linear(&self, port: usize, t: ElemType) -> String {
        let (q, h) = (literal(0.25, t), literal(0.75, t));
        let pick = |parity: Option<u64>, var: &str, odd: String, even: String| match parity {
            Some(1) => odd,
            Some(_) => even,
            None => format!("{var} & 1 ? {odd} : {even}"),
        };
        let row = |dy: i64| {
            let odd = self.blend(
                &h,
                &self.tap(port, 0, dy, t),
                &q,
                &self.tap(port, 1, dy, t),
                t,
            );
            let even = self.blend(
                &q,
                &self.tap(port, -1, dy, t),
                &h,
                &self.tap(port, 0, dy, t),
                t,
            );
            match self.parity {
                Some(_) => pick(self.parity.map(|p| p.0), "ex", odd, even),
                None => format!("({})", pick(None, "ex", odd, even)),
            }
        };
        let wrapped = |dy: i64| {
            let r = row(dy);
            if self.parity.is_some() {
                format!("({r})")
            } else {
                r
            }
        };
        pick(
            self.parity.map(|p| p.1),
            "ey",
            self.blend(&h, &wrapped(0), &q, &wrapped(1), t),
            self.blend(&q, &wrapped(-1), &h, &wrapped(0), t),
        )
    }
}

/// `w1 * a + w2 * b` in type `t` (`linear`'s blends, and the sliding
/// interpolation's), contracted `fmaf(w1, a, w2 * b)`.
pub fn blend(contract: bool, t: ElemType, (w1, a): (&str, &str), (w2, b): (&str, &str)) -> String {
    if contract {
        format!("{}({w1}, {a}, {w2} * {b})", fma_of(t))
    } else {
        format!("{w1} * {a} + {w2} * {b}")
    }
}

/// The factors of `n` when it is a product.
fn product(n: &Node) -> Option<(&Node, &Node)> {
    match &n.op {
        Op::Binary(BinOp::Mul, x, y) => Some((x, y)),
        _ => None,
    }
}

/// The fused multiply-add of floating type `t`.
fn fma_of(t: ElemType) -> &'static str {
    match t {
        ElemType::Double => "fma",
        _ => "fmaf",
    }
}

fn floor_of(t: ElemType) -> &'static str {
    if t == ElemType::Float {
        "floorf"
    } else {
        "floor"
    }
}

/// A floating constant, as [`bounds`] lists it.
fn bound_of(n: &Node) -> Option<(ElemType, f64)> {
    match (&n.op, n.elem()) {
        (Op::Const(v), t @ (ElemType::Float | ElemType::Double)) => Some((t, *v)),
        _ => None,
    }
}

/// The floating zero constant that `a op b` adds, if it adds one: `x + 0`,
/// `0 + x`, `x - -0`. Such an addition turns -0 into +0, and gcc 12 folds
/// it away where it wrongly takes its other operand for never -0:
/// `-(-(float)i + 0.0f)` compiled to `(float)i`, +0 for i = 0, where C's
/// arithmetic gives -0 (found by the differential tester). A zero the
/// compiler cannot see ([`bounds`]) is added as written.
fn added_zero<'n>(op: BinOp, a: &'n Node, b: &'n Node) -> Option<&'n Node> {
    let zero = |n: &Node| bound_of(n).is_some_and(|(_, v)| v == 0.0);
    match op {
        BinOp::Add if zero(b) => Some(b),
        BinOp::Add if zero(a) => Some(a),
        BinOp::Sub if bound_of(b).is_some_and(|(_, v)| v.to_bits() == (-0.0f64).to_bits()) => {
            Some(b)
        }
        _ => None,
    }
}

/// Every floating constant that the kernel's values and locals hide from
/// the C compiler, each once (by its bits: 0 and -0 are two), in the order
/// met:
/// - an operand of a `min` or `max` (`max(x, 0)`, the ends of a `clamp`):
///   gcc compiles `x > 0.0f ? x : 0.0f` to a compare and a blend, where
///   `x > b ? x : b` with a `b` it cannot see is one `max` instruction with
///   the same result (`maxps` returns its second operand when they are
///   unordered or equal, as the ternary does); measured 0.91–0.95× the
///   median latency of xray at 1024² with the contrast's bounds hidden
///   (the same checksum);
/// - a zero added ([`added_zero`]), which gcc would fold away wrongly.
pub fn bounds(k: &Kernel) -> Vec<(ElemType, f64)> {
    let mut out: Vec<(ElemType, f64)> = Vec::new();
    for n in k.trees() {
        n.walk(&mut |n| {
            let hidden: Vec<&Node> = match &n.op {
                Op::Min(a, b) | Op::Max(a, b) => vec![a, b],
                Op::Binary(op, a, b) => added_zero(*op, a, b).into_iter().collect(),
                _ => Vec::new(),
            };
            for (t, v) in hidden.into_iter().filter_map(bound_of) {
                if !out
                    .iter()
                    .any(|&(u, w)| u == t && w.to_bits() == v.to_bits())
                {
                    out.push((t, v));
                }
            }
        });
    }
    out
}

/// Every table of the kernel's values, each once, in the order met.
pub fn tables(k: &Kernel) -> Vec<Vec<f64>> {
    let mut out: Vec<Vec<f64>> = Vec::new();
    for n in k.trees() {
        n.walk(&mut |n| {
            if let Op::Lut { table, .. } = &n.op {
                if !out.contains(table) {
                    out.push(table.clone());
                }
            }
        });
    }
    out
}

/// Whether the finite, non-zero `v` is ± a power of two (a division by it
/// multiplies exactly).
fn power_of_two(v: f64) -> bool {
    let bits = v.abs().to_bits();
    let (exponent, fraction) = (bits >> 52, bits & ((1u64 << 52) - 1));
    if exponent == 0 {
        fraction.is_power_of_two()
    } else {
        fraction == 0
    }
}
