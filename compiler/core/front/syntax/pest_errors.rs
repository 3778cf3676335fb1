//! What a pest syntax error says, for both parsers built on the shared
//! lexical grammar (`grammar/lexical.pest`): the description's
//! (`front::syntax`) and the `.ptts` file's (crate `ssc-ptts`).
//!
//! Takes a pest error of any grammar and the text it was raised on; gives
//! the position of the error, the tokens that could stand there and the
//! token that does. Each parser words its own diagnostic from them (its
//! rule names, its hints). Guarantees: never panics, on any input; every
//! position it returns is a char boundary of the text.

use pest::error::{Error, ErrorVariant, InputLocation};
use pest::RuleType;

/// Where pest says the error is (the start of a span).
pub fn error_pos<R: RuleType>(e: &Error<R>) -> usize {
    match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    }
}

/// The char boundary at or before `pos` in `text` (the end when `pos` is
/// past it).
fn floor_boundary(text: &str, pos: usize) -> usize {
    let pos = pos.min(text.len());
    (0..=pos)
        .rev()
        .find(|&p| text.is_char_boundary(p))
        .unwrap_or(0)
}

/// Where a syntax error really is and what could stand there: the furthest
/// position any alternative reached with the literal tokens it wanted (from
/// pest's parse attempts), and the rules pest names when they are that far
/// (each named by `rule_name`).
pub fn expected_at<R: RuleType>(
    text: &str,
    e: &Error<R>,
    rule_name: impl Fn(&R) -> &'static str,
) -> (usize, Vec<String>) {
    let rule_pos = error_pos(e).min(text.len());
    let rules: Vec<String> = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            positives.iter().map(|r| rule_name(r).to_string()).collect()
        }
        ErrorVariant::CustomError { .. } => Vec::new(),
    };
    let (pos, names) = match e.parse_attempts() {
        Some(a) if a.max_position >= rule_pos && a.max_position <= text.len() => {
            let mut names: Vec<String> = a
                .expected_tokens()
                .into_iter()
                .map(|t| t.to_string())
                // Literal punctuation and keywords only (not ranges, built-ins).
                .filter(|t| !is_noise_token(t))
                .map(|t| format!("`{t}`"))
                .collect();
            if names.is_empty() {
                (rule_pos, rules)
            } else {
                if a.max_position == rule_pos {
                    names.extend(rules);
                }
                (a.max_position, names)
            }
        }
        _ => (rule_pos, rules),
    };
    (floor_boundary(text, pos), names)
}

/// The token at an offset, for "found …" in messages, and its length in
/// bytes: a word of up to 40 identifier characters, one printable
/// character in backquotes, a control or invisible character by its code
/// point, or "end of file".
pub fn token_at(text: &str, pos: usize) -> (String, usize) {
    let rest = &text[floor_boundary(text, pos)..];
    let Some(c) = rest.chars().next() else {
        return ("end of file".to_string(), 0);
    };
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .take(40)
        .collect();
    if !word.is_empty() {
        let len = word.len();
        return (format!("`{word}`"), len);
    }
    if c.is_control() || !(c.is_ascii_graphic() || c.is_alphanumeric()) {
        (format!("character U+{:04X}", c as u32), c.len_utf8())
    } else {
        (format!("`{c}`"), c.len_utf8())
    }
}

/// Tokens pest tries everywhere (comments, a BOM, identifier characters,
/// character ranges) that would only clutter "expected …".
fn is_noise_token(t: &str) -> bool {
    t.trim().is_empty()
        || t.contains("..")
        || matches!(t, "BUILTIN_RULE" | "/*" | "//" | "_" | "\u{feff}")
        || (t.len() == 1 && t.chars().all(|c| c.is_ascii_alphanumeric()))
        || t.chars().any(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_snap_to_char_boundaries() {
        assert_eq!(floor_boundary("aé", 2), 1);
        assert_eq!(floor_boundary("aé", 9), 3);
        // Inside `é` (bytes 1..3): the token is `é`, from its first byte.
        assert_eq!(token_at("aé", 2), ("`é`".to_string(), 2));
        assert_eq!(token_at("\u{200b}", 1), ("character U+200B".to_string(), 3));
        assert_eq!(token_at("x", 1), ("end of file".to_string(), 0));
    }
}
