//! The typed IR of a description: one struct per section (docs/language.md).
//!
//! Every stage of the compiler reads and writes this IR: the parser builds it
//! from text, the lowering stages fill in the sections that are missing, and
//! the printer writes it back in normal form. Nodes keep the [`Span`] of the
//! text they came from (or [`Span::NONE`] when the compiler made them) so
//! diagnostics can point at the source; spans never take part in equality, so
//! `parse(print(ir)) == ir` is a meaningful test.
//!
//! Takes nothing: this module is data, with no stage in it. Gives the
//! sections as written ([`Description`]: [`Chain`], [`Composition`],
//! [`Declaration`], [`Instantiation`], [`Runtime`]), a defined function as
//! written ([`Definition`]) and typed ([`kernel`]), the built-in table
//! ([`builtins`]), and the graphs the stages build: the HSDFG ([`hsdfg`],
//! built by `lower::hsdfg`) and the runtime HSDFG ([`runtime_graph`], built
//! by `analysis::runtime_graph`). They live here, not with the stage that
//! builds them, so every stage depends on `ir` for its input, never on the
//! stage before it. Guarantees: a description holds what the text says and
//! what the compiler filled in (a chain's expansion, the lowered sections),
//! nothing else (no defaults are implied); equality is structural; printing
//! and parsing again gives an equal IR.

pub mod builtins;
mod chain;
mod composition;
mod declaration;
mod definition;
pub mod hsdfg;
mod instantiation;
pub mod kernel;
mod runtime;
pub mod runtime_graph;
mod span;

pub use chain::*;
pub use composition::*;
pub use declaration::*;
pub use definition::*;
pub use instantiation::*;
pub use runtime::*;
pub use span::*;

/// A whole description file: a chain, or up to four sections, always in
/// this order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Description {
    /// `chain NAME { … }` as written; [`crate::front::chain::expand`]
    /// replaces it by the composition it stands for.
    pub chain: Option<Chain>,
    pub composition: Option<Composition>,
    pub declaration: Option<Declaration>,
    pub instantiation: Option<Instantiation>,
    pub runtime: Option<Runtime>,
    /// The folder relative file names of the description (a `lut`'s table
    /// file) start from: the description file's. `None`: the current
    /// directory (a description given as text, or on standard input).
    pub dir: Option<std::path::PathBuf>,
}

impl Description {
    /// Where the description binds the C function `function`: its first
    /// `container_bind` of it, else its first `function` declaration using
    /// it, as written in the source (`None` when only the compiler wrote
    /// it). Diagnostics about the C function (E301) point there.
    pub fn binding_of(&self, function: &str) -> Option<Span> {
        let binds = self.composition.iter().flat_map(|c| &c.binds);
        let uses = self.declaration.iter().flat_map(|d| &d.functions);
        binds
            .map(|b| &b.function)
            .chain(uses.map(|f| &f.function))
            .find(|f| f.name == function && !f.span.is_none())
            .map(|f| f.span)
    }
}

/// The element type of a port (docs/language.md, "Lexical rules").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElemType {
    Char,
    Uchar,
    Short,
    Ushort,
    Int,
    Uint,
    Float,
    Double,
}

impl ElemType {
    pub const ALL: [ElemType; 8] = [
        ElemType::Char,
        ElemType::Uchar,
        ElemType::Short,
        ElemType::Ushort,
        ElemType::Int,
        ElemType::Uint,
        ElemType::Float,
        ElemType::Double,
    ];

    /// `float` or `double`.
    pub fn is_float(self) -> bool {
        matches!(self, ElemType::Float | ElemType::Double)
    }

    /// The keyword of the description language.
    pub fn keyword(self) -> &'static str {
        match self {
            ElemType::Char => "char",
            ElemType::Uchar => "uchar",
            ElemType::Short => "short",
            ElemType::Ushort => "ushort",
            ElemType::Int => "int",
            ElemType::Uint => "uint",
            ElemType::Float => "float",
            ElemType::Double => "double",
        }
    }

    pub fn from_keyword(s: &str) -> Option<ElemType> {
        ElemType::ALL.into_iter().find(|t| t.keyword() == s)
    }

    /// Bytes of one element (the C type on LP64 Linux).
    pub fn size(self) -> u64 {
        match self {
            ElemType::Char | ElemType::Uchar => 1,
            ElemType::Short | ElemType::Ushort => 2,
            ElemType::Int | ElemType::Uint | ElemType::Float => 4,
            ElemType::Double => 8,
        }
    }
}

/// `IN` or `OUT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    In,
    Out,
}

impl Direction {
    pub fn keyword(self) -> &'static str {
        match self {
            Direction::In => "IN",
            Direction::Out => "OUT",
        }
    }
}

/// `NONE` (must run whole) or `FULL` (may be split into sub-boxes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Parallelism {
    None,
    Full,
}

impl Parallelism {
    pub fn keyword(self) -> &'static str {
        match self {
            Parallelism::None => "NONE",
            Parallelism::Full => "FULL",
        }
    }
}

/// A pair of whole numbers `[x, y]`: a resolution, a `mul` or a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Pair {
    pub x: u64,
    pub y: u64,
}

impl Pair {
    pub const ONE: Pair = Pair { x: 1, y: 1 };
    pub fn new(x: u64, y: u64) -> Pair {
        Pair { x, y }
    }
}

impl std::fmt::Display for Pair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}, {}]", self.x, self.y)
    }
}

/// A port of a container or a function:
/// `PNAME (IN|OUT) TYPE mul [mx, my] [wx, wy]?`.
#[derive(Clone, Debug, PartialEq)]
pub struct Port {
    pub name: Ident,
    pub direction: Direction,
    pub ty: ElemType,
    pub mul: Spanned<Pair>,
    /// Only input ports may have a window.
    pub window: Option<Spanned<Pair>>,
    pub span: Span,
}

impl Port {
    /// The grid of this port for a box of resolution `res`:
    /// `[w·mx, h·my]` elements, or `None` when it overflows.
    pub fn grid(&self, res: Pair) -> Option<Pair> {
        Some(Pair::new(
            res.x.checked_mul(self.mul.value.x)?,
            res.y.checked_mul(self.mul.value.y)?,
        ))
    }

    /// The window, `[1, 1]` when none is given.
    pub fn window_or_one(&self) -> Pair {
        self.window.map(|w| w.value).unwrap_or(Pair::ONE)
    }
}

/// `OWNER.PORT`: a port of an instance, a function, or `self`.
#[derive(Clone, Debug, PartialEq)]
pub struct PortRef {
    /// `None` for `self`.
    pub owner: Option<Ident>,
    pub port: Ident,
    pub span: Span,
}

impl PortRef {
    pub fn new(owner: &str, port: &str) -> PortRef {
        PortRef {
            owner: Some(Ident::new(owner)),
            port: Ident::new(port),
            span: Span::NONE,
        }
    }

    pub fn owner_name(&self) -> &str {
        self.owner
            .as_ref()
            .map(|o| o.name.as_str())
            .unwrap_or("self")
    }
}

impl std::fmt::Display for PortRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.owner_name(), self.port.name)
    }
}

/// `SRC -> DST;` between two ports, or `SRC -> DST delay V;`.
#[derive(Clone, Debug, PartialEq)]
pub struct Connection {
    pub from: PortRef,
    pub to: PortRef,
    /// `delay V`: DST reads SRC's value of the previous iteration, and `V`
    /// (every element) before the first one (docs/language.md, "Delays").
    pub delay: Option<Spanned<f64>>,
    pub span: Span,
}
