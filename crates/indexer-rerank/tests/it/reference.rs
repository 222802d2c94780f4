//! Plain, obviously-correct dense references (f64 matrices, brute force).

use proptest::prelude::*;

/// A random instance: query and notes unit vectors, clustered around a few centres.
#[derive(Debug, Clone)]
pub struct Inst {
    pub query: Vec<f32>,
    pub notes: Vec<f32>,
    pub dim: usize,
    pub links: Vec<(usize, usize)>,
}

impl Inst {
    pub fn n(&self) -> usize {
        self.notes.len() / self.dim
    }
    pub fn cands(&self) -> indexer_rerank::Candidates<'_> {
        indexer_rerank::Candidates {
            query: &self.query,
            notes: &self.notes,
            dim: self.dim,
            links: &self.links,
            query_text: "a question",
            fused: &[],
            info: &[],
            rrf_k: None,
        }
    }
    pub fn z(&self, i: usize) -> &[f32] {
        &self.notes[i * self.dim..(i + 1) * self.dim]
    }
    pub fn dotf(a: &[f32], b: &[f32]) -> f64 {
        a.iter().zip(b).map(|(x, y)| *x as f64 * *y as f64).sum()
    }
    pub fn rel(&self) -> Vec<f64> {
        (0..self.n())
            .map(|i| Self::dotf(&self.query, self.z(i)))
            .collect()
    }
    pub fn sim(&self, i: usize, j: usize) -> f64 {
        Self::dotf(self.z(i), self.z(j))
    }
}

fn normalise(v: &mut [f32]) {
    let n = v.iter().map(|x| *x as f64 * *x as f64).sum::<f64>().sqrt();
    v.iter_mut().for_each(|x| *x = (*x as f64 / n) as f32);
}

/// Instances with 1..=max_n notes in dimension 3..=10, from a seed (so proptest shrinks the
/// seed and sizes, and the generator stays the crate's own).
pub fn instances(max_n: usize) -> impl Strategy<Value = Inst> {
    (
        1..=max_n,
        3usize..=10,
        1usize..=4,
        0.2f64..1.5,
        any::<u64>(),
    )
        .prop_map(|(n, dim, k, spread, seed)| {
            let data = indexer_rerank::synth::clustered(n, dim, k, spread, seed);
            let mut rng = indexer_rerank::SplitMix64::new(seed ^ 0xabcdef);
            let links = (0..n)
                .map(|_| (rng.below(n as u64) as usize, rng.below(n as u64) as usize))
                .collect();
            let mut query = data.query;
            normalise(&mut query);
            Inst {
                query,
                notes: data.notes,
                dim,
                links,
            }
        })
}

/// Dense M of the CDS program for a given alpha, (N + 1) x (N + 1), vertex 0 the query.
pub fn dense_m(inst: &Inst, s: &[f64], beta: f64, alpha: f64) -> Vec<Vec<f64>> {
    let n = inst.n();
    let mut m = vec![vec![0.0; n + 1]; n + 1];
    for i in 0..n {
        m[0][i + 1] = s[i];
        m[i + 1][0] = s[i];
        for j in 0..n {
            m[i + 1][j + 1] = if i == j {
                -alpha
            } else {
                beta * (1.0 - inst.sim(i, j))
            };
        }
    }
    m
}

pub fn mul(m: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    m.iter()
        .map(|row| row.iter().zip(x).map(|(a, b)| a * b).sum())
        .collect()
}

pub fn quad(m: &[Vec<f64>], x: &[f64]) -> f64 {
    mul(m, x).iter().zip(x).map(|(a, b)| a * b).sum()
}

pub fn kkt(m: &[Vec<f64>], x: &[f64]) -> f64 {
    let p = mul(m, x);
    let lambda: f64 = p.iter().zip(x).map(|(a, b)| a * b).sum();
    x.iter()
        .zip(&p)
        .map(|(xi, pi)| xi.min(lambda - pi).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// Indices sorted by descending score, ties to the lower index.
pub fn ranked(scores: &[f64]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..scores.len()).collect();
    idx.sort_by(|a, b| scores[*b].partial_cmp(&scores[*a]).unwrap().then(a.cmp(b)));
    idx
}

/// log det of a small symmetric positive semi-definite matrix by Gaussian elimination;
/// -inf when singular.
pub fn logdet(mut a: Vec<Vec<f64>>) -> f64 {
    let k = a.len();
    let mut total = 0.0;
    for c in 0..k {
        let piv = a[c][c];
        if piv <= 1e-300 {
            return f64::NEG_INFINITY;
        }
        total += piv.ln();
        let pivot_row = a[c].clone();
        for row in a.iter_mut().skip(c + 1) {
            let f = row[c] / piv;
            for (v, p) in row.iter_mut().zip(&pivot_row).skip(c) {
                *v -= f * p;
            }
        }
    }
    total
}
