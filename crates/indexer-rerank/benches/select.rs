//! Every selector side by side on clustered unit vectors (10 clusters, spread 0.5, B = 10).
//!
//! Skipped, because one run takes seconds and criterion would spend minutes on it: the paper
//! solver (10,000 replicator steps) at N = 5,000, and at N = 1,000 with d = 384 (low-rank
//! form, 2 N d per step). `cargo bench -p indexer-rerank`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use indexer_rerank::{Candidates, NoteInfo, SelectorKind, SelectorSpec, selector, synth};
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
                if HYBRID.contains(&kind) {
                    continue;
                }
                let skip_paper =
                    kind == SelectorKind::CdsPaper && (n >= 5000 || (n >= 1000 && d == 384));
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

/// The selectors that read the candidates' structure, benchmarked apart on candidates that have
/// it.
const HYBRID: [SelectorKind; 4] = [
    SelectorKind::CdsHybrid,
    SelectorKind::FusedCap,
    SelectorKind::MmrHybrid,
    SelectorKind::DppHybrid,
];

/// The hybrid pool's shape: N candidates, half from BM25 and half from vectors with an overlap,
/// four notes a page on average over a few documents, one note in six a figure or table, every
/// text chunk linked to the next. `cargo bench -p indexer-rerank -- hybrid`.
fn bench_hybrid(c: &mut Criterion) {
    let d = 384;
    for n in [200, 1000] {
        let data = synth::clustered(n, d, 10, 0.5, 42);
        let info: Vec<NoteInfo> = (0..n)
            .map(|i| NoteInfo {
                doc: (i % 3) as u32,
                page: Some((i / 4) as u32 + 1),
                visual: i % 6 == 5,
                bm25_rank: (i % 2 == 0 || i % 5 == 0).then_some(i as u32 / 2 + 1),
                vector_rank: (i % 2 == 1 || i % 5 == 0).then_some(i as u32 / 2 + 1),
            })
            .collect();
        let links: Vec<(usize, usize)> = (1..n).map(|i| (i - 1, i)).collect();
        let cand = Candidates {
            query_text: "benchmark query",
            info: &info,
            links: &links,
            // The first stage's k of reciprocal rank fusion, for the ranks above.
            rrf_k: Some(60),
            ..Candidates::new(&data.query, &data.notes, d)
        };
        let mut group = c.benchmark_group(format!("hybrid/n={n}/d={d}"));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(2));
        let specs = [
            "fused",
            "cds-exact",
            "cds-hybrid",
            "cds-hybrid:fill=peel",
            "fused-cap",
            "mmr-hybrid",
            "dpp-hybrid",
        ];
        for text in specs {
            let spec: SelectorSpec = text.parse().expect("a valid spec");
            let s = spec.build().expect("valid options");
            group.bench_function(BenchmarkId::from_parameter(text), |b| {
                b.iter(|| black_box(s.select(black_box(&cand), 10).expect("valid input")))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench, bench_hybrid);
criterion_main!(benches);
