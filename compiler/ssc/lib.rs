//! The `ssc` command (crate `ssc-cli`): the command line ([`cli`]) over the
//! compiler (crate `ssc`), and the tools that only the command has:
//! [`bench`](mod@bench) (`ssc bench`: configurations run and compared),
//! [`calibrate`] (`ssc calibrate`: the cost model's coefficients measured on
//! this CPU) and [`generate`] (`ssc generate`: random chains). `ssc ptts`
//! and `ssc throttle` are the crates `ssc-ptts` and `ssc-throttle`. See
//! `ARCHITECTURE.md`, "Crates".

pub mod bench;
pub mod calibrate;
pub mod cli;
pub mod generate;
