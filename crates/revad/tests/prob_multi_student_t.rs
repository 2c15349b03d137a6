//! The multivariate Student-t densities: values against the density written out with
//! nalgebra (inverse and determinant) and, for K = 1, against the univariate Student-t; the two
//! parameterisations against each other; gradients against finite differences for every
//! data/variable mix of (y, ν, μ, matrix); `propto`; broadcasting; Stan's error messages.

use nalgebra::DMatrix;
use ndarray::Array1;
use revad::prob::{multi_student_t_cholesky_lpdf, multi_student_t_lpdf, student_t_lpdf, Vectors};
use revad::special::gamma::lgamma;
use revad::testing::{
    assert_close, check_directional, check_gradient, data_matrix, matrix_from, spd_from,
    spd_matrix, test_points, vector_from, GradCheck,
};
use revad::{linalg, tape, Matrix, Var, Vector};

const LOG_PI: f64 = 1.144_729_885_849_400_2;

fn vector(x: &[f64]) -> Vector {
    Array1::from(x.to_vec()).into_shared()
}

/// `n` vectors of size `k` from `test_points`.
fn vectors(n: usize, k: usize, seed: u64) -> Vec<Vector> {
    let x = test_points(n * k, seed);
    x.chunks(k.max(1)).take(n).map(vector).collect()
}

/// The lower Cholesky factor of `a`.
fn factor_of(a: &Matrix) -> Matrix {
    linalg::cholesky_decompose(a).unwrap().value().clone()
}

/// Σᵢ log t_ν(yᵢ | μᵢ, Σ) from Σ's inverse and determinant (nalgebra), broadcasting a single
/// vector.
fn reference(ys: &[Vector], nu: f64, mus: &[Vector], sigma: &Matrix) -> f64 {
    let k = sigma.nrows();
    let s = DMatrix::from_row_slice(k, k, sigma.as_slice().unwrap());
    let inv = s.clone().try_inverse().unwrap();
    let kf = k as f64;
    let n = ys.len().max(mus.len());
    let mut lp = 0.0;
    for i in 0..n {
        let y = &ys[if ys.len() == 1 { 0 } else { i }];
        let mu = &mus[if mus.len() == 1 { 0 } else { i }];
        let r = nalgebra::DVector::from_iterator(k, y.iter().zip(mu).map(|(a, b)| a - b));
        let q = (r.transpose() * &inv * &r)[0];
        lp += lgamma(0.5 * (nu + kf))
            - lgamma(0.5 * nu)
            - 0.5 * kf * (nu.ln() + LOG_PI)
            - 0.5 * s.determinant().ln()
            - 0.5 * (nu + kf) * (1.0 + q / nu).ln();
    }
    lp
}

#[test]
fn values_match_the_density_written_out() {
    for (k, n) in [(1, 1), (2, 3), (5, 4), (30, 2)] {
        let sigma = spd_matrix(k, 3);
        let l = factor_of(&sigma);
        let ys = vectors(n, k, 11);
        let mus = vectors(n, k, 12);
        for nu in [0.7, 4.0, 250.0] {
            let want = reference(&ys, nu, &mus, &sigma);
            let tol = 1e-11 * want.abs().max(1.0);
            let got = multi_student_t_lpdf(&ys, nu, &mus, &sigma, false).unwrap();
            assert_close(got.value(), want, tol);
            let got = multi_student_t_cholesky_lpdf(&ys, nu, &mus, &l, false).unwrap();
            assert_close(got.value(), want, tol);
            // One μ broadcast against the array of y, one y against an array of μ.
            let want = reference(&ys, nu, &mus[..1], &sigma);
            let got = multi_student_t_cholesky_lpdf(&ys, nu, &mus[0], &l, false).unwrap();
            assert_close(got.value(), want, tol);
            let want = reference(&ys[..1], nu, &mus, &sigma);
            let got = multi_student_t_lpdf(&ys[0], nu, &mus, &sigma, false).unwrap();
            assert_close(got.value(), want, tol);
        }
        // A matrix with one vector per row is an array of vectors.
        let rows: Vec<f64> = ys.iter().flat_map(|v| v.iter().copied()).collect();
        let ym = data_matrix(n, k, &rows);
        assert_close(
            multi_student_t_lpdf(&ym, 3.0, &mus, &sigma, false)
                .unwrap()
                .value(),
            reference(&ys, 3.0, &mus, &sigma),
            1e-11 * reference(&ys, 3.0, &mus, &sigma).abs(),
        );
    }
    tape::reset();
}

#[test]
fn one_dimension_is_the_univariate_student_t() {
    for (y, nu, mu, sigma) in [
        (1.3, 3.0, 0.2, 0.5),
        (-4.0, 0.5, 1.0, 2.0),
        (0.1, 80.0, 0.0, 1.0),
    ] {
        let want: f64 = student_t_lpdf(y, nu, mu, sigma, false).unwrap();
        let s = data_matrix(1, 1, &[sigma * sigma]);
        let l = data_matrix(1, 1, &[sigma]);
        let (yv, mv) = (vector(&[y]), vector(&[mu]));
        assert_close(
            multi_student_t_lpdf(&yv, nu, &mv, &s, false)
                .unwrap()
                .value(),
            want,
            1e-13,
        );
        assert_close(
            multi_student_t_cholesky_lpdf(&yv, nu, &mv, &l, false)
                .unwrap()
                .value(),
            want,
            1e-13,
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

/// Every operand a variable, ν from log ν, at a few sizes and degrees of freedom (small ν is
/// near the edge of the domain).
#[test]
fn gradients_match_finite_differences() {
    for (k, n) in [(1, 1), (2, 3), (3, 2)] {
        let split = |v: &[Var]| {
            let (y, rest) = v.split_at(n * k);
            let (mu, rest) = rest.split_at(k);
            let ys: Vec<Var<Vector>> = y.chunks(k).map(vector_from).collect();
            (ys, revad::exp(rest[0]), vector_from(mu), rest[1..].to_vec())
        };
        for log_nu in [-1.5, 1.0, 4.0] {
            let mut x = test_points(n * k + k + 1 + k * k, 5);
            x.iter_mut().for_each(|v| *v *= 0.5);
            x[n * k + k] = log_nu;
            let points: [&[f64]; 1] = [&x];
            check_gradient(
                |v| {
                    let (ys, nu, mu, m) = split(v);
                    multi_student_t_lpdf(&ys, nu, &mu, &spd_from(k, &m), false).unwrap()
                },
                &points,
            );
            check_gradient(
                |v| {
                    let (ys, nu, mu, m) = split(v);
                    multi_student_t_cholesky_lpdf(&ys, nu, &mu, &lower(k, &m), false).unwrap()
                },
                &points,
            );
            // L itself a variable, its upper triangle included (no gradient there), propto.
            check_gradient(
                |v| {
                    let (ys, nu, mu, m) = split(v);
                    let mut m = m;
                    for j in 0..k {
                        m[j * k + j] = revad::exp(m[j * k + j]);
                        for i in 0..j {
                            m[i * k + j] = Var::new(0.0);
                        }
                    }
                    multi_student_t_cholesky_lpdf(&ys, nu, &mu, &matrix_from(k, k, &m), true)
                        .unwrap()
                },
                &points,
            );
        }
    }
}

/// Every data/variable mix of (y, ν, μ, Σ) and of (y, ν, μ, L), y an array and μ one vector.
#[test]
fn every_mix_of_data_and_variables() {
    let (k, n) = (3, 4);
    let ys = vectors(n, k, 21);
    let mu = vector(&test_points(k, 22));
    let nu = 2.5;
    let m = test_points(k * k, 23);
    for cholesky in [false, true] {
        for mask in 0..16u32 {
            let var = |bit: u32| mask & (1 << bit) != 0;
            let f = |v: &[Var]| {
                let mut at = 0;
                let mut take = |len: usize, var: bool| {
                    let s = &v[at..at + if var { len } else { 0 }];
                    at += s.len();
                    s.to_vec()
                };
                let yv = take(n * k, var(0));
                let nuv = take(1, var(1));
                let muv = take(k, var(2));
                let mv = take(k * k, var(3));
                let y_var: Vec<Var<Vector>> = yv.chunks(k).map(vector_from).collect();
                let mu_var = vector_from(&muv);
                let y: &dyn Vectors = if var(0) { &y_var } else { &ys };
                let mu_: &dyn Vectors = if var(2) { &mu_var } else { &mu };
                let data: Vec<Var> = m.iter().map(|&x| Var::new(x)).collect();
                let params = if mv.is_empty() { &data } else { &mv };
                let mat_var = if cholesky {
                    lower(k, params)
                } else {
                    spd_from(k, params)
                };
                let mat_data = mat_var.value().clone();
                let lp = match (cholesky, var(1), var(3)) {
                    (false, false, false) => multi_student_t_lpdf(y, nu, mu_, &mat_data, false),
                    (false, true, false) => multi_student_t_lpdf(y, nuv[0], mu_, &mat_data, false),
                    (false, false, true) => multi_student_t_lpdf(y, nu, mu_, &mat_var, false),
                    (false, true, true) => multi_student_t_lpdf(y, nuv[0], mu_, &mat_var, false),
                    (true, false, false) => {
                        multi_student_t_cholesky_lpdf(y, nu, mu_, &mat_data, false)
                    }
                    (true, true, false) => {
                        multi_student_t_cholesky_lpdf(y, nuv[0], mu_, &mat_data, false)
                    }
                    (true, false, true) => {
                        multi_student_t_cholesky_lpdf(y, nu, mu_, &mat_var, false)
                    }
                    (true, true, true) => {
                        multi_student_t_cholesky_lpdf(y, nuv[0], mu_, &mat_var, false)
                    }
                };
                // Plus a constant so that every mix has a variable to differentiate.
                lp.unwrap() + v.iter().fold(Var::new(0.0), |a, &b| a + b * 0.0)
            };
            let mut x = Vec::new();
            if var(0) {
                x.extend(ys.iter().flat_map(|v| v.iter().copied()));
            }
            if var(1) {
                x.push(nu);
            }
            if var(2) {
                x.extend(mu.iter().copied());
            }
            if var(3) {
                x.extend(&m);
            }
            if x.is_empty() {
                // All data: nothing recorded, the value as with variables.
                let lp = f(&[]);
                assert!(lp.value().is_finite());
                continue;
            }
            check_gradient(f, &[&x]);
        }
    }
    tape::reset();
}

/// The directional check at K = 5 and 30, every operand a variable.
#[test]
fn directional_checks_at_larger_sizes() {
    for (k, n) in [(5, 10), (30, 6)] {
        let mut x = test_points(n * k + k + 1 + k * k, 9);
        x.iter_mut().for_each(|v| *v *= 0.3);
        let f = |v: &[Var]| {
            let (y, rest) = v.split_at(n * k);
            let (mu, rest) = rest.split_at(k);
            let nu = revad::exp(rest[0]) + 1.0;
            let ys = matrix_from(n, k, y);
            let mu = vector_from(mu);
            multi_student_t_cholesky_lpdf(&ys, nu, &mu, &lower(k, &rest[1..]), false).unwrap()
                + multi_student_t_lpdf(&ys, nu, &mu, &spd_from(k, &rest[1..]), false).unwrap()
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
    let l = factor_of(&sigma);
    let log_det = linalg::log_determinant_spd(&sigma).unwrap().value();
    let (nf, kf, nu) = (n as f64, k as f64, 3.5);
    let nu_terms = nf * (lgamma(0.5 * (nu + kf)) - lgamma(0.5 * nu) - 0.5 * kf * nu.ln());
    let pi_term = -0.5 * nf * kf * LOG_PI;
    let yv: Vec<Var<Vector>> = ys.iter().map(|v| Var::array(v.clone())).collect();
    // y a variable, ν and the matrix data: the ν terms, π and the log determinant go.
    let diff = |full: revad::Result<Var>, part: revad::Result<Var>| {
        full.unwrap().value() - part.unwrap().value()
    };
    let want = nu_terms + pi_term - 0.5 * nf * log_det;
    assert_close(
        diff(
            multi_student_t_lpdf(&yv, nu, &mu, &sigma, false),
            multi_student_t_lpdf(&yv, nu, &mu, &sigma, true),
        ),
        want,
        1e-12,
    );
    assert_close(
        diff(
            multi_student_t_cholesky_lpdf(&yv, nu, &mu, &l, false),
            multi_student_t_cholesky_lpdf(&yv, nu, &mu, &l, true),
        ),
        want,
        1e-12,
    );
    // ν a variable: its terms stay.
    let nuv = Var::new(nu);
    assert_close(
        diff(
            multi_student_t_lpdf(&ys, nuv, &mu, &sigma, false),
            multi_student_t_lpdf(&ys, nuv, &mu, &sigma, true),
        ),
        pi_term - 0.5 * nf * log_det,
        1e-12,
    );
    // The matrix a variable: only π goes.
    let lv = Var::array(l.clone());
    assert_close(
        diff(
            multi_student_t_cholesky_lpdf(&ys, nu, &mu, &lv, false),
            multi_student_t_cholesky_lpdf(&ys, nu, &mu, &lv, true),
        ),
        pi_term + nu_terms,
        1e-12,
    );
    let sv = Var::array(sigma.clone());
    assert_close(
        diff(
            multi_student_t_lpdf(&ys, nu, &mu, &sv, false),
            multi_student_t_lpdf(&ys, nu, &mu, &sv, true),
        ),
        pi_term + nu_terms,
        1e-12,
    );
    // All data: 0 with propto.
    assert_eq!(
        multi_student_t_lpdf(&ys, nu, &mu, &sigma, true)
            .unwrap()
            .value(),
        0.0
    );
    tape::reset();
}

#[test]
fn the_parameterisations_agree_in_gradient() {
    let (k, n) = (4, 3);
    let x = test_points(n * k + k + 1, 41);
    let sigma = spd_matrix(k, 42);
    let l = factor_of(&sigma);
    let grad = |cholesky: bool| {
        revad::gradient(
            |v: &[Var]| {
                let ys = matrix_from(n, k, &v[..n * k]);
                let mu = vector_from(&v[n * k..n * k + k]);
                let nu = revad::exp(v[n * k + k]);
                if cholesky {
                    multi_student_t_cholesky_lpdf(&ys, nu, &mu, &l, false)
                } else {
                    multi_student_t_lpdf(&ys, nu, &mu, &sigma, false)
                }
                .unwrap()
            },
            &x,
        )
    };
    let (v0, g0) = grad(false);
    let (v1, g1) = grad(true);
    assert_close(v0, v1, 1e-10);
    for (a, b) in g0.iter().zip(&g1) {
        assert_close(*a, *b, 1e-9);
    }
}

#[test]
fn bad_input_gets_stans_messages() {
    let y = vector(&[1.0, 2.0]);
    let mu = vector(&[0.0, 0.0]);
    let s = spd_matrix(2, 1);
    let l = factor_of(&s);
    let e = |r: revad::Result<Var>| r.map(|v| v.value()).expect_err("an error").to_string();
    for (nu, msg) in [
        (0.0, "is 0, but must be positive"),
        (-1.0, "is -1, but must be positive"),
        (f64::NAN, "is NaN, but must not be NaN"),
        (f64::INFINITY, "is inf, but must be finite"),
    ] {
        assert_eq!(
            e(multi_student_t_lpdf(&y, nu, &mu, &s, false)),
            format!("multi_student_t: Degrees of freedom parameter {msg}")
        );
        assert_eq!(
            e(multi_student_t_cholesky_lpdf(&y, nu, &mu, &l, false)),
            format!("multi_student_t_cholesky: Degrees of freedom parameter {msg}")
        );
    }
    assert_eq!(
        e(multi_student_t_lpdf(&y, 3.0, &vector(&[0.0]), &s, false)),
        "multi_student_t: size of location parameter has size 1, but must have size 2"
    );
    assert_eq!(
        e(multi_student_t_lpdf(&y, 3.0, &mu, &spd_matrix(3, 1), false)),
        "multi_student_t: rows of scale parameter has size 3, but must have size 2"
    );
    assert_eq!(
        e(multi_student_t_cholesky_lpdf(
            &y,
            3.0,
            &mu,
            &data_matrix(2, 3, &[1.0; 6]),
            false
        )),
        "multi_student_t_cholesky: columns of scale parameter has size 3, but must have size 2"
    );
    assert_eq!(
        e(multi_student_t_lpdf(
            &y,
            3.0,
            &vector(&[0.0, f64::INFINITY]),
            &s,
            false
        )),
        "multi_student_t: Location parameter[2] is inf, but must be finite"
    );
    assert_eq!(
        e(multi_student_t_cholesky_lpdf(
            &vector(&[f64::NAN, 0.0]),
            3.0,
            &mu,
            &l,
            false
        )),
        "multi_student_t_cholesky: Random variable[1] is NaN, but must not be NaN"
    );
    let asym = data_matrix(2, 2, &[2.0, 1.0, 0.0, 2.0]);
    assert_eq!(
        e(multi_student_t_lpdf(&y, 3.0, &mu, &asym, false)),
        "multi_student_t: Scale parameter is not symmetric. Scale parameter[1,2] = 1, but \
         Scale parameter[2,1] = 0"
    );
    let indefinite = data_matrix(2, 2, &[1.0, 2.0, 2.0, 1.0]);
    assert_eq!(
        e(multi_student_t_lpdf(&y, 3.0, &mu, &indefinite, false)),
        "multi_student_t: Scale parameter is not positive definite"
    );
    let upper = data_matrix(2, 2, &[1.0, 0.5, 0.0, 1.0]);
    assert_eq!(
        e(multi_student_t_cholesky_lpdf(&y, 3.0, &mu, &upper, false)),
        "multi_student_t_cholesky: scale parameter is not lower triangular; scale \
         parameter[1,2]=0.5"
    );
    let negative = data_matrix(2, 2, &[1.0, 0.0, 0.5, -1.0]);
    assert_eq!(
        e(multi_student_t_cholesky_lpdf(
            &y, 3.0, &mu, &negative, false
        )),
        "multi_student_t_cholesky: scale parameter[2] is -1, but must be positive"
    );
    let ragged = vec![y.clone(), vector(&[1.0])];
    assert_eq!(
        e(multi_student_t_lpdf(&ragged, 3.0, &mu, &s, false)),
        "multi_student_t: Size of one of the vectors of the random variable has size 1, but \
         must have size 2"
    );
    let two = vec![y.clone(), y.clone()];
    let three = vec![mu.clone(), mu.clone(), mu.clone()];
    assert_eq!(
        e(multi_student_t_cholesky_lpdf(&two, 3.0, &three, &l, false)),
        "multi_student_t_cholesky: number of vectors of mu has size 3, but must have size 2"
    );
    // Empty arrays give 0.
    let none: Vec<Vector> = Vec::new();
    assert_eq!(
        multi_student_t_lpdf(&none, 3.0, &mu, &s, false)
            .unwrap()
            .value(),
        0.0
    );
}
