//! `trace_quad_form`, `trace_gen_quad_form`: values against the products written out,
//! gradients for every data/variable mix by finite differences and random directions, an
//! ill-conditioned `A`, bad input.

use nalgebra::DMatrix;
use ndarray::{array, Array2};
use revad::testing::data_matrix;
use revad::testing::{
    assert_close, check_directional, check_gradient, matrix_from, test_points, vector_from,
    GradCheck,
};
use revad::{linalg, tape, Var};

#[test]
fn values() {
    let (a, b, d) = (
        data_matrix(3, 3, &test_points(9, 1)),
        data_matrix(3, 2, &test_points(6, 2)),
        data_matrix(2, 2, &test_points(4, 3)),
    );
    let (an, bn, dn) = (
        linalg::to_nalgebra(&a),
        linalg::to_nalgebra(&b),
        linalg::to_nalgebra(&d),
    );
    let q = linalg::trace_quad_form(&a, &b).unwrap().value();
    assert_close(q, (bn.transpose() * &an * &bn).trace(), 1e-14);
    let g = linalg::trace_gen_quad_form(&d, &a, &b).unwrap().value();
    assert_close(g, (&dn * bn.transpose() * &an * &bn).trace(), 1e-14);
    // A vector b: bᵀAb; D = I: trace_quad_form.
    let v = array![1.0, -2.0, 0.5].into_shared();
    let q = linalg::trace_quad_form(&a, &v).unwrap().value();
    let vn = nalgebra::DVector::from_row_slice(&[1.0, -2.0, 0.5]);
    assert_close(q, (vn.transpose() * &an * &vn)[(0, 0)], 1e-14);
    let id = Array2::<f64>::eye(2).into_shared();
    let g = linalg::trace_gen_quad_form(&id, &a, &b).unwrap().value();
    assert_close(g, linalg::trace_quad_form(&a, &b).unwrap().value(), 1e-14);
    // nalgebra operands; empty B.
    let q = linalg::trace_quad_form(&an, &bn).unwrap().value();
    assert_close(q, (bn.transpose() * &an * &bn).trace(), 1e-14);
    let e = Array2::<f64>::zeros((3, 0)).into_shared();
    assert_eq!(linalg::trace_quad_form(&a, &e).unwrap().value(), 0.0);
}

#[test]
fn gradients_for_every_mix() {
    let x = test_points(9 + 6 + 4, 4);
    let (xa, xb, xd) = (&x[..9], &x[9..15], &x[15..]);
    let (a, b, d) = (
        data_matrix(3, 3, xa),
        data_matrix(3, 2, xb),
        data_matrix(2, 2, xd),
    );
    // trace_quad_form: A and B each variable or data, B a matrix or a vector.
    check_gradient(
        |v: &[Var]| {
            linalg::trace_quad_form(&matrix_from(3, 3, &v[..9]), &matrix_from(3, 2, &v[9..]))
                .unwrap()
        },
        &[&x[..15]],
    );
    check_gradient(
        |v: &[Var]| linalg::trace_quad_form(&matrix_from(3, 3, v), &b).unwrap(),
        &[xa],
    );
    check_gradient(
        |v: &[Var]| linalg::trace_quad_form(&a, &matrix_from(3, 2, v)).unwrap(),
        &[xb],
    );
    check_gradient(
        |v: &[Var]| {
            linalg::trace_quad_form(&matrix_from(3, 3, &v[..9]), &vector_from(&v[9..])).unwrap()
        },
        &[&x[..12]],
    );
    // trace_gen_quad_form: the seven mixes with at least one variable.
    for mask in 1..8u32 {
        let f = |v: &[Var]| {
            let mut rest = v;
            let mut take = |n: usize| {
                let (head, tail) = rest.split_at(n);
                rest = tail;
                head
            };
            let dv = (mask & 1 != 0).then(|| matrix_from(2, 2, take(4)));
            let av = (mask & 2 != 0).then(|| matrix_from(3, 3, take(9)));
            let bv = (mask & 4 != 0).then(|| matrix_from(3, 2, take(6)));
            match (dv, av, bv) {
                (Some(d), Some(a), Some(b)) => linalg::trace_gen_quad_form(&d, &a, &b),
                (Some(d), Some(a), None) => linalg::trace_gen_quad_form(&d, &a, &b),
                (Some(d), None, Some(b)) => linalg::trace_gen_quad_form(&d, &a, &b),
                (Some(d), None, None) => linalg::trace_gen_quad_form(&d, &a, &b),
                (None, Some(a), Some(b)) => linalg::trace_gen_quad_form(&d, &a, &b),
                (None, Some(a), None) => linalg::trace_gen_quad_form(&d, &a, &b),
                (None, None, Some(b)) => linalg::trace_gen_quad_form(&d, &a, &b),
                (None, None, None) => unreachable!(),
            }
            .unwrap()
        };
        let mut point = Vec::new();
        if mask & 1 != 0 {
            point.extend_from_slice(xd);
        }
        if mask & 2 != 0 {
            point.extend_from_slice(xa);
        }
        if mask & 4 != 0 {
            point.extend_from_slice(xb);
        }
        check_gradient(f, &[&point]);
    }
}

#[test]
fn gradients_along_random_directions() {
    for k in [1, 2, 5, 30, 130] {
        // B is K×K up to 30, K×5 at 130; D matches B's columns.
        let m = if k > 30 { 5 } else { k };
        let x = test_points(k * k + k * m + m * m, 10 + k as u64);
        let (ka, kb) = (k * k, k * k + k * m);
        let q = |v: &[Var]| {
            linalg::trace_quad_form(&matrix_from(k, k, &v[..ka]), &matrix_from(k, m, &v[ka..kb]))
                .unwrap()
        };
        check_directional(q, &x[..kb], 2, GradCheck::default());
        let g = |v: &[Var]| {
            let a = matrix_from(k, k, &v[..ka]);
            let b = matrix_from(k, m, &v[ka..kb]);
            let d = matrix_from(m, m, &v[kb..]);
            linalg::trace_gen_quad_form(&d, &a, &b).unwrap()
        };
        check_directional(g, &x, 2, GradCheck::default());
    }
}

#[test]
fn ill_conditioned_a() {
    // A = Q·diag(1 … 1e-10)·Qᵀ (condition number 1e10): the forms only multiply, so values
    // keep full relative accuracy against the products and gradients stay finite and exact.
    let k = 6;
    let q = linalg::to_nalgebra(&data_matrix(k, k, &test_points(k * k, 20)))
        .qr()
        .q();
    let s = DMatrix::from_diagonal(&nalgebra::DVector::from_row_slice(&[
        1.0, 1e-2, 1e-4, 1e-6, 1e-8, 1e-10,
    ]));
    let an = &q * s * q.transpose();
    let xa: Vec<f64> = an.transpose().iter().copied().collect();
    let b = data_matrix(k, 2, &test_points(2 * k, 21));
    let got = linalg::trace_quad_form(&data_matrix(k, k, &xa), &b)
        .unwrap()
        .value();
    assert_close(
        got,
        (linalg::to_nalgebra(&b).transpose() * &an * linalg::to_nalgebra(&b)).trace(),
        1e-13,
    );
    let f = |v: &[Var]| linalg::trace_quad_form(&matrix_from(k, k, v), &b).unwrap();
    check_directional(f, &xa, 2, GradCheck::default());
    let d = data_matrix(2, 2, &[1.0, 0.5, -0.5, 2.0]);
    let g = |v: &[Var]| linalg::trace_gen_quad_form(&d, &matrix_from(k, k, v), &b).unwrap();
    check_directional(g, &xa, 2, GradCheck::default());
    tape::reset();
}

#[test]
fn bad_input() {
    let sq2 = data_matrix(2, 2, &[1.0; 4]);
    let sq3 = data_matrix(3, 3, &[1.0; 9]);
    let wide = data_matrix(2, 3, &[1.0; 6]);
    let b32 = data_matrix(3, 2, &[1.0; 6]);
    let cases = [
        (
            linalg::trace_quad_form(&wide, &b32),
            "trace_quad_form: columns of A has size 3, but must have size 2",
        ),
        (
            linalg::trace_quad_form(&sq2, &b32),
            "trace_quad_form: rows of B has size 3, but must have size 2",
        ),
        (
            linalg::trace_gen_quad_form(&sq2, &wide, &b32),
            "trace_gen_quad_form: columns of A has size 3, but must have size 2",
        ),
        (
            linalg::trace_gen_quad_form(&wide, &sq3, &b32),
            "trace_gen_quad_form: columns of D has size 3, but must have size 2",
        ),
        (
            linalg::trace_gen_quad_form(&sq2, &sq2, &b32),
            "trace_gen_quad_form: rows of B has size 3, but must have size 2",
        ),
        (
            linalg::trace_gen_quad_form(&sq3, &sq3, &b32),
            "trace_gen_quad_form: rows of D has size 3, but must have size 2",
        ),
    ];
    for (r, want) in cases {
        assert_eq!(r.unwrap_err().to_string(), want);
    }
    // NaN is not checked (as Stan): it comes out in the value.
    let nan = data_matrix(2, 2, &[1.0, f64::NAN, 0.0, 1.0]);
    assert!(linalg::trace_quad_form(&nan, &sq2)
        .unwrap()
        .value()
        .is_nan());
}
