//! The read side of an index, the twin of [`crate::sink::Sink`]: what the engine, the view and
//! named pages read of a local generation ([`crate::local::LocalReader`]) or of a Milvus
//! collection ([`crate::milvus::MilvusReader`]), the first stage included. Both give the same
//! notes, vectors and fused candidate lists, so every command works the same over either.

use crate::Result;
use crate::first_stage::FirstStage;
use crate::location::IndexLocation;
use crate::pool::Pool;
use crate::question::SearchedQuestion;
use indexer_index::{DocumentInfo, Expansions, FailureInfo, Filter, Index, Matching, Stats};
use indexer_notes::Note;
use std::path::PathBuf;

pub(crate) trait Reader: Send + Sync + std::fmt::Debug {
    fn location(&self) -> IndexLocation;
    /// The local generation; 0 for Milvus, which has none.
    fn generation(&self) -> u64;
    /// The id of the encoder the index was built with.
    fn model_id(&self) -> &str;
    fn dim(&self) -> usize;
    /// The folder of the crop PNGs of figure and table notes.
    fn crop_dir(&self) -> PathBuf;
    /// Live notes.
    fn len(&self) -> Result<usize>;
    fn stats(&self) -> Result<Stats>;
    fn documents(&self) -> Result<Vec<DocumentInfo>>;
    fn failures(&self) -> Result<Vec<FailureInfo>>;
    fn note(&self, id: &str) -> Result<Option<Note>>;
    /// Every live note, by document then document order.
    fn all_notes(&self) -> Result<Vec<Note>>;
    /// The notes of a document with their vectors, in document order.
    fn document_notes(&self, doc: &str) -> Result<Vec<(Note, Vec<f32>)>>;
    /// The completions and corrections `matching` asks for of the words of `text`, among the
    /// words of the notes `filter` lets through where the index can say (a Milvus index
    /// only for a search limited to a few documents).
    fn expand(&self, text: &str, matching: Matching, filter: &Filter) -> Result<Expansions>;
    /// The first stage: the top candidates of BM25 (the question's words and expansions) and
    /// of the vectors, fused as `stage` says, with `filter` applied inside both searches.
    fn first_stage(
        &self,
        question: &SearchedQuestion<'_>,
        filter: &Filter,
        stage: FirstStage,
    ) -> Result<Pool>;
    /// The names of the documents (`crate::rewrite::DocumentNames`), made once per generation.
    fn document_names(&self) -> Result<std::sync::Arc<crate::rewrite::DocumentNames>>;
    /// The page count of document `doc` (0 for an unpaged one), `None` when unknown.
    fn document_pages(&self, doc: &str) -> Result<Option<u32>>;
    /// The notes of the `k` best BM25 matches of `text` among the notes `filter` lets
    /// through, best first.
    fn bm25_notes(&self, text: &str, k: usize, filter: &Filter) -> Result<Vec<Note>>;
    /// The local index itself, for what only a local index can do (BEIR rankings).
    fn local_index(&self) -> Option<&Index> {
        None
    }
}

/// How many BM25 matches of the statements' names are read to find a statement page: a
/// statement's page of numbers holds its title in few words, so it ranks near the top of a
/// search for the titles in any document that has one; 50 leaves room for the notes of the
/// management's discussion, which name the statements too.
const STATEMENT_SEARCH_DEPTH: usize = 50;

/// What the rewrite stage reads of the index being searched ([`crate::rewrite::Scope`]): its
/// documents, the filter's documents, and whether a document the filter lets through has a
/// statement page, each read only when a rule asks.
pub(crate) struct ReaderScope<'a> {
    reader: &'a dyn Reader,
    filter: &'a Filter,
}

impl<'a> ReaderScope<'a> {
    pub(crate) fn new(reader: &'a dyn Reader, filter: &'a Filter) -> ReaderScope<'a> {
        ReaderScope { reader, filter }
    }
}

impl crate::rewrite::Scope for ReaderScope<'_> {
    fn named_document(&self, question: &str) -> Result<Option<String>> {
        Ok(self
            .reader
            .document_names()?
            .named_in(question)
            .map(str::to_string))
    }

    fn filter_docs(&self) -> &[String] {
        &self.filter.docs
    }

    /// A page of numbers whose words name a statement, among the best BM25 matches of the
    /// statements' names in the filter's documents.
    fn has_statement_pages(&self) -> Result<bool> {
        let names = crate::rewrite::terms::STATEMENT_NAMES;
        let filter = Filter {
            docs: self.filter.docs.clone(),
            ..Filter::default()
        };
        let notes = self
            .reader
            .bm25_notes(&names.join(" "), STATEMENT_SEARCH_DEPTH, &filter)?;
        Ok(notes
            .iter()
            .any(|n| n.is_page_of_numbers() && crate::rewrite::terms::names_a_statement(&n.text)))
    }
}
