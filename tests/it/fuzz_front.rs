//! The front end never panics: random bytes, random token soups and
//! mutations of `examples/appendix.ssc` go through parse + check + render.

use proptest::prelude::*;
use ssc::diagnostics::{render, SourceFile};
use ssc::front::check::check;
use ssc::front::syntax::parse;
use ssc::front::syntax::KEYWORDS;

fn run(text: &str) {
    let diags = match parse(text) {
        Ok(desc) => check(&desc),
        Err(d) => d,
    };
    let _ = render(&diags, &SourceFile::new("fuzz.ssc", text));
}

/// Word `i` of the reserved words followed by the other tokens.
fn word(i: usize) -> &'static str {
    KEYWORDS
        .get(i)
        .copied()
        .unwrap_or_else(|| TOKENS[i - KEYWORDS.len()])
}

/// Words of the language besides its reserved words (`KEYWORDS`).
const TOKENS: &[&str] = &[
    "int",
    "float",
    "char",
    "double",
    "W",
    "S",
    "E",
    "B",
    "func_gain",
    "func_conv",
    "func_source",
    "func_sink",
    "func_dup",
    "func_down",
    "func_up",
    "a",
    "b",
    "f6",
    "f7",
    "in",
    "out",
    "t0",
    "s1",
    "m0",
    "0",
    "1",
    "2",
    "128",
    "256",
    "18446744073709551616",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ";",
    ",",
    ".",
    ":",
    "->",
    "=>",
    "!",
    "/*",
    "*/",
    "//",
    "\n",
    " ",
];

fn appendix() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/appendix.ssc"
    ))
    .unwrap()
}

/// The appendix split into tokens (words, numbers, single punctuation).
fn appendix_tokens() -> Vec<String> {
    let text: String = appendix()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut toks = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            cur.push(c);
        } else {
            if !cur.is_empty() {
                toks.push(std::mem::take(&mut cur));
            }
            if !c.is_whitespace() {
                toks.push(c.to_string());
            }
        }
    }
    // `->` and `=>` are one token.
    let mut merged: Vec<String> = Vec::new();
    for t in toks {
        match merged.last_mut() {
            Some(last) if t == ">" && (last == "-" || last == "=") => last.push('>'),
            _ => merged.push(t),
        }
    }
    merged
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Replace(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Replace(a, b)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        run(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn token_soup(idx in proptest::collection::vec(0..TOKENS.len() + KEYWORDS.len(), 0..120)) {
        let text: Vec<&str> = idx.iter().map(|&i| word(i)).collect();
        run(&text.join(" "));
    }

    #[test]
    fn appendix_mutations(muts in proptest::collection::vec(mutation(), 1..6)) {
        let mut toks = appendix_tokens();
        for m in muts {
            let n = toks.len();
            if n == 0 {
                break;
            }
            match m {
                Mutation::Delete(i) => {
                    toks.remove(i % n);
                }
                Mutation::Duplicate(i) => {
                    let t = toks[i % n].clone();
                    toks.insert(i % n, t);
                }
                Mutation::Swap(a, b) => toks.swap(a % n, b % n),
                Mutation::Replace(i, t) => toks[i % n] = word(t % (TOKENS.len() + KEYWORDS.len())).to_string(),
            }
        }
        run(&toks.join(" "));
    }
}

#[test]
fn appendix_tokens_round_trip_checks_clean() {
    let text = appendix_tokens().join(" ");
    let desc = parse(&text).expect("the re-spaced appendix parses");
    assert!(check(&desc).is_empty());
}
