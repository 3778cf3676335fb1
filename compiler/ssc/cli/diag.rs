//! How diagnostics reach the user: text on standard error (ANSI colour on a
//! terminal, unless `NO_COLOR` is set or `--color never`), or with
//! `--message-format json` one JSON object per diagnostic and line (as
//! cargo's `--message-format json`, for editors and CI). Chosen once per
//! process from the global options, before any command runs. A command
//! that builds one file many times (`ssc bench`) turns on [`once`], so a
//! warning about the file (E140 for every fused build) is printed once.

use clap::ValueEnum;
use ssc::diagnostics::{render_styled, to_json, Diagnostic, SourceFile};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

/// `--message-format`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum MessageFormat {
    // rustc-style text: code, message, `--> file:line:col`, the source
    // lines with labels, a hint. (Plain comments: a doc comment here would
    // turn every command's --help into the long layout.)
    #[default]
    Human,
    // One JSON object a line on standard error: file, severity, code,
    // message, line, column, labels, hint, rendered.
    Json,
}

/// `--color`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    // Colour when standard error is a terminal and `NO_COLOR` is unset or empty.
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(Clone, Copy, Debug)]
struct Style {
    format: MessageFormat,
    colour: bool,
}

static STYLE: OnceLock<Style> = OnceLock::new();

/// Whether to colour: `always`/`never` as said; `auto` on a terminal when
/// `NO_COLOR` (<https://no-color.org>) is unset or empty.
pub(crate) fn use_colour(
    choice: ColorChoice,
    terminal: bool,
    no_color: Option<&std::ffi::OsStr>,
) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && no_color.is_none_or(|v| v.is_empty()),
    }
}

/// Sets the style for this process (the first call wins).
pub(crate) fn configure(format: MessageFormat, colour: ColorChoice) {
    let no_color = std::env::var_os("NO_COLOR");
    let colour = use_colour(colour, std::io::stderr().is_terminal(), no_color.as_deref());
    let _ = STYLE.set(Style { format, colour });
}

/// Whether text on standard error may be coloured.
pub(crate) fn colour() -> bool {
    STYLE.get().is_some_and(|s| s.colour)
}

/// Whether diagnostics go out as JSON.
pub(crate) fn json() -> bool {
    STYLE.get().is_some_and(|s| s.format == MessageFormat::Json)
}

/// Whether a warning already printed is left out ([`once`]).
static ONCE: AtomicBool = AtomicBool::new(false);
/// The warnings printed so far under [`once`]: file, code and the primary
/// label's position.
static SEEN: Mutex<Vec<(String, &'static str, Option<usize>)>> = Mutex::new(Vec::new());

/// From now on, a warning printed before (same file, code and position,
/// whatever its message: E140 names each build's memory schedule) is not
/// printed again; errors always are.
pub(crate) fn once() {
    ONCE.store(true, Ordering::Relaxed);
}

/// Prints diagnostics of `file` on standard error in the chosen style.
pub(crate) fn emit(diags: &[Diagnostic], file: &SourceFile) {
    let kept: Vec<Diagnostic>;
    let diags = if ONCE.load(Ordering::Relaxed) {
        let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        kept = diags
            .iter()
            .filter(|d| {
                if d.is_error() {
                    return true;
                }
                let key = (file.name.clone(), d.code, d.primary_span().map(|s| s.start));
                let new = !seen.contains(&key);
                if new {
                    seen.push(key);
                }
                new
            })
            .cloned()
            .collect();
        &kept[..]
    } else {
        diags
    };
    if diags.is_empty() {
        return;
    }
    if json() {
        let mut out = String::new();
        for d in diags {
            out.push_str(&to_json(d, file).to_string());
            out.push('\n');
        }
        eprint!("{out}");
    } else {
        eprint!("{}", render_styled(diags, file, colour()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn no_color_turns_auto_off_on_a_terminal() {
        assert!(use_colour(ColorChoice::Auto, true, None));
        assert!(use_colour(ColorChoice::Auto, true, Some(OsStr::new(""))));
        assert!(!use_colour(ColorChoice::Auto, true, Some(OsStr::new("1"))));
        assert!(!use_colour(ColorChoice::Auto, false, None));
        assert!(use_colour(
            ColorChoice::Always,
            false,
            Some(OsStr::new("1"))
        ));
        assert!(!use_colour(ColorChoice::Never, true, None));
    }
}
