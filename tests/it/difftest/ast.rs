//! The chains the differential tester builds: element types, values,
//! expressions and chains, and their text as a description.
//!
//! Takes nothing; gives the data model shared by the generator
//! (`gen.rs`), the evaluator (`eval.rs`) and the runner (`run.rs`), and
//! [`description`], which prints a bundle of independent chains as one
//! `declaration` section. Guarantees: every expression is printed fully
//! parenthesised, so the text parses to the tree whatever the grammar's
//! precedence; every number is printed as the literal it was generated
//! from, so the evaluator parses exactly what the compiler parses.

use std::fmt::Write;

/// An element type of the language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    Char,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Float,
    Double,
}

pub const TYPES: [Ty; 8] = [
    Ty::Char,
    Ty::UChar,
    Ty::Short,
    Ty::UShort,
    Ty::Int,
    Ty::UInt,
    Ty::Float,
    Ty::Double,
];

impl Ty {
    pub fn name(self) -> &'static str {
        match self {
            Ty::Char => "char",
            Ty::UChar => "uchar",
            Ty::Short => "short",
            Ty::UShort => "ushort",
            Ty::Int => "int",
            Ty::UInt => "uint",
            Ty::Float => "float",
            Ty::Double => "double",
        }
    }
    pub fn is_float(self) -> bool {
        matches!(self, Ty::Float | Ty::Double)
    }
    /// The range of an integer type (the floats' are not used).
    pub fn range(self) -> (i64, i64) {
        match self {
            Ty::Char => (-128, 127),
            Ty::UChar => (0, 255),
            Ty::Short => (-32768, 32767),
            Ty::UShort => (0, 65535),
            Ty::Int => (i32::MIN as i64, i32::MAX as i64),
            Ty::UInt => (0, u32::MAX as i64),
            Ty::Float | Ty::Double => (i64::MIN, i64::MAX),
        }
    }
    pub fn bytes(self) -> usize {
        match self {
            Ty::Char | Ty::UChar => 1,
            Ty::Short | Ty::UShort => 2,
            Ty::Int | Ty::UInt | Ty::Float => 4,
            Ty::Double => 8,
        }
    }
    /// The type a weighted operator computes in for a port of this type.
    pub fn weighted(self) -> Ty {
        if self.is_float() {
            self
        } else {
            Ty::Float
        }
    }
}

/// One element's value: integers exactly, floats in their own width.
#[derive(Clone, Copy, Debug)]
pub enum Val {
    I(i64),
    F(f32),
    D(f64),
}

impl Val {
    /// Equal as the comparison of outputs counts it: integers by value,
    /// floats bit for bit, any NaN equal to any NaN.
    pub fn same(self, other: Val) -> bool {
        match (self, other) {
            (Val::I(a), Val::I(b)) => a == b,
            (Val::F(a), Val::F(b)) => (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits(),
            (Val::D(a), Val::D(b)) => (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
    pub fn show(self) -> String {
        match self {
            Val::I(v) => v.to_string(),
            Val::F(v) => format!("{v:e} (float bits {:#010x})", v.to_bits()),
            Val::D(v) => format!("{v:e} (double bits {:#018x})", v.to_bits()),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bin {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

pub const CMPS: [Cmp; 6] = [Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne];

impl Cmp {
    fn text(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
        }
    }
}

/// An expression of a defined function. Numbers carry the type they
/// meet (`ty`), which the generator knows and the printed text implies.
#[derive(Clone, Debug)]
pub enum Expr {
    /// Input port `port` at offset (dx, dy).
    Read(usize, i32, i32),
    Num(String, Ty),
    Neg(Box<Expr>),
    Bin(Bin, Box<Expr>, Box<Expr>),
    Min(Box<Expr>, Box<Expr>),
    Max(Box<Expr>, Box<Expr>),
    Clamp(Box<Expr>, Box<Expr>, Box<Expr>),
    Abs(Box<Expr>),
    Floor(Box<Expr>),
    Round(Box<Expr>),
    Select(Cmp, Box<[Expr; 4]>),
    Conv(Ty, Box<Expr>),
    Sat(Ty, Box<Expr>),
    WindowLevel(Box<Expr>, String, String),
    Stencil(Box<Expr>, Vec<String>),
    Separable(Box<Expr>, Vec<String>, Vec<String>),
    Gauss(Box<Expr>, String),
    BoxMean(Box<Expr>),
    Median(Box<Expr>),
    /// `mean` of input port `port`, which has a block per point.
    Mean(usize),
    Linear(Box<Expr>),
    /// A table of numbers (all whole: an `int` table).
    Lut(Box<Expr>, Vec<String>),
}

/// Where an input port's elements come from.
#[derive(Clone, Debug)]
pub enum Src {
    Source(usize),
    Func(usize),
    /// Function `usize`'s output of the previous iteration.
    Delayed(usize),
}

#[derive(Clone, Debug)]
pub struct Port {
    pub ty: Ty,
    pub mul: (u32, u32),
    /// None: no window.
    pub win: Option<(u32, u32)>,
    pub src: Src,
}

#[derive(Clone, Debug)]
pub struct Func {
    pub inputs: Vec<Port>,
    pub out_ty: Ty,
    pub out_mul: (u32, u32),
    /// The delay's value before the first iteration, when something
    /// reads this output delayed.
    pub init: String,
    pub expr: Expr,
}

#[derive(Clone, Debug)]
pub struct Source {
    pub ty: Ty,
    /// Twice the chain's resolution in each direction (fed to a `mean`).
    pub big: bool,
}

/// One independent chain: its sources, its functions (each sunk), its
/// frames' seed.
#[derive(Clone, Debug)]
pub struct Chain {
    pub w: u32,
    pub h: u32,
    pub sources: Vec<Source>,
    pub funcs: Vec<Func>,
    pub seed: u64,
}

impl Chain {
    pub fn source_grid(&self, s: usize) -> (u32, u32) {
        let k = if self.sources[s].big { 2 } else { 1 };
        (self.w * k, self.h * k)
    }
    pub fn out_grid(&self, f: usize) -> (u32, u32) {
        let (mx, my) = self.funcs[f].out_mul;
        (self.w * mx, self.h * my)
    }
    /// Whether function `to` reads function `from` within one iteration.
    pub fn depends(&self, to: usize, from: usize) -> bool {
        to == from
            || self.funcs[to].inputs.iter().any(|p| match p.src {
                Src::Func(j) => self.depends(j, from),
                _ => false,
            })
    }
    /// Whether input `p` of function `f` is a delay that needs a copy
    /// (docs/language.md, "Delays"): its reader is its writer or depends
    /// on it, or must run before its writer while the delays printed
    /// before it without a copy (each reader before its writer) order the
    /// writer first. The delays in the order the declaration prints them
    /// (function by function, input by input), as the compiler reads them.
    pub fn needs_copy(&self, f: usize, p: usize) -> bool {
        let mut before: Vec<(usize, usize)> = Vec::new(); // (reader, writer)
        for (g, func) in self.funcs.iter().enumerate() {
            for (q, port) in func.inputs.iter().enumerate() {
                let Src::Delayed(j) = port.src else { continue };
                let copy = self.depends(g, j) || self.reaches(j, g, &before);
                if (g, q) == (f, p) {
                    return copy;
                }
                if !copy {
                    before.push((g, j));
                }
            }
        }
        false
    }

    /// Whether function `to` comes after `from` within an iteration: through
    /// reads of this iteration's outputs, or the orders `before` (a
    /// delayed reader before the writer it reads).
    fn reaches(&self, from: usize, to: usize, before: &[(usize, usize)]) -> bool {
        let mut seen = vec![false; self.funcs.len()];
        let mut stack = vec![from];
        while let Some(a) = stack.pop() {
            if a == to {
                return true;
            }
            if std::mem::replace(&mut seen[a], true) {
                continue;
            }
            for (b, func) in self.funcs.iter().enumerate() {
                if func
                    .inputs
                    .iter()
                    .any(|p| matches!(p.src, Src::Func(k) if k == a))
                {
                    stack.push(b);
                }
            }
            stack.extend(before.iter().filter(|(r, _)| *r == a).map(|(_, w)| *w));
        }
        false
    }
}

/// Names of chain `c`'s instances.
pub fn source_name(c: usize, s: usize) -> String {
    format!("c{c}s{s}")
}
pub fn sink_name(c: usize, f: usize) -> String {
    format!("c{c}k{f}")
}
pub fn port_name(p: usize) -> String {
    format!("p{p}")
}

pub fn print_expr(e: &Expr, out: &mut String) {
    let args = |out: &mut String, name: &str, xs: &[&Expr]| {
        out.push_str(name);
        out.push('(');
        for (i, x) in xs.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            print_expr(x, out);
        }
        out.push(')');
    };
    let list = |v: &[String]| format!("[{}]", v.join(", "));
    match e {
        Expr::Read(p, 0, 0) => out.push_str(&port_name(*p)),
        Expr::Read(p, dx, dy) => {
            let _ = write!(out, "{}[{dx}, {dy}]", port_name(*p));
        }
        Expr::Num(t, _) => out.push_str(t),
        Expr::Neg(a) => {
            out.push_str("(-");
            print_expr(a, out);
            out.push(')');
        }
        Expr::Bin(op, a, b) => {
            out.push('(');
            print_expr(a, out);
            out.push_str(match op {
                Bin::Add => " + ",
                Bin::Sub => " - ",
                Bin::Mul => " * ",
                Bin::Div => " / ",
            });
            print_expr(b, out);
            out.push(')');
        }
        Expr::Min(a, b) => args(out, "min", &[a, b]),
        Expr::Max(a, b) => args(out, "max", &[a, b]),
        Expr::Clamp(x, l, h) => args(out, "clamp", &[x, l, h]),
        Expr::Abs(a) => args(out, "abs", &[a]),
        Expr::Floor(a) => args(out, "floor", &[a]),
        Expr::Round(a) => args(out, "round", &[a]),
        Expr::Select(c, v) => {
            out.push_str("select(");
            print_expr(&v[0], out);
            let _ = write!(out, " {} ", c.text());
            print_expr(&v[1], out);
            out.push_str(", ");
            print_expr(&v[2], out);
            out.push_str(", ");
            print_expr(&v[3], out);
            out.push(')');
        }
        Expr::Conv(t, a) => args(out, t.name(), &[a]),
        Expr::Sat(t, a) => args(out, &format!("{}_sat", t.name()), &[a]),
        Expr::WindowLevel(x, w, l) => {
            out.push_str("window_level(");
            print_expr(x, out);
            let _ = write!(out, ", {w}, {l})");
        }
        Expr::Stencil(p, w) => {
            out.push_str("stencil(");
            print_expr(p, out);
            let _ = write!(out, ", {})", list(w));
        }
        Expr::Separable(p, wx, wy) => {
            out.push_str("separable(");
            print_expr(p, out);
            let _ = write!(out, ", {}, {})", list(wx), list(wy));
        }
        Expr::Gauss(p, s) => {
            out.push_str("gauss(");
            print_expr(p, out);
            let _ = write!(out, ", {s})");
        }
        Expr::BoxMean(p) => args(out, "box", &[p]),
        Expr::Median(p) => args(out, "median", &[p]),
        Expr::Mean(p) => {
            let _ = write!(out, "mean({})", port_name(*p));
        }
        Expr::Linear(p) => args(out, "linear", &[p]),
        Expr::Lut(i, t) => {
            out.push_str("lut(");
            print_expr(i, out);
            let _ = write!(out, ", {})", list(t));
        }
    }
}

fn port_decl(name: &str, dir: &str, ty: Ty, mul: (u32, u32), win: Option<(u32, u32)>) -> String {
    let w = win.map_or(String::new(), |(x, y)| format!(" [{x}, {y}]"));
    format!("{name} {dir} {} mul [{}, {}]{w};", ty.name(), mul.0, mul.1)
}

/// The bundle's chains as one declaration: sources bound to variants of
/// `func_source` (one per type), a sink (`func_sink` variant) on every
/// function's output, and a `func_copy` variant where a delay needs one.
pub fn description(chains: &[Chain]) -> String {
    let mut decl = String::new();
    let mut body = String::new();
    let mut instances = Vec::new();
    let mut used = Vec::new();
    let mut copies = Vec::new();
    for (c, ch) in chains.iter().enumerate() {
        for (s, src) in ch.sources.iter().enumerate() {
            let (w, h) = ch.source_grid(s);
            used.push(src.ty);
            instances.push(format!(
                "{} func_source_{} [{w}, {h}]",
                source_name(c, s),
                src.ty.name()
            ));
        }
        for (f, func) in ch.funcs.iter().enumerate() {
            let fname = format!("c{c}f{f}");
            let mut ports = String::new();
            for (p, port) in func.inputs.iter().enumerate() {
                let _ = write!(
                    ports,
                    " {}",
                    port_decl(&port_name(p), "IN", port.ty, port.mul, port.win)
                );
            }
            let _ = write!(
                ports,
                " {}",
                port_decl("out", "OUT", func.out_ty, func.out_mul, None)
            );
            let _ = writeln!(decl, "  function_declaration {fname} FULL {{{ports} }};");
            let mut e = String::new();
            print_expr(&func.expr, &mut e);
            let _ = writeln!(decl, "  function_definition {fname} {{ out = {e}; }};");
            instances.push(format!("c{c}a{f} {fname} [{}, {}]", ch.w, ch.h));
            let (gw, gh) = ch.out_grid(f);
            used.push(func.out_ty);
            instances.push(format!(
                "{} func_sink_{} [{gw}, {gh}]",
                sink_name(c, f),
                func.out_ty.name()
            ));
            let _ = writeln!(body, "  c{c}a{f}.out -> {}.in;", sink_name(c, f));
            for (p, port) in func.inputs.iter().enumerate() {
                let to = format!("c{c}a{f}.{}", port_name(p));
                match port.src {
                    Src::Source(s) => {
                        let _ = writeln!(body, "  {}.out -> {to};", source_name(c, s));
                    }
                    Src::Func(j) => {
                        let _ = writeln!(body, "  c{c}a{j}.out -> {to};");
                    }
                    Src::Delayed(j) => {
                        let init = &ch.funcs[j].init;
                        if ch.needs_copy(f, p) {
                            let st = format!("c{c}t{f}x{p}");
                            let ty = ch.funcs[j].out_ty;
                            copies.push(ty);
                            instances.push(format!(
                                "{st} func_copy_{} [{}, {}]",
                                ty.name(),
                                ch.w,
                                ch.h
                            ));
                            let _ = writeln!(body, "  c{c}a{j}.out -> {st}.in;");
                            let _ = writeln!(body, "  {st}.out -> {to} delay {init};");
                        } else {
                            let _ = writeln!(body, "  c{c}a{j}.out -> {to} delay {init};");
                        }
                    }
                }
            }
        }
    }
    let mut head = String::from("declaration {\n");
    for t in TYPES {
        let one = (1, 1);
        if chains.iter().any(|c| c.sources.iter().any(|s| s.ty == t)) {
            let _ = writeln!(
                head,
                "  function_declaration func_source_{} FULL {{ {} }};",
                t.name(),
                port_decl("out", "OUT", t, one, None)
            );
        }
        if used.contains(&t) && chains.iter().any(|c| c.funcs.iter().any(|f| f.out_ty == t)) {
            let _ = writeln!(
                head,
                "  function_declaration func_sink_{} FULL {{ {} }};",
                t.name(),
                port_decl("in", "IN", t, one, None)
            );
        }
        if copies.contains(&t) {
            let _ = writeln!(
                head,
                "  function_declaration func_copy_{} FULL {{ {} {} }};",
                t.name(),
                port_decl("in", "IN", t, one, None),
                port_decl("out", "OUT", t, one, None)
            );
        }
    }
    format!(
        "{head}{decl}  function {};\n{body}}}\n",
        instances.join(",\n    ")
    )
}
