//! `matrix_exp`, `matrix_exp_multiply`, `scale_matrix_exp_multiply`: values against closed
//! forms and independent computations, the exact adjoint against the block-matrix Fréchet
//! derivative, gradients by finite differences and random directions, bad input.

use nalgebra::DMatrix;
use ndarray::{array, Array2};
use revad::testing::{
    assert_close, check_directional, check_gradient, check_gradient_with, matrix_from, test_points,
    weighted_sum, GradCheck,
};
use revad::testing::{data_matrix, unit_radius_points};
use revad::{linalg, matrix, tape, Var};

/// ‖X − Y‖_F / ‖Y‖_F.
fn rel_err(x: &DMatrix<f64>, y: &DMatrix<f64>) -> f64 {
    (x - y).norm() / y.norm()
}

/// exp(A) by a 40-term Taylor sum of 2⁻ᵏA, squared k times: independent of the Padé code.
fn taylor_exp(a: &DMatrix<f64>, k: i32) -> DMatrix<f64> {
    let n = a.nrows();
    let a = a * 0.5f64.powi(k);
    let mut term = DMatrix::identity(n, n);
    let mut sum = term.clone();
    for j in 1..40 {
        term = &term * &a / j as f64;
        sum += &term;
    }
    for _ in 0..k {
        sum = &sum * &sum;
    }
    sum
}

fn exp_value(a: &DMatrix<f64>) -> DMatrix<f64> {
    linalg::to_nalgebra(&linalg::matrix_exp(a).unwrap().value().clone())
}

#[test]
fn closed_forms() {
    // Diagonal matrices across every Padé degree (‖A‖₁ from 0.01 to 50).
    for scale in [0.01, 0.2, 0.9, 2.0, 5.0, 50.0] {
        let d = [scale, -0.5 * scale, 0.3 * scale];
        let a = DMatrix::from_diagonal(&nalgebra::DVector::from_row_slice(&d));
        let e = exp_value(&a);
        for i in 0..3 {
            assert_close(e[(i, i)], d[i].exp(), 1e-14);
            for j in 0..3 {
                if i != j {
                    assert_eq!(e[(i, j)], 0.0);
                }
            }
        }
    }
    // A nilpotent matrix: exp(N) = I + N + N²/2 + N³/6.
    let n = DMatrix::from_row_slice(
        4,
        4,
        &[
            0.0, 1.0, -2.0, 3.0, //
            0.0, 0.0, 0.5, 4.0, //
            0.0, 0.0, 0.0, -1.5, //
            0.0, 0.0, 0.0, 0.0,
        ],
    );
    let n2 = &n * &n;
    let want = DMatrix::identity(4, 4) + &n + &n2 / 2.0 + &n2 * &n / 6.0;
    assert!(rel_err(&exp_value(&n), &want) < 1e-15);
    // The generator of rotations: exp([[0, −θ], [θ, 0]]) is the rotation by θ.
    for theta in [0.3, 2.0, 20.0] {
        let a = DMatrix::from_row_slice(2, 2, &[0.0, -theta, theta, 0.0]);
        let e = exp_value(&a);
        let (s, c) = theta.sin_cos();
        let want = DMatrix::from_row_slice(2, 2, &[c, -s, s, c]);
        assert!((e - want).abs().max() < 1e-14 * theta.max(1.0));
    }
    // 1×1 and 0×0.
    let e = linalg::matrix_exp(&array![[0.7]].into_shared()).unwrap();
    assert_close(e.value()[[0, 0]], 0.7f64.exp(), 1e-15);
    let e = linalg::matrix_exp(&Array2::<f64>::zeros((0, 0)).into_shared()).unwrap();
    assert_eq!(e.value().dim(), (0, 0));
}

#[test]
fn values_against_taylor_and_identities() {
    for (k, seed) in [(2, 1), (3, 2), (5, 3), (8, 4)] {
        for scale in [0.05, 0.5, 1.0, 2.0] {
            let x: Vec<f64> = test_points(k * k, seed).iter().map(|v| v * scale).collect();
            let a = DMatrix::from_row_slice(k, k, &x);
            let e = exp_value(&a);
            assert!(
                rel_err(&e, &taylor_exp(&a, 0)) < 1e-13,
                "k={k}, scale={scale}"
            );
            // exp(A)·exp(−A) = I, to rounding in the product's size.
            let inv = exp_value(&-&a);
            let tol = 1e-14 * e.norm() * inv.norm();
            assert!((&e * inv - DMatrix::identity(k, k)).abs().max() < tol);
        }
    }
    // matrix_exp_multiply and scale_matrix_exp_multiply agree with exp(A)·B, exp(tA)·B.
    let a = data_matrix(3, 3, &unit_radius_points(3, 7));
    let b = data_matrix(3, 2, &test_points(6, 8));
    let want = exp_value(&linalg::to_nalgebra(&a)) * linalg::to_nalgebra(&b);
    let got = linalg::matrix_exp_multiply(&a, &b).unwrap();
    assert!(rel_err(&linalg::to_nalgebra(got.value()), &want) < 1e-15);
    let t = -1.7;
    let want = exp_value(&(linalg::to_nalgebra(&a) * t)) * linalg::to_nalgebra(&b);
    let got = linalg::scale_matrix_exp_multiply(t, &a, &b).unwrap();
    assert!(rel_err(&linalg::to_nalgebra(got.value()), &want) < 1e-15);
    let got = linalg::scale_matrix_exp_multiply(0.0, &a, &b).unwrap();
    assert_eq!(linalg::to_nalgebra(got.value()), linalg::to_nalgebra(&b));
}

/// A K×K matrix `S·diag(λ)·S⁻¹` (K ≥ 2) with eigenvalues from 2 down to −48 and a
/// well-conditioned `S`, so that ‖A‖₁ is about 50 and `exp(A) = S·diag(e^λ)·S⁻¹` is known.
fn large_norm(k: usize) -> (DMatrix<f64>, DMatrix<f64>) {
    let s =
        DMatrix::identity(k, k) + DMatrix::from_row_slice(k, k, &unit_radius_points(k, 11)) * 0.3;
    let lambda: Vec<f64> = (0..k)
        .map(|i| 2.0 - 50.0 * i as f64 / (k - 1) as f64)
        .collect();
    let s_inv = s.clone().try_inverse().unwrap();
    let d = |f: &dyn Fn(f64) -> f64| {
        DMatrix::from_diagonal(&nalgebra::DVector::from_iterator(
            k,
            lambda.iter().map(|&l| f(l)),
        ))
    };
    (&s * d(&|l| l) * &s_inv, &s * d(&f64::exp) * &s_inv)
}

#[test]
fn large_norm_is_accurate() {
    for k in [2, 5, 30, 100] {
        let (a, want) = large_norm(k);
        assert!(a.column_iter().map(|c| c.abs().sum()).fold(0.0, f64::max) > 45.0);
        let e = exp_value(&a);
        assert!(e.iter().all(|x| x.is_finite()));
        assert!(rel_err(&e, &want) < 1e-11, "k={k}: {}", rel_err(&e, &want));
        assert!(rel_err(&e, &taylor_exp(&a, 12)) < 1e-11);
    }
    // Symmetric, ‖A‖ = 50: against the eigendecomposition.
    let x = DMatrix::from_row_slice(6, 6, &test_points(36, 12));
    let a = (&x + x.transpose()) * 5.0;
    let eig = a.clone().symmetric_eigen();
    let want = &eig.eigenvectors
        * DMatrix::from_diagonal(&eig.eigenvalues.map(f64::exp))
        * eig.eigenvectors.transpose();
    assert!(rel_err(&exp_value(&a), &want) < 1e-12);
    // The gradient there: finite and matching random directions.
    let (a, _) = large_norm(5);
    let x: Vec<f64> = a.transpose().iter().copied().collect();
    let f = |v: &[Var]| weighted_sum(&linalg::matrix_exp(&matrix_from(5, 5, v)).unwrap(), 3);
    let opts = GradCheck {
        rel_tol: 1e-6,
        ..Default::default()
    };
    check_directional(f, &x, 3, opts);
}

#[test]
fn adjoint_is_the_block_frechet_derivative() {
    // Ā = upper-right block of exp([[Aᵀ, Ḡ], [0, Aᵀ]]), for norms across the Padé degrees.
    for (k, scale) in [
        (2, 0.004),
        (3, 0.05),
        (3, 0.25),
        (4, 0.4),
        (4, 1.5),
        (5, 8.0),
    ] {
        let x: Vec<f64> = test_points(k * k, 21).iter().map(|v| v * scale).collect();
        let a = Var::array(data_matrix(k, k, &x));
        let c = data_matrix(k, k, &test_points(k * k, 22));
        let e = linalg::matrix_exp(&a).unwrap();
        matrix::dot_product(&e, &c).unwrap().grad();
        let a_bar = linalg::to_nalgebra(&a.adj());
        tape::reset();
        let at = linalg::to_nalgebra(&data_matrix(k, k, &x)).transpose();
        let mut block = DMatrix::zeros(2 * k, 2 * k);
        block.view_mut((0, 0), (k, k)).copy_from(&at);
        block.view_mut((k, k), (k, k)).copy_from(&at);
        block
            .view_mut((0, k), (k, k))
            .copy_from(&linalg::to_nalgebra(&c));
        let want = exp_value(&block).view((0, k), (k, k)).clone_owned();
        assert!(rel_err(&a_bar, &want) < 1e-13, "k={k}, scale={scale}");
    }
}

#[test]
fn gradients_by_finite_differences() {
    // Each Padé degree (‖A‖₁ from 0.01 to 20) and every data/variable mix.
    for scale in [0.005, 0.1, 0.4, 0.8, 2.0, 8.0] {
        let x: Vec<f64> = test_points(9, 5).iter().map(|v| v * scale).collect();
        let f = |v: &[Var]| weighted_sum(&linalg::matrix_exp(&matrix_from(3, 3, v)).unwrap(), 1);
        check_gradient(f, &[&x]);
    }
    let x = test_points(9 + 6, 6);
    let (ad, bd) = (data_matrix(3, 3, &x[..9]), data_matrix(3, 2, &x[9..]));
    let var_var = |v: &[Var]| {
        let (a, b) = (matrix_from(3, 3, &v[..9]), matrix_from(3, 2, &v[9..]));
        weighted_sum(&linalg::matrix_exp_multiply(&a, &b).unwrap(), 2)
    };
    let var_data = |v: &[Var]| {
        weighted_sum(
            &linalg::matrix_exp_multiply(&matrix_from(3, 3, v), &bd).unwrap(),
            2,
        )
    };
    let data_var = |v: &[Var]| {
        weighted_sum(
            &linalg::matrix_exp_multiply(&ad, &matrix_from(3, 2, v)).unwrap(),
            2,
        )
    };
    check_gradient(var_var, &[&x]);
    check_gradient(var_data, &[&x[..9]]);
    check_gradient(data_var, &[&x[9..]]);
    for t in [0.7, -1.3] {
        let var_var = |v: &[Var]| {
            let (a, b) = (matrix_from(3, 3, &v[..9]), matrix_from(3, 2, &v[9..]));
            weighted_sum(&linalg::scale_matrix_exp_multiply(t, &a, &b).unwrap(), 3)
        };
        let var_data = |v: &[Var]| {
            let a = matrix_from(3, 3, v);
            weighted_sum(&linalg::scale_matrix_exp_multiply(t, &a, &bd).unwrap(), 3)
        };
        let data_var = |v: &[Var]| {
            let b = matrix_from(3, 2, v);
            weighted_sum(&linalg::scale_matrix_exp_multiply(t, &ad, &b).unwrap(), 3)
        };
        check_gradient(var_var, &[&x]);
        check_gradient(var_data, &[&x[..9]]);
        check_gradient(data_var, &[&x[9..]]);
    }
    // 1×1: d/da exp(a) = exp(a).
    check_gradient_with(
        |v: &[Var]| {
            linalg::matrix_exp(&matrix_from(1, 1, v))
                .unwrap()
                .element(0)
        },
        &[&[0.3], &[-4.0]],
        GradCheck::default(),
    );
}

#[test]
fn gradients_along_random_directions() {
    for k in [1, 2, 5, 30, 130] {
        let x = unit_radius_points(k, 31 + k as u64);
        let f = |v: &[Var]| weighted_sum(&linalg::matrix_exp(&matrix_from(k, k, v)).unwrap(), 4);
        check_directional(f, &x, if k > 30 { 1 } else { 2 }, GradCheck::default());
        // exp(A)·B with B of three columns, both variables.
        if k <= 30 {
            let xb = [x.clone(), test_points(3 * k, 32)].concat();
            let g = |v: &[Var]| {
                let (a, b) = (
                    matrix_from(k, k, &v[..k * k]),
                    matrix_from(k, 3, &v[k * k..]),
                );
                weighted_sum(&linalg::scale_matrix_exp_multiply(0.8, &a, &b).unwrap(), 5)
            };
            check_directional(g, &xb, 2, GradCheck::default());
        }
    }
}

#[test]
fn bad_input() {
    let sq = data_matrix(2, 2, &[1.0, 2.0, 3.0, 4.0]);
    let wide = data_matrix(2, 3, &[1.0; 6]);
    let tall = data_matrix(3, 1, &[1.0; 3]);
    let cases: Vec<(revad::Error, &str)> = vec![
        (
            linalg::matrix_exp(&wide).unwrap_err(),
            "matrix_exp: columns of input matrix has size 3, but must have size 2",
        ),
        (
            linalg::matrix_exp_multiply(&wide, &tall).unwrap_err(),
            "matrix_exp_multiply: columns of input matrix has size 3, but must have size 2",
        ),
        (
            linalg::matrix_exp_multiply(&sq, &tall).unwrap_err(),
            "matrix_exp_multiply: rows of B has size 3, but must have size 2",
        ),
        (
            linalg::scale_matrix_exp_multiply(2.0, &wide, &tall).unwrap_err(),
            "scale_matrix_exp_multiply: columns of input matrix has size 3, but must have size 2",
        ),
        (
            linalg::scale_matrix_exp_multiply(2.0, &sq, &tall).unwrap_err(),
            "scale_matrix_exp_multiply: rows of B has size 3, but must have size 2",
        ),
    ];
    for (e, want) in cases {
        assert_eq!(e.to_string(), want);
    }
    // NaN or ±∞ inside: a NaN result and NaN adjoints, no error (Stan does not check).
    for bad in [f64::NAN, f64::INFINITY] {
        let a = Var::array(data_matrix(2, 2, &[1.0, bad, 0.0, 1.0]));
        let b = Var::array(data_matrix(2, 1, &[1.0, 2.0]));
        let c = linalg::matrix_exp_multiply(&a, &b).unwrap();
        assert!(c.value().iter().all(|x| x.is_nan()));
        matrix::sum(&c).grad();
        assert!(a.adj().iter().chain(b.adj().iter()).all(|x| x.is_nan()));
        tape::reset();
    }
    // Data only: nothing recorded, a plain value.
    let e = linalg::matrix_exp(&sq).unwrap();
    assert!(e.value().iter().all(|x| x.is_finite()));
    tape::reset();
}
