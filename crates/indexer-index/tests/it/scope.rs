//! A BM25 search filtered to documents weighs words by their statistics in those documents
//! (`src/scope.rs`): its scores are BM25's definition computed over the notes of those
//! documents alone, whatever else the index holds, and rows deleted by a re-ingest do not count.

use crate::common::*;
use indexer_index::{Filter, Index, Writer, analyze};

/// tantivy's BM25 parameters.
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// BM25 of each note (its terms) for the query's terms, with the statistics of `corpus`:
/// idf = ln(1 + (N - n + 0.5) / (n + 0.5)), tf part tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl)).
fn reference(corpus: &[Vec<String>], notes: &[Vec<String>], query: &[String]) -> Vec<f32> {
    let n = corpus.len() as f32;
    let avgdl = corpus.iter().map(Vec::len).sum::<usize>() as f32 / n;
    notes
        .iter()
        .map(|t| {
            query
                .iter()
                .map(|q| {
                    let tf = t.iter().filter(|w| *w == q).count() as f32;
                    if tf == 0.0 {
                        return 0.0;
                    }
                    let df = corpus.iter().filter(|d| d.contains(q)).count() as f32;
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    let norm = 1.0 - B + B * t.len() as f32 / avgdl;
                    idf * (1.0 + K1) * tf / (tf + K1 * norm)
                })
                .sum()
        })
        .collect()
}

fn terms(texts: &[String]) -> Vec<Vec<String>> {
    texts.iter().map(|t| analyze(t)).collect()
}

/// BM25 scores of the notes of one document, by their position in it (`first` is the
/// ordinal of its first note).
fn scores(index: &Index, query: &str, filter: &Filter, first: usize) -> Vec<(usize, f32)> {
    let mut s: Vec<(usize, f32)> = index
        .bm25(query, 1000, filter)
        .unwrap()
        .into_iter()
        .filter_map(|(o, s)| Some((o.checked_sub(first)?, s)))
        .collect();
    s.sort_by_key(|&(i, _)| i);
    s
}

fn assert_matches(got: &[(usize, f32)], want: &[f32]) {
    let expected: Vec<(usize, f32)> = want
        .iter()
        .enumerate()
        .filter(|(_, s)| **s > 0.0)
        .map(|(i, s)| (i, *s))
        .collect();
    assert_eq!(
        got.iter().map(|g| g.0).collect::<Vec<_>>(),
        expected.iter().map(|e| e.0).collect::<Vec<_>>(),
        "matching notes: got {got:?}, want {expected:?}"
    );
    for ((i, g), (_, e)) in got.iter().zip(&expected) {
        assert!(
            (g - e).abs() <= 1e-4 * e.max(1.0),
            "note {i}: {g} against {e}"
        );
    }
}

#[test]
fn filtered_bm25_uses_the_statistics_of_the_filtered_documents() {
    let dim = 8;
    let mut rng = rng(16);
    // "acme" is on every note of the report and nowhere else; "revenue" is rare in the
    // report and common in the other document.
    let report: Vec<String> = [
        "acme revenue rose sharply",
        "acme acme costs fell",
        "acme board met twice this year",
        "acme outlook stays calm",
        "acme plants acme staff acme offices",
    ]
    .map(String::from)
    .to_vec();
    let other: Vec<String> = (0..30)
        .map(|i| format!("revenue line {i} noted in the ledger"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::open_or_create(dir.path(), "m", dim).unwrap();
    let (d, v) = document("other", "h1", &other, |_| unit(&mut rng, dim));
    w.upsert(d, v).unwrap();
    let (d, v) = document("report", "h1", &report, |_| unit(&mut rng, dim));
    w.upsert(d, v).unwrap();
    w.commit().unwrap();
    drop(w);
    let index = Index::open(dir.path()).unwrap();
    let first = index.ordinal("report#t0").unwrap().unwrap();
    let query = "acme revenue";
    let q = analyze(query);
    let only_report = Filter {
        docs: vec!["report".into()],
        ..Default::default()
    };

    let filtered = scores(&index, query, &only_report, first);
    assert_matches(&filtered, &reference(&terms(&report), &terms(&report), &q));
    // In the report "acme" tells nothing and "revenue" everything: the revenue note leads.
    let best = filtered.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert_eq!(best.0, 0);

    // Unfiltered, the whole index's statistics: "acme" is rare there and the note that
    // repeats it most leads.
    let all: Vec<Vec<String>> = terms(&other).into_iter().chain(terms(&report)).collect();
    let unfiltered = scores(&index, query, &Filter::default(), first);
    let want = reference(&all, &terms(&report), &q);
    assert_matches(&unfiltered, &want);
    let best = unfiltered
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    assert_eq!(best.0, 4);

    // The report re-ingested with other notes: the deleted rows are not counted.
    drop(index);
    let changed: Vec<String> = [
        "acme revenue doubled",
        "acme hires",
        "revenue revenue everywhere at acme",
    ]
    .map(String::from)
    .to_vec();
    let mut w = Writer::open_or_create(dir.path(), "m", dim).unwrap();
    let (d, v) = document("report", "h2", &changed, |_| unit(&mut rng, dim));
    w.upsert(d, v).unwrap();
    w.commit().unwrap();
    let index = Index::open(dir.path()).unwrap();
    let first = index.ordinal("report#t0").unwrap().unwrap();
    assert_matches(
        &scores(&index, query, &only_report, first),
        &reference(&terms(&changed), &terms(&changed), &q),
    );

    // A filter that holds no note finds nothing.
    let none = Filter {
        docs: vec!["missing".into()],
        ..Default::default()
    };
    assert!(index.bm25(query, 10, &none).unwrap().is_empty());
}
