//! The discrete distributions: values against SciPy (`scipy.stats` 1.17.1 logpmf/logcdf/logsf,
//! mpmath at 40 digits where SciPy underflows), gradients against finite differences for
//! scalar and container arguments, `propto`, validation with Stan's messages.

use revad::prob::*;
use revad::testing::{assert_close, check_gradient, check_gradient_with, vector_from, GradCheck};
use revad::{tape, Var};

fn msg(r: revad::Result<f64>) -> String {
    r.unwrap_err().to_string()
}

// ---------------------------------------------------------------------------------------------
// bernoulli, bernoulli_logit

#[test]
fn bernoulli_values_match_scipy() {
    // scipy.stats.bernoulli.logpmf([1,0,1],0.25).sum(), logpmf(0,1e-10), logpmf(1,1.0)
    let cases: &[(f64, f64)] = &[
        (
            bernoulli_lpmf(&[1i64, 0, 1][..], 0.25, false).unwrap(),
            -3.0602707946915624,
        ),
        (
            bernoulli_lpmf(0i64, 1e-10, false).unwrap(),
            -1.00000000005e-10,
        ),
        (bernoulli_lpmf(1i64, 1.0, false).unwrap(), 0.0),
        // cdf(0,0.3)·cdf(1,0.6)·cdf(0,0.8); logcdf(0,0.3); logsf(0,0.3); logsf(0,1e-20)
        (
            bernoulli_cdf(&[0i64, 1, 0][..], &[0.3, 0.6, 0.8][..]).unwrap(),
            0.13999999999999996,
        ),
        (bernoulli_lcdf(0i64, 0.3).unwrap(), -0.35667494393873245),
        (bernoulli_lccdf(0i64, 0.3).unwrap(), -1.2039728043259361),
        (bernoulli_lccdf(0i64, 1e-20).unwrap(), -46.051701859880914),
        // sum(bernoulli.logpmf(n, expit(a))) over (1,0.3),(0,-2),(1,-5)
        (
            bernoulli_logit_lpmf(&[1i64, 0, 1][..], &[0.3, -2.0, -5.0][..], false).unwrap(),
            -5.687998604000618,
        ),
        // -log1p(exp(-40)) (SciPy's expit rounds to 1 here)
        (
            bernoulli_logit_lpmf(1i64, 40.0, false).unwrap(),
            -4.248354255291589e-18,
        ),
        (bernoulli_logit_lpmf(0i64, 40.0, false).unwrap(), -40.0),
    ];
    for (i, &(got, want)) in cases.iter().enumerate() {
        assert!(
            (got - want).abs() <= 1e-14 * want.abs().max(1e-300),
            "case {i}: {got} vs {want}"
        );
    }
    // Edge cases of the CDFs: n < 0 and n ≥ 1.
    assert_eq!(bernoulli_cdf(&[-1i64, 0][..], 0.3).unwrap(), 0.0);
    assert_eq!(bernoulli_cdf(1i64, 0.3).unwrap(), 1.0);
    assert_eq!(bernoulli_lcdf(-1i64, 0.3).unwrap(), f64::NEG_INFINITY);
    assert_eq!(bernoulli_lcdf(2i64, 0.3).unwrap(), 0.0);
    assert_eq!(bernoulli_lccdf(1i64, 0.3).unwrap(), f64::NEG_INFINITY);
    assert_eq!(bernoulli_lccdf(-1i64, 0.3).unwrap(), 0.0);
}

#[test]
fn bernoulli_gradients_and_propto() {
    let pts: &[&[f64]] = &[&[0.3], &[0.02], &[0.97]];
    for n in [0i64, 1] {
        check_gradient(|v| bernoulli_lpmf(n, v[0], false).unwrap(), pts);
        check_gradient(|v| bernoulli_lcdf(n, v[0]).unwrap(), pts);
        check_gradient(|v| bernoulli_cdf(n, v[0]).unwrap(), pts);
        check_gradient(
            |v| bernoulli_logit_lpmf(n, v[0], false).unwrap(),
            &[&[0.3], &[-30.0], &[25.0]],
        );
    }
    check_gradient(|v| bernoulli_lccdf(0i64, v[0]).unwrap(), pts);
    let ns = [1i64, 0, 0, 1];
    let x: &[f64] = &[0.2, 0.5, 0.9, 0.6];
    check_gradient(|v| bernoulli_lpmf(&ns[..], v, false).unwrap(), &[x]);
    check_gradient(|v| bernoulli_lpmf(&ns[..], v[0], false).unwrap(), &[x]);
    check_gradient(|v| bernoulli_cdf(&ns[..], &vector_from(v)).unwrap(), &[x]);
    check_gradient(|v| bernoulli_lcdf(&ns[..], v).unwrap(), &[x]);
    check_gradient(|v| bernoulli_logit_lpmf(&ns[..], v, true).unwrap(), &[x]);
    // The cdf's gradient at θ = 1 (where 1 − θ = 0): −Π of the other factors.
    let (val, g) = revad::gradient(|v| bernoulli_cdf(&[0i64, 0][..], v).unwrap(), &[1.0, 0.25]);
    assert_eq!(val, 0.0);
    assert_eq!(g, vec![-0.75, 0.0]);
    // propto: nothing is constant given θ; all constant gives 0.
    tape::reset();
    let t = Var::new(0.3);
    assert_eq!(
        bernoulli_lpmf(1i64, t, true).unwrap().value(),
        bernoulli_lpmf(1i64, t, false).unwrap().value()
    );
    assert_eq!(bernoulli_lpmf(1i64, 0.3, true).unwrap(), 0.0);
    assert_eq!(bernoulli_logit_lpmf(1i64, 0.3, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn bernoulli_validation_follows_stan() {
    assert_eq!(
        msg(bernoulli_lpmf(2i64, 0.3, false)),
        "bernoulli_lpmf: n is 2, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(bernoulli_lpmf(1i64, 1.5, false)),
        "bernoulli_lpmf: Probability parameter is 1.5, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(bernoulli_lpmf(1i64, f64::NAN, false)),
        "bernoulli_lpmf: Probability parameter is NaN, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(bernoulli_cdf(0i64, -0.1)),
        "bernoulli_cdf: Probability parameter is -0.1, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(bernoulli_lcdf(0i64, 2.0)),
        "bernoulli_lcdf: Probability parameter is 2, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(bernoulli_lccdf(0i64, 2.0)),
        "bernoulli_lccdf: Probability parameter is 2, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(bernoulli_lpmf(&[1i64, 0][..], &[0.1, 0.2, 0.3][..], false)),
        "bernoulli_lpmf: Probability parameter has size 3, but must have size 2"
    );
    assert_eq!(
        msg(bernoulli_logit_lpmf(-1i64, 0.3, false)),
        "bernoulli_logit_lpmf: n is -1, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(bernoulli_logit_lpmf(1i64, f64::NAN, false)),
        "bernoulli_logit_lpmf: Logit transformed probability parameter is NaN, but must not be NaN"
    );
    let empty: &[i64] = &[];
    assert_eq!(bernoulli_lpmf(empty, 0.3, false).unwrap(), 0.0);
    assert_eq!(bernoulli_cdf(empty, 0.3).unwrap(), 1.0);
    assert_eq!(bernoulli_logit_lpmf(&vec![], 0.3, false).unwrap(), 0.0);
}

// ---------------------------------------------------------------------------------------------
// binomial, binomial_logit

#[test]
fn binomial_values_match_scipy() {
    // scipy.stats.binom.logpmf; binomial_logit through binom.logpmf(n, N, expit(alpha))
    let cases: &[(f64, f64)] = &[
        (
            binomial_lpmf(2i64, 5i64, 0.3, false).unwrap(),
            -1.1753853474740241,
        ),
        (
            binomial_lpmf(&[0i64, 3, 10][..], 10i64, 0.01, false).unwrap(),
            -55.25057638457266,
        ),
        (binomial_lpmf(0i64, 0i64, 0.4, false).unwrap(), 0.0),
        (binomial_lpmf(7i64, 7i64, 1.0, false).unwrap(), 0.0),
        (
            binomial_lpmf(30i64, 100i64, 0.3, false).unwrap(),
            -2.444334564532987,
        ),
        (
            binomial_logit_lpmf(3i64, 8i64, -1.2, false).unwrap(),
            -1.6809080479691,
        ),
        (
            binomial_logit_lpmf(50i64, 100i64, 0.1, false).unwrap(),
            -2.6558243553396608,
        ),
    ];
    for (i, &(got, want)) in cases.iter().enumerate() {
        assert_close(got, want, 1e-14);
        let _ = i;
    }
    // Far logits: log inv_logit(−40)·N without overflow.
    assert_close(
        binomial_logit_lpmf(2i64, 2i64, -40.0, false).unwrap(),
        -80.0,
        1e-15,
    );
}

#[test]
fn binomial_gradients_and_propto() {
    let pts: &[&[f64]] = &[&[0.3], &[0.01], &[0.95]];
    for (n, big_n) in [(0i64, 4i64), (2, 4), (4, 4)] {
        check_gradient(|v| binomial_lpmf(n, big_n, v[0], false).unwrap(), pts);
        check_gradient(
            |v| binomial_logit_lpmf(n, big_n, v[0], false).unwrap(),
            &[&[0.3], &[-20.0], &[30.0]],
        );
    }
    let ns = [1i64, 0, 5];
    let bn = [3i64, 2, 5];
    let x: &[f64] = &[0.2, 0.5, 0.9];
    check_gradient(|v| binomial_lpmf(&ns[..], &bn[..], v, false).unwrap(), &[x]);
    check_gradient(|v| binomial_lpmf(&ns[..], 6i64, v[1], true).unwrap(), &[x]);
    check_gradient(
        |v| binomial_logit_lpmf(&ns[..], &bn[..], &vector_from(v), false).unwrap(),
        &[&[-1.0, 0.5, 2.0]],
    );
    // propto drops exactly log C(N, n).
    tape::reset();
    let t = Var::new(0.3);
    let full = binomial_lpmf(&ns[..], &bn[..], t, false).unwrap().value();
    let prop = binomial_lpmf(&ns[..], &bn[..], t, true).unwrap().value();
    assert_close(full - prop, 3f64.ln(), 1e-14);
    let full = binomial_logit_lpmf(&ns[..], &bn[..], t, false)
        .unwrap()
        .value();
    let prop = binomial_logit_lpmf(&ns[..], &bn[..], t, true)
        .unwrap()
        .value();
    assert_close(full - prop, 3f64.ln(), 1e-14);
    assert_eq!(binomial_lpmf(1i64, 3i64, 0.3, true).unwrap(), 0.0);
    assert_eq!(binomial_logit_lpmf(1i64, 3i64, 0.3, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn binomial_validation_follows_stan() {
    assert_eq!(
        msg(binomial_lpmf(4i64, 3i64, 0.3, false)),
        "binomial_lpmf: Successes variable is 4, but must be in the interval [0, 3]"
    );
    assert_eq!(
        msg(binomial_lpmf(-1i64, 3i64, 0.3, false)),
        "binomial_lpmf: Successes variable is -1, but must be in the interval [0, 3]"
    );
    assert_eq!(
        msg(binomial_lpmf(&[0i64, 0][..], &[2i64, -1][..], 0.3, false)),
        "binomial_lpmf: Successes variable is 0, but must be in the interval [0, -1]"
    );
    assert_eq!(
        msg(binomial_lpmf(1i64, 3i64, 1.3, false)),
        "binomial_lpmf: Probability parameter is 1.3, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(binomial_lpmf(&[1i64, 2][..], &[3i64, 3, 3][..], 0.3, false)),
        "binomial_lpmf: Population size parameter has size 3, but must have size 2"
    );
    assert_eq!(
        msg(binomial_lpmf(
            &[1i64, 2][..],
            3i64,
            &[0.1, 0.2, 0.3][..],
            false
        )),
        "binomial_lpmf: Probability parameter has size 3, but must have size 2"
    );
    assert_eq!(
        msg(binomial_logit_lpmf(1i64, 3i64, f64::INFINITY, false)),
        "binomial_logit_lpmf: Probability parameter is inf, but must be finite"
    );
    assert_eq!(
        msg(binomial_logit_lpmf(5i64, 3i64, 0.0, false)),
        "binomial_logit_lpmf: Successes variable is 5, but must be in the interval [0, 3]"
    );
    let empty: &[i64] = &[];
    assert_eq!(binomial_lpmf(empty, 3i64, 0.3, false).unwrap(), 0.0);
    assert_eq!(binomial_logit_lpmf(empty, empty, 0.3, false).unwrap(), 0.0);
}

// ---------------------------------------------------------------------------------------------
// poisson, poisson_log

#[test]
fn poisson_values_match_scipy() {
    // scipy.stats.poisson.logpmf / logcdf / logsf / cdf; mpmath (40 digits) where SciPy gives
    // -inf: log(e^(-900) Σ_{k≤5} 900^k/k!), log P(51, 1e-8)
    let cases: &[(f64, f64)] = &[
        (poisson_lpmf(3i64, 2.0, false).unwrap(), -1.7123179275482192),
        (
            poisson_lpmf(&[0i64, 5, 100][..], &[0.1, 5.0, 80.0][..], false).unwrap(),
            -7.377014268786908,
        ),
        (poisson_lpmf(0i64, 0.0, false).unwrap(), 0.0),
        (
            poisson_log_lpmf(3i64, -30.0, false).unwrap(),
            -91.79175946922815,
        ),
        (
            poisson_log_lpmf(3i64, 2f64.ln(), false).unwrap(),
            -1.7123179275482192,
        ),
        (poisson_lcdf(3i64, 2.5).unwrap(), -0.27763124086275504),
        (poisson_lccdf(3i64, 2.5).unwrap(), -1.417067568961742),
        (
            poisson_cdf(&[1i64, 4][..], &[2.0, 3.0][..]).unwrap(),
            0.3310016463300735,
        ),
        (poisson_lcdf(5i64, 900.0).unwrap(), -870.7699531091148),
        (poisson_lccdf(10i64, 1e-3).unwrap(), -93.48853257840591),
        (poisson_lccdf(50i64, 1e-8).unwrap(), -1091.8643105358758),
        (poisson_lcdf(200i64, 1.0).unwrap(), 0.0),
        // Upper tails below the rounding of 1: log1p(−tail), not log(1 − tail) = 0 (mpmath).
        (
            poisson_lcdf(50i64, 2.0).unwrap(),
            -2.043_224_251_179_504e-52,
        ),
        (
            poisson_lcdf(30i64, 3.0).unwrap(),
            -4.125_405_198_113_943e-21,
        ),
        (
            poisson_lccdf(0i64, 40.0).unwrap(),
            -4.248_354_255_291_589e-18,
        ),
        (poisson_lccdf(0i64, 1e-300).unwrap(), -690.7755278982137),
    ];
    for (i, &(got, want)) in cases.iter().enumerate() {
        assert!(
            (got - want).abs() <= 1e-13 * want.abs().max(1.0),
            "case {i}: {got} vs {want}"
        );
    }
    assert_eq!(poisson_lpmf(1i64, 0.0, false).unwrap(), f64::NEG_INFINITY);
    assert_eq!(
        poisson_lpmf(1i64, f64::INFINITY, false).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(
        poisson_log_lpmf(0i64, f64::NEG_INFINITY, false).unwrap(),
        0.0
    );
    assert_eq!(
        poisson_log_lpmf(2i64, f64::NEG_INFINITY, false).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(
        poisson_log_lpmf(0i64, f64::INFINITY, false).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(poisson_cdf(&[-1i64, 3][..], 2.0).unwrap(), 0.0);
    assert_eq!(poisson_lcdf(-1i64, 2.0).unwrap(), f64::NEG_INFINITY);
    assert_eq!(poisson_lccdf(-1i64, 2.0).unwrap(), 0.0);
}

#[test]
fn poisson_gradients_and_propto() {
    let pts: &[&[f64]] = &[&[0.3], &[2.5], &[40.0]];
    for n in [0i64, 3, 30] {
        check_gradient(|v| poisson_lpmf(n, v[0], false).unwrap(), pts);
        check_gradient(
            |v| poisson_log_lpmf(n, v[0], false).unwrap(),
            &[&[-3.0], &[0.5], &[3.0]],
        );
        check_gradient(|v| poisson_lcdf(n, v[0]).unwrap(), pts);
        check_gradient(|v| poisson_lccdf(n, v[0]).unwrap(), pts);
        check_gradient(|v| poisson_cdf(n, v[0]).unwrap(), pts);
    }
    // Deep tails, where Q or P underflow: finite, accurate gradients.
    check_gradient(|v| poisson_lcdf(5i64, v[0]).unwrap(), &[&[900.0]]);
    check_gradient_with(
        |v| poisson_lccdf(50i64, v[0]).unwrap(),
        &[&[1e-8]],
        GradCheck {
            step: Some(1e-10),
            ..GradCheck::default()
        },
    );
    let (_, g) = revad::gradient(|v| poisson_lcdf(0i64, v[0]).unwrap(), &[1000.0]);
    assert_close(g[0], -1.0, 1e-14);
    let ns = [1i64, 0, 5];
    let x: &[f64] = &[0.2, 1.5, 4.0];
    check_gradient(|v| poisson_lpmf(&ns[..], v, false).unwrap(), &[x]);
    check_gradient(|v| poisson_lpmf(&ns[..], v[1], true).unwrap(), &[x]);
    check_gradient(
        |v| poisson_log_lpmf(&ns[..], &vector_from(v), false).unwrap(),
        &[x],
    );
    check_gradient(|v| poisson_lcdf(&ns[..], v).unwrap(), &[x]);
    check_gradient(|v| poisson_lccdf(&ns[..], v[2]).unwrap(), &[x]);
    check_gradient(|v| poisson_cdf(&ns[..], &vector_from(v)).unwrap(), &[x]);
    // propto drops exactly Σ log nᵢ! = log 120.
    tape::reset();
    let l = Var::new(1.3);
    let full = poisson_lpmf(&ns[..], l, false).unwrap().value();
    let prop = poisson_lpmf(&ns[..], l, true).unwrap().value();
    assert_close(full - prop, -120f64.ln(), 1e-14);
    let full = poisson_log_lpmf(&ns[..], l, false).unwrap().value();
    let prop = poisson_log_lpmf(&ns[..], l, true).unwrap().value();
    assert_close(full - prop, -120f64.ln(), 1e-14);
    assert_eq!(poisson_lpmf(1i64, 3.0, true).unwrap(), 0.0);
    assert_eq!(poisson_log_lpmf(1i64, 3.0, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn poisson_validation_follows_stan() {
    assert_eq!(
        msg(poisson_lpmf(-1i64, 2.0, false)),
        "poisson_lpmf: Random variable is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(poisson_lpmf(1i64, -2.0, false)),
        "poisson_lpmf: Rate parameter is -2, but must be nonnegative"
    );
    assert_eq!(
        msg(poisson_lpmf(1i64, f64::NAN, false)),
        "poisson_lpmf: Rate parameter is NaN, but must be nonnegative"
    );
    assert_eq!(
        msg(poisson_lpmf(&[1i64, 2][..], &[1.0, 2.0, 3.0][..], false)),
        "poisson_lpmf: Rate parameter has size 3, but must have size 2"
    );
    assert_eq!(
        msg(poisson_log_lpmf(-2i64, 2.0, false)),
        "poisson_log_lpmf: Random variable is -2, but must be nonnegative"
    );
    assert_eq!(
        msg(poisson_log_lpmf(1i64, f64::NAN, false)),
        "poisson_log_lpmf: Log rate parameter is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(poisson_cdf(1i64, -1.0)),
        "poisson_cdf: Rate parameter is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(poisson_lcdf(1i64, -1.0)),
        "poisson_lcdf: Rate parameter is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(poisson_lccdf(1i64, f64::NAN)),
        "poisson_lccdf: Rate parameter is NaN, but must be nonnegative"
    );
    let empty: &[i64] = &[];
    assert_eq!(poisson_lpmf(empty, 2.0, false).unwrap(), 0.0);
    assert_eq!(poisson_cdf(empty, 2.0).unwrap(), 1.0);
    assert_eq!(poisson_lcdf(empty, 2.0).unwrap(), 0.0);
}

// ---------------------------------------------------------------------------------------------
// neg_binomial_2, neg_binomial_2_log, neg_binomial, beta_binomial

#[test]
fn negative_binomial_values_match_scipy() {
    // scipy.stats.nbinom.logpmf(n, φ, φ/(μ + φ)) for neg_binomial_2, nbinom.logpmf(n, α,
    // β/(1 + β)) for neg_binomial, betabinom.logpmf(n, N, α, β); mpmath (40 digits, loggamma
    // formula) where SciPy loses digits (φ = 1e6, μ = 1e-6, μ = e^(−20)).
    let cases: &[(f64, f64)] = &[
        (
            neg_binomial_2_lpmf(2i64, 3.0, 1.0, false).unwrap(),
            -1.9616585060234524,
        ),
        (
            neg_binomial_2_lpmf(0i64, 0.5, 10.0, false).unwrap(),
            -0.48790164169432054,
        ),
        (
            neg_binomial_2_lpmf(50i64, 10.0, 0.5, false).unwrap(),
            -6.492645831310393,
        ),
        (
            neg_binomial_2_lpmf(7i64, 4.0, 1e6, false).unwrap(),
            -2.8210998332370134,
        ),
        (
            neg_binomial_2_lpmf(3i64, 1e-6, 2.0, false).unwrap(),
            -42.139681354452144,
        ),
        (
            neg_binomial_2_lpmf(&[0i64, 4, 12][..], &[1.5, 2.0, 8.0][..], 3.0, false).unwrap(),
            -6.91441914131322,
        ),
        (
            neg_binomial_2_log_lpmf(4i64, 1.5, 2.5, false).unwrap(),
            -2.140838496532994,
        ),
        (
            neg_binomial_2_log_lpmf(0i64, -20.0, 3.0, false).unwrap(),
            -2.0611536217304987e-09,
        ),
        (
            neg_binomial_2_log_lpmf(100i64, 5.0, 0.8, false).unwrap(),
            -5.794296621714291,
        ),
        (
            neg_binomial_lpmf(3i64, 1.0, 0.5, false).unwrap(),
            -2.315007612992603,
        ),
        (
            neg_binomial_lpmf(0i64, 2.5, 4.0, false).unwrap(),
            -0.5578588782855243,
        ),
        (
            neg_binomial_lpmf(40i64, 3.0, 0.1, false).unwrap(),
            -4.247998506140387,
        ),
        (
            neg_binomial_lpmf(&[1i64, 5][..], &[0.3, 7.0][..], 2.0, false).unwrap(),
            -4.6199769344424535,
        ),
        (
            beta_binomial_lpmf(2i64, 5i64, 1.0, 1.0, false).unwrap(),
            -1.791759469228055,
        ),
        (
            beta_binomial_lpmf(3i64, 10i64, 0.5, 2.5, false).unwrap(),
            -2.473316362573171,
        ),
        (
            beta_binomial_lpmf(0i64, 20i64, 200.0, 0.1, false).unwrap(),
            -69.51196556594346,
        ),
        (
            beta_binomial_lpmf(
                &[0i64, 7, 12][..],
                &[3i64, 9, 12][..],
                2.0,
                &[0.7, 1.3, 5.0][..],
                false,
            )
            .unwrap(),
            -11.914461764735837,
        ),
    ];
    for (i, &(got, want)) in cases.iter().enumerate() {
        assert!(
            (got - want).abs() <= 1e-13 * want.abs().max(1e-300),
            "case {i}: {got} vs {want}"
        );
    }
    // Outside the support of the beta-binomial: −∞, as Stan.
    assert_eq!(
        beta_binomial_lpmf(4i64, 3i64, 1.0, 1.0, false).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(
        beta_binomial_lpmf(-1i64, 3i64, 1.0, 1.0, false).unwrap(),
        f64::NEG_INFINITY
    );
}

#[test]
fn negative_binomial_gradients() {
    let pts: &[&[f64]] = &[&[3.0, 1.0], &[0.2, 15.0], &[40.0, 0.3], &[2.0, 1e4]];
    for n in [0i64, 1, 7, 60] {
        check_gradient(|v| neg_binomial_2_lpmf(n, v[0], v[1], false).unwrap(), pts);
        check_gradient(|v| neg_binomial_2_lpmf(n, 2.0, v[1], true).unwrap(), pts);
        check_gradient(|v| neg_binomial_2_lpmf(n, v[0], 2.0, true).unwrap(), pts);
        check_gradient(|v| neg_binomial_lpmf(n, v[0], v[1], false).unwrap(), pts);
        check_gradient(|v| neg_binomial_lpmf(n, v[0], 0.7, true).unwrap(), pts);
        check_gradient(|v| neg_binomial_lpmf(n, 1.5, v[1], true).unwrap(), pts);
        check_gradient(
            |v| neg_binomial_2_log_lpmf(n, v[0], v[1], false).unwrap(),
            &[&[1.0, 1.0], &[-8.0, 2.0], &[12.0, 0.4], &[0.5, 1e4]],
        );
        check_gradient(
            |v| beta_binomial_lpmf(n, 60i64, v[0], v[1], false).unwrap(),
            &[&[1.0, 1.0], &[0.05, 3.0], &[200.0, 0.5]],
        );
        check_gradient(
            |v| beta_binomial_lpmf(n, 80i64, v[0], 2.0, true).unwrap(),
            &[&[0.7, 0.0]],
        );
        check_gradient(
            |v| beta_binomial_lpmf(n, 80i64, 2.0, v[1], true).unwrap(),
            &[&[0.0, 0.7]],
        );
    }
    let ns = [0i64, 4, 12];
    let x: &[f64] = &[1.5, 2.0, 8.0, 3.0, 0.5, 9.0];
    check_gradient(
        |v| neg_binomial_2_lpmf(&ns[..], &v[..3], &v[3..], false).unwrap(),
        &[x],
    );
    check_gradient(
        |v| neg_binomial_2_lpmf(&ns[..], &vector_from(&v[..3]), v[3], false).unwrap(),
        &[x],
    );
    check_gradient(
        |v| neg_binomial_2_log_lpmf(&ns[..], v[0], &v[3..], false).unwrap(),
        &[x],
    );
    check_gradient(
        |v| neg_binomial_lpmf(&ns[..], &v[..3], v[4], false).unwrap(),
        &[x],
    );
    check_gradient(
        |v| {
            beta_binomial_lpmf(
                &ns[..],
                &[5i64, 4, 20][..],
                &v[..3],
                &vector_from(&v[3..]),
                false,
            )
            .unwrap()
        },
        &[x],
    );
}

#[test]
fn negative_binomial_propto_drops_exactly_the_constants() {
    use revad::special::gamma::{lgamma, lgamma_shift};
    tape::reset();
    let ns = [0i64, 4, 12];
    let (mu, phi) = (2.5, 3.0);
    let log_fact: f64 = ns.iter().map(|&k| lgamma(k as f64 + 1.0)).sum();
    let lg_phi: f64 = ns.iter().map(|&k| lgamma_shift(phi, k as f64)).sum();
    let n_log_mu: f64 = ns.iter().map(|&k| k as f64 * f64::ln(mu)).sum();
    let full = neg_binomial_2_lpmf(&ns[..], mu, phi, false).unwrap();
    let (m, p) = (Var::new(mu), Var::new(phi));
    assert_close(
        full - neg_binomial_2_lpmf(&ns[..], m, p, true).unwrap().value(),
        -log_fact,
        1e-14,
    );
    assert_close(
        full - neg_binomial_2_lpmf(&ns[..], m, phi, true).unwrap().value(),
        lg_phi - log_fact,
        1e-14,
    );
    assert_close(
        full - neg_binomial_2_lpmf(&ns[..], mu, p, true).unwrap().value(),
        n_log_mu - log_fact,
        1e-14,
    );
    let eta = mu.ln();
    let full = neg_binomial_2_log_lpmf(&ns[..], eta, phi, false).unwrap();
    let e = Var::new(eta);
    assert_close(
        full - neg_binomial_2_log_lpmf(&ns[..], e, phi, true)
            .unwrap()
            .value(),
        lg_phi - log_fact,
        1e-14,
    );
    assert_close(
        full - neg_binomial_2_log_lpmf(&ns[..], eta, p, true)
            .unwrap()
            .value(),
        n_log_mu - log_fact,
        1e-14,
    );
    // neg_binomial(α = 3, β = 0.5)
    let (a, b) = (3.0, 0.5);
    let lg_a: f64 = ns.iter().map(|&k| lgamma_shift(a, k as f64)).sum();
    let n_log1p_b: f64 = ns.iter().map(|&k| k as f64 * f64::ln_1p(b)).sum();
    let full = neg_binomial_lpmf(&ns[..], a, b, false).unwrap();
    assert_close(
        full - neg_binomial_lpmf(&ns[..], Var::new(a), b, true)
            .unwrap()
            .value(),
        -n_log1p_b - log_fact,
        1e-14,
    );
    assert_close(
        full - neg_binomial_lpmf(&ns[..], a, Var::new(b), true)
            .unwrap()
            .value(),
        lg_a - log_fact,
        1e-14,
    );
    // beta_binomial: log C(N, n) only; C(5,0)·C(9,4)·C(12,12) = 126.
    let bn = [5i64, 9, 12];
    let full = beta_binomial_lpmf(&ns[..], &bn[..], 2.0, 1.5, false).unwrap();
    assert_close(
        full - beta_binomial_lpmf(&ns[..], &bn[..], Var::new(2.0), 1.5, true)
            .unwrap()
            .value(),
        126f64.ln(),
        1e-14,
    );
    assert_eq!(neg_binomial_2_lpmf(1i64, 2.0, 3.0, true).unwrap(), 0.0);
    assert_eq!(neg_binomial_2_log_lpmf(1i64, 2.0, 3.0, true).unwrap(), 0.0);
    assert_eq!(neg_binomial_lpmf(1i64, 2.0, 3.0, true).unwrap(), 0.0);
    assert_eq!(beta_binomial_lpmf(1i64, 2i64, 2.0, 3.0, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn negative_binomial_validation_follows_stan() {
    let cases: Vec<(revad::Result<f64>, &str)> = vec![
        (
            neg_binomial_2_lpmf(-1i64, 2.0, 3.0, false),
            "neg_binomial_2_lpmf: Failures variable is -1, but must be nonnegative",
        ),
        (
            neg_binomial_2_lpmf(1i64, 0.0, 3.0, false),
            "neg_binomial_2_lpmf: Location parameter is 0, but must be positive finite",
        ),
        (
            neg_binomial_2_lpmf(1i64, 2.0, f64::INFINITY, false),
            "neg_binomial_2_lpmf: Precision parameter is inf, but must be positive finite",
        ),
        (
            neg_binomial_2_lpmf(&[1i64, 2][..], &[1.0, 2.0, 3.0][..], 1.0, false),
            "neg_binomial_2_lpmf: Location parameter has size 3, but must have size 2",
        ),
        (
            neg_binomial_2_log_lpmf(-3i64, 2.0, 3.0, false),
            "neg_binomial_2_log_lpmf: Failures variable is -3, but must be nonnegative",
        ),
        (
            neg_binomial_2_log_lpmf(1i64, f64::NEG_INFINITY, 3.0, false),
            "neg_binomial_2_log_lpmf: Log location parameter is -inf, but must be finite",
        ),
        (
            neg_binomial_2_log_lpmf(1i64, 0.0, -3.0, false),
            "neg_binomial_2_log_lpmf: Precision parameter is -3, but must be positive finite",
        ),
        (
            neg_binomial_lpmf(-1i64, 2.0, 3.0, false),
            "neg_binomial_lpmf: Failures variable is -1, but must be nonnegative",
        ),
        (
            neg_binomial_lpmf(1i64, f64::NAN, 3.0, false),
            "neg_binomial_lpmf: Shape parameter is NaN, but must be positive finite",
        ),
        (
            neg_binomial_lpmf(1i64, 2.0, 0.0, false),
            "neg_binomial_lpmf: Inverse scale parameter is 0, but must be positive finite",
        ),
        (
            beta_binomial_lpmf(1i64, -2i64, 2.0, 3.0, false),
            "beta_binomial_lpmf: Population size parameter is -2, but must be nonnegative",
        ),
        (
            beta_binomial_lpmf(1i64, 2i64, -2.0, 3.0, false),
            "beta_binomial_lpmf: First prior sample size parameter is -2, but must be positive finite",
        ),
        (
            beta_binomial_lpmf(1i64, 2i64, 2.0, f64::INFINITY, false),
            "beta_binomial_lpmf: Second prior sample size parameter is inf, but must be positive finite",
        ),
        (
            beta_binomial_lpmf(&[1i64, 2][..], &[2i64, 2, 2][..], 2.0, 3.0, false),
            "beta_binomial_lpmf: Population size parameter has size 3, but must have size 2",
        ),
    ];
    for (r, want) in cases {
        assert_eq!(msg(r), want);
    }
    let empty: &[i64] = &[];
    assert_eq!(neg_binomial_2_lpmf(empty, 2.0, 3.0, false).unwrap(), 0.0);
    assert_eq!(
        neg_binomial_2_log_lpmf(empty, 2.0, 3.0, false).unwrap(),
        0.0
    );
    assert_eq!(neg_binomial_lpmf(empty, 2.0, 3.0, false).unwrap(), 0.0);
    assert_eq!(
        beta_binomial_lpmf(empty, empty, 2.0, 3.0, false).unwrap(),
        0.0
    );
}

// ---------------------------------------------------------------------------------------------
// categorical, categorical_logit, ordered_logistic, hypergeometric

#[test]
fn categorical_family_values() {
    // categorical: scipy.stats.multinomial.logpmf([0,2,1], 3, θ) − log 3 (the 3 orderings of
    // the outcomes {2,3,2}); categorical_logit, ordered_logistic: mpmath at 40 digits of the
    // definitions; hypergeometric: scipy.stats.hypergeom.logpmf(n, a + b, a, N).
    let theta = [0.2, 0.5, 0.3];
    let beta = [1.0, -2.0, 0.5, 3.0];
    let c = [-1.5, 0.2, 2.0];
    let cases: &[(f64, f64)] = &[
        (
            categorical_lpmf(&[2i64, 3, 2][..], &theta[..], false).unwrap(),
            -2.5902671654458267,
        ),
        (
            categorical_logit_lpmf(&[1i64, 4, 4, 2][..], &beta[..], false).unwrap(),
            -7.809013790717406,
        ),
        (
            categorical_logit_lpmf(2i64, &[0.0, -800.0, 800.0][..], false).unwrap(),
            -1600.0,
        ),
        (
            ordered_logistic_lpmf(1i64, 0.7, &c[..], false).unwrap(),
            -2.305083319768696,
        ),
        (
            ordered_logistic_lpmf(2i64, 0.7, &c[..], false).unwrap(),
            -1.2808891996162477,
        ),
        (
            ordered_logistic_lpmf(3i64, 0.7, &c[..], false).unwrap(),
            -0.8957670061897334,
        ),
        (
            ordered_logistic_lpmf(4i64, 0.7, &c[..], false).unwrap(),
            -1.5410084538329922,
        ),
        (
            ordered_logistic_lpmf(2i64, 40.0, &[-1.0, 1.0][..], false).unwrap(),
            -39.14541345786886,
        ),
        (
            ordered_logistic_lpmf(1i64, -50.0, &[1.0][..], false).unwrap(),
            -7.095474162284704e-23,
        ),
        (
            ordered_logistic_lpmf(2i64, 30.0, &[29.0, 29.0 + 1e-6][..], false).unwrap(),
            -15.44203370091424,
        ),
        (
            ordered_logistic_lpmf(&[1i64, 3, 4][..], &[0.3, -1.0, 2.5][..], &c[..], false).unwrap(),
            -4.119605981794589,
        ),
        (
            hypergeometric_lpmf(2i64, 3i64, 4i64, 6i64, false).unwrap(),
            -1.2039728043259355,
        ),
        (
            hypergeometric_lpmf(30i64, 100i64, 60i64, 140i64, false).unwrap(),
            -2.0993283399262452,
        ),
        (
            hypergeometric_lpmf(0i64, 3i64, 0i64, 7i64, false).unwrap(),
            0.0,
        ),
        (
            hypergeometric_lpmf(
                &[1i64, 3][..],
                &[4i64, 9][..],
                &[5i64, 8][..],
                &[7i64, 12][..],
                false,
            )
            .unwrap(),
            -2.2171891610664725,
        ),
    ];
    for (i, &(got, want)) in cases.iter().enumerate() {
        // ordered_logistic at the nearly equal cut-points loses ~1e-10 to the rounding of
        // 29 + 1e-6 itself, which the reference also saw: 1e-13 relative suffices.
        assert!(
            (got - want).abs() <= 2e-13 * want.abs().max(1e-300),
            "case {i}: {got} vs {want}"
        );
    }
    // Data log odds may hold −∞: that category has probability 0.
    assert_eq!(
        categorical_logit_lpmf(2i64, &[0.0, f64::NEG_INFINITY][..], false).unwrap(),
        f64::NEG_INFINITY
    );
    assert_close(
        categorical_logit_lpmf(1i64, &[0.0, f64::NEG_INFINITY][..], false).unwrap(),
        0.0,
        1e-16,
    );
    // A scalar θ is a simplex of one.
    assert_eq!(categorical_lpmf(1i64, 1.0, false).unwrap(), 0.0);
}

#[test]
fn categorical_family_gradients_and_propto() {
    let ns = [2i64, 3, 2, 1];
    // θ need not be on the simplex for the derivative check: check only the formula, at a
    // simplex point and by hand (the check of θ happens at every perturbed point, so use the
    // analytic gradient: cₖ/θₖ).
    tape::reset();
    let th: Vec<Var> = [0.2, 0.5, 0.3].iter().map(|&v| Var::new(v)).collect();
    let lp = categorical_lpmf(&ns[..], &th[..], false).unwrap();
    lp.grad();
    assert_eq!(
        th.iter().map(|v| v.adj()).collect::<Vec<_>>(),
        vec![1.0 / 0.2, 2.0 / 0.5, 1.0 / 0.3]
    );
    let prop = categorical_lpmf(&ns[..], &th[..], true).unwrap().value();
    assert_eq!(prop, lp.value());
    tape::reset();
    let thv = vector_from(&[Var::new(0.6), Var::new(0.4)]);
    categorical_lpmf(2i64, &thv, false).unwrap().grad();
    assert_eq!(thv.adj().as_slice().unwrap(), &[0.0, 2.5]);
    tape::reset();
    // categorical_logit and ordered_logistic have no constant term: propto changes nothing
    // once an argument is a variable.
    let b = [Var::new(1.0), Var::new(-2.0), Var::new(0.5)];
    assert_eq!(
        categorical_logit_lpmf(&ns[..], &b[..], true)
            .unwrap()
            .value(),
        categorical_logit_lpmf(&ns[..], &b[..], false)
            .unwrap()
            .value()
    );
    assert_eq!(
        ordered_logistic_lpmf(2i64, b[0], &[0.0, 2.0][..], true)
            .unwrap()
            .value(),
        ordered_logistic_lpmf(2i64, b[0], &[0.0, 2.0][..], false)
            .unwrap()
            .value()
    );
    tape::reset();
    assert_eq!(
        categorical_lpmf(&ns[..], &[0.2, 0.5, 0.3][..], true).unwrap(),
        0.0
    );
    assert_eq!(
        categorical_logit_lpmf(&ns[..], &[0.2, 0.5, 0.3][..], true).unwrap(),
        0.0
    );
    assert_eq!(
        ordered_logistic_lpmf(1i64, 0.2, &[0.0][..], true).unwrap(),
        0.0
    );
    assert_eq!(
        hypergeometric_lpmf(2i64, 3i64, 4i64, 6i64, true).unwrap(),
        0.0
    );

    let x: &[f64] = &[1.0, -2.0, 0.5];
    check_gradient(
        |v| categorical_logit_lpmf(&ns[..], v, false).unwrap(),
        &[x, &[30.0, -30.0, 0.0]],
    );
    check_gradient(
        |v| categorical_logit_lpmf(3i64, &vector_from(v), true).unwrap(),
        &[x],
    );
    // ordered_logistic: η and c variables, every outcome, scalar and container η.
    let pts: &[&[f64]] = &[
        &[0.7, -1.5, 0.2, 2.0],
        &[-6.0, -1.0, 0.0, 0.5],
        &[9.0, 8.0, 8.5, 30.0],
    ];
    for y in 1i64..=4 {
        check_gradient(
            |v| ordered_logistic_lpmf(y, v[0], &v[1..], false).unwrap(),
            pts,
        );
        check_gradient(
            |v| ordered_logistic_lpmf(y, 0.3, &vector_from(&v[1..]), true).unwrap(),
            pts,
        );
        check_gradient(
            |v| ordered_logistic_lpmf(y, v[0], &[-1.0, 0.0, 1.0][..], false).unwrap(),
            pts,
        );
    }
    let ys = [1i64, 3, 4, 2];
    check_gradient(
        |v| ordered_logistic_lpmf(&ys[..], &v[..4], &v[4..], false).unwrap(),
        &[&[0.3, -1.0, 2.5, 0.0, -1.5, 0.2, 2.0]],
    );
    // Far tails: finite gradients.
    let (val, g) = revad::gradient(
        |v| ordered_logistic_lpmf(2i64, v[0], &v[1..], false).unwrap(),
        &[40.0, -1.0, 1.0],
    );
    assert!(val.is_finite() && g.iter().all(|d| d.is_finite()));
    assert_close(g[0], -1.0, 1e-12);
}

#[test]
fn categorical_family_validation_follows_stan() {
    let th = [0.2, 0.5, 0.3];
    let cases: Vec<(revad::Result<f64>, &str)> = vec![
        (
            categorical_lpmf(4i64, &th[..], false),
            "categorical_lpmf: Number of categories is 4, but must be in the interval [1, 3]",
        ),
        (
            categorical_lpmf(&[1i64, 0][..], &th[..], false),
            "categorical_lpmf: Number of categories is 0, but must be in the interval [1, 3]",
        ),
        (
            categorical_lpmf(1i64, &[0.2, 0.5, 0.4][..], false),
            "categorical_lpmf: Probabilities parameter sum is 1.1, but must be 1 (a simplex, to within 1e-8)",
        ),
        (
            categorical_lpmf(1i64, &[-0.2, 0.7, 0.5][..], false),
            "categorical_lpmf: Probabilities parameter element is -0.2, but must be nonnegative (a simplex)",
        ),
        (
            categorical_lpmf(&Vec::<i64>::new(), &[0.0f64; 0][..], false),
            "categorical_lpmf: Probabilities parameter size is 0, but must be positive (a simplex)",
        ),
        (
            categorical_logit_lpmf(5i64, &th[..], false),
            "categorical_logit_lpmf: categorical outcome out of support is 5, but must be in the interval [1, 3]",
        ),
        (
            categorical_logit_lpmf(1i64, &[0.0, f64::NAN][..], false),
            "categorical_logit_lpmf: log odds parameter is NaN, but must not be NaN",
        ),
        (
            categorical_logit_lpmf(1i64, &[f64::NEG_INFINITY, f64::NEG_INFINITY][..], false),
            "categorical_logit_lpmf: log odds parameter is -inf, but must be greater than -inf",
        ),
        (
            ordered_logistic_lpmf(&[1i64, 2][..], &[0.0, 1.0, 2.0][..], &[0.0][..], false),
            "ordered_logistic_lpmf: Locations has size 3, but must have size 2",
        ),
        (
            ordered_logistic_lpmf(3i64, 0.0, &[0.0][..], false),
            "ordered_logistic_lpmf: Random variable is 3, but must be in the interval [1, 2]",
        ),
        (
            ordered_logistic_lpmf(1i64, f64::NAN, &[0.0][..], false),
            "ordered_logistic_lpmf: Location parameter is NaN, but must be finite",
        ),
        (
            ordered_logistic_lpmf(1i64, 0.0, &[0.0f64; 0][..], false),
            "ordered_logistic_lpmf: Size of cut points parameter is 0, but must be greater than 0",
        ),
        (
            ordered_logistic_lpmf(&Vec::<i64>::new(), &[0.0f64; 0][..], &[0.0f64; 0][..], false),
            "ordered_logistic_lpmf: Size of cut points parameter is 0, but must be greater than 0",
        ),
        (
            ordered_logistic_lpmf(1i64, 0.0, &[0.0, 1.0, 1.0][..], false),
            "ordered_logistic_lpmf: Cut-points is 1, but must be greater than the previous element (an ordered vector)",
        ),
        (
            ordered_logistic_lpmf(1i64, 0.0, &[0.0, f64::INFINITY][..], false),
            "ordered_logistic_lpmf: Final cut-point is inf, but must be finite",
        ),
        (
            ordered_logistic_lpmf(1i64, 0.0, &[f64::NEG_INFINITY, 0.0][..], false),
            "ordered_logistic_lpmf: First cut-point is -inf, but must be finite",
        ),
        (
            hypergeometric_lpmf(5i64, 6i64, 4i64, 6i64, false),
            "hypergeometric_lpmf: Successes variable is 5, but must be in the interval [0, 4]",
        ),
        (
            hypergeometric_lpmf(2i64, 1i64, 4i64, 6i64, false),
            "hypergeometric_lpmf: Draws parameter is 1, but must be greater than or equal to n",
        ),
        (
            hypergeometric_lpmf(1i64, 9i64, 4i64, 6i64, false),
            "hypergeometric_lpmf: Draws parameter minus successes variable is 8, but must be in the interval [0, 6]",
        ),
        (
            hypergeometric_lpmf(&[1i64, 2][..], 3i64, &[4i64, 4, 4][..], 6i64, false),
            "hypergeometric_lpmf: Successes in population parameter has size 3, but must have size 2",
        ),
    ];
    for (r, want) in cases {
        assert_eq!(msg(r), want);
    }
    let empty: &[i64] = &[];
    assert_eq!(categorical_lpmf(empty, &th[..], false).unwrap(), 0.0);
    assert_eq!(categorical_logit_lpmf(empty, &th[..], false).unwrap(), 0.0);
    assert_eq!(
        ordered_logistic_lpmf(empty, 0.3, &th[..1], false).unwrap(),
        0.0
    );
    assert_eq!(
        hypergeometric_lpmf(empty, 1i64, 2i64, 3i64, false).unwrap(),
        0.0
    );
}

#[test]
fn one_node_per_call_and_every_integer_container_kind() {
    tape::reset();
    let t = [Var::new(0.3), Var::new(0.6)];
    let before = tape::stats().continuations;
    let a = bernoulli_lpmf(&[1i64, 0][..], &t[..], false).unwrap();
    let _ = poisson_lpmf(&vec![1i64, 3], &t[..], false).unwrap();
    let _ = neg_binomial_2_lpmf(&[1i64, 3][..], &t[..], t[0], false).unwrap();
    let _ = ordered_logistic_lpmf(&[1i64, 2][..], t[0], &[0.0, 1.0][..], false).unwrap();
    assert_eq!(tape::stats().continuations, before + 4);
    let b = bernoulli_lpmf(&vec![1i64, 0], &t[..], false).unwrap();
    let c: f64 = bernoulli_lpmf(&[1i64, 0][..], &[0.3, 0.6][..], false).unwrap();
    assert_eq!(a.value(), b.value());
    assert_eq!(a.value(), c);
    tape::reset();
}
