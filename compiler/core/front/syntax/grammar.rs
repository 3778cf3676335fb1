//! The pest parser of the description language: the shared lexical rules
//! (`grammar/lexical.pest`), then `grammar/ssc.pest`.

#[derive(pest_derive::Parser)]
#[grammar = "../../grammar/lexical.pest"]
#[grammar = "../../grammar/ssc.pest"]
pub struct SscParser;
