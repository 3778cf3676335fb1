//! The `instantiation` section: sub-boxes and their dependencies.

use super::{Ident, Pair, Span, Spanned};

/// `instantiation { ... }`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Instantiation {
    pub subboxes: Vec<SubBox>,
    pub dependencies: Vec<Dependency>,
    pub span: Span,
}

/// `F.k`: sub-box `k` of function instance `F`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SubBoxRef {
    pub function: Ident,
    pub index: u64,
    pub span: Span,
}

impl SubBoxRef {
    pub fn new(function: &str, index: u64) -> SubBoxRef {
        SubBoxRef {
            function: Ident::new(function),
            index,
            span: Span::NONE,
        }
    }
}

impl std::fmt::Display for SubBoxRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.function.name, self.index)
    }
}

/// A half-open region `[x0, y0]:[x1, y1]` of an iteration space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Region {
    pub x0: u64,
    pub y0: u64,
    pub x1: u64,
    pub y1: u64,
}

impl Region {
    pub fn new(x0: u64, y0: u64, x1: u64, y1: u64) -> Region {
        Region { x0, y0, x1, y1 }
    }
    pub fn from_corners(a: Pair, b: Pair) -> Region {
        Region::new(a.x, a.y, b.x, b.y)
    }
    pub fn whole(res: Pair) -> Region {
        Region::new(0, 0, res.x, res.y)
    }
    pub fn is_empty(&self) -> bool {
        self.x0 >= self.x1 || self.y0 >= self.y1
    }
    /// Points covered (0 when empty).
    pub fn area(&self) -> u128 {
        if self.is_empty() {
            0
        } else {
            (self.x1 - self.x0) as u128 * (self.y1 - self.y0) as u128
        }
    }
    pub fn intersect(&self, o: &Region) -> Region {
        Region::new(
            self.x0.max(o.x0),
            self.y0.max(o.y0),
            self.x1.min(o.x1),
            self.y1.min(o.y1),
        )
    }
    pub fn intersects(&self, o: &Region) -> bool {
        !self.intersect(o).is_empty()
    }
}

impl std::fmt::Display for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}, {}]:[{}, {}]", self.x0, self.y0, self.x1, self.y1)
    }
}

/// One entry of `function_instantiation`: `F.k [x0, y0]:[x1, y1]`.
#[derive(Clone, Debug, PartialEq)]
pub struct SubBox {
    pub id: SubBoxRef,
    pub region: Spanned<Region>,
    pub span: Span,
}

/// `P.i => C.j;`, or `P.i => C.j delay;` when `C.j` reads what `P.i` wrote
/// in the previous iteration (a delayed connection).
#[derive(Clone, Debug, PartialEq)]
pub struct Dependency {
    pub from: SubBoxRef,
    pub to: SubBoxRef,
    pub delay: bool,
    pub span: Span,
}
