//! The index of `indexer`: tantivy BM25 over note text, a memory-mapped f32 vector matrix
//! with an HNSW graph (`hnsw_rs`), a note store, all tied together per generation by a
//! manifest written atomically, and hybrid candidate retrieval (BM25 and vectors fused as
//! [`Fusion`] says).
//!
//! One [`Writer`] per folder stages document upserts and removals and commits them as a new
//! generation; any number of [`Index`] readers (in any process) each see one complete
//! generation.
//!
//! ```
//! use indexer_index::{CandidateQuery, Index, Writer};
//! use indexer_notes::{Note, NoteKind, ParsedDocument};
//! let dir = tempfile::tempdir().unwrap();
//! let mut w = Writer::open_or_create(dir.path(), "test-model", 2).unwrap();
//! let note = Note::new("a.md#t0", "a.md", NoteKind::Text, "hybrid retrieval of notes");
//! let doc = ParsedDocument {
//!     doc: "a.md".into(), hash: "h1".into(), title: None, pages: 1,
//!     pages_without_text: vec![], ocr_pages: vec![], unreadable_pages: vec![],
//!     notes: vec![note], warnings: vec![],
//! };
//! w.upsert(doc, vec![1.0, 0.0]).unwrap();
//! w.commit().unwrap();
//! let index = Index::open(dir.path()).unwrap();
//! let set = index
//!     .candidates(&CandidateQuery { text: "retrieval", vector: &[1.0, 0.0], ..Default::default() })
//!     .unwrap();
//! assert_eq!(set.hits[0].note_id, "a.md#t0");
//! assert_eq!(set.vectors, vec![1.0, 0.0]);
//! ```

#[doc(hidden)]
pub mod bench_support;

mod analyze;
mod bm25;
mod candidates;
mod committed_dir;
mod error;
mod feedback;
mod filter;
mod fsutil;
mod fusion;
mod graph;
mod hybrid;
mod manifest;
mod matching;
mod nearest;
mod reader;
mod schema;
mod scope;
mod stats;
mod store;
mod writer;

pub use analyze::{analyze, analyze_many};
pub use candidates::{Candidate, CandidateSet};
pub use error::{Error, Result};
pub use feedback::{FEEDBACK_TERMS, FEEDBACK_WEIGHT, Feedback};
pub use filter::Filter;
pub use fsutil::{CROPS, GcStats};
pub use fusion::{BM25_WEIGHT, Fusion, RRF_K, fuse};
pub use graph::{EXACT_THRESHOLD, HnswParams, dot, exact_search};
pub use hybrid::CandidateQuery;
pub use matching::{
    EXPANSION_WEIGHT, Expansions, Matching, PREFIX_MIN_CHARS, PREFIX_TERMS, TYPO_MIN_CHARS,
    TYPO_TERMS, TYPO2_MIN_CHARS, edit_distance,
};
pub use reader::Index;
pub use schema::FORMAT_VERSION;
pub use stats::{DocumentInfo, FailureInfo, Stats};
pub use writer::{CommitStats, GraphAction, Writer};

#[cfg(test)]
mod send_sync {
    fn assert_send_sync<T: Send + Sync>() {}
    #[test]
    fn index_is_send_and_sync() {
        assert_send_sync::<super::Index>();
    }
}
