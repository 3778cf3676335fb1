//! The pest parser of the `.ptts` format: the description language's
//! lexical rules (`grammar/lexical.pest`), then `grammar/ptts.pest`.

#[derive(pest_derive::Parser)]
#[grammar = "../../grammar/lexical.pest"]
#[grammar = "../../grammar/ptts.pest"]
pub struct PttsParser;
