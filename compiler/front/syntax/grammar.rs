//! The pest parser generated from `grammar/ssc.pest`.

#[derive(pest_derive::Parser)]
#[grammar = "grammar/ssc.pest"]
pub struct SscParser;
