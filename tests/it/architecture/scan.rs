//! Scanners of Rust and C sources: the code without comments and literals,
//! and the functions with a body, each with its first line and length.

/// The source with the insides of comments, string literals and character
/// literals replaced by spaces (newlines kept), so that braces and `fn`
/// are only found in code.
pub(super) fn code_only(text: &str) -> String {
    let s: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && s.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if s[i] == '*' && s.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(s[i]));
                    i += 1;
                }
            }
        } else if c == 'r'
            && (i == 0 || !ident(s[i - 1]) || (s[i - 1] == 'b' && (i < 2 || !ident(s[i - 2]))))
            && matches!(next, Some('"' | '#'))
            && {
                let hashes = s[i + 1..].iter().take_while(|&&h| h == '#').count();
                s.get(i + 1 + hashes) == Some(&'"')
            }
        {
            // A raw string: r"…", r#"…"#, br#"…"#.
            let hashes = s[i + 1..].iter().take_while(|&&h| h == '#').count();
            out.push('"');
            i += 2 + hashes;
            while i < s.len() {
                if s[i] == '"'
                    && s[i + 1..]
                        .iter()
                        .take(hashes)
                        .filter(|&&h| h == '#')
                        .count()
                        == hashes
                {
                    i += 1 + hashes;
                    break;
                }
                out.push(blank(s[i]));
                i += 1;
            }
            out.push('"');
        } else if c == '"' {
            out.push('"');
            i += 1;
            while i < s.len() && s[i] != '"' {
                if s[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < s.len() {
                    out.push(blank(s[i]));
                    i += 1;
                }
            }
            out.push('"');
            i += 1;
        } else if c == '\'' && (next == Some('\\') || s.get(i + 2) == Some(&'\'')) {
            // A character literal ('x', '\n', '\'', '\u{..}'), not a lifetime.
            out.push('\'');
            i += 1;
            while i < s.len() && s[i] != '\'' {
                if s[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                out.push(' ');
                i += 1;
            }
            out.push('\'');
            i += 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Every function with a body in the source: (line of `fn`, name, lines
/// from the `fn` line to the closing brace).
pub(super) fn functions(text: &str) -> Vec<(usize, String, usize)> {
    let code: Vec<char> = code_only(text).chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let line_at = |i: usize| 1 + code[..i].iter().filter(|&&c| c == '\n').count();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 2 < code.len() {
        let is_fn = code[i] == 'f'
            && code[i + 1] == 'n'
            && (i == 0 || !ident(code[i - 1]))
            && code[i + 2].is_whitespace();
        if !is_fn {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        while j < code.len() && code[j].is_whitespace() {
            j += 1;
        }
        let name: String = code[j..].iter().take_while(|&&c| ident(c)).collect();
        if name.is_empty() {
            i += 2;
            continue;
        }
        // The body opens at the first `{` outside brackets of the signature;
        // a `;` there first means a declaration without a body.
        let mut depth = 0i32;
        let mut open = None;
        while j < code.len() {
            match code[j] {
                '(' | '[' | '<' => depth += 1,
                ')' | ']' => depth -= 1,
                '>' if code[j - 1] != '-' => depth -= 1,
                '{' if depth <= 0 => {
                    open = Some(j);
                    break;
                }
                ';' if depth <= 0 => break,
                _ => {}
            }
            j += 1;
        }
        let Some(open) = open else {
            i = j;
            continue;
        };
        let mut braces = 0;
        let mut close = open;
        for (k, &c) in code.iter().enumerate().skip(open) {
            match c {
                '{' => braces += 1,
                '}' => {
                    braces -= 1;
                    if braces == 0 {
                        close = k;
                        break;
                    }
                }
                _ => {}
            }
        }
        let (first, last) = (line_at(i), line_at(close));
        found.push((first, name, last - first + 1));
        // Functions nested in this one are measured on their own too.
        i += 2;
    }
    found
}

#[test]
fn the_scanner_measures_functions_through_strings_and_comments() {
    let text = "fn a() {\n    let s = \"}\"; // }\n    let c = '}';\n    let r = r#\"}\"#;\n    /* } /* } */ */\n    let l: &'static str = s;\n}\n\ntrait T {\n    fn d(&self) -> Vec<u8>;\n    fn e(&self) -> impl Fn(u8) -> u8 {\n        |x| x\n    }\n}\n";
    let found = functions(text);
    let expected = vec![(1, "a".to_string(), 7), (11, "e".to_string(), 3)];
    assert_eq!(found, expected);
}

/// C source (a runtime file, or an askama template when `template`) with
/// comments, string and character literals, preprocessor lines and, in a
/// template, its `{% … %}`, `{{ … }}` and `{# … #}` tags replaced by
/// spaces (newlines kept), so that braces are only found in C code. A
/// template's tags are blanked, not evaluated: both arms of an
/// `{% if %}` stay, which is sound as long as each arm balances its
/// braces (the templates' do).
pub(super) fn c_code_only(text: &str, template: bool) -> String {
    let s: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    // Blanks s[from..] up to and including `end` (or to the end of the text).
    let skip_to = |out: &mut String, from: usize, end: &str| -> usize {
        let end: Vec<char> = end.chars().collect();
        let mut i = from;
        while i < s.len() && !s[i..].starts_with(&end) {
            out.push(blank(s[i]));
            i += 1;
        }
        let stop = (i + end.len()).min(s.len());
        out.extend(std::iter::repeat_n(' ', stop - i));
        stop
    };
    let mut line_start = true;
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let next = s.get(i + 1).copied();
        let starts_line = line_start;
        line_start = c == '\n' || (line_start && c.is_whitespace());
        if template && c == '{' && matches!(next, Some('%' | '{' | '#')) {
            let close = match next {
                Some('%') => "%}",
                Some('{') => "}}",
                _ => "#}",
            };
            out.push_str("  ");
            i = skip_to(&mut out, i + 2, close);
        } else if c == '/' && next == Some('/') {
            while i < s.len() && s[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            out.push_str("  ");
            i = skip_to(&mut out, i + 2, "*/");
        } else if c == '#' && starts_line {
            // A directive, with its backslash-continued lines.
            while i < s.len() && s[i] != '\n' {
                if s[i] == '\\' && s.get(i + 1) == Some(&'\n') {
                    out.push_str(" \n");
                    i += 2;
                } else {
                    out.push(' ');
                    i += 1;
                }
            }
        } else if c == '"' || c == '\'' {
            out.push(c);
            i += 1;
            while i < s.len() && s[i] != c && s[i] != '\n' {
                if s[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < s.len() {
                    out.push(blank(s[i]));
                    i += 1;
                }
            }
            if i < s.len() {
                out.push(blank(s[i]));
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Every C function definition: a `{` at file level right after the `)`
/// of a parameter list. (Line of the function's name, name, lines from
/// that line to the closing brace.) Structs, enums and initializers at
/// file level open their braces after something else and are skipped.
pub(super) fn c_functions(text: &str, template: bool) -> Vec<(usize, String, usize)> {
    let code: Vec<char> = c_code_only(text, template).chars().collect();
    let line_at = |i: usize| 1 + code[..i].iter().filter(|&&c| c == '\n').count();
    let mut found = Vec::new();
    let mut depth = 0i32;
    let mut i = 0;
    while i < code.len() {
        match code[i] {
            '{' if depth == 0 => {
                if let Some((at, name)) = c_signature_before(&code, i) {
                    let close = matching_brace(&code, i);
                    let (first, last) = (line_at(at), line_at(close));
                    found.push((first, name, last - first + 1));
                    i = close + 1;
                    continue;
                }
                depth += 1;
            }
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    found
}

/// The name (and its index) of the function whose parameter list ends
/// just before the `{` at `open`, if a parameter list ends there.
fn c_signature_before(code: &[char], open: usize) -> Option<(usize, String)> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut j = open;
    while j > 0 && code[j - 1].is_whitespace() {
        j -= 1;
    }
    if j == 0 || code[j - 1] != ')' {
        return None;
    }
    // Back to the matching `(`.
    let mut parens = 0;
    let mut k = j;
    while k > 0 {
        k -= 1;
        match code[k] {
            ')' => parens += 1,
            '(' => {
                parens -= 1;
                if parens == 0 {
                    break;
                }
            }
            _ => {}
        }
    }
    let mut end = k;
    while end > 0 && code[end - 1].is_whitespace() {
        end -= 1;
    }
    let mut start = end;
    while start > 0 && ident(code[start - 1]) {
        start -= 1;
    }
    let name: String = code[start..end].iter().collect();
    let keyword = matches!(name.as_str(), "if" | "for" | "while" | "switch" | "");
    (!keyword).then_some((start, name))
}

/// The index of the `}` closing the `{` at `open` (the last index if
/// none does).
fn matching_brace(code: &[char], open: usize) -> usize {
    let mut braces = 0;
    for (k, &c) in code.iter().enumerate().skip(open) {
        match c {
            '{' => braces += 1,
            '}' => {
                braces -= 1;
                if braces == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    code.len().saturating_sub(1)
}

#[test]
fn the_c_scanner_measures_functions_through_strings_comments_and_directives() {
    let text = "#include <stdio.h>\n#define OPEN { \\\n    }\nstruct s { int a; };\nstatic const int t[2] = { 1, 2 };\n\nstatic int\nf(int x)\n{\n    const char *s = \"}\"; // }\n    char c = '}';\n    /* } */\n    if (x) { return '\\''; }\n    return 0;\n}\nint g(void);\nvoid h(void) { }\n";
    let expected = vec![(8, "f".to_string(), 8), (17, "h".to_string(), 1)];
    assert_eq!(c_functions(text, false), expected);
}

#[test]
fn the_c_scanner_blanks_template_tags() {
    let text = "{%- for m in defs.mins %}\nstatic inline {{ m.1 }} ssc_min_{{ m.0 }}({{ m.1 }} a)\n{\n{%- if m.nan %} {{ \"}\" }}\n{%- endif %}\n    return a;\n}\n{%- endfor %}\nint a[2][2] = {{ 1, 2 }, { 3, 4 }};\n";
    assert_eq!(
        c_functions(text, true),
        vec![(2, "ssc_min_".to_string(), 6)]
    );
    // Outside a template `{{` is C: a nested initializer, no function.
    assert!(
        c_functions("int a[1][1] = {{ 1 }};\nint f(void) { return 0; }\n", false)
            .iter()
            .any(|(_, n, _)| n == "f")
    );
}
