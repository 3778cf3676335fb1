//! The library target (`-t library`): what the chain shows its caller.
//!
//! Takes the HSDFG; gives the chain's external ports — every function
//! bound to the built-in `func_source` is an input, every one bound to
//! `func_sink` an output (not a user kernel of that name), named after the
//! function instance, in HSDFG order — and renders the header `NAME.h`, the
//! Python module `NAME.py` and the `pkg-config` file. The C side of the API
//! is part of `NAME.c` (`runtime-c/templates/library_api.c`). Guarantees:
//! the three files and the C API list the same ports in the same order.

use crate::ir::hsdfg::Hsdfg;
use crate::ir::{Direction, ElemType};
use askama::Template;

/// One external port of the chain.
#[derive(Clone, Debug)]
pub(super) struct ExternalView {
    /// The function instance (C-safe: the HSDFG's function names are).
    pub name: String,
    pub function_id: usize,
    pub output: bool,
    /// Its index among the inputs, or among the outputs.
    pub index: usize,
    pub c_type: &'static str,
    /// The runtime's `ssc_type` constant (`SSC_FLOAT`).
    pub ssc_type: &'static str,
    pub dtype: &'static str,
    pub width: u64,
    pub height: u64,
    pub size: u64,
}

/// The C type and numpy dtype of an element type, and its bytes.
fn types(t: ElemType) -> (&'static str, &'static str, u64) {
    match t {
        ElemType::Char => ("signed char", "int8", 1),
        ElemType::Uchar => ("unsigned char", "uint8", 1),
        ElemType::Short => ("short", "int16", 2),
        ElemType::Ushort => ("unsigned short", "uint16", 2),
        ElemType::Int => ("int", "int32", 4),
        ElemType::Uint => ("unsigned int", "uint32", 4),
        ElemType::Float => ("float", "float32", 4),
        ElemType::Double => ("double", "float64", 8),
    }
}

/// The external ports of `h`: sources bound to `func_source` (or a
/// variant, `func_source_16`) read the caller's frames, sinks bound to
/// `func_sink` (or a variant) write them.
pub(super) fn externals(h: &Hsdfg, user_kernels: &[String]) -> Vec<ExternalView> {
    let (mut n_in, mut n_out) = (0, 0);
    let mut v = Vec::new();
    for f in &h.functions {
        let id = f.id as usize;
        if user_kernels.contains(&f.function) {
            continue;
        }
        let (output, direction) = match crate::ir::builtins::builtin_of(&f.function) {
            Some("func_source") => (false, Direction::Out),
            Some("func_sink") => (true, Direction::In),
            _ => continue,
        };
        let Some(p) = f.ports.iter().find(|p| p.direction == direction) else {
            continue;
        };
        let (c_type, dtype, size) = types(p.ty);
        let counter = if output { &mut n_out } else { &mut n_in };
        v.push(ExternalView {
            name: f.name.clone(),
            function_id: id,
            output,
            index: *counter,
            c_type,
            ssc_type: crate::back::layout::c_type(p.ty),
            dtype,
            width: p.grid.x,
            height: p.grid.y,
            size,
        });
        *counter += 1;
    }
    v
}

#[derive(Template)]
#[template(path = "library.h", escape = "none")]
struct HeaderView<'a> {
    name: &'a str,
    upper: String,
    version: &'static str,
    source: &'a str,
    n_threads: usize,
    n_inputs: usize,
    n_outputs: usize,
    externals: &'a [ExternalView],
}

#[derive(Template)]
#[template(path = "library.pyi", escape = "none")]
struct StubView<'a> {
    name: &'a str,
    version: &'static str,
    source: &'a str,
    externals: &'a [ExternalView],
}

#[derive(Template)]
#[template(path = "library.py", escape = "none")]
struct PythonView<'a> {
    name: &'a str,
    version: &'static str,
    source: &'a str,
    n_threads: usize,
    n_inputs: usize,
    externals: &'a [ExternalView],
}

/// `(file name, contents)` of the header, the Python module and its type
/// stub (`NAME.pyi`).
pub(super) fn files(
    name: &str,
    source: &str,
    n_threads: usize,
    externals: &[ExternalView],
) -> Result<Vec<(String, String)>, askama::Error> {
    let n_inputs = externals.iter().filter(|e| !e.output).count();
    let n_outputs = externals.len() - n_inputs;
    let header = HeaderView {
        name,
        upper: name.to_ascii_uppercase(),
        version: env!("CARGO_PKG_VERSION"),
        source,
        n_threads,
        n_inputs,
        n_outputs,
        externals,
    }
    .render()?;
    let python = PythonView {
        name,
        version: env!("CARGO_PKG_VERSION"),
        source,
        n_threads,
        n_inputs,
        externals,
    }
    .render()?;
    let stub = StubView {
        name,
        version: env!("CARGO_PKG_VERSION"),
        source,
        externals,
    }
    .render()?;
    Ok(vec![
        (format!("{name}.h"), header),
        (format!("{name}.py"), python),
        (format!("{name}.pyi"), stub),
    ])
}

/// The `pkg-config` file of a library built into `dir` (absolute): the
/// include directory, and the shared library with an rpath to `dir`, so a
/// program linked as `pkg-config --libs` says runs without
/// `LD_LIBRARY_PATH`.
pub fn pkg_config(name: &str, dir: &std::path::Path) -> String {
    format!(
        "# Generated by ssc: the chain `{name}` as a library.\n\
         libdir={dir}\n\
         includedir={dir}\n\n\
         Name: {name}\n\
         Description: the ssc chain {name} (pinned threads, proven synchronisation)\n\
         Version: {version}\n\
         Cflags: -I${{includedir}}\n\
         Libs: -L${{libdir}} -Wl,-rpath,${{libdir}} -l{name}\n\
         Libs.private: -pthread -lm\n",
        dir = dir.display(),
        version = env!("CARGO_PKG_VERSION"),
    )
}
