//! `ssc explain`: the reference entry of a diagnostic code, rendered for a
//! terminal as `rustc --explain` does.
//!
//! Takes `docs/diagnostics.md`, compiled in; gives, for a code, its
//! section, kind and example as plain text wrapped at 80 columns, and for
//! `--list` one line per code. Guarantees: no Markdown left (no backticks,
//! no `*emphasis*`, no link syntax), and no path relative to ssc's source
//! tree: a reference to another document (`docs/fused.md`) becomes the
//! absolute path of that file in the source ssc was built from when it is
//! still there, else the document's name; the same code always prints the
//! same text on one machine.

use std::path::Path;

/// The reference of every diagnostic code, compiled in.
const DIAGNOSTICS_MD: &str = include_str!("../../../docs/diagnostics.md");

/// The bad inputs the reference's examples name, compiled in
/// (`compiler/ssc/build.rs`): `(NAME, TEXT)`, NAME the stem of a
/// `tests/bad/NAME.ssc` or the path of a `tests/bad_runtime/` or
/// `tests/bad_ptts/` file.
const BAD_INPUTS: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/bad_inputs.rs"));

/// The width the text is wrapped at.
const WIDTH: usize = 80;

/// One row of the reference: code, section, kind, example.
struct Entry<'a> {
    code: String,
    section: &'a str,
    kind: &'a str,
    example: &'a str,
}

/// Every row of the code tables of `docs/diagnostics.md`, in its order.
fn entries() -> Vec<Entry<'static>> {
    let mut section = "";
    let mut out = Vec::new();
    for line in DIAGNOSTICS_MD.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            section = h;
        }
        let Some(row) = line.strip_prefix("| E") else {
            continue;
        };
        let cells: Vec<&str> = row.trim_end_matches('|').split(" | ").collect();
        let code = cells[0].trim();
        if code.len() != 3 || !code.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        out.push(Entry {
            code: format!("E{code}"),
            section,
            kind: cells.get(1).copied().unwrap_or("").trim(),
            example: cells.get(2).copied().unwrap_or("").trim(),
        });
    }
    out
}

/// The entry of `code` (`E108`, `e108` or `108`) rendered for a terminal;
/// `None` for a code that is not a diagnostic code of ssc.
pub(crate) fn explanation(code: &str) -> Option<String> {
    let digits = code.trim().trim_start_matches(['E', 'e']);
    if digits.len() != 3 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let code = format!("E{digits}");
    let e = entries().into_iter().find(|e| e.code == code)?;
    let section = without_ranges(&plain(e.section));
    let mut kind = plain(e.kind);
    let mut title = format!("{code} ({section})");
    if let Some(rest) = kind.strip_prefix("warning: ") {
        title = format!("{code}, a warning ({section})");
        kind = rest.to_string();
    }
    let mut out = format!("{title}\n\n{}\n", wrap(&capitalised(&kind), ""));
    let (example, inputs) = example_and_inputs(e.example);
    if !example.is_empty() && example != "—" {
        out += &format!("\nExample:\n{}\n", wrap(&plain(&example), "    "));
    }
    if let Some((name, text)) = inputs.first() {
        // A line `// -D NAME=VALUE` of the input is an option of its check.
        let defines: String = text
            .lines()
            .filter_map(|l| l.strip_prefix("// -D "))
            .map(|d| format!(" -D {}", d.trim()))
            .collect();
        let what = if name.ends_with(".ptts") {
            "A whole .ptts file that gives it (ssc ptts FILE):".to_string()
        } else {
            format!("A whole description that gives it (ssc check FILE{defines}):")
        };
        out += &format!("\n{what}\n\n");
        for line in text.lines() {
            match line.trim_end() {
                "" => out.push('\n'),
                l => out += &format!("    {l}\n"),
            }
        }
    }
    out += "\nEvery code, one line each: ssc explain --list\n";
    Some(out)
}

/// The example of a reference row without the names of the bad inputs it
/// cites (a parenthesis of nothing but such names is dropped), and those
/// inputs' texts, in the row's order: names of the test suite mean nothing
/// to a user, the whole description does.
fn example_and_inputs(md: &str) -> (String, Vec<(&'static str, &'static str)>) {
    let input = |word: &str| BAD_INPUTS.iter().copied().find(|(n, _)| *n == word);
    let mut inputs = Vec::new();
    let mut out = String::new();
    let mut rest = md;
    while let Some(open) = rest.find('(') {
        let Some(len) = rest[open..].find(')') else {
            break;
        };
        let inner = &rest[open + 1..open + len];
        let names: Vec<Option<(&str, &str)>> = inner
            .split(',')
            .map(|w| {
                let w = w.trim();
                w.strip_prefix('`')
                    .and_then(|w| w.strip_suffix('`'))
                    .and_then(input)
            })
            .collect();
        if names.iter().all(Option::is_some) {
            out += rest[..open].trim_end();
            inputs.extend(names.into_iter().flatten());
        } else {
            out += &rest[..open + len + 1];
        }
        rest = &rest[open + len + 1..];
    }
    out += rest;
    (out.trim().to_string(), inputs)
}

/// `ssc explain --list`: every code and the first clause of its kind.
pub(crate) fn list() -> String {
    let mut out = String::new();
    for e in entries() {
        let kind = plain(e.kind);
        let (prefix, kind) = match kind.strip_prefix("warning: ") {
            Some(rest) => ("warning: ", rest),
            None => ("", kind.as_str()),
        };
        let first = kind.split(['(', ';', ':']).next().unwrap_or("").trim();
        let first = format!("{prefix}{}", first.trim_end_matches(','));
        let line = format!("{}  {first}", e.code);
        out += &truncate(&line, WIDTH);
        out.push('\n');
    }
    out
}

/// A section title without its code ranges: `Lowering (E100–E134)` →
/// `Lowering`.
fn without_ranges(title: &str) -> String {
    let mut out = String::new();
    let mut rest = title;
    while let Some(open) = rest.find(" (E") {
        out += &rest[..open];
        rest = rest[open..]
            .find(')')
            .map_or("", |close| &rest[open + close + 1..]);
    }
    out + rest
}

/// The first character upper-case.
fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// At most `width` characters, with `…` when cut.
fn truncate(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut t: String = s.chars().take(width - 1).collect();
    t.push('…');
    t
}

/// Markdown made plain text: backticks, emphasis and link syntax dropped,
/// `\|` unescaped, paths of ssc's source tree resolved ([`resolve_path`]).
fn plain(md: &str) -> String {
    let mut s = md.replace("\\|", "|");
    // [text](target) → text (target)
    while let Some(open) = s.find("](") {
        let Some(start) = s[..open].rfind('[') else {
            break;
        };
        let Some(len) = s[open..].find(')') else {
            break;
        };
        let text = s[start + 1..open].to_string();
        let target = s[open + 2..open + len].to_string();
        s.replace_range(start..open + len + 1, &format!("{text} ({target})"));
    }
    let s: String = s.replace("**", "").replace('`', "");
    // *emphasis* → emphasis: an asterisk next to a letter on the inner side.
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    for (i, &c) in chars.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| chars[j]);
        let after = chars.get(i + 1).copied();
        let opens =
            after.is_some_and(char::is_alphanumeric) && !before.is_some_and(char::is_alphanumeric);
        let closes =
            before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric);
        if c == '*' && (opens || closes) {
            continue;
        }
        out.push(c);
    }
    out.split_inclusive(|c: char| c.is_whitespace() || c == '(')
        .map(resolve_path)
        .collect()
}

/// A word naming a file of ssc's source tree (`docs/fused.md,`), made the
/// absolute path of that file when the source ssc was built from is still
/// there, else the file's name with where it lives in the source.
fn resolve_path(word: &str) -> String {
    let core = word.trim_end_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
    let tail = &word[core.len()..];
    let in_tree = ["docs/", "tests/", "examples/", "runtime-c/", "compiler/"]
        .iter()
        .any(|d| core.starts_with(d));
    if !in_tree || !core.contains('.') {
        return word.to_string();
    }
    let abs = Path::new(env!("CARGO_MANIFEST_DIR")).join(core);
    if abs.exists() {
        format!("{}{tail}", abs.display())
    } else {
        format!("{core} of ssc's source{tail}")
    }
}

/// `text` wrapped at [`WIDTH`], every line after `indent`.
fn wrap(text: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::from(indent);
    for word in text.split_whitespace() {
        let len = line.chars().count();
        if len > indent.len() && len + 1 + word.chars().count() > WIDTH {
            out += line.trim_end();
            out.push('\n');
            line = String::from(indent);
        }
        if line.len() > indent.len() {
            line.push(' ');
        }
        line += word;
    }
    out += line.trim_end();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_is_made_plain() {
        assert_eq!(
            plain("*warning*: `-ts fused N` on **all**, a*b, [x](y)"),
            "warning: -ts fused N on all, a*b, x (y)"
        );
        assert_eq!(plain("2 \\| 3"), "2 | 3");
        assert_eq!(
            without_ranges("Input and syntax (E000–E003), checker (E004–E038)"),
            "Input and syntax, checker"
        );
    }

    #[test]
    fn wrapping_keeps_every_word_within_the_width() {
        let text = "word ".repeat(50);
        let w = wrap(&text, "  ");
        assert!(w.lines().all(|l| l.len() <= WIDTH && l.starts_with("  ")));
        assert_eq!(w.split_whitespace().count(), 50);
    }
}
