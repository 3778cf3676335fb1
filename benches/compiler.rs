//! The compiler's own speed, stage by stage, on generated chains
//! (`ssc_cli::generate`) of 100, 1 000 and 10 000 boxes at 256×256, split 2
//! ways (the machine's 2 CPUs): parse, lower (compose → split → HSDFG),
//! schedule (fixed, and reduced within its state budget), allocate
//! (interference), emit (synchronise, prove, C) and the whole `compile`.
//!
//! `SSC_BENCH_SIZES=100,1000` limits the sizes. See BENCHMARKS.md.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ssc::back::description::print;
use ssc::lower::{lower_to_hsdfg, LowerOptions};
use ssc::memory::MemoryKind;
use ssc::pipeline;
use ssc::schedule::{ScheduleOptions, SchedulerKind};
use ssc::sync::SyncOptions;
use ssc_cli::generate::{generate, GenerateOptions};
use std::hint::black_box;
use std::time::Duration;

fn sizes() -> Vec<usize> {
    std::env::var("SSC_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![100, 1_000, 10_000])
}

fn options(kind: SchedulerKind) -> pipeline::Options {
    let mut lower = LowerOptions::default();
    lower.split.max_parts = 2;
    pipeline::Options {
        lower,
        scheduler: kind,
        schedule: ScheduleOptions {
            cores: Some(vec![0, 1]),
            ..ScheduleOptions::default()
        },
        memory: MemoryKind::Interference,
        sync: SyncOptions::default(),
        thread_execution: true,
        dynamic_memory: false,
        asked: Default::default(),
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("compiler");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    for boxes in sizes() {
        let desc = generate(&GenerateOptions {
            boxes,
            sources: (boxes / 50).clamp(2, 16),
            sinks: (boxes / 50).clamp(2, 16),
            ..GenerateOptions::default()
        });
        let text = print(&desc);
        let opts = options(SchedulerKind::Fixed(2));
        g.bench_with_input(BenchmarkId::new("parse", boxes), &text, |b, t| {
            b.iter(|| ssc::front::syntax::parse(black_box(t)).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("lower", boxes), &desc, |b, d| {
            b.iter(|| lower_to_hsdfg(black_box(d), &opts.lower).unwrap())
        });
        let (_, h) = lower_to_hsdfg(&desc, &opts.lower).unwrap();
        g.bench_with_input(BenchmarkId::new("schedule fixed", boxes), &h, |b, h| {
            b.iter(|| {
                ssc::schedule::schedule(black_box(h), SchedulerKind::Fixed(2), &opts.schedule)
            })
        });
        g.bench_with_input(BenchmarkId::new("schedule reduced", boxes), &h, |b, h| {
            b.iter(|| {
                ssc::schedule::schedule(black_box(h), SchedulerKind::Reduced(2), &opts.schedule)
            })
        });
        let s = ssc::schedule::schedule(&h, SchedulerKind::Fixed(2), &opts.schedule);
        g.bench_with_input(BenchmarkId::new("allocate", boxes), &s, |b, s| {
            b.iter(|| ssc::memory::allocate(&h, black_box(s), MemoryKind::Interference))
        });
        let compiled = pipeline::compile(&desc, &opts).unwrap();
        let copts = ssc::back::c::COptions {
            name: "chain".into(),
            iterations: 1000,
            ..Default::default()
        };
        g.bench_with_input(BenchmarkId::new("emit C", boxes), &compiled, |b, c| {
            b.iter(|| ssc::back::c::emit(&c.hsdfg, black_box(&c.runtime), &copts).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("analyse -pr", boxes), &compiled, |b, c| {
            b.iter(|| ssc::analysis::analyse(black_box(c)).unwrap())
        });
        g.bench_with_input(
            BenchmarkId::new("compile (all stages)", boxes),
            &desc,
            |b, d| {
                b.iter(|| {
                    pipeline::compile(black_box(d), &options(SchedulerKind::Reduced(2))).unwrap()
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
