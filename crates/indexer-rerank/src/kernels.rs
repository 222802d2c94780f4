//! The few dense loops everything else is built from, with runtime CPU dispatch.
//!
//! The bodies are plain Rust over fixed-size accumulator arrays, which LLVM turns into vector
//! code; each is compiled three times: for AVX-512, for AVX2 + FMA, and for the baseline target.
//! Runtime dispatch rather than `-C target-cpu=native` because the workspace builds one binary
//! for every machine, and the baseline x86-64 target has neither FMA nor 256-bit vectors, which
//! costs the paper solver about a factor of three. Results differ between levels only in the
//! last bits (fused versus separate multiply-add).

use std::sync::OnceLock;

/// Width of the accumulator arrays: enough independent chains to hide FMA latency.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    Generic,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

pub(crate) fn level() -> Level {
    static LEVEL: OnceLock<Level> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Level::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return Level::Avx2;
            }
        }
        Level::Generic
    })
}

/// The portable dot products: plain loops with eight independent sums (LLVM does not
/// vectorise a float reduction it may not reorder, so the x86 levels use intrinsics instead).
fn dot32_generic(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f32>() + tail
}

fn dot_f32_f64_generic(a: &[f32], b: &[f64]) -> f64 {
    let mut acc = [0f64; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let tail: f64 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| *x as f64 * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] as f64 * y[k];
        }
    }
    acc.iter().sum::<f64>() + tail
}

fn dot_f64acc_generic(a: &[f32], b: &[f32]) -> f64 {
    let mut acc = [0f64; 8];
    let ca = a.chunks_exact(8);
    let cb = b.chunks_exact(8);
    let tail: f64 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| *x as f64 * *y as f64)
        .sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] as f64 * y[k] as f64;
        }
    }
    acc.iter().sum::<f64>() + tail
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx512f")]
    pub(super) fn dot32_avx512(a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut acc = [_mm512_setzero_ps(); 4];
        let mut i = 0;
        // SAFETY: every load reads 16 values at an offset i with i + 16 <= n.
        unsafe {
            while i + 64 <= n {
                for (k, acc) in acc.iter_mut().enumerate() {
                    let o = i + 16 * k;
                    *acc = _mm512_fmadd_ps(
                        _mm512_loadu_ps(pa.add(o)),
                        _mm512_loadu_ps(pb.add(o)),
                        *acc,
                    );
                }
                i += 64;
            }
            while i + 16 <= n {
                acc[0] = _mm512_fmadd_ps(
                    _mm512_loadu_ps(pa.add(i)),
                    _mm512_loadu_ps(pb.add(i)),
                    acc[0],
                );
                i += 16;
            }
        }
        let s = _mm512_add_ps(_mm512_add_ps(acc[0], acc[1]), _mm512_add_ps(acc[2], acc[3]));
        let mut total = _mm512_reduce_add_ps(s);
        for j in i..n {
            total += a[j] * b[j];
        }
        total
    }

    #[target_feature(enable = "avx512f")]
    pub(super) fn dot_f32_f64_avx512(a: &[f32], b: &[f64]) -> f64 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut acc = [_mm512_setzero_pd(); 4];
        let mut i = 0;
        // SAFETY: every load reads 8 values at an offset i with i + 8 <= n.
        unsafe {
            while i + 32 <= n {
                for (k, acc) in acc.iter_mut().enumerate() {
                    let o = i + 8 * k;
                    let x = _mm512_cvtps_pd(_mm256_loadu_ps(pa.add(o)));
                    *acc = _mm512_fmadd_pd(x, _mm512_loadu_pd(pb.add(o)), *acc);
                }
                i += 32;
            }
            while i + 8 <= n {
                let x = _mm512_cvtps_pd(_mm256_loadu_ps(pa.add(i)));
                acc[0] = _mm512_fmadd_pd(x, _mm512_loadu_pd(pb.add(i)), acc[0]);
                i += 8;
            }
        }
        let s = _mm512_add_pd(_mm512_add_pd(acc[0], acc[1]), _mm512_add_pd(acc[2], acc[3]));
        let mut total = _mm512_reduce_add_pd(s);
        for j in i..n {
            total += a[j] as f64 * b[j];
        }
        total
    }

    #[target_feature(enable = "avx512f")]
    pub(super) fn dot_f64acc_avx512(a: &[f32], b: &[f32]) -> f64 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut acc = [_mm512_setzero_pd(); 4];
        let mut i = 0;
        // SAFETY: every load reads 8 values at an offset i with i + 8 <= n.
        unsafe {
            while i + 32 <= n {
                for (k, acc) in acc.iter_mut().enumerate() {
                    let o = i + 8 * k;
                    let x = _mm512_cvtps_pd(_mm256_loadu_ps(pa.add(o)));
                    let y = _mm512_cvtps_pd(_mm256_loadu_ps(pb.add(o)));
                    *acc = _mm512_fmadd_pd(x, y, *acc);
                }
                i += 32;
            }
            while i + 8 <= n {
                let x = _mm512_cvtps_pd(_mm256_loadu_ps(pa.add(i)));
                let y = _mm512_cvtps_pd(_mm256_loadu_ps(pb.add(i)));
                acc[0] = _mm512_fmadd_pd(x, y, acc[0]);
                i += 8;
            }
        }
        let s = _mm512_add_pd(_mm512_add_pd(acc[0], acc[1]), _mm512_add_pd(acc[2], acc[3]));
        let mut total = _mm512_reduce_add_pd(s);
        for j in i..n {
            total += a[j] as f64 * b[j] as f64;
        }
        total
    }

    #[target_feature(enable = "avx2,fma")]
    fn hsum256(v: __m256) -> f32 {
        let lo = _mm256_castps256_ps128(v);
        let hi = _mm256_extractf128_ps::<1>(v);
        let s = _mm_add_ps(lo, hi);
        let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        let s = _mm_add_ss(s, _mm_shuffle_ps::<0b01>(s, s));
        _mm_cvtss_f32(s)
    }

    #[target_feature(enable = "avx2,fma")]
    fn hsum256d(v: __m256d) -> f64 {
        let lo = _mm256_castpd256_pd128(v);
        let hi = _mm256_extractf128_pd::<1>(v);
        let s = _mm_add_pd(lo, hi);
        _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)))
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn dot32_avx2(a: &[f32], b: &[f32]) -> f32 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut acc = [_mm256_setzero_ps(); 4];
        let mut i = 0;
        // SAFETY: every load reads 8 values at an offset i with i + 8 <= n.
        unsafe {
            while i + 32 <= n {
                for (k, acc) in acc.iter_mut().enumerate() {
                    let o = i + 8 * k;
                    *acc = _mm256_fmadd_ps(
                        _mm256_loadu_ps(pa.add(o)),
                        _mm256_loadu_ps(pb.add(o)),
                        *acc,
                    );
                }
                i += 32;
            }
            while i + 8 <= n {
                acc[0] = _mm256_fmadd_ps(
                    _mm256_loadu_ps(pa.add(i)),
                    _mm256_loadu_ps(pb.add(i)),
                    acc[0],
                );
                i += 8;
            }
        }
        let s = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
        let mut total = hsum256(s);
        for j in i..n {
            total += a[j] * b[j];
        }
        total
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn dot_f32_f64_avx2(a: &[f32], b: &[f64]) -> f64 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut acc = [_mm256_setzero_pd(); 4];
        let mut i = 0;
        // SAFETY: every load reads 4 values at an offset i with i + 4 <= n.
        unsafe {
            while i + 16 <= n {
                for (k, acc) in acc.iter_mut().enumerate() {
                    let o = i + 4 * k;
                    let x = _mm256_cvtps_pd(_mm_loadu_ps(pa.add(o)));
                    *acc = _mm256_fmadd_pd(x, _mm256_loadu_pd(pb.add(o)), *acc);
                }
                i += 16;
            }
            while i + 4 <= n {
                let x = _mm256_cvtps_pd(_mm_loadu_ps(pa.add(i)));
                acc[0] = _mm256_fmadd_pd(x, _mm256_loadu_pd(pb.add(i)), acc[0]);
                i += 4;
            }
        }
        let s = _mm256_add_pd(_mm256_add_pd(acc[0], acc[1]), _mm256_add_pd(acc[2], acc[3]));
        let mut total = hsum256d(s);
        for j in i..n {
            total += a[j] as f64 * b[j];
        }
        total
    }

    #[target_feature(enable = "avx2,fma")]
    pub(super) fn dot_f64acc_avx2(a: &[f32], b: &[f32]) -> f64 {
        let n = a.len().min(b.len());
        let (pa, pb) = (a.as_ptr(), b.as_ptr());
        let mut acc = [_mm256_setzero_pd(); 4];
        let mut i = 0;
        // SAFETY: every load reads 4 values at an offset i with i + 4 <= n.
        unsafe {
            while i + 16 <= n {
                for (k, acc) in acc.iter_mut().enumerate() {
                    let o = i + 4 * k;
                    let x = _mm256_cvtps_pd(_mm_loadu_ps(pa.add(o)));
                    let y = _mm256_cvtps_pd(_mm_loadu_ps(pb.add(o)));
                    *acc = _mm256_fmadd_pd(x, y, *acc);
                }
                i += 16;
            }
            while i + 4 <= n {
                let x = _mm256_cvtps_pd(_mm_loadu_ps(pa.add(i)));
                let y = _mm256_cvtps_pd(_mm_loadu_ps(pb.add(i)));
                acc[0] = _mm256_fmadd_pd(x, y, acc[0]);
                i += 4;
            }
        }
        let s = _mm256_add_pd(_mm256_add_pd(acc[0], acc[1]), _mm256_add_pd(acc[2], acc[3]));
        let mut total = hsum256d(s);
        for j in i..n {
            total += a[j] as f64 * b[j] as f64;
        }
        total
    }
}

#[inline(always)]
fn madd32<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

#[inline(always)]
fn madd64<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA { a.mul_add(b, c) } else { a * b + c }
}

#[inline(always)]
fn axpy32_body<const FMA: bool>(alpha: f32, x: &[f32], y: &mut [f32]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi = madd32::<FMA>(alpha, *xi, *yi);
    }
}

#[inline(always)]
fn axpy_f32_f64_body<const FMA: bool>(alpha: f64, x: &[f32], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi = madd64::<FMA>(alpha, *xi as f64, *yi);
    }
}

/// Dot product of two f32 slices, accumulated in f32.
#[inline(always)]
fn dot32_at<const L: u8>(a: &[f32], b: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: L is the dispatched level, chosen only after detecting its features.
        if L == 2 {
            return unsafe { x86::dot32_avx512(a, b) };
        }
        if L == 1 {
            return unsafe { x86::dot32_avx2(a, b) };
        }
    }
    dot32_generic(a, b)
}

/// `u = z' x` then `y = z u` for a row-major `rows x cols` f32 matrix `z` (the low-rank
/// product `Z (Z' x)`), all in f32.
#[inline(always)]
fn lowrank32_body<const L: u8>(z: &[f32], cols: usize, x: &[f32], u: &mut [f32], y: &mut [f32]) {
    u.iter_mut().for_each(|v| *v = 0.0);
    for (row, xi) in z.chunks_exact(cols).zip(x) {
        if *xi != 0.0 {
            if L > 0 {
                axpy32_body::<true>(*xi, row, u)
            } else {
                axpy32_body::<false>(*xi, row, u)
            }
        }
    }
    for (row, yi) in z.chunks_exact(cols).zip(y.iter_mut()) {
        *yi = dot32_at::<L>(row, u);
    }
}

#[inline(always)]
fn axpy_f32_f64_at<const L: u8>(alpha: f64, x: &[f32], y: &mut [f64]) {
    if L > 0 {
        axpy_f32_f64_body::<true>(alpha, x, y)
    } else {
        axpy_f32_f64_body::<false>(alpha, x, y)
    }
}

#[inline(always)]
fn dot_f32_f64_at<const L: u8>(a: &[f32], b: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: as in `dot32_at`.
        if L == 2 {
            return unsafe { x86::dot_f32_f64_avx512(a, b) };
        }
        if L == 1 {
            return unsafe { x86::dot_f32_f64_avx2(a, b) };
        }
    }
    dot_f32_f64_generic(a, b)
}

#[inline(always)]
fn dot_f64acc_at<const L: u8>(a: &[f32], b: &[f32]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: as in `dot32_at`.
        if L == 2 {
            return unsafe { x86::dot_f64acc_avx512(a, b) };
        }
        if L == 1 {
            return unsafe { x86::dot_f64acc_avx2(a, b) };
        }
    }
    dot_f64acc_generic(a, b)
}

/// `Z (Z' x)` in f64 accumulation: `u = Z' x` (length `cols`), `y = Z u`. Rows of `x` that are
/// zero are skipped, so a sparse `x` costs only its support in the first half.
#[inline(always)]
fn lowrank64_body<const L: u8>(z: &[f32], cols: usize, x: &[f64], u: &mut [f64], y: &mut [f64]) {
    u.iter_mut().for_each(|v| *v = 0.0);
    for (row, xi) in z.chunks_exact(cols).zip(x) {
        if *xi != 0.0 {
            axpy_f32_f64_at::<L>(*xi, row, u);
        }
    }
    for (row, yi) in z.chunks_exact(cols).zip(y.iter_mut()) {
        *yi = dot_f32_f64_at::<L>(row, u);
    }
}

/// `y = D x` for a symmetric matrix `D = U + U'` given by its strict upper triangle `U`,
/// stored row-major with row stride `stride` (a multiple of 16): the diagonal, the lower
/// triangle and the padding are zero, and the row count is a multiple of 4 (zero rows pad
/// it). `x` and `y` have length `stride`, `x` zero past the last real row.
///
/// The product is bound by reading `D` from L2 (300 x 300 floats do not fit in L1), so each
/// stored element is read once and used twice: scaled rows add `U' x` into `y` (no horizontal
/// reductions) and the same loads accumulate the row dot products of `U x`, four rows at a
/// time. Rows start at the 16-float block holding their first upper entry; the zeros below the
/// diagonal make the few extra products harmless. Half the traffic of the full-matrix sum of
/// scaled rows it replaced, which measured 1.6x slower at N = 300.
#[inline(always)]
fn upper_symv32_body<const L: u8>(u: &[f32], stride: usize, x: &[f32], y: &mut [f32]) {
    const W: usize = 16;
    let x = &x[..stride];
    let y = &mut y[..stride];
    y.iter_mut().for_each(|v| *v = 0.0);
    for (g, rows) in u.chunks_exact(4 * stride).enumerate() {
        let j = 4 * g;
        let a = [x[j], x[j + 1], x[j + 2], x[j + 3]];
        let (r0, rest) = rows.split_at(stride);
        let (r1, rest) = rest.split_at(stride);
        let (r2, r3) = rest.split_at(stride);
        let mut acc = [[0f32; W]; 4];
        let mut k = (j + 1) / W * W;
        while k < stride {
            let xs: &[f32; W] = x[k..k + W].try_into().expect("block");
            let ys: &mut [f32; W] = (&mut y[k..k + W]).try_into().expect("block");
            let r: [&[f32; W]; 4] = [
                r0[k..k + W].try_into().expect("block"),
                r1[k..k + W].try_into().expect("block"),
                r2[k..k + W].try_into().expect("block"),
                r3[k..k + W].try_into().expect("block"),
            ];
            for l in 0..W {
                let mut v = ys[l];
                for q in 0..4 {
                    if L > 0 {
                        v = a[q].mul_add(r[q][l], v);
                        acc[q][l] = r[q][l].mul_add(xs[l], acc[q][l]);
                    } else {
                        v += a[q] * r[q][l];
                        acc[q][l] += r[q][l] * xs[l];
                    }
                }
                ys[l] = v;
            }
            k += W;
        }
        for (q, lanes) in acc.iter_mut().enumerate() {
            // Pairwise halves: vector adds rather than a chain of sixteen scalar ones.
            let mut w = W / 2;
            while w > 0 {
                for l in 0..w {
                    lanes[l] += lanes[l + w];
                }
                w /= 2;
            }
            y[j + q] += lanes[0];
        }
    }
}

macro_rules! dispatch {
    ($(#[$doc:meta])* $name:ident, $body:ident, ($($arg:ident : $ty:ty),*) $(-> $ret:ty)?) => {
        $(#[$doc])*
        pub(crate) fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx2,fma")]
                fn avx512($($arg: $ty),*) $(-> $ret)? { $body::<2>($($arg),*) }
                #[target_feature(enable = "avx2,fma")]
                fn avx2($($arg: $ty),*) $(-> $ret)? { $body::<1>($($arg),*) }
                match level() {
                    // SAFETY: `level()` returned this level only after detecting its features.
                    Level::Avx512 => return unsafe { avx512($($arg),*) },
                    // SAFETY: as above.
                    Level::Avx2 => return unsafe { avx2($($arg),*) },
                    Level::Generic => {}
                }
            }
            $body::<0>($($arg),*)
        }
    };
}

dispatch!(
    /// Dot product of an f32 and an f64 slice, accumulated in f64.
    dot_f32_f64, dot_f32_f64_at, (a: &[f32], b: &[f64]) -> f64
);
dispatch!(
    /// Dot product of two f32 slices, accumulated in f64.
    dot_f64acc, dot_f64acc_at, (a: &[f32], b: &[f32]) -> f64
);
dispatch!(
    /// `y += alpha x` with f32 `x` and f64 `y`.
    axpy_f32_f64, axpy_f32_f64_at, (alpha: f64, x: &[f32], y: &mut [f64])
);
dispatch!(
    /// `y = D x` for a symmetric, zero-padded f32 matrix with row stride `stride`.
    upper_symv32, upper_symv32_body, (u: &[f32], stride: usize, x: &[f32], y: &mut [f32])
);
dispatch!(
    /// `y = Z (Z' x)` in f32, with `u` as scratch of length `cols`.
    lowrank32, lowrank32_body, (z: &[f32], cols: usize, x: &[f32], u: &mut [f32], y: &mut [f32])
);
dispatch!(
    /// `y = Z (Z' x)` accumulated in f64, with `u` as scratch of length `cols`; zero entries
    /// of `x` are skipped, so a sparse `x` costs only its support in the first half.
    lowrank64, lowrank64_body, (z: &[f32], cols: usize, x: &[f64], u: &mut [f64], y: &mut [f64])
);

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize, seed: u64) -> Vec<f32> {
        let mut r = crate::rng::SplitMix64::new(seed);
        (0..n).map(|_| r.next_f64() as f32 - 0.5).collect()
    }

    #[test]
    fn levels_agree_with_plain_sums() {
        for n in [0, 1, 7, 31, 32, 33, 100, 384, 1000] {
            let a = data(n, 1);
            let b = data(n, 2);
            let exact: f64 = a.iter().zip(&b).map(|(x, y)| *x as f64 * *y as f64).sum();
            assert!((dot32_generic(&a, &b) as f64 - exact).abs() < 1e-5, "n={n}");
            assert!((dot32_at::<0>(&a, &b) as f64 - exact).abs() < 1e-5, "n={n}");
            assert!((dot_f64acc(&a, &b) - exact).abs() < 1e-12, "n={n}");
            assert!((dot_f64acc_generic(&a, &b) - exact).abs() < 1e-12);
            let b64: Vec<f64> = b.iter().map(|v| *v as f64).collect();
            assert!((dot_f32_f64(&a, &b64) - exact).abs() < 1e-12);
            assert!((dot_f32_f64_generic(&a, &b64) - exact).abs() < 1e-12);
            let mut y = b64.clone();
            axpy_f32_f64(2.0, &a, &mut y);
            for i in 0..n {
                assert_eq!(y[i], b64[i] + 2.0 * a[i] as f64);
            }
        }
    }

    #[test]
    fn upper_symv_matches_dense_symmetric_product() {
        for n in [1usize, 4, 15, 16, 17, 33, 100] {
            let stride = n.div_ceil(16) * 16;
            let vals = data(n * n, 5);
            let mut upper = vec![0f32; n.div_ceil(4) * 4 * stride];
            for i in 0..n {
                for j in i + 1..n {
                    upper[i * stride + j] = vals[i * n + j];
                }
            }
            let mut x = data(n, 6);
            x.resize(stride, 0.0);
            let mut y = vec![f32::NAN; stride];
            upper_symv32(&upper, stride, &x, &mut y);
            for i in 0..n {
                let want: f64 = (0..n)
                    .filter(|&j| j != i)
                    .map(|j| vals[i.min(j) * n + i.max(j)] as f64 * x[j] as f64)
                    .sum();
                assert!((y[i] as f64 - want).abs() < 1e-4, "n={n} row {i}");
            }
            assert!(
                y[n..].iter().all(|v| *v == 0.0),
                "padding stays zero, n={n}"
            );
        }
    }

    #[test]
    fn lowrank_matches_dense() {
        let (rows, cols) = (13, 37);
        let z = data(rows * cols, 3);
        let x = data(rows, 4);
        let mut u = vec![0f32; cols];
        let mut y = vec![0f32; rows];
        lowrank32(&z, cols, &x, &mut u, &mut y);
        let x64: Vec<f64> = x.iter().map(|v| *v as f64).collect();
        let mut u64v = vec![0f64; cols];
        let mut y64 = vec![0f64; rows];
        lowrank64(&z, cols, &x64, &mut u64v, &mut y64);
        for i in 0..rows {
            let mut want = 0f64;
            for j in 0..rows {
                let g: f64 = (0..cols)
                    .map(|k| z[i * cols + k] as f64 * z[j * cols + k] as f64)
                    .sum();
                want += g * x64[j];
            }
            assert!((y64[i] - want).abs() < 1e-12);
            assert!((y[i] as f64 - want).abs() < 1e-4);
        }
        // The strict upper triangle, padded to 16 columns and a multiple of 4 rows.
        let stride = rows.div_ceil(16) * 16;
        let mut upper = vec![0f32; rows.div_ceil(4) * 4 * stride];
        for i in 0..rows {
            for j in i + 1..rows {
                upper[i * stride + j] =
                    dot_f64acc(&z[i * cols..][..cols], &z[j * cols..][..cols]) as f32;
            }
        }
        let mut xp = x.clone();
        xp.resize(stride, 0.0);
        let mut yg = vec![0f32; stride];
        upper_symv32(&upper, stride, &xp, &mut yg);
        for i in 0..rows {
            // y minus the diagonal term, which the upper triangle leaves out.
            let gii = dot_f64acc(&z[i * cols..][..cols], &z[i * cols..][..cols]) as f32;
            assert!((yg[i] - (y[i] - gii * x[i])).abs() < 1e-4, "row {i}");
        }
    }
}
