//! Back ends: each takes a lowered IR and writes one output format.

pub mod c;
pub mod description;
