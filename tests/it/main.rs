//! The integration tests: one binary, one module per area (what each
//! tests is in its module doc), with what they share in `support/`
//! (building, running, scratch folders), `testgen/` (random and fixed
//! HSDFGs) and `common/` (memory and sync generators). One binary links the
//! library once instead of once per file. `cargo test --test it NAME::`
//! runs one area (`./test --test it e2e::`).

mod common;
mod support;
mod testgen;

mod analysis;
mod architecture;
mod architecture_doc;
mod auto;
mod benchmarks_page;
mod builtins;
mod chain_props;
mod chains;
mod cli;
mod conduct;
mod cost;
mod deadline;
mod decisions;
mod delays;
mod diagnostics;
mod difftest;
mod dm;
mod doc_figures;
mod docs;
mod doctor;
mod e2e;
mod figures;
mod fmt;
mod fused_choice;
mod fuzz_front;
mod generate;
mod images;
mod incremental;
mod library;
mod limits;
mod lower_appendix;
mod lower_props;
mod lower_units;
mod memory_props;
mod mutation;
mod peers;
mod pipeline_props;
mod ptts_guard;
mod ptts_props;
mod ptts_snapshots;
mod ptts_times;
mod python_package;
mod realtime;
mod rings;
mod roundtrip;
mod runtime_c;
mod schedule_props;
mod sdf3;
mod sections;
mod semantics;
mod setup;
mod snapshots;
mod stages;
mod streaming;
mod streaming_kernels;
mod sync_props;
mod tall_frames;
mod throttle;
mod timing;
mod tune;
mod verify_appendix;
mod vocabulary;
