//! Diagnostics: a code, a message, labelled spans, a hint (rustc/ruff style).
//!
//! Every stage reports problems in the input as [`Diagnostic`]s; the CLI
//! renders them with miette's graphical report (no colour, fixed width, so
//! golden files are stable) under a `file:line:col` header.

use crate::ir::Span;
use std::fmt::Write as _;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// One labelled span of a diagnostic.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// A problem found in the input.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// A stable code, `E001`…, listed in `docs/diagnostics.md`.
    pub code: &'static str,
    pub message: String,
    /// The first label is the primary one: its position heads the report.
    pub labels: Vec<Label>,
    pub hint: Option<String>,
}

impl Diagnostic {
    pub fn error(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            labels: Vec::new(),
            hint: None,
        }
    }

    pub fn warning(code: &'static str, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, message)
        }
    }

    /// Adds a label; spans of compiler-made nodes ([`Span::NONE`]) are skipped.
    pub fn label(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        if !span.is_none() {
            self.labels.push(Label {
                span,
                message: message.into(),
            });
        }
        self
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The primary position, if the diagnostic points into the source.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels.first().map(|l| l.span)
    }
}

/// A source file: its name (as given on the command line) and text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        SourceFile {
            name: name.into(),
            text: text.into(),
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len()));
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        let col = self.text[line_start..offset].chars().count() + 1;
        (line, col)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// miette's view of one diagnostic.
#[derive(Debug)]
struct MietteView<'a> {
    diag: &'a Diagnostic,
    source: &'a miette::NamedSource<String>,
}

impl std::fmt::Display for MietteView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.diag.message)
    }
}

impl std::error::Error for MietteView<'_> {}

impl miette::Diagnostic for MietteView<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        Some(Box::new(self.diag.code))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diag.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }
    fn help<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        self.diag
            .hint
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        if self.diag.labels.is_empty() {
            None
        } else {
            Some(self.source)
        }
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let len = self.source.inner().len();
        let labels = self.diag.labels.iter().enumerate().map(move |(i, l)| {
            let start = floor_char_boundary(self.source.inner(), l.span.start.min(len));
            let end = floor_char_boundary(self.source.inner(), l.span.end.min(len)).max(start);
            let label = Some(l.message.clone()).filter(|m| !m.is_empty());
            if i == 0 {
                miette::LabeledSpan::new_primary_with_span(label, (start, end - start))
            } else {
                miette::LabeledSpan::new_with_span(label, (start, end - start))
            }
        });
        Some(Box::new(labels))
    }
}

/// At most this many diagnostics are shown in full; the rest are counted.
pub const MAX_SHOWN: usize = 50;
/// Source lines longer than this are shown as an excerpt, not by miette.
const MAX_LINE: usize = 240;

/// Renders diagnostics as text: for each, a `severity[CODE]: message` line,
/// a `--> file:line:col` line, then miette's report with the source lines.
pub fn render(diags: &[Diagnostic], file: &SourceFile) -> String {
    // ASCII control characters (binary input) would reach the terminal
    // as they are: show them as spaces (same byte length, same offsets).
    let shown: String = file
        .text
        .chars()
        .map(|c| {
            if c.is_ascii_control() && !matches!(c, '\n' | '\t' | '\r') {
                ' '
            } else {
                c
            }
        })
        .collect();
    let source = miette::NamedSource::new(file.name.clone(), shown);
    let handler =
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(100)
            .with_context_lines(1);
    let mut out = String::new();
    for diag in diags.iter().take(MAX_SHOWN) {
        let kind = match diag.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let _ = writeln!(out, "{kind}[{}]: {}", diag.code, diag.message);
        if let Some(span) = diag.primary_span() {
            let (line, col) = file.line_col(span.start);
            let _ = writeln!(out, "  --> {}:{line}:{col}", file.name);
        } else {
            let _ = writeln!(out, "  --> {}", file.name);
        }
        if let Some(excerpt) = long_line_excerpt(diag, file) {
            out.push_str(&excerpt);
            out.push('\n');
            continue;
        }
        let view = MietteView {
            diag,
            source: &source,
        };
        let mut report = String::new();
        if handler.render_report(&mut report, &view).is_ok() {
            // miette's first lines repeat the code and the message, which the
            // header above already gives: keep the source snippet and help.
            let lines: Vec<&str> = report.lines().collect();
            let skip = lines
                .iter()
                .position(|l| {
                    let t = l.trim_start();
                    t.starts_with('×') || t.starts_with('⚠') || t.starts_with('☞')
                })
                .map(|i| i + 1)
                .unwrap_or(0);
            // A long message wraps onto `  │ …` lines: they belong to it too.
            let skip = skip
                + lines[skip..]
                    .iter()
                    .take_while(|l| l.starts_with("  │ ") || **l == "  │")
                    .count();
            for line in lines.into_iter().skip(skip) {
                let _ = writeln!(out, "{}", line.trim_end());
            }
        }
        out.push('\n');
    }
    if diags.len() > MAX_SHOWN {
        let _ = writeln!(out, "... and {} more not shown\n", diags.len() - MAX_SHOWN);
    }
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    if errors > 0 || warnings > 0 {
        let _ = writeln!(
            out,
            "{}: {} error{}, {} warning{}",
            file.name,
            errors,
            if errors == 1 { "" } else { "s" },
            warnings,
            if warnings == 1 { "" } else { "s" }
        );
    }
    out
}

/// For a label on a very long source line (minified or binary input), a short
/// excerpt around the column instead of the whole line.
fn long_line_excerpt(diag: &Diagnostic, file: &SourceFile) -> Option<String> {
    let too_long = diag.labels.iter().any(|l| {
        let start = floor_char_boundary(&file.text, l.span.start.min(file.text.len()));
        let line_start = file.text[..start].rfind('\n').map(|i| i + 1).unwrap_or(0);
        let line_end = file.text[start..]
            .find('\n')
            .map(|i| start + i)
            .unwrap_or(file.text.len());
        line_end - line_start > MAX_LINE
    });
    if !too_long {
        return None;
    }
    let mut out = String::new();
    for label in &diag.labels {
        let start = floor_char_boundary(&file.text, label.span.start.min(file.text.len()));
        let from = floor_char_boundary(&file.text, start.saturating_sub(40));
        let to = floor_char_boundary(&file.text, (start + 40).min(file.text.len()));
        let shown: String = file.text[from..to]
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let caret = file.text[from..start].chars().count();
        let (line, col) = file.line_col(start);
        let _ = writeln!(
            out,
            "   | (line {line} is too long to show; near column {col})"
        );
        let _ = writeln!(out, "   | {shown}");
        let _ = writeln!(out, "   | {}^ {}", " ".repeat(caret), label.message);
    }
    if let Some(hint) = &diag.hint {
        let _ = writeln!(out, "  help: {hint}");
    }
    Some(out)
}
