//! The baselines of the paper's Appendix B, on the same candidates as CDS. Relevance is the
//! cosine rel_i = z_q . z_i; ties always go to the lower index.

use serde::Serialize;

use crate::candidates::{Candidates, top_k};
use crate::error::{Result, invalid};
use crate::kernels;
use crate::rng::{SplitMix64, seed_from_text};
use crate::{Selection, Selector};

/// Cosine top-B. Scores are the cosines.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cosine;

impl Selector for Cosine {
    fn name(&self) -> &'static str {
        "cosine"
    }

    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        c.validate()?;
        let rel = c.relevance();
        let indices = top_k(&rel, budget);
        let scores = indices.iter().map(|i| rel[*i]).collect();
        Ok(Selection {
            indices,
            scores,
            diagnostics: None,
        })
    }
}

/// Top-B by the candidates' fusion scores ([`Candidates::fused`]): the hybrid first stage's
/// order, ties broken by cosine, then by index. Scores are the fusion scores. Without fusion
/// scores it is cosine top-B.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fused;

impl Selector for Fused {
    fn name(&self) -> &'static str {
        "fused"
    }

    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        if c.fused.is_empty() {
            return Cosine.select(c, budget);
        }
        c.validate()?;
        let rel = c.relevance();
        let mut idx: Vec<usize> = (0..c.len()).collect();
        idx.sort_by(|&a, &b| {
            c.fused[b]
                .total_cmp(&c.fused[a])
                .then(rel[b].total_cmp(&rel[a]))
                .then(a.cmp(&b))
        });
        idx.truncate(budget);
        let scores = idx.iter().map(|i| c.fused[*i]).collect();
        Ok(Selection {
            indices: idx,
            scores,
            diagnostics: None,
        })
    }
}

/// B distinct notes drawn uniformly (partial Fisher-Yates with SplitMix64) from a seed made of
/// the first eight bytes of md5(query text): the same query always draws the same notes.
/// Scores are the cosines.
#[derive(Debug, Clone, Copy, Default)]
pub struct Random;

impl Selector for Random {
    fn name(&self) -> &'static str {
        "random"
    }

    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        c.validate()?;
        let n = c.len();
        let k = budget.min(n);
        let mut rng = SplitMix64::new(seed_from_text(c.query_text));
        let mut order: Vec<usize> = (0..n).collect();
        for i in 0..k {
            let j = i + rng.below((n - i) as u64) as usize;
            order.swap(i, j);
        }
        order.truncate(k);
        let rel = c.relevance();
        let scores = order.iter().map(|i| rel[*i]).collect();
        Ok(Selection {
            indices: order,
            scores,
            diagnostics: None,
        })
    }
}

/// Options of maximal marginal relevance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MmrOptions {
    /// lambda, the weight of relevance against redundancy (paper, Appendix B). Default 0.5.
    pub lambda: f64,
}

impl Default for MmrOptions {
    fn default() -> Self {
        MmrOptions { lambda: 0.5 }
    }
}

/// MMR: start with the most relevant note, then repeatedly add the argmax of
/// lambda rel_i - (1 - lambda) max_{j in R} z_i . z_j. Scores are that gain at selection time
/// (rel for the first note).
#[derive(Debug, Clone, Copy, Default)]
pub struct Mmr {
    pub options: MmrOptions,
}

impl Selector for Mmr {
    fn name(&self) -> &'static str {
        "mmr"
    }

    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        let lambda = self.options.lambda;
        if !(0.0..=1.0).contains(&lambda) {
            return Err(invalid("lambda", format!("{lambda} is not in [0, 1]")));
        }
        c.validate()?;
        let rel = c.relevance();
        let order: Vec<usize> = (0..c.len()).collect();
        Ok(greedy_mmr(&rel, &order, lambda, budget, |i, j| {
            kernels::dot_f64acc(c.note(i), c.note(j))
        }))
    }
}

/// The greedy MMR selection: the most relevant note first, then repeatedly the argmax of
/// lambda rel_i - (1 - lambda) max_{j in R} sim(i, j). Candidates are scanned in `order` (a
/// permutation of the indices), so ties go to the earlier one. Scores are the gain at
/// selection time (rel for the first note). Shared by `mmr` and `mmr-hybrid`, which differ
/// only in relevance, similarity and tie order.
pub(crate) fn greedy_mmr(
    rel: &[f64],
    order: &[usize],
    lambda: f64,
    budget: usize,
    sim: impl Fn(usize, usize) -> f64,
) -> Selection {
    let n = rel.len();
    let mut max_sim = vec![f64::NEG_INFINITY; n];
    let mut taken = vec![false; n];
    let (mut indices, mut scores) = (Vec::new(), Vec::new());
    while indices.len() < budget.min(n) {
        let mut best = (f64::NEG_INFINITY, usize::MAX);
        for &i in order.iter().filter(|i| !taken[**i]) {
            let gain = if indices.is_empty() {
                rel[i]
            } else {
                lambda * rel[i] - (1.0 - lambda) * max_sim[i]
            };
            if gain > best.0 || best.1 == usize::MAX {
                best = (gain, i);
            }
        }
        let (gain, j) = best;
        taken[j] = true;
        indices.push(j);
        scores.push(gain);
        for i in (0..n).filter(|i| !taken[*i]) {
            max_sim[i] = max_sim[i].max(sim(i, j));
        }
    }
    Selection {
        indices,
        scores,
        diagnostics: None,
    }
}

/// Options of the k-DPP greedy MAP.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DppOptions {
    /// theta in the quality q_i = exp(theta rel_i) (paper, Appendix B). Default 1.
    pub theta: f64,
    /// Stop when the best gain d_i^2 falls below this. Default 1e-10.
    pub min_gain: f64,
}

impl Default for DppOptions {
    fn default() -> Self {
        DppOptions {
            theta: 1.0,
            min_gain: 1e-10,
        }
    }
}

/// Greedy MAP of the DPP with kernel L = diag(q) S diag(q), S_ij = z_i . z_j, by incremental
/// Cholesky (Chen, Zhang and Zhou 2018): each pick is the note whose log det(L_Y) grows most.
/// Stops at B picks or when the best gain d_i^2 is below `min_gain` (so it can return fewer
/// than B, e.g. when the notes span fewer than B dimensions). Scores are log d_i^2, the log-det
/// gain of each pick.
#[derive(Debug, Clone, Copy, Default)]
pub struct Dpp {
    pub options: DppOptions,
}

impl Selector for Dpp {
    fn name(&self) -> &'static str {
        "dpp"
    }

    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        let DppOptions { theta, min_gain } = self.options;
        if !theta.is_finite() || !(min_gain >= 0.0) {
            return Err(invalid(
                "theta",
                format!("theta {theta} and min_gain {min_gain} must be finite, min_gain >= 0"),
            ));
        }
        c.validate()?;
        let q: Vec<f64> = c.relevance().iter().map(|r| (theta * r).exp()).collect();
        Ok(greedy_dpp(&q, min_gain, budget, |i, j| {
            kernels::dot_f64acc(c.note(i), c.note(j))
        }))
    }
}

/// The greedy MAP of the DPP with kernel L_ij = q_i q_j sim(i, j), by incremental Cholesky
/// (Chen, Zhang and Zhou 2018): each pick is the candidate whose log det(L_Y) grows most
/// (ties to the lower index), until `budget` picks or a best gain d_i^2 below `min_gain`.
/// Scores are log d_i^2. Shared by `dpp` and `dpp-hybrid`, which differ only in quality `q`
/// and similarity.
pub(crate) fn greedy_dpp(
    q: &[f64],
    min_gain: f64,
    budget: usize,
    sim: impl Fn(usize, usize) -> f64,
) -> Selection {
    let n = q.len();
    let mut d2: Vec<f64> = (0..n).map(|i| q[i] * q[i] * sim(i, i)).collect();
    // cis[i] holds the rows of the incremental Cholesky factor for candidate i.
    let mut cis: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut taken = vec![false; n];
    let (mut indices, mut scores) = (Vec::new(), Vec::new());
    while indices.len() < budget.min(n) {
        let mut best = (f64::NEG_INFINITY, usize::MAX);
        for i in (0..n).filter(|i| !taken[*i]) {
            if d2[i] > best.0 {
                best = (d2[i], i);
            }
        }
        let (gain, j) = best;
        if j == usize::MAX || gain < min_gain {
            break;
        }
        taken[j] = true;
        indices.push(j);
        scores.push(gain.ln());
        let dj = gain.sqrt();
        let cj = cis[j].clone();
        for i in (0..n).filter(|i| !taken[*i]) {
            let lji = q[j] * q[i] * sim(j, i);
            let e = (lji - cj.iter().zip(&cis[i]).map(|(a, b)| a * b).sum::<f64>()) / dj;
            cis[i].push(e);
            d2[i] = (d2[i] - e * e).max(0.0);
        }
    }
    Selection {
        indices,
        scores,
        diagnostics: None,
    }
}
