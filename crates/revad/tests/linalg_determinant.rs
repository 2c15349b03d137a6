//! `determinant` and `log_determinant`: values (2×2 and triangular closed forms, row-swap
//! signs, products, overflow), gradients by finite differences and along random directions,
//! bad input and singular matrices, and an ill-conditioned matrix.

use nalgebra::DMatrix;
use ndarray::{array, Array2};
use revad::testing::{check_directional, check_gradient, matrix_from, test_points};
use revad::testing::{data_matrix, pivoting_points};
use revad::{linalg, tape, Matrix, Var};

/// A well-conditioned `k×k` matrix that needs row swaps, scaled so its determinant is of
/// order one: irregular entries in (−2, 2) plus `2k` at `(i, i+1 mod k)`, all over `2k`.
fn pivoting(k: usize, seed: u64) -> Vec<f64> {
    let a = pivoting_points(k, seed);
    a.iter().map(|x| x / (2.0 * k as f64)).collect()
}

fn to_na(a: &Matrix) -> DMatrix<f64> {
    DMatrix::from_fn(a.nrows(), a.ncols(), |i, j| a[[i, j]])
}

fn det(a: &Matrix) -> f64 {
    linalg::determinant(a).unwrap().value()
}

fn log_det(a: &Matrix) -> f64 {
    linalg::log_determinant(a).unwrap().value()
}

#[test]
fn values() {
    let close = |x: f64, y: f64, tol: f64| (x - y).abs() <= tol * y.abs().max(1.0);
    // ad − bc, with and without a row swap.
    assert_eq!(det(&array![[1.0, 2.0], [3.0, 4.0]].into_shared()), -2.0);
    assert_eq!(det(&array![[0.0, 2.0], [3.0, 4.0]].into_shared()), -6.0);
    assert_eq!(det(&array![[3.0, 4.0], [0.0, 2.0]].into_shared()), 6.0);
    // The sign of a permutation: a 3-cycle is even, a swap odd.
    assert_eq!(
        det(&array![[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]].into_shared()),
        1.0
    );
    assert_eq!(
        det(&array![[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]].into_shared()),
        -1.0
    );
    // An upper triangular matrix (no row swaps): the product of its diagonal, exactly.
    let t = array![[2.0, 5.0, 1.0], [0.0, -3.0, 7.0], [0.0, 0.0, 0.5]].into_shared();
    assert_eq!(det(&t), -3.0);
    assert!(close(log_det(&t), 3f64.ln(), 1e-15));
    for k in [1, 2, 5, 30, 130] {
        let a = data_matrix(k, k, &pivoting(k, 1));
        let b = data_matrix(k, k, &pivoting(k, 2));
        let na = to_na(&a);
        assert!(close(det(&a), na.determinant(), 1e-12), "k={k}");
        assert!(
            close(log_det(&a), na.determinant().abs().ln(), 1e-12),
            "k={k}"
        );
        // det(AB) = det(A)·det(B).
        let ab = a.dot(&b).into_shared();
        assert!(close(det(&ab), det(&a) * det(&b), 1e-11), "k={k}");
        assert!(
            close(log_det(&ab), log_det(&a) + log_det(&b), 1e-12),
            "k={k}"
        );
    }
    // |det| = 10⁴⁰⁰ overflows; its logarithm does not.
    let big = (Array2::<f64>::eye(400) * 10.0).into_shared();
    assert_eq!(det(&big), f64::INFINITY);
    assert!(close(log_det(&big), 400.0 * 10f64.ln(), 1e-14));
    // 0×0: det = 1, log det = 0.
    let empty = Array2::<f64>::zeros((0, 0)).into_shared();
    assert_eq!((det(&empty), log_det(&empty)), (1.0, 0.0));
    // nalgebra matrices are data operands.
    let na = DMatrix::from_row_slice(2, 2, &[2.0, 1.0, 1.0, 3.0]);
    assert_eq!(linalg::determinant(&na).unwrap().value(), 5.0);
    tape::reset();
}

#[test]
fn gradients() {
    let det_of = |k: usize| move |v: &[Var]| linalg::determinant(&matrix_from(k, k, v)).unwrap();
    let log_det_of =
        |k: usize| move |v: &[Var]| linalg::log_determinant(&matrix_from(k, k, v)).unwrap();
    for k in [1, 2, 3] {
        for seed in [1, 2] {
            let x = pivoting(k, seed);
            check_gradient(det_of(k), &[&x]);
            check_gradient(log_det_of(k), &[&x]);
        }
    }
    // A negative determinant: d log|det A| = A⁻ᵀ still.
    let x = [1.0, 2.0, 3.0, 4.0];
    check_gradient(log_det_of(2), &[&x]);
    for k in [1, 2, 5, 30, 130] {
        let x = pivoting(k, 3);
        let dirs = if k > 30 { 1 } else { 3 };
        check_directional(det_of(k), &x, dirs, Default::default());
        check_directional(log_det_of(k), &x, dirs, Default::default());
        tape::reset();
    }
    // Closed forms: ∂det/∂A = [[d, −c], [−b, a]], ∂log|det|/∂A = that over det.
    let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
    linalg::determinant(&a).unwrap().grad();
    let g = a.adj();
    let want = array![[4.0, -3.0], [-2.0, 1.0]];
    assert!(g.iter().zip(&want).all(|(x, y)| (x - y).abs() < 1e-14));
    tape::reset();
    let a = Var::array(array![[1.0, 2.0], [3.0, 4.0]].into_shared());
    linalg::log_determinant(&a).unwrap().grad();
    let g = a.adj();
    assert!(g
        .iter()
        .zip(&want)
        .all(|(x, y)| (x - y / -2.0).abs() < 1e-14));
    tape::reset();
}

#[test]
fn bad_input_and_singular_matrices() {
    let wide = data_matrix(2, 3, &[1.0; 6]);
    let e = linalg::determinant(&wide).unwrap_err();
    assert_eq!(
        e.to_string(),
        "determinant: columns of m has size 3, but must have size 2"
    );
    let e = linalg::log_determinant(&wide).unwrap_err();
    assert_eq!(
        e.to_string(),
        "log_determinant: columns of m has size 3, but must have size 2"
    );
    // Singular: det 0 and log det −∞, as in Stan; the gradient is not finite there.
    let s = array![[1.0, 2.0], [2.0, 4.0]].into_shared();
    assert_eq!(det(&s), 0.0);
    assert_eq!(log_det(&s), f64::NEG_INFINITY);
    let a = Var::array(s);
    linalg::log_determinant(&a).unwrap().grad();
    assert!(a.adj().iter().any(|x| !x.is_finite()));
    tape::reset();
    // NaN propagates.
    let n = array![[1.0, f64::NAN], [0.0, 1.0]].into_shared();
    assert!(det(&n).is_nan() && log_det(&n).is_nan());
    tape::reset();
}

/// `A = Q·diag(d)·Qᵀ` with `d` from 1 down to 1e-10 (condition number 1e10):
/// `log|det A| = Σ log dᵢ` to about 1e-14 relative (the pivots carry the small factors
/// accurately), and the gradient `A⁻ᵀ` is finite with `A·Āᵀ = I` to about κ·ε.
#[test]
fn ill_conditioned_matrix() {
    let k = 20;
    let q = to_na(&data_matrix(k, k, &test_points(k * k, 9))).qr().q();
    let d: Vec<f64> = (0..k)
        .map(|i| 10f64.powf(-10.0 * i as f64 / (k - 1) as f64))
        .collect();
    let a_na = &q * DMatrix::from_diagonal(&nalgebra::DVector::from_vec(d.clone())) * q.transpose();
    let a = Var::array(linalg::from_nalgebra(&a_na));
    let ld = linalg::log_determinant(&a).unwrap();
    let want: f64 = d.iter().map(|x| x.ln()).sum();
    assert!(
        (ld.value() - want).abs() < 1e-9 * want.abs(),
        "{} vs {want}",
        ld.value()
    );
    ld.grad();
    let g = a.adj();
    assert!(g.iter().all(|x| x.is_finite()));
    let prod = a.value().dot(&g.t());
    let err = (&prod - &Array2::<f64>::eye(k))
        .iter()
        .fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(err < 1e-4, "‖A·Āᵀ − I‖ = {err:e}");
    tape::reset();
}
