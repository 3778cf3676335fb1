//! The typed loop body of a defined function: what one output element of a
//! `function_definition` computes, with every type, constant and range
//! resolved (docs/language.md, "Defined functions").
//!
//! Takes a [`Definition`](crate::ir::definition::Definition) and the function's ports ([`type_definition`]);
//! gives a [`Kernel`] or every misuse as a [`KernelError`] (code, span,
//! hint) that the checker reports. Guarantees of a kernel: every node has
//! one element type (comparisons are `Bool`, only a `select`'s condition);
//! every integer node's value range fits its type, so integer arithmetic
//! never overflows and a conversion to an integer type never goes out of
//! range unless it saturates; no division by zero of integers; every
//! window read is inside the port's window; a table covers its index's
//! range. The back ends turn a kernel into loops (`back/c/kernels/`); the
//! meaning lives here, not in a C file.
//!
//! Why the meaning lives in the compiler: the imaging vocabulary
//! (arithmetic, min/max/clamp/abs, floor/round, select, conversions with
//! and without saturation, window/level, stencils, separable and Gaussian
//! kernels, box, median, 2:1 mean, linear, look-up tables) is the
//! operators of `function_definition`, not a set of C kernels, so the C is
//! one way to run a kernel, and the cost model (`lower::cost::Work`) and
//! stage fusion read the same definitions. Numbers take the type of what
//! they meet, and an expression of numbers only is computed in that type,
//! in the order written, as the loop would compute it (`number.rs`), so a
//! constant is never more precise than its loop; weighted operators on
//! integer ports compute in float. Integer arithmetic is *proven* in range
//! (`range.rs`), not checked at run time: a conversion or operation that
//! could leave its type is refused (E046/E047) unless `T_sat` says what
//! happens, so the C computes in C's promoted types with casts only where a
//! conversion is written. Floating ranges, which only conversions to
//! integers read, are sound for the values the type holds: a bound float
//! does not hold is widened to the float on its outer side
//! (`Range::rounded`: 2147483647 is 2³¹ as float), a weighted sum's range
//! is rounded step by step as its loop rounds, and integer quotients take
//! the range of their corners' quotients. Floating point is evaluated in
//! the order written (no reassociation), so every schedule and split gives
//! the bits numpy computes for the same expression in float32. A
//! `lut("file")` is read relative to the description (`Description::dir`,
//! set by the CLI from the file's path; `None` for text given to the
//! library, where a relative table is relative to the working directory).
//!
//! Defined functions are built-ins in all but name for `-ts fused` (their
//! ports fold) and for E503 (they have a modelled time).

mod builtin;
mod number;
mod ops;
mod range;
mod typer;
mod window;

pub use builtin::{builtin_definition, builtin_kernel};
pub use range::Range;

/// The element type of a `lut` table: `int` when every entry is a whole
/// number in its range, else `float` (docs/language.md, `lut`).
pub fn table_type(table: &[f64]) -> ElemType {
    let whole = table
        .iter()
        .all(|v| v.fract() == 0.0 && Range::of_type(ElemType::Int).contains(*v));
    if whole {
        ElemType::Int
    } else {
        ElemType::Float
    }
}
pub use typer::{
    expression_type, read_table, type_definition, TableError, MAX_TABLE_BYTES, MAX_TABLE_ENTRIES,
};
pub use window::MAX_WINDOW;

use super::{BinOp, CmpOp, ElemType, Pair, Span};

/// A port of a kernel, from the function's declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelPort {
    pub name: String,
    pub ty: ElemType,
    pub mul: Pair,
    pub window: Pair,
}

impl KernelPort {
    /// Elements of the window before and after the centre: `(before,
    /// after)` in x and in y (`lower::deps::window_margins`).
    pub fn margins(&self) -> ((i64, i64), (i64, i64)) {
        let m = |w: u64| {
            let before = (w as i64 - 1) / 2;
            (before, w as i64 - 1 - before)
        };
        (m(self.window.x), m(self.window.y))
    }
}

/// A typed defined function.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub inputs: Vec<KernelPort>,
    pub outputs: Vec<KernelPort>,
    /// The value of each output element, in the order of `outputs`.
    pub values: Vec<Node>,
    /// The `mul` of every output port (they are equal).
    pub out_mul: Pair,
    /// The computed values window operators read ([`Local`]): source
    /// `inputs.len() + i` is local `i`.
    pub locals: Vec<Local>,
    /// The definition as written, for comments.
    pub text: Vec<String>,
}

/// A value a window operator reads that is computed, not an input port:
/// the argument of `median(max(float(raw) - offset, 0) * gain)`. Its
/// expression reads inputs at the window's element only (no offset, no
/// window operator of its own), and every input it reads has `mul [1, 1]`
/// and one window, which is the local's: the operator reads the local's
/// value at each element of that window, as it would read a port holding
/// it (rows and columns clamped at the border).
#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    /// Its name (not a port's), element type, `mul [1, 1]` and window.
    pub port: KernelPort,
    pub value: Node,
}

impl Local {
    /// The inputs its expression reads (each at its element), in order.
    pub fn reads(&self) -> Vec<usize> {
        let mut ports = std::collections::BTreeSet::new();
        self.value.walk(&mut |n| {
            if let Op::Read { port, .. } = n.op {
                ports.insert(port);
            }
        });
        ports.into_iter().collect()
    }
}

impl Kernel {
    /// Source `i` of a read or a window operator: input `i`, or local `i -
    /// inputs.len()`.
    pub fn source(&self, i: usize) -> &KernelPort {
        match i.checked_sub(self.inputs.len()) {
            Some(l) => &self.locals[l].port,
            None => &self.inputs[i],
        }
    }

    /// The local that source `i` is, if it is one.
    pub fn local(&self, i: usize) -> Option<&Local> {
        i.checked_sub(self.inputs.len()).map(|l| &self.locals[l])
    }

    /// Every expression tree of the kernel: the outputs' values, then the
    /// locals'.
    pub fn trees(&self) -> impl Iterator<Item = &Node> {
        self.values
            .iter()
            .chain(self.locals.iter().map(|l| &l.value))
    }
}

/// What a node computes to: an element type, or a comparison's truth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Elem(ElemType),
    Bool,
}

/// One node of a typed expression: its type, the range of its values
/// (exact bounds for integers, a superset for floats) and what it computes.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub ty: Ty,
    pub range: Range,
    pub op: Op,
}

impl Node {
    /// Calls `f` on every node of the tree, parents first.
    pub fn walk(&self, f: &mut impl FnMut(&Node)) {
        f(self);
        match &self.op {
            Op::Convert { arg: a, .. }
            | Op::Neg(a)
            | Op::Abs(a)
            | Op::Floor(a)
            | Op::Round(a)
            | Op::Lut { arg: a, .. } => a.walk(f),
            Op::Binary(_, a, b) | Op::Compare(_, a, b) | Op::Min(a, b) | Op::Max(a, b) => {
                a.walk(f);
                b.walk(f);
            }
            Op::Select(c, a, b) => {
                c.walk(f);
                a.walk(f);
                b.walk(f);
            }
            _ => {}
        }
    }

    /// The element type (a `Bool` node has none).
    pub fn elem(&self) -> ElemType {
        match self.ty {
            Ty::Elem(t) => t,
            Ty::Bool => ElemType::Int,
        }
    }
}

/// The operations of a kernel. Reads and window operators name a source
/// by its index ([`Kernel::source`]: an input, or a [`Local`] a window
/// operator reads); weighted reads compute in the node's type (the
/// port's floating type, `float` for an integer port).
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// A constant of the node's type.
    Const(f64),
    /// The element of input `port` at offset `(dx, dy)` from the element
    /// that belongs to the output element: the point's own element (a port
    /// with `mul [1, 1]`, clamped at the border), or the output element's
    /// own (a port with the outputs' `mul`).
    Read {
        port: usize,
        dx: i64,
        dy: i64,
    },
    /// `T(x)` (checked in range) or `T_sat(x)` (clamped to T's range, NaN
    /// to 0); floating to integer truncates toward zero.
    Convert {
        saturate: bool,
        arg: Box<Node>,
    },
    Neg(Box<Node>),
    Binary(BinOp, Box<Node>, Box<Node>),
    Compare(CmpOp, Box<Node>, Box<Node>),
    /// `select(c, a, b)`.
    Select(Box<Node>, Box<Node>, Box<Node>),
    /// `a < b ? a : b`, `a > b ? a : b` (NaN in `a` gives `b`).
    Min(Box<Node>, Box<Node>),
    Max(Box<Node>, Box<Node>),
    Abs(Box<Node>),
    Floor(Box<Node>),
    /// ⌊x + 0.5⌋.
    Round(Box<Node>),
    /// Σ weights\[k\] · window element k (row-major over the window; zero
    /// weights left out).
    Stencil {
        port: usize,
        weights: Vec<f64>,
    },
    /// Σ_j wy\[j\] · (Σ_i wx\[i\] · element (i, j)): x first, then y.
    Separable {
        port: usize,
        wx: Vec<f64>,
        wy: Vec<f64>,
    },
    /// The median of the window (an odd number of elements).
    Median {
        port: usize,
    },
    /// Σ of the point's block of a port with `mul` > 1 (row-major).
    BlockSum {
        port: usize,
    },
    /// Bilinear interpolation for an output `mul [2, 2]`: x first, then y,
    /// weights 3/4 and 1/4 of the nearest two elements.
    Linear {
        port: usize,
    },
    /// `table[x]` (x an integer node whose range is inside the table).
    Lut {
        table: Vec<f64>,
        arg: Box<Node>,
    },
    /// `first_frame()`: whether the frame computed is the first (a
    /// condition of `select`; a delay's reader starts from another value
    /// with it).
    FirstFrame,
}

/// A misuse of the vocabulary, for the checker to report.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelError {
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    pub label: String,
    pub hint: Option<String>,
    /// A misspelt name and the names it may stand for: the checker adds
    /// "did you mean" when one is close.
    pub did_you_mean: Option<(String, Vec<String>)>,
}

impl KernelError {
    fn new(
        code: &'static str,
        message: impl Into<String>,
        span: Span,
        label: impl Into<String>,
    ) -> Self {
        KernelError {
            code,
            message: message.into(),
            span,
            label: label.into(),
            hint: None,
            did_you_mean: None,
        }
    }

    fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}
