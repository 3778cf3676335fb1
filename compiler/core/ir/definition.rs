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

/// The deepest an expression may nest: parentheses and calls inside one
/// another, and the depth of its tree (each operator of a chain `a + b +
/// c`, each unary minus, each call counts one level). docs/language.md,
/// "Limits"; the parser refuses a deeper one (E057), and stage fusion
/// makes none.
pub const MAX_EXPR_DEPTH: usize = 256;

/// The most nodes (numbers, port reads, operators, calls) one expression
/// may have (E058; docs/language.md, "Limits").
pub const MAX_EXPR_NODES: usize = 10_000;

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

/// What [`Expr::map_ports`] puts for a port read: from its port, its
/// offset and its span, an expression.
pub type PortMap<'a> = dyn Fn(&Ident, Option<(i64, i64)>, Span) -> Expr + 'a;

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    /// `self` with every port read (`p` or `p[dx, dy]`) replaced by what
    /// `f` gives for it (the read itself: its port, its offset, its span);
    /// numbers, operators and calls stay as they are. Stage fusion renames
    /// and substitutes ports so, and a chain names its boxes' ports.
    pub fn map_ports(&self, f: &PortMap<'_>) -> Expr {
        let kind = match &self.kind {
            ExprKind::Port { port, offset } => return f(port, *offset, self.span),
            ExprKind::Number(v) => ExprKind::Number(*v),
            ExprKind::Neg(x) => ExprKind::Neg(Box::new(x.map_ports(f))),
            ExprKind::Binary(o, a, b) => {
                ExprKind::Binary(*o, Box::new(a.map_ports(f)), Box::new(b.map_ports(f)))
            }
            ExprKind::Compare(o, a, b) => {
                ExprKind::Compare(*o, Box::new(a.map_ports(f)), Box::new(b.map_ports(f)))
            }
            ExprKind::Call { callee, args } => ExprKind::Call {
                callee: callee.clone(),
                args: args
                    .iter()
                    .map(|a| match a {
                        Arg::Expr(x) => Arg::Expr(x.map_ports(f)),
                        other => other.clone(),
                    })
                    .collect(),
            },
        };
        Expr::new(kind, self.span)
    }

    /// What one evaluation computes, by kind, as the generated loop body
    /// does it (the cost model's measure of a defined function,
    /// `lower::cost`); `port` gives an input port's window and `mul`
    /// (`None` for a name that is no input port). See [`Operations`].
    pub fn operations(&self, port: &impl Fn(&str) -> Option<(Pair, Pair)>) -> Operations {
        let arith = |n| Operations {
            arith: n,
            ..Operations::default()
        };
        let convert = Operations {
            convert: 1,
            ..Operations::default()
        };
        match &self.kind {
            ExprKind::Number(_) => Operations::default(),
            ExprKind::Port { .. } => arith(1),
            ExprKind::Neg(x) => arith(1) + x.operations(port),
            ExprKind::Binary(_, a, b) | ExprKind::Compare(_, a, b) => {
                arith(1) + a.operations(port) + b.operations(port)
            }
            ExprKind::Call { callee, args } => {
                let nested = args
                    .iter()
                    .filter_map(|a| match a {
                        Arg::Expr(e) => Some(e.operations(port)),
                        _ => None,
                    })
                    .fold(Operations::default(), |acc, o| acc + o);
                // A window operator's port, or the ports of its expression
                // (which share one geometry).
                let geometry = match args.first() {
                    Some(Arg::Expr(e)) => e.first_port().and_then(port),
                    _ => None,
                };
                let nonzero = |a: Option<&Arg>| match a {
                    Some(Arg::List(v, _)) => v.iter().filter(|w| **w != 0.0).count() as u64,
                    _ => 0,
                };
                let mut o = Operations::default();
                match (callee.as_str(), geometry) {
                    ("stencil", Some(_)) => o.taps = nonzero(args.get(1)),
                    ("separable", Some(_)) => {
                        let ny = nonzero(args.get(2));
                        o.taps = nonzero(args.get(1)) * ny;
                        o.arith = ny;
                    }
                    ("gauss" | "box", Some((w, _))) => {
                        o.taps = w.x * w.y;
                        o.arith = w.y;
                    }
                    ("median", Some((w, _))) => {
                        let n = w.x * w.y;
                        o.exchanges = n * (n - 1) / 2;
                    }
                    ("mean", Some((_, m))) => {
                        o.block = m.x * m.y;
                        o.arith = 1;
                    }
                    ("linear", Some(_)) => o.linear = 1,
                    ("clamp", _) => return arith(2) + nested,
                    ("window_level", _) => return arith(4) + nested,
                    ("floor" | "round" | "lut", _) => return convert + nested,
                    (name, _) if is_conversion(name) => return convert + nested,
                    _ => return arith(1) + nested,
                }
                // An expression a window operator reads is computed once
                // per element (in rows, back/c/kernels/).
                match args.first() {
                    Some(Arg::Expr(e)) if !matches!(e.kind, ExprKind::Port { .. }) => {
                        o + e.operations(port)
                    }
                    _ => o,
                }
            }
        }
    }
}

/// `T(x)` or `T_sat(x)` for an element type T.
fn is_conversion(name: &str) -> bool {
    let t = name.strip_suffix("_sat").unwrap_or(name);
    super::ElemType::from_keyword(t).is_some()
}

/// What an output element of a defined function computes, by kind (each
/// kind has its own cost, `lower::cost::Coefficients::defined_cost`):
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Operations {
    /// Reads, arithmetic, comparisons, `min`/`max`/`select`/`abs` (one
    /// each; `clamp` two, `window_level` four), a separable sum's row
    /// weights, a mean's division.
    pub arith: u64,
    /// Conversions between element types (`float(x)`, `ushort_sat(x)`),
    /// `floor`, `round`, and a `lut`'s gather.
    pub convert: u64,
    /// Window taps of `stencil`, `separable`, `gauss`, `box` (a load, a
    /// multiply and an add each; the sum does not share the x sums
    /// between points).
    pub taps: u64,
    /// A `median`'s compare-exchanges: n(n−1)/2 for a window of n.
    pub exchanges: u64,
    /// A `mean`'s block elements.
    pub block: u64,
    /// `linear` interpolations (one per output element).
    pub linear: u64,
}

impl Expr {
    /// The first port the expression reads, left to right.
    fn first_port(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Number(_) => None,
            ExprKind::Port { port, .. } => Some(port.as_str()),
            ExprKind::Neg(x) => x.first_port(),
            ExprKind::Binary(_, a, b) | ExprKind::Compare(_, a, b) => {
                a.first_port().or_else(|| b.first_port())
            }
            ExprKind::Call { args, .. } => args.iter().find_map(|a| match a {
                Arg::Expr(e) => e.first_port(),
                _ => None,
            }),
        }
    }
}

impl std::ops::Add for Operations {
    type Output = Operations;
    fn add(self, o: Operations) -> Operations {
        Operations {
            arith: self.arith + o.arith,
            convert: self.convert + o.convert,
            taps: self.taps + o.taps,
            exchanges: self.exchanges + o.exchanges,
            block: self.block + o.block,
            linear: self.linear + o.linear,
        }
    }
}

impl Definition {
    /// What every output element computes together ([`Expr::operations`]),
    /// with `ports` the function's.
    pub fn operations(&self, ports: &[super::Port]) -> Operations {
        let port = |name: &str| {
            ports
                .iter()
                .find(|p| p.name.name == name)
                .map(|p| (p.window_or_one(), p.mul.value))
        };
        self.assignments
            .iter()
            .map(|a| a.value.operations(&port))
            .fold(Operations::default(), |acc, o| acc + o)
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
