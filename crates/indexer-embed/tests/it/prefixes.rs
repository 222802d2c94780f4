//! Manifests with prefixes and Matryoshka truncation, tested with the default model's files.

use std::path::Path;

use indexer_embed::{Encoder, ModelManifest, OnnxEncoder, Pooling};

use crate::{dot, encoder, library, max_abs_diff, model_dir};

/// A model folder in a temporary directory: the default model's ONNX and tokenizer files
/// (symlinked) with the manifest `toml`.
fn model_with(toml: &str) -> (tempfile::TempDir, OnnxEncoder) {
    let t = tempfile::tempdir().unwrap();
    for f in ["model.onnx", "tokenizer.json"] {
        std::os::unix::fs::symlink(model_dir().join(f), t.path().join(f)).unwrap();
    }
    std::fs::write(t.path().join("model.toml"), toml).unwrap();
    let enc = OnnxEncoder::builder(t.path())
        .runtime_library(library())
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    (t, enc)
}

/// The manifest a user writes for nomic-embed-text-v1.5, as the README documents it.
fn readme_nomic_manifest() -> String {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("```toml\n# nomic-embed-text-v1.5")
        .expect("README has the nomic-embed-text-v1.5 manifest");
    let body = &readme[start + "```toml\n".len()..];
    body[..body.find("```").unwrap()].to_string()
}

#[test]
fn the_readme_s_nomic_manifest_parses() {
    let m = ModelManifest::parse(&readme_nomic_manifest(), Path::new("README.md")).unwrap();
    assert_eq!(m.id, "nomic-ai/nomic-embed-text-v1.5");
    assert_eq!(m.dimension, 768);
    assert_eq!(m.max_tokens, 512);
    assert_eq!(m.pooling, Pooling::Mean);
    assert!(m.normalize);
    assert_eq!(m.query_prefix, "search_query: ");
    assert_eq!(m.document_prefix, "search_document: ");
    assert_eq!(m.output_dim(), 768);
}

/// The nomic manifest's prefixes on the default model's files (384-d, 256 tokens): a query is
/// the unprefixed model's embedding of "search_query: " + text, a document that of
/// "search_document: " + text.
#[test]
fn prefixes_are_applied_where_the_manifest_says() {
    let toml = readme_nomic_manifest()
        .replace(
            "nomic-ai/nomic-embed-text-v1.5",
            "test/minilm-with-prefixes",
        )
        .replace("dimension = 768", "dimension = 384")
        .replace("max_tokens = 512", "max_tokens = 256");
    let (_dir, pre) = model_with(&toml);
    let plain = encoder();
    let text = "how does the selector avoid redundant evidence?";

    let q = pre.embed_query(text).unwrap();
    let want_q = plain
        .embed_raw(&[&format!("search_query: {text}")])
        .unwrap();
    assert!(max_abs_diff(&q, want_q.row(0)) < 1e-6);

    let d = pre.embed_documents(&[text]).unwrap();
    let want_d = plain
        .embed_raw(&[&format!("search_document: {text}")])
        .unwrap();
    assert!(max_abs_diff(d.row(0), want_d.row(0)) < 1e-6);

    // The two sides really differ, and the unprefixed model applies no prefix.
    assert!(dot(&q, d.row(0)) < 0.999);
    assert_eq!(
        plain.embed_query(text).unwrap(),
        plain.embed_raw(&[text]).unwrap().data
    );

    // The document prefix costs tokens of the chunk budget; counting excludes it.
    let prefix_tokens = plain.count_tokens("search_document: ");
    assert!(prefix_tokens > 0);
    assert_eq!(pre.max_tokens(), 256 - 2 - prefix_tokens);
    assert_eq!(pre.count_tokens(text), plain.count_tokens(text));
    assert_eq!(pre.model_id(), "test/minilm-with-prefixes");
}

/// Matryoshka truncation keeps the first dimensions of the pooled vector and normalises them:
/// the same as renormalising the first dimensions of the full unit vector.
#[test]
fn matryoshka_truncates_then_normalises() {
    let base = std::fs::read_to_string(model_dir().join("model.toml")).unwrap();
    let (_dir, small) = model_with(&format!("{base}matryoshka_dim = 128\n"));
    assert_eq!(small.dim(), 128);
    let text = "Figure 3 shows recall against the budget B.";
    let full = encoder().embed_query(text).unwrap();
    let head = &full[..128];
    let n = dot(head, head).sqrt();
    let want: Vec<f32> = head.iter().map(|x| x / n).collect();
    let got = small.embed_query(text).unwrap();
    assert_eq!(got.len(), 128);
    assert!(max_abs_diff(&got, &want) < 1e-6);
    let e = small.embed_documents(&[text, "other text"]).unwrap();
    assert_eq!((e.dim, e.data.len()), (128, 256));

    // nomic's recipe: layer norm over the full pooled vector, then truncate, then normalise.
    // The expected value starts from the raw pooled vector (normalize = false).
    let (_raw_dir, raw) = model_with(&base.replace("normalize = true", "normalize = false"));
    let p = raw.embed_query(text).unwrap();
    assert!(
        (dot(&p, &p) - 1.0).abs() > 1e-2,
        "raw pooled vector is not normalised"
    );
    let mean = p.iter().sum::<f32>() / p.len() as f32;
    let var = p.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / p.len() as f32;
    let ln: Vec<f32> = p[..128]
        .iter()
        .map(|x| (x - mean) / (var + 1e-5).sqrt())
        .collect();
    let n = dot(&ln, &ln).sqrt();
    let want_ln: Vec<f32> = ln.iter().map(|x| x / n).collect();
    let (_ln_dir, with_ln) = model_with(&format!(
        "{base}matryoshka_dim = 128\nmatryoshka_layer_norm = true\n"
    ));
    let v = with_ln.embed_query(text).unwrap();
    assert!(max_abs_diff(&v, &want_ln) < 1e-5);
    assert!(max_abs_diff(&v, &want) > 1e-5, "layer norm changed nothing");
}

#[test]
fn cls_pooling_differs_from_mean_pooling() {
    let base = std::fs::read_to_string(model_dir().join("model.toml")).unwrap();
    let (_dir, cls) = model_with(&base.replace("pooling = \"mean\"", "pooling = \"cls\""));
    let text = "The girl is carrying a baby.";
    let c = cls.embed_query(text).unwrap();
    let m = encoder().embed_query(text).unwrap();
    assert!((dot(&c, &c) - 1.0).abs() < 1e-5);
    assert!(
        dot(&c, &m) < 0.999,
        "cls and mean pooling gave the same vector"
    );
}
