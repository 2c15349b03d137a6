//! The CDFs of the binomial, negative binomial (both parametrisations), beta-binomial and
//! Student-t distributions: values against mpmath (and SciPy where it keeps its digits), into
//! both tails; cdf = exp(lcdf) and lccdf = log1p(−cdf); gradients against finite differences
//! (scalar and container forms, every real argument a variable or a constant) and against
//! mpmath derivatives where the CDF underflows; Stan's edge conventions; every argument check.

// The row at t = 0 holds −ln 2 as printed by mpmath.
#![allow(clippy::approx_constant)]

use revad::prob::{
    beta_binomial_cdf, beta_binomial_lccdf, beta_binomial_lcdf, binomial_cdf, binomial_lccdf,
    binomial_lcdf, neg_binomial_2_cdf, neg_binomial_2_lccdf, neg_binomial_2_lcdf, neg_binomial_cdf,
    neg_binomial_lccdf, neg_binomial_lcdf, student_t_cdf, student_t_lccdf, student_t_lcdf,
};
use revad::testing::{assert_close, check_gradient_with, vector_from, GradCheck};
use revad::{tape, Var};

// The reference rows are [arguments…, log P(X ≤ x), log P(X > x)], computed with mpmath 1.3.0
// at 60 digits and rounded to the nearest double: the binomial and beta-binomial as exact
// sums of the pmf over each side, the negative binomials as betainc(α, n + 1, 0, p) and
// betainc(n + 1, α, 0, 1 − p) with p from the same doubles, Student-t as ½ betainc(ν/2, ½, 0,
// ν/(ν + t²)) with t = (y − μ)/σ in doubles, the side near 1 as log1p of the other. SciPy 1.17.1
// (binom, nbinom, betabinom, t: logcdf, logsf) agrees with every value to 1e-13 except on the
// rows marked below, where it loses digits (or underflows) in the far tails.

/// `a` within `tol` of `b` relative, or both below the smallest normal double (a log CDF of
/// a side that is 1 − 1e-600 is −1e-600, which rounds to zero).
#[track_caller]
fn close(a: f64, b: f64, tol: f64, ctx: &str) {
    let ok = if b.abs() < 1e-300 {
        a.abs() < 1e-300
    } else {
        ((a - b) / b).abs() <= tol
    };
    assert!(ok, "{ctx}: {a:e} against {b:e}");
}

/// The consistency of the three forms at one point: cdf = exp(lcdf), and where the
/// complement is not tiny, lccdf = log1p(−cdf) to `tol` relative in the probabilities.
#[track_caller]
fn consistent(cdf: f64, lcdf: f64, lccdf: f64, tol: f64, ctx: &str) {
    assert_close(cdf, lcdf.exp(), 1e-14);
    if lccdf > -20.0 {
        // relative errors `tol` in cdf and in 1 − cdf give these absolute errors in the logs
        let bound = tol * (1.0 + cdf / lccdf.exp());
        let other = (-cdf).ln_1p();
        assert!(
            (lccdf - other).abs() <= bound,
            "{ctx}: lccdf {lccdf:e}, log1p(-cdf) {other:e}"
        );
    }
}

fn msg<T: std::fmt::Debug>(r: revad::Result<T>) -> String {
    r.unwrap_err().to_string()
}

fn opts() -> GradCheck {
    GradCheck {
        rel_tol: 1e-6,
        abs_tol: 1e-8,
        step: None,
    }
}

// ---------------------------------------------------------------------------------------------
// binomial

#[test]
fn binomial_values() {
    // [n, N, θ, lcdf, lccdf]
    let rows: &[[f64; 5]] = &[
        [0.0, 10.0, 0.3, -3.5667494393873236, -0.02865416219876474],
        [3.0, 10.0, 0.3, -0.4313819902707923, -1.048710509428851],
        [7.0, 10.0, 0.3, -0.0015916524069221612, -6.443778273406375],
        [9.0, 10.0, 0.3, -5.904917433990634e-06, -12.03972804325936],
        // SciPy loses digits on the row above: relative error 6.0e-12, 0.0e+00
        [5.0, 20.0, 0.5, -3.877876071670355, -0.02091186959734803],
        [0.0, 2000.0, 0.5, -1386.2943611198907, 0.0],
        // SciPy loses digits on the row above: relative error inf, 0.0e+00
        [10.0, 2000.0, 0.5, -1325.4072521068736, 0.0],
        // SciPy loses digits on the row above: relative error inf, 0.0e+00
        [1990.0, 2000.0, 0.5, 0.0, -1330.7015660041907],
        // SciPy loses digits on the row above: relative error 0.0e+00, inf
        [
            2.0,
            100.0,
            0.001,
            -0.00015038767351353299,
            -8.802369300723404,
        ],
        // SciPy loses digits on the row above: relative error 2.1e-13, 2.0e-16
        [
            50.0,
            100.0,
            0.9,
            -53.49867558666972,
            -5.8320387857342875e-24,
        ],
        // SciPy loses digits on the row above: relative error 1.3e-16, 1.0e+00
        [
            150.0,
            1000.0,
            0.2,
            -10.54050464234866,
            -2.644373154137007e-05,
        ],
        // SciPy loses digits on the row above: relative error 1.7e-16, 1.8e-12
        [0.0, 1.0, 1e-10, -1.00000000005e-10, -23.025850929940457],
        // SciPy loses digits on the row above: relative error 8.3e-08, 0.0e+00
        [
            3.0,
            10.0,
            1e-12,
            -2.0999999999899198e-46,
            -105.17697693300153,
        ],
        // SciPy loses digits on the row above: relative error 1.0e+00, 0.0e+00
        [
            6.0,
            8.0,
            0.999999,
            -24.29882060569633,
            -2.7999888002212304e-11,
        ],
        // SciPy loses digits on the row above: relative error 0.0e+00, 1.7e-06
    ];
    for r in rows {
        let (n, m, t) = (r[0] as i64, r[1] as i64, r[2]);
        let ctx = format!("binomial {r:?}");
        let lcdf: f64 = binomial_lcdf(n, m, t).unwrap();
        let lccdf: f64 = binomial_lccdf(n, m, t).unwrap();
        let cdf: f64 = binomial_cdf(n, m, t).unwrap();
        close(lcdf, r[3], 1e-13, &ctx);
        close(lccdf, r[4], 1e-13, &ctx);
        close(cdf, r[3].exp(), 1e-13, &ctx);
        consistent(cdf, lcdf, lccdf, 1e-14, &ctx);
    }
}

#[test]
fn binomial_gradients() {
    let o = opts();
    for (n, m) in [(0i64, 10i64), (3, 10), (9, 10), (40, 100)] {
        let pts: &[&[f64]] = &[&[0.3], &[0.05], &[0.97], &[0.5]];
        check_gradient_with(|v| binomial_lcdf(n, m, v[0]).unwrap(), pts, o);
        check_gradient_with(|v| binomial_lccdf(n, m, v[0]).unwrap(), pts, o);
        check_gradient_with(|v| binomial_cdf(n, m, v[0]).unwrap(), pts, o);
    }
    // Containers: a vector variable, a slice of variables, a broadcast scalar.
    let ns = [1i64, 4, 0];
    let ms = [5i64, 9, 3];
    let x: &[f64] = &[0.2, 0.5, 0.7];
    check_gradient_with(
        |v| binomial_lcdf(&ns[..], &ms[..], &vector_from(v)).unwrap(),
        &[x],
        o,
    );
    check_gradient_with(|v| binomial_cdf(&ns[..], &ms[..], v).unwrap(), &[x], o);
    check_gradient_with(
        |v| binomial_lccdf(&ns[..], 9i64, v[0]).unwrap(),
        &[&[0.4]],
        o,
    );
    // Deep in the tails, against mpmath.diff of log betainc: d/dθ log P(X ≤ 10 | 2000, ½)
    // and d/dθ log P(X > 1990 | 2000, ½).
    let (v, g) = revad::gradient(|v| binomial_lcdf(10i64, 2000i64, v[0]).unwrap(), &[0.5]);
    close(v, -1325.4072521068736, 1e-14, "binomial lcdf tail");
    close(
        g[0],
        -3960.0201712730013,
        1e-12,
        "binomial lcdf tail gradient",
    );
    let (v, g) = revad::gradient(|v| binomial_lccdf(1990i64, 2000i64, v[0]).unwrap(), &[0.5]);
    close(v, -1330.7015660041907, 1e-14, "binomial lccdf tail");
    close(
        g[0],
        3964.018135873087,
        1e-12,
        "binomial lccdf tail gradient",
    );
}

#[test]
fn binomial_edges() {
    // n < 0: P(X ≤ n) = 0 (the whole product); an lccdf term is 0.
    assert_eq!(binomial_cdf(-1i64, 5i64, 0.3).unwrap(), 0.0);
    assert_eq!(binomial_lcdf(-1i64, 5i64, 0.3).unwrap(), f64::NEG_INFINITY);
    assert_eq!(binomial_lccdf(-1i64, 5i64, 0.3).unwrap(), 0.0);
    let both: f64 = binomial_lccdf(&[-2i64, 2][..], 5i64, 0.3).unwrap();
    assert_eq!(both, binomial_lccdf(2i64, 5i64, 0.3).unwrap());
    assert_eq!(binomial_cdf(&[-2i64, 2][..], 5i64, 0.3).unwrap(), 0.0);
    // n ≥ N: P(X ≤ n) = 1, also for N = 0 and n > N.
    for (n, m) in [(5i64, 5i64), (7, 5), (0, 0)] {
        assert_eq!(binomial_cdf(n, m, 0.3).unwrap(), 1.0);
        assert_eq!(binomial_lcdf(n, m, 0.3).unwrap(), 0.0);
        assert_eq!(binomial_lccdf(n, m, 0.3).unwrap(), f64::NEG_INFINITY);
    }
    let (_, g) = revad::gradient(
        |v| binomial_lcdf(&[5i64, 2][..], 5i64, v[0]).unwrap(),
        &[0.3],
    );
    let (_, g2) = revad::gradient(|v| binomial_lcdf(2i64, 5i64, v[0]).unwrap(), &[0.3]);
    assert_close(g[0], g2[0], 1e-15);
    // θ at the ends of [0, 1].
    assert_eq!(binomial_cdf(2i64, 5i64, 0.0).unwrap(), 1.0);
    assert_eq!(binomial_lccdf(2i64, 5i64, 0.0).unwrap(), f64::NEG_INFINITY);
    assert_eq!(binomial_cdf(2i64, 5i64, 1.0).unwrap(), 0.0);
    assert_eq!(binomial_lcdf(2i64, 5i64, 1.0).unwrap(), f64::NEG_INFINITY);
    assert_eq!(binomial_lccdf(2i64, 5i64, 1.0).unwrap(), 0.0);
    // lcdf(0 | N, θ) = N log(1 − θ): derivative −N at θ = 0.
    let (v, g) = revad::gradient(|v| binomial_lcdf(0i64, 7i64, v[0]).unwrap(), &[0.0]);
    assert_eq!(v, 0.0);
    assert_close(g[0], -7.0, 1e-15);
    // Where the value is −∞ the partial is 0 (as Stan), not ±∞ or NaN.
    let (_, g) = revad::gradient(|v| binomial_lcdf(2i64, 5i64, v[0]).unwrap(), &[1.0]);
    assert_eq!(g[0], 0.0);
    // Empty containers.
    let empty: &[i64] = &[];
    assert_eq!(binomial_cdf(empty, 5i64, 0.3).unwrap(), 1.0);
    assert_eq!(binomial_lcdf(empty, 5i64, 0.3).unwrap(), 0.0);
    assert_eq!(binomial_lccdf(3i64, 5i64, &[][..] as &[f64]).unwrap(), 0.0);
}

#[test]
fn binomial_argument_checks() {
    assert_eq!(
        msg(binomial_cdf(1i64, -2i64, 0.3)),
        "binomial_cdf: Population size parameter is -2, but must be nonnegative"
    );
    assert_eq!(
        msg(binomial_lcdf(1i64, 4i64, 1.5)),
        "binomial_lcdf: Probability parameter is 1.5, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(binomial_lccdf(1i64, 4i64, f64::NAN)),
        "binomial_lccdf: Probability parameter is NaN, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(binomial_lcdf(&[1i64, 2][..], &[4i64, 4, 4][..], 0.3)),
        "binomial_lcdf: Population size parameter has size 3, but must have size 2"
    );
    assert_eq!(
        msg(binomial_cdf(1i64, &[4i64, 4][..], &[0.3, 0.2, 0.1][..])),
        "binomial_cdf: Probability parameter has size 3, but must have size 2"
    );
}

// ---------------------------------------------------------------------------------------------
// neg_binomial

#[test]
fn neg_binomial_values() {
    // [n, α, β, lcdf, lccdf]
    let rows: &[[f64; 5]] = &[
        [0.0, 1.0, 0.5, -1.0986122886681098, -0.4054651081081644],
        [3.0, 2.5, 0.7, -0.546752546513924, -0.8647103534812917],
        [10.0, 0.3, 0.05, -0.19820700821113713, -1.7159104206724474],
        [0.0, 500.0, 0.01, -2307.56025842063, 0.0],
        // SciPy loses digits on the row above: relative error inf, 0.0e+00
        [
            1000.0,
            2.0,
            1.0,
            -2.3401585233968213e-299,
            -687.6227241331032,
        ],
        [
            5.0,
            0.001,
            1000.0,
            -1.661909156355015e-22,
            -50.14890501016246,
        ],
        // SciPy loses digits on the row above: relative error 2.0e-13, 4.1e-15
        [
            20.0,
            50.0,
            1000000.0,
            -3.8541341114131386e-109,
            -249.63262876898472,
        ],
        // SciPy loses digits on the row above: relative error 1.0e-09, 4.2e-12
        [100.0, 10.0, 0.1, -0.6013484392004201, -0.7942326156218953],
        [7.0, 3.0, 0.4, -0.5477899281427009, -0.8632864144729185],
    ];
    for r in rows {
        let (n, a, b) = (r[0] as i64, r[1], r[2]);
        let ctx = format!("neg_binomial {r:?}");
        let lcdf: f64 = neg_binomial_lcdf(n, a, b).unwrap();
        let lccdf: f64 = neg_binomial_lccdf(n, a, b).unwrap();
        let cdf: f64 = neg_binomial_cdf(n, a, b).unwrap();
        close(lcdf, r[3], 1e-13, &ctx);
        close(lccdf, r[4], 1e-13, &ctx);
        close(cdf, r[3].exp(), 1e-13, &ctx);
        consistent(cdf, lcdf, lccdf, 1e-14, &ctx);
    }
}

#[test]
fn neg_binomial_gradients() {
    let o = opts();
    let pts: &[&[f64]] = &[
        &[2.5, 0.7],
        &[0.3, 0.05],
        &[10.0, 0.1],
        &[1.0, 20.0],
        &[0.05, 3.0],
    ];
    for n in [0i64, 3, 25] {
        check_gradient_with(|v| neg_binomial_lcdf(n, v[0], v[1]).unwrap(), pts, o);
        check_gradient_with(|v| neg_binomial_lccdf(n, v[0], v[1]).unwrap(), pts, o);
        check_gradient_with(|v| neg_binomial_cdf(n, v[0], v[1]).unwrap(), pts, o);
    }
    // One argument a variable, the other a constant.
    check_gradient_with(
        |v| neg_binomial_lcdf(4i64, v[0], 0.8).unwrap(),
        &[&[1.7]],
        o,
    );
    check_gradient_with(
        |v| neg_binomial_lccdf(4i64, 1.7, v[0]).unwrap(),
        &[&[0.8]],
        o,
    );
    // Containers.
    let ns = [0i64, 2, 7];
    let x: &[f64] = &[0.5, 2.0, 4.0, 1.5];
    check_gradient_with(
        |v| neg_binomial_lcdf(&ns[..], &vector_from(&v[..3]), v[3]).unwrap(),
        &[x],
        o,
    );
    check_gradient_with(
        |v| neg_binomial_cdf(&ns[..], v[3], &v[..3]).unwrap(),
        &[x],
        o,
    );
    check_gradient_with(
        |v| neg_binomial_lccdf(&ns[..], &v[..3], &[0.5, 1.0, 2.0][..]).unwrap(),
        &[&x[..3]],
        o,
    );
    // Deep tails, against mpmath.diff: log P(X > 20 | α = 50, β = 1e6) (about 1e-109) and
    // log P(X ≤ 0 | α = 500, β = 0.01) (about 1e-1002).
    let (v, g) = revad::gradient(
        |v| neg_binomial_lccdf(20i64, v[0], v[1]).unwrap(),
        &[50.0, 1e6],
    );
    close(v, -249.63262876898472, 1e-14, "neg_binomial lccdf tail");
    close(g[0], 0.3536304647637826, 1e-12, "∂α");
    close(g[1], -2.0999932227347065e-05, 1e-12, "∂β");
    let (v, g) = revad::gradient(
        |v| neg_binomial_lcdf(0i64, v[0], v[1]).unwrap(),
        &[500.0, 0.01],
    );
    close(v, -2307.56025842063, 1e-14, "neg_binomial lcdf tail");
    close(g[0], -4.61512051684126, 1e-12, "∂α");
    close(g[1], 49504.9504950495, 1e-12, "∂β");
}

#[test]
fn neg_binomial_edges() {
    assert_eq!(neg_binomial_cdf(-1i64, 2.0, 0.5).unwrap(), 0.0);
    assert_eq!(
        neg_binomial_lcdf(-1i64, 2.0, 0.5).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(neg_binomial_lccdf(-1i64, 2.0, 0.5).unwrap(), 0.0);
    let both: f64 = neg_binomial_lccdf(&[-1i64, 3][..], 2.0, 0.5).unwrap();
    assert_eq!(both, neg_binomial_lccdf(3i64, 2.0, 0.5).unwrap());
    let (v, g) = revad::gradient(
        |v| neg_binomial_lcdf(&[-1i64, 3][..], v[0], v[1]).unwrap(),
        &[2.0, 0.5],
    );
    assert_eq!(v, f64::NEG_INFINITY);
    assert_eq!(g, vec![0.0, 0.0]);
    let empty: &[f64] = &[];
    assert_eq!(neg_binomial_cdf(3i64, empty, 0.5).unwrap(), 1.0);
    assert_eq!(neg_binomial_lccdf(3i64, empty, 0.5).unwrap(), 0.0);
}

#[test]
fn neg_binomial_argument_checks() {
    assert_eq!(
        msg(neg_binomial_cdf(1i64, 0.0, 0.5)),
        "neg_binomial_cdf: Shape parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(neg_binomial_lcdf(1i64, f64::INFINITY, 0.5)),
        "neg_binomial_lcdf: Shape parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(neg_binomial_lccdf(1i64, 2.0, -0.5)),
        "neg_binomial_lccdf: Inverse scale parameter is -0.5, but must be positive finite"
    );
    assert_eq!(
        msg(neg_binomial_cdf(1i64, 2.0, f64::NAN)),
        "neg_binomial_cdf: Inverse scale parameter is NaN, but must be positive finite"
    );
    assert_eq!(
        msg(neg_binomial_lcdf(&[1i64, 2][..], &[1.0, 2.0, 3.0][..], 0.5)),
        "neg_binomial_lcdf: Shape parameter has size 3, but must have size 2"
    );
}

// ---------------------------------------------------------------------------------------------
// neg_binomial_2

#[test]
fn neg_binomial_2_values() {
    // [n, μ, φ, lcdf, lccdf]
    let rows: &[[f64; 5]] = &[
        [0.0, 3.0, 1.0, -1.3862943611198906, -0.2876820724517809],
        [4.0, 3.5, 2.2, -0.3487586808669394, -1.222691496568424],
        [30.0, 10.0, 0.5, -0.0868918397675097, -2.4862225031802367],
        [
            0.0,
            1000.0,
            100.0,
            -239.78952727983705,
            -7.256571590148201e-105,
        ],
        // SciPy loses digits on the row above: relative error 0.0e+00, 1.0e+00
        [2000.0, 10.0, 5.0, 0.0, -788.4935812246284],
        // SciPy loses digits on the row above: relative error 0.0e+00, inf
        [
            5.0,
            0.0001,
            3.0,
            -3.8398904046482774e-26,
            -58.52176859210902,
        ],
        // SciPy loses digits on the row above: relative error 1.1e-11, 1.9e-13
        [
            50.0,
            40.0,
            10000.0,
            -0.05443712834942419,
            -2.9378039436830874,
        ],
        [12.0, 12.0, 0.01, -0.04005354844174644, -3.2374979389328082],
    ];
    for r in rows {
        let (n, m, p) = (r[0] as i64, r[1], r[2]);
        let ctx = format!("neg_binomial_2 {r:?}");
        let lcdf: f64 = neg_binomial_2_lcdf(n, m, p).unwrap();
        let lccdf: f64 = neg_binomial_2_lccdf(n, m, p).unwrap();
        let cdf: f64 = neg_binomial_2_cdf(n, m, p).unwrap();
        close(lcdf, r[3], 1e-13, &ctx);
        close(lccdf, r[4], 1e-13, &ctx);
        close(cdf, r[3].exp(), 1e-13, &ctx);
        consistent(cdf, lcdf, lccdf, 1e-14, &ctx);
        // The same distribution as neg_binomial(α = φ, β = φ/μ).
        let nb: f64 = neg_binomial_lcdf(n, p, p / m).unwrap();
        close(lcdf, nb, 1e-12, &ctx);
    }
}

#[test]
fn neg_binomial_2_gradients() {
    let o = opts();
    let pts: &[&[f64]] = &[
        &[3.5, 2.2],
        &[10.0, 0.5],
        &[0.2, 5.0],
        &[40.0, 1e3],
        &[1.0, 0.05],
    ];
    for n in [0i64, 4, 30] {
        check_gradient_with(|v| neg_binomial_2_lcdf(n, v[0], v[1]).unwrap(), pts, o);
        check_gradient_with(|v| neg_binomial_2_lccdf(n, v[0], v[1]).unwrap(), pts, o);
        check_gradient_with(|v| neg_binomial_2_cdf(n, v[0], v[1]).unwrap(), pts, o);
    }
    check_gradient_with(
        |v| neg_binomial_2_lcdf(4i64, v[0], 2.0).unwrap(),
        &[&[3.0]],
        o,
    );
    check_gradient_with(
        |v| neg_binomial_2_lccdf(4i64, 3.0, v[0]).unwrap(),
        &[&[2.0]],
        o,
    );
    let ns = [1i64, 0, 6];
    let x: &[f64] = &[1.5, 4.0, 2.5, 3.0];
    check_gradient_with(
        |v| neg_binomial_2_lccdf(&ns[..], &vector_from(&v[..3]), v[3]).unwrap(),
        &[x],
        o,
    );
    check_gradient_with(
        |v| neg_binomial_2_cdf(&ns[..], v[3], &v[..3]).unwrap(),
        &[x],
        o,
    );
    // Far upper tail against mpmath.diff: log P(X > 2000 | μ = 10, φ = 5).
    let (v, g) = revad::gradient(
        |v| neg_binomial_2_lccdf(2000i64, v[0], v[1]).unwrap(),
        &[10.0, 5.0],
    );
    close(v, -788.4935812246284, 1e-14, "neg_binomial_2 lccdf tail");
    close(g[0], 66.43373373013199, 1e-12, "∂μ");
    close(g[1], -127.86754672831677, 1e-12, "∂φ");
}

#[test]
fn neg_binomial_2_edges_and_checks() {
    assert_eq!(neg_binomial_2_cdf(-3i64, 2.0, 0.5).unwrap(), 0.0);
    assert_eq!(
        neg_binomial_2_lcdf(-3i64, 2.0, 0.5).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(neg_binomial_2_lccdf(-3i64, 2.0, 0.5).unwrap(), 0.0);
    let empty: &[i64] = &[];
    assert_eq!(neg_binomial_2_cdf(empty, 2.0, 0.5).unwrap(), 1.0);
    assert_eq!(neg_binomial_2_lcdf(empty, 2.0, 0.5).unwrap(), 0.0);
    assert_eq!(
        msg(neg_binomial_2_cdf(1i64, -1.0, 0.5)),
        "neg_binomial_2_cdf: Location parameter is -1, but must be positive finite"
    );
    assert_eq!(
        msg(neg_binomial_2_lcdf(1i64, f64::NAN, 0.5)),
        "neg_binomial_2_lcdf: Location parameter is NaN, but must be positive finite"
    );
    assert_eq!(
        msg(neg_binomial_2_lccdf(1i64, 2.0, f64::INFINITY)),
        "neg_binomial_2_lccdf: Precision parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(neg_binomial_2_cdf(1i64, 2.0, 0.0)),
        "neg_binomial_2_cdf: Precision parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(neg_binomial_2_lccdf(&[1i64, 2][..], 2.0, &[1.0][..])),
        "neg_binomial_2_lccdf: Precision parameter has size 1, but must have size 2"
    );
}

// ---------------------------------------------------------------------------------------------
// beta_binomial

#[test]
fn beta_binomial_values() {
    // [n, N, α, β, lcdf, lccdf]
    let rows: &[[f64; 6]] = &[
        [
            0.0,
            10.0,
            1.0,
            2.0,
            -1.791759469228055,
            -0.18232155679395462,
        ],
        [4.0, 10.0, 2.5, 3.5, -0.5643438206565707, -0.841028390424766],
        [
            9.0,
            10.0,
            0.5,
            0.5,
            -0.1938239184504503,
            -1.7361522965964518,
        ],
        [
            2.0,
            50.0,
            0.3,
            7.0,
            -0.28968304525011745,
            -1.3803153544961095,
        ],
        [
            45.0,
            50.0,
            20.0,
            0.8,
            -2.040921411871921,
            -0.13915742460272618,
        ],
        [
            0.0,
            500.0,
            50.0,
            2.0,
            -160.88417987545148,
            -1.3455147238155948e-70,
        ],
        // SciPy loses digits on the row above: relative error 0.0e+00, 1.0e+00
        [
            495.0,
            500.0,
            1.0,
            40.0,
            -2.4650897125719658e-56,
            -128.04253700628166,
        ],
        // SciPy loses digits on the row above: relative error 5.9e+42, nan
        [
            30.0,
            60.0,
            10.0,
            10.0,
            -0.6435851639426553,
            -0.7452942687180499,
        ],
        [
            1.0,
            3.0,
            0.001,
            1000.0,
            -2.996000007488004e-09,
            -19.625987770290106,
        ],
        // SciPy loses digits on the row above: relative error 2.5e-04, 1.3e-05
        [
            700.0,
            1000.0,
            300.0,
            150.0,
            -0.10722493697581234,
            -2.2859599012688046,
        ],
        // SciPy loses digits on the row above: relative error 5.6e-12, 2.3e-12
    ];
    for r in rows {
        let (n, m, a, b) = (r[0] as i64, r[1] as i64, r[2], r[3]);
        let ctx = format!("beta_binomial {r:?}");
        // The log pmf terms carry the rounding of their ln Γ parts (about 7000 at N = 1000),
        // so the sums are good to about 1e-12 relative there (see the module notes).
        let lcdf: f64 = beta_binomial_lcdf(n, m, a, b).unwrap();
        let lccdf: f64 = beta_binomial_lccdf(n, m, a, b).unwrap();
        let cdf: f64 = beta_binomial_cdf(n, m, a, b).unwrap();
        close(lcdf, r[4], 2e-12, &ctx);
        close(lccdf, r[5], 2e-12, &ctx);
        close(cdf, r[4].exp(), 2e-12, &ctx);
        consistent(cdf, lcdf, lccdf, 2e-13, &ctx);
    }
    // A naive cross-check: the sum of exp(beta_binomial_lpmf) over the lower side.
    let naive: f64 = (0..=4)
        .map(|k| {
            let lp: f64 =
                revad::prob::beta_binomial_lpmf(k as i64, 10i64, 2.5, 3.5, false).unwrap();
            lp.exp()
        })
        .sum();
    assert_close(
        beta_binomial_cdf(4i64, 10i64, 2.5, 3.5).unwrap(),
        naive,
        1e-14,
    );
}

#[test]
fn beta_binomial_gradients() {
    let o = opts();
    let pts: &[&[f64]] = &[
        &[2.5, 3.5],
        &[0.3, 7.0],
        &[20.0, 0.8],
        &[1.0, 1.0],
        &[0.05, 0.2],
    ];
    for (n, m) in [(0i64, 10i64), (4, 10), (9, 10), (12, 40), (30, 40)] {
        check_gradient_with(|v| beta_binomial_lcdf(n, m, v[0], v[1]).unwrap(), pts, o);
        check_gradient_with(|v| beta_binomial_lccdf(n, m, v[0], v[1]).unwrap(), pts, o);
        check_gradient_with(|v| beta_binomial_cdf(n, m, v[0], v[1]).unwrap(), pts, o);
    }
    check_gradient_with(
        |v| beta_binomial_lcdf(3i64, 8i64, v[0], 2.0).unwrap(),
        &[&[1.5]],
        o,
    );
    check_gradient_with(
        |v| beta_binomial_lccdf(3i64, 8i64, 1.5, v[0]).unwrap(),
        &[&[2.0]],
        o,
    );
    let ns = [2i64, 0, 5];
    let ms = [6i64, 3, 9];
    let x: &[f64] = &[1.5, 0.5, 4.0, 2.0];
    check_gradient_with(
        |v| beta_binomial_lcdf(&ns[..], &ms[..], &vector_from(&v[..3]), v[3]).unwrap(),
        &[x],
        o,
    );
    check_gradient_with(
        |v| beta_binomial_cdf(&ns[..], &ms[..], v[3], &v[..3]).unwrap(),
        &[x],
        o,
    );
    check_gradient_with(
        |v| beta_binomial_lccdf(&ns[..], 9i64, &v[..3], &v[1..]).unwrap(),
        &[x],
        o,
    );
    // Deep tails against mpmath.diff of the log of the exact sums.
    let (v, g) = revad::gradient(
        |v| beta_binomial_lcdf(0i64, 500i64, v[0], v[1]).unwrap(),
        &[50.0, 2.0],
    );
    close(v, -160.88417987545148, 1e-13, "beta_binomial lcdf tail");
    close(g[0], -2.3710444591211255, 1e-12, "∂α");
    close(g[1], 3.4237749788534306, 1e-12, "∂β");
    let (v, g) = revad::gradient(
        |v| beta_binomial_lccdf(495i64, 500i64, v[0], v[1]).unwrap(),
        &[1.0, 40.0],
    );
    close(v, -128.04253700628166, 1e-13, "beta_binomial lccdf tail");
    close(g[0], 4.193828183340999, 1e-12, "∂α");
    close(g[1], -2.49698455127717, 1e-12, "∂β");
}

#[test]
fn beta_binomial_edges() {
    assert_eq!(beta_binomial_cdf(-1i64, 5i64, 2.0, 3.0).unwrap(), 0.0);
    assert_eq!(
        beta_binomial_lcdf(-1i64, 5i64, 2.0, 3.0).unwrap(),
        f64::NEG_INFINITY
    );
    assert_eq!(beta_binomial_lccdf(-1i64, 5i64, 2.0, 3.0).unwrap(), 0.0);
    for (n, m) in [(5i64, 5i64), (6, 5), (0, 0)] {
        assert_eq!(beta_binomial_cdf(n, m, 2.0, 3.0).unwrap(), 1.0);
        assert_eq!(beta_binomial_lcdf(n, m, 2.0, 3.0).unwrap(), 0.0);
        assert_eq!(
            beta_binomial_lccdf(n, m, 2.0, 3.0).unwrap(),
            f64::NEG_INFINITY
        );
    }
    let both: f64 = beta_binomial_lccdf(&[-1i64, 2][..], 5i64, 2.0, 3.0).unwrap();
    assert_eq!(both, beta_binomial_lccdf(2i64, 5i64, 2.0, 3.0).unwrap());
    let (v, g) = revad::gradient(
        |v| beta_binomial_lccdf(&[5i64, 2][..], 5i64, v[0], v[1]).unwrap(),
        &[2.0, 3.0],
    );
    assert_eq!(v, f64::NEG_INFINITY);
    assert_eq!(g, vec![0.0, 0.0]);
    let empty: &[i64] = &[];
    assert_eq!(beta_binomial_cdf(3i64, empty, 2.0, 3.0).unwrap(), 1.0);
    assert_eq!(beta_binomial_lcdf(3i64, empty, 2.0, 3.0).unwrap(), 0.0);
}

#[test]
fn beta_binomial_argument_checks() {
    assert_eq!(
        msg(beta_binomial_cdf(1i64, -1i64, 2.0, 3.0)),
        "beta_binomial_cdf: Population size parameter is -1, but must be nonnegative"
    );
    assert_eq!(
        msg(beta_binomial_lcdf(1i64, 4i64, 0.0, 3.0)),
        "beta_binomial_lcdf: First prior sample size parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(beta_binomial_lccdf(1i64, 4i64, 2.0, f64::INFINITY)),
        "beta_binomial_lccdf: Second prior sample size parameter is inf, but must be positive \
         finite"
    );
    assert_eq!(
        msg(beta_binomial_cdf(1i64, 4i64, 2.0, f64::NAN)),
        "beta_binomial_cdf: Second prior sample size parameter is NaN, but must be positive finite"
    );
    assert_eq!(
        msg(beta_binomial_lcdf(
            &[1i64, 2][..],
            4i64,
            &[1.0, 2.0, 3.0][..],
            3.0
        )),
        "beta_binomial_lcdf: First prior sample size parameter has size 3, but must have size 2"
    );
}

// ---------------------------------------------------------------------------------------------
// student_t

#[test]
fn student_t_values() {
    // [y, ν, μ, σ, lcdf, lccdf]
    let rows: &[[f64; 6]] = &[
        [1.3, 3.0, 0.2, 0.5, -0.0593105850285554, -2.854476213350984],
        [
            -1.3,
            3.0,
            0.2,
            0.5,
            -3.546184675450908,
            -0.029258323485362992,
        ],
        [0.2, 3.0, 0.2, 0.5, -0.6931471805599453, -0.6931471805599453],
        [
            1e-09,
            1.0,
            0.0,
            1.0,
            -0.6931471799233255,
            -0.693147181196565,
        ],
        // SciPy loses digits on the row above: relative error 9.2e-10, 9.2e-10
        [
            -50.0,
            4.0,
            0.0,
            1.0,
            -14.552144357403813,
            -4.78722797436225e-07,
        ],
        [
            -1000000.0,
            2.5,
            0.0,
            1.0,
            -34.86819793946795,
            -7.193397190814242e-16,
        ],
        [
            1000000.0,
            30.0,
            0.0,
            2.0,
            -1.1128834323347295e-150,
            -345.2808096151512,
        ],
        [
            0.5,
            1000000.0,
            0.0,
            1.0,
            -0.36894649484496506,
            -1.1759115833002605,
        ],
        [
            -3.0,
            0.3,
            1.0,
            2.0,
            -1.2653701326934792,
            -0.33147354021970127,
        ],
        [
            10.0,
            100.0,
            0.0,
            1.0,
            -4.9508444922970696e-17,
            -37.54438841436501,
        ],
        [
            -10.0,
            100.0,
            0.0,
            1.0,
            -37.54438841436501,
            -4.9508444922970696e-17,
        ],
        [
            0.7,
            2.0,
            1.0,
            0.1,
            -3.0421326497423484,
            -0.048909803615967466,
        ],
        [
            -40.0,
            200.0,
            0.0,
            1.0,
            -223.2335312957019,
            -1.1243698267601253e-97,
        ],
        [
            0.01,
            50.0,
            0.0,
            1.0,
            -0.6852396093412041,
            -0.7011177801939945,
        ],
    ];
    for r in rows {
        let ctx = format!("student_t {r:?}");
        let lcdf: f64 = student_t_lcdf(r[0], r[1], r[2], r[3]).unwrap();
        let lccdf: f64 = student_t_lccdf(r[0], r[1], r[2], r[3]).unwrap();
        let cdf: f64 = student_t_cdf(r[0], r[1], r[2], r[3]).unwrap();
        close(lcdf, r[4], 2e-14, &ctx);
        close(lccdf, r[5], 2e-14, &ctx);
        close(cdf, r[4].exp(), 2e-14, &ctx);
        consistent(cdf, lcdf, lccdf, 1e-14, &ctx);
    }
    // ν = 1 is the Cauchy distribution.
    for y in [-30.0, -1.0, 0.3, 4.0] {
        let c: f64 = revad::prob::cauchy_cdf(y, 0.5, 2.0).unwrap();
        assert_close(student_t_cdf(y, 1.0, 0.5, 2.0).unwrap(), c, 1e-14);
    }
}

#[test]
fn student_t_large_nu() {
    // mpmath at 160 digits: the tail as ½(1 − 2∫₀^|t| f), f the density, by mp.quad. Near 1
    // the log of the complement of a tiny tail (here about 1e-75 and 1e-89) must survive.
    // The accuracy is that of the incomplete beta function with one large shape: the
    // tolerances are the measured errors (module notes), rounded up.
    let rows: &[([f64; 4], f64)] = &[
        (
            [-20.0, 1000.0, -171.98528267046822, -2.0311442497623856e-75],
            1e-13,
        ),
        (
            [3.0, 1000.0, -0.0013843122403304705, -6.583243916330419],
            1e-13,
        ),
        (
            [-3.0, 100000.0, -6.607480003297264, -0.0013511428245325497],
            3e-12,
        ),
        (
            [20.0, 100000.0, -4.111746955327181e-89, -203.5162252883121],
            1e-13,
        ),
        (
            [-3.0, 10000000.0, -6.607723759187777, -0.001350813293129661],
            5e-10,
        ),
        (
            [
                -20.0,
                10000000.0,
                -203.91313550267049,
                -2.7647156034788506e-89,
            ],
            2e-12,
        ),
    ];
    for (r, tol) in rows {
        let ctx = format!("student_t {r:?}");
        let lcdf: f64 = student_t_lcdf(r[0], r[1], 0.0, 1.0).unwrap();
        let lccdf: f64 = student_t_lccdf(r[0], r[1], 0.0, 1.0).unwrap();
        close(lcdf, r[2], *tol, &ctx);
        close(lccdf, r[3], *tol, &ctx);
    }
}

#[test]
fn student_t_gradients() {
    let o = opts();
    let pts: &[&[f64]] = &[
        &[1.3, 3.0, 0.2, 0.5],
        &[-1.3, 3.0, 0.2, 0.5],
        &[0.2, 3.0, 0.25, 0.5],
        &[-50.0, 4.0, 0.0, 1.0],
        &[8.0, 0.3, 1.0, 2.0],
        &[0.5, 200.0, 0.0, 1.0],
        &[-3.0, 30.0, 0.0, 0.7],
        &[2.0, 1.0, 0.0, 1.0],
    ];
    check_gradient_with(|v| student_t_lcdf(v[0], v[1], v[2], v[3]).unwrap(), pts, o);
    check_gradient_with(|v| student_t_lccdf(v[0], v[1], v[2], v[3]).unwrap(), pts, o);
    check_gradient_with(|v| student_t_cdf(v[0], v[1], v[2], v[3]).unwrap(), pts, o);
    // At t = 0 exactly (F = ½ for every ν, so ∂ν = 0).
    let (v, g) = revad::gradient(
        |v| student_t_lcdf(v[0], v[1], v[2], v[3]).unwrap(),
        &[1.0, 3.0, 1.0, 2.0],
    );
    assert_eq!(v, -std::f64::consts::LN_2);
    assert_eq!(g[1], 0.0);
    check_gradient_with(
        |v| student_t_lccdf(v[0], v[1], v[2], v[3]).unwrap(),
        &[&[1.0, 3.0, 1.0, 2.0]],
        o,
    );
    // Some arguments constants.
    check_gradient_with(
        |v| student_t_lcdf(0.4, v[0], 0.0, 1.0).unwrap(),
        &[&[2.5]],
        o,
    );
    check_gradient_with(
        |v| student_t_lccdf(v[0], 5.0, 0.0, v[1]).unwrap(),
        &[&[2.0, 1.5]],
        o,
    );
    // Containers.
    let x: &[f64] = &[-1.0, 0.5, 2.0, 4.0, 0.3, 1.2];
    check_gradient_with(
        |v| student_t_lcdf(&vector_from(&v[..3]), v[3], v[4], v[5]).unwrap(),
        &[x],
        o,
    );
    check_gradient_with(
        |v| student_t_cdf(&v[..3], &v[3..], 0.0, 1.5).unwrap(),
        &[x],
        o,
    );
    check_gradient_with(
        |v| student_t_lccdf(&[0.1, 2.0, -3.0][..], v[3], &v[..3], v[5]).unwrap(),
        &[x],
        o,
    );
    // Far tails against mpmath.diff: ∂/∂y and ∂/∂ν of log F(−1e6 | 2.5) (in the lcdf) and
    // of log F(−40 | 200) (as the lccdf at y = 40).
    let (v, g) = revad::gradient(
        |v| student_t_lcdf(v[0], v[1], 0.0, 1.0).unwrap(),
        &[-1e6, 2.5],
    );
    close(v, -34.86819793946795, 1e-14, "student_t lcdf tail");
    close(g[0], 2.499999999995139e-06, 1e-12, "∂y");
    close(g[1], -13.019902198567731, 1e-12, "∂ν");
    let (v, g) = revad::gradient(
        |v| student_t_lccdf(v[0], v[1], 0.0, 1.0).unwrap(),
        &[40.0, 200.0],
    );
    close(v, -223.2335312957019, 1e-14, "student_t lccdf tail");
    close(g[0], -4.447191375812406, 1e-12, "∂y");
    close(g[1], -0.6563838470102609, 1e-12, "∂ν");
}

#[test]
fn student_t_edges() {
    let inf = f64::INFINITY;
    assert_eq!(student_t_cdf(-inf, 3.0, 0.0, 1.0).unwrap(), 0.0);
    assert_eq!(student_t_cdf(inf, 3.0, 0.0, 1.0).unwrap(), 1.0);
    assert_eq!(student_t_lcdf(-inf, 3.0, 0.0, 1.0).unwrap(), -inf);
    assert_eq!(student_t_lcdf(inf, 3.0, 0.0, 1.0).unwrap(), 0.0);
    assert_eq!(student_t_lccdf(-inf, 3.0, 0.0, 1.0).unwrap(), 0.0);
    assert_eq!(student_t_lccdf(inf, 3.0, 0.0, 1.0).unwrap(), -inf);
    let (v, g) = revad::gradient(
        |v| student_t_lcdf(&[-inf, 1.0][..], v[0], v[1], v[2]).unwrap(),
        &[3.0, 0.0, 1.0],
    );
    assert_eq!(v, -inf);
    assert_eq!(g, vec![0.0, 0.0, 0.0]);
    let (v, g) = revad::gradient(
        |v| student_t_lcdf(&[inf, 1.0][..], v[0], v[1], v[2]).unwrap(),
        &[3.0, 0.0, 1.0],
    );
    let (v1, g1) = revad::gradient(
        |v| student_t_lcdf(1.0, v[0], v[1], v[2]).unwrap(),
        &[3.0, 0.0, 1.0],
    );
    assert_eq!(v, v1);
    assert_eq!(g, g1);
    // t so small that t²/ν underflows, or so large that ν/t² does: finite partials.
    for y in [1e-300, -1e-300, 1e200] {
        let (v, g) = revad::gradient(
            |v| student_t_lcdf(v[0], v[1], v[2], v[3]).unwrap(),
            &[y, 3.0, 0.0, 1.0],
        );
        assert!(
            v.is_finite() && g.iter().all(|d| d.is_finite()),
            "{y:e}: {v} {g:?}"
        );
    }
    let empty: &[f64] = &[];
    assert_eq!(student_t_cdf(empty, 3.0, 0.0, 1.0).unwrap(), 1.0);
    assert_eq!(student_t_lccdf(empty, 3.0, 0.0, 1.0).unwrap(), 0.0);
}

#[test]
fn student_t_argument_checks() {
    assert_eq!(
        msg(student_t_cdf(f64::NAN, 3.0, 0.0, 1.0)),
        "student_t_cdf: Random variable is NaN, but must not be NaN"
    );
    assert_eq!(
        msg(student_t_lcdf(0.5, 0.0, 0.0, 1.0)),
        "student_t_lcdf: Degrees of freedom parameter is 0, but must be positive finite"
    );
    assert_eq!(
        msg(student_t_lccdf(0.5, f64::INFINITY, 0.0, 1.0)),
        "student_t_lccdf: Degrees of freedom parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(student_t_cdf(0.5, 3.0, f64::NEG_INFINITY, 1.0)),
        "student_t_cdf: Location parameter is -inf, but must be finite"
    );
    assert_eq!(
        msg(student_t_lcdf(0.5, 3.0, 0.0, -2.0)),
        "student_t_lcdf: Scale parameter is -2, but must be positive finite"
    );
    assert_eq!(
        msg(student_t_lccdf(&[0.5, 1.0][..], 3.0, &[0.0][..], 1.0)),
        "student_t_lccdf: Location parameter has size 1, but must have size 2"
    );
}

// ---------------------------------------------------------------------------------------------

#[test]
fn one_node_per_call() {
    tape::reset();
    let t = [Var::new(0.3), Var::new(0.6)];
    let before = tape::stats().continuations;
    let _ = binomial_cdf(&[1i64, 2][..], 5i64, &t[..]).unwrap();
    let _ = neg_binomial_lcdf(&[1i64, 2][..], &t[..], t[1]).unwrap();
    let _ = neg_binomial_2_lccdf(&[1i64, 2][..], t[0], &t[..]).unwrap();
    let _ = beta_binomial_lcdf(&[1i64, 2][..], 5i64, &t[..], t[0]).unwrap();
    let _ = student_t_lccdf(&t[..], 3.0, t[0], 1.0).unwrap();
    assert_eq!(tape::stats().continuations, before + 5);
    // Constant arguments only: an f64 and nothing recorded.
    let c: f64 = student_t_cdf(&[0.3, 0.6][..], 3.0, 0.0, 1.0).unwrap();
    assert!(c > 0.0);
    assert_eq!(tape::stats().continuations, before + 5);
    tape::reset();
}
