//! Runs every selector on one JSON instance and prints their selections as JSON.
//!
//! Input: `{"query": [...], "notes": [[...], ...], "budget": B}`, optionally with
//! `"query_text"` (the random selector's seed) and `"links": [[i, j], ...]` (for PPR).
//! Vectors may be unnormalised; they are normalised here (zero vectors stay zero).
//!
//! `cargo run --release -p indexer-rerank --example select -- FILE.json`

use std::collections::BTreeMap;

use indexer_rerank::{Candidates, CdsDiagnostics, CdsOptions, CdsSelector, SelectorKind, selector};
use serde::{Deserialize, Serialize};

#[derive(Deserialize)]
struct Input {
    query: Vec<f32>,
    notes: Vec<Vec<f32>>,
    #[serde(default = "default_budget")]
    budget: usize,
    #[serde(default)]
    query_text: String,
    #[serde(default)]
    links: Vec<(usize, usize)>,
}

fn default_budget() -> usize {
    10
}

#[derive(Serialize)]
struct Output {
    cds_paper: Vec<usize>,
    cds_exact: Vec<usize>,
    cosine: Vec<usize>,
    mmr: Vec<usize>,
    dpp: Vec<usize>,
    ppr: Vec<usize>,
    random: Vec<usize>,
    diagnostics: BTreeMap<&'static str, CdsDiagnostics>,
}

fn normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| *x as f64 * *x as f64).sum::<f64>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x = (*x as f64 / norm) as f32);
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("select: {e:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: select FILE.json")?;
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut input: Input = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let dim = input.query.len();
    if let Some((i, v)) = input.notes.iter().enumerate().find(|(_, v)| v.len() != dim) {
        return Err(format!(
            "{path}: note {i} has {} values, the query has {dim}",
            v.len()
        )
        .into());
    }
    normalise(&mut input.query);
    let mut notes = Vec::with_capacity(input.notes.len() * dim);
    for mut v in input.notes {
        normalise(&mut v);
        notes.extend(v);
    }
    let c = Candidates {
        query: &input.query,
        notes: &notes,
        dim,
        links: &input.links,
        query_text: &input.query_text,
        fused: &[],
        info: &[],
        rrf_k: None,
    };
    let b = input.budget;
    let (paper, _) = CdsSelector::paper(CdsOptions::default())?.solve(&c, b)?;
    let (exact, _) = CdsSelector::exact(CdsOptions::default())?.solve(&c, b)?;
    let pick = |k: SelectorKind| selector(k).select(&c, b).map(|s| s.indices);
    let mut diagnostics = BTreeMap::new();
    diagnostics.insert(
        "cds_paper",
        paper.diagnostics.clone().expect("CDS has diagnostics"),
    );
    diagnostics.insert(
        "cds_exact",
        exact.diagnostics.clone().expect("CDS has diagnostics"),
    );
    let out = Output {
        cds_paper: paper.indices,
        cds_exact: exact.indices,
        cosine: pick(SelectorKind::Cosine)?,
        mmr: pick(SelectorKind::Mmr)?,
        dpp: pick(SelectorKind::Dpp)?,
        ppr: pick(SelectorKind::Ppr)?,
        random: pick(SelectorKind::Random)?,
        diagnostics,
    };
    let text = serde_json::to_string_pretty(&out)?;
    use std::io::Write;
    match writeln!(std::io::stdout().lock(), "{text}") {
        // A closed pipe (`| head`) is not an error of ours.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
