//! The candidates of a question as a selector reads them: `Pool`, its entries, and
//! what the structured selectors need of each (document, page, kind, first-stage ranks,
//! links). Plain data: the readers fill it, named pages add to it, selection reads it.

use crate::Result;
use indexer_notes::Note;
use indexer_rerank::{Candidates, NoteInfo, Selection, Selector, SelectorKind};

/// One candidate note with what the first stage knows of it.
#[derive(Debug, Clone)]
pub struct PoolEntry {
    pub note: Note,
    /// Cosine of the note and the query.
    pub cosine: f32,
    /// 1-based rank among the BM25 candidates, if it was one.
    pub bm25_rank: Option<usize>,
    /// 1-based rank among the vector candidates, if it was one.
    pub vector_rank: Option<usize>,
}

/// The candidates a selector chooses from: notes with their vectors, the links among them and,
/// for a hybrid pool, the fused first-stage scores. The one input of selection for `search`
/// and for `indexer eval`.
#[derive(Debug, Clone, Default)]
pub struct Pool {
    pub entries: Vec<PoolEntry>,
    /// `entries.len() x dim`, row-major.
    pub vectors: Vec<f32>,
    pub dim: usize,
    /// Links between entries (from, to), as indices into `entries`.
    pub links: Vec<(usize, usize)>,
    /// The first stage's fused score of each entry; empty for a pool without first-stage
    /// ranks (every note of some documents).
    pub fused: Vec<f64>,
    /// What the structured selectors read of each entry besides its vector: document, page,
    /// kind and first-stage ranks.
    pub info: Vec<NoteInfo>,
}

impl Pool {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The vector of entry `i`.
    pub fn vector(&self, i: usize) -> &[f32] {
        &self.vectors[i * self.dim..(i + 1) * self.dim]
    }

    /// The selector's view of the pool.
    pub fn candidates<'a>(&'a self, query: &'a [f32], query_text: &'a str) -> Candidates<'a> {
        Candidates {
            query,
            notes: &self.vectors,
            dim: self.dim,
            links: &self.links,
            query_text,
            fused: &self.fused,
            info: &self.info,
            rrf_k: Some(indexer_index::RRF_K),
        }
    }

    /// Chooses up to `budget` entries with the selector `kind` (default options).
    pub fn select(
        &self,
        query: &[f32],
        query_text: &str,
        kind: SelectorKind,
        budget: usize,
    ) -> Result<Selection> {
        self.select_with(
            indexer_rerank::selector(kind).as_ref(),
            query,
            query_text,
            budget,
        )
    }

    /// Chooses up to `budget` entries with a configured selector (a
    /// [`SelectorSpec`](indexer_rerank::SelectorSpec) built, for a parameter grid).
    pub fn select_with(
        &self,
        selector: &dyn Selector,
        query: &[f32],
        query_text: &str,
        budget: usize,
    ) -> Result<Selection> {
        Ok(selector.select(&self.candidates(query, query_text), budget)?)
    }
}

/// What the structured selectors need of each entry besides its vector: document (numbered in
/// order of first appearance), page, kind and the first stage's ranks.
pub(crate) fn note_info(entries: &[PoolEntry]) -> Vec<NoteInfo> {
    let mut docs: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    entries
        .iter()
        .map(|e| {
            let next = docs.len() as u32;
            NoteInfo {
                doc: *docs.entry(e.note.doc.as_str()).or_insert(next),
                page: e.note.page,
                visual: e.note.kind != indexer_notes::NoteKind::Text,
                bm25_rank: e.bm25_rank.map(|r| r as u32),
                vector_rank: e.vector_rank.map(|r| r as u32),
            }
        })
        .collect()
}

/// Links between the entries, from the notes' own links.
pub(crate) fn links_among(entries: &[PoolEntry]) -> Vec<(usize, usize)> {
    let pos: std::collections::HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.note.id.as_str(), i))
        .collect();
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        for l in &e.note.links {
            if let Some(&j) = pos.get(l.target.as_str()) {
                out.push((i, j));
            }
        }
    }
    out
}
