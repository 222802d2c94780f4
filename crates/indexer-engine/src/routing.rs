//! Which documents a search over the whole library draws its evidence from, and how sure it
//! is of them. A question that names a document (its file name, or a title of two words or
//! more: `crate::rewrite::DocumentNames`) searches that document alone; any other is answered
//! from the whole index, and the response says which documents its candidates favour.
//!
//! A document's weight is the sum of the fused scores of its three best candidates: a
//! document that answers has several good notes, where one stray note of another scores alone.
//! Measured (docs/evaluation.md, "Library-wide search"): this weight puts the question's own
//! document first for 78% of mmlb-dev's questions, the best of the aggregates tried; narrowing
//! the search to the first document when it outweighs the second did not pay out of fold, so
//! the weights are shown, not acted on.

use crate::pool::Pool;
use serde::Serialize;
use std::collections::HashMap;

/// How many of a document's best candidates make its weight.
pub const DOCUMENT_NOTES: usize = 3;
/// How many documents a response lists.
const LISTED: usize = 5;

/// The documents a library-wide search drew on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Routing {
    /// `named`: the question names the document, which alone was searched; `candidates`: the
    /// whole library was searched and `documents` are weighed by their candidates.
    pub by: &'static str,
    /// The documents, heaviest first (at most five), each with its share of the weight of
    /// all the candidates' documents.
    pub documents: Vec<RoutedDocument>,
}

/// A document of a library-wide search with its share of the candidates' weight.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RoutedDocument {
    pub doc: String,
    /// In [0, 1]: the document's weight over all the documents' (1 for a named document).
    pub share: f64,
}

impl Routing {
    /// The search of the document a question names.
    pub(crate) fn named(doc: String) -> Routing {
        Routing {
            by: "named",
            documents: vec![RoutedDocument { doc, share: 1.0 }],
        }
    }

    /// The documents of a pool's candidates by weight (see the module).
    pub fn weigh(pool: &Pool) -> Routing {
        let fused = pool.fused();
        let mut best: HashMap<&str, Vec<f64>> = HashMap::new();
        for (i, e) in pool.entries().iter().enumerate() {
            let f = fused.get(i).copied().unwrap_or(0.0).max(0.0);
            best.entry(e.note.doc.as_str()).or_default().push(f);
        }
        let mut weights: Vec<(&str, f64)> = best
            .into_iter()
            .map(|(doc, mut v)| {
                v.sort_by(|a, b| b.total_cmp(a));
                (doc, v.iter().take(DOCUMENT_NOTES).sum())
            })
            .collect();
        weights.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        let total: f64 = weights.iter().map(|(_, w)| w).sum();
        Routing {
            by: "candidates",
            documents: weights
                .into_iter()
                .take(LISTED)
                .map(|(doc, w)| RoutedDocument {
                    doc: doc.to_string(),
                    share: if total > 0.0 { w / total } else { 0.0 },
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::PoolEntry;
    use indexer_notes::{Note, NoteKind};

    #[test]
    fn documents_are_weighed_by_their_best_candidates() {
        let v = vec![1.0f32, 0.0];
        let entry = |id: &str, doc: &str| PoolEntry {
            note: Note::new(id, doc, NoteKind::Text, "t"),
            cosine: 0.0,
            bm25_rank: None,
            bm25_score: None,
            vector_rank: None,
        };
        // a.pdf: one strong note; b.pdf: four good ones (its best three count).
        let pool = Pool::ranked(
            2,
            [
                (entry("a1", "a.pdf"), v.as_slice(), 0.9),
                (entry("b1", "b.pdf"), v.as_slice(), 0.5),
                (entry("b2", "b.pdf"), v.as_slice(), 0.4),
                (entry("b3", "b.pdf"), v.as_slice(), 0.4),
                (entry("b4", "b.pdf"), v.as_slice(), 0.4),
            ],
        );
        let r = Routing::weigh(&pool);
        assert_eq!(r.by, "candidates");
        assert_eq!(r.documents[0].doc, "b.pdf");
        assert!((r.documents[0].share - 1.3 / 2.2).abs() < 1e-12);
        assert!((r.documents[1].share - 0.9 / 2.2).abs() < 1e-12);
        assert_eq!(Routing::named("a.pdf".into()).documents[0].share, 1.0);
        assert!(Routing::weigh(&Pool::default()).documents.is_empty());
    }
}
