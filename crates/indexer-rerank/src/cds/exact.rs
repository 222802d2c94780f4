//! The exact solver: the equilibrium of max x'Mx on the simplex by a primal active set.
//!
//! On a face S = {query} + T the stationarity conditions (M x)_i = lambda for i in S and
//! 1'x = 1 are linear. With H = alpha I - W_TT (positive definite, since alpha exceeds
//! lambda_max(W) and hence that of every principal block) they reduce to two solves,
//! a = H^-1 s_T and b = H^-1 1, and a 2 x 2 system:
//! with p = s'a, q = 1'a, r = 1'b and den = (1 + q)^2 - p r,
//! x_0 = (1 + q) / den, lambda = p / den, x_T = x_0 a - lambda b.
//! den > 0 exactly when x'Mx is concave on the face (by the inertia of the bordered system),
//! and H^-1 is entrywise non-negative (a Neumann series of W_TT / alpha >= 0), so x_0 > 0 on
//! every concave face: the query vertex never leaves the support, as the CDS theorem says.
//!
//! The loop starts at the query vertex alone, adds the notes whose payoff beats lambda (in
//! batches that grow with the support), and when a face's solution has negative weights it
//! steps towards it only until the first weight reaches 0 and drops that note (the ratio
//! test), so the objective never decreases on concave faces. H is factorised densely
//! (Cholesky, with the Gram block of the notes that have entered cached) up to
//! `DENSE_MAX` notes, and beyond by conjugate gradients with the low-rank product on the
//! well-conditioned K = H + beta 11' plus a Sherman-Morrison correction: a few steps of
//! O(|T| d), against O(|T|^2 d + |T|^3) for the dense factorisation. Equilibria on clustered
//! vectors often have full support, so this matters.
//! A non-concave face, which needs a small beta or very uneven query edges, falls back to
//! infection-immunization dynamics (Rota Bulo, Pelillo and Bomze 2011), which increase the
//! objective at every step; the active set then restarts from their support.

use super::problem::{CdsProblem, dot, kkt};
use crate::kernels;

const DENSE_MAX: usize = 48;
const NONE: usize = usize::MAX;

pub(super) struct Outcome {
    pub x: Vec<f64>,
    pub iterations: usize,
    pub polish_steps: usize,
}

struct Face {
    x0: f64,
    xt: Vec<f64>,
}

struct GramCache {
    slot_of: Vec<usize>,
    /// `rows[a][b]` = z . z of the notes in slots a and b, for b <= a.
    rows: Vec<Vec<f64>>,
    notes: Vec<usize>,
}

impl GramCache {
    fn new(n: usize) -> Self {
        GramCache {
            slot_of: vec![NONE; n],
            rows: Vec::new(),
            notes: Vec::new(),
        }
    }

    fn ensure(&mut self, p: &CdsProblem<'_>, j: usize) {
        if self.slot_of[j] != NONE {
            return;
        }
        let zj = p.c.note(j);
        let mut row: Vec<f64> = self
            .notes
            .iter()
            .map(|k| kernels::dot_f64acc(zj, p.c.note(*k)))
            .collect();
        row.push(p.sq_norms[j]);
        self.slot_of[j] = self.notes.len();
        self.notes.push(j);
        self.rows.push(row);
    }

    fn get(&self, i: usize, j: usize) -> f64 {
        let (a, b) = (self.slot_of[i], self.slot_of[j]);
        if a >= b {
            self.rows[a][b]
        } else {
            self.rows[b][a]
        }
    }
}

struct Solver<'p, 'a> {
    p: &'p CdsProblem<'a>,
    cache: GramCache,
    /// The position of each note in the face being solved (NONE outside it); kept only when
    /// the note block has a sparse part E, whose entries the face product looks up.
    pos: Vec<usize>,
}

/// A way to apply H^-1 on the current face.
enum HInv {
    /// The Cholesky factor of H.
    Dense(Vec<f64>),
    /// CG on K plus the Sherman-Morrison term: keeps K^-1 1 and 1 - beta 1'K^-1 1.
    Cg { k1: Vec<f64>, denom: f64 },
}

impl Solver<'_, '_> {
    /// The stationary point of the face {query} + t, refined against the exact payoffs.
    ///
    /// The face system J [x; lambda] = [0; 1] is solved through H^-1 (see the module
    /// documentation); then up to three steps of iterative refinement J d = -residual with the
    /// residual from the f64 low-rank payoffs. Refinement is what makes large faces exact: via
    /// Sherman-Morrison, H^-1 amplifies the solver's relative error by 1 / (1 - beta 1'K^-1 1),
    /// about alpha / eps, so a single solve at N = 5,000 leaves a KKT residual near 1e-8.
    fn face(&mut self, t: &[usize]) -> Option<Face> {
        let k = t.len();
        if k == 0 {
            return Some(Face {
                x0: 1.0,
                xt: Vec::new(),
            });
        }
        if !self.p.extra.is_empty() {
            self.pos.iter_mut().for_each(|v| *v = NONE);
            self.pos.resize(self.p.n, NONE);
            for (a, i) in t.iter().enumerate() {
                self.pos[*i] = a;
            }
        }
        let st: Vec<f64> = t.iter().map(|i| self.p.s[*i]).collect();
        let ones = vec![1.0; k];
        let hinv = if k <= DENSE_MAX {
            self.dense_factor(t)?
        } else {
            self.cg_factor(t)?
        };
        let a = self.h_solve(&hinv, t, &st)?;
        let b = self.h_solve(&hinv, t, &ones)?;
        let (pp, q, r) = (dot(&st, &a), a.iter().sum::<f64>(), b.iter().sum::<f64>());
        let den = (1.0 + q) * (1.0 + q) - pp * r;
        if !(den > 1e-12 * (1.0 + q) * (1.0 + q)) {
            return None;
        }
        // Solves J [x0; x_T; lambda] = [f0; f_T; g] given c = H^-1 f_T.
        let solve = |f0: f64, g: f64, c: &[f64]| {
            let (sc, oc) = (dot(&st, c), c.iter().sum::<f64>());
            let x0 = ((1.0 + q) * (g + oc) - r * (f0 + sc)) / den;
            let lambda = (pp * (g + oc) - (1.0 + q) * (f0 + sc)) / den;
            let xt: Vec<f64> = (0..k).map(|m| x0 * a[m] - lambda * b[m] - c[m]).collect();
            (x0, xt, lambda)
        };
        let (mut x0, mut xt, mut lambda) = solve(0.0, 1.0, &vec![0.0; k]);
        if xt.iter().any(|v| *v < -1e-9) {
            // The active set only steps towards this point and drops a note: no need to refine.
            return Some(Face { x0, xt });
        }
        let n = self.p.n;
        let mut full = vec![0.0; n + 1];
        for _ in 0..3 {
            full.iter_mut().for_each(|v| *v = 0.0);
            full[0] = x0;
            for (m, i) in t.iter().enumerate() {
                full[i + 1] = xt[m];
            }
            let pay = self.p.payoff(&full);
            let f0 = lambda - pay[0];
            let ft: Vec<f64> = t.iter().map(|i| lambda - pay[i + 1]).collect();
            let g = 1.0 - x0 - xt.iter().sum::<f64>();
            // Well below the KKT target, which is an L2 norm over up to k + 1 entries.
            let scale = 1e-3 * self.p.opts.kkt_tol / ((k + 1) as f64).sqrt();
            if f0
                .abs()
                .max(g.abs())
                .max(ft.iter().fold(0.0f64, |m, v| m.max(v.abs())))
                <= scale
            {
                break;
            }
            // Newton on the linear face system: J d = -residual = [f0; f_T; g].
            let c = self.h_solve(&hinv, t, &ft)?;
            let (d0, dt, dl) = solve(f0, g, &c);
            x0 += d0;
            lambda += dl;
            xt.iter_mut().zip(&dt).for_each(|(x, d)| *x += d);
        }
        Some(Face { x0, xt })
    }

    fn dense_factor(&mut self, t: &[usize]) -> Option<HInv> {
        for j in t {
            self.cache.ensure(self.p, *j);
        }
        let k = t.len();
        let (alpha, beta) = (self.p.alpha, self.p.opts.beta);
        let mut h = vec![0.0; k * k];
        for a in 0..k {
            for b in 0..a {
                let v = -beta * (1.0 - self.cache.get(t[a], t[b])) - self.p.extra_at(t[a], t[b]);
                h[a * k + b] = v;
                h[b * k + a] = v;
            }
            h[a * k + a] = alpha;
        }
        cholesky(&mut h, k)?;
        Some(HInv::Dense(h))
    }

    /// H = K - beta 11' with K = alpha I + beta Z_T Z_T' + beta diag(1 - g) well conditioned
    /// (eigenvalues in [alpha, alpha + beta lambda_max(Z_T Z_T')]), so CG on K converges in a
    /// few steps and Sherman-Morrison adds the rank-one term. CG on H itself was rejected: its
    /// eigenvalue near eps makes it ill-conditioned (alpha / eps, about 1e5 to 1e6).
    fn cg_factor(&self, t: &[usize]) -> Option<HInv> {
        let k1 = conjugate_gradient(
            &|v: &[f64], out: &mut [f64]| self.k_mul(t, v, out),
            &vec![1.0; t.len()],
        )?;
        let denom = 1.0 - self.p.opts.beta * k1.iter().sum::<f64>();
        if !(denom > 0.0) {
            return None;
        }
        Some(HInv::Cg { k1, denom })
    }

    fn k_mul(&self, t: &[usize], v: &[f64], out: &mut [f64]) {
        let p = self.p;
        let (alpha, beta) = (p.alpha, p.opts.beta);
        let mut u = vec![0.0; p.c.dim];
        for (i, vi) in t.iter().zip(v) {
            kernels::axpy_f32_f64(*vi, p.c.note(*i), &mut u);
        }
        for (a, i) in t.iter().enumerate() {
            let zu = kernels::dot_f32_f64(p.c.note(*i), &u);
            out[a] = alpha * v[a] + beta * (zu + (1.0 - p.sq_norms[*i]) * v[a]);
        }
        if !p.extra.is_empty() {
            // K carries -E_TT (H = alpha I - W_TT): the face's positions of the linked notes.
            for (a, i) in t.iter().enumerate() {
                for (j, e) in &p.extra[*i] {
                    if let Some(b) = self.pos.get(*j).copied().filter(|b| *b != NONE) {
                        out[a] -= e * v[b];
                    }
                }
            }
        }
    }

    fn h_solve(&self, hinv: &HInv, t: &[usize], rhs: &[f64]) -> Option<Vec<f64>> {
        match hinv {
            HInv::Dense(l) => Some(chol_solve(l, t.len(), rhs)),
            HInv::Cg { k1, denom } => {
                let kr =
                    conjugate_gradient(&|v: &[f64], out: &mut [f64]| self.k_mul(t, v, out), rhs)?;
                let c = self.p.opts.beta * kr.iter().sum::<f64>() / denom;
                Some(kr.iter().zip(k1).map(|(x, y)| x + c * y).collect())
            }
        }
    }
}

/// In-place lower Cholesky factor of the `k x k` row-major `h`; `None` if not positive definite.
fn cholesky(h: &mut [f64], k: usize) -> Option<&[f64]> {
    for j in 0..k {
        let mut d = h[j * k + j];
        for m in 0..j {
            d -= h[j * k + m] * h[j * k + m];
        }
        if !(d > 0.0) {
            return None;
        }
        let d = d.sqrt();
        h[j * k + j] = d;
        for i in j + 1..k {
            let mut v = h[i * k + j];
            for m in 0..j {
                v -= h[i * k + m] * h[j * k + m];
            }
            h[i * k + j] = v / d;
        }
    }
    Some(h)
}

fn chol_solve(l: &[f64], k: usize, rhs: &[f64]) -> Vec<f64> {
    let mut y = rhs.to_vec();
    for i in 0..k {
        let mut v = y[i];
        for m in 0..i {
            v -= l[i * k + m] * y[m];
        }
        y[i] = v / l[i * k + i];
    }
    for i in (0..k).rev() {
        let mut v = y[i];
        for m in i + 1..k {
            v -= l[m * k + i] * y[m];
        }
        y[i] = v / l[i * k + i];
    }
    y
}

fn conjugate_gradient(op: &impl Fn(&[f64], &mut [f64]), rhs: &[f64]) -> Option<Vec<f64>> {
    let k = rhs.len();
    let mut x = vec![0.0; k];
    let mut r = rhs.to_vec();
    let mut d = r.clone();
    let mut hd = vec![0.0; k];
    let mut rr = dot(&r, &r);
    let rr0 = rr;
    let stop = 1e-28 * rr0;
    for _ in 0..(10 * k).min(2000) {
        if rr <= stop {
            return Some(x);
        }
        op(&d, &mut hd);
        let dhd = dot(&d, &hd);
        if !(dhd > 0.0) {
            return None;
        }
        let step = rr / dhd;
        x.iter_mut().zip(&d).for_each(|(xi, di)| *xi += step * di);
        r.iter_mut().zip(&hd).for_each(|(ri, hi)| *ri -= step * hi);
        let rr_new = dot(&r, &r);
        let ratio = rr_new / rr;
        d.iter_mut()
            .zip(&r)
            .for_each(|(di, ri)| *di = ri + ratio * *di);
        rr = rr_new;
    }
    if rr <= 1e-20 * rr0 { Some(x) } else { None }
}

pub(super) fn solve(p: &CdsProblem<'_>) -> Outcome {
    let n = p.n;
    let mut x = vec![0.0; n + 1];
    x[0] = 1.0;
    if n == 0 {
        return Outcome {
            x,
            iterations: 0,
            polish_steps: 0,
        };
    }
    let mut solver = Solver {
        p,
        cache: GramCache::new(n),
        pos: Vec::new(),
    };
    let mut iterations = 0;
    let mut polish_steps = 0;
    let mut t: Vec<usize> = Vec::new();
    let tol = p.opts.kkt_tol;
    for attempt in 0..3 {
        // A finished active set is final: its KKT residual is as small as f64 allows. Only a
        // failure (a non-concave face, or the cap) goes to the polishing dynamics.
        if active_set(&mut solver, &mut x, &mut t, &mut iterations).is_ok() || attempt == 2 {
            break;
        }
        // Polish with dynamics that need no face solve, then restart from their support.
        // Capped by work as well as by steps: each step costs O(N d).
        let work_cap = (4e9 / ((n + 1) * p.c.dim) as f64) as usize;
        polish_steps += inimdyn(p, &mut x, (50 * (n + 1)).min(work_cap.max(100)), 0.1 * tol);
        t = (0..n).filter(|i| x[i + 1] > 0.0).collect();
        if p.kkt_residual(&x) < tol {
            break;
        }
    }
    Outcome {
        x,
        iterations: iterations + polish_steps,
        polish_steps,
    }
}

/// The active-set loop from a feasible `x` whose note support is within `t`.
fn active_set(
    solver: &mut Solver<'_, '_>,
    x: &mut [f64],
    t: &mut Vec<usize>,
    iterations: &mut usize,
) -> Result<(), ()> {
    let p = solver.p;
    let n = p.n;
    let cap = 20 * (n + 1) + 100;
    let mut in_t = vec![false; n];
    t.iter().for_each(|i| in_t[*i] = true);
    let mut need_face = !t.is_empty();
    loop {
        if need_face {
            // Solve the face, stepping back by the ratio test while it asks for negative weights.
            loop {
                *iterations += 1;
                if *iterations > cap {
                    return Err(());
                }
                let face = solver.face(t).ok_or(())?;
                if !(face.x0 > 0.0) {
                    return Err(());
                }
                let mut step = 1.0f64;
                let mut blocking = NONE;
                for (a, y) in face.xt.iter().enumerate() {
                    if *y < 0.0 {
                        let xa = x[t[a] + 1];
                        let ta = xa / (xa - y);
                        if ta < step {
                            step = ta;
                            blocking = a;
                        }
                    }
                }
                if blocking == NONE {
                    x[0] = face.x0;
                    for (a, i) in t.iter().enumerate() {
                        x[i + 1] = face.xt[a];
                    }
                    break;
                }
                x[0] += step * (face.x0 - x[0]);
                for (a, i) in t.iter().enumerate() {
                    x[i + 1] += step * (face.xt[a] - x[i + 1]);
                }
                // The blocking note leaves, and so does any other note that this step took to
                // zero on its way to a negative weight; notes that are at zero but asked for a
                // positive weight stay, or a batch of new notes would leave with the first.
                let leaving: Vec<bool> = t
                    .iter()
                    .enumerate()
                    .map(|(a, i)| a == blocking || (face.xt[a] < 0.0 && x[i + 1] <= 0.0))
                    .collect();
                let mut a = 0;
                t.retain(|i| {
                    let keep = !leaving[a];
                    a += 1;
                    if !keep {
                        x[i + 1] = 0.0;
                        in_t[*i] = false;
                    }
                    keep
                });
                x.iter_mut().for_each(|v| *v = v.max(0.0));
                let sum: f64 = x.iter().sum();
                x.iter_mut().for_each(|v| *v /= sum);
            }
        }
        let pay = p.payoff(x);
        let lambda = dot(x, &pay);
        let viol_tol =
            1e-13 * (1.0 + lambda.abs() + p.alpha * x[1..].iter().fold(0.0f64, |m, v| m.max(*v)));
        let mut violators: Vec<(f64, usize)> = (0..n)
            .filter(|i| !in_t[*i] && pay[i + 1] - lambda > viol_tol)
            .map(|i| (pay[i + 1] - lambda, i))
            .collect();
        if violators.is_empty() {
            return Ok(());
        }
        violators.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let batch = violators.len().min(t.len().max(4));
        for (_, i) in &violators[..batch] {
            t.push(*i);
            in_t[*i] = true;
        }
        need_face = true;
    }
}

/// The column M e_i over the N + 1 vertices.
fn column(p: &CdsProblem<'_>, i: usize) -> Vec<f64> {
    let n = p.n;
    let mut col = vec![0.0; n + 1];
    if i == 0 {
        col[1..].copy_from_slice(&p.s);
        return col;
    }
    let k = i - 1;
    col[0] = p.s[k];
    let zk = p.c.note(k);
    for j in 0..n {
        col[j + 1] = if j == k {
            -p.alpha
        } else {
            p.opts.beta * (1.0 - kernels::dot_f64acc(p.c.note(j), zk))
        };
    }
    if let Some(row) = p.extra.get(k) {
        for (j, e) in row {
            col[j + 1] += e;
        }
    }
    col
}

/// Infection-immunization dynamics: at each step the vertex whose payoff departs most from the
/// average either invades (towards e_i) or is cut back (towards its co-strategy), with an exact
/// line search. Returns the steps taken.
fn inimdyn(p: &CdsProblem<'_>, x: &mut [f64], max_steps: usize, tol: f64) -> usize {
    let mut pay = p.payoff(x);
    let mut steps = 0;
    while steps < max_steps {
        if steps % 64 == 63 {
            pay = p.payoff(x);
        }
        if kkt(x, &pay) < tol {
            break;
        }
        let lambda = dot(x, &pay);
        let (mut best, mut best_i, mut infect) = (0.0, NONE, true);
        for (i, pi) in pay.iter().enumerate() {
            let g = pi - lambda;
            if g > best {
                (best, best_i, infect) = (g, i, true);
            } else if -g > best && x[i] > 0.0 && x[i] < 1.0 {
                (best, best_i, infect) = (-g, i, false);
            }
        }
        if best_i == NONE {
            break;
        }
        let col = column(p, best_i);
        let (d, md): (Vec<f64>, Vec<f64>) = if infect {
            let d = (0..x.len())
                .map(|j| if j == best_i { 1.0 } else { 0.0 } - x[j])
                .collect();
            (d, col.iter().zip(&pay).map(|(c, q)| c - q).collect())
        } else {
            let r = x[best_i] / (1.0 - x[best_i]);
            let d = (0..x.len())
                .map(|j| r * (x[j] - if j == best_i { 1.0 } else { 0.0 }))
                .collect();
            (d, col.iter().zip(&pay).map(|(c, q)| r * (q - c)).collect())
        };
        let dmx = dot(&d, &pay);
        let dmd = dot(&d, &md);
        let delta = if dmd < 0.0 {
            (-dmx / dmd).min(1.0)
        } else {
            1.0
        };
        for j in 0..x.len() {
            x[j] = (x[j] + delta * d[j]).max(0.0);
            pay[j] += delta * md[j];
        }
        steps += 1;
    }
    let sum: f64 = x.iter().sum();
    x.iter_mut().for_each(|v| *v /= sum);
    steps
}
