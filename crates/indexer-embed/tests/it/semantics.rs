//! Semantics on real text: paraphrases score above unrelated pairs.

use indexer_embed::Encoder;

use crate::{dot, encoder};

/// 30 SciFact claims with their gold abstracts (the first 30 judged pairs with a claim and an
/// abstract of their own; see `tests/fixtures/README.md`).
const SCIFACT_PAIRS: &str = include_str!("../fixtures/scifact-pairs.jsonl");

#[test]
fn a_paraphrase_scores_above_an_unrelated_sentence() {
    let enc = encoder();
    let e = enc
        .embed_documents(&[
            "The evidence selector picks a small set of notes that answer the question without repeating each other.",
            "A compact, non-redundant group of notes relevant to the question is chosen by the selector.",
            "The hotel breakfast is served from seven until ten in the garden restaurant.",
        ])
        .unwrap();
    let para = dot(e.row(0), e.row(1));
    let unrelated = dot(e.row(0), e.row(2));
    assert!(
        para > unrelated + 0.3,
        "paraphrase {para} vs unrelated {unrelated}"
    );
}

/// SciFact claims against their gold abstract and against the gold abstract of another claim:
/// the gold one scores higher for nearly every claim.
#[test]
fn scifact_claims_score_their_gold_abstract_above_another_claims() {
    const N: usize = 30;
    let pairs: Vec<(String, String)> = SCIFACT_PAIRS
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let text = |k: &str| v[k].as_str().unwrap().to_string();
            (text("claim"), text("abstract"))
        })
        .collect();
    assert_eq!(pairs.len(), N);
    let enc = encoder();
    let doc_texts: Vec<&str> = pairs.iter().map(|(_, d)| d.as_str()).collect();
    let d = enc.embed_documents(&doc_texts).unwrap();
    let mut wins = 0;
    for (i, (claim, _)) in pairs.iter().enumerate() {
        let qv = enc.embed_query(claim).unwrap();
        let other = (i + 1) % pairs.len();
        if dot(&qv, d.row(i)) > dot(&qv, d.row(other)) {
            wins += 1;
        }
    }
    assert!(
        wins >= N * 9 / 10,
        "gold above other in {wins} of {N} claims"
    );
}
