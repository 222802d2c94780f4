//! BM25 search: the question's words (and their expansions, and feedback terms) through
//! tantivy, with the filter inside the query and, for a filter on documents, BM25 statistics
//! scoped to those documents.

use crate::error::{Error, Result};
use crate::feedback::Feedback;
use crate::filter::Filter;
use crate::matching::{self, Expansions, Matching};
use crate::reader::{Index, guarded};
use crate::scope::ScopedStats;
use std::ops::Bound;
use tantivy::Term;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, RangeQuery, TermSetQuery};

impl Index {
    /// BM25 top-k as (ordinal, score), best first, with the filter inside the query; the
    /// words as typed.
    pub fn bm25(&self, text: &str, k: usize, filter: &Filter) -> Result<Vec<(usize, f32)>> {
        self.bm25_expanded(text, k, filter, None)
    }

    /// The prefix and typo expansions `matching` asks for of the words of `text`, for
    /// [`Index::bm25_expanded`] and
    /// [`CandidateQuery::expansions`](crate::CandidateQuery::expansions).
    pub fn expand(&self, text: &str, matching: Matching) -> Result<Expansions> {
        guarded(&self.tantivy_dir(), || {
            matching::expand(
                &self.searcher,
                &self.fields.searched,
                &mut self.stemmer.clone(),
                text,
                matching,
            )
            .map_err(Error::tantivy(&self.dir))
        })
    }

    /// BM25 top-k with the words as typed and their expansions.
    pub fn bm25_expanded(
        &self,
        text: &str,
        k: usize,
        filter: &Filter,
        expansions: Option<&Expansions>,
    ) -> Result<Vec<(usize, f32)>> {
        guarded(&self.tantivy_dir(), || {
            self.bm25_search(text, k, filter, expansions, None)
        })
    }

    pub(crate) fn bm25_search(
        &self,
        text: &str,
        k: usize,
        filter: &Filter,
        expansions: Option<&Expansions>,
        feedback: Option<&Feedback>,
    ) -> Result<Vec<(usize, f32)>> {
        if k == 0 || text.trim().is_empty() {
            return Ok(Vec::new());
        }
        let (parsed, _errors) = self.parser.parse_query_lenient(text);
        let extra: Vec<Box<dyn Query>> = [
            expansions.and_then(|e| e.query(&self.fields.searched)),
            feedback.and_then(|f| f.query(&self.fields.searched)),
        ]
        .into_iter()
        .flatten()
        .collect();
        let query: Box<dyn Query> = if extra.is_empty() {
            parsed
        } else {
            Box::new(BooleanQuery::new(
                std::iter::once(parsed)
                    .chain(extra)
                    .map(|q| (Occur::Should, q))
                    .collect(),
            ))
        };
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, query)];
        let f = &self.fields;
        if !filter.docs.is_empty() {
            let terms = filter.docs.iter().map(|d| Term::from_field_text(f.doc, d));
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(
                    Box::new(TermSetQuery::new(terms)),
                    0.0,
                )),
            ));
        }
        if !filter.kinds.is_empty() {
            let terms = filter
                .kinds
                .iter()
                .map(|k| Term::from_field_text(f.kind, k.as_str()));
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(
                    Box::new(TermSetQuery::new(terms)),
                    0.0,
                )),
            ));
        }
        if let Some((a, b)) = filter.pages {
            let range = RangeQuery::new(
                Bound::Included(Term::from_field_u64(f.page, u64::from(a.max(1)))),
                Bound::Included(Term::from_field_u64(f.page, u64::from(b))),
            );
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(range), 0.0)),
            ));
        }
        let q = BooleanQuery::new(clauses);
        let collector = TopDocs::with_limit(k).order_by_score();
        // Filtered to documents: BM25 weighs words by their statistics in those documents.
        let scoped = if filter.docs.is_empty() {
            None
        } else {
            ScopedStats::new(&self.searcher, f.doc, &filter.docs)
                .map_err(Error::tantivy(&self.dir))?
        };
        let top = match &scoped {
            Some(stats) => self
                .searcher
                .search_with_statistics_provider(&q, &collector, stats),
            None => self.searcher.search(&q, &collector),
        }
        .map_err(Error::tantivy(&self.dir))?;
        Ok(top
            .into_iter()
            .filter_map(|(score, addr)| {
                let o = self.ordinals[addr.segment_ord as usize].first(addr.doc_id)? as usize;
                Some((o, score))
            })
            .collect())
    }
}
