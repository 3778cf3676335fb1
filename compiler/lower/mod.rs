//! Lowering: composition → declaration → instantiation → HSDFG.

pub mod hsdfg;
pub mod testgen;
