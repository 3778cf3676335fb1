//! The names of a chain: its parameters (with `-D` applied), its inputs
//! with their sizes, its `fn`s, its kernels and its values.
//!
//! Takes the chain and the `-D NAME=VALUE` overrides; gives a [`Scope`],
//! or the diagnostics of a name defined twice (E062), a parameter that is
//! not a whole number (E066), an unknown `-D` name (E067) and a size that
//! is not a whole number of at least 1 (E066). Guarantees: every name of
//! the scope is defined once; every size is a whole number ≥ 1.

use super::{codes, Define};
use crate::diagnostics::Diagnostic;
use crate::front::check::names::suggest;
use crate::ir::{
    BinOp, Chain, ChainFn, ChainInput, ChainKernel, ChainStmt, ChainValue, Expr, ExprKind, Pair,
};
use std::collections::BTreeMap;

/// The largest width or height of a frame a chain may give (2³¹ − 1).
const MAX_SIZE: u64 = i32::MAX as u64;

/// What the names of a chain stand for.
pub(super) struct Scope<'a> {
    pub(super) params: BTreeMap<String, u64>,
    pub(super) inputs: Vec<(&'a ChainInput, Pair)>,
    pub(super) fns: BTreeMap<String, &'a ChainFn>,
    pub(super) kernels: BTreeMap<String, &'a ChainKernel>,
    /// The values in the order written, with their statement's index.
    pub(super) values: Vec<&'a ChainValue>,
}

impl<'a> Scope<'a> {
    pub(super) fn new(chain: &'a Chain, defines: &[Define]) -> Result<Scope<'a>, Vec<Diagnostic>> {
        let mut errors = Vec::new();
        let (mut scope, param_spans) = Scope::collect(chain, &mut errors);
        scope.apply_defines(chain, defines, &param_spans, &mut errors);
        if !errors.is_empty() {
            return Err(errors);
        }
        for k in 0..scope.inputs.len() {
            let i = scope.inputs[k].0;
            let w = scope.size(&i.width, &mut errors);
            let h = scope.size(&i.height, &mut errors);
            scope.inputs[k].1 = Pair::new(w.unwrap_or(1), h.unwrap_or(1));
        }
        if errors.is_empty() {
            Ok(scope)
        } else {
            Err(errors)
        }
    }

    /// The names of `chain` in the order written, with each parameter's
    /// span; reports a name defined twice (E062) and a parameter that is not
    /// a whole number (E066).
    fn collect(
        chain: &'a Chain,
        errors: &mut Vec<Diagnostic>,
    ) -> (Scope<'a>, BTreeMap<String, crate::ir::Span>) {
        let mut seen: BTreeMap<&str, crate::ir::Span> = BTreeMap::new();
        let mut define = |name: &'a crate::ir::Ident, errors: &mut Vec<Diagnostic>| {
            if let Some(first) = seen.get(name.name.as_str()) {
                errors.push(
                    Diagnostic::error(
                        codes::TWICE,
                        format!("`{name}` is defined twice in chain `{}`", chain.name),
                    )
                    .label(name.span, "defined again here")
                    .label(*first, "first defined here")
                    .hint("every parameter, input, fn and value of a chain has a name of its own: rename one"),
                );
                false
            } else {
                seen.insert(&name.name, name.span);
                true
            }
        };
        let mut scope = Scope {
            params: BTreeMap::new(),
            inputs: Vec::new(),
            fns: BTreeMap::new(),
            kernels: BTreeMap::new(),
            values: Vec::new(),
        };
        let mut param_spans = BTreeMap::new();
        for stmt in &chain.statements {
            match stmt {
                ChainStmt::Params(ps, _) => {
                    for p in ps {
                        if !define(&p.name, errors) {
                            continue;
                        }
                        match whole(p.value) {
                            Some(v) => {
                                scope.params.insert(p.name.name.clone(), v);
                            }
                            None => errors.push(
                                Diagnostic::error(
                                    codes::NOT_WHOLE,
                                    format!("parameter `{}` is {}, not a whole number", p.name, p.value),
                                )
                                .label(p.value_span, "not a whole number ≥ 0")
                                .hint("a parameter is a size or a count: give it a whole number, e.g. 1024"),
                            ),
                        }
                        param_spans.insert(p.name.name.clone(), p.span);
                    }
                }
                ChainStmt::Inputs(is, _) => {
                    for i in is {
                        if define(&i.name, errors) {
                            scope.inputs.push((i, Pair::ONE));
                        }
                    }
                }
                ChainStmt::Fn(f) => {
                    if define(&f.name, errors) {
                        scope.fns.insert(f.name.name.clone(), f);
                    }
                }
                ChainStmt::Kernel(k) => {
                    if define(&k.name, errors) {
                        scope.kernels.insert(k.name.name.clone(), k);
                    }
                }
                ChainStmt::Value(v) => {
                    if define(&v.name, errors) {
                        scope.values.push(v);
                    }
                }
            }
        }
        (scope, param_spans)
    }

    /// Applies the `-D NAME=VALUE` overrides; reports an unknown name
    /// (E067) and a value that is not a whole number (E066).
    fn apply_defines(
        &mut self,
        chain: &Chain,
        defines: &[Define],
        param_spans: &BTreeMap<String, crate::ir::Span>,
        errors: &mut Vec<Diagnostic>,
    ) {
        for d in defines {
            if !self.params.contains_key(&d.name) && !param_spans.contains_key(&d.name) {
                errors.push(unknown_define(chain, d, param_spans));
                continue;
            }
            match d.value.parse::<u64>() {
                Ok(v) => {
                    self.params.insert(d.name.clone(), v);
                }
                Err(_) => errors.push(
                    Diagnostic::error(
                        codes::NOT_WHOLE,
                        format!("`-D {}={}`: a parameter is a whole number", d.name, d.value),
                    )
                    .label(param_spans[&d.name], "the parameter")
                    .hint(format!("give a whole number, e.g. `-D {}=1024`", d.name)),
                ),
            }
        }
    }

    /// A width or a height: a whole number from 1 to [`MAX_SIZE`].
    fn size(&self, e: &Expr, errors: &mut Vec<Diagnostic>) -> Option<u64> {
        let v = self.integer(e, errors)?;
        if (1..=MAX_SIZE as i128).contains(&v) {
            Some(v as u64)
        } else {
            errors.push(
                Diagnostic::error(codes::NOT_WHOLE, format!("a size of {v} elements"))
                    .label(e.span, format!("this is {v}"))
                    .hint(format!("a width or a height is from 1 to {MAX_SIZE}")),
            );
            None
        }
    }

    /// An integer expression of numbers and parameters (`W / 2`), exact:
    /// a division must leave no remainder.
    fn integer(&self, e: &Expr, errors: &mut Vec<Diagnostic>) -> Option<i128> {
        let bad = |errors: &mut Vec<Diagnostic>, label: String, hint: &str| {
            errors.push(
                Diagnostic::error(codes::NOT_WHOLE, "a size must be a whole number")
                    .label(e.span, label)
                    .hint(hint.to_string()),
            );
            None
        };
        match &e.kind {
            ExprKind::Number(v) => match whole(*v) {
                Some(v) => Some(v as i128),
                None => bad(
                    errors,
                    "not a whole number".into(),
                    "sizes count elements: 1024, W, W / 2",
                ),
            },
            ExprKind::Port { port, offset: None } => match self.params.get(&port.name) {
                Some(v) => Some(*v as i128),
                None => {
                    let hint = match suggest(&port.name, self.params.keys().map(String::as_str)) {
                        Some(s) => format!("did you mean `{s}`? A size reads parameters only"),
                        None => {
                            "a size reads numbers and parameters (`param W = 1024;`) only".into()
                        }
                    };
                    errors.push(
                        Diagnostic::error(codes::UNKNOWN, format!("`{port}` is not a parameter"))
                            .label(port.span, "not a parameter")
                            .hint(hint),
                    );
                    None
                }
            },
            ExprKind::Neg(a) => self.integer(a, errors).map(|v| -v),
            ExprKind::Binary(op, a, b) => {
                let (a, b) = (self.integer(a, errors)?, self.integer(b, errors)?);
                let v = match op {
                    BinOp::Add => a.checked_add(b),
                    BinOp::Sub => a.checked_sub(b),
                    BinOp::Mul => a.checked_mul(b),
                    BinOp::Div if b != 0 && a % b == 0 => Some(a / b),
                    BinOp::Div => {
                        return bad(
                            errors,
                            format!("{a} / {b} is not whole"),
                            "a size divides exactly: make the parameter a multiple",
                        );
                    }
                };
                match v {
                    Some(v) if v.unsigned_abs() <= u64::MAX as u128 => Some(v),
                    _ => bad(errors, "too large".into(), "a size is at most 2³¹ − 1"),
                }
            }
            _ => bad(
                errors,
                "not a size".into(),
                "a size is an integer expression of numbers and parameters: `W`, `W / 2`, `2 * H`",
            ),
        }
    }
}

/// `v` as a whole number ≥ 0, when it is one.
fn whole(v: f64) -> Option<u64> {
    (v >= 0.0 && v.fract() == 0.0 && v <= u64::MAX as f64).then_some(v as u64)
}

/// The E067 diagnostic of `-D d` naming no parameter of `chain`, with the
/// closest parameter name when there is one.
fn unknown_define(
    chain: &Chain,
    d: &Define,
    param_spans: &BTreeMap<String, crate::ir::Span>,
) -> Diagnostic {
    let names: Vec<&str> = param_spans.keys().map(String::as_str).collect();
    let same_letters = names
        .iter()
        .copied()
        .find(|n| n.eq_ignore_ascii_case(&d.name));
    let close = same_letters.or_else(|| suggest(&d.name, names.iter().copied()));
    let hint = match (close, names.is_empty()) {
        (_, true) => format!(
            "chain `{}` has no parameter: add `param {} = …;`",
            chain.name, d.name
        ),
        (Some(s), _) => format!(
            "did you mean `-D {s}={}`? (the parameters: {})",
            d.value,
            names.join(", ")
        ),
        (None, _) => format!("the parameters are {}", names.join(", ")),
    };
    Diagnostic::error(
        codes::UNKNOWN_DEFINE,
        format!(
            "`-D {}`: chain `{}` has no parameter `{}`",
            d.name, chain.name, d.name
        ),
    )
    .label(chain.name.span, "this chain")
    .hint(hint)
}
