//! `log_determinant_spd`, `mdivide_left_spd`, `mdivide_right_spd`, `inverse_spd`, `chol2inv`:
//! values against residuals, closed forms and nalgebra; gradients by finite differences and
//! random directions for each data/variable mix; an ill-conditioned matrix; bad input.

use nalgebra::{DMatrix, DVector};
use ndarray::{array, Array1, Array2};
use revad::testing::{
    check_directional, check_gradient, matrix_from, row_vector_from, test_points, vector_from,
    weighted_sum,
};
use revad::testing::{max_abs, spd_from, spd_matrix, Mix};
use revad::{linalg, matrix, tape, Matrix, RowVector, Var, Vector};

/// [`spd_matrix`] as a nalgebra matrix.
fn spd(k: usize, seed: u64) -> DMatrix<f64> {
    linalg::to_nalgebra(&spd_matrix(k, seed))
}

/// The k×k lower-triangular matrix whose lower triangle (row by row) is `v`.
fn lower_from(v: &[Var], k: usize) -> Var<Matrix> {
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

/// The lower triangle of the Cholesky factor of `spd(k, seed)`, row by row.
fn factor_params(k: usize, seed: u64) -> Vec<f64> {
    let l = nalgebra::Cholesky::new(spd(k, seed)).unwrap().l();
    (0..k)
        .flat_map(|i| (0..=i).map(move |j| (i, j)))
        .map(|(i, j)| l[(i, j)])
        .collect()
}

#[test]
fn log_determinant_spd_values_and_gradients() {
    let exact = linalg::log_determinant_spd(&array![[4.0, 2.0], [2.0, 5.0]].into_shared()).unwrap();
    assert!((exact.value() - 16f64.ln()).abs() < 1e-15);
    for k in [1, 5, 36] {
        let a = spd(k, 1);
        let v = linalg::log_determinant_spd(&linalg::from_nalgebra(&a))
            .unwrap()
            .value();
        let reference = a.clone().lu().determinant().ln();
        assert!(
            (v - reference).abs() <= 1e-12 * reference.abs().max(1.0),
            "k = {k}"
        );
    }
    let empty = linalg::log_determinant_spd(&Array2::<f64>::zeros((0, 0)).into_shared()).unwrap();
    assert_eq!(empty.value(), 0.0);
    // Ā = ḡA⁻¹, both triangles.
    let a = spd(4, 2);
    let av = Var::array(linalg::from_nalgebra(&a));
    (linalg::log_determinant_spd(&av).unwrap() * 3.0).grad();
    let adj = linalg::to_nalgebra(&av.adj());
    let inv = a.try_inverse().unwrap();
    assert!(max_abs(&(adj - inv * 3.0)) <= 1e-14);
    tape::reset();
    for k in [1, 2, 4] {
        let f = move |v: &[Var]| linalg::log_determinant_spd(&spd_from(k, v)).unwrap();
        check_gradient(f, &[&test_points(k * k, 3)]);
    }
    for k in [1, 2, 5, 30, 130] {
        let f = move |v: &[Var]| linalg::log_determinant_spd(&spd_from(k, v)).unwrap();
        check_directional(f, &test_points(k * k, 4), 2, Default::default());
    }
    tape::reset();
}

/// `A⁻¹B` (`right`: `BA⁻¹`) with `A = XXᵀ + kI` and `B` a k×m matrix (m×k for `right`), or a
/// vector (row vector) when `m` is 0. The variables `v` hold X's k² values (if A is a
/// variable) then B's (if B is); a data operand is fixed (`X`, `B` from `test_points`).
fn solve(v: &[Var], k: usize, m: usize, mix: Mix, right: bool) -> Var {
    let nb = if m == 0 { k } else { k * m };
    let (a_is_var, b_is_var) = match mix {
        Mix::Both => (true, true),
        Mix::FirstOnly => (true, false),
        Mix::SecondOnly => (false, true),
    };
    let (xv, bv) = v.split_at(if a_is_var { k * k } else { 0 });
    let a_var = a_is_var.then(|| spd_from(k, xv));
    let a_data = linalg::from_nalgebra(&spd(k, 21));
    let b_data = test_points(nb, 22);
    macro_rules! go {
        ($b:expr) => {{
            let b = $b;
            match (&a_var, right) {
                (Some(a), false) => weighted_sum(&linalg::mdivide_left_spd(a, &b).unwrap(), 3),
                (None, false) => weighted_sum(&linalg::mdivide_left_spd(&a_data, &b).unwrap(), 3),
                (Some(a), true) => weighted_sum(&linalg::mdivide_right_spd(&b, a).unwrap(), 3),
                (None, true) => weighted_sum(&linalg::mdivide_right_spd(&b, &a_data).unwrap(), 3),
            }
        }};
    }
    let (r, c) = if right { (m, k) } else { (k, m) };
    match (m, right, b_is_var) {
        (0, false, true) => go!(vector_from(bv)),
        (0, false, false) => go!(Vector::from(b_data)),
        (0, true, true) => go!(row_vector_from(bv)),
        (0, true, false) => go!(RowVector(Array1::from(b_data).into_shared())),
        (_, _, true) => go!(matrix_from(r, c, bv)),
        (_, _, false) => go!(Array2::from_shape_vec((r, c), b_data)
            .unwrap()
            .into_shared()),
    }
}

/// How many variables [`solve`] takes.
fn solve_len(k: usize, m: usize, mix: Mix) -> usize {
    let nb = if m == 0 { k } else { k * m };
    match mix {
        Mix::Both => k * k + nb,
        Mix::FirstOnly => k * k,
        Mix::SecondOnly => nb,
    }
}

#[test]
fn mdivide_spd_values() {
    for k in [1, 5, 40] {
        let a = spd(k, 1);
        let am = linalg::from_nalgebra(&a);
        let b = DMatrix::from_row_slice(k, 3, &test_points(3 * k, 2));
        let x = linalg::mdivide_left_spd(&am, &linalg::from_nalgebra(&b)).unwrap();
        let x = linalg::to_nalgebra(x.value());
        let scale = max_abs(&a) * max_abs(&x);
        assert!(max_abs(&(&a * &x - &b)) <= 1e-13 * scale, "k = {k}");
        let bv = DVector::from_vec(test_points(k, 3));
        let xv = linalg::mdivide_left_spd(&am, &linalg::vector_from_nalgebra(&bv)).unwrap();
        let xv = linalg::vector_to_nalgebra(xv.value());
        assert!(
            (&a * &xv - &bv).amax() <= 1e-13 * max_abs(&a) * xv.amax(),
            "k = {k}"
        );
        let bt = b.transpose();
        let y = linalg::mdivide_right_spd(&linalg::from_nalgebra(&bt), &am).unwrap();
        let y = linalg::to_nalgebra(y.value());
        assert!(
            max_abs(&(&y - x.transpose())) <= 1e-13 * max_abs(&x),
            "k = {k}"
        );
        let br = RowVector(Array1::from(test_points(k, 3)).into_shared());
        let yr = linalg::mdivide_right_spd(&br, &am).unwrap();
        for i in 0..k {
            assert!((yr.value().0[i] - xv[i]).abs() <= 1e-13 * xv.amax());
        }
    }
    let a = array![[4.0, 2.0], [2.0, 5.0]].into_shared();
    let x = linalg::mdivide_left_spd(&a, &Vector::from(vec![2.0, 1.0])).unwrap();
    assert_eq!(x.value().to_vec(), vec![0.5, 0.0]);
    let e = Array2::<f64>::zeros((0, 2)).into_shared();
    let none = linalg::mdivide_left_spd(&Array2::<f64>::zeros((0, 0)).into_shared(), &e).unwrap();
    assert_eq!(none.value().dim(), (0, 2));
    tape::reset();
}

#[test]
fn mdivide_spd_gradients_for_each_mix() {
    for right in [false, true] {
        for mix in Mix::ALL {
            for (k, m) in [(1, 0), (2, 0), (2, 2), (3, 1)] {
                let x = test_points(solve_len(k, m, mix), 5);
                check_gradient(move |v: &[Var]| solve(v, k, m, mix, right), &[&x]);
            }
            for (k, m) in [(1, 0), (2, 3), (5, 0), (5, 2), (30, 4), (130, 3)] {
                let x = test_points(solve_len(k, m, mix), 6);
                let f = move |v: &[Var]| solve(v, k, m, mix, right);
                check_directional(f, &x, 1, Default::default());
            }
        }
    }
    tape::reset();
}

#[test]
fn inverse_spd_values_and_gradients() {
    for k in [1, 5, 40] {
        let a = spd(k, 1);
        let s = linalg::inverse_spd(&linalg::from_nalgebra(&a)).unwrap();
        let sv = s.value();
        for i in 0..k {
            for j in 0..k {
                assert_eq!(sv[[i, j]], sv[[j, i]]);
            }
        }
        let s = linalg::to_nalgebra(sv);
        assert!(
            max_abs(&(&a * &s - DMatrix::identity(k, k))) <= 1e-13,
            "k = {k}"
        );
    }
    let s = linalg::inverse_spd(&array![[4.0, 2.0], [2.0, 5.0]].into_shared()).unwrap();
    let expected = array![[5.0, -2.0], [-2.0, 4.0]] / 16.0;
    assert!(s
        .value()
        .iter()
        .zip(expected.iter())
        .all(|(a, b)| (a - b).abs() < 1e-16));
    // The value is that of ½(A + Aᵀ): an asymmetry within the tolerance is averaged.
    let skew = linalg::inverse_spd(&array![[4.0, 2.0 + 4e-9], [2.0 - 4e-9, 5.0]].into_shared());
    assert_eq!(*skew.unwrap().value(), *s.value());
    let empty = linalg::inverse_spd(&Array2::<f64>::zeros((0, 0)).into_shared()).unwrap();
    assert_eq!(empty.value().dim(), (0, 0));
    for k in [1, 2, 4] {
        let f = move |v: &[Var]| weighted_sum(&linalg::inverse_spd(&spd_from(k, v)).unwrap(), 8);
        check_gradient(f, &[&test_points(k * k, 9)]);
    }
    for k in [1, 2, 5, 30, 130] {
        let f = move |v: &[Var]| weighted_sum(&linalg::inverse_spd(&spd_from(k, v)).unwrap(), 8);
        check_directional(f, &test_points(k * k, 10), 2, Default::default());
    }
    tape::reset();
}

#[test]
fn chol2inv_values_and_gradients() {
    for k in [1, 5, 40] {
        let a = spd(k, 1);
        let l = nalgebra::Cholesky::new(a.clone()).unwrap().l();
        let x = linalg::chol2inv(&linalg::from_nalgebra(&l)).unwrap();
        let xv = x.value();
        for i in 0..k {
            for j in 0..k {
                assert_eq!(xv[[i, j]], xv[[j, i]]);
            }
        }
        let x = linalg::to_nalgebra(xv);
        assert!(
            max_abs(&(&a * &x - DMatrix::identity(k, k))) <= 1e-13,
            "k = {k}"
        );
    }
    let x = linalg::chol2inv(&array![[2.0]].into_shared()).unwrap();
    assert_eq!(x.value()[[0, 0]], 0.25);
    // The inverse of an SPD matrix from its factor equals inverse_spd of the matrix.
    let a = spd(6, 3);
    let l = linalg::cholesky_decompose(&linalg::from_nalgebra(&a)).unwrap();
    let x = linalg::to_nalgebra(linalg::chol2inv(&l).unwrap().value());
    let s = linalg::to_nalgebra(
        linalg::inverse_spd(&linalg::from_nalgebra(&a))
            .unwrap()
            .value(),
    );
    assert!(max_abs(&(x - s)) <= 1e-15);
    tape::reset();
    for k in [1, 2, 4] {
        let f = move |v: &[Var]| weighted_sum(&linalg::chol2inv(&lower_from(v, k)).unwrap(), 4);
        check_gradient(f, &[&factor_params(k, 11)]);
    }
    for k in [1, 2, 5, 30, 130] {
        let f = move |v: &[Var]| weighted_sum(&linalg::chol2inv(&lower_from(v, k)).unwrap(), 4);
        check_directional(f, &factor_params(k, 12), 2, Default::default());
    }
    // chol2inv ∘ cholesky_decompose has inverse_spd's gradient.
    let a = spd(5, 13);
    let g = |via_factor: bool| {
        let av = Var::array(linalg::from_nalgebra(&a));
        let s = if via_factor {
            linalg::chol2inv(&linalg::cholesky_decompose(&av).unwrap()).unwrap()
        } else {
            linalg::inverse_spd(&av).unwrap()
        };
        weighted_sum(&s, 14).grad();
        let adj = linalg::to_nalgebra(&av.adj());
        tape::reset();
        adj
    };
    // The factor route puts the pair Aᵢⱼ = Aⱼᵢ on the lower triangle; inverse_spd splits it.
    let (lower, sym) = (g(true), g(false));
    for i in 0..5 {
        for j in 0..i {
            assert!((lower[(i, j)] - sym[(i, j)] - sym[(j, i)]).abs() <= 1e-14);
            assert_eq!(lower[(j, i)], 0.0);
        }
        assert!((lower[(i, i)] - sym[(i, i)]).abs() <= 1e-14);
    }
}

/// `QΛQᵀ` with `Q` a Householder reflection and eigenvalues from 1 down to 1e-10, its inverse
/// `QΛ⁻¹Qᵀ` from the same factors, and log|A| = Σ log λ.
fn ill_conditioned(k: usize) -> (DMatrix<f64>, DMatrix<f64>, f64) {
    let v = DVector::from_vec(test_points(k, 12));
    let q = DMatrix::identity(k, k) - &v * v.transpose() * (2.0 / v.dot(&v));
    let lambda: Vec<f64> = (0..k)
        .map(|i| 10f64.powf(-10.0 * i as f64 / (k - 1) as f64))
        .collect();
    let d = DMatrix::from_diagonal(&DVector::from_vec(lambda.clone()));
    let di = DMatrix::from_diagonal(&DVector::from_vec(lambda.iter().map(|x| 1.0 / x).collect()));
    let a = &q * d * q.transpose();
    let a = (&a + a.transpose()) * 0.5;
    let log_det = lambda.iter().map(|x| x.ln()).sum();
    (a, &q * di * q.transpose(), log_det)
}

#[test]
fn ill_conditioned_matrix_gives_finite_accurate_results() {
    // Condition number 1e10: the log determinant is accurate to about cond·ε in absolute
    // terms; inverse-like results (A⁻¹, its use in every gradient) to about cond·ε relative
    // to ‖A⁻¹‖; the solve's residual stays at rounding level (backward stability).
    for k in [5, 40] {
        let (a, inv, log_det) = ill_conditioned(k);
        let am = linalg::from_nalgebra(&a);
        let av = Var::array(am.clone());
        let ld = linalg::log_determinant_spd(&av).unwrap();
        assert!((ld.value() - log_det).abs() <= 1e-4, "k = {k}");
        ld.grad();
        let scale = max_abs(&inv);
        assert!(max_abs(&(linalg::to_nalgebra(&av.adj()) - &inv)) <= 1e-4 * scale);
        tape::reset();
        let s = linalg::inverse_spd(&am).unwrap();
        assert!(max_abs(&(linalg::to_nalgebra(s.value()) - &inv)) <= 1e-4 * scale);
        let b = DVector::from_vec(test_points(k, 2));
        let av = Var::array(am.clone());
        let x = linalg::mdivide_left_spd(&av, &linalg::vector_from_nalgebra(&b)).unwrap();
        let xv = linalg::vector_to_nalgebra(x.value());
        assert!((&a * &xv - &b).amax() <= 1e-14 * xv.amax());
        matrix::sum(&x).grad();
        assert!(av.adj().iter().all(|x| x.is_finite()));
        tape::reset();
        let br = RowVector(Array1::from(test_points(k, 2)).into_shared());
        let y = linalg::mdivide_right_spd(&br, &am).unwrap();
        let yv = DVector::from_iterator(k, y.value().0.iter().copied());
        assert!((a.transpose() * &yv - &b).amax() <= 1e-14 * yv.amax());
        // chol2inv from the factor: A⁻¹ again, to cond·ε relative to ‖A⁻¹‖.
        let l = linalg::cholesky_decompose(&am).unwrap();
        let x = linalg::chol2inv(&l).unwrap();
        assert!(max_abs(&(linalg::to_nalgebra(x.value()) - &inv)) <= 1e-4 * scale);
        tape::reset();
    }
}

#[test]
fn bad_input_fails_with_stan_messages() {
    let nan = f64::NAN;
    let square = |m: [[f64; 2]; 2]| -> Matrix { Array2::from(m.to_vec()).into_shared() };
    let wide: Matrix = array![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]].into_shared();
    let asym = square([[1.0, 2.0], [3.0, 4.0]]);
    let nan_diag = square([[1.0, 0.0], [0.0, nan]]);
    let indefinite = square([[1.0, 2.0], [2.0, 1.0]]);
    let singular = square([[1.0, 1.0], [1.0, 1.0]]);
    let good = square([[2.0, 1.0], [1.0, 2.0]]);
    type Unary = fn(&Matrix) -> revad::Result<()>;
    let unary: [(&str, Unary); 2] = [
        ("log_determinant_spd", |m| {
            linalg::log_determinant_spd(m).map(drop)
        }),
        ("inverse_spd", |m| linalg::inverse_spd(m).map(drop)),
    ];
    for (f, call) in unary {
        let cases = [
            (
                &wide,
                format!("{f}: columns of m has size 3, but must have size 2"),
            ),
            (
                &asym,
                format!("{f}: m is not symmetric. m[1,2] = 2, but m[2,1] = 3"),
            ),
            (
                &nan_diag,
                format!("{f}: m[2,2] is NaN, but must not be NaN"),
            ),
            (
                &indefinite,
                format!("{f}: Matrix m is not positive definite"),
            ),
            (&singular, format!("{f}: Matrix m is not positive definite")),
        ];
        for (m, message) in cases {
            assert_eq!(call(m).unwrap_err().to_string(), message);
        }
    }
    let b2 = Vector::from(vec![1.0, 2.0]);
    let b3 = Vector::from(vec![1.0, 2.0, 3.0]);
    let left = |a: &Matrix, b: &Vector| linalg::mdivide_left_spd(a, b).map(drop);
    let cases = [
        (
            &good,
            &b3,
            "mdivide_left_spd: rows of b has size 3, but must have size 2",
        ),
        (
            &wide,
            &b3,
            "mdivide_left_spd: columns of A has size 3, but must have size 2",
        ),
        (
            &asym,
            &b2,
            "mdivide_left_spd: A is not symmetric. A[1,2] = 2, but A[2,1] = 3",
        ),
        (
            &nan_diag,
            &b2,
            "mdivide_left_spd: A[2,2] is NaN, but must not be NaN",
        ),
        (
            &indefinite,
            &b2,
            "mdivide_left_spd: Matrix A is not positive definite",
        ),
        (
            &singular,
            &b2,
            "mdivide_left_spd: Matrix A is not positive definite",
        ),
    ];
    for (a, b, message) in cases {
        assert_eq!(left(a, b).unwrap_err().to_string(), message);
        // Variables fail the same way.
        let e = linalg::mdivide_left_spd(&Var::array(a.clone()), &Var::array(b.clone()));
        assert_eq!(e.unwrap_err().to_string(), message);
    }
    let r2 = RowVector(Array1::from(vec![1.0, 2.0]).into_shared());
    let r3 = RowVector(Array1::from(vec![1.0, 2.0, 3.0]).into_shared());
    let right = |b: &RowVector, a: &Matrix| linalg::mdivide_right_spd(b, a).map(drop);
    let tall: Matrix = array![[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]].into_shared();
    let cases = [
        (
            &r3,
            &good,
            "mdivide_right_spd: rows of A has size 2, but must have size 3",
        ),
        (
            &r3,
            &tall,
            "mdivide_right_spd: columns of A has size 2, but must have size 3",
        ),
        (
            &r2,
            &asym,
            "mdivide_right_spd: A is not symmetric. A[1,2] = 2, but A[2,1] = 3",
        ),
        (
            &r2,
            &nan_diag,
            "mdivide_right_spd: A[2,2] is NaN, but must not be NaN",
        ),
        (
            &r2,
            &indefinite,
            "mdivide_right_spd: Matrix A is not positive definite",
        ),
        (
            &r2,
            &singular,
            "mdivide_right_spd: Matrix A is not positive definite",
        ),
    ];
    for (b, a, message) in cases {
        assert_eq!(right(b, a).unwrap_err().to_string(), message);
        let e = linalg::mdivide_right_spd(&Var::array(b.clone()), &Var::array(a.clone()));
        assert_eq!(e.unwrap_err().to_string(), message);
    }
    let cases = [
        (
            wide.clone(),
            "chol2inv: columns of L has size 3, but must have size 2",
        ),
        (
            square([[1.0, 0.5], [0.0, 1.0]]),
            "chol2inv: L is not lower triangular; L[1,2]=0.5",
        ),
        (
            square([[1.0, nan], [0.0, 1.0]]),
            "chol2inv: L is not lower triangular; L[1,2]=NaN",
        ),
    ];
    for (l, message) in cases {
        assert_eq!(linalg::chol2inv(&l).unwrap_err().to_string(), message);
        let e = linalg::chol2inv(&Var::array(l));
        assert_eq!(e.unwrap_err().to_string(), message);
    }
    // As in Stan, a zero on L's diagonal is not an error: the inverse is not finite.
    let x = linalg::chol2inv(&square([[1.0, 0.0], [1.0, 0.0]])).unwrap();
    assert!(x.value().iter().any(|v| !v.is_finite()));
    tape::reset();
}
