//! What a search is asked and what it answers: [`SearchRequest`] (with its defaults),
//! [`SearchResponse`] and its [`Hit`]s. Plain types; [`crate::Engine`] answers them.

use crate::first_stage::{DEFAULT_CANDIDATES, DEFAULT_FEEDBACK, FirstStage};
use crate::question::Rewrite;
use crate::ranking::Ranking;
use crate::rewrite::Rules;
use crate::routing::Routing;
use crate::snippet::Snippet;
use crate::{Error, Result};
use indexer_index::{Filter, Fusion, Matching};
use indexer_notes::Note;
use indexer_rerank::{CdsDiagnostics, SelectorKind, SelectorSpec};
use serde::Serialize;
use std::path::PathBuf;

/// The selector used when none is named: the first stage's fused order with at most one note
/// a page before any second (`fused-cap`), decided by `indexer eval` on all of mmlb-dev (the
/// docs/evaluation.md's "Choosing the selector" has the figures, the rerank crate's README the sweep).
/// CDS stays one flag away.
pub const DEFAULT_SELECTOR: SelectorKind = SelectorKind::FusedCap;
/// Evidence notes per answer (the paper's B).
pub const DEFAULT_BUDGET: usize = 10;
/// How query words match when a request does not say: the last word also as a prefix, and
/// words the index does not hold corrected (`typing`), for the search box and every other
/// caller alike (measured in docs/http-api.md, "Search as you type").
pub const DEFAULT_MATCHING: Matching = Matching::TYPING;
/// The rewrite stage's rules a search runs when a request does not say
/// (`SearchRequest::rewrite`): [`Rules::DEFAULT`].
pub const DEFAULT_REWRITE: Rules = Rules::DEFAULT;
/// How candidates are ranked before selection when a request does not say
/// (`SearchRequest::ranking`).
pub const DEFAULT_RANKING: Ranking = Ranking::Fused;
/// Snippet length in bytes, when a request does not say.
pub const DEFAULT_SNIPPET_CHARS: usize = 280;
/// Reads a selector as a user writes it (`cds`, `fused-cap:cap=2`), the one reading for every
/// entry point (flags, indexer.toml, the HTTP API, MCP, Python). An error is the code the HTTP
/// API gives it (`unknown_selector`: no selector of that name; `bad_selector_option`: an
/// option the selector does not take, or a bad value) and a message that lists what is valid.
pub fn parse_selector(text: &str) -> std::result::Result<SelectorSpec, (&'static str, String)> {
    text.trim().parse::<SelectorSpec>().map_err(|e| match e {
        indexer_rerank::Error::UnknownSelector(_) => ("unknown_selector", e.to_string()),
        e => (
            "bad_selector_option",
            format!("selector {:?}: {e}", text.trim()),
        ),
    })
}

/// What to search for and how to select.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: String,
    /// B: the number of evidence notes.
    pub budget: usize,
    /// The selector and its options (`cds`, `fused-cap:cap=2`: [`SelectorSpec`]).
    pub selector: SelectorSpec,
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
    /// The rules of the rewrite stage the query goes through before it is searched
    /// (`crate::rewrite`): `instructions` (its closing instructions about the answer left
    /// out, "Answer in millions."), `terms` (a financial measure's line items added) and
    /// `pages` (the pages it names of a known document put first). [`Rules::NONE`]
    /// searches the query as typed. What was rewritten is the response's `rewrite`.
    pub rewrite: Rules,
    /// How the candidates are ranked before selection: by the learned model of the index's
    /// encoder over their features, or by the first stage's fused score (`crate::ranking`).
    pub ranking: Ranking,
}

impl SearchRequest {
    pub fn new(query: impl Into<String>) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            budget: DEFAULT_BUDGET,
            selector: DEFAULT_SELECTOR.into(),
            candidates: DEFAULT_CANDIDATES,
            filter: Filter::default(),
            fusion: Fusion::default(),
            matching: DEFAULT_MATCHING,
            feedback: DEFAULT_FEEDBACK,
            snippet_chars: DEFAULT_SNIPPET_CHARS,
            rewrite: DEFAULT_REWRITE,
            ranking: DEFAULT_RANKING,
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
    /// Whether the note is on a page the query names, which the ranking stage put first (its
    /// `score` is then its fused score).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub named_page: bool,
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
    /// What was searched, when it is not the query as typed: the text without the closing
    /// instructions about the answer, and the pages put first. Absent when nothing was
    /// rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<Rewrite>,
    pub selector: String,
    /// How the candidates were ranked: `learned` or `fused` (also when `learned` was asked
    /// for an index whose encoder has no learned model).
    pub ranking: &'static str,
    /// Without a document filter: the documents the candidates came from, heaviest first,
    /// or the document the question names, which alone was searched (`crate::routing`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing: Option<Routing>,
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
