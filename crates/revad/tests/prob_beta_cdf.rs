//! The beta distribution's CDFs `beta_cdf`, `beta_lcdf`, `beta_lccdf`: values against SciPy,
//! gradients against finite differences (every argument as a variable, scalar and container
//! forms) and against mpmath where the CDF underflows, the edges and the argument checks.

// The mpmath values keep the 20 digits printed; some SciPy values are ln 2 as printed.
#![allow(clippy::excessive_precision, clippy::approx_constant)]

use revad::prob::{beta_cdf, beta_lccdf, beta_lcdf};
use revad::testing::{assert_close, check_gradient_with, vector_from, GradCheck};

fn msg<T: std::fmt::Debug>(r: revad::Result<T>) -> String {
    r.unwrap_err().to_string()
}

#[test]
fn values_match_scipy() {
    // scipy 1.17.1: [y, alpha, beta, scipy.stats.beta.logcdf(y, alpha, beta),
    // scipy.stats.beta.logsf(y, alpha, beta)] (each checked against mpmath at 50 digits: SciPy's
    // relative error is at most 1.2e-14, at [0.2, 40, 60] logsf).
    let rows: &[[f64; 5]] = &[
        [0.3, 2.0, 1.0, -2.4079456086518722, -0.09431067947124132],
        [0.5, 0.5, 0.5, -0.6931471805599453, -0.6931471805599453],
        [1e-06, 0.7, 3.0, -8.840125370591975, -0.00014481507650435102],
        [0.999, 5.0, 0.5, -0.08090425392189893, -2.554668286568854],
        [
            0.2,
            40.0,
            60.0,
            -12.828975452075328,
            -2.6819293623977104e-06,
        ],
        [0.6, 40.0, 60.0, -2.781181902642151e-05, -10.49006338865812],
        [0.02, 3.0, 200.0, -0.26051684286232685, -1.4725199070053827],
        [0.9, 300.0, 2.5, -26.740301218868375, -2.436883325126534e-12],
        [
            0.45,
            1000.0,
            1000.0,
            -12.511728925486777,
            -3.683205652001186e-06,
        ],
        [0.7, 0.1, 0.1, -0.6213926068346596, -0.7704512385100225],
    ];
    for r in rows {
        let (y, a, b) = (r[0], r[1], r[2]);
        let lcdf: f64 = beta_lcdf(y, a, b).unwrap();
        let lccdf: f64 = beta_lccdf(y, a, b).unwrap();
        let cdf: f64 = beta_cdf(y, a, b).unwrap();
        let ctx = format!("row {r:?}");
        assert!((lcdf / r[3] - 1.0).abs() < 3e-14, "{ctx}: lcdf {lcdf:e}");
        assert!((lccdf / r[4] - 1.0).abs() < 3e-14, "{ctx}: lccdf {lccdf:e}");
        assert!((cdf / r[3].exp() - 1.0).abs() < 3e-14, "{ctx}: cdf {cdf:e}");
    }
    // Containers: the CDF is a product, the logs are sums.
    let ys = [0.3, 0.6, 0.9];
    let prod = ys
        .iter()
        .map(|&y| beta_cdf(y, 2.0, 3.0).unwrap())
        .product::<f64>();
    assert_close(beta_cdf(&ys[..], 2.0, 3.0).unwrap(), prod, 1e-15);
    let sum = ys
        .iter()
        .map(|&y| beta_lccdf(y, 2.0, 3.0).unwrap())
        .sum::<f64>();
    assert_close(beta_lccdf(&ys[..], 2.0, 3.0).unwrap(), sum, 1e-15);
}

#[test]
fn gradients_match_finite_differences() {
    let pts: &[&[f64]] = &[
        &[0.3, 2.0, 1.0],
        &[0.5, 0.5, 0.5],
        &[0.05, 0.7, 3.0],
        &[0.9, 5.0, 0.5],
        &[0.2, 40.0, 60.0],
        &[0.6, 40.0, 60.0],
        &[0.7, 0.3, 0.2],
    ];
    let opts = GradCheck {
        rel_tol: 1e-6,
        ..GradCheck::default()
    };
    check_gradient_with(|v| beta_lcdf(v[0], v[1], v[2]).unwrap(), pts, opts);
    check_gradient_with(|v| beta_lccdf(v[0], v[1], v[2]).unwrap(), pts, opts);
    check_gradient_with(|v| beta_cdf(v[0], v[1], v[2]).unwrap(), pts, opts);
    // Only some arguments variables.
    check_gradient_with(
        |v| beta_lcdf(0.3, v[0], v[1]).unwrap(),
        &[&[2.0, 3.0]],
        opts,
    );
    check_gradient_with(|v| beta_lccdf(v[0], 2.0, 3.0).unwrap(), &[&[0.4]], opts);
    check_gradient_with(|v| beta_cdf(0.4, 2.0, v[0]).unwrap(), &[&[3.0]], opts);
    // Containers.
    let x: &[f64] = &[0.3, 0.5, 0.8, 1.5, 2.5];
    check_gradient_with(
        |v| beta_lcdf(&vector_from(&v[..3]), v[3], v[4]).unwrap(),
        &[x],
        opts,
    );
    check_gradient_with(|v| beta_cdf(&v[..3], v[3], v[4]).unwrap(), &[x], opts);
    check_gradient_with(
        |v| beta_lccdf(&[0.2, 0.5, 0.7][..], &v[..3], &v[3..]).unwrap(),
        &[&[0.5, 1.0, 2.0, 1.0, 2.0, 0.5]],
        opts,
    );
}

#[test]
fn underflowing_tails_keep_value_and_gradient() {
    // mpmath 1.3.0 at 50 digits: L = log(betainc(a, b, 0, y, regularized=True)) at
    // (y, a, b) = (0.01, 200, 3) and its mpmath.diff in y, a, b; the mirror for the lccdf,
    // log(betainc(b, a, 0, 1 − y)) at (0.99, 3, 200). The CDF itself is about 1e-396.
    let (v, g) = revad::gradient(
        |v| beta_lcdf(v[0], v[1], v[2]).unwrap(),
        &[0.01, 200.0, 3.0],
    );
    assert_close(v, -911.13561193688691407, 1e-13);
    assert_close(g[0], 19997.98995025380618, 1e-12);
    assert_close(g[1], -4.5952450665977297162, 1e-12);
    assert_close(g[2], 4.3779564879648379509, 1e-12);
    let (v, g) = revad::gradient(
        |v| beta_lccdf(v[0], v[1], v[2]).unwrap(),
        &[0.99, 3.0, 200.0],
    );
    assert_close(v, -911.13561193688674061, 1e-13);
    assert_close(g[0], -19997.989950253788833, 1e-12);
    assert_close(g[1], 4.3779564879648379422, 1e-12);
    assert_close(g[2], -4.5952450665977288488, 1e-12);
    assert_eq!(beta_cdf(0.01, 200.0, 3.0).unwrap(), 0.0);
}

#[test]
fn edges_and_empty_containers() {
    assert_eq!(beta_cdf(0.0, 2.0, 3.0).unwrap(), 0.0);
    assert_eq!(beta_cdf(1.0, 2.0, 3.0).unwrap(), 1.0);
    assert_eq!(beta_lcdf(0.0, 2.0, 3.0).unwrap(), f64::NEG_INFINITY);
    assert_eq!(beta_lcdf(1.0, 2.0, 3.0).unwrap(), 0.0);
    assert_eq!(beta_lccdf(0.0, 2.0, 3.0).unwrap(), 0.0);
    assert_eq!(beta_lccdf(1.0, 2.0, 3.0).unwrap(), f64::NEG_INFINITY);
    // At y = 1 the shape gradients vanish.
    let (_, g) = revad::gradient(|v| beta_lcdf(1.0, v[0], v[1]).unwrap(), &[2.0, 3.0]);
    assert_eq!(g, vec![0.0, 0.0]);
    let empty: &[f64] = &[];
    assert_eq!(beta_cdf(empty, 2.0, 3.0).unwrap(), 1.0);
    assert_eq!(beta_lcdf(empty, 2.0, 3.0).unwrap(), 0.0);
}

#[test]
fn argument_checks_use_stans_messages() {
    assert_eq!(
        msg(beta_cdf(1.5, 2.0, 3.0)),
        "beta_cdf: Random variable is 1.5, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(beta_lcdf(f64::NAN, 2.0, 3.0)),
        "beta_lcdf: Random variable is NaN, but must be in the interval [0, 1]"
    );
    assert_eq!(
        msg(beta_lccdf(0.5, -1.0, 3.0)),
        "beta_lccdf: First shape parameter is -1, but must be positive finite"
    );
    assert_eq!(
        msg(beta_cdf(0.5, 2.0, f64::INFINITY)),
        "beta_cdf: Second shape parameter is inf, but must be positive finite"
    );
    assert_eq!(
        msg(beta_lcdf(&[0.5, 0.6][..], &[2.0, 3.0, 4.0][..], 1.0)),
        "beta_lcdf: First shape parameter has size 3, but must have size 2"
    );
}
