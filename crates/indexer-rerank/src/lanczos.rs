//! The largest eigenvalue of a symmetric operator by Lanczos with full reorthogonalisation.
//!
//! The operators here (W and A of the CDS problem) are non-negative matrices, so their largest
//! eigenvalue is the Perron root and the all-ones start vector is never orthogonal to its
//! eigenvector. Plain power iteration was rejected: for two antipodal clusters W is bipartite
//! and has -lambda_max as an eigenvalue too, where power iteration does not converge at all.

/// Result of [`largest_eigenvalue`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Eigen {
    pub value: f64,
    pub steps: usize,
}

/// Largest eigenvalue of the `n x n` symmetric operator `op` (`op(v, out)` writes `A v`).
/// Stops when the Ritz value changes by less than `rel_tol` relative, at an invariant subspace,
/// or after `max_steps`.
pub(crate) fn largest_eigenvalue(
    n: usize,
    max_steps: usize,
    rel_tol: f64,
    mut op: impl FnMut(&[f64], &mut [f64]),
) -> Eigen {
    if n == 0 {
        return Eigen {
            value: 0.0,
            steps: 0,
        };
    }
    let max_steps = max_steps.min(n).max(1);
    let mut basis: Vec<Vec<f64>> = Vec::with_capacity(max_steps);
    let mut alphas: Vec<f64> = Vec::new();
    let mut betas: Vec<f64> = Vec::new();
    basis.push(vec![1.0 / (n as f64).sqrt(); n]);
    let mut w = vec![0.0; n];
    let mut theta = f64::NEG_INFINITY;
    let mut steps = 0;
    for k in 0..max_steps {
        steps = k + 1;
        op(&basis[k], &mut w);
        let a = dot(&w, &basis[k]);
        alphas.push(a);
        // Full reorthogonalisation, twice ("twice is enough", Parlett), so the basis stays
        // orthogonal to working precision and no spurious copies of lambda_max appear.
        for _ in 0..2 {
            for v in &basis {
                let c = dot(&w, v);
                w.iter_mut().zip(v).for_each(|(wi, vi)| *wi -= c * vi);
            }
        }
        let b = dot(&w, &w).sqrt();
        let new_theta = tridiagonal_max(&alphas, &betas);
        let scale = new_theta
            .abs()
            .max(alphas.iter().fold(0.0f64, |m, x| m.max(x.abs())));
        let converged = (new_theta - theta).abs() <= rel_tol * scale;
        theta = new_theta;
        if converged || b <= 1e-14 * scale.max(f64::MIN_POSITIVE) || k + 1 == max_steps {
            break;
        }
        betas.push(b);
        basis.push(w.iter().map(|x| x / b).collect());
    }
    Eigen {
        value: theta,
        steps,
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Largest eigenvalue of the symmetric tridiagonal matrix with diagonal `a` and off-diagonal
/// `b` (`b.len() == a.len() - 1`), by bisection on Sturm counts.
fn tridiagonal_max(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len();
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for i in 0..n {
        let r = if i > 0 { b[i - 1].abs() } else { 0.0 } + if i + 1 < n { b[i].abs() } else { 0.0 };
        lo = lo.min(a[i] - r);
        hi = hi.max(a[i] + r);
    }
    // Number of eigenvalues below x (Sturm sequence of the LDL' pivots).
    let count_below = |x: f64| {
        let mut count = 0;
        let mut d = 1.0f64;
        for i in 0..n {
            let off = if i > 0 { b[i - 1] * b[i - 1] } else { 0.0 };
            d = a[i] - x - if i > 0 { off / d } else { 0.0 };
            if d == 0.0 {
                d = -f64::EPSILON * (x.abs() + 1.0);
            }
            if d < 0.0 {
                count += 1;
            }
        }
        count
    };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if count_below(mid) == n {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_symmetric() {
        // Path graph on 6 vertices: eigenvalues 2 cos(k pi / 7), largest 2 cos(pi / 7).
        let n = 6;
        let e = largest_eigenvalue(n, 50, 1e-15, |v, out| {
            for i in 0..n {
                out[i] =
                    if i > 0 { v[i - 1] } else { 0.0 } + if i + 1 < n { v[i + 1] } else { 0.0 };
            }
        });
        assert!(
            (e.value - 2.0 * (std::f64::consts::PI / 7.0).cos()).abs() < 1e-12,
            "{e:?}"
        );
    }

    #[test]
    fn bipartite_with_symmetric_spectrum() {
        // K_{3,3}: eigenvalues 3, 0, -3.
        let n = 6;
        let e = largest_eigenvalue(n, 50, 1e-15, |v, out| {
            let left: f64 = v[..3].iter().sum();
            let right: f64 = v[3..].iter().sum();
            for i in 0..3 {
                out[i] = right;
                out[i + 3] = left;
            }
        });
        assert!((e.value - 3.0).abs() < 1e-12, "{e:?}");
    }
}
