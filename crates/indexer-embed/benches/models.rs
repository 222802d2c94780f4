//! Encode throughput of each installed encoder in one run: all-MiniLM-L6-v2 (int8) and
//! nomic-embed-text-v1.5 (int8 and f32, `tools/setup --model nomic-embed-text-v1.5`), on the
//! same 16 chunks of 200 words cut from the SciFact abstracts
//! (`../shared/eval/beir/scifact/corpus.jsonl` from the project root), one session of one
//! thread, documents as `indexer ingest` embeds them (prefix, batches of 4). Reports chunks per
//! CPU-second (meaningful when other work shares the cores) and per wall second.
//!
//! `cargo bench -p indexer-embed --bench models`

use std::hint::black_box;

mod common;

use common::{chunks, cpu_seconds, runtime};
use indexer_embed::{Encoder, OnnxEncoder};

const MODELS: [&str; 3] = [
    "all-MiniLM-L6-v2",
    "nomic-embed-text-v1.5-int8",
    "nomic-embed-text-v1.5",
];
const CHUNKS: usize = 16;

fn main() {
    let rt = runtime();
    let chunks = chunks(CHUNKS);
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    for name in MODELS {
        let Ok(dir) = rt.model_dir(name) else {
            eprintln!("models: {name}: not installed, skipped");
            continue;
        };
        let enc = OnnxEncoder::builder(&dir)
            .runtime_library(rt.onnxruntime_library().unwrap())
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        let tokens: usize = refs
            .iter()
            .map(|t| enc.count_tokens(t).min(enc.max_tokens()))
            .sum();
        enc.embed_documents(&refs[..4]).unwrap();
        let (t0, c0) = (std::time::Instant::now(), cpu_seconds());
        let e = black_box(enc.embed_documents(&refs).unwrap());
        let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_seconds() - c0);
        let n = refs.len() as f64;
        println!(
            "models: {name}: {:.2} chunks per CPU-second, {:.2} chunks/s wall (1 thread; {} chunks, {:.0} tokens each on average, {} truncated)",
            n / cpu.max(1e-9),
            n / wall,
            refs.len(),
            tokens as f64 / n,
            e.truncated
        );
    }
}
