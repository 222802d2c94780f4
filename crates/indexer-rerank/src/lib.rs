//! Evidence selection: choose B notes out of N candidates that are relevant to the query and
//! not redundant with each other.
//!
//! The method is Constrained Dominant Sets (CDS) from Mehrish and Vascon, "Constrained Dominant
//! Sets for Multimodal Document Question Answering", with two solvers of the same program:
//! `cds-paper`, exactly the paper's replicator dynamics and caps, and `cds-exact`, which reaches the
//! equilibrium (KKT residual below 1e-8). With the paper's settings the dynamics stop long
//! before the equilibrium, so the two can select different notes; both report iterations, KKT
//! residual, the query weight x_q, support size and objective. The baselines of the paper's
//! Appendix B run on the same input: cosine top-B, MMR, k-DPP greedy MAP, personalised
//! PageRank and a reproducible random draw.
//!
//! `cds-hybrid` is the same program on the hybrid first stage: query edges from the fused BM25
//! and vector ranks, a note block that knows pages and links ([`NoteInfo`], [`Candidates::info`]),
//! solved by the exact solver; `fused-cap`, `mmr-hybrid` and `dpp-hybrid` are baselines on the
//! same input. [`SelectorSpec`] names a selector with options (`cds-hybrid:beta=1:page=0.5`).
//!
//! Pure math: vectors and a link graph in, ranked indices and diagnostics out; no I/O.
//!
//! ```
//! use indexer_rerank::{Candidates, SelectorKind, selector, synth};
//! let data = synth::clustered(50, 16, 4, 0.5, 7);
//! let c = Candidates::new(&data.query, &data.notes, data.dim);
//! let sel = selector(SelectorKind::CdsExact).select(&c, 5)?;
//! assert!(sel.indices.len() <= 5);
//! let d = sel.diagnostics.unwrap();
//! assert!(d.kkt_residual < 1e-8 && d.x_query > 0.0);
//! # Ok::<(), indexer_rerank::Error>(())
//! ```
//!
//! Edge cases, all without panics:
//! - N = 0: every selector returns an empty selection (CDS: x = e_q, objective 0).
//! - N < B: at most N notes; CDS returns its support, which may be smaller than B (set
//!   [`CdsOptions::fill`] to top up by relevance). DPP stops early when the best log-det gain
//!   is below 1e-10, so it can also return fewer than B.
//! - Duplicate notes: the lower index wins every tie; MMR and DPP do not pick the second copy
//!   while anything else has positive gain, and CDS splits weight between copies.
//! - All notes orthogonal to the query (every s_i = 0), or a zero query vector: the equilibrium
//!   is the query vertex alone, so `cds-exact` returns no notes (`cds-paper` returns the notes still
//!   above the support threshold when it stops); cosine, MMR, DPP and PPR rank as usual with
//!   all relevances 0, ties to the lower index.
//! - A zero note vector is accepted: cosine 0 with everything, never a DPP pick.
//! - NaN or infinity anywhere, a vector that is neither unit length nor zero, a shape mismatch
//!   or a link to a note that does not exist: [`Error`].

// `!(x > 0.0)` is written on purpose throughout: it is also true for NaN.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod baselines;
mod candidates;
mod cds;
mod error;
mod hybrid;
mod kernels;
mod lanczos;
mod ppr;
mod rng;
mod spec;
pub mod synth;

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

pub use baselines::{Cosine, Dpp, DppOptions, Fused, Mmr, MmrOptions, Random};
pub use candidates::{Candidates, NoteInfo, UNIT_NORM_TOLERANCE};
pub use cds::{
    AlphaFrom, CdsDiagnostics, CdsOptions, CdsOptionsBuilder, CdsProblem, CdsSelector, CdsSolution,
    Prior,
};
pub use error::{Error, Result};
pub use hybrid::{
    BEST_CDS_CAP, Cds, CdsHybrid, CdsHybridOptions, DppHybrid, Fill, FusedCap, HybridOptions,
    MmrHybrid, hybrid_relevance,
};
pub use ppr::{Ppr, PprOptions};
pub use rng::{SplitMix64, seed_from_text};
pub use spec::{SelectorSpec, option_names};

/// A selector's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Selection {
    /// Indices into the candidate notes, best first.
    pub indices: Vec<usize>,
    /// One score per index: CDS weight x_i, cosine, MMR gain, DPP log-det gain, PPR score;
    /// the cosine for random.
    pub scores: Vec<f64>,
    /// Present for the CDS selectors.
    pub diagnostics: Option<CdsDiagnostics>,
}

/// Chooses up to `budget` notes (the paper's B) from the candidates.
pub trait Selector: Send + Sync {
    /// The selector's name, as in [`SelectorKind`].
    fn name(&self) -> &'static str;
    fn select(&self, c: &Candidates<'_>, budget: usize) -> Result<Selection>;
}

/// Every selector, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SelectorKind {
    /// `cds`: the best CDS measured: `cds-hybrid` (hybrid relevance, page and link structure,
    /// solved exactly) with its dominant set read at most one note a page before any second
    /// (`cds-hybrid:cap=1`).
    Cds,
    /// `cds-paper`: the paper's protocol, replicator dynamics on cosines.
    CdsPaper,
    /// `cds-exact`: the equilibrium of the paper's program.
    CdsExact,
    Cosine,
    /// `fused`: the first stage's own order (its fused score of BM25 and vectors).
    Fused,
    Mmr,
    Dpp,
    Ppr,
    Random,
    /// `cds-hybrid`: CDS on the hybrid relevance and the page/link structure, solved exactly.
    CdsHybrid,
    /// `fused-cap`: the fused order with at most one note a page before any second.
    FusedCap,
    /// `mmr-hybrid`: MMR on the hybrid relevance and the structured dissimilarity.
    MmrHybrid,
    /// `dpp-hybrid`: k-DPP greedy MAP on the hybrid relevance and the page-aware similarity.
    DppHybrid,
}

impl SelectorKind {
    pub const ALL: [SelectorKind; 13] = [
        SelectorKind::Cds,
        SelectorKind::CdsPaper,
        SelectorKind::CdsExact,
        SelectorKind::Cosine,
        SelectorKind::Fused,
        SelectorKind::Mmr,
        SelectorKind::Dpp,
        SelectorKind::Ppr,
        SelectorKind::Random,
        SelectorKind::CdsHybrid,
        SelectorKind::FusedCap,
        SelectorKind::MmrHybrid,
        SelectorKind::DppHybrid,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SelectorKind::Cds => "cds",
            SelectorKind::CdsPaper => "cds-paper",
            SelectorKind::CdsExact => "cds-exact",
            SelectorKind::Cosine => "cosine",
            SelectorKind::Fused => "fused",
            SelectorKind::Mmr => "mmr",
            SelectorKind::Dpp => "dpp",
            SelectorKind::Ppr => "ppr",
            SelectorKind::Random => "random",
            SelectorKind::CdsHybrid => "cds-hybrid",
            SelectorKind::FusedCap => "fused-cap",
            SelectorKind::MmrHybrid => "mmr-hybrid",
            SelectorKind::DppHybrid => "dpp-hybrid",
        }
    }
}

impl SelectorKind {
    /// Every selector's name, comma-separated (for error messages and help).
    pub fn names() -> String {
        SelectorKind::ALL.map(|k| k.as_str()).join(", ")
    }
}

impl fmt::Display for SelectorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SelectorKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        SelectorKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| Error::UnknownSelector(s.to_string()))
    }
}

/// The selector of `kind` with default options.
pub fn selector(kind: SelectorKind) -> Box<dyn Selector> {
    let cds = CdsOptions::default();
    match kind {
        SelectorKind::Cds => Box::new(Cds::default()),
        SelectorKind::CdsPaper => {
            Box::new(CdsSelector::paper(cds).expect("default options are valid"))
        }
        SelectorKind::CdsExact => {
            Box::new(CdsSelector::exact(cds).expect("default options are valid"))
        }
        SelectorKind::Cosine => Box::new(Cosine),
        SelectorKind::Fused => Box::new(Fused),
        SelectorKind::Mmr => Box::new(Mmr::default()),
        SelectorKind::Dpp => Box::new(Dpp::default()),
        SelectorKind::Ppr => Box::new(Ppr::default()),
        SelectorKind::Random => Box::new(Random),
        SelectorKind::CdsHybrid => Box::new(CdsHybrid::default()),
        SelectorKind::FusedCap => Box::new(FusedCap::default()),
        SelectorKind::MmrHybrid => Box::new(MmrHybrid::default()),
        SelectorKind::DppHybrid => Box::new(DppHybrid::default()),
    }
}
