//! Stiff systems: Robertson's chemical kinetics and van der Pol's oscillator with μ = 1000,
//! against SciPy's Radau, by `ode_bdf` (values and sensitivities); the explicit methods on a
//! stiff system stop with the max-steps error, quickly.

#![allow(clippy::excessive_precision)]

use std::time::{Duration, Instant};

use revad::ode::{OdeRhs, OdeScalar};
use revad::{ode_adams_tol, ode_bdf, ode_bdf_tol, ode_ckrk_tol, ode_rk45_tol, tape, Var};

/// Robertson: y₁' = −k₁y₁ + k₂y₂y₃, y₂' = k₁y₁ − k₂y₂y₃ − k₃y₂², y₃' = k₃y₂².
struct Robertson;
impl OdeRhs for Robertson {
    fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], k: &[T]) -> impl AsRef<[T]> {
        let a = k[0] * y[0];
        let b = k[1] * y[1] * y[2];
        let c = k[2] * y[1] * y[1];
        [b - a, a - b - c, c]
    }
}

const K: [f64; 3] = [0.04, 1e4, 3e7];
const ROB_TIMES: [f64; 7] = [0.4, 4.0, 40.0, 400.0, 4e3, 4e4, 4e5];

/// SciPy 1.17 `solve_ivp(robertson, (0, 4e5), [1, 0, 0], method='Radau', t_eval=ROB_TIMES,
/// rtol=1e-12, atol=1e-16, jac=exact Jacobian)`.
const ROB_RADAU: [[f64; 3]; 7] = [
    [
        9.851721138609887e-01,
        3.386395378974875e-05,
        1.479402218522148e-02,
    ],
    [
        9.055186785842523e-01,
        2.240475687560269e-05,
        9.445891665887177e-02,
    ],
    [
        7.158270687194139e-01,
        9.185534764558688e-06,
        2.841637457458208e-01,
    ],
    [
        4.505186684712009e-01,
        3.222901441676108e-06,
        5.494781086273567e-01,
    ],
    [
        1.832022577769494e-01,
        8.942371252777480e-07,
        8.167968479859254e-01,
    ],
    [
        3.898337708564895e-02,
        1.621768315915789e-07,
        9.610164607375201e-01,
    ],
    [
        4.938274520998176e-03,
        1.984994087961789e-08,
        9.950617056290626e-01,
    ],
];

#[test]
fn robertson_matches_radau() {
    // Stan's default tolerances, then tight ones (atol far below y₂ ~ 1e-8).
    for (rtol, atol, rel) in [(1e-6, 1e-6, 3e-3), (1e-8, 1e-14, 1e-5)] {
        let y = ode_bdf_tol(
            &Robertson,
            &[1.0, 0.0, 0.0],
            0.0,
            &ROB_TIMES,
            rtol,
            atol,
            100_000,
            &K,
        )
        .unwrap();
        for (i, row) in ROB_RADAU.iter().enumerate() {
            for (j, &r) in row.iter().enumerate() {
                let e = (y[[i, j]] - r).abs();
                // y₂ is below the absolute tolerance at Stan's defaults.
                assert!(
                    e <= rel * r.abs() + 10.0 * atol,
                    "rtol {rtol:e}, t = {}, y{}: {} vs {r}",
                    ROB_TIMES[i],
                    j + 1,
                    y[[i, j]]
                );
            }
        }
    }
    // Conservation: y₁ + y₂ + y₃ = 1.
    let y = ode_bdf(&Robertson, &[1.0, 0.0, 0.0], 0.0, &ROB_TIMES, &K).unwrap();
    for row in y.rows() {
        assert!((row.sum() - 1.0).abs() < 1e-9);
    }
}

/// ∂y(t)/∂k_j at t = 40 and 4e5 (rows j = 1..3, columns y₁, y₂, y₃): SciPy's Radau on the
/// forward sensitivity system (state and 3×3 sensitivities), rtol = 1e-11, atol = 1e-16.
const ROB_SENS: [(usize, [[f64; 3]; 3]); 2] = [
    (
        2,
        [
            [-4.2475587717e+00, 4.5911962493e-05, 4.2475128597e+00],
            [1.3730807973e-05, -2.3571921138e-10, -1.3730572254e-05],
            [-2.2883550889e-09, -1.1380595094e-13, 2.2884688949e-09],
        ],
    ),
    (
        6,
        [
            [-2.3633373290e-01, -4.5840785606e-07, 2.3633419131e-01],
            [9.4502719404e-07, 1.8325071529e-12, -9.4502902655e-07],
            [-1.5750484535e-10, -6.3625147784e-16, 1.5750548161e-10],
        ],
    ),
];

#[test]
// j indexes the states, which are columns of `want` and elements of the result.
#[allow(clippy::needless_range_loop)]
fn robertson_sensitivities_match_radau() {
    for (i, want) in ROB_SENS {
        for j in 0..3 {
            let _scope = tape::nested();
            let k: Vec<Var> = K.iter().map(|&v| Var::new(v)).collect();
            let y = ode_bdf_tol(
                &Robertson,
                &[1.0, 0.0, 0.0],
                0.0,
                &ROB_TIMES,
                1e-9,
                1e-20,
                100_000,
                &k,
            )
            .unwrap();
            y.element(3 * i + j).grad();
            for (p, kp) in k.iter().enumerate() {
                let (got, w) = (kp.adj(), want[p][j]);
                assert!(
                    (got - w).abs() <= 1e-4 * w.abs(),
                    "∂y{}({})/∂k{}: {got} vs {w}",
                    j + 1,
                    ROB_TIMES[i],
                    p + 1
                );
            }
        }
    }
}

/// Van der Pol: y₁' = y₂, y₂' = μ(1 − y₁²)y₂ − y₁.
struct VanDerPol;
impl OdeRhs for VanDerPol {
    fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], mu: &[T]) -> impl AsRef<[T]> {
        [y[1], mu[0] * (-(y[0] * y[0]) + 1.0) * y[1] - y[0]]
    }
}

const VDP_TIMES: [f64; 9] = [
    1.0, 10.0, 100.0, 400.0, 700.0, 1000.0, 1500.0, 2000.0, 2500.0,
];

/// SciPy 1.17 `solve_ivp(vdp, (0, 2500), [2, 0], method='Radau', t_eval=VDP_TIMES,
/// rtol=1e-11, atol=1e-12, jac=exact)`, μ = 1000 (relaxation transitions near t = 807, 1614,
/// 2421).
const VDP_RADAU: [[f64; 2]; 9] = [
    [1.999333370506e+00, -6.670371231732e-04],
    [1.993314927568e+00, -6.704037938754e-04],
    [1.931361320525e+00, -7.074176282283e-04],
    [1.693209426833e+00, -9.069343138473e-04],
    [1.342891731285e+00, -1.671588672785e-03],
    [-1.863646254806e+00, 7.535430865414e-04],
    [-1.354745919487e+00, 1.621788727567e-03],
    [1.706167732172e+00, -8.928097010326e-04],
    [-1.946539517798e+00, 6.979303891620e-04],
];

#[test]
fn van_der_pol_matches_radau() {
    let y = ode_bdf_tol(
        &VanDerPol,
        &[2.0, 0.0],
        0.0,
        &VDP_TIMES,
        1e-8,
        1e-10,
        100_000,
        &[1000.0],
    )
    .unwrap();
    for (i, row) in VDP_RADAU.iter().enumerate() {
        for (j, &r) in row.iter().enumerate() {
            assert!(
                (y[[i, j]] - r).abs() <= 1e-5 * r.abs(),
                "t = {}, y{}: {} vs {r}",
                VDP_TIMES[i],
                j + 1,
                y[[i, j]]
            );
        }
    }
    // With μ a variable: the same states (to the tolerance), and ∂y/∂μ against central finite
    // differences of the solution before the first transition.
    let ts = [100.0, 400.0, 700.0];
    let mu = Var::new(1000.0);
    let y = ode_bdf_tol(
        &VanDerPol,
        &[2.0, 0.0],
        0.0,
        &ts,
        1e-9,
        1e-12,
        100_000,
        &[mu],
    )
    .unwrap();
    y.element(4).grad();
    let solve = |m: f64| {
        ode_bdf_tol(
            &VanDerPol,
            &[2.0, 0.0],
            0.0,
            &ts,
            1e-11,
            1e-14,
            100_000,
            &[m],
        )
        .unwrap()[[2, 0]]
    };
    let h = 1e-2;
    let fd = (solve(1000.0 + h) - solve(1000.0 - h)) / (2.0 * h);
    assert!(
        (mu.adj() - fd).abs() < 1e-4 * fd.abs(),
        "∂y₁(700)/∂μ: {} vs {fd}",
        mu.adj()
    );
    assert!((y.value()[[2, 0]] - VDP_RADAU[4][0]).abs() < 1e-6);
    tape::reset();
}

#[test]
fn explicit_methods_stop_on_a_stiff_system() {
    // Never a hang: the step limit applies between two output times, and the error is Stan's.
    let start = Instant::now();
    let e = ode_rk45_tol(
        &Robertson,
        &[1.0, 0.0, 0.0],
        0.0,
        &ROB_TIMES,
        1e-6,
        1e-6,
        2000,
        &K,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "ode_rk45_tol: Failed to integrate to next output time (4) in less than \
         max_num_steps steps"
    );
    let e = ode_ckrk_tol(
        &VanDerPol,
        &[2.0, 0.0],
        0.0,
        &VDP_TIMES,
        1e-6,
        1e-6,
        500,
        &[1000.0],
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "ode_ckrk_tol: Failed to integrate to next output time (1) in less than max_num_steps \
         steps"
    );
    let e = ode_adams_tol(
        &VanDerPol,
        &[2.0, 0.0],
        0.0,
        &VDP_TIMES,
        1e-6,
        1e-6,
        500,
        &[1000.0],
    )
    .unwrap_err();
    assert!(e
        .to_string()
        .starts_with("ode_adams_tol: Failed to integrate to next output time ("));
    // With variables too.
    let k: Vec<Var> = K.iter().map(|&v| Var::new(v)).collect();
    let e = ode_rk45_tol(
        &Robertson,
        &[1.0, 0.0, 0.0],
        0.0,
        &ROB_TIMES,
        1e-6,
        1e-6,
        300,
        &k,
    )
    .unwrap_err();
    assert!(e.to_string().contains("in less than max_num_steps steps"));
    tape::reset();
    assert!(start.elapsed() < Duration::from_secs(15));
}
