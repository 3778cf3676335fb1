//! Lowers a 100-box chain (source, 98 gains/convolutions, sink) split 16
//! ways: compose → split with dependencies → HSDFG.

use criterion::{criterion_group, criterion_main, Criterion};
use ssc::lower::{lower_to_hsdfg, split::SplitOptions, LowerOptions};

fn chain(boxes: usize) -> String {
    let mut s = String::from(
        "composition {\n\
         container_declaration source { out OUT float mul [1, 1]; };\n\
         container_declaration sink { in IN float mul [1, 1]; };\n\
         container_declaration gain { in IN float mul [1, 1]; out OUT float mul [1, 1]; };\n\
         container_declaration conv { in IN float mul [1, 1] [5, 5]; out OUT float mul [1, 1]; };\n\
         container_declaration app { };\n\
         container_bind source func_source NONE, sink func_sink NONE, gain func_gain FULL, conv func_conv FULL;\n\
         container_composition app {\ncontainer b0 source index",
    );
    for i in 1..boxes - 1 {
        s += &format!(", b{i} {} index", if i % 2 == 0 { "gain" } else { "conv" });
    }
    s += &format!(", b{} sink index;\n", boxes - 1);
    for i in 1..boxes {
        s += &format!("b{}.out -> b{i}.in;\n", i - 1);
    }
    s + "};\ncompose app [512, 512];\n}\n"
}

fn bench(c: &mut Criterion) {
    let text = chain(100);
    let desc = ssc::front::syntax::parse(&text).unwrap();
    let opts = LowerOptions {
        inline: false,
        contract: false,
        own_kernels: Vec::new(),
        resolution_override: None,
        cost: None,
        split: SplitOptions {
            max_parts: 16,
            ..SplitOptions::default()
        },
    };
    let (_, g) = lower_to_hsdfg(&desc, &opts).unwrap();
    assert_eq!(g.actors().count(), 98 * 16 + 2);
    c.bench_function("lower 100-box chain x16", |b| {
        b.iter(|| lower_to_hsdfg(std::hint::black_box(&desc), &opts).unwrap())
    });
    // Validating: the fully lowered file read back (declaration matched up
    // to renaming, instantiation checked for tiling and dependencies).
    let lowered = ssc::lower::lower_to_instantiation(&desc, &opts).unwrap();
    let again = ssc::front::syntax::parse(&ssc::back::description::print(&lowered)).unwrap();
    c.bench_function("validate lowered 100-box chain x16", |b| {
        b.iter(|| ssc::lower::lower_to_instantiation(std::hint::black_box(&again), &opts).unwrap())
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
