//! The densities of correlation and covariance matrices: `lkj_corr_lpdf`,
//! `lkj_corr_cholesky_lpdf`, `lkj_cov_lpdf`, `wishart_lpdf`, `wishart_cholesky_lpdf`,
//! `inv_wishart_lpdf`, `inv_wishart_cholesky_lpdf`, `matrix_normal_prec_lpdf`.
//!
//! Values against closed forms, independent formulas (nalgebra determinants and inverses, the
//! Kronecker form of the matrix normal, the beta-function form of the LKJ constant) and numbers
//! from SciPy and mpmath; gradients by finite differences for every data/variable mix of the
//! operands (every coordinate at small sizes, random directions at K = 1, 2, 5, 30); `propto`
//! against the terms each mix keeps; every validation message.

// Reference values keep the digits mpmath printed.
#![allow(clippy::excessive_precision)]

use std::borrow::Cow;
use std::f64::consts::{LN_2, PI};

use nalgebra::DMatrix;
use ndarray::{array, Array2};
use revad::matrix::{self, Operand};
use revad::prob::{
    inv_wishart_cholesky_lpdf, inv_wishart_lpdf, lkj_corr_cholesky_lpdf, lkj_corr_lpdf,
    lkj_cov_lpdf, lognormal_lpdf, matrix_normal_prec_lpdf, wishart_cholesky_lpdf, wishart_lpdf,
};
use revad::special::gamma::{lgamma, lmgamma};
use revad::testing::{
    assert_close, check_directional, check_gradient, data_matrix, matrix_from, spd_from,
    spd_matrix, test_points, vector_from,
};
use revad::{linalg, tape, Matrix, Result, Var, Vector};

// ---------------------------------------------------------------------------------------------
// Operands that are variables or data, and the mixes.

/// A matrix operand: a variable or data.
enum M {
    V(Var<Matrix>),
    D(Matrix),
}

impl Operand<Matrix> for M {
    fn value(&self) -> Cow<'_, Matrix> {
        match self {
            M::V(v) => Operand::value(v),
            M::D(d) => Operand::value(d),
        }
    }
    fn key(&self) -> Option<u64> {
        match self {
            M::V(v) => Operand::key(v),
            M::D(d) => Operand::key(d),
        }
    }
}

/// A vector operand: a variable or data.
enum Vc {
    V(Var<Vector>),
    D(Vector),
}

impl Operand<Vector> for Vc {
    fn value(&self) -> Cow<'_, Vector> {
        match self {
            Vc::V(v) => Operand::value(v),
            Vc::D(d) => Operand::value(d),
        }
    }
    fn key(&self) -> Option<u64> {
        match self {
            Vc::V(v) => Operand::key(v),
            Vc::D(d) => Operand::key(d),
        }
    }
}

/// Constant variables of the values `x` (to build an operand's data value the way its variable
/// is built).
fn consts(x: &[f64]) -> Vec<Var> {
    x.iter().map(|&v| Var::new(v)).collect()
}

/// A matrix operand from its parameters: `build(vars)` when it is a variable, else the value of
/// `build(params)` as data.
fn mat(vars: Option<&[Var]>, params: &[f64], build: impl Fn(&[Var]) -> Var<Matrix>) -> M {
    match vars {
        Some(v) => M::V(build(v)),
        None => M::D(build(&consts(params)).value().clone()),
    }
}

/// A vector operand from its parameters.
fn vec_operand(vars: Option<&[Var]>, params: &[f64]) -> Vc {
    match vars {
        Some(v) => Vc::V(vector_from(v)),
        None => Vc::D(Vector::from(params.to_vec())),
    }
}

/// The variables of each operand that `mask` makes a variable (bit i: operand i), taking
/// `sizes[i]` of `v` in order; `None` for a data operand.
fn split<const N: usize>(mask: u32, sizes: [usize; N], v: &[Var]) -> [Option<&[Var]>; N] {
    let mut at = 0;
    std::array::from_fn(|i| {
        (mask >> i & 1 == 1).then(|| {
            let s = &v[at..at + sizes[i]];
            at += sizes[i];
            s
        })
    })
}

/// The point of the variables of `mask`: the parameters of its variable operands, in order.
fn point<const N: usize>(mask: u32, params: [&[f64]; N]) -> Vec<f64> {
    (0..N)
        .filter(|i| mask >> i & 1 == 1)
        .flat_map(|i| params[i].iter().copied())
        .collect()
}

/// `$body` with `$x` the scalar operand: its variable when it is one, else the value `$x0`.
macro_rules! real {
    ($vars:expr, $x0:expr, |$x:ident| $body:expr) => {
        match $vars {
            Some(v) => {
                let $x = v[0];
                $body
            }
            None => {
                let $x: f64 = $x0;
                $body
            }
        }
    };
}

/// The density's value, NaN where it refuses the input (so that the finite differences step
/// back from a domain edge).
fn or_nan(r: Result<Var>) -> Var {
    r.unwrap_or_else(|_| Var::new(f64::NAN))
}

/// Checks the gradient of `f(mask, v)` for every mask with a variable: by finite differences
/// of every coordinate (`full`), else along two random directions.
#[track_caller]
fn check_mixes<const N: usize>(params: [&[f64]; N], full: bool, f: impl Fn(u32, &[Var]) -> Var) {
    for mask in 1..(1u32 << N) {
        let x = point(mask, params);
        let g = |v: &[Var]| f(mask, v);
        if full {
            check_gradient(g, &[&x]);
        } else {
            check_directional(g, &x, 2, Default::default());
        }
    }
    tape::reset();
}

/// The value of `f(mask, ·)` at its point, without propto and with it.
fn value_at<const N: usize>(
    params: [&[f64]; N],
    mask: u32,
    f: &impl Fn(u32, &[Var]) -> Var,
) -> f64 {
    let x = point(mask, params);
    let _scope = tape::nested();
    let v = consts(&x);
    f(mask, &v).value()
}

/// Asserts that with `propto` the density of every mix (data only included) is the sum of the
/// terms it keeps: `terms` are (value, operands whose being variables keeps it) pairs, a term
/// kept by no operand (mask 0) being dropped whenever `propto` is; without `propto`, their sum.
#[track_caller]
fn check_propto<const N: usize>(
    params: [&[f64]; N],
    terms: &[(f64, u32)],
    f: impl Fn(u32, bool, &[Var]) -> Var,
) {
    let total: f64 = terms.iter().map(|t| t.0).sum();
    let scale = terms.iter().fold(1.0f64, |m, t| m.max(t.0.abs()));
    for mask in 0..(1u32 << N) {
        let full = value_at(params, mask, &|m, v| f(m, false, v));
        assert!(
            (full - total).abs() <= 1e-12 * scale,
            "mask {mask}: {full} vs {total}"
        );
        let kept: f64 = terms.iter().filter(|t| t.1 & mask != 0).map(|t| t.0).sum();
        let propto = value_at(params, mask, &|m, v| f(m, true, v));
        assert!(
            (propto - kept).abs() <= 1e-12 * scale,
            "mask {mask}, propto: {propto} vs {kept}"
        );
    }
    tape::reset();
}

/// Asserts that `r` failed with the message `expected`.
#[track_caller]
fn fails(r: Result<Var>, expected: &str) {
    match r {
        Ok(v) => panic!("no error (value {}), expected {expected:?}", v.value()),
        Err(e) => assert_eq!(e.to_string(), expected),
    }
}

// ---------------------------------------------------------------------------------------------
// Builders of matrices from variables.

/// The k×k lower-triangular matrix whose lower triangle (row by row) is `v`.
fn lower_from(k: usize, v: &[Var]) -> Var<Matrix> {
    let zero = Var::new(0.0);
    let mut all = Vec::with_capacity(k * k);
    let mut next = 0;
    for i in 0..k {
        for j in 0..k {
            if j <= i {
                all.push(v[next]);
                next += 1;
            } else {
                all.push(zero);
            }
        }
    }
    matrix_from(k, k, &all)
}

/// The correlation matrix of `XXᵀ + kI` (X from `v`, k×k): `D A D` with `D = diag(Aᵢᵢ^(−½))`.
/// Every X gives a valid correlation matrix.
fn corr_from(k: usize, v: &[Var]) -> Var<Matrix> {
    let a = spd_from(k, v);
    let d = matrix::inv_sqrt(&matrix::diagonal(&a));
    matrix::quad_form_diag(&a, &d).unwrap()
}

/// The value of [`corr_from`] at the parameters `x`.
fn corr_matrix(k: usize, x: &[f64]) -> Matrix {
    let _scope = tape::nested();
    corr_from(k, &consts(x)).value().clone()
}

/// The lower triangle, row by row, of the Cholesky factor of the row-major SPD `a`.
fn factor_params(a: &Matrix) -> Vec<f64> {
    let k = a.nrows();
    let l = nalgebra::Cholesky::new(linalg::to_nalgebra(a)).unwrap().l();
    (0..k)
        .flat_map(|i| (0..=i).map(move |j| (i, j)))
        .map(|(i, j)| l[(i, j)])
        .collect()
}

/// The lower-triangular matrix of `factor_params`.
fn lower_matrix(k: usize, p: &[f64]) -> Matrix {
    let _scope = tape::nested();
    lower_from(k, &consts(p)).value().clone()
}

/// log |A| of a row-major matrix (nalgebra's LU).
fn log_det(a: &Matrix) -> f64 {
    linalg::to_nalgebra(a).lu().determinant().ln()
}

/// A⁻¹ (nalgebra's LU).
fn inv(a: &Matrix) -> DMatrix<f64> {
    linalg::to_nalgebra(a).try_inverse().unwrap()
}

/// tr(AB).
fn trace_of(a: &DMatrix<f64>, b: &DMatrix<f64>) -> f64 {
    (a * b).trace()
}

/// `1 + 0.4·test_points`: positive values in (0.2, 1.8).
fn positive_points(n: usize, seed: u64) -> Vec<f64> {
    test_points(n, seed).iter().map(|x| 1.0 + 0.4 * x).collect()
}

// ---------------------------------------------------------------------------------------------
// LKJ.

/// The LKJ log normalising constant in the beta-function form of Lewandowski, Kurowicka and
/// Joe (2009, section 3.2): −Σₖ₌₁ᴷ⁻¹ [(2η − 2 + K − k)(K − k) log 2 + (K − k) log B(bₖ, bₖ)],
/// bₖ = η + (K − k − 1)/2: a formula independent of the one revad (and Stan) evaluates.
fn lkj_constant_beta_form(eta: f64, k: usize) -> f64 {
    let kf = k as f64;
    -(1..k)
        .map(|i| {
            let i = i as f64;
            let b = eta + (kf - i - 1.0) / 2.0;
            let log_beta = 2.0 * lgamma(b) - lgamma(2.0 * b);
            (2.0 * eta - 2.0 + kf - i) * (kf - i) * LN_2 + (kf - i) * log_beta
        })
        .sum::<f64>()
}

#[test]
fn lkj_corr_values() {
    // K = 2: the density of r is Γ(η + ½)/(√π Γ(η)) (1 − r²)^(η−1).
    for eta in [0.3, 1.0, 2.5, 40.0] {
        for r in [0.0, 0.5, -0.9, 0.999] {
            let y = array![[1.0, r], [r, 1.0]].into_shared();
            let v = lkj_corr_lpdf(&y, eta, false).unwrap().value();
            let exact =
                lgamma(eta + 0.5) - 0.5 * PI.ln() - lgamma(eta) + (eta - 1.0) * (1.0 - r * r).ln();
            assert_close(v, exact, 1e-13);
        }
    }
    // K = 3, from mpmath (40 digits): c(η, 3) + (η − 1) log det Ω with the formula of Stan's
    // do_lkj_constant, loggamma and det of the exact decimal entries.
    let y = array![[1.0, 0.3, -0.2], [0.3, 1.0, 0.4], [-0.2, 0.4, 1.0]].into_shared();
    assert_close(
        lkj_corr_lpdf(&y, 0.7, false).unwrap().value(),
        -1.9604564632030440696,
        1e-14,
    );
    assert_close(
        lkj_corr_lpdf(&y, 1.0, false).unwrap().value(),
        -1.5963125911388550389,
        1e-14,
    );
    // The normalising constant (the density at the identity) against the beta-function form,
    // both branches of Stan's (η = 1 and not); mpmath: c(2.5, 30) = 271.07008819296750567,
    // c(1, 30) = 234.99138798661335443, c(0.3, 5) = -6.1754906002041590938.
    for k in [1, 2, 3, 4, 5, 10, 30] {
        let eye: Matrix = Array2::eye(k).into_shared();
        for eta in [0.3, 1.0, 2.5] {
            let v = lkj_corr_lpdf(&eye, eta, false).unwrap().value();
            assert_close(v, lkj_constant_beta_form(eta, k), 1e-12);
        }
    }
    let eye30: Matrix = Array2::eye(30).into_shared();
    assert_close(
        lkj_corr_lpdf(&eye30, 2.5, false).unwrap().value(),
        271.07008819296750567,
        1e-14,
    );
    assert_close(
        lkj_corr_lpdf(&eye30, 1.0, false).unwrap().value(),
        234.99138798661335443,
        1e-14,
    );
    let eye5: Matrix = Array2::eye(5).into_shared();
    assert_close(
        lkj_corr_lpdf(&eye5, 0.3, false).unwrap().value(),
        -6.1754906002041590938,
        1e-14,
    );
    // Larger K against log det by LU.
    for k in [5, 30] {
        let y = corr_matrix(k, &test_points(k * k, 3));
        let v = lkj_corr_lpdf(&y, 1.7, false).unwrap().value();
        assert_close(v, lkj_constant_beta_form(1.7, k) + 0.7 * log_det(&y), 1e-12);
    }
    // K = 0.
    let empty: Matrix = Array2::zeros((0, 0)).into_shared();
    assert_eq!(lkj_corr_lpdf(&empty, 2.0, false).unwrap().value(), 0.0);
}

#[test]
fn lkj_corr_cholesky_values() {
    // The density of Ω = LLᵀ times the Jacobian Πᵢ₌₂ᴷ Lᵢᵢ^(K−i).
    for k in [1, 2, 3, 5, 30] {
        let y = corr_matrix(k, &test_points(k * k, 5));
        let l = lower_matrix(k, &factor_params(&y));
        for eta in [0.5, 1.0, 3.0] {
            let a = lkj_corr_cholesky_lpdf(&l, eta, false).unwrap().value();
            let b = lkj_corr_lpdf(&y, eta, false).unwrap().value();
            let jacobian: f64 = (1..k).map(|i| (k - 1 - i) as f64 * l[[i, i]].ln()).sum();
            assert_close(a, b + jacobian, 1e-12);
        }
    }
}

#[test]
fn lkj_gradients() {
    // Every coordinate at K = 2, 3; η near 0, at 1 (where revad, unlike Stan, keeps c′(1)) and
    // large.
    for k in [2, 3] {
        let x = test_points(k * k, 7);
        for eta in [0.2, 1.0, 4.0] {
            check_mixes([&x, &[eta]], true, |mask, v| {
                let [y, e] = split(mask, [k * k, 1], v);
                let y = mat(y, &x, |v| corr_from(k, v));
                or_nan(real!(e, eta, |e| lkj_corr_lpdf(&y, e, false)))
            });
            let p = factor_params(&spd_matrix(k, 8));
            check_mixes([&p, &[eta]], true, |mask, v| {
                let [l, e] = split(mask, [p.len(), 1], v);
                let l = mat(l, &p, |v| lower_from(k, v));
                or_nan(real!(e, eta, |e| lkj_corr_cholesky_lpdf(&l, e, false)))
            });
        }
    }
    // Random directions up to K = 30.
    for k in [1, 2, 5, 30] {
        let x = test_points(k * k, 9);
        check_mixes([&x, &[1.6]], false, |mask, v| {
            let [y, e] = split(mask, [k * k, 1], v);
            let y = mat(y, &x, |v| corr_from(k, v));
            or_nan(real!(e, 1.6, |e| lkj_corr_lpdf(&y, e, false)))
        });
        let p = factor_params(&spd_matrix(k, 10));
        check_mixes([&p, &[0.8]], false, |mask, v| {
            let [l, e] = split(mask, [p.len(), 1], v);
            let l = mat(l, &p, |v| lower_from(k, v));
            or_nan(real!(e, 0.8, |e| lkj_corr_cholesky_lpdf(&l, e, false)))
        });
    }
}

#[test]
fn lkj_propto() {
    let k = 4;
    let x = test_points(k * k, 11);
    let y = corr_matrix(k, &x);
    let eta = 2.5;
    let c = lkj_constant_beta_form(eta, k);
    let body = (eta - 1.0) * log_det(&y);
    check_propto(
        [&x, &[eta]],
        &[(c, 0b10), (body, 0b11)],
        |mask, propto, v| {
            let [yv, e] = split(mask, [k * k, 1], v);
            let yv = mat(yv, &x, |v| corr_from(k, v));
            real!(e, eta, |e| lkj_corr_lpdf(&yv, e, propto).unwrap())
        },
    );
    // η = 1 as data: the log-determinant term is 0.
    check_propto(
        [&x, &[1.0]],
        &[(lkj_constant_beta_form(1.0, k), 0b10)],
        |mask, propto, v| {
            let [yv, e] = split(mask, [k * k, 1], v);
            let yv = mat(yv, &x, |v| corr_from(k, v));
            real!(e, 1.0, |e| lkj_corr_lpdf(&yv, e, propto).unwrap())
        },
    );
    let p = factor_params(&y);
    let l = lower_matrix(k, &p);
    let body: f64 = (1..k)
        .map(|i| (k as f64 - i as f64 - 1.0 + 2.0 * eta - 2.0) * l[[i, i]].ln())
        .sum();
    check_propto(
        [&p, &[eta]],
        &[(c, 0b10), (body, 0b11)],
        |mask, propto, v| {
            let [lv, e] = split(mask, [p.len(), 1], v);
            let lv = mat(lv, &p, |v| lower_from(k, v));
            real!(e, eta, |e| lkj_corr_cholesky_lpdf(&lv, e, propto).unwrap())
        },
    );
}

#[test]
fn lkj_messages() {
    let good = array![[1.0, 0.5], [0.5, 1.0]].into_shared();
    fails(
        lkj_corr_lpdf(&good, 0.0, false),
        "lkj_corr_lpdf: Shape parameter is 0, but must be positive",
    );
    fails(
        lkj_corr_lpdf(&good, f64::NAN, false),
        "lkj_corr_lpdf: Shape parameter is NaN, but must be positive",
    );
    fails(
        lkj_corr_lpdf(&array![[1.0, 0.5]].into_shared(), 1.0, false),
        "lkj_corr_lpdf: columns of Correlation matrix has size 2, but must have size 1",
    );
    fails(
        lkj_corr_lpdf(&array![[1.0, 0.5], [0.5, 1.5]].into_shared(), 1.0, false),
        "lkj_corr_lpdf: Correlation matrix is not a valid correlation matrix. Correlation \
         matrix(2,2) is 1.5, but should be near 1.0",
    );
    fails(
        lkj_corr_lpdf(&array![[f64::NAN]].into_shared(), 1.0, false),
        "lkj_corr_lpdf: Correlation matrix is not a valid correlation matrix. Correlation \
         matrix(1,1) is NaN, but should be near 1.0",
    );
    fails(
        lkj_corr_lpdf(&array![[1.0, 0.5], [0.3, 1.0]].into_shared(), 1.0, false),
        "lkj_corr_lpdf: Correlation matrix is not symmetric. Correlation matrix[1,2] = 0.5, but \
         Correlation matrix[2,1] = 0.3",
    );
    fails(
        lkj_corr_lpdf(&array![[1.0, 1.5], [1.5, 1.0]].into_shared(), 1.0, false),
        "lkj_corr_lpdf: Correlation matrix is not positive definite.",
    );
    let l = array![[1.0, 0.0], [0.6, 0.8]].into_shared();
    fails(
        lkj_corr_cholesky_lpdf(&l, -1.0, false),
        "lkj_corr_cholesky_lpdf: Shape parameter is -1, but must be positive",
    );
    fails(
        lkj_corr_cholesky_lpdf(&array![[1.0, 0.0]].into_shared(), 1.0, false),
        "lkj_corr_cholesky_lpdf: columns and rows of Cholesky factor is 2, but must be less \
         than or equal to 1",
    );
    fails(
        lkj_corr_cholesky_lpdf(&Array2::<f64>::zeros((0, 0)).into_shared(), 1.0, false),
        "lkj_corr_cholesky_lpdf: columns of Cholesky factor is 0, but must be positive",
    );
    fails(
        lkj_corr_cholesky_lpdf(&array![[1.0], [0.5]].into_shared(), 1.0, false),
        "lkj_corr_cholesky_lpdf: rows of Cholesky factor has size 2, but must have size 1",
    );
    fails(
        lkj_corr_cholesky_lpdf(&array![[1.0, 0.5], [0.6, 0.8]].into_shared(), 1.0, false),
        "lkj_corr_cholesky_lpdf: Random variable is not lower triangular; Random \
         variable[1,2]=0.5",
    );
    fails(
        lkj_corr_cholesky_lpdf(&array![[1.0, 0.0], [0.6, -0.8]].into_shared(), 1.0, false),
        "lkj_corr_cholesky_lpdf: Random variable[2] is -0.8, but must be positive",
    );
}

// ---------------------------------------------------------------------------------------------
// lkj_cov.

/// `lkj_cov_lpdf` computed from its parts: revad's `lognormal_lpdf` of the standard deviations
/// and `lkj_corr_lpdf` of the rescaled matrix.
fn lkj_cov_reference(y: &Matrix, mu: &[f64], sigma: &[f64], eta: f64) -> f64 {
    let k = y.nrows();
    let sds: Vec<f64> = (0..k).map(|i| y[[i, i]].sqrt()).collect();
    let lognormal: f64 = (0..k)
        .map(|i| lognormal_lpdf(sds[i], mu[i], sigma[i], false).unwrap())
        .sum();
    let omega = Array2::from_shape_fn((k, k), |(i, j)| y[[i, j]] / (sds[i] * sds[j])).into_shared();
    lognormal + lkj_corr_lpdf(&omega, eta, false).unwrap().value()
}

#[test]
fn lkj_cov_values() {
    for k in [1, 2, 5, 30] {
        let y = spd_matrix(k, 12);
        let mu = test_points(k, 13);
        let sigma = positive_points(k, 14);
        for eta in [0.5, 1.0, 2.0] {
            // Vectors; with η = 1 a covariance matrix is accepted (Stan refuses it).
            let v = lkj_cov_lpdf(
                &y,
                &Vector::from(mu.clone()),
                &Vector::from(sigma.clone()),
                eta,
                false,
            )
            .unwrap()
            .value();
            assert_close(v, lkj_cov_reference(&y, &mu, &sigma, eta), 1e-12);
            // Scalars, and one of each.
            let (m0, s0) = (mu[0], sigma[0]);
            let v = lkj_cov_lpdf(&y, m0, s0, eta, false).unwrap().value();
            assert_close(
                v,
                lkj_cov_reference(&y, &vec![m0; k], &vec![s0; k], eta),
                1e-12,
            );
            let v = lkj_cov_lpdf(&y, m0, &Vector::from(sigma.clone()), eta, false)
                .unwrap()
                .value();
            assert_close(v, lkj_cov_reference(&y, &vec![m0; k], &sigma, eta), 1e-12);
        }
    }
    let empty: Matrix = Array2::zeros((0, 0)).into_shared();
    assert_eq!(
        lkj_cov_lpdf(&empty, 0.0, 1.0, 2.0, false).unwrap().value(),
        0.0
    );
}

#[test]
fn lkj_cov_gradients() {
    for (k, full) in [(1, true), (2, true), (3, true), (5, false), (30, false)] {
        let x = test_points(k * k, 15);
        let mu = test_points(k, 16);
        let sigma = positive_points(k, 17);
        let eta = if k == 30 { 1.3 } else { 0.6 };
        // Vector μ and σ: 15 mixes.
        check_mixes([&x, &mu, &sigma, &[eta]], full, |mask, v| {
            let [yv, m, s, e] = split(mask, [k * k, k, k, 1], v);
            let yv = mat(yv, &x, |v| spd_from(k, v));
            let (m, s) = (vec_operand(m, &mu), vec_operand(s, &sigma));
            or_nan(real!(e, eta, |e| lkj_cov_lpdf(&yv, &m, &s, e, false)))
        });
        if k <= 5 {
            // Scalar μ and σ: 15 mixes.
            let (m0, s0) = (mu[0], sigma[0]);
            check_mixes([&x, &[m0], &[s0], &[eta]], full, |mask, v| {
                let [yv, m, s, e] = split(mask, [k * k, 1, 1, 1], v);
                let yv = mat(yv, &x, |v| spd_from(k, v));
                or_nan(real!(m, m0, |m| real!(s, s0, |s| real!(e, eta, |e| {
                    lkj_cov_lpdf(&yv, m, s, e, false)
                }))))
            });
        }
    }
}

#[test]
fn lkj_cov_propto() {
    let k = 3;
    let x = test_points(k * k, 18);
    let y = spd_matrix(k, 18);
    let mu = test_points(k, 19);
    let sigma = positive_points(k, 20);
    let eta = 1.8;
    let sds: Vec<f64> = (0..k).map(|i| y[[i, i]].sqrt()).collect();
    let z2: f64 = (0..k)
        .map(|i| ((sds[i].ln() - mu[i]) / sigma[i]).powi(2))
        .sum();
    let omega = Array2::from_shape_fn((k, k), |(i, j)| y[[i, j]] / (sds[i] * sds[j])).into_shared();
    let terms = [
        (-(k as f64) * 0.5 * (2.0 * PI).ln(), 0),
        (-sigma.iter().map(|s| s.ln()).sum::<f64>(), 0b0100),
        (-sds.iter().map(|s| s.ln()).sum::<f64>(), 0b0001),
        (-0.5 * z2, 0b0111),
        (lkj_constant_beta_form(eta, k), 0b1000),
        ((eta - 1.0) * log_det(&omega), 0b1001),
    ];
    check_propto([&x, &mu, &sigma, &[eta]], &terms, |mask, propto, v| {
        let [yv, m, s, e] = split(mask, [k * k, k, k, 1], v);
        let yv = mat(yv, &x, |v| spd_from(k, v));
        let (m, s) = (vec_operand(m, &mu), vec_operand(s, &sigma));
        real!(e, eta, |e| lkj_cov_lpdf(&yv, &m, &s, e, propto).unwrap())
    });
}

#[test]
fn lkj_cov_messages() {
    let y = array![[4.0, 1.0], [1.0, 2.0]].into_shared();
    let v2 = Vector::from(vec![0.0, 1.0]);
    let v3 = Vector::from(vec![0.0, 1.0, 1.0]);
    let f = "lkj_cov_lpdf";
    fails(
        lkj_cov_lpdf(&y, &v2, &v3, 1.0, false),
        &format!("{f}: columns of scale parameter has size 3, but must have size 2"),
    );
    fails(
        lkj_cov_lpdf(&array![[1.0, 0.0]].into_shared(), 0.0, 1.0, 1.0, false),
        &format!("{f}: columns of random variable has size 2, but must have size 1"),
    );
    fails(
        lkj_cov_lpdf(&y, &v3, &v3, 1.0, false),
        &format!("{f}: rows of location parameter has size 3, but must have size 2"),
    );
    fails(
        lkj_cov_lpdf(&y, 0.0, &v3, 1.0, false),
        &format!("{f}: rows of scale parameter has size 3, but must have size 2"),
    );
    fails(
        lkj_cov_lpdf(&y, 0.0, 1.0, -2.0, false),
        &format!("{f}: Shape parameter is -2, but must be positive"),
    );
    fails(
        lkj_cov_lpdf(&y, f64::INFINITY, 1.0, 1.0, false),
        &format!("{f}: Location parameter is inf, but must be finite"),
    );
    fails(
        lkj_cov_lpdf(&y, &Vector::from(vec![0.0, f64::NAN]), &v2, 1.0, false),
        &format!("{f}: Location parameter[2] is NaN, but must be finite"),
    );
    fails(
        lkj_cov_lpdf(&y, 0.0, f64::NAN, 1.0, false),
        &format!("{f}: Scale parameter is NaN, but must be finite"),
    );
    fails(
        lkj_cov_lpdf(
            &array![[1.0, f64::INFINITY], [1.0, 1.0]].into_shared(),
            0.0,
            1.0,
            1.0,
            false,
        ),
        &format!("{f}: Covariance matrix[1,2] is inf, but must be finite"),
    );
    fails(
        lkj_cov_lpdf(
            &array![[-1.0, 0.0], [0.0, 1.0]].into_shared(),
            0.0,
            1.0,
            1.0,
            false,
        ),
        "lognormal_lpdf: Random variable is NaN, but must be nonnegative",
    );
    fails(
        lkj_cov_lpdf(&y, 0.0, &Vector::from(vec![1.0, 0.0]), 1.0, false),
        "lognormal_lpdf: Scale parameter is 0, but must be positive finite",
    );
    fails(
        lkj_cov_lpdf(
            &array![[0.0, 0.0], [0.0, 1.0]].into_shared(),
            0.0,
            1.0,
            1.0,
            false,
        ),
        "lkj_corr_lpdf: Correlation matrix is not a valid correlation matrix. Correlation \
         matrix(1,1) is NaN, but should be near 1.0",
    );
    fails(
        lkj_cov_lpdf(
            &array![[4.0, 1.0], [2.0, 1.0]].into_shared(),
            0.0,
            1.0,
            1.0,
            false,
        ),
        "lkj_corr_lpdf: Correlation matrix is not symmetric. Correlation matrix[1,2] = 0.5, \
         but Correlation matrix[2,1] = 1",
    );
    fails(
        lkj_cov_lpdf(
            &array![[4.0, 3.0], [3.0, 1.0]].into_shared(),
            0.0,
            1.0,
            1.0,
            false,
        ),
        "lkj_corr_lpdf: Correlation matrix is not positive definite.",
    );
}

// ---------------------------------------------------------------------------------------------
// Wishart and inverse Wishart.

/// log Wishart(W | ν, S) from its formula, with nalgebra's determinants and inverse.
fn wishart_reference(w: &Matrix, nu: f64, s: &Matrix) -> f64 {
    let k = w.nrows();
    let kf = k as f64;
    -nu * kf / 2.0 * LN_2 - lmgamma(k as u32, nu / 2.0) - nu / 2.0 * log_det(s)
        + (nu - kf - 1.0) / 2.0 * log_det(w)
        - 0.5 * trace_of(&inv(s), &linalg::to_nalgebra(w))
}

/// log InvWishart(W | ν, S) from its formula.
fn inv_wishart_reference(w: &Matrix, nu: f64, s: &Matrix) -> f64 {
    let k = w.nrows();
    let kf = k as f64;
    -nu * kf / 2.0 * LN_2 - lmgamma(k as u32, nu / 2.0) + nu / 2.0 * log_det(s)
        - (nu + kf + 1.0) / 2.0 * log_det(w)
        - 0.5 * trace_of(&linalg::to_nalgebra(s), &inv(w))
}

/// log of the Jacobian of W = LLᵀ: K log 2 + Σᵢ (K − i + 1) log Lᵢᵢ (indices from 1).
fn cholesky_jacobian(l: &Matrix) -> f64 {
    let k = l.nrows();
    k as f64 * LN_2 + (0..k).map(|i| (k - i) as f64 * l[[i, i]].ln()).sum::<f64>()
}

#[test]
fn wishart_values() {
    // SciPy 1.x: stats.wishart(df=4.5, scale=S).logpdf(W), stats.invwishart(...) with
    // W = spd_matrix(k, 1), S = spd_matrix(k, 2) (XXᵀ + kI of test_points, rebuilt in NumPy).
    for (k, w_ref, iw_ref) in [
        (1, -2.9325779282875923, -2.918594593768374),
        (3, -18.79433051236958, -18.799507981574077),
    ] {
        let (w, s) = (spd_matrix(k, 1), spd_matrix(k, 2));
        assert_close(
            wishart_lpdf(&w, 4.5, &s, false).unwrap().value(),
            w_ref,
            1e-13,
        );
        assert_close(
            inv_wishart_lpdf(&w, 4.5, &s, false).unwrap().value(),
            iw_ref,
            1e-13,
        );
    }
    for k in [1, 2, 5, 30] {
        let (w, s) = (spd_matrix(k, 3), spd_matrix(k, 4));
        for nu in [k as f64 - 0.5, k as f64 + 1.0, 3.0 * k as f64] {
            let v = wishart_lpdf(&w, nu, &s, false).unwrap().value();
            assert_close(v, wishart_reference(&w, nu, &s), 1e-12);
            let v = inv_wishart_lpdf(&w, nu, &s, false).unwrap().value();
            assert_close(v, inv_wishart_reference(&w, nu, &s), 1e-12);
            // The Cholesky forms: the density of W times the Jacobian of W = L_W L_Wᵀ.
            let lw = lower_matrix(k, &factor_params(&w));
            let ls = lower_matrix(k, &factor_params(&s));
            let v = wishart_cholesky_lpdf(&lw, nu, &ls, false).unwrap().value();
            assert_close(
                v,
                wishart_reference(&w, nu, &s) + cholesky_jacobian(&lw),
                1e-12,
            );
            let v = inv_wishart_cholesky_lpdf(&lw, nu, &ls, false)
                .unwrap()
                .value();
            assert_close(
                v,
                inv_wishart_reference(&w, nu, &s) + cholesky_jacobian(&lw),
                1e-12,
            );
        }
    }
    // K = 0: ν > −1 is all that is asked.
    let empty: Matrix = Array2::zeros((0, 0)).into_shared();
    assert_eq!(
        wishart_lpdf(&empty, -0.5, &empty, false).unwrap().value(),
        0.0
    );
    assert_eq!(
        inv_wishart_lpdf(&empty, 0.5, &empty, false)
            .unwrap()
            .value(),
        0.0
    );
}

/// The four Wishart-family densities by name, on (W or L_W, ν, S or L_S) with a propto flag.
type Density = fn(&M, Var, &M, bool) -> Result<Var>;
type DensityF = fn(&M, f64, &M, bool) -> Result<Var>;

/// (name, density with a variable ν, with a data ν, whether the operands are Cholesky factors).
fn wishart_family() -> [(&'static str, Density, DensityF, bool); 4] {
    [
        (
            "wishart",
            |w, n, s, p| wishart_lpdf(w, n, s, p),
            |w, n, s, p| wishart_lpdf(w, n, s, p),
            false,
        ),
        (
            "inv_wishart",
            |w, n, s, p| inv_wishart_lpdf(w, n, s, p),
            |w, n, s, p| inv_wishart_lpdf(w, n, s, p),
            false,
        ),
        (
            "wishart_cholesky",
            |w, n, s, p| wishart_cholesky_lpdf(w, n, s, p),
            |w, n, s, p| wishart_cholesky_lpdf(w, n, s, p),
            true,
        ),
        (
            "inv_wishart_cholesky",
            |w, n, s, p| inv_wishart_cholesky_lpdf(w, n, s, p),
            |w, n, s, p| inv_wishart_cholesky_lpdf(w, n, s, p),
            true,
        ),
    ]
}

#[test]
fn wishart_gradients() {
    for (name, fv, fd, cholesky) in wishart_family() {
        for (k, full) in [(1, true), (2, true), (3, true), (5, false), (30, false)] {
            let (wp, sp, n) = if cholesky {
                let wp = factor_params(&spd_matrix(k, 21));
                let sp = factor_params(&spd_matrix(k, 22));
                let n = wp.len();
                (wp, sp, n)
            } else {
                (test_points(k * k, 21), test_points(k * k, 22), k * k)
            };
            let build = move |v: &[Var]| {
                if cholesky {
                    lower_from(k, v)
                } else {
                    spd_from(k, v)
                }
            };
            // ν close to its bound K − 1, and well above it.
            for nu in [k as f64 - 0.7, 2.0 * k as f64 + 1.0] {
                if !full && nu < k as f64 {
                    continue;
                }
                let _ = name;
                check_mixes([&wp, &[nu], &sp], full, |mask, v| {
                    let [w, nv, s] = split(mask, [n, 1, n], v);
                    let (w, s) = (mat(w, &wp, build), mat(s, &sp, build));
                    or_nan(match nv {
                        Some(nv) => fv(&w, nv[0], &s, false),
                        None => fd(&w, nu, &s, false),
                    })
                });
            }
        }
    }
}

#[test]
fn wishart_propto() {
    let k = 3;
    let kf = k as f64;
    let nu = 5.5;
    let (wp, sp) = (test_points(k * k, 23), test_points(k * k, 24));
    let (w, s) = (spd_matrix(k, 23), spd_matrix(k, 24));
    let (ldw, lds) = (log_det(&w), log_det(&s));
    let tr_w = trace_of(&inv(&s), &linalg::to_nalgebra(&w));
    let tr_iw = trace_of(&linalg::to_nalgebra(&s), &inv(&w));
    let lmg = lmgamma(k as u32, nu / 2.0);
    // Bits: 1 W, 2 ν, 4 S; the groups of Stan's include_summand.
    let wishart_terms = [
        (-nu * kf / 2.0 * LN_2 - lmg, 0b010),
        (-nu / 2.0 * lds, 0b110),
        (-0.5 * tr_w, 0b101),
        ((nu - kf - 1.0) / 2.0 * ldw, 0b011),
    ];
    let inv_wishart_terms = [
        (-lmg, 0b010),
        (nu / 2.0 * lds - nu * kf / 2.0 * LN_2, 0b110),
        (-(nu + kf + 1.0) / 2.0 * ldw, 0b111),
        (-0.5 * tr_iw, 0b101),
    ];
    let (lwp, lsp) = (factor_params(&w), factor_params(&s));
    let (lw, ls) = (lower_matrix(k, &lwp), lower_matrix(k, &lsp));
    let diag = |l: &Matrix, i: usize| l[[i, i]].ln();
    let x_w = linalg::to_nalgebra(&ls).try_inverse().unwrap() * linalg::to_nalgebra(&lw);
    let x_iw = linalg::to_nalgebra(&lw).try_inverse().unwrap() * linalg::to_nalgebra(&ls);
    let chol_terms = [
        (kf * LN_2 * (1.0 - nu / 2.0) - lmg, 0b010),
        (
            -0.5 * x_w.norm_squared() - nu * (0..k).map(|i| diag(&ls, i)).sum::<f64>()
                + (0..k)
                    .map(|i| (nu - i as f64 - 1.0) * diag(&lw, i))
                    .sum::<f64>(),
            0b111,
        ),
    ];
    let inv_chol_terms = [
        (kf * LN_2 * (1.0 - nu / 2.0) - lmg, 0b010),
        (
            -0.5 * x_iw.norm_squared() + nu * (0..k).map(|i| diag(&ls, i)).sum::<f64>()
                - (0..k)
                    .map(|i| (nu + 1.0 + i as f64) * diag(&lw, i))
                    .sum::<f64>(),
            0b111,
        ),
    ];
    let terms: [&[(f64, u32)]; 4] = [
        &wishart_terms,
        &inv_wishart_terms,
        &chol_terms,
        &inv_chol_terms,
    ];
    for ((_, fv, fd, cholesky), terms) in wishart_family().into_iter().zip(terms) {
        let (wq, sq) = if cholesky {
            (lwp.clone(), lsp.clone())
        } else {
            (wp.clone(), sp.clone())
        };
        let n = wq.len();
        let build = move |v: &[Var]| {
            if cholesky {
                lower_from(k, v)
            } else {
                spd_from(k, v)
            }
        };
        check_propto([&wq, &[nu], &sq], terms, |mask, propto, v| {
            let [wv, nv, sv] = split(mask, [n, 1, n], v);
            let (wv, sv) = (mat(wv, &wq, build), mat(sv, &sq, build));
            match nv {
                Some(nv) => fv(&wv, nv[0], &sv, propto),
                None => fd(&wv, nu, &sv, propto),
            }
            .unwrap()
        });
    }
}

#[test]
fn wishart_messages() {
    let w = array![[2.0, 0.5], [0.5, 1.0]].into_shared();
    let s3: Matrix = Array2::eye(3).into_shared();
    let not_sym = array![[2.0, 1.0], [2.0, 1.0]].into_shared();
    let not_pd = array![[1.0, 2.0], [2.0, 1.0]].into_shared();
    let wide = array![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]].into_shared();
    for f in ["wishart_lpdf", "inv_wishart_lpdf"] {
        let call = |w: &Matrix, nu: f64, s: &Matrix| {
            if f == "wishart_lpdf" {
                wishart_lpdf(w, nu, s, false)
            } else {
                inv_wishart_lpdf(w, nu, s, false)
            }
        };
        fails(
            call(&w, 3.0, &s3),
            &format!("{f}: columns of scale parameter has size 3, but must have size 2"),
        );
        fails(
            call(&w, 1.0, &w),
            &format!("{f}: Degrees of freedom parameter is 1, but must be greater than 1"),
        );
        fails(
            call(&w, f64::NAN, &w),
            &format!("{f}: Degrees of freedom parameter is NaN, but must be greater than 1"),
        );
        fails(
            call(&wide, 3.0, &wide),
            &format!("{f}: columns of random variable has size 3, but must have size 2"),
        );
        fails(
            call(&not_sym, 3.0, &w),
            &format!("{f}: random variable is not symmetric. random variable[1,2] = 1, but random variable[2,1] = 2"),
        );
        fails(
            call(&w, 3.0, &not_sym),
            &format!("{f}: scale parameter is not symmetric. scale parameter[1,2] = 1, but scale parameter[2,1] = 2"),
        );
        // Eigen's LDLT of [[1, 2], [2, 1]]: pivot 1, then 1 − 2²/1 = −3.
        fails(
            call(&not_pd, 3.0, &w),
            &format!("{f}: LDLT_Factor of random variable is not positive definite.  last conditional variance is -3."),
        );
        fails(
            call(&w, 3.0, &not_pd),
            &format!("{f}: LDLT_Factor of scale parameter is not positive definite.  last conditional variance is -3."),
        );
    }
    // The pivot is the largest diagonal element: [[1, 2], [2, 4.5]] takes 4.5 first, then
    // 1 − 2²/4.5 = 1/9 > 0 is not the failure; [[1, 3], [3, 4]]: 4, then 1 − 9/4 = −1.25.
    fails(
        wishart_lpdf(&array![[1.0, 3.0], [3.0, 4.0]].into_shared(), 3.0, &w, false),
        "wishart_lpdf: LDLT_Factor of random variable is not positive definite.  last conditional variance is -1.25.",
    );
    // Size before ν in wishart, after the square checks in inv_wishart.
    fails(
        inv_wishart_lpdf(&wide, 0.5, &wide, false),
        "inv_wishart_lpdf: columns of random variable has size 3, but must have size 2",
    );
    let l = array![[1.0, 0.0], [0.5, 1.0]].into_shared();
    let upper = array![[1.0, 0.5], [0.0, 1.0]].into_shared();
    let neg = array![[1.0, 0.0], [0.5, -1.0]].into_shared();
    let f = "wishart_cholesky_lpdf";
    fails(
        wishart_cholesky_lpdf(&l, 3.0, &s3, false),
        &format!("{f}: columns of scale parameter has size 3, but must have size 2"),
    );
    fails(
        wishart_cholesky_lpdf(&l, 0.5, &l, false),
        &format!("{f}: Degrees of freedom parameter is 0.5, but must be greater than 1"),
    );
    fails(
        wishart_cholesky_lpdf(&upper, 3.0, &l, false),
        &format!("{f}: random variable is not lower triangular; random variable[1,2]=0.5"),
    );
    fails(
        wishart_cholesky_lpdf(&l, 3.0, &neg, false),
        &format!("{f}: scale parameter[2] is -1, but must be positive"),
    );
    let tall = array![[1.0], [0.5]].into_shared();
    fails(
        wishart_cholesky_lpdf(&tall, 3.0, &l, false),
        &format!("{f}: rows of Cholesky factor has size 2, but must have size 1"),
    );
    fails(
        wishart_cholesky_lpdf(&wide, 3.0, &wide, false),
        &format!(
            "{f}: columns and rows of Cholesky factor is 3, but must be less than or equal to 2"
        ),
    );
    let empty: Matrix = Array2::zeros((0, 0)).into_shared();
    fails(
        wishart_cholesky_lpdf(&empty, 3.0, &empty, false),
        &format!("{f}: columns of Cholesky factor is 0, but must be positive"),
    );
    let f = "inv_wishart_cholesky_lpdf";
    fails(
        inv_wishart_cholesky_lpdf(&l, 1.0, &l, false),
        &format!("{f}: Degrees of freedom parameter is 1, but must be greater than 1"),
    );
    fails(
        inv_wishart_cholesky_lpdf(&tall, 3.0, &l, false),
        &format!("{f}: columns of Cholesky random variable has size 1, but must have size 2"),
    );
    fails(
        inv_wishart_cholesky_lpdf(&l, 3.0, &tall, false),
        &format!("{f}: columns of Cholesky Scale parameter has size 1, but must have size 2"),
    );
    fails(
        inv_wishart_cholesky_lpdf(&l, 3.0, &s3, false),
        &format!("{f}: side length of scale parameter has size 3, but must have size 2"),
    );
    fails(
        inv_wishart_cholesky_lpdf(&neg, 3.0, &l, false),
        &format!("{f}: Cholesky random variable[2] is -1, but must be positive"),
    );
    fails(
        inv_wishart_cholesky_lpdf(&l, 3.0, &upper, false),
        &format!(
            "{f}: Cholesky Scale matrix is not lower triangular; Cholesky Scale matrix[1,2]=0.5"
        ),
    );
}

// ---------------------------------------------------------------------------------------------
// matrix_normal_prec.

/// The matrix normal log density from its vectorised form: vec(y) ~ N(vec Mu, (D ⊗ Σ)⁻¹)
/// (columns stacked), with the mn×mn precision matrix built and its determinant taken whole.
fn matrix_normal_reference(y: &Matrix, mu: &Matrix, sigma: &Matrix, d: &Matrix) -> f64 {
    let (m, n) = y.dim();
    let (sg, dn) = (linalg::to_nalgebra(sigma), linalg::to_nalgebra(d));
    let prec = dn.kronecker(&sg);
    let e = nalgebra::DVector::from_fn(m * n, |r, _| {
        let (i, j) = (r % m, r / m);
        y[[i, j]] - mu[[i, j]]
    });
    let quad = (e.transpose() * &prec * &e)[(0, 0)];
    -0.5 * (m * n) as f64 * (2.0 * PI).ln() + 0.5 * prec.lu().determinant().ln() - 0.5 * quad
}

#[test]
fn matrix_normal_prec_values() {
    // SciPy: stats.matrix_normal(mean=Mu, rowcov=inv(Σ), colcov=inv(D)).logpdf(y) with
    // y = test_points(6, 1) and Mu = test_points(6, 2) as 2×3, Σ = spd_matrix(2, 3),
    // D = spd_matrix(3, 4). (Stan's formula gives another number when m ≠ n.)
    let y = data_matrix(2, 3, &test_points(6, 1));
    let mu = data_matrix(2, 3, &test_points(6, 2));
    let (sigma, d) = (spd_matrix(2, 3), spd_matrix(3, 4));
    let v = matrix_normal_prec_lpdf(&y, &mu, &sigma, &d, false)
        .unwrap()
        .value();
    assert_close(v, 4.264811139703772, 1e-13);
    for (m, n) in [(1, 1), (1, 4), (3, 2), (5, 6), (12, 7)] {
        let y = data_matrix(m, n, &test_points(m * n, 25));
        let mu = data_matrix(m, n, &test_points(m * n, 26));
        let (sigma, d) = (spd_matrix(m, 27), spd_matrix(n, 28));
        let v = matrix_normal_prec_lpdf(&y, &mu, &sigma, &d, false)
            .unwrap()
            .value();
        assert_close(v, matrix_normal_reference(&y, &mu, &sigma, &d), 1e-12);
    }
}

#[test]
fn matrix_normal_prec_gradients() {
    for (m, n, full) in [
        (1, 1, true),
        (2, 3, true),
        (3, 2, true),
        (1, 2, false),
        (2, 2, false),
        (5, 6, false),
        (30, 31, false),
    ] {
        let (yp, mp) = (test_points(m * n, 29), test_points(m * n, 30));
        let (sp, dp) = (test_points(m * m, 31), test_points(n * n, 32));
        check_mixes([&yp, &mp, &sp, &dp], full, |mask, v| {
            let [yv, mv, sv, dv] = split(mask, [m * n, m * n, m * m, n * n], v);
            let yv = mat(yv, &yp, |v| matrix_from(m, n, v));
            let mv = mat(mv, &mp, |v| matrix_from(m, n, v));
            let sv = mat(sv, &sp, |v| spd_from(m, v));
            let dv = mat(dv, &dp, |v| spd_from(n, v));
            or_nan(matrix_normal_prec_lpdf(&yv, &mv, &sv, &dv, false))
        });
    }
}

#[test]
fn matrix_normal_prec_propto() {
    let (m, n) = (2, 3);
    let (yp, mp) = (test_points(m * n, 33), test_points(m * n, 34));
    let (sp, dp) = (test_points(m * m, 35), test_points(n * n, 36));
    let (y, mu) = (data_matrix(m, n, &yp), data_matrix(m, n, &mp));
    let (sigma, d) = (spd_matrix(m, 35), spd_matrix(n, 36));
    let e = linalg::to_nalgebra(&y) - linalg::to_nalgebra(&mu);
    let quad = (linalg::to_nalgebra(&d) * e.transpose() * linalg::to_nalgebra(&sigma) * &e).trace();
    // Bits: 1 y, 2 Mu, 4 Σ, 8 D.
    let terms = [
        (-((m * n) as f64) * 0.5 * (2.0 * PI).ln(), 0),
        (n as f64 / 2.0 * log_det(&sigma), 0b0100),
        (m as f64 / 2.0 * log_det(&d), 0b1000),
        (-0.5 * quad, 0b1111),
    ];
    check_propto([&yp, &mp, &sp, &dp], &terms, |mask, propto, v| {
        let [yv, mv, sv, dv] = split(mask, [m * n, m * n, m * m, n * n], v);
        let yv = mat(yv, &yp, |v| matrix_from(m, n, v));
        let mv = mat(mv, &mp, |v| matrix_from(m, n, v));
        let sv = mat(sv, &sp, |v| spd_from(m, v));
        let dv = mat(dv, &dp, |v| spd_from(n, v));
        matrix_normal_prec_lpdf(&yv, &mv, &sv, &dv, propto).unwrap()
    });
}

#[test]
fn matrix_normal_prec_messages() {
    let f = "matrix_normal_prec_lpdf";
    let y = data_matrix(2, 3, &test_points(6, 1));
    let sigma = spd_matrix(2, 1);
    let d = spd_matrix(3, 2);
    let empty: Matrix = Array2::zeros((0, 0)).into_shared();
    let call = |y: &Matrix, mu: &Matrix, s: &Matrix, d: &Matrix| {
        matrix_normal_prec_lpdf(y, mu, s, d, false)
    };
    fails(
        call(&y, &y, &empty, &d),
        &format!("{f}: Sigma rows is 0, but must be positive"),
    );
    let mut bad = sigma.to_owned();
    bad[[0, 1]] = f64::INFINITY;
    fails(
        call(&y, &y, &bad.into_shared(), &d),
        &format!("{f}: Sigma[1,2] is inf, but must be finite"),
    );
    fails(
        call(&y, &y, &data_matrix(2, 3, &[1.0; 6]), &d),
        &format!("{f}: columns of Sigma has size 3, but must have size 2"),
    );
    fails(
        call(&y, &y, &array![[2.0, 1.0], [2.0, 1.0]].into_shared(), &d),
        &format!("{f}: Sigma is not symmetric. Sigma[1,2] = 1, but Sigma[2,1] = 2"),
    );
    fails(
        call(&y, &y, &array![[1.0, 2.0], [2.0, 1.0]].into_shared(), &d),
        &format!(
            "{f}: LDLT_Factor of Sigma is not positive definite.  last conditional variance is -3."
        ),
    );
    fails(
        call(&y, &y, &sigma, &empty),
        &format!("{f}: D rows is 0, but must be positive"),
    );
    let mut bad = d.to_owned();
    bad[[2, 2]] = f64::NAN;
    fails(
        call(&y, &y, &sigma, &bad.into_shared()),
        &format!("{f}: D[3,3] is NaN, but must be finite"),
    );
    fails(
        call(
            &y,
            &y,
            &sigma,
            &array![[1.0, 2.0], [2.0, 1.0]].into_shared(),
        ),
        &format!(
            "{f}: LDLT_Factor of D is not positive definite.  last conditional variance is -3."
        ),
    );
    let y3 = data_matrix(3, 3, &test_points(9, 1));
    fails(
        call(&y, &y3, &sigma, &d),
        &format!("{f}: Rows of location parameter has size 3, but must have size 2"),
    );
    let y22 = data_matrix(2, 2, &test_points(4, 1));
    fails(
        call(&y, &y22, &sigma, &d),
        &format!("{f}: Columns of location parameter has size 2, but must have size 3"),
    );
    fails(
        call(&y3, &y3, &sigma, &d),
        &format!("{f}: Rows of Sigma has size 2, but must have size 3"),
    );
    fails(
        call(&y22, &y22, &sigma, &d),
        &format!("{f}: Rows of D has size 3, but must have size 2"),
    );
    let mut bad = y.to_owned();
    bad[[1, 0]] = f64::NAN;
    let bad = bad.into_shared();
    fails(
        call(&y, &bad, &sigma, &d),
        &format!("{f}: Location parameter[2,1] is NaN, but must be finite"),
    );
    fails(
        call(&bad, &y, &sigma, &d),
        &format!("{f}: Random variable[2,1] is NaN, but must be finite"),
    );
}

// ---------------------------------------------------------------------------------------------
// One node per call, nothing recorded for data.

#[test]
fn one_node_per_call_none_for_data() {
    tape::reset();
    let (w, s) = (spd_matrix(3, 1), spd_matrix(3, 2));
    let count = || tape::stats().continuations;
    let _ = wishart_lpdf(&w, 4.0, &s, false).unwrap();
    let _ = lkj_cov_lpdf(&w, 0.0, 1.0, 2.0, false).unwrap();
    let _ = matrix_normal_prec_lpdf(&w, &s, &w, &s, false).unwrap();
    assert_eq!(count(), 0, "data only records nothing");
    let (wv, nu) = (Var::array(w.clone()), Var::new(4.0));
    let before = count();
    let _ = wishart_lpdf(&wv, nu, &wv, false).unwrap();
    let _ = inv_wishart_lpdf(&wv, nu, &s, true).unwrap();
    let _ = lkj_cov_lpdf(&wv, nu, nu, nu, false).unwrap();
    let _ = matrix_normal_prec_lpdf(&wv, &s, &wv, &wv, false).unwrap();
    assert_eq!(count(), before + 4, "one node per call");
    tape::reset();
}
