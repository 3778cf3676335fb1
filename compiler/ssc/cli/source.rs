//! Reading a description from a file or standard input, parsing it, and
//! reporting its diagnostics.

use super::exit;
use ssc::diagnostics::{Diagnostic, SourceFile};
use ssc::ir::Description;
use ssc::ir::Span;
use std::io::Read;
use std::path::Path;

/// Why a source could not be read.
pub(crate) enum ReadError {
    /// The file could not be opened or read (a command-line problem: exit 2).
    Io(String),
    /// The bytes are not UTF-8 text (an input problem: exit 1).
    NotText(Box<(SourceFile, Diagnostic)>),
}

/// Reads `path` (`-` = standard input) as UTF-8 text.
pub(crate) fn read(path: &Path) -> Result<SourceFile, ReadError> {
    let name = path.display().to_string();
    let mut bytes = Vec::new();
    let result = if name == "-" {
        std::io::stdin().read_to_end(&mut bytes).map(|_| ())
    } else {
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map(|_| ())
    };
    if let Err(e) = result {
        return Err(ReadError::Io(format!("cannot read `{name}`: {e}")));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(SourceFile::new(
            if name == "-" { "<stdin>".into() } else { name },
            text,
        )),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bytes = e.into_bytes();
            let byte = bytes[at];
            // Show the valid prefix so the position can be rendered.
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let offset = String::from_utf8_lossy(&bytes[..at]).len();
            let file = SourceFile::new(name, text);
            let diag = Diagnostic::error("E000", "the file is not UTF-8 text")
                .label(
                    Span::new(offset, offset + 1),
                    format!("byte 0x{byte:02x} is not valid UTF-8"),
                )
                .hint("a description is plain text; is this a binary file?");
            Err(ReadError::NotText(Box::new((file, diag))))
        }
    }
}

/// Reads and parses a file; on failure prints the diagnostics and gives the exit code.
pub(crate) fn load(path: &Path) -> Result<(SourceFile, Description), i32> {
    let file = match read(path) {
        Ok(f) => f,
        Err(ReadError::Io(msg)) => {
            eprintln!("error: {msg}");
            return Err(exit::USAGE);
        }
        Err(ReadError::NotText(bad)) => {
            let (file, diag) = *bad;
            super::diag::emit(&[diag], &file);
            return Err(exit::INPUT);
        }
    };
    match ssc::front::syntax::parse(&file.text) {
        Ok(mut desc) => {
            desc.dir = path
                .parent()
                .filter(|_| path != Path::new("-"))
                .map(Path::to_path_buf);
            Ok((file, desc))
        }
        Err(diags) => {
            super::diag::emit(&diags, &file);
            Err(exit::INPUT)
        }
    }
}

/// [`load`], then the chain (if any) expanded with `-D NAME=VALUE`
/// `defines` into the composition it stands for; its warnings printed.
pub(crate) fn load_expanded(
    path: &Path,
    defines: &[String],
) -> Result<(SourceFile, Description), i32> {
    let mut parsed = Vec::new();
    for d in defines {
        match d.split_once('=') {
            Some((n, v)) if !n.trim().is_empty() && !v.trim().is_empty() => {
                parsed.push(ssc::front::chain::Define {
                    name: n.trim().to_string(),
                    value: v.trim().to_string(),
                })
            }
            _ => {
                eprintln!("error: `-D {d}`: write `-D NAME=VALUE`, e.g. `-D W=1760`");
                return Err(exit::USAGE);
            }
        }
    }
    let (file, desc) = load(path)?;
    match ssc::front::chain::expand(&desc, &parsed) {
        Ok(x) => {
            report(&x.warnings, &file);
            Ok((file, x.description))
        }
        Err(diags) => {
            super::diag::emit(&diags, &file);
            Err(exit::INPUT)
        }
    }
}

/// Prints diagnostics; returns whether any is an error.
pub(crate) fn report(diags: &[Diagnostic], file: &SourceFile) -> bool {
    if !diags.is_empty() {
        super::diag::emit(diags, file);
    }
    diags.iter().any(|d| d.is_error())
}
