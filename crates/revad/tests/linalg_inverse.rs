//! `inverse` and `generalized_inverse`: values (`A·A⁻¹ = I`, a 2×2 closed form, the Penrose
//! conditions, an independent SVD pseudo-inverse), gradients by finite differences and along
//! random directions (wide, tall, square and rank-deficient of constant rank), bad input,
//! and an ill-conditioned matrix.

use nalgebra::DMatrix;
use ndarray::{array, Array2};
use revad::testing::{check_directional, check_gradient, matrix_from, test_points, weighted_sum};
use revad::testing::{data_matrix, pivoting_points};
use revad::{linalg, matrix, tape, Var};

/// A well-conditioned `k×k` matrix that needs row swaps, scaled to entries of order one.
fn pivoting(k: usize, seed: u64) -> Vec<f64> {
    let a = pivoting_points(k, seed);
    a.iter().map(|x| x / k as f64).collect()
}

/// An `m×n` matrix of full rank: irregular entries in (−2, 2) plus `2·max(m, n)` on the
/// diagonal (its leading square block is diagonally dominant), scaled to order one.
fn full_rank(m: usize, n: usize, seed: u64) -> Vec<f64> {
    let big = 2.0 * m.max(n) as f64;
    let mut g = test_points(m * n, seed);
    for i in 0..m.min(n) {
        g[i * n + i] += big;
    }
    g.iter().map(|x| x / big).collect()
}

/// `r×c` entries `sin(1.3i + 0.7j + seed)`: generic, so a product `X·Y` of an `m×2` and a
/// `2×n` such matrix has rank exactly 2.
fn generic(r: usize, c: usize, seed: f64) -> Vec<f64> {
    (0..r * c)
        .map(|p| (1.3 * (p / c) as f64 + 0.7 * (p % c) as f64 + seed).sin())
        .collect()
}

fn to_na(a: &Array2<f64>) -> DMatrix<f64> {
    DMatrix::from_fn(a.nrows(), a.ncols(), |i, j| a[[i, j]])
}

fn max_abs(a: &Array2<f64>) -> f64 {
    a.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// The four Penrose conditions for `p = g⁺`, to `tol` relative to the largest entry.
fn assert_penrose(g: &Array2<f64>, p: &Array2<f64>, tol: f64) {
    let (gp, pg) = (g.dot(p), p.dot(g));
    let scale = max_abs(g).max(1.0) * max_abs(p).max(1.0);
    assert!(max_abs(&(gp.dot(g) - g)) < tol * scale, "GG⁺G = G");
    assert!(
        max_abs(&(pg.dot(p) - p)) < tol * scale * max_abs(p).max(1.0),
        "G⁺GG⁺ = G⁺"
    );
    assert!(max_abs(&(&gp - &gp.t())) < tol * scale, "GG⁺ symmetric");
    assert!(max_abs(&(&pg - &pg.t())) < tol * scale, "G⁺G symmetric");
}

#[test]
fn inverse_values() {
    for k in [1, 2, 5, 30, 64, 130] {
        let a = data_matrix(k, k, &pivoting(k, 1));
        let inv = linalg::inverse(&a).unwrap();
        let inv = inv.value();
        let err = max_abs(&(a.dot(inv) - Array2::<f64>::eye(k)));
        assert!(err < 1e-13, "k={k}: ‖AA⁻¹ − I‖ = {err:e}");
        let want = to_na(&a.to_owned()).try_inverse().unwrap();
        for ((i, j), x) in inv.indexed_iter() {
            assert!((x - want[(i, j)]).abs() < 1e-13, "k={k}");
        }
    }
    let inv = linalg::inverse(&array![[4.0, 7.0], [2.0, 6.0]].into_shared()).unwrap();
    let want = array![[0.6, -0.7], [-0.2, 0.4]];
    assert!(inv
        .value()
        .iter()
        .zip(&want)
        .all(|(x, y)| (x - y).abs() < 1e-15));
    let empty = linalg::inverse(&Array2::<f64>::zeros((0, 0)).into_shared()).unwrap();
    assert_eq!(empty.shape(), (0, 0));
    tape::reset();
}

#[test]
fn inverse_gradients() {
    let f = |k: usize| {
        move |v: &[Var]| weighted_sum(&linalg::inverse(&matrix_from(k, k, v)).unwrap(), 4)
    };
    for k in [1, 2] {
        check_gradient(f(k), &[&pivoting(k, 2)]);
    }
    for k in [1, 2, 5, 30, 130] {
        check_directional(
            f(k),
            &pivoting(k, 3),
            if k > 30 { 1 } else { 2 },
            Default::default(),
        );
        tape::reset();
    }
}

#[test]
fn generalized_inverse_values() {
    // Wide, tall, square of full rank.
    for (m, n) in [
        (1, 1),
        (1, 4),
        (4, 1),
        (3, 5),
        (5, 3),
        (30, 33),
        (33, 30),
        (6, 6),
    ] {
        let g = data_matrix(m, n, &full_rank(m, n, 7));
        let p = linalg::generalized_inverse(&g);
        let p = p.value().to_owned();
        assert_eq!(p.dim(), (n, m));
        assert_penrose(&g.to_owned(), &p, 1e-12);
        let want = to_na(&g.to_owned()).pseudo_inverse(1e-12).unwrap();
        for ((i, j), x) in p.indexed_iter() {
            assert!((x - want[(i, j)]).abs() < 1e-10, "{m}×{n}");
        }
    }
    // A square matrix of full rank gives exactly `inverse`.
    let a = data_matrix(4, 4, &pivoting(4, 5));
    assert_eq!(
        linalg::generalized_inverse(&a).value(),
        linalg::inverse(&a).unwrap().value()
    );
    // Rank-deficient, square and not: rank 2 products X·Y.
    for (m, n) in [(4, 4), (4, 6), (6, 4)] {
        let x = Array2::from_shape_vec((m, 2), generic(m, 2, 1.0)).unwrap();
        let y = Array2::from_shape_vec((2, n), generic(2, n, 2.0)).unwrap();
        let g = x.dot(&y);
        let p = linalg::generalized_inverse(&g.clone().into_shared());
        assert_penrose(&g, &p.value().to_owned(), 1e-12);
    }
    // 2×2 of rank 1: (uvᵀ)⁺ = vuᵀ / (|u|²|v|²).
    let p = linalg::generalized_inverse(&array![[1.0, 2.0], [2.0, 4.0]].into_shared());
    let want = array![[1.0, 2.0], [2.0, 4.0]] / 25.0;
    assert!(p
        .value()
        .iter()
        .zip(&want)
        .all(|(x, y)| (x - y).abs() < 1e-15));
    // Empty: the transposed shape.
    let e = linalg::generalized_inverse(&Array2::<f64>::zeros((0, 3)).into_shared());
    assert_eq!(e.shape(), (3, 0));
    // NaN in, NaN out.
    let p = linalg::generalized_inverse(&array![[1.0, f64::NAN], [0.0, 1.0]].into_shared());
    assert!(p.value().iter().all(|x| x.is_nan()));
    let p =
        linalg::generalized_inverse(&array![[1.0, f64::NAN, 0.0], [0.0, 1.0, 1.0]].into_shared());
    assert!(p.value().iter().any(|x| x.is_nan()));
    tape::reset();
}

#[test]
fn generalized_inverse_gradients() {
    let f = |m: usize, n: usize| {
        move |v: &[Var]| weighted_sum(&linalg::generalized_inverse(&matrix_from(m, n, v)), 3)
    };
    for (m, n) in [(1, 1), (1, 2), (2, 1), (2, 3), (3, 2), (2, 2)] {
        check_gradient(f(m, n), &[&full_rank(m, n, 8)]);
    }
    for k in [1, 2, 5, 30, 130] {
        let dirs = if k > 30 { 1 } else { 2 };
        check_directional(
            f(k, k + 3),
            &full_rank(k, k + 3, 9),
            dirs,
            Default::default(),
        );
        check_directional(
            f(k + 3, k),
            &full_rank(k + 3, k, 10),
            dirs,
            Default::default(),
        );
        if k <= 30 {
            // Square and of full rank: the reverse pass of `inverse`, checked at 130 there.
            check_directional(f(k, k), &pivoting(k, 11), dirs, Default::default());
        }
        tape::reset();
    }
    // Rank-deficient of constant rank: G = X·Y with X m×2, Y 2×n, so every direction keeps
    // the rank and the pseudo-inverse is differentiable (the SVD path, all three terms).
    for (m, n) in [(4, 4), (3, 5), (5, 3)] {
        let g = move |v: &[Var]| {
            let x = matrix_from(m, 2, &v[..2 * m]);
            let y = matrix_from(2, n, &v[2 * m..]);
            weighted_sum(
                &linalg::generalized_inverse(&matrix::multiply(&x, &y).unwrap()),
                3,
            )
        };
        let x0: Vec<f64> = generic(m, 2, 1.0)
            .into_iter()
            .chain(generic(2, n, 2.0))
            .collect();
        check_gradient(g, &[&x0]);
        check_directional(g, &x0, 3, Default::default());
        tape::reset();
    }
}

#[test]
fn bad_input_and_singular_matrices() {
    let e = linalg::inverse(&data_matrix(2, 3, &[1.0; 6])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "inverse: columns of m has size 3, but must have size 2"
    );
    // A singular matrix is not an error, as in Stan: the inverse is not finite.
    let s = linalg::inverse(&array![[1.0, 2.0], [2.0, 4.0]].into_shared()).unwrap();
    assert!(s.value().iter().any(|x| !x.is_finite()));
    let n = linalg::inverse(&array![[f64::NAN, 2.0], [2.0, 4.0]].into_shared()).unwrap();
    assert!(n.value().iter().any(|x| x.is_nan()));
    tape::reset();
}

/// `A = Q·diag(d)·Qᵀ` with `d` from 1 down to 1e-10 (condition number 1e10). The inverse's
/// residual `‖AA⁻¹ − I‖` is bounded by about κ·ε ≈ 1e-6 (no method does better in double
/// precision); the gradient of `Σ A⁻¹` is finite and matches `−A⁻ᵀ11ᵀA⁻ᵀ` built from the
/// exact factors `Q`, `d` to about κ·ε relative.
#[test]
fn ill_conditioned_matrix() {
    let k = 12;
    let q = to_na(&data_matrix(k, k, &test_points(k * k, 9)).to_owned())
        .qr()
        .q();
    let d: Vec<f64> = (0..k)
        .map(|i| 10f64.powf(-10.0 * i as f64 / (k - 1) as f64))
        .collect();
    let dm = |f: &dyn Fn(f64) -> f64| {
        DMatrix::from_diagonal(&nalgebra::DVector::from_iterator(
            k,
            d.iter().map(|x| f(*x)),
        ))
    };
    let a_na = &q * dm(&|x| x) * q.transpose();
    let exact_inv = &q * dm(&|x| 1.0 / x) * q.transpose();
    let a = Var::array(linalg::from_nalgebra(&a_na));
    let inv = linalg::inverse(&a).unwrap();
    let err = max_abs(&(a.value().dot(inv.value()) - Array2::<f64>::eye(k)));
    assert!(err < 1e-5, "‖AA⁻¹ − I‖ = {err:e}");
    matrix::sum(&inv).grad();
    let g = a.adj();
    assert!(g.iter().all(|x| x.is_finite()));
    let ones = DMatrix::from_element(k, k, 1.0);
    let want = -(exact_inv.transpose() * ones * exact_inv.transpose());
    let scale = want.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for ((i, j), x) in g.indexed_iter() {
        assert!((x - want[(i, j)]).abs() < 1e-4 * scale, "[{i},{j}]");
    }
    tape::reset();
}
