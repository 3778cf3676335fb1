//! Back ends: each takes a lowered IR and writes one output format.

pub mod c;
pub mod description;
pub mod dot;
pub mod gxl;
pub mod info;
pub mod layout;
pub mod sdf3;
pub mod wcet;
