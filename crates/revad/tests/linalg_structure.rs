//! `add_diag`, `symmetrize_from_lower_tri`: values, gradients for every kind of addend and
//! data/variable mix, random directions, bad input.

use ndarray::{array, Array2};
use revad::testing::data_matrix;
use revad::testing::{
    check_directional, check_gradient, matrix_from, row_vector_from, test_points, vector_from,
    weighted_sum, GradCheck,
};
use revad::{linalg, matrix, tape, RowVector, Var};

#[test]
fn add_diag_values() {
    let a = data_matrix(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let want = array![[1.5, 2.0, 3.0], [4.0, 5.5, 6.0]].into_shared();
    assert_eq!(*linalg::add_diag(&a, 0.5).unwrap().value(), want);
    assert_eq!(*linalg::add_diag(&a, Var::new(0.5)).unwrap().value(), want);
    let v = array![0.5, -1.0].into_shared();
    let want = array![[1.5, 2.0, 3.0], [4.0, 4.0, 6.0]].into_shared();
    assert_eq!(*linalg::add_diag(&a, &v).unwrap().value(), want);
    assert_eq!(
        *linalg::add_diag(&a, &RowVector(v.clone())).unwrap().value(),
        want
    );
    let dv = nalgebra::DVector::from_row_slice(&[0.5, -1.0]);
    assert_eq!(*linalg::add_diag(&a, &dv).unwrap().value(), want);
    // Tall, and nalgebra's matrix as the operand.
    let t = nalgebra::DMatrix::from_row_slice(3, 2, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let want = array![[2.0, 2.0], [3.0, 5.0], [5.0, 6.0]].into_shared();
    assert_eq!(
        *linalg::add_diag(&t, &array![1.0, 1.0].into_shared())
            .unwrap()
            .value(),
        want
    );
    // Empty, and NaN passed through (not checked, as Stan).
    let e = Array2::<f64>::zeros((0, 3)).into_shared();
    assert_eq!(linalg::add_diag(&e, 1.0).unwrap().value().dim(), (0, 3));
    assert!(linalg::add_diag(&a, f64::NAN).unwrap().value()[[1, 1]].is_nan());
}

#[test]
fn add_diag_gradients() {
    let x = test_points(12 + 3, 1);
    let (xa, xd) = (&x[..12], &x[12..]);
    for (r, c) in [(3, 4), (4, 3)] {
        let (a, dvec) = (
            data_matrix(r, c, xa),
            array![xd[0], xd[1], xd[2]].into_shared(),
        );
        // Scalar addend: both variables, matrix variable, scalar variable.
        check_gradient(
            |v: &[Var]| {
                weighted_sum(
                    &linalg::add_diag(&matrix_from(r, c, &v[..12]), v[12]).unwrap(),
                    1,
                )
            },
            &[&x[..13]],
        );
        check_gradient(
            |v: &[Var]| weighted_sum(&linalg::add_diag(&matrix_from(r, c, v), 0.25).unwrap(), 1),
            &[xa],
        );
        check_gradient(
            |v: &[Var]| weighted_sum(&linalg::add_diag(&a, v[0]).unwrap(), 1),
            &[&[0.7]],
        );
        // Vector and row-vector addends, each mix.
        check_gradient(
            |v: &[Var]| {
                let m = matrix_from(r, c, &v[..12]);
                weighted_sum(&linalg::add_diag(&m, &vector_from(&v[12..])).unwrap(), 2)
            },
            &[&x],
        );
        check_gradient(
            |v: &[Var]| weighted_sum(&linalg::add_diag(&matrix_from(r, c, v), &dvec).unwrap(), 2),
            &[xa],
        );
        check_gradient(
            |v: &[Var]| weighted_sum(&linalg::add_diag(&a, &vector_from(v)).unwrap(), 2),
            &[xd],
        );
        check_gradient(
            |v: &[Var]| weighted_sum(&linalg::add_diag(&a, &row_vector_from(v)).unwrap(), 3),
            &[xd],
        );
    }
    for k in [1, 2, 5, 30, 130] {
        let x = test_points(k * k + k, 2);
        let f = |v: &[Var]| {
            let m = matrix_from(k, k, &v[..k * k]);
            let s = linalg::add_diag(&m, &vector_from(&v[k * k..])).unwrap();
            weighted_sum(&linalg::add_diag(&s, v[0]).unwrap(), 4)
        };
        check_directional(f, &x, 2, GradCheck::default());
    }
}

#[test]
fn symmetrize_values_and_gradients() {
    let a = data_matrix(3, 3, &[1.0, 9.0, 9.0, 2.0, 3.0, 9.0, 4.0, 5.0, 6.0]);
    let want = array![[1.0, 2.0, 4.0], [2.0, 3.0, 5.0], [4.0, 5.0, 6.0]].into_shared();
    let av = Var::array(a.clone());
    let s = linalg::symmetrize_from_lower_tri(&av).unwrap();
    assert_eq!(*s.value(), want);
    // The upper triangle gets nothing; the lower both mirrored adjoints.
    let c = data_matrix(3, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    matrix::dot_product(&s, &c).unwrap().grad();
    let g = array![[1.0, 0.0, 0.0], [6.0, 5.0, 0.0], [10.0, 14.0, 9.0]].into_shared();
    assert_eq!(av.adj(), g);
    tape::reset();
    assert_eq!(
        linalg::symmetrize_from_lower_tri(&Array2::<f64>::zeros((0, 0)).into_shared())
            .unwrap()
            .value()
            .dim(),
        (0, 0)
    );
    check_gradient(
        |v: &[Var]| {
            weighted_sum(
                &linalg::symmetrize_from_lower_tri(&matrix_from(4, 4, v)).unwrap(),
                5,
            )
        },
        &[&test_points(16, 6)],
    );
    for k in [1, 2, 5, 30, 130] {
        let f = |v: &[Var]| {
            weighted_sum(
                &linalg::symmetrize_from_lower_tri(&matrix_from(k, k, v)).unwrap(),
                7,
            )
        };
        check_directional(f, &test_points(k * k, 8), 2, GradCheck::default());
    }
}

#[test]
fn bad_input() {
    let a = data_matrix(3, 2, &[1.0; 6]);
    let cases = [
        (
            linalg::add_diag(&a, &array![1.0, 2.0, 3.0].into_shared()),
            "add_diag: number of elements of to_add has size 3, but must have size 2",
        ),
        (
            linalg::add_diag(&a, &Var::array(array![1.0].into_shared())),
            "add_diag: number of elements of to_add has size 1, but must have size 2",
        ),
        (
            linalg::symmetrize_from_lower_tri(&a),
            "symmetrize_from_lower_tri: columns of m has size 2, but must have size 3",
        ),
    ];
    for (r, want) in cases {
        assert_eq!(r.unwrap_err().to_string(), want);
    }
    tape::reset();
}
