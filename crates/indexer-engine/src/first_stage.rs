//! How the first stage searches: how many candidates each retriever gives, how their two lists
//! are fused, and whether BM25 searches again with feedback terms. Every reader
//! ([`crate::reader::Reader::first_stage`]) takes it, with the searched question and a filter.

use indexer_index::Fusion;

/// Candidates taken from each of BM25 and the vector index.
pub const DEFAULT_CANDIDATES: usize = 100;
/// Whether the first stage searches BM25 a second time with the terms of its best note
/// (pseudo-relevance feedback, `indexer_index::Feedback`) when a request does not say; the
/// docs/evaluation.md's "The first stage" has what it adds and costs.
pub const DEFAULT_FEEDBACK: bool = true;

/// How the first stage searches: candidates from each retriever, how their two lists are
/// fused, and whether BM25 searches again with feedback terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FirstStage {
    /// k: candidates from each of BM25 and vectors, before fusion.
    pub candidates: usize,
    pub fusion: Fusion,
    /// Pseudo-relevance feedback (local indexes, and a Milvus index's searches filtered to a
    /// few documents: `milvus/scoped.rs`).
    pub feedback: bool,
}

impl Default for FirstStage {
    fn default() -> FirstStage {
        FirstStage {
            candidates: DEFAULT_CANDIDATES,
            fusion: Fusion::default(),
            feedback: DEFAULT_FEEDBACK,
        }
    }
}
