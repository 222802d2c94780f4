//! Pseudo-relevance feedback on a real tantivy index: the terms it takes are those of its
//! definition (checked against a brute-force reference), and they bring into the BM25 list a
//! note that shares the answer's words but none of the question's.

use crate::common::*;
use indexer_index::{CandidateQuery, FEEDBACK_TERMS, FEEDBACK_WEIGHT, Filter, Index, Writer};
use std::collections::{HashMap, HashSet};
use tantivy::tokenizer::{TextAnalyzer, TokenStream, TokenizerManager};

const NOTES: [&str; 10] = [
    "The otter habitat is a riverbank where alder roots hide the holts, and otters hunt eels.",
    "Alder roots along a riverbank shelter holts; eels feed in the shallows beneath them.",
    "A sieve diagram compares observed and expected frequencies of a table.",
    "The server reads its configuration from a file when it starts.",
    "Residual shading marks the cells that deviate from independence.",
    "Probability distributions of the counts under the model are compared.",
    "A mosaic plot shows the cells of a contingency table as tiles.",
    "The display of a model summary lists its coefficients and their errors.",
    "Badgers dig setts in woodland; the habitat of a badger is dry ground.",
    "Eels migrate to the sea to spawn, and young eels return to rivers.",
];

fn build() -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::open_or_create(dir.path(), "m", 2).unwrap();
    for (d, chunk) in NOTES.chunks(5).enumerate() {
        let texts: Vec<String> = chunk.iter().map(|s| s.to_string()).collect();
        let (doc, v) = document(&format!("d{d}"), "h", &texts, |i| {
            let a = (d * 5 + i) as f32;
            vec![a.cos(), a.sin()]
        });
        w.upsert(doc, v).unwrap();
    }
    w.commit().unwrap();
    let index = Index::open(dir.path()).unwrap();
    (dir, index)
}

fn analyzer() -> TextAnalyzer {
    TokenizerManager::default().get("en_stem").unwrap()
}

fn stems(text: &str) -> Vec<String> {
    let mut a = analyzer();
    let mut s = a.token_stream(text);
    let mut out = Vec::new();
    while s.advance() {
        out.push(s.token().text.clone());
    }
    out
}

/// The feedback terms by their definition, counted by brute force over the notes' texts:
/// tf in the note x BM25's idf over all notes, the question's stems and terms shorter than
/// three characters or without a letter left out, the best ten, weighted 0.5 x score / best.
fn reference(note: &str, question: &str) -> Vec<(String, f32)> {
    let asked: HashSet<String> = stems(question).into_iter().collect();
    let notes: Vec<HashSet<String>> = NOTES
        .iter()
        .map(|n| stems(n).into_iter().collect())
        .collect();
    let mut tf: HashMap<String, f32> = HashMap::new();
    for t in stems(note) {
        if t.chars().count() >= 3 && t.chars().any(char::is_alphabetic) && !asked.contains(&t) {
            *tf.entry(t).or_default() += 1.0;
        }
    }
    let n = NOTES.len() as f32;
    let mut scored: Vec<(String, f32)> = tf
        .into_iter()
        .map(|(t, f)| {
            let df = notes.iter().filter(|s| s.contains(&t)).count() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            (t, f * idf)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    scored.truncate(10);
    let best = scored[0].1;
    scored
        .into_iter()
        .map(|(t, s)| (t, 0.5 * s / best))
        .collect()
}

fn ask(index: &Index, text: &str, feedback: bool) -> indexer_index::CandidateSet {
    index
        .candidates(&CandidateQuery {
            text,
            vector: &[],
            bm25_k: 10,
            vector_k: 0,
            feedback,
            ..Default::default()
        })
        .unwrap()
}

#[test]
fn terms_follow_their_definition() {
    assert_eq!(FEEDBACK_TERMS, 10);
    assert_eq!(FEEDBACK_WEIGHT, 0.5);
    let (_dir, index) = build();
    for question in ["otter habitat", "contingency table tiles", "young eels"] {
        let plain = ask(&index, question, false);
        let with = ask(&index, question, true);
        // The feedback comes from the first round's best note.
        let best = index.note_at(plain.hits[0].ordinal).unwrap();
        let want = reference(&best.text, question);
        let got = with.feedback.terms();
        assert_eq!(got.len(), want.len(), "{question}: {got:?} vs {want:?}");
        for ((gt, gw), (wt, ww)) in got.iter().zip(&want) {
            assert_eq!(gt, wt, "{question}: {got:?} vs {want:?}");
            assert!((gw - ww).abs() < 1e-5, "{question}: {got:?} vs {want:?}");
        }
        let asked: HashSet<String> = stems(question).into_iter().collect();
        assert!(got.iter().all(|(t, _)| !asked.contains(t)));
        assert!(plain.feedback.is_empty());
    }
}

#[test]
fn brings_in_a_note_in_the_answers_words() {
    let (_dir, index) = build();
    let question = "otter habitat";
    let id_of = |set: &indexer_index::CandidateSet| -> Vec<String> {
        set.hits
            .iter()
            .filter(|h| h.bm25_rank.is_some())
            .map(|h| index.note_at(h.ordinal).unwrap().text)
            .collect()
    };
    let plain = id_of(&ask(&index, question, false));
    let with = id_of(&ask(&index, question, true));
    // Without feedback BM25 finds the notes with "otter" or "habitat": the riverbank note
    // and the badger note.
    assert_eq!(plain.len(), 2, "{plain:?}");
    assert!(plain[0].starts_with("The otter habitat"));
    // With it, the second riverbank note (alder roots, holts, eels: no word of the question)
    // follows the best note, ahead of the badger note that only shares "habitat".
    assert!(with[0].starts_with("The otter habitat"), "{with:?}");
    assert!(with[1].starts_with("Alder roots"), "{with:?}");
    let badger = with.iter().position(|t| t.starts_with("Badgers")).unwrap();
    assert!(badger > 1, "{with:?}");
}

#[test]
fn no_text_no_feedback() {
    let (_dir, index) = build();
    let set = index
        .candidates(&CandidateQuery {
            text: "",
            vector: &[1.0, 0.0],
            bm25_k: 10,
            vector_k: 5,
            ..Default::default()
        })
        .unwrap();
    assert!(set.feedback.is_empty());
    assert!(set.hits.iter().all(|h| h.bm25_rank.is_none()));
    assert_eq!(set.hits.len(), 5);
}

#[test]
fn no_feedback_from_a_note_no_question_word_reaches() {
    let (_dir, index) = build();
    // "zebra" is in no note: the best candidate is the vectors' alone, and BM25 stays empty.
    let set = index
        .candidates(&CandidateQuery {
            text: "zebra",
            vector: &[1.0, 0.0],
            bm25_k: 10,
            vector_k: 5,
            ..Default::default()
        })
        .unwrap();
    assert!(set.feedback.is_empty(), "{:?}", set.feedback);
    assert!(set.hits.iter().all(|h| h.bm25_rank.is_none()));
    // With a word BM25 finds, the same vector gives feedback.
    let set = index
        .candidates(&CandidateQuery {
            text: "zebra eels",
            vector: &[1.0, 0.0],
            bm25_k: 10,
            vector_k: 5,
            ..Default::default()
        })
        .unwrap();
    assert!(set.hits[0].bm25_rank.is_some());
    assert!(!set.feedback.is_empty());
}

#[test]
fn feedback_stays_inside_the_filter() {
    let (_dir, index) = build();
    // The best note of the whole index is in d0; scoped to d1 the feedback comes from d1's
    // best note and every hit is in d1.
    let set = index
        .candidates(&CandidateQuery {
            text: "eels",
            vector: &[],
            bm25_k: 10,
            vector_k: 0,
            filter: Filter {
                docs: vec!["d1".into()],
                ..Filter::default()
            },
            ..Default::default()
        })
        .unwrap();
    assert!(!set.hits.is_empty());
    for h in &set.hits {
        assert_eq!(index.note_at(h.ordinal).unwrap().doc, "d1");
    }
    let best = index.note_at(set.hits[0].ordinal).unwrap();
    assert!(best.text.starts_with("Eels migrate"), "{}", best.text);
    let terms: Vec<&str> = set.feedback.terms().iter().map(|t| t.0.as_str()).collect();
    assert!(terms.contains(&"spawn"), "{terms:?}");
}
