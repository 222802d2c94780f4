//! nomic-embed-text-v1.5 as `tools/setup --model nomic-embed-text-v1.5` installs it (our ONNX
//! conversion of the GGUF), against llama.cpp's vectors and token ids of the same GGUF
//! (`tools/golden-nomic` writes `tests/fixtures/golden-nomic.json`).
//!
//! The model is 840 MB and optional, so these tests pass with a note when it is not installed;
//! with `INDEXER_TEST_NOMIC=1` (set by `tools/test`, which installs it) a missing model fails.

use indexer_embed::{Encoder, ModelManifest, OnnxEncoder, Pooling};

use crate::{dot, library, runtime};

const NOMIC: &str = "nomic-embed-text-v1.5";
const NOMIC_INT8: &str = "nomic-embed-text-v1.5-int8";

/// The encoder of the installed model folder `name`, or `None` (with a note) if it is missing
/// and not required.
fn nomic(name: &str) -> Option<OnnxEncoder> {
    let dir = match runtime().model_dir(name) {
        Ok(dir) => dir,
        Err(e) => {
            if std::env::var_os("INDEXER_TEST_NOMIC").is_some_and(|v| v == "1") {
                panic!("INDEXER_TEST_NOMIC=1 but {e}\nhint: run tools/setup --model {NOMIC}");
            }
            eprintln!("skipped: {name} is not installed (tools/setup --model {NOMIC})");
            return None;
        }
    };
    Some(
        OnnxEncoder::builder(&dir)
            .runtime_library(library())
            .build()
            .unwrap_or_else(|e| panic!("{e}")),
    )
}

#[derive(serde::Deserialize)]
struct Golden {
    dimension: usize,
    texts: Vec<GoldenText>,
}

#[derive(serde::Deserialize)]
struct GoldenText {
    role: String,
    text: String,
    ids: Vec<u32>,
    vector_q15: String,
}

impl GoldenText {
    fn is_query(&self) -> bool {
        self.role == "query"
    }

    fn prefixed(&self) -> String {
        let prefix = if self.is_query() {
            "search_query: "
        } else {
            "search_document: "
        };
        format!("{prefix}{}", self.text)
    }

    /// llama.cpp's vector: 16-bit integers (x * 32767), little-endian, base64.
    fn vector(&self) -> Vec<f32> {
        base64(&self.vector_q15)
            .chunks_exact(2)
            .map(|b| f32::from(i16::from_le_bytes([b[0], b[1]])) / 32767.0)
            .collect()
    }
}

fn golden() -> Golden {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/golden-nomic.json"
    );
    let text = std::fs::read_to_string(path).expect("read tests/fixtures/golden-nomic.json");
    serde_json::from_str(&text).expect("parse golden-nomic.json")
}

fn base64(s: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let mut out = Vec::new();
    for quad in s.trim_end_matches('=').as_bytes().chunks(4) {
        let bits = quad.iter().enumerate().fold(0u32, |acc, (i, &c)| {
            acc | u32::from(value(c)) << (18 - 6 * i)
        });
        out.extend_from_slice(&bits.to_be_bytes()[1..quad.len()]);
    }
    out
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    dot(a, b) / (dot(a, a).sqrt() * dot(b, b).sqrt())
}

/// Embeds every golden text as the index would (documents in one call, so batches pad; each
/// query alone) and returns the cosines to llama.cpp's vectors.
fn cosines_to_llama_cpp(enc: &OnnxEncoder) -> Vec<(f32, String)> {
    let g = golden();
    assert_eq!(enc.dim(), g.dimension);
    let docs: Vec<&GoldenText> = g.texts.iter().filter(|t| !t.is_query()).collect();
    let texts: Vec<&str> = docs.iter().map(|t| t.text.as_str()).collect();
    let e = enc.embed_documents(&texts).unwrap();
    assert_eq!(
        e.truncated, 0,
        "every golden text fits the model's max_tokens"
    );
    let mut out: Vec<(f32, String)> = docs
        .iter()
        .enumerate()
        .map(|(i, t)| (cosine(e.row(i), &t.vector()), t.prefixed()))
        .collect();
    for t in g.texts.iter().filter(|t| t.is_query()) {
        let q = enc.embed_query(&t.text).unwrap();
        out.push((cosine(&q, &t.vector()), t.prefixed()));
    }
    assert_eq!(out.len(), g.texts.len());
    out
}

/// The f32 conversion computes what llama.cpp computes: cosine at least 0.999 on every text
/// (measured: 0.9999996 at worst; llama.cpp multiplies in f16).
#[test]
fn nomic_f32_matches_llama_cpp() {
    let Some(enc) = nomic(NOMIC) else { return };
    for (c, text) in cosines_to_llama_cpp(&enc) {
        assert!(c >= 0.999, "cosine {c} to llama.cpp for {text:?}");
    }
}

/// The int8 variant stays close (measured: 0.985 at worst, 0.989 on average).
#[test]
fn nomic_int8_stays_close_to_llama_cpp() {
    let Some(enc) = nomic(NOMIC_INT8) else { return };
    let cs = cosines_to_llama_cpp(&enc);
    for (c, text) in &cs {
        assert!(*c >= 0.98, "cosine {c} to llama.cpp for {text:?}");
    }
    let mean = cs.iter().map(|(c, _)| c).sum::<f32>() / cs.len() as f32;
    assert!(mean >= 0.985, "mean cosine {mean}");
}

/// tokenizer.json, written from the GGUF's vocabulary, gives llama.cpp's ids ([CLS] ... [SEP]);
/// the encoder's token count is the same less the two special tokens.
#[test]
fn nomic_tokenizer_matches_llama_cpp() {
    let Some(enc) = nomic(NOMIC) else { return };
    let dir = runtime().model_dir(NOMIC).unwrap();
    let tok = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).unwrap();
    for t in golden().texts {
        let full = t.prefixed();
        let ids = tok.encode(full.as_str(), true).unwrap().get_ids().to_vec();
        assert_eq!(ids, t.ids, "{full:?}");
        assert_eq!(enc.count_tokens(&full) + 2, t.ids.len(), "{full:?}");
    }
}

#[test]
fn nomic_manifests_are_the_ones_tools_setup_writes() {
    let Some(enc) = nomic(NOMIC) else { return };
    let m = enc.manifest();
    assert_eq!(m.id, "nomic-ai/nomic-embed-text-v1.5");
    assert_eq!((m.dimension, m.max_tokens), (768, 512));
    assert_eq!(m.pooling, Pooling::Mean);
    assert!(m.normalize);
    assert_eq!(m.query_prefix, "search_query: ");
    assert_eq!(m.document_prefix, "search_document: ");
    // 512 less [CLS], [SEP] and the 4 tokens of "search_document: " (search _ document :).
    assert_eq!(enc.max_tokens(), 506);
    let int8 = ModelManifest::from_dir(&runtime().model_dir(NOMIC_INT8).unwrap()).unwrap();
    assert_eq!(int8.id, "nomic-ai/nomic-embed-text-v1.5@int8");
    assert_eq!(
        ModelManifest {
            id: m.id.clone(),
            ..int8
        },
        *m
    );
}
