//! BM25 statistics of the documents a search is limited to.
//!
//! A search filtered to some documents ranks notes within those documents, so a word is as
//! telling as it is rare *there*: a company's name is rare in the corpus but on every page of
//! its annual report. [`ScopedStats`] gives tantivy's BM25 the document count, the document
//! frequency of each term and the field lengths of the notes of the filtered documents, which
//! is the corpus the search ranks (and MMDocIR's protocol, where each document is its own
//! corpus). An unfiltered search keeps the whole index's statistics.

use std::collections::HashMap;
use std::sync::Mutex;
use tantivy::query::{Bm25StatisticsProvider, EnableScoring, Query, TermSetQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, DocSet, Searcher, TERMINATED, Term};

/// BM25 statistics over the notes whose `doc` field holds one of the given documents.
pub(crate) struct ScopedStats<'a> {
    searcher: &'a Searcher,
    /// The live notes in scope, per segment, ascending.
    scope: Vec<Vec<DocId>>,
    docs: u64,
    /// Field lengths summed over the scope, computed when BM25 first asks for a field.
    tokens: Mutex<HashMap<Field, u64>>,
}

impl<'a> ScopedStats<'a> {
    /// The statistics of the notes of `docs` (values of the `doc_field`), or `None` when no
    /// note is in scope (the search then finds nothing whatever the statistics).
    pub(crate) fn new(
        searcher: &'a Searcher,
        doc_field: Field,
        docs: &[String],
    ) -> tantivy::Result<Option<ScopedStats<'a>>> {
        let set = TermSetQuery::new(docs.iter().map(|d| Term::from_field_text(doc_field, d)));
        let weight = set.weight(EnableScoring::disabled_from_searcher(searcher))?;
        let mut scope = Vec::with_capacity(searcher.segment_readers().len());
        for segment in searcher.segment_readers() {
            let alive = segment.alive_bitset();
            let mut notes = weight.scorer(segment, 1.0)?;
            let mut kept = Vec::new();
            let mut doc = notes.doc();
            while doc != TERMINATED {
                if alive.is_none_or(|a| a.is_alive(doc)) {
                    kept.push(doc);
                }
                doc = notes.advance();
            }
            scope.push(kept);
        }
        let n: u64 = scope.iter().map(|s| s.len() as u64).sum();
        Ok((n > 0).then(|| ScopedStats {
            searcher,
            scope,
            docs: n,
            tokens: Mutex::new(HashMap::new()),
        }))
    }

    /// The sum of `field`'s lengths (tantivy's field norms) over the notes in scope.
    fn count_tokens(&self, field: Field) -> tantivy::Result<u64> {
        let mut total = 0u64;
        for (segment, notes) in self.searcher.segment_readers().iter().zip(&self.scope) {
            let norms = segment.get_fieldnorms_reader(field)?;
            total += notes
                .iter()
                .map(|&d| u64::from(norms.fieldnorm(d)))
                .sum::<u64>();
        }
        Ok(total)
    }
}

impl Bm25StatisticsProvider for ScopedStats<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        if let Some(&n) = self.tokens.lock().expect("not poisoned").get(&field) {
            return Ok(n);
        }
        let n = self.count_tokens(field)?;
        self.tokens.lock().expect("not poisoned").insert(field, n);
        Ok(n)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.docs)
    }

    /// The notes in scope that hold `term`: each one looked up in the term's postings by
    /// their skip lists, so the cost follows the scope, not how common the term is.
    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let mut n = 0u64;
        for (segment, notes) in self.searcher.segment_readers().iter().zip(&self.scope) {
            if notes.is_empty() {
                continue;
            }
            let inverted = segment.inverted_index(term.field())?;
            let Some(mut postings) = inverted.read_postings(term, IndexRecordOption::Basic)? else {
                continue;
            };
            for &d in notes {
                if postings.doc() > d {
                    continue;
                }
                match postings.seek(d) {
                    TERMINATED => break,
                    found if found == d => n += 1,
                    _ => {}
                }
            }
        }
        Ok(n)
    }
}
