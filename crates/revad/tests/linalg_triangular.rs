//! `mdivide_left_tri_low` and `mdivide_right_tri_low`: values (residuals, the upper triangle
//! ignored), gradients by finite differences and along random directions for each
//! data/variable mix, bad input, and an ill-conditioned triangle.

use ndarray::{array, Array1, Array2};
use revad::testing::test_points;
use revad::testing::{check_mix, data_matrix, Mix};
use revad::{linalg, matrix, tape, Matrix, RowVector, Storage, Var, Vector};

/// A `k×k` matrix whose lower triangle is well conditioned (irregular entries in (−2, 2),
/// `2k` added on the diagonal) and whose strict upper triangle holds other irregular values
/// that the solves must ignore.
fn lower_plus_junk(k: usize, seed: u64) -> Vec<f64> {
    let mut a = test_points(k * k, seed);
    for i in 0..k {
        a[i * k + i] += 2.0 * k as f64;
    }
    a
}

fn tril(a: &Matrix) -> Array2<f64> {
    Array2::from_shape_fn(a.dim(), |(i, j)| if j <= i { a[[i, j]] } else { 0.0 })
}

fn left<S: Storage>(l: &Var<Matrix>, b: &Var<S>) -> Var<S> {
    linalg::mdivide_left_tri_low(l, b).unwrap()
}

fn right<S: Storage>(l: &Var<Matrix>, b: &Var<S>) -> Var<S> {
    linalg::mdivide_right_tri_low(b, l).unwrap()
}

#[test]
fn values_use_only_the_lower_triangle() {
    // Sizes on both sides of the 64-row block and of the recursive halving.
    for k in [1, 2, 5, 30, 64, 65, 130, 200] {
        let l = data_matrix(k, k, &lower_plus_junk(k, 3));
        let clean = tril(&l).into_shared();
        for m in [1, 3, 70] {
            let b = data_matrix(k, m, &test_points(k * m, 4));
            let c = linalg::mdivide_left_tri_low(&l, &b).unwrap();
            let c_clean = linalg::mdivide_left_tri_low(&clean, &b).unwrap();
            assert_eq!(c.value(), c_clean.value(), "k={k} m={m}");
            let resid = clean.dot(c.value()) - &b;
            assert!(resid.iter().all(|r| r.abs() < 1e-12), "k={k} m={m}");
            let bt = b.t().as_standard_layout().into_owned().into_shared();
            let d = linalg::mdivide_right_tri_low(&bt, &l).unwrap();
            let resid = d.value().dot(&clean) - &bt;
            assert!(resid.iter().all(|r| r.abs() < 1e-12), "k={k} m={m}");
        }
        // A vector right-hand side (its own code path) agrees with a one-column matrix.
        let v: Vector = Array1::from(test_points(k, 4)).into_shared();
        let cv = linalg::mdivide_left_tri_low(&l, &v).unwrap();
        let cm = linalg::mdivide_left_tri_low(&l, &data_matrix(k, 1, &v.to_vec())).unwrap();
        assert!(cv
            .value()
            .iter()
            .zip(cm.value())
            .all(|(x, y)| (x - y).abs() < 1e-14));
        let rv = RowVector(v.clone());
        let dv = linalg::mdivide_right_tri_low(&rv, &l).unwrap();
        let dm = linalg::mdivide_right_tri_low(&data_matrix(1, k, &v.to_vec()), &l).unwrap();
        assert!(dv
            .value()
            .0
            .iter()
            .zip(dm.value())
            .all(|(x, y)| (x - y).abs() < 1e-14));
    }
    let l: Matrix = array![[2.0, 7.0], [1.0, 4.0]].into_shared();
    let c = linalg::mdivide_left_tri_low(&l, &array![2.0, 9.0].into_shared()).unwrap();
    assert_eq!(*c.value(), array![1.0, 2.0].into_shared());
    let c = linalg::mdivide_right_tri_low(&RowVector(array![5.0, 8.0].into_shared()), &l);
    assert_eq!(c.unwrap().value().0, array![1.5, 2.0].into_shared());
    tape::reset();
}

#[test]
fn gradients_for_each_mix_and_size() {
    for k in [1, 2, 5, 30, 130] {
        let (dirs, full) = (if k > 30 { 1 } else { 2 }, k <= 2);
        let l = data_matrix(k, k, &lower_plus_junk(k, 21));
        let m = data_matrix(k, 3, &test_points(3 * k, 22));
        let mt = data_matrix(3, k, &test_points(3 * k, 22));
        let v = Vector::from(test_points(k, 22));
        let rv = RowVector(v.clone());
        for mix in Mix::ALL {
            check_mix(&l, &m, mix, dirs, full, 6, left);
            check_mix(&l, &mt, mix, dirs, full, 6, right);
            check_mix(&l, &v, mix, dirs, full, 6, left);
            check_mix(&l, &rv, mix, dirs, full, 6, right);
        }
        tape::reset();
    }
}

#[test]
fn the_upper_triangle_gets_no_adjoint() {
    let k = 4;
    let l = Var::array(data_matrix(k, k, &lower_plus_junk(k, 8)));
    let b = Var::array(data_matrix(k, 2, &test_points(2 * k, 9)));
    let c = linalg::mdivide_left_tri_low(&l, &b).unwrap();
    let d = linalg::mdivide_right_tri_low(&matrix::transpose(&b), &l).unwrap();
    (matrix::sum(&c) + matrix::sum(&d)).grad();
    let adj = l.adj();
    for i in 0..k {
        for j in 0..k {
            assert_eq!(adj[[i, j]] == 0.0, j > i, "[{i},{j}] = {}", adj[[i, j]]);
        }
    }
    tape::reset();
}

#[test]
fn bad_input() {
    let sq = data_matrix(3, 3, &lower_plus_junk(3, 1));
    let cases: Vec<(revad::Error, &str)> = vec![
        (
            linalg::mdivide_left_tri_low(
                &data_matrix(2, 3, &[1.0; 6]),
                &data_matrix(2, 1, &[1.0; 2]),
            )
            .unwrap_err(),
            "mdivide_left_tri_low: columns of L has size 3, but must have size 2",
        ),
        (
            linalg::mdivide_left_tri_low(&sq, &array![1.0, 2.0].into_shared()).unwrap_err(),
            "mdivide_left_tri_low: rows of B has size 2, but must have size 3",
        ),
        (
            linalg::mdivide_right_tri_low(
                &data_matrix(1, 2, &[1.0; 2]),
                &data_matrix(2, 3, &[1.0; 6]),
            )
            .unwrap_err(),
            "mdivide_right_tri_low: columns of L has size 3, but must have size 2",
        ),
        (
            linalg::mdivide_right_tri_low(&data_matrix(2, 2, &[1.0; 4]), &sq).unwrap_err(),
            "mdivide_right_tri_low: columns of B has size 2, but must have size 3",
        ),
    ];
    for (e, msg) in cases {
        assert_eq!(e.to_string(), msg);
    }
    // A zero on the diagonal or a NaN is not an error, as in Stan: the result is not finite.
    let zero = data_matrix(2, 2, &[1.0, 0.0, 1.0, 0.0]);
    let c = linalg::mdivide_left_tri_low(&zero, &array![1.0, 1.0].into_shared()).unwrap();
    assert!(c.value().iter().any(|x| !x.is_finite()));
    let nan = data_matrix(2, 2, &[1.0, 0.0, f64::NAN, 1.0]);
    let c = linalg::mdivide_right_tri_low(&data_matrix(3, 2, &[1.0; 6]), &nan).unwrap();
    assert!(c.value().iter().any(|x| x.is_nan()));
    tape::reset();
}

/// `L = D·(I + N)` with `D = diag(1, …, 1e-10)` and a small strictly lower `N`: condition
/// number about 1e10. Triangular substitution is backward stable (each row's residual is at
/// rounding level relative to `|L|·|C|`), and the reverse pass, a substitution with `Lᵀ`,
/// gives `B̄` with `LᵀB̄ = C̄` to the same level; `L̄` is finite.
#[test]
fn ill_conditioned_triangle() {
    let k = 40;
    let junk = test_points(k * k, 5);
    let l = data_matrix(
        k,
        k,
        &(0..k * k)
            .map(|p| {
                let (i, j) = (p / k, p % k);
                let d = 10f64.powf(-10.0 * i as f64 / (k - 1) as f64);
                match j.cmp(&i) {
                    std::cmp::Ordering::Less => d * 0.1 * junk[p] / k as f64,
                    std::cmp::Ordering::Equal => d,
                    std::cmp::Ordering::Greater => junk[p],
                }
            })
            .collect::<Vec<f64>>(),
    );
    let clean = tril(&l);
    let lv = Var::array(l.clone());
    let bv = Var::array(Array1::from(test_points(k, 6)).into_shared());
    let c = linalg::mdivide_left_tri_low(&lv, &bv).unwrap();
    let cv = c.value().clone();
    // Componentwise backward error: |LC − B| ≤ tol·|L|·|C|.
    let resid = clean.dot(&cv) - bv.value();
    let bound = clean.mapv(f64::abs).dot(&cv.mapv(f64::abs));
    assert!(resid.iter().zip(&bound).all(|(r, b)| r.abs() <= 1e-14 * b));
    let cbar = Array1::from(test_points(k, 7));
    matrix::dot_product(&c, &cbar.clone().into_shared())
        .unwrap()
        .grad();
    let bbar = bv.adj();
    let resid = clean.t().dot(&bbar) - &cbar;
    let bound = clean.t().mapv(f64::abs).dot(&bbar.mapv(f64::abs));
    assert!(resid.iter().zip(&bound).all(|(r, b)| r.abs() <= 1e-14 * b));
    assert!(lv.adj().iter().all(|x| x.is_finite()));
    tape::reset();
}
