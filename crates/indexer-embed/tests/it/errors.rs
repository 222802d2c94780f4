//! Clear errors at load time: missing files name the file with the setup hint, and a model that
//! does not match its manifest is rejected before the first batch.

use indexer_notes::Hint;
use std::path::Path;

use indexer_embed::{Error, OnnxEncoder};

use crate::{encoder, library, model_dir};

fn folder_with(toml: &str, files: &[&str]) -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    for f in files {
        std::os::unix::fs::symlink(model_dir().join(f), t.path().join(f)).unwrap();
    }
    std::fs::write(t.path().join("model.toml"), toml).unwrap();
    t
}

fn build(dir: &Path) -> Error {
    // The default encoder loads ONNX Runtime first, so these tests never race to initialise it.
    let _ = encoder();
    OnnxEncoder::builder(dir)
        .runtime_library(library())
        .build()
        .unwrap_err()
}

fn default_manifest() -> String {
    std::fs::read_to_string(model_dir().join("model.toml")).unwrap()
}

#[test]
fn a_missing_model_file_is_named_with_the_setup_hint() {
    let t = folder_with(&default_manifest(), &["tokenizer.json"]);
    let err = build(t.path());
    assert_eq!(
        err.to_string(),
        format!(
            "missing model file {}",
            t.path().join("model.onnx").display()
        )
    );
    assert_eq!(err.hint().as_deref(), Some("run tools/setup"));

    let empty = tempfile::tempdir().unwrap();
    let err = build(empty.path());
    assert!(
        err.to_string()
            .ends_with(&format!("{}", empty.path().join("model.toml").display())),
        "{err}"
    );
    assert_eq!(err.hint().as_deref(), Some("run tools/setup"));
}

#[test]
fn a_missing_runtime_library_is_named_with_the_setup_hint() {
    let t = tempfile::tempdir().unwrap();
    let lib = t.path().join("lib/libonnxruntime.so");
    let err = OnnxEncoder::builder(&model_dir())
        .runtime_library(&lib)
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("missing runtime file {}", lib.display())
    );
    assert_eq!(err.hint().as_deref(), Some("run tools/setup"));
    assert!(err.is_user_error());
}

#[test]
fn a_second_runtime_library_is_an_error_not_a_panic() {
    let _ = encoder();
    let t = tempfile::tempdir().unwrap();
    let other = t.path().join("libonnxruntime.so");
    std::fs::write(&other, b"another build").unwrap();
    let err = OnnxEncoder::builder(&model_dir())
        .runtime_library(&other)
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::RuntimeConflict { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains(&other.display().to_string()), "{msg}");
    assert!(
        msg.contains(&library().canonicalize().unwrap().display().to_string()),
        "{msg}"
    );
}

#[test]
fn a_wrong_output_name_is_a_load_error_listing_the_outputs() {
    let t = folder_with(
        &default_manifest().replace("\"last_hidden_state\"", "\"sentence_embedding\""),
        &["model.onnx", "tokenizer.json"],
    );
    let err = build(t.path());
    assert!(matches!(err, Error::ModelMismatch { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("no output `sentence_embedding`"), "{msg}");
    assert!(msg.contains("last_hidden_state"), "{msg}");
    assert!(msg.contains("model.onnx"), "{msg}");
}

#[test]
fn a_wrong_dimension_is_a_load_error() {
    let t = folder_with(
        &default_manifest().replace("dimension = 384", "dimension = 768"),
        &["model.onnx", "tokenizer.json"],
    );
    let err = build(t.path());
    assert!(matches!(err, Error::ModelMismatch { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("384") && msg.contains("768"), "{msg}");
}

#[test]
fn a_broken_tokenizer_or_bad_options_are_clear_errors() {
    let t = folder_with(&default_manifest(), &["model.onnx"]);
    std::fs::write(t.path().join("tokenizer.json"), "{ not json").unwrap();
    let err = build(t.path());
    assert!(
        err.to_string().starts_with(&format!(
            "cannot load the tokenizer {}",
            t.path().join("tokenizer.json").display()
        )),
        "{err}"
    );

    let err = OnnxEncoder::builder(&model_dir())
        .batch_size(0)
        .build()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid encoder option: batch_size must be at least 1"
    );
}
