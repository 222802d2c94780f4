//! What the first stage returns: [`Candidate`] notes with their ranks and scores in the BM25
//! and vector lists and their fused score, and the [`CandidateSet`] of them with their vectors
//! and links.

use crate::feedback::Feedback;
use indexer_notes::NoteKind;
use serde::Serialize;

/// One candidate note.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub ordinal: usize,
    pub note_id: String,
    pub kind: NoteKind,
    pub page: Option<u32>,
    /// 1-based rank in the BM25 list.
    pub bm25_rank: Option<usize>,
    pub bm25_score: Option<f32>,
    /// 1-based rank in the vector list.
    pub vector_rank: Option<usize>,
    /// Cosine to the query vector: for every hit when the query has a vector, BM25-only hits
    /// included.
    pub cosine: Option<f32>,
    /// The fused score ([`Fusion`](crate::Fusion)): hits are in decreasing order of it.
    pub fused: f32,
}

/// Candidates ordered by their fused score, with their vectors and the links among them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CandidateSet {
    pub hits: Vec<Candidate>,
    /// `hits.len() x dim`, row-major, aligned with `hits`.
    pub vectors: Vec<f32>,
    /// Links between candidates, as indices into `hits` (from, to), from the notes' links.
    pub links: Vec<(usize, usize)>,
    /// The feedback terms BM25 searched beside the question (empty without feedback).
    pub feedback: Feedback,
}
