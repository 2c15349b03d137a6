//! `Transform`: free sizes, Stan's order of the free values (column-major for matrix-shaped
//! free values), agreement with the transform functions, round trips through a longer free
//! vector at an offset, gradients, variable bounds, errors.

mod transform_common;

use ndarray::Array2;
use revad::testing::{assert_close, check_gradient, test_points, vector_from, weighted_sum};
use revad::transform::{self as t, Limit, Shape, Transform, Value};
use revad::{tape, Matrix, Var, Vector};
use transform_common::{assert_all_close, points};

/// A row-major r×c matrix's elements in column-major order.
fn col_major(m: &Matrix) -> Vec<f64> {
    m.t().iter().copied().collect()
}

/// The value flattened column-major (Stan's order).
fn stan_order(v: &Value) -> Vec<f64> {
    match v {
        Value::Scalar(x) => vec![x.value()],
        Value::Vector(x) => x.value().to_vec(),
        Value::Matrix(x) => col_major(x.value()),
    }
}

/// Every transform with a shape it takes, and a constrained value of that shape (column-major).
fn cases() -> Vec<(Transform, Shape)> {
    vec![
        (Transform::Identity, Shape::Matrix(2, 3)),
        (Transform::LowerBound(Limit::Real(-1.0)), Shape::Scalar),
        (Transform::UpperBound(Limit::Real(2.0)), Shape::Vector(3)),
        (
            Transform::LowerUpperBound(
                Limit::Matrix(Array2::from_elem((2, 3), -1.0).into_shared()),
                Limit::Real(4.0),
            ),
            Shape::Matrix(2, 3),
        ),
        (
            Transform::OffsetMultiplier(
                Limit::Real(1.0),
                Limit::Vector(Vector::from(vec![0.5, 2.0])),
            ),
            Shape::Vector(2),
        ),
        (Transform::Ordered, Shape::Vector(4)),
        (Transform::PositiveOrdered, Shape::Vector(3)),
        (Transform::Simplex, Shape::Vector(4)),
        (Transform::StickBreakingSimplex, Shape::Vector(4)),
        (Transform::UnitVector, Shape::Vector(3)),
        (Transform::SumToZero, Shape::Vector(4)),
        (Transform::SumToZero, Shape::Matrix(3, 4)),
        (Transform::CholeskyFactorCorr, Shape::Matrix(3, 3)),
        (Transform::CholeskyFactorCov, Shape::Matrix(4, 2)),
        (Transform::CorrMatrix, Shape::Matrix(3, 3)),
        (Transform::CovMatrix, Shape::Matrix(3, 3)),
        (Transform::StochasticColumn, Shape::Matrix(3, 2)),
        (Transform::StochasticRow, Shape::Matrix(2, 3)),
    ]
}

#[test]
fn free_sizes() {
    let sizes: Vec<usize> = cases()
        .iter()
        .map(|(t, s)| t.free_size(*s).unwrap())
        .collect();
    assert_eq!(
        sizes,
        vec![6, 1, 3, 6, 2, 4, 3, 3, 3, 3, 3, 6, 3, 7, 3, 6, 4, 4]
    );
    for k in [1usize, 2, 5, 30] {
        let m = Shape::Matrix(k, k);
        assert_eq!(
            Transform::Simplex.free_size(Shape::Vector(k)).unwrap(),
            k - 1
        );
        assert_eq!(
            Transform::CholeskyFactorCorr.free_size(m).unwrap(),
            k * (k - 1) / 2
        );
        assert_eq!(Transform::CorrMatrix.free_size(m).unwrap(), k * (k - 1) / 2);
        assert_eq!(
            Transform::CovMatrix.free_size(m).unwrap(),
            k + k * (k - 1) / 2
        );
        assert_eq!(
            Transform::CholeskyFactorCov.free_size(m).unwrap(),
            k * (k + 1) / 2
        );
    }
    let e = |t: Transform, s: Shape| t.free_size(s).unwrap_err().to_string();
    assert_eq!(
        e(Transform::Simplex, Shape::Matrix(2, 3)),
        "simplex: the constrained value must be a vector of size 1 or more, not a 2×3 matrix"
    );
    assert_eq!(
        e(Transform::Simplex, Shape::Vector(0)),
        "simplex: the constrained value must be a vector of size 1 or more, not a vector of \
         size 0"
    );
    assert_eq!(
        e(Transform::CovMatrix, Shape::Matrix(2, 3)),
        "cov_matrix: the constrained value must be a square matrix, not a 2×3 matrix"
    );
    assert_eq!(
        e(Transform::CholeskyFactorCov, Shape::Matrix(2, 3)),
        "cholesky_factor_cov: the constrained value must be a matrix with at least as many rows \
         as columns, not a 2×3 matrix"
    );
    assert_eq!(
        e(Transform::Ordered, Shape::Scalar),
        "ordered: the constrained value must be a vector, not a scalar"
    );
}

#[test]
fn round_trips_through_a_longer_free_vector() {
    for (transform, shape) in cases() {
        let n = transform.free_size(shape).unwrap();
        // Free values → value → free values, the free values at offset 2.
        let free = points(n, 3, 0.8);
        let mut theta = vec![7.0, -7.0];
        theta.extend(&free);
        theta.push(9.0);
        let theta = Var::array(Vector::from(theta));
        let before = tape::stats().continuations;
        let (value, lj) = transform.constrain_jacobian(&theta, 2, shape).unwrap();
        assert_eq!(
            tape::stats().continuations,
            before + 1,
            "one node: {transform:?}"
        );
        let back = transform.unconstrain(&stan_order(&value), shape).unwrap();
        if matches!(transform, Transform::UnitVector) {
            // Only the direction comes back: the free value of a unit vector is itself.
            let norm = free.iter().map(|v| v * v).sum::<f64>().sqrt();
            let unit: Vec<f64> = free.iter().map(|v| v / norm).collect();
            assert_all_close(&back, &unit, 1e-15);
        } else {
            assert_all_close(&back, &free, 1e-11);
        }
        // And value → free values → value.
        let again = transform
            .constrain(&Vector::from(back.clone()), 0, shape)
            .unwrap();
        assert_all_close(&again.to_vec(), &value.to_vec(), 1e-12);
        let plain = transform.constrain(&theta, 2, shape).unwrap();
        assert_eq!(plain.to_vec(), value.to_vec(), "{transform:?}");
        // Only the parameter's part of θ gets an adjoint.
        (lj * 1.0 + weighted(&value)).grad();
        let adj = theta.adj();
        assert_eq!(
            (adj[0], adj[1], adj[n + 2]),
            (0.0, 0.0, 0.0),
            "{transform:?}"
        );
        tape::reset();
    }
}

/// A weighted sum of a value's elements.
fn weighted(v: &Value) -> Var {
    match v {
        Value::Scalar(x) => *x * 0.3,
        Value::Vector(x) => weighted_sum(x, 1),
        Value::Matrix(x) => weighted_sum(x, 1),
    }
}

#[test]
fn the_same_as_the_transform_functions() {
    let free = points(12, 5, 0.9);
    let theta = Vector::from(free.clone());
    let lj_of = |t: &Transform, s: Shape| t.constrain_jacobian(&theta, 0, s).unwrap();
    // Elementwise on a matrix: the free values are column-major.
    let (v, lj) = lj_of(
        &Transform::LowerBound(Limit::Real(0.5)),
        Shape::Matrix(2, 3),
    );
    let y: Matrix = Array2::from_shape_vec((3, 2), free[..6].to_vec())
        .unwrap()
        .t()
        .to_owned()
        .into_shared();
    let (direct, dlj) = t::lower_bound_jacobian_array(&y, 0.5).unwrap();
    assert_eq!(
        v.to_vec(),
        direct.value().iter().copied().collect::<Vec<_>>()
    );
    assert_eq!(lj.value(), dlj.value());
    // Column stochastic N×M: an (N − 1)×M free matrix, column-major.
    let (v, lj) = lj_of(&Transform::StochasticColumn, Shape::Matrix(3, 4));
    let y: Matrix = Array2::from_shape_vec((4, 2), free[..8].to_vec())
        .unwrap()
        .t()
        .to_owned()
        .into_shared();
    let (direct, dlj) = t::stochastic_column_jacobian(&y).unwrap();
    assert_all_close(
        &v.to_vec(),
        &direct.value().iter().copied().collect::<Vec<_>>(),
        0.0,
    );
    assert_eq!(lj.value(), dlj.value());
    // Row stochastic N×M: an N×(M − 1) free matrix, column-major.
    let (v, _) = lj_of(&Transform::StochasticRow, Shape::Matrix(3, 4));
    let y: Matrix = Array2::from_shape_vec((3, 3), free[..9].to_vec())
        .unwrap()
        .t()
        .to_owned()
        .into_shared();
    let direct = t::stochastic_row_constrain(&y).unwrap();
    assert_all_close(
        &v.to_vec(),
        &direct.value().iter().copied().collect::<Vec<_>>(),
        0.0,
    );
    // A zero-sum matrix.
    let (v, _) = lj_of(&Transform::SumToZero, Shape::Matrix(4, 3));
    let y: Matrix = Array2::from_shape_vec((2, 3), free[..6].to_vec())
        .unwrap()
        .t()
        .to_owned()
        .into_shared();
    let direct = t::sum_to_zero_constrain(&y).unwrap();
    assert_all_close(
        &v.to_vec(),
        &direct.value().iter().copied().collect::<Vec<_>>(),
        1e-15,
    );
    // Vector-valued free forms read in order.
    let (v, lj) = lj_of(&Transform::CovMatrix, Shape::Matrix(3, 3));
    let (direct, dlj) = t::cov_matrix_jacobian(&Vector::from(free[..6].to_vec()), 3).unwrap();
    assert_eq!(
        v.to_vec(),
        direct.value().iter().copied().collect::<Vec<_>>()
    );
    assert_eq!(lj.value(), dlj.value());
    let (v, lj) = lj_of(&Transform::Simplex, Shape::Vector(5));
    let (direct, dlj) = t::simplex_jacobian(&Vector::from(free[..4].to_vec())).unwrap();
    assert_eq!(v.to_vec(), direct.value().to_vec());
    assert_eq!(lj.value(), dlj.value());
    // Unconstrain takes Stan's column-major value.
    let value: Matrix = ndarray::array![[0.2, 0.5], [0.8, 0.5]].into_shared();
    let free = Transform::StochasticColumn
        .unconstrain(&col_major(&value), Shape::Matrix(2, 2))
        .unwrap();
    let direct = t::stochastic_column_unconstrain(&value).unwrap();
    assert_all_close(&free, &col_major(direct.value()), 1e-15);
    tape::reset();
}

#[test]
fn gradients_through_the_free_vector_and_variable_bounds() {
    for (transform, shape) in cases() {
        let n = transform.free_size(shape).unwrap();
        let f = |v: &[Var]| {
            let theta = vector_from(v);
            let (value, lj) = transform.constrain_jacobian(&theta, 1, shape).unwrap();
            weighted(&value) + 0.7 * lj
        };
        let mut x = vec![0.25];
        x.extend(points(n, 7, 0.8));
        check_gradient(f, &[&x]);
    }
    // Variable bounds: a scalar and a vector.
    let f = |v: &[Var]| {
        let lb = Limit::Var(v[3]);
        let ub = Limit::VarVector(vector_from(&v[4..]));
        let transform = Transform::LowerUpperBound(lb, ub);
        let (value, lj) = transform
            .constrain_jacobian(&vector_from(&v[..3]), 0, Shape::Vector(3))
            .unwrap();
        weighted(&value) + 0.7 * lj
    };
    check_gradient(f, &[&[0.3, -1.0, 2.0, -0.5, 1.0, 2.0, 3.0]]);
    tape::reset();
}

/// A scalar of an elementwise transform with scalar bounds takes a scalar node; it must agree
/// with the array node that a vector of one element takes: values, log-Jacobians, gradients
/// (also against finite differences), and the check of the bounds.
#[test]
fn scalars_agree_with_vectors_of_one() {
    let inf = f64::INFINITY;
    let transforms = [
        Transform::Identity,
        Transform::LowerBound(Limit::Real(-1.0)),
        Transform::LowerBound(Limit::Real(-inf)),
        Transform::UpperBound(Limit::Real(2.0)),
        Transform::LowerUpperBound(Limit::Real(-1.0), Limit::Real(4.0)),
        Transform::LowerUpperBound(Limit::Real(-inf), Limit::Real(4.0)),
        Transform::LowerUpperBound(Limit::Real(0.5), Limit::Real(inf)),
        Transform::OffsetMultiplier(Limit::Real(1.0), Limit::Real(0.5)),
    ];
    // Far out in both tails (where the bounded value meets its bound) and near zero.
    for transform in &transforms {
        for y in [-30.0, -3.0, -1e-9, 0.0, 0.4, 5.0, 30.0] {
            for jacobian in [false, true] {
                let run = |shape: Shape| {
                    let theta = Var::array(Vector::from(vec![9.0, y]));
                    let (value, lj) = if jacobian {
                        let (v, lj) = transform.constrain_jacobian(&theta, 1, shape).unwrap();
                        (v, Some(lj))
                    } else {
                        (transform.constrain(&theta, 1, shape).unwrap(), None)
                    };
                    let v = stan_order(&value)[0];
                    let weight = test_points(1, 1)[0];
                    let total = match &value {
                        Value::Scalar(x) => *x * weight,
                        other => weighted(other),
                    } + lj.map_or(Var::new(0.0), |l| 0.7 * l);
                    total.grad();
                    let out = (v, lj.map(|l| l.value()), theta.adj()[1], theta.adj()[0]);
                    tape::reset();
                    out
                };
                let (scalar, vector) = (run(Shape::Scalar), run(Shape::Vector(1)));
                assert_close(scalar.0, vector.0, 1e-15);
                assert_eq!(scalar.1.is_some(), jacobian);
                if let (Some(a), Some(b)) = (scalar.1, vector.1) {
                    assert_close(a, b, 1e-15);
                }
                assert_close(scalar.2, vector.2, 1e-15);
                assert_eq!(scalar.3, 0.0, "{transform:?}: another parameter's adjoint");
            }
        }
        let f = |v: &[Var]| {
            let (value, lj) = transform
                .constrain_jacobian(&vector_from(v), 1, Shape::Scalar)
                .unwrap();
            weighted(&value) + 0.7 * lj
        };
        check_gradient(f, &[&[0.0, -2.5], &[0.0, 0.3], &[0.0, 4.0]]);
    }
    let theta = Var::array(Vector::from(vec![0.0, 1.0]));
    let bad = [
        (
            Transform::LowerUpperBound(Limit::Real(3.0), Limit::Real(2.0)),
            "lub_constrain: lb is 3, but must be less than 2",
        ),
        (
            Transform::OffsetMultiplier(Limit::Real(0.0), Limit::Real(0.0)),
            "offset_multiplier_constrain: multiplier is 0, but must be positive finite",
        ),
    ];
    for (transform, message) in bad {
        let e = transform
            .constrain_jacobian(&theta, 1, Shape::Scalar)
            .unwrap_err();
        assert_eq!(e.to_string(), message);
    }
    let e = Transform::LowerBound(Limit::Real(0.0))
        .constrain(&theta, 2, Shape::Scalar)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "lower_bound: free vector has size 2, but must have size 3"
    );
    tape::reset();
}

#[test]
fn errors() {
    let theta = Vector::from(vec![0.0; 3]);
    let e = Transform::Simplex
        .constrain(&theta, 1, Shape::Vector(4))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "simplex: free vector has size 3, but must have size 4"
    );
    let e = Transform::Simplex
        .unconstrain(&[0.5, 0.5], Shape::Vector(3))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "simplex: value has size 2, but must have size 3"
    );
    let e = Transform::Simplex
        .unconstrain(&[0.5, 0.6], Shape::Vector(2))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "simplex_free: Simplex variable is not a valid simplex. sum(Simplex variable) = 1.1, \
         but should be 1"
    );
    let e = Transform::LowerBound(Limit::Real(0.0))
        .unconstrain(&[1.0, -1.0], Shape::Vector(2))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "lb_free: Lower bounded variable[2] is -1, but must be greater than or equal to 0"
    );
    let e = Transform::LowerBound(Limit::Real(0.0))
        .unconstrain(&[-1.0], Shape::Scalar)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "lb_free: Lower bounded variable is -1, but must be greater than or equal to 0"
    );
    let e = Transform::LowerBound(Limit::Vector(Vector::from(vec![0.0; 3])))
        .constrain(&theta, 0, Shape::Vector(2))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "lb_constrain: lb has size 3, but must have size 2"
    );
    assert_close(
        Transform::CorrMatrix
            .unconstrain(&[1.0, 0.5, 0.5, 1.0], Shape::Matrix(2, 2))
            .unwrap()[0],
        0.5f64.atanh(),
        1e-15,
    );
    let _ = t::lb_constrain(0.0, 0.0);
}

#[test]
fn every_function_records_one_node() {
    tape::reset();
    let v = |n: usize| Var::array(Vector::from(points(n, 21, 0.5)));
    let m = |r: usize, c: usize| {
        Var::array(Matrix::from_shape_vec((r, c), points(r * c, 22, 0.5)).unwrap())
    };
    let count = || tape::stats().continuations;
    let mut last = count();
    let mut one = |what: &str| {
        let now = count();
        assert_eq!(now, last + 1, "{what} records one node");
        last = now;
    };
    let (y3, y6) = (v(3), v(6));
    let x = t::ordered_jacobian(&y3).unwrap().0;
    one("ordered_jacobian");
    t::ordered_unconstrain(&x).unwrap();
    one("ordered_unconstrain");
    let s = t::simplex_jacobian(&y3).unwrap().0;
    one("simplex_jacobian");
    t::simplex_unconstrain(&s).unwrap();
    one("simplex_unconstrain");
    t::stick_breaking_simplex_jacobian(&y3).unwrap();
    one("stick_breaking_simplex_jacobian");
    t::unit_vector_jacobian(&y3).unwrap();
    one("unit_vector_jacobian");
    let z = t::sum_to_zero_jacobian(&m(3, 2)).unwrap().0;
    one("sum_to_zero_jacobian");
    t::sum_to_zero_unconstrain(&z).unwrap();
    one("sum_to_zero_unconstrain");
    let l = t::cholesky_factor_corr_jacobian(&y6, 4).unwrap().0;
    one("cholesky_factor_corr_jacobian");
    t::cholesky_factor_corr_unconstrain(&l).unwrap();
    one("cholesky_factor_corr_unconstrain");
    let c = t::corr_matrix_jacobian(&y6, 4).unwrap().0;
    one("corr_matrix_jacobian");
    t::corr_matrix_unconstrain(&c).unwrap();
    one("corr_matrix_unconstrain");
    let s = t::cov_matrix_jacobian(&y6, 3).unwrap().0;
    one("cov_matrix_jacobian");
    t::cov_matrix_unconstrain(&s).unwrap();
    one("cov_matrix_unconstrain");
    let f = t::cholesky_factor_cov_jacobian(&v(7), 4, 2).unwrap().0;
    one("cholesky_factor_cov_jacobian");
    t::cholesky_factor_cov_unconstrain(&f).unwrap();
    one("cholesky_factor_cov_unconstrain");
    let sc = t::stochastic_column_jacobian(&m(2, 3)).unwrap().0;
    one("stochastic_column_jacobian");
    t::stochastic_column_unconstrain(&sc).unwrap();
    one("stochastic_column_unconstrain");
    t::stochastic_row_jacobian(&m(2, 3)).unwrap();
    one("stochastic_row_jacobian");
    tape::reset();
}
