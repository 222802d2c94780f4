//! Integration tests of ingestion on real PDFs (fetched by `tools/test-data`) and on small PDFs
//! written here with pdfium where exact expectations are needed. They need the runtime
//! (`tools/setup`) and fail with a clear message without it.

mod bad_input;
mod corpus;
mod pool;
mod synthetic;

use indexer_ingest::{IngestOptions, parse_file};
use indexer_notes::{NoteKind, ParsedDocument, WordCounter};
use std::path::{Path, PathBuf};

/// A test PDF of the workspace's `.test-data/corpus/` (or `$INDEXER_TEST_DATA/corpus/`).
pub fn corpus(name: &str) -> PathBuf {
    let data = std::env::var_os("INDEXER_TEST_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.test-data"));
    let p = data.join("corpus").join(name);
    assert!(
        p.is_file(),
        "test PDF {} is missing\nhint: run tools/test-data",
        p.display()
    );
    p
}

pub fn pdfium() -> &'static pdfium_render::prelude::Pdfium {
    indexer_ingest::pdfium().unwrap_or_else(|e| panic!("{e}\nhint: run tools/setup"))
}

pub fn no_crops() -> IngestOptions {
    IngestOptions {
        crops: false,
        ..IngestOptions::default()
    }
}

pub fn parse(
    path: &Path,
    opts: &IngestOptions,
    crop_dir: &Path,
) -> indexer_ingest::Result<ParsedDocument> {
    pdfium();
    let doc_id = path.file_name().unwrap().to_string_lossy().to_string();
    parse_file(path, &doc_id, opts, &WordCounter, crop_dir, &mut |_| {})
}

pub fn all_text(doc: &ParsedDocument) -> String {
    doc.notes
        .iter()
        .filter(|n| n.kind == NoteKind::Text)
        .map(|n| n.text.replace('\n', " "))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Asserts that the needles occur in `hay` in this order.
pub fn assert_in_order(hay: &str, needles: &[&str]) {
    let mut at = 0;
    for n in needles {
        match hay[at..].find(n) {
            Some(i) => at += i + n.len(),
            None => panic!("{n:?} not found after position {at} (in order {needles:?})"),
        }
    }
}
