//! The options of both CDS solvers ([`CdsOptions`], named as in the paper), their builder, and
//! the initial distributions ([`Prior`]) and spectral bound ([`AlphaFrom`]) they choose from.

use serde::Serialize;

use crate::error::{Result, invalid};

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
