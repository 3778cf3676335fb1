//! The `declaration` section: a flat graph of function instances.

use super::{Connection, Definition, Ident, Pair, Parallelism, Port, Span, Spanned};

/// `declaration { ... }`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Declaration {
    pub function_decls: Vec<FunctionDecl>,
    pub definitions: Vec<Definition>,
    pub functions: Vec<Function>,
    pub connections: Vec<Connection>,
    pub span: Span,
}

/// `function_declaration FUNC (NONE|FULL) [ROWS] { PORT* };`
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDecl {
    pub name: Ident,
    pub parallelism: Parallelism,
    /// `ROWS`: the kernel addresses every row through `SSC_ROW`.
    pub rows: bool,
    pub ports: Vec<Port>,
    pub span: Span,
}

/// One entry of `function`: `F FUNC [w, h]`, an instance of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: Ident,
    pub function: Ident,
    pub resolution: Spanned<Pair>,
    pub span: Span,
    /// The checksum's key for this instance (`ssc_call.id`).
    pub id: StableId,
}

/// The id of a function instance that the checksum keys its sinks on: its
/// index in the declaration as composed. Stage fusion (`--inline`) removes
/// instances but keeps the ids of the others, so a fused chain prints the
/// checksum of the chain as written. `None` (a declaration as parsed): the
/// instance's own index. Not written in the language, so two declarations
/// that differ only in ids are equal.
#[derive(Clone, Copy, Debug, Default)]
pub struct StableId(pub Option<u32>);

impl PartialEq for StableId {
    fn eq(&self, _other: &StableId) -> bool {
        true
    }
}

impl Declaration {
    pub fn function_decl(&self, name: &str) -> Option<&FunctionDecl> {
        self.function_decls.iter().find(|d| d.name.name == name)
    }
    pub fn definition(&self, name: &str) -> Option<&Definition> {
        self.definitions.iter().find(|d| d.name.name == name)
    }
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name.name == name)
    }
}
