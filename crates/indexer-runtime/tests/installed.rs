//! The runtime that `tools/setup` installed: found from the checkout, and both libraries load.
//! These tests fail (they do not skip) when the runtime is missing: run `tools/setup` first.

use indexer_runtime::{DEFAULT_MODEL, Runtime};
use std::path::Path;

fn installed() -> Runtime {
    // Tests run with the crate folder as the working directory; the runtime is at the root.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let env = std::env::var_os("INDEXER_RUNTIME").map(std::path::PathBuf::from);
    match Runtime::discover_from(env.as_deref(), &root, Path::new("")) {
        Ok(rt) => rt,
        Err(e) => panic!(
            "{e}\nhint: {}",
            indexer_notes::Hint::hint(&e).unwrap_or_default()
        ),
    }
}

#[test]
fn pdfium_loads() {
    let rt = installed();
    let lib = rt.pdfium_library().unwrap_or_else(|e| {
        panic!(
            "{e}\nhint: {}",
            indexer_notes::Hint::hint(&e).unwrap_or_default()
        )
    });
    Runtime::check_loads(&lib, "FPDF_InitLibrary").unwrap();
    Runtime::check_loads(&lib, "FPDFText_GetCharBox").unwrap();
}

#[test]
fn onnxruntime_loads() {
    let rt = installed();
    let lib = rt.onnxruntime_library().unwrap_or_else(|e| {
        panic!(
            "{e}\nhint: {}",
            indexer_notes::Hint::hint(&e).unwrap_or_default()
        )
    });
    Runtime::check_loads(&lib, "OrtGetApiBase").unwrap();
}

#[test]
fn default_model_is_installed_with_its_files() {
    let rt = installed();
    let dir = rt.model_dir(DEFAULT_MODEL).unwrap();
    for f in ["model.onnx", "tokenizer.json", "LICENSE", "model.toml"] {
        assert!(
            dir.join(f).is_file(),
            "{} is missing",
            dir.join(f).display()
        );
    }
    rt.check().unwrap();
}
