//! What the benchmarks and examples of the workspace share, each written once: the questions
//! asked of an index of the PDFs of `../shared/corpus/` (the server's `serve` bench and the
//! soak of `indexer serve`), and the synthetic corpus of SciFact words
//! (`../shared/eval/beir/scifact`) that the `candidates` bench and the server's `typing`
//! bench index. `../shared/` lies beside the project; a clone of the project does not have it.
//!
//! Not part of the crate's API: hidden from its documentation, free to change with its users.
//! The random draws stay with each bench (their generators and seeds are theirs).

use indexer_notes::{Note, NoteKind, ParsedDocument, note_id};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Questions about the PDFs of `../shared/corpus/`; any other corpus works too, its searches
/// then just find fewer relevant notes.
pub const SHARED_CORPUS_QUERIES: [&str; 16] = [
    "What is a mosaic plot?",
    "Which optimizer does lmer use by default?",
    "random effects for subjects and items",
    "shading of residuals in association plots",
    "how to format the bibliography of a thesis",
    "table of fixed effects estimates",
    "Bose-Einstein condensation",
    "ACM reference format and CCS concepts",
    "sieve plot of expected frequencies",
    "restricted maximum likelihood criterion",
    "graduate school signature page",
    "doubly labeled figure caption",
    "sparse matrix representation of the model",
    "labeling cells of a contingency table",
    "author affiliations and email addresses",
    "convergence warnings and profiling",
];

/// Notes of a synthetic document.
pub const NOTES_PER_DOC: usize = 100;

/// The SciFact folder of `../shared/eval/beir/`.
pub fn scifact() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/eval/beir/scifact")
}

/// The string `field` of each line of a JSON-lines file (lines without it left out); panics,
/// naming the file, when it cannot be read.
pub fn json_texts(path: &Path, field: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}): this benchmark reads ../shared/eval/ beside the project, which a clone of the project does not have",
            path.display()
        )
    });
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get(field)?.as_str().map(str::to_string))
        .collect()
}

/// Every word of the SciFact abstracts, in order: what synthetic notes are cut from.
pub fn scifact_words() -> Vec<String> {
    json_texts(&scifact().join("corpus.jsonl"), "text")
        .iter()
        .flat_map(|t| t.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .collect()
}

/// The SciFact claims: the queries of the synthetic corpus.
pub fn scifact_claims() -> Vec<String> {
    json_texts(&scifact().join("queries.jsonl"), "text")
}

/// The path of synthetic document `d`: `papers/p00000.pdf`, `papers/p00001.pdf`, ...
pub fn synthetic_doc(d: usize) -> String {
    format!("papers/p{d:05}.pdf")
}

/// Note `i` of the synthetic document `doc`: the run of `words` it is given, on page
/// 1 + i / 4.
pub fn synthetic_note(doc: &str, i: usize, words: &[String]) -> Note {
    let mut n = Note::new(
        note_id(doc, NoteKind::Text, i),
        doc,
        NoteKind::Text,
        words.join(" "),
    );
    n.page = Some(1 + i as u32 / 4);
    n
}

/// Synthetic document number `d` (its path `doc`) of 25 pages with its `notes`, its hash
/// the number.
pub fn synthetic_document(doc: String, d: usize, notes: Vec<Note>) -> ParsedDocument {
    ParsedDocument {
        doc,
        hash: format!("{d}"),
        title: None,
        pages: 25,
        pages_without_text: vec![],
        ocr_pages: vec![],
        unreadable_pages: vec![],
        notes,
        warnings: vec![],
    }
}

/// The value at share `p` of sorted latencies (the nearest of the n - 1 steps between the
/// first and the last).
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_synthetic_note_is_its_run_of_words_on_its_page() {
        let words: Vec<String> = ["mosaic", "plots", "of", "tables"]
            .map(String::from)
            .to_vec();
        let doc = synthetic_doc(7);
        let n = synthetic_note(&doc, 5, &words[1..3]);
        assert_eq!(
            (n.id.as_str(), n.doc.as_str(), n.text.as_str(), n.page),
            (
                "papers/p00007.pdf#t5",
                "papers/p00007.pdf",
                "plots of",
                Some(2)
            )
        );
        let parsed = synthetic_document(doc, 7, vec![n]);
        assert_eq!((parsed.hash.as_str(), parsed.pages), ("7", 25));
        let ms = |v: u64| Duration::from_millis(v);
        let sorted = [ms(1), ms(2), ms(3), ms(4), ms(5)];
        assert_eq!(percentile(&sorted, 0.5), ms(3));
        assert_eq!(percentile(&sorted, 0.99), ms(5));
    }
}
