//! The linear-algebra cases: `log_determinant`, the Cholesky log-determinant
//! (`sum(log(diagonal(cholesky_decompose(A))))`), `mdivide_left_spd`, the latent Gaussian
//! process and `multi_normal_cholesky_lpdf` of 100 observations, each beside its plain f64 evaluation with faer's kernels (the fastest f64 code
//! available, so the ratios are not flattered by a slow baseline).

use faer::linalg::solvers::Solve;
use faer::{Mat, Side};
use revad::{linalg, matrix, prob, tape, Matrix, Var, Vector};

use crate::matrix::square;

/// A K×K matrix with a dominant diagonal (well conditioned, not symmetric).
pub fn general(k: usize) -> Matrix {
    let mut a = square(k, 3).to_owned();
    for i in 0..k {
        a[[i, i]] += k as f64;
    }
    a.into_shared()
}

/// A K×K symmetric positive-definite matrix: B·Bᵀ/K + I.
pub fn spd(k: usize) -> Matrix {
    let b = square(k, 5);
    let mut a = b.dot(&b.t()) / k as f64;
    for i in 0..k {
        a[[i, i]] += 1.0;
    }
    a.into_shared()
}

fn to_faer(a: &Matrix) -> Mat<f64> {
    Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[[i, j]])
}

/// log|det A| on f64 (faer's LU with partial pivoting).
pub fn log_determinant_f64(a: &Matrix) -> f64 {
    let lu = to_faer(a).partial_piv_lu();
    let u = lu.U();
    (0..a.nrows()).map(|i| u[(i, i)].abs().ln()).sum()
}

/// log|det A| on f64 with revad's own blocked LU (A as data: no node is recorded), which is
/// faster than faer's high-level LU at these sizes; the table takes the faster of the two.
pub fn log_determinant_data(a: &Matrix) -> f64 {
    let _scope = tape::nested();
    linalg::log_determinant(a).expect("square").value()
}

/// The gradient of log|det A| with A a variable.
pub fn log_determinant_gradient(a: &Matrix) -> (f64, Matrix) {
    let _scope = tape::nested();
    let va = Var::array(a.clone());
    let y = linalg::log_determinant(&va).expect("square, nonsingular");
    y.grad();
    (y.value(), va.adj())
}

/// Σ log Lᵢᵢ of the Cholesky factor on f64 (faer's LLᵀ).
pub fn cholesky_logdet_f64(a: &Matrix) -> f64 {
    let llt = to_faer(a).llt(Side::Lower).expect("positive definite");
    let l = llt.L();
    (0..a.nrows()).map(|i| l[(i, i)].ln()).sum()
}

/// The gradient of Σ log Lᵢᵢ with L = cholesky_decompose(A), A a variable.
pub fn cholesky_logdet_gradient(a: &Matrix) -> (f64, Matrix) {
    let _scope = tape::nested();
    let va = Var::array(a.clone());
    let l = linalg::cholesky_decompose(&va).expect("positive definite");
    let y = matrix::sum(&matrix::log(&matrix::diagonal(&l)));
    y.grad();
    (y.value(), va.adj())
}

/// A⁻¹b on f64 (faer's LLᵀ), summed.
pub fn mdivide_left_spd_f64(a: &Matrix, b: &Vector) -> f64 {
    let llt = to_faer(a).llt(Side::Lower).expect("positive definite");
    let rhs = Mat::from_fn(b.len(), 1, |i, _| b[i]);
    let x = llt.solve(&rhs);
    (0..b.len()).map(|i| x[(i, 0)]).sum()
}

/// The gradient of sum(A⁻¹b) with A and b variables.
pub fn mdivide_left_spd_gradient(a: &Matrix, b: &Vector) -> (f64, Matrix, Vector) {
    let _scope = tape::nested();
    let (va, vb) = (Var::array(a.clone()), Var::array(b.clone()));
    let y = matrix::sum(&linalg::mdivide_left_spd(&va, &vb).expect("SPD"));
    y.grad();
    (y.value(), va.adj(), vb.adj())
}

/// The latent GP's inputs: (log ρ, log α, log σ, f₁ … f_T).
pub fn gp_inputs(t: usize) -> Vec<f64> {
    let mut x = vec![0.2f64.ln(), 1.3f64.ln(), 0.4f64.ln()];
    x.extend((0..t).map(|i| (0.37 * (i + 1) as f64).sin()));
    x
}

/// The latent GP's points tᵢ = 10i/T.
pub fn gp_points(t: usize) -> Vec<f64> {
    (0..t).map(|i| 10.0 * i as f64 / t as f64).collect()
}

const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// The latent GP log density on f64: K = α² exp(−(tᵢ − tⱼ)²/(2ρ²)) + σ²I, L = chol(K),
/// log N(f | 0, LLᵀ) = −½‖L⁻¹f‖² − Σ log Lᵢᵢ − (T/2) log 2π (faer for the factor and solve).
pub fn gp_latent_f64(x: &[f64], ts: &[f64]) -> f64 {
    let (rho, alpha, sigma) = (x[0].exp(), x[1].exp(), x[2].exp());
    let f = &x[3..];
    let t = ts.len();
    let (a2, s2, inv) = (alpha * alpha, sigma * sigma, -0.5 / (rho * rho));
    // The lower triangle only (the factorisation reads no more): T(T+1)/2 exponentials, as
    // revad's kernel computes.
    let k = Mat::from_fn(t, t, |i, j| {
        if j > i {
            return 0.0;
        }
        let d = ts[i] - ts[j];
        a2 * (inv * d * d).exp() + if i == j { s2 } else { 0.0 }
    });
    let llt = k.llt(Side::Lower).expect("positive definite");
    let l = llt.L();
    let mut z = Mat::from_fn(t, 1, |i, _| f[i]);
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(l, z.as_mut(), faer::Par::Seq);
    let zz: f64 = (0..t).map(|i| z[(i, 0)] * z[(i, 0)]).sum();
    let logdiag: f64 = (0..t).map(|i| l[(i, i)].ln()).sum();
    -0.5 * zz - logdiag - t as f64 * HALF_LOG_TWO_PI
}

/// The same density with revad as a Stan model writes it: f ~ multi_normal_cholesky(0,
/// cholesky_decompose(add_diag(gp_exp_quad_cov(t, α, ρ), σ²))); gradient w.r.t. all T + 3
/// inputs.
pub fn gp_latent_var(x: &[Var], ts: &[f64]) -> Var {
    let (rho, alpha, sigma) = (revad::exp(x[0]), revad::exp(x[1]), revad::exp(x[2]));
    let t = ts.len();
    let f = Var::from_vars(&Vector::zeros(t).into_shared(), &x[3..]).expect("T values");
    let k = linalg::gp_exp_quad_cov(ts, alpha, rho).expect("valid parameters");
    let k = linalg::add_diag(&k, sigma * sigma).expect("square");
    let l = linalg::cholesky_decompose(&k).expect("positive definite");
    let zero: Vector = Vector::zeros(t).into_shared();
    prob::multi_normal_cholesky_lpdf(&f, &zero, &l, false).expect("sizes match")
}

/// The observations of the `mvn_cholesky` case: 100 vectors of size K,
/// yᵢₖ = sin(0.37(i + 1)(k + 1)) + 0.1k, one per row.
pub fn mvn_data(k: usize) -> Matrix {
    Matrix::from_shape_fn((100, k), |(i, j)| {
        (0.37 * (i + 1) as f64 * (j + 1) as f64).sin() + 0.1 * j as f64
    })
}

/// The `mvn_cholesky` inputs: μₖ = 0.05k, then L's lower triangle column by column, its
/// diagonal as logs (0.1 cos j on the diagonal, 0.1 sin(i + 2j) below it).
pub fn mvn_inputs(k: usize) -> Vec<f64> {
    let mut x: Vec<f64> = (0..k).map(|i| 0.05 * i as f64).collect();
    for j in 0..k {
        for i in j..k {
            x.push(if i == j {
                0.1 * (j as f64).cos()
            } else {
                0.1 * ((i + 2 * j) as f64).sin()
            });
        }
    }
    x
}

/// Where each of L's elements comes from in [`mvn_inputs`]: `(row, column)` of each input
/// after μ, in order.
fn mvn_lower(k: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..k).flat_map(move |j| (j..k).map(move |i| (i, j)))
}

/// Σᵢ log N(yᵢ | μ, LLᵀ) on f64 (faer's triangular solve of all the residuals at once).
pub fn mvn_cholesky_f64(x: &[f64], ys: &Matrix) -> f64 {
    let (n, k) = ys.dim();
    let mut l = Mat::<f64>::zeros(k, k);
    for ((i, j), &v) in mvn_lower(k).zip(&x[k..]) {
        l[(i, j)] = if i == j { v.exp() } else { v };
    }
    let mut r = Mat::from_fn(k, n, |a, i| ys[[i, a]] - x[a]);
    faer::linalg::triangular_solve::solve_lower_triangular_in_place(
        l.as_ref(),
        r.as_mut(),
        faer::Par::Seq,
    );
    let zz: f64 = r.col_iter().map(|c| c.squared_norm_l2()).sum();
    let logdiag: f64 = (0..k).map(|i| l[(i, i)].ln()).sum();
    -0.5 * zz - n as f64 * logdiag - (n * k) as f64 * HALF_LOG_TWO_PI
}

/// The same with revad, as Stan's benchmark writes it: L a matrix of the inputs (exp on the
/// diagonal, constant zeros above it), then `multi_normal_cholesky_lpdf(ys, μ, L)`.
pub fn mvn_cholesky_var(x: &[Var], ys: &Matrix) -> Var {
    let k = ys.ncols();
    let mu = Var::from_vars(&Vector::zeros(k).into_shared(), &x[..k]).expect("K values");
    let mut entries = vec![Var::new(0.0); k * k];
    for ((i, j), &v) in mvn_lower(k).zip(&x[k..]) {
        entries[i * k + j] = if i == j { revad::exp(v) } else { v };
    }
    let l = Var::from_vars(&Matrix::zeros((k, k)), &entries).expect("K² values");
    prob::multi_normal_cholesky_lpdf(ys, &mu, &l, false).expect("sizes match")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each case's revad and f64 evaluations compute the same value.
    #[test]
    fn the_evaluations_agree() {
        for k in [1, 5, 20] {
            let (x, ys) = (mvn_inputs(k), mvn_data(k));
            let vars: Vec<Var> = x.iter().map(|&v| Var::new(v)).collect();
            let a = mvn_cholesky_var(&vars, &ys).value();
            let b = mvn_cholesky_f64(&x, &ys);
            assert!((a - b).abs() <= 1e-10 * b.abs(), "{a} vs {b}");
        }
        let (x, ts) = (gp_inputs(30), gp_points(30));
        let vars: Vec<Var> = x.iter().map(|&v| Var::new(v)).collect();
        let a = gp_latent_var(&vars, &ts).value();
        let b = gp_latent_f64(&x, &ts);
        assert!((a - b).abs() <= 1e-10 * b.abs(), "{a} vs {b}");
        tape::reset();
    }
}
