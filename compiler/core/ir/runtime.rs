//! The `runtime` section: timing, threads, memory, programs, signals.

use super::{Ident, Pair, PortRef, Span, Spanned, SubBoxRef};

/// `runtime { ... }`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Runtime {
    pub timing: Vec<TimingEntry>,
    pub timing_system: Vec<TimingEntry>,
    pub thread_schedule: Vec<ThreadSchedule>,
    pub memory_mappings: Vec<MemoryMapping>,
    pub memory_bindings: Vec<MemoryBinding>,
    pub memory_schedules: Vec<MemorySchedule>,
    pub thread_executions: Vec<ThreadExecution>,
    pub signals: Vec<Signal>,
    pub barriers: Vec<Barrier>,
    pub span: Span,
}

impl Runtime {
    /// It places buffers itself (`memory_mapping` or `memory_binding`);
    /// without either, every buffer has its own allocation.
    pub fn places_buffers(&self) -> bool {
        !self.memory_mappings.is_empty() || !self.memory_bindings.is_empty()
    }
}

/// An entry of `timing` (µs of one run of a function instance over its
/// whole iteration space), or `wt T` / `sg T` in `timing_system`. Times are
/// non-negative decimals.
#[derive(Clone, Debug, PartialEq)]
pub struct TimingEntry {
    /// The C function (`func_conv`), or `wt` / `sg` in `timing_system`.
    pub name: Ident,
    /// Which of the C function's instances the time is for.
    pub scope: TimingScope,
    pub time: Spanned<f64>,
    pub span: Span,
}

impl TimingEntry {
    /// `FUNC T` (or `wt T` / `sg T`).
    pub fn function(name: impl Into<String>, time: f64) -> TimingEntry {
        TimingEntry {
            name: Ident::new(name),
            scope: TimingScope::Function,
            time: Spanned::bare(time),
            span: Span::NONE,
        }
    }

    /// `FUNC [w, h] T`.
    pub fn resolution(name: impl Into<String>, resolution: Pair, time: f64) -> TimingEntry {
        TimingEntry {
            scope: TimingScope::Resolution(Spanned::bare(resolution)),
            ..TimingEntry::function(name, time)
        }
    }

    /// `INSTANCE FUNC T`.
    pub fn instance(
        instance: impl Into<String>,
        function: impl Into<String>,
        time: f64,
    ) -> TimingEntry {
        TimingEntry {
            scope: TimingScope::Instance(Ident::new(instance)),
            ..TimingEntry::function(function, time)
        }
    }

    /// What the entry is keyed by, as written before its time: `func_conv`,
    /// `func_conv [256, 256]`, `nr1 func_conv`.
    pub fn key_text(&self) -> String {
        match &self.scope {
            TimingScope::Function => self.name.name.clone(),
            TimingScope::Resolution(r) => format!("{} {}", self.name, r.value),
            TimingScope::Instance(i) => format!("{i} {}", self.name),
        }
    }
}

/// The instances a `timing` entry is for, least specific first; the most
/// specific entry that matches an instance gives its time.
#[derive(Clone, Debug, PartialEq)]
pub enum TimingScope {
    /// `FUNC T`: every instance of the C function.
    Function,
    /// `FUNC [w, h] T`: the instances of the C function at that resolution.
    Resolution(Spanned<Pair>),
    /// `INSTANCE FUNC T`: one function instance of the declaration (which
    /// must run FUNC).
    Instance(Ident),
}

/// `TH [F.k, ...]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadSchedule {
    pub thread: Ident,
    pub subboxes: Vec<SubBoxRef>,
    pub span: Span,
}

/// `shared` (one arena) or `local` (the arena of one thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arena {
    Shared,
    Local,
}

impl Arena {
    pub fn keyword(self) -> &'static str {
        match self {
            Arena::Shared => "shared",
            Arena::Local => "local",
        }
    }
}

/// `M (shared|local) START END`: the byte range `[START, END)`.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryMapping {
    pub name: Ident,
    pub arena: Arena,
    pub start: Spanned<u64>,
    pub end: Spanned<u64>,
    pub span: Span,
}

/// `M [F.PORT, ...]`: the ports whose buffer lives in mapping M.
#[derive(Clone, Debug, PartialEq)]
pub struct MemoryBinding {
    pub mapping: Ident,
    pub ports: Vec<PortRef>,
    pub span: Span,
}

/// `MS [M, ...]`: mappings that share bytes, in order of use.
#[derive(Clone, Debug, PartialEq)]
pub struct MemorySchedule {
    pub name: Ident,
    pub mappings: Vec<Ident>,
    pub span: Span,
}

/// One operation of a thread's program.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// `W s`: take one token from signal s.
    Wait(Ident),
    /// `S s`: add one token to signal s.
    Signal(Ident),
    /// `E F.k`: execute a sub-box.
    Exec(SubBoxRef),
    /// `B b`: meet barrier b.
    Barrier(Ident),
}

/// The operation as the language writes it: `W s1`, `S s1`, `E f6.0`, `B b0`.
impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Op::Wait(s) => write!(f, "W {s}"),
            Op::Signal(s) => write!(f, "S {s}"),
            Op::Exec(sb) => write!(f, "E {sb}"),
            Op::Barrier(b) => write!(f, "B {b}"),
        }
    }
}

/// `TH [OP, ...]`.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadExecution {
    pub thread: Ident,
    pub ops: Vec<Spanned<Op>>,
    pub span: Span,
}

/// `!? SIG`: a signal, with one initial token when `!` is written.
#[derive(Clone, Debug, PartialEq)]
pub struct Signal {
    pub name: Ident,
    pub initial_token: bool,
    pub span: Span,
}

/// `BAR [TH, ...]`: the threads that meet at `B BAR`.
#[derive(Clone, Debug, PartialEq)]
pub struct Barrier {
    pub name: Ident,
    pub threads: Vec<Ident>,
    pub span: Span,
}
