//! Every selector side by side on clustered unit vectors (10 clusters, spread 0.5, B = 10).
//!
//! Skipped, because one run takes seconds and criterion would spend minutes on it: the paper
//! solver (10,000 replicator steps) at N = 5,000, and at N = 1,000 with d = 384 (low-rank
//! form, 2 N d per step). `cargo bench -p indexer-rerank`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use indexer_rerank::{Candidates, SelectorKind, selector, synth};
use std::hint::black_box;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    for d in [384, 768] {
        for n in [100, 300, 1000, 5000] {
            let data = synth::clustered(n, d, 10, 0.5, 42);
            let cand = Candidates {
                query_text: "benchmark query",
                ..Candidates::new(&data.query, &data.notes, d)
            };
            let mut group = c.benchmark_group(format!("select/n={n}/d={d}"));
            group
                .sample_size(10)
                .warm_up_time(Duration::from_millis(300))
                .measurement_time(Duration::from_secs(2));
            for kind in SelectorKind::ALL {
                let skip_paper =
                    kind == SelectorKind::Cds && (n >= 5000 || (n >= 1000 && d == 384));
                if skip_paper {
                    continue;
                }
                let s = selector(kind);
                group.bench_function(BenchmarkId::from_parameter(kind), |b| {
                    b.iter(|| black_box(s.select(black_box(&cand), 10).expect("valid input")))
                });
            }
            group.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
