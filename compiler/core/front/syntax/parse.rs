//! The parser's entry: text → [`Description`], through pest's parse tree.
//!
//! Takes the text of a description; gives its IR, built section by section
//! by the builders of this folder (one file a section, as in
//! `front/check`), or the diagnostics of what is wrong. Guarantees: never
//! panics, on any input (an expression nested too deep is refused before
//! pest's recursive descent sees it); the IR holds exactly what the text
//! says.

use super::errors::recover;
use super::grammar::{Rule, SscParser};
use super::walk::{kids, Node};
use crate::diagnostics::Diagnostic;
use crate::ir::{Description, Span, MAX_EXPR_DEPTH};
use pest::Parser as _;

/// Parses a description. Returns the IR, or the diagnostics of every syntax
/// error (one per section: after an error the parser recovers at the next
/// section) or, when the syntax is right, of every number out of range.
pub fn parse(text: &str) -> Result<Description, Vec<Diagnostic>> {
    // Record the literal tokens tried at the furthest position (`;`, `}`),
    // so messages can say "expected `;`".
    pest::set_error_detail(true);
    if let Some(d) = nesting_error(text) {
        return Err(vec![d]);
    }
    let mut file = match SscParser::parse(Rule::file, text) {
        Ok(pairs) => pairs,
        Err(e) => return Err(recover(text, e)),
    };
    let mut b = Builder {
        errors: Vec::new(),
        nodes: 0,
        limited: false,
    };
    let root = file.next().expect("the file rule matched");
    let desc = b.file(root);
    if b.errors.is_empty() {
        Ok(desc)
    } else {
        Err(b.errors)
    }
}

/// What the builders share: the diagnostics found so far and the count of
/// the expression being built.
pub(super) struct Builder {
    pub(super) errors: Vec<Diagnostic>,
    /// The nodes of the expression being built (one assignment's).
    pub(super) nodes: usize,
    /// Whether that expression already passed a limit (reported once).
    pub(super) limited: bool,
}

impl Builder {
    fn file(&mut self, root: Node) -> Description {
        let mut d = Description::default();
        for n in kids(root) {
            match n.as_rule() {
                Rule::chain => d.chain = Some(self.chain_section(n)),
                Rule::composition => d.composition = Some(self.composition(n)),
                Rule::declaration => d.declaration = Some(self.declaration(n)),
                Rule::instantiation => d.instantiation = Some(self.instantiation(n)),
                Rule::runtime => d.runtime = Some(self.runtime(n)),
                _ => {}
            }
        }
        d
    }
}

/// E057 at the first `(` nested deeper than [`MAX_EXPR_DEPTH`], found
/// without recursion before the parser sees the text (whose descent would
/// otherwise go as deep as the text). Comments and quoted file names are
/// skipped; `(` appears nowhere else but in expressions.
fn nesting_error(text: &str) -> Option<Diagnostic> {
    let bytes = text.as_bytes();
    let (mut i, mut depth) = (0, 0usize);
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !bytes[i..].starts_with(b"*/") {
                    i += 1;
                }
                i += 1;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' => {
                depth += 1;
                if depth > MAX_EXPR_DEPTH {
                    return Some(too_deep(Span::new(i, i + 1)));
                }
            }
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// E057: an expression nested deeper than [`MAX_EXPR_DEPTH`].
pub(super) fn too_deep(at: Span) -> Diagnostic {
    Diagnostic::error(
        "E057",
        format!("expression nested deeper than {MAX_EXPR_DEPTH} levels"),
    )
    .label(at, format!("level {} starts here", MAX_EXPR_DEPTH + 1))
    .hint(
        "split the expression: a long sum is a `stencil` or `separable`, \
         parentheses around halves of a chain `a + b + …` halve its depth, \
         and a function before this one can compute a part",
    )
}
