//! Allocating a 100-function graph split 16 ways (8 threads) with the
//! interference allocator (orderings, first fit, reuse comparison,
//! cross-iteration edges, lower bounds).

#[path = "../tests/it/common/memgen.rs"]
mod memgen;

use criterion::{criterion_group, criterion_main, Criterion};
use memgen::GenRng;
use ssc::ir::Pair;
use ssc::memory::{allocate, MemoryKind};

fn bench(c: &mut Criterion) {
    let mut rng = GenRng::new(42);
    let h = memgen::split_graph(&mut rng, 100, Pair::new(1024, 256), 16);
    let s = memgen::random_schedule(&h, &mut rng, 8);
    let p = allocate(&h, &s, MemoryKind::Interference);
    eprintln!(
        "{} actors, {} buffers: {} bytes, lower bound {}, {} extra edges",
        h.graph.node_count(),
        h.buffers.len(),
        p.used_bytes(),
        p.lower_bound,
        p.extra_edges.len()
    );
    c.bench_function("interference 100 functions × 16", |b| {
        b.iter(|| allocate(&h, &s, MemoryKind::Interference))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
