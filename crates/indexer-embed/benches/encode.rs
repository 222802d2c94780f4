//! Encoder throughput and query latency on real text: chunks of 200 words cut from the SciFact
//! abstracts (`../shared/eval/beir/scifact/corpus.jsonl` from the project root), embedded with
//! 1 and 2 intra-op threads, and the latency of one query (a SciFact claim).
//!
//! Two threads are measured two ways: one session with 2 intra-op threads, and 2 sessions of
//! one thread sharing out the batches of a call (what `indexer ingest` uses).
//!
//! Targets (issue 5): at least 11 chunks/s per thread, 2 threads at least 1.7x one thread on
//! an idle machine, one query under 15 ms.
//!
//! `cargo bench -p indexer-embed --bench encode`

use std::hint::black_box;

mod common;

use common::{WORDS_PER_CHUNK, chunks, cpu_seconds, runtime};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use indexer_embed::{Encoder, OnnxEncoder};
use indexer_runtime::DEFAULT_MODEL;

/// Chunks per measured call: one ingest batch.
const CHUNKS: usize = 32;

/// `threads` intra-op threads in each of `sessions` sessions.
fn encoder_with(threads: usize, sessions: usize) -> OnnxEncoder {
    let rt = runtime();
    let build = || {
        OnnxEncoder::builder(&rt.model_dir(DEFAULT_MODEL)?)
            .runtime_library(rt.onnxruntime_library()?)
            .intra_threads(threads)
            .sessions(sessions)
            .build()
    };
    build().unwrap_or_else(|e: indexer_embed::Error| {
        panic!(
            "{e}\nhint: {}",
            indexer_notes::Hint::hint(&e).unwrap_or_else(|| "run tools/setup".into())
        )
    })
}

fn encoder(threads: usize) -> OnnxEncoder {
    encoder_with(threads, 1)
}

/// A summary criterion does not print: chunks per wall second and per CPU second for 1 and 2
/// threads, and the 2-thread speed-up, all measured in this run. CPU seconds stay meaningful
/// when other work shares the cores; wall seconds do not.
fn summary(refs: &[&str]) {
    const ROUNDS: usize = 3;
    // (label, intra-op threads, sessions)
    let configs = [
        ("1 thread", 1, 1),
        ("1 session x 2 intra-op threads", 2, 1),
        ("2 sessions x 1 thread", 1, 2),
    ];
    let mut wall_rate = [0f64; 3];
    for (k, (label, threads, sessions)) in configs.into_iter().enumerate() {
        let enc = encoder_with(threads, sessions);
        enc.embed_documents(refs).unwrap();
        let (t0, c0) = (std::time::Instant::now(), cpu_seconds());
        for _ in 0..ROUNDS {
            black_box(enc.embed_documents(refs).unwrap());
        }
        let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
        let n = (ROUNDS * refs.len()) as f64;
        wall_rate[k] = n / wall;
        eprintln!(
            "summary: {label}: {:.1} chunks/s wall, {:.1} chunks per CPU-second",
            n / wall,
            n / cpu.max(1e-9)
        );
    }
    eprintln!(
        "summary: wall throughput against 1 thread: 2 intra-op threads {:.2}x, 2 sessions {:.2}x",
        wall_rate[1] / wall_rate[0],
        wall_rate[2] / wall_rate[0]
    );
}

fn bench(c: &mut Criterion) {
    let chunks = chunks(CHUNKS);
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    summary(&refs);
    let claim = "1,000 genomes project enables mapping of genetic sequence variation consisting of rare variants with larger penetrance effects than common variants.";

    let mut g = c.benchmark_group("chunks_200_words");
    g.sample_size(10);
    g.throughput(Throughput::Elements(CHUNKS as u64));
    for threads in [1, 2] {
        let enc = encoder(threads);
        let truncated = enc.embed_documents(&refs).unwrap().truncated;
        eprintln!(
            "{threads} thread(s): {CHUNKS} chunks of {WORDS_PER_CHUNK} words, {truncated} truncated at {} tokens",
            enc.manifest().max_tokens
        );
        g.bench_function(format!("intra_threads_{threads}"), |b| {
            b.iter(|| black_box(enc.embed_documents(black_box(&refs)).unwrap()))
        });
    }
    // Two sessions of one thread each, sharing out the batches of a call.
    let pool = encoder_with(1, 2);
    g.bench_function("sessions_2", |b| {
        b.iter(|| black_box(pool.embed_documents(black_box(&refs)).unwrap()))
    });
    g.finish();

    let mut g = c.benchmark_group("query");
    for threads in [1, 2] {
        let enc = encoder(threads);
        g.bench_function(format!("intra_threads_{threads}"), |b| {
            b.iter(|| black_box(enc.embed_query(black_box(claim)).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
