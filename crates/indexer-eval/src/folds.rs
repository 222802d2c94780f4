//! Folds by document: a set's documents dealt into K folds, so that a figure measured on one
//! fold comes from documents that nothing tuned on the others has seen. Every question goes
//! with the fold of its first document.
//!
//! The documents are ordered by the 64-bit FNV-1a hash of their name (so the deal does not
//! follow their names' order, which often groups one publisher's files), then dealt in turn:
//! the i-th goes to fold i mod K. The folds hold as many documents as K allows, and a new
//! document moves only those after it in hash order. `tools/train-ranker` reads the fold of
//! each row from the exported features rather than dealing again.

use crate::Question;
use std::collections::{BTreeSet, HashMap};

/// The folds of `indexer eval` when a run does not say.
pub const DEFAULT_FOLDS: usize = 3;

/// FNV-1a, 64 bits: a small hash with a published definition, the same in any language.
pub fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The fold (0-based, below `k`) of each document of `questions`; none when `k` is 0.
pub fn document_folds(questions: &[Question], k: usize) -> HashMap<String, usize> {
    if k == 0 {
        return HashMap::new();
    }
    let docs: BTreeSet<&str> = questions
        .iter()
        .flat_map(|q| q.docs.iter().map(String::as_str))
        .collect();
    let mut docs: Vec<&str> = docs.into_iter().collect();
    docs.sort_by_key(|d| (fnv1a(d), *d));
    docs.into_iter()
        .enumerate()
        .map(|(i, d)| (d.to_string(), i % k))
        .collect()
}

/// The fold of each question: that of its first document.
pub fn question_folds(questions: &[Question], k: usize) -> HashMap<String, usize> {
    let docs = document_folds(questions, k);
    questions
        .iter()
        .filter_map(|q| Some((q.id.clone(), *docs.get(q.docs.first()?)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(id: &str, doc: &str) -> Question {
        serde_json::from_value(serde_json::json!({
            "id": id, "question": "q", "answer": "a", "answerable": true,
            "docs": [doc], "evidence_pages": {}, "evidence_sources": [], "doc_type": "t"
        }))
        .unwrap()
    }

    #[test]
    fn fnv1a_is_the_published_function() {
        // The reference values of the FNV test suite.
        assert_eq!(fnv1a(""), 0xcbf29ce484222325);
        assert_eq!(fnv1a("a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a("foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn documents_are_dealt_into_folds_and_questions_follow_them() {
        let qs: Vec<Question> = (0..30)
            .map(|i| question(&format!("q{i}"), &format!("doc{}.pdf", i % 10)))
            .collect();
        let docs = document_folds(&qs, 3);
        assert_eq!(docs.len(), 10);
        let mut sizes = [0; 3];
        for f in docs.values() {
            sizes[*f] += 1;
        }
        assert_eq!(sizes, [4, 3, 3]);
        let folds = question_folds(&qs, 3);
        for q in &qs {
            assert_eq!(folds[&q.id], docs[&q.docs[0]], "{}", q.id);
        }
        // A question of a document goes where every other question of it goes.
        assert_eq!(folds["q0"], folds["q10"]);
        assert!(document_folds(&qs, 0).is_empty());
    }
}
