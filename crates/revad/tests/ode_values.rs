//! The ODE solvers' values: closed forms (exponential decay, the harmonic oscillator) and the
//! Lotka–Volterra system against SciPy, for each method, at Stan's default and at tight
//! tolerances; the shape of the result, repeated output times, data-only calls.

#![allow(clippy::excessive_precision)]

use revad::ode::{OdeRhs, OdeScalar};
use revad::{
    ode_adams, ode_adams_tol, ode_bdf, ode_bdf_tol, ode_ckrk, ode_ckrk_tol, ode_rk45, ode_rk45_tol,
    tape, Matrix, Var,
};

/// dy/dt = −k·y.
struct Decay;
impl OdeRhs for Decay {
    fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], k: &[T]) -> impl AsRef<[T]> {
        [-(k[0] * y[0])]
    }
}

/// x' = v, v' = −ω²·x.
struct Oscillator;
impl OdeRhs for Oscillator {
    fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], w: &[T]) -> impl AsRef<[T]> {
        [y[1], -(w[0] * w[0] * y[0])]
    }
}

/// du/dt = (α − βv)·u, dv/dt = (−γ + δu)·v.
struct LotkaVolterra;
impl OdeRhs for LotkaVolterra {
    fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], th: &[T]) -> impl AsRef<[T]> {
        [
            (th[0] - th[1] * y[1]) * y[0],
            (-th[2] + th[3] * y[0]) * y[1],
        ]
    }
}

const LV_THETA: [f64; 4] = [0.55, 0.028, 0.80, 0.024];
const LV_Y0: [f64; 2] = [33.0, 6.2];

/// The Lotka–Volterra states at t = 1..20: SciPy 1.17 `solve_ivp(lv, (0, 20), [33.0, 6.2],
/// method='DOP853', t_eval=range(1, 21), rtol=1e-13, atol=1e-13)`.
const LV_SCIPY: [[f64; 2]; 20] = [
    [4.764329952023795e+01, 7.271002907840977e+00],
    [6.356838457570719e+01, 1.249410608116940e+01],
    [6.465618996422050e+01, 2.765055601594705e+01],
    [3.942226056184655e+01, 4.448344799565671e+01],
    [2.015917230965011e+01, 3.949748380973280e+01],
    [1.393316154147695e+01, 2.626837492479098e+01],
    [1.345417473188448e+01, 1.627158355036635e+01],
    [1.619007331005291e+01, 1.037427225481456e+01],
    [2.201938688078276e+01, 7.323377275910669e+00],
    [3.170293945493133e+01, 6.215661833744067e+00],
    [4.589908459608325e+01, 7.025371507051355e+00],
    [6.214052875808790e+01, 1.158505045947922e+01],
    [6.600388385843046e+01, 2.547549379236625e+01],
    [4.240502528711585e+01, 4.363029083614806e+01],
    [2.143135130314122e+01, 4.078611623200363e+01],
    [1.423937774664215e+01, 2.759435162869593e+01],
    [1.333626895761981e+01, 1.712308261305085e+01],
    [1.575934692594521e+01, 1.084536501135635e+01],
    [2.123150591031769e+01, 7.546081200062170e+00],
    [3.045921129730163e+01, 6.251644694331420e+00],
];

fn lv_times() -> Vec<f64> {
    (1..=20).map(f64::from).collect()
}

fn max_rel_error(a: &Matrix, reference: &[[f64; 2]]) -> f64 {
    let mut worst: f64 = 0.0;
    for (i, row) in reference.iter().enumerate() {
        for (j, &r) in row.iter().enumerate() {
            worst = worst.max((a[[i, j]] - r).abs() / r.abs());
        }
    }
    worst
}

#[test]
fn lotka_volterra_matches_scipy_for_every_method() {
    let ts = lv_times();
    for (name, solve, _) in methods::<LotkaVolterra>() {
        // Stan's default tolerances: the global error of 20 time units of oscillation.
        let y = solve(
            &LotkaVolterra,
            &LV_Y0,
            0.0,
            &ts,
            1e-6,
            1e-6,
            1_000_000,
            &LV_THETA,
        )
        .unwrap();
        assert_eq!(y.dim(), (20, 2));
        let e = max_rel_error(&y, &LV_SCIPY);
        assert!(e < 2e-4, "{name} at 1e-6: {e:e}");
        // Tight tolerances.
        let y = solve(
            &LotkaVolterra,
            &LV_Y0,
            0.0,
            &ts,
            1e-10,
            1e-10,
            1_000_000,
            &LV_THETA,
        )
        .unwrap();
        let e = max_rel_error(&y, &LV_SCIPY);
        assert!(e < 2e-7, "{name} at 1e-10: {e:e}");
    }
}

#[test]
fn default_forms_use_stans_defaults() {
    let ts = lv_times();
    let d = ode_rk45(&LotkaVolterra, &LV_Y0, 0.0, &ts, &LV_THETA).unwrap();
    let t = ode_rk45_tol(
        &LotkaVolterra,
        &LV_Y0,
        0.0,
        &ts,
        1e-6,
        1e-6,
        1_000_000,
        &LV_THETA,
    )
    .unwrap();
    assert_eq!(d, t);
    let d = ode_ckrk(&LotkaVolterra, &LV_Y0, 0.0, &ts, &LV_THETA).unwrap();
    let t = ode_ckrk_tol(
        &LotkaVolterra,
        &LV_Y0,
        0.0,
        &ts,
        1e-6,
        1e-6,
        1_000_000,
        &LV_THETA,
    )
    .unwrap();
    assert_eq!(d, t);
    let d = ode_adams(&LotkaVolterra, &LV_Y0, 0.0, &ts, &LV_THETA).unwrap();
    let t = ode_adams_tol(
        &LotkaVolterra,
        &LV_Y0,
        0.0,
        &ts,
        1e-6,
        1e-6,
        1_000_000,
        &LV_THETA,
    )
    .unwrap();
    assert_eq!(d, t);
    let d = ode_bdf(&LotkaVolterra, &LV_Y0, 0.0, &ts, &LV_THETA).unwrap();
    let t = ode_bdf_tol(
        &LotkaVolterra,
        &LV_Y0,
        0.0,
        &ts,
        1e-6,
        1e-6,
        1_000_000,
        &LV_THETA,
    )
    .unwrap();
    assert_eq!(d, t);
}

/// A solver of `R` with explicit tolerances, by name, with the factor its global error may
/// exceed the tolerance by on these problems (a few periods of oscillation; the multistep
/// methods accumulate more: SciPy's BDF and LSODA show the same factors).
type SolverOf<R> = fn(&R, &[f64], f64, &[f64], f64, f64, i64, &[f64]) -> revad::Result<Matrix>;

fn methods<R: OdeRhs>() -> [(&'static str, SolverOf<R>, f64); 4] {
    [
        ("rk45", ode_rk45_tol, 30.0),
        ("ckrk", ode_ckrk_tol, 30.0),
        ("adams", ode_adams_tol, 100.0),
        ("bdf", ode_bdf_tol, 1000.0),
    ]
}

#[test]
fn exponential_decay_matches_its_closed_form() {
    let ts = [0.1, 0.5, 1.0, 2.5, 5.0, 10.0];
    let (y0, k) = (3.0, 0.8);
    for tol in [1e-6, 1e-8, 1e-10] {
        for (name, solve, factor) in methods::<Decay>() {
            let y = solve(&Decay, &[y0], 0.0, &ts, tol, tol, 100_000, &[k]).unwrap();
            for (i, &t) in ts.iter().enumerate() {
                let exact = y0 * (-k * t).exp();
                let e = (y[[i, 0]] - exact).abs() / (tol * (1.0 + exact));
                assert!(e < factor / 10.0, "{name} at tol {tol:e}, t = {t}: {e:e}");
            }
        }
    }
}

#[test]
fn harmonic_oscillator_matches_its_closed_form() {
    let ts = [0.1, 0.5, 1.0, 2.5, 5.0, 10.0];
    let (x0, v0, w) = (1.2, -0.4, 1.7);
    for tol in [1e-6, 1e-8, 1e-10] {
        for (name, solve, factor) in methods::<Oscillator>() {
            let y = solve(&Oscillator, &[x0, v0], 0.0, &ts, tol, tol, 100_000, &[w]).unwrap();
            for (i, &t) in ts.iter().enumerate() {
                let x = x0 * (w * t).cos() + v0 / w * (w * t).sin();
                let v = -x0 * w * (w * t).sin() + v0 * (w * t).cos();
                let e = (y[[i, 0]] - x).abs().max((y[[i, 1]] - v).abs() / w) / tol;
                assert!(e < factor, "{name} at tol {tol:e}, t = {t}: {e:e}");
            }
        }
    }
}

#[test]
fn repeated_times_and_a_late_start() {
    // Stan's times need only be sorted (repeats allowed); t₀ may be anywhere before them.
    let ts = [3.0, 3.0, 4.5];
    let none: [f64; 0] = [];
    let y = ode_rk45_tol(
        &Oscillator,
        &[1.0, 0.0],
        2.0,
        &ts,
        1e-10,
        1e-10,
        10_000,
        &[1.0],
    )
    .unwrap();
    let y2 = ode_ckrk_tol(
        &Oscillator,
        &[1.0, 0.0],
        2.0,
        &ts,
        1e-10,
        1e-10,
        10_000,
        &[1.0],
    )
    .unwrap();
    for m in [&y, &y2] {
        assert_eq!(m.row(0), m.row(1));
        assert!((m[[2, 0]] - 2.5f64.cos()).abs() < 1e-8);
    }
    // No parameters at all.
    struct Free;
    impl OdeRhs for Free {
        fn rhs<T: OdeScalar>(&self, t: f64, y: &[T], _a: &[T]) -> impl AsRef<[T]> {
            // y' = cos(t)·y: y = y₀·exp(sin t).
            [y[0] * t.cos()]
        }
    }
    let y = ode_adams_tol(&Free, &[2.0], 0.0, &[1.0, 2.0], 1e-10, 1e-10, 10_000, &none).unwrap();
    assert!((y[[1, 0]] - 2.0 * 2f64.sin().exp()).abs() < 1e-8);
}

#[test]
fn data_only_calls_record_nothing() {
    // The state alone runs on f64 for every method; bdf's Jacobians are recorded in nested
    // scopes that end with each evaluation.
    let before = tape::stats();
    let ts = lv_times();
    ode_rk45(&LotkaVolterra, &LV_Y0, 0.0, &ts, &LV_THETA).unwrap();
    ode_ckrk(&LotkaVolterra, &LV_Y0, 0.0, &ts, &LV_THETA).unwrap();
    ode_adams(&LotkaVolterra, &LV_Y0, 0.0, &ts, &LV_THETA).unwrap();
    ode_bdf(&LotkaVolterra, &LV_Y0, 0.0, &ts, &LV_THETA).unwrap();
    let after = tape::stats();
    assert_eq!(after.variables, before.variables);
    assert_eq!(after.continuations, before.continuations);
    assert_eq!(after.depth, 1);
}

#[test]
fn variables_give_the_same_states_as_data() {
    // Up to the tolerance: the sensitivities take part in the error control.
    let ts = lv_times();
    let data = ode_rk45_tol(
        &LotkaVolterra,
        &LV_Y0,
        0.0,
        &ts,
        1e-10,
        1e-10,
        100_000,
        &LV_THETA,
    )
    .unwrap();
    let theta: Vec<Var> = LV_THETA.iter().map(|&v| Var::new(v)).collect();
    let vars = ode_rk45_tol(
        &LotkaVolterra,
        &LV_Y0,
        0.0,
        &ts,
        1e-10,
        1e-10,
        100_000,
        &theta,
    )
    .unwrap();
    assert_eq!(vars.value().dim(), (20, 2));
    assert!(max_rel_error(vars.value(), &LV_SCIPY) < 2e-7);
    assert!(max_rel_error(&data, &LV_SCIPY) < 2e-7);
    tape::reset();
}

#[test]
fn closures_of_variables_are_right_hand_sides() {
    // The closure form: recorded on the tape even for the state alone.
    let lv = |_t: f64, y: &[Var], th: &[Var]| -> Vec<Var> {
        vec![
            (th[0] - th[1] * y[1]) * y[0],
            (-th[2] + th[3] * y[0]) * y[1],
        ]
    };
    let ts = lv_times();
    let y = ode_rk45_tol(&lv, &LV_Y0, 0.0, &ts, 1e-10, 1e-10, 100_000, &LV_THETA).unwrap();
    assert!(max_rel_error(&y, &LV_SCIPY) < 2e-7);
    let theta: Vec<Var> = LV_THETA.iter().map(|&v| Var::new(v)).collect();
    let yv = ode_bdf_tol(&lv, &LV_Y0, 0.0, &ts, 1e-9, 1e-9, 100_000, &theta).unwrap();
    assert!(max_rel_error(yv.value(), &LV_SCIPY) < 5e-6);
    tape::reset();
}
