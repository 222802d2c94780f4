//! Semantics on real text: paraphrases score above unrelated pairs.

use std::collections::HashMap;

use indexer_embed::Encoder;

use crate::{dot, encoder};

const SCIFACT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/eval/beir/scifact"
);

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
    let read = |name: &str| {
        std::fs::read_to_string(format!("{SCIFACT}/{name}"))
            .unwrap_or_else(|e| panic!("read {SCIFACT}/{name}: {e} (the shared eval sets)"))
    };
    let mut gold: Vec<(String, String)> = Vec::new();
    for line in read("qrels.tsv").lines().skip(1) {
        let mut f = line.split('\t');
        let (q, d) = (f.next().unwrap().to_string(), f.next().unwrap().to_string());
        if !gold.iter().any(|(gq, gd)| *gq == q || *gd == d) {
            gold.push((q, d));
        }
        if gold.len() == N {
            break;
        }
    }
    let field = |line: &str, key: &str| -> (String, String) {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = v["_id"].as_str().unwrap().to_string();
        (id, v[key].as_str().unwrap().to_string())
    };
    let queries: HashMap<String, String> = read("queries.jsonl")
        .lines()
        .map(|l| field(l, "text"))
        .collect();
    let wanted: std::collections::HashSet<&str> = gold.iter().map(|(_, d)| d.as_str()).collect();
    let docs: HashMap<String, String> = read("corpus.jsonl")
        .lines()
        .map(|l| field(l, "text"))
        .filter(|(id, _)| wanted.contains(id.as_str()))
        .collect();

    let enc = encoder();
    let doc_texts: Vec<&str> = gold.iter().map(|(_, d)| docs[d].as_str()).collect();
    let d = enc.embed_documents(&doc_texts).unwrap();
    let mut wins = 0;
    for (i, (q, _)) in gold.iter().enumerate() {
        let qv = enc.embed_query(&queries[q]).unwrap();
        let other = (i + 1) % gold.len();
        if dot(&qv, d.row(i)) > dot(&qv, d.row(other)) {
            wins += 1;
        }
    }
    assert!(
        wins >= N * 9 / 10,
        "gold above other in {wins} of {N} claims"
    );
}
