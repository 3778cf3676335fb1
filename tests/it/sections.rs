//! One reader of a runtime's memory sections (`memory::sections`): the
//! proof's placements (`verify::placements_from_runtime`) and the addresses
//! of the generated C (`back::c::emit`, through `back::layout`) come from
//! it, so a change to a `memory_mapping` is seen by both, and a section
//! that cannot be read is refused by both with the same message.

use crate::testgen;
use ssc::back::c::{emit, COptions};
use ssc::ir::Runtime;
use ssc::memory::sections::SectionError;
use ssc::verify::{placements_from_runtime, verify, CounterExample};
use testgen::appendix_hsdfg;

fn appendix_runtime() -> Runtime {
    let text = std::fs::read_to_string("examples/appendix.ssc").unwrap();
    let d = ssc::front::syntax::parse(&text).expect("appendix parses");
    d.runtime.expect("appendix has a runtime")
}

fn program(h: &ssc::ir::hsdfg::Hsdfg, r: &Runtime) -> String {
    let o = COptions {
        name: "appendix".into(),
        iterations: 1,
        ..Default::default()
    };
    let p = emit(h, r, &o).unwrap_or_else(|d| panic!("{d:?}"));
    p.files[0].1.clone()
}

/// Moves mapping `name` to `[start, end)`.
fn moved(r: &Runtime, name: &str, start: u64, end: u64) -> Runtime {
    let mut r = r.clone();
    let m = r
        .memory_mappings
        .iter_mut()
        .find(|m| m.name.name == name)
        .unwrap_or_else(|| panic!("no mapping {name}"));
    m.start.value = start;
    m.end.value = end;
    r
}

#[test]
fn a_moved_mapping_is_seen_by_the_proof_and_the_program() {
    let h = appendix_hsdfg();
    let r = appendix_runtime();
    // m4 holds f7.out, the buffer f9 reads: 256×256 ints.
    let f7_out = h.functions.iter().find(|f| f.name == "f7").unwrap().ports[1].buffer;
    let before = placements_from_runtime(&h, &r).unwrap();
    assert_eq!(before[f7_out.0].offset, 524288);
    let c = program(&h, &r);
    assert!(c.contains("chain->out_f7[0] = ssc_port_make(chain->shared_arena.base + 524288,"));
    assert!(c.contains("chain->in_f9[0] = ssc_port_make(chain->shared_arena.base + 524288,"));
    assert!(c.contains("ssc_arena_init(&chain->shared_arena, 786432,"));

    let r = moved(&r, "m4", 1048576, 1310720);
    let after = placements_from_runtime(&h, &r).unwrap();
    assert_eq!(after[f7_out.0].offset, 1048576);
    assert_eq!(after[f7_out.0].bytes, 262144);
    verify(&h, &r, &after).expect("the moved mapping shares no byte");
    let c = program(&h, &r);
    assert!(c.contains("chain->out_f7[0] = ssc_port_make(chain->shared_arena.base + 1048576,"));
    assert!(c.contains("chain->in_f9[0] = ssc_port_make(chain->shared_arena.base + 1048576,"));
    assert!(c.contains("ssc_arena_init(&chain->shared_arena, 1310720,"));
    assert!(!c.contains("base + 524288"));
}

#[test]
fn an_unreadable_section_is_refused_by_the_proof_and_the_program_alike() {
    let h = appendix_hsdfg();
    let mut r = appendix_runtime();
    r.memory_mappings.retain(|m| m.name.name != "m2");
    let proof = placements_from_runtime(&h, &r).unwrap_err();
    assert_eq!(proof.len(), 1);
    let CounterExample::Malformed(m) = &proof[0] else {
        panic!("{proof:?}")
    };
    // The error names the binding by its index; the text comes from it.
    let SectionError::UnknownMapping { binding, .. } = *m else {
        panic!("{m:?}")
    };
    assert_eq!(r.memory_bindings[binding].mapping.name, "m2");
    let text = proof[0].display(&h, &r).to_string();
    assert!(text.contains("mapping m2"), "{text}");
    let o = COptions {
        name: "appendix".into(),
        ..Default::default()
    };
    let d = emit(&h, &r, &o).unwrap_err();
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].message, text);
}
