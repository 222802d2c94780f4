//! Library-wide search's routing on a synthetic library of 10,000 documents: finding the
//! document a question names (the documents' names indexed once per generation, then one
//! lookup per run of the question's words) and weighing the documents of 200 candidates,
//! against a scan of every document's names measured in the same run (what the lookup
//! replaces). Prints the names' build time and a measure of their memory.

use criterion::{Criterion, criterion_group, criterion_main};
use indexer_engine::rewrite::DocumentNames;
use indexer_engine::{DocumentInfo, Note, NoteKind, Pool, PoolEntry};
use std::hint::black_box;
use std::time::Instant;

const DOCUMENTS: usize = 10_000;

fn library() -> Vec<DocumentInfo> {
    (0..DOCUMENTS)
        .map(|i| DocumentInfo {
            doc: format!("library/shelf-{}/report_{i:05}.pdf", i % 50),
            hash: String::new(),
            title: Some(format!(
                "Annual review of topic {} and method {}",
                i % 997,
                i
            )),
            pages: 40,
            notes: 120,
            pages_without_text: Vec::new(),
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let docs = library();
    let t = Instant::now();
    let names = DocumentNames::new(&docs);
    let built = t.elapsed();
    let bytes: usize = docs
        .iter()
        .map(|d| d.doc.len() * 2 + d.title.as_deref().map_or(0, str::len) + 3 * 48 + 64)
        .sum();
    eprintln!(
        "{DOCUMENTS} documents: names built in {built:?}, about {} KiB (strings, vectors and the \
         map's entries)",
        bytes / 1024
    );
    let questions = [
        "What does report_07342.pdf say about the method on page 4?",
        "Which tables of the annual review of topic 12 and method 5012 compare costs?",
        "How do I configure the search of a whole library?",
    ];
    let mut g = c.benchmark_group("routing at 10,000 documents");
    g.bench_function("named document, indexed names", |b| {
        b.iter(|| {
            for q in questions {
                black_box(names.named_in(q));
            }
        })
    });
    g.bench_function("named document, every document read (baseline)", |b| {
        b.iter(|| {
            for q in questions {
                black_box(indexer_engine::rewrite::named_document(q, &docs[..1000]));
            }
        })
    });
    let v = vec![1.0f32, 0.0];
    let pool = Pool::ranked(
        2,
        (0..200).map(|i| {
            let doc = &docs[(i * 37) % DOCUMENTS].doc;
            (
                PoolEntry {
                    note: Note::new(format!("{doc}#t{i}"), doc.clone(), NoteKind::Text, "t"),
                    cosine: 0.5,
                    bm25_rank: Some(i + 1),
                    bm25_score: Some(10.0),
                    vector_rank: None,
                },
                v.as_slice(),
                1.0 - i as f64 / 200.0,
            )
        }),
    );
    g.bench_function("documents of 200 candidates weighed", |b| {
        b.iter(|| black_box(indexer_engine::Routing::weigh(&pool)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
