use crate::error::{Error, Result};
use crate::kernels;

/// How far from 1 a norm may be and still count as a unit vector. Encoders write f32 vectors
/// normalised in f32, whose norms are within about 1e-6 of 1; 1e-3 also accepts vectors that
/// went through a lossy store, and still rejects a forgotten normalisation.
pub const UNIT_NORM_TOLERANCE: f64 = 1e-3;

/// The input of every selector: the query, the candidate notes and their link graph.
///
/// Vectors must be unit length, or all zero. A zero vector is accepted and means "no
/// embedding": its cosine with everything is 0, so it is never relevant, and for CDS it is
/// maximally dissimilar (W_ij = beta) from every other note. A zero query makes every
/// relevance 0 (see the edge cases in the crate documentation).
#[derive(Debug, Clone, Copy)]
pub struct Candidates<'a> {
    /// The unit query vector z_q, `dim` values.
    pub query: &'a [f32],
    /// The unit note vectors z_1..z_N, `N x dim`, row-major.
    pub notes: &'a [f32],
    pub dim: usize,
    /// Links between notes (indices into the rows of `notes`), in any direction, repeats and
    /// self-links allowed (both are ignored). Used by PPR and by the CDS PPR prior.
    pub links: &'a [(usize, usize)],
    /// The query text, from which the random selector derives its seed.
    pub query_text: &'a str,
    /// The first-stage fusion score of each candidate (for example reciprocal rank fusion of
    /// its BM25 and vector ranks), higher is better; empty when the candidates carry none.
    /// Only the `fused` selector reads it.
    pub fused: &'a [f64],
    /// What the first stage knows of each candidate besides its vector: document, page, kind
    /// and its BM25 and vector ranks; empty when the candidates carry none. The structured
    /// selectors (`cds-hybrid`, `fused-cap`, `mmr-hybrid`, `dpp-hybrid`) read it.
    pub info: &'a [NoteInfo],
    /// The k of the first stage's reciprocal rank fusion, 1 / (k + rank), which the caller
    /// owns (the engine passes `indexer_index::RRF_K`). The structured selectors fuse the
    /// ranks of `info` with it when the candidates carry no fused scores and the selector
    /// names no k of its own ([`HybridOptions::rrf_k`](crate::HybridOptions::rrf_k)); `None`
    /// (as from [`Candidates::new`]): they then fall back to the cosine.
    pub rrf_k: Option<usize>,
}

/// One candidate's place in the corpus and in the first stage's lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct NoteInfo {
    /// The note's document; any number, equal numbers mean the same document.
    pub doc: u32,
    /// The 1-based page, `None` for unpaged documents (each such note is its own "page").
    pub page: Option<u32>,
    /// A figure or table note (a picture with its caption and context), not running text.
    pub visual: bool,
    /// 1-based rank in the BM25 list, if the note was in it.
    pub bm25_rank: Option<u32>,
    /// 1-based rank in the vector list, if the note was in it.
    pub vector_rank: Option<u32>,
}

impl<'a> Candidates<'a> {
    /// Candidates without links, query text, fused scores, note information or fusion k.
    pub fn new(query: &'a [f32], notes: &'a [f32], dim: usize) -> Self {
        Candidates {
            query,
            notes,
            dim,
            links: &[],
            query_text: "",
            fused: &[],
            info: &[],
            rrf_k: None,
        }
    }

    /// The number N of candidate notes.
    pub fn len(&self) -> usize {
        self.notes.len().checked_div(self.dim).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Note `i`'s vector.
    pub fn note(&self, i: usize) -> &'a [f32] {
        &self.notes[i * self.dim..(i + 1) * self.dim]
    }

    /// Checks shapes, finiteness, unit norms (or zero vectors) and link indices.
    pub fn validate(&self) -> Result<()> {
        self.checked_norms().map(|_| ())
    }

    /// `validate`, returning the squared norms of the notes (which the CDS operator needs).
    pub(crate) fn checked_norms(&self) -> Result<Vec<f64>> {
        if self.dim == 0 {
            return Err(Error::ZeroDim);
        }
        if self.query.len() != self.dim {
            return Err(Error::QueryDim {
                got: self.query.len(),
                dim: self.dim,
            });
        }
        if !self.notes.len().is_multiple_of(self.dim) {
            return Err(Error::NotesShape {
                len: self.notes.len(),
                dim: self.dim,
            });
        }
        check_vector(self.query, || "query vector".to_string())?;
        let n = self.len();
        let mut norms = Vec::with_capacity(n);
        for i in 0..n {
            norms.push(check_vector(self.note(i), || format!("note {i}"))?);
        }
        if !self.fused.is_empty() {
            if self.fused.len() != n {
                return Err(Error::FusedLen {
                    got: self.fused.len(),
                    n,
                });
            }
            if let Some(i) = self.fused.iter().position(|v| !v.is_finite()) {
                return Err(Error::NonFinite {
                    what: "fused scores".into(),
                    component: i,
                });
            }
        }
        if !self.info.is_empty() && self.info.len() != n {
            return Err(Error::InfoLen {
                got: self.info.len(),
                n,
            });
        }
        for (index, &(from, to)) in self.links.iter().enumerate() {
            if from >= n || to >= n {
                return Err(Error::LinkOutOfRange { index, from, to, n });
            }
        }
        Ok(norms)
    }

    /// Relevance rel_i = z_q . z_i (the cosine, unclipped), accumulated in f64.
    pub fn relevance(&self) -> Vec<f64> {
        (0..self.len())
            .map(|i| kernels::dot_f64acc(self.query, self.note(i)))
            .collect()
    }
}

fn check_vector(v: &[f32], what: impl Fn() -> String) -> Result<f64> {
    if let Some(component) = v.iter().position(|x| !x.is_finite()) {
        return Err(Error::NonFinite {
            what: what(),
            component,
        });
    }
    let sq = kernels::dot_f64acc(v, v);
    let norm = sq.sqrt();
    if sq != 0.0 && (norm - 1.0).abs() > UNIT_NORM_TOLERANCE {
        return Err(Error::NotUnit { what: what(), norm });
    }
    Ok(sq)
}

/// Indices of the `k` largest `scores`, best first; ties go to the lower index, so results are
/// reproducible whatever the sort's internals.
pub(crate) fn top_k(scores: &[f64], k: usize) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    let by = |a: &usize, b: &usize| scores[*b].total_cmp(&scores[*a]).then(a.cmp(b));
    let k = k.min(idx.len());
    if k < idx.len() && k > 0 {
        idx.select_nth_unstable_by(k - 1, by);
        idx.truncate(k);
    } else {
        idx.truncate(k);
    }
    idx.sort_by(by);
    idx
}

/// Softmax of `v / t`, computed stably.
pub(crate) fn softmax(v: &[f64], t: f64) -> Vec<f64> {
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut out: Vec<f64> = v.iter().map(|x| ((x - max) / t).exp()).collect();
    let sum: f64 = out.iter().sum();
    out.iter_mut().for_each(|x| *x /= sum);
    out
}
