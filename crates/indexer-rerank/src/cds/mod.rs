//! Constrained Dominant Sets (paper, Section 3.2 and Algorithm 1).
//!
//! Vertex 0 is the query, vertices 1..=N the notes. The affinity A has the query edges
//! A_0i = s_i = max(z_q . z_i, 0) (after the tau sparsification), the note block
//! W_ij = beta (1 - z_i . z_j) for i != j, W_ii = 0, and A_00 = 0. With
//! alpha = lambda_max(W) + eps, M = A - alpha I on the notes only, and the program is
//! max x'Mx over the simplex of N + 1 vertices. The evidence is the notes with
//! x_i > support_threshold, ranked by x_i, top B.
//!
//! Types below, solvers above: `options` and `problem` (the instance both solvers read) sit
//! under `paper` and `exact` (the two solvers); this module runs them and is the selector.

mod exact;
mod options;
mod paper;
mod problem;

use std::time::Instant;

use serde::Serialize;

use crate::candidates::Candidates;
use crate::error::Result;
use crate::{Selection, Selector};

pub use options::{AlphaFrom, CdsOptions, CdsOptionsBuilder, Prior};
pub use problem::CdsProblem;
use problem::{dot, kkt};

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

impl CdsProblem<'_> {
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
}

/// The CDS selector with either solver.
#[derive(Debug, Clone)]
pub struct CdsSelector {
    opts: CdsOptions,
    exact: bool,
}

impl CdsSelector {
    /// The paper's replicator dynamics (`cds-paper`).
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
        if self.exact { "cds-exact" } else { "cds-paper" }
    }

    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection> {
        self.solve(c, budget).map(|(sel, _)| sel)
    }
}
