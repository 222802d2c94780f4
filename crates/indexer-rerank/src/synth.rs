//! Synthetic clustered unit vectors for tests, benchmarks and demos: documents restate a
//! finding in several notes, so real candidates come in tight groups, and a selector's
//! behaviour on isotropic random vectors says little about it on real ones.

use crate::rng::SplitMix64;

/// A query and `n` note vectors of dimension `dim`, all unit length, in `clusters` groups.
#[derive(Debug, Clone)]
pub struct Instance {
    pub query: Vec<f32>,
    /// `n x dim`, row-major.
    pub notes: Vec<f32>,
    pub dim: usize,
    /// The cluster of every note.
    pub cluster: Vec<usize>,
}

/// Notes are `center + spread * noise` normalised, where centres are random unit vectors and
/// `noise` is Gaussian with unit expected norm, so two notes of one cluster have a cosine of
/// about `1 / (1 + spread^2)` (0.8 at `spread = 0.5`). The query is `center_0 + spread * noise`,
/// so one group is the relevant one. Deterministic in `seed`.
pub fn clustered(n: usize, dim: usize, clusters: usize, spread: f64, seed: u64) -> Instance {
    let clusters = clusters.max(1);
    let mut rng = SplitMix64::new(seed);
    let centers: Vec<Vec<f64>> = (0..clusters)
        .map(|_| unit(&mut rng, dim, None, 0.0))
        .collect();
    let mut notes = Vec::with_capacity(n * dim);
    let mut cluster = Vec::with_capacity(n);
    for _ in 0..n {
        let c = rng.below(clusters as u64) as usize;
        cluster.push(c);
        notes.extend(
            unit(&mut rng, dim, Some(&centers[c]), spread)
                .iter()
                .map(|v| *v as f32),
        );
    }
    let query = unit(&mut rng, dim, Some(&centers[0]), spread)
        .iter()
        .map(|v| *v as f32)
        .collect();
    Instance {
        query,
        notes,
        dim,
        cluster,
    }
}

fn unit(rng: &mut SplitMix64, dim: usize, center: Option<&[f64]>, spread: f64) -> Vec<f64> {
    let mut v: Vec<f64> = match center {
        Some(c) => {
            let scale = spread / (dim as f64).sqrt();
            c.iter().map(|ci| ci + scale * rng.normal()).collect()
        }
        None => (0..dim)
            .map(|_| rng.normal() / (dim as f64).sqrt())
            .collect(),
    };
    let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}
