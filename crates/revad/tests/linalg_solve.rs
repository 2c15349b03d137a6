//! `mdivide_left` and `mdivide_right`: values (residuals and an independent LU solve, a 2×2
//! closed form), gradients by finite differences and along random directions for each
//! data/variable mix of the arguments, bad input, and an ill-conditioned system.

use nalgebra::DMatrix;
use ndarray::{array, Array2};
use revad::testing::test_points;
use revad::testing::{check_mix, data_matrix, pivoting_points, Mix};
use revad::{linalg, tape, Matrix, RowVector, Storage, Var, Vector};

fn to_na(a: &Array2<f64>) -> DMatrix<f64> {
    DMatrix::from_fn(a.nrows(), a.ncols(), |i, j| a[[i, j]])
}

fn left<S: Storage>(a: &Var<Matrix>, b: &Var<S>) -> Var<S> {
    linalg::mdivide_left(a, b).unwrap()
}

fn right<S: Storage>(a: &Var<Matrix>, b: &Var<S>) -> Var<S> {
    linalg::mdivide_right(b, a).unwrap()
}

#[test]
fn values_against_residuals_and_an_independent_solve() {
    for k in [1, 2, 5, 30, 130] {
        let a = data_matrix(k, k, &pivoting_points(k, 3));
        let b = data_matrix(k, 4, &test_points(4 * k, 4));
        let c = linalg::mdivide_left(&a, &b).unwrap();
        let c = c.value();
        let want = to_na(&a.to_owned())
            .lu()
            .solve(&to_na(&b.to_owned()))
            .unwrap();
        let resid = a.dot(c) - &b;
        let scale = k as f64 * 2.0 * k as f64;
        assert!(resid.iter().all(|r| r.abs() < 1e-13 * scale), "k={k}");
        for ((i, j), x) in c.indexed_iter() {
            assert!((x - want[(i, j)]).abs() < 1e-13 * (1.0 + x.abs()), "k={k}");
        }
        // C·A = Bᵀ for the right solve.
        let bt = b.t().as_standard_layout().into_owned().into_shared();
        let d = linalg::mdivide_right(&bt, &a).unwrap();
        let resid = d.value().dot(&a) - &bt;
        assert!(resid.iter().all(|r| r.abs() < 1e-13 * scale), "k={k}");
        // A vector and a row vector give the same numbers as a one-column matrix.
        let v: Vector = b.column(0).to_owned().into_shared();
        let cv = linalg::mdivide_left(&a, &v).unwrap();
        assert!(cv
            .value()
            .iter()
            .zip(c.column(0))
            .all(|(x, y)| (x - y).abs() < 1e-14));
        let rv = RowVector(v.clone());
        let dv = linalg::mdivide_right(&rv, &a).unwrap();
        assert!(dv
            .value()
            .0
            .iter()
            .zip(d.value().row(0))
            .all(|(x, y)| (x - y).abs() < 1e-14));
    }
    // 2×2 by Cramer's rule.
    let a: Matrix = array![[0.0, 2.0], [3.0, 1.0]].into_shared();
    let b: Vector = array![4.0, 5.0].into_shared();
    let c = linalg::mdivide_left(&a, &b).unwrap();
    assert_eq!(*c.value(), array![1.0, 2.0].into_shared());
    // nalgebra matrices are data operands too.
    let na = DMatrix::from_row_slice(2, 2, &[0.0, 2.0, 3.0, 1.0]);
    let c = linalg::mdivide_right(&RowVector(array![6.0, 8.0].into_shared()), &na).unwrap();
    assert_eq!(c.value().0, array![3.0, 2.0].into_shared());
    // Empty systems.
    let e = linalg::mdivide_left(
        &Array2::<f64>::zeros((0, 0)).into_shared(),
        &data_matrix(0, 3, &[]),
    );
    assert_eq!(e.unwrap().shape(), (0, 3));
    tape::reset();
}

#[test]
fn gradients_for_each_mix_and_size() {
    for k in [1, 2, 5, 30, 130] {
        let (dirs, full) = (if k > 30 { 1 } else { 2 }, k <= 2);
        let a = data_matrix(k, k, &pivoting_points(k, 11));
        let m = data_matrix(k, 3, &test_points(3 * k, 12));
        let mt = data_matrix(3, k, &test_points(3 * k, 12));
        let v = Vector::from(test_points(k, 12));
        let rv = RowVector(v.clone());
        for mix in Mix::ALL {
            check_mix(&a, &m, mix, dirs, full, 5, left);
            check_mix(&a, &mt, mix, dirs, full, 5, right);
            if k <= 30 {
                check_mix(&a, &v, mix, dirs, full, 5, left);
                check_mix(&a, &rv, mix, dirs, full, 5, right);
            }
        }
        tape::reset();
    }
}

#[test]
fn bad_input() {
    let sq = data_matrix(3, 3, &pivoting_points(3, 1));
    let cases: Vec<(revad::Error, &str)> = vec![
        (
            linalg::mdivide_left(&data_matrix(2, 3, &[1.0; 6]), &data_matrix(2, 1, &[1.0; 2]))
                .unwrap_err(),
            "mdivide_left: columns of A has size 3, but must have size 2",
        ),
        (
            linalg::mdivide_left(&sq, &data_matrix(2, 2, &[1.0; 4])).unwrap_err(),
            "mdivide_left: rows of B has size 2, but must have size 3",
        ),
        (
            linalg::mdivide_right(&data_matrix(1, 2, &[1.0; 2]), &data_matrix(2, 3, &[1.0; 6]))
                .unwrap_err(),
            "mdivide_right: columns of A has size 3, but must have size 2",
        ),
        (
            linalg::mdivide_right(&RowVector(array![1.0, 2.0].into_shared()), &sq).unwrap_err(),
            "mdivide_right: columns of B has size 2, but must have size 3",
        ),
    ];
    for (e, msg) in cases {
        assert_eq!(e.to_string(), msg);
    }
    // Neither a singular matrix nor NaN is an error, as in Stan: the result is not finite.
    let singular = data_matrix(2, 2, &[1.0, 2.0, 2.0, 4.0]);
    let c = linalg::mdivide_left(&singular, &array![1.0, 1.0].into_shared()).unwrap();
    assert!(c.value().iter().any(|x| !x.is_finite()));
    let nan = data_matrix(2, 2, &[1.0, f64::NAN, 0.0, 1.0]);
    let c = linalg::mdivide_right(&data_matrix(1, 2, &[1.0, 1.0]), &nan).unwrap();
    assert!(c.value().iter().any(|x| x.is_nan()));
    let a = Var::array(singular);
    let c = linalg::mdivide_left(&a, &array![1.0, 1.0].into_shared()).unwrap();
    revad::matrix::sum(&c).grad();
    assert!(a.adj().iter().any(|x| !x.is_finite()));
    tape::reset();
}

/// `A = Q·diag(1, …, 1e-10)·Qᵀ` with an orthogonal `Q` (condition number 1e10). LU with
/// partial pivoting is backward stable: the residual stays at rounding level relative to
/// `‖A‖·‖C‖` although `C` itself is only good to about 1e-16·1e10. The reverse pass solves
/// with the same factors, so `B̄ = A⁻ᵀC̄` satisfies `AᵀB̄ = C̄` to the same relative level, and
/// `Ā = −B̄Cᵀ` is finite.
#[test]
fn ill_conditioned_system() {
    let k = 20;
    let q = {
        let x = to_na(&data_matrix(k, k, &test_points(k * k, 9)).to_owned());
        x.qr().q()
    };
    let d = DMatrix::from_diagonal(&nalgebra::DVector::from_fn(k, |i, _| {
        10f64.powf(-10.0 * i as f64 / (k - 1) as f64)
    }));
    let a_na = &q * d * q.transpose();
    let a = linalg::from_nalgebra(&a_na);
    let b: Vector = ndarray::Array1::from(test_points(k, 2)).into_shared();
    let av = Var::array(a.clone());
    let bv = Var::array(b.clone());
    let c = linalg::mdivide_left(&av, &bv).unwrap();
    let cv = c.value().clone();
    let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let flat = |x: &Array2<f64>| x.iter().copied().collect::<Vec<f64>>();
    let resid = a.dot(&cv) - &b;
    let an = norm(&flat(&a.to_owned()));
    let rel = norm(&resid.to_vec()) / (an * norm(&cv.to_vec()));
    assert!(rel < 1e-15, "relative residual {rel:e}");
    let cbar: Vec<f64> = test_points(k, 5);
    revad::matrix::dot_product(&c, &ndarray::Array1::from(cbar.clone()).into_shared())
        .unwrap()
        .grad();
    let bbar = bv.adj();
    let back = a.t().dot(&bbar);
    let diff: Vec<f64> = back.iter().zip(&cbar).map(|(x, y)| x - y).collect();
    let rel = norm(&diff) / (an * norm(&bbar.to_vec()));
    assert!(
        rel < 1e-15,
        "relative residual of the adjoint solve {rel:e}"
    );
    assert!(av.adj().iter().all(|x| x.is_finite()));
    tape::reset();
}
