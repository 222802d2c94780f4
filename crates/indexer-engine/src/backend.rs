//! The index a search reads: one generation of a local folder, or a Milvus collection. The
//! engine, the view and the selectors see the same notes, vectors and first-stage lists from
//! either.

use crate::milvus::MilvusIndex;
use crate::search::{FirstStage, Pool, hybrid_pool};
use crate::{IndexLocation, Result};
use indexer_index::{DocumentInfo, Expansions, FailureInfo, Filter, Index, Matching, Stats};
use indexer_notes::Note;
use std::path::PathBuf;
use std::sync::Arc;

/// Cheap to clone: a search holds one for its whole duration.
#[derive(Debug, Clone)]
pub(crate) enum Backend {
    Local(Arc<Index>),
    Milvus(Arc<MilvusIndex>),
}

impl Backend {
    pub(crate) fn open(location: &IndexLocation) -> Result<Backend> {
        Ok(match location {
            IndexLocation::Dir(dir) => Backend::Local(Arc::new(Index::open(dir)?)),
            IndexLocation::Milvus(url) => Backend::Milvus(Arc::new(MilvusIndex::open(url)?)),
        })
    }

    pub(crate) fn location(&self) -> IndexLocation {
        match self {
            Backend::Local(i) => IndexLocation::Dir(i.dir().to_path_buf()),
            Backend::Milvus(m) => IndexLocation::Milvus(m.url().clone()),
        }
    }

    /// The local generation; 0 for Milvus, which has none.
    pub(crate) fn generation(&self) -> u64 {
        match self {
            Backend::Local(i) => i.generation(),
            Backend::Milvus(_) => 0,
        }
    }

    pub(crate) fn model_id(&self) -> &str {
        match self {
            Backend::Local(i) => i.model_id(),
            Backend::Milvus(m) => m.model_id(),
        }
    }

    pub(crate) fn dim(&self) -> usize {
        match self {
            Backend::Local(i) => i.dim(),
            Backend::Milvus(m) => m.dim(),
        }
    }

    pub(crate) fn crop_dir(&self) -> PathBuf {
        match self {
            Backend::Local(i) => i.crop_dir(),
            Backend::Milvus(m) => m.crop_dir(),
        }
    }

    pub(crate) fn len(&self) -> Result<usize> {
        match self {
            Backend::Local(i) => Ok(i.len()),
            Backend::Milvus(m) => m.len(),
        }
    }

    pub(crate) fn stats(&self) -> Result<Stats> {
        match self {
            Backend::Local(i) => Ok(i.stats()),
            Backend::Milvus(m) => m.stats(),
        }
    }

    pub(crate) fn documents(&self) -> Result<Vec<DocumentInfo>> {
        match self {
            Backend::Local(i) => Ok(i.documents()),
            Backend::Milvus(m) => m.documents(),
        }
    }

    pub(crate) fn failures(&self) -> Result<Vec<FailureInfo>> {
        match self {
            Backend::Local(i) => Ok(i.failures()),
            Backend::Milvus(m) => m.failures(),
        }
    }

    pub(crate) fn note(&self, id: &str) -> Result<Option<Note>> {
        match self {
            Backend::Local(i) => Ok(i.note(id)),
            Backend::Milvus(m) => m.note(id),
        }
    }

    /// Every live note, by document then document order.
    pub(crate) fn all_notes(&self) -> Result<Vec<Note>> {
        match self {
            Backend::Local(i) => Ok(i.all_notes().into_iter().map(|(_, n)| n).collect()),
            Backend::Milvus(m) => Ok(m
                .notes(&Filter::default())?
                .into_iter()
                .map(|(n, _)| n)
                .collect()),
        }
    }

    /// The notes of a document with their vectors, in document order.
    pub(crate) fn document_notes(&self, doc: &str) -> Result<Vec<(Note, Vec<f32>)>> {
        match self {
            Backend::Local(i) => Ok(i
                .document_notes(doc)
                .into_iter()
                .map(|(o, n)| (n, i.vector(o).to_vec()))
                .collect()),
            Backend::Milvus(m) => m.notes(&Filter {
                docs: vec![doc.to_string()],
                ..Filter::default()
            }),
        }
    }

    /// Prefix and typo expansions from the local index's term dictionaries. Milvus does not
    /// expose its terms: there the words match as typed.
    pub(crate) fn expand(&self, text: &str, matching: Matching) -> Result<Expansions> {
        match self {
            Backend::Local(i) => Ok(i.expand(text, matching)?),
            Backend::Milvus(_) => Ok(Expansions::default()),
        }
    }

    pub(crate) fn pool(
        &self,
        query: &str,
        vector: &[f32],
        filter: &Filter,
        stage: FirstStage,
        expansions: &Expansions,
    ) -> Result<Pool> {
        match self {
            Backend::Local(i) => hybrid_pool(i, query, vector, filter, stage, expansions),
            // Milvus's BM25 function takes text, not weighted terms: no feedback there.
            Backend::Milvus(m) => m.pool(query, vector, stage.candidates, filter, stage.fusion),
        }
    }
}
