//! The comments of a description, with their positions, for the formatter
//! (`ssc fmt` keeps them; the parser's `COMMENT` rule skips them).
//!
//! The description language has no string literals, so a plain scan finds
//! exactly what `grammar/lexical.pest`'s `COMMENT` rule matches: `//` to the end
//! of the line and `/* … */` (not nested).

/// One comment of the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comment {
    /// Byte offset of its first character (`/`).
    pub start: usize,
    /// Byte offset just after it (`//`: before the line break).
    pub end: usize,
    /// Its text, `//` or `/*` included; a line comment without trailing
    /// white space.
    pub text: String,
    /// Whether something other than white space and comments comes before
    /// it on its line (an end-of-line comment).
    pub trailing: bool,
}

/// Every comment of `text`, in order.
pub fn comments(text: &str) -> Vec<Comment> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut code_on_line = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                code_on_line = false;
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                out.push(Comment {
                    start: i,
                    end,
                    text: text[i..end].trim_end().to_string(),
                    trailing: code_on_line,
                });
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(text.len(), |n| i + 2 + n + 2);
                out.push(Comment {
                    start: i,
                    end,
                    text: text[i..end].to_string(),
                    trailing: code_on_line,
                });
                i = end;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            // The byte-order mark is white space to the grammar.
            0xef if text[i..].starts_with('\u{feff}') => i += '\u{feff}'.len_utf8(),
            _ => {
                code_on_line = true;
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_line_and_block_comments() {
        let c = comments("// a\nx; // b \n/* c\n d */ y; /* e */");
        let texts: Vec<_> = c.iter().map(|c| (c.text.as_str(), c.trailing)).collect();
        assert_eq!(
            texts,
            [
                ("// a", false),
                ("// b", true),
                ("/* c\n d */", false),
                ("/* e */", true)
            ]
        );
    }
}
