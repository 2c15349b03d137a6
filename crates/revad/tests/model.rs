//! `revad::model`: a declared model against the same model written by hand on the
//! unconstrained space (values and gradients, with and without the Jacobian, `propto`), names
//! and sizes in Stan's order, constrain/unconstrain round trips through simplex, Cholesky and
//! matrix parameters, the Hessian of a Gaussian, errors and their recoverability, threads.

use ndarray::Array1;
use revad::model::{DensityModel, Model, Param, Values};
use revad::testing::{assert_close, finite_diff_gradient};
use revad::transform::{Limit, Shape, Transform};
use revad::{cauchy_lpdf, matrix, multi_normal_lpdf, normal_lpdf, Error, Result, Var, Vector};

const Y: [f64; 8] = [28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0];
const SIGMA: [f64; 8] = [15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0];

/// The eight-schools log density of constrained values.
fn schools(mu: Var, tau: Var, eta: &Var<Vector>, propto: bool) -> Result<Var> {
    let theta = matrix::add_scalar(&matrix::multiply_scalar(eta, tau), mu);
    Ok(normal_lpdf(mu, 0.0, 5.0, propto)?
        + cauchy_lpdf(tau, 0.0, 5.0, propto)?
        + normal_lpdf(eta, 0.0, 1.0, propto)?
        + normal_lpdf(&Y[..], &theta, &SIGMA[..], propto)?)
}

fn schools_model() -> DensityModel<impl Fn(&Values, bool) -> Result<Var>> {
    DensityModel::new(
        "eight_schools",
        vec![
            Param::new("mu", Transform::Identity, Shape::Scalar),
            Param::new(
                "tau",
                Transform::LowerBound(Limit::Real(0.0)),
                Shape::Scalar,
            ),
            Param::new("eta", Transform::Identity, Shape::Vector(8)),
        ],
        |p, propto| schools(p.scalar("mu")?, p.scalar("tau")?, p.vector("eta")?, propto),
    )
    .unwrap()
}

/// The same density written by hand: tau = exp(log_tau), log|J| = log_tau.
fn by_hand(x: &[Var], jacobian: bool, propto: bool) -> Var {
    let eta = Var::from_vars(&Array1::zeros(8).into_shared(), &x[2..]).unwrap();
    let lp = schools(x[0], revad::exp(x[1]), &eta, propto).unwrap();
    if jacobian {
        lp + x[1]
    } else {
        lp
    }
}

fn points() -> Vec<Vec<f64>> {
    vec![
        (0..10).map(|i| -1.0 + 0.2 * i as f64).collect(),
        revad::testing::test_points(10, 3),
    ]
}

#[test]
fn values_and_gradients_match_the_model_by_hand() {
    let model = schools_model();
    for x in points() {
        for (jacobian, propto) in [(true, true), (true, false), (false, true), (false, false)] {
            let (want, want_grad) = revad::gradient(|v| by_hand(v, jacobian, propto), &x);
            let mut grad = [0.0; 10];
            let lp = model
                .log_density_gradient(&x, propto, jacobian, &mut grad)
                .unwrap();
            assert_close(lp, want, 1e-13);
            for (a, b) in grad.iter().zip(&want_grad) {
                assert_close(*a, *b, 1e-12);
            }
            assert_close(
                model.log_density(&x, propto, jacobian).unwrap(),
                want,
                1e-13,
            );
        }
    }
}

#[test]
fn the_gradient_matches_finite_differences() {
    let model = schools_model();
    for x in points() {
        let mut grad = [0.0; 10];
        model
            .log_density_gradient(&x, false, true, &mut grad)
            .unwrap();
        // Ridders' finite differences of the model's log density on floats.
        let f = |v: &[Var]| {
            let at: Vec<f64> = v.iter().map(|x| x.value()).collect();
            Var::new(model.log_density(&at, false, true).unwrap())
        };
        let fd = finite_diff_gradient(&f, &x);
        for (a, b) in grad.iter().zip(&fd) {
            assert_close(*a, *b, 1e-7);
        }
    }
}

fn mixed_model() -> DensityModel<impl Fn(&Values, bool) -> Result<Var>> {
    DensityModel::new(
        "mixed",
        vec![
            Param::new("a", Transform::Identity, Shape::Scalar),
            Param::new("theta", Transform::Simplex, Shape::Vector(3)),
            Param::new("L", Transform::CholeskyFactorCorr, Shape::Matrix(3, 3)),
            Param::new("m", Transform::Identity, Shape::Matrix(2, 3)),
        ],
        |p, _| {
            Ok(p.scalar("a")?
                + matrix::sum(p.vector("theta")?)
                + matrix::sum(p.matrix("L")?)
                + matrix::sum(p.matrix("m")?))
        },
    )
    .unwrap()
}

#[test]
fn names_and_sizes_follow_bridgestan() {
    let m = mixed_model();
    assert_eq!(m.name(), "mixed");
    assert_eq!(m.param_num(), 1 + 3 + 9 + 6);
    assert_eq!(m.param_unc_num(), 1 + 2 + 3 + 6);
    let names = m.param_names();
    assert_eq!(
        &names[..5],
        &["a", "theta.1", "theta.2", "theta.3", "L.1.1"]
    );
    assert_eq!(&names[5..7], &["L.2.1", "L.3.1"]);
    assert_eq!(&names[13..16], &["m.1.1", "m.2.1", "m.1.2"]);
    let unc = m.param_unc_names();
    assert_eq!(&unc[..4], &["a", "theta.1", "theta.2", "L.1"]);
    assert_eq!(unc.len(), 12);
}

#[test]
fn constrain_and_unconstrain_are_inverse() {
    let m = mixed_model();
    let x = revad::testing::test_points(12, 5);
    let mut theta = vec![0.0; m.param_num()];
    m.param_constrain(&x, &mut theta).unwrap();
    // The simplex sums to 1; L (column-major) has a unit first row and zeros above.
    assert_close(theta[1] + theta[2] + theta[3], 1.0, 1e-15);
    assert_eq!(theta[4], 1.0);
    assert_eq!((theta[7], theta[10], theta[11]), (0.0, 0.0, 0.0));
    // The matrix parameter reads its free values column-major.
    assert_eq!(&theta[13..19], &x[6..12]);
    let mut back = vec![0.0; m.param_unc_num()];
    m.param_unconstrain(&theta, &mut back).unwrap();
    for (a, b) in back.iter().zip(&x) {
        assert_close(*a, *b, 1e-12);
    }
}

#[test]
fn hessian_of_a_gaussian_is_its_negative_precision() {
    let s = revad::testing::spd_matrix(3, 4);
    let mean: Vector = Array1::from(vec![0.5, -1.0, 2.0]).into_shared();
    let s2 = s.clone();
    let model = DensityModel::new(
        "gaussian",
        vec![Param::new("x", Transform::Identity, Shape::Vector(3))],
        move |p, _| multi_normal_lpdf(p.vector("x")?, &mean, &s2, false),
    )
    .unwrap();
    let x = [0.1, 0.2, 0.3];
    let (mut grad, mut hess) = ([0.0; 3], [0.0; 9]);
    model
        .log_density_hessian(&x, true, true, &mut grad, &mut hess)
        .unwrap();
    let inv = revad::linalg::inverse_spd(&s).unwrap().value().clone();
    for i in 0..3 {
        for j in 0..3 {
            assert!((hess[i * 3 + j] + inv[[i, j]]).abs() < 1e-6, "{i},{j}");
        }
    }
    let v = [1.0, -2.0, 0.5];
    let mut hv = [0.0; 3];
    model
        .log_density_hessian_vector_product(&x, &v, true, true, &mut hv)
        .unwrap();
    for i in 0..3 {
        let want: f64 = -(0..3).map(|j| inv[[i, j]] * v[j]).sum::<f64>();
        assert!((hv[i] - want).abs() < 1e-6);
    }
}

#[test]
fn errors_say_whether_they_are_recoverable() {
    let model = schools_model();
    let mut grad = [0.0; 10];
    let e = model
        .log_density_gradient(&[0.0; 3], true, true, &mut grad)
        .unwrap_err();
    assert!(matches!(e, Error::Size { .. }) && !e.is_recoverable());
    // tau below its bound: the transform's domain error, recoverable.
    let mut out = [0.0; 10];
    let mut theta = [0.0; 10];
    theta[1] = -1.0;
    let e = model.param_unconstrain(&theta, &mut out).unwrap_err();
    assert!(e.is_recoverable(), "{e}");
    // A density that fails at the point: its error comes back as it is.
    let failing = DensityModel::new(
        "failing",
        vec![Param::new("s", Transform::Identity, Shape::Scalar)],
        |p, propto| normal_lpdf(0.0, 0.0, p.scalar("s")?, propto),
    )
    .unwrap();
    let mut g = [0.0];
    let e = failing
        .log_density_gradient(&[-1.0], true, true, &mut g)
        .unwrap_err();
    assert!(e.is_recoverable());
    assert_eq!(
        failing.log_density(&[0.5], false, true).unwrap(),
        normal_lpdf(0.0, 0.0, 0.5, false).unwrap()
    );
    // A parameter the density asks for that is not declared.
    let e = DensityModel::new(
        "typo",
        vec![Param::new("s", Transform::Identity, Shape::Scalar)],
        |p, _| p.scalar("sigma"),
    )
    .unwrap()
    .log_density(&[1.0], true, true)
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Values: the model has no real parameter named \"sigma\""
    );
    // A transform that does not take its shape.
    let e = DensityModel::new(
        "bad",
        vec![Param::new("t", Transform::Simplex, Shape::Scalar)],
        |p, _| p.scalar("t"),
    )
    .err()
    .unwrap();
    assert!(e.to_string().starts_with("simplex: "), "{e}");
}

#[test]
fn threads_evaluate_independently() {
    let model = schools_model();
    let xs: Vec<Vec<f64>> = (0..4).map(|s| revad::testing::test_points(10, s)).collect();
    let want: Vec<(f64, [f64; 10])> = xs
        .iter()
        .map(|x| {
            let mut g = [0.0; 10];
            (
                model.log_density_gradient(x, true, true, &mut g).unwrap(),
                g,
            )
        })
        .collect();
    // A model holds transforms whose bounds may be variables, which belong to one thread's
    // tape: each thread makes its own (as each chain of a sampler does).
    std::thread::scope(|scope| {
        for (x, (lp, g)) in xs.iter().zip(&want) {
            scope.spawn(move || {
                let model = schools_model();
                for _ in 0..100 {
                    let mut grad = [0.0; 10];
                    assert_eq!(
                        model
                            .log_density_gradient(x, true, true, &mut grad)
                            .unwrap(),
                        *lp
                    );
                    assert_eq!(&grad, g);
                }
            });
        }
    });
}
