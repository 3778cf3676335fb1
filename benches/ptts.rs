//! The exact PTTS analysis of Table 5.1's configurations a, b and c with the
//! case-study ETPs (`examples/ptts_config_*.ptts`): the thesis' Table 5.2
//! times were 36 ms, 3 041 ms and 297 620 ms.

use criterion::{criterion_group, criterion_main, Criterion};
use ssc::diagnostics::SourceFile;
use ssc_ptts::Options;
use std::path::Path;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("ptts");
    for name in ["a", "b", "c"] {
        let path = format!("examples/ptts_config_{name}.ptts");
        let text = std::fs::read_to_string(&path).unwrap();
        let model =
            ssc_ptts::load(&SourceFile::new(path, text), Path::new("examples"), None).unwrap();
        if name == "c" {
            group
                .sample_size(10)
                .measurement_time(Duration::from_secs(15));
        }
        group.bench_function(format!("config_{name}"), |b| {
            b.iter(|| ssc_ptts::analyse(&model, &Options::default()).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
