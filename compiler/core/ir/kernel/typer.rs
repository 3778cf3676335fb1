//! Types a `function_definition` against its function's ports.
//!
//! Takes the definition, the ports (from the `function_declaration`, or
//! from the containers bound to the function) and the folder that table
//! files are relative to; gives the [`Kernel`] or every [`KernelError`].
//!
//! Numbers are untyped until they meet a typed operand or an output: they
//! take its type, and must be representable in it (E042). Operands of one
//! operation have one type (E041); conversions are written (`float(x)`).
//! Integer nodes carry exact ranges: an operation whose result can leave
//! its type (E047), a conversion that can (E046, unless `T_sat`), a
//! division by a possible zero (E052) are refused with a hint.

use super::number::{FoldError, Num};
use super::range::{bounds, Range};
use super::{Kernel, KernelError, KernelPort, Local, Node, Op, Ty};
use crate::ir::{BinOp, Definition, Direction, ElemType, Expr, ExprKind, Pair, Port, Span};
use std::path::Path;

/// An operand while typing: an expression of numbers (untyped until it
/// meets a type), a typed node, or nothing (an error was reported; what
/// uses it reports nothing more).
#[derive(Clone, Debug)]
pub(super) enum Val {
    Const(Num),
    Node(Node),
    Bad,
}

pub(super) struct Typer<'a> {
    pub(super) inputs: Vec<KernelPort>,
    pub(super) outputs: Vec<KernelPort>,
    pub(super) out_mul: Pair,
    pub(super) dir: Option<&'a Path>,
    pub(super) errors: Vec<KernelError>,
    /// The type of the output being typed: operations of numbers only
    /// (`select(c, 1, 0)`) compute in it.
    pub(super) context: ElemType,
    /// The computed arguments of window operators met so far.
    pub(super) locals: Vec<Local>,
    /// The type window operators compute in, when not the language's
    /// (the port's floating type, else float): a built-in's exact integer
    /// sums ([`super::builtin`]).
    pub(super) window_type: Option<ElemType>,
}

/// Types `def` against `ports`; table files are read relative to `dir`
/// (the description's folder; the current one when `None`).
pub fn type_definition(
    def: &Definition,
    ports: &[Port],
    dir: Option<&Path>,
) -> Result<Kernel, Vec<KernelError>> {
    type_with(def, ports, dir, None)
}

/// The type expression `e` computes in, read against `ports` (its inputs
/// and one output, whose type does not matter): `Ok(None)` for an
/// expression of numbers only. A chain's value takes the type of its
/// expression (front/chain).
pub fn expression_type(
    e: &Expr,
    ports: &[Port],
    dir: Option<&Path>,
) -> Result<Option<ElemType>, Vec<KernelError>> {
    let mut t = typer(ports, dir, None);
    t.check_geometry(ports);
    if !t.errors.is_empty() {
        return Err(t.errors);
    }
    let v = t.value(e);
    match v {
        Val::Node(n) if n.ty == Ty::Bool => {
            t.bool_as_value(e.span);
            Err(t.errors)
        }
        _ if !t.errors.is_empty() => Err(t.errors),
        Val::Node(n) => Ok(Some(n.elem())),
        Val::Const(_) => Ok(None),
        Val::Bad => Err(t.errors),
    }
}

/// [`type_definition`] with window operators computing in `window_type`
/// when it is given.
pub(super) fn type_with(
    def: &Definition,
    ports: &[Port],
    dir: Option<&Path>,
    window_type: Option<ElemType>,
) -> Result<Kernel, Vec<KernelError>> {
    let mut t = typer(ports, dir, window_type);
    t.check_geometry(ports);
    if !t.errors.is_empty() {
        return Err(t.errors);
    }
    t.check_outputs(def, ports);
    let mut values: Vec<Option<Node>> = vec![None; t.outputs.len()];
    let mut seen = std::collections::HashSet::new();
    for a in &def.assignments {
        let Some(k) = t.assigned_port(def, a.port.name.as_str(), a.port.span, &mut seen) else {
            continue;
        };
        let port = t.outputs[k].clone();
        t.context = port.ty;
        let v = t.value(&a.value);
        if let Some(n) = t.coerce(v, port.ty, a.value.span, &format!("`{}`", port.name)) {
            values[k] = Some(n);
        }
    }
    for o in &t.outputs {
        if !seen.contains(&o.name) {
            t.errors.push(
                KernelError::new(
                    "E050",
                    format!("`{}` does not define its output `{}`", def.name, o.name),
                    def.name.span,
                    "an output without a value",
                )
                .hint(format!("add `{} = …;` to the definition", o.name)),
            );
        }
    }
    if !t.errors.is_empty() || values.iter().any(Option::is_none) {
        return Err(t.errors);
    }
    Ok(Kernel {
        name: def.name.name.clone(),
        inputs: t.inputs,
        outputs: t.outputs,
        values: values.into_iter().map(|v| v.expect("typed")).collect(),
        out_mul: t.out_mul,
        locals: t.locals,
        text: def
            .assignments
            .iter()
            .map(|a| format!("{} = {}", a.port, a.value))
            .collect(),
    })
}

/// A typer of expressions over `ports`.
fn typer<'a>(ports: &[Port], dir: Option<&'a Path>, window_type: Option<ElemType>) -> Typer<'a> {
    let kport = |p: &Port| KernelPort {
        name: p.name.name.clone(),
        ty: p.ty,
        mul: p.mul.value,
        window: p.window_or_one(),
    };
    let inputs: Vec<KernelPort> = ports
        .iter()
        .filter(|p| p.direction == Direction::In)
        .map(kport)
        .collect();
    let outputs: Vec<KernelPort> = ports
        .iter()
        .filter(|p| p.direction == Direction::Out)
        .map(kport)
        .collect();
    Typer {
        out_mul: outputs.first().map_or(Pair::ONE, |o| o.mul),
        inputs,
        outputs,
        dir,
        errors: Vec::new(),
        context: ElemType::Double,
        locals: Vec::new(),
        window_type,
    }
}

impl Typer<'_> {
    /// Every output has the same `mul` and there is at least one.
    fn check_outputs(&mut self, def: &Definition, ports: &[Port]) {
        if self.outputs.is_empty() {
            self.errors.push(
                KernelError::new(
                    "E050",
                    format!("`{}` has no output port to define", def.name),
                    def.name.span,
                    "no OUT port",
                )
                .hint("a defined function computes its OUT ports; a sink is func_sink"),
            );
        }
        for p in ports.iter().filter(|p| p.direction == Direction::Out) {
            if p.mul.value != self.out_mul {
                self.errors.push(
                    KernelError::new(
                        "E048",
                        format!(
                            "the outputs of `{}` have different `mul`s ({} and {})",
                            def.name, self.out_mul, p.mul.value
                        ),
                        def.name.span,
                        "outputs of one grid",
                    )
                    .hint(
                        "a defined function's OUT ports share one mul: split it into two functions",
                    ),
                );
                break;
            }
        }
    }

    /// The index of the output `name` an assignment defines (E040, E050).
    fn assigned_port(
        &mut self,
        def: &Definition,
        name: &str,
        span: Span,
        seen: &mut std::collections::HashSet<String>,
    ) -> Option<usize> {
        if let Some(k) = self.outputs.iter().position(|o| o.name == name) {
            if !seen.insert(name.to_string()) {
                self.errors.push(
                    KernelError::new(
                        "E050",
                        format!("`{name}` is defined twice"),
                        span,
                        "second value",
                    )
                    .hint("an output has one value: keep one assignment"),
                );
                return None;
            }
            return Some(k);
        }
        if self.inputs.iter().any(|i| i.name == name) {
            self.errors.push(
                KernelError::new(
                    "E050",
                    format!(
                        "`{name}` is an input of `{}`: only outputs are defined",
                        def.name
                    ),
                    span,
                    "an IN port",
                )
                .hint("assign the OUT ports; the inputs are what the expressions read"),
            );
        } else {
            let mut e = KernelError::new(
                "E040",
                format!("`{}` has no port `{name}`", def.name),
                span,
                "no such port",
            );
            e.did_you_mean = Some((
                name.to_string(),
                self.outputs.iter().map(|o| o.name.clone()).collect(),
            ));
            self.errors.push(e);
        }
        None
    }

    pub(super) fn err(&mut self, e: KernelError) -> Val {
        self.errors.push(e);
        Val::Bad
    }

    /// The value of an expression.
    pub(super) fn value(&mut self, e: &Expr) -> Val {
        match &e.kind {
            ExprKind::Number(v) => Val::Const(Num::Lit(*v)),
            ExprKind::Port { port, offset } => self.read(port.name.as_str(), *offset, e.span),
            ExprKind::Neg(x) => match self.value(x) {
                Val::Const(v) => Val::Const(Num::Neg(Box::new(v))),
                Val::Node(n) => self.unary_int(n, e.span, "-", |r| -r, Op::Neg),
                Val::Bad => Val::Bad,
            },
            ExprKind::Binary(op, l, r) => {
                let (a, b) = (self.value(l), self.value(r));
                self.binary(*op, a, b, e.span, r.span)
            }
            ExprKind::Compare(op, l, r) => {
                let (a, b) = (self.value(l), self.value(r));
                match self.unify(vec![(a, l.span), (b, r.span)], e.span) {
                    Some(v) => {
                        let mut it = v.into_iter();
                        let (a, b) = (it.next().unwrap(), it.next().unwrap());
                        Val::Node(Node {
                            ty: Ty::Bool,
                            range: Range::new(0.0, 1.0),
                            op: Op::Compare(*op, Box::new(a), Box::new(b)),
                        })
                    }
                    None => Val::Bad,
                }
            }
            ExprKind::Call { callee, args } => {
                self.call(callee.name.as_str(), callee.span, args, e.span)
            }
        }
    }

    /// `PORT` or `PORT[dx, dy]`.
    fn read(&mut self, name: &str, offset: Option<(i64, i64)>, span: Span) -> Val {
        let Some(k) = self.inputs.iter().position(|p| p.name == name) else {
            let msg = if self.outputs.iter().any(|o| o.name == name) {
                format!("`{name}` is an output: an expression reads input ports")
            } else {
                format!("no input port `{name}`")
            };
            let mut e = KernelError::new("E040", msg, span, "not an input");
            e.did_you_mean = Some((
                name.to_string(),
                self.inputs.iter().map(|i| i.name.clone()).collect(),
            ));
            return self.err(e);
        };
        let p = self.inputs[k].clone();
        let (dx, dy) = offset.unwrap_or((0, 0));
        if p.mul == Pair::ONE {
            let ((bx, ax), (by, ay)) = p.margins();
            if dx < -bx || dx > ax || dy < -by || dy > ay {
                return self.err(
                    KernelError::new(
                        "E048",
                        format!("[{dx}, {dy}] is outside the window {} of `{name}`", p.window),
                        span,
                        "outside the window",
                    )
                    .hint(format!(
                        "offsets of `{name}` go from [{}, {}] to [{ax}, {ay}]; widen its window in the port declaration",
                        -bx, -by
                    )),
                );
            }
        } else if p.mul == self.out_mul {
            if offset.is_some_and(|o| o != (0, 0)) {
                return self.err(
                    KernelError::new(
                        "E048",
                        format!("`{name}` has no window: it is read at the output element"),
                        span,
                        "an offset without a window",
                    )
                    .hint("only ports with `mul [1, 1]` and a window are read at offsets"),
                );
            }
        } else {
            return self.err(
                KernelError::new(
                    "E048",
                    format!("`{name}` holds a {} block per point, the outputs {}: which element is meant?", p.mul, self.out_mul),
                    span,
                    "a block read as one element",
                )
                .hint(format!("take its mean: mean({name}) (a 2:1 down), or give the outputs mul {}", p.mul)),
            );
        }
        Val::Node(Node {
            ty: Ty::Elem(p.ty),
            range: Range::of_type(p.ty),
            op: Op::Read { port: k, dx, dy },
        })
    }

    /// A one-operand operation on a node whose integer result must fit.
    pub(super) fn unary_int(
        &mut self,
        n: Node,
        span: Span,
        what: &str,
        range: impl Fn(Range) -> Range,
        op: impl Fn(Box<Node>) -> Op,
    ) -> Val {
        if n.ty == Ty::Bool {
            return self.bool_as_value(span);
        }
        let r = range(n.range);
        let t = n.elem();
        if !self.fits(t, r, span, what) {
            return Val::Bad;
        }
        Val::Node(Node {
            ty: n.ty,
            range: r,
            op: op(Box::new(n)),
        })
    }

    pub(super) fn bool_as_value(&mut self, span: Span) -> Val {
        self.err(
            KernelError::new("E051", "a comparison is not a value", span, "true or false")
                .hint("a comparison is the condition of select(c, a, b): select(x > 0, x, 0)"),
        )
    }

    /// Whether an integer node's range `r` fits its type `t` (E047 if not).
    pub(super) fn fits(&mut self, t: ElemType, r: Range, span: Span, what: &str) -> bool {
        let Some((lo, hi)) = bounds(t) else {
            return true;
        };
        if r.within(Range::new(lo, hi)) {
            return true;
        }
        let (side, edge) = if r.lo < lo {
            ("below", lo)
        } else {
            ("above", hi)
        };
        let wider = if t == ElemType::Int || t == ElemType::Uint {
            "double"
        } else {
            "int"
        };
        self.errors.push(
            KernelError::new(
                "E047",
                format!("`{what}` on {} can go {side} {edge}, the {} {}", t.keyword(), if side == "below" { "smallest" } else { "largest" }, t.keyword()),
                span,
                format!("values from {} to {}", r.lo, r.hi),
            )
            .hint(format!("compute in a wider type, e.g. {wider}(x) {what} …, and convert the result back with a clamp or {}_sat", t.keyword())),
        );
        false
    }

    /// `a op b`.
    fn binary(&mut self, op: BinOp, a: Val, b: Val, span: Span, rspan: Span) -> Val {
        if let (Val::Const(x), Val::Const(y)) = (&a, &b) {
            if op == BinOp::Div && y.double() == Ok(0.0) {
                return self.div_zero(rspan);
            }
            return Val::Const(Num::Bin(op, Box::new(x.clone()), Box::new(y.clone())));
        }
        if op == BinOp::Div && matches!(&b, Val::Const(y) if y.double() == Ok(0.0)) {
            return self.div_zero(rspan);
        }
        let Some(v) = self.unify(vec![(a, span), (b, rspan)], span) else {
            return Val::Bad;
        };
        let mut it = v.into_iter();
        let (l, r) = (it.next().unwrap(), it.next().unwrap());
        let t = l.elem();
        let integer = bounds(t).is_some();
        // Numbers that compute to 0 in the type (`1 / 2` in int).
        if op == BinOp::Div && matches!(r.op, Op::Const(v) if v == 0.0) {
            return self.div_zero(rspan);
        }
        if op == BinOp::Div && integer && r.range.contains(0.0) {
            return self.err(
                KernelError::new(
                    "E052",
                    format!("the divisor can be 0 ({} to {})", r.range.lo, r.range.hi),
                    rspan,
                    "may be zero",
                )
                .hint("keep it away from 0, e.g. max(d, 1), or divide in float"),
            );
        }
        let range = match op {
            BinOp::Add => l.range + r.range,
            BinOp::Sub => l.range - r.range,
            BinOp::Mul => l.range * r.range,
            BinOp::Div => l.range.div(r.range, integer),
        }
        .rounded(t);
        if !self.fits(t, range, span, op.symbol()) {
            return Val::Bad;
        }
        Val::Node(Node {
            ty: l.ty,
            range,
            op: Op::Binary(op, Box::new(l), Box::new(r)),
        })
    }

    fn div_zero(&mut self, span: Span) -> Val {
        self.err(
            KernelError::new("E043", "division by a constant zero", span, "this is 0")
                .hint("divide by a number other than 0"),
        )
    }

    /// Operands of one operation: their one type (numbers take it).
    /// `None` after an error (reported here, or before: a `Bad` operand).
    pub(super) fn unify(&mut self, vals: Vec<(Val, Span)>, span: Span) -> Option<Vec<Node>> {
        if vals.iter().any(|(v, _)| matches!(v, Val::Bad)) {
            return None;
        }
        for (v, s) in &vals {
            if matches!(v, Val::Node(n) if n.ty == Ty::Bool) {
                self.bool_as_value(*s);
                return None;
            }
        }
        let typed: Vec<(ElemType, Span)> = vals
            .iter()
            .filter_map(|(v, s)| match v {
                Val::Node(n) => Some((n.elem(), *s)),
                _ => None,
            })
            .collect();
        let t = match typed.first() {
            Some((t, _)) => *t,
            None => self.context, // numbers only: the output's type
        };
        if let Some((u, _)) = typed.iter().find(|(u, _)| *u != t) {
            // Convert the narrower operand to the wider one's type: to the
            // floating type if one is, else to the larger.
            let widen =
                |a: ElemType, b: ElemType| (a.is_float(), a.size()) > (b.is_float(), b.size());
            let (to, from) = if widen(*u, t) { (*u, t) } else { (t, *u) };
            self.errors.push(
                KernelError::new(
                    "E041",
                    format!("this mixes {} and {}", t.keyword(), u.keyword()),
                    span,
                    "operands of two types",
                )
                .hint(format!(
                    "convert the {} operand: `{}(…)` around it (a conversion to an integer type may need a clamp or a round)",
                    from.keyword(),
                    to.keyword()
                )),
            );
            return None;
        }
        let mut out = Vec::new();
        for (v, s) in vals {
            match v {
                Val::Node(n) => out.push(n),
                Val::Const(c) => out.push(self.constant(c, t, s)?),
                Val::Bad => return None,
            }
        }
        Some(out)
    }

    /// An expression of numbers as a constant of type `t`, computed in
    /// `t` (E042 when `t` does not hold a number or the result, E047 when
    /// an integer step leaves `t`, E043 for a division by zero).
    pub(super) fn constant(&mut self, c: Num, t: ElemType, span: Span) -> Option<Node> {
        match c.fold(t) {
            Ok(v) => Some(Node {
                ty: Ty::Elem(t),
                range: Range::point(v),
                op: Op::Const(v),
            }),
            Err(e) => {
                self.fold_error(e, t, span);
                None
            }
        }
    }

    /// The diagnostic of an expression of numbers that type `t` cannot
    /// compute.
    pub(super) fn fold_error(&mut self, e: FoldError, t: ElemType, span: Span) {
        let ty = t.keyword();
        let e = match e {
            FoldError::NotHeld(c) => {
                let why = match bounds(t) {
                    Some((lo, hi)) if c.fract() == 0.0 => format!("{ty} holds {lo} to {hi}"),
                    Some(_) => format!("{ty} holds whole numbers"),
                    None => "too large for float".to_string(),
                };
                KernelError::new(
                    "E042",
                    format!("{} is not a {ty}: {why}", crate::ir::number_text(c)),
                    span,
                    format!("used as {ty}"),
                )
                .hint("convert the other operand to a type that holds the number, e.g. float(x)")
            }
            FoldError::NotFinite(v) => KernelError::new(
                "E042",
                format!("these numbers compute to {v} in {ty}"),
                span,
                format!("{v} in {ty}"),
            )
            .hint(format!(
                "numbers compute in the type they meet, in the order written: keep every step inside {ty}'s range, or compute in double"
            )),
            FoldError::Overflow(what, v) => KernelError::new(
                "E047",
                format!("`{what}` of these numbers gives {}, outside {ty}", crate::ir::number_text(v)),
                span,
                format!("{} in {ty}", crate::ir::number_text(v)),
            )
            .hint(format!(
                "numbers compute in the type they meet ({ty} here): write the result, or compute in a wider type"
            )),
            FoldError::DivZero => KernelError::new(
                "E043",
                format!("these numbers divide by zero in {ty}"),
                span,
                "a divisor of 0",
            )
            .hint(format!(
                "numbers compute in the type they meet, in the order written: a divisor here is 0 in {ty}"
            )),
        };
        self.errors.push(e);
    }

    /// A value as type `t` (an output, or a conversion's result): numbers
    /// become constants, nodes must already have the type.
    pub(super) fn coerce(&mut self, v: Val, t: ElemType, span: Span, what: &str) -> Option<Node> {
        match v {
            Val::Bad => None,
            Val::Const(c) => self.constant(c, t, span),
            Val::Node(n) if n.ty == Ty::Bool => {
                self.bool_as_value(span);
                None
            }
            Val::Node(n) if n.elem() != t => {
                self.errors.push(
                    KernelError::new(
                        "E041",
                        format!(
                            "{what} is {}, the expression is {}",
                            t.keyword(),
                            n.elem().keyword()
                        ),
                        span,
                        format!("a {} value", n.elem().keyword()),
                    )
                    .hint(format!(
                        "convert it: {}(…), with a clamp or round where the range needs one",
                        t.keyword()
                    )),
                );
                None
            }
            Val::Node(n) => Some(n),
        }
    }
}

/// Reads a table file: numbers separated by white space or commas, `#`
/// to the end of a line a comment.
/// A regular file of at most [`MAX_TABLE_BYTES`] (a device, a FIFO or a
/// folder is refused before it is opened, so nothing blocks or reads
/// forever).
pub fn read_table(path: &Path) -> Result<Vec<f64>, TableError> {
    let read = |source| TableError::Read {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(read)?;
    if !meta.is_file() {
        return Err(TableError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    if meta.len() > MAX_TABLE_BYTES {
        return Err(TableError::TooLarge {
            path: path.to_path_buf(),
            bytes: meta.len(),
        });
    }
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut std::io::Read::take(
            std::fs::File::open(path).map_err(read)?,
            MAX_TABLE_BYTES + 1,
        ),
        &mut text,
    )
    .map_err(read)?;
    if text.len() as u64 > MAX_TABLE_BYTES {
        return Err(TableError::TooLarge {
            path: path.to_path_buf(),
            bytes: text.len() as u64,
        });
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("");
        for word in line
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
        {
            match word.parse::<f64>() {
                Ok(v) if v.is_finite() => out.push(v),
                _ => {
                    return Err(TableError::NotANumber {
                        path: path.to_path_buf(),
                        line: i + 1,
                        word: word.to_string(),
                    })
                }
            }
        }
    }
    Ok(out)
}

/// The largest table file `lut(x, "file")` reads (docs/language.md,
/// "Limits").
pub const MAX_TABLE_BYTES: u64 = 1 << 20;

/// The most entries a table of `lut` may have (docs/language.md,
/// "Limits"): an index of `ushort` or `short` needs 65536.
pub const MAX_TABLE_ENTRIES: usize = 65_536;

/// Why a table file of `lut(x, "file")` cannot be read ([`read_table`]).
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a regular file", .path.display())]
    NotAFile { path: std::path::PathBuf },
    #[error("{} has {bytes} bytes, more than {MAX_TABLE_BYTES}", .path.display())]
    TooLarge {
        path: std::path::PathBuf,
        bytes: u64,
    },
    #[error("{}:{line}: `{word}` is not a number", .path.display())]
    NotANumber {
        path: std::path::PathBuf,
        line: usize,
        word: String,
    },
}
