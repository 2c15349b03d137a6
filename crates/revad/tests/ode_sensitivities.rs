//! The ODE solvers' sensitivities (the result's reverse pass): closed forms for exponential
//! decay and the harmonic oscillator, the Lotka–Volterra sensitivities against SciPy, gradients
//! against finite differences of the solution at tight tolerance, every data/variable mix of
//! the initial state and the parameters, one node per call.

#![allow(clippy::excessive_precision)]

use revad::ode::{OdeRhs, OdeScalar};
use revad::testing::{check_directional, check_gradient_with, weighted_sum, GradCheck};
use revad::{
    gradient, ode_adams_tol, ode_bdf_tol, ode_ckrk_tol, ode_rk45, ode_rk45_tol, tape, Matrix, Var,
};

struct Decay;
impl OdeRhs for Decay {
    fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], k: &[T]) -> impl AsRef<[T]> {
        [-(k[0] * y[0])]
    }
}

struct Oscillator;
impl OdeRhs for Oscillator {
    fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], w: &[T]) -> impl AsRef<[T]> {
        [y[1], -(w[0] * w[0] * y[0])]
    }
}

struct LotkaVolterra;
impl OdeRhs for LotkaVolterra {
    fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], th: &[T]) -> impl AsRef<[T]> {
        [
            (th[0] - th[1] * y[1]) * y[0],
            (-th[2] + th[3] * y[0]) * y[1],
        ]
    }
}

/// A solver with explicit tolerances over variables.
type VarSolver<R> =
    fn(&R, &[Var], f64, &[f64], f64, f64, i64, &[Var]) -> revad::Result<Var<Matrix>>;

/// The methods and the factor their global error may exceed the tolerance by.
fn methods<R: OdeRhs>() -> [(&'static str, VarSolver<R>, f64); 4] {
    [
        ("rk45", ode_rk45_tol, 30.0),
        ("ckrk", ode_ckrk_tol, 30.0),
        ("adams", ode_adams_tol, 100.0),
        ("bdf", ode_bdf_tol, 1000.0),
    ]
}

/// The gradient of y[i, j] with respect to (y₀, θ), in a scope of its own.
#[allow(clippy::too_many_arguments)]
fn partials<R: OdeRhs>(
    solve: VarSolver<R>,
    f: &R,
    y0: &[f64],
    ts: &[f64],
    theta: &[f64],
    tol: f64,
    i: usize,
    j: usize,
) -> Vec<f64> {
    let _scope = tape::nested();
    let y0v: Vec<Var> = y0.iter().map(|&v| Var::new(v)).collect();
    let thv: Vec<Var> = theta.iter().map(|&v| Var::new(v)).collect();
    let y = solve(f, &y0v, 0.0, ts, tol, tol, 1_000_000, &thv).unwrap();
    let cols = y.shape().1;
    y.element(i * cols + j).grad();
    y0v.iter().chain(&thv).map(|v| v.adj()).collect()
}

#[test]
fn decay_sensitivities_match_the_closed_form() {
    // y = y₀·e^(−kt): ∂y/∂y₀ = e^(−kt), ∂y/∂k = −t·y₀·e^(−kt).
    let ts = [0.5, 2.0, 6.0];
    let (y0, k) = (3.0, 0.8);
    for (name, solve, factor) in methods::<Decay>() {
        for (i, &t) in ts.iter().enumerate() {
            let g = partials(solve, &Decay, &[y0], &ts, &[k], 1e-10, i, 0);
            let e = (-k * t).exp();
            let want = [e, -t * y0 * e];
            for (a, b) in g.iter().zip(&want) {
                let err = (a - b).abs() / (1e-10 * (1.0 + b.abs()));
                assert!(err < factor, "{name}, t = {t}: {g:?} vs {want:?}");
            }
        }
    }
}

#[test]
fn oscillator_sensitivities_match_the_closed_form() {
    // x = x₀ cos ωt + (v₀/ω) sin ωt.
    let ts = [0.7, 3.0, 8.0];
    let (x0, v0, w) = (1.2, -0.4, 1.7);
    for (name, solve, factor) in methods::<Oscillator>() {
        for (i, &t) in ts.iter().enumerate() {
            let g = partials(solve, &Oscillator, &[x0, v0], &ts, &[w], 1e-10, i, 0);
            let (c, s) = ((w * t).cos(), (w * t).sin());
            let want = [c, s / w, -x0 * t * s + v0 * (t * c / w - s / (w * w))];
            for (a, b) in g.iter().zip(&want) {
                let err = (a - b).abs() / (1e-10 * (1.0 + b.abs()));
                assert!(err < factor, "{name}, t = {t}: {g:?} vs {want:?}");
            }
            // v = −x₀ω sin ωt + v₀ cos ωt.
            let g = partials(solve, &Oscillator, &[x0, v0], &ts, &[w], 1e-10, i, 1);
            let want = [-w * s, c, -x0 * (s + w * t * c) - v0 * t * s];
            for (a, b) in g.iter().zip(&want) {
                let err = (a - b).abs() / (1e-10 * (1.0 + b.abs()));
                assert!(err < factor, "{name} v, t = {t}: {g:?} vs {want:?}");
            }
        }
    }
}

const LV_THETA: [f64; 4] = [0.55, 0.028, 0.80, 0.024];
const LV_Y0: [f64; 2] = [33.0, 6.2];

/// ∂u/∂x and ∂v/∂x, x = (α, β, γ, δ, u₀, v₀), at t = 1, 5, 10, 20: SciPy 1.17's DOP853 on the
/// forward sensitivity system (states and the 2×6 sensitivities integrated together,
/// dS/dt = J_y·S + J_θ), rtol = atol = 1e-13.
const LV_SENS: [(f64, [f64; 6], [f64; 6]); 4] = [
    (
        1.0,
        [
            4.620362970114e+01,
            -3.019199439843e+02,
            4.401779698605e+00,
            -1.656439528599e+02,
            1.323268019745e+00,
            -1.363509424445e+00,
        ],
        [
            3.646213499944e+00,
            -2.320181624806e+01,
            -7.042051120639e+00,
            2.822925693597e+02,
            2.053036868070e-01,
            1.067960008531e+00,
        ],
    ),
    (
        5.0,
        [
            -8.757470592906e+01,
            4.090311642645e+02,
            3.795994856515e+01,
            -2.070422533647e+03,
            -8.948778332690e-01,
            1.847237516033e+00,
        ],
        [
            3.397151509278e+01,
            -1.909914804034e+03,
            7.283951526601e+00,
            -1.394809392422e+03,
            -1.014406830852e+00,
            -2.254859790844e+00,
        ],
    ),
    (
        10.0,
        [
            8.009017377350e+01,
            4.208129469592e+02,
            7.893123011416e+01,
            8.895608333813e+00,
            9.671646683317e-01,
            1.900445566913e+00,
        ],
        [
            -1.675994633410e+00,
            -8.327986730660e+00,
            -9.477038968369e-01,
            -2.162544527679e+01,
            -1.572759656494e-02,
            9.649158395622e-01,
        ],
    ),
    (
        20.0,
        [
            1.534714166711e+02,
            8.066031007175e+02,
            1.513235801378e+02,
            1.512503411308e+01,
            9.340064277581e-01,
            3.642723680660e+00,
        ],
        [
            -5.933150855048e+00,
            -2.959500502414e+01,
            -4.377909816258e+00,
            -4.293392204973e+01,
            -3.122467058162e-02,
            8.746749280089e-01,
        ],
    ),
];

#[test]
fn lotka_volterra_sensitivities_match_scipy() {
    let ts = [1.0, 5.0, 10.0, 20.0];
    for (name, solve, _) in methods::<LotkaVolterra>() {
        for (i, (t, du, dv)) in LV_SENS.iter().enumerate() {
            for (j, want) in [du, dv].into_iter().enumerate() {
                let g = partials(solve, &LotkaVolterra, &LV_Y0, &ts, &LV_THETA, 1e-10, i, j);
                // Reorder (u₀, v₀, α, β, γ, δ) to SciPy's (α, β, γ, δ, u₀, v₀).
                let g = [g[2], g[3], g[4], g[5], g[0], g[1]];
                let scale = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
                for (a, b) in g.iter().zip(want) {
                    assert!(
                        (a - b).abs() < 2e-6 * scale,
                        "{name}, t = {t}, state {j}: {g:?} vs {want:?}"
                    );
                }
            }
        }
    }
}

/// The Lotka–Volterra log likelihood of the benchmarks: Σ_t normal_lpdf(u(t) | 30 + 10 sin t,
/// 0.5) + normal_lpdf(v(t) | 8 + 4 cos t, 0.5), x = (α, β, γ, δ, u₀, v₀).
fn lv_obs() -> Matrix {
    Matrix::from_shape_fn((20, 2), |(i, j)| {
        let t = (i + 1) as f64;
        if j == 0 {
            30.0 + 10.0 * t.sin()
        } else {
            8.0 + 4.0 * t.cos()
        }
    })
}

fn lv_times() -> Vec<f64> {
    (1..=20).map(f64::from).collect()
}

#[test]
fn lotka_volterra_gradient_matches_finite_differences() {
    let (ts, obs) = (lv_times(), lv_obs());
    let x = [0.55, 0.028, 0.80, 0.024, 33.0, 6.2];
    let tol = 1e-12;
    let lp_f64 = |x: &[f64]| {
        let y = ode_rk45_tol(
            &LotkaVolterra,
            &x[4..6],
            0.0,
            &ts,
            tol,
            tol,
            1_000_000,
            &x[..4],
        )
        .unwrap();
        revad::normal_lpdf(&y, &obs, 0.5, false).unwrap()
    };
    let (lp, g) = gradient(
        |v| {
            let y = ode_rk45_tol(
                &LotkaVolterra,
                &v[4..6],
                0.0,
                &ts,
                tol,
                tol,
                1_000_000,
                &v[..4],
            )
            .unwrap();
            revad::normal_lpdf(&y, &obs, 0.5, false).unwrap()
        },
        &x,
    );
    assert!((lp - lp_f64(&x)).abs() < 1e-6 * lp.abs());
    for j in 0..6 {
        // Central differences of the f64 solution, step 1e-6 relative.
        let h = 1e-6 * x[j].abs();
        let (mut up, mut down) = (x, x);
        up[j] += h;
        down[j] -= h;
        let fd = (lp_f64(&up) - lp_f64(&down)) / (2.0 * h);
        assert!(
            (g[j] - fd).abs() < 1e-6 * g[j].abs().max(1.0),
            "x[{j}]: {} vs {fd}",
            g[j]
        );
    }
    // And at Stan's default tolerances the gradient is that of the solution computed: close
    // to the exact one.
    let (_, g6) = gradient(
        |v| {
            let y = ode_rk45(&LotkaVolterra, &v[4..6], 0.0, &ts, &v[..4]).unwrap();
            revad::normal_lpdf(&y, &obs, 0.5, false).unwrap()
        },
        &x,
    );
    for j in 0..6 {
        assert!(
            (g6[j] - g[j]).abs() < 1e-3 * g[j].abs(),
            "x[{j}]: {g6:?} vs {g:?}"
        );
    }
}

#[test]
fn every_mix_of_data_and_variables() {
    // f(y₀, k) = Σ_i w_i·y(t_i) for dy/dt = −k·y, with y₀ or k or both variables; the
    // gradient against Ridders' finite differences.
    let ts = [0.5, 1.5, 3.0];
    let w = [0.3, -1.1, 2.0];
    let opts = GradCheck {
        rel_tol: 1e-6,
        abs_tol: 1e-8,
        step: None,
    };
    let sum = |y: &Var<Matrix>| {
        (0..3)
            .map(|i| y.element(i) * w[i])
            .fold(Var::new(0.0) * 0.0, |a, b| a + b)
    };
    let tol = 1e-11;
    // Both variables.
    check_gradient_with(
        |v| sum(&ode_rk45_tol(&Decay, &v[..1], 0.0, &ts, tol, tol, 100_000, &v[1..]).unwrap()),
        &[&[3.0, 0.8], &[0.5, 2.0]],
        opts,
    );
    // Only the initial state (k data).
    check_gradient_with(
        |v| sum(&ode_bdf_tol(&Decay, v, 0.0, &ts, tol, tol, 100_000, &[0.8]).unwrap()),
        &[&[3.0], &[-1.0]],
        opts,
    );
    // Only the parameter (y₀ data).
    check_gradient_with(
        |v| sum(&ode_adams_tol(&Decay, &[3.0], 0.0, &ts, tol, tol, 100_000, v).unwrap()),
        &[&[0.8], &[0.05]],
        opts,
    );
    // The same variable as initial state and parameter: the two contributions add up.
    check_gradient_with(
        |v| sum(&ode_ckrk_tol(&Decay, v, 0.0, &ts, tol, tol, 100_000, v).unwrap()),
        &[&[0.8]],
        opts,
    );
}

#[test]
fn a_larger_system_passes_the_directional_check() {
    // A chain of N = 6 compartments, dy_i/dt = k_{i−1}·y_{i−1} − k_i·y_i (dense enough to use
    // the matrix-product path of the sensitivities for N ≥ 16 in the next case).
    struct Chain;
    impl OdeRhs for Chain {
        fn rhs<T: OdeScalar>(&self, _t: f64, y: &[T], k: &[T]) -> impl AsRef<[T]> {
            let n = y.len();
            (0..n)
                .map(|i| {
                    let out = -(k[i] * y[i]);
                    if i == 0 {
                        out
                    } else {
                        out + k[i - 1] * y[i - 1]
                    }
                })
                .collect::<Vec<T>>()
        }
    }
    for n in [6, 17] {
        let ts = [0.5, 1.0, 2.0];
        let f = |v: &[Var]| {
            let y =
                ode_rk45_tol(&Chain, &v[..n], 0.0, &ts, 1e-11, 1e-11, 100_000, &v[n..]).unwrap();
            weighted_sum(&y, 3)
        };
        let mut x: Vec<f64> = (0..n).map(|i| 1.0 + 0.1 * i as f64).collect();
        x.extend((0..n).map(|i| 0.5 + 0.05 * i as f64));
        check_directional(
            f,
            &x,
            3,
            GradCheck {
                rel_tol: 1e-6,
                abs_tol: 1e-8,
                step: None,
            },
        );
    }
}

#[test]
fn one_node_per_call() {
    let theta: Vec<Var> = LV_THETA.iter().map(|&v| Var::new(v)).collect();
    let y0: Vec<Var> = LV_Y0.iter().map(|&v| Var::new(v)).collect();
    let before = tape::stats();
    let y = ode_rk45(&LotkaVolterra, &y0, 0.0, &lv_times(), &theta).unwrap();
    let after = tape::stats();
    assert_eq!(after.continuations, before.continuations + 1);
    // The result's 40 slots and nothing else.
    assert_eq!(after.variables, before.variables + 40);
    assert_eq!(after.depth, 1);
    // Sweeping twice through one node: the adjoints add up (+=).
    let s = y.element(5) + y.element(5);
    s.grad();
    let once: Vec<f64> = theta.iter().map(|v| v.adj()).collect();
    tape::set_zero_all_adjoints();
    tape::reset();
    let theta: Vec<Var> = LV_THETA.iter().map(|&v| Var::new(v)).collect();
    let y0: Vec<Var> = LV_Y0.iter().map(|&v| Var::new(v)).collect();
    let y = ode_rk45(&LotkaVolterra, &y0, 0.0, &lv_times(), &theta).unwrap();
    y.element(5).grad();
    for (a, b) in once.iter().zip(&theta) {
        assert!((a - 2.0 * b.adj()).abs() < 1e-9 * a.abs());
    }
    tape::reset();
}
