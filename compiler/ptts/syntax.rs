//! Syntax of a `.ptts` file (docs/ptts.md): text → [`PttsFile`], the typed IR
//! with spans, or the diagnostics of what is wrong.
//!
//! The grammar is `grammar/ptts.pest` on the description language's
//! lexical rules (`grammar/lexical.pest`); pest errors are read by the
//! helper both parsers share (`ssc::front::syntax::pest_errors`). Numbers are kept as exact decimals
//! ([`Decimal`]); nothing is resolved here (no grid, no ETP file is read).
//! Never panics, on any input.

use crate::grammar::{PttsParser, Rule};
use pest::iterators::Pair as PPair;
use pest::Parser as _;
use ssc::diagnostics::Diagnostic;
use ssc::front::syntax::pest_errors::{expected_at, token_at};
use ssc::ir::{Ident, Span, Spanned};

type Node<'a> = PPair<'a, Rule>;

/// A non-negative exact decimal: `mantissa · 10^-scale`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decimal {
    pub mantissa: u128,
    pub scale: u32,
}

/// At most this many digits in a number (so a mantissa fits 128 bits with room).
pub const MAX_DIGITS: usize = 30;
/// At most this many digits after the point.
pub const MAX_SCALE: u32 = 12;

impl Decimal {
    pub const ZERO: Decimal = Decimal {
        mantissa: 0,
        scale: 0,
    };

    /// Parses `123` or `12.34`; `None` when it has too many digits.
    pub fn parse(text: &str) -> Option<Decimal> {
        let (int, frac) = match text.split_once('.') {
            Some((i, f)) => (i, f),
            None => (text, ""),
        };
        let digits = format!("{int}{frac}");
        if digits.is_empty()
            || !digits.bytes().all(|b| b.is_ascii_digit())
            || digits.trim_start_matches('0').len() > MAX_DIGITS
            || frac.len() > MAX_SCALE as usize
        {
            return None;
        }
        Some(Decimal {
            mantissa: digits.parse().ok()?,
            scale: frac.len() as u32,
        })
    }

    /// The value in units of `10^-scale` (scale ≥ self.scale), if it fits.
    pub fn on_grid(&self, scale: u32) -> Option<u128> {
        let min = self.min_scale();
        let m = self.mantissa / 10u128.pow(self.scale - min);
        let up = scale.checked_sub(min)?;
        m.checked_mul(10u128.checked_pow(up)?)
    }

    /// The smallest scale that writes this value (trailing zeros dropped).
    pub fn min_scale(&self) -> u32 {
        let (mut m, mut s) = (self.mantissa, self.scale);
        while s > 0 && m % 10 == 0 {
            m /= 10;
            s -= 1;
        }
        s
    }

    pub fn to_f64(&self) -> f64 {
        self.mantissa as f64 / 10f64.powi(self.scale as i32)
    }
}

impl std::fmt::Display for Decimal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&crate::num::grid_text(self.mantissa as i128, self.scale))
    }
}

/// A probability as written: `0.9` or `1/3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probability {
    pub numerator: Decimal,
    pub denominator: Option<Decimal>,
}

/// An execution-time profile as written.
#[derive(Clone, Debug, PartialEq)]
pub enum EtpSpec {
    /// `uniform [lo, hi]`: equal mass on every grid point, ends included.
    Uniform {
        lo: Spanned<Decimal>,
        hi: Spanned<Decimal>,
    },
    /// `point v`.
    Point(Spanned<Decimal>),
    /// `table [v: p, …]`.
    Table(Vec<(Spanned<Decimal>, Spanned<Probability>)>),
    /// `file "profile.json"`: the path as written (relative to the `.ptts` file).
    File(Spanned<String>),
}

/// `component NAME period D offset O etp …;`
#[derive(Clone, Debug, PartialEq)]
pub struct ComponentSpec {
    pub name: Ident,
    pub period: Spanned<Decimal>,
    /// `None` when the file leaves it out (it is then 0).
    pub offset: Option<Spanned<Decimal>>,
    pub etp: EtpSpec,
    pub etp_span: Span,
    pub span: Span,
}

/// A whole `.ptts` file: the chain, first component first.
#[derive(Clone, Debug, PartialEq)]
pub struct PttsFile {
    pub components: Vec<ComponentSpec>,
    pub span: Span,
}

fn span(n: &Node) -> Span {
    Span::new(n.as_span().start(), n.as_span().end())
}

fn is_keyword_token(n: &Node) -> bool {
    matches!(
        n.as_rule(),
        Rule::kw_ptts
            | Rule::kw_component
            | Rule::kw_period
            | Rule::kw_offset
            | Rule::kw_etp
            | Rule::kw_uniform
            | Rule::kw_point
            | Rule::kw_table
            | Rule::kw_file
    )
}

/// Parses a `.ptts` file. Every number that is too long is reported.
pub fn parse(text: &str) -> Result<PttsFile, Vec<Diagnostic>> {
    pest::set_error_detail(true);
    let mut pairs = match PttsParser::parse(Rule::ptts_file, text) {
        Ok(p) => p,
        Err(e) => return Err(vec![syntax_error(text, e)]),
    };
    let Some(root) = pairs.next() else {
        return Err(vec![Diagnostic::error("E400", "empty file")]);
    };
    let mut b = Builder { errors: Vec::new() };
    let file = b.file(root);
    if b.errors.is_empty() {
        Ok(file)
    } else {
        Err(b.errors)
    }
}

struct Builder {
    errors: Vec<Diagnostic>,
}

impl Builder {
    fn file(&mut self, root: Node) -> PttsFile {
        let s = span(&root);
        let components = root
            .into_inner()
            .filter(|n| n.as_rule() == Rule::ptts_component)
            .map(|n| self.component(n))
            .collect();
        PttsFile {
            components,
            span: s,
        }
    }

    fn component(&mut self, n: Node) -> ComponentSpec {
        let s = span(&n);
        let mut name = Ident::spanned("", s);
        let mut numbers = Vec::new();
        let mut etp = EtpSpec::Point(Spanned::new(Decimal::ZERO, s));
        let mut etp_span = s;
        for c in n.into_inner().filter(|c| !is_keyword_token(c)) {
            match c.as_rule() {
                Rule::ptts_name => name = Ident::spanned(c.as_str(), span(&c)),
                Rule::number => numbers.push(self.number(&c)),
                Rule::etp => {
                    etp_span = span(&c);
                    etp = self.etp(c);
                }
                _ => {}
            }
        }
        let mut numbers = numbers.into_iter();
        let period = numbers
            .next()
            .unwrap_or_else(|| Spanned::new(Decimal::ZERO, s));
        let offset = numbers.next();
        ComponentSpec {
            name,
            period,
            offset,
            etp,
            etp_span,
            span: s,
        }
    }

    fn number(&mut self, n: &Node) -> Spanned<Decimal> {
        let s = span(n);
        match Decimal::parse(n.as_str()) {
            Some(d) => Spanned::new(d, s),
            None => {
                self.errors.push(
                    Diagnostic::error("E401", "number too long")
                        .label(s, "too many digits")
                        .hint(format!(
                            "a number has at most {MAX_DIGITS} significant digits and {MAX_SCALE} after the point"
                        )),
                );
                Spanned::new(Decimal::ZERO, s)
            }
        }
    }

    fn etp(&mut self, n: Node) -> EtpSpec {
        let s = span(&n);
        let Some(inner) = n.into_inner().next() else {
            return EtpSpec::Point(Spanned::new(Decimal::ZERO, s));
        };
        let rule = inner.as_rule();
        let parts: Vec<Node> = inner
            .into_inner()
            .filter(|c| !is_keyword_token(c))
            .collect();
        match rule {
            Rule::etp_uniform if parts.len() == 2 => EtpSpec::Uniform {
                lo: self.number(&parts[0]),
                hi: self.number(&parts[1]),
            },
            Rule::etp_table => EtpSpec::Table(
                parts
                    .into_iter()
                    .filter_map(|e| {
                        let mut it = e.into_inner();
                        let v = it.next()?;
                        let p = it.next()?;
                        let value = self.number(&v);
                        Some((value, self.probability(p)))
                    })
                    .collect(),
            ),
            Rule::etp_file if parts.len() == 1 => {
                let raw = parts[0].as_str();
                let path = raw
                    .strip_prefix('"')
                    .and_then(|r| r.strip_suffix('"'))
                    .unwrap_or(raw);
                EtpSpec::File(Spanned::new(path.to_string(), span(&parts[0])))
            }
            _ => match parts.first() {
                Some(p) => EtpSpec::Point(self.number(p)),
                None => EtpSpec::Point(Spanned::new(Decimal::ZERO, s)),
            },
        }
    }

    fn probability(&mut self, n: Node) -> Spanned<Probability> {
        let s = span(&n);
        let mut it = n.into_inner();
        let numerator = it
            .next()
            .map(|x| self.number(&x).value)
            .unwrap_or(Decimal::ZERO);
        let denominator = it.next().map(|x| self.number(&x).value);
        Spanned::new(
            Probability {
                numerator,
                denominator,
            },
            s,
        )
    }
}

/// What a grammar rule is called in a message.
fn rule_name(rule: &Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::ptts_name | Rule::ident => "a name",
        Rule::number => "a number",
        Rule::probability => "a probability (`0.9` or `1/3`)",
        Rule::ptts_string => "a quoted file name",
        Rule::kw_ptts => "`ptts`",
        Rule::ptts_component | Rule::kw_component => "`component`",
        Rule::kw_period => "`period`",
        Rule::kw_offset => "`offset`",
        Rule::kw_etp => "`etp`",
        Rule::etp => "an ETP (`uniform`, `point`, `table` or `file`)",
        Rule::kw_uniform | Rule::etp_uniform => "`uniform`",
        Rule::kw_point | Rule::etp_point => "`point`",
        Rule::kw_table | Rule::etp_table => "`table`",
        Rule::kw_file | Rule::etp_file => "`file`",
        Rule::table_entry => "a table entry `VALUE: PROBABILITY`",
        _ => "something else",
    }
}

const KEYWORDS: &[&str] = &[
    "ptts",
    "component",
    "period",
    "offset",
    "etp",
    "uniform",
    "point",
    "table",
    "file",
];

fn syntax_error(text: &str, e: pest::error::Error<Rule>) -> Diagnostic {
    let (pos, mut expected) = expected_at(text, &e, rule_name);
    expected.retain(|x| x != "something else");
    expected.sort();
    expected.dedup();
    let expected_text = match expected.len() {
        0 => String::from("something else"),
        1 => expected[0].clone(),
        _ => {
            let last = expected.pop().unwrap_or_default();
            format!("{} or {}", expected.join(", "), last)
        }
    };
    let (found, len) = token_at(text, pos);
    if text.trim().is_empty() {
        return Diagnostic::error("E400", "empty file")
            .hint("a `.ptts` file starts with `ptts {` (docs/ptts.md)");
    }
    let mut d = Diagnostic::error("E400", format!("expected {expected_text}, found {found}"))
        .label(
            Span::new(pos, pos + len),
            format!("expected {expected_text} here"),
        );
    let word = found.trim_matches('`');
    if KEYWORDS.contains(&word) && expected_text.contains("a name") {
        d = d.hint(format!(
            "`{word}` is a keyword of `.ptts` files and cannot name a component"
        ));
    } else if text[pos..].starts_with("/*") {
        d = d.hint("this comment is never closed: add `*/`");
    } else if pos == text.len() {
        d = d.hint("the file ends too early: is a `}` or `;` missing?");
    } else if pos == 0 {
        d = d.hint("a `.ptts` file starts with `ptts {` (docs/ptts.md)");
    } else {
        d = d.hint(
            "a component reads `component NAME period D offset O etp uniform [A, B];` (docs/ptts.md)",
        );
    }
    d
}
