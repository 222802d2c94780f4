use indexer_rerank::{
    Dpp, Mmr, MmrOptions, Ppr, Selector, SelectorKind, SplitMix64, seed_from_text, selector,
};
use proptest::prelude::*;

use crate::reference::{Inst, instances, logdet, ranked};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 48,
        ..ProptestConfig::default()
    }
}

fn mmr_reference(inst: &Inst, lambda: f64, b: usize) -> Vec<usize> {
    let n = inst.n();
    let rel = inst.rel();
    let mut chosen: Vec<usize> = Vec::new();
    while chosen.len() < b.min(n) {
        let gains: Vec<f64> = (0..n)
            .map(|i| {
                if chosen.contains(&i) {
                    f64::NEG_INFINITY
                } else if chosen.is_empty() {
                    rel[i]
                } else {
                    let red = chosen
                        .iter()
                        .map(|j| inst.sim(i, *j))
                        .fold(f64::NEG_INFINITY, f64::max);
                    lambda * rel[i] - (1.0 - lambda) * red
                }
            })
            .collect();
        chosen.push(ranked(&gains)[0]);
    }
    chosen
}

/// Greedy log det by brute force: returns the picks and their log-det gains.
fn dpp_reference(inst: &Inst, theta: f64, b: usize) -> (Vec<usize>, Vec<f64>) {
    let n = inst.n();
    let q: Vec<f64> = inst.rel().iter().map(|r| (theta * r).exp()).collect();
    let l = |i: usize, j: usize| q[i] * q[j] * inst.sim(i, j);
    let det = |set: &[usize]| {
        logdet(
            set.iter()
                .map(|i| set.iter().map(|j| l(*i, *j)).collect())
                .collect(),
        )
    };
    let (mut chosen, mut gains) = (Vec::new(), Vec::new());
    let mut current = 0.0;
    while chosen.len() < b.min(n) {
        let scores: Vec<f64> = (0..n)
            .map(|i| {
                if chosen.contains(&i) {
                    return f64::NEG_INFINITY;
                }
                let mut s = chosen.clone();
                s.push(i);
                det(&s)
            })
            .collect();
        let best = ranked(&scores)[0];
        if scores[best] - current <= 1e-10f64.ln() || scores[best].is_nan() {
            break;
        }
        gains.push(scores[best] - current);
        current = scores[best];
        chosen.push(best);
    }
    (chosen, gains)
}

fn ppr_reference(inst: &Inst, damping: f64, t: f64) -> Vec<f64> {
    let n = inst.n();
    let mut adj = vec![vec![0.0; n]; n];
    for &(a, b) in &inst.links {
        if a != b {
            adj[a][b] = 1.0;
            adj[b][a] = 1.0;
        }
    }
    let p: Vec<Vec<f64>> = adj
        .iter()
        .map(|row| {
            let deg: f64 = row.iter().sum();
            if deg == 0.0 {
                vec![1.0 / n as f64; n]
            } else {
                row.iter().map(|v| v / deg).collect()
            }
        })
        .collect();
    let rel = inst.rel();
    let max = rel.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = rel.iter().map(|r| ((r - max) / t).exp()).collect();
    let sum: f64 = e.iter().sum();
    let tele: Vec<f64> = e.iter().map(|v| v / sum).collect();
    let mut pi = tele.clone();
    loop {
        let next: Vec<f64> = (0..n)
            .map(|j| {
                (1.0 - damping) * tele[j] + damping * (0..n).map(|i| pi[i] * p[i][j]).sum::<f64>()
            })
            .collect();
        let change = pi
            .iter()
            .zip(&next)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        pi = next;
        if change < 1e-9 {
            return pi;
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn cosine_matches_sorting(inst in instances(30), b in 0usize..12) {
        let sel = selector(SelectorKind::Cosine).select(&inst.cands(), b).unwrap();
        let want: Vec<usize> = ranked(&inst.rel()).into_iter().take(b).collect();
        prop_assert_eq!(sel.indices, want);
    }

    /// Fused follows the fusion scores (a few distinct levels, so ties happen), ties by
    /// cosine then index; without fusion scores it is cosine; a wrong length is an error.
    #[test]
    fn fused_matches_sorting(inst in instances(30), b in 0usize..12, seed in any::<u64>()) {
        let mut rng = SplitMix64::new(seed);
        let fused: Vec<f64> = (0..inst.n()).map(|_| rng.below(4) as f64 / 60.0).collect();
        let c = indexer_rerank::Candidates { fused: &fused, ..inst.cands() };
        let sel = selector(SelectorKind::Fused).select(&c, b).unwrap();
        let rel = inst.rel();
        let mut want: Vec<usize> = (0..inst.n()).collect();
        want.sort_by(|&x, &y| {
            fused[y].partial_cmp(&fused[x]).unwrap()
                .then(rel[y].partial_cmp(&rel[x]).unwrap())
                .then(x.cmp(&y))
        });
        want.truncate(b);
        prop_assert_eq!(&sel.indices, &want);
        let scores: Vec<f64> = want.iter().map(|i| fused[*i]).collect();
        prop_assert_eq!(sel.scores, scores);
        let plain = selector(SelectorKind::Fused).select(&inst.cands(), b).unwrap();
        let cosine = selector(SelectorKind::Cosine).select(&inst.cands(), b).unwrap();
        prop_assert_eq!(plain.indices, cosine.indices);
        // One score short (an empty list means none, so it takes two notes to be short).
        if inst.n() > 1 {
            let short = indexer_rerank::Candidates { fused: &fused[1..], ..inst.cands() };
            let is_len_error = matches!(
                selector(SelectorKind::Fused).select(&short, b),
                Err(indexer_rerank::Error::FusedLen { .. })
            );
            prop_assert!(is_len_error);
        }
    }

    #[test]
    fn mmr_matches_reference(inst in instances(30), b in 0usize..12, lambda in 0.0f64..=1.0) {
        let sel = Mmr { options: MmrOptions { lambda } }.select(&inst.cands(), b).unwrap();
        prop_assert_eq!(sel.indices, mmr_reference(&inst, lambda, b));
    }

    #[test]
    fn dpp_matches_brute_force_greedy(inst in instances(16), b in 0usize..8) {
        let sel = Dpp::default().select(&inst.cands(), b).unwrap();
        let (want, gains) = dpp_reference(&inst, 1.0, b);
        // Near-singular picks are where rounding decides; compare while gains are clear.
        let clear = gains.iter().take_while(|g| **g > -10.0).count();
        prop_assert_eq!(&sel.indices[..clear.min(sel.indices.len())], &want[..clear.min(sel.indices.len())]);
        for (got, want) in sel.scores.iter().zip(&gains).take(clear) {
            prop_assert!((got - want).abs() < 1e-6, "gain {got} vs {want}");
        }
    }

    #[test]
    fn ppr_matches_dense_power_iteration(inst in instances(30), b in 0usize..12) {
        let sel = Ppr::default().select(&inst.cands(), b).unwrap();
        let pi = ppr_reference(&inst, 0.85, 0.1);
        for (i, s) in sel.indices.iter().zip(&sel.scores) {
            prop_assert!((pi[*i] - s).abs() < 1e-8);
        }
        let want: Vec<usize> = ranked(&pi).into_iter().take(b).collect();
        prop_assert_eq!(sel.indices, want);
    }

    #[test]
    fn random_is_seeded_by_md5_of_the_query(inst in instances(30), b in 0usize..12) {
        let c = inst.cands();
        let sel = selector(SelectorKind::Random).select(&c, b).unwrap();
        let n = inst.n();
        let mut rng = SplitMix64::new(seed_from_text(c.query_text));
        let mut order: Vec<usize> = (0..n).collect();
        for i in 0..b.min(n) {
            let j = i + rng.below((n - i) as u64) as usize;
            order.swap(i, j);
        }
        order.truncate(b.min(n));
        prop_assert_eq!(&sel.indices, &order);
        let mut sorted = sel.indices.clone();
        sorted.sort();
        sorted.dedup();
        prop_assert_eq!(sorted.len(), b.min(n));
    }
}

#[test]
fn md5_seed_is_the_digest_prefix() {
    // md5("") = d41d8cd98f00b204e9800998ecf8427e.
    assert_eq!(
        seed_from_text(""),
        u64::from_le_bytes([0xd4, 0x1d, 0x8c, 0xd9, 0x8f, 0x00, 0xb2, 0x04])
    );
}
