//! Source positions that never take part in equality.

/// A byte range `[start, end)` of the source text.
///
/// Two spans always compare equal: the IR's equality is structural, so a
/// description printed and parsed again equals the one it came from.
#[derive(Clone, Copy, Debug, Default, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl PartialEq for Span {
    fn eq(&self, _other: &Span) -> bool {
        true
    }
}

// Hashing and ordering agree with equality: a span adds nothing.
impl std::hash::Hash for Span {
    fn hash<H: std::hash::Hasher>(&self, _state: &mut H) {}
}

impl PartialOrd for Span {
    fn partial_cmp(&self, other: &Span) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Span {
    fn cmp(&self, _other: &Span) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

impl Span {
    /// The span of a node the compiler made (no source text).
    pub const NONE: Span = Span { start: 0, end: 0 };

    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }

    pub fn is_none(&self) -> bool {
        self.start == 0 && self.end == 0
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        if self.is_none() {
            return other;
        }
        if other.is_none() {
            return self;
        }
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A value with the span it was written at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(value: T, span: Span) -> Spanned<T> {
        Spanned { value, span }
    }
    pub fn bare(value: T) -> Spanned<T> {
        Spanned {
            value,
            span: Span::NONE,
        }
    }
}

/// A name and where it was written.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

impl Ident {
    pub fn new(name: impl Into<String>) -> Ident {
        Ident {
            name: name.into(),
            span: Span::NONE,
        }
    }
    pub fn spanned(name: impl Into<String>, span: Span) -> Ident {
        Ident {
            name: name.into(),
            span,
        }
    }
    pub fn as_str(&self) -> &str {
        &self.name
    }
}

impl std::fmt::Display for Ident {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}
