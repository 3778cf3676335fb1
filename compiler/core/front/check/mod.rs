//! The checker: everything about a description that needs no later stage.
//!
//! Takes the IR the parser built ([`Description`]); gives every problem it
//! finds as a [`Diagnostic`] (errors and warnings), sorted by the position of
//! the primary label (source order; diagnostics without a position last).
//! Guarantees: never panics on any IR the parser can build; reports all
//! problems, not just the first, and avoids cascades (a name that is not
//! defined is reported once, and what hangs off it is not checked further);
//! the same input always gives the same diagnostics in the same order.
//!
//! Not checked here: that a hand-written declaration is isomorphic to the
//! composition (lowering), deadlock and race freedom of a runtime (sync).
//! The codes are listed in `docs/diagnostics.md` and in [`codes`].

mod builtins;
mod composition;
mod connections;
mod declaration;
pub(crate) mod definitions;
mod functions;
mod graph;
mod instantiation;
pub(crate) mod names;
mod ports;
mod rows;
mod runtime;

use crate::diagnostics::Diagnostic;
use crate::ir::Description;

/// The diagnostic codes of the checker, one per kind of problem.
pub mod codes {
    /// A name defined twice in one scope.
    pub const DUPLICATE: &str = "E004";
    /// A name that is used but not defined.
    pub const UNDEFINED: &str = "E005";
    /// A leaf container is instantiated but never bound to a function.
    pub const UNBOUND: &str = "E006";
    /// Compositions contain themselves.
    pub const RECURSIVE: &str = "E007";
    /// A connection starts at an input or ends at an output.
    pub const DIRECTION: &str = "E008";
    /// Connected ports have different element types.
    pub const TYPE_MISMATCH: &str = "E009";
    /// Connected ports have different grids.
    pub const GRID_MISMATCH: &str = "E010";
    /// A window on an OUT port.
    pub const OUT_WINDOW: &str = "E011";
    /// An IN port that nothing drives.
    pub const NO_DRIVER: &str = "E012";
    /// An IN port with more than one driver.
    pub const MANY_DRIVERS: &str = "E013";
    /// (warning) An OUT port that drives nothing.
    pub const UNUSED_OUTPUT: &str = "E014";
    /// The connections form a cycle.
    pub const CYCLE: &str = "E015";
    /// A function of the declaration has no sub-boxes.
    pub const NO_SUBBOXES: &str = "E016";
    /// A sub-box region is empty or leaves the function's space.
    pub const REGION_OUTSIDE: &str = "E017";
    /// The sub-boxes of a function leave a gap.
    pub const TILING_GAP: &str = "E018";
    /// Two sub-boxes of a function overlap.
    pub const TILING_OVERLAP: &str = "E019";
    /// (warning) The sub-box indices of a function are not 0..n-1.
    pub const SUBBOX_NUMBERING: &str = "E020";
    /// A `NONE` function split into more than one sub-box.
    pub const SPLIT_NONE: &str = "E021";
    /// A sub-box that no thread schedules or executes.
    pub const MISSING_SUBBOX: &str = "E022";
    /// A sub-box scheduled or executed more than once.
    pub const REPEATED_SUBBOX: &str = "E023";
    /// A thread executes a sub-box that another thread is scheduled to run.
    pub const WRONG_THREAD: &str = "E024";
    /// A signal not waited exactly once or not signalled exactly once.
    pub const SIGNAL_USE: &str = "E025";
    /// A declared signal that no thread uses.
    pub const UNUSED_SIGNAL: &str = "E026";
    /// A memory range with START >= END.
    pub const EMPTY_RANGE: &str = "E027";
    /// An OUT port without a memory binding.
    pub const UNBOUND_BUFFER: &str = "E028";
    /// One mapping bound to several buffers, or one buffer to several mappings.
    pub const MAPPING_BUFFERS: &str = "E029";
    /// A mapping too small for its buffer.
    pub const MAPPING_TOO_SMALL: &str = "E030";
    /// A built-in function bound to ports of the wrong count or shape.
    pub const BUILTIN_SHAPE: &str = "E031";
    /// The ports of a built-in function have different types.
    pub const BUILTIN_TYPES: &str = "E032";
    /// A grid or a buffer larger than 2^63 bytes.
    pub const OVERFLOW: &str = "E033";
    /// A thread meets a barrier it is not listed in, or the other way round.
    pub const BARRIER_MEMBERS: &str = "E034";
    /// A container both bound to a function and composed.
    pub const BOUND_AND_COMPOSED: &str = "E035";
    /// (warning) A function name within a few edits of a built-in's.
    pub const UNKNOWN_FUNCTION: &str = "E036";
    /// A `timing` entry for a function instance the declaration does not
    /// have, or for one with another C function than it runs.
    pub const UNKNOWN_TIMED_INSTANCE: &str = "E037";
    /// A function that is no built-in, variant, definition of the
    /// description nor kernel of the command line (`ssc check`, `ssc build`).
    pub const UNKNOWN: &str = "E038";
    /// (warning) `ROWS` on a built-in or a defined function.
    pub const ROWS_NOT_OWN: &str = "E053";
    /// A delay on a connection to or from a composition's own port.
    pub const DELAY_ON_SELF: &str = "E054";
    /// A delay's initial value that its element type cannot hold.
    pub const DELAY_VALUE: &str = "E055";
    /// Delayed readers of one output with different initial values.
    pub const DELAY_VALUES_DIFFER: &str = "E056";
}

/// Checks every section present, and each against the sections above it.
pub fn check(desc: &Description) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let dir = desc.dir.as_deref();
    if let Some(c) = &desc.composition {
        composition::check(c, dir, &mut out);
    }
    if let Some(d) = &desc.declaration {
        declaration::check(d, dir, &mut out);
        if let Some(i) = &desc.instantiation {
            instantiation::check(d, i, &mut out);
            if let Some(r) = &desc.runtime {
                runtime::check(d, i, r, &mut out);
            }
        }
    }
    out.sort_by_key(|d| d.primary_span().map(|s| s.start).unwrap_or(usize::MAX));
    out
}

/// [`check`], and every function bound must be known (E038): a built-in,
/// a variant of one, defined in the description (`function_definition`),
/// or one of `kernels`, the functions the command line's `--kernels`
/// files define. What `ssc check` and `ssc build` run; the library's
/// [`check`] leaves unknown functions to code generation (E301), where
/// its caller names its kernels.
pub fn check_with_kernels(desc: &Description, kernels: &[String]) -> Vec<Diagnostic> {
    let mut out = check(desc);
    functions::unknown(desc, kernels, &mut out);
    out.sort_by_key(|d| d.primary_span().map(|s| s.start).unwrap_or(usize::MAX));
    out
}
