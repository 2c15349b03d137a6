//! `wiener_lpdf`, the 4-parameter Wiener first-passage-time density of the upper boundary:
//! values and gradients against mpmath, the two Navarro & Fuss series summed independently to
//! many terms, normalisation (upper + lower boundary densities integrate to 1, the upper one
//! alone to the closed-form hitting probability), gradients against finite differences,
//! container forms, `propto` and every validation rule.
//!
//! Reference table: mpmath 1.3 at 150 digits, with `u = (y − τ)/α²`, `w = 1 − β`,
//!
//! ```python
//! small(u, w) = Σ_{k=−60}^{60} (w + 2k) exp(−(w + 2k)²/(2u)) / sqrt(2π u³)
//! large(u, w) = π Σ_{k=1}^{700} k exp(−k²π²u/2) sin(kπw)
//! lp = δα w − δ²(y − τ)/2 − 2 log α + log f(u, w)
//! ```
//!
//! both series agreeing to at least 70 digits at every row with 1e−3 < u < 20 (`small` alone
//! at u = 1e−7, `large` alone at u = 500), and the gradient by `mp.diff` of the same
//! expression.

// The table pastes mpmath's 20 digits.
#![allow(clippy::excessive_precision)]

use revad::prob::wiener_lpdf;
use revad::testing::{check_gradient_with, vector_from, GradCheck};
use revad::{gradient, tape, Var, Vector};
use std::f64::consts::PI;

/// Rows `(y, α, τ, β, δ, lp, [∂y, ∂α, ∂τ, ∂β, ∂δ])`.
type Row = (f64, f64, f64, f64, f64, f64, [f64; 5]);

#[rustfmt::skip]
const TABLE: &[Row] = &[
    (1.2, 1.5, 0.3, 0.4, 0.8, -1.2616220041092089291, [-2.4913681451738256939, 1.7523084408752573691, 2.4913681451738256939, -0.14709605663589522246, 0.17999999999999995337]),
    (0.35, 1.0, 0.3, 0.5, 0.0, 0.38151269038290733048, [19.999997526615653323, -3.9999997526615648882, -19.999997526615653323, 8.000000230849209361, 0.5]),
    (0.302, 1.2, 0.3, 0.3, 1.5, -166.91362977271600013, [87448.874999999840261, -292.11666666666640394, -87448.874999999840261, 500.77142857142809457, 0.83699999999999997957]),
    (0.5, 2.0, 0.1, 0.6, -0.7, -1.2256705638549301879, [-1.9957373233130752997, -0.57970507067476987518, 1.9957373233130752997, 2.9004147446185800984, 1.0800000000000000228]),
    (1.0, 2.0, 0.2, 0.5, 0.5, -0.82964258139544444246, [-1.3476634670659869769, 0.22813077365278956793, 1.3476634670659869769, -0.34868908023230253949, 0.60000000000000000555]),
    (1.1, 2.0, 0.2, 0.5, 0.5, -0.96481138734839100974, [-1.354589823956183609, 0.35663084156056534365, 1.354589823956183609, -0.55047210125469455292, 0.54999999999999996114]),
    (3.0, 1.0, 0.5, 0.7, 2.0, -15.804210971012639573, [-6.934802200544682247, 23.274011002723411324, 6.934802200544682247, -4.2825006685021968466, -4.6999999999999999556]),
    (12.0, 0.8, 0.0, 0.2, -1.0, -98.107917886716129122, [-8.2106284383510605649, 228.01885315053180426, 8.2106284383510605649, 5.1240313298860495634, 12.640000000000000027]),
    (0.8, 1.0, 0.2, 0.999, 1.0, -7.8776235217942079256, [-5.4430156493194611501, 3.9326187791833537103, 5.4430156493194611501, -1000.9967046540502361, -0.59900000000000003242]),
    (0.4, 1.0, 0.2, 0.999, 1.0, -5.5132661565045393195, [-8.0773016424722590984, 1.0319206569889038085, 8.0773016424722590984, -1000.994948457368846, -0.19900000000000001021]),
    (0.4, 1.0, 0.2, 0.001, 1.0, -4.9340957958512061651, [-1.7500190610255792884, -0.5009923755897682569, 1.7500190610255792884, 998.99916665951481639, 0.79899999999999998888]),
    (0.8, 1.0, 0.2, 0.001, -1.0, -8.8787337305069219608, [-5.4265796647677434974, 2.9128955977212925251, 5.4265796647677434974, 1000.9967156114101863, 1.5990000000000000333]),
    (0.45, 0.7, 0.25, 0.5, 3.0, -0.0061255074270619495713, [-14.57100062066436604, 4.3977146403796382407, 14.57100062066436604, -2.0701505955647573699, -0.25000000000000005551]),
    (0.3000001, 1.0, 0.3, 0.5, 0.0, -1249977.4349062927896, [12499984999281.108818, -2499998.9999281108387, -12499984999281.108818, 4999997.9998562216774, 0.5]),
    (0.31, 1.0, 0.3, 1e-09, 0.5, -58.947432060974367786, [4748.8648989898900051, -96.479797980297884462, -4748.8648989898900051, 999999999.50000310371, 0.99499999899999999556]),
    (0.31, 1.0, 0.3, 0.999999999, 0.5, -14.735699118950880107, [-150.12499999999986177, 1.0000000004999998859, 150.12499999999986177, -1000000028.7819321633, -0.0049999990000000327228]),
    (0.4, 1.0, 0.3, 1e-09, 0.5, -19.810454973263849776, [23.763888888888880464, -6.2777777782777776841, -23.763888888888880464, 999999999.49999995364, 0.94999999899999998335]),
    (1.3, 1.0, 0.3, 0.999999999, 0.5, -23.493606805626841329, [-5.0598242287063219154, 7.8696484579126443644, 5.0598242287063219154, -1000000028.78193226, -0.49999999900000005604]),
    (2000.0, 2.0, 0.0, 0.5, 0.1, -2477.5426647476101463, [-1.2387005501361698279, 2466.4511002723396547, 1.2387005501361698279, -0.2000000000000000111, -199.0000000000000111]),
];

/// `a` equals `b` to `tol` relative (absolute below 1).
#[track_caller]
fn close(a: f64, b: f64, tol: f64, what: &str) {
    assert!(
        (a - b).abs() <= tol * b.abs().max(1.0),
        "{what}: {a:e} differs from {b:e} by more than {tol:e}"
    );
}

/// The log density of five variables `[y, α, τ, β, δ]`; NaN where the arguments are refused
/// (so finite differences shrink their step instead of failing near y = τ).
fn lp5(v: &[Var], propto: bool) -> Var {
    wiener_lpdf(v[0], v[1], v[2], v[3], v[4], propto).unwrap_or_else(|_| Var::new(f64::NAN))
}

/// The density (not log) at constants.
fn dens(y: f64, a: f64, t: f64, b: f64, d: f64) -> f64 {
    wiener_lpdf(y, a, t, b, d, false).unwrap().exp()
}

#[test]
fn values_and_gradients_match_mpmath() {
    for &(y, a, t, b, d, lp, g) in TABLE {
        let at = format!("wiener_lpdf({y}, {a}, {t}, {b}, {d})");
        let v: f64 = wiener_lpdf(y, a, t, b, d, false).unwrap();
        close(v, lp, 1e-14, &at);
        let (fx, grad) = gradient(|v| lp5(v, false), &[y, a, t, b, d]);
        assert_eq!(fx, v, "{at}: the Var value equals the f64 one");
        for j in 0..5 {
            let rel = (grad[j] - g[j]).abs() / g[j].abs();
            assert!(
                rel <= 1e-10,
                "{at}: ∂[{j}] = {:e}, mpmath {:e} (relative error {rel:e})",
                grad[j],
                g[j]
            );
        }
    }
    tape::reset();
}

/// The small-time series of the standard density summed naively over k = −100..100.
fn naive_small(u: f64, w: f64) -> f64 {
    let s: f64 = (-100..=100)
        .map(|k| {
            let x = w + 2.0 * k as f64;
            x * (-x * x / (2.0 * u)).exp()
        })
        .sum();
    s / (2.0 * PI * u * u * u).sqrt()
}

/// The large-time series summed naively over k = 1..300.
fn naive_large(u: f64, w: f64) -> f64 {
    let s: f64 = (1..=300)
        .map(|k| {
            let k = k as f64;
            k * (-k * k * PI * PI * u / 2.0).exp() * (k * PI * w).sin()
        })
        .sum();
    PI * s
}

#[test]
fn both_series_summed_to_many_terms_agree_with_each_other_and_with_wiener_lpdf() {
    let (a, t, d) = (1.3, 0.2, 0.6);
    // u from 0.12 to 1.2: where neither naive sum cancels
    for &u in &[0.12, 0.18, 0.2, 0.21, 0.22, 0.3, 0.5, 0.8, 1.2] {
        for &b in &[0.03, 0.25, 0.5, 0.6, 0.97] {
            let w = 1.0 - b;
            let (fs, fl) = (naive_small(u, w), naive_large(u, w));
            assert!(
                (fs - fl).abs() <= 1e-13 * fs,
                "series at u={u}, w={w}: {fs:e} vs {fl:e}"
            );
            let y = t + u * a * a;
            let s = y - t;
            let u_exact = s / (a * a);
            let expect =
                d * a * w - d * d * s / 2.0 - 2.0 * f64::ln(a) + naive_small(u_exact, w).ln();
            let v: f64 = wiener_lpdf(y, a, t, b, d, false).unwrap();
            close(v, expect, 1e-13, &format!("wiener_lpdf at u={u}, β={b}"));
        }
    }
}

/// `∫ f(s) ds` over `[s_min, s_max]` by composite Simpson in `z = log s` with `n` (even)
/// intervals: fine steps near 0, where the densities rise steeply from exp(−c/s).
fn simpson_log(f: impl Fn(f64) -> f64, s_min: f64, s_max: f64, n: usize) -> f64 {
    let (z0, z1) = (s_min.ln(), s_max.ln());
    let h = (z1 - z0) / n as f64;
    let g = |z: f64| {
        let s = z.exp();
        f(s) * s
    };
    let mut sum = g(z0) + g(z1);
    for i in 1..n {
        sum += if i % 2 == 1 { 4.0 } else { 2.0 } * g(z0 + i as f64 * h);
    }
    sum * h / 3.0
}

#[test]
fn upper_plus_lower_densities_integrate_to_one_and_upper_to_the_hitting_probability() {
    for &(a, t, b, d) in &[
        (1.5, 0.3, 0.4, 0.8),
        (0.7, 0.0, 0.2, -1.3),
        (2.0, 0.1, 0.85, 0.0),
        (1.0, 0.25, 0.5, 2.5),
    ] {
        // the densities decay like exp(−(π²/(2α²) + δ²/2)(y − τ)): stop at e^(−45)
        let s_max = 45.0 / (PI * PI / (2.0 * a * a) + d * d / 2.0);
        let upper = |s: f64| dens(t + s, a, t, b, d);
        let lower = |s: f64| dens(t + s, a, t, 1.0 - b, -d);
        // below s = 1e−5 both densities are below exp(−500)
        let n = 20_000;
        let p_up = simpson_log(upper, 1e-5, s_max, n);
        let p_low = simpson_log(lower, 1e-5, s_max, n);
        let at = format!("α={a}, τ={t}, β={b}, δ={d}");
        close(p_up + p_low, 1.0, 1e-12, &format!("total mass, {at}"));
        // P(upper first) for a drift-δ Brownian motion from βα in (0, α)
        let expect = if d == 0.0 {
            b
        } else {
            (-(-2.0 * d * a * b).exp_m1()) / (-(-2.0 * d * a).exp_m1())
        };
        close(p_up, expect, 1e-12, &format!("upper mass, {at}"));
    }
}

#[test]
fn gradients_match_finite_differences() {
    let opts = GradCheck {
        rel_tol: 1e-8,
        abs_tol: 1e-9,
        step: None,
    };
    let pts: &[&[f64]] = &[
        &[1.2, 1.5, 0.3, 0.4, 0.8],
        // small t: u = 0.005 and 0.05
        &[0.305, 1.0, 0.3, 0.5, 0.4],
        &[0.35, 1.0, 0.3, 0.3, -1.0],
        // either side of the switch between the series (u ≈ 0.21)
        &[0.2 + 0.205 * 1.69, 1.3, 0.2, 0.45, 0.6],
        &[0.2 + 0.215 * 1.69, 1.3, 0.2, 0.45, 0.6],
        // large t: u = 4 and 40
        &[4.3, 1.0, 0.3, 0.6, 1.2],
        &[10.0, 0.5, 0.05, 0.35, -0.5],
        // β near the ends
        &[0.5, 0.9, 0.25, 0.02, 1.5],
        &[0.5, 0.9, 0.25, 0.98, 1.5],
        &[1.5, 0.9, 0.25, 0.97, -2.0],
    ];
    check_gradient_with(|v| lp5(v, false), pts, opts);
    check_gradient_with(|v| lp5(v, true), pts, opts);
    tape::reset();
}

#[test]
fn containers_broadcast_and_record_one_node() {
    tape::reset();
    let ys = [0.45, 0.9, 2.5];
    let taus = [0.1, 0.3, 0.2];
    let betas = [0.3, 0.5, 0.8];
    let (a, d) = (1.1, 0.7);
    let expect: f64 = (0..3)
        .map(|i| wiener_lpdf(ys[i], a, taus[i], betas[i], d, false).unwrap())
        .sum();
    let v: f64 = wiener_lpdf(&ys[..], a, &taus.to_vec(), &betas[..], d, false).unwrap();
    close(v, expect, 1e-15, "constants");

    // mixed: y data, α scalar Var, τ slice of Vars, β vector Var, δ constant
    let alpha = Var::new(a);
    let tau: Vec<Var> = taus.iter().map(|&x| Var::new(x)).collect();
    let bv: Vec<Var> = betas.iter().map(|&x| Var::new(x)).collect();
    let beta = vector_from(&bv);
    let before = tape::stats().continuations;
    let lp = wiener_lpdf(&ys[..], alpha, &tau, &beta, d, false).unwrap();
    assert_eq!(tape::stats().continuations, before + 1, "one node");
    close(lp.value(), expect, 1e-15, "mixed");
    lp.grad();
    // each partial equals that of the element's own scalar call
    let mut da = 0.0;
    for i in 0..3 {
        let (_, g) = gradient(
            |v| wiener_lpdf(ys[i], v[0], v[1], v[2], d, false).unwrap(),
            &[a, taus[i], betas[i]],
        );
        da += g[0];
        close(tau[i].adj(), g[1], 1e-14, "∂τ");
        close(beta.adj()[i], g[2], 1e-14, "∂β");
    }
    close(alpha.adj(), da, 1e-14, "∂α summed over the broadcast");
    tape::reset();

    // finite differences through every container kind
    let opts = GradCheck {
        rel_tol: 1e-8,
        abs_tol: 1e-9,
        step: None,
    };
    let x: &[f64] = &[0.45, 0.9, 2.5, 1.1, 0.2, 0.3, 0.5, 0.8, 0.7];
    check_gradient_with(
        |v| {
            let y = vector_from(&v[..3]);
            let b: Vec<Var> = v[5..8].to_vec();
            wiener_lpdf(&y, v[3], v[4], &b, v[8], false).unwrap_or_else(|_| Var::new(f64::NAN))
        },
        &[x],
        opts,
    );
    // a constant Vector and a Vector variable
    let yv = Vector::from_vec(vec![0.45, 0.9, 2.5]);
    check_gradient_with(
        |v| {
            let dl = vector_from(&v[1..4]);
            wiener_lpdf(&yv, v[0], 0.05, 0.5, &dl, false).unwrap()
        },
        &[&[1.1, 0.7, -0.3, 1.9]],
        opts,
    );
    // empty containers: 0
    let empty: [f64; 0] = [];
    assert_eq!(
        wiener_lpdf(&empty[..], 1.0, 0.1, 0.5, 0.0, false).unwrap(),
        0.0
    );
    let z = wiener_lpdf(&empty[..], Var::new(1.0), 0.1, 0.5, 0.0, false).unwrap();
    assert_eq!(z.value(), 0.0);
    tape::reset();
}

#[test]
fn propto_drops_the_terms_constant_given_the_variables() {
    tape::reset();
    let (ys, a, t, b, d) = ([0.6, 1.4], 1.2, 0.3, 0.35, -0.9);
    let w = 1.0 - b;
    let full: f64 = wiener_lpdf(&ys[..], a, t, b, d, false).unwrap();
    assert_eq!(wiener_lpdf(&ys[..], a, t, b, d, true).unwrap(), 0.0);
    let sum_s: f64 = ys.iter().map(|y| y - t).sum();
    let log_a = 2.0 * 2.0 * f64::ln(a); // −2 log α, two elements
    let linear = 2.0 * d * a * w;
    let square = -0.5 * d * d * sum_s;

    // δ only: the two drift terms remain
    let p = wiener_lpdf(&ys[..], a, t, b, Var::new(d), true).unwrap();
    close(p.value(), linear + square, 1e-14, "δ variable");
    // α only: everything but the square term
    let p = wiener_lpdf(&ys[..], Var::new(a), t, b, d, true).unwrap();
    close(full - p.value(), square, 1e-14, "α variable");
    // y only: drops −2 log α and δα(1 − β)
    let yv: Vec<Var> = ys.iter().map(|&x| Var::new(x)).collect();
    let p = wiener_lpdf(&yv, a, t, b, d, true).unwrap();
    close(full - p.value(), linear - log_a, 1e-14, "y variable");
    // β only: drops −2 log α and the square term
    let p = wiener_lpdf(&ys[..], a, t, Var::new(b), d, true).unwrap();
    close(full - p.value(), square - log_a, 1e-14, "β variable");
    // τ only: drops −2 log α and δα(1 − β)
    let p = wiener_lpdf(&ys[..], a, Var::new(t), b, d, true).unwrap();
    close(full - p.value(), linear - log_a, 1e-14, "τ variable");
    tape::reset();

    // the gradient does not depend on propto
    let opts = GradCheck {
        rel_tol: 1e-8,
        abs_tol: 1e-9,
        step: None,
    };
    check_gradient_with(
        |v| wiener_lpdf(v[0], 1.2, 0.3, v[1], 0.4, true).unwrap(),
        &[&[0.6, 0.35], &[2.0, 0.9]],
        opts,
    );
    check_gradient_with(
        |v| wiener_lpdf(0.9, 1.2, 0.3, 0.6, v[0], true).unwrap(),
        &[&[0.4], &[-2.0]],
        opts,
    );
    tape::reset();
}

#[test]
fn extreme_scaled_times() {
    // u = 1e−320 (underflow of the density): −∞, not an error
    let v: f64 = wiener_lpdf(1e-300, 1e10, 0.0, 0.5, 0.0, false).unwrap();
    assert_eq!(v, f64::NEG_INFINITY);
    // u = 1e10: the large-time series keeps log f finite, −π²u/2 dominating
    let v: f64 = wiener_lpdf(1e6, 0.01, 0.0, 0.5, 0.0, false).unwrap();
    let expect = PI.ln() - PI * PI / 2.0 * 1e10 - 2.0 * f64::ln(0.01);
    close(v, expect, 1e-15, "u = 1e10");
    // u = 1e−6: only the nearest image matters
    let (y, a) = (1e-6, 1.0);
    let v: f64 = wiener_lpdf(y, a, 0.0, 0.5, 0.0, false).unwrap();
    let expect = -0.5 * (2.0 * PI).ln() - 1.5 * y.ln() + 0.5f64.ln() - 0.25 / (2.0 * y);
    close(v, expect, 1e-15, "u = 1e-6");
}

/// The message of an error.
fn msg(r: revad::Result<f64>) -> String {
    r.unwrap_err().to_string()
}

#[test]
fn validation_follows_stan() {
    let f = |y: f64, a: f64, t: f64, b: f64, d: f64| msg(wiener_lpdf(y, a, t, b, d, false));
    let p = "wiener_lpdf: ";
    for (got, want) in [
        (
            f(0.0, 1.0, 0.0, 0.5, 0.0),
            "Random variable is 0, but must be positive finite",
        ),
        (
            f(-1.0, 1.0, 0.0, 0.5, 0.0),
            "Random variable is -1, but must be positive finite",
        ),
        (
            f(f64::NAN, 1.0, 0.0, 0.5, 0.0),
            "Random variable is NaN, but must be positive finite",
        ),
        (
            f(f64::INFINITY, 1.0, 0.0, 0.5, 0.0),
            "Random variable is inf, but must be positive finite",
        ),
        (
            f(1.0, 0.0, 0.0, 0.5, 0.0),
            "Boundary separation is 0, but must be positive finite",
        ),
        (
            f(1.0, f64::INFINITY, 0.0, 0.5, 0.0),
            "Boundary separation is inf, but must be positive finite",
        ),
        (
            f(1.0, f64::NAN, 0.0, 0.5, 0.0),
            "Boundary separation is NaN, but must be positive finite",
        ),
        (
            f(1.0, 1.0, -0.1, 0.5, 0.0),
            "Nondecision time is -0.1, but must be nonnegative finite",
        ),
        (
            f(1.0, 1.0, f64::INFINITY, 0.5, 0.0),
            "Nondecision time is inf, but must be nonnegative finite",
        ),
        (
            f(1.0, 1.0, f64::NAN, 0.5, 0.0),
            "Nondecision time is NaN, but must be nonnegative finite",
        ),
        (
            f(1.0, 1.0, 0.0, 0.0, 0.0),
            "A-priori bias is 0, but must be in (0, 1)",
        ),
        (
            f(1.0, 1.0, 0.0, 1.0, 0.0),
            "A-priori bias is 1, but must be in (0, 1)",
        ),
        (
            f(1.0, 1.0, 0.0, f64::NAN, 0.0),
            "A-priori bias is NaN, but must be in (0, 1)",
        ),
        (
            f(1.0, 1.0, 0.0, 0.5, f64::INFINITY),
            "Drift rate is inf, but must be finite",
        ),
        (
            f(1.0, 1.0, 0.0, 0.5, f64::NAN),
            "Drift rate is NaN, but must be finite",
        ),
        (
            f(0.3, 1.0, 0.3, 0.5, 0.0),
            "Random variable is 0.3, but must be greater than the nondecision time",
        ),
        (
            f(0.2, 1.0, 0.3, 0.5, 0.0),
            "Random variable is 0.2, but must be greater than the nondecision time",
        ),
    ] {
        assert_eq!(got, format!("{p}{want}"));
    }
    // containers: sizes, and y > τ element by element (τ broadcast or a container)
    let ys = [0.5, 0.8, 1.0];
    assert_eq!(
        msg(wiener_lpdf(&ys[..], 1.0, &[0.1, 0.2][..], 0.5, 0.0, false)),
        "wiener_lpdf: Nondecision time has size 2, but must have size 3"
    );
    assert_eq!(
        msg(wiener_lpdf(&ys[..], 1.0, 0.1, 0.5, &[0.1, 0.2][..], false)),
        "wiener_lpdf: Drift rate has size 2, but must have size 3"
    );
    assert_eq!(
        msg(wiener_lpdf(&ys[..], 1.0, 0.6, 0.5, 0.0, false)),
        "wiener_lpdf: Random variable is 0.5, but must be greater than the nondecision time"
    );
    assert_eq!(
        msg(wiener_lpdf(0.7, 1.0, &[0.1, 0.7][..], 0.5, 0.0, false)),
        "wiener_lpdf: Random variable is 0.7, but must be greater than the nondecision time"
    );
    assert_eq!(
        msg(wiener_lpdf(
            &ys[..],
            1.0,
            0.1,
            &[0.5, 1.5, 0.5][..],
            0.0,
            false
        )),
        "wiener_lpdf: A-priori bias is 1.5, but must be in (0, 1)"
    );
    // variables are checked the same way, and propto does not skip the checks
    assert!(wiener_lpdf(Var::new(0.2), 1.0, 0.3, 0.5, 0.0, true).is_err());
    assert!(wiener_lpdf(0.2, 1.0, 0.3, 0.5, 0.0, true).is_err());
    tape::reset();
}
