//! The multivariate normal densities: values against the density written out with nalgebra
//! (inverse and determinant), the three parameterisations against each other, gradients
//! against finite differences for every data/variable mix, `propto`, broadcasting of one
//! vector against an array, and Stan's error messages.

use nalgebra::DMatrix;
use ndarray::Array1;
use revad::matrix::Operand;
use revad::prob::{multi_normal_cholesky_lpdf, multi_normal_lpdf, multi_normal_prec_lpdf, Vectors};
use revad::testing::{
    assert_close, check_directional, check_gradient, data_matrix, matrix_from, spd_from,
    spd_matrix, test_points, vector_from, GradCheck,
};
use revad::{linalg, tape, Matrix, Var, Vector};

const LOG_TWO_PI: f64 = 1.837_877_066_409_345_5;

fn vector(x: &[f64]) -> Vector {
    Array1::from(x.to_vec()).into_shared()
}

/// `n` vectors of size `k` from `test_points`.
fn vectors(n: usize, k: usize, seed: u64) -> Vec<Vector> {
    let x = test_points(n * k, seed);
    x.chunks(k.max(1)).take(n).map(vector).collect()
}

/// The lower Cholesky factor of `spd_matrix(k, seed)`.
fn factor(k: usize, seed: u64) -> Matrix {
    linalg::cholesky_decompose(&spd_matrix(k, seed))
        .unwrap()
        .value()
        .clone()
}

/// Σᵢ log N(yᵢ | μᵢ, Σ) from Σ's inverse and determinant (nalgebra), μ broadcast if single.
fn reference(ys: &[Vector], mus: &[Vector], sigma: &Matrix) -> f64 {
    let k = sigma.nrows();
    let s = DMatrix::from_row_slice(k, k, sigma.as_slice().unwrap());
    let inv = s.clone().try_inverse().unwrap();
    let n = ys.len().max(mus.len());
    let mut lp = 0.0;
    for i in 0..n {
        let y = &ys[if ys.len() == 1 { 0 } else { i }];
        let mu = &mus[if mus.len() == 1 { 0 } else { i }];
        let r = nalgebra::DVector::from_iterator(k, y.iter().zip(mu).map(|(a, b)| a - b));
        lp +=
            -0.5 * (k as f64 * LOG_TWO_PI + s.determinant().ln() + (r.transpose() * &inv * &r)[0]);
    }
    lp
}

fn inverse(a: &Matrix) -> Matrix {
    linalg::inverse_spd(a).unwrap().value().clone()
}

#[test]
fn values_match_the_density_written_out() {
    for (k, n) in [(1, 1), (2, 3), (5, 4), (30, 2)] {
        let sigma = spd_matrix(k, 3);
        let l = factor(k, 3);
        let omega = inverse(&sigma);
        let ys = vectors(n, k, 11);
        let mus = vectors(n, k, 12);
        let want = reference(&ys, &mus, &sigma);
        let tol = 1e-12 * want.abs().max(1.0);
        assert_close(
            multi_normal_lpdf(&ys, &mus, &sigma, false).unwrap().value(),
            want,
            tol,
        );
        assert_close(
            multi_normal_cholesky_lpdf(&ys, &mus, &l, false)
                .unwrap()
                .value(),
            want,
            tol,
        );
        assert_close(
            multi_normal_prec_lpdf(&ys, &mus, &omega, false)
                .unwrap()
                .value(),
            want,
            1e-9 * want.abs().max(1.0),
        );
        // One μ broadcast against the array of y, and one y against an array of μ.
        let want = reference(&ys, &mus[..1], &sigma);
        assert_close(
            multi_normal_cholesky_lpdf(&ys, &mus[0], &l, false)
                .unwrap()
                .value(),
            want,
            tol,
        );
        let want = reference(&ys[..1], &mus, &sigma);
        assert_close(
            multi_normal_lpdf(&ys[0], &mus, &sigma, false)
                .unwrap()
                .value(),
            want,
            tol,
        );
        // A matrix with one vector per row is an array of vectors.
        let rows: Vec<f64> = ys.iter().flat_map(|v| v.iter().copied()).collect();
        let ym = data_matrix(n, k, &rows);
        assert_close(
            multi_normal_cholesky_lpdf(&ym, &mus, &l, false)
                .unwrap()
                .value(),
            reference(&ys, &mus, &sigma),
            tol,
        );
    }
    tape::reset();
}

#[test]
fn a_two_dimensional_value_by_hand() {
    // Σ = [[1, 0.5], [0.5, 4.25]] = LLᵀ with L = [[1, 0], [0.5, 2]]; y − μ = (1, 2):
    // z = L⁻¹r = (1, 0.75), log|Σ| = 2 log 2.
    let l = data_matrix(2, 2, &[1.0, 0.0, 0.5, 2.0]);
    let y = vector(&[1.0, 2.0]);
    let mu = vector(&[0.0, 0.0]);
    let want = -LOG_TWO_PI - 2f64.ln() - 0.5 * (1.0 + 0.5625);
    assert_close(
        multi_normal_cholesky_lpdf(&y, &mu, &l, false)
            .unwrap()
            .value(),
        want,
        1e-15,
    );
}

/// The gradient of each density with respect to y, μ and the matrix, all variables, for a
/// few sizes; the matrix is built from free parameters so that it stays symmetric
/// (Σ = XXᵀ + kI) or lower triangular (L with an exp diagonal).
#[test]
fn gradients_match_finite_differences() {
    // (5, 1) and (7, 2): few terms against K, where L's adjoint is summed term by term.
    for (k, n) in [(1, 1), (2, 3), (3, 2), (5, 1), (7, 2)] {
        let split = |v: &[Var]| {
            let (y, rest) = v.split_at(n * k);
            let (mu, m) = rest.split_at(k);
            let ys: Vec<Var<Vector>> = y.chunks(k).map(vector_from).collect();
            (ys, vector_from(mu), m.to_vec())
        };
        let mut x = test_points(n * k + k + k * k, 5);
        x.iter_mut().for_each(|v| *v *= 0.5);
        let points: [&[f64]; 1] = [&x];
        check_gradient(
            |v| {
                let (ys, mu, m) = split(v);
                multi_normal_lpdf(&ys, &mu, &spd_from(k, &m), false).unwrap()
            },
            &points,
        );
        check_gradient(
            |v| {
                let (ys, mu, m) = split(v);
                multi_normal_prec_lpdf(&ys, &mu, &spd_from(k, &m), false).unwrap()
            },
            &points,
        );
        check_gradient(
            |v| {
                let (ys, mu, m) = split(v);
                multi_normal_cholesky_lpdf(&ys, &mu, &lower(k, &m), false).unwrap()
            },
            &points,
        );
        // L itself a variable, its upper triangle included (no gradient there).
        check_gradient(
            |v| {
                let (ys, mu, m) = split(v);
                let mut m = m;
                for j in 0..k {
                    m[j * k + j] = revad::exp(m[j * k + j]);
                }
                multi_normal_cholesky_lpdf(&ys, &mu, &matrix_from(k, k, &m), true).unwrap()
            },
            &points,
        );
    }
}

/// A lower-triangular factor from k² parameters: exp on the diagonal, zeros above it.
fn lower(k: usize, m: &[Var]) -> Var<Matrix> {
    let zero = Var::new(0.0);
    let entries: Vec<Var> = (0..k * k)
        .map(|e| match (e / k, e % k) {
            (i, j) if i == j => revad::exp(m[e]),
            (i, j) if i > j => m[e],
            _ => zero,
        })
        .collect();
    matrix_from(k, k, &entries)
}

/// Density `which` (0 covariance, 1 Cholesky factor, 2 precision) of any operand kinds.
fn density(
    which: usize,
    y: &(impl Vectors + ?Sized),
    mu: &(impl Vectors + ?Sized),
    m: &impl Operand<Matrix>,
) -> Var {
    match which {
        0 => multi_normal_lpdf(y, mu, m, false),
        1 => multi_normal_cholesky_lpdf(y, mu, m, false),
        _ => multi_normal_prec_lpdf(y, mu, m, false),
    }
    .unwrap()
}

/// Every data/variable mix of (y, μ, matrix) for each density, y an array of vectors.
#[test]
fn every_mix_of_data_and_variables() {
    let (k, n) = (3, 4);
    let ys = vectors(n, k, 21);
    let mu = vector(&test_points(k, 22));
    let m = test_points(k * k, 23);
    for which in 0..3 {
        // The matrix from k² parameters: SPD, or lower triangular for the Cholesky form.
        let matrix = |p: &[Var]| {
            if which == 1 {
                lower(k, p)
            } else {
                spd_from(k, p)
            }
        };
        for mask in 1..8u32 {
            let f = |v: &[Var]| {
                let mut at = 0;
                let mut take = |len: usize, var: bool| {
                    let s = &v[at..at + if var { len } else { 0 }];
                    at += s.len();
                    s.to_vec()
                };
                let yv = take(n * k, mask & 1 != 0);
                let muv = take(k, mask & 2 != 0);
                let mv = take(k * k, mask & 4 != 0);
                let y_var: Vec<Var<Vector>> = yv.chunks(k).map(vector_from).collect();
                let mu_var = vector_from(&muv);
                let data: Vec<Var> = m.iter().map(|&x| Var::new(x)).collect();
                let m_data = matrix(&data).value().clone();
                let m_var = matrix(if mv.is_empty() { &data } else { &mv });
                match (mask & 1 != 0, mask & 2 != 0, mask & 4 != 0) {
                    (false, false, false) => density(which, &ys, &mu, &m_data),
                    (true, false, false) => density(which, &y_var, &mu, &m_data),
                    (false, true, false) => density(which, &ys, &mu_var, &m_data),
                    (true, true, false) => density(which, &y_var, &mu_var, &m_data),
                    (false, false, true) => density(which, &ys, &mu, &m_var),
                    (true, false, true) => density(which, &y_var, &mu, &m_var),
                    (false, true, true) => density(which, &ys, &mu_var, &m_var),
                    (true, true, true) => density(which, &y_var, &mu_var, &m_var),
                }
            };
            let mut x = Vec::new();
            if mask & 1 != 0 {
                x.extend(ys.iter().flat_map(|v| v.iter().copied()));
            }
            if mask & 2 != 0 {
                x.extend(mu.iter().copied());
            }
            if mask & 4 != 0 {
                x.extend(&m);
            }
            check_gradient(f, &[&x]);
        }
    }
}

/// The directional check at larger sizes, every operand a variable.
#[test]
fn directional_checks_at_larger_sizes() {
    for (k, n) in [(5, 10), (30, 6), (30, 1), (30, 3)] {
        let mut x = test_points(n * k + k + k * k, 9);
        x.iter_mut().for_each(|v| *v *= 0.3);
        let f = |v: &[Var]| {
            let (y, rest) = v.split_at(n * k);
            let (mu, m) = rest.split_at(k);
            let ys = matrix_from(n, k, y);
            let mu = vector_from(mu);
            multi_normal_cholesky_lpdf(&ys, &mu, &lower(k, m), false).unwrap()
                + multi_normal_lpdf(&ys, &mu, &spd_from(k, m), false).unwrap()
                + multi_normal_prec_lpdf(&ys, &mu, &spd_from(k, m), false).unwrap()
        };
        check_directional(
            f,
            &x,
            3,
            GradCheck {
                rel_tol: 1e-6,
                ..Default::default()
            },
        );
    }
}

#[test]
fn propto_drops_exactly_the_constant_terms() {
    let (k, n) = (3, 5);
    let ys = vectors(n, k, 31);
    let mu = vector(&test_points(k, 32));
    let sigma = spd_matrix(k, 33);
    let l = factor(k, 33);
    let omega = inverse(&sigma);
    let log_det = sigma.nrows() as f64 * 0.0 + linalg::log_determinant_spd(&sigma).unwrap().value();
    let y = Var::array(ys[0].clone());
    let nk = (n * k) as f64;
    // y a variable, the matrix data: the 2π term and the log determinant are dropped.
    let yv: Vec<Var<Vector>> = ys.iter().map(|v| Var::array(v.clone())).collect();
    let full = multi_normal_lpdf(&yv, &mu, &sigma, false).unwrap().value();
    let part = multi_normal_lpdf(&yv, &mu, &sigma, true).unwrap().value();
    assert_close(
        full - part,
        -0.5 * nk * LOG_TWO_PI - 0.5 * n as f64 * log_det,
        1e-12,
    );
    let full = multi_normal_cholesky_lpdf(&yv, &mu, &l, false)
        .unwrap()
        .value();
    let part = multi_normal_cholesky_lpdf(&yv, &mu, &l, true)
        .unwrap()
        .value();
    assert_close(
        full - part,
        -0.5 * nk * LOG_TWO_PI - 0.5 * n as f64 * log_det,
        1e-12,
    );
    let full = multi_normal_prec_lpdf(&yv, &mu, &omega, false)
        .unwrap()
        .value();
    let part = multi_normal_prec_lpdf(&yv, &mu, &omega, true)
        .unwrap()
        .value();
    assert_close(
        full - part,
        -0.5 * nk * LOG_TWO_PI - 0.5 * n as f64 * log_det,
        1e-9,
    );
    // The matrix a variable: only the 2π term is dropped.
    let lv = Var::array(l.clone());
    let full = multi_normal_cholesky_lpdf(&ys, &y, &lv, false)
        .unwrap()
        .value();
    let part = multi_normal_cholesky_lpdf(&ys, &y, &lv, true)
        .unwrap()
        .value();
    assert_close(full - part, -0.5 * nk * LOG_TWO_PI, 1e-12);
    // All data: 0 with propto.
    assert_eq!(
        multi_normal_lpdf(&ys, &mu, &sigma, true).unwrap().value(),
        0.0
    );
    tape::reset();
}

#[test]
fn the_parameterisations_agree_in_gradient() {
    let (k, n) = (4, 3);
    let x = test_points(n * k + k, 41);
    let sigma = spd_matrix(k, 42);
    let l = factor(k, 42);
    let omega = inverse(&sigma);
    let grad = |which: u8| {
        revad::gradient(
            |v: &[Var]| {
                let ys = matrix_from(n, k, &v[..n * k]);
                let mu = vector_from(&v[n * k..]);
                match which {
                    0 => multi_normal_lpdf(&ys, &mu, &sigma, false),
                    1 => multi_normal_cholesky_lpdf(&ys, &mu, &l, false),
                    _ => multi_normal_prec_lpdf(&ys, &mu, &omega, false),
                }
                .unwrap()
            },
            &x,
        )
    };
    let (v0, g0) = grad(0);
    for which in [1, 2] {
        let (v, g) = grad(which);
        assert_close(v, v0, 1e-10);
        for (a, b) in g.iter().zip(&g0) {
            assert_close(*a, *b, 1e-9);
        }
    }
}

#[test]
fn bad_input_gets_stans_messages() {
    let y = vector(&[1.0, 2.0]);
    let mu = vector(&[0.0, 0.0]);
    let s = spd_matrix(2, 1);
    let s3 = spd_matrix(3, 1);
    let e = |r: revad::Result<Var>| r.map(|v| v.value()).expect_err("an error").to_string();
    assert_eq!(
        e(multi_normal_lpdf(&y, &vector(&[0.0]), &s, false)),
        "multi_normal_lpdf: size of location parameter has size 1, but must have size 2"
    );
    assert_eq!(
        e(multi_normal_cholesky_lpdf(&y, &mu, &s3, false)),
        "multi_normal_cholesky_lpdf: rows of covariance parameter has size 3, but must have size 2"
    );
    assert_eq!(
        e(multi_normal_lpdf(
            &y,
            &vector(&[0.0, f64::INFINITY]),
            &s,
            false
        )),
        "multi_normal_lpdf: Location parameter[2] is inf, but must be finite"
    );
    assert_eq!(
        e(multi_normal_prec_lpdf(
            &vector(&[f64::NAN, 0.0]),
            &mu,
            &s,
            false
        )),
        "multi_normal_prec_lpdf: Random variable[1] is NaN, but must not be NaN"
    );
    let asym = data_matrix(2, 2, &[2.0, 1.0, 0.0, 2.0]);
    assert_eq!(
        e(multi_normal_lpdf(&y, &mu, &asym, false)),
        "multi_normal_lpdf: Covariance matrix is not symmetric. Covariance matrix[1,2] = 1, but \
         Covariance matrix[2,1] = 0"
    );
    let indefinite = data_matrix(2, 2, &[1.0, 2.0, 2.0, 1.0]);
    assert_eq!(
        e(multi_normal_lpdf(&y, &mu, &indefinite, false)),
        "multi_normal_lpdf: Covariance matrix is not positive definite"
    );
    assert_eq!(
        e(multi_normal_prec_lpdf(&y, &mu, &indefinite, false)),
        "multi_normal_prec_lpdf: Precision matrix is not positive definite"
    );
    let ragged = vec![y.clone(), vector(&[1.0])];
    assert_eq!(
        e(multi_normal_lpdf(&ragged, &mu, &s, false)),
        "multi_normal_lpdf: Size of one of the vectors of the random variable has size 1, but \
         must have size 2"
    );
    let two = vec![y.clone(), y.clone()];
    let three = vec![mu.clone(), mu.clone(), mu.clone()];
    assert_eq!(
        e(multi_normal_cholesky_lpdf(&two, &three, &s, false)),
        "multi_normal_cholesky_lpdf: number of vectors of mu has size 3, but must have size 2"
    );
    // Empty arrays give 0.
    let none: Vec<Vector> = Vec::new();
    assert_eq!(
        multi_normal_lpdf(&none, &mu, &s, false).unwrap().value(),
        0.0
    );
}
