//! The learned ranking's cost on a question's candidates: the features of 200 candidates
//! (notes of 180 words of real text, runs of the SciFact abstracts of `../shared/eval/beir`,
//! on 40 pages of 4 documents, with ranks and scores as a first stage gives them; a SciFact
//! claim as the question) and the shipped model's trees over them, against the first stage's
//! own work on them measured in the same run (ordering the pool by fused score, the `fused`
//! ranking). The target: features and trees under 2 ms (issue 46).

use criterion::{Criterion, criterion_group, criterion_main};
use indexer_engine::ranking::{self, features};
use indexer_engine::{Note, NoteKind, Pool, PoolEntry};
use std::hint::black_box;

fn pool(n: usize, words: &[String]) -> (Pool, Vec<Vec<f32>>) {
    let vectors: Vec<Vec<f32>> = (0..n)
        .map(|i| {
            let mut v = vec![0.0f32; 384];
            v[i % 384] = 1.0;
            v
        })
        .collect();
    let entries: Vec<(PoolEntry, f64)> = (0..n)
        .map(|i| {
            let mut note = Note::new(
                format!("d{}.pdf#t{i}", i % 4),
                format!("d{}.pdf", i % 4),
                NoteKind::Text,
                words[i * 180..(i + 1) * 180].join(" "),
            );
            note.page = Some((i / 5) as u32 % 40 + 1);
            note.section = vec![words[n * 180 + i * 5..n * 180 + (i + 1) * 5].join(" ")];
            let entry = PoolEntry {
                note,
                cosine: 0.8 - i as f32 / n as f32 / 2.0,
                bm25_rank: (i % 2 == 0).then_some(i / 2 + 1),
                bm25_score: (i % 2 == 0).then_some(20.0 - i as f32 / 20.0),
                vector_rank: (i % 3 != 2).then_some(i + 1),
            };
            (entry, 1.0 - i as f64 / n as f64)
        })
        .collect();
    let pool = Pool::ranked(
        384,
        entries
            .into_iter()
            .zip(&vectors)
            .map(|((e, f), v)| (e, v.as_slice(), f)),
    );
    (pool, vectors)
}

fn bench(c: &mut Criterion) {
    let ranker = ranking::shipped("sentence-transformers/all-MiniLM-L6-v2@int8")
        .expect("the shipped model of the default encoder");
    let words = indexer_index::bench_support::scifact_words();
    let (base, _v) = pool(200, &words[..200 * 190]);
    let claims = indexer_index::bench_support::scifact_claims();
    let terms = features::query_terms(&claims[0]);
    let mut g = c.benchmark_group("ranking 200 candidates");
    g.bench_function("fused order (baseline)", |b| {
        b.iter(|| {
            let mut order: Vec<usize> = (0..base.len()).collect();
            let f = base.fused();
            order.sort_by(|&a, &b| f[b].total_cmp(&f[a]));
            black_box(order)
        })
    });
    g.bench_function("features", |b| {
        b.iter(|| black_box(features::features(&base, &terms, &|_| Some(40))))
    });
    let table = features::features(&base, &terms, &|_| Some(40));
    g.bench_function("trees", |b| b.iter(|| black_box(ranker.scores(&table))));
    g.bench_function("features and trees, pool ranked again", |b| {
        b.iter_batched(
            || base.clone(),
            |mut p| {
                ranking::rank(&mut p, ranker, &terms, &|_| Some(40));
                black_box(p)
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
