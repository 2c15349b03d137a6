//! `trace`: value, gradient by finite differences and random directions, bad input.

use ndarray::array;
use revad::testing::{check_directional, check_gradient, matrix_from, test_points, weighted_sum};
use revad::{linalg, matrix, tape, Matrix, Var};

#[test]
fn trace_value_gradient_and_errors() {
    let f = |v: &[Var]| linalg::trace(&matrix_from(3, 3, v)).unwrap();
    check_gradient(f, &[&test_points(9, 1), &test_points(9, 2)]);
    let x = test_points(130 * 130, 3);
    check_directional(
        |v: &[Var]| {
            let a = matrix_from(130, 130, v);
            let t = linalg::trace(&a).unwrap();
            weighted_sum(&matrix::multiply_scalar(&a, t), 5)
        },
        &x,
        2,
        Default::default(),
    );
    let d: Matrix = array![[1.0, 2.0], [3.0, 4.0]].into_shared();
    assert_eq!(linalg::trace(&d).unwrap().value(), 5.0);
    let n = nalgebra::DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 3.0, 7.0]);
    assert_eq!(linalg::trace(&n).unwrap().value(), 8.0);
    let e = linalg::trace(&array![[1.0, 2.0]].into_shared()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "trace: columns of m has size 2, but must have size 1"
    );
    tape::reset();
}
