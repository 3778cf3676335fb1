//! A generated 100-box chain (`ssc generate`, seed 1, 256 × 256) split 16
//! ways (`-mdp 16`), lowered once; then `-ts reduced 16`, `-ms interference`,
//! synchronisation and the proof, each on its own and all together (what
//! `ssc::pipeline::compile` does after lowering).

use criterion::{criterion_group, criterion_main, Criterion};
use ssc::lower::{lower_to_hsdfg, split::SplitOptions, LowerOptions};
use ssc::memory::{allocate, MemoryKind};
use ssc::schedule::{schedule, ScheduleOptions, SchedulerKind};
use ssc::sync::{synchronise_plan, SyncOptions};
use ssc::verify::verify_with;
use ssc_cli::generate::{generate, GenerateOptions};

fn bench(c: &mut Criterion) {
    let desc = generate(&GenerateOptions::default());
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
    let (_, h) = lower_to_hsdfg(&desc, &opts).expect("the generated chain lowers");
    let kind = SchedulerKind::Reduced(16);
    let so = ScheduleOptions::default();
    let sync = SyncOptions::default();
    let s = schedule(&h, kind, &so);
    let m = allocate(&h, &s, MemoryKind::Interference);
    let plan = synchronise_plan(&h, &s, &m, &sync);
    let proof = verify_with(&h, &plan.runtime, &m.placements, &plan.extras()).expect("proven");
    eprintln!(
        "{} functions, {} actors, {} buffers; makespan {:.1} µs (bound {:.1}); {} bytes (bound {}); {} signals; {proof}",
        h.functions.len(),
        h.graph.node_count(),
        h.buffers.len(),
        s.makespan,
        s.lower_bound,
        m.used_bytes(),
        m.lower_bound,
        plan.runtime.signals.len()
    );
    for n in &s.notes {
        eprintln!("schedule: {n}");
    }

    let mut g = c.benchmark_group("100 boxes × 16");
    g.sample_size(10);
    g.bench_function("schedule reduced 16", |b| {
        b.iter(|| schedule(&h, kind, &so))
    });
    g.bench_function("allocate interference", |b| {
        b.iter(|| allocate(&h, &s, MemoryKind::Interference))
    });
    g.bench_function("synchronise", |b| {
        b.iter(|| synchronise_plan(&h, &s, &m, &sync))
    });
    g.bench_function("verify", |b| {
        b.iter(|| verify_with(&h, &plan.runtime, &m.placements, &plan.extras()).unwrap())
    });
    g.bench_function("all four", |b| {
        b.iter(|| {
            let s = schedule(&h, kind, &so);
            let m = allocate(&h, &s, MemoryKind::Interference);
            let plan = synchronise_plan(&h, &s, &m, &sync);
            verify_with(&h, &plan.runtime, &m.placements, &plan.extras()).unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
