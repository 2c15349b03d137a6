//! `lower_bound`, `upper_bound`, `lower_upper_bound`, `offset_multiplier`: values against the
//! closed forms, round trips (next to the bounds too), log-Jacobians against finite
//! differences, gradients of the value and the log-Jacobian with every argument a variable,
//! the scalar and array forms against each other, infinite bounds, one node per call, errors.

mod transform_common;

use ndarray::array;
use revad::matrix::to_array_1d;
use revad::testing::{assert_close, check_gradient, matrix_from, vector_from};
use revad::transform::{self as t, Limit};
use revad::{tape, Matrix, Var, Vector};
use transform_common::{assert_all_close, combine, fd_log_det, points};

fn sigma(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[test]
fn scalar_values_are_the_closed_forms() {
    let x = 0.3f64;
    assert_close(
        t::lower_bound_constrain(x, 1.5).unwrap(),
        1.5 + x.exp(),
        1e-15,
    );
    assert_close(
        t::upper_bound_constrain(x, 1.5).unwrap(),
        1.5 - x.exp(),
        1e-15,
    );
    let v = t::lower_upper_bound_constrain(x, -1.0, 2.0).unwrap();
    assert_close(v, -1.0 + 3.0 * sigma(x), 1e-15);
    assert_close(
        t::offset_multiplier_constrain(x, 1.0, 2.0).unwrap(),
        1.6,
        1e-15,
    );
    // Log-Jacobians.
    assert_eq!(t::lower_bound_jacobian(x, 1.5).unwrap().1, x);
    assert_eq!(t::upper_bound_jacobian(x, 1.5).unwrap().1, x);
    let lj = t::lower_upper_bound_jacobian(x, -1.0, 2.0).unwrap().1;
    assert_close(lj, (3.0 * sigma(x) * sigma(-x)).ln(), 1e-14);
    assert_close(
        t::offset_multiplier_jacobian(x, 1.0, 2.0).unwrap().1,
        2f64.ln(),
        1e-15,
    );
    // Far from 0 the log-Jacobian of two bounds stays finite: log 3 − |x| − 2·log1p(e^−|x|).
    let lj = t::lower_upper_bound_jacobian(-800.0, -1.0, 2.0).unwrap().1;
    assert_close(lj, 3f64.ln() - 800.0, 1e-15);
    // The Stan Math tests' numbers: lub_constrain(-1, 2, 4) = 2 + 2·σ(−1).
    assert_close(
        t::lub_constrain(-1.0, 2.0, 4.0).unwrap(),
        2.0 + 2.0 / (1.0 + 1f64.exp()),
        1e-15,
    );
    // Inverses.
    assert_close(t::lower_bound_unconstrain(2.5, 1.5).unwrap(), 0.0, 1e-15);
    assert_close(t::upper_bound_unconstrain(0.5, 1.5).unwrap(), 0.0, 1e-15);
    assert_close(
        t::lower_upper_bound_unconstrain(0.5, -1.0, 2.0).unwrap(),
        0.0,
        1e-15,
    );
    assert_close(
        t::offset_multiplier_unconstrain(1.6, 1.0, 2.0).unwrap(),
        0.3,
        1e-15,
    );
    assert_eq!(
        t::lb_free(2.5, 1.5).unwrap(),
        t::lower_bound_free(2.5, 1.5).unwrap()
    );
}

#[test]
fn infinite_bounds_are_no_bounds() {
    let x = 0.7;
    let inf = f64::INFINITY;
    assert_eq!(t::lower_bound_jacobian(x, -inf).unwrap(), (x, 0.0));
    assert_eq!(t::upper_bound_jacobian(x, inf).unwrap(), (x, 0.0));
    assert_eq!(
        t::lower_upper_bound_jacobian(x, -inf, inf).unwrap(),
        (x, 0.0)
    );
    assert_eq!(
        t::lower_upper_bound_jacobian(x, 1.0, inf).unwrap(),
        t::lower_bound_jacobian(x, 1.0).unwrap()
    );
    assert_eq!(
        t::lower_upper_bound_jacobian(x, -inf, 1.0).unwrap(),
        t::upper_bound_jacobian(x, 1.0).unwrap()
    );
    assert_eq!(t::lower_upper_bound_unconstrain(x, -inf, inf).unwrap(), x);
    assert_eq!(
        t::lower_upper_bound_unconstrain(3.0, 1.0, inf).unwrap(),
        2f64.ln()
    );
    // Element by element in an array: the second element has no lower bound.
    let lbs = Vector::from(vec![0.0, -inf]);
    let (v, lj) = t::lower_bound_jacobian_array(&Vector::from(vec![1.0, 1.0]), &lbs).unwrap();
    assert_eq!(v.value().to_vec(), vec![1f64.exp(), 1.0]);
    assert_eq!(lj.value(), 1.0);
    // The gradient through an infinite bound.
    let f = |v: &[Var]| {
        let (c, lj) = t::lower_upper_bound_jacobian(v[0], v[1], inf).unwrap();
        c + 0.7 * lj
    };
    check_gradient(f, &[&[0.4, -1.0], &[-2.0, 3.0]]);
    tape::reset();
}

#[test]
fn round_trips_including_next_to_the_bounds() {
    let (lb, ub) = (-1.5, 2.5);
    for y in [-30.0, -5.0, -1.0, 0.0, 0.3, 4.0, 30.0] {
        // A bound of 0 keeps the far tails exact (lb + e^−30 would round them away).
        let v = t::lower_bound_constrain(y, 0.0).unwrap();
        assert_close(t::lower_bound_unconstrain(v, 0.0).unwrap(), y, 1e-14);
        let v = t::upper_bound_constrain(y, 0.0).unwrap();
        assert_close(t::upper_bound_unconstrain(v, 0.0).unwrap(), y, 1e-14);
        let v = t::offset_multiplier_constrain(y, lb, 0.3).unwrap();
        assert_close(
            t::offset_multiplier_unconstrain(v, lb, 0.3).unwrap(),
            y,
            1e-14,
        );
    }
    for y in [-5.0, -1.0, 0.0, 0.3, 4.0] {
        let v = t::lower_bound_constrain(y, lb).unwrap();
        assert_close(t::lower_bound_unconstrain(v, lb).unwrap(), y, 1e-12);
        let v = t::upper_bound_constrain(y, ub).unwrap();
        assert_close(t::upper_bound_unconstrain(v, ub).unwrap(), y, 1e-12);
    }
    // Two bounds lose the far tails to rounding (σ(30) is within 1e-13 of 1): round trips
    // are exact to that rounding.
    for y in [-12.0, -1.0, 0.0, 0.3, 12.0] {
        let v = t::lower_upper_bound_constrain(y, lb, ub).unwrap();
        let back = t::lower_upper_bound_unconstrain(v, lb, ub).unwrap();
        assert_close(back, y, 1e-9);
    }
    // Constrained values next to the bounds come back exactly enough.
    for v in [lb + 1e-12, lb + 1e-3, 0.5, ub - 1e-3, ub - 1e-9] {
        let y = t::lower_upper_bound_unconstrain(v, lb, ub).unwrap();
        assert_close(t::lower_upper_bound_constrain(y, lb, ub).unwrap(), v, 1e-14);
        let y = t::lower_bound_unconstrain(v, lb).unwrap();
        assert_close(t::lower_bound_constrain(y, lb).unwrap(), v, 1e-14);
        let y = t::upper_bound_unconstrain(v, ub).unwrap();
        assert_close(t::upper_bound_constrain(y, ub).unwrap(), v, 1e-14);
    }
    // At the bounds: ±∞ (the checks include the bounds, as Stan's).
    assert_eq!(
        t::lower_upper_bound_unconstrain(lb, lb, ub).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(
        t::lower_bound_unconstrain(lb, lb).unwrap(),
        f64::NEG_INFINITY
    );
}

#[test]
fn log_jacobians_are_the_finite_difference_derivatives() {
    for &x in &[-3.0, -0.4, 0.0, 0.9, 2.5] {
        let lower = |y: &[f64]| vec![t::lower_bound_constrain(y[0], 0.7).unwrap()];
        assert_close(
            t::lower_bound_jacobian(x, 0.7).unwrap().1,
            fd_log_det(&lower, &[x], 1e-3),
            1e-9,
        );
        let upper = |y: &[f64]| vec![t::upper_bound_constrain(y[0], 0.7).unwrap()];
        assert_close(
            t::upper_bound_jacobian(x, 0.7).unwrap().1,
            fd_log_det(&upper, &[x], 1e-3),
            1e-9,
        );
        let lub = |y: &[f64]| vec![t::lower_upper_bound_constrain(y[0], -2.0, 5.0).unwrap()];
        assert_close(
            t::lower_upper_bound_jacobian(x, -2.0, 5.0).unwrap().1,
            fd_log_det(&lub, &[x], 1e-3),
            1e-9,
        );
        let om = |y: &[f64]| vec![t::offset_multiplier_constrain(y[0], 1.0, 0.3).unwrap()];
        assert_close(
            t::offset_multiplier_jacobian(x, 1.0, 0.3).unwrap().1,
            fd_log_det(&om, &[x], 1e-3),
            1e-9,
        );
    }
    // An array with one bound per element: the Jacobian is diagonal, its log |det| the sum.
    let lbs = Vector::from(vec![0.1, -2.0, 3.0]);
    let ubs = Vector::from(vec![1.0, 0.0, 3.5]);
    let f = |y: &[f64]| {
        t::lower_upper_bound_constrain_array(&Vector::from(y.to_vec()), &lbs, &ubs)
            .unwrap()
            .value()
            .to_vec()
    };
    let x = [0.3, -1.1, 2.0];
    let lj = t::lower_upper_bound_jacobian_array(&Vector::from(x.to_vec()), &lbs, &ubs)
        .unwrap()
        .1;
    assert_close(lj.value(), fd_log_det(&f, &x, 1e-3), 1e-9);
    tape::reset();
}

#[test]
fn scalar_gradients_with_every_argument_a_variable() {
    let pts: [&[f64]; 3] = [&[0.3, -1.0, 2.0], &[-4.0, 0.5, 0.6], &[6.0, -3.0, 10.0]];
    let lub = |v: &[Var]| {
        let (c, lj) = t::lower_upper_bound_jacobian(v[0], v[1], v[2]).unwrap();
        c + 0.7 * lj
    };
    check_gradient(lub, &pts);
    let om = |v: &[Var]| {
        let (c, lj) = t::offset_multiplier_jacobian(v[0], v[1], v[2]).unwrap();
        c + 0.7 * lj
    };
    check_gradient(om, &[&[0.3, -1.0, 2.0], &[-4.0, 0.5, 0.6]]);
    let lower = |v: &[Var]| {
        let (c, lj) = t::lower_bound_jacobian(v[0], v[1]).unwrap();
        c + 0.7 * lj
    };
    check_gradient(lower, &[&[0.3, -1.0], &[-4.0, 2.0]]);
    let upper = |v: &[Var]| {
        let (c, lj) = t::upper_bound_jacobian(v[0], v[1]).unwrap();
        c + 0.7 * lj
    };
    check_gradient(upper, &[&[0.3, -1.0], &[-4.0, 2.0]]);
    // Mixes: only the bound a variable, only x.
    check_gradient(
        |v: &[Var]| t::lower_upper_bound_constrain(0.4, v[0], 3.0).unwrap(),
        &[&[-1.0]],
    );
    check_gradient(
        |v: &[Var]| t::lower_upper_bound_jacobian(0.4, -1.0, v[0]).unwrap().1,
        &[&[2.0]],
    );
    // The inverses, in the value and in the bounds.
    check_gradient(
        |v: &[Var]| t::lower_upper_bound_unconstrain(v[0], v[1], v[2]).unwrap(),
        &[&[0.5, -1.0, 2.0], &[1.9, 0.0, 2.0]],
    );
    check_gradient(
        |v: &[Var]| t::lower_bound_unconstrain(v[0], v[1]).unwrap(),
        &[&[0.5, -1.0]],
    );
    check_gradient(
        |v: &[Var]| t::upper_bound_unconstrain(v[0], v[1]).unwrap(),
        &[&[0.5, 1.0]],
    );
    check_gradient(
        |v: &[Var]| t::offset_multiplier_unconstrain(v[0], v[1], v[2]).unwrap(),
        &[&[0.5, 1.0, 0.4]],
    );
    tape::reset();
}

#[test]
fn array_forms_agree_with_the_scalar_forms() {
    for k in [1usize, 2, 5, 30] {
        let x = points(k, 3, 2.0);
        let lb = points(k, 4, 1.0);
        let ub: Vec<f64> = lb.iter().map(|l| l + 0.5 + l.abs()).collect();
        let (xv, lbv, ubv) = (
            Vector::from(x.clone()),
            Vector::from(lb.clone()),
            Vector::from(ub.clone()),
        );
        let (v, lj) = t::lower_upper_bound_jacobian_array(&xv, &lbv, &ubv).unwrap();
        let mut total = 0.0;
        for i in 0..k {
            let (s, l) = t::lower_upper_bound_jacobian(x[i], lb[i], ub[i]).unwrap();
            assert_eq!(v.value()[i], s);
            total += l;
        }
        assert_close(lj.value(), total, 1e-13);
        // One scalar bound for every element.
        let (v, lj) = t::lower_bound_jacobian_array(&xv, 0.5).unwrap();
        let (u, uj) = t::upper_bound_jacobian_array(&xv, 0.5).unwrap();
        let free = t::lower_bound_unconstrain_array(v.value(), 0.5).unwrap();
        for (i, &xi) in x.iter().enumerate() {
            assert_eq!(v.value()[i], t::lower_bound_constrain(xi, 0.5).unwrap());
            assert_eq!(u.value()[i], t::upper_bound_constrain(xi, 0.5).unwrap());
            assert_close(free.value()[i], xi, 1e-13);
        }
        assert_close(lj.value(), x.iter().sum(), 1e-13);
        assert_close(uj.value(), x.iter().sum(), 1e-13);
        // Offset and multiplier: n·log σ for a scalar σ.
        let (_, oj) = t::offset_multiplier_jacobian_array(&xv, 1.0, 2.0).unwrap();
        assert_close(oj.value(), k as f64 * 2f64.ln(), 1e-14);
        let back = t::lower_upper_bound_unconstrain_array(
            t::lower_upper_bound_constrain_array(&xv, &lbv, &ubv)
                .unwrap()
                .value(),
            &lbv,
            &ubv,
        )
        .unwrap();
        assert_all_close(back.value().as_slice().unwrap(), &x, 1e-12);
        // Gradients agree too: the array form against the scalar form on scalar variables.
        let vals: Vec<f64> = x.iter().chain(&lb).chain(&ub).copied().collect();
        let array = |v: &[Var]| {
            let (c, lj) = t::lower_upper_bound_jacobian_array(
                &vector_from(&v[..k]),
                &vector_from(&v[k..2 * k]),
                &vector_from(&v[2 * k..]),
            )
            .unwrap();
            combine(&c, lj, 9)
        };
        let scalar = |v: &[Var]| {
            let w = revad::testing::test_points(k, 9);
            let mut s = Var::new(0.0) * 0.0;
            for i in 0..k {
                let (c, l) = t::lower_upper_bound_jacobian(v[i], v[k + i], v[2 * k + i]).unwrap();
                s = s + w[i] * c + 0.7 * l;
            }
            s
        };
        revad::testing::check_matvar(array, scalar, &vals, (k <= 5).then(Default::default));
    }
    tape::reset();
}

#[test]
fn array_gradients_for_each_mix_of_bounds() {
    let x = points(5, 11, 1.5);
    // A vector x with a scalar variable lb and a vector variable ub.
    let f = |v: &[Var]| {
        let (c, lj) =
            t::lower_upper_bound_jacobian_array(&vector_from(&v[..5]), v[5], &vector_from(&v[6..]))
                .unwrap();
        combine(&c, lj, 2)
    };
    let mut p: Vec<f64> = x.clone();
    p.push(-3.0);
    p.extend(points(5, 12, 1.0).iter().map(|u| u + 3.0));
    check_gradient(f, &[&p]);
    // A matrix x with a matrix offset (data) and a scalar variable multiplier.
    let mu: Matrix = array![[0.1, 0.2, 0.3], [-1.0, 0.0, 1.0]].into_shared();
    let g = |v: &[Var]| {
        let (c, lj) =
            t::offset_multiplier_jacobian_array(&matrix_from(2, 3, &v[..6]), &mu, v[6]).unwrap();
        combine(&c, lj, 3)
    };
    let mut q = points(6, 13, 1.0);
    q.push(0.8);
    check_gradient(g, &[&q]);
    // The inverses with variable bounds.
    let h = |v: &[Var]| {
        let lbv = vector_from(&v[3..]);
        let y = t::lower_bound_unconstrain_array(&vector_from(&v[..3]), &lbv).unwrap();
        revad::testing::weighted_sum(&y, 4)
    };
    check_gradient(h, &[&[1.0, 2.0, 0.5, 0.0, -1.0, 0.2]]);
    let u = |v: &[Var]| {
        let y = t::upper_bound_unconstrain_array(&matrix_from(1, 2, &v[..2]), v[2]).unwrap();
        revad::testing::weighted_sum(&y, 5)
    };
    check_gradient(u, &[&[1.0, 2.0, 3.0]]);
    let w = |v: &[Var]| {
        let y = t::offset_multiplier_unconstrain_array(
            &vector_from(&v[..2]),
            v[2],
            &vector_from(&v[3..]),
        )
        .unwrap();
        revad::testing::weighted_sum(&y, 6)
    };
    check_gradient(w, &[&[1.0, 2.0, 0.3, 0.5, 1.5]]);
    // A Limit serves as a bound too.
    let lim = Limit::Vector(Vector::from(vec![0.0, 1.0]));
    let a = t::lower_bound_constrain_array(&Vector::from(vec![0.0, 0.0]), lim).unwrap();
    assert_eq!(a.value().to_vec(), vec![1.0, 2.0]);
    tape::reset();
}

#[test]
fn each_call_records_one_node() {
    tape::reset();
    let x = Var::array(Vector::from(points(30, 1, 1.0)));
    let lb = Var::new(-1.0);
    let before = tape::stats().continuations;
    let (v, lj) = t::lower_upper_bound_jacobian_array(&x, lb, 5.0).unwrap();
    assert_eq!(tape::stats().continuations, before + 1);
    let s = t::lower_upper_bound_jacobian(x.value()[0], lb, 5.0).unwrap();
    assert_eq!(tape::stats().continuations, before + 2);
    // Data only records nothing and gives f64.
    let d: f64 = t::lower_bound_constrain(1.0, 0.0).unwrap();
    assert_eq!(tape::stats().continuations, before + 2);
    assert_eq!(d, 1f64.exp());
    (revad::matrix::sum(&v) + lj + s.0 + s.1).grad();
    assert!(to_array_1d(&v).len() == 30);
    tape::reset();
}

#[test]
fn errors_carry_stans_messages() {
    let e = |r: revad::Result<f64>| r.unwrap_err().to_string();
    assert_eq!(
        e(t::lower_upper_bound_constrain(0.0, 3.0, 2.0)),
        "lub_constrain: lb is 3, but must be less than 2"
    );
    assert_eq!(
        e(t::lower_upper_bound_constrain(0.0, f64::NAN, 2.0)),
        "lub_constrain: lb is NaN, but must be less than 2"
    );
    assert_eq!(
        e(t::lower_bound_unconstrain(-1.0, 0.0)),
        "lb_free: Lower bounded variable is -1, but must be greater than or equal to 0"
    );
    assert_eq!(
        e(t::lower_bound_unconstrain(f64::NAN, 0.5)),
        "lb_free: Lower bounded variable is NaN, but must be greater than or equal to 0.5"
    );
    assert_eq!(
        e(t::upper_bound_unconstrain(2.0, 1.0)),
        "ub_free: Upper bounded variable is 2, but must be less than or equal to 1"
    );
    assert_eq!(
        e(t::lower_upper_bound_unconstrain(2.0, 0.0, 1.0)),
        "lub_free: Bounded variable is 2, but must be in the interval [0, 1]"
    );
    assert_eq!(
        e(t::lower_upper_bound_unconstrain(
            2.0,
            f64::NEG_INFINITY,
            1.0
        )),
        "ub_free: Upper bounded variable is 2, but must be less than or equal to 1"
    );
    assert_eq!(
        e(t::offset_multiplier_constrain(0.0, f64::INFINITY, 1.0)),
        "offset_multiplier_constrain: offset is inf, but must be finite"
    );
    assert_eq!(
        e(t::offset_multiplier_constrain(0.0, 0.0, 0.0)),
        "offset_multiplier_constrain: multiplier is 0, but must be positive finite"
    );
    assert_eq!(
        e(t::offset_multiplier_unconstrain(0.0, 0.0, -1.0)),
        "offset_multiplier_free: multiplier is -1, but must be positive finite"
    );
    let x = Vector::from(vec![0.0, 0.0]);
    let a = |r: revad::Result<Var<Vector>>| r.unwrap_err().to_string();
    assert_eq!(
        a(t::lower_upper_bound_constrain_array(
            &x,
            &Vector::from(vec![0.0, 3.0]),
            2.0
        )),
        "lub_constrain: lb[2] is 3, but must be less than 2"
    );
    assert_eq!(
        a(t::lower_bound_constrain_array(
            &x,
            &Vector::from(vec![0.0; 3])
        )),
        "lb_constrain: lb has size 3, but must have size 2"
    );
    assert_eq!(
        a(t::offset_multiplier_constrain_array(
            &x,
            0.0,
            &Vector::from(vec![1.0, -1.0])
        )),
        "offset_multiplier_constrain: multiplier[2] is -1, but must be positive finite"
    );
    assert_eq!(
        a(t::lower_bound_unconstrain_array(
            &Vector::from(vec![1.0, -1.0]),
            0.0
        )),
        "lb_free: Lower bounded variable[2] is -1, but must be greater than or equal to 0"
    );
    let m: Matrix = array![[1.0, 0.5], [2.0, 3.0]].into_shared();
    assert_eq!(
        t::lower_upper_bound_unconstrain_array(&m, 0.0, 2.5)
            .unwrap_err()
            .to_string(),
        "lub_free: Bounded variable[2,2] is 3, but must be in the interval [0, 2.5]"
    );
    let wide: Matrix = array![[0.0, 0.0, 0.0]].into_shared();
    assert_eq!(
        t::upper_bound_constrain_array(&m, &wide)
            .unwrap_err()
            .to_string(),
        "ub_constrain: ub has size 3, but must have size 4"
    );
    let tall: Matrix = array![[0.0], [0.0], [0.0], [0.0]].into_shared();
    assert_eq!(
        t::upper_bound_constrain_array(&m, &tall)
            .unwrap_err()
            .to_string(),
        "ub_constrain: rows of ub has size 4, but must have size 2"
    );
}
