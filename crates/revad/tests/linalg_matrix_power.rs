//! `matrix_power`: values against repeated multiplication and a Jordan block, the gradient
//! against the sum formula, finite differences and random directions, bad input.

use nalgebra::DMatrix;
use ndarray::Array2;
use revad::testing::{
    assert_close, check_directional, check_gradient, matrix_from, test_points, weighted_sum,
    GradCheck,
};
use revad::testing::{data_matrix, unit_radius_points};
use revad::{linalg, matrix, tape, Var};

/// Aⁿ by n − 1 multiplications.
fn naive_power(a: &DMatrix<f64>, n: usize) -> DMatrix<f64> {
    let mut p = DMatrix::identity(a.nrows(), a.ncols());
    for _ in 0..n {
        p = &p * a;
    }
    p
}

#[test]
fn values() {
    let x = unit_radius_points(4, 1);
    let a = data_matrix(4, 4, &x);
    for n in (0..=10).chain([17, 30, 64]) {
        let p = linalg::to_nalgebra(linalg::matrix_power(&a, n).unwrap().value());
        let want = naive_power(&linalg::to_nalgebra(&a), n as usize);
        assert!(
            (&p - &want).norm() <= 1e-13 * want.norm().max(1.0),
            "n = {n}"
        );
    }
    // A Jordan block: [[λ, 1], [0, λ]]ⁿ = [[λⁿ, nλⁿ⁻¹], [0, λⁿ]].
    let j = data_matrix(2, 2, &[0.9, 1.0, 0.0, 0.9]);
    for n in [1, 2, 5, 13] {
        let p = linalg::matrix_power(&j, n).unwrap();
        let p = p.value();
        assert_close(p[[0, 0]], 0.9f64.powi(n), 1e-15);
        assert_close(p[[0, 1]], n as f64 * 0.9f64.powi(n - 1), 1e-15);
        assert_eq!(p[[1, 0]], 0.0);
    }
    // n = 0 gives I (and nothing to differentiate), a 0×0 matrix a 0×0 power.
    let v = Var::array(a.clone());
    let id = linalg::matrix_power(&v, 0).unwrap();
    assert_eq!(linalg::to_nalgebra(id.value()), DMatrix::identity(4, 4));
    matrix::sum(&id).grad();
    assert!(v.adj().iter().all(|&g| g == 0.0));
    tape::reset();
    let e = linalg::matrix_power(&Array2::<f64>::zeros((0, 0)).into_shared(), 3).unwrap();
    assert_eq!(e.value().dim(), (0, 0));
}

#[test]
fn gradient_is_the_sum_formula() {
    // Ā = Σₖ₌₀ⁿ⁻¹ (Aᵀ)ᵏ Ḡ (Aᵀ)ⁿ⁻¹⁻ᵏ, written out.
    let k = 4;
    let x = unit_radius_points(k, 2);
    let c = data_matrix(k, k, &test_points(k * k, 3));
    for n in [1, 2, 3, 6, 13] {
        let a = Var::array(data_matrix(k, k, &x));
        let p = linalg::matrix_power(&a, n).unwrap();
        matrix::dot_product(&p, &c).unwrap().grad();
        let got = linalg::to_nalgebra(&a.adj());
        tape::reset();
        let at = linalg::to_nalgebra(&data_matrix(k, k, &x)).transpose();
        let want = (0..n as usize)
            .map(|j| {
                naive_power(&at, j) * linalg::to_nalgebra(&c) * naive_power(&at, n as usize - 1 - j)
            })
            .fold(DMatrix::zeros(k, k), |s, t| s + t);
        assert!((&got - &want).norm() <= 1e-13 * want.norm(), "n = {n}");
    }
}

#[test]
fn gradients() {
    for n in 1..=7 {
        let f =
            |v: &[Var]| weighted_sum(&linalg::matrix_power(&matrix_from(3, 3, v), n).unwrap(), 1);
        check_gradient(f, &[&test_points(9, 4), &unit_radius_points(3, 5)]);
    }
    for k in [1, 2, 5, 30, 130] {
        let x = unit_radius_points(k, 6 + k as u64);
        for n in [2, 7] {
            let f = |v: &[Var]| {
                weighted_sum(&linalg::matrix_power(&matrix_from(k, k, v), n).unwrap(), 7)
            };
            check_directional(f, &x, 2, GradCheck::default());
        }
    }
}

#[test]
fn large_and_ill_conditioned() {
    // Spectral radius about 10 and n = 12: elements about 1e12, still accurate; and a matrix
    // of condition number 1e10 (singular values 1 … 1e-10), whose powers stay finite.
    let big: Vec<f64> = unit_radius_points(5, 8).iter().map(|v| v * 10.0).collect();
    let q = linalg::to_nalgebra(&data_matrix(5, 5, &unit_radius_points(5, 9)))
        .qr()
        .q();
    let s = DMatrix::from_diagonal(&nalgebra::DVector::from_row_slice(&[
        1.0, 1e-3, 1e-5, 1e-8, 1e-10,
    ]));
    let ill: Vec<f64> = (&q * s * q.transpose())
        .transpose()
        .iter()
        .copied()
        .collect();
    for x in [big, ill] {
        let a = data_matrix(5, 5, &x);
        let p = linalg::to_nalgebra(linalg::matrix_power(&a, 12).unwrap().value());
        let want = naive_power(&linalg::to_nalgebra(&a), 12);
        assert!((&p - &want).norm() <= 1e-13 * want.norm());
        let f =
            |v: &[Var]| weighted_sum(&linalg::matrix_power(&matrix_from(5, 5, v), 12).unwrap(), 9);
        let opts = GradCheck {
            rel_tol: 1e-6,
            ..Default::default()
        };
        check_directional(f, &x, 2, opts);
    }
}

#[test]
fn bad_input() {
    let wide = data_matrix(2, 3, &[1.0; 6]);
    let sq = data_matrix(2, 2, &[1.0, 2.0, 3.0, 4.0]);
    let nan = data_matrix(2, 2, &[1.0, f64::NAN, 3.0, 4.0]);
    let inf = data_matrix(2, 2, &[1.0, 2.0, f64::INFINITY, 4.0]);
    let cases = [
        (
            linalg::matrix_power(&wide, 2),
            "matrix_power: columns of M has size 3, but must have size 2",
        ),
        (
            linalg::matrix_power(&wide, -1),
            "matrix_power: columns of M has size 3, but must have size 2",
        ),
        (
            linalg::matrix_power(&sq, -1),
            "matrix_power: n is -1, but must be nonnegative",
        ),
        (
            linalg::matrix_power(&nan, -2),
            "matrix_power: n is -2, but must be nonnegative",
        ),
        (
            linalg::matrix_power(&nan, 2),
            "matrix_power: M[1,2] is NaN, but must be finite",
        ),
        (
            linalg::matrix_power(&inf, 0),
            "matrix_power: M[2,1] is inf, but must be finite",
        ),
    ];
    for (r, want) in cases {
        assert_eq!(r.unwrap_err().to_string(), want);
    }
}
