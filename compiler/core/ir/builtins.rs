//! The built-in functions of docs/language.md, "Built-in functions", and which of them a function name
//! runs.
//!
//! A declared function is one C symbol with one port signature, so two
//! convolutions with different windows need two function names. A name made
//! of a built-in's name, `_` and a suffix (`func_conv_5x5`) is a *variant*
//! of that built-in: it runs the built-in's kernel (generated from its
//! definition, `ir::kernel::builtin`, for all but the sources and sinks) and
//! is checked against the built-in's shape — unless `--kernels` defines a
//! function of that name, which then takes precedence in the generated
//! program.

/// The built-in functions: the runtime implements the sources and sinks,
/// the others are generated from their definitions.
pub const BUILTINS: &[&str] = &[
    "func_source",
    "func_sink",
    "func_gain",
    "func_copy",
    "func_dup",
    "func_plus",
    "func_mul",
    "func_avg",
    "func_conv",
    "func_down",
    "func_up",
];

/// The built-in a function name runs: itself, or the built-in it is a
/// variant of (`func_conv_5x5` → `func_conv`).
pub fn builtin_of(name: &str) -> Option<&'static str> {
    BUILTINS.iter().copied().find(|b| {
        name == *b
            || name
                .strip_prefix(b)
                .is_some_and(|rest| rest.len() > 1 && rest.starts_with('_'))
    })
}

/// Whether a kernel of one's own (`own`, the `--kernels` functions)
/// replaces built-in `name`: a built-in's variant the user implements
/// runs the user's C, not the built-in's kernel.
pub fn replaced_by_own(name: &str, own: &[String]) -> bool {
    builtin_of(name).is_some() && own.iter().any(|o| o == name)
}
