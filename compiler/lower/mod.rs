//! Lowering: composition → declaration → instantiation → HSDFG.

pub mod compose;
pub mod deps;
pub mod hsdfg;
pub mod split;
pub mod timing;
