//! The evaluator against docs/language.md's own examples (the operator
//! table's "e.g." column, `median`'s allowed results), with no compiler
//! involved: what the differential runs compare with is what the docs
//! say.
//!
//! Takes nothing; gives tests that evaluate one-function chains of one
//! input port on hand-made frames. Guarantees each documented example
//! gives the documented value.

use super::ast::*;
use super::eval::{evaluate, Cell, Grid};

fn n(t: &str, ty: Ty) -> Box<Expr> {
    Box::new(match t.strip_prefix('-') {
        Some(p) => Expr::Neg(Box::new(Expr::Num(p.into(), ty))),
        None => Expr::Num(t.into(), ty),
    })
}

fn p() -> Box<Expr> {
    Box::new(Expr::Read(0, 0, 0))
}

/// `expr` of one port of type `ty` (window `win`) on a w × h frame `v`,
/// output `out`: the output's cells.
fn eval(
    ty: Ty,
    win: Option<(u32, u32)>,
    (w, h): (u32, u32),
    v: Vec<Val>,
    out: Ty,
    expr: Expr,
) -> Vec<Cell> {
    let ch = Chain {
        w,
        h,
        sources: vec![Source { ty, big: false }],
        funcs: vec![Func {
            inputs: vec![Port {
                ty,
                mul: (1, 1),
                win,
                src: Src::Source(0),
            }],
            out_ty: out,
            out_mul: (1, 1),
            init: "0".into(),
            expr,
        }],
        seed: 0,
    };
    let n = v.len();
    let frames = vec![vec![Grid {
        w,
        h,
        v,
        loose: vec![false; n],
    }]];
    evaluate(&ch, &frames, 1).remove(0).remove(0)
}

fn one(ty: Ty, x: Val, out: Ty, expr: Expr) -> Val {
    match eval(ty, None, (1, 1), vec![x], out, expr).remove(0) {
        Cell::Exact(v) => v,
        c => panic!("not exact: {c:?}"),
    }
}

#[test]
fn the_operator_table_examples() {
    let i = Ty::Int;
    let f = Ty::Float;
    let sub = Expr::Bin(Bin::Sub, p(), n("512", i));
    let e = Expr::Bin(Bin::Div, Box::new(sub), n("32", i));
    assert!(one(i, Val::I(1536), i, e).same(Val::I(32)));
    assert!(one(i, Val::I(-3), i, Expr::Max(p(), n("0", i))).same(Val::I(0)));
    let e = Expr::Clamp(p(), n("-64", i), n("64", i));
    assert!(one(i, Val::I(100), i, e).same(Val::I(64)));
    let e = Expr::Abs(Box::new(Expr::Bin(Bin::Sub, p(), n("5", i))));
    assert!(one(i, Val::I(3), i, e).same(Val::I(2)));
    assert!(one(f, Val::F(2.5), f, Expr::Round(p())).same(Val::F(3.0)));
    assert!(one(f, Val::F(-2.5), f, Expr::Round(p())).same(Val::F(-2.0)));
    assert!(one(f, Val::F(300.7), Ty::UChar, Expr::Sat(Ty::UChar, p())).same(Val::I(255)));
    assert!(one(f, Val::F(f32::NAN), Ty::UChar, Expr::Sat(Ty::UChar, p())).same(Val::I(0)));
    let e = Expr::WindowLevel(p(), "400".into(), "40".into());
    assert!(one(f, Val::F(40.0), f, e).same(Val::F(0.5)));
    let e = Expr::Lut(p(), ["0", "1", "4", "9"].map(String::from).to_vec());
    assert!(one(Ty::UChar, Val::I(2), i, e).same(Val::I(4)));
    // NaN in `a` gives `b`; clamp of NaN gives `lo`.
    assert!(one(f, Val::F(f32::NAN), f, Expr::Min(p(), n("1", f))).same(Val::F(1.0)));
    let e = Expr::Clamp(p(), n("-2.5", f), n("2.5", f));
    assert!(one(f, Val::F(f32::NAN), f, e).same(Val::F(-2.5)));
    // Numbers fold in the operands' type, in the order written.
    let k = Expr::Bin(
        Bin::Sub,
        Box::new(Expr::Bin(Bin::Add, n("0.1", f), n("0.2", f))),
        n("0.3", f),
    );
    let e = Expr::Bin(Bin::Add, p(), Box::new(k));
    let want = 0.1f32 + 0.2f32 - 0.3f32;
    assert!(one(f, Val::F(0.0), f, e).same(Val::F(want)));
}

#[test]
fn a_median_allows_what_the_docs_allow() {
    let f = Ty::Float;
    let v = |xs: [f32; 3]| xs.map(Val::F).to_vec();
    let med = || Expr::Median(p());
    let cells = eval(f, Some((3, 1)), (3, 1), v([3.0, 1.0, 2.0]), f, med());
    assert!(
        matches!(cells[1], Cell::Exact(Val::F(x)) if x == 2.0),
        "{cells:?}"
    );
    // A NaN in the window: any of its elements.
    let cells = eval(f, Some((3, 1)), (3, 1), v([f32::NAN, 1.0, 2.0]), f, med());
    assert!(cells[1].admits(Val::F(f32::NAN)) && cells[1].admits(Val::F(2.0)));
    assert!(!cells[1].admits(Val::F(7.0)));
    // A zero of either sign where both are in the window.
    let cells = eval(f, Some((3, 1)), (3, 1), v([-0.0, 0.0, 5.0]), f, med());
    assert!(cells[1].admits(Val::F(0.0)) && cells[1].admits(Val::F(-0.0)));
}
