//! The built-in functions as kernels: each computing built-in is a
//! definition of the kernel IR, typed like a user's, so the back ends
//! generate, specialise, vectorise and fold it as they do every defined
//! function (docs/language.md, "Built-in functions").
//!
//! Takes a function name and its ports; gives, for a built-in that
//! computes (every one but `func_source` and `func_sink`, which do I/O),
//! the kernel of the arithmetic `runtime-c/README.md`, "Built-ins", states:
//! - floating types compute in their own type, in the order written:
//!   gain `in * 3 / 2`, plus `a + b`, mul `a * b`, avg `(a + b) / 2`, down
//!   `mean(in)` (the 2 × 2 block row by row, over 4), up `in` at each of
//!   the 2 × 2 outputs of its point, conv `separable(in, [1, …], [1, …]) /
//!   (wx · wy)` (each window row's sum, then the rows);
//! - integer types compute exactly in a wider type and saturate back:
//!   `int` for 8- and 16-bit elements (`uint` for a `ushort` product,
//!   65535² being past int), `double` for `int` and `uint` (every sum and
//!   product of two elements, and every window sum of at most 63 × 63, is
//!   exact there or, for a product past 2⁵³, saturates all the same);
//!   integer division truncates toward zero (a window's mean in `double`
//!   truncates to the integer quotient: |sum| < 2⁵³).
//!
//! Guarantees: the kernel computes the bits the runtime's C built-ins
//! computed for every element type, except `func_conv` on `float` and
//! `double`, whose window sums run x first, then y (the order of
//! `separable`), where the C kernel summed columns first.
//!
//! Why definitions: one generator, with its specialisation, vectorisation,
//! folding, `--contract` and `--reciprocal`, serves the built-ins and the
//! user's functions, and the runtime keeps C only for the sources and
//! sinks, which do I/O. The window operators of a built-in compute in its
//! wide type (the typer's `window_type`; a user's compute in float).
//! `func_conv` keeps the x-then-y order because its row sums stay in the
//! level-1 cache; a column-first order would need a second loop structure
//! for one built-in. It reads windows of at most 63 a side, as every
//! generated kernel (E059). Stage fusion fuses the built-ins whose
//! definition is the language's as written ([`builtin_definition`]); the
//! `--kernels` functions (`LowerOptions::own_kernels`) stay out of it.

use super::typer::type_with;
use super::{Kernel, KernelError};
use crate::ir::{Arg, Assignment, BinOp, Definition, Direction, ElemType, Expr, ExprKind, Ident};
use crate::ir::{Port, Span};

/// The kernel of built-in `function` (a built-in's name or a variant of it,
/// `func_conv_5x5`) over `ports`: `None` for a name that is no built-in or
/// one that does I/O; `Some(Err)` when the ports are past what a kernel
/// reads (a window above [`super::MAX_WINDOW`]).
pub fn builtin_kernel(function: &str, ports: &[Port]) -> Option<Result<Kernel, Vec<KernelError>>> {
    let (def, window_type) = definition(function, ports)?;
    Some(type_with(&def, ports, None, window_type))
}

/// The definition of built-in `function` over `ports`, when the language
/// says it as written: every floating built-in and the pointwise integer
/// ones (`ushort_sat(int(in) * 3 / 2)`); not an integer `func_conv` or
/// `func_down`, whose sums compute in a type no window operator of the
/// language computes in. Stage fusion (`lower::inline`) rewrites these
/// like a user's definitions.
pub fn builtin_definition(function: &str, ports: &[Port]) -> Option<Definition> {
    match definition(function, ports)? {
        (def, None) => Some(def),
        (_, Some(_)) => None,
    }
}

/// A built-in's definition and the type its window operators compute in
/// when it is not the language's.
fn definition(function: &str, ports: &[Port]) -> Option<(Definition, Option<ElemType>)> {
    let builtin = crate::ir::builtins::builtin_of(function)?;
    let ins: Vec<&Port> = ports
        .iter()
        .filter(|p| p.direction == Direction::In)
        .collect();
    let outs: Vec<&Port> = ports
        .iter()
        .filter(|p| p.direction == Direction::Out)
        .collect();
    let t = ports.first()?.ty;
    let x = |i: usize| -> Option<Expr> { ins.get(i).map(|p| port(&p.name.name)) };
    // Widening to the exact type, and saturating back (floating types:
    // neither).
    let wide = if t.is_float() {
        t
    } else if matches!(t, ElemType::Int | ElemType::Uint) {
        ElemType::Double
    } else {
        ElemType::Int
    };
    let up = |e: Expr, w: ElemType| {
        if t.is_float() {
            e
        } else {
            call(w.keyword(), vec![e])
        }
    };
    let sat = |e: Expr| {
        if t.is_float() {
            e
        } else {
            call(&format!("{}_sat", t.keyword()), vec![e])
        }
    };
    let mut window_type = None;
    let value = match builtin {
        "func_gain" => sat(bin(
            BinOp::Div,
            bin(BinOp::Mul, up(x(0)?, wide), num(3.0)),
            num(2.0),
        )),
        "func_copy" | "func_dup" | "func_up" => x(0)?,
        "func_plus" => sat(bin(BinOp::Add, up(x(0)?, wide), up(x(1)?, wide))),
        "func_mul" => {
            let w = if t == ElemType::Ushort {
                ElemType::Uint
            } else {
                wide
            };
            sat(bin(BinOp::Mul, up(x(0)?, w), up(x(1)?, w)))
        }
        "func_avg" => sat(bin(
            BinOp::Div,
            bin(BinOp::Add, up(x(0)?, wide), up(x(1)?, wide)),
            num(2.0),
        )),
        "func_conv" | "func_down" => {
            let p = ins.first()?;
            let mean = if builtin == "func_conv" {
                let w = p.window_or_one();
                let ones = |n: u64| Arg::List(vec![1.0; n as usize], Span::default());
                let sum = call("separable", vec![Arg::Expr(x(0)?), ones(w.x), ones(w.y)]);
                bin(BinOp::Div, sum, num((w.x * w.y) as f64))
            } else {
                call("mean", vec![x(0)?])
            };
            if t.is_float() {
                mean
            } else {
                // The mean of integers lies in their type: no saturation.
                window_type = Some(wide);
                call(t.keyword(), vec![mean])
            }
        }
        _ => return None,
    };
    let def = Definition {
        name: ident(function),
        assignments: outs
            .iter()
            .map(|o| Assignment {
                port: ident(&o.name.name),
                value: value.clone(),
                span: Span::default(),
            })
            .collect(),
        span: Span::default(),
    };
    Some((def, window_type))
}

fn ident(name: &str) -> Ident {
    Ident {
        name: name.to_string(),
        span: Span::default(),
    }
}

fn expr(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn port(name: &str) -> Expr {
    expr(ExprKind::Port {
        port: ident(name),
        offset: None,
    })
}

fn num(v: f64) -> Expr {
    expr(ExprKind::Number(v))
}

fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
    expr(ExprKind::Binary(op, Box::new(a), Box::new(b)))
}

/// `name(args…)`: an operator, or a conversion of one expression.
fn call(name: &str, args: Vec<impl Into<Arg>>) -> Expr {
    expr(ExprKind::Call {
        callee: ident(name),
        args: args.into_iter().map(Into::into).collect(),
    })
}

impl From<Expr> for Arg {
    fn from(e: Expr) -> Arg {
        Arg::Expr(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Pair, Spanned};

    fn port(name: &str, direction: Direction, ty: ElemType, mul: u64, window: u64) -> Port {
        Port {
            name: ident(name),
            direction,
            ty,
            mul: Spanned::new(Pair::new(mul, mul), Span::default()),
            window: (window > 1).then(|| Spanned::new(Pair::new(window, window), Span::default())),
            span: Span::default(),
        }
    }

    /// The ports of each computing built-in, in the table's shape.
    fn ports(builtin: &str, t: ElemType) -> Vec<Port> {
        let (i, o) = (Direction::In, Direction::Out);
        match builtin {
            "func_plus" | "func_mul" | "func_avg" => {
                vec![
                    port("a", i, t, 1, 1),
                    port("b", i, t, 1, 1),
                    port("out", o, t, 1, 1),
                ]
            }
            "func_dup" => vec![
                port("in", i, t, 1, 1),
                port("o1", o, t, 1, 1),
                port("o2", o, t, 1, 1),
            ],
            "func_conv_5x5" => vec![port("in", i, t, 1, 5), port("out", o, t, 1, 1)],
            "func_down" => vec![port("in", i, t, 2, 1), port("out", o, t, 1, 1)],
            "func_up" => vec![port("in", i, t, 1, 1), port("out", o, t, 2, 1)],
            _ => vec![port("in", i, t, 1, 1), port("out", o, t, 1, 1)],
        }
    }

    const COMPUTING: [&str; 9] = [
        "func_gain",
        "func_copy",
        "func_dup",
        "func_plus",
        "func_mul",
        "func_avg",
        "func_conv_5x5",
        "func_down",
        "func_up",
    ];

    #[test]
    fn every_computing_builtin_types_for_every_type() {
        for b in COMPUTING {
            for t in ElemType::ALL {
                let k = builtin_kernel(b, &ports(b, t))
                    .unwrap_or_else(|| panic!("{b}: no kernel"))
                    .unwrap_or_else(|e| panic!("{b} {t:?}: {e:?}"));
                assert_eq!(k.name, b);
                assert!(k.values.iter().all(|v| v.elem() == t), "{b} {t:?}");
            }
        }
    }

    #[test]
    fn sources_sinks_and_other_names_have_no_kernel() {
        let t = ElemType::Float;
        for name in ["func_source", "func_sink_16", "my_filter"] {
            assert!(
                builtin_kernel(name, &ports("func_copy", t)).is_none(),
                "{name}"
            );
        }
    }

    #[test]
    fn integer_window_sums_compute_in_a_wide_type_and_are_not_the_languages() {
        for (t, wide) in [
            (ElemType::Ushort, ElemType::Int),
            (ElemType::Int, ElemType::Double),
            (ElemType::Uint, ElemType::Double),
        ] {
            for b in ["func_conv_5x5", "func_down"] {
                let k = builtin_kernel(b, &ports(b, t)).unwrap().unwrap();
                let mut sums = Vec::new();
                k.values[0].walk(&mut |n| {
                    if matches!(
                        n.op,
                        crate::ir::kernel::Op::Separable { .. }
                            | crate::ir::kernel::Op::BlockSum { .. }
                    ) {
                        sums.push(n.elem());
                    }
                });
                assert_eq!(sums, [wide], "{b} {t:?}");
                assert!(builtin_definition(b, &ports(b, t)).is_none(), "{b} {t:?}");
            }
            assert!(builtin_definition("func_gain", &ports("func_gain", t)).is_some());
        }
        // Floating sums are the language's own: fusion may rewrite them.
        let f = ElemType::Float;
        assert!(builtin_definition("func_conv_5x5", &ports("func_conv_5x5", f)).is_some());
    }

    #[test]
    fn a_window_past_the_limit_is_refused() {
        let t = ElemType::Float;
        let wide = vec![
            port("in", Direction::In, t, 1, 70),
            port("out", Direction::Out, t, 1, 1),
        ];
        let errors = builtin_kernel("func_conv_70x70", &wide)
            .unwrap()
            .unwrap_err();
        assert!(errors.iter().any(|e| e.code == "E059"), "{errors:?}");
    }
}
