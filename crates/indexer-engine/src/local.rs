//! A local index folder as the engine reads it: one generation ([`indexer_index::Index`]),
//! whose first stage searches tantivy's BM25 and the HNSW graph and fuses them.

use crate::Result;
use crate::first_stage::FirstStage;
use crate::location::IndexLocation;
use crate::pool::{Pool, PoolEntry};
use crate::question::SearchedQuestion;
use crate::reader::Reader;
use indexer_index::{
    CandidateQuery, DocumentInfo, Expansions, FailureInfo, Filter, Index, Matching, Stats,
};
use indexer_notes::Note;
use std::path::PathBuf;

/// One generation of a local index, pinned while the reader lives.
#[derive(Debug)]
pub(crate) struct LocalReader {
    index: Index,
    /// The documents' names, made the first time a question is read for them.
    names: std::sync::OnceLock<std::sync::Arc<crate::rewrite::DocumentNames>>,
}

impl LocalReader {
    pub(crate) fn new(index: Index) -> LocalReader {
        LocalReader {
            index,
            names: std::sync::OnceLock::new(),
        }
    }
}

impl Reader for LocalReader {
    fn location(&self) -> IndexLocation {
        IndexLocation::Dir(self.index.dir().to_path_buf())
    }

    fn generation(&self) -> u64 {
        self.index.generation()
    }

    fn model_id(&self) -> &str {
        self.index.model_id()
    }

    fn dim(&self) -> usize {
        self.index.dim()
    }

    fn crop_dir(&self) -> PathBuf {
        self.index.crop_dir()
    }

    fn len(&self) -> Result<usize> {
        Ok(self.index.len())
    }

    fn stats(&self) -> Result<Stats> {
        Ok(self.index.stats())
    }

    fn documents(&self) -> Result<Vec<DocumentInfo>> {
        Ok(self.index.documents())
    }

    fn failures(&self) -> Result<Vec<FailureInfo>> {
        Ok(self.index.failures())
    }

    fn note(&self, id: &str) -> Result<Option<Note>> {
        Ok(self.index.note(id))
    }

    fn all_notes(&self) -> Result<Vec<Note>> {
        Ok(self.index.all_notes().into_iter().map(|(_, n)| n).collect())
    }

    fn document_notes(&self, doc: &str) -> Result<Vec<(Note, Vec<f32>)>> {
        Ok(self
            .index
            .document_notes(doc)
            .into_iter()
            .map(|(o, n)| (n, self.index.vector(o).to_vec()))
            .collect())
    }

    /// Prefix and typo expansions from the index's term dictionaries.
    fn expand(&self, text: &str, matching: Matching, _filter: &Filter) -> Result<Expansions> {
        Ok(self.index.expand(text, matching)?)
    }

    fn first_stage(
        &self,
        question: &SearchedQuestion<'_>,
        filter: &Filter,
        stage: FirstStage,
    ) -> Result<Pool> {
        let set = self.index.candidates(&CandidateQuery {
            text: &question.searched,
            vector: &question.vector,
            bm25_k: stage.candidates,
            vector_k: stage.candidates,
            fusion: stage.fusion,
            filter: filter.clone(),
            expansions: Some(&question.expansions),
            feedback: stage.feedback,
        })?;
        let dim = self.index.dim();
        // A candidate whose note cannot be read (a damaged store) is left out, with its links.
        let mut candidates = Vec::with_capacity(set.hits.len());
        for (i, c) in set.hits.iter().enumerate() {
            let Ok(note) = self.index.note_at(c.ordinal) else {
                continue;
            };
            let entry = PoolEntry {
                note,
                cosine: c.cosine.unwrap_or(0.0),
                bm25_rank: c.bm25_rank,
                bm25_score: c.bm25_score,
                vector_rank: c.vector_rank,
            };
            candidates.push((
                entry,
                &set.vectors[i * dim..(i + 1) * dim],
                f64::from(c.fused),
            ));
        }
        Ok(Pool::ranked(dim, candidates))
    }

    fn document_names(&self) -> Result<std::sync::Arc<crate::rewrite::DocumentNames>> {
        Ok(self
            .names
            .get_or_init(|| {
                std::sync::Arc::new(crate::rewrite::DocumentNames::new(&self.index.documents()))
            })
            .clone())
    }

    fn document_pages(&self, doc: &str) -> Result<Option<u32>> {
        Ok(self.index.document_pages(doc))
    }

    fn bm25_notes(&self, text: &str, k: usize, filter: &Filter) -> Result<Vec<Note>> {
        Ok(self
            .index
            .bm25(text, k, filter)?
            .into_iter()
            .filter_map(|(ordinal, _)| self.index.note_at(ordinal).ok())
            .collect())
    }

    fn local_index(&self) -> Option<&Index> {
        Some(&self.index)
    }
}
