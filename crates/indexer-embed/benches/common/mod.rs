//! What the encoder benchmarks share: the runtime, the text they embed and CPU time. (A
//! folder, so that cargo does not take it for a benchmark of its own.)

use std::path::Path;

use indexer_runtime::Runtime;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
const SCIFACT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/eval/beir/scifact/corpus.jsonl"
);
/// Words in a chunk, about what the chunker cuts for a 256-token encoder.
pub const WORDS_PER_CHUNK: usize = 200;

/// `INDEXER_RUNTIME`, else the checkout's `.runtime/`.
pub fn runtime() -> Runtime {
    match std::env::var_os(indexer_runtime::RUNTIME_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => Runtime::at(dir),
        None => Runtime::at(Path::new(ROOT).join(".runtime")),
    }
}

/// `n` consecutive chunks of [`WORDS_PER_CHUNK`] words of the SciFact abstracts, the way the
/// chunker cuts running text.
pub fn chunks(n: usize) -> Vec<String> {
    let text = std::fs::read_to_string(SCIFACT).unwrap_or_else(|e| {
        panic!("read {SCIFACT}: {e}: this benchmark reads ../shared/eval/ beside the project, which a clone of the project does not have")
    });
    let mut words: Vec<String> = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let body = v["text"].as_str().unwrap_or_default();
        words.extend(body.split_whitespace().map(str::to_string));
        if words.len() >= n * WORDS_PER_CHUNK {
            break;
        }
    }
    words
        .chunks(WORDS_PER_CHUNK)
        .take(n)
        .map(|w| w.join(" "))
        .collect()
}

/// CPU seconds this process has used (user + system), from `/proc/self/stat`.
pub fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<f64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0.0))
        .collect();
    // Clock ticks are 100 per second on Linux.
    f.get(11)
        .zip(f.get(12))
        .map_or(0.0, |(u, s)| (u + s) / 100.0)
}
