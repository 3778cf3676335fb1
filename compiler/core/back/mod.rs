//! Back ends: each takes a lowered IR and writes one output format.
//!
//! [`c`]: the program, the library (`-t library`) and its Python module;
//! [`wcet`]: the `-t wcet` harness that measures each function;
//! [`description`]: the description printer (`-t interpreter`, `-gd`);
//! [`dot`], [`gxl`], [`sdf3`]: the graph exports (`-dg`/`-ig`, `-gg`,
//! `-xr`); [`info`]: `-t info`, the bytes and rings of every memory
//! schedule; [`layout`]: where each buffer is, the ports and sub-boxes and
//! the C identifiers every C emitter shares.
//!
//! Takes what the pipeline gives ([`crate::pipeline::Compiled`]: the
//! description with every section, the HSDFG, the proven runtime with its
//! memory sections) or, for the exports, the HSDFG or the runtime graph
//! alone; gives text or the files of a folder. Guarantees: no back end
//! changes or re-derives what the stages decided (the addresses come from
//! the runtime's memory sections through [`layout`], the reader the proof
//! uses); the same inputs give the same bytes; C is written from askama
//! templates under `runtime-c/templates/`, with one exception, the
//! expression trees of `c::expr`, which a template cannot recurse over.

pub mod c;
pub mod description;
pub mod dot;
pub mod gxl;
pub mod info;
pub mod layout;
pub mod sdf3;
pub mod wcet;
