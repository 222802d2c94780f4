//! Candidate retrieval (BM25 + vectors + RRF fusion) on an index of 100,000 synthetic notes:
//! text made of runs of real sentences from the SciFact corpus (`../shared/eval/beir/scifact`),
//! random unit vectors of 384 dimensions. Prints ingest throughput (no embedding), index bytes
//! per note and p50/p99 latency of `candidates`, against exact vector search as the baseline
//! measured in the same run.
//!
//! `INDEXER_BENCH_NOTES` changes the number of notes.

use criterion::{Criterion, criterion_group, criterion_main};
use indexer_index::{CandidateQuery, Filter, Index, Writer};
use indexer_notes::{Note, NoteKind, ParsedDocument, note_id};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const DIM: usize = 384;
const NOTES_PER_DOC: usize = 100;

fn scifact() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/eval/beir/scifact")
}

fn json_texts(path: &std::path::Path, field: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}): the benchmark needs the eval sets",
            path.display()
        )
    });
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get(field)?.as_str().map(str::to_string))
        .collect()
}

fn unit(rng: &mut StdRng) -> Vec<f32> {
    let mut v: Vec<f32> = (0..DIM).map(|_| rng.random_range(-1.0f32..1.0)).collect();
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn bench(c: &mut Criterion) {
    let n_notes: usize = std::env::var("INDEXER_BENCH_NOTES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let words: Vec<String> = json_texts(&scifact().join("corpus.jsonl"), "text")
        .iter()
        .flat_map(|t| t.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect();
    let queries = json_texts(&scifact().join("queries.jsonl"), "text");
    let mut rng = StdRng::seed_from_u64(42);
    let dir = tempfile::tempdir().unwrap();

    // Ingest without embedding.
    let start = Instant::now();
    let mut w = Writer::open_or_create(dir.path(), "bench-model", DIM).unwrap();
    let mut made = 0;
    let mut d = 0;
    while made < n_notes {
        let doc = format!("papers/p{d:05}.pdf");
        let mut notes = Vec::with_capacity(NOTES_PER_DOC);
        let mut vectors = Vec::with_capacity(NOTES_PER_DOC * DIM);
        for i in 0..NOTES_PER_DOC.min(n_notes - made) {
            let len = rng.random_range(40..160);
            let at = rng.random_range(0..words.len() - len);
            let mut n = Note::new(
                note_id(&doc, NoteKind::Text, i),
                &doc,
                NoteKind::Text,
                words[at..at + len].join(" "),
            );
            n.page = Some(1 + i as u32 / 4);
            n.keywords = words[at..at + 5].to_vec();
            notes.push(n);
            vectors.extend(unit(&mut rng));
        }
        made += notes.len();
        let parsed = ParsedDocument {
            doc: doc.clone(),
            hash: format!("{d}"),
            title: None,
            pages: 25,
            pages_without_text: vec![],
            notes,
            warnings: vec![],
        };
        w.upsert(parsed, vectors).unwrap();
        d += 1;
    }
    let staged = start.elapsed();
    let stats = w.commit().unwrap();
    let total = start.elapsed();
    drop(w);
    // Incremental cost: re-ingest of the unchanged corpus (open, compare hashes, commit
    // nothing), then a commit that replaces one document of the many.
    let t = Instant::now();
    let mut w = Writer::open_or_create(dir.path(), "bench-model", DIM).unwrap();
    let state = w.file_state();
    assert_eq!(state.len(), d);
    let again = w.commit().unwrap();
    assert!(!again.changed);
    let unchanged = t.elapsed();
    let t = Instant::now();
    let doc = "papers/p00000.pdf".to_string();
    let notes: Vec<Note> = (0..NOTES_PER_DOC)
        .map(|i| {
            Note::new(
                note_id(&doc, NoteKind::Text, i),
                &doc,
                NoteKind::Text,
                "replaced text",
            )
        })
        .collect();
    let vectors: Vec<f32> = (0..NOTES_PER_DOC).flat_map(|_| unit(&mut rng)).collect();
    w.upsert(
        ParsedDocument {
            doc: doc.clone(),
            hash: "changed".into(),
            title: None,
            pages: 1,
            pages_without_text: vec![],
            notes,
            warnings: vec![],
        },
        vectors,
    )
    .unwrap();
    let replaced = w.commit().unwrap();
    let one_doc = t.elapsed();
    drop(w);
    eprintln!(
        "re-ingest of the unchanged corpus: {:?} ({:.3}% of the first ingest); commit replacing 1 of {d} documents: {:?} ({:.2}%, graph {:?})",
        unchanged,
        100.0 * unchanged.as_secs_f64() / total.as_secs_f64(),
        one_doc,
        100.0 * one_doc.as_secs_f64() / total.as_secs_f64(),
        replaced.graph
    );
    let index = Index::open(dir.path()).unwrap();
    let s = index.stats();
    eprintln!(
        "ingest {n_notes} notes (no embedding): {:.1} s = {:.0} notes/s (staging {:.1} s, commit incl. HNSW build {:.1} s, graph {:?})",
        total.as_secs_f64(),
        n_notes as f64 / total.as_secs_f64(),
        staged.as_secs_f64(),
        (total - staged).as_secs_f64(),
        stats.graph,
    );
    eprintln!(
        "index bytes: {} = {:.0} bytes per note (vectors alone {} bytes per note)",
        s.bytes,
        s.bytes as f64 / n_notes as f64,
        DIM * 4
    );

    let qs: Vec<(String, Vec<f32>)> = queries
        .iter()
        .take(300)
        .map(|q| (q.clone(), unit(&mut rng)))
        .collect();
    let run = |q: &(String, Vec<f32>)| {
        index
            .candidates(&CandidateQuery {
                text: &q.0,
                vector: &q.1,
                ..Default::default()
            })
            .unwrap()
    };
    let mut lat: Vec<Duration> = Vec::with_capacity(qs.len());
    for q in &qs {
        let t = Instant::now();
        black_box(run(q));
        lat.push(t.elapsed());
    }
    lat.sort();
    // Baseline in the same run: exact vector top-100 over every row.
    let mut exact: Vec<Duration> = Vec::with_capacity(100);
    for q in qs.iter().take(100) {
        let t = Instant::now();
        black_box(index.nearest_exact(&q.1, 100, &Filter::default()).unwrap());
        exact.push(t.elapsed());
    }
    exact.sort();
    let mut bm25: Vec<Duration> = Vec::new();
    let mut vec_only: Vec<Duration> = Vec::new();
    for q in &qs {
        let t = Instant::now();
        black_box(index.bm25(&q.0, 100, &Filter::default()).unwrap());
        bm25.push(t.elapsed());
        let t = Instant::now();
        black_box(index.nearest(&q.1, 100, &Filter::default()).unwrap());
        vec_only.push(t.elapsed());
    }
    bm25.sort();
    vec_only.sort();
    let p50 = percentile(&lat, 0.5);
    let e50 = percentile(&exact, 0.5);
    eprintln!(
        "candidates over {n_notes} notes, one thread: p50 {:?} p99 {:?} (BM25 alone p50 {:?} p99 {:?}; HNSW alone p50 {:?} p99 {:?}; exact vector scan p50 {:?} = {:.1}x the whole hybrid query)",
        p50,
        percentile(&lat, 0.99),
        percentile(&bm25, 0.5),
        percentile(&bm25, 0.99),
        percentile(&vec_only, 0.5),
        percentile(&vec_only, 0.99),
        e50,
        e50.as_secs_f64() / p50.as_secs_f64()
    );

    let mut i = 0;
    c.bench_function("candidates_100k_hybrid", |b| {
        b.iter(|| {
            i = (i + 1) % qs.len();
            black_box(run(&qs[i]))
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50).measurement_time(Duration::from_secs(10));
    targets = bench
}
criterion_main!(benches);
