//! The operators that read a port's window or block: `stencil`,
//! `separable`, `gauss`, `box`, `median`, `mean`, `linear`.
//!
//! Takes the call (its port argument first) and the port's geometry; gives
//! the node, computing in the port's floating type (`float` for an integer
//! port), or E048 when the port has not the window or block the operator
//! reads, E044 when weights do not match the window.
//!
//! The argument may also be an expression of ports
//! (`median(max(float(raw) - offset, 0) * gain)`): it becomes a [`Local`]
//! of the kernel, whose window is its ports' (E048 when they differ, when
//! one has a block, or when it reads at an offset or through a window
//! operator itself).

use super::range::{bounds, Range};
use super::typer::{Typer, Val};
use super::{KernelError, KernelPort, Local, Node, Op, Ty};
use crate::ir::{Arg, BinOp, ElemType, Expr, Pair, Span};
use std::collections::BTreeSet;

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

/// Σ w · values of the port in type `tc`, left to right: the range of a
/// weighted sum, every product and partial sum rounded as `tc` rounds it
/// (zero weights are left out of the sum).
fn weighted(pr: Range, ws: &[f64], tc: ElemType) -> Range {
    let ws: Vec<f64> = ws.iter().copied().filter(|w| *w != 0.0).collect();
    let Some((w0, rest)) = ws.split_first() else {
        return Range::point(0.0);
    };
    // The weight as the type holds it (the C literal is rounded to it).
    let term = |w: f64| (pr * Range::point(w).rounded(tc)).rounded(tc);
    rest.iter()
        .fold(term(*w0), |acc, w| (acc + term(*w)).rounded(tc))
}

/// `sum / n` in type `tc`.
fn mean_of(sum: Node, n: f64, tc: ElemType) -> Val {
    let d = Node {
        ty: Ty::Elem(tc),
        range: Range::point(n),
        op: Op::Const(n),
    };
    let r = sum.range.div(Range::point(n), false).rounded(tc);
    node(Op::Binary(BinOp::Div, Box::new(sum), Box::new(d)), tc, r)
}

impl Typer<'_> {
    /// stencil, separable, gauss, box, median, mean, linear.
    pub(super) fn window_op(&mut self, name: &str, args: &[Arg], span: Span) -> Val {
        let Some(port) = self.port_arg(name, args) else {
            return Val::Bad;
        };
        let (p, pr) = match port.checked_sub(self.inputs.len()) {
            Some(l) => (self.locals[l].port.clone(), self.locals[l].value.range),
            None => (
                self.inputs[port].clone(),
                Range::of_type(self.inputs[port].ty),
            ),
        };
        let tc = match self.window_type {
            Some(t) => t,
            None if bounds(p.ty).is_none() => p.ty,
            None => ElemType::Float,
        };
        let t = Target { port, pr, tc, p };
        // A window of [1, 1] (a port declared without one has it) is the
        // element alone: its median, box and gauss are the element, in the
        // operator's computing type.
        let ok = match name {
            "mean" => t.p.mul != Pair::ONE && t.p.window == Pair::ONE,
            "linear" => true,
            _ => t.p.mul == Pair::ONE,
        };
        if !ok {
            return self.wrong_geometry(name, &t.p, port >= self.inputs.len(), span);
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
                    range: weighted(t.pr, &ones, t.tc),
                    op: Op::Stencil {
                        port: t.port,
                        weights: ones,
                    },
                };
                mean_of(sum, n, t.tc)
            }
            "median" => self.median(&t, span),
            "mean" => {
                let n = (t.p.mul.x * t.p.mul.y) as f64;
                let sum = Node {
                    ty: Ty::Elem(t.tc),
                    range: weighted(t.pr, &vec![1.0; n as usize], t.tc),
                    op: Op::BlockSum { port: t.port },
                };
                mean_of(sum, n, t.tc)
            }
            _ => self.linear(&t, span),
        }
    }

    /// The argument of window operator `name` that is an expression of
    /// ports: a [`Local`] (one per distinct value), its source index.
    pub(super) fn local_arg(&mut self, name: &str, e: &Expr) -> Option<usize> {
        let n = match self.value(e) {
            Val::Bad => return None,
            Val::Node(n) if n.ty == Ty::Bool => {
                self.bool_as_value(e.span);
                return None;
            }
            Val::Node(n) => n,
            Val::Const(_) => {
                return self.not_local(
                    format!("{name} of a number: nothing varies over its window"),
                    e.span,
                    "a number",
                    format!("write {name}(PORT, …), or an expression that reads ports"),
                )
            }
        };
        let (mut ports, mut inner) = (BTreeSet::new(), false);
        n.walk(&mut |m| match &m.op {
            Op::Read { port, dx, dy } => {
                inner |= (*dx, *dy) != (0, 0);
                ports.insert(*port);
            }
            Op::Stencil { .. }
            | Op::Separable { .. }
            | Op::Median { .. }
            | Op::BlockSum { .. }
            | Op::Linear { .. } => inner = true,
            _ => {}
        });
        if inner {
            return self.not_local(
                format!("inside {name}(…) ports are read at the window's element"),
                e.span,
                "an offset or a window inside a window",
                "drop the offset, or compute the inner value in a function before this one",
            );
        }
        let geometry: BTreeSet<(Pair, Pair)> = ports
            .iter()
            .map(|&i| (self.inputs[i].mul, self.inputs[i].window))
            .collect();
        let window = match geometry.into_iter().collect::<Vec<_>>()[..] {
            [(mul, window)] if mul == Pair::ONE => window,
            [] => {
                return self.not_local(
                    format!("{name} of a constant: nothing varies over its window"),
                    e.span,
                    "reads no port",
                    format!("write {name}(PORT, …), or an expression that reads ports"),
                )
            }
            _ => {
                let names: Vec<String> = ports
                    .iter()
                    .map(|&i| {
                        let p = &self.inputs[i];
                        format!("`{}` (mul {}, window {})", p.name, p.mul, p.window)
                    })
                    .collect();
                return self.not_local(
                    format!(
                        "{name} reads {} at one element: they need mul [1, 1] and one window",
                        names.join(", ")
                    ),
                    e.span,
                    "ports of different geometry",
                    "declare every port the expression reads with mul [1, 1] and the same window",
                );
            }
        };
        if window.x * window.y > MAX_LOCAL_WINDOW {
            return self.not_local_code(
                "E059",
                format!(
                    "{name} of an expression over a window of {window}: a window of an expression holds at most {MAX_LOCAL_WINDOW} elements (7 × 7)"
                ),
                e.span,
                "too large a window for an expression",
                "compute the expression in a function before this one, whose output the operator reads as a port",
            );
        }
        let mut nodes = 0u64;
        n.walk(&mut |_| nodes += 1);
        let limit = crate::ir::MAX_EXPR_NODES as u64;
        if nodes * window.x * window.y > limit {
            return self.not_local_code(
                "E058",
                format!(
                    "{name} computes this expression of {nodes} nodes at each of its window's {} elements: more than {limit} nodes in all",
                    window.x * window.y
                ),
                e.span,
                "too large an expression for its window",
                "compute the expression in a function before this one, whose output the operator reads as a port",
            );
        }
        if let Some(l) = self.locals.iter().position(|l| l.value == n) {
            return Some(self.inputs.len() + l);
        }
        let taken = |c: &str| {
            self.inputs.iter().chain(&self.outputs).any(|p| p.name == c)
                || self.locals.iter().any(|l| l.port.name == c)
        };
        let name = (0..)
            .map(|k| format!("v{k}"))
            .find(|c| !taken(c))
            .expect("a free name");
        self.locals.push(Local {
            port: KernelPort {
                name,
                ty: n.elem(),
                mul: Pair::ONE,
                window,
            },
            value: n,
        });
        Some(self.inputs.len() + self.locals.len() - 1)
    }

    fn not_local(
        &mut self,
        message: String,
        span: Span,
        label: &str,
        hint: impl Into<String>,
    ) -> Option<usize> {
        self.not_local_code("E048", message, span, label, hint)
    }

    fn not_local_code(
        &mut self,
        code: &'static str,
        message: String,
        span: Span,
        label: &str,
        hint: impl Into<String>,
    ) -> Option<usize> {
        self.err(KernelError::new(code, message, span, label).hint(hint));
        None
    }

    fn wrong_geometry(&mut self, name: &str, p: &KernelPort, local: bool, span: Span) -> Val {
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
        let (has, hint) = if local {
            (
                "the expression's ports have".to_string(),
                format!("declare the ports it reads with `mul {want}`"),
            )
        } else {
            (
                format!("`{}` has", p.name),
                format!(
                    "declare the port as `{} IN {} mul {want}`",
                    p.name,
                    p.ty.keyword()
                ),
            )
        };
        self.err(
            KernelError::new(
                "E048",
                format!(
                    "{name} needs {what}; {has} mul {} and window {}",
                    p.mul, p.window
                ),
                span,
                "wrong geometry",
            )
            .hint(hint),
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

    /// E042 when a weight is past what the computing type `tc` holds (a
    /// float weight of 1e39 would be written as infinity).
    fn weights_fit(&mut self, t: &Target, args: &[Arg], i: usize, ws: &[f64]) -> bool {
        let big = ws
            .iter()
            .find(|w| t.tc == ElemType::Float && w.abs() > f32::MAX as f64);
        if let Some(w) = big {
            self.err(
                KernelError::new(
                    "E042",
                    format!("the weight {w:e} is not a float: too large for float"),
                    args[i].span(),
                    "used as float",
                )
                .hint("scale the weights into float's range, or compute in double (a double port)"),
            );
            return false;
        }
        true
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
        if !self.weights_fit(t, args, 1, &ws) {
            return Val::Bad;
        }
        let r = weighted(t.pr, &ws, t.tc);
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
        if !self.weights_fit(t, args, 1, &wx) || !self.weights_fit(t, args, 2, &wy) {
            return Val::Bad;
        }
        let r = weighted(weighted(t.pr, &wx, t.tc), &wy, t.tc);
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
        let (wx, wy) = (g(t.p.window.x, bx), g(t.p.window.y, by));
        if wx.iter().chain(&wy).any(|w| !w.is_finite()) {
            return self.err(
                KernelError::new(
                    "E043",
                    format!("σ = {sigma:e} is too small: its weights are not finite numbers"),
                    args[1].span(),
                    "too small",
                )
                .hint("σ in elements, e.g. 0.5; below about 0.2 gauss is the element itself"),
            );
        }
        let r = weighted(weighted(t.pr, &wx, t.tc), &wy, t.tc);
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
            let (what, hint) = if t.port >= self.inputs.len() {
                (
                    "the expression's ports".to_string(),
                    "declare the ports it reads with `mul [1, 1] [3, 3]` and the outputs with mul [2, 2]".to_string(),
                )
            } else {
                (
                    format!("`{}`", t.p.name),
                    format!(
                        "declare `{} IN {} mul [1, 1] [3, 3]` and the outputs with mul [2, 2]",
                        t.p.name,
                        t.p.ty.keyword()
                    ),
                )
            };
            return self.err(
                KernelError::new(
                    "E048",
                    format!("linear needs outputs of mul [2, 2] and {what} of mul [1, 1] with a window of at least [3, 3]"),
                    span,
                    "wrong geometry",
                )
                .hint(hint),
            );
        }
        // 3/4 · a + 1/4 · b, in x and then in y.
        let blend = |r: Range| weighted(r, &[0.75, 0.25], t.tc);
        node(Op::Linear { port: t.port }, t.tc, blend(blend(t.pr)))
    }

    /// E059 for an input whose window or block is wider or taller than
    /// [`MAX_WINDOW`]: refused before any operator sizes its weights or
    /// reads by it.
    pub(super) fn check_geometry(&mut self, ports: &[crate::ir::Port]) {
        for p in ports {
            for (what, g, s) in [
                (
                    "window",
                    p.window_or_one(),
                    p.window.map_or(p.span, |w| w.span),
                ),
                ("block (mul)", p.mul.value, p.mul.span),
            ] {
                if g.x > MAX_WINDOW || g.y > MAX_WINDOW {
                    self.err(
                        KernelError::new(
                            "E059",
                            format!(
                                "`{}` has a {what} of {g}; a defined function reads at most {MAX_WINDOW} × {MAX_WINDOW}",
                                p.name.name
                            ),
                            s,
                            "too large",
                        )
                        .hint(format!(
                            "at most [{MAX_WINDOW}, {MAX_WINDOW}]; a wider blur is several passes (4 passes of gauss σ are one of 2σ), a larger block several 2:1 steps"
                        )),
                    );
                }
            }
        }
    }
}

/// The widest and tallest window or block a defined function reads
/// (docs/language.md, "Limits").
pub const MAX_WINDOW: u64 = 63;

/// The most elements of the window of an expression (a local): the loop
/// around it computes the expression at each of them, written out.
pub const MAX_LOCAL_WINDOW: u64 = 49;
