//! Constrained Dominant Sets (paper, Section 3.2 and Algorithm 1).
//!
//! Vertex 0 is the query, vertices 1..=N the notes. The affinity A has the query edges
//! A_0i = s_i = max(z_q . z_i, 0) (after the tau sparsification), the note block
//! W_ij = beta (1 - z_i . z_j) for i != j, W_ii = 0, and A_00 = 0. With
//! alpha = lambda_max(W) + eps, M = A - alpha I on the notes only, and the program is
//! max x'Mx over the simplex of N + 1 vertices. The evidence is the notes with
//! x_i > support_threshold, ranked by x_i, top B.

mod exact;
mod paper;

use std::time::Instant;

use serde::Serialize;

use crate::candidates::{Candidates, softmax, top_k};
use crate::error::{Result, invalid};
use crate::kernels;
use crate::lanczos;
use crate::ppr::{PprOptions, pagerank};
use crate::{Selection, Selector};

/// Initial distribution x(0) of the replicator dynamics (the paper's "prior").
///
/// Every prior gives the query vertex its uniform share 1 / (N + 1) and spreads the rest,
/// N / (N + 1), over the notes, so priors differ only in how they weigh notes against each
/// other. Weights are floored at 1e-300: a replicator weight that starts at 0 stays 0 forever.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Prior {
    /// x_i(0) = 1 / (N + 1) for every vertex (the paper's default).
    Uniform,
    /// Notes weighted by softmax(z_q . z_i / t), the paper's query-softmax at temperature T.
    QuerySoftmax { t: f64 },
    /// The query-softmax at `temperature`, diffused over the symmetrised link graph by
    /// personalised PageRank with `damping` (the paper's PPR prior).
    Ppr { damping: f64, temperature: f64 },
}

/// Which matrix's largest eigenvalue sets alpha.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AlphaFrom {
    /// lambda_max(W), the note block: the constrained-dominant-set bound (paper, Section 3.2).
    W,
    /// lambda_max(A), the whole augmented affinity (paper, Algorithm 1): at least as large.
    A,
}

/// Options of both CDS solvers. Names follow the paper.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CdsOptions {
    /// beta, the diversification strength: W_ij = beta (1 - z_i . z_j). Default 1.
    pub beta: f64,
    /// tau, the query-row sparsity: query edges with z_q . z_i < tau are zeroed, keeping the
    /// single strongest when none clears tau. Default 0 (only negative cosines are cut).
    pub tau: f64,
    /// epsilon in alpha = lambda_max + epsilon, and in the shift c = max(0, -min M) + epsilon.
    /// Default 1e-3.
    pub eps: f64,
    /// The paper's tolerance: the dynamics stop when the L1 norm of a step is below it.
    /// Default 1e-7. (Paper solver only.)
    pub tol: f64,
    /// The paper's iteration cap T_max. Default 10,000. (Paper solver only.)
    pub max_iter: usize,
    /// The support threshold: notes with x_i above it are the dominant set. Default 1e-6.
    pub support_threshold: f64,
    /// The initial distribution x(0). Default uniform. (Paper solver only: the exact solver
    /// finds the equilibrium, which does not depend on where the dynamics start.)
    pub prior: Prior,
    /// Whether alpha comes from lambda_max(W) (Section 3.2, default) or lambda_max(A)
    /// (Algorithm 1).
    pub alpha_from: AlphaFrom,
    /// Target KKT residual of the exact solver (not in the paper). Default 1e-8.
    pub kkt_tol: f64,
    /// Top the selection up to B notes by relevance when the dominant set has fewer (not in
    /// the paper, off by default; filled notes have score 0).
    pub fill: bool,
}

impl Default for CdsOptions {
    fn default() -> Self {
        CdsOptions {
            beta: 1.0,
            tau: 0.0,
            eps: 1e-3,
            tol: 1e-7,
            max_iter: 10_000,
            support_threshold: 1e-6,
            prior: Prior::Uniform,
            alpha_from: AlphaFrom::W,
            kkt_tol: 1e-8,
            fill: false,
        }
    }
}

impl CdsOptions {
    pub fn builder() -> CdsOptionsBuilder {
        CdsOptionsBuilder {
            opts: CdsOptions::default(),
        }
    }

    pub fn validate(&self) -> Result<()> {
        let pos = |name, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(invalid(name, format!("{v} is not a positive number")))
            }
        };
        pos("beta", self.beta)?;
        pos("eps", self.eps)?;
        pos("tol", self.tol)?;
        pos("kkt_tol", self.kkt_tol)?;
        if !self.tau.is_finite() {
            return Err(invalid("tau", format!("{} is not finite", self.tau)));
        }
        if !(self.support_threshold.is_finite() && self.support_threshold >= 0.0) {
            return Err(invalid(
                "support_threshold",
                format!("{} is not a non-negative number", self.support_threshold),
            ));
        }
        if self.max_iter == 0 {
            return Err(invalid("max_iter", "must be at least 1"));
        }
        match self.prior {
            Prior::Uniform => {}
            Prior::QuerySoftmax { t } => pos("prior.t", t)?,
            Prior::Ppr {
                damping,
                temperature,
            } => {
                pos("prior.temperature", temperature)?;
                if !(0.0..1.0).contains(&damping) {
                    return Err(invalid(
                        "prior.damping",
                        format!("{damping} is not in [0, 1)"),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Builder of [`CdsOptions`]; `build` validates.
#[derive(Debug, Clone)]
pub struct CdsOptionsBuilder {
    opts: CdsOptions,
}

macro_rules! setters {
    ($($name:ident: $ty:ty),*) => {
        $(
            #[doc = concat!("Sets [`CdsOptions::", stringify!($name), "`].")]
            pub fn $name(mut self, v: $ty) -> Self {
                self.opts.$name = v;
                self
            }
        )*
    };
}

impl CdsOptionsBuilder {
    setters!(beta: f64, tau: f64, eps: f64, tol: f64, max_iter: usize, support_threshold: f64,
        prior: Prior, alpha_from: AlphaFrom, kkt_tol: f64, fill: bool);

    pub fn build(self) -> Result<CdsOptions> {
        self.opts.validate()?;
        Ok(self.opts)
    }
}

/// What a CDS solver did, for the user and for the evaluation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CdsDiagnostics {
    /// `"paper"` (replicator dynamics) or `"exact"` (active set on the KKT system).
    pub solver: &'static str,
    /// Number of candidate notes N.
    pub n: usize,
    pub alpha: f64,
    /// lambda_max of W (or of A, see [`AlphaFrom`]).
    pub lambda_max: f64,
    /// Lanczos steps spent on lambda_max.
    pub lanczos_steps: usize,
    /// The replicator shift c = max(0, -min M) + eps (paper solver; 0 for exact).
    pub shift: f64,
    /// Paper: replicator steps. Exact: face solves of the active set plus polishing steps.
    pub iterations: usize,
    /// Exact: infection-immunization steps spent when the active set alone did not converge.
    pub polish_steps: usize,
    /// Paper: the L1 norm of the last step. Exact: 0.
    pub last_step: f64,
    /// Paper: the step fell below `tol` before the cap. Exact: KKT residual below `kkt_tol`.
    pub converged: bool,
    /// ||min(x, -(Mx - x'Mx))||_2 over all N + 1 vertices; 0 exactly at a KKT point.
    pub kkt_residual: f64,
    /// The query vertex's weight x_0.
    pub x_query: f64,
    /// Notes with x_i above the support threshold.
    pub support_size: usize,
    /// x'Mx.
    pub objective: f64,
    /// Wall time of the whole selection.
    pub seconds: f64,
    /// How the dynamics multiplied by W: `"gram"` (an N x N matrix built once) or `"low-rank"`
    /// (Z (Z' x), O(N d) per product).
    pub operator: &'static str,
    /// `cds-hybrid`: notes added by the fill rule after the dominant set (0 otherwise).
    pub filled: usize,
    /// `cds-hybrid`: exact solves spent (more than 1 when the fill peels dominant sets).
    pub rounds: usize,
}

/// A CDS solution: the weights over all N + 1 vertices (query first) and the diagnostics.
#[derive(Debug, Clone)]
pub struct CdsSolution {
    pub x: Vec<f64>,
    pub diagnostics: CdsDiagnostics,
}

/// One CDS instance with its spectral bound computed: the shared ground of both solvers, and
/// public so that tests and the evaluation can look at trajectories and KKT residuals.
#[derive(Debug, Clone)]
pub struct CdsProblem<'a> {
    c: Candidates<'a>,
    opts: CdsOptions,
    n: usize,
    rel: Vec<f64>,
    s: Vec<f64>,
    /// Squared norms g_ii: 1 for unit notes, 0 for zero notes. W_ii = 0 whatever they are.
    sq_norms: Vec<f64>,
    /// The sparse, symmetric part E of the note block, by row: (j, E_ij). Empty for the
    /// paper's program.
    extra: Vec<Vec<(usize, f64)>>,
    lambda_max: f64,
    lanczos_steps: usize,
    alpha: f64,
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

    /// Runs the replicator dynamics x <- x (Mx + c) / (x'Mx + c) from `x`, stopping when the L1
    /// step is below `tol` or after `max_iter` steps; `observe(step, x)` sees every iterate
    /// (step 0 is the start). Returns the final x, the steps taken and the last step's L1 norm.
    pub fn replicator(
        &self,
        x: Vec<f64>,
        max_iter: usize,
        tol: f64,
        observe: impl FnMut(usize, &[f64]),
    ) -> (Vec<f64>, usize, f64) {
        paper::run(self, x, max_iter, tol, observe)
    }

    /// The paper's solver: replicator dynamics from the prior with the paper's caps.
    pub fn solve_paper(&self) -> CdsSolution {
        let start = Instant::now();
        let x0 = self.initial(self.opts.prior);
        let (x, iterations, last_step) =
            self.replicator(x0, self.opts.max_iter, self.opts.tol, |_, _| {});
        let converged = last_step < self.opts.tol;
        self.solution("paper", x, iterations, 0, last_step, Some(converged), start)
    }

    /// The exact solver: the equilibrium by an active set on the KKT system.
    pub fn solve_exact(&self) -> CdsSolution {
        let start = Instant::now();
        let out = exact::solve(self);
        self.solution(
            "exact",
            out.x,
            out.iterations,
            out.polish_steps,
            0.0,
            None,
            start,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn solution(
        &self,
        solver: &'static str,
        x: Vec<f64>,
        iterations: usize,
        polish_steps: usize,
        last_step: f64,
        converged: Option<bool>,
        start: Instant,
    ) -> CdsSolution {
        let p = self.payoff(&x);
        let kkt_residual = kkt(&x, &p);
        let diagnostics = CdsDiagnostics {
            solver,
            n: self.n,
            alpha: self.alpha,
            lambda_max: self.lambda_max,
            lanczos_steps: self.lanczos_steps,
            shift: if solver == "paper" { self.shift() } else { 0.0 },
            iterations,
            polish_steps,
            last_step,
            converged: converged.unwrap_or(kkt_residual < self.opts.kkt_tol),
            kkt_residual,
            x_query: x[0],
            support_size: x[1..]
                .iter()
                .filter(|v| **v > self.opts.support_threshold)
                .count(),
            objective: dot(&x, &p),
            seconds: start.elapsed().as_secs_f64(),
            operator: if solver == "paper" {
                paper::operator_name(self)
            } else {
                "low-rank"
            },
            filled: 0,
            rounds: 1,
        };
        CdsSolution { x, diagnostics }
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

/// The CDS selector with either solver.
#[derive(Debug, Clone)]
pub struct CdsSelector {
    opts: CdsOptions,
    exact: bool,
}

impl CdsSelector {
    /// The paper's replicator dynamics (`cds`).
    pub fn paper(opts: CdsOptions) -> Result<Self> {
        opts.validate()?;
        Ok(CdsSelector { opts, exact: false })
    }

    /// The exact equilibrium (`cds-exact`).
    pub fn exact(opts: CdsOptions) -> Result<Self> {
        opts.validate()?;
        Ok(CdsSelector { opts, exact: true })
    }

    pub fn options(&self) -> &CdsOptions {
        &self.opts
    }

    /// Selects and also returns the full solution (all N + 1 weights).
    pub fn solve(&self, c: &Candidates<'_>, budget: usize) -> Result<(Selection, CdsSolution)> {
        let start = Instant::now();
        let problem = CdsProblem::new(c, &self.opts)?;
        let mut sol = if self.exact {
            problem.solve_exact()
        } else {
            problem.solve_paper()
        };
        let (indices, scores) = problem.evidence(&sol.x, budget);
        sol.diagnostics.seconds = start.elapsed().as_secs_f64();
        let sel = Selection {
            indices,
            scores,
            diagnostics: Some(sol.diagnostics.clone()),
        };
        Ok((sel, sol))
    }
}

impl Selector for CdsSelector {
    fn name(&self) -> &'static str {
        if self.exact { "cds-exact" } else { "cds" }
    }

    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        self.solve(c, budget).map(|(sel, _)| sel)
    }
}
