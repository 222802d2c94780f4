//! Integration tests of the encoder on the real default model (all-MiniLM-L6-v2, int8 ONNX)
//! that `tools/setup` installs. Without it they fail with the setup hint.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use indexer_embed::{Encoder, Error, ModelManifest, OnnxEncoder, Pooling, check_model_id};
use indexer_runtime::{DEFAULT_MODEL, Runtime};

mod errors;
mod nomic;
mod prefixes;
mod semantics;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// The runtime folder: `INDEXER_RUNTIME` if set, else the checkout's `.runtime/`.
fn runtime() -> Runtime {
    match std::env::var_os(indexer_runtime::RUNTIME_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => Runtime::at(PathBuf::from(dir)),
        None => Runtime::at(Path::new(ROOT).join(".runtime")),
    }
}

fn setup_failure(e: &Error) -> String {
    format!(
        "the encoder tests need the runtime: {e}\nhint: {}",
        indexer_notes::Hint::hint(e).unwrap_or_else(|| "run tools/setup".into())
    )
}

fn library() -> PathBuf {
    runtime()
        .onnxruntime_library()
        .unwrap_or_else(|e| panic!("{}", setup_failure(&e.into())))
}

fn model_dir() -> PathBuf {
    runtime()
        .model_dir(DEFAULT_MODEL)
        .unwrap_or_else(|e| panic!("{}", setup_failure(&e.into())))
}

/// The default encoder, loaded once per test process.
fn encoder() -> &'static OnnxEncoder {
    static ENC: OnceLock<OnnxEncoder> = OnceLock::new();
    ENC.get_or_init(|| {
        OnnxEncoder::from_runtime(&runtime(), DEFAULT_MODEL)
            .unwrap_or_else(|e| panic!("{}", setup_failure(&e)))
    })
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

#[derive(serde::Deserialize)]
struct Golden {
    dimension: usize,
    max_tokens: usize,
    texts: Vec<GoldenText>,
}

#[derive(serde::Deserialize)]
struct GoldenText {
    text: String,
    tokens: usize,
    truncated: bool,
    embedding: Vec<f32>,
}

fn golden() -> Golden {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/golden.json");
    let text = std::fs::read_to_string(path).expect("read tests/fixtures/golden.json");
    serde_json::from_str(&text).expect("parse golden.json")
}

/// Python onnxruntime 1.32.0 + tokenizers, one text per call (tools/golden-embeddings): the Rust
/// encoder with batch size 1 must agree to 1e-5 on every component.
#[test]
fn matches_python_onnxruntime_golden_vectors() {
    let g = golden();
    let one = OnnxEncoder::builder(&model_dir())
        .runtime_library(library())
        .batch_size(1)
        .build()
        .unwrap_or_else(|e| panic!("{}", setup_failure(&e)));
    assert_eq!(one.dim(), g.dimension);
    assert_eq!(one.manifest().max_tokens, g.max_tokens);
    let texts: Vec<&str> = g.texts.iter().map(|t| t.text.as_str()).collect();
    let e = one.embed_documents(&texts).unwrap();
    assert_eq!(e.len(), texts.len());
    assert_eq!(e.truncated, g.texts.iter().filter(|t| t.truncated).count());
    assert_eq!(e.truncated, 1, "the long golden text passes 256 tokens");
    for (i, t) in g.texts.iter().enumerate() {
        let d = max_abs_diff(e.row(i), &t.embedding);
        assert!(d < 1e-5, "text {i} {:?}: max abs diff {d}", t.text);
        if !t.truncated {
            assert_eq!(one.count_tokens(&t.text) + 2, t.tokens, "{:?}", t.text);
        }
    }
}

/// Batching sorts texts by length and pads each batch to its longest: the golden texts (2 to
/// 256 tokens) in one batch still agree with the one-at-a-time golden vectors to 1e-5, because
/// the attention mask hides the padding; and rows come back in input order.
#[test]
fn batched_embeddings_keep_input_order_and_match_golden() {
    let g = golden();
    let texts: Vec<&str> = g.texts.iter().map(|t| t.text.as_str()).collect();
    let e = encoder().embed_documents(&texts).unwrap();
    assert_eq!(e.truncated, 1);
    let mut worst = 0f32;
    for (i, t) in g.texts.iter().enumerate() {
        worst = worst.max(max_abs_diff(e.row(i), &t.embedding));
    }
    assert!(worst < 1e-5, "batched vs golden max abs diff {worst}");
    // Reversed input gives the same rows, reversed.
    let rev: Vec<&str> = texts.iter().rev().copied().collect();
    let r = encoder().embed_documents(&rev).unwrap();
    for i in 0..texts.len() {
        assert_eq!(r.row(texts.len() - 1 - i), e.row(i), "row {i}");
    }
}

#[test]
fn vectors_are_unit_length_and_dimension_is_the_manifest_s() {
    let enc = encoder();
    assert_eq!(enc.dim(), 384);
    assert_eq!(
        enc.model_id(),
        "sentence-transformers/all-MiniLM-L6-v2@int8"
    );
    let q = enc.embed_query("what is a dominant set?").unwrap();
    assert_eq!(q.len(), 384);
    assert!((dot(&q, &q) - 1.0).abs() < 1e-5);
    let empty = enc.embed_documents(&[]).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.len(), 0);
    assert_eq!(empty.dim, 384);
}

#[test]
fn token_counts_exclude_specials_add_up_and_never_truncate() {
    let enc = encoder();
    // 256 tokens less [CLS] and [SEP]; the default model has no document prefix.
    assert_eq!(Encoder::max_tokens(enc), 254);
    let a = "Constrained dominant sets select evidence.";
    let b = "Replicator dynamics converge on the simplex.";
    assert_eq!(
        enc.count_tokens(&format!("{a} {b}")),
        enc.count_tokens(a) + enc.count_tokens(b)
    );
    let long = "retrieval ".repeat(1000);
    assert_eq!(enc.count_tokens(&long), 1000);
    let counter: &dyn indexer_notes::TokenCounter = enc;
    assert_eq!(counter.count_tokens(a), enc.count_tokens(a));

    // A text of exactly max_tokens() tokens is not truncated; one more token is.
    let fits = "word ".repeat(254);
    assert_eq!(enc.count_tokens(&fits), 254);
    assert_eq!(enc.embed_documents(&[&fits]).unwrap().truncated, 0);
    let over = "word ".repeat(255);
    let e = enc.embed_documents(&[&over, &fits, a]).unwrap();
    assert_eq!(e.truncated, 1);
    // Truncation keeps the first 254 tokens: the two texts embed alike.
    assert!(max_abs_diff(e.row(0), e.row(1)) < 1e-3);
}

#[test]
fn concurrent_queries_agree_with_serial_ones() {
    let enc = encoder();
    let queries = [
        "how are figures paired with captions?",
        "which selector has the best recall?",
        "what does tau do in CDS?",
        "memory use of the PDF parser",
    ];
    let serial: Vec<Vec<f32>> = queries
        .iter()
        .map(|q| enc.embed_query(q).unwrap())
        .collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = queries
            .iter()
            .map(|q| s.spawn(move || enc.embed_query(q).unwrap()))
            .collect();
        for (h, want) in handles.into_iter().zip(&serial) {
            assert_eq!(&h.join().unwrap(), want);
        }
    });
}

#[test]
fn index_model_mismatch_names_both_ids() {
    let enc = encoder();
    check_model_id("sentence-transformers/all-MiniLM-L6-v2@int8", enc).unwrap();
    let err = check_model_id("nomic-ai/nomic-embed-text-v1.5", enc).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("nomic-ai/nomic-embed-text-v1.5"), "{msg}");
    assert!(
        msg.contains("sentence-transformers/all-MiniLM-L6-v2@int8"),
        "{msg}"
    );
    assert!(err.is_user_error());
    assert!(indexer_notes::Hint::hint(&err).is_some());
}

#[test]
fn the_installed_manifest_is_the_one_tools_setup_writes() {
    let m = ModelManifest::from_dir(&model_dir()).unwrap();
    assert_eq!(m.pooling, Pooling::Mean);
    assert!(m.normalize);
    assert_eq!(m.output, "last_hidden_state");
    let setup = std::fs::read_to_string(Path::new(ROOT).join("tools/setup")).unwrap();
    let start = setup.find("DEFAULT_MODEL_TOML = \"\"\"\\\n").unwrap();
    let body = &setup[start + "DEFAULT_MODEL_TOML = \"\"\"\\\n".len()..];
    let body = &body[..body.find("\"\"\"").unwrap()];
    assert_eq!(
        ModelManifest::parse(body, Path::new("tools/setup")).unwrap(),
        m
    );
}

/// Two sessions share out the batches of one call: every row is the same as with one session
/// (in input order, golden to 1e-5), and concurrent calls on the pool agree with serial ones.
#[test]
fn a_pool_of_sessions_gives_the_rows_of_one_session() {
    let g = golden();
    let texts: Vec<&str> = g.texts.iter().map(|t| t.text.as_str()).collect();
    let pool = OnnxEncoder::builder(&model_dir())
        .runtime_library(library())
        .sessions(2)
        .batch_size(3)
        .build()
        .unwrap_or_else(|e| panic!("{}", setup_failure(&e)));
    assert!(format!("{pool:?}").contains("sessions: 2"), "{pool:?}");
    let e = pool.embed_documents(&texts).unwrap();
    assert_eq!(e.len(), texts.len());
    assert_eq!(e.truncated, 1);
    for (i, t) in g.texts.iter().enumerate() {
        let d = max_abs_diff(e.row(i), &t.embedding);
        assert!(d < 1e-5, "text {i} {:?}: max abs diff {d}", t.text);
    }
    let serial: Vec<Vec<f32>> = texts.iter().map(|q| pool.embed_query(q).unwrap()).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = texts
            .iter()
            .map(|q| s.spawn(|| pool.embed_query(q).unwrap()))
            .collect();
        for (h, want) in handles.into_iter().zip(&serial) {
            assert_eq!(&h.join().unwrap(), want);
        }
    });
    let zero = OnnxEncoder::builder(&model_dir())
        .runtime_library(library())
        .sessions(0)
        .build()
        .unwrap_err();
    assert!(zero.to_string().contains("sessions"), "{zero}");
}
