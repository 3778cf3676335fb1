//! The `composition` section: containers, bindings, hierarchical compositions.

use super::{Connection, Definition, Ident, Pair, Parallelism, Port, Span, Spanned};

/// `composition { ... }`. Each list keeps the order of the source; the
/// printer writes declarations, bindings, definitions, compositions, then
/// `compose`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Composition {
    pub containers: Vec<ContainerDecl>,
    pub binds: Vec<Bind>,
    pub definitions: Vec<Definition>,
    pub compositions: Vec<ContainerComposition>,
    pub compose: Option<Compose>,
    pub span: Span,
}

/// `container_declaration NAME { PORT* };`
#[derive(Clone, Debug, PartialEq)]
pub struct ContainerDecl {
    pub name: Ident,
    pub ports: Vec<Port>,
    pub span: Span,
}

/// One entry of `container_bind`: `CNAME FUNC (NONE|FULL) [ROWS]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Bind {
    pub container: Ident,
    pub function: Ident,
    pub parallelism: Parallelism,
    /// `ROWS`: the kernel addresses every row through `SSC_ROW`, so its
    /// buffers may be folded (a kernel of one's own; docs/language.md).
    pub rows: bool,
    pub span: Span,
}

/// `container_composition CNAME { container ...; connections };`
#[derive(Clone, Debug, PartialEq)]
pub struct ContainerComposition {
    pub name: Ident,
    pub instances: Vec<Instance>,
    pub connections: Vec<Connection>,
    pub span: Span,
}

/// How an instance gets its resolution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InstanceResolution {
    /// `index`: the enclosing composition's resolution.
    Index,
    /// `[w, h]`.
    Explicit(Spanned<Pair>),
}

/// One entry of `container`: `INST CTYPE (index | [w, h])`.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    pub name: Ident,
    pub container: Ident,
    pub resolution: InstanceResolution,
    pub span: Span,
}

/// `compose CNAME [w, h];`
#[derive(Clone, Debug, PartialEq)]
pub struct Compose {
    pub container: Ident,
    pub resolution: Spanned<Pair>,
    pub span: Span,
}
