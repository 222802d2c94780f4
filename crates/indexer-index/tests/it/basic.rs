use crate::common::*;
use indexer_index::{CandidateQuery, Error, Index, Writer};
use indexer_notes::NoteKind;

#[test]
fn opening_a_folder_without_index_is_a_user_error_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let e = Index::open(dir.path()).unwrap_err();
    assert!(matches!(e, Error::NoIndex { .. }), "{e}");
    assert!(e.is_user_error());
    assert_eq!(
        indexer_notes::Hint::hint(&e).unwrap(),
        "run indexer ingest PATH"
    );
    assert_eq!(Index::latest_generation(dir.path()).unwrap(), None);
}

#[test]
fn format_version_model_and_lock_errors_say_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::open_or_create(dir.path(), "m", 4).unwrap();
    let e = Writer::open_or_create(dir.path(), "m", 4).unwrap_err();
    assert!(matches!(e, Error::Locked { .. }), "{e}");
    assert!(e.to_string().contains("LOCK"), "{e}");
    let (d, v) = document("a", "h", &texts("alpha", 2), |_| vec![1.0, 0.0, 0.0, 0.0]);
    w.upsert(d, v).unwrap();
    w.commit().unwrap();
    drop(w);
    let e = Writer::open_or_create(dir.path(), "other", 4).unwrap_err();
    assert!(matches!(e, Error::ModelMismatch { .. }), "{e}");
    assert!(e.to_string().contains("\"m\""), "{e}");

    let path = dir.path().join("MANIFEST");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replace(
            &format!("\"format_version\": {}", indexer_index::FORMAT_VERSION),
            "\"format_version\": 99",
        ),
    )
    .unwrap();
    let e = Index::open(dir.path()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::FormatVersion {
                found: 99,
                expected: indexer_index::FORMAT_VERSION,
                ..
            }
        ),
        "{e}"
    );
    let hint = indexer_notes::Hint::hint(&e).unwrap();
    assert!(hint.contains("a newer indexer wrote it"), "{hint}");

    // An index of an older format: rebuild it with this version.
    let newer = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        newer.replace("\"format_version\": 99", "\"format_version\": 1"),
    )
    .unwrap();
    let e = Index::open(dir.path()).unwrap_err();
    assert!(matches!(e, Error::FormatVersion { found: 1, .. }), "{e}");
    let hint = indexer_notes::Hint::hint(&e).unwrap();
    assert!(
        hint.contains("an older indexer wrote it") && hint.contains("indexer ingest"),
        "{hint}"
    );
}

#[test]
fn writer_rejects_bad_vectors() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::open_or_create(dir.path(), "m", 2).unwrap();
    let (d, _) = document("a", "h", &texts("alpha", 2), |_| vec![1.0, 0.0]);
    let e = w.upsert(d.clone(), vec![1.0, 0.0]).unwrap_err();
    assert!(e.to_string().contains("2 vector values for 2 notes"), "{e}");
    let e = w.upsert(d, vec![1.0, 0.0, 3.0, 0.0]).unwrap_err();
    assert!(e.to_string().contains("L2-normalised"), "{e}");
}

#[test]
fn committed_notes_read_back_with_stats_vectors_and_links() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = rng(7);
    let mut w = Writer::open_or_create(dir.path(), "m", 8).unwrap();
    let mut all = Vec::new();
    for d in ["a.pdf", "b.pdf"] {
        let (doc, v) = document(
            d,
            &format!("hash-{d}"),
            &texts(&format!("{d} zebra"), 5),
            |_| unit(&mut rng, 8),
        );
        all.push((doc.clone(), v.clone()));
        w.upsert(doc, v).unwrap();
    }
    let c = w.commit().unwrap();
    assert_eq!((c.generation, c.documents, c.notes), (1, 2, 10));
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.generation(), 1);
    assert_eq!(index.model_id(), "m");
    assert_eq!(index.dim(), 8);
    let s = index.stats();
    assert_eq!((s.documents, s.notes, s.pages), (2, 10, 10));
    assert_eq!(s.notes_by_kind[&NoteKind::Text], 10);
    assert!(s.bytes > 0);
    let docs = index.documents();
    assert_eq!(docs[1].doc, "b.pdf");
    assert_eq!(docs[1].hash, "hash-b.pdf");
    assert_eq!(docs[1].notes, 5);
    assert_eq!(index.note("b.pdf#t3").unwrap(), all[1].0.notes[3]);
    assert!(index.note("b.pdf#t9").is_none());
    assert_eq!(index.notes_of("a.pdf"), all[0].0.notes);
    let notes = index.all_notes();
    assert_eq!(notes.len(), 10);
    for (o, n) in &notes {
        let (doc, v) = if n.doc == "a.pdf" { &all[0] } else { &all[1] };
        let i = doc.notes.iter().position(|m| m == n).unwrap();
        assert_eq!(index.vector(*o), &v[i * 8..(i + 1) * 8]);
    }
    assert!(index.crop_dir().is_dir());

    // A vector query for b.pdf#t2 ranks it first with cosine 1; its neighbours' links show.
    let target = &all[1].1[2 * 8..3 * 8];
    let set = index
        .candidates(&CandidateQuery {
            text: "b.pdf zebra",
            vector: target,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(set.hits.len(), 10);
    assert_eq!(set.vectors.len(), 10 * 8);
    let top = set.hits.iter().find(|h| h.vector_rank == Some(1)).unwrap();
    assert_eq!(top.note_id, "b.pdf#t2");
    assert!((top.cosine.unwrap() - 1.0).abs() < 1e-5);
    for (i, h) in set.hits.iter().enumerate() {
        assert_eq!(&set.vectors[i * 8..(i + 1) * 8], index.vector(h.ordinal));
        assert!(h.cosine.is_some());
    }
    assert!(set.hits.windows(2).all(|p| p[0].fused >= p[1].fused));
    let pos = |id: &str| set.hits.iter().position(|h| h.note_id == id).unwrap();
    assert!(set.links.contains(&(pos("b.pdf#t2"), pos("b.pdf#t1"))));
    assert_eq!(set.links.len(), 8, "4 adjacent links per document");
}

#[test]
fn a_reader_keeps_its_generation_until_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let mut w = Writer::open_or_create(dir.path(), "m", 2).unwrap();
    let (d, v) = document("a", "h1", &texts("first", 3), |_| vec![1.0, 0.0]);
    w.upsert(d, v).unwrap();
    w.commit().unwrap();
    let old = Index::open(dir.path()).unwrap();
    let (d, v) = document("a", "h2", &texts("second", 4), |_| vec![0.0, 1.0]);
    w.upsert(d, v).unwrap();
    let c = w.commit().unwrap();
    assert_eq!(c.gc.generations_in_use, 1);
    assert!(dir.path().join("gen-000001").exists());
    // The old reader still answers from generation 1.
    assert_eq!(old.generation(), 1);
    assert_eq!(old.notes_of("a").len(), 3);
    let hits = old.bm25("first", 10, &Default::default()).unwrap();
    assert_eq!(hits.len(), 3);
    assert_eq!(Index::latest_generation(dir.path()).unwrap(), Some(2));
    let new = old.reopen().unwrap();
    assert_eq!(new.generation(), 2);
    assert_eq!(new.bm25("first", 10, &Default::default()).unwrap().len(), 0);
    assert_eq!(
        new.bm25("second", 10, &Default::default()).unwrap().len(),
        4
    );
    drop(old);
    let (d, v) = document("b", "h3", &texts("third", 1), |_| vec![0.0, 1.0]);
    w.upsert(d, v).unwrap();
    let c = w.commit().unwrap();
    // Generation 1 is free now; generation 2 is held by `new`.
    assert!(!dir.path().join("gen-000001").exists());
    assert!(dir.path().join("gen-000002").exists());
    assert_eq!(c.gc.generations_in_use, 1);
    assert_eq!(new.notes_of("a").len(), 4);
}
