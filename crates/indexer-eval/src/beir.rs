//! BEIR retrieval: nDCG@10 and recall@100 of BM25 alone, vectors alone and the fused
//! candidates, over an index built from the corpus.

use crate::metrics::{Mean, ndcg_at, recall_at};
use crate::{Error, Result, read_beir};
use indexer_engine::{Encoder, Engine, Fusion, IndexView, Matching, RRF_K, TextDocument};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// One retrieval method's means over the judged queries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BeirMethod {
    pub method: String,
    pub ndcg_at_10: f64,
    pub recall_at_100: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BeirReport {
    pub dataset: String,
    pub documents: usize,
    pub queries: usize,
    pub model: String,
    /// How query words matched BM25's terms (`exact`, `typing`, ...).
    pub matching: String,
    /// Seconds spent building the index (0 when an index of the corpus was reused).
    pub index_seconds: f64,
    pub query_seconds: f64,
    pub methods: Vec<BeirMethod>,
}

/// Documents ranked per query by each retriever (nDCG@10 reads the top 10, recall@100 all).
const RANKED: usize = 100;

/// Builds (or reuses, when it holds as many documents as the corpus and was built with this
/// encoder) an index of the corpus in `index_dir`, runs every judged query, writes `beir.md`
/// and `beir.json` into `out`. `progress` gets (done, total) over embedding batches and then
/// over queries.
pub fn run_beir(
    dir: &Path,
    index_dir: &Path,
    encoder: Arc<dyn Encoder>,
    matching: Matching,
    out: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<BeirReport> {
    let set = read_beir(dir)?;
    let t0 = Instant::now();
    let reuse = IndexView::open(index_dir)
        .map(|v| {
            v.stats().is_ok_and(|s| s.documents == set.corpus.len())
                && v.model_id() == encoder.model_id()
        })
        .unwrap_or(false);
    let mut index_seconds = 0.0;
    if !reuse {
        let docs: Vec<TextDocument<'_>> = set
            .corpus
            .iter()
            .map(|d| TextDocument {
                id: &d.id,
                title: &d.title,
                text: &d.text,
            })
            .collect();
        indexer_engine::index_texts(index_dir, &docs, encoder.as_ref(), progress)?;
        index_seconds = t0.elapsed().as_secs_f64();
    }
    let engine = Engine::with_encoder(index_dir, encoder.clone())?;
    let t1 = Instant::now();
    // The default fusion and reciprocal rank fusion, side by side.
    let fusions = [Fusion::default(), Fusion::Rrf { k: RRF_K }];
    let mut names = vec!["bm25".to_string(), "vectors".to_string()];
    names.extend(fusions.iter().map(|f| format!("fused ({f})")));
    names.push(format!("fused ({}), no feedback", Fusion::default()));
    let mut ndcg = vec![Mean::default(); names.len()];
    let mut rec = vec![Mean::default(); names.len()];
    for (qi, q) in set.queries.iter().enumerate() {
        let qrels = &set.qrels[&q.id];
        let expansions = engine.expand(&q.text, matching)?;
        let qvec = engine.embed_expanded(&q.text, &expansions)?;
        let r = engine.rankings(&q.text, &qvec, RANKED, &fusions, &expansions)?;
        let lists = [r.bm25, r.vectors]
            .into_iter()
            .chain(r.fused)
            .chain([r.fused_without_feedback]);
        for (m, ranked) in lists.enumerate() {
            let r: Vec<&str> = ranked.iter().map(String::as_str).collect();
            ndcg[m].add(ndcg_at(&r, qrels, 10));
            rec[m].add(recall_at(&r, qrels, RANKED));
        }
        progress(qi + 1, set.queries.len());
    }
    let report = BeirReport {
        dataset: dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        documents: set.corpus.len(),
        queries: set.queries.len(),
        model: encoder.model_id().to_string(),
        matching: matching.to_string(),
        index_seconds,
        query_seconds: t1.elapsed().as_secs_f64(),
        methods: (0..names.len())
            .map(|m| BeirMethod {
                method: names[m].to_string(),
                ndcg_at_10: ndcg[m].value().unwrap_or(0.0),
                recall_at_100: rec[m].value().unwrap_or(0.0),
            })
            .collect(),
    };
    std::fs::create_dir_all(out).map_err(|source| Error::Write {
        path: out.to_path_buf(),
        source,
    })?;
    let md = beir_markdown(&report);
    for (name, body) in [
        ("beir.md", md),
        (
            "beir.json",
            serde_json::to_string_pretty(&report).unwrap_or_default(),
        ),
    ] {
        let path = out.join(name);
        std::fs::write(&path, body).map_err(|source| Error::Write { path, source })?;
    }
    Ok(report)
}

/// The report as Markdown: what `beir.md` holds and `indexer eval --beir` prints.
pub fn beir_markdown(report: &BeirReport) -> String {
    let mut md = format!(
        "# BEIR {}\n\n{} documents, {} judged queries, model {}, matching {}; index {:.1} s, queries {:.1} s\n\n| method | nDCG@10 | recall@100 |\n|---|---|---|\n",
        report.dataset,
        report.documents,
        report.queries,
        report.model,
        report.matching,
        report.index_seconds,
        report.query_seconds
    );
    for m in &report.methods {
        let _ = writeln!(
            md,
            "| {} | {:.3} | {:.3} |",
            m.method, m.ndcg_at_10, m.recall_at_100
        );
    }
    md
}
