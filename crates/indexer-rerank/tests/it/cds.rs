use indexer_rerank::{CdsOptions, CdsProblem, CdsSelector, Prior, Selector};
use proptest::prelude::*;

use crate::reference::{Inst, dense_m, instances, kkt, quad};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 32,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// The replicator dynamics stay on the simplex and never decrease x'Mx (measured with a
    /// dense f64 M), from every prior.
    #[test]
    fn replicator_simplex_and_monotone(inst in instances(20), prior_kind in 0usize..3) {
        let prior = [Prior::Uniform, Prior::QuerySoftmax { t: 0.2 }, Prior::Ppr { damping: 0.85, temperature: 0.1 }][prior_kind];
        let opts = CdsOptions::builder().prior(prior).build().unwrap();
        let c = inst.cands();
        let p = CdsProblem::new(&c, &opts).unwrap();
        let m = dense_m(&inst, p.query_edges(), 1.0, p.alpha());
        let mut last = f64::NEG_INFINITY;
        let mut worst: Option<String> = None;
        p.replicator(p.initial(prior), 400, 0.0, |step, x| {
            let sum: f64 = x.iter().sum();
            if (sum - 1.0).abs() > 1e-12 || x.iter().any(|v| *v < 0.0) {
                worst.get_or_insert(format!("off the simplex at step {step}: sum {sum}"));
            }
            let f = quad(&m, x);
            if f < last - 1e-12 * (1.0 + f.abs()) {
                worst.get_or_insert(format!("objective fell at step {step}: {last} -> {f}"));
            }
            last = f;
        });
        prop_assert!(worst.is_none(), "{}", worst.unwrap());
    }

    /// The exact solver reaches a KKT point (dense check), keeps the query in the support and
    /// scores at least what the replicator dynamics reach when run to convergence.
    #[test]
    fn exact_is_kkt_and_not_worse(inst in instances(14)) {
        let c = inst.cands();
        let opts = CdsOptions::default();
        let p = CdsProblem::new(&c, &opts).unwrap();
        let m = dense_m(&inst, p.query_edges(), 1.0, p.alpha());
        let exact = p.solve_exact();
        let r = kkt(&m, &exact.x);
        prop_assert!(r < 1e-8, "dense KKT residual {r}, diagnostics {:?}", exact.diagnostics);
        prop_assert!(exact.diagnostics.converged);
        if p.query_edges().iter().any(|s| *s > 0.0) {
            prop_assert!(exact.x[0] > 0.0, "query left the support");
        }
        let (x, _, _) = p.replicator(p.initial(Prior::Uniform), 300_000, 1e-11, |_, _| {});
        prop_assert!(x[0] > 0.0);
        let (fe, fr) = (quad(&m, &exact.x), quad(&m, &x));
        prop_assert!(fe >= fr - 1e-9, "exact {fe} < replicator {fr}");
    }

    /// The paper selector's diagnostics agree with a dense recomputation, and the evidence is
    /// the support ranked by weight.
    #[test]
    fn paper_diagnostics_are_honest(inst in instances(20)) {
        let c = inst.cands();
        let sel = CdsSelector::paper(CdsOptions::default()).unwrap();
        let (selection, sol) = sel.solve(&c, 5).unwrap();
        let d = sol.diagnostics;
        let p = CdsProblem::new(&c, &CdsOptions::default()).unwrap();
        let m = dense_m(&inst, p.query_edges(), 1.0, p.alpha());
        prop_assert!((kkt(&m, &sol.x) - d.kkt_residual).abs() < 1e-9);
        prop_assert!((quad(&m, &sol.x) - d.objective).abs() < 1e-9);
        prop_assert_eq!(d.x_query, sol.x[0]);
        for w in selection.scores.windows(2) {
            prop_assert!(w[0] >= w[1]);
        }
        for (i, s) in selection.indices.iter().zip(&selection.scores) {
            prop_assert_eq!(*s, sol.x[i + 1]);
            prop_assert!(*s > 1e-6);
        }
    }
}

/// alpha = lambda_max(W) + eps: W - alpha I is negative definite but W - (alpha - 2 eps) I is
/// not (checked with the Rayleigh quotient of a dense power iteration).
#[test]
fn alpha_is_the_spectral_bound() {
    let data = indexer_rerank::synth::clustered(40, 16, 3, 0.5, 9);
    let inst = Inst {
        query: data.query,
        notes: data.notes,
        dim: 16,
        links: vec![],
    };
    let c = inst.cands();
    let p = CdsProblem::new(&c, &CdsOptions::default()).unwrap();
    let n = inst.n();
    let w: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| if i == j { 0.0 } else { 1.0 - inst.sim(i, j) })
                .collect()
        })
        .collect();
    // W is non-negative, so power iteration on W + n I converges to the Perron root.
    let mut v = vec![1.0; n];
    let mut lambda = 0.0;
    for _ in 0..5000 {
        let mut y = crate::reference::mul(&w, &v);
        y.iter_mut().zip(&v).for_each(|(a, b)| *a += n as f64 * b);
        let norm = y.iter().map(|a| a * a).sum::<f64>().sqrt();
        v = y.iter().map(|a| a / norm).collect();
        lambda = crate::reference::mul(&w, &v)
            .iter()
            .zip(&v)
            .map(|(a, b)| a * b)
            .sum::<f64>();
    }
    assert!(
        (p.lambda_max() - lambda).abs() < 1e-9 * lambda,
        "{} vs {lambda}",
        p.lambda_max()
    );
    assert!((p.alpha() - lambda - 1e-3).abs() < 1e-9 * lambda);
}

/// The measured fact of DESIGN.md section 7 in small: at the paper's cap the dynamics are far
/// from the equilibrium, which the exact solver reaches.
#[test]
fn paper_stops_before_the_equilibrium() {
    let data = indexer_rerank::synth::clustered(100, 64, 8, 0.5, 3);
    let c = indexer_rerank::Candidates::new(&data.query, &data.notes, 64);
    let paper = CdsSelector::paper(CdsOptions::default())
        .unwrap()
        .select(&c, 10)
        .unwrap();
    let exact = CdsSelector::exact(CdsOptions::default())
        .unwrap()
        .select(&c, 10)
        .unwrap();
    let (dp, de) = (paper.diagnostics.unwrap(), exact.diagnostics.unwrap());
    assert_eq!(dp.iterations, 10_000);
    assert!(!dp.converged && dp.kkt_residual > 1e-3, "{dp:?}");
    assert!(de.converged && de.kkt_residual < 1e-8, "{de:?}");
    assert!(de.objective > dp.objective);
    assert!(de.x_query > dp.x_query);
}
