//! Applies a chain's `fn`s and parameters to an expression.
//!
//! Takes a value's expression and the [`Scope`]; gives the expression with
//! every call of a `fn` replaced by its body (the arguments in place of
//! its parameters, each argument substituted first) and every parameter
//! by its number. E065 for a call with the wrong number of arguments, a
//! `fn` that calls itself or a list where a value goes; E060 for a name a
//! `fn`'s body does not know (a body sees its parameters, the chain's
//! parameters and the `fn`s). Guarantees: no `fn` call and no parameter
//! name is left; spans stay where the text was written.

use super::codes;
use super::scope::Scope;
use crate::diagnostics::Diagnostic;
use crate::front::check::names::suggest;
use crate::ir::{Arg, Expr, ExprKind, MAX_EXPR_NODES};
use std::collections::BTreeMap;

/// `e` with the `fn`s applied and the parameters as numbers.
pub(super) fn substitute(e: &Expr, scope: &Scope, errors: &mut Vec<Diagnostic>) -> Expr {
    Subst {
        scope,
        stack: Vec::new(),
        nodes: 0,
        said: false,
        at: e.span,
        errors,
    }
    .expr(e, &BTreeMap::new(), false)
}

struct Subst<'s, 'a> {
    scope: &'s Scope<'a>,
    /// The `fn`s being applied, innermost last.
    stack: Vec<String>,
    /// The nodes written so far: `fn`s applied inside one another may
    /// double an expression at each level, so the limit of an expression
    /// (E058) holds for what they write too.
    nodes: usize,
    said: bool,
    /// The value's expression, where E058 points.
    at: crate::ir::Span,
    errors: &'s mut Vec<Diagnostic>,
}

impl Subst<'_, '_> {
    /// `e` with `args` (a `fn`'s parameters) in place; `in_fn`: `e` is a
    /// body, which sees no value of the chain.
    /// Counts `n` nodes written; whether the limit is passed (E058, said
    /// once).
    fn over(&mut self, n: usize) -> bool {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes <= MAX_EXPR_NODES {
            return false;
        }
        if !self.said {
            self.said = true;
            self.errors.push(
                Diagnostic::error(
                    "E058",
                    format!("the fns applied here write more than {MAX_EXPR_NODES} nodes"),
                )
                .label(self.at, "this value")
                .hint("a fn is written out where it is applied: name the repeated parts as values (`v = f(x);`) instead of nesting fns"),
            );
        }
        true
    }

    fn expr(&mut self, e: &Expr, args: &BTreeMap<String, Expr>, in_fn: bool) -> Expr {
        if self.over(1) {
            return Expr::new(ExprKind::Number(0.0), e.span);
        }
        let kind = match &e.kind {
            ExprKind::Number(_) => return e.clone(),
            ExprKind::Port { port, offset } => {
                if let Some(a) = args.get(&port.name) {
                    if self.over(size(a)) {
                        return Expr::new(ExprKind::Number(0.0), e.span);
                    }
                    return match (offset, &a.kind) {
                        (None, _) => a.clone(),
                        (
                            Some(o),
                            ExprKind::Port {
                                port: p,
                                offset: None,
                            },
                        ) => Expr::new(
                            ExprKind::Port {
                                port: p.clone(),
                                offset: Some(*o),
                            },
                            e.span,
                        ),
                        _ => {
                            self.errors.push(
                                Diagnostic::error(
                                    codes::CALL,
                                    format!("`{port}[dx, dy]` of an expression"),
                                )
                                .label(a.span, "this argument is an expression")
                                .label(e.span, "read at an offset here")
                                .hint("an offset reads a value: name the argument first (`v = …;`) and pass `v`"),
                            );
                            e.clone()
                        }
                    };
                }
                if offset.is_none() {
                    if let Some(v) = self.scope.params.get(&port.name) {
                        return Expr::new(ExprKind::Number(*v as f64), e.span);
                    }
                }
                if in_fn {
                    let mut known: Vec<&str> = args.keys().map(String::as_str).collect();
                    known.extend(self.scope.params.keys().map(String::as_str));
                    let hint = match suggest(&port.name, known.iter().copied()) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => {
                            "a fn's body reads its parameters: pass the value as an argument".into()
                        }
                    };
                    self.errors.push(
                        Diagnostic::error(
                            codes::UNKNOWN,
                            format!("`{port}` is not a parameter of the fn"),
                        )
                        .label(port.span, "not known in this body")
                        .hint(hint),
                    );
                }
                return e.clone();
            }
            ExprKind::Neg(a) => ExprKind::Neg(Box::new(self.expr(a, args, in_fn))),
            ExprKind::Binary(op, a, b) => ExprKind::Binary(
                *op,
                Box::new(self.expr(a, args, in_fn)),
                Box::new(self.expr(b, args, in_fn)),
            ),
            ExprKind::Compare(op, a, b) => ExprKind::Compare(
                *op,
                Box::new(self.expr(a, args, in_fn)),
                Box::new(self.expr(b, args, in_fn)),
            ),
            ExprKind::Call {
                callee,
                args: call_args,
            } => {
                let substituted: Vec<Arg> = call_args
                    .iter()
                    .map(|a| match a {
                        Arg::Expr(x) => Arg::Expr(self.expr(x, args, in_fn)),
                        other => other.clone(),
                    })
                    .collect();
                if let Some(f) = self.scope.fns.get(&callee.name).copied() {
                    return self.apply(f, e, &substituted);
                }
                ExprKind::Call {
                    callee: callee.clone(),
                    args: substituted,
                }
            }
        };
        Expr::new(kind, e.span)
    }

    /// A call of `fn` `f` at `call`, its arguments substituted.
    fn apply(&mut self, f: &crate::ir::ChainFn, call: &Expr, args: &[Arg]) -> Expr {
        let fail = |s: &mut Self, d: Diagnostic| {
            s.errors.push(d);
            call.clone()
        };
        if args.len() != f.params.len() {
            let d = Diagnostic::error(
                codes::CALL,
                format!(
                    "`{}` takes {} argument{}, the call gives {}",
                    f.name,
                    f.params.len(),
                    if f.params.len() == 1 { "" } else { "s" },
                    args.len()
                ),
            )
            .label(call.span, format!("{} argument(s) here", args.len()))
            .label(f.name.span, "defined here")
            .hint(format!(
                "call it as `{}({})`",
                f.name,
                f.params
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            return fail(self, d);
        }
        if self.stack.contains(&f.name.name) {
            let d = Diagnostic::error(codes::CALL, format!("fn `{}` calls itself", f.name))
                .label(call.span, "called again here")
                .hint("a fn is applied by writing its body out, so it cannot call itself: write the repetition as values");
            return fail(self, d);
        }
        let mut bound = BTreeMap::new();
        for (p, a) in f.params.iter().zip(args) {
            match a {
                Arg::Expr(x) => {
                    bound.insert(p.name.clone(), x.clone());
                }
                other => {
                    let d = Diagnostic::error(
                        codes::CALL,
                        format!("argument `{p}` of `{}` is a value", f.name),
                    )
                    .label(other.span(), "a list or a file name")
                    .hint("a fn's arguments are expressions; write the weights in its body");
                    return fail(self, d);
                }
            }
        }
        self.stack.push(f.name.name.clone());
        let body = self.expr(&f.body, &bound, true);
        self.stack.pop();
        body
    }
}

/// The nodes of `e`, counted up to just past the limit.
fn size(e: &Expr) -> usize {
    let mut n = 0;
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        n += 1;
        if n > MAX_EXPR_NODES {
            break;
        }
        match &e.kind {
            ExprKind::Number(_) | ExprKind::Port { .. } => {}
            ExprKind::Neg(a) => todo.push(a),
            ExprKind::Binary(_, a, b) | ExprKind::Compare(_, a, b) => {
                todo.push(a);
                todo.push(b);
            }
            ExprKind::Call { args, .. } => todo.extend(args.iter().filter_map(|a| match a {
                Arg::Expr(x) => Some(x),
                _ => None,
            })),
        }
    }
    n
}
