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
