//! Diagnostics: a code, a message, labelled spans, a hint (rustc/ruff style).
//!
//! Every stage reports problems in the input as [`Diagnostic`]s; the CLI
//! renders them with miette's graphical report (fixed width; no colour in
//! [`render`], so golden files are stable, ANSI colour from
//! [`render_styled`] on a terminal) under a `file:line:col` header, or as
//! one JSON object per diagnostic ([`to_json`], `--message-format json`).
//!
//! The text form is `error[E0xx]: message`, `--> file:line:col`, then
//! miette's snippet at width 100. At most 50 diagnostics and 8 labels per
//! diagnostic are drawn and the rest counted, because miette lays labels
//! out quadratically; an over-long line is shown as an excerpt of that line
//! only. Non-UTF-8 input is E000.
//!
//! Code ranges (docs/diagnostics.md lists every code): E000–E038 the front
//! end (E060–E072 chains, E040–E059 defined functions), E100–E149
//! lowering, E200–E211 runtime sections (E210/E211: a hand-written runtime
//! that fails the proof, with the counter-example), E299 an internal error
//! (ssc emitted something it cannot prove: exit 3, never a panic),
//! E300–E302 code generation (E301: a function without an implementation,
//! before any file is written or `cc` runs, labelled where it is bound —
//! the library's guard, since the CLI stops earlier, in the checker, with
//! E038; E302: a `--kernels` file defining a built-in's own name, which
//! would be defined twice at link time, where a *variant*'s name wins),
//! and E500–E504 warnings about what `ssc build` decided against its
//! command line or assumed, made by `pipeline::decisions` and returned in
//! `Compiled::warnings` so the CLI prints them like any other (defaults
//! are never "ignored"); E504, a calibration cache ignored, comes from the
//! CLI, which reads the cache.

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
/// At most this many labels of one diagnostic are drawn; the rest are
/// counted (5 000 copies of one connection make one E013 with 5 000 labels).
pub const MAX_LABELS: usize = 8;
/// Source lines longer than this are shown as an excerpt, not by miette.
const MAX_LINE: usize = 240;

/// Renders diagnostics as text without colour: for each, a
/// `severity[CODE]: message` line, a `--> file:line:col` line, then
/// miette's report with the source lines.
pub fn render(diags: &[Diagnostic], file: &SourceFile) -> String {
    render_styled(diags, file, false)
}

/// ANSI escapes for the header lines when `colour` is on.
struct Paint {
    colour: bool,
}

impl Paint {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// [`render`], with ANSI colour (red errors, yellow warnings, miette's
/// coloured snippet) when `colour` is true.
pub fn render_styled(diags: &[Diagnostic], file: &SourceFile, colour: bool) -> String {
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
    let theme = if colour {
        miette::GraphicalTheme {
            characters: miette::ThemeCharacters::unicode(),
            styles: miette::ThemeStyles::ansi(),
        }
    } else {
        miette::GraphicalTheme::unicode_nocolor()
    };
    let handler = miette::GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_context_lines(1);
    let paint = Paint { colour };
    let mut out = String::new();
    for full in diags.iter().take(MAX_SHOWN) {
        // Draw at most MAX_LABELS labels; say how many more there are.
        let capped;
        let diag = if full.labels.len() > MAX_LABELS {
            let mut d = full.clone();
            d.labels.truncate(MAX_LABELS);
            capped = d;
            &capped
        } else {
            full
        };
        let (kind, style) = match diag.severity {
            Severity::Error => ("error", "1;31"),
            Severity::Warning => ("warning", "1;33"),
        };
        let _ = writeln!(
            out,
            "{}{} {}",
            paint.paint(style, &format!("{kind}[{}]", diag.code)),
            paint.paint("1", ":"),
            paint.paint("1", &diag.message)
        );
        let arrow = paint.paint("1;34", "-->");
        if let Some(span) = diag.primary_span() {
            let (line, col) = file.line_col(span.start);
            let _ = writeln!(out, "  {arrow} {}:{line}:{col}", file.name);
        } else {
            let _ = writeln!(out, "  {arrow} {}", file.name);
        }
        let more = full.labels.len() - diag.labels.len();
        if let Some(excerpt) = long_line_excerpt(diag, file) {
            out.push_str(&excerpt);
            if more > 0 {
                let _ = writeln!(out, "  note: {more} more places not shown");
            }
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
            let plain: Vec<String> = lines.iter().map(|l| strip_ansi(l)).collect();
            let skip = plain
                .iter()
                .position(|l| {
                    let t = l.trim_start();
                    t.starts_with('×') || t.starts_with('⚠') || t.starts_with('☞')
                })
                .map(|i| i + 1)
                .unwrap_or(0);
            // A long message wraps onto `  │ …` lines: they belong to it too.
            let skip = skip
                + plain[skip..]
                    .iter()
                    .take_while(|l| l.starts_with("  │ ") || *l == "  │")
                    .count();
            for line in lines.into_iter().skip(skip) {
                let _ = writeln!(out, "{}", line.trim_end());
            }
        }
        if more > 0 {
            let _ = writeln!(out, "  note: {more} more places not shown");
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

/// `text` without ANSI escape sequences (`ESC [ … letter`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// One diagnostic as a JSON object (one line of `--message-format json`):
/// `file`, `severity`, `code`, `message`, the primary position (`line`,
/// `column`, 1-based, `null` without one), every label with its start and
/// end (`line`, `column`, `end_line`, `end_column`, `byte_start`,
/// `byte_end`, `message`, `primary`), `hint`, and `rendered` (the text
/// [`render`] gives for it alone, as cargo's `rendered`).
pub fn to_json(diag: &Diagnostic, file: &SourceFile) -> serde_json::Value {
    let len = file.text.len();
    let labels: Vec<serde_json::Value> = diag
        .labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let (start, end) = (
                l.span.start.min(len),
                l.span.end.min(len).max(l.span.start.min(len)),
            );
            let (line, column) = file.line_col(start);
            let (end_line, end_column) = file.line_col(end);
            serde_json::json!({
                "line": line,
                "column": column,
                "end_line": end_line,
                "end_column": end_column,
                "byte_start": start,
                "byte_end": end,
                "message": l.message,
                "primary": i == 0,
            })
        })
        .collect();
    let (line, column) = match diag.primary_span() {
        Some(s) => {
            let (l, c) = file.line_col(s.start);
            (serde_json::json!(l), serde_json::json!(c))
        }
        None => (serde_json::Value::Null, serde_json::Value::Null),
    };
    let rendered = render(std::slice::from_ref(diag), file);
    // Without the per-file summary line render() ends with.
    let rendered = rendered
        .trim_end()
        .rsplit_once('\n')
        .map(|(body, _)| body.trim_end().to_string() + "\n")
        .unwrap_or_default();
    serde_json::json!({
        "file": file.name,
        "severity": match diag.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        "code": diag.code,
        "message": diag.message,
        "line": line,
        "column": column,
        "labels": labels,
        "hint": diag.hint,
        "rendered": rendered,
    })
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
        // The excerpt stays within the label's line.
        let line_start = file.text[..start].rfind('\n').map(|i| i + 1).unwrap_or(0);
        let line_end = file.text[start..]
            .find('\n')
            .map(|i| start + i)
            .unwrap_or(file.text.len());
        let from = floor_char_boundary(&file.text, start.saturating_sub(40).max(line_start));
        let to = floor_char_boundary(&file.text, (start + 40).min(line_end));
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
