//! Syntax errors: pest's first error, the errors of the sections after it,
//! each worded as a diagnostic with a hint.
//!
//! Takes the text and the error pest raised on it; gives one E001
//! diagnostic a section that holds an error, at most
//! [`MAX_SYNTAX_ERRORS`], in source order. Guarantees: none of them is a
//! consequence of another (the body of a section holding an error is
//! blanked, offsets kept, before the text is parsed again); never panics,
//! on any input.

use super::grammar::{Rule, SscParser};
use super::pest_errors::{error_pos, expected_at, token_at};
use crate::diagnostics::Diagnostic;
use crate::ir::Span;
use pest::Parser as _;

/// At most this many syntax errors are collected from one file.
const MAX_SYNTAX_ERRORS: usize = 8;

/// Error recovery at section level: the body of the section holding the
/// error is blanked (offsets kept) and the file parsed again, so an error in
/// each section is reported, and none is a consequence of another.
pub(super) fn recover(text: &str, first: pest::error::Error<Rule>) -> Vec<Diagnostic> {
    let mut errors = vec![syntax_error(text, first.clone())];
    let mut buf = text.to_string();
    let mut last = error_pos(&first);
    while errors.len() < MAX_SYNTAX_ERRORS {
        let Some((open, close)) = section_body_at(&buf, last) else {
            break;
        };
        blank(&mut buf, open + 1, close);
        match SscParser::parse(Rule::file, &buf) {
            Ok(_) => break,
            Err(e) => {
                let pos = error_pos(&e);
                if pos <= close {
                    break;
                }
                errors.push(syntax_error(&buf, e));
                last = pos;
            }
        }
    }
    errors
}

/// The byte offsets of the `{` and `}` of the top-level section that holds
/// `pos`, skipping comments; `None` when braces do not balance.
fn section_body_at(text: &str, pos: usize) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let (mut i, mut depth, mut open) = (0, 0usize, None);
    while i < bytes.len() {
        if bytes[i..].starts_with(b"//") {
            i += text[i..].find('\n').unwrap_or(text.len() - i);
            continue;
        }
        if bytes[i..].starts_with(b"/*") {
            i += 2 + text[i + 2..].find("*/").map(|j| j + 2)?;
            continue;
        }
        match bytes[i] {
            b'{' => {
                if depth == 0 {
                    open = Some(i);
                }
                depth += 1;
            }
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    let o = open?;
                    if o <= pos && pos <= i {
                        return Some((o, i));
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Replaces `text[from..to]` by spaces, keeping newlines and byte offsets.
fn blank(text: &mut String, from: usize, to: usize) {
    let blanked: String = text[from..to]
        .chars()
        .map(|c| {
            if c == '\n' {
                "\n".to_string()
            } else {
                " ".repeat(c.len_utf8())
            }
        })
        .collect();
    text.replace_range(from..to, &blanked);
}

/// What a grammar rule is called in a message.
fn rule_name(rule: &Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::ident => "a name",
        Rule::uint => "a whole number",
        Rule::number => "a number",
        Rule::direction | Rule::kw_in | Rule::kw_out => "`IN` or `OUT`",
        Rule::parallelism | Rule::kw_none | Rule::kw_full => "`NONE` or `FULL`",
        Rule::kw_rows => "`ROWS`",
        Rule::elem_type => "a type (char, uchar, short, ushort, int, uint, float, double)",
        Rule::pair => "`[x, y]`",
        Rule::port_ref => "a port `NAME.PORT`",
        Rule::subbox_ref => "a sub-box `F.k`",
        Rule::port => "a port",
        Rule::composition => "`composition`",
        Rule::declaration => "`declaration`",
        Rule::instantiation => "`instantiation`",
        Rule::runtime => "`runtime`",
        Rule::container_declaration => "`container_declaration`",
        Rule::container_bind => "`container_bind`",
        Rule::container_composition => "`container_composition`",
        Rule::compose => "`compose`",
        Rule::instances => "`container`",
        Rule::instance => "an instance",
        Rule::index_kw => "`index`",
        Rule::connection => "a connection `A.p -> B.q;`",
        Rule::function_declaration => "`function_declaration`",
        Rule::functions => "`function`",
        Rule::subboxes => "`function_instantiation`",
        Rule::dependency => "a dependency `P.i => C.j;`",
        Rule::timing => "`timing`",
        Rule::timing_system => "`timing_system`",
        Rule::thread_schedule => "`thread_schedule`",
        Rule::memory_mapping => "`memory_mapping`",
        Rule::memory_binding => "`memory_binding`",
        Rule::memory_schedule => "`memory_schedule`",
        Rule::thread_execution => "`thread_execution`",
        Rule::signals => "`signal`",
        Rule::barriers => "`barrier`",
        Rule::arena | Rule::shared_kw | Rule::local_kw => "`shared` or `local`",
        Rule::op | Rule::op_wait | Rule::op_signal | Rule::op_exec | Rule::op_barrier => {
            "an operation (`W s`, `S s`, `E F.k`, `B b`)"
        }
        Rule::signal => "a signal",
        Rule::initial_token => "`!`",
        Rule::self_kw => "`self`",
        Rule::function_definition => "`function_definition`",
        Rule::assignment => "an assignment `PORT = EXPR;`",
        Rule::expr | Rule::sum | Rule::product | Rule::unary | Rule::argument => "an expression",
        Rule::literal | Rule::signed_literal => "a number",
        Rule::call | Rule::callee => "a call `NAME(…)`",
        Rule::access => "a port",
        Rule::offset => "an offset",
        Rule::list => "a list `[a, b, …]`",
        Rule::text => "a quoted file name",
        Rule::cmp_op => "a comparison",
        Rule::add_op | Rule::mul_op => "an operator",
        Rule::neg => "`-`",
        Rule::chain | Rule::chain_kw => "`chain`",
        Rule::chain_params | Rule::param_kw => "`param`",
        Rule::param => "a parameter `NAME = VALUE`",
        Rule::chain_inputs | Rule::input_kw => "`input`",
        Rule::chain_input => "an input `NAME: TYPE[W, H]`",
        Rule::chain_fn | Rule::fn_kw => "`fn`",
        Rule::chain_kernel | Rule::kernel_kw => "`kernel`",
        Rule::kernel_param => "a kernel's port `NAME: TYPE [w, h]`",
        Rule::chain_output | Rule::output_kw => "`output`",
        Rule::chain_value => "a value `NAME = EXPR;`",
        _ => "something else",
    }
}

/// The reserved words of the description language.
pub const KEYWORDS: &[&str] = &[
    "container_declaration",
    "container_bind",
    "container_composition",
    "container",
    "compose",
    "composition",
    "function_declaration",
    "function_instantiation",
    "function",
    "declaration",
    "instantiation",
    "runtime",
    "timing_system",
    "timing",
    "thread_schedule",
    "thread_execution",
    "memory_mapping",
    "memory_binding",
    "memory_schedule",
    "signal",
    "barrier",
    "index",
    "self",
    "mul",
    "shared",
    "local",
    "IN",
    "OUT",
    "NONE",
    "FULL",
];

fn syntax_error(text: &str, e: pest::error::Error<Rule>) -> Diagnostic {
    let (pos, mut expected) = expected_at(text, &e, rule_name);
    let (found, len) = token_at(text, pos);
    let mut expected: Vec<&str> = expected.iter_mut().map(|s| s.as_str()).collect();
    expected.sort();
    expected.dedup();
    if expected.contains(&"`[x, y]`") {
        expected.retain(|e| *e != "`[`");
    }
    // A token that a rule's name already says (`IN` in "`IN` or `OUT`") is
    // not listed again.
    let all = expected.clone();
    expected.retain(|t| !all.iter().any(|o| o != t && o.contains(t)));
    let wants_name = expected.contains(&"a name");
    let expected_text = match expected.as_slice() {
        [] => String::from("something else"),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    };
    let word = found.trim_matches('`');
    if text.trim().is_empty() {
        // Span::NONE is (0, 0): push the label itself, so the report says 1:1.
        let mut d = Diagnostic::error("E001", "empty description").hint(
            "a description starts with `composition {` or `declaration {` (docs/language.md)",
        );
        d.labels.push(crate::diagnostics::Label {
            span: Span::new(0, 0),
            message: "the file has no section".into(),
        });
        return d;
    }
    let message = format!("expected {expected_text}, found {found}");
    // A missing `;` at the end of a line is reported where it belongs,
    // just after the last token before it (as rustc does), not at the
    // next line's first token.
    let before = text[..pos].trim_end();
    let gap = &text[before.len()..pos];
    if all.contains(&"`;`") && gap.contains('\n') && !before.is_empty() {
        let at = before.len();
        return Diagnostic::error("E001", format!("expected `;`, found {found}"))
            .label(Span::new(at, at), "add `;` here")
            .label(Span::new(pos, pos + len), "unexpected token")
            .hint(format!(
                "the statement before ends with `;` (expected {expected_text})"
            ));
    }
    let mut d = Diagnostic::error("E001", message).label(
        Span::new(pos, pos + len),
        format!("expected {expected_text} here"),
    );
    let upper = word.to_ascii_uppercase();
    if upper != word && expected_text.contains(&format!("`{upper}`")) {
        d = d.hint(format!(
            "keywords `IN`, `OUT`, `NONE` and `FULL` are upper case: write `{upper}`"
        ));
    } else if wants_name && KEYWORDS.contains(&word) {
        if before.ends_with(',') {
            d = d.hint(format!(
                "`{word}` is a keyword, so it cannot continue the list: end the list before it with `;` instead of `,`"
            ));
        } else {
            d = d.hint(format!(
                "`{word}` is a keyword and cannot be used as a name"
            ));
        }
    } else if text[pos..].starts_with("/*") {
        d = d.hint("this comment is never closed: add `*/`");
    } else if pos == text.len() {
        d = d.hint("the file ends too early: is a `}` or `;` missing?");
    } else if pos == 0 {
        d = d.hint("a description starts with `composition {` or `declaration {`; sections come in the order composition, declaration, instantiation, runtime");
    }
    d
}
