//! What the generated program is built with: the C back end's options
//! (`COptions`), which the command line fills from its flags and every
//! part of the emitter reads.

use super::kernels::FloatRules;
use std::collections::BTreeMap;

/// What the generated program is built with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct COptions {
    /// The program's name (the description's file stem).
    pub name: String,
    /// The description's path, for the header comment.
    pub source: String,
    /// The options line, for the header comment.
    pub options: String,
    /// `-ic`.
    pub iterations: u64,
    /// `-cm` with `-ca`: the cores, thread i on `cores[i % len]`; `None` = not pinned.
    pub cores: Option<Vec<usize>>,
    /// `-cm` without pinning: every thread may run on any core of the mask
    /// (`ssc_init_mask`); used when `cores` is `None`.
    pub core_mask: Option<Vec<usize>>,
    /// `-ht`.
    pub huge_pages: bool,
    /// `-vo`.
    pub verbose: bool,
    /// `-ta`, `-tt`.
    pub time_boxes: bool,
    pub time_threads: bool,
    /// `-td` as the runtime's enum name, `-dt`.
    pub dump_format: Option<&'static str>,
    pub dump_path: Option<String>,
    /// Functions implemented by `--kernels` files.
    pub user_kernels: Vec<String>,
    /// `-ks -ki N`: a barrier (name, every N iterations, threads) that the
    /// runtime section cannot express.
    pub periodic_barrier: Option<(String, u32, Vec<String>)>,
    /// Initial tokens of signals with more than one (`-kd N`).
    pub signal_tokens: BTreeMap<String, u32>,
    /// `-dm`: every buffer allocated per iteration at run time (the runtime
    /// section has no memory section and the pipeline added the coarse
    /// orderings of `memory::dynamic_edges`).
    pub dynamic_memory: Option<DynamicMemory>,
    /// `-t library`: the chain as a library (`NAME.h`, the API in `NAME.c`,
    /// `NAME.py`) instead of a program with `main`.
    pub library: bool,
    /// `--check-kernels`: every folded buffer behind a guard
    /// (`ssc_guard_init`), so a kernel that addresses a row without
    /// `SSC_ROW` faults and is named.
    pub check_kernels: bool,
    /// `--contract` (every `a * b ± c` a defined function writes, the
    /// weighted sums of its window operators and `round`'s `+ 0.5` in one
    /// rounding) and `--reciprocal` (a floating `a / c` by a constant as
    /// `a * (1/c)`), each the same in every loop of every schedule
    /// (docs/language.md, "Contraction" and "Reciprocals").
    pub float: FloatRules,
}

/// `-dm dynamic` (malloc / free) or `-dm reduced` (a pool of blocks per
/// buffer size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DynamicMemory {
    Dynamic,
    Reduced,
}
