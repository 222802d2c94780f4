//! One CDS instance ([`CdsProblem`]): the query edges, the note block as an operator, its
//! spectral bound alpha, and what both solvers read of it (payoffs, objective, KKT residual,
//! initial distributions, the evidence of a solution).

use crate::candidates::{Candidates, softmax, top_k};
use crate::error::Result;
use crate::kernels;
use crate::lanczos;
use crate::ppr::{PprOptions, pagerank};

use super::options::{AlphaFrom, CdsOptions, Prior};

/// One CDS instance with its spectral bound computed: the shared ground of both solvers, and
/// public so that tests and the evaluation can look at trajectories and KKT residuals.
#[derive(Debug, Clone)]
pub struct CdsProblem<'a> {
    pub(super) c: Candidates<'a>,
    pub(super) opts: CdsOptions,
    pub(super) n: usize,
    rel: Vec<f64>,
    pub(super) s: Vec<f64>,
    /// Squared norms g_ii: 1 for unit notes, 0 for zero notes. W_ii = 0 whatever they are.
    pub(super) sq_norms: Vec<f64>,
    /// The sparse, symmetric part E of the note block, by row: (j, E_ij). Empty for the
    /// paper's program.
    pub(super) extra: Vec<Vec<(usize, f64)>>,
    pub(super) lambda_max: f64,
    pub(super) lanczos_steps: usize,
    pub(super) alpha: f64,
}

impl<'a> CdsProblem<'a> {
    /// Validates the candidates and options and computes s, lambda_max and alpha.
    pub fn new(c: &Candidates<'a>, opts: &CdsOptions) -> Result<Self> {
        opts.validate()?;
        let sq_norms = c.checked_norms()?;
        let n = c.len();
        let rel = c.relevance();
        let mut s: Vec<f64> = rel
            .iter()
            .map(|r| if *r < opts.tau { 0.0 } else { r.max(0.0) })
            .collect();
        if n > 0 && s.iter().all(|v| *v == 0.0) {
            // None clears tau: keep the single strongest edge (paper), if it is positive.
            let best = top_k(&rel, 1)[0];
            s[best] = rel[best].max(0.0);
        }
        Ok(Self::with_parts(c, opts, sq_norms, rel, s, Vec::new()))
    }

    /// A CDS instance whose query edges `s` are given (not the cosines) and whose note block
    /// is W = beta (11' - Z Z') + E, off the diagonal, with E sparse and symmetric:
    /// `extra[i]` lists (j, E_ij). E_ij must keep W_ij >= 0; the caller (the `cds-hybrid`
    /// selector) guarantees it. `rel` orders the fill. Only the exact solver reads E: the paper's
    /// dynamics use their own dense or low-rank product of Z, so this constructor is not public.
    pub(crate) fn structured(
        c: &Candidates<'a>,
        opts: &CdsOptions,
        rel: Vec<f64>,
        s: Vec<f64>,
        extra: Vec<Vec<(usize, f64)>>,
    ) -> Result<Self> {
        opts.validate()?;
        let sq_norms = c.checked_norms()?;
        debug_assert!(s.len() == c.len() && rel.len() == c.len());
        debug_assert!(extra.is_empty() || extra.len() == c.len());
        Ok(Self::with_parts(c, opts, sq_norms, rel, s, extra))
    }

    fn with_parts(
        c: &Candidates<'a>,
        opts: &CdsOptions,
        sq_norms: Vec<f64>,
        rel: Vec<f64>,
        s: Vec<f64>,
        extra: Vec<Vec<(usize, f64)>>,
    ) -> Self {
        let n = c.len();
        let mut p = CdsProblem {
            c: *c,
            opts: *opts,
            n,
            rel,
            s,
            sq_norms,
            extra,
            lambda_max: 0.0,
            lanczos_steps: 0,
            alpha: 0.0,
        };
        let eig = match opts.alpha_from {
            AlphaFrom::W => lanczos::largest_eigenvalue(n, 100, 1e-14, |v, out| p.w_mul(v, out)),
            AlphaFrom::A => {
                lanczos::largest_eigenvalue(n + 1, 100, 1e-14, |v, out| p.a_mul(v, out))
            }
        };
        p.lambda_max = eig.value;
        p.lanczos_steps = eig.steps;
        p.alpha = eig.value + opts.eps;
        p
    }

    /// E_ij, the sparse part of the note block (0 when there is none).
    pub(crate) fn extra_at(&self, i: usize, j: usize) -> f64 {
        self.extra
            .get(i)
            .map(|row| row.iter().filter(|(k, _)| *k == j).map(|(_, e)| e).sum())
            .unwrap_or(0.0)
    }

    /// Number of notes N (the problem has N + 1 vertices).
    pub fn n(&self) -> usize {
        self.n
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    pub fn lambda_max(&self) -> f64 {
        self.lambda_max
    }

    /// The query edges s_i after the tau sparsification.
    pub fn query_edges(&self) -> &[f64] {
        &self.s
    }

    /// The shift c = max(0, -min M) + eps of the replicator dynamics. Every entry of A is
    /// non-negative, so min M = -alpha (the notes' diagonal) and c = alpha + eps.
    pub fn shift(&self) -> f64 {
        let min_m = if self.n > 0 { -self.alpha } else { 0.0 };
        (-min_m).max(0.0) + self.opts.eps
    }

    /// `out = W v` in f64, through the low-rank form beta((1'v) 1 - Z (Z' v)) with the diagonal
    /// of Z Z' removed exactly.
    pub(crate) fn w_mul(&self, v: &[f64], out: &mut [f64]) {
        let mut u = vec![0.0; self.c.dim];
        kernels::lowrank64(self.c.notes, self.c.dim, v, &mut u, out);
        let total: f64 = v.iter().sum();
        let b = self.opts.beta;
        for i in 0..self.n {
            out[i] = b * (total - out[i] - (1.0 - self.sq_norms[i]) * v[i]);
        }
        for (i, row) in self.extra.iter().enumerate() {
            out[i] += row.iter().map(|(j, e)| e * v[*j]).sum::<f64>();
        }
    }

    fn a_mul(&self, v: &[f64], out: &mut [f64]) {
        self.w_mul(&v[1..], &mut out[1..]);
        out[0] = dot(&self.s, &v[1..]);
        for i in 0..self.n {
            out[i + 1] += self.s[i] * v[0];
        }
    }

    /// The payoffs M x (f64, exact operator) for x over the N + 1 vertices.
    pub fn payoff(&self, x: &[f64]) -> Vec<f64> {
        let mut p = vec![0.0; self.n + 1];
        self.w_mul(&x[1..], &mut p[1..]);
        p[0] = dot(&self.s, &x[1..]);
        for i in 0..self.n {
            p[i + 1] += self.s[i] * x[0] - self.alpha * x[i + 1];
        }
        p
    }

    /// The objective x'Mx.
    pub fn objective(&self, x: &[f64]) -> f64 {
        dot(x, &self.payoff(x))
    }

    /// ||min(x, -(Mx - x'Mx))||_2 over all N + 1 vertices.
    pub fn kkt_residual(&self, x: &[f64]) -> f64 {
        kkt(x, &self.payoff(x))
    }

    /// The initial distribution x(0) for a prior.
    pub fn initial(&self, prior: Prior) -> Vec<f64> {
        let n = self.n;
        let share = 1.0 / (n as f64 + 1.0);
        let notes: Vec<f64> = match prior {
            Prior::Uniform => vec![1.0 / n.max(1) as f64; n],
            Prior::QuerySoftmax { t } => softmax(&self.rel, t),
            Prior::Ppr {
                damping,
                temperature,
            } => {
                let teleport = softmax(&self.rel, temperature);
                let o = PprOptions {
                    damping,
                    temperature,
                    ..PprOptions::default()
                };
                pagerank(n, self.c.links, &teleport, &o).0
            }
        };
        let mut x = Vec::with_capacity(n + 1);
        x.push(share);
        x.extend(notes.iter().map(|v| (v * (1.0 - share)).max(1e-300)));
        let sum: f64 = x.iter().sum();
        x.iter_mut().for_each(|v| *v /= sum);
        x
    }

    /// The evidence: notes above the support threshold ranked by x_i, top `budget`, topped up
    /// by relevance when [`CdsOptions::fill`] is set.
    pub fn evidence(&self, x: &[f64], budget: usize) -> (Vec<usize>, Vec<f64>) {
        let w = &x[1..];
        let support: Vec<f64> = w
            .iter()
            .map(|v| {
                if *v > self.opts.support_threshold {
                    *v
                } else {
                    f64::NEG_INFINITY
                }
            })
            .collect();
        let mut indices: Vec<usize> = top_k(&support, budget)
            .into_iter()
            .filter(|i| support[*i] > f64::NEG_INFINITY)
            .collect();
        let mut scores: Vec<f64> = indices.iter().map(|i| w[*i]).collect();
        if self.opts.fill && indices.len() < budget {
            for i in top_k(&self.rel, self.n) {
                if indices.len() == budget {
                    break;
                }
                if !indices.contains(&i) {
                    indices.push(i);
                    scores.push(0.0);
                }
            }
        }
        (indices, scores)
    }
}

pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub(crate) fn kkt(x: &[f64], p: &[f64]) -> f64 {
    let lambda = dot(x, p);
    x.iter()
        .zip(p)
        .map(|(xi, pi)| xi.min(lambda - pi).powi(2))
        .sum::<f64>()
        .sqrt()
}
