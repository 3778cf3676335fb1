//! Why writing or compiling a program failed: the C back end's one error
//! type, which writing (`compile::write_files`), the object cache
//! (`cache`) and compiling (`compile`) give.

use std::path::PathBuf;

/// Why writing or compiling failed (exit code 3: an external step).
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    #[error("cannot write `{path}`: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot run the C compiler `{cc}`: {source}")]
    Spawn { cc: String, source: std::io::Error },
    #[error("the C compiler failed (`{command}`):\n{output}")]
    Failed { command: String, output: String },
}
