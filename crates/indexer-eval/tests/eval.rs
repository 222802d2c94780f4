//! End to end: a tiny index written in the test (real encoder), questions with hand-computed
//! recall, resumability, and the BEIR path on a tiny corpus.

use indexer_embed::{Encoder, OnnxEncoder};
use indexer_engine::{Engine, SelectorKind};
use indexer_eval::{EvalConfig, PoolMode, read_rows, run_beir, run_eval};
use indexer_index::Writer;
use indexer_notes::{Note, NoteKind, ParsedDocument};
use std::sync::Arc;

fn encoder() -> Arc<dyn Encoder> {
    let rt = indexer_runtime::Runtime::discover().expect("the runtime is missing: run tools/setup");
    Arc::new(
        OnnxEncoder::from_runtime(&rt, indexer_runtime::DEFAULT_MODEL)
            .expect("the model is missing: run tools/setup"),
    )
}

fn note(doc: &str, i: usize, page: u32, text: &str) -> Note {
    let mut n = Note::new(format!("{doc}#t{i}"), doc, NoteKind::Text, text);
    n.page = Some(page);
    n
}

fn write_doc(w: &mut Writer, enc: &dyn Encoder, doc: &str, notes: Vec<Note>) {
    let texts: Vec<&str> = notes.iter().map(|n| n.text.as_str()).collect();
    let emb = enc.embed_documents(&texts).unwrap();
    let d = ParsedDocument {
        doc: doc.into(),
        hash: doc.into(),
        title: None,
        pages: 4,
        pages_without_text: vec![],
        ocr_pages: vec![],
        unreadable_pages: vec![],
        notes,
        warnings: vec![],
    };
    w.upsert(d, emb.data).unwrap();
}

#[test]
fn report_recall_by_source_and_resume() {
    let enc = encoder();
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("index");
    let mut w = Writer::open_or_create(&idx, enc.model_id(), enc.dim()).unwrap();
    // a.pdf has notes on pages 1, 2, 3; page 4 has no note (a scanned page).
    write_doc(
        &mut w,
        enc.as_ref(),
        "a.pdf",
        vec![
            note("a.pdf", 0, 1, "Revenue grew by ten percent in 2020."),
            note("a.pdf", 1, 2, "The table lists the staff of each office."),
            note("a.pdf", 2, 3, "A chart of rainfall by month in Lisbon."),
        ],
    );
    write_doc(
        &mut w,
        enc.as_ref(),
        "b.pdf",
        vec![note(
            "b.pdf",
            0,
            1,
            "Penguins live in the southern hemisphere.",
        )],
    );
    w.commit().unwrap();
    let engine = Engine::with_encoder(&idx, enc.clone()).unwrap();
    let qfile = tmp.path().join("questions.jsonl");
    // Budget 5 >= every pool, so cosine selects all notes of the question's documents:
    // q1 gold {a:2, a:4} -> recall 0.5, hit 1; q2 gold {a:1} -> recall 1;
    // q3 gold {b:2} (no note there) -> recall 0; q4 unanswerable.
    std::fs::write(
        &qfile,
        r#"{"id":"q1","question":"How many staff per office?","answerable":true,"docs":["a.pdf"],"evidence_pages":{"a.pdf":[2,4]},"evidence_sources":["Table"],"doc_type":"Report"}
{"id":"q2","question":"How much did revenue grow?","answerable":true,"docs":["a.pdf"],"evidence_pages":{"a.pdf":[1]},"evidence_sources":["Table","Chart"],"doc_type":"Report"}
{"id":"q3","question":"Where do penguins live?","answerable":true,"docs":["b.pdf"],"evidence_pages":{"b.pdf":[2]},"evidence_sources":["Figure"],"doc_type":"Guide"}
{"id":"q4","question":"Who won the cup?","answerable":false,"docs":["b.pdf"],"evidence_pages":{},"evidence_sources":[],"doc_type":"Guide"}
"#,
    )
    .unwrap();
    let out = tmp.path().join("out");
    let cfg = EvalConfig {
        questions: qfile,
        docs: tmp.path().into(),
        index: idx.clone(),
        selectors: vec![SelectorKind::Cosine, SelectorKind::CdsExact],
        grid: Vec::new(),
        budgets: vec![5],
        pools: vec![PoolMode::All, PoolMode::Hybrid],
        candidates: 20,
        fusion: Default::default(),
        feedback: indexer_engine::DEFAULT_FEEDBACK,
        rewrite: indexer_engine::DEFAULT_REWRITE,
        ranking: indexer_engine::DEFAULT_RANKING,
        ranker_folds: None,
        folds: indexer_eval::folds::DEFAULT_FOLDS,
        scope: indexer_eval::Scope::Docs,
        matching: indexer_engine::DEFAULT_MATCHING,
        out: out.clone(),
        limit: None,
    };
    let mut seen = 0;
    let rep = run_eval(&cfg, &engine, &mut |d, _| seen = d).unwrap();
    assert_eq!(seen, 4);
    // 4 questions x 2 pools x (ranking + 2 selectors).
    assert_eq!((rep.computed, rep.skipped), (24, 0));
    let cos = rep
        .summaries
        .iter()
        .find(|s| s.selector == "cosine" && s.pool == "all")
        .unwrap();
    assert_eq!(cos.answerable.n, 3);
    assert!((cos.answerable.recall.unwrap() - 0.5).abs() < 1e-12);
    assert!((cos.answerable.hit.unwrap() - 2.0 / 3.0).abs() < 1e-12);
    let table = &cos.by_source["Table"];
    assert_eq!(table.n, 2);
    assert!((table.recall.unwrap() - 0.75).abs() < 1e-12);
    assert_eq!(cos.by_source["Chart"].recall, Some(1.0));
    assert_eq!(cos.by_source["Figure"].recall, Some(0.0));
    assert_eq!(cos.by_doc_type["Guide"].recall, Some(0.0));
    assert_eq!(cos.unanswerable, 1);
    // Page Recall@5 of all pages ranked: q1 0.5, q2 1, q3 0.
    assert!((cos.page_recall[2].unwrap() - 0.5).abs() < 1e-12);
    let cds = rep
        .summaries
        .iter()
        .find(|s| s.selector == "cds-exact")
        .unwrap();
    assert!(cds.kkt_residual.unwrap() < 1e-6);
    assert!(out.join("report.md").exists());
    assert!(out.join("recall_by_source.png").exists());
    assert!(out.join("recall_vs_budget.png").exists());
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("| cosine | all | 5 | 3 | 50.0 | 66.7 |"),
        "{md}"
    );

    let rep2 = run_eval(&cfg, &engine, &mut |_, _| {}).unwrap();
    assert_eq!((rep2.computed, rep2.skipped), (0, 24));
    assert_eq!(read_rows(&out.join("results.jsonl")).unwrap().len(), 24);
    // Same figures from the reused rows (floats round-trip through JSON to the last digit or so).
    let groups = |r: &indexer_eval::EvalReport| {
        r.summaries
            .iter()
            .map(|s| {
                (
                    s.selector.clone(),
                    s.pool.clone(),
                    s.answerable.clone(),
                    s.by_source.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(groups(&rep2), groups(&rep));
    let rank = rep
        .summaries
        .iter()
        .find(|s| s.selector == "rank:cosine")
        .unwrap();
    assert_eq!(rank.unanswerable, 1);
    assert!((rank.page_recall[2].unwrap() - 0.5).abs() < 1e-12);
}

#[test]
fn beir_metrics_on_a_tiny_corpus() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tiny");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("corpus.jsonl"),
        r#"{"_id":"d1","title":"Zebra","text":"Zebra migration across the Serengeti."}
{"_id":"d2","title":"","text":"Quantum entanglement links two particles."}
{"_id":"d3","title":"","text":"Spooky action at a distance puzzled Einstein."}
{"_id":"d4","title":"","text":"Bread is baked from flour, water and yeast."}
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("queries.jsonl"),
        r#"{"_id":"q1","text":"zebra migration"}
{"_id":"q2","text":"quantum entanglement"}
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("qrels.tsv"),
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq2\td3\t1\n",
    )
    .unwrap();
    let out = tmp.path().join("out");
    let rep = run_beir(
        &dir,
        &tmp.path().join("idx"),
        encoder(),
        indexer_engine::DEFAULT_MATCHING,
        &out,
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!((rep.documents, rep.queries), (4, 2));
    let bm25 = &rep.methods[0];
    // BM25 finds d1 first for q1 (nDCG 1) and only d2 for q2: DCG 1, IDCG 1 + 1/log2 3.
    let q2 = 1.0 / (1.0 + 1.0 / 3f64.log2());
    assert!(
        (bm25.ndcg_at_10 - (1.0 + q2) / 2.0).abs() < 1e-9,
        "{bm25:?}"
    );
    assert!((bm25.recall_at_100 - 0.75).abs() < 1e-12);
    // Vectors and fusion rank all four documents: recall@100 is 1.
    assert!((rep.methods[1].recall_at_100 - 1.0).abs() < 1e-12);
    assert!((rep.methods[2].recall_at_100 - 1.0).abs() < 1e-12);
    assert!(out.join("beir.md").exists());
}
