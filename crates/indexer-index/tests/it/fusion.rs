//! The first stage's fusion checked against its definition, from the BM25 and vector lists
//! taken separately.

use crate::common::*;
use indexer_index::{CandidateQuery, Filter, Fusion, Index, Writer, dot};
use std::collections::HashMap;

fn build() -> (tempfile::TempDir, Vec<f32>) {
    let dim = 16;
    let mut rng = rng(5);
    let query = unit(&mut rng, dim);
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::open_or_create(dir.path(), "m", dim).unwrap();
    let words = ["otter", "river", "stone", "fish", "night", "bank"];
    for d in 0..4 {
        let texts: Vec<String> = (0..30)
            .map(|i| {
                let a = words[(i * 7 + d) % words.len()];
                let b = words[(i * 3 + 1) % words.len()];
                format!("{a} {b} {} note {i}", "filler ".repeat(i % 5))
            })
            .collect();
        let (doc, v) = document(&format!("d{d}"), "h", &texts, |_| {
            near(&mut rng, &query, 1.5)
        });
        w.upsert(doc, v).unwrap();
    }
    w.commit().unwrap();
    (dir, query)
}

#[test]
fn fused_scores_follow_their_definitions() {
    let (dir, query) = build();
    let index = Index::open(dir.path()).unwrap();
    let text = "otter river";
    let k = 20;
    let bm25: HashMap<usize, (usize, f32)> = index
        .bm25(text, k, &Filter::default())
        .unwrap()
        .into_iter()
        .enumerate()
        .map(|(r, (o, s))| (o, (r + 1, s)))
        .collect();
    let near: HashMap<usize, usize> = index
        .nearest(&query, k, &Filter::default())
        .unwrap()
        .into_iter()
        .enumerate()
        .map(|(r, (o, _))| (o, r + 1))
        .collect();
    let ask = |fusion| {
        index
            .candidates(&CandidateQuery {
                text,
                vector: &query,
                bm25_k: k,
                vector_k: k,
                fusion,
                // The two lists as they are: feedback would search BM25 again.
                feedback: false,
                ..Default::default()
            })
            .unwrap()
    };

    // Reciprocal rank fusion: sum of 1 / (k + rank) over the lists.
    let set = ask(Fusion::Rrf { k: 60 });
    for h in &set.hits {
        let rr = |r: Option<usize>| r.map_or(0.0, |r| 1.0 / (60.0 + r as f32));
        let want = rr(bm25.get(&h.ordinal).map(|x| x.0)) + rr(near.get(&h.ordinal).copied());
        assert!((h.fused - want).abs() < 1e-6, "{h:?} vs {want}");
    }

    // Convex: w * b / b_max + (1 - w) * (c - c_min) / (c_max - c_min), over the candidates.
    for w in [0.0f32, 0.3, 0.5, 1.0] {
        let set = ask(Fusion::Convex { bm25_weight: w });
        assert_eq!(set.hits.len(), {
            let mut all: Vec<usize> = bm25.keys().chain(near.keys()).copied().collect();
            all.sort_unstable();
            all.dedup();
            all.len()
        });
        let cos: Vec<f32> = set
            .hits
            .iter()
            .map(|h| dot(&query, index.vector(h.ordinal)))
            .collect();
        let (lo, hi) = cos
            .iter()
            .fold((f32::MAX, f32::MIN), |(a, b), &c| (a.min(c), b.max(c)));
        let b_max = bm25.values().map(|x| x.1).fold(0.0, f32::max);
        for (h, c) in set.hits.iter().zip(&cos) {
            let b = bm25.get(&h.ordinal).map_or(0.0, |x| x.1 / b_max);
            let want = w * b + (1.0 - w) * (c - lo) / (hi - lo);
            assert!((h.fused - want).abs() < 1e-5, "w {w}: {h:?} vs {want}");
            assert!((0.0..=1.0 + 1e-6).contains(&h.fused));
        }
        assert!(set.hits.windows(2).all(|p| p[0].fused >= p[1].fused));
    }
    // Weight 1 is the BM25 order; weight 0 the cosine order.
    let by_bm25 = ask(Fusion::Convex { bm25_weight: 1.0 });
    assert_eq!(by_bm25.hits[0].bm25_rank, Some(1));
    let by_cos = ask(Fusion::Convex { bm25_weight: 0.0 });
    assert_eq!(by_cos.hits[0].vector_rank, Some(1));
}

#[test]
fn fusions_parse_and_print_back() {
    for s in ["convex:0.5", "convex:0.3", "rrf:60", "rrf:10"] {
        assert_eq!(s.parse::<Fusion>().unwrap().to_string(), s);
    }
    assert_eq!("convex".parse::<Fusion>().unwrap(), Fusion::default());
    assert_eq!("rrf".parse::<Fusion>().unwrap(), Fusion::Rrf { k: 60 });
    for bad in ["convex:1.5", "convex:x", "rrf:-1", "sum", ""] {
        let e = bad.parse::<Fusion>().unwrap_err();
        assert!(e.contains("convex"), "{bad}: {e}");
    }
}
