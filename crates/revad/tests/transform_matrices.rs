//! `cholesky_factor_corr`, `cholesky_factor_cov`, `corr_matrix`, `cov_matrix`: values against
//! their definitions, round trips (K = 1, 2, 5, 30, and next to singularity), log-Jacobians
//! against finite differences and Stan's own formulas, gradients of both transforms, errors.

mod transform_common;

use ndarray::{array, Array2};
use revad::testing::{
    assert_close, check_directional, check_gradient, vector_from, weighted_sum, GradCheck,
};
use revad::transform as t;
use revad::{tape, Matrix, Var, Vector};
use transform_common::{assert_all_close, combine, fd_log_det, points};

fn flat(m: &Matrix) -> Vec<f64> {
    m.iter().copied().collect()
}

/// The strictly lower triangle, row by row.
fn strict_lower(m: &Matrix) -> Vec<f64> {
    let k = m.nrows();
    (1..k)
        .flat_map(|i| (0..i).map(move |j| (i, j)))
        .map(|(i, j)| m[[i, j]])
        .collect()
}

/// The lower triangle, row by row.
fn lower(m: &Matrix) -> Vec<f64> {
    let (r, c) = m.dim();
    (0..r)
        .flat_map(|i| (0..=i.min(c - 1)).map(move |j| (i, j)))
        .map(|(i, j)| m[[i, j]])
        .collect()
}

fn times_transpose(l: &Matrix) -> Array2<f64> {
    l.dot(&l.t())
}

/// Stan's log-Jacobian of `cholesky_corr_constrain`, from its definition:
/// `Σ log(1 − z²) + ½ Σ_{j≥1} log(1 − Σ_{j′<j} L²ᵢⱼ′)`.
fn stan_cholesky_corr_lj(y: &[f64], k: usize) -> f64 {
    let mut lp: f64 = y.iter().map(|v| (1.0 - v.tanh().powi(2)).ln()).sum();
    let mut pos = 0;
    for i in 1..k {
        let mut ss = y[pos].tanh().powi(2);
        pos += 1;
        for _ in 1..i {
            lp += 0.5 * (1.0 - ss).ln();
            let lij = y[pos].tanh() * (1.0 - ss).sqrt();
            ss += lij * lij;
            pos += 1;
        }
    }
    lp
}

/// Stan's log-Jacobian of `corr_matrix_constrain` (`read_corr_L` with `corr_constrain`).
fn stan_corr_matrix_lj(y: &[f64], k: usize) -> f64 {
    let mut lp: f64 = y.iter().map(|v| (1.0 - v.tanh().powi(2)).ln()).sum();
    let mut pos = 0;
    for kk in 1..=k.saturating_sub(2) {
        for _ in kk + 1..=k {
            lp += 0.5 * (k - kk - 1) as f64 * (1.0 - y[pos].tanh().powi(2)).ln();
            pos += 1;
        }
    }
    lp
}

#[test]
fn cholesky_factor_corr() {
    for k in [1usize, 2, 3, 5, 30] {
        let n = k * (k - 1) / 2;
        let y = points(n, k as u64, 1.5);
        let (l, lj) = t::cholesky_factor_corr_jacobian(&Vector::from(y.clone()), k).unwrap();
        let lv = l.value();
        for i in 0..k {
            let row: f64 = lv.row(i).iter().map(|v| v * v).sum();
            assert_close(row, 1.0, 1e-14);
            assert!(lv[[i, i]] > 0.0);
            assert!(lv.row(i).iter().skip(i + 1).all(|&v| v == 0.0));
        }
        // Stan's formula subtracts from 1 and loses everything once a row's remainder is
        // below rounding: compare at milder free values too.
        let mild: Vec<f64> = y.iter().map(|v| v / 3.0).collect();
        let (_, lj_mild) =
            t::cholesky_factor_corr_jacobian(&Vector::from(mild.clone()), k).unwrap();
        assert_close(lj_mild.value(), stan_cholesky_corr_lj(&mild, k), 1e-12);
        assert!(lj.value().is_finite());
        if (2..=5).contains(&k) {
            let f = |y: &[f64]| {
                strict_lower(
                    t::cholesky_factor_corr_constrain(&Vector::from(y.to_vec()), k)
                        .unwrap()
                        .value(),
                )
            };
            assert_close(lj.value(), fd_log_det(&f, &y, 1e-3), 1e-8);
        }
        let back = t::cholesky_factor_corr_unconstrain(lv).unwrap();
        assert_all_close(back.value().as_slice().unwrap(), &y, 1e-12);
    }
    // Next to singularity (partial correlations of ±0.9999999958): still exact.
    let y = vec![10.0, -10.0, 10.0];
    let l = t::cholesky_factor_corr_constrain(&Vector::from(y.clone()), 3).unwrap();
    assert!(l.value()[[2, 2]] > 0.0);
    let back = t::cholesky_corr_free(l.value()).unwrap();
    assert_all_close(back.value().as_slice().unwrap(), &y, 1e-6);
    // Gradients.
    let f = |v: &[Var]| {
        let (l, lj) = t::cholesky_factor_corr_jacobian(&vector_from(v), 4).unwrap();
        combine(&l, lj, 1)
    };
    check_gradient(f, &[&points(6, 2, 1.0), &[3.0, -2.5, 0.1, 0.0, 4.0, -0.3]]);
    check_directional(f, &points(6, 3, 2.0), 2, GradCheck::default());
    check_directional(
        |v: &[Var]| {
            let (l, lj) = t::cholesky_factor_corr_jacobian(&vector_from(v), 20).unwrap();
            combine(&l, lj, 4)
        },
        &points(190, 4, 1.0),
        2,
        GradCheck::default(),
    );
    // The inverse along the manifold: unconstrain ∘ constrain is the identity.
    let g = |v: &[Var]| {
        let l = t::cholesky_factor_corr_constrain(&vector_from(v), 4).unwrap();
        weighted_sum(&t::cholesky_factor_corr_unconstrain(&l).unwrap(), 5)
    };
    let (_, grad) = revad::gradient(g, &points(6, 6, 1.0));
    assert_all_close(&grad, &revad::testing::test_points(6, 5), 1e-12);
    tape::reset();
}

#[test]
fn cholesky_factor_cov() {
    for (m, n) in [(1usize, 1usize), (2, 2), (3, 2), (5, 5), (30, 3)] {
        let size = n * (n + 1) / 2 + (m - n) * n;
        let y = points(size, (m * n) as u64, 1.5);
        let (l, lj) = t::cholesky_factor_cov_jacobian(&Vector::from(y.clone()), m, n).unwrap();
        let lv = l.value();
        assert_eq!(lv.dim(), (m, n));
        // Row by row: the strictly lower elements, then e^y on the diagonal.
        let mut pos = 0;
        let mut diag_sum = 0.0;
        for r in 0..m {
            for j in 0..r.min(n) {
                assert_eq!(lv[[r, j]], y[pos]);
                pos += 1;
            }
            if r < n {
                assert_close(lv[[r, r]], y[pos].exp(), 1e-15);
                diag_sum += y[pos];
                pos += 1;
            }
            assert!((r + 1..n).all(|j| lv[[r, j]] == 0.0));
        }
        assert_close(lj.value(), diag_sum, 1e-14);
        if size <= 12 {
            let f = |y: &[f64]| {
                lower(
                    t::cholesky_factor_cov_constrain(&Vector::from(y.to_vec()), m, n)
                        .unwrap()
                        .value(),
                )
            };
            assert_close(lj.value(), fd_log_det(&f, &y, 1e-3), 1e-8);
        }
        let back = t::cholesky_factor_cov_unconstrain(lv).unwrap();
        assert_all_close(back.value().as_slice().unwrap(), &y, 1e-14);
    }
    let f = |v: &[Var]| {
        let (l, lj) = t::cholesky_factor_cov_jacobian(&vector_from(v), 3, 2).unwrap();
        combine(&l, lj, 7)
    };
    check_gradient(f, &[&points(5, 8, 1.0)]);
    // The inverse on lower-triangular matrices with a positive diagonal (zeros above are
    // constants).
    let g = |v: &[Var]| {
        let zero = Var::new(0.0);
        let m = [v[0], zero, v[1], v[2], v[3], v[4]];
        let l = revad::testing::matrix_from(3, 2, &m);
        weighted_sum(&t::cholesky_factor_cov_unconstrain(&l).unwrap(), 9)
    };
    check_gradient(g, &[&[1.5, -0.3, 0.7, 2.0, -1.0]]);
    tape::reset();
}

/// A symmetric matrix variable from its lower triangle (row by row), each pair one variable.
fn symmetric_from(k: usize, lower: &[Var]) -> Var<Matrix> {
    let mut m = vec![lower[0]; k * k];
    let mut pos = 0;
    for i in 0..k {
        for j in 0..=i {
            m[i * k + j] = lower[pos];
            m[j * k + i] = lower[pos];
            pos += 1;
        }
    }
    revad::testing::matrix_from(k, k, &m)
}

#[test]
fn cov_matrix() {
    for k in [1usize, 2, 3, 5, 30] {
        let size = k * (k + 1) / 2;
        // Mild free values for K = 30, where Σ's condition number grows like e^(−2yₘₘ).
        let y = points(size, k as u64 + 20, if k > 5 { 0.3 } else { 1.0 });
        let (s, lj) = t::cov_matrix_jacobian(&Vector::from(y.clone()), k).unwrap();
        let l = t::cholesky_factor_cov_constrain(&Vector::from(y.clone()), k, k).unwrap();
        assert_all_close(
            &flat(s.value()),
            &flat(&times_transpose(l.value()).into_shared()),
            1e-13,
        );
        // Stan's log-Jacobian: K log 2 + Σₖ (K − k + 1) log Lₖₖ (k from 0).
        let stan: f64 = k as f64 * 2f64.ln()
            + (0..k)
                .map(|i| (k - i + 1) as f64 * l.value()[[i, i]].ln())
                .sum::<f64>();
        assert_close(lj.value(), stan, 1e-12);
        if k <= 3 {
            let f = |y: &[f64]| {
                lower(
                    t::cov_matrix_constrain(&Vector::from(y.to_vec()), k)
                        .unwrap()
                        .value(),
                )
            };
            assert_close(lj.value(), fd_log_det(&f, &y, 1e-3), 1e-8);
        }
        let back = t::cov_matrix_unconstrain(s.value()).unwrap();
        // The factorisation of Σ = LLᵀ is backward stable: errors grow with K and κ(Σ).
        assert_all_close(back.value().as_slice().unwrap(), &y, 1e-11);
    }
    let f = |v: &[Var]| {
        let (s, lj) = t::cov_matrix_jacobian(&vector_from(v), 3).unwrap();
        combine(&s, lj, 10)
    };
    check_gradient(f, &[&points(6, 11, 1.0)]);
    check_directional(
        |v: &[Var]| {
            let (s, lj) = t::cov_matrix_jacobian(&vector_from(v), 15).unwrap();
            combine(&s, lj, 12)
        },
        &points(120, 13, 0.5),
        2,
        GradCheck::default(),
    );
    // The inverse, on symmetric positive-definite matrices.
    let g = |v: &[Var]| {
        weighted_sum(
            &t::cov_matrix_unconstrain(&symmetric_from(3, v)).unwrap(),
            14,
        )
    };
    check_gradient(g, &[&[4.0, 1.0, 3.0, -0.5, 0.7, 2.0]]);
    tape::reset();
}

#[test]
fn corr_matrix() {
    for k in [1usize, 2, 3, 5, 30] {
        let n = k * (k - 1) / 2;
        let y = points(n, k as u64 + 30, if k > 5 { 0.3 } else { 1.0 });
        let (c, lj) = t::corr_matrix_jacobian(&Vector::from(y.clone()), k).unwrap();
        let cv = c.value();
        for i in 0..k {
            assert_close(cv[[i, i]], 1.0, 1e-14);
            for j in 0..k {
                assert_eq!(cv[[i, j]], cv[[j, i]]);
            }
        }
        assert_close(lj.value(), stan_corr_matrix_lj(&y, k), 1e-12);
        if (2..=5).contains(&k) {
            let f = |y: &[f64]| {
                strict_lower(
                    t::corr_matrix_constrain(&Vector::from(y.to_vec()), k)
                        .unwrap()
                        .value(),
                )
            };
            assert_close(lj.value(), fd_log_det(&f, &y, 1e-3), 1e-8);
        }
        let back = t::corr_matrix_unconstrain(cv).unwrap();
        assert_all_close(back.value().as_slice().unwrap(), &y, 1e-11);
    }
    // K = 2: the one free value is atanh of the correlation (Stan's corr_constrain).
    let c = t::corr_matrix_constrain(&Vector::from(vec![0.3f64.atanh()]), 2).unwrap();
    assert_close(c.value()[[1, 0]], 0.3, 1e-15);
    // Close to singular.
    let y = vec![4.0, -3.0, 5.0];
    let c = t::corr_matrix_constrain(&Vector::from(y.clone()), 3).unwrap();
    let back = t::corr_matrix_free(c.value()).unwrap();
    assert_all_close(back.value().as_slice().unwrap(), &y, 1e-7);
    let f = |v: &[Var]| {
        let (c, lj) = t::corr_matrix_jacobian(&vector_from(v), 4).unwrap();
        combine(&c, lj, 15)
    };
    check_gradient(f, &[&points(6, 16, 1.0)]);
    check_directional(
        |v: &[Var]| {
            let (c, lj) = t::corr_matrix_jacobian(&vector_from(v), 15).unwrap();
            combine(&c, lj, 17)
        },
        &points(105, 18, 0.7),
        2,
        GradCheck::default(),
    );
    // The inverse, on correlation matrices: the unit diagonal fixed, the off-diagonal pairs
    // variables.
    let g = |v: &[Var]| {
        let one = Var::new(1.0);
        let lower = [one, v[0], one, v[1], v[2], one];
        weighted_sum(
            &t::corr_matrix_unconstrain(&symmetric_from(3, &lower)).unwrap(),
            19,
        )
    };
    check_gradient(g, &[&[0.3, -0.2, 0.5], &[0.9, 0.85, 0.8]]);
    tape::reset();
}

#[test]
fn errors_carry_stans_messages() {
    let e = |r: revad::Result<Var<Matrix>>| r.unwrap_err().to_string();
    let v = |r: revad::Result<Var<Vector>>| r.unwrap_err().to_string();
    let two = Vector::from(vec![0.0, 0.0]);
    assert_eq!(
        e(t::cholesky_factor_corr_constrain(&two, 3)),
        "cholesky_corr_constrain: y has size 2, but must have size 3"
    );
    assert_eq!(
        e(t::corr_matrix_constrain(&two, 3)),
        "corr_matrix_constrain: y has size 2, but must have size 3"
    );
    assert_eq!(
        e(t::cov_matrix_constrain(&two, 2)),
        "cov_matrix_constrain: y has size 2, but must have size 3"
    );
    assert_eq!(
        e(t::cholesky_factor_cov_constrain(&two, 2, 3)),
        "cholesky_factor_constrain: num rows (must be greater or equal to num cols) is 2, but \
         must be greater than or equal to 3"
    );
    assert_eq!(
        e(t::cholesky_factor_cov_constrain(&two, 2, 2)),
        "cholesky_factor_constrain: y has size 2, but must have size 3"
    );
    let m = |a: Array2<f64>| -> Matrix { a.into_shared() };
    assert_eq!(
        v(t::cholesky_factor_corr_unconstrain(&m(array![[
            1.0, 0.0, 0.0
        ]]))),
        "cholesky_corr_free: columns of y has size 3, but must have size 1"
    );
    assert_eq!(
        v(t::cholesky_factor_corr_unconstrain(&m(array![
            [1.0, 0.5],
            [0.0, 1.0]
        ]))),
        "cholesky_corr_free: y is not lower triangular; y[1,2]=0.5"
    );
    assert_eq!(
        v(t::cholesky_factor_corr_unconstrain(&m(array![
            [1.0, 0.0],
            [0.0, -1.0]
        ]))),
        "cholesky_corr_free: y is -1, but must be positive"
    );
    assert_eq!(
        v(t::cholesky_factor_corr_unconstrain(&m(array![
            [1.0, 0.0],
            [1.0, 0.5]
        ]))),
        "cholesky_corr_free: y is not a valid unit vector. The sum of the squares of the \
         elements should be 1, but is 1.25"
    );
    assert_eq!(
        v(t::cholesky_factor_cov_unconstrain(&m(array![
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0]
        ]))),
        "cholesky_factor_free: columns and rows of Cholesky factor is 3, but must be less than \
         or equal to 2"
    );
    assert_eq!(
        v(t::cholesky_factor_cov_unconstrain(&m(Array2::zeros((
            2, 0
        ))))),
        "cholesky_factor_free: columns of Cholesky factor is 0, but must be positive"
    );
    assert_eq!(
        v(t::cholesky_factor_free(&m(array![
            [1.0, 0.0],
            [1.0, -1.0],
            [0.0, 0.0]
        ]))),
        "cholesky_factor_free: y[2] is -1, but must be positive"
    );
    assert_eq!(
        v(t::corr_matrix_unconstrain(&m(array![
            [1.0, 0.5],
            [0.5, 1.5]
        ]))),
        "corr_matrix_free: y is not a valid correlation matrix. y(2,2) is 1.5, but should be \
         near 1.0"
    );
    assert_eq!(
        v(t::corr_matrix_unconstrain(&m(array![
            [1.0, 0.5],
            [0.3, 1.0]
        ]))),
        "corr_matrix_free: y is not symmetric. y[1,2] = 0.5, but y[2,1] = 0.3"
    );
    assert_eq!(
        v(t::corr_matrix_unconstrain(&m(array![
            [1.0, 2.0],
            [2.0, 1.0]
        ]))),
        "corr_matrix_free: Matrix y is not positive definite"
    );
    assert_eq!(
        v(t::corr_matrix_unconstrain(&m(Array2::zeros((0, 0))))),
        "corr_matrix_free: y has size 0, but must have a non-zero size"
    );
    assert_eq!(
        v(t::cov_matrix_unconstrain(&m(array![
            [1.0, 0.5],
            [0.5, -1.0]
        ]))),
        "cov_matrix_free: y[2] is -1, but must be positive"
    );
    assert_eq!(
        v(t::cov_matrix_unconstrain(&m(array![
            [1.0, 2.0],
            [2.0, 1.0]
        ]))),
        "cov_matrix_free: Matrix y is not positive definite"
    );
    assert_eq!(
        v(t::cov_matrix_free(&m(array![[1.0, 0.0, 0.0]]))),
        "cov_matrix_free: columns of y has size 3, but must have size 1"
    );
}

#[test]
fn constrained_values_come_back() {
    for k in [1usize, 2, 5, 30] {
        let s = revad::testing::spd_matrix(k, 3);
        let y = t::cov_matrix_unconstrain(&s).unwrap();
        let back = t::cov_matrix_constrain(y.value(), k).unwrap();
        assert_all_close(
            &flat(back.value()),
            &flat(&s),
            1e-12 * s[[0, 0]].abs().max(1.0),
        );
        // Its correlation matrix, and the Cholesky factors of both.
        let d: Vec<f64> = (0..k).map(|i| s[[i, i]].sqrt()).collect();
        let c: Matrix =
            Array2::from_shape_fn((k, k), |(i, j)| s[[i, j]] / (d[i] * d[j])).into_shared();
        let y = t::corr_matrix_unconstrain(&c).unwrap();
        let back = t::corr_matrix_constrain(y.value(), k).unwrap();
        assert_all_close(&flat(back.value()), &flat(&c), 1e-12);
        let l = revad::linalg::cholesky_decompose(&c).unwrap();
        let y = t::cholesky_factor_corr_unconstrain(l.value()).unwrap();
        let back = t::cholesky_factor_corr_constrain(y.value(), k).unwrap();
        assert_all_close(&flat(back.value()), &flat(l.value()), 1e-12);
        let l = revad::linalg::cholesky_decompose(&s).unwrap();
        let y = t::cholesky_factor_cov_unconstrain(l.value()).unwrap();
        let back = t::cholesky_factor_cov_constrain(y.value(), k, k).unwrap();
        assert_all_close(
            &flat(back.value()),
            &flat(l.value()),
            1e-12 * s[[0, 0]].abs().max(1.0),
        );
    }
    tape::reset();
}
