use crate::common::*;
use indexer_index::{CandidateQuery, Filter, Index, Writer};
use indexer_notes::NoteKind;

/// Doc "strong" matches the query far better (BM25 and vector) than doc "weak", so an
/// unfiltered top-k holds only "strong" notes; a filter on "weak" must still find its notes.
fn build(graph_threshold: usize) -> (tempfile::TempDir, Vec<f32>) {
    let dim = 32;
    let mut rng = rng(11);
    let query = unit(&mut rng, dim);
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::open_or_create(dir.path(), "m", dim).unwrap();
    w.set_graph_threshold(graph_threshold);
    let strong: Vec<String> = (0..400)
        .map(|i| format!("quokka quokka quokka habitat study {i}"))
        .collect();
    let (d, v) = document("strong", "h", &strong, |_| near(&mut rng, &query, 0.2));
    w.upsert(d, v).unwrap();
    let weak: Vec<String> = (0..50)
        .map(|i| {
            format!(
                "a long note that mentions the quokka once among many other words {i} {}",
                "filler ".repeat(30)
            )
        })
        .collect();
    let (mut d, v) = document("weak", "h", &weak, |_| unit(&mut rng, dim));
    for (i, n) in d.notes.iter_mut().enumerate() {
        if i.is_multiple_of(5) {
            n.kind = NoteKind::Table;
            n.id = format!("weak#b{i}");
        }
    }
    // Links of the weak doc point to ids that may have changed; irrelevant here.
    w.upsert(d, v).unwrap();
    w.commit().unwrap();
    (dir, query)
}

fn check(index: &Index, query: &[f32]) {
    let unfiltered = index
        .candidates(&CandidateQuery {
            text: "quokka",
            vector: query,
            bm25_k: 20,
            vector_k: 20,
            ..Default::default()
        })
        .unwrap();
    assert!(
        unfiltered
            .hits
            .iter()
            .all(|h| h.note_id.starts_with("strong#"))
    );

    let only_weak = Filter {
        docs: vec!["weak".into()],
        ..Default::default()
    };
    let set = index
        .candidates(&CandidateQuery {
            text: "quokka",
            vector: query,
            bm25_k: 20,
            vector_k: 20,
            filter: only_weak,
            ..Default::default()
        })
        .unwrap();
    assert!(set.hits.iter().all(|h| h.note_id.starts_with("weak#")));
    assert_eq!(
        set.hits.iter().filter(|h| h.bm25_rank.is_some()).count(),
        20
    );
    assert_eq!(
        set.hits.iter().filter(|h| h.vector_rank.is_some()).count(),
        20
    );

    let tables = Filter {
        kinds: vec![NoteKind::Table],
        ..Default::default()
    };
    let set = index
        .candidates(&CandidateQuery {
            text: "quokka",
            vector: query,
            bm25_k: 20,
            vector_k: 20,
            filter: tables,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(set.hits.len(), 10, "all 10 tables, from both searches");
    assert!(set.hits.iter().all(|h| h.kind == NoteKind::Table));
    assert!(
        set.hits
            .iter()
            .all(|h| h.bm25_rank.is_some() && h.vector_rank.is_some())
    );

    let pages = Filter {
        docs: vec!["weak".into(), "strong".into()],
        pages: Some((45, 47)),
        ..Default::default()
    };
    let set = index
        .candidates(&CandidateQuery {
            text: "quokka",
            vector: query,
            filter: pages,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(set.hits.len(), 6, "pages 45-47 of both documents");
    assert!(
        set.hits
            .iter()
            .all(|h| (45..=47).contains(&h.page.unwrap()))
    );

    let nothing = Filter {
        docs: vec!["missing".into()],
        ..Default::default()
    };
    let set = index
        .candidates(&CandidateQuery {
            text: "quokka",
            vector: query,
            filter: nothing,
            ..Default::default()
        })
        .unwrap();
    assert!(set.hits.is_empty());
}

#[test]
fn filters_find_matches_below_the_unfiltered_top_k_exact() {
    let (dir, q) = build(usize::MAX);
    let index = Index::open(dir.path()).unwrap();
    assert!(!index.has_graph());
    check(&index, &q);
}

#[test]
fn filters_find_matches_below_the_unfiltered_top_k_with_graph() {
    let (dir, q) = build(1);
    let index = Index::open(dir.path()).unwrap();
    assert!(index.has_graph());
    check(&index, &q);
}
