//! `function_definition`: a function defined by expressions over its input
//! ports (docs/language.md, "Defined functions"), as written.
//!
//! This is the syntax tree the parser builds and the printer writes back;
//! [`crate::ir::kernel`] types it against the function's ports into the
//! loop body every back end computes from. Numbers keep their value only
//! (`1.0` and `1` are one number), so `parse(print(d)) == d`.

use super::{Ident, Pair, Span};
use std::fmt::Write as _;

/// `function_definition FUNC { PORT = EXPR; … };`
#[derive(Clone, Debug, PartialEq)]
pub struct Definition {
    pub name: Ident,
    pub assignments: Vec<Assignment>,
    pub span: Span,
}

/// `PORT = EXPR;`: the value of every element of an output port.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    pub port: Ident,
    pub value: Expr,
    pub span: Span,
}

/// An expression with the span it was written at.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A number as written: its type comes from where it is used.
    Number(f64),
    /// `PORT` or `PORT[dx, dy]`: an input port's element, at an offset
    /// inside its window.
    Port {
        port: Ident,
        offset: Option<(i64, i64)>,
    },
    /// `-x`.
    Neg(Box<Expr>),
    /// `a + b`, `a - b`, `a * b`, `a / b`.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a < b` and the other comparisons (only a `select`'s condition).
    Compare(CmpOp, Box<Expr>, Box<Expr>),
    /// `NAME(ARG, …)`: an operator or a conversion (`float(x)`).
    Call { callee: Ident, args: Vec<Arg> },
}

/// An argument of a call: an expression, a list of numbers (weights, a
/// table), or a quoted file name (a table from a file).
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Expr(Expr),
    List(Vec<f64>, Span),
    Text(String, Span),
}

impl Arg {
    pub fn span(&self) -> Span {
        match self {
            Arg::Expr(e) => e.span,
            Arg::List(_, s) | Arg::Text(_, s) => *s,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
        }
    }

    /// Binding strength: `*` and `/` bind tighter than `+` and `-`.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Add | BinOp::Sub => 2,
            BinOp::Mul | BinOp::Div => 3,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

impl CmpOp {
    pub const ALL: [CmpOp; 6] = [
        CmpOp::Le,
        CmpOp::Ge,
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Gt,
    ];

    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }

    pub fn from_symbol(s: &str) -> Option<CmpOp> {
        CmpOp::ALL.into_iter().find(|c| c.symbol() == s)
    }
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    /// The vector operations one evaluation computes, counted as the
    /// generated loop body does them (the cost model's measure of a
    /// defined function; `lower::cost`): a read, an operator, a conversion
    /// one each; a window operator over the port it reads, whose window
    /// or block `port` gives (`None` for a name that is no input port):
    /// `stencil` a load, a multiply and an add per non-zero weight,
    /// `separable`/`gauss`/`box` the same per element of the window (the
    /// generated sum does not share the x sums between points) and a
    /// multiply and an add per row, `median` of n a load each and a min
    /// and a max per compare-exchange of its n(n−1)/2, `mean` a load and
    /// an add per block element, `linear` its two rows of two taps each
    /// (two loads, two multiplies, an add) and their blend; `lut` a
    /// gather, four.
    pub fn operations(&self, port: &impl Fn(&str) -> Option<(Pair, Pair)>) -> u64 {
        match &self.kind {
            ExprKind::Number(_) => 0,
            ExprKind::Port { .. } => 1,
            ExprKind::Neg(x) => 1 + x.operations(port),
            ExprKind::Binary(_, a, b) | ExprKind::Compare(_, a, b) => {
                1 + a.operations(port) + b.operations(port)
            }
            ExprKind::Call { callee, args } => {
                let nested: u64 = args
                    .iter()
                    .map(|a| match a {
                        Arg::Expr(e) => e.operations(port),
                        _ => 0,
                    })
                    .sum();
                let geometry = match args.first() {
                    Some(Arg::Expr(Expr {
                        kind: ExprKind::Port { port: p, .. },
                        ..
                    })) => port(p.as_str()),
                    _ => None,
                };
                let nonzero = |a: Option<&Arg>| match a {
                    Some(Arg::List(v, _)) => v.iter().filter(|w| **w != 0.0).count() as u64,
                    _ => 0,
                };
                let ((wx, wy), (mx, my)) = geometry
                    .map(|(w, m)| ((w.x, w.y), (m.x, m.y)))
                    .unwrap_or(((1, 1), (1, 1)));
                match (callee.as_str(), geometry) {
                    ("stencil", Some(_)) => 3 * nonzero(args.get(1)),
                    ("separable", Some(_)) => {
                        let (nx, ny) = (nonzero(args.get(1)), nonzero(args.get(2)));
                        3 * nx * ny + 2 * ny
                    }
                    ("gauss" | "box", Some(_)) => 3 * wx * wy + 2 * wy,
                    ("median", Some(_)) => {
                        let n = wx * wy;
                        n + n * (n - 1)
                    }
                    ("mean", Some(_)) => 2 * mx * my,
                    ("linear", Some(_)) => 2 * 5 + 3,
                    ("lut", _) => 4 + nested,
                    _ => 1 + nested,
                }
            }
        }
    }
}

impl Definition {
    /// The operations of every output element together
    /// ([`Expr::operations`]), with `ports` the function's.
    pub fn operations(&self, ports: &[super::Port]) -> u64 {
        let port = |name: &str| {
            ports
                .iter()
                .find(|p| p.name.name == name)
                .map(|p| (p.window_or_one(), p.mul.value))
        };
        self.assignments
            .iter()
            .map(|a| a.value.operations(&port))
            .sum::<u64>()
            .max(1)
    }
}

/// A number in the normal form: whole values without a fraction (`65535`),
/// others as Rust's shortest decimal that reads back to the same value.
pub fn number_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v:?}");
        s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
    }
}

impl std::fmt::Display for Expr {
    /// The normal form: operators spaced, parentheses only where
    /// precedence needs them, numbers as [`number_text`].
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = String::new();
        write_expr(&mut out, self, 0);
        f.write_str(&out)
    }
}

/// Precedence of what an expression prints as: comparison 1, `+ -` 2,
/// `* /` 3, a negation 4, anything else 5.
fn expr_precedence(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Compare(..) => 1,
        ExprKind::Binary(op, ..) => op.precedence(),
        ExprKind::Neg(_) => 4,
        _ => 5,
    }
}

/// Writes `e`, in parentheses when it binds less tightly than `min`.
fn write_expr(out: &mut String, e: &Expr, min: u8) {
    let own = expr_precedence(e);
    if own < min {
        out.push('(');
    }
    match &e.kind {
        ExprKind::Number(v) => out.push_str(&number_text(*v)),
        ExprKind::Port { port, offset } => {
            out.push_str(&port.name);
            if let Some((dx, dy)) = offset {
                let _ = write!(out, "[{dx}, {dy}]");
            }
        }
        ExprKind::Neg(x) => {
            out.push('-');
            write_expr(out, x, 4);
        }
        ExprKind::Binary(op, l, r) => {
            // Left-associative: the right operand of the same precedence
            // keeps its parentheses (`a - (b - c)`).
            write_expr(out, l, own);
            let _ = write!(out, " {} ", op.symbol());
            write_expr(out, r, own + 1);
        }
        ExprKind::Compare(op, l, r) => {
            write_expr(out, l, 2);
            let _ = write!(out, " {} ", op.symbol());
            write_expr(out, r, 2);
        }
        ExprKind::Call { callee, args } => {
            let _ = write!(out, "{}(", callee.name);
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match a {
                    Arg::Expr(x) => write_expr(out, x, 0),
                    Arg::List(v, _) => {
                        out.push('[');
                        out.push_str(
                            &v.iter()
                                .map(|x| number_text(*x))
                                .collect::<Vec<_>>()
                                .join(", "),
                        );
                        out.push(']');
                    }
                    Arg::Text(t, _) => {
                        let _ = write!(out, "\"{t}\"");
                    }
                }
            }
            out.push(')');
        }
    }
    if own < min {
        out.push(')');
    }
}
