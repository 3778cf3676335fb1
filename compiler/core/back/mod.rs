//! Back ends: each takes a lowered IR and writes one output format.
//!
//! [`c`]: the program, the library (`-t library`) and its Python module;
//! [`wcet`]: the `-t wcet` harness that measures each function;
//! [`description`]: the description printer (`-t interpreter`, `-gd`);
//! [`dot`], [`gxl`], [`sdf3`]: the graph exports (`-dg`/`-ig`, `-gg`,
//! `-xr`); [`info`]: `-t info`, the bytes and rings of every memory
//! schedule; [`layout`]: where each buffer is, the ports and sub-boxes and
//! the C identifiers every C emitter shares.

pub mod c;
pub mod description;
pub mod dot;
pub mod gxl;
pub mod info;
pub mod layout;
pub mod sdf3;
pub mod wcet;
