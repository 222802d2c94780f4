//! Candidate retrieval (BM25 + vectors, fused, with pseudo-relevance feedback) on an index of
//! 100,000 synthetic notes: text made of runs of real sentences from the SciFact corpus
//! (`../shared/eval/beir/scifact`), unit vectors of 384 dimensions. Prints ingest throughput
//! (no embedding), index bytes per note and p50/p99 latency of `candidates`, against exact
//! vector search and `candidates` without feedback as baselines measured in the same run.
//!
//! Vectors are clustered by default, like real embeddings (which clump by topic): each
//! document of 100 notes has its own random centre, and a note is that centre plus gaussian
//! noise, normalised (about as near its centre as sentence embeddings of one topic are);
//! queries are drawn the same way around random documents' centres.
//! `INDEXER_BENCH_VECTORS=random` uses uniform random unit vectors instead, the worst case for
//! a graph (every distance about the same). `INDEXER_BENCH_NOTES` changes the number of notes.
//! `INDEXER_BENCH_INDEX=DIR` keeps the index in DIR and, when DIR already holds one (built
//! by an earlier run with the same settings), skips the ingest and its figures, the HNSW build
//! of the notes among them. The figures measured (the cosine of a note to its centre, the time
//! of the build, the latencies) are in the crate's README, "Figures".

use criterion::{Criterion, criterion_group, criterion_main};
use indexer_index::bench_support::{
    NOTES_PER_DOC, percentile, scifact_claims, scifact_words, synthetic_doc, synthetic_document,
    synthetic_note,
};
use indexer_index::{CandidateQuery, Filter, Index, Writer};
use indexer_notes::{Note, NoteKind, ParsedDocument, note_id};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const DIM: usize = 384;

fn unit(rng: &mut StdRng) -> Vec<f32> {
    let mut v: Vec<f32> = (0..DIM).map(|_| rng.random_range(-1.0f32..1.0)).collect();
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

/// A unit vector near `centre`: centre + N(0, 0.08^2) per component, normalised; or uniform
/// random when `centre` is None.
fn near(rng: &mut StdRng, centre: Option<&[f32]>) -> Vec<f32> {
    let Some(c) = centre else {
        return unit(rng);
    };
    let mut v: Vec<f32> = c
        .iter()
        .map(|x| {
            // Box-Muller.
            let (u1, u2): (f32, f32) = (rng.random_range(1e-7..1.0), rng.random_range(0.0..1.0));
            x + 0.08 * (-2.0 * u1.ln()).sqrt() * (std::f32::consts::TAU * u2).cos()
        })
        .collect();
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= n);
    v
}

/// Commits the ingest and prints its figures: throughput, the cost of an unchanged
/// re-ingest and of replacing one document, bytes per note.
fn ingest_figures(mut w: Writer, dir: &std::path::Path, start: Instant, d: usize, n_notes: usize) {
    // Its own generator, so that the queries are the same whether or not the index is reused.
    let mut rng = StdRng::seed_from_u64(7);
    let staged = start.elapsed();
    let stats = w.commit().unwrap();
    let total = start.elapsed();
    drop(w);
    // Incremental cost: re-ingest of the unchanged corpus (open, compare hashes, commit
    // nothing), then a commit that replaces one document of the many.
    let t = Instant::now();
    let mut w = Writer::open_or_create(dir, "bench-model", DIM).unwrap();
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
            ocr_pages: vec![],
            unreadable_pages: vec![],
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
    let index = Index::open(dir).unwrap();
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
}

fn bench(c: &mut Criterion) {
    let n_notes: usize = std::env::var("INDEXER_BENCH_NOTES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let words = scifact_words();
    let queries = scifact_claims();
    let mut rng = StdRng::seed_from_u64(42);
    let clustered = std::env::var("INDEXER_BENCH_VECTORS").as_deref() != Ok("random");
    eprintln!(
        "vectors: {}",
        if clustered {
            "clustered (a centre per document)"
        } else {
            "uniform random"
        }
    );
    let mut centres: Vec<Vec<f32>> = Vec::new();
    let temp = tempfile::tempdir().unwrap();
    let kept = std::env::var_os("INDEXER_BENCH_INDEX").map(PathBuf::from);
    let dir = kept.clone().unwrap_or_else(|| temp.path().to_path_buf());
    let reuse = dir.join("MANIFEST").exists();
    if reuse {
        eprintln!("reusing the index in {} (no ingest figures)", dir.display());
    }

    // Ingest without embedding.
    let start = Instant::now();
    let mut w = (!reuse).then(|| Writer::open_or_create(&dir, "bench-model", DIM).unwrap());
    let mut made = 0;
    let mut d = 0;
    while made < n_notes {
        let doc = synthetic_doc(d);
        let mut notes = Vec::with_capacity(NOTES_PER_DOC);
        centres.push(unit(&mut rng));
        let centre = clustered.then(|| centres[d].clone());
        let mut vectors = Vec::with_capacity(NOTES_PER_DOC * DIM);
        for i in 0..NOTES_PER_DOC.min(n_notes - made) {
            let len = rng.random_range(40..160);
            let at = rng.random_range(0..words.len() - len);
            let mut n = synthetic_note(&doc, i, &words[at..at + len]);
            n.keywords = words[at..at + 5].to_vec();
            notes.push(n);
            vectors.extend(near(&mut rng, centre.as_deref()));
        }
        made += notes.len();
        let parsed = synthetic_document(doc, d, notes);
        if let Some(w) = &mut w {
            w.upsert(parsed, vectors).unwrap();
        }
        d += 1;
    }
    if let Some(w) = w {
        ingest_figures(w, &dir, start, d, n_notes);
    }
    let index = Index::open(&dir).unwrap();
    let qs: Vec<(String, Vec<f32>)> = queries
        .iter()
        .take(300)
        .map(|q| {
            let c = rng.random_range(0..centres.len());
            let centre = clustered.then(|| centres[c].as_slice());
            (q.clone(), near(&mut rng, centre))
        })
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
    let run_plain = |q: &(String, Vec<f32>)| {
        index
            .candidates(&CandidateQuery {
                text: &q.0,
                vector: &q.1,
                feedback: false,
                ..Default::default()
            })
            .unwrap()
    };
    let mut lat: Vec<Duration> = Vec::with_capacity(qs.len());
    let mut plain: Vec<Duration> = Vec::with_capacity(qs.len());
    for q in &qs {
        let t = Instant::now();
        black_box(run(q));
        lat.push(t.elapsed());
        let t = Instant::now();
        black_box(run_plain(q));
        plain.push(t.elapsed());
    }
    lat.sort();
    plain.sort();
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
    eprintln!(
        "without pseudo-relevance feedback (one BM25 search, not two): p50 {:?} p99 {:?}; feedback costs {:.2}x at p50",
        percentile(&plain, 0.5),
        percentile(&plain, 0.99),
        p50.as_secs_f64() / percentile(&plain, 0.5).as_secs_f64()
    );

    // The breadth of the graph search against its cost and its recall@100 (k = 100, the
    // candidate count; ef below k is not allowed), exact top-100 as the truth.
    let truth: Vec<Vec<usize>> = qs
        .iter()
        .take(100)
        .map(|q| {
            index
                .nearest_exact(&q.1, 100, &Filter::default())
                .unwrap()
                .into_iter()
                .map(|(o, _)| o)
                .collect()
        })
        .collect();
    for ef in [100, 200, 300, 400, 500, 600] {
        let mut tuned = Index::open(&dir).unwrap();
        tuned.set_ef_search(ef);
        let mut lat: Vec<Duration> = Vec::new();
        let mut found = 0;
        for (q, want) in qs.iter().zip(&truth) {
            let t = Instant::now();
            let got = black_box(tuned.nearest(&q.1, 100, &Filter::default()).unwrap());
            lat.push(t.elapsed());
            found += got.iter().filter(|(o, _)| want.contains(o)).count();
        }
        lat.sort();
        eprintln!(
            "HNSW ef={ef}: p50 {:?} p99 {:?}, recall@100 {:.3} (vs exact scan p50 {:?})",
            percentile(&lat, 0.5),
            percentile(&lat, 0.99),
            found as f64 / (100 * truth.len()) as f64,
            e50
        );
    }

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
