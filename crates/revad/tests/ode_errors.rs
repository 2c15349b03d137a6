//! The ODE solvers' errors: Stan's argument checks in Stan's order with their messages, a
//! right-hand side of the wrong size, the step limit, and a right-hand side that returns NaN
//! (an error, never a hang); the tape is left as it was.

use revad::ode::{OdeRhs, OdeScalar};
use revad::{
    ode_adams, ode_adams_tol, ode_bdf, ode_bdf_tol, ode_ckrk, ode_ckrk_tol, ode_rk45, ode_rk45_tol,
    tape, Var,
};

struct Decay;
impl OdeRhs for Decay {
    fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], k: &[T]) -> impl AsRef<[T]> {
        y.iter().map(|&v| -(k[0] * v)).collect::<Vec<T>>()
    }
}

/// One call's arguments (y₀, t₀, ts, k) and its expected message.
type Case<'a> = (&'a [f64], f64, &'a [f64], &'a [f64], &'a str);

fn rk45_msg(y0: &[f64], t0: f64, ts: &[f64], k: &[f64]) -> String {
    ode_rk45(&Decay, y0, t0, ts, k).unwrap_err().to_string()
}

#[test]
fn argument_checks_have_stans_messages() {
    let inf = f64::INFINITY;
    let cases: [Case; 8] = [
        (
            &[1.0, inf],
            0.0,
            &[1.0],
            &[0.5],
            "ode_rk45: initial state[2] is inf, but must be finite",
        ),
        (
            &[1.0],
            f64::NAN,
            &[1.0],
            &[0.5],
            "ode_rk45: initial time is NaN, but must be finite",
        ),
        (
            &[1.0],
            0.0,
            &[1.0, 2.0, -inf],
            &[0.5],
            "ode_rk45: times[3] is -inf, but must be finite",
        ),
        (
            &[1.0],
            0.0,
            &[1.0],
            &[f64::NAN],
            "ode_rk45: ode parameters and data[1] is NaN, but must be finite",
        ),
        (
            &[],
            0.0,
            &[1.0],
            &[0.5],
            "ode_rk45: initial state has size 0, but must have a non-zero size",
        ),
        (
            &[1.0],
            0.0,
            &[],
            &[0.5],
            "ode_rk45: times has size 0, but must have a non-zero size",
        ),
        (
            &[1.0],
            0.0,
            &[3.0, 1.0],
            &[0.5],
            "ode_rk45: times is not a valid sorted vector. The element at 2 is 1, but should be \
             greater than or equal to the previous element, 3",
        ),
        (
            &[1.0],
            1.0,
            &[1.0, 2.0],
            &[0.5],
            "ode_rk45: initial time is 1, but must be less than 1",
        ),
    ];
    for (y0, t0, ts, k, msg) in cases {
        assert_eq!(rk45_msg(y0, t0, ts, k), msg);
    }
    // Stan's order: the finiteness of every argument before the sizes and the sorting.
    assert_eq!(
        rk45_msg(&[f64::NAN], 5.0, &[3.0, 1.0], &[0.5]),
        "ode_rk45: initial state[1] is NaN, but must be finite"
    );
    // Empty state and times: the state is reported first, except by the CVODES solvers.
    let none: [f64; 0] = [];
    assert_eq!(
        rk45_msg(&none, 0.0, &none, &[0.5]),
        "ode_rk45: initial state has size 0, but must have a non-zero size"
    );
    assert_eq!(
        ode_ckrk(&Decay, &none, 0.0, &none, &[0.5])
            .unwrap_err()
            .to_string(),
        "ode_ckrk: initial state has size 0, but must have a non-zero size"
    );
    assert_eq!(
        ode_bdf(&Decay, &none, 0.0, &none, &[0.5])
            .unwrap_err()
            .to_string(),
        "ode_bdf: times has size 0, but must have a non-zero size"
    );
    assert_eq!(
        ode_adams(&Decay, &none, 0.0, &none, &[0.5])
            .unwrap_err()
            .to_string(),
        "ode_adams: times has size 0, but must have a non-zero size"
    );
}

#[test]
fn tolerance_checks_name_the_tol_function() {
    type Tol =
        fn(&Decay, &[f64], f64, &[f64], f64, f64, i64, &[f64]) -> revad::Result<revad::Matrix>;
    let solvers: [(&str, Tol); 4] = [
        ("ode_rk45_tol", ode_rk45_tol),
        ("ode_ckrk_tol", ode_ckrk_tol),
        ("ode_adams_tol", ode_adams_tol),
        ("ode_bdf_tol", ode_bdf_tol),
    ];
    for (name, solve) in solvers {
        let run = |rtol: f64, atol: f64, steps: i64| {
            solve(&Decay, &[1.0], 0.0, &[1.0], rtol, atol, steps, &[0.5])
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            run(0.0, 1e-6, 10),
            format!("{name}: relative_tolerance is 0, but must be positive finite")
        );
        assert_eq!(
            run(1e-6, f64::INFINITY, 10),
            format!("{name}: absolute_tolerance is inf, but must be positive finite")
        );
        assert_eq!(
            run(1e-6, -1e-6, 10),
            format!("{name}: absolute_tolerance is -1e-6, but must be positive finite")
        );
        assert_eq!(
            run(1e-6, 1e-6, 0),
            format!("{name}: max_num_steps is 0, but must be positive")
        );
        assert!(solve(&Decay, &[1.0], 0.0, &[1.0], 1e-6, 1e-6, 1000, &[0.5]).is_ok());
    }
}

/// dy/dt with one element too many.
struct TooLong;
impl OdeRhs for TooLong {
    fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], _k: &[T]) -> impl AsRef<[T]> {
        vec![y[0]; y.len() + 1]
    }
}

#[test]
fn a_right_hand_side_of_the_wrong_size() {
    let msg =
        |name: &str| format!("{name}: dy_dt (the output of f) has size 3, but must have size 2");
    // The state alone (f64), and with sensitivities (the Jacobian's recordings).
    let k = Var::new(0.5);
    for (name, data, var) in [
        (
            "ode_rk45",
            ode_rk45(&TooLong, &[1.0, 2.0], 0.0, &[1.0], &[0.5]).map(|_| ()),
            ode_rk45(&TooLong, &[1.0, 2.0], 0.0, &[1.0], &[k]).map(|_| ()),
        ),
        (
            "ode_ckrk",
            ode_ckrk(&TooLong, &[1.0, 2.0], 0.0, &[1.0], &[0.5]).map(|_| ()),
            ode_ckrk(&TooLong, &[1.0, 2.0], 0.0, &[1.0], &[k]).map(|_| ()),
        ),
        (
            "ode_adams",
            ode_adams(&TooLong, &[1.0, 2.0], 0.0, &[1.0], &[0.5]).map(|_| ()),
            ode_adams(&TooLong, &[1.0, 2.0], 0.0, &[1.0], &[k]).map(|_| ()),
        ),
        (
            "ode_bdf",
            ode_bdf(&TooLong, &[1.0, 2.0], 0.0, &[1.0], &[0.5]).map(|_| ()),
            ode_bdf(&TooLong, &[1.0, 2.0], 0.0, &[1.0], &[k]).map(|_| ()),
        ),
    ] {
        assert_eq!(data.unwrap_err().to_string(), msg(name));
        assert_eq!(var.unwrap_err().to_string(), msg(name));
    }
    // Nothing of the failed solves is left on the tape.
    let s = tape::stats();
    assert_eq!((s.depth, s.continuations), (1, 0));
    tape::reset();
}

/// dy/dt = y²: blows up at t = 1/y₀.
struct BlowUp;
impl OdeRhs for BlowUp {
    fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], _k: &[T]) -> impl AsRef<[T]> {
        [y[0] * y[0]]
    }
}

/// dy/dt = NaN once t > 1.
struct NanAfterOne;
impl OdeRhs for NanAfterOne {
    fn rhs<T: OdeScalar>(&self, t: f64, y: &[T], _k: &[T]) -> impl AsRef<[T]> {
        [if t > 1.0 { y[0] * f64::NAN } else { -y[0] }]
    }
}

#[test]
fn singularities_and_nan_are_errors_not_hangs() {
    let none: [f64; 0] = [];
    type Tol<R> =
        fn(&R, &[f64], f64, &[f64], f64, f64, i64, &[f64]) -> revad::Result<revad::Matrix>;
    fn all<R: OdeRhs>() -> [Tol<R>; 4] {
        [ode_rk45_tol, ode_ckrk_tol, ode_adams_tol, ode_bdf_tol]
    }
    for solve in all::<BlowUp>() {
        let e = solve(
            &BlowUp,
            &[1.0],
            0.0,
            &[0.5, 2.0],
            1e-6,
            1e-6,
            100_000,
            &none,
        )
        .unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("Failed to integrate to next output time (2)"),
            "{m}"
        );
    }
    for solve in all::<NanAfterOne>() {
        let e = solve(
            &NanAfterOne,
            &[1.0],
            0.0,
            &[0.5, 2.0],
            1e-6,
            1e-6,
            100_000,
            &none,
        )
        .unwrap_err();
        let m = e.to_string();
        assert!(
            m.contains("Failed to integrate to next output time (2)"),
            "{m}"
        );
    }
    // The step limit counts the steps between two output times.
    let e = ode_rk45_tol(&Decay, &[1.0], 0.0, &[10.0, 20.0], 1e-10, 1e-10, 5, &[0.5]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ode_rk45_tol: Failed to integrate to next output time (10) in less than max_num_steps \
         steps"
    );
    let many: Vec<f64> = (1..=200).map(|i| i as f64 * 0.01).collect();
    assert!(ode_rk45_tol(&Decay, &[1.0], 0.0, &many, 1e-6, 1e-6, 5, &[0.5]).is_ok());
}
