//! The multi-output Gaussian process densities: values against the sum of multivariate
//! normals of the rows written out with nalgebra; the two forms against each other; gradients
//! against finite differences for every data/variable mix of (y, kernel, w); `propto`; Stan's
//! error messages.

use nalgebra::DMatrix;
use revad::prob::{multi_gp_cholesky_lpdf, multi_gp_lpdf};
use revad::testing::{
    assert_close, check_directional, check_gradient, data_matrix, matrix_from, spd_from,
    spd_matrix, test_points, vector_from, GradCheck,
};
use revad::{linalg, tape, Matrix, Var, Vector};

const LOG_TWO_PI: f64 = 1.837_877_066_409_345_5;

fn vector(x: &[f64]) -> Vector {
    ndarray::Array1::from(x.to_vec()).into_shared()
}

/// Σᵢ log N(yᵢ | 0, Σ/wᵢ) over the rows of y, from the inverse and determinant of Σ/wᵢ.
fn reference(y: &Matrix, sigma: &Matrix, w: &[f64]) -> f64 {
    let n = sigma.nrows();
    let s = DMatrix::from_row_slice(n, n, sigma.as_slice().unwrap());
    let mut lp = 0.0;
    for (i, &wi) in w.iter().enumerate() {
        let c = &s / wi;
        let inv = c.clone().try_inverse().unwrap();
        let r = nalgebra::DVector::from_iterator(n, y.row(i).iter().copied());
        lp +=
            -0.5 * (n as f64 * LOG_TWO_PI + c.determinant().ln() + (r.transpose() * &inv * &r)[0]);
    }
    lp
}

fn factor_of(a: &Matrix) -> Matrix {
    linalg::cholesky_decompose(a).unwrap().value().clone()
}

/// Positive scales in (0.1, 2.1).
fn scales(k: usize, seed: u64) -> Vec<f64> {
    test_points(k, seed).iter().map(|x| 1.1 + 0.5 * x).collect()
}

#[test]
fn values_match_the_rows_as_multivariate_normals() {
    for (k, n) in [(1, 1), (2, 3), (5, 4), (3, 30), (30, 2)] {
        let sigma = spd_matrix(n, 3);
        let l = factor_of(&sigma);
        let y = data_matrix(k, n, &test_points(k * n, 5));
        let w = scales(k, 6);
        let wv = vector(&w);
        let want = reference(&y, &sigma, &w);
        let tol = 1e-11 * want.abs().max(1.0);
        assert_close(
            multi_gp_lpdf(&y, &sigma, &wv, false).unwrap().value(),
            want,
            tol,
        );
        assert_close(
            multi_gp_cholesky_lpdf(&y, &l, &wv, false).unwrap().value(),
            want,
            tol,
        );
    }
    tape::reset();
}

/// A lower-triangular factor from n² parameters: exp on the diagonal, zeros above it.
fn lower(n: usize, m: &[Var]) -> Var<Matrix> {
    let zero = Var::new(0.0);
    let entries: Vec<Var> = (0..n * n)
        .map(|e| match (e / n, e % n) {
            (i, j) if i == j => revad::exp(m[e]),
            (i, j) if i > j => m[e],
            _ => zero,
        })
        .collect();
    matrix_from(n, n, &entries)
}

#[test]
fn gradients_match_finite_differences() {
    for (k, n) in [(1, 1), (2, 3), (3, 2)] {
        let mut x = test_points(k * n + n * n + k, 7);
        x.iter_mut().for_each(|v| *v *= 0.5);
        let split = |v: &[Var]| {
            let (y, rest) = v.split_at(k * n);
            let (m, w) = rest.split_at(n * n);
            let w: Vec<Var> = w.iter().map(|&x| revad::exp(x)).collect();
            (matrix_from(k, n, y), m.to_vec(), vector_from(&w))
        };
        let points: [&[f64]; 1] = [&x];
        check_gradient(
            |v| {
                let (y, m, w) = split(v);
                multi_gp_lpdf(&y, &spd_from(n, &m), &w, false).unwrap()
            },
            &points,
        );
        check_gradient(
            |v| {
                let (y, m, w) = split(v);
                multi_gp_cholesky_lpdf(&y, &lower(n, &m), &w, false).unwrap()
            },
            &points,
        );
        // L itself a variable (upper triangle held at 0), propto.
        check_gradient(
            |v| {
                let (y, m, w) = split(v);
                let mut m = m;
                for j in 0..n {
                    m[j * n + j] = revad::exp(m[j * n + j]);
                    for i in 0..j {
                        m[i * n + j] = Var::new(0.0);
                    }
                }
                multi_gp_cholesky_lpdf(&y, &matrix_from(n, n, &m), &w, true).unwrap()
            },
            &points,
        );
    }
}

/// Every data/variable mix of (y, kernel, w), for both forms.
#[test]
fn every_mix_of_data_and_variables() {
    let (k, n) = (3, 4);
    let y = data_matrix(k, n, &test_points(k * n, 21));
    let m: Vec<f64> = test_points(n * n, 22).iter().map(|x| 0.5 * x).collect();
    let w = scales(k, 23);
    for cholesky in [false, true] {
        for mask in 0..8u32 {
            let var = |bit: u32| mask & (1 << bit) != 0;
            let f = |v: &[Var]| {
                let mut at = 0;
                let mut take = |len: usize, var: bool| {
                    let s = &v[at..at + if var { len } else { 0 }];
                    at += s.len();
                    s.to_vec()
                };
                let yv = take(k * n, var(0));
                let mv = take(n * n, var(1));
                let wv = take(k, var(2));
                let data: Vec<Var> = m.iter().map(|&x| Var::new(x)).collect();
                let params = if mv.is_empty() { &data } else { &mv };
                let kern_var = if cholesky {
                    lower(n, params)
                } else {
                    spd_from(n, params)
                };
                let kern = kern_var.value().clone();
                let y_var = if yv.is_empty() {
                    Var::array(y.clone())
                } else {
                    matrix_from(k, n, &yv)
                };
                let w_var = vector_from(&wv);
                let wd = vector(&w);
                let lp = match (var(0), var(1), var(2), cholesky) {
                    (a, b, c, false) => call_gp(a, b, c, &y_var, &y, &kern_var, &kern, &w_var, &wd),
                    (a, b, c, true) => {
                        call_gp_cholesky(a, b, c, &y_var, &y, &kern_var, &kern, &w_var, &wd)
                    }
                };
                lp + v.iter().fold(Var::new(0.0), |a, &b| a + b * 0.0)
            };
            let mut x = Vec::new();
            if var(0) {
                x.extend(y.iter().copied());
            }
            if var(1) {
                x.extend(&m);
            }
            if var(2) {
                x.extend(&w);
            }
            if x.is_empty() {
                assert!(f(&[]).value().is_finite());
                continue;
            }
            check_gradient(f, &[&x]);
        }
    }
    tape::reset();
}

/// Dispatches on which of (y, Σ, w) are variables.
#[allow(clippy::too_many_arguments)]
fn call_gp(
    yv: bool,
    sv: bool,
    wv: bool,
    y_var: &Var<Matrix>,
    y: &Matrix,
    s_var: &Var<Matrix>,
    s: &Matrix,
    w_var: &Var<Vector>,
    w: &Vector,
) -> Var {
    match (yv, sv, wv) {
        (false, false, false) => multi_gp_lpdf(y, s, w, false),
        (true, false, false) => multi_gp_lpdf(y_var, s, w, false),
        (false, true, false) => multi_gp_lpdf(y, s_var, w, false),
        (true, true, false) => multi_gp_lpdf(y_var, s_var, w, false),
        (false, false, true) => multi_gp_lpdf(y, s, w_var, false),
        (true, false, true) => multi_gp_lpdf(y_var, s, w_var, false),
        (false, true, true) => multi_gp_lpdf(y, s_var, w_var, false),
        (true, true, true) => multi_gp_lpdf(y_var, s_var, w_var, false),
    }
    .unwrap()
}

/// Dispatches on which of (y, L, w) are variables.
#[allow(clippy::too_many_arguments)]
fn call_gp_cholesky(
    yv: bool,
    lv: bool,
    wv: bool,
    y_var: &Var<Matrix>,
    y: &Matrix,
    l_var: &Var<Matrix>,
    l: &Matrix,
    w_var: &Var<Vector>,
    w: &Vector,
) -> Var {
    match (yv, lv, wv) {
        (false, false, false) => multi_gp_cholesky_lpdf(y, l, w, false),
        (true, false, false) => multi_gp_cholesky_lpdf(y_var, l, w, false),
        (false, true, false) => multi_gp_cholesky_lpdf(y, l_var, w, false),
        (true, true, false) => multi_gp_cholesky_lpdf(y_var, l_var, w, false),
        (false, false, true) => multi_gp_cholesky_lpdf(y, l, w_var, false),
        (true, false, true) => multi_gp_cholesky_lpdf(y_var, l, w_var, false),
        (false, true, true) => multi_gp_cholesky_lpdf(y, l_var, w_var, false),
        (true, true, true) => multi_gp_cholesky_lpdf(y_var, l_var, w_var, false),
    }
    .unwrap()
}

/// The directional check with a 30×30 kernel, every operand a variable, K = 5 and K = 30.
#[test]
fn directional_checks_at_larger_sizes() {
    for (k, n) in [(5, 30), (30, 5)] {
        let mut x = test_points(k * n + n * n + k, 9);
        x.iter_mut().for_each(|v| *v *= 0.3);
        let f = |v: &[Var]| {
            let (y, rest) = v.split_at(k * n);
            let (m, w) = rest.split_at(n * n);
            let w: Vec<Var> = w.iter().map(|&x| revad::exp(x)).collect();
            let (y, w) = (matrix_from(k, n, y), vector_from(&w));
            multi_gp_lpdf(&y, &spd_from(n, m), &w, false).unwrap()
                + multi_gp_cholesky_lpdf(&y, &lower(n, m), &w, false).unwrap()
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
    let (k, n) = (3, 4);
    let y = data_matrix(k, n, &test_points(k * n, 31));
    let sigma = spd_matrix(n, 32);
    let l = factor_of(&sigma);
    let w = scales(k, 33);
    let wd = vector(&w);
    let log_det = linalg::log_determinant_spd(&sigma).unwrap().value();
    let (kf, nf) = (k as f64, n as f64);
    let two_pi = -0.5 * kf * nf * LOG_TWO_PI;
    let det = -0.5 * kf * log_det;
    let scale = 0.5 * nf * w.iter().map(|x| x.ln()).sum::<f64>();
    let diff = |full: revad::Result<Var>, part: revad::Result<Var>| {
        full.unwrap().value() - part.unwrap().value()
    };
    let yv = Var::array(y.clone());
    assert_close(
        diff(
            multi_gp_lpdf(&yv, &sigma, &wd, false),
            multi_gp_lpdf(&yv, &sigma, &wd, true),
        ),
        two_pi + det + scale,
        1e-12,
    );
    assert_close(
        diff(
            multi_gp_cholesky_lpdf(&yv, &l, &wd, false),
            multi_gp_cholesky_lpdf(&yv, &l, &wd, true),
        ),
        two_pi + det + scale,
        1e-12,
    );
    let wv = Var::array(wd.clone());
    assert_close(
        diff(
            multi_gp_lpdf(&y, &sigma, &wv, false),
            multi_gp_lpdf(&y, &sigma, &wv, true),
        ),
        two_pi + det,
        1e-12,
    );
    let lv = Var::array(l.clone());
    assert_close(
        diff(
            multi_gp_cholesky_lpdf(&y, &lv, &wd, false),
            multi_gp_cholesky_lpdf(&y, &lv, &wd, true),
        ),
        two_pi + scale,
        1e-12,
    );
    let sv = Var::array(sigma.clone());
    assert_close(
        diff(
            multi_gp_lpdf(&y, &sv, &wd, false),
            multi_gp_lpdf(&y, &sv, &wd, true),
        ),
        two_pi + scale,
        1e-12,
    );
    assert_eq!(multi_gp_lpdf(&y, &sigma, &wd, true).unwrap().value(), 0.0);
    tape::reset();
}

type Gp = fn(&Matrix, &Matrix, &Vector, bool) -> revad::Result<Var>;

fn gp(y: &Matrix, s: &Matrix, w: &Vector, propto: bool) -> revad::Result<Var> {
    multi_gp_lpdf(y, s, w, propto)
}

fn gp_cholesky(y: &Matrix, l: &Matrix, w: &Vector, propto: bool) -> revad::Result<Var> {
    multi_gp_cholesky_lpdf(y, l, w, propto)
}

#[test]
fn bad_input_gets_stans_messages() {
    let y = data_matrix(2, 3, &test_points(6, 1));
    let s = spd_matrix(3, 2);
    let l = factor_of(&s);
    let w = vector(&[1.0, 2.0]);
    let e = |r: revad::Result<Var>| r.map(|v| v.value()).expect_err("an error").to_string();
    for (name, f) in [
        ("multi_gp_lpdf", gp as Gp),
        ("multi_gp_cholesky_lpdf", gp_cholesky as Gp),
    ] {
        let m = if name == "multi_gp_lpdf" { &s } else { &l };
        assert_eq!(
            e(f(&y, m, &vector(&[1.0, 2.0, 3.0]), false)),
            format!("{name}: Size of kernel scales (w) has size 3, but must have size 2")
        );
        assert_eq!(
            e(f(&y, &spd_matrix(2, 1), &w, false)),
            format!("{name}: rows of covariance parameter has size 2, but must have size 3")
        );
        assert_eq!(
            e(f(&y, m, &vector(&[1.0, 0.0]), false)),
            format!("{name}: Kernel scales[2] is 0, but must be positive finite")
        );
        assert_eq!(
            e(f(&y, m, &vector(&[f64::INFINITY, 1.0]), false)),
            format!("{name}: Kernel scales[1] is inf, but must be positive finite")
        );
        let mut bad = y.clone();
        bad[[1, 0]] = f64::NAN;
        assert_eq!(
            e(f(&bad, m, &w, false)),
            format!("{name}: Random variable[2,1] is NaN, but must be finite")
        );
        assert_eq!(
            e(f(&y, &data_matrix(3, 2, &[1.0; 6]), &w, false)),
            format!("{name}: columns of covariance parameter has size 2, but must have size 3")
        );
    }
    let empty = data_matrix(0, 0, &[]);
    let none = data_matrix(2, 0, &[]);
    assert_eq!(
        e(multi_gp_lpdf(&none, &empty, &w, false)),
        "multi_gp_lpdf: Kernel rows is 0, but must be positive"
    );
    assert_eq!(
        e(multi_gp_cholesky_lpdf(&none, &empty, &w, false)),
        "multi_gp_cholesky_lpdf: columns of Cholesky factor is 0, but must be positive"
    );
    let mut inf = s.clone();
    inf[[0, 1]] = f64::INFINITY;
    assert_eq!(
        e(multi_gp_lpdf(&y, &inf, &w, false)),
        "multi_gp_lpdf: Kernel[1,2] is inf, but must be finite"
    );
    let mut asym = s.clone();
    asym[[0, 1]] += 1.0;
    assert!(e(multi_gp_lpdf(&y, &asym, &w, false))
        .starts_with("multi_gp_lpdf: Kernel is not symmetric. Kernel[1,2] = "));
    let indefinite = data_matrix(3, 3, &[1.0, 2.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    assert_eq!(
        e(multi_gp_lpdf(&y, &indefinite, &w, false)),
        "multi_gp_lpdf: Matrix Kernel is not positive definite"
    );
    let mut upper = l.clone();
    upper[[0, 2]] = 0.5;
    assert_eq!(
        e(multi_gp_cholesky_lpdf(&y, &upper, &w, false)),
        "multi_gp_cholesky_lpdf: Cholesky decomposition of kernel matrix is not lower \
         triangular; Cholesky decomposition of kernel matrix[1,3]=0.5"
    );
    let mut negative = l.clone();
    negative[[1, 1]] = -1.0;
    assert_eq!(
        e(multi_gp_cholesky_lpdf(&y, &negative, &w, false)),
        "multi_gp_cholesky_lpdf: Cholesky decomposition of kernel matrix[2] is -1, but must be \
         positive"
    );
    // No rows of y: 0.
    let no_rows = data_matrix(0, 3, &[]);
    let no_w = vector(&[]);
    assert_eq!(
        multi_gp_lpdf(&no_rows, &s, &no_w, false).unwrap().value(),
        0.0
    );
}
