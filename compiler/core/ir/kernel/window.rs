//! The operators that read a port's window or block: `stencil`,
//! `separable`, `gauss`, `box`, `median`, `mean`, `linear`.
//!
//! Takes the call (its port argument first) and the port's geometry; gives
//! the node, computing in the port's floating type (`float` for an integer
//! port), or E048 when the port has not the window or block the operator
//! reads, E044 when weights do not match the window.

use super::range::{bounds, Range};
use super::typer::{Typer, Val};
use super::{KernelError, KernelPort, Node, Op, Ty};
use crate::ir::{Arg, BinOp, ElemType, Pair, Span};

/// What a window operator has to work with.
struct Target {
    port: usize,
    p: KernelPort,
    /// The type it computes in.
    tc: ElemType,
    /// The port's values.
    pr: Range,
}

fn node(op: Op, ty: ElemType, range: Range) -> Val {
    Val::Node(Node {
        ty: Ty::Elem(ty),
        range,
        op,
    })
}

/// Σ w · values of the port: the range of a weighted sum.
fn weighted(pr: Range, ws: &[f64]) -> Range {
    ws.iter()
        .fold(Range::point(0.0), |acc, w| acc + pr * Range::point(*w))
}

/// `sum / n` in type `tc`.
fn mean_of(sum: Node, n: f64, tc: ElemType, pr: Range) -> Val {
    let d = Node {
        ty: Ty::Elem(tc),
        range: Range::point(n),
        op: Op::Const(n),
    };
    node(Op::Binary(BinOp::Div, Box::new(sum), Box::new(d)), tc, pr)
}

impl Typer<'_> {
    /// stencil, separable, gauss, box, median, mean, linear.
    pub(super) fn window_op(&mut self, name: &str, args: &[Arg], span: Span) -> Val {
        let Some(port) = self.port_arg(name, args) else {
            return Val::Bad;
        };
        let p = self.inputs[port].clone();
        let tc = if bounds(p.ty).is_none() {
            p.ty
        } else {
            ElemType::Float
        };
        let t = Target {
            port,
            pr: Range::of_type(p.ty),
            tc,
            p,
        };
        let windowed = t.p.mul == Pair::ONE && t.p.window != Pair::ONE;
        let ok = match name {
            "stencil" | "separable" => t.p.mul == Pair::ONE,
            "mean" => t.p.mul != Pair::ONE && t.p.window == Pair::ONE,
            "linear" => true,
            _ => windowed,
        };
        if !ok {
            return self.wrong_geometry(name, &t.p, span);
        }
        match name {
            "stencil" => self.stencil(&t, args),
            "separable" => self.separable(&t, args),
            "gauss" => self.gauss(&t, args),
            "box" => {
                let n = (t.p.window.x * t.p.window.y) as f64;
                let ones = vec![1.0; n as usize];
                let sum = Node {
                    ty: Ty::Elem(t.tc),
                    range: weighted(t.pr, &ones),
                    op: Op::Stencil {
                        port: t.port,
                        weights: ones,
                    },
                };
                mean_of(sum, n, t.tc, t.pr)
            }
            "median" => self.median(&t, span),
            "mean" => {
                let n = (t.p.mul.x * t.p.mul.y) as f64;
                let sum = Node {
                    ty: Ty::Elem(t.tc),
                    range: t.pr * Range::point(n),
                    op: Op::BlockSum { port: t.port },
                };
                mean_of(sum, n, t.tc, t.pr)
            }
            _ => self.linear(&t, span),
        }
    }

    fn wrong_geometry(&mut self, name: &str, p: &KernelPort, span: Span) -> Val {
        let what = if name == "mean" {
            "a block (mul above [1, 1])"
        } else {
            "a window"
        };
        let want = if name == "mean" {
            "[2, 2]"
        } else {
            "[1, 1] [3, 3]"
        };
        self.err(
            KernelError::new(
                "E048",
                format!(
                    "{name} needs {what}; `{}` has mul {} and window {}",
                    p.name, p.mul, p.window
                ),
                span,
                "wrong geometry",
            )
            .hint(format!(
                "declare the port as `{} IN {} mul {want}`",
                p.name,
                p.ty.keyword()
            )),
        )
    }

    /// A list of weights of `len` numbers (E044 otherwise).
    fn weights(&mut self, args: &[Arg], i: usize, len: u64, what: &str) -> Option<Vec<f64>> {
        match &args[i] {
            Arg::List(v, _) if v.len() as u64 == len => Some(v.clone()),
            Arg::List(v, s) => {
                self.err(
                    KernelError::new(
                        "E044",
                        format!("{} weights for a window of {len} {what}", v.len()),
                        *s,
                        "does not match the window",
                    )
                    .hint(format!("give {len} weights, or change the port's window")),
                );
                None
            }
            a => {
                self.err(
                    KernelError::new(
                        "E049",
                        "the weights are a list of numbers",
                        a.span(),
                        "not a list",
                    )
                    .hint("[1, 2, 1]"),
                );
                None
            }
        }
    }

    fn stencil(&mut self, t: &Target, args: &[Arg]) -> Val {
        let w = t.p.window;
        let Some(ws) = self.weights(
            args,
            1,
            w.x * w.y,
            &format!("elements ({} × {}, row by row)", w.x, w.y),
        ) else {
            return Val::Bad;
        };
        let r = weighted(t.pr, &ws);
        node(
            Op::Stencil {
                port: t.port,
                weights: ws,
            },
            t.tc,
            r,
        )
    }

    fn separable(&mut self, t: &Target, args: &[Arg]) -> Val {
        let wx = self.weights(args, 1, t.p.window.x, "columns (x)");
        let wy = self.weights(args, 2, t.p.window.y, "rows (y)");
        let (Some(wx), Some(wy)) = (wx, wy) else {
            return Val::Bad;
        };
        let r = weighted(weighted(t.pr, &wx), &wy);
        node(
            Op::Separable {
                port: t.port,
                wx,
                wy,
            },
            t.tc,
            r,
        )
    }

    /// Weights exp(−d² / 2σ²) over the window, each direction summing to 1.
    fn gauss(&mut self, t: &Target, args: &[Arg]) -> Val {
        let Some(sigma) = self.constant_arg(args, 1, "σ") else {
            return Val::Bad;
        };
        if sigma <= 0.0 {
            return self.err(
                KernelError::new("E043", "σ must be above 0", args[1].span(), "not a width")
                    .hint("gauss(in, 1.0): σ in elements"),
            );
        }
        let ((bx, _), (by, _)) = t.p.margins();
        let g = |n: u64, before: i64| {
            let v: Vec<f64> = (0..n as i64)
                .map(|i| (-(((i - before) * (i - before)) as f64) / (2.0 * sigma * sigma)).exp())
                .collect();
            let s: f64 = v.iter().sum();
            v.into_iter().map(|x| x / s).collect::<Vec<f64>>()
        };
        node(
            Op::Separable {
                port: t.port,
                wx: g(t.p.window.x, bx),
                wy: g(t.p.window.y, by),
            },
            t.tc,
            t.pr,
        )
    }

    fn median(&mut self, t: &Target, span: Span) -> Val {
        let w = t.p.window;
        if (w.x * w.y).is_multiple_of(2) || w.x * w.y > 49 {
            return self.err(
                KernelError::new(
                    "E048",
                    format!("median needs an odd window of at most 7 × 7, not {w}"),
                    span,
                    "no middle element",
                )
                .hint("declare the port with window [3, 3] (or [5, 5])"),
            );
        }
        node(Op::Median { port: t.port }, t.p.ty, t.pr)
    }

    /// Outputs of mul [2, 2] from a port of mul [1, 1] whose window covers
    /// its neighbours.
    fn linear(&mut self, t: &Target, span: Span) -> Val {
        let ((bx, ax), (by, ay)) = t.p.margins();
        let ok = self.out_mul == Pair::new(2, 2)
            && t.p.mul == Pair::ONE
            && bx.min(ax).min(by).min(ay) >= 1;
        if !ok {
            return self.err(
                KernelError::new(
                    "E048",
                    format!("linear needs outputs of mul [2, 2] and `{}` of mul [1, 1] with a window of at least [3, 3]", t.p.name),
                    span,
                    "wrong geometry",
                )
                .hint(format!("declare `{} IN {} mul [1, 1] [3, 3]` and the outputs with mul [2, 2]", t.p.name, t.p.ty.keyword())),
            );
        }
        node(Op::Linear { port: t.port }, t.tc, t.pr)
    }
}
