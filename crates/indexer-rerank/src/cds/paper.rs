//! The paper's replicator dynamics, made fast without changing them.
//!
//! A step needs W x once. Two ways to get it, chosen by cost per step: the low-rank form
//! beta((1'x) 1 - Z (Z' x)) costs 2 N d multiply-adds; the N x N matrix D = 11' - Z Z' (zero
//! diagonal, symmetric, so only its strict upper triangle is stored and read) built once costs
//! N^2 multiply-adds per step over N^2 / 2 loads, after N^2 d / 2 to build. With thousands of steps the
//! build is paid back at once, so D is used whenever N < 2 d and it fits in 64 MiB. Products
//! are in f32 (twice the vector width of f64, half the memory traffic); the weights, payoffs
//! and the objective stay in f64. The f32 rounding moves a payoff by about 1e-7 beta, which
//! changes the step by about 1e-7 / c, three orders of magnitude below the paper's tolerance.

use super::problem::{CdsProblem, dot};
use crate::kernels;

const GRAM_MAX_BYTES: usize = 64 << 20;

fn use_gram(p: &CdsProblem<'_>) -> bool {
    let n = p.n;
    n < 2 * p.c.dim && n * n * 4 <= GRAM_MAX_BYTES
}

pub(super) fn operator_name(p: &CdsProblem<'_>) -> &'static str {
    if use_gram(p) { "gram" } else { "low-rank" }
}

enum Operator {
    /// The strict upper triangle of D = 11' - Z Z' (D has a zero diagonal), row-major, rows
    /// padded with zeros to `stride` and to a multiple of 4 rows.
    Gram {
        d: Vec<f32>,
        stride: usize,
    },
    LowRank {
        u: Vec<f32>,
    },
}

/// Rows padded to a multiple of 16 floats (one AVX-512 vector), so the product has no tails.
fn stride(n: usize) -> usize {
    n.div_ceil(16) * 16
}

fn build_gram(p: &CdsProblem<'_>) -> Vec<f32> {
    let n = p.n;
    let s = stride(n);
    let mut d = vec![0f32; n.div_ceil(4) * 4 * s];
    for i in 0..n {
        let zi = p.c.note(i);
        for j in i + 1..n {
            // 1 - g_ij in f64, then rounded: near-duplicates keep their small dissimilarity
            // to full relative precision.
            d[i * s + j] = (1.0 - kernels::dot_f64acc(zi, p.c.note(j))) as f32;
        }
    }
    d
}

pub(super) fn run(
    p: &CdsProblem<'_>,
    mut x: Vec<f64>,
    max_iter: usize,
    tol: f64,
    mut observe: impl FnMut(usize, &[f64]),
) -> (Vec<f64>, usize, f64) {
    let n = p.n;
    observe(0, &x);
    if n == 0 {
        return (x, 0, 0.0);
    }
    let mut op = if use_gram(p) {
        Operator::Gram {
            d: build_gram(p),
            stride: stride(n),
        }
    } else {
        Operator::LowRank {
            u: vec![0f32; p.c.dim],
        }
    };
    let beta = p.opts.beta;
    let alpha = p.alpha;
    let c = p.shift();
    // Zero past n: the padded rows of the Gram form read it.
    let mut v32 = vec![0f32; stride(n)];
    let mut y = vec![0f32; stride(n)];
    let mut pay = vec![0f64; n + 1];
    let mut steps = 0;
    let mut last_step = f64::INFINITY;
    while steps < max_iter {
        for (dst, src) in v32.iter_mut().zip(&x[1..]) {
            *dst = *src as f32;
        }
        let x0 = x[0];
        match &mut op {
            Operator::Gram { d, stride } => {
                kernels::upper_symv32(d, *stride, &v32, &mut y);
                for i in 0..n {
                    pay[i + 1] = p.s[i] * x0 + beta * y[i] as f64 - alpha * x[i + 1];
                }
            }
            Operator::LowRank { u } => {
                kernels::lowrank32(p.c.notes, p.c.dim, &v32[..n], u, &mut y[..n]);
                let total: f64 = x[1..].iter().sum();
                for i in 0..n {
                    let w = beta * (total - y[i] as f64 - (1.0 - p.sq_norms[i]) * x[i + 1]);
                    pay[i + 1] = p.s[i] * x0 + w - alpha * x[i + 1];
                }
            }
        }
        pay[0] = dot(&p.s, &x[1..]);
        let f = dot(&x, &pay);
        let inv = 1.0 / (f + c);
        let mut sum = 0.0;
        let mut step = 0.0;
        for (xi, pi) in x.iter_mut().zip(&pay) {
            let new = *xi * ((pi + c) * inv);
            step += (new - *xi).abs();
            *xi = new;
            sum += new;
        }
        // The update preserves the sum exactly in exact arithmetic; renormalising removes the
        // f64 drift over thousands of steps.
        let inv_sum = 1.0 / sum;
        x.iter_mut().for_each(|v| *v *= inv_sum);
        steps += 1;
        last_step = step;
        observe(steps, &x);
        if step < tol {
            break;
        }
    }
    (x, steps, last_step)
}
