//! The univariate distributions std_normal, beta_proportion, loglogistic,
//! skew_double_exponential, discrete_range, ordered_probit, beta_neg_binomial and the von
//! Mises CDFs: values against reference tables over grids that include the tails, gradients
//! against finite differences (scalar and container forms, every data/variable mix, random
//! directions on long containers), `propto`, one node per call, and validation with Stan's
//! messages.
//!
//! Reference values: mpmath 1.4 at 80 digits from the closed forms below (the smaller of a
//! probability and its complement computed directly, the other's log through log1p),
//! cross-checked against scipy.stats 1.17.1 (`norm`, `beta(μκ, (1 − μ)κ)`,
//! `fisk(β, scale=α)`, `laplace_asymmetric(√(τ/(1−τ)), μ, σ/(2√(τ(1−τ))))`, `randint`,
//! `vonmises` as `cdf(y) − cdf(−π)`) to 1e-14 relative where SciPy is accurate;
//! `betanbinom` (NaN in SciPy 1.17 for non-integer r) and `ordered_probit` only from mpmath.
//!
//! ```python
//! import mpmath as mp; mp.mp.dps = 80
//! std_normal: [-log(2π)/2 − y²/2, ncdf(y), log ncdf(y), log ncdf(−y)]
//! beta_proportion: a = μκ, b = (1 − μ)κ: [(a−1) log y + (b−1) log1p(−y) − log B(a, b),
//!     log betainc(a, b, 0, y), log betainc(b, a, 0, 1 − y)]   (regularized)
//! loglogistic: t = (y/α)^β: [log(β/α) + (β − 1) log(y/α) − 2 log1p(t), 1/(1 + 1/t)]
//! skew_double_exponential: z = (y − μ)/σ, ρ = (τ − 1)z (z < 0), τz (z ≥ 0):
//!     [log(2τ(1 − τ)/σ) − 2ρ, F, log F, log(1 − F)],
//!     F = τ e^(2(1−τ)z) (z ≤ 0), 1 − (1 − τ) e^(−2τz) (z > 0)
//! beta_neg_binomial: loggamma(n + r) − loggamma(n + 1) − loggamma(r)
//!     + log B(α + r, β + n) − log B(α, β)
//! ordered_probit: log(ncdf(c_y − η) − ncdf(c_{y−1} − η)) (upper tails when both are > ½)
//! von_mises (κ < 49): F = quad(exp(κ(cos(t − μ) − 1)), [−π, …, y])/(2π I₀(κ) e^(−κ)) at 50
//!     digits (split at μ + 2πj); κ ≥ 49: Stan's construction (F_c(x) − F_c(b), x = y − μ and
//!     b = −π − μ moved into [−π, π)) from F_c(x) = ncdf(√(2/π) e^κ/I₀(κ) sin(x/2)), and on
//!     [49, 50) the blend (50 − κ)·F_c(x; 49, exact) + (κ − 49)·F_c(x; 50, normal)
//! ```

// The tables are pasted reference values.
#![allow(clippy::approx_constant)]

use revad::prob::{
    beta_neg_binomial_lpmf, beta_proportion_lccdf, beta_proportion_lcdf, beta_proportion_lpdf,
    discrete_range_cdf, discrete_range_lccdf, discrete_range_lcdf, discrete_range_lpmf,
    loglogistic_cdf, loglogistic_lpdf, ordered_probit_lpmf, skew_double_exponential_cdf,
    skew_double_exponential_lccdf, skew_double_exponential_lcdf, skew_double_exponential_lpdf,
    std_normal_cdf, std_normal_lccdf, std_normal_lcdf, std_normal_lpdf, von_mises_cdf,
    von_mises_lccdf, von_mises_lcdf, Out, ProbArg, ProbOutput,
};
use revad::testing::GradCheck;
use revad::testing::{check_directional, check_gradient, check_gradient_with, vector_from};
use revad::{tape, Var, Vector};

const HALF_LOG_TWO_PI: f64 = 0.918_938_533_204_672_8;

/// `a` equals `b` to `tol` relative (exactly when `b` is 0 or infinite).
#[track_caller]
fn rel_close(a: f64, b: f64, tol: f64, what: &str) {
    assert!(
        a == b || (a - b).abs() <= tol * b.abs(),
        "{what}: {a:e} differs from {b:e} by more than {tol:e} relative"
    );
}

/// The exact message of an error.
fn msg<T: std::fmt::Debug>(r: revad::Result<T>) -> String {
    r.unwrap_err().to_string()
}

/// A scalar argument as a variable (`V`) or a constant (`C`).
macro_rules! mk {
    (V, $x:expr) => {
        Var::new($x)
    };
    (C, $x:expr) => {
        $x
    };
}

/// A variable's adjoint; nothing for a constant.
macro_rules! adj {
    (V, $x:expr) => {
        Some($x.adj())
    };
    (C, $x:expr) => {{
        let _ = $x;
        None::<f64>
    }};
}

/// Every listed data/variable mix of the real arguments of `f` at `p` (each its own
/// instantiation) gives the all-constant value and, for its variables, the all-variable
/// gradient.
macro_rules! every_mix {
    ($f:path, $p:expr, [$($j:tt)+], $([$($k:ident $i:tt),+])+) => {{
        let p: &[f64] = &$p;
        let value: f64 = $f($(p[$j]),+).unwrap();
        tape::reset();
        let all = ($(Var::new(p[$j]),)+);
        let r = $f($(all.$j),+).unwrap();
        r.grad();
        let grad = [$(all.$j.adj()),+];
        $({
            tape::reset();
            let a = ($(mk!($k, p[$i]),)+);
            let r = $f($(a.$i),+).unwrap();
            rel_close(r.value(), value, 1e-15, concat!(stringify!($f), " mixed value"));
            r.grad();
            $(
                if let Some(d) = adj!($k, a.$i) {
                    rel_close(d, grad[$i], 1e-14, concat!(stringify!($f), " mixed partial"));
                }
            )+
        })+
        tape::reset();
    }};
}

/// [`every_mix!`] of a three-argument function.
macro_rules! every_mix3 {
    ($f:path, $p:expr) => {
        every_mix!($f, $p, [0 1 2],
            [V 0, C 1, C 2] [C 0, V 1, C 2] [V 0, V 1, C 2] [C 0, C 1, V 2] [V 0, C 1, V 2]
            [C 0, V 1, V 2])
    };
}

/// [`every_mix!`] of a four-argument function.
macro_rules! every_mix4 {
    ($f:path, $p:expr) => {
        every_mix!($f, $p, [0 1 2 3],
            [V 0, C 1, C 2, C 3] [C 0, V 1, C 2, C 3] [V 0, V 1, C 2, C 3] [C 0, C 1, V 2, C 3]
            [V 0, C 1, V 2, C 3] [C 0, V 1, V 2, C 3] [V 0, V 1, V 2, C 3] [C 0, C 1, C 2, V 3]
            [V 0, C 1, C 2, V 3] [C 0, V 1, C 2, V 3] [V 0, V 1, C 2, V 3] [C 0, C 1, V 2, V 3]
            [V 0, C 1, V 2, V 3] [C 0, V 1, V 2, V 3])
    };
}

// ---------------------------------------------------------------------------------------------
// std_normal

// (y, lpdf, cdf, lcdf, lccdf)
#[rustfmt::skip]
const STD_NORMAL: &[[f64; 5]] = &[
    [0.3, -0.9639385332046727, 0.6179114221889527, -0.4814101615884812, -0.9621028181688507],
    [-1.2, -1.6389385332046726, 0.11506967022170826, -2.1622175060437394, -0.12224636048741779],
    [-5.0, -13.418938533204672, 2.866515718791939e-07, -15.064998393988725, -2.866516129637636e-07],
    [-40.0, -800.9189385332047, 0.0, -804.6084420137538, 0.0],
    [9.0, -41.418938533204674, 1.0, -1.1285884059538405e-19, -43.628149113332114],
    [38.0, -722.9189385332047, 1.0, -2.88542835e-316, -726.5572160188201],
];

#[test]
fn std_normal_values() {
    for r in STD_NORMAL {
        let y = r[0];
        rel_close(std_normal_lpdf(y, false).unwrap(), r[1], 1e-15, "lpdf");
        rel_close(std_normal_cdf(y).unwrap(), r[2], 1e-14, "cdf");
        rel_close(std_normal_lcdf(y).unwrap(), r[3], 1e-14, "lcdf");
        rel_close(std_normal_lccdf(y).unwrap(), r[4], 1e-14, "lccdf");
    }
    // Containers: the sum of the logs, the product of the CDFs (the SIMD pass of the density).
    let ys: Vec<f64> = STD_NORMAL.iter().map(|r| r[0]).collect();
    let lpdf: f64 = STD_NORMAL.iter().map(|r| r[1]).sum();
    rel_close(
        std_normal_lpdf(&ys, false).unwrap(),
        lpdf,
        1e-15,
        "lpdf of all",
    );
    let lcdf: f64 = STD_NORMAL.iter().map(|r| r[3]).sum();
    rel_close(
        std_normal_lcdf(&ys[..]).unwrap(),
        lcdf,
        1e-14,
        "lcdf of all",
    );
    let f = std_normal_cdf(&[0.3, -1.2][..]).unwrap();
    rel_close(f, STD_NORMAL[0][2] * STD_NORMAL[1][2], 1e-15, "cdf of two");
    // ±∞: a density of 0 and CDFs of 0 and 1.
    assert_eq!(
        std_normal_lpdf(f64::INFINITY, false).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(std_normal_cdf(f64::NEG_INFINITY).unwrap(), 0.0);
    assert_eq!(std_normal_lccdf(f64::INFINITY).unwrap(), f64::NEG_INFINITY);
}

#[test]
fn std_normal_gradients() {
    let pts: &[&[f64]] = &[&[0.3], &[-1.2], &[-40.0], &[9.0], &[5.0]];
    check_gradient(|v| std_normal_lpdf(v[0], false).unwrap(), pts);
    check_gradient(|v| std_normal_lpdf(v[0], true).unwrap(), pts);
    check_gradient(|v| std_normal_lcdf(v[0]).unwrap(), pts);
    check_gradient(|v| std_normal_lccdf(v[0]).unwrap(), pts);
    check_gradient(
        |v| std_normal_cdf(v[0]).unwrap(),
        &[&[0.3], &[-1.2], &[2.0]],
    );
    let xs: &[f64] = &[0.3, -1.2, 2.0, -0.7];
    check_gradient(|v| std_normal_lpdf(v, false).unwrap(), &[xs]);
    check_gradient(|v| std_normal_lpdf(&vector_from(v), false).unwrap(), &[xs]);
    check_gradient(|v| std_normal_lcdf(&vector_from(v)).unwrap(), &[xs]);
    check_gradient(|v| std_normal_lccdf(v).unwrap(), &[xs]);
    check_gradient(|v| std_normal_cdf(v).unwrap(), &[xs]);
    // Long containers along random directions: the array variable (the node that keeps the
    // values) and a list of scalar variables.
    let long: Vec<f64> = (0..300)
        .map(|i| ((i * 37) % 101) as f64 / 20.0 - 2.5)
        .collect();
    let opts = GradCheck::default();
    check_directional(
        |v| std_normal_lpdf(&vector_from(v), false).unwrap(),
        &long,
        3,
        opts,
    );
    check_directional(|v| std_normal_lpdf(v, true).unwrap(), &long, 3, opts);
    check_directional(
        |v| std_normal_lccdf(&vector_from(v)).unwrap(),
        &long,
        2,
        opts,
    );
    // The array variable's node (the values kept, no partials) and a list's: ∂/∂yᵢ = −yᵢ.
    tape::reset();
    let arr = Var::array(Vector::from(long.clone()));
    std_normal_lpdf(&arr, false).unwrap().grad();
    let adj = arr.adj();
    tape::reset();
    let list: Vec<Var> = long.iter().map(|&x| Var::new(x)).collect();
    std_normal_lpdf(&list[..], false).unwrap().grad();
    for (i, v) in list.iter().enumerate() {
        assert_eq!(v.adj(), -long[i]);
        assert_eq!(adj.as_slice().unwrap()[i], -long[i]);
    }
    tape::reset();
}

#[test]
fn std_normal_propto_and_nodes() {
    let ys = [0.3, -1.2, 2.0];
    assert_eq!(std_normal_lpdf(&ys[..], true).unwrap(), 0.0);
    tape::reset();
    let vs: Vec<Var> = ys.iter().map(|&y| Var::new(y)).collect();
    let arr = vector_from(&vs);
    for full in [
        std_normal_lpdf(&vs[..], false).unwrap().value(),
        std_normal_lpdf(&arr, false).unwrap().value(),
    ] {
        let part = std_normal_lpdf(&arr, true).unwrap().value();
        rel_close(full - part, -3.0 * HALF_LOG_TWO_PI, 1e-14, "dropped");
    }
    // One node per call, whatever the path.
    let before = tape::stats().continuations;
    let _ = std_normal_lpdf(&arr, false).unwrap();
    let _ = std_normal_lpdf(&vs[..], false).unwrap();
    let _ = std_normal_lpdf(vs[0], false).unwrap();
    let _ = std_normal_cdf(&arr).unwrap();
    assert_eq!(tape::stats().continuations, before + 4);
    tape::reset();
}

#[test]
fn std_normal_validation() {
    for (name, e) in [
        ("std_normal_lpdf", msg(std_normal_lpdf(f64::NAN, false))),
        (
            "std_normal_lpdf",
            msg(std_normal_lpdf(&[0.0, f64::NAN][..], false)),
        ),
        ("std_normal_cdf", msg(std_normal_cdf(f64::NAN))),
        ("std_normal_lcdf", msg(std_normal_lcdf(f64::NAN))),
        ("std_normal_lccdf", msg(std_normal_lccdf(&[f64::NAN][..]))),
    ] {
        assert_eq!(
            e,
            format!("{name}: Random variable is NaN, but must not be NaN")
        );
    }
    let empty: &[f64] = &[];
    assert_eq!(std_normal_lpdf(empty, false).unwrap(), 0.0);
    assert_eq!(std_normal_cdf(empty).unwrap(), 1.0);
    assert_eq!(std_normal_lccdf(empty).unwrap(), 0.0);
}

// ---------------------------------------------------------------------------------------------
// beta_proportion

// (y, mu, kappa, lpdf, lcdf, lccdf)
#[rustfmt::skip]
const BETA_PROPORTION: &[[f64; 6]] = &[
    [0.3, 0.4, 5.0, 0.5675839575845996, -1.0546911016101816, -0.4281709456438023],
    [0.01, 0.5, 2.0, 0.0, -4.605170185988092, -0.010050335853501442],
    [0.99, 0.9, 30.0, -0.169459078561157, -0.0030127318995004015, -5.8064139918008815],
    [0.5, 0.2, 100.0, -17.425200163518557, -2.1970139147860578e-10, -22.238751803128494],
    [0.001, 0.7, 50.0, -204.08399126865427, -214.54670526980755, -6.661158854765663e-94],
    [0.05, 0.02, 3.0, -0.01052555148754722, -0.09877700884615513, -2.3638724053720046],
    [0.999, 0.3, 40.0, -161.94848424842388, -1.6583409611524743e-75, -172.1880642929316],
];

fn bp_lpdf<Y: ProbArg, M: ProbArg, K: ProbArg>(y: Y, m: M, k: K) -> revad::Result<Out<(Y, M, K)>>
where
    (Y, M, K): ProbOutput,
{
    beta_proportion_lpdf(y, m, k, false)
}

#[test]
fn beta_proportion_values() {
    for r in BETA_PROPORTION {
        let (y, m, k) = (r[0], r[1], r[2]);
        let at = format!("beta_proportion({y}, {m}, {k})");
        // The density at 1e-14 (lbeta's rounding); the log CDFs as the beta's, 1e-12.
        let lp = beta_proportion_lpdf(y, m, k, false).unwrap();
        assert!(
            (lp - r[3]).abs() <= 1e-13 * r[3].abs().max(1.0),
            "{at} lpdf {lp}"
        );
        rel_close(beta_proportion_lcdf(y, m, k).unwrap(), r[4], 1e-12, &at);
        rel_close(beta_proportion_lccdf(y, m, k).unwrap(), r[5], 1e-12, &at);
    }
    // At the ends of [0, 1].
    assert_eq!(
        beta_proportion_lcdf(0.0, 0.4, 5.0).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(beta_proportion_lccdf(0.0, 0.4, 5.0).unwrap(), 0.0);
    assert_eq!(
        beta_proportion_lpdf(1.0, 0.4, 5.0, false).unwrap(),
        f64::NEG_INFINITY
    );
}

#[test]
fn beta_proportion_gradients() {
    let pts: &[&[f64]] = &[
        &[0.3, 0.4, 5.0],
        &[0.01, 0.5, 2.0],
        &[0.9, 0.9, 30.0],
        &[0.5, 0.2, 100.0],
        &[0.05, 0.02, 3.0],
    ];
    check_gradient(
        |v| beta_proportion_lpdf(v[0], v[1], v[2], false).unwrap(),
        pts,
    );
    check_gradient(
        |v| beta_proportion_lpdf(v[0], v[1], v[2], true).unwrap(),
        pts,
    );
    check_gradient(|v| beta_proportion_lpdf(0.3, v[1], 5.0, true).unwrap(), pts);
    check_gradient(|v| beta_proportion_lcdf(v[0], v[1], v[2]).unwrap(), pts);
    check_gradient(|v| beta_proportion_lccdf(v[0], v[1], v[2]).unwrap(), pts);
    let xs: &[f64] = &[0.3, 0.6, 0.1, 0.4, 8.0];
    check_gradient(
        |v| beta_proportion_lpdf(&v[..3], v[3], v[4], false).unwrap(),
        &[xs],
    );
    check_gradient(
        |v| beta_proportion_lcdf(&vector_from(&v[..3]), v[3], v[4]).unwrap(),
        &[xs],
    );
    let ps: &[f64] = &[0.2, 0.5, 0.7, 3.0, 10.0, 40.0];
    let ys = [0.3, 0.6, 0.1];
    check_gradient(
        |v| beta_proportion_lpdf(&ys[..], &v[..3], &v[3..], false).unwrap(),
        &[ps],
    );
    check_gradient(
        |v| beta_proportion_lccdf(&ys[..], &v[..3], &v[3..]).unwrap(),
        &[ps],
    );
    every_mix3!(bp_lpdf, [0.3, 0.4, 5.0]);
    every_mix3!(beta_proportion_lcdf, [0.3, 0.4, 5.0]);
    every_mix3!(beta_proportion_lccdf, [0.7, 0.4, 5.0]);
}

#[test]
fn beta_proportion_propto() {
    // All variables: nothing is constant. μ, κ constant: log B(a, b) goes.
    let (y, m, k) = (0.3, 0.4, 5.0);
    let full = beta_proportion_lpdf(y, m, k, false).unwrap();
    let lbeta = revad::special::gamma::lbeta(m * k, (1.0 - m) * k);
    tape::reset();
    let part = beta_proportion_lpdf(Var::new(y), m, k, true).unwrap();
    rel_close(full - part.value(), -lbeta, 1e-14, "log B dropped");
    let part = beta_proportion_lpdf(Var::new(y), Var::new(m), Var::new(k), true).unwrap();
    assert_eq!(part.value(), full);
    assert_eq!(beta_proportion_lpdf(y, m, k, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn beta_proportion_validation() {
    assert_eq!(
        msg(beta_proportion_lpdf(0.3, 0.0, 5.0, false)),
        "beta_proportion_lpdf: Location parameter is 0, but must be positive"
    );
    assert_eq!(
        msg(beta_proportion_lcdf(0.3, 1.0, 5.0)),
        "beta_proportion_lcdf: Location parameter is 1, but must be less than 1"
    );
    assert_eq!(
        msg(beta_proportion_lccdf(0.3, f64::NAN, 5.0)),
        "beta_proportion_lccdf: Location parameter is NaN, but must be positive"
    );
    assert_eq!(
        msg(beta_proportion_lpdf(0.3, 0.5, f64::INFINITY, false)),
        "beta_proportion_lpdf: Precision parameter is inf, but must be positive finite"
    );
    // μ is checked before y (Stan's order).
    assert_eq!(
        msg(beta_proportion_lpdf(1.5, 1.5, 5.0, false)),
        "beta_proportion_lpdf: Location parameter is 1.5, but must be less than 1"
    );
    assert_eq!(
        msg(beta_proportion_lcdf(&[0.5, 1.5][..], 0.5, 5.0)),
        "beta_proportion_lcdf: Random variable is 1.5, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(beta_proportion_lpdf(
            &[0.5; 2][..],
            &[0.5; 3][..],
            5.0,
            false
        )),
        "beta_proportion_lpdf: Location parameter has size 3, but must have size 2"
    );
}

// ---------------------------------------------------------------------------------------------
// loglogistic

// (y, alpha, beta, lpdf, cdf)
#[rustfmt::skip]
const LOGLOGISTIC: &[[f64; 5]] = &[
    [1.3, 0.5, 2.0, -1.7561588622429278, 0.8711340206185567],
    [0.01, 1.0, 3.0, -8.111730083307073, 9.99999000001e-07],
    [100.0, 2.0, 0.5, -7.518877448280199, 0.8761006569007046],
    [1e-05, 1.0, 200.0, -2285.773850162527, 0.0],
    [100000.0, 1.0, 200.0, -2308.799701092468, 1.0],
    [2.5, 2.5, 4.0, -0.9162907318741551, 0.5],
];

fn ll_lpdf<Y: ProbArg, A: ProbArg, B: ProbArg>(y: Y, a: A, b: B) -> revad::Result<Out<(Y, A, B)>>
where
    (Y, A, B): ProbOutput,
{
    loglogistic_lpdf(y, a, b, false)
}

#[test]
fn loglogistic_values() {
    for r in LOGLOGISTIC {
        let at = format!("loglogistic({}, {}, {})", r[0], r[1], r[2]);
        rel_close(
            loglogistic_lpdf(r[0], r[1], r[2], false).unwrap(),
            r[3],
            1e-14,
            &at,
        );
        rel_close(loglogistic_cdf(r[0], r[1], r[2]).unwrap(), r[4], 1e-14, &at);
    }
    let ys: Vec<f64> = LOGLOGISTIC[..3].iter().map(|r| r[0]).collect();
    let f = loglogistic_cdf(&ys, 0.5, 2.0).unwrap();
    let expect: f64 = ys.iter().map(|y| 1.0 / (1.0 + (0.5 / y).powi(2))).product();
    rel_close(f, expect, 1e-14, "cdf product");
    // y = 0 and y = ∞ for the CDF.
    assert_eq!(loglogistic_cdf(&[0.0, 1.0][..], 1.0, 2.0).unwrap(), 0.0);
    assert_eq!(loglogistic_cdf(f64::INFINITY, 1.0, 2.0).unwrap(), 1.0);
}

#[test]
fn loglogistic_gradients() {
    let pts: &[&[f64]] = &[
        &[1.3, 0.5, 2.0],
        &[0.01, 1.0, 3.0],
        &[100.0, 2.0, 0.5],
        &[1e-3, 1.0, 20.0],
        &[50.0, 1.0, 20.0],
    ];
    check_gradient(|v| loglogistic_lpdf(v[0], v[1], v[2], false).unwrap(), pts);
    check_gradient(|v| loglogistic_lpdf(v[0], v[1], v[2], true).unwrap(), pts);
    check_gradient(|v| loglogistic_lpdf(1.3, v[1], 2.0, true).unwrap(), pts);
    check_gradient(|v| loglogistic_cdf(v[0], v[1], v[2]).unwrap(), pts);
    let xs: &[f64] = &[1.3, 0.4, 5.0, 0.8, 1.7];
    check_gradient(
        |v| loglogistic_lpdf(&v[..3], v[3], v[4], false).unwrap(),
        &[xs],
    );
    check_gradient(
        |v| loglogistic_cdf(&vector_from(&v[..3]), v[3], v[4]).unwrap(),
        &[xs],
    );
    let ps: &[f64] = &[0.5, 1.0, 3.0, 0.7, 2.0, 5.0];
    let ys = [1.3, 0.4, 5.0];
    check_gradient(
        |v| loglogistic_lpdf(&ys[..], &v[..3], &v[3..], false).unwrap(),
        &[ps],
    );
    check_gradient(
        |v| loglogistic_cdf(&ys[..], &v[..3], &v[3..]).unwrap(),
        &[ps],
    );
    every_mix3!(ll_lpdf, [1.3, 0.5, 2.0]);
    every_mix3!(loglogistic_cdf, [1.3, 0.5, 2.0]);
}

#[test]
fn loglogistic_propto() {
    let (y, a, b) = (1.3, 0.5, 2.0);
    let full = loglogistic_lpdf(y, a, b, false).unwrap();
    tape::reset();
    // Only y a variable: log β − β log α go; (β − 1) log y stays.
    let part = loglogistic_lpdf(Var::new(y), a, b, true).unwrap();
    rel_close(
        full - part.value(),
        b.ln() - b * a.ln(),
        1e-14,
        "y variable",
    );
    // Only α: log β and (β − 1) log y go.
    let part = loglogistic_lpdf(y, Var::new(a), b, true).unwrap();
    rel_close(
        full - part.value(),
        b.ln() + (b - 1.0) * y.ln(),
        1e-14,
        "α variable",
    );
    // All: nothing goes.
    let part = loglogistic_lpdf(Var::new(y), Var::new(a), Var::new(b), true).unwrap();
    assert_eq!(part.value(), full);
    assert_eq!(loglogistic_lpdf(y, a, b, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn loglogistic_validation() {
    assert_eq!(
        msg(loglogistic_lpdf(0.0, 1.0, 1.0, false)),
        "loglogistic_lpdf: Random variable is 0, but must be positive finite"
    );
    assert_eq!(
        msg(loglogistic_cdf(-1.0, 1.0, 1.0)),
        "loglogistic_cdf: Random variable is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(loglogistic_lpdf(1.0, -1.0, 1.0, false)),
        "loglogistic_lpdf: Scale parameter is -1, but must be positive finite"
    );
    assert_eq!(
        msg(loglogistic_cdf(1.0, 1.0, f64::INFINITY)),
        "loglogistic_cdf: Shape parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(loglogistic_cdf(&[1.0; 2][..], 1.0, &[1.0; 3][..])),
        "loglogistic_cdf: Shape parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(loglogistic_cdf(empty, 1.0, 1.0).unwrap(), 1.0);
}

// ---------------------------------------------------------------------------------------------
// skew_double_exponential

// (y, mu, sigma, tau, lpdf, cdf, lcdf, lccdf)
#[rustfmt::skip]
const SKEW_DE: &[[f64; 8]] = &[
    [0.3, 0.5, 1.5, 0.3, -1.459632342479554, 0.24891607911485814, -1.3906394709926027, -0.2862378879415713],
    [-5.0, 0.0, 1.0, 0.8, -3.139434283188365, 0.10826822658929015, -2.2231435513142097, -0.11458989407653727],
    [20.0, 1.0, 2.0, 0.1, -4.307945608651872, 0.8653882426996284, -0.1445770372558771, -2.0053605156578262],
    [1.0, 0.0, 0.1, 0.5, -8.3905620875659, 0.9999773000351188, -2.2700222529344306e-05, -10.693147180559945],
    [-300.0, 0.0, 1.0, 0.4, -360.7339691750802, 1.8032108262426967e-157, -360.91629073187414, -1.8032108262426967e-157],
    [300.0, 0.0, 1.0, 0.6, -360.7339691750802, 1.0, -1.8032108262426967e-157, -360.91629073187414],
    [0.7, 0.7, 2.0, 0.3, -1.5606477482646683, 0.3, -1.203972804325936, -0.3566749439387324],
];

fn sde_lpdf<Y: ProbArg, M: ProbArg, S: ProbArg, T: ProbArg>(
    y: Y,
    m: M,
    s: S,
    t: T,
) -> revad::Result<Out<(Y, M, S, T)>>
where
    (Y, M, S, T): ProbOutput,
{
    skew_double_exponential_lpdf(y, m, s, t, false)
}

#[test]
fn skew_double_exponential_values() {
    for r in SKEW_DE {
        let (y, m, s, t) = (r[0], r[1], r[2], r[3]);
        let at = format!("skew_double_exponential({y}, {m}, {s}, {t})");
        rel_close(
            skew_double_exponential_lpdf(y, m, s, t, false).unwrap(),
            r[4],
            1e-14,
            &at,
        );
        // A tail probability is e^(log F): log F's rounding (1e-16 of 360) is its relative
        // error, in the CDF and in the other side's log1p(−F).
        rel_close(
            skew_double_exponential_cdf(y, m, s, t).unwrap(),
            r[5],
            1e-13,
            &at,
        );
        rel_close(
            skew_double_exponential_lcdf(y, m, s, t).unwrap(),
            r[6],
            1e-13,
            &at,
        );
        rel_close(
            skew_double_exponential_lccdf(y, m, s, t).unwrap(),
            r[7],
            1e-13,
            &at,
        );
    }
    // τ at the ends of [0, 1]: the density is 0, the CDF a step at μ's side.
    assert_eq!(
        skew_double_exponential_lpdf(0.3, 0.0, 1.0, 0.0, false).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(
        skew_double_exponential_cdf(-0.3, 0.0, 1.0, 0.0).unwrap(),
        0.0
    );
    assert_eq!(
        skew_double_exponential_lccdf(0.3, 0.0, 1.0, 1.0).unwrap(),
        f64::NEG_INFINITY
    );
}

#[test]
fn skew_double_exponential_gradients() {
    let pts: &[&[f64]] = &[
        &[0.3, 0.5, 1.5, 0.3],
        &[-5.0, 0.0, 1.0, 0.8],
        &[20.0, 1.0, 2.0, 0.1],
        &[1.0, 0.0, 0.1, 0.5],
        &[-30.0, 0.0, 1.0, 0.4],
        &[0.7, 0.5, 2.0, 0.97],
    ];
    check_gradient(
        |v| skew_double_exponential_lpdf(v[0], v[1], v[2], v[3], false).unwrap(),
        pts,
    );
    check_gradient(
        |v| skew_double_exponential_lpdf(v[0], v[1], v[2], v[3], true).unwrap(),
        pts,
    );
    check_gradient(
        |v| skew_double_exponential_lpdf(0.3, v[1], 1.5, v[3], true).unwrap(),
        pts,
    );
    check_gradient(
        |v| skew_double_exponential_cdf(v[0], v[1], v[2], v[3]).unwrap(),
        pts,
    );
    check_gradient(
        |v| skew_double_exponential_lcdf(v[0], v[1], v[2], v[3]).unwrap(),
        pts,
    );
    check_gradient(
        |v| skew_double_exponential_lccdf(v[0], v[1], v[2], v[3]).unwrap(),
        pts,
    );
    let xs: &[f64] = &[0.3, -1.0, 2.5, 0.4, 1.5, 0.3];
    check_gradient(
        |v| skew_double_exponential_lpdf(&v[..3], v[3], v[4], v[5], false).unwrap(),
        &[xs],
    );
    check_gradient(
        |v| skew_double_exponential_lcdf(&vector_from(&v[..3]), v[3], v[4], v[5]).unwrap(),
        &[xs],
    );
    check_gradient(
        |v| skew_double_exponential_lccdf(&v[..3], v[3], v[4], v[5]).unwrap(),
        &[xs],
    );
    let ys = [0.3, -1.0, 2.5];
    let ps: &[f64] = &[0.5, 1.5, 2.0, 0.2, 0.5, 0.9];
    check_gradient(
        |v| skew_double_exponential_cdf(&ys[..], 0.1, &v[..3], &v[3..]).unwrap(),
        &[ps],
    );
    check_gradient(
        |v| skew_double_exponential_lpdf(&ys[..], 0.1, &v[..3], &v[3..], false).unwrap(),
        &[ps],
    );
    every_mix4!(sde_lpdf, [0.3, 0.5, 1.5, 0.3]);
    every_mix4!(skew_double_exponential_cdf, [0.3, 0.5, 1.5, 0.3]);
    every_mix4!(skew_double_exponential_lcdf, [2.3, 0.5, 1.5, 0.3]);
    every_mix4!(skew_double_exponential_lccdf, [-1.3, 0.5, 1.5, 0.3]);
}

#[test]
fn skew_double_exponential_propto() {
    let (y, m, s, t) = (0.3, 0.5, 1.5, 0.3);
    let full = skew_double_exponential_lpdf(y, m, s, t, false).unwrap();
    tape::reset();
    let all =
        skew_double_exponential_lpdf(Var::new(y), Var::new(m), Var::new(s), Var::new(t), true);
    rel_close(
        full - all.unwrap().value(),
        std::f64::consts::LN_2,
        1e-14,
        "all variables",
    );
    let part = skew_double_exponential_lpdf(Var::new(y), m, s, t, true).unwrap();
    let dropped = std::f64::consts::LN_2 - s.ln() + t.ln() + (1.0 - t).ln();
    rel_close(full - part.value(), dropped, 1e-14, "y variable");
    assert_eq!(skew_double_exponential_lpdf(y, m, s, t, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn skew_double_exponential_validation() {
    assert_eq!(
        msg(skew_double_exponential_lpdf(f64::NAN, 0.0, 1.0, 0.5, false)),
        "skew_double_exponential_lpdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(skew_double_exponential_cdf(0.0, f64::INFINITY, 1.0, 0.5)),
        "skew_double_exponential_cdf: Location parameter is inf, but must be finite"
    );
    assert_eq!(
        msg(skew_double_exponential_lcdf(0.0, 0.0, 0.0, 0.5)),
        "skew_double_exponential_lcdf: Scale parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(skew_double_exponential_lccdf(0.0, 0.0, 1.0, 1.5)),
        "skew_double_exponential_lccdf: Skewness parameter is 1.5, but must be in the interval \
         [0, 1]"
    );
    assert_eq!(
        msg(skew_double_exponential_lpdf(
            &[0.0; 2][..],
            &[0.0; 3][..],
            1.0,
            0.5,
            false
        )),
        "skew_double_exponential_lpdf: Location parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(
        skew_double_exponential_cdf(empty, 0.0, 1.0, 0.5).unwrap(),
        1.0
    );
    assert_eq!(
        skew_double_exponential_lcdf(empty, 0.0, 1.0, 0.5).unwrap(),
        0.0
    );
}

// ---------------------------------------------------------------------------------------------
// von_mises CDFs

// (y, mu, kappa, cdf, lcdf, lccdf): the series (κ < 49) against the exact CDF, then Stan's
// normal approximation (κ ≥ 50) and the blend (κ = 49.5) against their own definitions.
#[rustfmt::skip]
const VON_MISES: &[[f64; 6]] = &[
    [0.3, 0.5, 1.5, 0.4257130046039951, -0.8539898578620029, -0.5546260156378086],
    [-2.0, 0.0, 0.01, 0.18024444630482064, -1.7134413143607055, -0.19874908841582203],
    [1.0, 1.0, 20.0, 0.5000000000000047, -0.6931471805599361, -0.6931471805599545],
    [-3.0, 3.0, 2.0, 0.0697320725620695, -2.663094915516763, -0.07228264030666859],
    [3.0, -3.0, 5.0, 0.8906127149490943, -0.11584560936162394, -2.2128606201464067],
    [0.1, 7.0, 3.0, 0.16186980818119848, -1.8209629200545863, -0.17658183040156045],
    [-3.1, 0.0, 0.5, 0.0037759081674365942, -5.579114351059082, -0.0037830549046355237],
    [2.0, -1.0, 8.0, 0.9999991224075856, -8.775927995062941e-07, -13.946083571571236],
    [0.5, -12.0, 4.0, 0.4493034864369528, -0.8000567032277989, -0.5965714136524864],
    [2.5, 0.5, 60.0, 1.0, -5.462580394773706e-39, -88.10289734887567],
    [0.2, 0.1, 1000.0, 0.9992126824378088, -0.0007876276594371224, -7.146878881162196],
    [-2.0, 0.3, 200.0, 4.354989847233429e-147, -337.00868639111263, -4.354989847233429e-147],
    [-0.3, 0.0, 2000.0, 4.821145548312727e-41, -92.83297724730632, -4.821145548312727e-41],
    [-0.3, 0.0, 49.5, 0.017985927489688833, -4.018165632984161, -0.01814964027178586],
    [3.0, -2.9, 80.0, 0.9846461265011387, -0.015472964795649887, -4.176387491579934],
];

#[test]
fn von_mises_cdf_values() {
    for r in VON_MISES {
        let (y, m, k) = (r[0], r[1], r[2]);
        let at = format!("von_mises({y}, {m}, {k})");
        // Stan's (SciPy's) series stops after p ≈ 29 + κ/2 − 100/(κ + 5) terms: ~1e-14
        // absolute at small κ (the last ratio I₁₅/I₀ is 8e-13 at κ = 2), and sums ~50 terms of
        // size ~1 near κ = 49 (1e-14 absolute); relative 3e-13 at small κ away from the
        // tails, less in a tail of the series' range (1 − F = 9e-7 at κ = 8). The normal
        // approximation is compared with its own definition: Φ(−z) at z = 26 turns the
        // rounding of z = b sin(x/2) into 1e-12 relative.
        let tol = match (k < 49.0, r[4].min(r[5]) < -10.0) {
            (true, true) => 1e-8,
            _ if k < 20.0 => 3e-13,
            _ => 2e-12,
        };
        rel_close(von_mises_cdf(y, m, k).unwrap(), r[3], tol, &at);
        rel_close(von_mises_lcdf(y, m, k).unwrap(), r[4], tol, &at);
        rel_close(von_mises_lccdf(y, m, k).unwrap(), r[5], tol, &at);
    }
    // The ends of the support, the symmetric point, a container.
    let pi = std::f64::consts::PI;
    assert_eq!(von_mises_cdf(-pi, 0.5, 2.0).unwrap(), 0.0);
    assert_eq!(von_mises_lcdf(-pi, 0.5, 2.0).unwrap(), f64::NEG_INFINITY);
    assert_eq!(von_mises_lccdf(pi, 0.5, 2.0).unwrap(), f64::NEG_INFINITY);
    assert_eq!(von_mises_cdf(pi, 0.5, 2.0).unwrap(), 1.0);
    rel_close(
        von_mises_cdf(0.0, 0.0, 100.0).unwrap(),
        0.5,
        1e-15,
        "centre",
    );
    let ys: Vec<f64> = VON_MISES[..4].iter().map(|r| r[0]).collect();
    let ms: Vec<f64> = VON_MISES[..4].iter().map(|r| r[1]).collect();
    let ks: Vec<f64> = VON_MISES[..4].iter().map(|r| r[2]).collect();
    let lcdf: f64 = VON_MISES[..4].iter().map(|r| r[4]).sum();
    let lccdf: f64 = VON_MISES[..4].iter().map(|r| r[5]).sum();
    let cdf: f64 = VON_MISES[..4].iter().map(|r| r[3]).product();
    rel_close(
        von_mises_lcdf(&ys, &ms, &ks).unwrap(),
        lcdf,
        3e-13,
        "lcdf of all",
    );
    rel_close(
        von_mises_lccdf(&ys, &ms, &ks).unwrap(),
        lccdf,
        3e-13,
        "lccdf of all",
    );
    rel_close(
        von_mises_cdf(&ys, &ms, &ks).unwrap(),
        cdf,
        3e-13,
        "cdf of all",
    );
}

#[test]
fn von_mises_cdf_gradients() {
    let pts: &[&[f64]] = &[
        &[0.3, 0.5, 1.5],
        &[-2.0, 0.0, 0.01],
        &[1.0, 1.0, 20.0],
        &[-3.0, 3.0, 2.0],
        &[3.0, -3.0, 5.0],
        &[0.1, 7.0, 3.0],
        &[2.5, 0.5, 60.0],
        &[0.2, 0.1, 1000.0],
        &[-2.0, 0.3, 200.0],
        &[-0.3, 0.0, 49.5],
        &[2.9, -2.9, 3.0],
    ];
    check_gradient(|v| von_mises_cdf(v[0], v[1], v[2]).unwrap(), pts);
    check_gradient(|v| von_mises_lcdf(v[0], v[1], v[2]).unwrap(), pts);
    check_gradient(|v| von_mises_lccdf(v[0], v[1], v[2]).unwrap(), pts);
    // ∂F/∂y is the von Mises density e^(κ cos(y − μ))/(2π I₀(κ)) (κ = 1.5: I₀ =
    // 1.646723189772891 by mpmath), to the series' truncation (14 terms at κ = 1.5, the last
    // ratio I₁₄/I₀ ≈ 1e-13).
    tape::reset();
    let y = Var::new(0.3);
    von_mises_cdf(y, 0.5, 1.5).unwrap().grad();
    let density = (1.5 * (0.3f64 - 0.5).cos()).exp() / (std::f64::consts::TAU * 1.646723189772891);
    rel_close(y.adj(), density, 3e-13, "density");
    tape::reset();
    let xs: &[f64] = &[0.3, -1.0, 2.5, 0.4, 1.5];
    check_gradient(|v| von_mises_lcdf(&v[..3], v[3], v[4]).unwrap(), &[xs]);
    check_gradient(
        |v| von_mises_lccdf(&vector_from(&v[..3]), v[3], v[4]).unwrap(),
        &[xs],
    );
    check_gradient(|v| von_mises_cdf(&v[..3], v[3], v[4]).unwrap(), &[xs]);
    let ys = [0.3, -1.0, 2.5];
    let ps: &[f64] = &[0.5, -0.5, 2.0, 0.7, 60.0, 5.0];
    check_gradient(
        |v| von_mises_lcdf(&ys[..], &v[..3], &v[3..]).unwrap(),
        &[ps],
    );
    check_gradient(
        |v| von_mises_lccdf(&ys[..], &v[..3], &v[3..]).unwrap(),
        &[ps],
    );
    every_mix3!(von_mises_cdf, [0.3, 0.5, 1.5]);
    every_mix3!(von_mises_lcdf, [0.3, 0.5, 60.0]);
    every_mix3!(von_mises_lccdf, [-2.0, 2.5, 3.0]);
    // Long containers along random directions (away from the tails, where the series' 1e-15
    // absolute error is a large relative one in F).
    let n = 120;
    let long: Vec<f64> = (0..2 * n)
        .map(|i| match i < n {
            true => ((i * 37) % 61) as f64 / 20.0 - 1.5,
            false => 0.5 + ((i * 13) % 11) as f64 / 2.0,
        })
        .collect();
    check_directional(
        |v| von_mises_lcdf(&vector_from(&v[..n]), 0.2, &v[n..]).unwrap(),
        &long,
        2,
        GradCheck::default(),
    );
}

#[test]
fn von_mises_cdf_validation() {
    assert_eq!(
        msg(von_mises_cdf(4.0, 0.0, 1.0)),
        "von_mises_cdf: Random variable is 4, but must be in the interval [-3.14159, 3.14159]"
    );
    assert_eq!(
        msg(von_mises_lcdf(f64::NAN, 0.0, 1.0)),
        "von_mises_lcdf: Random variable is NaN, but must be in the interval [-3.14159, 3.14159]"
    );
    assert_eq!(
        msg(von_mises_lccdf(0.0, f64::INFINITY, 1.0)),
        "von_mises_lccdf: Location parameter is inf, but must be finite"
    );
    assert_eq!(
        msg(von_mises_cdf(0.0, 0.0, 0.0)),
        "von_mises_cdf: Scale parameter is 0, but must be positive"
    );
    assert_eq!(
        msg(von_mises_lcdf(&[0.0; 2][..], 0.0, &[1.0; 3][..])),
        "von_mises_lcdf: Scale parameter has size 3, but must have size 2"
    );
    let empty: &[f64] = &[];
    assert_eq!(von_mises_cdf(empty, 0.0, 1.0).unwrap(), 1.0);
    assert_eq!(von_mises_lccdf(empty, 0.0, 1.0).unwrap(), 0.0);
}

// ---------------------------------------------------------------------------------------------
// beta_neg_binomial

// (n, r, alpha, beta, lpmf)
#[rustfmt::skip]
const BETA_NEG_BINOMIAL: &[[f64; 5]] = &[
    [3.0, 1.5, 2.0, 3.0, -2.4332020866305153],
    [0.0, 0.5, 0.5, 0.5, -0.4515827052894549],
    [20.0, 3.0, 1.0, 0.1, -7.353810994842703],
    [7.0, 10.0, 20.0, 5.0, -3.66320232292114],
    [1000.0, 2.5, 3.0, 4.0, -19.8959331088899],
    [5.0, 1000000.0, 2.0, 3.0, -35.223989405694454],
    [0.0, 0.001, 1000.0, 0.001, -1.0004991656673018e-09],
    [4.0, 2.0, 100000000.0, 100000000.0, -2.5494451759255714],
];

fn bnb<R: ProbArg, A: ProbArg, B: ProbArg>(r: R, a: A, b: B) -> revad::Result<Out<(R, A, B)>>
where
    (R, A, B): ProbOutput,
{
    beta_neg_binomial_lpmf(7i64, r, a, b, false)
}

#[test]
fn beta_neg_binomial_values() {
    for row in BETA_NEG_BINOMIAL {
        let (n, r, a, b) = (row[0] as i64, row[1], row[2], row[3]);
        let at = format!("beta_neg_binomial({n}, {r}, {a}, {b})");
        let lp = beta_neg_binomial_lpmf(n, r, a, b, false).unwrap();
        // The log B terms are of the size of the result up to a few times 10 (n = 1000: 42).
        assert!(
            (lp - row[4]).abs() <= 3e-14 * row[4].abs().max(10.0),
            "{at}: {lp:e}"
        );
    }
    let ns: Vec<i64> = BETA_NEG_BINOMIAL[..4].iter().map(|r| r[0] as i64).collect();
    let rs: Vec<f64> = BETA_NEG_BINOMIAL[..4].iter().map(|r| r[1]).collect();
    let a: Vec<f64> = BETA_NEG_BINOMIAL[..4].iter().map(|r| r[2]).collect();
    let b: Vec<f64> = BETA_NEG_BINOMIAL[..4].iter().map(|r| r[3]).collect();
    let sum: f64 = BETA_NEG_BINOMIAL[..4].iter().map(|r| r[4]).sum();
    rel_close(
        beta_neg_binomial_lpmf(&ns, &rs, &a, &b, false).unwrap(),
        sum,
        1e-14,
        "sum",
    );
    // The probabilities sum to 1 (α = 3 gives a tail ~ n^−4).
    let total: f64 = (0..20000i64)
        .map(|n| {
            beta_neg_binomial_lpmf(n, 2.5, 3.0, 4.0, false)
                .unwrap()
                .exp()
        })
        .sum();
    assert!((total - 1.0).abs() < 1e-9, "Σ p = {total}");
}

#[test]
fn beta_neg_binomial_gradients() {
    let pts: &[&[f64]] = &[
        &[1.5, 2.0, 3.0],
        &[0.5, 0.5, 0.5],
        &[10.0, 20.0, 5.0],
        &[1e3, 0.7, 1e4],
    ];
    for n in [0i64, 3, 40] {
        check_gradient(
            |v| beta_neg_binomial_lpmf(n, v[0], v[1], v[2], false).unwrap(),
            pts,
        );
        check_gradient(
            |v| beta_neg_binomial_lpmf(n, v[0], v[1], v[2], true).unwrap(),
            pts,
        );
        check_gradient(
            |v| beta_neg_binomial_lpmf(n, 1.5, v[1], 3.0, true).unwrap(),
            pts,
        );
    }
    let ns = [0i64, 3, 8];
    let xs: &[f64] = &[1.5, 0.5, 4.0, 2.0, 3.0];
    check_gradient(
        |v| beta_neg_binomial_lpmf(&ns[..], &v[..3], v[3], v[4], false).unwrap(),
        &[xs],
    );
    check_gradient(
        |v| beta_neg_binomial_lpmf(&ns[..], v[3], &vector_from(&v[..3]), v[4], false).unwrap(),
        &[xs],
    );
    check_gradient(
        |v| beta_neg_binomial_lpmf(&ns[..], v[3], v[4], &v[..3], false).unwrap(),
        &[xs],
    );
    every_mix3!(bnb, [1.5, 2.0, 3.0]);
}

#[test]
fn beta_neg_binomial_propto() {
    let (n, r, a, b) = (7i64, 1.5, 2.0, 3.0);
    let full = beta_neg_binomial_lpmf(n, r, a, b, false).unwrap();
    let lgamma = revad::special::gamma::lgamma;
    tape::reset();
    // All variables: only −log n! goes.
    let part = beta_neg_binomial_lpmf(n, Var::new(r), Var::new(a), Var::new(b), true).unwrap();
    rel_close(full - part.value(), -lgamma(8.0), 1e-14, "all variables");
    // Only α: −log n! and log Γ(n + β) − log Γ(β) go.
    let part = beta_neg_binomial_lpmf(n, r, Var::new(a), b, true).unwrap();
    let dropped = -lgamma(8.0) + lgamma(b + 7.0) - lgamma(b);
    rel_close(full - part.value(), dropped, 1e-13, "α variable");
    assert_eq!(beta_neg_binomial_lpmf(n, r, a, b, true).unwrap(), 0.0);
    tape::reset();
}

#[test]
fn beta_neg_binomial_validation() {
    assert_eq!(
        msg(beta_neg_binomial_lpmf(-1i64, 1.0, 1.0, 1.0, false)),
        "beta_neg_binomial_lpmf: Failures variable is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(beta_neg_binomial_lpmf(1i64, 0.0, 1.0, 1.0, false)),
        "beta_neg_binomial_lpmf: Number of successes parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(beta_neg_binomial_lpmf(1i64, 1.0, f64::INFINITY, 1.0, false)),
        "beta_neg_binomial_lpmf: Prior success parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(beta_neg_binomial_lpmf(1i64, 1.0, 1.0, -2.0, false)),
        "beta_neg_binomial_lpmf: Prior failure parameter is -2, but must be positive finite"
    );
    assert_eq!(
        msg(beta_neg_binomial_lpmf(
            &[1i64, 2][..],
            &[1.0; 3][..],
            1.0,
            1.0,
            false
        )),
        "beta_neg_binomial_lpmf: Number of successes parameter has size 3, but must have size 2"
    );
    let empty: &[i64] = &[];
    assert_eq!(
        beta_neg_binomial_lpmf(empty, 1.0, 1.0, 1.0, false).unwrap(),
        0.0
    );
}

// ---------------------------------------------------------------------------------------------
// discrete_range

#[test]
fn discrete_range_values() {
    // scipy.stats.randint(1, 7): 1/6 each.
    let l6 = 6f64.ln();
    assert_eq!(discrete_range_lpmf(3i64, 1i64, 6i64, false).unwrap(), -l6);
    rel_close(
        discrete_range_lpmf(&[1i64, 6, 2][..], 1i64, 6i64, false).unwrap(),
        -3.0 * l6,
        1e-15,
        "lpmf",
    );
    let ys = [0i64, 1, 3, 6, 7];
    let expected: [(f64, f64, f64); 5] = [
        (0.0, f64::NEG_INFINITY, 0.0),
        (1.0 / 6.0, -l6, (5.0f64 / 6.0).ln()),
        (0.5, -std::f64::consts::LN_2, -std::f64::consts::LN_2),
        (1.0, 0.0, f64::NEG_INFINITY),
        (1.0, 0.0, f64::NEG_INFINITY),
    ];
    for (&y, &(cdf, lcdf, lccdf)) in ys.iter().zip(&expected) {
        rel_close(
            discrete_range_cdf(y, 1i64, 6i64).unwrap(),
            cdf,
            1e-15,
            "cdf",
        );
        rel_close(
            discrete_range_lcdf(y, 1i64, 6i64).unwrap(),
            lcdf,
            1e-15,
            "lcdf",
        );
        rel_close(
            discrete_range_lccdf(y, 1i64, 6i64).unwrap(),
            lccdf,
            1e-15,
            "lccdf",
        );
    }
    // Outside the range: a mass of 0; per-element bounds; one value; propto.
    assert_eq!(
        discrete_range_lpmf(&[2i64, 7][..], 1i64, 6i64, false).unwrap(),
        f64::NEG_INFINITY
    );
    let (lo, hi) = ([0i64, -5, 10], [3i64, 5, 10]);
    rel_close(
        discrete_range_lpmf(&[1i64, 0, 10][..], &lo[..], &hi[..], false).unwrap(),
        -(4f64.ln() + 11f64.ln()),
        1e-15,
        "per-element bounds",
    );
    rel_close(
        discrete_range_cdf(&[1i64, 0, 10][..], &lo[..], &hi[..]).unwrap(),
        0.5 * 6.0 / 11.0,
        1e-15,
        "cdf product",
    );
    rel_close(
        discrete_range_lcdf(&[1i64, 9][..], 0i64, 5i64).unwrap(),
        (2.0f64 / 6.0).ln(),
        1e-15,
        "lcdf: the term above the range is 0",
    );
    rel_close(
        discrete_range_lccdf(&[1i64, -3][..], 0i64, 5i64).unwrap(),
        (4.0f64 / 6.0).ln(),
        1e-15,
        "lccdf: the term below the range is 0",
    );
    assert_eq!(
        discrete_range_cdf(&[2i64, -1][..], 0i64, 5i64).unwrap(),
        0.0
    );
    assert_eq!(discrete_range_lpmf(4i64, 4i64, 4i64, false).unwrap(), 0.0);
    assert_eq!(discrete_range_lpmf(3i64, 1i64, 6i64, true).unwrap(), 0.0);
    // Bounds whose width exceeds i64.
    rel_close(
        discrete_range_lpmf(0i64, i64::MIN, i64::MAX, false).unwrap(),
        -64.0 * std::f64::consts::LN_2,
        1e-15,
        "widest range",
    );
}

#[test]
fn discrete_range_validation() {
    assert_eq!(
        msg(discrete_range_lpmf(1i64, 2i64, 1i64, false)),
        "discrete_range_lpmf: Upper bound parameter is 1, but must be greater than or equal to 2"
    );
    assert_eq!(
        msg(discrete_range_cdf(1i64, &[0i64, 3][..], 2i64)),
        "discrete_range_cdf: Upper bound parameter is 2, but must be greater than or equal to 3"
    );
    assert_eq!(
        msg(discrete_range_lcdf(&[1i64, 2][..], &[0i64; 3][..], 2i64)),
        "discrete_range_lcdf: Lower bound parameter has size 3, but must have size 2"
    );
    assert_eq!(
        msg(discrete_range_lccdf(1i64, &[0i64; 2][..], &[4i64; 3][..])),
        "discrete_range_lccdf: Upper bound parameter has size 3, but must have size 2"
    );
    let empty: &[i64] = &[];
    assert_eq!(discrete_range_lpmf(empty, 0i64, 1i64, false).unwrap(), 0.0);
    assert_eq!(discrete_range_cdf(empty, 0i64, 1i64).unwrap(), 1.0);
    assert_eq!(discrete_range_lccdf(empty, 0i64, 1i64).unwrap(), 0.0);
}

// ---------------------------------------------------------------------------------------------
// ordered_probit

const CUTS: [f64; 3] = [-1.5, 0.2, 2.0];

// (y, eta, lpmf) with the cut-points CUTS
#[rustfmt::skip]
const ORDERED_PROBIT: &[[f64; 3]] = &[
    [1.0, 0.7, -4.275618447044143],
    [2.0, 0.7, -1.2220210613075886],
    [3.0, 0.7, -0.5197621412761412],
    [4.0, 0.7, -2.3351032786624426],
    [2.0, 40.0, -796.6234357494333],
    [3.0, -35.0, -624.0007900702706],
    [1.0, -50.0, 0.0],
    [4.0, 50.0, 0.0],
    [1.0, 30.0, -500.4949313628971],
    [4.0, -30.0, -516.3856486257254],
];

#[test]
fn ordered_probit_values() {
    for r in ORDERED_PROBIT {
        let (y, e) = (r[0] as i64, r[1]);
        let lp = ordered_probit_lpmf(y, e, &CUTS[..], false).unwrap();
        rel_close(lp, r[2], 1e-14, &format!("ordered_probit({y}, {e})"));
    }
    let ys: Vec<i64> = ORDERED_PROBIT.iter().map(|r| r[0] as i64).collect();
    let es: Vec<f64> = ORDERED_PROBIT.iter().map(|r| r[1]).collect();
    let sum: f64 = ORDERED_PROBIT.iter().map(|r| r[2]).sum();
    rel_close(
        ordered_probit_lpmf(&ys, &es, &CUTS[..], false).unwrap(),
        sum,
        1e-14,
        "sum",
    );
    // Nearly equal cut-points far from 0 (mpmath: −15.234448590141115), one cut-point.
    let lp = ordered_probit_lpmf(2i64, 30.0, &[29.0, 29.0 + 1e-6][..], false).unwrap();
    // 29 + 1e-6 carries a rounding of 3.6e-15 relative to the 1e-6 gap.
    rel_close(lp, -15.234448590141115, 1e-9, "near-equal cut-points");
    let one = revad::special::normal::Phi(-0.4).ln();
    rel_close(
        ordered_probit_lpmf(1i64, 0.5, 0.1, false).unwrap(),
        one,
        1e-15,
        "one cut",
    );
}

#[test]
fn ordered_probit_gradients_and_propto() {
    let etas = [0.7, -0.4, 1.3, 2.6];
    let ys = [1i64, 2, 3, 4];
    let x: Vec<f64> = etas.iter().chain(&CUTS).copied().collect();
    check_gradient(
        |v| ordered_probit_lpmf(&ys[..], &v[..4], &v[4..], false).unwrap(),
        &[&x],
    );
    check_gradient(
        |v| {
            ordered_probit_lpmf(&ys[..], &vector_from(&v[..4]), &vector_from(&v[4..]), true)
                .unwrap()
        },
        &[&x],
    );
    // Far tails (both cut-points on one side of η), a scalar η broadcast, data cut-points.
    let far: &[&[f64]] = &[&[12.0, -1.0, 0.5, 2.0], &[-9.0, -1.0, 0.5, 2.0]];
    for y in [1i64, 2, 3, 4] {
        check_gradient(
            |v| ordered_probit_lpmf(y, v[0], &v[1..], false).unwrap(),
            far,
        );
    }
    check_gradient(
        |v| ordered_probit_lpmf(&ys[..], v[0], &CUTS[..], false).unwrap(),
        &[&[0.3]],
    );
    check_gradient_with(
        |v| ordered_probit_lpmf(&ys[..], &etas[..], v, false).unwrap(),
        &[&CUTS],
        GradCheck::default(),
    );
    // No constant term: propto changes nothing once an argument is a variable.
    tape::reset();
    let e = Var::new(0.3);
    let a = ordered_probit_lpmf(2i64, e, &CUTS[..], true).unwrap();
    let b = ordered_probit_lpmf(2i64, e, &CUTS[..], false).unwrap();
    assert_eq!(a.value(), b.value());
    assert_eq!(
        ordered_probit_lpmf(2i64, 0.3, &CUTS[..], true).unwrap(),
        0.0
    );
    // One node.
    let before = tape::stats().continuations;
    let c: Vec<Var> = CUTS.iter().map(|&c| Var::new(c)).collect();
    let _ = ordered_probit_lpmf(&ys[..], e, &c[..], false).unwrap();
    assert_eq!(tape::stats().continuations, before + 1);
    tape::reset();
}

#[test]
fn ordered_probit_validation() {
    let empty: &[f64] = &[];
    let inf = f64::INFINITY;
    assert_eq!(
        msg(ordered_probit_lpmf(1i64, 0.0, empty, false)),
        "ordered_probit_lpmf: size of Cut-points is 0, but must be positive"
    );
    assert_eq!(
        msg(ordered_probit_lpmf(
            &[1i64, 2][..],
            &[0.0; 3][..],
            &CUTS[..],
            false
        )),
        "ordered_probit_lpmf: Locations has size 3, but must have size 2"
    );
    assert_eq!(
        msg(ordered_probit_lpmf(5i64, 0.0, &CUTS[..], false)),
        "ordered_probit_lpmf: Random variable is 5, but must be in the interval [1, 4]"
    );
    assert_eq!(
        msg(ordered_probit_lpmf(0i64, inf, &[1.0, 0.0][..], false)),
        "ordered_probit_lpmf: Random variable is 0, but must be in the interval [1, 3]"
    );
    assert_eq!(
        msg(ordered_probit_lpmf(1i64, inf, &[1.0, 0.0][..], false)),
        "ordered_probit_lpmf: Cut-points is 0, but must be greater than the previous element \
         (an ordered vector)"
    );
    assert_eq!(
        msg(ordered_probit_lpmf(1i64, 0.0, &[0.0, inf][..], false)),
        "ordered_probit_lpmf: Final cut point is inf, but must be finite"
    );
    assert_eq!(
        msg(ordered_probit_lpmf(1i64, 0.0, &[-inf, 0.0][..], false)),
        "ordered_probit_lpmf: First cut point is -inf, but must be finite"
    );
    assert_eq!(
        msg(ordered_probit_lpmf(1i64, inf, &CUTS[..], false)),
        "ordered_probit_lpmf: Location parameter is inf, but must be finite"
    );
    let no_ys: &[i64] = &[];
    assert_eq!(
        ordered_probit_lpmf(no_ys, empty, &CUTS[..], false).unwrap(),
        0.0
    );
}
