//! BEIR retrieval: nDCG@10 and recall@100 of BM25 alone, vectors alone and the fused (RRF)
//! candidates, over an index built from the corpus.

use crate::metrics::{Mean, ndcg_at, recall_at};
use crate::{Error, Result, read_beir};
use indexer_embed::Encoder;
use indexer_index::{CandidateQuery, Filter, Index, Writer};
use indexer_notes::{Note, NoteKind, ParsedDocument};
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
    /// Seconds spent building the index (0 when an index of the corpus was reused).
    pub index_seconds: f64,
    pub query_seconds: f64,
    pub methods: Vec<BeirMethod>,
}

const EMBED_BATCH: usize = 64;

fn index_err(e: indexer_index::Error) -> Error {
    Error::Engine(e.to_string())
}

/// Builds (or reuses, when it holds as many documents as the corpus) an index of the corpus
/// in `index_dir`, runs every judged query, writes `beir.md` and `beir.json` into `out`.
/// `progress` gets (done, total) over embedding batches and then over queries.
pub fn run_beir(
    dir: &Path,
    index_dir: &Path,
    encoder: Arc<dyn Encoder>,
    out: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<BeirReport> {
    let set = read_beir(dir)?;
    let t0 = Instant::now();
    let reuse = Index::open(index_dir)
        .map(|i| i.stats().documents == set.corpus.len() && i.model_id() == encoder.model_id())
        .unwrap_or(false);
    let mut index_seconds = 0.0;
    if !reuse {
        let mut w = Writer::open_or_create(index_dir, encoder.model_id(), encoder.dim())
            .map_err(index_err)?;
        let batches = set.corpus.len().div_ceil(EMBED_BATCH);
        for (bi, chunk) in set.corpus.chunks(EMBED_BATCH).enumerate() {
            let texts: Vec<String> = chunk
                .iter()
                .map(|d| {
                    if d.title.is_empty() {
                        d.text.clone()
                    } else {
                        format!("{}\n{}", d.title, d.text)
                    }
                })
                .collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let emb = encoder
                .embed_documents(&refs)
                .map_err(|e| Error::Engine(e.to_string()))?;
            for (i, (d, text)) in chunk.iter().zip(texts).enumerate() {
                let note = Note::new(format!("{}#t0", d.id), d.id.clone(), NoteKind::Text, text);
                let doc = ParsedDocument {
                    doc: d.id.clone(),
                    hash: d.id.clone(),
                    title: (!d.title.is_empty()).then(|| d.title.clone()),
                    pages: 1,
                    pages_without_text: vec![],
                    notes: vec![note],
                    warnings: vec![],
                };
                let v = emb.data[i * emb.dim..(i + 1) * emb.dim].to_vec();
                w.upsert(doc, v).map_err(index_err)?;
            }
            progress(bi + 1, batches);
        }
        w.commit().map_err(index_err)?;
        index_seconds = t0.elapsed().as_secs_f64();
    }
    let index = Index::open(index_dir).map_err(index_err)?;
    let t1 = Instant::now();
    let names = ["bm25", "vectors", "fused (rrf)"];
    let mut ndcg = [Mean::default(); 3];
    let mut rec = [Mean::default(); 3];
    let filter = Filter::default();
    let docs_of = |hits: Vec<usize>| -> Vec<String> {
        hits.into_iter()
            .filter_map(|o| index.doc_of_ordinal(o).map(str::to_string))
            .collect()
    };
    for (qi, q) in set.queries.iter().enumerate() {
        let qrels = &set.qrels[&q.id];
        let qvec = encoder
            .embed_query(&q.text)
            .map_err(|e| Error::Engine(e.to_string()))?;
        let bm25 = docs_of(
            index
                .bm25(&q.text, 100, &filter)
                .map_err(index_err)?
                .into_iter()
                .map(|h| h.0)
                .collect(),
        );
        let vecs = docs_of(
            index
                .nearest(&qvec, 100, &filter)
                .map_err(index_err)?
                .into_iter()
                .map(|h| h.0)
                .collect(),
        );
        let fused = index
            .candidates(&CandidateQuery {
                text: &q.text,
                vector: &qvec,
                bm25_k: 100,
                vector_k: 100,
                rrf_k: 60,
                filter: filter.clone(),
            })
            .map_err(index_err)?;
        let fused = docs_of(fused.hits.iter().map(|h| h.ordinal).collect());
        for (m, ranked) in [bm25, vecs, fused].iter().enumerate() {
            let r: Vec<&str> = ranked.iter().map(String::as_str).collect();
            ndcg[m].add(ndcg_at(&r, qrels, 10));
            rec[m].add(recall_at(&r, qrels, 100));
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
        index_seconds,
        query_seconds: t1.elapsed().as_secs_f64(),
        methods: (0..3)
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
    let mut md = format!(
        "# BEIR {}\n\n{} documents, {} judged queries, model {}; index {:.1} s, queries {:.1} s\n\n| method | nDCG@10 | recall@100 |\n|---|---|---|\n",
        report.dataset,
        report.documents,
        report.queries,
        report.model,
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
