//! Search: a question in, an evidence set out.

use crate::snippet::{Snippet, query_terms, snippet, snippet_source};
use crate::{Error, Result};
use indexer_embed::{Encoder, OnnxEncoder};
use indexer_index::{CandidateQuery, Filter, Index};
use indexer_notes::Note;
use indexer_rerank::{Candidates, CdsDiagnostics, NoteInfo, SelectorKind};
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
/// Snippet length in bytes.
const SNIPPET_CHARS: usize = 280;

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
}

impl SearchRequest {
    pub fn new(query: impl Into<String>) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            budget: DEFAULT_BUDGET,
            selector: DEFAULT_SELECTOR,
            candidates: DEFAULT_CANDIDATES,
            filter: Filter::default(),
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
    /// Rank among the BM25 candidates (1-based), if it was one.
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

/// An open index with its encoder, ready to answer. Shared between threads; picks up new
/// index generations with [`Engine::refresh`].
pub struct Engine {
    dir: PathBuf,
    index: RwLock<Arc<Index>>,
    encoder: Arc<dyn Encoder>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("dir", &self.dir)
            .field("model", &self.encoder.model_id())
            .finish()
    }
}

impl Engine {
    /// Opens the index in `dir` and the encoder it was built with, from the runtime folder.
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
        let index = Index::open(dir)?;
        let encoder = load_encoder_for(runtime, index.model_id(), sessions)?;
        Ok(Engine {
            dir: dir.to_path_buf(),
            index: RwLock::new(Arc::new(index)),
            encoder,
        })
    }

    /// An engine over an open index with a given encoder (whose model must match the index).
    pub fn with_encoder(dir: &Path, encoder: Arc<dyn Encoder>) -> Result<Engine> {
        let index = Index::open(dir)?;
        indexer_embed::check_model_id(index.model_id(), encoder.as_ref())?;
        Ok(Engine {
            dir: dir.to_path_buf(),
            index: RwLock::new(Arc::new(index)),
            encoder,
        })
    }

    /// The index generation being served now. A clone of the `Arc`: a search holds it for its
    /// whole duration, so a refresh never changes the generation under a running query.
    pub fn index(&self) -> Arc<Index> {
        self.index.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn encoder(&self) -> &Arc<dyn Encoder> {
        &self.encoder
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Re-opens the index if a newer complete generation exists. Returns whether it changed.
    pub fn refresh(&self) -> Result<bool> {
        let current = self.index().generation();
        let latest = Index::latest_generation(&self.dir)?;
        if latest == Some(current) || latest.is_none() {
            return Ok(false);
        }
        let fresh = Index::open(&self.dir)?;
        indexer_embed::check_model_id(fresh.model_id(), self.encoder.as_ref())?;
        *self.index.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(fresh);
        Ok(true)
    }

    /// Answers a question with an evidence set.
    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse> {
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
        let index = self.index();
        let qvec = self.encoder.embed_query(query)?;
        let t_embed = t0.elapsed();
        let set = index.candidates(&CandidateQuery {
            text: query,
            vector: &qvec,
            bm25_k: req.candidates,
            vector_k: req.candidates,
            rrf_k: 60,
            filter: req.filter.clone(),
        })?;
        let t_cand = t0.elapsed();
        let fused: Vec<f64> = set.hits.iter().map(|h| f64::from(h.rrf)).collect();
        let info = note_info(&index, &set.hits);
        let cands = Candidates {
            query: &qvec,
            notes: &set.vectors,
            dim: index.dim(),
            links: &set.links,
            query_text: query,
            fused: &fused,
            info: &info,
        };
        let selection = indexer_rerank::selector(req.selector).select(&cands, req.budget)?;
        let t_sel = t0.elapsed();
        let terms = query_terms(query);
        let crop_dir = index.crop_dir();
        let mut hits = Vec::with_capacity(selection.indices.len());
        for (rank, (&i, &score)) in selection.indices.iter().zip(&selection.scores).enumerate() {
            let c = &set.hits[i];
            let Some(note) = index.note(&c.note_id) else {
                continue;
            };
            let v = &set.vectors[i * index.dim()..(i + 1) * index.dim()];
            let cosine = v.iter().zip(&qvec).map(|(a, b)| a * b).sum();
            let image_path = note
                .image
                .as_ref()
                .filter(|_| note.page.is_some())
                .map(|f| crop_dir.join(f));
            hits.push(Hit {
                rank: rank + 1,
                score,
                cosine,
                bm25_rank: c.bm25_rank,
                vector_rank: c.vector_rank,
                snippet: snippet(
                    snippet_source(&note.text, note.caption.as_deref()),
                    &terms,
                    SNIPPET_CHARS,
                ),
                image_path,
                note,
            });
        }
        let total = t0.elapsed();
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        Ok(SearchResponse {
            query: query.to_string(),
            selector: req.selector.to_string(),
            budget: req.budget,
            generation: index.generation(),
            model: index.model_id().to_string(),
            candidates: set.hits.len(),
            hits,
            diagnostics: selection.diagnostics,
            timings: Timings {
                embed_ms: ms(t_embed),
                candidates_ms: ms(t_cand - t_embed),
                select_ms: ms(t_sel - t_cand),
                total_ms: ms(total),
            },
        })
    }

    /// The crop image of a note, only if it is a file inside the index's crop folder (whatever
    /// the note's stored path says: `..` or absolute paths are refused).
    pub fn image_path(&self, id: &str) -> Option<PathBuf> {
        let index = self.index();
        let note = index.note(id)?;
        let name = note.image.as_deref()?;
        note.page?; // Markdown/HTML images point at the user's files, not at the index.
        safe_child(&index.crop_dir(), name)
    }
}

/// What the structured selectors need of each candidate besides its vector: document (numbered
/// in order of first appearance), page, kind and the first stage's ranks.
fn note_info(index: &Index, hits: &[indexer_index::Candidate]) -> Vec<NoteInfo> {
    let mut docs: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    hits.iter()
        .map(|h| {
            let next = docs.len() as u32;
            let doc = index.doc_of_ordinal(h.ordinal).unwrap_or("");
            NoteInfo {
                doc: *docs.entry(doc).or_insert(next),
                page: h.page,
                visual: h.kind != indexer_notes::NoteKind::Text,
                bm25_rank: h.bm25_rank.map(|r| r as u32),
                vector_rank: h.vector_rank.map(|r| r as u32),
            }
        })
        .collect()
}

/// `dir/name` if `name` is a plain relative path that stays inside `dir` and names a file.
pub fn safe_child(dir: &Path, name: &str) -> Option<PathBuf> {
    let rel = Path::new(name);
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return None;
    }
    let p = dir.join(rel);
    let canon_dir = dir.canonicalize().ok()?;
    let canon = p.canonicalize().ok()?;
    (canon.starts_with(&canon_dir) && canon.is_file()).then_some(canon)
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
    fn safe_child_refuses_escapes() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("a.png"), b"x").unwrap();
        std::fs::write(t.path().parent().unwrap().join("outside.png"), b"x").ok();
        assert!(safe_child(t.path(), "a.png").is_some());
        assert!(safe_child(t.path(), "../outside.png").is_none());
        assert!(safe_child(t.path(), "/etc/passwd").is_none());
        assert!(safe_child(t.path(), "missing.png").is_none());
        assert!(safe_child(t.path(), "").is_none());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc/passwd", t.path().join("link.png")).unwrap();
            assert!(safe_child(t.path(), "link.png").is_none());
        }
    }
}
