//! Random legal chains over the whole vocabulary, as a proptest
//! `Strategy`.
//!
//! Takes a stream of choices (proptest draws a vector of `u32`s per
//! chain and shrinks it toward zeros and shorter vectors); gives a
//! [`Chain`]. Choice 0 is always the simplest option (a port read, the
//! first type, no window), so a failure shrinks toward a small chain.
//! Here: the chain's shape (sizes, sources of every type, up to four
//! functions, plain, 2:1 up or 2:1 down, their ports, windows and
//! delays); the expressions come from `expr.rs` and `int.rs`. Guarantees
//! the shape is legal by docs/language.md: connected ports of one type and
//! grid, blocks fed by grids twice the function's, one delay value per
//! writer that its type holds, every cycle through a delay. Constructs on
//! [`super::KNOWN_OPEN`] are left out.

use super::ast::*;
use super::expr::Gen;
use super::known_open;
use proptest::prelude::*;

/// The choices one chain is drawn from.
pub struct Choices {
    v: Vec<u32>,
    i: usize,
}

impl Choices {
    pub fn new(v: Vec<u32>) -> Choices {
        Choices { v, i: 0 }
    }
    /// A number below `n`; 0 once the stream is spent.
    pub fn pick(&mut self, n: usize) -> usize {
        let x = self.v.get(self.i).copied().unwrap_or(0);
        self.i += 1;
        x as usize % n.max(1)
    }
    pub fn one<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.pick(xs.len())]
    }
    pub fn chance(&mut self, k: usize) -> bool {
        self.pick(k) == 1
    }
}

/// A bundle of up to `max` chains.
pub fn bundle(max: usize) -> impl Strategy<Value = Vec<Chain>> {
    prop::collection::vec(prop::collection::vec(any::<u32>(), 0..300), 1..=max).prop_map(|vs| {
        vs.into_iter()
            .map(|v| chain(&mut Choices::new(v)))
            .collect()
    })
}

/// A type, the floats as likely as the six integer types together.
pub fn pick_ty(c: &mut Choices) -> Ty {
    const BIASED: [Ty; 12] = [
        Ty::Char,
        Ty::UChar,
        Ty::Short,
        Ty::UShort,
        Ty::Int,
        Ty::UInt,
        Ty::Float,
        Ty::Double,
        Ty::Float,
        Ty::Double,
        Ty::Float,
        Ty::Float,
    ];
    *c.one(&BIASED)
}

const SIZES: [(u32, u32); 8] = [
    (7, 3),
    (33, 17),
    (1, 1),
    (5, 9),
    (2, 2),
    (16, 4),
    (3, 1),
    (1, 6),
];
const WINDOWS: [Option<(u32, u32)>; 8] = [
    None,
    Some((3, 3)),
    Some((1, 1)),
    Some((3, 1)),
    Some((1, 3)),
    Some((5, 5)),
    Some((5, 3)),
    Some((7, 7)),
];

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Plain,
    /// Outputs of `mul [2, 2]`.
    Up,
    /// Its first input has a `mul [2, 2]` block per point.
    Down,
}

pub fn chain(c: &mut Choices) -> Chain {
    let seed = c.pick(1 << 30) as u64;
    let (w, h) = *c.one(&SIZES);
    let mut sources: Vec<Source> = (0..1 + c.pick(3))
        .map(|_| Source {
            ty: pick_ty(c),
            big: c.chance(4),
        })
        .collect();
    let n = 1 + c.pick(4);
    let mut kinds = Vec::new();
    let mut outs = Vec::new();
    let mut inits = Vec::new();
    for _ in 0..n {
        let kind = match c.pick(8) {
            5 => Kind::Up,
            6 | 7 => Kind::Down,
            _ => Kind::Plain,
        };
        let ty = pick_ty(c);
        kinds.push(kind);
        outs.push(ty);
        inits.push(delay_value(c, ty));
    }
    let mut funcs: Vec<Func> = Vec::new();
    for i in 0..n {
        let inputs = inputs_of(c, i, &kinds, &outs, &mut sources);
        let out_mul = if kinds[i] == Kind::Up { (2, 2) } else { (1, 1) };
        let mut g = Gen {
            c,
            ports: &inputs,
            up: kinds[i] == Kind::Up,
            inner: None,
            x_offsets: true,
            sep_expr: true,
            windows_left: None,
        };
        if known_open("separable-of-expression") {
            // Separable or gauss of an expression, or reads at x offsets
            // (window operators included) and outputs of mul [2, 2]: one
            // or the other per function.
            if g.up || g.c.chance(2) {
                g.sep_expr = false;
            } else {
                // No other read at an x offset: no offsets, one window
                // operator.
                g.x_offsets = false;
                g.windows_left = Some(1);
            }
        }
        let (expr, _) = g.expr(outs[i], 3);
        funcs.push(Func {
            inputs,
            out_ty: outs[i],
            out_mul,
            init: inits[i].clone(),
            expr,
        });
    }
    Chain {
        w,
        h,
        sources,
        funcs,
        seed,
    }
}

/// The input ports of function `i` of a chain of `kinds` (outputs of
/// types `outs`): a `Down` function's block per point first, then one to
/// three points of sources, earlier functions or delayed outputs; a
/// source is added where none fits.
fn inputs_of(
    c: &mut Choices,
    i: usize,
    kinds: &[Kind],
    outs: &[Ty],
    sources: &mut Vec<Source>,
) -> Vec<Port> {
    let n = kinds.len();
    let mut inputs = Vec::new();
    if kinds[i] == Kind::Down {
        // A block per point: a big source, an up function's output.
        let mut big: Vec<Src> = (0..sources.len())
            .filter(|&s| sources[s].big)
            .map(Src::Source)
            .collect();
        big.extend((0..i).filter(|&j| kinds[j] == Kind::Up).map(Src::Func));
        if big.is_empty() {
            sources.push(Source {
                ty: pick_ty(c),
                big: true,
            });
            big.push(Src::Source(sources.len() - 1));
        }
        let src = c.one(&big).clone();
        let ty = match src {
            Src::Source(s) => sources[s].ty,
            Src::Func(j) => outs[j],
            Src::Delayed(_) => unreachable!(),
        };
        inputs.push(Port {
            ty,
            mul: (2, 2),
            win: None,
            src,
        });
    }
    let mut small: Vec<Src> = (0..sources.len())
        .filter(|&s| !sources[s].big)
        .map(Src::Source)
        .collect();
    small.extend((0..i).filter(|&j| kinds[j] != Kind::Up).map(Src::Func));
    let delayed: Vec<Src> = (0..n)
        .filter(|&j| kinds[j] != Kind::Up)
        .map(Src::Delayed)
        .collect();
    let want = 1 + c.pick(3);
    while inputs.len() < want {
        let src = if !delayed.is_empty() && (small.is_empty() || c.chance(4)) {
            c.one(&delayed).clone()
        } else if small.is_empty() {
            sources.push(Source {
                ty: pick_ty(c),
                big: false,
            });
            small.push(Src::Source(sources.len() - 1));
            Src::Source(sources.len() - 1)
        } else {
            c.one(&small).clone()
        };
        let ty = match src {
            Src::Source(s) => sources[s].ty,
            Src::Func(j) | Src::Delayed(j) => outs[j],
        };
        inputs.push(Port {
            ty,
            mul: (1, 1),
            win: *c.one(&WINDOWS),
            src,
        });
    }
    inputs
}

fn delay_value(c: &mut Choices, ty: Ty) -> String {
    if ty.is_float() {
        c.one(&["0", "-0.0", "1.5", "-2.5", "100"]).to_string()
    } else {
        let (lo, hi) = ty.range();
        [0, hi, lo, 1].map(|v| v.to_string())[c.pick(4)].clone()
    }
}
