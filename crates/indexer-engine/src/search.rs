//! Search: a question in, an evidence set out.

use crate::backend::Backend;
use crate::location::IndexLocation;
use crate::named_pages::put_named_pages_first;
use crate::question::searched_part;
use crate::snippet::{QueryTerm, Snippet, query_terms, snippet, snippet_source};
use crate::view::IndexView;
use crate::{Error, Result};
use indexer_embed::{Encoder, OnnxEncoder};
use indexer_index::{CandidateQuery, Expansions, Filter, Fusion, Index, Matching};
use indexer_notes::Note;
use indexer_rerank::{Candidates, CdsDiagnostics, NoteInfo, Selection, Selector, SelectorKind};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Instant;

/// The selector used when none is named, decided by `indexer eval` on all of mmlb-dev (234
/// answerable questions, hybrid pool): the first stage's fused order with at most one note a
/// page before any second (`fused-cap`) had the best gold page recall with the first stage's
/// own RRF k, 54.9 / 58.9 / 68.2 / 77.2% at B = 3 / 5 / 10 / 15 against 52.2 / 56.9 / 64.4 /
/// 70.1% for `fused`; CDS on the same input (`cds-hybrid:cap=1`) came within 0.7 points at
/// B <= 10 at 20 to 40 times the cost (see the README's "Choosing the selector" and the rerank
/// crate's sweep). CDS stays one flag away.
pub const DEFAULT_SELECTOR: SelectorKind = SelectorKind::FusedCap;
/// Evidence notes per answer (the paper's B).
pub const DEFAULT_BUDGET: usize = 10;
/// Candidates taken from each of BM25 and the vector index.
pub const DEFAULT_CANDIDATES: usize = 100;
/// How query words match when a request does not say: the last word also as a prefix, and
/// words the index does not hold corrected (`typing`), for the search box and every other
/// caller alike. On the typed-query set it lifts top-3 from 65 to 80% (prefix) and 47.5 to
/// 80% (typos); on full questions it changed mmlb-dev and BEIR within noise (see the README's
/// "Search as you type").
pub const DEFAULT_MATCHING: Matching = Matching::TYPING;
/// Snippet length in bytes, when a request does not say.
pub const DEFAULT_SNIPPET_CHARS: usize = 280;
/// Whether the first stage searches BM25 a second time with the terms of its best note
/// (pseudo-relevance feedback, `indexer_index::Feedback`) when a request does not say. On
/// all of mmlb-dev it adds 1.1 points of recall@10 and 3.5 on tables, SciFact 0.732 to 0.740,
/// NFCorpus 0.358 to 0.371, for a second BM25 search (see the README's "The first stage").
pub const DEFAULT_FEEDBACK: bool = true;

/// How the first stage searches: candidates from each retriever, how their two lists are
/// fused, and whether BM25 searches again with feedback terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FirstStage {
    /// k: candidates from each of BM25 and vectors, before fusion.
    pub candidates: usize,
    pub fusion: Fusion,
    /// Pseudo-relevance feedback (local indexes; the Milvus backend has none).
    pub feedback: bool,
}

impl Default for FirstStage {
    fn default() -> FirstStage {
        FirstStage {
            candidates: DEFAULT_CANDIDATES,
            fusion: Fusion::default(),
            feedback: DEFAULT_FEEDBACK,
        }
    }
}

/// What to search for and how to select.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: String,
    /// B: the number of evidence notes.
    pub budget: usize,
    pub selector: SelectorKind,
    /// k: candidates from each of BM25 and vectors, before fusion.
    pub candidates: usize,
    pub filter: Filter,
    /// How the first stage fuses its BM25 and vector lists.
    pub fusion: Fusion,
    /// How query words match the index's terms (prefix of the last word, typos).
    pub matching: Matching,
    /// Pseudo-relevance feedback in the first stage.
    pub feedback: bool,
    /// About how long a hit's snippet is, in bytes.
    pub snippet_chars: usize,
}

impl SearchRequest {
    pub fn new(query: impl Into<String>) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            budget: DEFAULT_BUDGET,
            selector: DEFAULT_SELECTOR,
            candidates: DEFAULT_CANDIDATES,
            filter: Filter::default(),
            fusion: Fusion::default(),
            matching: DEFAULT_MATCHING,
            feedback: DEFAULT_FEEDBACK,
            snippet_chars: DEFAULT_SNIPPET_CHARS,
        }
    }

    /// The request's first-stage settings.
    pub fn first_stage(&self) -> FirstStage {
        FirstStage {
            candidates: self.candidates,
            fusion: self.fusion,
            feedback: self.feedback,
        }
    }
}

/// One evidence note with why it was chosen.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// 1-based rank in the evidence set.
    pub rank: usize,
    /// The selector's score: the fused score for `fused` and `fused-cap`, the CDS weight x_i for
    /// CDS, the cosine for cosine top-B, the marginal gain for MMR and DPP, the PageRank mass
    /// for PPR.
    pub score: f64,
    /// Cosine of the note and the query.
    pub cosine: f32,
    /// Rank among the BM25 candidates (1-based), if it was one: of the search with the
    /// feedback terms beside the question's words, when there was feedback.
    pub bm25_rank: Option<usize>,
    /// Rank among the vector candidates (1-based), if it was one.
    pub vector_rank: Option<usize>,
    /// The part of the text that shows the match, with the query terms located in it.
    pub snippet: Snippet,
    /// Absolute path of the figure/table crop, if the note has one.
    pub image_path: Option<PathBuf>,
    /// The whole note.
    pub note: Note,
}

/// Where the time of a search went, in milliseconds.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Timings {
    pub embed_ms: f64,
    pub candidates_ms: f64,
    pub select_ms: f64,
    pub total_ms: f64,
}

/// The evidence set for a question.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResponse {
    pub query: String,
    pub selector: String,
    pub budget: usize,
    /// The index generation that answered.
    pub generation: u64,
    pub model: String,
    /// Number of fused candidates the selector chose from.
    pub candidates: usize,
    pub hits: Vec<Hit>,
    /// CDS diagnostics (alpha, iterations, KKT residual, x_q, support, objective).
    pub diagnostics: Option<CdsDiagnostics>,
    pub timings: Timings,
}

/// Parses a page filter, as the CLI's `--pages` and the server's `pages` take it: one page
/// (`5`) or an inclusive range (`3-9`), 1-based.
pub fn parse_pages(s: &str) -> Result<(u32, u32)> {
    let bad = || Error::BadRequest(format!("pages must look like 3-9 or 5, not {s:?}"));
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let a: u32 = a.trim().parse().map_err(|_| bad())?;
    let b: u32 = b.trim().parse().map_err(|_| bad())?;
    if a == 0 || a > b {
        return Err(bad());
    }
    Ok((a, b))
}

/// An open index with its encoder, ready to answer. Shared between threads; picks up new
/// index generations with [`Engine::refresh`].
pub struct Engine {
    location: IndexLocation,
    index: RwLock<Backend>,
    encoder: Arc<dyn Encoder>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("index", &self.location.to_string())
            .field("model", &self.encoder.model_id())
            .finish()
    }
}

impl Engine {
    /// Opens the index in `dir` (a folder, or a `milvus://` URL: [`IndexLocation::of`]) and
    /// the encoder it was built with, from the runtime folder.
    pub fn open(dir: &Path, runtime: &indexer_runtime::Runtime) -> Result<Engine> {
        Engine::open_concurrent(dir, runtime, 1)
    }

    /// As [`Engine::open`], with `sessions` encoder sessions so that as many concurrent
    /// searches embed their queries side by side (a server: one per core).
    pub fn open_concurrent(
        dir: &Path,
        runtime: &indexer_runtime::Runtime,
        sessions: usize,
    ) -> Result<Engine> {
        let location = IndexLocation::of(dir)?;
        let index = Backend::open(&location)?;
        let encoder = load_encoder_for(runtime, index.model_id(), sessions)?;
        Ok(Engine {
            location,
            index: RwLock::new(index),
            encoder,
        })
    }

    /// An engine over an open index with a given encoder (whose model must match the index).
    pub fn with_encoder(dir: &Path, encoder: Arc<dyn Encoder>) -> Result<Engine> {
        let location = IndexLocation::of(dir)?;
        let index = Backend::open(&location)?;
        indexer_embed::check_model_id(index.model_id(), encoder.as_ref())?;
        Ok(Engine {
            location,
            index: RwLock::new(index),
            encoder,
        })
    }

    /// The index generation being served now. A clone of the `Arc`: a search holds it for its
    /// whole duration, so a refresh never changes the generation under a running query.
    pub(crate) fn index(&self) -> Backend {
        self.index.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn encoder(&self) -> &Arc<dyn Encoder> {
        &self.encoder
    }

    /// Where the index is.
    pub fn location(&self) -> &IndexLocation {
        &self.location
    }

    /// Re-opens the index if a newer complete generation exists. Returns whether it changed.
    /// A Milvus index has no generations: every search reads the collection as it is.
    pub fn refresh(&self) -> Result<bool> {
        let IndexLocation::Dir(dir) = &self.location else {
            return Ok(false);
        };
        let current = self.index().generation();
        let latest = Index::latest_generation(dir)?;
        if latest == Some(current) || latest.is_none() {
            return Ok(false);
        }
        let fresh = Index::open(dir)?;
        indexer_embed::check_model_id(fresh.model_id(), self.encoder.as_ref())?;
        *self.index.write().unwrap_or_else(|e| e.into_inner()) = Backend::Local(Arc::new(fresh));
        Ok(true)
    }

    /// The generation being served now, read-only. A search pins its generation for its whole
    /// duration, so a refresh never changes the index under a running query.
    pub fn view(&self) -> IndexView {
        IndexView::from(self.index())
    }

    /// The question's vector, as the index's encoder embeds queries.
    pub fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
        Ok(self.encoder.embed_query(query)?)
    }

    /// The prefix and typo expansions `matching` asks for of a query's words, in the index
    /// being served now.
    pub fn expand(&self, query: &str, matching: Matching) -> Result<Expansions> {
        self.index().expand(query, matching)
    }

    /// The query's vector as the search embeds it: the query with the words the index does
    /// not hold (unfinished or misspelt) replaced by their best expansion.
    pub fn embed_expanded(&self, query: &str, expansions: &Expansions) -> Result<Vec<f32>> {
        self.embed_query(&expansions.repaired(query))
    }

    /// What retrieval reads of a question, as every search reads it: its searched part (without
    /// its closing instructions about the answer), the expansions `matching` asks for of its
    /// words, and its vector. `indexer eval` reads questions through it, so it measures what a
    /// search does.
    pub fn searched_question<'q>(
        &self,
        question: &'q str,
        matching: Matching,
    ) -> Result<SearchedQuestion<'q>> {
        self.read_question(&self.index(), question, matching)
    }

    fn read_question<'q>(
        &self,
        backend: &Backend,
        question: &'q str,
        matching: Matching,
    ) -> Result<SearchedQuestion<'q>> {
        let text = searched_part(question);
        let expansions = backend.expand(text, matching)?;
        let vector = self.embed_expanded(text, &expansions)?;
        Ok(SearchedQuestion {
            text,
            expansions,
            vector,
        })
    }

    /// The hybrid candidates of a question: the first stage's top candidates of BM25 (the
    /// words and their `expansions`) and of the vectors, fused, as `stage` says, with `filter`
    /// applied inside both searches, and the pages the question names put first
    /// (`named_pages`).
    pub fn hybrid_pool(
        &self,
        query: &str,
        vector: &[f32],
        filter: &Filter,
        stage: FirstStage,
        expansions: &Expansions,
    ) -> Result<Pool> {
        question_pool(&self.index(), query, vector, filter, stage, expansions)
    }

    /// Every note of the given documents as candidates (the CDS paper's pool), with the cosine
    /// to `vector`; no first-stage ranks.
    pub fn document_pool(&self, docs: &[String], vector: &[f32]) -> Result<Pool> {
        let index = self.index();
        let dim = index.dim();
        let mut pool = Pool {
            dim,
            ..Pool::default()
        };
        for d in docs {
            for (note, v) in index.document_notes(d)? {
                pool.entries.push(PoolEntry {
                    note,
                    cosine: indexer_index::dot(&v, vector),
                    bm25_rank: None,
                    vector_rank: None,
                });
                pool.vectors.extend_from_slice(&v);
            }
        }
        pool.links = links_among(&pool.entries);
        pool.info = note_info(&pool.entries);
        Ok(pool)
    }

    /// Checks a request, embeds its query and takes its candidates: what a note search and
    /// a page search share.
    pub(crate) fn prepare(&self, req: &SearchRequest) -> Result<Prepared> {
        let t0 = Instant::now();
        let query = req.query.trim();
        if query.is_empty() {
            return Err(Error::BadRequest("the query is empty".into()));
        }
        if req.budget == 0 {
            return Err(Error::BadRequest("the budget must be at least 1".into()));
        }
        if req.candidates == 0 {
            return Err(Error::BadRequest(
                "the number of candidates must be at least 1".into(),
            ));
        }
        let view = self.view();
        let mut filter = req.filter.clone();
        for d in &mut filter.docs {
            *d = view.resolve_document(d)?;
        }
        // Retrieval reads the question without its instructions about the answer; the
        // response (and the reader of `ask`) keeps the whole question.
        let SearchedQuestion {
            text: searched,
            expansions,
            vector: qvec,
        } = self.read_question(view.backend(), query, req.matching)?;
        let t_embed = t0.elapsed();
        let pool = question_pool(
            view.backend(),
            searched,
            &qvec,
            &filter,
            req.first_stage(),
            &expansions,
        )?;
        Ok(Prepared {
            query: query.to_string(),
            terms: query_terms(searched, req.matching),
            snippet_chars: req.snippet_chars,
            view,
            qvec,
            pool,
            t0,
            t_embed,
            t_cand: t0.elapsed(),
        })
    }

    /// Answers a question with an evidence set.
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse> {
        let mut p = self.prepare(req)?;
        let selection = p.pool.select(&p.qvec, &p.query, req.selector, req.budget)?;
        let t_sel = p.t0.elapsed();
        let candidates = p.pool.len();
        let mut entries: Vec<Option<PoolEntry>> = std::mem::take(&mut p.pool.entries)
            .into_iter()
            .map(Some)
            .collect();
        let mut hits = Vec::with_capacity(selection.indices.len());
        for (rank, (&i, &score)) in selection.indices.iter().zip(&selection.scores).enumerate() {
            let Some(e) = entries.get_mut(i).and_then(Option::take) else {
                continue;
            };
            hits.push(make_hit(&p, e, rank + 1, score));
        }
        let total = p.t0.elapsed();
        Ok(SearchResponse {
            query: p.query,
            selector: req.selector.to_string(),
            budget: req.budget,
            generation: p.view.generation(),
            model: p.view.model_id().to_string(),
            candidates,
            hits,
            diagnostics: selection.diagnostics,
            timings: Timings {
                embed_ms: ms(p.t_embed),
                candidates_ms: ms(p.t_cand - p.t_embed),
                select_ms: ms(t_sel - p.t_cand),
                total_ms: ms(total),
            },
        })
    }

    /// The crop image of a note, only if it is a file inside the index's crop folder.
    pub fn image_path(&self, id: &str) -> Option<PathBuf> {
        let view = self.view();
        view.image_path(&view.note(id).ok()??)
    }
}

/// What retrieval reads of a question ([`Engine::searched_question`]).
#[derive(Debug, Clone)]
pub struct SearchedQuestion<'q> {
    /// The question without its closing instructions about the answer.
    pub text: &'q str,
    /// Completions and corrections of its words in the index.
    pub expansions: Expansions,
    /// Its vector: the text with its misspelt or unfinished words repaired, embedded.
    pub vector: Vec<f32>,
}

/// A checked request with its query vector and candidates.
pub(crate) struct Prepared {
    pub query: String,
    pub terms: Vec<QueryTerm>,
    pub snippet_chars: usize,
    pub view: IndexView,
    pub qvec: Vec<f32>,
    pub pool: Pool,
    pub t0: Instant,
    pub t_embed: std::time::Duration,
    pub t_cand: std::time::Duration,
}

pub(crate) fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A pool entry as a hit at `rank` with the selector's `score`.
pub(crate) fn make_hit(p: &Prepared, e: PoolEntry, rank: usize, score: f64) -> Hit {
    Hit {
        rank,
        score,
        cosine: e.cosine,
        bm25_rank: e.bm25_rank,
        vector_rank: e.vector_rank,
        snippet: snippet(
            snippet_source(&e.note.text, e.note.caption.as_deref()),
            &p.terms,
            p.snippet_chars,
        ),
        image_path: p.view.crop_path(&e.note),
        note: e.note,
    }
}

/// One candidate note with what the first stage knows of it.
#[derive(Debug, Clone)]
pub struct PoolEntry {
    pub note: Note,
    /// Cosine of the note and the query.
    pub cosine: f32,
    /// 1-based rank among the BM25 candidates, if it was one.
    pub bm25_rank: Option<usize>,
    /// 1-based rank among the vector candidates, if it was one.
    pub vector_rank: Option<usize>,
}

/// The candidates a selector chooses from: notes with their vectors, the links among them and,
/// for a hybrid pool, the fused first-stage scores. The one input of selection for `search`
/// and for `indexer eval`.
#[derive(Debug, Clone, Default)]
pub struct Pool {
    pub entries: Vec<PoolEntry>,
    /// `entries.len() x dim`, row-major.
    pub vectors: Vec<f32>,
    pub dim: usize,
    /// Links between entries (from, to), as indices into `entries`.
    pub links: Vec<(usize, usize)>,
    /// The reciprocal-rank-fusion score of each entry; empty for a pool without first-stage
    /// ranks (every note of some documents).
    pub fused: Vec<f64>,
    /// What the structured selectors read of each entry besides its vector: document, page,
    /// kind and first-stage ranks.
    pub info: Vec<NoteInfo>,
}

impl Pool {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The vector of entry `i`.
    pub fn vector(&self, i: usize) -> &[f32] {
        &self.vectors[i * self.dim..(i + 1) * self.dim]
    }

    /// The selector's view of the pool.
    pub fn candidates<'a>(&'a self, query: &'a [f32], query_text: &'a str) -> Candidates<'a> {
        Candidates {
            query,
            notes: &self.vectors,
            dim: self.dim,
            links: &self.links,
            query_text,
            fused: &self.fused,
            info: &self.info,
            rrf_k: Some(indexer_index::RRF_K),
        }
    }

    /// Chooses up to `budget` entries with the selector `kind` (default options).
    pub fn select(
        &self,
        query: &[f32],
        query_text: &str,
        kind: SelectorKind,
        budget: usize,
    ) -> Result<Selection> {
        self.select_with(
            indexer_rerank::selector(kind).as_ref(),
            query,
            query_text,
            budget,
        )
    }

    /// Chooses up to `budget` entries with a configured selector (a
    /// [`SelectorSpec`](indexer_rerank::SelectorSpec) built, for a parameter grid).
    pub fn select_with(
        &self,
        selector: &dyn Selector,
        query: &[f32],
        query_text: &str,
        budget: usize,
    ) -> Result<Selection> {
        Ok(selector.select(&self.candidates(query, query_text), budget)?)
    }
}

/// The candidates of a question (its searched part): the first stage's, with the pages the
/// question names put first. What `indexer query`, the server and `indexer eval` all search.
fn question_pool(
    backend: &Backend,
    question: &str,
    vector: &[f32],
    filter: &Filter,
    stage: FirstStage,
    expansions: &Expansions,
) -> Result<Pool> {
    let mut pool = backend.pool(question, vector, filter, stage, expansions)?;
    put_named_pages_first(backend, &mut pool, question, filter, vector)?;
    Ok(pool)
}

pub(crate) fn hybrid_pool(
    index: &Index,
    query: &str,
    vector: &[f32],
    filter: &Filter,
    stage: FirstStage,
    expansions: &Expansions,
) -> Result<Pool> {
    let set = index.candidates(&CandidateQuery {
        text: query,
        vector,
        bm25_k: stage.candidates,
        vector_k: stage.candidates,
        fusion: stage.fusion,
        filter: filter.clone(),
        expansions: Some(expansions),
        feedback: stage.feedback,
    })?;
    let dim = index.dim();
    let mut pool = Pool {
        dim,
        ..Pool::default()
    };
    // A candidate whose note cannot be read (a damaged store) is left out, with its links.
    let mut kept = vec![None; set.hits.len()];
    for (i, c) in set.hits.iter().enumerate() {
        let Ok(note) = index.note_at(c.ordinal) else {
            continue;
        };
        kept[i] = Some(pool.entries.len());
        pool.entries.push(PoolEntry {
            note,
            cosine: c.cosine.unwrap_or(0.0),
            bm25_rank: c.bm25_rank,
            vector_rank: c.vector_rank,
        });
        pool.vectors
            .extend_from_slice(&set.vectors[i * dim..(i + 1) * dim]);
        pool.fused.push(f64::from(c.fused));
    }
    pool.info = note_info(&pool.entries);
    pool.links = set
        .links
        .iter()
        .filter_map(|&(a, b)| Some((kept[a]?, kept[b]?)))
        .collect();
    Ok(pool)
}

/// What the structured selectors need of each entry besides its vector: document (numbered in
/// order of first appearance), page, kind and the first stage's ranks.
pub(crate) fn note_info(entries: &[PoolEntry]) -> Vec<NoteInfo> {
    let mut docs: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    entries
        .iter()
        .map(|e| {
            let next = docs.len() as u32;
            NoteInfo {
                doc: *docs.entry(e.note.doc.as_str()).or_insert(next),
                page: e.note.page,
                visual: e.note.kind != indexer_notes::NoteKind::Text,
                bm25_rank: e.bm25_rank.map(|r| r as u32),
                vector_rank: e.vector_rank.map(|r| r as u32),
            }
        })
        .collect()
}

/// Links between the entries, from the notes' own links.
pub(crate) fn links_among(entries: &[PoolEntry]) -> Vec<(usize, usize)> {
    let pos: std::collections::HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.note.id.as_str(), i))
        .collect();
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        for l in &e.note.links {
            if let Some(&j) = pos.get(l.target.as_str()) {
                out.push((i, j));
            }
        }
    }
    out
}

/// Loads an encoder: `model` is a folder name under the runtime's `models/` (for example
/// `all-MiniLM-L6-v2`) or a path to a model folder. `threads` is the number of encoder
/// sessions, of one ONNX Runtime thread each: the batches of a call run on them side by side
/// (on 2 cores 1.95x one session, against 1.62x for one session of 2 intra-op threads).
pub fn load_encoder(
    runtime: &indexer_runtime::Runtime,
    model: &str,
    threads: usize,
) -> Result<OnnxEncoder> {
    let p = Path::new(model);
    let dir = if p.is_dir() {
        p.to_path_buf()
    } else {
        runtime.model_dir(model)?
    };
    Ok(OnnxEncoder::builder(&dir)
        .runtime_library(runtime.onnxruntime_library()?)
        .sessions(threads.max(1))
        .build()?)
}

/// Loads the encoder an index was built with: the model folder under the runtime's `models/`
/// whose manifest id is the index's model id, with `sessions` sessions (see [`load_encoder`]).
pub fn load_encoder_for(
    runtime: &indexer_runtime::Runtime,
    model_id: &str,
    sessions: usize,
) -> Result<Arc<dyn Encoder>> {
    let models = runtime.root().join("models");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&models)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    for dir in dirs {
        let Ok(manifest) = indexer_embed::ModelManifest::from_dir(&dir) else {
            continue;
        };
        if manifest.id == model_id {
            let name = dir.to_string_lossy().into_owned();
            return Ok(Arc::new(load_encoder(runtime, &name, sessions)?));
        }
    }
    Err(Error::ModelNotInstalled {
        id: model_id.to_string(),
        models,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_parse() {
        assert_eq!(parse_pages("3-9").unwrap(), (3, 9));
        assert_eq!(parse_pages(" 5 ").unwrap(), (5, 5));
        for bad in ["9-3", "x", "0", "0-2", "", "3-", "-3"] {
            assert!(parse_pages(bad).is_err(), "{bad:?}");
        }
    }
}
