//! The operators of the vocabulary: every name a definition may call, its
//! arguments, and the node it becomes (docs/language.md, "Defined
//! functions", has a worked example of each).
//!
//! Takes a call (name, arguments) while typing; gives its node, or a
//! KernelError: an unknown name or a wrong number or kind of argument
//! (E049), weights that do not match the window (E044), a table that does
//! not cover its index (E045), a conversion that can overflow without
//! saying it saturates (E046), a window operator on a port that has no
//! window or block (E048).

use super::number::Num;
use super::range::{bounds, Range};
use super::typer::{Typer, Val};
use super::{KernelError, Node, Op, Ty};
use crate::ir::{Arg, ElemType, ExprKind, Span};

/// Every operator: its name, number of arguments, and how E049's hint
/// shows it.
pub const OPERATORS: &[(&str, usize, &str)] = &[
    ("min", 2, "min(a, b)"),
    ("max", 2, "max(a, b)"),
    ("clamp", 3, "clamp(x, lo, hi)"),
    ("abs", 1, "abs(x)"),
    ("floor", 1, "floor(x)"),
    ("round", 1, "round(x)"),
    ("select", 3, "select(a < b, then, else)"),
    ("window_level", 3, "window_level(x, window, level)"),
    ("stencil", 2, "stencil(port, [weights, row by row])"),
    ("separable", 3, "separable(port, [x weights], [y weights])"),
    ("gauss", 2, "gauss(port, sigma)"),
    ("box", 1, "box(port)"),
    ("median", 1, "median(port)"),
    ("mean", 1, "mean(port)"),
    ("linear", 1, "linear(port)"),
    ("lut", 2, "lut(x, [table]) or lut(x, \"file\")"),
    ("first_frame", 0, "select(first_frame(), then, else)"),
];

impl Typer<'_> {
    /// `name(args)`.
    pub(super) fn call(&mut self, name: &str, nspan: Span, args: &[Arg], span: Span) -> Val {
        if let Some(t) = ElemType::from_keyword(name) {
            return self.convert(t, false, args, span);
        }
        if let Some(t) = name.strip_suffix("_sat").and_then(ElemType::from_keyword) {
            return self.convert(t, true, args, span);
        }
        let Some(&(_, want, shape)) = OPERATORS.iter().find(|(n, _, _)| *n == name) else {
            let mut names: Vec<String> = OPERATORS.iter().map(|(n, _, _)| n.to_string()).collect();
            names.extend(ElemType::ALL.iter().map(|t| t.keyword().to_string()));
            let mut e = KernelError::new("E049", format!("no operator `{name}`"), nspan, "unknown")
                .hint("the operators are in docs/language.md, \"Defined functions\"; conversions are named after the types (float(x), uchar_sat(x))");
            e.did_you_mean = Some((name.to_string(), names));
            return self.err(e);
        };
        if args.len() != want {
            return self.err(
                KernelError::new(
                    "E049",
                    format!(
                        "`{name}` takes {want} argument{}, not {}",
                        if want == 1 { "" } else { "s" },
                        args.len()
                    ),
                    span,
                    "wrong number of arguments",
                )
                .hint(format!("write {shape}")),
            );
        }
        match name {
            "min" | "max" | "clamp" => self.min_max(name, args, span),
            "abs" => match self.expr_arg(args, 0, "the argument") {
                Val::Const(c) => Val::Const(Num::Abs(Box::new(c))),
                Val::Node(n) => self.unary_int(n, span, "abs", |r| r.abs(), Op::Abs),
                Val::Bad => Val::Bad,
            },
            "floor" | "round" => self.rounding(name, args, span),
            "select" => self.select(args, span),
            "window_level" => self.window_level(args, span),
            "lut" => self.lut(args, span),
            // Whether this is the first frame (iteration 0): a condition.
            "first_frame" => Val::Node(Node {
                ty: Ty::Bool,
                range: Range::new(0.0, 1.0),
                op: Op::FirstFrame,
            }),
            _ => self.window_op(name, args, span),
        }
    }

    /// The expression of argument `i` (E049 for a list or a file name).
    fn expr_arg(&mut self, args: &[Arg], i: usize, what: &str) -> Val {
        match &args[i] {
            Arg::Expr(e) => self.value(e),
            a => self.err(KernelError::new(
                "E049",
                format!("{what} is an expression here"),
                a.span(),
                "not an expression",
            )),
        }
    }

    /// A number the compiler needs to know (a σ, a window, a level),
    /// computed in double.
    pub(super) fn constant_arg(&mut self, args: &[Arg], i: usize, what: &str) -> Option<f64> {
        match self.expr_arg(args, i, what) {
            Val::Const(c) => match c.double() {
                Ok(v) => Some(v),
                Err(e) => {
                    self.fold_error(e, ElemType::Double, args[i].span());
                    None
                }
            },
            Val::Bad => None,
            Val::Node(_) => {
                self.err(
                    KernelError::new(
                        "E049",
                        format!("{what} must be a number"),
                        args[i].span(),
                        "computed per element",
                    )
                    .hint("write a number, or an expression of numbers"),
                );
                None
            }
        }
    }

    /// `T(x)`, `T_sat(x)`.
    fn convert(&mut self, t: ElemType, saturate: bool, args: &[Arg], span: Span) -> Val {
        let name = format!("{}{}", t.keyword(), if saturate { "_sat" } else { "" });
        if args.len() != 1 {
            return self.err(
                KernelError::new(
                    "E049",
                    format!("`{name}` converts one value, not {}", args.len()),
                    span,
                    "one argument",
                )
                .hint(format!("write {name}(x)")),
            );
        }
        let n = match self.expr_arg(args, 0, "what is converted") {
            Val::Bad => return Val::Bad,
            // Numbers converted: computed in double, then converted as a
            // value is (truncated toward zero, saturated or checked).
            Val::Const(c) => return self.convert_number(c, t, saturate, &name, span),
            Val::Node(n) if n.ty == Ty::Bool => return self.bool_as_value(span),
            Val::Node(n) => n,
        };
        let integer_target = bounds(t).is_some();
        let from_float = bounds(n.elem()).is_none();
        // The value as the target holds it: a float rounds (2147483647
        // is 2147483648 as float), an integer target truncates.
        let r = if integer_target && from_float {
            n.range.trunc()
        } else {
            n.range.rounded(t)
        };
        let range = if saturate {
            r.clamp_to(Range::of_type(t))
        } else {
            if !r.within(Range::of_type(t)) {
                let (lo, hi) = bounds(t).unwrap_or((f64::MIN, f64::MAX));
                return self.err(
                    KernelError::new(
                        "E046",
                        format!("{name}(…) can overflow: the value goes from {} to {}, {} holds {lo} to {hi}", r.lo, r.hi, t.keyword()),
                        span,
                        "may not fit",
                    )
                    .hint(format!("say what happens outside: {}_sat(x) saturates, or clamp first: {name}(clamp(x, {lo}, {hi}))", t.keyword())),
                );
            }
            r
        };
        Val::Node(Node {
            ty: Ty::Elem(t),
            range,
            op: Op::Convert {
                saturate,
                arg: Box::new(n),
            },
        })
    }

    /// `T(numbers)`, `T_sat(numbers)`: the numbers computed in double,
    /// then converted as a value of double is.
    fn convert_number(
        &mut self,
        c: Num,
        t: ElemType,
        saturate: bool,
        name: &str,
        span: Span,
    ) -> Val {
        let v = match c.double() {
            Ok(v) => v,
            Err(e) => {
                self.fold_error(e, ElemType::Double, span);
                return Val::Bad;
            }
        };
        let v = match bounds(t) {
            Some((lo, hi)) => {
                let v = v.trunc();
                if saturate {
                    v.clamp(lo, hi)
                } else if v < lo || v > hi {
                    return self.err(
                        KernelError::new(
                            "E046",
                            format!(
                                "{name}(…) of {} overflows: {} holds {lo} to {hi}",
                                crate::ir::number_text(v),
                                t.keyword()
                            ),
                            span,
                            "does not fit",
                        )
                        .hint(format!("{}_sat(x) saturates", t.keyword())),
                    );
                } else {
                    v
                }
            }
            None if t == ElemType::Float && v.abs() > f32::MAX as f64 => {
                if saturate {
                    v.clamp(f32::MIN as f64, f32::MAX as f64)
                } else {
                    return self.err(
                        KernelError::new(
                            "E046",
                            format!("{name}(…) of {} overflows float", crate::ir::number_text(v)),
                            span,
                            "does not fit",
                        )
                        .hint("float_sat(x) saturates"),
                    );
                }
            }
            None => v,
        };
        self.constant(Num::Lit(v), t, span)
            .map_or(Val::Bad, Val::Node)
    }

    /// `min(a, b)`, `max(a, b)`, `clamp(x, lo, hi)`.
    fn min_max(&mut self, name: &str, args: &[Arg], span: Span) -> Val {
        let vals: Vec<(Val, Span)> = (0..args.len())
            .map(|i| (self.expr_arg(args, i, "an operand"), args[i].span()))
            .collect();
        if vals.iter().all(|(v, _)| matches!(v, Val::Const(_))) {
            let mut c = vals.into_iter().map(|(v, _)| match v {
                Val::Const(c) => Box::new(c),
                _ => unreachable!("numbers"),
            });
            let (a, b) = (c.next().unwrap(), c.next().unwrap());
            return Val::Const(match name {
                "min" => Num::Min(a, b),
                "max" => Num::Max(a, b),
                _ => Num::Min(Box::new(Num::Max(a, b)), c.next().unwrap()),
            });
        }
        let Some(nodes) = self.unify(vals, span) else {
            return Val::Bad;
        };
        let mut it = nodes.into_iter();
        let a = it.next().unwrap();
        let b = it.next().unwrap();
        let pair = |op: fn(Box<Node>, Box<Node>) -> Op, r: Range, a: Node, b: Node| Node {
            ty: a.ty,
            range: r,
            op: op(Box::new(a), Box::new(b)),
        };
        Val::Node(match name {
            "min" => pair(Op::Min, a.range.min(b.range), a, b),
            "max" => pair(Op::Max, a.range.max(b.range), a, b),
            _ => {
                let hi = it.next().unwrap();
                let lower = pair(Op::Max, a.range.max(b.range), a, b);
                pair(Op::Min, lower.range.min(hi.range), lower, hi)
            }
        })
    }

    /// `floor(x)`, `round(x)`: floating types only.
    fn rounding(&mut self, name: &str, args: &[Arg], span: Span) -> Val {
        match self.expr_arg(args, 0, "the argument") {
            Val::Const(c) => Val::Const(if name == "floor" {
                Num::Floor(Box::new(c))
            } else {
                Num::Round(Box::new(c))
            }),
            Val::Bad => Val::Bad,
            Val::Node(n) if n.ty == Ty::Bool => self.bool_as_value(span),
            Val::Node(n) if bounds(n.elem()).is_some() => self.err(
                KernelError::new(
                    "E041",
                    format!(
                        "{name} of {} does nothing: it is already whole",
                        n.elem().keyword()
                    ),
                    span,
                    "an integer value",
                )
                .hint(format!(
                    "{name} works on float and double: {name}(float(x))"
                )),
            ),
            Val::Node(n) => {
                let range = if name == "floor" {
                    n.range.floor()
                } else {
                    (n.range + Range::point(0.5)).rounded(n.elem()).floor()
                };
                let op = if name == "floor" {
                    Op::Floor(Box::new(n.clone()))
                } else {
                    Op::Round(Box::new(n.clone()))
                };
                Val::Node(Node {
                    ty: n.ty,
                    range,
                    op,
                })
            }
        }
    }

    /// `select(a < b, then, else)`.
    fn select(&mut self, args: &[Arg], span: Span) -> Val {
        let c = self.expr_arg(args, 0, "the condition");
        let a = self.expr_arg(args, 1, "the value if true");
        let b = self.expr_arg(args, 2, "the value if false");
        let cond = match c {
            Val::Node(n) if n.ty == Ty::Bool => n,
            Val::Bad => return Val::Bad,
            _ => {
                return self.err(
                    KernelError::new(
                        "E051",
                        "the condition of select is a comparison",
                        args[0].span(),
                        "not a comparison",
                    )
                    .hint("compare two values: select(x < 0, 0, x)"),
                )
            }
        };
        let Some(v) = self.unify(vec![(a, args[1].span()), (b, args[2].span())], span) else {
            return Val::Bad;
        };
        let mut it = v.into_iter();
        let (a, b) = (it.next().unwrap(), it.next().unwrap());
        // A comparison of integers that their ranges decide is its branch
        // (the same value; the C compiler warns on a comparison its types
        // decide, -Wtype-limits: `select(u >= 0, …)` of an unsigned u).
        if let Op::Compare(op, x, y) = &cond.op {
            if bounds(x.elem()).is_some() {
                if let Some(holds) = decided(*op, x.range, y.range) {
                    return Val::Node(if holds { a } else { b });
                }
            }
        }
        Val::Node(Node {
            ty: a.ty,
            range: a.range.union(b.range),
            op: Op::Select(Box::new(cond), Box::new(a), Box::new(b)),
        })
    }

    /// `window_level(x, window, level)`: clamp((x − (level − window/2)) /
    /// window, 0, 1), on float or double.
    fn window_level(&mut self, args: &[Arg], span: Span) -> Val {
        let x = self.expr_arg(args, 0, "the value");
        let (Some(w), Some(l)) = (
            self.constant_arg(args, 1, "the window"),
            self.constant_arg(args, 2, "the level"),
        ) else {
            return Val::Bad;
        };
        if w <= 0.0 {
            return self.err(
                KernelError::new(
                    "E043",
                    "the window of window_level must be above 0",
                    args[1].span(),
                    "not a width",
                )
                .hint("the window is the width of the values shown: window_level(x, 400, 40)"),
            );
        }
        let n = match x {
            Val::Node(n) if n.ty != Ty::Bool && bounds(n.elem()).is_none() => n,
            Val::Bad => return Val::Bad,
            Val::Const(_) => {
                return self.err(
                    KernelError::new(
                        "E049",
                        "window_level of a number is a number",
                        args[0].span(),
                        "a number",
                    )
                    .hint("window a port's value"),
                )
            }
            Val::Node(n) => {
                return self.err(
                    KernelError::new(
                        "E041",
                        format!(
                            "window_level computes on float or double, not {}",
                            n.elem().keyword()
                        ),
                        args[0].span(),
                        "convert first",
                    )
                    .hint("window_level(float(x), window, level)"),
                )
            }
        };
        let t = n.elem();
        let c = |v: f64| Node {
            ty: Ty::Elem(t),
            range: Range::point(v),
            op: Op::Const(v),
        };
        let shifted = Node {
            ty: n.ty,
            range: (n.range - Range::point(l - w / 2.0)).rounded(t),
            op: Op::Binary(
                crate::ir::BinOp::Sub,
                Box::new(n.clone()),
                Box::new(c(l - w / 2.0)),
            ),
        };
        let scaled = Node {
            ty: n.ty,
            range: shifted.range.div(Range::point(w), false).rounded(t),
            op: Op::Binary(crate::ir::BinOp::Div, Box::new(shifted), Box::new(c(w))),
        };
        let low = Node {
            ty: n.ty,
            range: scaled.range.max(Range::point(0.0)),
            op: Op::Max(Box::new(scaled), Box::new(c(0.0))),
        };
        let _ = span;
        Val::Node(Node {
            ty: n.ty,
            range: low.range.min(Range::point(1.0)),
            op: Op::Min(Box::new(low), Box::new(c(1.0))),
        })
    }

    /// `lut(x, [table])`, `lut(x, "file")`.
    fn lut(&mut self, args: &[Arg], span: Span) -> Val {
        let x = self.expr_arg(args, 0, "the index");
        let table = match &args[1] {
            Arg::List(v, _) => v.clone(),
            Arg::Text(path, s) => {
                let full = match self.dir {
                    Some(d) => d.join(path),
                    None => std::path::PathBuf::from(path),
                };
                match super::read_table(&full) {
                    Ok(v) if !v.is_empty() => v,
                    Ok(_) => {
                        return self.err(
                            KernelError::new(
                                "E045",
                                format!("the table {path} has no numbers"),
                                *s,
                                "empty",
                            )
                            .hint("one number per entry, entry 0 first"),
                        )
                    }
                    Err(e) => {
                        return self.err(
                            KernelError::new(
                                "E045",
                                format!("the table cannot be read: {e}"),
                                *s,
                                "this file",
                            )
                            .hint("a regular file of at most 1 MiB, its path relative to the description's folder"),
                        )
                    }
                }
            }
            Arg::Expr(e) => {
                return self.err(
                    KernelError::new(
                        "E049",
                        "the table of lut is a list or a file name",
                        e.span,
                        "an expression",
                    )
                    .hint("lut(x, [0, 1, 4, 9]) or lut(x, \"gamma.txt\")"),
                )
            }
        };
        let n = match x {
            Val::Bad => return Val::Bad,
            Val::Const(c) => match self.constant(c, ElemType::Int, args[0].span()) {
                Some(n) => n,
                None => return Val::Bad,
            },
            Val::Node(n) if n.ty == Ty::Bool => return self.bool_as_value(args[0].span()),
            Val::Node(n) => n,
        };
        if bounds(n.elem()).is_none() {
            return self.err(
                KernelError::new(
                    "E045",
                    format!(
                        "lut is indexed by an integer, not by {}",
                        n.elem().keyword()
                    ),
                    args[0].span(),
                    "not an integer",
                )
                .hint("convert the index: lut(ushort(clamp(round(x), 0, 4095)), …)"),
            );
        }
        let last = table.len() as f64 - 1.0;
        if !n.range.within(Range::new(0.0, last)) {
            return self.err(
                KernelError::new(
                    "E045",
                    format!("the table has {} entries, but its index ({}) goes from {} to {}", table.len(), n.elem().keyword(), n.range.lo, n.range.hi),
                    span,
                    "table too short",
                )
                .hint(format!("give an entry for every value of the index ({} entries), or clamp the index: lut(min(x, {last}), …)", n.range.hi.max(0.0) + 1.0)),
            );
        }
        if let Some(e) = table_error(&table, args[1].span()) {
            return self.err(e);
        }
        let ty = super::table_type(&table);
        let lo = table.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = table.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Val::Node(Node {
            ty: Ty::Elem(ty),
            // A float table's entries are the floats they round to.
            range: Range::new(lo, hi).rounded(ty),
            op: Op::Lut {
                table,
                arg: Box::new(n),
            },
        })
    }

    /// The source a window operator reads: an input port (its index), or
    /// the expression of ports it is given (a [`Local`](super::Local)).
    pub(super) fn port_arg(&mut self, name: &str, args: &[Arg]) -> Option<usize> {
        let e = match &args[0] {
            Arg::Expr(e) => e,
            a => {
                self.err(
                    KernelError::new(
                        "E048",
                        format!("{name} reads an input port or an expression of them"),
                        a.span(),
                        "not a value",
                    )
                    .hint(format!(
                        "write {name}(PORT, …) with an IN port of the function"
                    )),
                );
                return None;
            }
        };
        let ExprKind::Port { port, offset: None } = &e.kind else {
            return self.local_arg(name, e);
        };
        if let Some(k) = self.inputs.iter().position(|p| p.name == port.name) {
            return Some(k);
        }
        let mut err = KernelError::new(
            "E040",
            format!("no input port `{}`", port.name),
            e.span,
            "not an input port",
        )
        .hint(format!(
            "write {name}(PORT, …) with an IN port of the function"
        ));
        err.did_you_mean = Some((
            port.name.clone(),
            self.inputs.iter().map(|i| i.name.clone()).collect(),
        ));
        self.err(err);
        None
    }
}

/// Whether `x op y` holds for every value of the ranges (`Some(true)`),
/// for none (`Some(false)`), or depends on them (`None`).
fn decided(op: crate::ir::CmpOp, x: Range, y: Range) -> Option<bool> {
    use crate::ir::CmpOp::*;
    let lt = |a: Range, b: Range| {
        if a.hi < b.lo {
            Some(true)
        } else if a.lo >= b.hi {
            Some(false)
        } else {
            None
        }
    };
    let le = |a: Range, b: Range| lt(b, a).map(|v| !v);
    let eq = if x.lo == x.hi && y.lo == y.hi && x.lo == y.lo {
        Some(true)
    } else if x.hi < y.lo || y.hi < x.lo {
        Some(false)
    } else {
        None
    };
    match op {
        Lt => lt(x, y),
        Le => le(x, y),
        Gt => lt(y, x),
        Ge => le(y, x),
        Eq => eq,
        Ne => eq.map(|v| !v),
    }
}

/// A table `lut` cannot take: longer than [`super::MAX_TABLE_ENTRIES`]
/// (E045), or an entry its type cannot hold (E042): a table of whole
/// numbers is int, so a whole entry past int's range is refused (it would
/// otherwise turn the whole table to float), and an entry of a float table
/// must be a finite float.
fn table_error(table: &[f64], s: Span) -> Option<KernelError> {
    if table.len() > super::MAX_TABLE_ENTRIES {
        return Some(
            KernelError::new(
                "E045",
                format!(
                    "a table of {} entries; lut takes at most {}",
                    table.len(),
                    super::MAX_TABLE_ENTRIES
                ),
                s,
                "too long",
            )
            .hint("index a shorter table (an index of ushort needs 65536 entries)"),
        );
    }
    let int = Range::of_type(ElemType::Int);
    let (bad, kind, why) = if table.iter().all(|v| v.fract() == 0.0) {
        (
            table.iter().find(|v| !int.contains(**v)),
            "int",
            format!(
                "a table of whole numbers is int, which holds {} to {}",
                int.lo, int.hi
            ),
        )
    } else {
        (
            table.iter().find(|v| v.abs() > f32::MAX as f64),
            "float",
            "a table with a fraction is float: too large for float".to_string(),
        )
    };
    let v = bad?;
    Some(
        KernelError::new(
            "E042",
            format!(
                "the table entry {} is no {kind}",
                crate::ir::number_text(*v)
            ),
            s,
            "an entry its type cannot hold",
        )
        .hint(format!(
            "{why}; scale the table's entries into that range and the value where it is used"
        )),
    )
}
