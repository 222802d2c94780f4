use serde::Serialize;

use crate::candidates::{Candidates, softmax, top_k};
use crate::error::{Result, invalid};
use crate::{Selection, Selector};

/// Options of personalised PageRank (paper, Appendix B).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PprOptions {
    /// The damping factor d (probability of following a link). Default 0.85.
    pub damping: f64,
    /// The teleport temperature T: teleport = softmax(rel / T). Default 0.1.
    pub temperature: f64,
    /// Stop when the L-infinity change of the scores is below this. Default 1e-9.
    pub tol: f64,
    /// Iteration cap (not in the paper; with d = 0.85 the tolerance is reached in about 130).
    /// Default 10,000.
    pub max_iter: usize,
}

impl Default for PprOptions {
    fn default() -> Self {
        PprOptions {
            damping: 0.85,
            temperature: 0.1,
            tol: 1e-9,
            max_iter: 10_000,
        }
    }
}

impl PprOptions {
    pub fn validate(&self) -> Result<()> {
        if !(0.0..1.0).contains(&self.damping) {
            return Err(invalid(
                "damping",
                format!("{} is not in [0, 1)", self.damping),
            ));
        }
        for (name, v) in [("temperature", self.temperature), ("tol", self.tol)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(invalid(name, format!("{v} is not a positive number")));
            }
        }
        Ok(())
    }
}

/// The symmetrised, deduplicated neighbour lists of the link graph (self-links dropped).
pub(crate) fn neighbours(n: usize, links: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut adj = vec![Vec::new(); n];
    for &(a, b) in links {
        if a != b && a < n && b < n {
            adj[a].push(b);
            adj[b].push(a);
        }
    }
    for list in &mut adj {
        list.sort_unstable();
        list.dedup();
    }
    adj
}

/// Personalised PageRank: pi <- (1 - d) t + d P' pi from pi = t, with P the row-stochastic
/// transition of the symmetrised binary links and dangling rows uniform. Returns the scores and
/// the iterations taken.
pub(crate) fn pagerank(
    n: usize,
    links: &[(usize, usize)],
    teleport: &[f64],
    o: &PprOptions,
) -> (Vec<f64>, usize) {
    let adj = neighbours(n, links);
    let mut pi = teleport.to_vec();
    let mut next = vec![0.0; n];
    let mut iterations = 0;
    while iterations < o.max_iter && n > 0 {
        iterations += 1;
        let dangling: f64 = (0..n).filter(|i| adj[*i].is_empty()).map(|i| pi[i]).sum();
        for i in 0..n {
            next[i] = (1.0 - o.damping) * teleport[i] + o.damping * dangling / n as f64;
        }
        for (i, list) in adj.iter().enumerate() {
            if !list.is_empty() {
                let share = o.damping * pi[i] / list.len() as f64;
                for j in list {
                    next[*j] += share;
                }
            }
        }
        let change = pi
            .iter()
            .zip(&next)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        std::mem::swap(&mut pi, &mut next);
        if change < o.tol {
            break;
        }
    }
    (pi, iterations)
}

/// Personalised PageRank over the note links, teleporting to softmax(rel / T); top B by score.
/// Without links every row is dangling and the ranking is the cosine ranking.
#[derive(Debug, Clone, Default)]
pub struct Ppr {
    pub options: PprOptions,
}

impl Selector for Ppr {
    fn name(&self) -> &'static str {
        "ppr"
    }

    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        self.options.validate()?;
        c.validate()?;
        let teleport = softmax(&c.relevance(), self.options.temperature);
        let (pi, _) = pagerank(c.len(), c.links, &teleport, &self.options);
        let indices = top_k(&pi, budget);
        let scores = indices.iter().map(|i| pi[*i]).collect();
        Ok(Selection {
            indices,
            scores,
            diagnostics: None,
        })
    }
}
