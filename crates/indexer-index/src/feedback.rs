//! Pseudo-relevance feedback: the terms that mark the first stage's best note, searched by
//! BM25 a second time beside the question's own words.
//!
//! A question and the passage that answers it often name the same thing in different words
//! ("working capital" against a balance sheet's "current assets" and "current liabilities").
//! The first round's best note (by the fused score, so the vectors have had their say; and
//! one that BM25 found, so that a word of the question is in it) is usually on topic; its
//! most telling terms, weighed by their frequency in the note times BM25's idf over the
//! index, are added to the BM25 query at [`FEEDBACK_WEIGHT`] of a question word's weight,
//! which lets notes that share the answer's vocabulary but not the question's into the BM25
//! list. This is RM3 (Lavrenko and Croft's relevance model mixed with the original query)
//! with its usual settings of ten terms and an even mix, fed by one note rather than ten
//! documents: a note is a passage, and a long document's next best notes are mostly more of
//! the same document.

use crate::analyze::analyze;
use std::collections::{HashMap, HashSet};
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Searcher, Term};

/// Terms taken from the best note.
pub const FEEDBACK_TERMS: usize = 10;
/// The BM25 weight of the best feedback term against 1 for a question word; the others in
/// proportion to their weight in the note.
pub const FEEDBACK_WEIGHT: f32 = 0.5;
/// Shorter terms are not taken (stems of two letters say little).
const MIN_TERM_CHARS: usize = 3;

/// Feedback terms (stems) and their BM25 weights, the heaviest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Feedback {
    terms: Vec<(String, f32)>,
}

impl Feedback {
    /// The [`FEEDBACK_TERMS`] terms of `note` with the highest tf x idf (idf as BM25 has it,
    /// over `field` of the whole index), the question's own terms and terms without a letter
    /// left out, weighted [`FEEDBACK_WEIGHT`] x their score / the best score.
    pub(crate) fn from_note(
        note: &str,
        question: &str,
        searcher: &Searcher,
        field: Field,
    ) -> Feedback {
        let asked: HashSet<String> = analyze(question).into_iter().collect();
        let mut tf: HashMap<String, u32> = HashMap::new();
        for t in analyze(note) {
            if t.chars().count() >= MIN_TERM_CHARS
                && t.chars().any(char::is_alphabetic)
                && !asked.contains(&t)
            {
                *tf.entry(t).or_insert(0) += 1;
            }
        }
        let docs = searcher.num_docs() as f32;
        let mut scored: Vec<(String, f32)> = tf
            .into_iter()
            .map(|(t, f)| {
                let df = searcher
                    .doc_freq(&Term::from_field_text(field, &t))
                    .unwrap_or(0) as f32;
                let s = f as f32 * bm25_idf(docs, df);
                (t, s)
            })
            .filter(|(_, s)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        scored.truncate(FEEDBACK_TERMS);
        let best = scored.first().map_or(1.0, |s| s.1);
        Feedback {
            terms: scored
                .into_iter()
                .map(|(t, s)| (t, FEEDBACK_WEIGHT * s / best))
                .collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// (stem, BM25 weight), the heaviest first.
    pub fn terms(&self) -> &[(String, f32)] {
        &self.terms
    }

    /// One `Should` clause per term, on every searched field with its boost.
    pub(crate) fn query(&self, fields: &[(Field, f32)]) -> Option<Box<dyn Query>> {
        let clauses: Vec<(Occur, Box<dyn Query>)> = self
            .terms
            .iter()
            .flat_map(|(t, w)| {
                fields.iter().map(move |&(field, boost)| {
                    let q = TermQuery::new(
                        Term::from_field_text(field, t),
                        IndexRecordOption::WithFreqs,
                    );
                    let q: Box<dyn Query> = Box::new(BoostQuery::new(Box::new(q), boost * w));
                    (Occur::Should, q)
                })
            })
            .collect();
        (!clauses.is_empty()).then(|| Box::new(BooleanQuery::new(clauses)) as Box<dyn Query>)
    }
}

/// BM25's idf of a term in `df` of `docs` documents (as tantivy computes it).
fn bm25_idf(docs: f32, df: f32) -> f32 {
    (1.0 + (docs - df + 0.5) / (df + 0.5)).ln()
}
