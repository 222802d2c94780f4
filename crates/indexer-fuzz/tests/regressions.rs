//! Every input kept for the fuzz targets, run in the normal suite: `regressions/TARGET/` holds
//! the inputs fuzzing found a failure with (fixed since), `seeds/TARGET/` the seed corpus that
//! `tools/fuzz` starts from. The `pdf` target parses through this crate's `pdf-worker`.

use std::path::Path;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for kind in ["regressions", "seeds"] {
        let dir = root.join(kind).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = format!("{kind}/{target}/{}", e.file_name().to_string_lossy());
            out.push((name, std::fs::read(e.path()).unwrap()));
        }
    }
    out.sort();
    out
}

fn run(target: &str, f: impl Fn(&[u8])) {
    let all = inputs(target);
    assert!(!all.is_empty(), "no seeds or regressions for {target}");
    for (name, data) in all {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&data)));
        assert!(r.is_ok(), "{name} fails the {target} target again");
    }
}

#[test]
fn markup_inputs() {
    run("markup", indexer_fuzz::markup);
}

#[test]
fn query_inputs() {
    run("query", indexer_fuzz::query);
}

#[test]
fn server_inputs() {
    run("server", indexer_fuzz::server);
}

#[test]
fn store_inputs() {
    run("store", indexer_fuzz::store);
}

#[test]
fn pdf_inputs() {
    let worker = Path::new(env!("CARGO_BIN_EXE_pdf-worker"));
    run("pdf", |d| indexer_fuzz::pdf_with(worker, d));
}

#[test]
fn every_target_has_inputs() {
    for (name, _) in indexer_fuzz::TARGETS {
        assert!(!inputs(name).is_empty(), "{name}");
    }
}
