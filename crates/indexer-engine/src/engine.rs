//! [`Engine`]: an open index with its encoder, and the read path of a search: the question
//! read once ([`SearchedQuestion`]), its first stage through the index's [`Reader`](crate::reader::Reader) with
//! the pages it names put first, selection, and hits with snippets. Grouped pages
//! (`pages.rs`), answers (`ask.rs`) and BEIR rankings (`texts.rs`) build on it.

use crate::backend::{self, Backend};
use crate::encoder::load_encoder_for;
use crate::first_stage::FirstStage;
use crate::location::IndexLocation;
use crate::named_pages::put_named_pages_first;
use crate::pool::{Pool, PoolEntry, Tier};
use crate::question::{Rewrite, SearchedQuestion};
use crate::ranking::{Ranker, Ranking};
use crate::rewrite::Rules;
use crate::routing::Routing;
use crate::search::{Hit, SearchRequest, SearchResponse, Timings};
use crate::snippet::{QueryTerm, query_terms, snippet, snippet_source};
use crate::view::IndexView;
use crate::{Error, Result};
use indexer_embed::Encoder;
use indexer_index::{Expansions, Filter, Index, Matching};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Instant;

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
        let index = backend::open(&location)?;
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
        let index = backend::open(&location)?;
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
        *self.index.write().unwrap_or_else(|e| e.into_inner()) = backend::local(fresh);
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
        self.index().expand(query, matching, &Filter::default())
    }

    /// The query's vector as the search embeds it: the query with the words the index does
    /// not hold (unfinished or misspelt) replaced by their best expansion.
    pub fn embed_expanded(&self, query: &str, expansions: &Expansions) -> Result<Vec<f32>> {
        self.embed_query(&expansions.repaired(query))
    }

    /// What retrieval reads of a question, as every search reads it: the question after the
    /// rewrite stage's `rules` (`crate::rewrite`: its closing instructions about the answer
    /// left out, words added for a financial measure, the pages it names of a known document,
    /// which [`Engine::hybrid_pool`] puts first), read with `filter`'s documents as its
    /// scope; then the expansions `matching` asks for of its words, and its vector.
    /// `indexer eval` reads questions through it, so it measures what a search does.
    pub fn searched_question<'q>(
        &self,
        question: &'q str,
        matching: Matching,
        rules: Rules,
        filter: &Filter,
    ) -> Result<SearchedQuestion<'q>> {
        self.read_question(&self.index(), question, matching, rules, filter)
    }

    fn read_question<'q>(
        &self,
        backend: &Backend,
        question: &'q str,
        matching: Matching,
        rules: Rules,
        filter: &Filter,
    ) -> Result<SearchedQuestion<'q>> {
        let scope = crate::reader::ReaderScope::new(backend.as_ref(), filter);
        let rewritten = crate::rewrite::rewrite(question, rules, &scope)?;
        let expansions = backend.expand(&rewritten.searched, matching, filter)?;
        let vector = self.embed_expanded(&rewritten.searched, &expansions)?;
        Ok(SearchedQuestion::new(rewritten, expansions, vector))
    }

    /// The hybrid candidates of a question: the first stage's top candidates of BM25 (its
    /// words and their expansions) and of the vectors, fused, as `stage` says, with `filter`
    /// applied inside both searches, ranked as `ranking` says, and the pages the question
    /// names put first (`named_pages`).
    pub fn hybrid_pool(
        &self,
        question: &SearchedQuestion<'_>,
        filter: &Filter,
        stage: FirstStage,
        ranking: Ranking,
    ) -> Result<Pool> {
        let index = self.index();
        let ranker = self.ranker(index.as_ref(), ranking);
        Ok(question_pool(index.as_ref(), question, filter, stage, ranker)?.0)
    }

    /// As [`Engine::hybrid_pool`], ranked by a given learned model (`None`: the fused
    /// score), for an evaluation that ranks each fold's questions by a model trained
    /// without them. The model must be for the index's encoder.
    pub fn hybrid_pool_with(
        &self,
        question: &SearchedQuestion<'_>,
        filter: &Filter,
        stage: FirstStage,
        ranker: Option<&Ranker>,
    ) -> Result<Pool> {
        let index = self.index();
        if let Some(r) = ranker
            && r.model_id() != index.model_id()
        {
            return Err(Error::BadRequest(format!(
                "the ranking model is for the encoder {}, the index was built with {}",
                r.model_id(),
                index.model_id()
            )));
        }
        Ok(question_pool(index.as_ref(), question, filter, stage, ranker)?.0)
    }

    /// The filter a question is searched with, as every search takes it: a question without a
    /// document filter that names a document (its file name, or a title of two words or
    /// more) searches that document alone, which is returned too.
    pub fn scope_of(&self, question: &str, filter: &Filter) -> Result<(Filter, Option<String>)> {
        route(self.index().as_ref(), question, filter.clone())
    }

    /// The first stage's candidates of a question alone: fused, not ranked again, no page put
    /// first. What the learned ranking reads (`indexer eval --export-features`).
    pub fn first_stage_pool(
        &self,
        question: &SearchedQuestion<'_>,
        filter: &Filter,
        stage: FirstStage,
    ) -> Result<Pool> {
        self.index().first_stage(question, filter, stage)
    }

    /// The features of every candidate of `pool` for `question` (`FEATURE_COUNT` values a
    /// row, `crate::ranking::features`), as the learned ranking reads them.
    pub fn feature_table(&self, question: &SearchedQuestion<'_>, pool: &Pool) -> Vec<f64> {
        let index = self.index();
        let terms = crate::ranking::features::query_terms(&question.searched);
        crate::ranking::features::features(pool, &terms, &|doc| {
            index.document_pages(doc).ok().flatten()
        })
    }

    /// The learned model `ranking` asks for, for the index's encoder: `None` for `fused`,
    /// and for an encoder without a model.
    fn ranker(
        &self,
        reader: &dyn crate::reader::Reader,
        ranking: Ranking,
    ) -> Option<&'static Ranker> {
        match ranking {
            Ranking::Fused => None,
            Ranking::Learned => crate::ranking::shipped(reader.model_id()),
        }
    }

    /// Every note of the given documents as candidates (the CDS paper's pool), with the cosine
    /// to `vector`; no first-stage ranks.
    pub fn document_pool(&self, docs: &[String], vector: &[f32]) -> Result<Pool> {
        let index = self.index();
        let mut notes = Vec::new();
        for d in docs {
            notes.extend(index.document_notes(d)?);
        }
        Ok(Pool::unranked(
            index.dim(),
            notes.iter().map(|(note, v)| {
                (
                    PoolEntry {
                        note: note.clone(),
                        cosine: indexer_index::dot(v, vector),
                        bm25_rank: None,
                        bm25_score: None,
                        vector_rank: None,
                    },
                    v.as_slice(),
                )
            }),
        ))
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
        let (filter, named) = route(view.backend().as_ref(), query, filter)?;
        // Retrieval reads the question without its instructions about the answer; the
        // response (and the reader of `ask`) keeps the whole question, and says what was
        // searched.
        let question =
            self.read_question(view.backend(), query, req.matching, req.rewrite, &filter)?;
        let t_embed = t0.elapsed();
        let ranker = self.ranker(view.backend().as_ref(), req.ranking);
        let (pool, named_pages) = question_pool(
            view.backend().as_ref(),
            &question,
            &filter,
            req.first_stage(),
            ranker,
        )?;
        let routing = match named {
            Some(doc) => Some(Routing::named(doc)),
            None if req.filter.docs.is_empty() => Some(Routing::weigh(&pool)),
            None => None,
        };
        Ok(Prepared {
            routing,
            ranking: if ranker.is_some() {
                Ranking::Learned
            } else {
                Ranking::Fused
            },
            query: query.to_string(),
            rewrite: Rewrite::of(&question, named_pages),
            terms: query_terms(question.kept, req.matching),
            snippet_chars: req.snippet_chars,
            view,
            qvec: question.vector,
            pool,
            t0,
            t_embed,
            t_cand: t0.elapsed(),
        })
    }

    /// Answers a question with an evidence set.
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse> {
        // Options were checked where the request was made; this builds them.
        let selector = req.selector.build()?;
        let mut p = self.prepare(req)?;
        let selection = p
            .pool
            .select_with(selector.as_ref(), &p.qvec, &p.query, req.budget)?;
        let t_sel = p.t0.elapsed();
        let candidates = p.pool.len();
        let tiers: Vec<Tier> = (0..candidates).map(|i| p.pool.tier(i)).collect();
        let mut entries: Vec<Option<PoolEntry>> = std::mem::take(&mut p.pool)
            .into_entries()
            .into_iter()
            .map(Some)
            .collect();
        let mut hits = Vec::with_capacity(selection.indices.len());
        for (rank, (&i, &score)) in selection.indices.iter().zip(&selection.scores).enumerate() {
            let Some(e) = entries.get_mut(i).and_then(Option::take) else {
                continue;
            };
            let mut hit = make_hit(&p, e, rank + 1, score);
            hit.named_page = tiers[i] != Tier::Other;
            hits.push(hit);
        }
        let total = p.t0.elapsed();
        Ok(SearchResponse {
            query: p.query,
            rewrite: p.rewrite,
            selector: req.selector.to_string(),
            ranking: p.ranking.as_str(),
            routing: p.routing,
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

/// The candidates of a question (its searched text): the first stage's, ranked by `ranker`
/// when one is given, with the pages the question names put first, and those pages. What
/// `indexer query`, the server and `indexer eval` all search.
fn question_pool(
    reader: &dyn crate::reader::Reader,
    question: &SearchedQuestion<'_>,
    filter: &Filter,
    stage: FirstStage,
    ranker: Option<&Ranker>,
) -> Result<(Pool, Vec<crate::question::NamedPage>)> {
    let mut pool = reader.first_stage(question, filter, stage)?;
    if let Some(ranker) = ranker {
        let terms = crate::ranking::features::query_terms(&question.searched);
        crate::ranking::rank(&mut pool, ranker, &terms, &|doc| {
            reader.document_pages(doc).ok().flatten()
        });
    }
    let named = put_named_pages_first(reader, &mut pool, question, filter)?;
    Ok((pool, named))
}

/// The filter a question is searched with: without a document filter, a question that names a
/// document (`crate::rewrite::DocumentNames`) searches that document alone, which is returned.
fn route(
    reader: &dyn crate::reader::Reader,
    question: &str,
    mut filter: Filter,
) -> Result<(Filter, Option<String>)> {
    if !filter.docs.is_empty() {
        return Ok((filter, None));
    }
    let named = reader
        .document_names()?
        .named_in(question)
        .map(str::to_string);
    if let Some(doc) = &named {
        filter.docs = vec![doc.clone()];
    }
    Ok((filter, named))
}

/// A checked request with its query vector and candidates.
pub(crate) struct Prepared {
    /// The documents a search without a document filter drew on.
    pub routing: Option<Routing>,
    /// How the candidates were ranked.
    pub ranking: Ranking,
    pub query: String,
    pub rewrite: Option<Rewrite>,
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
        named_page: false,
        note: e.note,
    }
}
