//! What one value's expression reads, and the expression its box computes.
//!
//! Takes a value's expression (its `fn`s and parameters applied, its
//! arguments that need a box of their own already lifted); gives every
//! read of another value, in the order written, with how it reads it
//! ([`Kind`]: at the value's own size, through `down2`, through `up2` or
//! `linear`), the window an operator or an offset needs and the delay of a
//! `prev`, and the expression rewritten over placeholder ports
//! ([`placeholder`]) that the caller names once it has grouped the reads
//! into ports.
//!
//! The chain's operators become the defined-function vocabulary:
//! `down2(x)` is `mean(x)` of a port with `mul [2, 2]`; `up2(x)` is `x`
//! read by a box whose output has `mul [2, 2]` (the nearest element);
//! `linear(x)` reads a `[3, 3]` window; `median(x, [3, 3])`, `box(x, [w,
//! h])`, `gauss(x, σ, [w, h])` and `stencil(x, [w…], [w, h])` take their
//! window as the last argument, which the port gets (`separable`'s comes
//! from its weights, a square `stencil`'s from its count); `prev(x, v)` is
//! `x` through a connection with `delay v`, and `prev(x, c)` with a value
//! `c` is `select(first_frame(), c, x through a delay)`: on the first frame
//! the value of `c`.

use super::codes;
use crate::diagnostics::Diagnostic;
use crate::ir::{Arg, Expr, ExprKind, Ident, Pair, Span};

/// How a read sees the value it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// Element by element (or a window around the element).
    Same,
    /// The mean of each block of this many elements (`down2`).
    Down(Pair),
    /// Each element repeated over a block of this many (`up2`, `linear`).
    Up(Pair),
}

/// One read of a value.
#[derive(Clone, Debug)]
pub(super) struct Read {
    pub(super) value: Ident,
    pub(super) kind: Kind,
    /// The window an operator reads (`separable`'s, `median`'s).
    pub(super) window: Option<Pair>,
    /// The largest |dx| and |dy| of an offset read (`x[-1, 0]`).
    pub(super) reach: (u64, u64),
    /// `prev(x, v)`: the value of the previous frame, `v` before the first.
    pub(super) delay: Option<f64>,
    pub(super) span: Span,
}

/// The name of read `k`'s port until ports are named.
pub(super) fn placeholder(k: usize) -> String {
    format!("\u{0}{k}")
}

/// Operators whose first argument a value must be given by name.
pub(super) const STRUCTURAL: &[&str] = &["down2", "up2", "linear"];
/// Operators that read a window of their first argument.
pub(super) const WINDOWED: &[&str] = &["stencil", "separable", "gauss", "box", "median"];

/// Whether `e` is a value read by name (`x`, no offset).
pub(super) fn as_name(e: &Expr) -> Option<&Ident> {
    match &e.kind {
        ExprKind::Port { port, offset: None } => Some(port),
        _ => None,
    }
}

/// Whether `e` can be a window operator's argument as it is: reads of
/// values by name under element-wise operations only.
pub(super) fn pointwise(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Number(_) => true,
        ExprKind::Port { offset, .. } => offset.is_none(),
        ExprKind::Neg(a) => pointwise(a),
        ExprKind::Binary(_, a, b) | ExprKind::Compare(_, a, b) => pointwise(a) && pointwise(b),
        ExprKind::Call { callee, args } => {
            let c = callee.name.as_str();
            !STRUCTURAL.contains(&c)
                && !WINDOWED.contains(&c)
                && c != "prev"
                && args.iter().all(|a| match a {
                    Arg::Expr(x) => pointwise(x),
                    _ => true,
                })
        }
    }
}

/// The reads of an expression and the expression over placeholder ports.
pub(super) struct Collected {
    pub(super) reads: Vec<Read>,
    pub(super) body: Expr,
}

/// Collects the reads of `e` (whose structural arguments are names).
pub(super) fn collect(e: &Expr, errors: &mut Vec<Diagnostic>) -> Collected {
    let mut c = Collector {
        reads: Vec::new(),
        errors,
    };
    let body = c.expr(e, None);
    Collected {
        reads: c.reads,
        body,
    }
}

struct Collector<'e> {
    reads: Vec<Read>,
    errors: &'e mut Vec<Diagnostic>,
}

impl Collector<'_> {
    fn read(&mut self, value: &Ident, kind: Kind, window: Option<Pair>, span: Span) -> Expr {
        self.reads.push(Read {
            value: value.clone(),
            kind,
            window,
            reach: (0, 0),
            delay: None,
            span,
        });
        port(self.reads.len() - 1, None, span)
    }

    /// `e` rewritten; `window`: inside a window operator's argument,
    /// whose reads take its window.
    fn expr(&mut self, e: &Expr, window: Option<Pair>) -> Expr {
        let kind = match &e.kind {
            ExprKind::Number(_) => return e.clone(),
            ExprKind::Port { port: name, offset } => {
                self.read(name, Kind::Same, window, e.span);
                if let (Some((dx, dy)), Some(last)) = (offset, self.reads.last_mut()) {
                    last.reach = (dx.unsigned_abs(), dy.unsigned_abs());
                }
                return port(self.reads.len() - 1, *offset, e.span);
            }
            ExprKind::Neg(a) => ExprKind::Neg(Box::new(self.expr(a, window))),
            ExprKind::Binary(op, a, b) => ExprKind::Binary(
                *op,
                Box::new(self.expr(a, window)),
                Box::new(self.expr(b, window)),
            ),
            ExprKind::Compare(op, a, b) => ExprKind::Compare(
                *op,
                Box::new(self.expr(a, window)),
                Box::new(self.expr(b, window)),
            ),
            ExprKind::Call { callee, args } => return self.call(e, callee, args, window),
        };
        Expr::new(kind, e.span)
    }

    fn call(&mut self, e: &Expr, callee: &Ident, args: &[Arg], window: Option<Pair>) -> Expr {
        let c = callee.name.as_str();
        let first = args.first().and_then(|a| match a {
            Arg::Expr(x) => Some(x),
            _ => None,
        });
        let two = Pair::new(2, 2);
        if STRUCTURAL.contains(&c) || c == "prev" {
            let Some(name) = first.and_then(as_name) else {
                return self.misuse(
                    e,
                    format!("`{c}` reads a value by name"),
                    "write `v = …;` first and give `v`",
                );
            };
            let want = if c == "prev" { 2 } else { 1 };
            if args.len() != want {
                let form = if c == "prev" {
                    "prev(x, v)".to_string()
                } else {
                    format!("{c}(x)")
                };
                return self.misuse(
                    e,
                    format!("`{c}` takes {want} argument(s)"),
                    &format!("write `{form}`"),
                );
            }
            return match c {
                "down2" => {
                    let p = self.read(name, Kind::Down(two), None, e.span);
                    call(callee, "mean", vec![Arg::Expr(p)], e.span)
                }
                "up2" => self.read(name, Kind::Up(two), None, e.span),
                "linear" => {
                    let p = self.read(name, Kind::Up(two), Some(Pair::new(3, 3)), e.span);
                    call(callee, "linear", vec![Arg::Expr(p)], e.span)
                }
                _ => match initial(&args[1]) {
                    Some(v) => {
                        let p = self.read(name, Kind::Same, None, e.span);
                        if let Some(last) = self.reads.last_mut() {
                            last.delay = Some(v);
                        }
                        p
                    }
                    // On the first frame, the value of `v` (an expression):
                    // `select(first_frame(), v, x of the previous frame)`.
                    None => match &args[1] {
                        Arg::Expr(v) => {
                            let p = self.read(name, Kind::Same, None, e.span);
                            if let Some(last) = self.reads.last_mut() {
                                last.delay = Some(0.0);
                            }
                            let first = call(callee, "first_frame", Vec::new(), e.span);
                            let v = self.expr(v, window);
                            call(
                                callee,
                                "select",
                                vec![Arg::Expr(first), Arg::Expr(v), Arg::Expr(p)],
                                e.span,
                            )
                        }
                        other => self.misuse(
                            e,
                            "`prev(x, v)` starts from a number or a value".into(),
                            &format!(
                                "`{}` is neither: write `prev(x, 0)` or `prev(x, c)`",
                                match other {
                                    Arg::List(..) => "a list",
                                    _ => "a file name",
                                }
                            ),
                        ),
                    },
                },
            };
        }
        if WINDOWED.contains(&c) {
            return self.windowed(e, callee, args, first);
        }
        let args = args
            .iter()
            .map(|a| match a {
                Arg::Expr(x) => Arg::Expr(self.expr(x, window)),
                other => other.clone(),
            })
            .collect();
        Expr::new(
            ExprKind::Call {
                callee: callee.clone(),
                args,
            },
            e.span,
        )
    }

    /// A window operator: its window, the argument's reads in it, and the
    /// call without the window argument.
    fn windowed(&mut self, e: &Expr, callee: &Ident, args: &[Arg], first: Option<&Expr>) -> Expr {
        let c = callee.name.as_str();
        let Some(first) = first else {
            return self.misuse(
                e,
                format!("`{c}` reads a value first"),
                "e.g. `median(x, [3, 3])`",
            );
        };
        let list = |k: usize| match args.get(k) {
            Some(Arg::List(v, _)) => Some(v.clone()),
            _ => None,
        };
        let pair = |k: usize| {
            list(k).and_then(|v| match v[..] {
                [w, h]
                    if w >= 1.0
                        && h >= 1.0
                        && w.fract() == 0.0
                        && h.fract() == 0.0
                        && w <= 255.0
                        && h <= 255.0 =>
                {
                    Some(Pair::new(w as u64, h as u64))
                }
                _ => None,
            })
        };
        // (the window, how many leading arguments the call keeps)
        let (window, keep) = match c {
            "separable" => match (list(1), list(2)) {
                (Some(x), Some(y)) => (Some(Pair::new(x.len() as u64, y.len() as u64)), 3),
                _ => (None, 3),
            },
            "stencil" => match (list(1), pair(2)) {
                (Some(_), Some(p)) => (Some(p), 2),
                (Some(w), None) if args.len() == 2 => {
                    let k = (w.len() as f64).sqrt() as u64;
                    (
                        (k * k == w.len() as u64 && k % 2 == 1).then_some(Pair::new(k, k)),
                        2,
                    )
                }
                _ => (None, 2),
            },
            "gauss" => (pair(2).filter(|_| args.len() == 3), 2),
            _ => (pair(1).filter(|_| args.len() == 2), 1),
        };
        let Some(window) = window else {
            let form = match c {
                "separable" => "separable(x, [1, 2, 1], [1, 2, 1])",
                "stencil" => "stencil(x, [9 weights]) or stencil(x, [w…], [w, h])",
                "gauss" => "gauss(x, 1.0, [5, 5])",
                "box" => "box(x, [5, 5])",
                _ => "median(x, [3, 3])",
            };
            return self.misuse(
                e,
                format!("`{c}` in a chain needs its window"),
                &format!("write `{form}`: the window is the last argument (a stencil's may come from a square count of weights)"),
            );
        };
        let inner = self.expr(first, Some(window));
        let mut out = vec![Arg::Expr(inner)];
        out.extend(args.iter().skip(1).take(keep - 1).cloned());
        Expr::new(
            ExprKind::Call {
                callee: callee.clone(),
                args: out,
            },
            e.span,
        )
    }

    fn misuse(&mut self, e: &Expr, message: String, hint: &str) -> Expr {
        self.errors.push(
            Diagnostic::error(codes::OPERATOR, message)
                .label(e.span, "here")
                .hint(hint.to_string()),
        );
        e.clone()
    }
}

/// A `prev`'s initial value: a number (or its negation).
fn initial(a: &Arg) -> Option<f64> {
    match a {
        Arg::Expr(Expr {
            kind: ExprKind::Number(v),
            ..
        }) => Some(*v),
        Arg::Expr(Expr {
            kind: ExprKind::Neg(x),
            ..
        }) => match x.kind {
            ExprKind::Number(v) => Some(-v),
            _ => None,
        },
        _ => None,
    }
}

fn port(k: usize, offset: Option<(i64, i64)>, span: Span) -> Expr {
    Expr::new(
        ExprKind::Port {
            port: Ident::spanned(placeholder(k), span),
            offset,
        },
        span,
    )
}

fn call(at: &Ident, name: &str, args: Vec<Arg>, span: Span) -> Expr {
    Expr::new(
        ExprKind::Call {
            callee: Ident::spanned(name, at.span),
            args,
        },
        span,
    )
}

/// `e` with every port `p` read as `name(p)`, its offset kept.
pub(super) fn map_ports(e: &Expr, name: &dyn Fn(&str) -> String) -> Expr {
    e.map_ports(&|port, offset, span| {
        Expr::new(
            ExprKind::Port {
                port: Ident::spanned(name(&port.name), port.span),
                offset,
            },
            span,
        )
    })
}
