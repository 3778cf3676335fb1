//! The `runtime` section: timing, threads, memory, programs, signals.

use super::{Ident, PortRef, Span, Spanned, SubBoxRef};

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

/// `FUNC T` in `timing` (µs for the full resolution), or `wt T` / `sg T` in
/// `timing_system`. Times are non-negative decimals.
#[derive(Clone, Debug, PartialEq)]
pub struct TimingEntry {
    pub name: Ident,
    pub time: Spanned<f64>,
    pub span: Span,
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
