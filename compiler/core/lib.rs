//! ssc, the Simple Streaming Compiler.
//!
//! The pipeline reads like the module list: [`front`] (syntax, checker) →
//! [`lower`] (compose, delays, stage fusion, split, HSDFG) → [`schedule`] →
//! [`memory`] → [`sync`] → [`verify`] (the deadlock and race proof, on
//! [`reach`]) → [`back`] (C, description printer, exports) → [`analysis`]
//! (`-pr`'s runtime graph and its maximum cycle mean). Each stage takes the
//! IR of the stage before it ([`ir`]) and returns its own; [`pipeline`]
//! chains them and [`diagnostics`] is what every stage reports.
//!
//! This crate is the compiler alone (`compiler/core`): it depends on no
//! command-line, plotting or libc crate. Beside it in the workspace:
//! `ssc-ptts` (`ssc ptts`), `ssc-throttle` (`ssc throttle`) and `ssc-cli`,
//! the `ssc` binary with `bench`, `calibrate` and `generate`. See
//! `ARCHITECTURE.md`, "Crates".
//!
//! The entry point is [`compile`] (text → proven runtime, with an example);
//! [`back`] turns its result into files.
//!
//! # The IRs
//!
//! Every IR lives in [`ir`], so a stage after lowering depends on `ir`, not
//! on the stage that builds its input, and no stage reads an IR more than
//! one step behind it:
//!
//! - [`ir::Description`]: a chain ([`ir::Chain`], as written) or the four
//!   sections of `docs/language.md` (composition, declaration,
//!   instantiation, runtime), typed, with [`ir::Span`]s that never take
//!   part in equality, so `parse(print(ir)) == ir` is a test. The front end
//!   builds it ([`front::syntax`]), expands a chain into its composition
//!   ([`front::chain`]) and checks it ([`front::check`](mod@front::check));
//!   lowering fills in the missing [`ir::Declaration`] and
//!   [`ir::Instantiation`].
//! - [`ir::kernel::Kernel`], typed from an [`ir::Definition`]: a defined
//!   function's loop body — per output, an expression tree of nodes of one
//!   element type each (comparisons only as `select` conditions), every
//!   constant resolved, every window, block and table read named by its
//!   source (an input port, or an [`ir::kernel::Local`]: an expression of
//!   ports that a window operator reads), and the proven value range of
//!   every node.
//! - [`ir::hsdfg::Hsdfg`], built by [`lower::hsdfg`]: actors (sub-boxes
//!   with regions, times and accesses), 0-token dependency edges and their
//!   1-token write-after-read partners, the function instances with their
//!   port geometry, and the buffers (one per OUT port). Everything after
//!   lowering reads this graph, never the description.
//! - [`schedule::Schedule`]: per thread, the ordered sub-boxes, cores,
//!   predicted start times, the makespan and its lower bound.
//! - [`memory::MemoryPlan`]: the placement of every buffer (arena,
//!   offset, and the rows a folded buffer keeps), the 1-token ordering
//!   edges the placement relies on, its bytes against the lower bound.
//! - [`sync::SyncPlan`]: the [`ir::Runtime`] (programs, signals, barriers,
//!   memory sections) and what the IR cannot say (the `-ks -ki` periodic
//!   barrier, `-kd` token counts).
//! - [`verify::Proof`]: what was proven — deadlock freedom, race freedom
//!   over iterations i and i + 1, every dependency enforced.
//! - [`ir::runtime_graph::RuntimeGraph`], built by
//!   [`analysis::runtime_graph`]: the runtime HSDFG, one actor per
//!   sub-box (its time with the folded waits, signals and transfers, in
//!   whole ns), barrier or idle thread, and channels for thread order,
//!   signals, barriers and self-loops, with their tokens. `-pr` analyses
//!   it, `-xr` and `-gg` export it.
//! - [`back::c::Program`]: the files of a program directory and the
//!   element types its built-ins use.
//!
//! [`pipeline::compile`] chains lowering → scheduling → memory → sync →
//! verify (or, for a description whose runtime section has programs,
//! proves that runtime and honours it as written) and returns the
//! warnings of what it decided ([`pipeline::Compiled`]).

pub mod analysis;
pub mod back;
pub mod diagnostics;
pub mod front;
pub mod ir;
pub mod lower;
pub mod memory;
pub mod pipeline;
pub mod reach;
pub mod schedule;
pub mod sync;
pub mod verify;

pub use pipeline::compile_text as compile;
