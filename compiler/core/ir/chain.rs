//! `chain NAME { … }`: a chain written as its math (docs/language.md,
//! "Chains"), as written.
//!
//! This is the syntax tree the parser builds and the printer writes back
//! (`ssc fmt`); [`crate::front::chain`] expands it into the composition
//! every later stage reads. Statements keep the order of the source: a
//! value may only read what is written above it (or, through `prev`, any
//! value of the chain).

use super::{ElemType, Expr, Ident, Pair, Span, Spanned};

/// `chain NAME { STATEMENT* }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    pub name: Ident,
    pub statements: Vec<ChainStmt>,
    pub span: Span,
}

/// One statement of a chain, in the order written.
#[derive(Clone, Debug, PartialEq)]
pub enum ChainStmt {
    /// `param W = 1024, H = 1024;`
    Params(Vec<Param>, Span),
    /// `input raw: ushort[W, H], gain: float[W, H];`
    Inputs(Vec<ChainInput>, Span),
    /// `fn gauss5(x) = …;`
    Fn(ChainFn),
    /// `kernel sharpen(x: float [3, 3]) -> float ROWS;`
    Kernel(ChainKernel),
    /// `NAME = EXPR;` or `output NAME = EXPR;`
    Value(ChainValue),
}

impl ChainStmt {
    pub fn span(&self) -> Span {
        match self {
            ChainStmt::Params(_, s) | ChainStmt::Inputs(_, s) => *s,
            ChainStmt::Fn(f) => f.span,
            ChainStmt::Kernel(k) => k.span,
            ChainStmt::Value(v) => v.span,
        }
    }
}

/// `NAME = VALUE`: a whole number that `-D NAME=VALUE` overrides. The
/// value is kept as written (`1.5` too), so that the expansion can say
/// that it is not whole.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: Ident,
    pub value: f64,
    pub value_span: Span,
    pub span: Span,
}

/// `NAME: TYPE[WIDTH, HEIGHT]`: a frame the chain reads (a source); the
/// sizes are integer expressions of numbers and parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainInput {
    pub name: Ident,
    pub ty: ElemType,
    pub width: Expr,
    pub height: Expr,
    pub span: Span,
}

/// `fn NAME(P, …) = EXPR;`: a function of values, applied by name
/// (`gauss5(c)`); each application is the expression with the arguments
/// in place of the parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainFn {
    pub name: Ident,
    pub params: Vec<Ident>,
    pub body: Expr,
    pub span: Span,
}

/// `kernel NAME(P: TYPE [w, h]?, …) -> TYPE ROWS?;`: a C function of the
/// user's own, with its input ports (a window each, when given) and its
/// output's type; `ROWS`: it addresses every row through `SSC_ROW`, so its
/// buffers may be folded. Applied like a fn, to values by name.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainKernel {
    pub name: Ident,
    pub params: Vec<KernelParam>,
    pub output: ElemType,
    pub rows: bool,
    pub span: Span,
}

/// `P: TYPE [w, h]?`: an input port of a kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelParam {
    pub name: Ident,
    pub ty: ElemType,
    pub window: Option<Spanned<Pair>>,
}

/// `NAME = EXPR;`: a value of every frame (a box of the composition);
/// `output NAME = EXPR;` also writes it out (a sink named NAME).
#[derive(Clone, Debug, PartialEq)]
pub struct ChainValue {
    pub name: Ident,
    pub output: bool,
    pub value: Expr,
    pub span: Span,
}
