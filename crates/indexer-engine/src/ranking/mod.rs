//! The second ranking stage: a learned model over general features of each candidate
//! ([`features`]), in place of the first stage's hand-set fusion. As in Vespa and
//! Elasticsearch's learning to rank, the features are computed here, the model (LambdaMART
//! gradient-boosted trees) is trained outside the binary (`tools/train-ranker`, LightGBM) on
//! features `indexer eval --export-features` writes, and shipped as a file read at run time
//! ([`trees`]); it is judged on documents it was not trained on (folds by document).
//!
//! A model is trained for one encoder: its manifest names the encoder's model id, and a model
//! is never used with another encoder's index. [`Ranking`] switches it: `learned` ranks by the
//! model's score (the relevance every selector then reads: min-max scaled to [0, 1] over the
//! candidates), `fused` by the first stage's fused score.

pub mod features;
pub mod trees;

use crate::pool::Pool;
use crate::{Error, Result};
use features::{FEATURE_COUNT, feature_names};
use serde::Deserialize;
use std::sync::OnceLock;
use trees::TreeEnsemble;

/// How candidates are ranked before selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ranking {
    /// The first stage's fused score of BM25 and the vectors.
    Fused,
    /// The learned model of the index's encoder over the candidates' features; the fused
    /// score where no model exists for the encoder.
    Learned,
}

impl Ranking {
    pub fn as_str(self) -> &'static str {
        match self {
            Ranking::Fused => "fused",
            Ranking::Learned => "learned",
        }
    }
}

impl std::fmt::Display for Ranking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Ranking {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Ranking, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "fused" => Ok(Ranking::Fused),
            "learned" => Ok(Ranking::Learned),
            _ => Err(format!("ranking must be learned or fused, not {s:?}")),
        }
    }
}

/// What a model file says of itself: the encoder it was trained for and the features it
/// reads, in order (which must be [`features::FEATURES`]'s).
#[derive(Debug, Clone, Deserialize)]
pub struct ModelManifest {
    /// The encoder's model id, as an index's manifest holds it.
    pub model: String,
    /// The commit of the feature code the rows it was trained on were computed by.
    pub features_commit: String,
    /// What it was trained on, in words.
    #[serde(default)]
    pub trained_on: String,
}

/// A learned ranker: a tree ensemble and the encoder it is for.
#[derive(Debug, Clone)]
pub struct Ranker {
    manifest: ModelManifest,
    trees: TreeEnsemble,
}

impl Ranker {
    /// A ranker from a manifest (JSON) and a LightGBM text model; its features must be this
    /// build's, in order.
    pub fn parse(manifest: &str, model: &str) -> Result<Ranker> {
        let manifest: ModelManifest = serde_json::from_str(manifest)
            .map_err(|e| Error::BadRequest(format!("the ranking model's manifest: {e}")))?;
        let trees = TreeEnsemble::parse(model).map_err(|e| Error::BadRequest(e.to_string()))?;
        let want: Vec<&str> = feature_names().collect();
        if trees.features() != want.as_slice() {
            return Err(Error::BadRequest(format!(
                "the ranking model reads the features {:?}, this build computes {want:?}",
                trees.features()
            )));
        }
        Ok(Ranker { manifest, trees })
    }

    /// Reads a ranker from `DIR/NAME.json` and `DIR/NAME.txt`.
    pub fn read(dir: &std::path::Path, name: &str) -> Result<Ranker> {
        let read = |ext: &str| {
            let path = dir.join(format!("{name}.{ext}"));
            std::fs::read_to_string(&path).map_err(|e| Error::Input {
                path,
                message: e.to_string(),
            })
        };
        Ranker::parse(&read("json")?, &read("txt")?)
    }

    /// The encoder it was trained for.
    pub fn model_id(&self) -> &str {
        &self.manifest.model
    }

    pub fn manifest(&self) -> &ModelManifest {
        &self.manifest
    }

    /// The model's score of each row of a feature table (`FEATURE_COUNT` values a row).
    pub fn scores(&self, table: &[f64]) -> Vec<f64> {
        table
            .chunks_exact(FEATURE_COUNT)
            .map(|row| self.trees.predict(row))
            .collect()
    }
}

/// The models shipped with the binary, one an encoder: (manifest, LightGBM text).
const SHIPPED: &[(&str, &str)] = &[(
    include_str!("../../ranker/all-MiniLM-L6-v2.json"),
    include_str!("../../ranker/all-MiniLM-L6-v2.txt"),
)];

/// The shipped ranker for the encoder `model_id`, if there is one.
pub fn shipped(model_id: &str) -> Option<&'static Ranker> {
    static RANKERS: OnceLock<Vec<Ranker>> = OnceLock::new();
    RANKERS
        .get_or_init(|| {
            SHIPPED
                .iter()
                .map(|(m, t)| Ranker::parse(m, t).expect("a shipped ranking model reads"))
                .collect()
        })
        .iter()
        .find(|r| r.model_id() == model_id)
}

/// Ranks `pool` by `ranker`'s scores of its features (`terms`: the question's query terms,
/// [`features::query_terms`]; `pages_of`: a document's page count), scaled to [0, 1] over the
/// candidates, in place of the fused scores.
pub fn rank(
    pool: &mut Pool,
    ranker: &Ranker,
    terms: &[String],
    pages_of: &dyn Fn(&str) -> Option<u32>,
) {
    if pool.fused().len() != pool.len() || pool.is_empty() {
        return;
    }
    let table = features::features(pool, terms, pages_of);
    let raw = ranker.scores(&table);
    let (lo, hi) = raw
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let scaled: Vec<f64> = raw
        .iter()
        .map(|&v| if hi > lo { (v - lo) / (hi - lo) } else { 1.0 })
        .collect();
    pool.rescore(scaled);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rankings_read_as_written() {
        for r in [Ranking::Fused, Ranking::Learned] {
            assert_eq!(r.to_string().parse::<Ranking>().unwrap(), r);
        }
        assert!(" Learned ".parse::<Ranking>().is_ok());
        assert!(
            "best"
                .parse::<Ranking>()
                .unwrap_err()
                .contains("learned or fused")
        );
    }

    /// LightGBM's own predictions of the shipped model on rows of the features it was trained
    /// on (`tools/train-ranker --out` writes them): the Rust trees give the same to 1e-6.
    #[test]
    fn the_shipped_model_predicts_as_lightgbm_does() {
        let r = shipped("sentence-transformers/all-MiniLM-L6-v2@int8").unwrap();
        let golden = include_str!("../../ranker/golden.csv");
        let mut lines = golden.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(header[0], "prediction");
        assert_eq!(header[1..], feature_names().collect::<Vec<_>>()[..]);
        let mut rows = 0;
        for line in lines {
            let v: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
            let got = r.scores(&v[1..])[0];
            assert!(
                (got - v[0]).abs() < 1e-6,
                "row {rows}: {got} against LightGBM's {}",
                v[0]
            );
            rows += 1;
        }
        assert!(rows >= 100, "{rows} golden rows");
    }

    #[test]
    fn the_shipped_model_reads_this_builds_features_for_its_encoder() {
        // The id `tools/setup` writes in the default encoder's model.toml.
        let id = "sentence-transformers/all-MiniLM-L6-v2@int8";
        let r = shipped(id).expect("a model for the default encoder");
        assert_eq!(r.model_id(), id);
        assert!(shipped("some/other-encoder").is_none());
        let scores = r.scores(&vec![0.0; FEATURE_COUNT * 2]);
        assert_eq!(scores.len(), 2);
        assert!(scores.iter().all(|s| s.is_finite()));
    }
}
