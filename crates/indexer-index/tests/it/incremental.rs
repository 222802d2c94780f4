use crate::common::*;
use indexer_index::{CandidateQuery, Filter, GraphAction, Index, Writer};

fn ingest(
    w: &mut Writer,
    corpus: &[(String, String, Vec<String>)],
    dim: usize,
    seed: u64,
) -> usize {
    let state = w.file_state();
    let mut embedded = 0;
    let mut rng = rng(seed);
    for (doc, hash, texts) in corpus {
        if state.get(doc) == Some(hash) {
            continue;
        }
        let (d, v) = document(doc, hash, texts, |_| unit(&mut rng, dim));
        embedded += d.notes.len();
        w.upsert(d, v).unwrap();
    }
    for doc in state.keys() {
        if !corpus.iter().any(|(d, _, _)| d == doc) {
            w.remove(doc).unwrap();
        }
    }
    embedded
}

#[test]
fn unchanged_files_are_skipped_modified_replaced_deleted_gone_everywhere() {
    let dim = 16;
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::open_or_create(dir.path(), "m", dim).unwrap();
    // Force a graph even for this small index, so deletions are checked against it too.
    w.set_graph_threshold(1);
    let mut corpus: Vec<(String, String, Vec<String>)> = (0..6)
        .map(|i| {
            (
                format!("doc{i}.pdf"),
                format!("h{i}"),
                texts(&format!("topic{i} common"), 20),
            )
        })
        .collect();
    assert_eq!(ingest(&mut w, &corpus, dim, 1), 120);
    let c = w.commit().unwrap();
    assert_eq!(c.graph, GraphAction::Built);
    assert_eq!(c.generation, 1);

    // Unchanged corpus: nothing embedded, nothing written.
    assert_eq!(ingest(&mut w, &corpus, dim, 2), 0);
    let c = w.commit().unwrap();
    assert!(!c.changed);
    assert_eq!(c.generation, 1);
    assert!(!dir.path().join("gen-000002").exists());

    // Modify doc1 (20 notes -> 7), delete doc2 (20 notes): 120 - 20 + 7 - 20 = 87 live.
    corpus[1] = (
        "doc1.pdf".into(),
        "h1b".into(),
        texts("rewritten common", 7),
    );
    corpus.remove(2);
    assert_eq!(ingest(&mut w, &corpus, dim, 3), 7);
    let c = w.commit().unwrap();
    assert_eq!(
        (c.generation, c.upserted, c.removed, c.notes),
        (2, 1, 1, 87)
    );
    let state = w.file_state();
    assert_eq!(state.len(), 5);
    assert_eq!(state["doc1.pdf"], "h1b");
    assert!(!state.contains_key("doc2.pdf"));

    let index = Index::open(dir.path()).unwrap();
    assert!(index.has_graph());
    let none = Filter::default();
    assert!(index.bm25("topic1", 100, &none).unwrap().is_empty());
    assert!(index.bm25("topic2", 100, &none).unwrap().is_empty());
    assert_eq!(index.bm25("rewritten", 100, &none).unwrap().len(), 7);
    assert!(index.note("doc2.pdf#t0").is_none());
    assert_eq!(index.notes_of("doc1.pdf").len(), 7);
    assert!(index.notes_of("doc2.pdf").is_empty());
    assert_eq!(index.all_notes().len(), 87);
    // Every vector search (graph and exact) returns only live notes: query with each
    // deleted note's own vector.
    let live: std::collections::HashSet<usize> = index.live_ordinals().into_iter().collect();
    assert_eq!(live.len(), 87);
    for o in 0..index.live_ordinals().last().unwrap() + 1 {
        if live.contains(&o) {
            continue;
        }
        let v = index.vector(o).to_vec();
        let set = index
            .candidates(&CandidateQuery {
                text: "topic2 topic1",
                vector: &v,
                ..Default::default()
            })
            .unwrap();
        assert_eq!(set.hits.len(), 87, "every live note, none of the deleted");
        assert!(set.hits.iter().all(|h| live.contains(&h.ordinal)));
        let exact = index
            .nearest(
                &v,
                100,
                &Filter {
                    docs: vec!["doc3.pdf".into()],
                    ..Default::default()
                },
            )
            .unwrap();
        assert_eq!(exact.len(), 20);
        assert!(exact.iter().all(|(o, _)| live.contains(o)));
    }
}

#[test]
fn many_replacements_compact_the_store_and_keep_answers() {
    let dim = 4;
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::open_or_create(dir.path(), "m", dim).unwrap();
    let mut compacted = false;
    for round in 0..6 {
        for d in 0..3 {
            let (doc, v) = document(
                &format!("d{d}"),
                &format!("r{round}"),
                &texts(&format!("round{round} doc{d}"), 60),
                |i| {
                    let mut v = vec![1.0, i as f32 / 60.0, d as f32, 0.5];
                    normalise(&mut v);
                    v
                },
            );
            w.upsert(doc, v).unwrap();
        }
        let c = w.commit().unwrap();
        compacted |= c.compacted;
        let index = Index::open(dir.path()).unwrap();
        assert_eq!(index.len(), 180);
        let hits = index
            .bm25(&format!("round{round}"), 500, &Filter::default())
            .unwrap();
        assert_eq!(hits.len(), 180, "round {round}");
        if round > 0 {
            let stale = index.bm25(&format!("round{}", round - 1), 500, &Filter::default());
            assert!(stale.unwrap().is_empty());
        }
        for (o, _) in hits {
            assert!(
                index
                    .note_at(o)
                    .unwrap()
                    .text
                    .contains(&format!("round{round}"))
            );
        }
    }
    assert!(compacted, "dead rows passed 30% but no commit compacted");
}

#[test]
fn parse_settings_are_kept_per_document_across_commits() {
    let dim = 8;
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rng(7);
    let mut w = Writer::open_or_create(dir.path(), "m", dim).unwrap();
    for doc in ["a.pdf", "b.pdf"] {
        let (d, v) = document(doc, "h", &texts("alpha", 2), |_| unit(&mut rng, dim));
        w.upsert(d, v).unwrap();
    }
    w.commit().unwrap();
    w.set_parse_settings("crops=off");
    let (d, v) = document("b.pdf", "h", &texts("beta", 2), |_| unit(&mut rng, dim));
    w.upsert(d, v).unwrap();
    // Staged changes count before the commit, as file_state's do.
    assert_eq!(w.parsed_with()["b.pdf"], "crops=off");
    w.commit().unwrap();
    drop(w);
    let w = Writer::open_or_create(dir.path(), "m", dim).unwrap();
    let with = w.parsed_with();
    assert_eq!(with.len(), 2);
    assert_eq!(with["a.pdf"], "");
    assert_eq!(with["b.pdf"], "crops=off");
}

/// A reader that holds a generation (as `indexer serve` does) while a writer compacts the
/// store and collects garbage keeps answering from its generation, whole; a reader opened
/// after sees the compacted one.
#[test]
fn a_reader_keeps_its_generation_while_the_writer_compacts() {
    let dim = 4;
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::open_or_create(dir.path(), "m", dim).unwrap();
    let mut seen_compaction = false;
    for round in 0..6 {
        let held = Index::open(dir.path()).ok();
        for d in 0..3 {
            let (doc, v) = document(
                &format!("d{d}"),
                &format!("r{round}"),
                &texts(&format!("round{round} doc{d}"), 60),
                |i| {
                    let mut v = vec![1.0, i as f32 / 60.0, d as f32, 0.5];
                    normalise(&mut v);
                    v
                },
            );
            w.upsert(doc, v).unwrap();
        }
        let c = w.commit().unwrap();
        let Some(old) = held else { continue };
        // The held generation still answers with its own notes, text and vectors.
        let prev = format!("round{}", round - 1);
        let hits = old.bm25(&prev, 500, &Filter::default()).unwrap();
        assert_eq!(
            hits.len(),
            180,
            "round {round}: the held generation lost notes"
        );
        for (o, _) in &hits {
            assert!(old.note_at(*o).unwrap().text.contains(&prev));
        }
        let exact = old
            .candidates(&CandidateQuery {
                text: &prev,
                vector: &[1.0, 0.0, 0.0, 0.0],
                ..Default::default()
            })
            .unwrap();
        assert!(!exact.hits.is_empty());
        if c.compacted {
            seen_compaction = true;
            let new = Index::open(dir.path()).unwrap();
            assert!(new.generation() > old.generation());
            assert_eq!(
                new.bm25(&format!("round{round}"), 500, &Filter::default())
                    .unwrap()
                    .len(),
                180
            );
        }
    }
    assert!(seen_compaction, "no commit compacted");
}
