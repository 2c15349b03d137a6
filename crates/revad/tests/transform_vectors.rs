//! `ordered`, `positive_ordered`, `unit_vector`, `sum_to_zero` (vector and matrix): values
//! against closed forms, round trips (K = 1, 2, 5, 30), log-Jacobians against finite
//! differences or their closed forms, gradients, errors.

mod transform_common;

use ndarray::{array, Array2};
use revad::testing::{
    assert_close, check_directional, check_gradient, matrix_from, vector_from, weighted_sum,
    GradCheck,
};
use revad::transform as t;
use revad::{tape, Matrix, Var, Vector};
use transform_common::{assert_all_close, combine, fd_log_det, points};

fn vec_of(v: &Var<Vector>) -> Vec<f64> {
    v.value().to_vec()
}

#[test]
fn ordered_values_round_trips_and_log_jacobians() {
    let v = t::ordered_constrain(&Vector::from(vec![1.0, 0.0, -1.0])).unwrap();
    assert_all_close(&vec_of(&v), &[1.0, 2.0, 2.0 + (-1f64).exp()], 1e-15);
    let v = t::positive_ordered_constrain(&Vector::from(vec![0.0, 0.0])).unwrap();
    assert_eq!(vec_of(&v), vec![1.0, 2.0]);
    assert!(t::ordered_constrain(&Vector::from(Vec::<f64>::new()))
        .unwrap()
        .value()
        .is_empty());
    for k in [1usize, 2, 5, 30] {
        let y = points(k, 1, 1.5);
        for positive in [false, true] {
            let (v, lj) = if positive {
                t::positive_ordered_jacobian(&Vector::from(y.clone())).unwrap()
            } else {
                t::ordered_jacobian(&Vector::from(y.clone())).unwrap()
            };
            let vv = vec_of(&v);
            assert!(vv.windows(2).all(|w| w[1] > w[0]));
            let back = if positive {
                t::positive_ordered_unconstrain(v.value()).unwrap()
            } else {
                t::ordered_unconstrain(v.value()).unwrap()
            };
            assert_all_close(&vec_of(&back), &y, 1e-12);
            let start = usize::from(!positive);
            let sum: f64 = y[start.min(k)..].iter().sum();
            assert_close(lj.value(), sum, 1e-13);
            if k <= 5 {
                let f = |x: &[f64]| {
                    let x = Vector::from(x.to_vec());
                    let r = if positive {
                        t::positive_ordered_constrain(&x)
                    } else {
                        t::ordered_constrain(&x)
                    };
                    r.unwrap().value().to_vec()
                };
                assert_close(lj.value(), fd_log_det(&f, &y, 1e-3), 1e-8);
            }
        }
    }
    // Free vectors from nearly tied values.
    let x = Vector::from(vec![1.0, 1.0 + 1e-12, 5.0]);
    let y = t::ordered_unconstrain(&x).unwrap();
    let v = t::ordered_constrain(y.value()).unwrap();
    assert_all_close(&vec_of(&v), &[1.0, 1.0 + 1e-12, 5.0], 1e-15);
    tape::reset();
}

#[test]
fn ordered_gradients() {
    for positive in [false, true] {
        let f = |v: &[Var]| {
            let y = vector_from(v);
            let (c, lj) = if positive {
                t::positive_ordered_jacobian(&y).unwrap()
            } else {
                t::ordered_jacobian(&y).unwrap()
            };
            combine(&c, lj, 1)
        };
        check_gradient(f, &[&points(5, 2, 1.0), &[0.3]]);
        let g = |v: &[Var]| {
            let x = vector_from(v);
            let y = if positive {
                t::positive_ordered_unconstrain(&x).unwrap()
            } else {
                t::ordered_unconstrain(&x).unwrap()
            };
            weighted_sum(&y, 3)
        };
        check_gradient(g, &[&[0.5, 1.0, 2.5, 2.6]]);
        let x = points(200, 3, 1.0);
        check_directional(f, &x, 2, GradCheck::default());
    }
    tape::reset();
}

#[test]
fn unit_vectors() {
    let (x, lj) = t::unit_vector_jacobian(&Vector::from(vec![1.0, 2.0, 2.0])).unwrap();
    assert_all_close(&vec_of(&x), &[1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0], 1e-15);
    assert_eq!(lj.value(), -4.5);
    for k in [1usize, 2, 5, 30] {
        let y = points(k, 5, 1.0);
        let x = t::unit_vector_constrain(&Vector::from(y.clone())).unwrap();
        let norm: f64 = x.value().iter().map(|v| v * v).sum();
        assert_close(norm, 1.0, 1e-15);
        let back = t::unit_vector_unconstrain(x.value()).unwrap();
        assert_eq!(vec_of(&back), vec_of(&x));
        // The constrained value of the free value of a unit vector is itself.
        let again = t::unit_vector_constrain(back.value()).unwrap();
        assert_all_close(&vec_of(&again), &vec_of(&x), 1e-15);
    }
    let f = |v: &[Var]| {
        let (c, lj) = t::unit_vector_jacobian(&vector_from(v)).unwrap();
        combine(&c, lj, 4)
    };
    check_gradient(f, &[&points(5, 6, 1.0), &[0.4], &[1e-3, 2e-3]]);
    // The inverse is a copy (finite differences would leave the sphere and fail its check).
    let g = |v: &[Var]| weighted_sum(&t::unit_vector_unconstrain(&vector_from(v)).unwrap(), 2);
    let (_, grad) = revad::gradient(g, &[0.6, 0.8]);
    assert_eq!(grad, revad::testing::test_points(2, 2));
    let e = |r: revad::Result<Var<Vector>>| r.unwrap_err().to_string();
    assert_eq!(
        e(t::unit_vector_constrain(&Vector::from(Vec::<f64>::new()))),
        "unit_vector_constrain: y has size 0, but must have a non-zero size"
    );
    assert_eq!(
        e(t::unit_vector_constrain(&Vector::from(vec![0.0, 0.0]))),
        "unit_vector_constrain: norm is 0, but must be positive finite"
    );
    assert_eq!(
        e(t::unit_vector_unconstrain(&Vector::from(vec![1.0, 0.5]))),
        "unit_vector_free: Unit vector variable is not a valid unit vector. The sum of the \
         squares of the elements should be 1, but is 1.25"
    );
    assert_eq!(
        e(t::unit_vector_free(&Vector::from(Vec::<f64>::new()))),
        "unit_vector_free: Unit vector variable has size 0, but must have a non-zero size"
    );
    tape::reset();
}

/// The K×(K−1) zero-sum basis, written from its definition.
fn basis(k: usize) -> Array2<f64> {
    let mut v = Array2::zeros((k, k - 1));
    for n in 1..k {
        let c = 1.0 / ((n * (n + 1)) as f64).sqrt();
        for r in 0..n {
            v[[r, n - 1]] = c;
        }
        v[[n, n - 1]] = -(n as f64) * c;
    }
    v
}

/// `P·V`: the last row moved to the top.
fn rotated_basis(k: usize) -> Array2<f64> {
    let v = basis(k);
    let mut p = Array2::zeros(v.dim());
    for r in 0..k {
        p.row_mut(r).assign(&v.row((r + 1) % k));
    }
    p
}

#[test]
fn sum_to_zero_vectors() {
    for k in [1usize, 2, 5, 30] {
        let y = points(k - 1, 7, 2.0);
        let (z, lj) = t::sum_to_zero_jacobian(&Vector::from(y.clone())).unwrap();
        assert_eq!(lj.value(), 0.0);
        let expected = basis(k).dot(&ndarray::Array1::from(y.clone()));
        assert_all_close(&vec_of(&z), expected.as_slice().unwrap(), 1e-14);
        assert!(z.value().sum().abs() < 1e-13);
        let back = t::sum_to_zero_unconstrain(z.value()).unwrap();
        assert_all_close(&vec_of(&back), &y, 1e-13);
    }
    // [√2] ↦ [1, −1]; the empty vector ↦ [0].
    let z = t::sum_to_zero_constrain(&Vector::from(vec![2f64.sqrt()])).unwrap();
    assert_all_close(&vec_of(&z), &[1.0, -1.0], 1e-15);
    let z = t::sum_to_zero_constrain(&Vector::from(Vec::<f64>::new())).unwrap();
    assert_eq!(vec_of(&z), vec![0.0]);
    let f = |v: &[Var]| {
        let (c, lj) = t::sum_to_zero_jacobian(&vector_from(v)).unwrap();
        combine(&c, lj, 5)
    };
    check_gradient(f, &[&points(4, 8, 1.0)]);
    check_directional(f, &points(300, 9, 1.0), 2, GradCheck::default());
    let g = |v: &[Var]| {
        let z = t::sum_to_zero_constrain(&vector_from(v)).unwrap();
        weighted_sum(&t::sum_to_zero_unconstrain(&z).unwrap(), 3)
    };
    check_gradient(g, &[&points(4, 10, 1.0)]);
    let e = |r: revad::Result<Var<Vector>>| r.unwrap_err().to_string();
    assert_eq!(
        e(t::sum_to_zero_unconstrain(&Vector::from(vec![1.0, -0.5]))),
        "sum_to_zero_free: sum_to_zero variable does not sum to zero. sum(sum_to_zero \
         variable) = 0.5, but should be 0"
    );
    assert_eq!(
        e(t::sum_to_zero_free(&Vector::from(Vec::<f64>::new()))),
        "sum_to_zero_free: sum_to_zero variable has size 0, but must have a non-zero size"
    );
    tape::reset();
}

#[test]
fn sum_to_zero_matrices() {
    // Stan Math's algorithm (sum_to_zero_constrain.hpp, the matrix overload) on [[1, 2], [3, 4]]
    // and [[0.5, −1, 2]], evaluated in double precision.
    let z = t::sum_to_zero_constrain(&array![[1.0, 2.0], [3.0, 4.0]].into_shared()).unwrap();
    let stan = [
        -0.2767090063073977,
        -0.1786327949540821,
        0.45534180126147983,
        0.3987174742355435,
        2.6666666666666674,
        -3.0653841409022107,
        -0.12200846792814579,
        -2.4880338717125854,
        2.610042339640731,
    ];
    assert_all_close(z.value().as_slice().unwrap(), &stan, 1e-14);
    let z = t::sum_to_zero_constrain(&array![[0.5, -1.0, 2.0]].into_shared()).unwrap();
    let stan = [
        0.13042684413094985,
        -0.9855985596534889,
        1.2247448713915892,
        -0.36957315586905015,
    ];
    assert_all_close(&z.value().as_slice().unwrap()[..4], &stan, 1e-14);
    for (n, m) in [(1usize, 1usize), (1, 4), (3, 2), (5, 5), (30, 2)] {
        let x = points(n * m, 11, 1.5);
        let xm: Matrix = Array2::from_shape_vec((n, m), x.clone())
            .unwrap()
            .into_shared();
        let (z, lj) = t::sum_to_zero_jacobian(&xm).unwrap();
        assert_eq!(lj.value(), 0.0);
        assert_eq!(z.value().dim(), (n + 1, m + 1));
        let expected = rotated_basis(n + 1).dot(&xm).dot(&rotated_basis(m + 1).t());
        assert_all_close(
            z.value().as_slice().unwrap(),
            &expected.iter().copied().collect::<Vec<_>>(),
            1e-13,
        );
        for row in z.value().rows() {
            assert!(row.sum().abs() < 1e-13);
        }
        for col in z.value().columns() {
            assert!(col.sum().abs() < 1e-13);
        }
        let back = t::sum_to_zero_unconstrain(z.value()).unwrap();
        assert_all_close(back.value().as_slice().unwrap(), &x, 1e-13);
    }
    let empty = t::sum_to_zero_constrain(&Array2::<f64>::zeros((0, 3)).into_shared()).unwrap();
    assert_eq!(empty.value().dim(), (1, 4));
    let f = |v: &[Var]| {
        let (c, lj) = t::sum_to_zero_jacobian(&matrix_from(2, 3, v)).unwrap();
        combine(&c, lj, 6)
    };
    check_gradient(f, &[&points(6, 12, 1.0)]);
    check_directional(
        |v: &[Var]| {
            weighted_sum(
                &t::sum_to_zero_constrain(&matrix_from(20, 15, v)).unwrap(),
                7,
            )
        },
        &points(300, 13, 1.0),
        2,
        GradCheck::default(),
    );
    let g = |v: &[Var]| {
        weighted_sum(
            &t::sum_to_zero_unconstrain(&matrix_from(3, 3, v)).unwrap(),
            8,
        )
    };
    // A zero-sum 3×3 point (its free values are any 2×2).
    let zp = t::sum_to_zero_constrain(
        &Array2::from_shape_vec((2, 2), points(4, 14, 1.0))
            .unwrap()
            .into_shared(),
    )
    .unwrap();
    let zp: Vec<f64> = zp.value().iter().copied().collect();
    // The inverse is linear, so its gradient holds off the zero-sum set too; finite
    // differences would leave the set (and fail the check), so check it directionally along
    // zero-sum directions: the weighted sum of X = (PV)ᵀZ(PV) has gradient (PV)C(PV)ᵀ.
    let (_, grad) = revad::gradient(g, &zp);
    let c = Array2::from_shape_vec((2, 2), revad::testing::test_points(4, 8)).unwrap();
    let expected = rotated_basis(3).dot(&c).dot(&rotated_basis(3).t());
    assert_all_close(&grad, &expected.iter().copied().collect::<Vec<_>>(), 1e-14);
    let e = |r: revad::Result<Var<Matrix>>| r.unwrap_err().to_string();
    assert_eq!(
        e(t::sum_to_zero_unconstrain(
            &array![[1.0, -1.0], [1.0, -0.5]].into_shared()
        )),
        "sum_to_zero_free: sum_to_zero variable does not sum to zero. sum(sum_to_zero \
         variable) = 0.5, but should be 0"
    );
    assert_eq!(
        e(t::sum_to_zero_unconstrain(
            &array![[1.0, -1.0], [1.0, -1.0]].into_shared()
        )),
        "sum_to_zero_free: sum_to_zero variable does not sum to zero. sum(sum_to_zero \
         variable[:,1]) = 2, but should be 0"
    );
    assert_eq!(
        e(t::sum_to_zero_unconstrain(
            &array![[1.0, 1.0], [-1.0, -1.0]].into_shared()
        )),
        "sum_to_zero_free: sum_to_zero variable does not sum to zero. sum(sum_to_zero \
         variable[1,:]) = 2, but should be 0"
    );
    tape::reset();
}
