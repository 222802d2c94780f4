//! Grouped search: the same candidates as a note search, returned as ranked pages (the unit
//! MMDocIR's page retrieval ranks; `indexer query --unit page`) or documents (a docs site's
//! result list, `group=document` on the server), each with its best notes.

use crate::Result;
use crate::engine::{Engine, make_hit, ms};
use crate::pool::{PoolEntry, Tier};
use crate::question::Rewrite;
use crate::search::{Hit, SearchRequest, Timings};
use serde::Serialize;

/// Notes shown under each page or document.
pub const NOTES_PER_PAGE: usize = 3;

/// What the notes of a grouped search are grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// A page of a paged document; an unpaged document (Markdown, HTML, text) is one unit.
    Page,
    Document,
}

impl GroupBy {
    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Page => "page",
            GroupBy::Document => "document",
        }
    }
}

impl std::str::FromStr for GroupBy {
    type Err = String;
    fn from_str(s: &str) -> Result<GroupBy, String> {
        match s.trim() {
            "page" => Ok(GroupBy::Page),
            "document" => Ok(GroupBy::Document),
            _ => Err(format!("group must be page or document, not {s:?}")),
        }
    }
}

/// One page (or document) of a grouped search.
#[derive(Debug, Clone, Serialize)]
pub struct PageResult {
    /// 1-based rank.
    pub rank: usize,
    pub doc: String,
    /// 1-based page; `None` for an unpaged document (Markdown, HTML, text), which is one unit,
    /// and for every group of a search grouped by document.
    pub page: Option<u32>,
    /// The best fused score of the page's notes.
    pub score: f64,
    /// The group's best notes, best first (at most [`NOTES_PER_PAGE`]); `rank` is the note's
    /// rank among all the candidates, `score` its fused score.
    pub notes: Vec<Hit>,
}

/// The pages that answer a question.
#[derive(Debug, Clone, Serialize)]
pub struct PageResponse {
    pub query: String,
    /// What was searched, when it is not the query as typed (as a note search's `rewrite`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<Rewrite>,
    /// The number of pages asked for.
    pub budget: usize,
    pub generation: u64,
    pub model: String,
    /// Number of fused candidate notes the pages were ranked from.
    pub candidates: usize,
    pub pages: Vec<PageResult>,
    pub timings: Timings,
}

/// A note of a page being grouped: its rank among the candidates, its fused score, the entry.
type Member = (usize, f64, PoolEntry);

impl Engine {
    /// The `req.budget` best pages for a question: the candidate notes of [`Engine::search`]
    /// grouped by page, pages ranked by their best note (MMDocIR's page ranking from notes).
    /// The selector of the request is not used: pages are not a budget of notes.
    pub fn search_pages(&self, req: &SearchRequest) -> Result<PageResponse> {
        self.search_grouped(req, GroupBy::Page)
    }

    /// The `req.budget` best pages or documents for a question, each ranked by its best
    /// candidate note and holding its best notes. The selector of the request is not used.
    pub fn search_grouped(&self, req: &SearchRequest, by: GroupBy) -> Result<PageResponse> {
        let mut p = self.prepare(req)?;
        let candidates = p.pool.len();
        // Pool entries are in ranking order (named pages first, then by fused score), so a
        // page's first entry is its best note.
        let mut pages: Vec<(PageResult, Vec<Member>)> = Vec::new();
        let fused = p.pool.fused().to_vec();
        let tiers: Vec<Tier> = (0..candidates).map(|i| p.pool.tier(i)).collect();
        for (i, e) in std::mem::take(&mut p.pool)
            .into_entries()
            .into_iter()
            .enumerate()
        {
            let score = fused.get(i).copied().unwrap_or(0.0);
            let page = match by {
                GroupBy::Page => e.note.page,
                GroupBy::Document => None,
            };
            let key = (e.note.doc.as_str(), page);
            match pages
                .iter_mut()
                .find(|(r, _)| (r.doc.as_str(), r.page) == key)
            {
                Some((_, notes)) => {
                    if notes.len() < NOTES_PER_PAGE {
                        notes.push((i + 1, score, e));
                    }
                }
                None => {
                    if pages.len() == req.budget {
                        continue;
                    }
                    pages.push((
                        PageResult {
                            rank: pages.len() + 1,
                            doc: e.note.doc.clone(),
                            page,
                            score,
                            notes: Vec::new(),
                        },
                        vec![(i + 1, score, e)],
                    ));
                }
            }
        }
        let pages = pages
            .into_iter()
            .map(|(mut r, notes)| {
                r.notes = notes
                    .into_iter()
                    .map(|(rank, score, e)| {
                        let mut hit = make_hit(&p, e, rank, score);
                        hit.named_page = tiers[rank - 1] != Tier::Other;
                        hit
                    })
                    .collect();
                r
            })
            .collect();
        let total = p.t0.elapsed();
        Ok(PageResponse {
            query: p.query,
            rewrite: p.rewrite,
            budget: req.budget,
            generation: p.view.generation(),
            model: p.view.model_id().to_string(),
            candidates,
            pages,
            timings: Timings {
                embed_ms: ms(p.t_embed),
                candidates_ms: ms(p.t_cand - p.t_embed),
                select_ms: ms(total - p.t_cand),
                total_ms: ms(total),
            },
        })
    }
}
