//! How the first stage fuses its BM25 list and its vector list: [`Fusion`], its parameters
//! ([`BM25_WEIGHT`], [`RRF_K`]: the one place each is written) and [`fuse`].

use crate::candidates::Candidate;

/// The k of reciprocal rank fusion, `1 / (k + rank)`, when it is asked for
/// ([`Fusion::Rrf`]): 60, the value of Cormack et al. (2009) that most hybrid search engines
/// keep.
pub const RRF_K: usize = 60;

/// The weight of BM25 in the default fusion ([`Fusion::Convex`]): 0.5, the two retrievers
/// weighted alike once both scores are on [0, 1].
pub const BM25_WEIGHT: f32 = 0.5;

/// How the first stage fuses its BM25 list and its vector list into one score. The one place
/// the default is set; every caller takes it from [`Fusion::default`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fusion {
    /// The default: a convex combination of normalised scores (Bruch, Gai and Ingber, "An
    /// Analysis of Fusion Functions for Hybrid Retrieval", 2023, found it better than RRF and
    /// stable in its one parameter), `w * b / b_max + (1 - w) * (c - c_min) / (c_max - c_min)`.
    /// `b` is the BM25 score, which has a natural zero (no query term): divided by the best
    /// of the list, and 0 for a note the BM25 list does not hold. `c` is the cosine, which
    /// has none (unrelated texts have a cosine above 0 whose level depends on the encoder):
    /// scaled from the lowest to the highest cosine among the candidates.
    Convex { bm25_weight: f32 },
    /// Reciprocal rank fusion, `sum over the lists of 1 / (k + rank)`: ranks only.
    Rrf { k: usize },
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion::Convex {
            bm25_weight: BM25_WEIGHT,
        }
    }
}

impl std::fmt::Display for Fusion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fusion::Convex { bm25_weight } => write!(f, "convex:{bm25_weight}"),
            Fusion::Rrf { k } => write!(f, "rrf:{k}"),
        }
    }
}

impl std::str::FromStr for Fusion {
    type Err = String;
    /// `convex` (BM25 weight 0.5), `convex:W`, `rrf` (k = 60) or `rrf:K`.
    fn from_str(s: &str) -> Result<Fusion, String> {
        let (name, arg) = s.split_once(':').unwrap_or((s, ""));
        let bad =
            || format!("fusion must be convex, convex:W (0 <= W <= 1), rrf or rrf:K, not {s:?}");
        match (name, arg) {
            ("convex", "") => Ok(Fusion::default()),
            ("convex", w) => match w.parse::<f32>() {
                Ok(w) if (0.0..=1.0).contains(&w) => Ok(Fusion::Convex { bm25_weight: w }),
                _ => Err(bad()),
            },
            ("rrf", "") => Ok(Fusion::Rrf { k: RRF_K }),
            ("rrf", k) => k.parse().map(|k| Fusion::Rrf { k }).map_err(|_| bad()),
            _ => Err(bad()),
        }
    }
}

/// Sets each candidate's fused score from its BM25 score and rank, its cosine and its vector
/// rank (see [`Fusion`]), and orders them by it (ties: BM25 rank, then ordinal). Candidates of
/// one search can be fused again another way without searching again.
pub fn fuse(hits: &mut [Candidate], fusion: Fusion) {
    score(hits, fusion);
    hits.sort_by(|a, b| {
        b.fused
            .total_cmp(&a.fused)
            .then(
                a.bm25_rank
                    .unwrap_or(usize::MAX)
                    .cmp(&b.bm25_rank.unwrap_or(usize::MAX)),
            )
            .then(a.ordinal.cmp(&b.ordinal))
    });
}

fn score(hits: &mut [Candidate], fusion: Fusion) {
    match fusion {
        Fusion::Rrf { k } => {
            let rr = |r: Option<usize>| r.map_or(0.0, |r| 1.0 / (k as f32 + r as f32));
            for h in hits {
                h.fused = rr(h.bm25_rank) + rr(h.vector_rank);
            }
        }
        Fusion::Convex { bm25_weight: w } => {
            let b_max = hits
                .iter()
                .filter_map(|h| h.bm25_score)
                .fold(0.0f32, f32::max);
            let cos = hits.iter().filter_map(|h| h.cosine);
            let (c_min, c_max) = cos.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), c| {
                (lo.min(c), hi.max(c))
            });
            for h in hits {
                let b = match h.bm25_score {
                    Some(b) if b_max > 0.0 => b / b_max,
                    _ => 0.0,
                };
                let c = match h.cosine {
                    Some(c) if c_max > c_min => (c - c_min) / (c_max - c_min),
                    // One cosine among the candidates (or all equal): it ranks nothing.
                    Some(_) => 1.0,
                    None => 0.0,
                };
                h.fused = w * b + (1.0 - w) * c;
            }
        }
    }
}
