//! Selection on the hybrid first stage: relevance from the BM25 and vector ranks (not the cosine
//! alone), and a note geometry that knows pages and links (not the embedding alone).
//!
//! Shared by four selectors, so that CDS is compared with methods that see what it sees:
//! `cds-hybrid` (a constrained dominant set on this graph, solved exactly), `fused-cap` (the
//! fused order with at most `cap` notes a page), `mmr-hybrid` and `dpp-hybrid`. The math, with
//! what each term is for, is in the crate's README ("CDS on the hybrid stage").
//!
//! - Relevance: s_i = f_i / max_j f_j with f_i the first stage's fused score of i (its
//!   reciprocal rank fusion, pages included), mapped to (0, 1]. With the option `k` the
//!   selector fuses the note's own ranks again, f_i = sum over the lists that hold i of
//!   1 / (k + rank), for sweeps of k. Without fused scores, the ranks fused with the first
//!   stage's k ([`Candidates::rrf_k`]); without either, the cosine (clipped at 0).
//! - Geometry: z~_i = [sqrt(1 - rho) z_i, sqrt(rho) e_page(i)], unit vectors whose
//!   dissimilarity 1 - z~_i . z~_j is (1 - rho)(1 - z_i . z_j) + rho [different pages]: notes on
//!   one page are closer (redundant for the reader), by `page` = rho. A note without a page is
//!   a page of its own.
//! - Links: a figure or table linked to a text note (its caption, its context, a "see Table 3"
//!   reference) has its dissimilarity multiplied by `link` (> 1: they complete each other);
//!   linked text chunks (adjacent, continuing each other) by `adjacent`.

use std::collections::HashMap;
use std::time::Instant;

use serde::Serialize;

use crate::baselines::{DppOptions, greedy_dpp, greedy_mmr};
use crate::candidates::{Candidates, NoteInfo, top_k};
use crate::cds::{CdsDiagnostics, CdsOptions, CdsProblem};
use crate::error::{Result, invalid};
use crate::kernels;
use crate::{Selection, Selector};

/// What the hybrid selectors share: the relevance mapping and the structure of the note block.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HybridOptions {
    /// k of a reciprocal rank fusion of the note's own ranks, 1 / (k + rank), that replaces
    /// the first stage's fused score as the relevance. Default `None`: the first stage's
    /// fused score (its k, its pages), so the relevance order is the fused order.
    pub rrf_k: Option<f64>,
    /// rho, the weight of the page in the note geometry, in [0, 1]: 0 ignores pages, 1 makes
    /// notes on one page identical and notes on different pages equally far apart.
    pub page: f64,
    /// Multiplier of the dissimilarity of a linked figure/table and text note (caption,
    /// context, reference). 1 ignores these links; above 1 they complete each other.
    pub link: f64,
    /// Multiplier of the dissimilarity of linked (adjacent) text chunks.
    pub adjacent: f64,
}

impl Default for HybridOptions {
    fn default() -> Self {
        HybridOptions {
            rrf_k: None,
            page: 0.5,
            link: 1.0,
            adjacent: 1.0,
        }
    }
}

impl HybridOptions {
    pub fn validate(&self) -> Result<()> {
        if let Some(k) = self.rrf_k
            && !(k.is_finite() && k >= 0.0)
        {
            return Err(invalid("k", format!("{k} is not a number >= 0")));
        }
        if !(0.0..=1.0).contains(&self.page) {
            return Err(invalid("page", format!("{} is not in [0, 1]", self.page)));
        }
        for (name, v) in [("link", self.link), ("adjacent", self.adjacent)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(invalid(name, format!("{v} is not a number >= 0")));
            }
        }
        Ok(())
    }
}

/// The hybrid relevance s_i in [0, 1] (see the module documentation): the first stage's fused
/// score, or with `rrf_k` a fusion of the note's own ranks with that k (without fused scores,
/// with the first stage's k, [`Candidates::rrf_k`]).
pub fn hybrid_relevance(c: &Candidates<'_>, rrf_k: Option<f64>) -> Vec<f64> {
    let n = c.len();
    let ranked = c.info.len() == n
        && n > 0
        && c.info
            .iter()
            .any(|i| i.bm25_rank.is_some() || i.vector_rank.is_some());
    let has_fused = c.fused.len() == n && n > 0;
    // The k the ranks are fused with: the selector's own, else, without fused scores, the
    // first stage's (the caller's).
    let k = match rrf_k {
        Some(k) => Some(k),
        None if !has_fused => c.rrf_k.map(|k| k as f64),
        None => None,
    };
    let f: Vec<f64> = match k {
        Some(k) if ranked => {
            let rr = |r: Option<u32>| r.map_or(0.0, |r| 1.0 / (k + r as f64));
            c.info
                .iter()
                .map(|i| rr(i.bm25_rank) + rr(i.vector_rank))
                .collect()
        }
        _ if has_fused => c.fused.iter().map(|v| v.max(0.0)).collect(),
        _ => c.relevance().iter().map(|v| v.max(0.0)).collect(),
    };
    let max = f.iter().copied().fold(0.0, f64::max);
    if max > 0.0 {
        f.iter().map(|v| v / max).collect()
    } else {
        f
    }
}

/// The order of the hybrid relevance, ties broken by the fused score, the cosine, then index.
fn relevance_order(c: &Candidates<'_>, s: &[f64]) -> Vec<usize> {
    let cos = c.relevance();
    let fused = |i: usize| c.fused.get(i).copied().unwrap_or(0.0);
    let mut idx: Vec<usize> = (0..s.len()).collect();
    idx.sort_by(|&a, &b| {
        s[b].total_cmp(&s[a])
            .then(fused(b).total_cmp(&fused(a)))
            .then(cos[b].total_cmp(&cos[a]))
            .then(a.cmp(&b))
    });
    idx
}

fn page_key(info: &[NoteInfo], i: usize) -> (u32, i64) {
    match info.get(i) {
        Some(NoteInfo {
            doc, page: Some(p), ..
        }) => (*doc, i64::from(*p)),
        // No page, or no info at all: a page of its own.
        _ => (u32::MAX, -(i as i64) - 1),
    }
}

/// The structured geometry of a subset of the candidates: augmented unit vectors and the link
/// multipliers, ready for CDS, MMR and DPP.
pub(crate) struct Geometry {
    /// Rows of `notes`, `dim` values each: [sqrt(1 - rho) z_i, sqrt(1 - (1 - rho)|z_i|^2) e_page].
    pub notes: Vec<f32>,
    pub dim: usize,
    /// The augmented query [z_q, 0] (only its length matters to the solver).
    pub query: Vec<f32>,
    /// Symmetric links with their multipliers (i < j, m != 1), indices into the subset.
    pub links: Vec<(usize, usize, f64)>,
}

impl Geometry {
    /// Over `rows` (indices into `c`): the geometry, with links remapped.
    pub fn new(c: &Candidates<'_>, rows: &[usize], o: &HybridOptions) -> Geometry {
        let mut slots: HashMap<(u32, i64), usize> = HashMap::new();
        let slot: Vec<usize> = rows
            .iter()
            .map(|&i| {
                let next = slots.len();
                *slots.entry(page_key(c.info, i)).or_insert(next)
            })
            .collect();
        let d0 = c.dim;
        let dim = d0 + slots.len();
        let mut notes = vec![0f32; rows.len() * dim];
        let a = (1.0 - o.page).sqrt();
        for (r, &i) in rows.iter().enumerate() {
            let z = c.note(i);
            let row = &mut notes[r * dim..(r + 1) * dim];
            let mut sq = 0.0f64;
            for (dst, v) in row[..d0].iter_mut().zip(z) {
                let w = (a * f64::from(*v)) as f32;
                *dst = w;
                sq += f64::from(w) * f64::from(w);
            }
            row[d0 + slot[r]] = (1.0 - sq).max(0.0).sqrt() as f32;
        }
        let mut query = vec![0f32; dim];
        query[..d0].copy_from_slice(c.query);
        let pos: HashMap<usize, usize> = rows.iter().enumerate().map(|(r, i)| (*i, r)).collect();
        let mut links: Vec<(usize, usize, f64)> = Vec::new();
        for &(u, v) in c.links {
            let (Some(&a), Some(&b)) = (pos.get(&u), pos.get(&v)) else {
                continue;
            };
            if a == b {
                continue;
            }
            let (a, b) = (a.min(b), a.max(b));
            let visual = |i: usize| c.info.get(i).is_some_and(|x| x.visual);
            let m = match (visual(rows[a]), visual(rows[b])) {
                (true, false) | (false, true) => o.link,
                (false, false) => o.adjacent,
                (true, true) => 1.0,
            };
            if m != 1.0 {
                links.push((a, b, m));
            }
        }
        links.sort_by_key(|x| (x.0, x.1));
        links.dedup_by(|x, y| x.0 == y.0 && x.1 == y.1);
        Geometry {
            notes,
            dim,
            query,
            links,
        }
    }

    pub fn candidates(&self) -> Candidates<'_> {
        Candidates::new(&self.query, &self.notes, self.dim)
    }

    fn row(&self, i: usize) -> &[f32] {
        &self.notes[i * self.dim..(i + 1) * self.dim]
    }

    /// 1 - z~_i . z~_j, the dissimilarity before the link multipliers.
    pub fn dissimilarity(&self, i: usize, j: usize) -> f64 {
        1.0 - kernels::dot_f64acc(self.row(i), self.row(j))
    }

    /// The multiplier of the pair (1 when not linked).
    fn multiplier(&self, i: usize, j: usize) -> f64 {
        let key = (i.min(j), i.max(j));
        self.links
            .binary_search_by(|l| (l.0, l.1).cmp(&key))
            .map_or(1.0, |k| self.links[k].2)
    }

    /// The structured dissimilarity D_ij = m_ij (1 - z~_i . z~_j).
    pub fn structured(&self, i: usize, j: usize) -> f64 {
        self.multiplier(i, j) * self.dissimilarity(i, j)
    }

    /// The sparse part E of the CDS note block, E_ij = beta (m_ij - 1)(1 - z~_i . z~_j) >=
    /// -beta (1 - z~_i . z~_j), so W stays non-negative.
    fn extra(&self, beta: f64) -> Vec<Vec<(usize, f64)>> {
        let n = self.notes.len() / self.dim;
        let mut e = vec![Vec::new(); n];
        for &(i, j, m) in &self.links {
            let v = beta * (m - 1.0) * self.dissimilarity(i, j).max(0.0);
            e[i].push((j, v));
            e[j].push((i, v));
        }
        if self.links.is_empty() { Vec::new() } else { e }
    }
}

/// What `cds-hybrid` does when the dominant set has fewer than B notes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fill {
    /// Return the dominant set alone.
    None,
    /// Top up in the order of the hybrid relevance (the fused order).
    Rank,
    /// Top up in the order of the hybrid relevance, first with notes on pages not yet chosen.
    RankPage,
    /// Peel: remove the dominant set and solve again on the remaining candidates, appending
    /// each new dominant set, until B notes (the classic enumeration of dominant sets).
    Peel,
}

impl std::str::FromStr for Fill {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "none" => Ok(Fill::None),
            "rank" => Ok(Fill::Rank),
            "rank-page" => Ok(Fill::RankPage),
            "peel" => Ok(Fill::Peel),
            _ => Err(invalid(
                "fill",
                format!("{s:?} is not one of none, rank, rank-page, peel"),
            )),
        }
    }
}

/// Options of `cds-hybrid`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CdsHybridOptions {
    /// The solver's options: `beta` (the note block's weight against the query edges, which
    /// are in [0, 1]), `eps`, `kkt_tol`, `support_threshold`. `tau`, `prior` and the paper
    /// solver's caps do not apply.
    pub cds: CdsOptions,
    pub hybrid: HybridOptions,
    pub fill: Fill,
    /// When above 0, the dominant set is read in the order of x with at most `cap` notes a page
    /// before any second (the page rule of `fused-cap` on the CDS order). Default 0 (off).
    pub cap: usize,
    /// When above 0, the evidence set is sized by the dominant set: a note is taken only if
    /// its weight x_i is at least `stop` times the largest, the budget becomes a maximum and
    /// nothing is filled in. Default 0 (off: B notes).
    pub stop: f64,
}

/// `order` with at most `cap` notes a page first, then the skipped ones, `budget` in all.
fn capped(info: &[NoteInfo], order: &[usize], cap: usize, budget: usize) -> Vec<usize> {
    let mut per_page: HashMap<(u32, i64), usize> = HashMap::new();
    let mut taken = vec![false; order.len()];
    let mut out = Vec::new();
    for pass in 0..2 {
        for (k, &i) in order.iter().enumerate() {
            if out.len() == budget {
                return out;
            }
            let count = per_page.entry(page_key(info, i)).or_default();
            if taken[k] || (pass == 0 && *count >= cap) {
                continue;
            }
            *count += 1;
            taken[k] = true;
            out.push(i);
        }
    }
    out
}

/// beta 1 and page 1 (the simplest of the best settings of the mmlb-dev sweep, README "The
/// sweep"), the first stage's fused score (no k of its own), no link terms, fill by rank, no
/// page cap. The sweep's grid relies on these defaults for the options its lines leave out.
/// `cap=1` selects better (it is the page rule of `fused-cap` on the CDS order).
impl Default for CdsHybridOptions {
    fn default() -> Self {
        CdsHybridOptions {
            cds: CdsOptions {
                beta: 1.0,
                ..CdsOptions::default()
            },
            hybrid: HybridOptions {
                page: 1.0,
                ..HybridOptions::default()
            },
            fill: Fill::Rank,
            cap: 0,
            stop: 0.0,
        }
    }
}

/// Constrained dominant sets on the hybrid graph: query edges s (hybrid relevance), note block
/// W_ij = beta m_ij (1 - z~_i . z~_j), solved by the exact active-set solver; the dominant set
/// ranked by x_i, then the fill rule.
#[derive(Debug, Clone, Copy, Default)]
pub struct CdsHybrid {
    pub options: CdsHybridOptions,
}

/// One exact solve on a subset of the candidates: the subset's weights (query first).
fn solve_rows(
    c: &Candidates<'_>,
    rows: &[usize],
    s_all: &[f64],
    o: &CdsHybridOptions,
) -> Result<(Vec<f64>, CdsDiagnostics)> {
    let g = Geometry::new(c, rows, &o.hybrid);
    let gc = g.candidates();
    let s: Vec<f64> = rows.iter().map(|i| s_all[*i]).collect();
    let p = CdsProblem::structured(&gc, &o.cds, s.clone(), s, g.extra(o.cds.beta))?;
    let sol = p.solve_exact();
    Ok((sol.x, sol.diagnostics))
}

impl CdsHybrid {
    /// The equilibrium of the first solve on all candidates: x over the N + 1 vertices (query
    /// first) and its diagnostics, before any fill. For tests and inspection.
    pub fn equilibrium(&self, c: &Candidates<'_>) -> Result<crate::CdsSolution> {
        let o = &self.options;
        o.cds.validate()?;
        o.hybrid.validate()?;
        c.validate()?;
        let s = hybrid_relevance(c, o.hybrid.rrf_k);
        let all: Vec<usize> = (0..c.len()).collect();
        let (x, diagnostics) = solve_rows(c, &all, &s, o)?;
        Ok(crate::CdsSolution { x, diagnostics })
    }

    /// Selects, returning the first solve's diagnostics (with the fill's counts).
    pub fn solve(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        let start = Instant::now();
        let o = &self.options;
        o.cds.validate()?;
        o.hybrid.validate()?;
        c.validate()?;
        let n = c.len();
        let s = hybrid_relevance(c, o.hybrid.rrf_k);
        let all: Vec<usize> = (0..n).collect();
        let (x, mut diag) = solve_rows(c, &all, &s, o)?;
        let thr = o.cds.support_threshold;
        let support = |x: &[f64]| -> Vec<f64> {
            x[1..]
                .iter()
                .map(|v| if *v > thr { *v } else { f64::NEG_INFINITY })
                .collect()
        };
        let mut w = support(&x);
        if o.stop > 0.0 {
            let top = w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            w.iter_mut()
                .filter(|v| **v < o.stop * top)
                .for_each(|v| *v = f64::NEG_INFINITY);
        }
        let ranked: Vec<usize> = top_k(&w, if o.cap > 0 { n } else { budget })
            .into_iter()
            .filter(|i| w[*i] > f64::NEG_INFINITY)
            .collect();
        let mut indices = if o.cap > 0 {
            capped(c.info, &ranked, o.cap, budget)
        } else {
            ranked
        };
        let mut scores: Vec<f64> = indices.iter().map(|i| w[*i]).collect();
        let from_cds = indices.len();
        let mut rounds = 1;
        if indices.len() < budget && indices.len() < n && o.stop <= 0.0 {
            let mut taken = vec![false; n];
            indices.iter().for_each(|i| taken[*i] = true);
            match o.fill {
                Fill::None => {}
                Fill::Rank | Fill::RankPage => {
                    let order = relevance_order(c, &s);
                    let mut pages: Vec<(u32, i64)> =
                        indices.iter().map(|i| page_key(c.info, *i)).collect();
                    let passes = if o.fill == Fill::RankPage { 2 } else { 1 };
                    for pass in 0..passes {
                        for &i in &order {
                            if indices.len() == budget {
                                break;
                            }
                            let key = page_key(c.info, i);
                            if taken[i] || (pass + 1 < passes && pages.contains(&key)) {
                                continue;
                            }
                            taken[i] = true;
                            pages.push(key);
                            indices.push(i);
                            scores.push(0.0);
                        }
                    }
                }
                Fill::Peel => {
                    while indices.len() < budget {
                        let rest: Vec<usize> = (0..n).filter(|i| !taken[*i]).collect();
                        if rest.is_empty() {
                            break;
                        }
                        let (x, _) = solve_rows(c, &rest, &s, o)?;
                        rounds += 1;
                        let w = support(&x);
                        let add: Vec<usize> = top_k(&w, budget - indices.len())
                            .into_iter()
                            .filter(|k| w[*k] > f64::NEG_INFINITY)
                            .collect();
                        if add.is_empty() {
                            break;
                        }
                        for k in add {
                            taken[rest[k]] = true;
                            indices.push(rest[k]);
                            // Later rounds rank below every earlier note.
                            scores.push(w[k] * 1e-3f64.powi(rounds as i32 - 1));
                        }
                    }
                }
            }
        }
        diag.filled = indices.len() - from_cds;
        diag.rounds = rounds;
        diag.seconds = start.elapsed().as_secs_f64();
        Ok(Selection {
            indices,
            scores,
            diagnostics: Some(diag),
        })
    }
}

impl Selector for CdsHybrid {
    fn name(&self) -> &'static str {
        "cds-hybrid"
    }

    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        self.solve(c, budget)
    }
}

/// The page cap of `cds`, the best CDS measured: with the dominant set read at most one note a
/// page before any second, CDS on the hybrid graph is level with `fused-cap` (README,
/// "Choosing the selector"); without it, the equilibrium's page term is too weak to keep a
/// second note of a covered page out.
pub const BEST_CDS_CAP: usize = 1;

/// `cds`: [`CdsHybrid`] with its dominant set read with the page cap [`BEST_CDS_CAP`]; the
/// same options as `cds-hybrid` otherwise (`cds:cap=0` is `cds-hybrid`).
#[derive(Debug, Clone, Copy)]
pub struct Cds(pub CdsHybrid);

impl Default for Cds {
    fn default() -> Self {
        Cds(CdsHybrid {
            options: CdsHybridOptions {
                cap: BEST_CDS_CAP,
                ..CdsHybridOptions::default()
            },
        })
    }
}

impl Selector for Cds {
    fn name(&self) -> &'static str {
        "cds"
    }

    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        self.0.solve(c, budget)
    }
}

/// The fused order with at most `cap` notes a page; when that leaves fewer than B notes, the
/// skipped ones follow in the same order. Scores are the candidates' fused scores (the hybrid
/// relevance s_i when they have none).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FusedCap {
    /// Notes a page before the second pass. Default 1.
    pub cap: usize,
    /// k of a re-fusion of the ranks (see [`HybridOptions::rrf_k`]); default `None`, the
    /// first stage's fused order.
    pub rrf_k: Option<f64>,
}

impl Default for FusedCap {
    fn default() -> Self {
        FusedCap {
            cap: 1,
            rrf_k: None,
        }
    }
}

impl Selector for FusedCap {
    fn name(&self) -> &'static str {
        "fused-cap"
    }

    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        if self.cap == 0 {
            return Err(invalid("cap", "must be at least 1"));
        }
        c.validate()?;
        let s = hybrid_relevance(c, self.rrf_k);
        let order = relevance_order(c, &s);
        let mut per_page: HashMap<(u32, i64), usize> = HashMap::new();
        let mut taken = vec![false; c.len()];
        let (mut indices, mut scores) = (Vec::new(), Vec::new());
        for pass in 0..2 {
            for &i in &order {
                if indices.len() == budget {
                    break;
                }
                let count = per_page.entry(page_key(c.info, i)).or_default();
                if taken[i] || (pass == 0 && *count >= self.cap) {
                    continue;
                }
                *count += 1;
                taken[i] = true;
                indices.push(i);
                scores.push(c.fused.get(i).copied().unwrap_or(s[i]));
            }
        }
        Ok(Selection {
            indices,
            scores,
            diagnostics: None,
        })
    }
}

/// MMR on the hybrid relevance and the structured dissimilarity: start with the most relevant
/// note, then add the argmax of lambda s_i - (1 - lambda) max_{j in R} (1 - D_ij).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MmrHybrid {
    /// Weight of relevance against redundancy. Default 0.7.
    pub lambda: f64,
    pub hybrid: HybridOptions,
}

impl Default for MmrHybrid {
    fn default() -> Self {
        MmrHybrid {
            lambda: 0.7,
            hybrid: HybridOptions::default(),
        }
    }
}

impl Selector for MmrHybrid {
    fn name(&self) -> &'static str {
        "mmr-hybrid"
    }

    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        let lambda = self.lambda;
        if !(0.0..=1.0).contains(&lambda) {
            return Err(invalid("lambda", format!("{lambda} is not in [0, 1]")));
        }
        self.hybrid.validate()?;
        c.validate()?;
        let n = c.len();
        let s = hybrid_relevance(c, self.hybrid.rrf_k);
        let order = relevance_order(c, &s);
        let rows: Vec<usize> = (0..n).collect();
        let g = Geometry::new(c, &rows, &self.hybrid);
        // In relevance order, so ties go to the more relevant note.
        Ok(greedy_mmr(&s, &order, lambda, budget, |i, j| {
            1.0 - g.structured(i, j)
        }))
    }
}

/// k-DPP greedy MAP with quality q_i = exp(theta s_i) on the hybrid relevance and similarity
/// z~_i . z~_j (embedding and page; the link multipliers are left out, since they would make
/// the kernel indefinite).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DppHybrid {
    /// theta in q_i = exp(theta s_i). Default 3.
    pub theta: f64,
    pub hybrid: HybridOptions,
}

impl Default for DppHybrid {
    fn default() -> Self {
        DppHybrid {
            theta: 3.0,
            hybrid: HybridOptions::default(),
        }
    }
}

impl Selector for DppHybrid {
    fn name(&self) -> &'static str {
        "dpp-hybrid"
    }

    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        let theta = self.theta;
        if !theta.is_finite() {
            return Err(invalid("theta", format!("{theta} is not finite")));
        }
        self.hybrid.validate()?;
        c.validate()?;
        let n = c.len();
        let s = hybrid_relevance(c, self.hybrid.rrf_k);
        let rows: Vec<usize> = (0..n).collect();
        let g = Geometry::new(c, &rows, &self.hybrid);
        let q: Vec<f64> = s.iter().map(|r| (theta * r).exp()).collect();
        // Stops where `dpp` does by default.
        let min_gain = DppOptions::default().min_gain;
        Ok(greedy_dpp(&q, min_gain, budget, |i, j| {
            kernels::dot_f64acc(g.row(i), g.row(j))
        }))
    }
}
